#include "models/npu/ao/ao.h"

namespace ethosu::npu {

using E = isa::PmuEvent;

const std::array<CounterSpec, Ao::kStats> Ao::kCounters = {{
    {"active_cycles", "cycles", "producing output elements", {E::AO_ACTIVE}},
    {"active_8bit_cycles", "cycles", "producing 8-bit OFM elements", {E::AO_ACTIVE_8BIT}},
    {"active_16bit_cycles", "cycles", "producing 16- or 32-bit OFM elements", {E::AO_ACTIVE_16BIT}},
    {"stalled_by_acc_cycles", "cycles", "waiting for accumulators (or the input buffer)",
     {E::AO_STALLED_BY_ACC, E::AO_STALLED_BY_ACC_IB}},
    {"stalled_by_ob_cycles", "cycles", "waiting for a free output buffer", {E::AO_STALLED_BY_OB}},
}};

Ao::Ao(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu)
    : PipelineUnit(name, stats, pmu, "tile", &TileStages::ao_start, &TileStages::ao_end), stat_(counters(kCounters)) {}

void Ao::account(const isa::Operation& op, const OpTiming& t) {
  *stat_[ACTIVE] += t.ao_busy;
  *stat_[op.ofm.element.bits() == 8 ? ACTIVE_8BIT : ACTIVE_16BIT] += t.ao_busy;
  *stat_[STALLED_BY_ACC] += t.stalls[static_cast<size_t>(Stall::AO_WAIT_ACC)];
  *stat_[STALLED_BY_OB] += t.stalls[static_cast<size_t>(Stall::AO_WAIT_OB)];
}

}  // namespace ethosu::npu
