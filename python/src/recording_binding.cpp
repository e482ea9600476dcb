// Recordings for Python: calibrate() over capture folders (host/recording/calibrate.h) and the comparison of
// recordings with the simulator (host/recording/compare.h), returned as the JSON text the CLI prints.
#include <mutex>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "host/recording/capture.h"
#include "host/recording/calibrate.h"
#include "host/recording/compare.h"
#include "python/src/bindings.h"

namespace py = pybind11;

namespace ethosu::python {
namespace {

std::string calibrate(const std::vector<std::string>& paths, const std::vector<std::string>& fit,
                      const host::MachineRequest& request, size_t max_evaluations) {
  host::CalibrationOptions o;
  o.fit = fit;
  o.base = request;
  o.max_evaluations = max_evaluations;
  py::gil_scoped_release released;
  std::lock_guard<std::mutex> lock(simulation_mutex());
  return host::calibration_json(host::calibrate(host::read_recordings(paths), o));
}

std::string compare(const std::vector<std::string>& paths, const std::optional<std::filesystem::path>& config_file,
                    const std::vector<std::string>& assignments, bool functional) {
  host::ReplayOptions o;
  o.config_file = config_file;
  o.assignments = assignments;
  o.functional = functional;
  py::gil_scoped_release released;
  std::lock_guard<std::mutex> lock(simulation_mutex());
  std::vector<host::JobComparison> rows;
  for (const auto& p : paths) rows.push_back(host::compare_recording(host::read_capture(p), p, o));
  return host::comparison_json(rows);
}

}  // namespace

void bind_recording(py::module_& m) {
  m.def("calibrate", &calibrate, py::arg("paths"), py::arg("fit"), py::arg("request"), py::arg("max_evaluations"));
  m.def("compare_recordings", &compare, py::arg("paths"), py::arg("config_file"), py::arg("assignments"),
        py::arg("functional"));
}

}  // namespace ethosu::python
