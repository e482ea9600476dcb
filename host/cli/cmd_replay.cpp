// replay: run a capture's submission again and compare with what it recorded.
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>

#include "host/capture.h"
#include "host/cli/args.h"
#include "host/cli/commands.h"
#include "isa/registers.h"

namespace ethosu::cli {

const char* const kReplayHelp =
    "usage: ethosu-sim replay CAPTURE_DIR... [--functional] [--set NAME=VALUE ...] [--save DIR]\n"
    "\n"
    "Runs the submission stored in a capture folder (written by 'ethosu-sim run --capture DIR' or by the\n"
    "driver shims with ETHOSU_SIM_CAPTURE=DIR; format in host/CAPTURE.md) with its recorded variant,\n"
    "parameters, REGIONCFG and PMU events, in the recorded mode (timed or functional), and compares the\n"
    "regions the stream writes, STATUS, the cycle counter and the four event counters with the recorded\n"
    "ones. The simulator is deterministic: a timed capture replays to the same cycle. Several captures\n"
    "(such as ROOT/* of ETHOSU_SIM_CAPTURE=ROOT) are replayed in the order given, in one process, as the\n"
    "shim ran them.\n"
    "\n"
    "  --functional       run the functional model instead: compares the region bytes and whether the run\n"
    "                     completed, not STATUS bits or counters\n"
    "  --set NAME=VALUE   a parameter over the recorded ones (repeatable; 'ethosu-sim run --list-params');\n"
    "                     the counters that change are listed as differences\n"
    "  --save DIR         write the replay as a capture (same submission, new results) to DIR (one\n"
    "                     CAPTURE_DIR only)\n"
    "\n"
    "exit status: 0 all identical, 1 differences (listed), 2 usage error or a bad capture\n";

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
  for (unsigned i = 0; i < host::kRegions; ++i)
    if (!p.regions_after[i].empty())
      std::cout << "  region " << i << ": " << p.regions_after[i].size() << " bytes after the run\n";
  std::cout << "  STATUS " << hex32(p.status);
  if (p.timed) {
    std::cout << ", PMCCNTR " << p.cycle_counter;
    for (size_t i = 0; i < p.pmu_events.size(); ++i) {
      if (!p.pmu_events[i]) continue;
      const isa::PmuEventInfo* e = isa::find_pmu_event(p.pmu_events[i]);
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

}  // namespace

int run_replay(const std::vector<std::string>& argv) {
  Args a(argv, {{"--functional", "", false, false}, {"--set", "", true, true}, {"--save", "", true, false}});
  a.expect_positionals(1, SIZE_MAX, "CAPTURE_DIR");
  if (a.value("--save") && a.positionals().size() > 1) throw UsageError("--save takes one CAPTURE_DIR");
  host::ReplayOptions options;
  options.functional = a.flag("--functional");
  options.assignments = a.values("--set");
  for (const auto& s : options.assignments) split_assignment(s, "--set");
  // Every capture and the --save folder are checked before anything runs: exit status 2 means nothing ran. (A
  // session's captures are read twice rather than held in memory together.)
  for (const auto& dir : a.positionals()) host::check_replay(host::read_capture(dir), options);
  if (auto save = a.value("--save")) host::check_capture_dir(*save);
  size_t differing = 0;
  for (const auto& dir : a.positionals())
    if (!replay_one(dir, options, a.value("--save"))) ++differing;
  if (a.positionals().size() > 1)
    std::cout << a.positionals().size() - differing << " of " << a.positionals().size() << " captures identical\n";
  return differing ? 1 : 0;
}

}  // namespace ethosu::cli
