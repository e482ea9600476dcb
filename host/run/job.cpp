#include "host/run/job.h"

#include <algorithm>

#include "host/formats/case.h"
#include "host/run/layers.h"
#include "host/firmware/cpu_ops.h"
#include "sim/files.h"
#include "host/formats/payload.h"
#include "isa/architecture.h"
#include "isa/decoder.h"
#include "sim/error.h"
#include "sim/text.h"

namespace ethosu::host {

namespace fs = std::filesystem;
namespace {

void place(std::vector<uint8_t>& region, uint32_t index, uint64_t offset, const std::vector<uint8_t>& data,
           const std::string& what) {
  if (offset > region.size() || data.size() > region.size() - offset)
    throw InputError(what + ": " + std::to_string(data.size()) + " bytes at offset " + std::to_string(offset) +
                     " do not fit region " + std::to_string(index) + " (" + std::to_string(region.size()) +
                     " bytes)");
  std::copy(data.begin(), data.end(), region.begin() + static_cast<std::ptrdiff_t>(offset));
}

// Checks a size for region `index` of the job against both limits, before anything is allocated.
void check_region_size(const Job& job, uint32_t index, uint64_t size, const std::string& what) {
  if (size > kMaxRegionBytes)
    throw InputError(what + ": region size " + std::to_string(size) + " bytes is over the 4 GiB limit");
  uint64_t others = 0;
  for (uint32_t r = 0; r < isa::kRegionCount; ++r)
    if (r != index) others += job.regions[r].size();
  if (others + size > kMaxRegionBytesPerJob)
    throw InputError(what + ": the job's regions would hold " + std::to_string(others + size) +
                     " bytes, over the 8 GiB limit per job");
}

// Region `index` of the job as `size` zero bytes.
void size_region(Job& job, uint32_t index, uint64_t size, const std::string& what) {
  check_region_size(job, index, size, what);
  job.regions[index].assign(size, 0);
}

// Region `index` of the job as `size` bytes that start with the file's and end in zeros. The file's buffer becomes
// the region: a model's weights are copied once, not again into a region allocated for them.
void load_region(Job& job, uint32_t index, uint64_t size, const std::filesystem::path& file) {
  std::vector<uint8_t> bytes = sim::read_file(file.string());
  // load_case() checked the file's size; it may have grown since.
  if (bytes.size() > size)
    throw InputError(file.string() + ": " + std::to_string(bytes.size()) + " bytes at offset 0 do not fit region " +
                     std::to_string(index) + " (" + std::to_string(size) + " bytes)");
  bytes.resize(size);
  job.regions[index] = std::move(bytes);
}

using sim::hex_word;

// The configuration a payload was compiled for, from the CONFIG word of its header: the one that word is, unless
// the header comes from Vela 3.2 or older (see Job::header_variant).
void take_payload_variant(Job& job, const DriverPayload& payload) {
  if (!payload.config) return;
  const OptimizerConfig& c = *payload.config;
  job.payload_config = c.config_word;
  const isa::Architecture* named = isa::from_config_register(c.config_word);
  const auto fits = [&](const isa::Architecture& a) {
    for (const isa::Diagnostic& d : isa::architecture_problems(isa::decode(job.stream, a.isa), a))
      if (d.problem == isa::Problem::UNKNOWN_OPCODE) return false;
    return true;
  };
  if (named && fits(*named)) {
    job.variant = job.compiled_for = std::string(named->name);
    return;
  }
  job.header_variant = c.accelerator() + " (CONFIG word " + hex_word(c.config_word) + ", product " +
                       std::to_string(c.product) + ")";
  for (isa::Variant v : isa::variants()) {
    const isa::Architecture& a = isa::architecture(v);
    if (a.product == isa::Product::U65 && a.macs() == uint32_t{1} << c.macs_per_cc_log2) job.variant = a.name;
  }
}

}  // namespace

std::vector<uint8_t> Job::output_bytes(const OutputSpec& o) const {
  const auto& r = regions.at(o.region);
  if (o.offset > r.size() || o.size_bytes > r.size() - o.offset)
    throw InputError("output '" + o.name + "' lies outside region " + std::to_string(o.region));
  return {r.begin() + static_cast<std::ptrdiff_t>(o.offset),
          r.begin() + static_cast<std::ptrdiff_t>(o.offset + o.size_bytes)};
}

std::optional<std::string> check_variant(const Job& job, const sim::Config& resolved, bool allow_mismatch) {
  const sim::Param& v = resolved.param("npu.variant");
  const std::string running = v.as_string();
  const isa::Architecture* arch = isa::find_architecture(running);
  if (!arch) throw InputError("unknown NPU variant '" + running + "'; known: " + isa::variant_names());
  if (job.header_variant) {
    std::string u65s;
    for (isa::Variant u : isa::variants())
      if (isa::architecture(u).product == isa::Product::U65) u65s += (u65s.empty() ? "" : " or ") + std::string(isa::variant_name(u));
    const std::string what = job.name + ": the payload header names " + *job.header_variant +
                             ", but its stream is an Ethos-U65's: a payload of Vela 3.2 or older, which wrote product 0 "
                             "for every target; Arm's core driver refuses such a payload on an Ethos-U65 (its product "
                             "check)";
    if (v.source() <= sim::Source::PRESET) throw InputError(what + ". Name the NPU to run it anyway: --variant " + u65s);
    return what + "; running it on " + running + " (set by " + v.origin() + ")";
  }
  if (job.payload_config) {
    if (const auto mismatch = isa::config_mismatch(*arch, *job.payload_config))
      throw InputError(job.name + ": the payload was compiled for " + job.compiled_for + " (CONFIG word " +
                       hex_word(*job.payload_config) + "); Arm's core driver refuses it on the " + arch->describe() +
                       " (its optimizer-config check: " + *mismatch + ")");
    return std::nullopt;
  }
  if (job.compiled_for.empty() || job.compiled_for == running) return std::nullopt;
  std::string what = job.name + ": compiled for " + job.compiled_for + ", asked to run on " + running + " (set by " +
                     v.origin() + ")";
  const isa::Architecture* compiled = isa::find_architecture(job.compiled_for);
  // The second core of a U65-512 works only on a stream compiled for two cores: the cycles stay the U65-256's.
  if (compiled && compiled->product == arch->product && arch->cores > compiled->cores)
    what += ", whose second core is idle on this stream: the cycles are the " + job.compiled_for + "'s";
  else
    what += ", whose NPU runs the stream as it is, not as Vela would compile it for it";
  if (!allow_mismatch)
    throw InputError(what + ". To run it anyway (a what-if), say so: --force-variant (Python: "
                            "allow_variant_mismatch=True); to compare configurations, run Vela's build for each");
  return what;
}

void name_job_layers(Job& job, const std::optional<std::filesystem::path>& file, const std::filesystem::path& dir) {
  job.layers.clear();
  std::optional<VelaLayers> vela;
  if (file) {
    vela = vela_layers_from(*file);
  } else {
    try {
      vela = vela_layers_beside(dir);
    } catch (const InputError& e) {
      job.layers_note = std::string(e.what()) + ": no layer names";
      return;
    }
  }
  if (!vela) {
    job.layers_note = "no Vela listing or per-layer CSV beside the job: no layer names";
    return;
  }
  LayerNames named = name_layers(isa::decode(job.stream), *vela);
  job.layers = std::move(named.names);
  job.layers_note = std::move(named.note);
}

Job job_from_case(const std::filesystem::path& dir, bool allow_outside) {
  const CorpusCase c = load_case(dir, allow_outside);
  Job job;
  job.name = c.name;
  if (!c.accelerator.empty()) job.variant = job.compiled_for = c.accelerator;
  job.stream = read_npu_file_bytes(c.command_stream);
  for (const auto& r : c.regions) {
    const std::string what = c.manifest.string() + ": region " + std::to_string(r.index);
    if (r.index >= isa::kRegionCount) throw InputError(what + ": region index over 7");
    if (r.file) {
      check_region_size(job, r.index, r.size_bytes, what);
      load_region(job, r.index, r.size_bytes, *r.file);
    } else {
      size_region(job, r.index, r.size_bytes, what);
    }
  }
  for (const auto& in : c.inputs) {
    if (in.region >= isa::kRegionCount || !in.file) throw InputError(c.manifest.string() + ": input '" + in.name + "' invalid");
    const auto data = sim::read_file(in.file->string());
    if (data.size() != in.size_bytes)
      throw InputError(in.file->string() + ": " + std::to_string(data.size()) + " bytes, the manifest says " +
                       std::to_string(in.size_bytes));
    place(job.regions[in.region], in.region, in.offset, data, in.file->string());
  }
  for (const auto& out : c.outputs) {
    OutputSpec o{out.name, out.region, out.offset, out.size_bytes, out.file, out.reference_engine};
    if (out.dtype == "int16" || out.dtype == "uint16") o.element_bytes = 2;
    if (out.dtype == "int32") o.element_bytes = 4;
    o.element_signed = out.dtype.empty() || out.dtype[0] != 'u';
    job.outputs.push_back(o);
  }
  name_job_layers(job, std::nullopt, dir);
  return job;
}

Job job_from_stream(const std::filesystem::path& stream, const std::vector<RegionArg>& regions,
                    const std::vector<PlacementArg>& inputs, const std::vector<PlacementArg>& dumps) {
  return job_from_stream_bytes(stream.filename().string(), read_npu_file_bytes(stream), stream.string(), regions,
                               inputs, dumps);
}

Job job_from_stream_bytes(const std::string& name, const std::vector<uint8_t>& file, const std::string& what_file,
                          const std::vector<RegionArg>& regions, const std::vector<PlacementArg>& inputs,
                          const std::vector<PlacementArg>& dumps) {
  Job job;
  job.name = name;
  const auto npu = read_npu_file(file, what_file);
  if (npu.kind == NpuFileKind::TFLITE)
    throw InputError(what_file + ": is a .tflite model; run it without --region options");
  job.stream = npu.command_stream;
  if (npu.payload) take_payload_variant(job, *npu.payload);
  for (const auto& r : regions) {
    const std::string what = "--region " + std::to_string(r.region);
    if (r.region >= isa::kRegionCount) throw InputError(what + ": region must be 0-7");
    std::vector<uint8_t> data;
    if (r.file) data = sim::read_file(r.file->string());
    const uint64_t size = r.size_bytes.value_or(data.size());
    if (size < data.size())
      throw InputError(what + ": size " + std::to_string(size) + " is smaller than " + r.file->string() + " (" +
                       std::to_string(data.size()) + " bytes)");
    size_region(job, r.region, size, what);
    place(job.regions[r.region], r.region, 0, data, what);
  }
  for (const auto& in : inputs) {
    if (in.region >= isa::kRegionCount) throw InputError("--input: region must be 0-7");
    place(job.regions[in.region], in.region, in.offset, sim::read_file(in.file.string()), in.file.string());
  }
  for (const auto& d : dumps) {
    if (d.region >= isa::kRegionCount) throw InputError("--dump: region must be 0-7");
    const auto size = job.regions[d.region].size();
    if (d.offset > size || d.size_bytes > size - d.offset)
      throw InputError("--dump " + std::to_string(d.region) + ":" + std::to_string(d.offset) + ":" +
                       std::to_string(d.size_bytes) + ": outside region " + std::to_string(d.region) + " (" +
                       std::to_string(size) + " bytes)");
    job.outputs.push_back({d.file.string(), d.region, d.offset, d.size_bytes, std::nullopt, ""});
  }
  return job;
}

Job job_from_compilation(const std::filesystem::path& dir, bool allow_outside) {
  const VelaCompilation c = load_compilation(dir, allow_outside);
  std::vector<std::string> inputs;
  for (const CompiledInput& in : c.inputs)
    inputs.push_back(c.inputs_by_name ? in.tensor + "=" + in.file.string() : in.file.string());
  Job job = job_from_tflite(c.model, inputs);
  job.name = c.name;
  if (job.compiled_for != c.accelerator)
    throw InputError(c.model.string() + ": its payload header names " +
                     (job.compiled_for.empty() ? std::string("no configuration") : job.compiled_for) + ", not " +
                     c.accelerator + " as its folder says");
  for (const CompiledOutput& o : c.outputs) {
    const auto it = std::find_if(job.outputs.begin(), job.outputs.end(), [&](const OutputSpec& s) { return s.name == o.tensor; });
    if (it == job.outputs.end()) throw InputError(c.info.string() + ": output '" + o.tensor + "' is not an output of " + c.model.string());
    it->expected = o.expected;
  }
  return job;
}

Job job_from_folder(const std::filesystem::path& dir, bool allow_outside) {
  std::error_code ec;
  // Any manifest.json makes a case folder, so that one which is no regular file is refused as such.
  if (fs::symlink_status(dir / "manifest.json", ec).type() != fs::file_type::not_found)
    return job_from_case(dir, allow_outside);
  if (is_compilation(dir)) return job_from_compilation(dir, allow_outside);
  throw InputError(dir.string() + ": neither a case folder (manifest.json) nor a compilation folder "
                                   "(model_vela.tflite, with info.json in the folder above)");
}

Job job_from_tflite(const std::filesystem::path& model, const std::vector<std::string>& inputs) {
  const auto file = read_npu_file_bytes(model);
  auto npu = read_npu_file(file, model.string());
  if (npu.kind != NpuFileKind::TFLITE) throw InputError(model.string() + ": not a .tflite model");
  size_cpu_outputs(*npu.model);
  const VelaModel& vm = *npu.model;
  // CPU operators the firmware runs (DEQUANTIZE, detection post-processing) run after the job (host/firmware/cpu_ops.h).
  if (!vm.cpu_operators.empty()) check_cpu_operators(vm, model.string());
  if (vm.ethosu_operators.size() != 1)
    throw InputError(model.string() + ": expected one ethos-u operator, found " +
                     std::to_string(vm.ethosu_operators.size()));
  const EthosuOperator& op = vm.ethosu_operators.front();
  Job job;
  job.name = model.filename().string();
  job.stream = op.payload.command_stream;
  take_payload_variant(job, op.payload);
  job.regions[0] = op.flash;
  size_region(job, 1, op.scratch_bytes, model.string() + ": scratch tensor");
  size_region(job, 2, op.scratch_fast_bytes, model.string() + ": scratch_fast tensor");
  if (op.payload.separate_io_regions) {
    size_region(job, kSeparateInputRegion, op.input_region_bytes, model.string() + ": input region");
    size_region(job, kSeparateOutputRegion, op.output_region_bytes, model.string() + ": output region");
  }
  for (const NpuTensor& t : op.model_inputs)
    if (!t.arena_offset)
      throw InputError(model.string() + ": input '" + t.name + "' has no offline-planned offset");

  // NAME=FILE goes to the tensor NAME (names may hold '=': the longest known prefix wins), the other files to the
  // remaining inputs in the model's order.
  std::vector<std::optional<std::string>> files(op.model_inputs.size());
  std::vector<std::string> unnamed;
  for (const std::string& text : inputs) {
    std::optional<size_t> named;
    for (size_t i = 0; i < op.model_inputs.size(); ++i) {
      const std::string& n = op.model_inputs[i].name;
      if (text.size() > n.size() && text.compare(0, n.size(), n) == 0 && text[n.size()] == '=' &&
          (!named || n.size() > op.model_inputs[*named].name.size()))
        named = i;
    }
    if (!named) {
      unnamed.push_back(text);
      continue;
    }
    if (files[*named]) throw InputError(model.string() + ": input '" + op.model_inputs[*named].name + "' given twice");
    files[*named] = text.substr(op.model_inputs[*named].name.size() + 1);
  }
  size_t next = 0;
  for (const std::string& unnamed_file : unnamed) {
    while (next < files.size() && files[next]) ++next;
    if (next == files.size())
      throw InputError(model.string() + ": more input files than the model's " + std::to_string(files.size()) +
                       " input(s)");
    files[next] = unnamed_file;
  }
  for (size_t i = 0; i < op.model_inputs.size(); ++i) {
    const NpuTensor& t = op.model_inputs[i];
    const std::string where = "input " + std::to_string(i) + " '" + t.name + "' (region " + std::to_string(t.region) +
                              ", offset " + std::to_string(*t.arena_offset) + ", " + std::to_string(t.size_bytes) +
                              " bytes) <- ";
    if (!files[i]) {
      job.input_mapping.push_back(where + "zeros");
      continue;
    }
    const std::string& name = *files[i];
    const auto data = sim::read_file(name);
    if (data.size() != t.size_bytes)
      throw InputError(name + ": " + std::to_string(data.size()) + " bytes, input '" + t.name + "' has " +
                       std::to_string(t.size_bytes));
    place(job.regions[t.region], t.region, *t.arena_offset, data, name);
    job.input_mapping.push_back(where + name);
  }
  for (const auto& t : op.model_outputs) {
    if (!t.arena_offset)
      throw InputError(model.string() + ": output '" + t.name + "' has no offline-planned offset");
    OutputSpec o{t.name, t.region, *t.arena_offset, t.size_bytes, std::nullopt, ""};
    const auto bits = tflite_type_bits(t.type);
    if (bits && (*bits == 16 || *bits == 32)) o.element_bytes = *bits / 8;
    o.element_signed = t.type != static_cast<int>(TfliteType::UINT8) && t.type != static_cast<int>(TfliteType::UINT16);
    job.outputs.push_back(o);
  }
  name_job_layers(job, std::nullopt, model.parent_path());
  return job;
}

}  // namespace ethosu::host
