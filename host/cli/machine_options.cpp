#include "host/cli/machine_options.h"

namespace ethosu::cli {

const char* const kMachineOptionsHelp =
    "  --variant NAME       ethos-u55-32, -64, -128, -256, ethos-u65-256 or -512 (default: what the case or\n"
    "                       payload was built for; needed for U65 payloads of Vela 3.2 and older, whose header\n"
    "                       names an Ethos-U55); another variant than a case's or a model's is refused\n"
    "  --force-variant      run on --variant even though the job was compiled for another (a what-if; warns)\n"
    "  --system NAME        a preset (imx93, imx93-800mhz, corstone-300, arm-internal-default: Arm's Vela\n"
    "                       built-in U65 system, nxp-internal-default: NXP's) or a vela.ini system config\n"
    "                       (Ethos_U65_High_End, Ethos_U55_High_End_Embedded, ... or one from --vela-ini);\n"
    "                       default: imx93 for a U65, corstone-300 for a U55\n"
    "  --memory-mode NAME   a vela.ini memory mode (Dedicated_Sram, Shared_Sram, Sram_Only, ...) or No_Sram, on\n"
    "                       any system or preset (default: the preset's; Dedicated_Sram on a U65, Shared_Sram on\n"
    "                       a U55)\n"
    "  --vela-ini FILE      read system configs and memory modes from a vela.ini (repeatable)\n"
    "  --config FILE        parameters, one 'name = value' per line\n"
    "  --set NAME=VALUE     one parameter by hierarchical name (repeatable; --list-params shows them)\n";

std::vector<OptionSpec> machine_option_specs(unsigned groups) {
  std::vector<OptionSpec> specs;
  if (groups & VARIANT_OPTION) {
    specs.push_back({"--variant", "", true, false});
    specs.push_back({"--force-variant", "", false, false});
  }
  if (groups & SYSTEM_OPTIONS) {
    specs.push_back({"--system", "", true, false});
    specs.push_back({"--memory-mode", "", true, false});
    specs.push_back({"--vela-ini", "", true, true});
  }
  if (groups & PARAMETER_OPTIONS) {
    specs.push_back({"--config", "", true, false});
    specs.push_back({"--set", "", true, true});
  }
  return specs;
}

ethosu_sim::MachineRequest machine_request(const Args& a, unsigned groups) {
  ethosu_sim::MachineRequest r;
  r.origin = "--set";
  if (groups & VARIANT_OPTION) {
    r.variant = a.value("--variant");
    r.allow_variant_mismatch = a.flag("--force-variant");
    if (r.allow_variant_mismatch && !r.variant) throw UsageError("--force-variant goes with --variant");
  }
  if (groups & SYSTEM_OPTIONS) {
    r.system = a.value("--system");
    r.memory_mode = a.value("--memory-mode");
    for (const auto& f : a.values("--vela-ini")) r.vela_ini.emplace_back(f);
    if (!r.system && !r.memory_mode && !r.vela_ini.empty())
      throw UsageError("--vela-ini goes with --system or --memory-mode");
  }
  if (groups & PARAMETER_OPTIONS) {
    if (auto f = a.value("--config")) r.config_file = *f;
    r.assignments = a.values("--set");
    for (const auto& s : r.assignments) split_assignment(s, "--set");
  }
  return r;
}

}  // namespace ethosu::cli
