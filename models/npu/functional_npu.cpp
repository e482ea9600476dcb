// The public functional model (include/ethosu_sim/functional.h): the engine on the status timeline.
#include "ethosu_sim/functional.h"

#include "isa/decoder.h"
#include "models/npu/cc/engine.h"
#include "models/npu/cc/status_timeline.h"

namespace ethosu_sim {

FunctionalNpu::FunctionalNpu(Variant variant) : variant_(variant) {
  const ethosu::isa::Architecture& arch = ethosu::isa::architecture(variant);
  shram_.assign(arch.cores, std::vector<uint8_t>(arch.internal_memory_bytes()));
}

FunctionalResult FunctionalNpu::run(const std::vector<uint8_t>& stream,
                                    const std::array<RegionBuffer, kRegionCount>& regions, uint32_t regioncfg) {
  namespace cc = ethosu::cc;
  cc::Regions r{};
  for (size_t i = 0; i < kRegionCount; ++i) r[i] = {regions[i].data, regions[i].data ? regions[i].size_bytes : 0};
  cc::EngineConfig config;
  config.variant = variant_;
  config.dma_queue_depth = ethosu::isa::architecture(variant_).dma_queue_depth;
  for (unsigned i = 0; i < kRegionCount; ++i) config.region_port[i] = static_cast<uint8_t>((regioncfg >> (2 * i) & 3) >> 1);
  cc::StatusTimeline timeline(variant_);
  const cc::RunResult result = cc::Engine::run(ethosu::isa::decode(stream, ethosu::isa::architecture(variant_)), r, shram_, config, timeline);
  FunctionalResult out;
  out.completed = !result.fault;
  if (result.fault) out.fault = result.fault->text();
  out.status = timeline.status();
  out.hazards = result.hazards;
  out.kernel_operations = result.stats.kernel_ops;
  out.dma_operations = result.stats.dma_ops;
  out.macs = result.stats.macs;
  return out;
}

}  // namespace ethosu_sim
