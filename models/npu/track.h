// A hardware block's track in a trace: spans drawn at the NPU clock.
//
// Contract: set() points the track at an open trace (nullptr: none); span() then records [from, to) in NPU
// cycles, and costs one test when there is no trace.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "sim/trace.h"

namespace ethosu::npu {

// Cycles to trace time (picoseconds) at the NPU clock.
struct CycleClock {
  double hz = 1e9;
  uint64_t ps(uint64_t cycle) const { return static_cast<uint64_t>(double(cycle) * 1e12 / hz + 0.5); }
};

// A track of spans at the NPU clock, or nothing when no trace is open.
class Track {
 public:
  void set(sim::Trace* trace, sim::Trace::TrackId id, const CycleClock& clock) {
    trace_ = trace;
    id_ = id;
    clock_ = clock;
  }
  bool on() const { return trace_ != nullptr; }
  void span(std::string_view name, std::string_view category, uint64_t from, uint64_t to,
            std::initializer_list<sim::TraceArg> args = {}) const {
    if (trace_ && to > from) trace_->complete(id_, name, category, clock_.ps(from), clock_.ps(to) - clock_.ps(from), args);
  }

 private:
  sim::Trace* trace_ = nullptr;
  sim::Trace::TrackId id_{};
  CycleClock clock_;
};

}  // namespace ethosu::npu
