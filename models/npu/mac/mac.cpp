#include "models/npu/mac/mac.h"

namespace ethosu::npu {

using E = isa::PmuEvent;
using npu::Stall;

Mac::Mac(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu)
    : Block(name, stats, &pmu),
      active_(counter("active_cycles", "cycles", "the array working on an OFM tile", {E::MAC_ACTIVE})),
      active_8bit_(counter("active_8bit_cycles", "cycles", "working on 8-bit IFM data", {E::MAC_ACTIVE_8BIT})),
      active_16bit_(counter("active_16bit_cycles", "cycles", "working on 16-bit IFM data", {E::MAC_ACTIVE_16BIT})),
      active_32bit_(counter("active_32bit_cycles", "cycles", "working on 32-bit IFM data", {E::MAC_ACTIVE_32BIT})),
      dpu_active_(counter("dpu_active_cycles", "cycles", "useful MACs divided by the array width", {E::MAC_DPU_ACTIVE})),
      macs_(counter("macs", "MACs", "useful multiply-accumulates (pooling: taps accumulated)")),
      stalled_by_ib_(counter("stalled_by_ib_cycles", "cycles", "waiting for the IFM in the input buffer",
                             {E::MAC_STALLED_BY_IB})),
      stalled_by_wd_(counter("stalled_by_wd_cycles", "cycles", "waiting for decoded weights", {E::MAC_STALLED_BY_WD})),
      stalled_by_acc_(counter("stalled_by_acc_cycles", "cycles", "waiting for a free accumulator buffer",
                              {E::MAC_STALLED_BY_ACC})),
      stalled_by_wd_acc_(counter("stalled_by_wd_acc_cycles", "cycles", "waiting for weights or accumulators",
                                 {E::MAC_STALLED_BY_WD_ACC})) {}

void Mac::account(const isa::Operation& op, const OpTiming& t) {
  auto stall = [&](Stall s) { return t.stalls[static_cast<size_t>(s)]; };
  active_ += t.mac_busy;
  const unsigned bits = op.ifm.element.bits();
  (bits == 8 ? active_8bit_ : bits == 16 ? active_16bit_ : active_32bit_) += t.mac_busy;
  dpu_active_ += static_cast<uint64_t>(double(t.macs) / peak_macs_per_cycle() + 0.5);
  macs_ += t.macs;
  stalled_by_ib_ += stall(Stall::MAC_WAIT_IFM);
  stalled_by_wd_ += stall(Stall::MAC_WAIT_WEIGHTS);
  stalled_by_acc_ += stall(Stall::MAC_WAIT_ACC);
  stalled_by_wd_acc_ += stall(Stall::MAC_WAIT_WEIGHTS) + stall(Stall::MAC_WAIT_ACC);
}

void Mac::trace_tiles(const std::string& kind, uint32_t offset, const std::vector<TileStages>& stages) {
  if (!tracing()) return;
  for (size_t i = 0; i < stages.size(); ++i)
    span(kind + " block", "block", stages[i].mac_start, stages[i].mac_end, {{"op_offset", offset}, {"block", i}});
}

}  // namespace ethosu::npu
