#include "host/sim_config.h"

#include <algorithm>
#include <cctype>

#include "host/system_config.h"
#include "isa/registers.h"
#include "models/npu/npu.h"
#include "sim/error.h"

namespace ethosu::host {

sim::Config make_config() {
  sim::Config c;
  declare_parameters(c);
  const npu::NpuConfig n;
  c.declare_int("npu.mac.weight_buffer_refill_cycles", n.mac.weight_buffer_refill_cycles, "cycles",
                "minimum cycles per weight-buffer load of 8 OFM channels", 1, 4096);
  c.declare_int("npu.wd.weights_per_cycle", n.wd.weights_per_cycle, "weights/cycle",
                "weights the weight decoder delivers per cycle", 1, 1024);
  c.declare_int("npu.cc.cycles_per_word", n.cc.cycles_per_word, "cycles",
                "command controller cycles per command-stream word", 0, 1024);
  c.declare_int("npu.cc.fetch_bytes", n.cc.fetch_bytes, "bytes",
                "command-stream fetch request size; a command is parsed once its request is in", 4, 4096);
  c.declare_int("npu.cc.tsu_banks", n.cc.tsu_banks, "operations", "kernel operations in flight", 1, 4);
  c.declare_int("npu.cc.quantum_cycles", static_cast<int64_t>(n.cc.quantum_cycles), "cycles",
                "longest run-ahead of the command controller before it synchronises with SystemC", 1,
                int64_t{1} << 40);
  c.declare_int("sim.limits.work_steps", static_cast<int64_t>(n.limits.work), "steps",
                "host work one job may take: element steps of its operations, 256 per OFM block (a job over it ends "
                "with a simulation-limit fault)",
                1, int64_t{1} << 50);
  c.declare_int("sim.limits.buffer_elements", static_cast<int64_t>(n.limits.buffer_elements), "elements",
                "largest host buffer one operation may need (gathered IFM, weights, DMA source)", 1,
                int64_t{1} << 30);
  c.declare_int("sim.limits.host_threads", n.limits.host_threads, "threads",
                "host threads one operation's kernels may use, each on a band of OFM rows (outputs, cycles and "
                "reports do not depend on it)",
                1, 64);
  c.declare_int("npu.dma.queue_depth", n.dma.queue_depth, "DMAs", "DMAs queued before the command controller stalls",
                1, 16);
  return c;
}

platform::PlatformConfig platform_config(const sim::Config& c) {
  platform::PlatformConfig p;
  const std::string& variant = c.param("npu.variant").as_string();
  p.npu = npu::npu_config(variant == "ethos-u65-512" ? isa::Variant::U65_512 : isa::Variant::U65_256);
  p.npu.clock_hz = static_cast<double>(c.param("system.clock_hz").as_int());
  p.npu.cores = static_cast<unsigned>(c.param("npu.cores").as_int());
  p.npu.mac = p.npu.mac.with_macs_per_core(static_cast<unsigned>(c.param("npu.mac.per_core").as_int()));
  p.npu.mac.weight_buffer_refill_cycles = static_cast<unsigned>(c.param("npu.mac.weight_buffer_refill_cycles").as_int());
  p.npu.wd.weights_per_cycle = static_cast<unsigned>(c.param("npu.wd.weights_per_cycle").as_int());
  p.npu.shram_bytes_per_core = static_cast<uint64_t>(c.param("npu.shram.bytes_per_core").as_int());
  p.npu.limits.work = static_cast<uint64_t>(c.param("sim.limits.work_steps").as_int());
  p.npu.limits.buffer_elements = static_cast<uint64_t>(c.param("sim.limits.buffer_elements").as_int());
  p.npu.limits.host_threads = static_cast<unsigned>(c.param("sim.limits.host_threads").as_int());
  p.npu.cc.cycles_per_word = static_cast<uint32_t>(c.param("npu.cc.cycles_per_word").as_int());
  p.npu.cc.fetch_bytes = static_cast<uint32_t>(c.param("npu.cc.fetch_bytes").as_int());
  p.npu.cc.tsu_banks = static_cast<uint32_t>(c.param("npu.cc.tsu_banks").as_int());
  p.npu.cc.quantum_cycles = static_cast<uint64_t>(c.param("npu.cc.quantum_cycles").as_int());
  p.npu.dma.queue_depth = static_cast<uint32_t>(c.param("npu.dma.queue_depth").as_int());
  for (unsigned port = 0; port < 2; ++port) {
    const std::string pre = "mem.axi" + std::to_string(port) + ".";
    auto& a = p.axi[port];
    a.bytes_per_cycle = c.param(pre + "bytes_per_cycle").as_double();
    a.burst_bytes = static_cast<uint32_t>(c.param(pre + "burst_bytes").as_int());
    a.read_latency_cycles = static_cast<uint32_t>(c.param(pre + "read_latency_cycles").as_int());
    a.write_latency_cycles = static_cast<uint32_t>(c.param(pre + "write_latency_cycles").as_int());
    for (auto& l : a.limiters) {
      l.max_outstanding_reads = static_cast<uint32_t>(c.param(pre + "max_outstanding_reads").as_int());
      l.max_outstanding_writes = static_cast<uint32_t>(c.param(pre + "max_outstanding_writes").as_int());
    }
  }
  return p;
}

uint32_t regioncfg(const sim::Config& c) {
  uint32_t v = 0;
  for (unsigned r = 0; r < kRegions; ++r)
    if (c.param("regions." + std::to_string(r) + ".port").as_int()) v |= 2u << (2 * r);
  return v;
}

sim::Config resolve_config(const ConfigRequest& request, const std::string& job_variant) {
  sim::Config config = make_config();
  apply_variant(config, job_variant, sim::Source::PRESET, "the job");
  if (request.system) {
    const std::string& sys = *request.system;
    const auto presets = preset_names();
    if (std::find(presets.begin(), presets.end(), sys) != presets.end() && !request.memory_mode) {
      apply_machine(config, preset(sys), sim::Source::PRESET, "system " + sys);
    } else {
      VelaIni ini;
      for (const auto& f : request.vela_ini) ini.add_file(f);
      apply_machine(config, ini.machine(sys, request.memory_mode.value_or("Dedicated_Sram")), sim::Source::PRESET,
                    "system " + sys);
    }
  } else if (request.memory_mode || !request.vela_ini.empty()) {
    throw InputError("a memory mode or vela.ini needs a system config to go with it");
  }
  if (request.config_file) config.load_file(*request.config_file);
  for (const auto& s : request.assignments) config.set_assignment(s, sim::Source::CLI, request.origin);
  if (request.variant) apply_variant(config, *request.variant, sim::Source::CLI, "variant");
  // A variant named in a file or by --set brings its cores, MACs and SHRAM, except where they were set as
  // high up themselves.
  const sim::Param& v = config.param("npu.variant");
  // Copies: applying the variant rewrites the very strings v holds.
  if (v.source() > sim::Source::PRESET)
    apply_variant(config, std::string(v.as_string()), v.source(), std::string(v.origin()));
  return config;
}

PmuSelection parse_pmu_events(const std::vector<std::string>& names) {
  PmuSelection sel;
  size_t n = 0;
  for (const auto& raw : names) {
    if (raw.empty()) continue;
    if (n == sel.events.size()) throw InputError("PMU events: at most 4 (the U65 has 4 event counters)");
    std::string_view name = raw;
    if (name.rfind("ETHOSU_PMU_", 0) == 0) name.remove_prefix(11);
    const isa::PmuEventInfo* e = isa::find_pmu_event(name);
    if (!e && std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
        name.size() <= 5)
      e = isa::find_pmu_event(static_cast<uint16_t>(std::stoul(std::string(name))));
    if (!e) throw InputError("unknown PMU event '" + raw + "'");
    if (!pmu_event_modelled(e->hw_id)) sel.not_modelled.push_back(std::string(e->name));
    sel.events[n++] = e->hw_id;
  }
  return sel;
}

bool pmu_event_modelled(uint16_t hw_id) { return npu::derives_pmu_event(hw_id); }

}  // namespace ethosu::host
