#include "models/npu/ao/ao.h"

namespace ethosu::npu {

using E = isa::PmuEvent;
using npu::Stall;

Ao::Ao(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu)
    : Block(name, stats, &pmu),
      active_(counter("active_cycles", "cycles", "producing output elements", {E::AO_ACTIVE})),
      active_8bit_(counter("active_8bit_cycles", "cycles", "producing 8-bit OFM elements", {E::AO_ACTIVE_8BIT})),
      active_16bit_(counter("active_16bit_cycles", "cycles", "producing 16- or 32-bit OFM elements",
                            {E::AO_ACTIVE_16BIT})),
      stalled_by_acc_(counter("stalled_by_acc_cycles", "cycles", "waiting for accumulators (or the input buffer)",
                              {E::AO_STALLED_BY_ACC, E::AO_STALLED_BY_ACC_IB})),
      stalled_by_ob_(counter("stalled_by_ob_cycles", "cycles", "waiting for a free output buffer",
                             {E::AO_STALLED_BY_OB})) {}

void Ao::account(const isa::Operation& op, const OpTiming& t) {
  active_ += t.ao_busy;
  (op.ofm.element.bits() == 8 ? active_8bit_ : active_16bit_) += t.ao_busy;
  stalled_by_acc_ += t.stalls[static_cast<size_t>(Stall::AO_WAIT_ACC)];
  stalled_by_ob_ += t.stalls[static_cast<size_t>(Stall::AO_WAIT_OB)];
}

void Ao::trace_tiles(const std::string& kind, uint32_t offset, const std::vector<TileStages>& stages) {
  if (!tracing()) return;
  for (size_t i = 0; i < stages.size(); ++i)
    span(kind + " block", "block", stages[i].ao_start, stages[i].ao_end, {{"op_offset", offset}, {"block", i}});
}

}  // namespace ethosu::npu
