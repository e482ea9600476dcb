#include "models/npu/dma/dma.h"

#include <algorithm>

namespace ethosu::npu {

using isa::Access;

const std::array<CounterSpec, Dma::kStats> Dma::kCounters = {{
    {"transfers", "DMAs", "NPU_OP_DMA_START transfers"},
    {"bytes", "bytes", "bytes the transfers moved"},
    {"active_cycles", "cycles", "a transfer in progress"},
}};

Dma::Dma(const sc_core::sc_module_name& name, sim::Stats& stats) : Block(name, stats), stat_(counters(kCounters)) {}

Dma::Times Dma::issue(uint32_t offset, const isa::Operation& op, uint64_t cycle, const AxiMap& axi) {
  const auto& d = op.dma;
  const uint64_t start = std::max(cycle, free_at_);
  const uint64_t bytes = d.total_bytes();
  const auto run = static_cast<uint32_t>(d.length_bytes);
  axi::Completion read{start, start, start, start};
  if (!d.src.internal() && bytes)
    read = axi.read(d.src.region, start, bytes, run, Access::DMA_SRC);
  uint64_t done = read.complete_cycle;
  if (!d.dst.internal() && bytes)
    done = axi.write_behind(d.dst.region, read, bytes, run, Access::DMA_DST).complete_cycle;
  free_at_ = done;
  ++*stat_[TRANSFERS];
  *stat_[BYTES] += bytes;
  *stat_[ACTIVE] += done - start;
  span("DMA", "dma", start, done, {{"offset", offset}, {"cycles", done - start}, {"bytes", bytes}});
  return {start, done};
}

}  // namespace ethosu::npu
