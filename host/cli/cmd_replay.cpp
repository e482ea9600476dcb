// replay: run a capture's submission again and compare with what it recorded.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "host/recording/capture.h"
#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "host/cli/machine_options.h"
#include "host/recording/compare.h"
#include "isa/registers.h"

namespace ethosu::cli {

const char* const kReplayHelp =
    "usage: ethosu-sim replay CAPTURE_DIR... [--functional] [--config FILE] [--set NAME=VALUE ...] [--save DIR]\n"
    "                         [--json]\n"
    "\n"
    "Runs the submission stored in a capture folder (written by 'ethosu-sim run --capture DIR' or by the\n"
    "driver shims with ETHOSU_SIM_CAPTURE=DIR; format in host/recording/CAPTURE.md) with its recorded variant,\n"
    "parameters, REGIONCFG and PMU events, in the recorded mode (timed or functional), and compares the\n"
    "regions the stream writes, STATUS, the cycle counter and the event counters with the recorded\n"
    "ones. The simulator is deterministic: a timed capture replays to the same cycle. Several captures\n"
    "(such as ROOT/* of ETHOSU_SIM_CAPTURE=ROOT) are replayed in the order given, in one process, as the\n"
    "shim ran them.\n"
    "\n"
    "Recordings made on a board by libethosu-record.so (recorded_on \"hardware\") compare the simulator with the\n"
    "board: the output bytes must be identical (any difference is a functional bug of the simulator, reported\n"
    "as such), cycles and each recorded PMU counter are compared as ratios. A table gives one row per job\n"
    "(outputs, recorded and simulated cycles, cycle error = simulated / recorded - 1, counter ratios, wall-clock\n"
    "time and the part of it outside the NPU at system.clock_hz), then the median and worst cycle error.\n"
    "\n"
    "  --functional       run the functional model instead: compares the region bytes and whether the run\n"
    "                     completed, not STATUS bits or counters\n"
    "  --config FILE      parameters ('name = value' lines, as calibrate -o writes them) over the recorded ones\n"
    "  --set NAME=VALUE   a parameter over the recorded ones and the file (repeatable; 'ethosu-sim run\n"
    "                     --list-params'); a simulator capture's counters that change are listed as differences\n"
    "  --json             the per-job comparison as JSON on standard output (jobs with cycle_error, summary)\n"
    "  --save DIR         write the replay as a capture (same submission, new results) to DIR (one\n"
    "                     CAPTURE_DIR only)\n"
    "\n"
    "exit status: 0 all identical (recordings: all outputs identical), 1 differences (listed), 2 usage error\n"
    "or a bad capture\n";

namespace {

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// Replays one capture and prints what it gave; true when identical.
bool replay_one(const std::string& dir, const host::ReplayOptions& options, const std::optional<std::string>& save) {
  const host::Capture capture = host::read_capture(dir);
  const host::ReplayResult r = host::replay(capture, options);
  if (save) host::write_capture(*save, r.replayed);

  const host::Capture& p = r.replayed;
  std::cout << dir << ": from " << capture.source << ", " << capture.variant << ", "
            << (capture.timed ? "timed" : "functional") << "; replayed " << (p.timed ? "timed" : "functional")
            << "\n";
  for (unsigned i = 0; i < isa::kRegionCount; ++i)
    if (!p.regions_after[i].empty())
      std::cout << "  region " << i << ": " << p.regions_after[i].size() << " bytes after the run\n";
  std::cout << "  STATUS " << hex32(p.status);
  if (p.timed) {
    std::cout << ", PMCCNTR " << p.cycle_counter;
    for (size_t i = 0; i < p.pmu_events.size(); ++i) {
      if (!p.pmu_events[i]) continue;
      const isa::PmuEventInfo* e =
          isa::architecture(isa::parse_variant(p.variant).value_or(isa::kDefaultVariant)).pmu_event(p.pmu_events[i]);
      std::cout << ", " << (e ? std::string(e->name) : std::to_string(p.pmu_events[i])) << " "
                << p.event_counters[i];
    }
  }
  std::cout << "\n";
  if (r.identical) {
    std::cout << "identical to the recorded run\n";
    return true;
  }
  std::cout << r.differences.size() << (r.differences.size() == 1 ? " difference" : " differences")
            << " from the recorded run:\n";
  for (const auto& d : r.differences) std::cout << "  " << d << "\n";
  return false;
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", 100 * x);
  return buf;
}

std::string ratio(uint64_t simulated, uint64_t recorded) {
  if (!recorded) return simulated ? "inf" : "=";
  char buf[32];
  std::snprintf(buf, sizeof buf, "x%.3f", static_cast<double>(simulated) / static_cast<double>(recorded));
  return buf;
}

// Nanoseconds as microseconds with one decimal.
std::string micro(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", ns / 1000);
  return buf;
}

void print_table(const std::vector<host::JobComparison>& rows) {
  size_t width = 8;
  for (const auto& j : rows) width = std::max(width, j.capture.size());
  std::cout << std::left << std::setw(static_cast<int>(width)) << "capture" << std::right << "  outputs   "
            << std::setw(12) << "recorded" << std::setw(12) << "simulated" << std::setw(10) << "error"
            << std::setw(12) << "wall us" << std::setw(13) << "overhead us" << "  counters (simulated/recorded)\n";
  for (const auto& j : rows) {
    std::ostringstream counters;
    for (const auto& c : j.counters) counters << " " << c.name << " " << ratio(c.simulated, c.recorded);
    std::cout << std::left << std::setw(static_cast<int>(width)) << j.capture << std::right << "  "
              << std::setw(9) << std::left << (j.output_differences.empty() ? "identical" : "DIFFER") << std::right
              << " " << std::setw(12) << (j.recorded_cycles ? std::to_string(*j.recorded_cycles) : "-")
              << std::setw(12) << j.simulated_cycles << std::setw(10) << (j.cycle_error ? percent(*j.cycle_error) : "-")
              << std::setw(12) << (j.wall_ns ? micro(static_cast<double>(*j.wall_ns)) : "-") << std::setw(13)
              << (j.overhead_ns ? micro(*j.overhead_ns) : "-") << " " << counters.str() << "\n";
  }
  for (const auto& j : rows) {
    for (const auto& d : j.output_differences) std::cout << j.capture << ": FUNCTIONAL DIFFERENCE: " << d << "\n";
    for (const auto& d : j.other_differences) std::cout << j.capture << ": " << d << "\n";
    for (const auto& d : j.notes) std::cout << j.capture << ": note: " << d << "\n";
  }
  const host::ComparisonSummary s = host::summarise(rows);
  std::cout << s.jobs << (s.jobs == 1 ? " job" : " jobs") << ": outputs identical in " << s.outputs_identical;
  if (s.median_cycle_error)
    std::cout << "; cycle error (simulated / recorded - 1) median " << percent(*s.median_cycle_error) << ", median |error| "
              << percent(*s.median_abs_cycle_error).substr(1) << ", worst " << percent(*s.worst_cycle_error) << " (" << s.worst_job
              << ")";
  std::cout << "\n";
  if (s.median_overhead_ns)
    std::cout << "wall clock: median " << micro(*s.median_overhead_ns) << " us per job outside the NPU (wall time - recorded cycles / system.clock_hz)\n";
  if (s.outputs_identical != s.jobs)
    std::cout << "the simulator's outputs differ from the recorded ones in " << s.jobs - s.outputs_identical
              << (s.jobs - s.outputs_identical == 1 ? " job" : " jobs")
              << ": a functional bug of the simulator (please report it with the recording)\n";
}

// Recordings made on hardware, or any capture with --json: the comparison table or JSON.
int compare_all(const std::vector<std::string>& dirs, const host::ReplayOptions& options,
                const std::optional<std::string>& save, bool json) {
  // One capture at a time: a row keeps figures and text, never a job's buffers.
  std::vector<host::JobComparison> rows;
  for (const auto& dir : dirs) {
    host::Capture replayed;
    rows.push_back(host::compare_recording(host::read_capture(dir), dir, options, save ? &replayed : nullptr));
    if (save) host::write_capture(*save, replayed);
  }
  if (json)
    std::cout << host::comparison_json(rows) << "\n";
  else
    print_table(rows);
  return std::all_of(rows.begin(), rows.end(), [](const auto& j) { return j.identical(); }) ? 0 : 1;
}

}  // namespace

int run_replay(const std::vector<std::string>& argv) {
  std::vector<OptionSpec> specs = machine_option_specs(PARAMETER_OPTIONS);
  specs.insert(specs.end(), {{"--functional", "", false, false}, {"--save", "", true, false}, {"--json", "", false, false}});
  Args a(argv, specs);
  a.expect_positionals(1, SIZE_MAX, "CAPTURE_DIR");
  if (a.value("--save") && a.positionals().size() > 1) throw UsageError("--save takes one CAPTURE_DIR");
  host::ReplayOptions options;
  options.functional = a.flag("--functional");
  const ethosu_sim::MachineRequest request = machine_request(a, PARAMETER_OPTIONS);
  options.config_file = request.config_file;
  options.assignments = request.assignments;
  // Every capture and the --save folder are checked before anything runs: exit status 2 means nothing ran. (A
  // session's captures are read twice rather than held in memory together.)
  bool hardware = false;
  for (const auto& dir : a.positionals()) {
    const host::Capture c = host::read_capture(dir);
    hardware = hardware || c.on_hardware;
    host::check_recording(c, options);
  }
  if (auto save = a.value("--save")) host::check_capture_dir(*save);
  if (hardware || a.flag("--json")) return compare_all(a.positionals(), options, a.value("--save"), a.flag("--json"));
  size_t differing = 0;
  for (const auto& dir : a.positionals())
    if (!replay_one(dir, options, a.value("--save"))) ++differing;
  if (a.positionals().size() > 1)
    std::cout << a.positionals().size() - differing << " of " << a.positionals().size() << " captures identical\n";
  return differing ? 1 : 0;
}

}  // namespace ethosu::cli
