// The ethosu-sim subcommands. Each returns the process exit status and throws UsageError or
// ethosu::InputError for bad input (main turns them into status 2).
#pragma once

#include <string>
#include <vector>

namespace ethosu::cli {

struct Subcommand {
  const char* name;
  const char* help;
  int (*run)(const std::vector<std::string>& args);
};

const Subcommand* find_subcommand(const std::string& name);

int run_disasm(const std::vector<std::string>& args);
int run_asm(const std::vector<std::string>& args);
int run_validate(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_bench(const std::vector<std::string>& args);
int run_replay(const std::vector<std::string>& args);
int run_calibrate(const std::vector<std::string>& args);

extern const char* const kDisasmHelp;
extern const char* const kAsmHelp;
extern const char* const kValidateHelp;
extern const std::string kRunHelp;
extern const char* const kBenchHelp;
extern const char* const kReplayHelp;
extern const char* const kCalibrateHelp;

}  // namespace ethosu::cli
