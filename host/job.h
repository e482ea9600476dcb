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

#include "host/regions.h"

namespace ethosu::host {



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
  std::vector<uint8_t> stream;
  std::array<std::vector<uint8_t>, kRegions> regions;
  std::vector<OutputSpec> outputs;

  // The bytes of an output after the run (throws when it lies outside its region).
  std::vector<uint8_t> output_bytes(const OutputSpec& o) const;
};

// A corpus case folder (manifest.json layout of shared/opcorpus and shared/corpus).
Job job_from_case(const std::filesystem::path& dir);

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

// A raw stream (bare or COP1) with regions from files and/or sizes, inputs placed at offsets, and the
// byte ranges to dump as outputs.
Job job_from_stream(const std::filesystem::path& stream, const std::vector<RegionArg>& regions,
                    const std::vector<PlacementArg>& inputs, const std::vector<PlacementArg>& dumps);

// A Vela-compiled .tflite whose graph is one ethos-u operator: region 0 = flash, 1 = arena (scratch),
// 2 = scratch_fast; inputs placed at their offline-planned arena offsets (files in input order; missing
// inputs are zero). CPU operators other than those host/cpu_ops.h runs after the job, or several NPU
// subgraphs, throw InputError naming them.
Job job_from_tflite(const std::filesystem::path& model, const std::vector<std::filesystem::path>& inputs);

}  // namespace ethosu::host
