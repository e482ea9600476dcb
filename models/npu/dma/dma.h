// The NPU's DMA engine as a SystemC module: NPU_OP_DMA_START copies between regions (external memory
// through AXI) and the SHRAM (internal), 1D/2D/3D, while kernel operations run. It owns its timing
// parameters (DmaTiming), its occupancy, its statistics and its trace track; all memory time is the AXI
// ports' (models/mem).
//
// Contract: the command controller's engine checks, queues and lands DMAs (cc/engine.h); issue() books
// one on the ports when the engine issues it: it runs when the engine is free, its reads stream through
// the source port and its writes follow one burst behind on the destination port
// (AxiPortTiming::write_behind); it is done when its last write response is back, which is when its
// data lands.
#pragma once

#include <cstdint>
#include <vector>

#include "isa/operation.h"
#include "models/npu/block.h"
#include "models/npu/dma/dma_timing.h"
#include "models/npu/pipeline.h"

namespace ethosu::npu {

class Dma : public Block {
 public:
  enum Stat : uint8_t { TRANSFERS, BYTES, ACTIVE, kStats };
  static const std::array<CounterSpec, kStats> kCounters;

  Dma(const sc_core::sc_module_name& name, sim::Stats& stats);

  void configure(const DmaTiming& t) { timing_ = t; }
  const DmaTiming& timing() const { return timing_; }

  // A new stream; the engine is idle from `cycle` on.
  void begin_stream(uint64_t cycle) { free_at_ = cycle; }
  struct Times {
    uint64_t start_cycle, done_cycle;
  };
  // Books op, issued at `cycle`, on the ports of `axi` (in transaction mode, its rows on axi.bus).
  Times issue(uint32_t offset, const isa::Operation& op, uint64_t cycle, const AxiMap& axi);
  // One side's rows as runs of region offsets, in the order the DMA moves them (plane by plane, row by row).
  static void rows(const isa::Dma& d, const isa::DmaEndpoint& side, std::vector<ByteRun>& runs);

 private:
  DmaTiming timing_;
  uint64_t free_at_ = 0;
  std::vector<ByteRun> runs_;
  std::array<sim::Counter*, kStats> stat_;
};

}  // namespace ethosu::npu
