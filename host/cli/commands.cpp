#include "host/cli/commands.h"

namespace ethosu::cli {

const Subcommand* find_subcommand(const std::string& name) {
  static const Subcommand kSubcommands[] = {
      {"disasm", kDisasmHelp, run_disasm},
      {"asm", kAsmHelp, run_asm},
      {"validate", kValidateHelp, run_validate},
      {"run", kRunHelp.c_str(), run_run},
      {"bench", kBenchHelp, run_bench},
      {"replay", kReplayHelp, run_replay},
      {"calibrate", kCalibrateHelp, run_calibrate},
  };
  for (const auto& s : kSubcommands)
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace ethosu::cli
