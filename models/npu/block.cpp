#include "models/npu/block.h"

#include <cctype>

namespace ethosu::npu {

void Block::set_trace(sim::Trace* trace, const CycleClock& clock) {
  if (!trace) {
    track_.set(nullptr, {}, clock);
    return;
  }
  std::string name = basename();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  track_.set(trace, trace->track(name), clock);
}

sim::Counter& Block::counter(const CounterSpec& spec) {
  sim::Counter& c = stats_.counter(std::string("npu.") + basename() + "." + std::string(spec.name), spec.unit,
                                   spec.description);
  for (isa::PmuEvent e : spec.events)
    if (e != isa::PmuEvent::NO_EVENT) pmu_->count(e, c);
  return c;
}

}  // namespace ethosu::npu
