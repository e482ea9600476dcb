// MAC, the multiply-accumulate array, as a SystemC module: works on one OFM tile at a time from the input buffer
// and the weight buffer into the accumulators. Its timing parameters and work per tile are plain C++
// (mac_timing.h: the micro-block of its width, kernel steps, the weight-buffer refill floor).
//
// Contract: the pipeline (pipeline.h) books the MAC work of each tile on unit(); afterwards account() adds the
// operation's activity to the MAC's counters, from which the PMU counts MAC_ACTIVE (and by IFM precision),
// MAC_DPU_ACTIVE (useful MACs / array width) and the stalls on IFM, weights and accumulators; trace_tiles()
// draws each tile's MAC work.
#pragma once

#include <array>

#include "isa/operation.h"
#include "models/npu/block.h"
#include "models/npu/mac/mac_timing.h"
#include "models/npu/pipeline.h"

namespace ethosu::npu {

class Mac : public PipelineUnit<MacTiming> {
 public:
  enum Stat : uint8_t {
    ACTIVE, ACTIVE_8BIT, ACTIVE_16BIT, ACTIVE_32BIT, DPU_ACTIVE, MACS, STALLED_BY_IB, STALLED_BY_WD, STALLED_BY_ACC,
    STALLED_BY_WD_ACC, kStats
  };
  static const std::array<CounterSpec, kStats> kCounters;

  Mac(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu);

  void configure(const MacTiming& t, unsigned cores) {
    PipelineUnit::configure(t);
    cores_ = cores;
  }
  // MACs per cycle of the whole array.
  double peak_macs_per_cycle() const { return double(timing().macs_per_core) * cores_; }
  void account(const isa::Operation& op, const OpTiming& t);

 private:
  unsigned cores_ = 1;
  std::array<sim::Counter*, kStats> stat_;
};

}  // namespace ethosu::npu
