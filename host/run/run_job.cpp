#include "host/run/run_job.h"

#include "host/config/config.h"
#include "host/config/system_config.h"

#include <algorithm>
#include <cstdlib>

#include "isa/decoder.h"
#include "isa/registers.h"
#include "isa/architecture.h"
#include "host/run/simulator.h"
#include "models/npu/cc/engine.h"
#include "models/npu/cc/status_timeline.h"
#include "sim/error.h"

namespace ethosu::host {

namespace {

RunOutcome run_timed(Job& job, isa::Variant variant, const RunOptions& options) {
  const npu::NpuConfig config = npu::with_variant(options.config, variant);
  const TimedRun t =
      Simulator::instance().run(job, config, options.regioncfg, options.pmu_events, options.trace, options.transactions);
  RunOutcome out;
  out.fault = t.fault;
  out.hazards = t.report.hazards;
  out.report = t.report;
  out.status = t.driver.status;
  out.cycle_counter = t.driver.cycle_counter;
  out.event_counters = t.driver.event_counters;
  const npu::JobReport& rep = t.report;
  out.summary = job.name + " on " + job.variant + ": " + std::to_string(rep.stat("npu.cc.kernel_operations")) +
                " kernel operations, " + std::to_string(rep.stat("npu.cc.dma_operations")) + " DMAs, " +
                std::to_string(rep.stat("npu.mac.macs")) + " MACs, " + std::to_string(rep.total_cycles) + " cycles\n";
  for (const auto& h : out.hazards) out.summary += "hazard: " + h + "\n";
  return out;
}

}  // namespace

RunOptions run_options(const sim::Config& config, bool timed) {
  RunOptions o;
  o.timed = timed;
  o.config = npu::read_config(config);
  o.regioncfg = regioncfg(config);
  for (unsigned p = 0; p < o.port_on_sram.size(); ++p)
    o.port_on_sram[p] = config.param("mem.axi" + std::to_string(p) + ".memory").as_string() == to_string(MemArea::SRAM);
  const int64_t sram = config.param("mem.sram.size_bytes").as_int();
  if (sram != kSramUnbounded) o.sram_size_bytes = static_cast<uint64_t>(sram);
  return o;
}

void check_sram_fits(const Job& job, const RunOptions& options) {
  if (!options.sram_size_bytes) return;
  uint64_t need = 0;
  std::string regions;
  unsigned count = 0;
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    const unsigned port = (options.regioncfg >> (2 * r) & 3) >> 1;
    const uint64_t size = job.regions[r].size();
    if (!size || !options.port_on_sram[port]) continue;
    need += size;
    regions += std::string(count++ ? ", " : "") + "region " + std::to_string(r) + " (AXI" + std::to_string(port) +
               ", " + std::to_string(size) + " bytes)";
  }
  const uint64_t have = *options.sram_size_bytes;
  if (need <= have) return;
  const std::string sram = have ? "the on-chip SRAM holds " + std::to_string(have) + " bytes (mem.sram.size_bytes)"
                                : "there is no on-chip SRAM (mem.sram.size_bytes = 0; `unbounded` is an SRAM without "
                                  "a limit)";
  throw InputError(job.name + ": " + regions + (count > 1 ? " are" : " is") + " mapped to the SRAM by REGIONCFG (" +
                   std::to_string(need) + " bytes), but " + sram +
                   ". Map the region to DRAM (regions.N.port=1, or a memory mode such as Dedicated_Sram), or make the "
                   "SRAM larger");
}

RunOutcome run_job(Job& job, const RunOptions& options) {
  const auto variant = isa::parse_variant(job.variant);
  if (!variant) throw InputError("unknown NPU variant '" + job.variant + "'; known: " + isa::variant_names());
  check_sram_fits(job, options);
  if (options.timed) return run_timed(job, *variant, options);
  cc::Regions regions{};
  for (size_t i = 0; i < isa::kRegionCount; ++i) regions[i] = {job.regions[i].data(), job.regions[i].size()};
  // The same engine and machine parameters as the timed NPU, whose SHRAM starts from zero for every job.
  const npu::NpuConfig n = npu::with_variant(options.config, *variant);
  cc::ShramBanks shram(n.cores, std::vector<uint8_t>(n.shram.bytes_per_core));
  cc::EngineConfig engine;
  engine.variant = n.variant;
  engine.dma_queue_depth = n.dma.queue_depth;
  engine.tsu_banks = n.cc.tsu_banks;
  engine.limits = n.limits;
  for (unsigned r = 0; r < isa::kRegionCount; ++r) engine.region_port[r] = static_cast<uint8_t>((options.regioncfg >> (2 * r) & 3) >> 1);
  cc::StatusTimeline timeline(*variant);
  const cc::RunResult r =
      cc::Engine::run(isa::decode(job.stream, isa::architecture(n.variant)), regions, shram, engine, timeline);

  RunOutcome out;
  out.hazards = r.hazards;
  if (r.fault) out.fault = r.fault->text();
  out.status = timeline.status();
  out.summary = job.name + " on " + job.variant + ": " + std::to_string(r.stats.kernel_ops) + " kernel operations, " +
                std::to_string(r.stats.dma_ops) + " DMAs, " + std::to_string(r.stats.macs) + " MACs\n";
  for (const auto& h : r.hazards) out.summary += "hazard: " + h + "\n";
  return out;
}

Comparison compare_bytes(const std::vector<uint8_t>& actual, const std::vector<uint8_t>& expected,
                         unsigned element_bytes, bool element_signed) {
  Comparison c;
  if (actual.size() != expected.size()) {
    c.text = "size differs: " + std::to_string(actual.size()) + " bytes, expected " + std::to_string(expected.size());
    c.mismatches = std::max(actual.size(), expected.size());
    return c;
  }
  if (std::equal(actual.begin(), actual.end(), expected.begin())) {  // the usual case, at memcmp's speed
    c.exact = true;
    c.text = "exact (" + std::to_string(actual.size()) + " bytes)";
    return c;
  }
  const unsigned eb = (element_bytes == 1 || element_bytes == 2 || element_bytes == 4) ? element_bytes : 1;
  auto element = [&](const std::vector<uint8_t>& b, size_t i) {
    uint64_t u = 0;
    for (unsigned k = 0; k < eb; ++k) u |= uint64_t{b[i * eb + k]} << (8 * k);
    const unsigned bits = 8 * eb;
    if (element_signed && (u >> (bits - 1)) & 1) return static_cast<int64_t>(u) - (int64_t{1} << bits);
    return static_cast<int64_t>(u);
  };
  const size_t n = actual.size() / eb;
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = std::llabs(element(actual, i) - element(expected, i));
    if (d) {
      ++c.mismatches;
      c.max_abs_diff = std::max(c.max_abs_diff, d);
    }
  }
  c.exact = c.mismatches == 0;
  c.text = c.exact ? "exact (" + std::to_string(actual.size()) + " bytes)"
                   : std::to_string(c.mismatches) + " of " + std::to_string(n) + " elements differ, max |diff| " +
                         std::to_string(c.max_abs_diff);
  return c;
}

}  // namespace ethosu::host
