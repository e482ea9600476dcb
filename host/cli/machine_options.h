// The options that describe the simulated machine, declared once for every command that takes them: --variant,
// --system with --memory-mode and --vela-ini, --config and --set.
//
// Contract: a command asks for the groups it takes (machine_option_specs) and reads the request they make
// (machine_request), which host::resolve_config resolves. Misused options are a UsageError: --memory-mode or
// --vela-ini without --system, a --set that is no NAME=VALUE. Values themselves are checked when resolved.
#pragma once

#include <string>
#include <vector>

#include "ethosu_sim/config.h"
#include "host/cli/args.h"

namespace ethosu::cli {

enum MachineOptions : unsigned {
  VARIANT_OPTION = 1,     // --variant NAME
  SYSTEM_OPTIONS = 2,     // --system NAME, --memory-mode NAME, --vela-ini FILE...
  PARAMETER_OPTIONS = 4,  // --config FILE, --set NAME=VALUE...
  ALL_MACHINE_OPTIONS = 7,
};

std::vector<OptionSpec> machine_option_specs(unsigned groups);
// The request of the groups a command took; `--set`s are named "--set" in the resolved configuration.
ethosu_sim::MachineRequest machine_request(const Args& a, unsigned groups);
// The help lines of every machine option, for commands that take them all.
extern const char* const kMachineOptionsHelp;

}  // namespace ethosu::cli
