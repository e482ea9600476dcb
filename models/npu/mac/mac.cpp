#include "models/npu/mac/mac.h"

namespace ethosu::npu {

using E = isa::PmuEvent;

const std::array<CounterSpec, Mac::kStats> Mac::kCounters = {{
    {"active_cycles", "cycles", "the array working on an OFM tile", {E::MAC_ACTIVE}},
    {"active_8bit_cycles", "cycles", "working on 8-bit IFM data", {E::MAC_ACTIVE_8BIT}},
    {"active_16bit_cycles", "cycles", "working on 16-bit IFM data", {E::MAC_ACTIVE_16BIT}},
    {"active_32bit_cycles", "cycles", "working on 32-bit IFM data", {E::MAC_ACTIVE_32BIT}},
    {"dpu_active_cycles", "cycles", "useful MACs divided by the array width", {E::MAC_DPU_ACTIVE}},
    {"macs", "MACs", "useful multiply-accumulates (pooling: taps accumulated)"},
    {"stalled_by_ib_cycles", "cycles", "waiting for the IFM in the input buffer", {E::MAC_STALLED_BY_IB}},
    {"stalled_by_wd_cycles", "cycles", "waiting for decoded weights", {E::MAC_STALLED_BY_WD}},
    {"stalled_by_acc_cycles", "cycles", "waiting for a free accumulator buffer", {E::MAC_STALLED_BY_ACC}},
    {"stalled_by_wd_acc_cycles", "cycles", "waiting for weights or accumulators", {E::MAC_STALLED_BY_WD_ACC}},
}};

Mac::Mac(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu)
    : PipelineUnit(name, stats, pmu, "tile", &TileStages::mac_start, &TileStages::mac_end),
      stat_(counters(kCounters)) {}

void Mac::account(const isa::Operation& op, const OpTiming& t) {
  auto stall = [&](Stall s) { return t.stalls[static_cast<size_t>(s)]; };
  *stat_[ACTIVE] += t.mac_busy;
  const unsigned bits = op.ifm.element.bits();
  *stat_[bits == 8 ? ACTIVE_8BIT : bits == 16 ? ACTIVE_16BIT : ACTIVE_32BIT] += t.mac_busy;
  *stat_[DPU_ACTIVE] += static_cast<uint64_t>(double(t.macs) / peak_macs_per_cycle() + 0.5);
  *stat_[MACS] += t.macs;
  *stat_[STALLED_BY_IB] += stall(Stall::MAC_WAIT_IFM);
  *stat_[STALLED_BY_WD] += stall(Stall::MAC_WAIT_WEIGHTS);
  *stat_[STALLED_BY_ACC] += stall(Stall::MAC_WAIT_ACC);
  *stat_[STALLED_BY_WD_ACC] += stall(Stall::MAC_WAIT_WEIGHTS) + stall(Stall::MAC_WAIT_ACC);
}

}  // namespace ethosu::npu
