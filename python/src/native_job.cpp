#include "python/src/native_job.h"

#include <algorithm>

#include "host/formats/case.h"
#include "host/formats/payload.h"
#include "host/formats/tflite.h"
#include "sim/error.h"

namespace ethosu::python {
namespace {

// numpy's name for a TFLite tensor type; empty for types numpy has no plain equivalent of.
std::string numpy_dtype(int tflite_type) {
  switch (static_cast<host::TfliteType>(tflite_type)) {
    case host::TfliteType::INT8: return "int8";
    case host::TfliteType::UINT8: return "uint8";
    case host::TfliteType::INT16: return "int16";
    case host::TfliteType::UINT16: return "uint16";
    case host::TfliteType::INT32: return "int32";
    case host::TfliteType::UINT32: return "uint32";
    case host::TfliteType::INT64: return "int64";
    case host::TfliteType::UINT64: return "uint64";
    case host::TfliteType::FLOAT16: return "float16";
    case host::TfliteType::FLOAT32: return "float32";
    case host::TfliteType::FLOAT64: return "float64";
    case host::TfliteType::BOOL: return "bool";
    default: return "";
  }
}

// The element type an OutputSpec compares by, when the format gives no dtype.
std::string spec_dtype(const host::OutputSpec& o) {
  const std::string bits = std::to_string(8 * o.element_bytes);
  return (o.element_signed ? "int" : "uint") + bits;
}

void check_range(const host::Job& job, uint32_t region, uint64_t offset, uint64_t size_bytes, const char* what) {
  if (region >= isa::kRegionCount) throw InputError(std::string(what) + ": region " + std::to_string(region) + " is not 0-7");
  const uint64_t have = job.regions[region].size();
  if (offset > have || size_bytes > have - offset)
    throw InputError(std::string(what) + ": " + std::to_string(size_bytes) + " bytes at offset " + std::to_string(offset) +
                     " do not fit region " + std::to_string(region) + " (" + std::to_string(have) + " bytes)");
}

template <typename T>
std::vector<int64_t> to_shape(const std::vector<T>& s) {
  return {s.begin(), s.end()};
}

}  // namespace

void NativeJob::write(uint32_t region, uint64_t offset, const std::string& bytes) {
  check_range(job, region, offset, bytes.size(), "write");
  std::copy(bytes.begin(), bytes.end(), job.regions[region].begin() + static_cast<std::ptrdiff_t>(offset));
}

std::string NativeJob::read(uint32_t region, uint64_t offset, uint64_t size_bytes) const {
  check_range(job, region, offset, size_bytes, "read");
  const auto begin = job.regions[region].begin() + static_cast<std::ptrdiff_t>(offset);
  return {begin, begin + static_cast<std::ptrdiff_t>(size_bytes)};
}

NativeJob load_case(const std::filesystem::path& dir, bool allow_outside) {
  NativeJob n;
  n.kind = "case";
  n.job = host::job_from_case(dir, allow_outside);
  const host::CorpusCase c = host::load_case(dir, allow_outside);
  for (const auto& t : c.inputs)
    n.inputs.push_back({t.name, t.region, t.offset, t.size_bytes, t.dtype, to_shape(t.shape)});
  for (size_t k = 0; k < n.job.outputs.size(); ++k) {
    const auto& o = n.job.outputs[k];
    const bool described = k < c.outputs.size();
    const std::string dtype = described && !c.outputs[k].dtype.empty() ? c.outputs[k].dtype : spec_dtype(o);
    n.outputs.push_back({o.name, o.region, o.offset, o.size_bytes, dtype,
                         described ? to_shape(c.outputs[k].shape) : std::vector<int64_t>{}});
  }
  return n;
}

namespace {

// The tensors of a Vela model's one ethos-u operator, with their types and shapes.
void take_model_tensors(const std::filesystem::path& model, NativeJob& n) {
  const auto npu = host::read_npu_file(host::read_npu_file_bytes(model), model.string());
  const host::EthosuOperator& op = npu.model->ethosu_operators.front();
  for (const auto& t : op.model_inputs)
    n.inputs.push_back({t.name, t.region, *t.arena_offset, t.size_bytes, numpy_dtype(t.type), to_shape(t.shape)});
  for (const auto& t : op.model_outputs)
    n.outputs.push_back({t.name, t.region, *t.arena_offset, t.size_bytes, numpy_dtype(t.type), to_shape(t.shape)});
}

}  // namespace

NativeJob load_compilation(const std::filesystem::path& dir, bool allow_outside) {
  NativeJob n;
  n.kind = "compilation";
  n.job = host::job_from_compilation(dir, allow_outside);
  take_model_tensors(host::load_compilation(dir, allow_outside).model, n);
  return n;
}

NativeJob load_tflite(const std::filesystem::path& model) {
  NativeJob n;
  n.kind = "tflite";
  n.job = host::job_from_tflite(model, {});
  // job_from_tflite accepted the model, so it has exactly one ethos-u operator with planned offsets.
  take_model_tensors(model, n);
  return n;
}

namespace {

NativeJob stream_job(const std::string& job_name, const std::vector<uint8_t>& stream, const std::string& what,
                     const std::vector<std::tuple<uint32_t, std::optional<std::string>, std::optional<uint64_t>>>& regions,
                     const std::vector<std::tuple<uint32_t, uint64_t, uint64_t, std::string>>& dumps) {
  std::vector<host::RegionArg> region_args;
  for (const auto& [index, file, size] : regions) {
    if (!file && !size) throw InputError("region " + std::to_string(index) + ": give a file, a size or both");
    host::RegionArg r;
    r.region = index;
    if (file) r.file = *file;
    r.size_bytes = size;
    region_args.push_back(r);
  }
  std::vector<host::PlacementArg> dump_args;
  for (const auto& [region, offset, size, name] : dumps) dump_args.push_back({region, offset, size, name});
  NativeJob n;
  n.kind = "stream";
  n.job = host::job_from_stream_bytes(job_name, stream, what, region_args, {}, dump_args);
  for (const auto& o : n.job.outputs)
    n.outputs.push_back({o.name, o.region, o.offset, o.size_bytes, "uint8", {static_cast<int64_t>(o.size_bytes)}});
  return n;
}

}  // namespace

NativeJob load_stream(const std::filesystem::path& stream,
                      const std::vector<std::tuple<uint32_t, std::optional<std::string>, std::optional<uint64_t>>>& regions,
                      const std::vector<std::tuple<uint32_t, uint64_t, uint64_t, std::string>>& dumps) {
  return stream_job(stream.filename().string(), host::read_npu_file_bytes(stream), stream.string(), regions, dumps);
}

NativeJob load_stream_bytes(const std::string& stream,
                            const std::vector<std::tuple<uint32_t, std::optional<std::string>, std::optional<uint64_t>>>& regions,
                            const std::vector<std::tuple<uint32_t, uint64_t, uint64_t, std::string>>& dumps) {
  return stream_job("stream", std::vector<uint8_t>(stream.begin(), stream.end()), "the stream's bytes", regions,
                    dumps);
}

}  // namespace ethosu::python
