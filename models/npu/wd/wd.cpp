#include "models/npu/wd/wd.h"

namespace ethosu::npu {

Wd::Wd(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu)
    : Block(name, stats, &pmu),
      active_(counter("active_cycles", "cycles", "decoding weights into the weight buffer", {isa::PmuEvent::WD_ACTIVE})),
      weights_(counter("decoded_weights", "weights", "weights decoded, zero padding of the stream included")) {}

void Wd::account(const OpTiming& t) {
  active_ += t.wd_busy;
  weights_ += t.decoded_weights;
}

void Wd::trace_tiles(const std::string& kind, uint32_t offset, const std::vector<TileStages>& stages) {
  if (!tracing()) return;
  for (size_t i = 0; i < stages.size(); ++i)
    span(kind + " decode", "block", stages[i].wd_start, stages[i].wd_end, {{"op_offset", offset}, {"block", i}});
}

}  // namespace ethosu::npu
