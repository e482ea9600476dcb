#include "models/npu/wd/wd.h"

namespace ethosu::npu {

const std::array<CounterSpec, Wd::kStats> Wd::kCounters = {{
    {"active_cycles", "cycles", "decoding weights into the weight buffer", {isa::PmuEvent::WD_ACTIVE}},
    {"decoded_weights", "weights", "weights decoded, zero padding of the stream included"},
}};

Wd::Wd(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu)
    : PipelineUnit(name, stats, pmu, "decode", &TileStages::wd_start, &TileStages::wd_end), stat_(counters(kCounters)) {}

void Wd::account(const OpTiming& t) {
  *stat_[ACTIVE] += t.wd_busy;
  *stat_[DECODED_WEIGHTS] += t.decoded_weights;
}

}  // namespace ethosu::npu
