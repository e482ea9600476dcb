// The simulator against recordings: captures made on a board by libethosu-record.so (or by the simulator itself)
// replayed job by job, with what the board did beside what the simulator does.
//
// Contract: compare_recording() runs one capture on the configuration ReplayOptions asks for (the capture's
// recorded parameters, then the file, then --set) and compares. Output bytes must be identical: every
// difference in what the client reads back (the regions the stream writes; for an NXP inference its status, the
// bytes appended to its OFM buffers and the results in its arena) is a functional difference. Cycles and PMU
// counters are compared as ratios, for what the recording has; a simulator capture's STATUS and counters are
// compared exactly, as replay() does. NXP inferences run through the firmware's emulation
// (host/backends/nxp/nxp_inference.h). Bad recordings throw ethosu::InputError naming the capture.
//
// RecordedJob is a recording made ready to run many times on different configurations (calibration): an NXP
// inference is turned into its NPU job once. Its cycles come from the cycle-level platform. read_recordings()
// keeps the jobs of a set of recordings in memory up to a bound and reads the others again for every simulation,
// so that calibrating on any number of recordings holds at most that bound and one recording.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "host/recording/capture.h"
#include "host/run/job.h"
#include "host/run/run_job.h"
#include "host/config/config.h"

namespace ethosu::host {

struct CounterComparison {
  uint16_t event = 0;      // hardware event id
  std::string name;
  uint64_t recorded = 0;
  uint64_t simulated = 0;
};

struct JobComparison {
  std::string capture;     // the folder, as given
  std::string source;
  bool on_hardware = false;
  std::vector<std::string> output_differences;  // functional: the client would read other bytes
  std::vector<std::string> other_differences;   // simulator captures: STATUS and counters that differ
  std::vector<std::string> notes;               // worth knowing, not a difference (a fault the board may share)
  std::optional<uint64_t> recorded_cycles;
  uint64_t simulated_cycles = 0;
  std::optional<double> cycle_error;            // simulated / recorded - 1
  std::vector<CounterComparison> counters;      // the events the recording counted
  std::optional<uint64_t> wall_ns;
  double clock_hz = 0;                          // the replay's system.clock_hz
  std::optional<double> overhead_ns;            // wall_ns - recorded cycles / clock: the driver's share
  bool identical() const { return output_differences.empty() && other_differences.empty(); }
};

// `replayed`, when given, receives what the run produced (for replay --save); the comparison itself holds only
// figures and text, so that comparing a long session keeps no job's buffers.
JobComparison compare_recording(const Capture& capture, const std::string& name, const ReplayOptions& options,
                                Capture* replayed = nullptr);
// Throws the InputError compare_recording() would throw before running.
void check_recording(const Capture& capture, const ReplayOptions& options);

// The figures `replay` prints under its table: outputs identical, the median (signed and absolute) and worst cycle
// error with its job, the median per-job time outside the NPU. Unset when no job has them.
struct ComparisonSummary {
  size_t jobs = 0, outputs_identical = 0;
  std::optional<double> median_cycle_error, median_abs_cycle_error, worst_cycle_error, median_overhead_ns;
  std::string worst_job;
};
ComparisonSummary summarise(const std::vector<JobComparison>& jobs);
// {"jobs": [...], "summary": {...}} as `replay --json` and ethosu_sim.compare() give it (host/recording/CAPTURE.md).
std::string comparison_json(const std::vector<JobComparison>& jobs);

class RecordedJob {
 public:
  // Throws InputError naming `name` when the recording cannot be run (an NXP inference the firmware refuses).
  RecordedJob(const Capture& capture, std::string name);
  const std::string& name() const { return name_; }
  const std::string& variant() const { return variant_; }
  std::optional<uint64_t> recorded_cycles() const { return recorded_cycles_; }
  std::optional<uint64_t> wall_ns() const { return wall_ns_; }
  // The simulated cycle count on `config` (resolved for variant()).
  uint64_t simulate(const npu::NpuConfig& config) const;
  // The bytes its job holds in memory (0 once released).
  uint64_t job_bytes() const;
  // Lets the job go: simulate() reads the recording from `folder` again each time.
  void release(const std::filesystem::path& folder);

 private:
  std::string name_;
  std::string variant_;
  std::optional<Job> job_;                      // null once released
  std::optional<std::filesystem::path> folder_;  // where a released job is read from
  RunOptions options_;
  std::optional<uint64_t> recorded_cycles_;
  std::optional<uint64_t> wall_ns_;
};

// The recordings in `folders` (each named by its folder), read and checked one at a time; their jobs stay in
// memory while they hold at most `keep_bytes` together, later ones are released (RecordedJob::release) [I: 64 MiB
// keeps a dozen MobileNet-sized jobs; reading one again costs far less than simulating it].
inline constexpr uint64_t kKeptRecordingBytes = uint64_t{64} << 20;
std::vector<RecordedJob> read_recordings(const std::vector<std::string>& folders,
                                         uint64_t keep_bytes = kKeptRecordingBytes);

}  // namespace ethosu::host
