#include "models/npu/mac.h"

#include "isa/registers.h"

namespace ethosu::npu {

void Mac::account(const isa::Operation& op, const OpTiming& t, EventCounts& events) const {
  using E = isa::PmuEvent;
  auto add = [&](E e, uint64_t n) { events.add(static_cast<uint16_t>(e), n); };
  auto stall = [&](Stall s) { return t.stalls[static_cast<size_t>(s)]; };
  add(E::MAC_ACTIVE, t.mac_busy);
  const unsigned bits = op.ifm.element.bits();
  add(bits == 8 ? E::MAC_ACTIVE_8BIT : bits == 16 ? E::MAC_ACTIVE_16BIT : E::MAC_ACTIVE_32BIT, t.mac_busy);
  add(E::MAC_DPU_ACTIVE, static_cast<uint64_t>(double(t.macs) / peak_macs_per_cycle() + 0.5));
  add(E::MAC_STALLED_BY_IB, stall(Stall::MAC_WAIT_IFM));
  add(E::MAC_STALLED_BY_WD, stall(Stall::MAC_WAIT_WEIGHTS));
  add(E::MAC_STALLED_BY_ACC, stall(Stall::MAC_WAIT_ACC));
  add(E::MAC_STALLED_BY_WD_ACC, stall(Stall::MAC_WAIT_WEIGHTS) + stall(Stall::MAC_WAIT_ACC));
}

void Mac::trace_blocks(const OpRecord& rec, const std::vector<BlockStages>& stages, const CycleClock& clock) {
  if (!tracing()) return;
  for (size_t i = 0; i < stages.size(); ++i)
    trace_span(rec.kind + " block", stages[i].mac_start, stages[i].mac_end, rec.offset, i, clock);
}

}  // namespace ethosu::npu
