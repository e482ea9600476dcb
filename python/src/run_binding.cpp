// Configuration and runs for Python: MachineRequest, resolve_config, run, and the tables of parameters,
// PMU events, stall causes, the causes of the exclusive time breakdown and traffic classes.
#include <chrono>
#include <memory>
#include <mutex>
#include <variant>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "isa/architecture.h"
#include "sim/files.h"
#include "host/run/report.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "isa/registers.h"
#include "python/src/bindings.h"
#include "python/src/native_job.h"
#include "sim/error.h"
#include "sim/trace.h"

namespace py = pybind11;

namespace ethosu::python {

std::mutex& simulation_mutex() {
  static std::mutex m;
  return m;
}

namespace {

py::object param_value(const sim::Value& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

// What a run leaves besides its outputs: the NPU's report (timed runs) and the resolved configuration. The
// summary figures are read directly; the full report and configuration are rendered as JSON only when
// Python asks (a sweep usually never does), because that costs more than a small job's simulation.
struct RunRecord {
  std::optional<npu::JobReport> report;
  std::shared_ptr<const sim::Config> config;
};

uint64_t port_bytes(const RunRecord& r, unsigned port, bool write) {
  if (!r.report) return 0;
  const auto& t = r.report->ports.at(port);
  uint64_t sum = 0;
  for (uint64_t v : write ? t.write_bytes : t.read_bytes) sum += v;
  return sum;
}

py::list parameters() {
  py::list out;
  const sim::Config config = host::make_config();
  for (const sim::Param* p : config.params()) {
    py::dict d;
    d["name"] = p->name();
    d["type"] = sim::to_string(p->type());
    d["value"] = param_value(p->value());
    d["unit"] = p->unit();
    d["description"] = p->description();
    d["choices"] = p->choices();
    d["range"] = p->range_text();
    if (p->type() == sim::ParamType::INT) {
      d["min"] = p->int_min();
      d["max"] = p->int_max();
    } else if (p->type() == sim::ParamType::DOUBLE) {
      d["min"] = p->double_min();
      d["max"] = p->double_max();
    }
    out.append(d);
  }
  return out;
}

py::list pmu_events() {
  py::list out;
  for (const auto& e : isa::kPmuEvents) {
    py::dict d;
    d["name"] = std::string(e.name);
    d["hw_id"] = e.hw_id;
    d["modelled"] = host::pmu_event_modelled(e.hw_id);
    d["description"] = std::string(e.description);
    out.append(d);
  }
  return out;
}

py::dict run(const NativeJob& native, const host::MachineRequest& request, const std::vector<std::string>& pmu,
             bool functional, const std::optional<std::filesystem::path>& trace_path) {
  host::Job job = native.job;  // the caller's job stays as loaded, so it can run again
  auto resolved = std::make_shared<const sim::Config>(host::resolve_config(request, job.variant));
  const sim::Config& config = *resolved;
  job.variant = config.param("npu.variant").as_string();
  host::RunOptions options = host::run_options(config, !functional);
  host::PmuSelection pmu_selection;
  if (!pmu.empty()) {
    if (functional) throw InputError("PMU events need the timed platform (functional=False)");
    pmu_selection = host::parse_pmu_events(pmu);
    options.pmu_events = pmu_selection.events;
  }
  if (trace_path && functional) throw InputError("a trace needs the timed platform (functional=False)");

  host::RunOutcome outcome;
  double run_seconds = 0;
  {
    // The trace is opened and written without the GIL too: its path may be a FIFO whose reader is a Python
    // thread of this process.
    py::gil_scoped_release no_gil;
    sim::Trace trace;
    if (trace_path) {
      trace.open(*trace_path, "ethosu-sim: " + job.name + " on " + job.variant);
      options.trace = &trace;
    }
    std::lock_guard<std::mutex> lock(simulation_mutex());
    const auto start = std::chrono::steady_clock::now();
    outcome = host::run_job(job, options);
    run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    trace.close();
  }

  py::list outputs, comparisons;
  for (const auto& o : job.outputs) {
    const auto bytes = job.output_bytes(o);
    outputs.append(py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!o.expected) {
      comparisons.append(py::none());
      continue;
    }
    const auto cmp = host::compare_bytes(bytes, sim::read_file(o.expected->string()), o.element_bytes, o.element_signed);
    py::dict c;
    c["name"] = o.name;
    c["exact"] = cmp.exact;
    c["mismatches"] = cmp.mismatches;
    c["max_abs_diff"] = cmp.max_abs_diff;
    c["text"] = cmp.text;
    comparisons.append(c);
  }
  py::dict out;
  out["outputs"] = outputs;
  out["comparisons"] = comparisons;
  out["fault"] = outcome.fault ? py::object(py::str(*outcome.fault)) : py::none();
  out["summary"] = outcome.summary;
  out["hazards"] = outcome.hazards;
  out["pmu_not_modelled"] = pmu_selection.not_modelled;
  out["record"] = RunRecord{std::move(outcome.report), std::move(resolved)};
  out["run_seconds"] = run_seconds;
  return out;
}

}  // namespace

void bind_run(py::module_& m) {
  // JSON text: Python's json module builds the objects several times faster than item-by-item conversion.
  py::class_<RunRecord>(m, "RunRecord")
      .def_property_readonly("timed", [](const RunRecord& r) { return r.report.has_value(); })
      .def_property_readonly("total_cycles", [](const RunRecord& r) { return r.report ? r.report->total_cycles : 0; })
      .def_property_readonly("clock_hz", [](const RunRecord& r) { return r.report ? r.report->clock_hz : 0.0; })
      .def_property_readonly("status", [](const RunRecord& r) { return r.report ? r.report->status : std::string(); })
      .def_property_readonly("pmu", [](const RunRecord& r) { return r.report ? r.report->pmu : std::map<std::string, uint64_t>{}; })
      .def_property_readonly("macs",
                             [](const RunRecord& r) {
                               uint64_t macs = 0;
                               if (r.report)
                                 for (const auto& op : r.report->ops) macs += op.macs;
                               return macs;
                             })
      .def("port_bytes", &port_bytes, py::arg("port"), py::arg("write"))
      // The exclusive breakdown of total_cycles: ({OpTime name: cycles}, {"parse" or a wait cause: cycles}).
      .def_property_readonly("time_breakdown",
                             [](const RunRecord& r) {
                               std::map<std::string, uint64_t> ops, controller;
                               if (r.report) {
                                 for (size_t k = 0; k < npu::kOpTimeKinds; ++k)
                                   ops[npu::op_time_name(static_cast<npu::OpTime>(k))] = r.report->op_time_cycles[k];
                                 controller["parse"] = r.report->controller_parse_cycles;
                                 for (size_t k = 0; k < npu::kStallKinds; ++k)
                                   if (r.report->controller_wait_cycles[k])
                                     controller[npu::stall_name(static_cast<npu::Stall>(k))] =
                                         r.report->controller_wait_cycles[k];
                               }
                               return std::make_pair(ops, controller);
                             })
      .def("param", [](const RunRecord& r, const std::string& name) { return param_value(r.config->param(name).value()); })
      .def("report_json",
           [](const RunRecord& r) {
             return r.report ? py::object(py::str(host::report_json(*r.report, nlohmann::json::object())))
                             : py::none();
           })
      .def("config_json", [](const RunRecord& r) { return r.config->to_json().dump(); });

  py::class_<host::MachineRequest>(m, "MachineRequest")
      .def(py::init<>())
      .def_readwrite("variant", &host::MachineRequest::variant)
      .def_readwrite("system", &host::MachineRequest::system)
      .def_readwrite("memory_mode", &host::MachineRequest::memory_mode)
      .def_readwrite("vela_ini", &host::MachineRequest::vela_ini)
      .def_readwrite("config_file", &host::MachineRequest::config_file)
      .def_readwrite("assignments", &host::MachineRequest::assignments)
      .def_readwrite("allow_variant_mismatch", &host::MachineRequest::allow_variant_mismatch)
      .def_readwrite("origin", &host::MachineRequest::origin);

  m.def(
      "resolve_config",
      [](const host::MachineRequest& request, const std::string& job_variant) {
        return host::resolve_config(request, job_variant).to_json().dump();
      },
      py::arg("request"), py::arg("job_variant"));
  m.def(
      "check_config",
      [](const host::MachineRequest& request, const std::string& job_variant) { host::resolve_config(request, job_variant); },
      py::arg("request"), py::arg("job_variant"));
  m.def("run", &run, py::arg("job"), py::arg("request"), py::arg("pmu"), py::arg("functional"), py::arg("trace"));
  m.def("parameters", &parameters);
  m.attr("default_variant") = isa::variant_name(isa::kDefaultVariant);
  m.def("variants", [] {
    py::list out;
    for (isa::Variant v : isa::variants()) {
      const isa::Architecture& a = isa::architecture(v);
      py::dict d;
      d["name"] = std::string(a.name);
      d["product"] = a.product == isa::Product::U55 ? "Ethos-U55" : "Ethos-U65";
      d["macs"] = a.macs();
      d["cores"] = a.cores;
      d["ofm_ublock"] = py::make_tuple(a.ofm_ublock.h, a.ofm_ublock.w, a.ofm_ublock.d);
      d["shram_bytes_per_core"] = a.shram_bytes();
      d["axi_bytes_per_beat"] = a.axi_bytes_per_beat;
      d["address_bits"] = a.address_bits;
      d["dma_queue_depth"] = a.dma_queue_depth;
      d["default_system"] = std::string(a.default_system);
      d["id"] = a.id;
      d["config"] = a.config;
      out.append(d);
    }
    return out;
  });
  m.def("pmu_events", &pmu_events);
  m.def("stall_names", [] {
    std::vector<std::string> names;
    for (size_t k = 0; k < npu::kStallKinds; ++k) names.emplace_back(npu::stall_name(static_cast<npu::Stall>(k)));
    return names;
  });
  m.def("op_time_names", [] {
    std::vector<std::string> names;
    for (size_t k = 0; k < npu::kOpTimeKinds; ++k) names.emplace_back(npu::op_time_name(static_cast<npu::OpTime>(k)));
    return names;
  });
  m.def("traffic_names", [] {
    std::vector<std::string> names;
    for (size_t k = 0; k < isa::kAccessCount; ++k)
      names.emplace_back(isa::access_key(static_cast<isa::Access>(k)));
    return names;
  });
}

}  // namespace ethosu::python
