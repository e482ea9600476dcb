#include "models/npu/ao.h"

#include "isa/registers.h"

namespace ethosu::npu {

void Ao::account(const isa::Operation& op, const OpTiming& t, EventCounts& events) const {
  using E = isa::PmuEvent;
  auto add = [&](E e, uint64_t n) { events.add(static_cast<uint16_t>(e), n); };
  const uint64_t wait_acc = t.stalls[static_cast<size_t>(Stall::AO_WAIT_ACC)];
  add(E::AO_ACTIVE, t.ao_busy);
  add(op.ofm.element.bits() == 8 ? E::AO_ACTIVE_8BIT : E::AO_ACTIVE_16BIT, t.ao_busy);
  add(E::AO_STALLED_BY_ACC, wait_acc);
  add(E::AO_STALLED_BY_ACC_IB, wait_acc);
  add(E::AO_STALLED_BY_OB, t.stalls[static_cast<size_t>(Stall::AO_WAIT_OB)]);
}

void Ao::trace_blocks(const OpRecord& rec, const std::vector<BlockStages>& stages, const CycleClock& clock) {
  if (!tracing()) return;
  for (size_t i = 0; i < stages.size(); ++i)
    trace_span(rec.kind + " block", stages[i].ao_start, stages[i].ao_end, rec.offset, i, clock);
}

}  // namespace ethosu::npu
