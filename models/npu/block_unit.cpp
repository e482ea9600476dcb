#include "models/npu/block_unit.h"

namespace ethosu::npu {

void BlockUnit::trace_span(const std::string& name, uint64_t from, uint64_t to, uint64_t op_offset, size_t block,
                           const CycleClock& clock) {
  if (!trace_ || to <= from) return;
  trace_->complete(track_, name, "block", clock.ps(from), clock.ps(to) - clock.ps(from),
                   {{"op_offset", op_offset}, {"block", block}});
}

}  // namespace ethosu::npu
