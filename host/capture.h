// Capture and replay of one submission: what a driver handed the NPU (command stream, region buffers,
// register set-up, PMU selection, configuration) and what came back (region bytes, STATUS, PMU counts).
//
// Contract: write_capture() stores a Capture as a folder (format described in host/CAPTURE.md) that
// read_capture() reads back exactly; read_capture() checks everything a hand-edited or truncated folder
// can get wrong and throws ethosu::InputError naming the file and the problem. replay() runs a capture's
// submission on the simulator with its recorded configuration and compares the results with the recorded
// ones. The shims write a capture per submission when ETHOSU_SIM_CAPTURE=DIR is set (capture_dir_from_env).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "host/regions.h"

namespace ethosu::sim {
class Config;
}

namespace ethosu::host {

struct Job;
struct RunOptions;
struct RunOutcome;

struct Capture {
  std::string source;                      // who submitted: "linux-accel", "nxp-ethosu", "cli", ...
  std::string variant = "ethos-u65-256";
  std::vector<uint8_t> stream;             // the bare command stream the NPU fetched
  // Region buffers as handed to the NPU before the run; an absent region is empty. sram_region names the
  // region that is the NPU's on-chip SRAM (the Linux driver's region 2 when sram_size > 0), if any.
  std::array<std::vector<uint8_t>, kRegions> regions_before;
  std::optional<uint32_t> sram_region;
  // Register set-up the driver made.
  uint32_t regioncfg = 0xAA8A;
  std::array<uint32_t, 4> axi_limits{0x1F3F00B0, 0x1F3F00B0, 0x1F3F0002, 0x1F3F0002};
  std::array<uint16_t, 4> pmu_events{};    // hardware event ids programmed into PMEVTYPER0-3 (0 = unused)
  bool timed = true;                       // false: the functional-only mode ran
  // Run-time parameters by hierarchical name (the non-default part of the resolved configuration).
  std::map<std::string, std::string> parameters;
  // What came back.
  std::array<std::vector<uint8_t>, kRegions> regions_after;  // only the regions the stream writes; others empty
  uint32_t status = 0;                     // STATUS as the driver read it in its IRQ handler
  uint64_t cycle_counter = 0;
  std::array<uint32_t, 4> event_counters{};
};

void write_capture(const std::filesystem::path& dir, const Capture& capture);
// Throws InputError when write_capture() would refuse `dir` (not a folder, or a folder holding files that are
// not a capture's). Front ends call it before running, so that a bad folder costs no simulation.
void check_capture_dir(const std::filesystem::path& dir);
Capture read_capture(const std::filesystem::path& dir);

// The folder for the next capture under $ETHOSU_SIM_CAPTURE (a fresh numbered subfolder), or nothing when
// the variable is unset or empty.
std::optional<std::filesystem::path> capture_dir_from_env(const std::string& source);

struct ReplayResult {
  bool identical = false;      // outputs, STATUS and counters all equal to the recorded ones
  std::vector<std::string> differences;  // one line per difference, naming what and where
  Capture replayed;            // what this run produced (same inputs, new results)
};
ReplayResult replay(const Capture& capture);

// What-if replays: the recorded submission on another machine or model. Cycle and event counter differences are
// then expected, and listed like any other.
struct ReplayOptions {
  // Run the functional model instead of the recorded mode: compares the region bytes and whether the run
  // completed (STATUS.cmd_end_reached and no error bit), not the STATUS bits or counters (it has neither).
  bool functional = false;
  std::vector<std::string> assignments;  // "name=value" over the recorded parameters
};
ReplayResult replay(const Capture& capture, const ReplayOptions& options);
// Throws the InputError replay() would throw before running (a timed replay of AXI limits the simulator's host
// does not program, parameters or assignments that do not resolve), so that a front end replaying several
// captures can refuse a bad one before running any.
void check_replay(const Capture& capture, const ReplayOptions& options);

// For writers of captures. The part of a resolved configuration that differs from make_config()'s defaults, as
// Capture::parameters holds it (values in the registry's text form).
std::map<std::string, std::string> capture_parameters(const sim::Config& config);
// A capture of one run_job(): regions_before are the job's region buffers as submitted, `job` is the job after
// the run (its buffers hold the results), options/config/outcome how it ran and what came back. regions_after
// keeps the regions the stream writes (OFM and DMA destinations, as isa::validate finds them); sram_region is the
// first region with a buffer that REGIONCFG puts on AXI0, the on-chip SRAM.
Capture capture_run(const std::string& source, const std::array<std::vector<uint8_t>, kRegions>& regions_before,
                    const Job& job, const RunOptions& options, const RunOutcome& outcome, const sim::Config& config);

}  // namespace ethosu::host
