#include "host/job.h"

#include "host/case.h"
#include "host/cpu_ops.h"
#include "host/file_io.h"
#include "host/payload.h"
#include "sim/error.h"

namespace ethosu::host {
namespace {

// Regions are host buffers; keep a single region within what a 64-bit host can sensibly allocate.
constexpr uint64_t kMaxRegionBytes = uint64_t{4} << 30;

void place(std::vector<uint8_t>& region, uint32_t index, uint64_t offset, const std::vector<uint8_t>& data,
           const std::string& what) {
  if (offset > region.size() || data.size() > region.size() - offset)
    throw InputError(what + ": " + std::to_string(data.size()) + " bytes at offset " + std::to_string(offset) +
                     " do not fit region " + std::to_string(index) + " (" + std::to_string(region.size()) +
                     " bytes)");
  std::copy(data.begin(), data.end(), region.begin() + static_cast<std::ptrdiff_t>(offset));
}

std::vector<uint8_t> sized_region(uint64_t size, const std::string& what) {
  if (size > kMaxRegionBytes)
    throw InputError(what + ": region size " + std::to_string(size) + " bytes is over the 4 GiB limit");
  return std::vector<uint8_t>(size, 0);
}

}  // namespace

std::vector<uint8_t> Job::output_bytes(const OutputSpec& o) const {
  const auto& r = regions.at(o.region);
  if (o.offset > r.size() || o.size_bytes > r.size() - o.offset)
    throw InputError("output '" + o.name + "' lies outside region " + std::to_string(o.region));
  return {r.begin() + static_cast<std::ptrdiff_t>(o.offset),
          r.begin() + static_cast<std::ptrdiff_t>(o.offset + o.size_bytes)};
}

Job job_from_case(const std::filesystem::path& dir) {
  const CorpusCase c = load_case(dir);
  Job job;
  job.name = c.name;
  if (!c.accelerator.empty()) job.variant = c.accelerator;
  job.stream = read_file(c.command_stream.string());
  for (const auto& r : c.regions) {
    const std::string what = c.manifest.string() + ": region " + std::to_string(r.index);
    if (r.index >= kRegions) throw InputError(what + ": region index over 7");
    auto& buf = job.regions[r.index];
    buf = sized_region(r.size_bytes, what);
    if (r.file) place(buf, r.index, 0, read_file(r.file->string()), r.file->string());
  }
  for (const auto& in : c.inputs) {
    if (in.region >= kRegions || !in.file) throw InputError(c.manifest.string() + ": input '" + in.name + "' invalid");
    const auto data = read_file(in.file->string());
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
  return job;
}

Job job_from_stream(const std::filesystem::path& stream, const std::vector<RegionArg>& regions,
                    const std::vector<PlacementArg>& inputs, const std::vector<PlacementArg>& dumps) {
  Job job;
  job.name = stream.filename().string();
  const auto file = read_file(stream.string());
  const auto npu = read_npu_file(file, stream.string());
  if (npu.kind == NpuFileKind::TFLITE)
    throw InputError(stream.string() + ": is a .tflite model; run it without --region options");
  job.stream = npu.command_stream;
  if (npu.payload && npu.payload->config) job.variant = npu.payload->config->accelerator();
  for (const auto& r : regions) {
    const std::string what = "--region " + std::to_string(r.region);
    if (r.region >= kRegions) throw InputError(what + ": region must be 0-7");
    std::vector<uint8_t> data;
    if (r.file) data = read_file(r.file->string());
    const uint64_t size = r.size_bytes.value_or(data.size());
    if (size < data.size())
      throw InputError(what + ": size " + std::to_string(size) + " is smaller than " + r.file->string() + " (" +
                       std::to_string(data.size()) + " bytes)");
    job.regions[r.region] = sized_region(size, what);
    place(job.regions[r.region], r.region, 0, data, what);
  }
  for (const auto& in : inputs) {
    if (in.region >= kRegions) throw InputError("--input: region must be 0-7");
    place(job.regions[in.region], in.region, in.offset, read_file(in.file.string()), in.file.string());
  }
  for (const auto& d : dumps) {
    if (d.region >= kRegions) throw InputError("--dump: region must be 0-7");
    const auto size = job.regions[d.region].size();
    if (d.offset > size || d.size_bytes > size - d.offset)
      throw InputError("--dump " + std::to_string(d.region) + ":" + std::to_string(d.offset) + ":" +
                       std::to_string(d.size_bytes) + ": outside region " + std::to_string(d.region) + " (" +
                       std::to_string(size) + " bytes)");
    job.outputs.push_back({d.file.string(), d.region, d.offset, d.size_bytes, std::nullopt, ""});
  }
  return job;
}

Job job_from_tflite(const std::filesystem::path& model, const std::vector<std::filesystem::path>& inputs) {
  const auto file = read_file(model.string());
  const auto npu = read_npu_file(file, model.string());
  if (npu.kind != NpuFileKind::TFLITE) throw InputError(model.string() + ": not a .tflite model");
  const VelaModel& vm = *npu.model;
  // CPU operators the firmware runs (DEQUANTIZE, detection post-processing) run after the job (host/cpu_ops.h).
  if (!vm.cpu_operators.empty()) check_cpu_operators(vm, model.string());
  if (vm.ethosu_operators.size() != 1)
    throw InputError(model.string() + ": expected one ethos-u operator, found " +
                     std::to_string(vm.ethosu_operators.size()));
  const EthosuOperator& op = vm.ethosu_operators.front();
  Job job;
  job.name = model.filename().string();
  job.stream = op.payload.command_stream;
  if (op.payload.config) job.variant = op.payload.config->accelerator();
  job.regions[0] = op.flash;
  job.regions[1] = sized_region(op.scratch_bytes, model.string() + ": scratch tensor");
  job.regions[2] = sized_region(op.scratch_fast_bytes, model.string() + ": scratch_fast tensor");
  if (inputs.size() > op.inputs.size())
    throw InputError(model.string() + ": " + std::to_string(inputs.size()) + " input files given, the model has " +
                     std::to_string(op.inputs.size()) + " input(s)");
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const NpuTensor& t = op.inputs[i];
    if (!t.arena_offset)
      throw InputError(model.string() + ": input '" + t.name + "' has no offline-planned arena offset");
    if (i >= inputs.size()) continue;
    const auto data = read_file(inputs[i].string());
    if (data.size() != t.size_bytes)
      throw InputError(inputs[i].string() + ": " + std::to_string(data.size()) + " bytes, input '" + t.name +
                       "' has " + std::to_string(t.size_bytes));
    place(job.regions[1], 1, *t.arena_offset, data, inputs[i].string());
  }
  for (const auto& t : op.outputs) {
    if (!t.arena_offset)
      throw InputError(model.string() + ": output '" + t.name + "' has no offline-planned arena offset");
    OutputSpec o{t.name, 1, *t.arena_offset, t.size_bytes, std::nullopt, ""};
    const auto bits = tflite_type_bits(t.type);
    if (bits && (*bits == 16 || *bits == 32)) o.element_bytes = *bits / 8;
    o.element_signed = t.type != static_cast<int>(TfliteType::UINT8) && t.type != static_cast<int>(TfliteType::UINT16);
    job.outputs.push_back(o);
  }
  return job;
}

}  // namespace ethosu::host
