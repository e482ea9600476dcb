// WD, the weight decoder, as a SystemC module: fetches each OFM block's compressed weights (and scales)
// and decodes them into the MAC's weight buffer at WdTiming::weights_per_cycle.
//
// Contract: see block_unit.h. account() adds WD_ACTIVE for the operation's decode cycles.
#pragma once

#include "models/npu/block_unit.h"
#include "models/npu/pmu_registers.h"
#include "models/timing/block_work.h"

namespace ethosu::npu {

class Wd : public BlockUnit {
 public:
  explicit Wd(const sc_core::sc_module_name& name) : BlockUnit(name) {}
  void configure(const timing::WdTiming& t) { timing_ = t; }
  const timing::WdTiming& timing() const { return timing_; }

  void account(const OpTiming& t, EventCounts& events) const;
  void trace_blocks(const OpRecord& rec, const std::vector<BlockStages>& stages, const CycleClock& clock);

 private:
  timing::WdTiming timing_;
};

}  // namespace ethosu::npu
