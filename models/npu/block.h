// What the NPU's block modules share: a trace track drawn at the NPU clock, and the statistics the block
// registers in the NPU's sim::Stats (the PMU counts its events from the same counters).
//
// Contract: nothing here ticks. A block computes its work as plain C++ (its timing model) and books it on
// its own occupancy; span() draws [from, to) on the block's track when a trace is open and costs one test
// otherwise.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include <systemc>

#include "isa/registers.h"
#include "models/npu/pmu/pmu.h"
#include "sim/stats.h"
#include "sim/trace.h"

namespace ethosu::npu {

// Cycles to trace time (picoseconds) at the NPU clock.
struct CycleClock {
  double hz = 1e9;
  uint64_t ps(uint64_t cycle) const { return static_cast<uint64_t>(double(cycle) * 1e12 / hz + 0.5); }
};

class Block : public sc_core::sc_module {
 public:
  // `pmu` counts the events the block's counters are declared with; nullptr for a block without PMU events.
  Block(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu* pmu = nullptr)
      : sc_module(name), stats_(stats), pmu_(pmu) {}

  // Records this block's spans into `trace` on `track`; nullptr stops.
  void set_trace(sim::Trace* trace, sim::Trace::TrackId track, const CycleClock& clock) {
    trace_ = trace;
    track_ = track;
    clock_ = clock;
  }

 protected:
  // A counter of this block, "npu.<block>.<name>", and the PMU events that count it.
  sim::Counter& counter(std::string_view name, std::string_view unit, std::string_view description,
                        std::initializer_list<isa::PmuEvent> events = {}) {
    sim::Counter& c = stats_.counter(std::string("npu.") + basename() + "." + std::string(name), unit, description);
    for (isa::PmuEvent e : events) pmu_->count(e, c);
    return c;
  }
  bool tracing() const { return trace_ != nullptr; }
  void span(std::string_view name, std::string_view category, uint64_t from, uint64_t to,
            std::initializer_list<sim::TraceArg> args = {}) {
    if (trace_ && to > from) trace_->complete(track_, name, category, clock_.ps(from), clock_.ps(to) - clock_.ps(from), args);
  }

 private:
  sim::Stats& stats_;
  Pmu* pmu_;
  sim::Trace* trace_ = nullptr;
  sim::Trace::TrackId track_{};
  CycleClock clock_;
};

}  // namespace ethosu::npu
