// A job: one command stream with the region buffers it runs on and the outputs to collect.
//
// Contract: the builders turn each supported submission into a Job, checking everything a user can get
// wrong (missing files, inputs of the wrong size, inputs or outputs outside their region, regions too
// small for the stream's own accesses are left to the run) and throwing ethosu::InputError naming the
// file and the problem. Region buffers are owned by the Job; absent regions are empty.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "isa/access.h"
#include "isa/architecture.h"
#include "sim/config.h"

namespace ethosu::host {

// The most a job's region buffers may hold, checked before anything is allocated: a region, and the regions of
// one job together (host buffers: what a host can sensibly allocate). Case folders, streams, models and captures
// obey them.
inline constexpr uint64_t kMaxRegionBytes = uint64_t{4} << 30;
inline constexpr uint64_t kMaxRegionBytesPerJob = uint64_t{8} << 30;

struct OutputSpec {
  std::string name;
  uint32_t region = 1;
  uint64_t offset = 0;
  uint64_t size_bytes = 0;
  std::optional<std::filesystem::path> expected;  // expected bytes, when known
  std::string reference_engine;                   // who made `expected` (may be empty)
  unsigned element_bytes = 1;                     // for reporting differences in elements
  bool element_signed = true;
};

struct Job {
  std::string name;
  // The configuration the job runs on: what it was compiled for until a front end resolves the machine.
  std::string variant = isa::variant_name(isa::kDefaultVariant);
  // What the job's source says it was compiled for (a case's manifest, a payload header); empty when it says
  // nothing (a bare stream).
  std::string compiled_for;
  std::optional<uint32_t> payload_config;  // the CONFIG word of the payload header, when there is one
  // Set for a U65 payload of Vela 3.2 and older, which wrote product 0 (Ethos-U55) into the header for every target:
  // the header names a configuration whose command set the stream does not fit (it sets NPU_SET_PARALLEL_MODE), or
  // none at all. What the header names, with its CONFIG word; `variant` is then the U65 with as many MACs.
  std::optional<std::string> header_variant;
  std::vector<uint8_t> stream;
  std::array<std::vector<uint8_t>, isa::kRegionCount> regions;
  std::vector<OutputSpec> outputs;
  // Which file went to which input ("input 0 'x' (region 1, offset 64, 32 bytes) <- x.bin"), for the user.
  std::vector<std::string> input_mapping;
  // The layer of the compiled network each operation belongs to, by the stream offset of its NPU_OP_* command,
  // from Vela's files (host/run/layers.h); `layers_note` says where the names came from, or why there are none.
  std::map<uint32_t, std::string> layers;
  std::string layers_note;

  // The bytes of an output after the run (throws when it lies outside its region).
  std::vector<uint8_t> output_bytes(const OutputSpec& o) const;
};

// A corpus case folder (manifest.json layout of shared/opcorpus and shared/corpus), its operations named from
// Vela's files in the folder when they are there.
Job job_from_case(const std::filesystem::path& dir, bool allow_outside = false);  // see load_case()
// A case compiled for one configuration (CASE/<accelerator> of shared/corpus-u55, corpus-u85; load_compilation()):
// its model with the case's inputs, its outputs expected by tensor name.
Job job_from_compilation(const std::filesystem::path& dir, bool allow_outside = false);
// Either kind of folder; InputError when `dir` is neither.
Job job_from_folder(const std::filesystem::path& dir, bool allow_outside = false);

// Names the job's operations from Vela's files: `file` (a register listing or a per-layer CSV; InputError when it
// cannot be read or parsed), or, without one, vela_cmdstream.txt and vela_per_layer.csv in `dir` (a malformed
// one only goes into layers_note).
void name_job_layers(Job& job, const std::optional<std::filesystem::path>& file, const std::filesystem::path& dir);

struct RegionArg {  // --region N=FILE[:SIZE] or N=:SIZE
  uint32_t region = 0;
  std::optional<std::filesystem::path> file;
  std::optional<uint64_t> size_bytes;
};
struct PlacementArg {  // --input R:OFFSET=FILE, --dump R:OFFSET:SIZE=FILE
  uint32_t region = 0;
  uint64_t offset = 0;
  uint64_t size_bytes = 0;  // --dump only
  std::filesystem::path file;
};

// The check of the configuration a job runs on against what it was compiled for. A payload runs only where Arm's
// core driver runs it (its optimizer-config check: product, MACs, command-stream version): elsewhere InputError.
// An old Vela header (header_variant) runs only on a variant the user named (--variant, --set npu.variant, a
// config file), with a warning; without one, InputError saying how to run it. A case compiled for another
// configuration is refused unless `allow_mismatch` (--force-variant), then it runs with a warning (its stream runs
// as that configuration's NPU runs it). Returns the warning to print, if any.
std::optional<std::string> check_variant(const Job& job, const sim::Config& resolved, bool allow_mismatch = false);

// A raw stream (bare, COP1 or COP2) with regions from files and/or sizes, inputs placed at offsets, and the
// byte ranges to dump as outputs.
Job job_from_stream(const std::filesystem::path& stream, const std::vector<RegionArg>& regions,
                    const std::vector<PlacementArg>& inputs, const std::vector<PlacementArg>& dumps);
// The same from the stream's bytes (`what_file` names them in messages).
Job job_from_stream_bytes(const std::string& name, const std::vector<uint8_t>& file, const std::string& what_file,
                          const std::vector<RegionArg>& regions, const std::vector<PlacementArg>& inputs,
                          const std::vector<PlacementArg>& dumps);

// A Vela-compiled .tflite whose graph is one ethos-u operator: region 0 = flash, 1 = arena (scratch),
// 2 = scratch_fast, and with separate I/O regions (COP2) 3 = inputs, 4 = outputs. `inputs` are "FILE" or
// "NAME=FILE" (NAME an input tensor's name), placed at their offline-planned offsets: named ones in their tensor,
// the others in the model's input order (graph inputs first, then state tensors); missing inputs are zero.
// Outputs are listed in the model's output order; operations are named from Vela's files beside the model. CPU
// operators other than those host/firmware/cpu_ops.h runs after
// the job, or several NPU subgraphs, throw InputError naming them.
Job job_from_tflite(const std::filesystem::path& model, const std::vector<std::string>& inputs);

}  // namespace ethosu::host
