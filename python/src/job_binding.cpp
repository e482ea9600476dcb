// NativeJob for Python: the three loaders, tensor descriptions as dicts, byte access to regions; and the checks
// a run makes before it starts (the payload header, the vela.ini keys it ignores).
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "host/run/job.h"
#include "host/config/config.h"
#include "host/config/system_config.h"
#include "python/src/bindings.h"
#include "python/src/native_job.h"

namespace py = pybind11;

namespace ethosu::python {
namespace {

py::dict tensor_dict(const TensorMeta& t) {
  py::dict d;
  d["name"] = t.name;
  d["region"] = t.region;
  d["offset"] = t.offset;
  d["size_bytes"] = t.size_bytes;
  d["dtype"] = t.dtype;
  d["shape"] = py::tuple(py::cast(t.shape));
  return d;
}

}  // namespace

void bind_job(py::module_& m) {
  py::class_<NativeJob>(m, "NativeJob")
      .def_property_readonly("name", [](const NativeJob& n) { return n.job.name; })
      .def_property_readonly("kind", [](const NativeJob& n) { return n.kind; })
      .def_property(
          "variant", [](const NativeJob& n) { return n.job.variant; },
          [](NativeJob& n, const std::string& v) { n.job.variant = v; })
      .def_property_readonly("region_sizes",
                             [](const NativeJob& n) {
                               std::vector<uint64_t> sizes;
                               for (const auto& r : n.job.regions) sizes.push_back(r.size());
                               return sizes;
                             })
      .def_property_readonly("stream_bytes", [](const NativeJob& n) { return n.job.stream.size(); })
      .def_property_readonly("inputs",
                             [](const NativeJob& n) {
                               py::list l;
                               for (const auto& t : n.inputs) l.append(tensor_dict(t));
                               return l;
                             })
      .def_property_readonly("outputs",
                             [](const NativeJob& n) {
                               py::list l;
                               for (size_t k = 0; k < n.outputs.size(); ++k) {
                                 py::dict d = tensor_dict(n.outputs[k]);
                                 const auto& spec = n.job.outputs[k];
                                 d["expected"] = spec.expected ? py::object(py::str(spec.expected->string())) : py::none();
                                 d["reference_engine"] = spec.reference_engine;
                                 l.append(d);
                               }
                               return l;
                             })
      .def("write", &NativeJob::write, py::arg("region"), py::arg("offset"), py::arg("data"))
      .def(
          "read",
          [](const NativeJob& n, uint32_t region, uint64_t offset, uint64_t size) {
            return py::bytes(n.read(region, offset, size));
          },
          py::arg("region"), py::arg("offset"), py::arg("size_bytes"))
      .def("copy", [](const NativeJob& n) { return NativeJob(n); })
      // Layer names: {offset of the operation's NPU_OP_* command: layer}, and where they came from.
      .def_property_readonly("layers", [](const NativeJob& n) { return n.job.layers; })
      .def_property_readonly("layers_note", [](const NativeJob& n) { return n.job.layers_note; })
      .def(
          "name_layers",
          [](NativeJob& n, const std::optional<std::filesystem::path>& file) {
            if (file) {
              host::name_job_layers(n.job, file, {});
            } else {
              n.job.layers.clear();
              n.job.layers_note = "no layer names asked for";
            }
          },
          py::arg("file"));

  m.def("load_case", &load_case, py::arg("path"), py::arg("allow_outside") = false);
  m.def("load_tflite", &load_tflite, py::arg("path"));
  m.def("load_compilation", &load_compilation, py::arg("path"), py::arg("allow_outside") = false);
  m.def("load_stream", &load_stream, py::arg("path"), py::arg("regions"), py::arg("dumps"));
  m.def(
      "load_stream_bytes",
      [](const py::bytes& stream, const std::vector<std::tuple<uint32_t, std::optional<std::string>, std::optional<uint64_t>>>& regions,
         const std::vector<std::tuple<uint32_t, uint64_t, uint64_t, std::string>>& dumps) {
        return load_stream_bytes(std::string(stream), regions, dumps);
      },
      py::arg("stream"), py::arg("regions"), py::arg("dumps"));
  // The check of the variant asked for against the job's (host::check_variant): InputError, or a warning to give.
  m.def(
      "variant_warning",
      [](const NativeJob& n, const host::MachineRequest& request) {
        return host::check_variant(n.job, host::resolve_config(request, n.job.variant), request.allow_variant_mismatch);
      },
      py::arg("job"), py::arg("request"));
  m.def(
      "vela_ini_ignored_keys",
      [](const std::vector<std::string>& files, const std::string& system, const std::string& memory_mode) {
        host::VelaIni ini;
        for (const auto& f : files) ini.add_file(f);
        return ini.ignored_keys(system, memory_mode);
      },
      py::arg("files"), py::arg("system"), py::arg("memory_mode"));
}

}  // namespace ethosu::python
