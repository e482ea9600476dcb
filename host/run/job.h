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
#include <optional>
#include <string>
#include <vector>

#include "isa/access.h"
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
  std::string variant = "ethos-u65-256";
  // Set when the payload header names no Ethos-U65 (Vela 3.2 and older write product 0, Ethos-U55, for every
  // target): what it names, with its CONFIG word. `variant` is then the U65 with the same MAC count.
  std::optional<std::string> header_variant;
  std::vector<uint8_t> stream;
  std::array<std::vector<uint8_t>, isa::kRegionCount> regions;
  std::vector<OutputSpec> outputs;
  // Which file went to which input ("input 0 'x' (region 1, offset 64, 32 bytes) <- x.bin"), for the user.
  std::vector<std::string> input_mapping;

  // The bytes of an output after the run (throws when it lies outside its region).
  std::vector<uint8_t> output_bytes(const OutputSpec& o) const;
};

// A corpus case folder (manifest.json layout of shared/opcorpus and shared/corpus).
Job job_from_case(const std::filesystem::path& dir, bool allow_outside = false);  // see load_case()

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

// The payload header check a driver makes, for the variant the configuration resolved to: a job whose header
// names no U65 (header_variant) runs only on a variant the user named (--variant, --set npu.variant, a config
// file), since Arm's core driver refuses it on a U65 (its product check). Returns the warning to print when
// the user's variant wins; throws InputError, saying how to run it, when the variant came from the job.
std::optional<std::string> check_payload_header(const Job& job, const sim::Config& resolved);

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
// Outputs are listed in the model's output order. CPU operators other than those host/firmware/cpu_ops.h runs after
// the job, or several NPU subgraphs, throw InputError naming them.
Job job_from_tflite(const std::filesystem::path& model, const std::vector<std::string>& inputs);

}  // namespace ethosu::host
