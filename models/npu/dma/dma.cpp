#include "models/npu/dma/dma.h"

#include <algorithm>

#include "models/kernels/dma_copy.h"

namespace ethosu::npu {

using isa::Access;

const std::array<CounterSpec, Dma::kStats> Dma::kCounters = {{
    {"transfers", "DMAs", "NPU_OP_DMA_START transfers"},
    {"bytes", "bytes", "bytes the transfers moved"},
    {"active_cycles", "cycles", "a transfer in progress"},
}};

Dma::Dma(const sc_core::sc_module_name& name, sim::Stats& stats) : Block(name, stats), stat_(counters(kCounters)) {}

void Dma::rows(const isa::Dma& d, const isa::DmaEndpoint& side, std::vector<ByteRun>& runs) {
  runs.clear();
  for (uint64_t p = 0; p < d.planes(); ++p)
    for (uint64_t r = 0; r < d.rows(); ++r)
      add_run(runs, static_cast<uint64_t>(static_cast<int64_t>(side.address) + kernels::dma_row_offset(d, side, p, r)),
              d.length_bytes);
}

Dma::Times Dma::issue(uint32_t offset, const isa::Operation& op, uint64_t cycle, const AxiMap& axi) {
  const auto& d = op.dma;
  const uint64_t start = std::max(cycle, free_at_);
  const uint64_t bytes = d.total_bytes();
  const auto run = static_cast<uint32_t>(d.length_bytes);
  axi::Completion read{start, start, start, start};
  if (!d.src.internal() && bytes) {
    if (axi.bus) {
      rows(d, d.src, runs_);
      read = axi.bus->read(d.src.region, start, runs_, Access::DMA_SRC);
    } else {
      read = axi.read(d.src.region, start, bytes, run, Access::DMA_SRC);
    }
  }
  uint64_t done = read.complete_cycle;
  if (!d.dst.internal() && bytes) {
    if (axi.bus) {
      rows(d, d.dst, runs_);
      done = axi.write_behind(d.dst.region, read, runs_, Access::DMA_DST).complete_cycle;
    } else {
      done = axi.write_behind(d.dst.region, read, bytes, run, Access::DMA_DST).complete_cycle;
    }
  }
  free_at_ = done;
  ++*stat_[TRANSFERS];
  *stat_[BYTES] += bytes;
  *stat_[ACTIVE] += done - start;
  span("DMA", "dma", start, done, {{"offset", offset}, {"cycles", done - start}, {"bytes", bytes}});
  return {start, done};
}

}  // namespace ethosu::npu
