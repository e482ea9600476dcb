// A conformance case: one folder with a manifest.json, a command stream, region files, inputs and expected
// outputs (shared/opcorpus and shared/corpus, including the corpus u65_512/ variant folders).
//
// Contract: load_case() reads either manifest flavour into one CorpusCase. The normalised keys (`regions`
// object keyed "0".."7" with `size_bytes`, `inputs[]`/`outputs[]` with `size_bytes` and `file`) are used when
// present; otherwise the model-corpus keys (`regions` or `regions_detail` list with `region`/`size`/`file`,
// `npu_inputs[]`/`npu_outputs[]` with `bytes`, `file`/`expected_file`). When a manifest carries both, they
// must agree. A tensor's `shape`, when given, is a list of non-negative integers. Paths are resolved relative to the manifest's folder and every referenced file must exist
// with the declared size; tensors must lie inside their region. Anything else throws ethosu::InputError
// naming the manifest and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ethosu::host {

enum class CaseFlavour { OPCORPUS, MODEL_CORPUS };

struct CaseRegion {
  uint32_t index = 0;  // base-pointer index
  uint64_t size_bytes = 0;
  std::optional<std::filesystem::path> file;  // initial contents (region 0 flash); absent = uninitialised
};

struct CaseTensor {
  std::string name;
  uint32_t region = 0;
  uint64_t offset = 0;  // bytes into the region
  uint64_t size_bytes = 0;
  std::optional<std::filesystem::path> file;  // inputs: data to load; outputs: expected bytes
  // Outputs: the engine that produced `file`, from the manifest's reference.files (e.g. "tflite_int_numpy",
  // "armnn_cpuref", "tflm_reference_kernels"); empty when the manifest does not say.
  std::string reference_engine;
  std::string dtype;  // "int8", "uint8", "int16", "int32"...; empty when the manifest does not say
  std::vector<uint64_t> shape;  // the manifest's `shape`; empty when it gives none
};

struct CorpusCase {
  std::filesystem::path manifest;
  CaseFlavour flavour = CaseFlavour::OPCORPUS;
  std::string name;
  std::string accelerator;  // e.g. "ethos-u65-256": the variant the stream was compiled for
  std::filesystem::path command_stream;
  std::vector<CaseRegion> regions;  // ascending index
  std::vector<CaseTensor> inputs, outputs;

  // nullptr when the case has no such region.
  const CaseRegion* region(uint32_t index) const;
};

// A case compiled by Vela for one configuration, as the family corpora hold it (shared/corpus-u55, corpus-u85):
// CASE/info.json names the inputs and the expected outputs by tensor name, CASE/<accelerator>/model_vela.tflite
// is Vela's model for that configuration.
struct CompiledInput {
  std::string tensor;
  std::filesystem::path file;
};
struct CompiledOutput {
  std::string tensor;
  std::optional<std::filesystem::path> expected;  // absent where the case keeps no reference
};
struct VelaCompilation {
  std::filesystem::path info;   // CASE/info.json
  std::filesystem::path model;  // CASE/<accelerator>/model_vela.tflite
  std::string name;             // "add_i8/ethos-u55-128"
  std::string accelerator;      // the folder's name, a key of info.json's compilations
  bool inputs_by_name = false;  // the inputs go to their tensors by name, not in graph order
  std::vector<CompiledInput> inputs;    // in the model's graph-input order
  std::vector<CompiledOutput> outputs;  // in the graph's output order
  std::optional<uint64_t> vela_npu_cycles, vela_total_cycles;  // Vela's estimate
  std::string system_config, memory_mode;                      // what Vela compiled for
};

// True for a folder that holds model_vela.tflite and whose parent holds info.json.
bool is_compilation(const std::filesystem::path& dir);
// `dir` is CASE/<accelerator>. The files info.json names must lie, after symbolic links, inside CASE unless
// `allow_outside`. Anything wrong throws ethosu::InputError naming info.json and the key.
VelaCompilation load_compilation(const std::filesystem::path& dir, bool allow_outside = false);

// `path` is a manifest.json or the folder holding one.
// The files a manifest names must lie, after symbolic links, inside the case folder (or, for a nested build
// such as u65_512/, the parent case's folder) unless `allow_outside`.
CorpusCase load_case(const std::filesystem::path& path, bool allow_outside = false);

}  // namespace ethosu::host
