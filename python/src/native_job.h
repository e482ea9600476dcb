// A job as the Python module holds it: the host Job (kept pristine; every run works on a copy) plus
// where its inputs live and what type and shape its tensors have, so that Python can pass numpy arrays.
//
// Contract: the loaders throw ethosu::InputError for anything wrong in the submission, as the host's job
// builders do. write() and read() check the byte range against the region and throw InputError naming it.
// dtype is a numpy type name ("int8", "uint8", "int16", ...) or empty when the format does not say; shape
// (a case manifest's or a model's) is empty when unknown.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "host/run/job.h"

namespace ethosu::python {

struct TensorMeta {
  std::string name;
  uint32_t region = 1;
  uint64_t offset = 0;
  uint64_t size_bytes = 0;
  std::string dtype;
  std::vector<int64_t> shape;
};

struct NativeJob {
  host::Job job;
  std::string kind;                 // "case", "tflite" or "stream"
  std::vector<TensorMeta> inputs;   // where inputs go; empty for raw streams (the caller places bytes)
  std::vector<TensorMeta> outputs;  // parallel to job.outputs

  void write(uint32_t region, uint64_t offset, const std::string& bytes);
  std::string read(uint32_t region, uint64_t offset, uint64_t size_bytes) const;
};

NativeJob load_case(const std::filesystem::path& dir, bool allow_outside);
NativeJob load_tflite(const std::filesystem::path& model);
// A case compiled for one configuration (CASE/<accelerator> of the family corpora): the case's inputs placed.
NativeJob load_compilation(const std::filesystem::path& dir, bool allow_outside);
// regions: (index, file or none, size or none); dumps: (region, offset, size, name).
NativeJob load_stream(const std::filesystem::path& stream,
                      const std::vector<std::tuple<uint32_t, std::optional<std::string>, std::optional<uint64_t>>>& regions,
                      const std::vector<std::tuple<uint32_t, uint64_t, uint64_t, std::string>>& dumps);
// The same from the stream's bytes.
NativeJob load_stream_bytes(const std::string& stream,
                            const std::vector<std::tuple<uint32_t, std::optional<std::string>, std::optional<uint64_t>>>& regions,
                            const std::vector<std::tuple<uint32_t, uint64_t, uint64_t, std::string>>& dumps);

}  // namespace ethosu::python
