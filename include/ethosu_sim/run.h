// Jobs and runs: what `ethosu-sim run` does, as a library. Part of the public API (include/ethosu_sim),
// library EthosuSim::platform.
//
// A Job is one command stream with the buffers of its regions and the outputs to collect: from a conformance
// case folder (manifest.json, cmdstream.bin, region files, inputs, expected outputs), a Vela-compiled .tflite
// whose graph is one ethos-u operator, or a stream and buffers of the caller's. run() executes it on the ready
// platform (platform.h: NPU, SRAM, DRAM) programmed through its registers by the driver-like host (driver.h),
// or on the functional model; the job's region buffers hold the results afterwards. The platform is elaborated
// once per process and reused, so runs may follow each other with any configurations; run() is not
// thread-safe (SystemC has one kernel per process) and cannot share a process with another SystemC platform
// that has started simulating. Bad input (missing files, unknown parameters) throws ethosu_sim::InputError;
// an NPU fault is a result.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ethosu_sim/config.h"
#include "ethosu_sim/isa.h"
#include "ethosu_sim/report.h"

namespace ethosu_sim {

struct Output {
  std::string name;
  unsigned region = 1;
  uint64_t offset = 0, size_bytes = 0;
  std::optional<std::filesystem::path> expected;  // expected bytes, when known
  unsigned element_bytes = 1;                     // for counting differences in elements
  bool element_signed = true;
};

class Job {
 public:
  // A case folder (manifest.json) or a compilation folder (CASE/<accelerator>: Vela's model_vela.tflite for one
  // configuration, with CASE/info.json naming its inputs and expected outputs). The files they name must lie
  // inside the case folder (or its parent case, for a nested build such as u65_512/) unless allow_outside.
  static Job from_case(const std::filesystem::path& folder, bool allow_outside = false);
  // inputs: "FILE" (the next input in the model's graph-input order) or "NAME=FILE" (the input tensor NAME),
  // placed at their offline-planned offsets; missing inputs are zero.
  static Job from_tflite(const std::filesystem::path& model, const std::vector<std::string>& inputs = {});
  // A bare command stream or a COP1/COP2 driver payload, with the region buffers it runs on. A payload's header
  // names the configuration it was compiled for; a bare stream's is `variant` ("ethos-u55-128", ...), else the default.
  static Job from_stream(std::vector<uint8_t> stream, std::array<std::vector<uint8_t>, kRegionCount> regions,
                         const std::string& variant = "");

  // Copies are deep. A moved-from Job is an empty one (no stream, regions or outputs), as a moved-from vector is
  // empty: every call is valid on it, and a run of it faults for its empty stream.
  Job(const Job& other);
  Job(Job&& other) noexcept;
  Job& operator=(const Job& other);
  Job& operator=(Job&& other) noexcept;
  ~Job();

  const std::string& name() const;
  const std::string& variant() const;  // what the stream was compiled for
  const std::vector<uint8_t>& stream() const;
  std::vector<uint8_t>& region(unsigned index);  // 0-7; empty when absent
  const std::vector<uint8_t>& region(unsigned index) const;
  const std::vector<Output>& outputs() const;
  std::vector<uint8_t> output_bytes(size_t output) const;

  // The job itself, for the simulator's own code; its type is not part of the API.
  class Impl;
  Impl& impl();
  const Impl& impl() const;

 private:
  explicit Job(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;  // null once moved from: the empty job
};

struct RunOptions {
  bool timed = true;   // the SystemC platform driven through registers; false: the functional model
  Config config;       // the machine; a job compiled for another variant than config's runs on the job's
  std::array<uint16_t, kMaxEventCounters> pmu_events{};       // PMEVTYPER values (pmu_events() turns names into them)
  std::optional<std::filesystem::path> trace;    // timed runs: a Chrome/Perfetto trace of the blocks
};

struct RunResult {
  bool completed = false;             // the stream reached NPU_OP_STOP without a fault
  std::optional<std::string> fault;   // the NPU's fault as a driver reports it
  // What the driver read at the end: STATUS in the IRQ handler, PMCCNTR and the event counters PMEVCNTRn (4 on the
  // U55 and U65, 8 on the U85; 0 when functional).
  uint32_t status = 0;
  uint64_t cycle_counter = 0;
  std::array<uint32_t, kMaxEventCounters> event_counters{};
  std::optional<JobReport> report;    // timed runs
  std::vector<std::string> hazards;
  std::string summary;                // a few lines for people
  uint64_t total_cycles() const { return report ? report->total_cycles : 0; }
};

RunResult run(Job& job, const RunOptions& options = {});

struct Comparison {
  bool exact = false;
  bool has_expected = false;  // false: the output has no expected file, nothing was compared
  size_t mismatches = 0;      // elements
  int64_t max_abs_diff = 0;   // in element units
  std::string text;           // "exact (1296 bytes)" or "12 of 1296 elements differ, max |diff| 1"
};
// Each output of the job (after a run) against its expected bytes.
std::vector<Comparison> compare_outputs(const Job& job);

// PMEVTYPER values for PMU events of `variant` named as in Arm's pmu_ethosu.h (MAC_ACTIVE, with or without the
// ETHOSU_PMU_ prefix) or by hardware id, one per event counter (4 on the U55 and U65, 8 on the U85); InputError
// for an unknown name or more events than counters.
std::array<uint16_t, kMaxEventCounters> pmu_events(const std::vector<std::string>& names, Variant variant = kDefaultVariant);

// The report as `ethosu-sim run --report` writes it (with the resolved configuration), and the table it prints.
std::string report_json(const JobReport& report, const Config& config);
std::string summary_table(const JobReport& report);

}  // namespace ethosu_sim
