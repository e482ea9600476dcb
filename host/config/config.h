// The simulator's configuration as one parameter registry: the NPU's parameters (each block declares its
// own, models/npu/npu_config.h) and the system's (host/config/system_config.h: presets, region mapping).
//
// Contract: make_config() declares every parameter with its default (the imx93 system); callers layer
// presets, files and --set on top; npu::read_config() and regioncfg() read the resolved values.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ethosu_sim/config.h"
#include "isa/architecture.h"
#include "sim/config.h"

namespace ethosu::host {

sim::Config make_config();
// REGIONCFG for regions.N.port: port 0 through limiter 0, port 1 through limiter 2 (the Linux driver's
// convention).
uint32_t regioncfg(const sim::Config& c);

// What a user asks of the machine, from any front end (CLI options, driver-shim environment variables,
// Python keyword arguments): the public MachineRequest. Applied in this order: the job's variant, the system (a
// preset, or a vela.ini system config with its memory mode), the config file, the assignments, the variant asked
// for.
using ethosu_sim::MachineRequest;
// The resolved configuration for a job compiled for job_variant; throws InputError for unknown systems,
// memory modes, parameters and values, naming them.
sim::Config resolve_config(const MachineRequest& request, const std::string& job_variant);
// The configuration of a name ("ethos-u85-256"); throws InputError naming `what` and the known ones.
isa::Variant variant_named(std::string_view name, std::string_view what);

// PMEVTYPER values for PMU events of `variant` given by name (as in Arm's pmu_ethosu.h, with or without the
// ETHOSU_PMU_ prefix) or decimal hardware id, at most one per event counter of `variant`. Throws InputError naming
// an unknown event (or one of another family) or one more than the counters; events the model does not derive are listed in not_modelled (they count 0).
struct PmuSelection {
  std::array<uint16_t, isa::kMaxEventCounters> events{};
  std::vector<std::string> not_modelled;
};
PmuSelection parse_pmu_events(const std::vector<std::string>& names, isa::Variant variant = isa::kDefaultVariant);
// True for the PMU events of `variant` the model counts; the others count 0.
bool pmu_event_modelled(uint16_t hw_id, isa::Variant variant = isa::kDefaultVariant);

}  // namespace ethosu::host

namespace ethosu_sim {

// The public Config (include/ethosu_sim/config.h) is this registry.
class Config::Impl {
 public:
  explicit Impl(ethosu::sim::Config p) : params(std::move(p)) {}
  ethosu::sim::Config params;
};

}  // namespace ethosu_sim
