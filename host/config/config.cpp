#include "host/config/config.h"

#include <algorithm>

#include "host/config/system_config.h"
#include "isa/pmu_event_text.h"
#include "isa/registers.h"
#include "models/npu/npu.h"
#include "sim/error.h"

namespace ethosu::host {

sim::Config make_config() {
  sim::Config c;
  // The NPU's parameters (each block lists its own), with the imx93 preset's clock and memories as defaults.
  const Machine imx93 = preset("imx93");
  npu::NpuConfig defaults;
  defaults.clock_hz = imx93.system.core_clock_hz;
  const unsigned width = isa::architecture(defaults.variant).axi_bytes_per_beat;
  for (unsigned p = 0; p < kAxiPorts; ++p) set_port_timing(defaults.axi[p], imx93.system.port_timing(p), width);
  npu::declare_parameters(c, defaults);
  declare_parameters(c);
  return c;
}

uint32_t regioncfg(const sim::Config& c) {
  uint32_t v = 0;
  for (unsigned r = 0; r < isa::kRegionCount; ++r)
    if (c.param("regions." + std::to_string(r) + ".port").as_int()) v |= 2u << (2 * r);
  return v;
}

isa::Variant variant_named(std::string_view name, std::string_view what) {
  const auto v = isa::parse_variant(std::string(name));
  if (!v)
    throw InputError(std::string(what) + ": unknown NPU variant '" + std::string(name) + "'; known: " + isa::variant_names());
  return *v;
}

namespace {

// The machine system `sys` names with memory mode `mode` (unset: the system's own for a preset, the
// configuration's default for a vela.ini system config). A vela.ini section of the user's files wins over a
// preset of the same name, so their `internal-default` is theirs.
Machine machine_named(const std::string& sys, const std::optional<std::string>& mode, const VelaIni& ini,
                      const isa::Architecture& arch) {
  const auto sections = ini.system_config_names();
  if (std::find(sections.begin(), sections.end(), sys) != sections.end())
    return ini.machine(sys, mode.value_or(std::string(arch.default_memory_mode)));
  const auto presets = preset_names();
  if (std::find(presets.begin(), presets.end(), sys) == presets.end()) {
    if (sys == "internal-default") preset(sys);  // refuses, naming both of Vela's
    std::vector<std::string> known = presets;
    known.insert(known.end(), sections.begin(), sections.end());
    std::string msg = "unknown system '" + sys + "'";
    const auto close = sim::close_names(sys, known);
    if (!close.empty()) msg += "; did you mean " + close.front() + "?";
    msg += " Presets:";
    for (const auto& n : presets) msg += " " + n;
    msg += "; vela.ini system configs:";
    for (const auto& n : sections) msg += " " + n;
    throw InputError(msg);
  }
  Machine m = preset(sys);
  if (mode) m = vela_machine(m.system, ini.memory_mode(*mode));
  return m;
}

// The machine a request names, on a configuration whose AXI width is `axi_bytes_per_beat`: its system or the
// configuration's default one.
sim::Config resolve_with(const MachineRequest& request, isa::Variant job, const isa::Architecture& arch) {
  sim::Config config = make_config();
  npu::apply_variant(config, job, sim::Source::PRESET, "the job");
  const unsigned width = arch.axi_bytes_per_beat;
  VelaIni ini;
  for (const auto& f : request.vela_ini) ini.add_file(f);
  if (request.system) {
    const std::string& sys = *request.system;
    apply_machine(config, machine_named(sys, request.memory_mode, ini, arch), width, sim::Source::PRESET,
                  "system " + sys);
  } else if (request.memory_mode) {
    // A memory mode alone applies to the configuration's default system.
    const std::string sys(arch.default_system);
    apply_machine(config, machine_named(sys, request.memory_mode, ini, arch), width, sim::Source::PRESET,
                  "system " + sys + " (the " + std::string(arch.name) + "'s)");
  } else if (!request.vela_ini.empty()) {
    throw InputError("a vela.ini needs a system config or a memory mode to take from it");
  } else if (arch.default_system != config.param("system.config").as_string()) {
    // A preset, or a built-in vela.ini system config with the family's memory mode (the U85's, as Vela's defaults).
    const std::string sys(arch.default_system);
    apply_machine(config, machine_named(sys, std::nullopt, ini, arch), width, sim::Source::PRESET,
                  "system " + sys + " (the " + std::string(arch.name) + "'s)");
  }
  if (request.config_file) config.load_file(*request.config_file);
  for (const auto& s : request.assignments) config.set_assignment(s, sim::Source::CLI, request.origin);
  if (request.variant) npu::apply_variant(config, variant_named(*request.variant, "variant"), sim::Source::CLI, "variant");
  // A variant named in a file or by --set brings the parameters it describes, except where they were set as high up
  // themselves. (Copies: applying the variant rewrites the very strings the parameter holds.)
  const sim::Param& v = config.param("npu.variant");
  if (v.source() > sim::Source::PRESET)
    npu::apply_variant(config, variant_named(std::string(v.as_string()), v.origin()), v.source(), std::string(v.origin()));
  return config;
}

}  // namespace

sim::Config resolve_config(const MachineRequest& request, const std::string& job_variant) {
  const isa::Variant job = variant_named(job_variant, "the job");
  const isa::Variant asked = request.variant ? variant_named(*request.variant, "variant") : job;
  sim::Config config = resolve_with(request, job, isa::architecture(asked));
  // A variant a file or an assignment names decides the system's AXI width and default too.
  const isa::Variant resolved = variant_named(config.param("npu.variant").as_string(), "npu.variant");
  if (resolved != asked) config = resolve_with(request, job, isa::architecture(resolved));
  return config;
}

PmuSelection parse_pmu_events(const std::vector<std::string>& names, isa::Variant variant) {
  const isa::Architecture& arch = isa::architecture(variant);
  PmuSelection sel;
  size_t n = 0;
  for (const auto& raw : names) {
    if (raw.empty()) continue;
    if (n == arch.pmu_event_counters)
      throw InputError("PMU events: at most " + std::to_string(n) + " (the " + isa::product_name(arch.product) + " has " +
                       std::to_string(n) + " event counters)");
    const isa::PmuEventInfo* e = isa::pmu_event_from_text(arch, raw);
    if (!e) throw InputError("unknown PMU event '" + raw + "' (not one of the " + isa::product_name(arch.product) + "'s)");
    if (!pmu_event_modelled(e->hw_id, variant)) sel.not_modelled.push_back(std::string(e->name));
    sel.events[n++] = e->hw_id;
  }
  return sel;
}

bool pmu_event_modelled(uint16_t hw_id, isa::Variant variant) {
  return isa::architecture(variant).pmu_event(hw_id) && npu::counts_pmu_event(hw_id);
}

}  // namespace ethosu::host
