// MAC, the multiply-accumulate array, as a SystemC module: 256 MACs per core working on one OFM block at a
// time from the input buffer and the weight buffer into the accumulators; its work per block comes from
// timing::OpWork with MacTiming (micro-blocks, kernel steps, weight-buffer refill floor).
//
// Contract: see block_unit.h. account() adds the MAC_* events of an operation: MAC_ACTIVE (and by IFM
// precision), MAC_DPU_ACTIVE (useful MACs / array width), and the stalls on IFM, weights and accumulators.
#pragma once

#include "isa/operation.h"
#include "models/npu/block_unit.h"
#include "models/npu/pmu_registers.h"
#include "models/timing/block_work.h"

namespace ethosu::npu {

class Mac : public BlockUnit {
 public:
  explicit Mac(const sc_core::sc_module_name& name) : BlockUnit(name) {}
  void configure(const timing::MacTiming& t, unsigned cores) {
    timing_ = t;
    cores_ = cores;
  }
  const timing::MacTiming& timing() const { return timing_; }
  // MACs per cycle of the whole array.
  double peak_macs_per_cycle() const { return double(cores_) * 256.0; }

  void account(const isa::Operation& op, const OpTiming& t, EventCounts& events) const;
  void trace_blocks(const OpRecord& rec, const std::vector<BlockStages>& stages, const CycleClock& clock);

 private:
  timing::MacTiming timing_;
  unsigned cores_ = 1;
};

}  // namespace ethosu::npu
