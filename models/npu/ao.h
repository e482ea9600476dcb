// AO, the activation and output unit, as a SystemC module: scales, activates and converts each OFM block's
// accumulators (or, for elementwise operations, the input buffer) into the output buffer at the AoTiming
// rates per element.
//
// Contract: see block_unit.h. account() adds the AO_* events of an operation.
#pragma once

#include "isa/operation.h"
#include "models/npu/block_unit.h"
#include "models/npu/pmu_registers.h"
#include "models/timing/block_work.h"

namespace ethosu::npu {

class Ao : public BlockUnit {
 public:
  explicit Ao(const sc_core::sc_module_name& name) : BlockUnit(name) {}
  void configure(const timing::AoTiming& t) { timing_ = t; }
  const timing::AoTiming& timing() const { return timing_; }

  void account(const isa::Operation& op, const OpTiming& t, EventCounts& events) const;
  void trace_blocks(const OpRecord& rec, const std::vector<BlockStages>& stages, const CycleClock& clock);

 private:
  timing::AoTiming timing_;
};

}  // namespace ethosu::npu
