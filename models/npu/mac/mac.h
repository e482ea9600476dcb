// MAC, the multiply-accumulate array, as a SystemC module: works on one OFM tile at a time from the input
// buffer and the weight buffer into the accumulators. It owns its timing parameters (npu::MacTiming: the
// micro-block of its width, kernel steps, the weight-buffer refill floor), its work per block
// (npu::MacWork), its occupancy, its statistics and PMU events, and its trace track.
//
// Contract: the pipeline (pipeline.h) books the MAC work of each block on unit(); afterwards account() adds
// the operation's activity to the MAC's counters, from which the PMU counts MAC_ACTIVE (and by IFM
// precision), MAC_DPU_ACTIVE (useful MACs / array width) and the stalls on IFM, weights and accumulators;
// trace_tiles() draws each block's MAC work.
#pragma once

#include <string>
#include <vector>

#include "isa/operation.h"
#include "models/npu/block.h"
#include "models/npu/pipeline.h"
#include "models/npu/mac/mac_timing.h"

namespace ethosu::npu {

class Mac : public Block {
 public:
  Mac(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu);

  void configure(const npu::MacTiming& t, unsigned cores) {
    timing_ = t;
    cores_ = cores;
  }
  const npu::MacTiming& timing() const { return timing_; }
  // MACs per cycle of the whole array.
  double peak_macs_per_cycle() const { return double(timing_.macs_per_core) * cores_; }

  Unit& unit() { return unit_; }
  void begin_stream(uint64_t cycle) { unit_ = Unit{cycle, 0}; }
  void account(const isa::Operation& op, const OpTiming& t);
  void trace_tiles(const std::string& kind, uint32_t offset, const std::vector<TileStages>& stages);

 private:
  npu::MacTiming timing_;
  unsigned cores_ = 1;
  Unit unit_;
  sim::Counter &active_, &active_8bit_, &active_16bit_, &active_32bit_, &dpu_active_, &macs_;
  sim::Counter &stalled_by_ib_, &stalled_by_wd_, &stalled_by_acc_, &stalled_by_wd_acc_;
};

}  // namespace ethosu::npu
