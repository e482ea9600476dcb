#include "models/npu/wd.h"

#include "isa/registers.h"

namespace ethosu::npu {

void Wd::account(const OpTiming& t, EventCounts& events) const {
  events.add(static_cast<uint16_t>(isa::PmuEvent::WD_ACTIVE), t.wd_busy);
}

void Wd::trace_blocks(const OpRecord& rec, const std::vector<BlockStages>& stages, const CycleClock& clock) {
  if (!tracing()) return;
  for (size_t i = 0; i < stages.size(); ++i)
    trace_span(rec.kind + " decode", stages[i].wd_start, stages[i].wd_end, rec.offset, i, clock);
}

}  // namespace ethosu::npu
