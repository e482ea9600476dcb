// Recordings for Python: calibrate() over capture folders (host/recording/calibrate.h) and the comparison of
// recordings with the simulator (host/recording/compare.h), returned as plain dicts and lists.
#include <mutex>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "host/capture.h"
#include "host/recording/calibrate.h"
#include "host/recording/compare.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace ethosu::python {
namespace {

template <typename T>
py::object optional(const std::optional<T>& v) {
  return v ? py::cast(*v) : py::none();
}

py::dict calibrate(const std::vector<std::string>& paths, const std::vector<std::string>& fit,
                   const host::ConfigRequest& request, size_t max_evaluations) {
  host::CalibrationOptions o;
  o.fit = fit;
  o.base = request;
  o.max_evaluations = max_evaluations;
  std::vector<host::RecordedJob> jobs;
  host::CalibrationResult r;
  {
    py::gil_scoped_release released;
    std::lock_guard<std::mutex> lock(simulation_mutex());
    for (const auto& p : paths) jobs.emplace_back(host::read_capture(p), p);
    r = host::calibrate(jobs, o);
  }
  py::dict out;
  py::list params;
  for (const auto& p : r.parameters) {
    py::dict d;
    d["name"] = p.name;
    d["before"] = p.before;
    d["after"] = p.after;
    d["unit"] = p.unit;
    d["determined"] = p.determined;
    d["note"] = p.note;
    params.append(d);
  }
  py::list rows;
  for (const auto& j : r.jobs) {
    py::dict d;
    d["job"] = j.name;
    d["recorded_cycles"] = j.recorded_cycles;
    d["cycles_before"] = j.cycles_before;
    d["cycles_after"] = j.cycles_after;
    d["cycle_error_before"] = j.error_before;
    d["cycle_error_after"] = j.error_after;
    rows.append(d);
  }
  out["parameters"] = params;
  out["jobs"] = rows;
  out["flat_directions"] = r.flat_directions;
  out["median_abs_cycle_error_before"] = r.median_abs_error_before;
  out["median_abs_cycle_error_after"] = r.median_abs_error_after;
  out["worst_cycle_error_before"] = r.worst_error_before;
  out["worst_cycle_error_after"] = r.worst_error_after;
  out["overhead_ns"] = optional(r.overhead_ns);
  out["evaluations"] = r.evaluations;
  out["values"] = r.values;
  out["parameter_file"] = r.parameter_file();
  return out;
}

py::list compare(const std::vector<std::string>& paths, const std::optional<std::filesystem::path>& config_file,
                 const std::vector<std::string>& assignments, bool functional) {
  host::ReplayOptions o;
  o.config_file = config_file;
  o.assignments = assignments;
  o.functional = functional;
  std::vector<host::JobComparison> done;
  {
    py::gil_scoped_release released;
    std::lock_guard<std::mutex> lock(simulation_mutex());
    for (const auto& p : paths) done.push_back(host::compare_recording(host::read_capture(p), p, o));
  }
  py::list out;
  for (const auto& j : done) {
    py::dict d;
    d["capture"] = j.capture;
    d["source"] = j.source;
    d["recorded_on"] = j.on_hardware ? "hardware" : "simulator";
    d["outputs_identical"] = j.output_differences.empty();
    d["output_differences"] = j.output_differences;
    d["other_differences"] = j.other_differences;
    d["notes"] = j.notes;
    d["recorded_cycles"] = optional(j.recorded_cycles);
    d["simulated_cycles"] = j.simulated_cycles;
    d["cycle_error"] = optional(j.cycle_error);
    py::dict counters;
    for (const auto& c : j.counters) counters[py::str(c.name)] = py::make_tuple(c.simulated, c.recorded);
    d["counters"] = counters;
    d["wall_ns"] = optional(j.wall_ns);
    d["overhead_ns"] = optional(j.overhead_ns);
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_recording(py::module_& m) {
  m.def("calibrate", &calibrate, py::arg("paths"), py::arg("fit"), py::arg("request"), py::arg("max_evaluations"));
  m.def("compare_recordings", &compare, py::arg("paths"), py::arg("config_file"), py::arg("assignments"),
        py::arg("functional"));
}

}  // namespace ethosu::python
