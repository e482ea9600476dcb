// The simulated machine as named run-time parameters. Part of the public API (include/ethosu_sim).
//
// Every parameter has a hierarchical name (`npu.mac.per_core`, `mem.axi1.read_latency_cycles`,
// `system.clock_hz`, `regions.2.port`), a unit, a meaning and an allowed range; parameters() lists them, as
// `ethosu-sim run --list-params` does. A default Config is the i.MX 93 (`imx93` preset) with an
// ethos-u65-256. MachineRequest layers a machine exactly as the CLI's options do: the job's variant, then the
// system (a preset, or a vela.ini system config with its memory mode), the config file, the assignments and
// last the variant asked for.
//
// Who reads what: the NPU (ethosu_sim::Npu::configure) takes `npu.*`, `system.clock_hz` and `mem.axi0.*` /
// `mem.axi1.*`, the timing of its own AXI ports; a driver takes regioncfg() (`regions.N.port`). Errors (an
// unknown name, with the close names listed; a value of the wrong type or out of range; an unknown system)
// throw ethosu_sim::InputError. No SystemC.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ethosu_sim/isa.h"

namespace ethosu_sim {

// What a user asks of the machine, as the CLI's --variant, --system, --memory-mode, --vela-ini, --config, --set.
struct MachineRequest {
  std::optional<std::string> variant;                 // "ethos-u65-256", "ethos-u55-128", ... (isa.h)
  std::optional<std::string> system;                  // a preset (imx93, ...) or a vela.ini system config
  std::optional<std::string> memory_mode;             // vela.ini memory mode or No_Sram, on any system
  std::vector<std::filesystem::path> vela_ini;        // extra vela.ini files
  std::optional<std::filesystem::path> config_file;   // `name = value` lines
  std::vector<std::string> assignments;               // "name=value"
  std::string origin = "assignment";                  // how the assignments are named in the resolved configuration
  // Run a case or model on another variant than it was compiled for (a what-if, with a warning) instead of refusing.
  bool allow_variant_mismatch = false;
};

struct Parameter {
  std::string name, value, unit, description;
  std::string range;   // allowed values, for people
  std::string origin;  // where the value came from: empty (default), a preset, "file:line", "--set"
  bool read_only = false;  // a label recording where other values came from (set by presets only)
};

class Config {
 public:
  // The imx93 preset with an ethos-u65-256.
  Config();
  // The machine `request` describes for a job compiled for `job_variant`.
  explicit Config(const MachineRequest& request, const std::string& job_variant = variant_name(kDefaultVariant));
  // Moving shares the parameters as copying does, so a moved-from Config keeps its values (it never holds none).
  Config(const Config& other) = default;
  Config(Config&& other) noexcept : impl_(other.impl_) {}
  Config& operator=(const Config& other) = default;
  Config& operator=(Config&& other) noexcept {
    impl_ = other.impl_;
    return *this;
  }
  ~Config() = default;

  // One parameter, as `--set name=value` does (a later set wins over presets and files).
  void set(const std::string& name, const std::string& value);
  // A parameter's value as text ("500", "3.75", "ethos-u65-256").
  std::string get(const std::string& name) const;
  std::vector<Parameter> parameters() const;  // sorted by name
  std::string variant() const;                // npu.variant
  // REGIONCFG as a driver programs it for regions.N.port: port 0 through limiter 0, port 1 through limiter 2.
  uint32_t regioncfg() const;
  // Every parameter with value, type, unit, source, origin and meaning, as JSON (the report's "config").
  std::string to_json() const;

  // The registry itself, for the simulator's own code; its type is not part of the API.
  class Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Impl> impl_;  // copies share it until one of them is set()
};

}  // namespace ethosu_sim
