// What the pipeline blocks (WD, MAC, AO) share as SystemC modules: the unit's occupancy in free-at
// bookkeeping and the block's trace track.
//
// Contract: the CC books a kernel operation's OFM blocks on the units through npu::schedule()
// (pipeline.h), which only touches unit(); afterwards each block accounts its own PMU events for the
// operation and draws its span of every OFM block on its own track. Nothing ticks: a block is busy
// between the cycles the schedule gives it.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

#include "models/npu/pipeline.h"
#include "sim/trace.h"

namespace ethosu::npu {

// Cycles to trace time (picoseconds) at the NPU clock.
struct CycleClock {
  double hz = 1e9;
  uint64_t ps(uint64_t cycle) const { return static_cast<uint64_t>(double(cycle) * 1e12 / hz + 0.5); }
};

class BlockUnit : public sc_core::sc_module {
 public:
  explicit BlockUnit(const sc_core::sc_module_name& name) : sc_module(name) {}

  Unit& unit() { return unit_; }
  // A new stream: idle from `cycle` on, no busy cycles.
  void begin_stream(uint64_t cycle) { unit_ = Unit{cycle, 0}; }
  // Records this block's spans into `trace` on `track`; nullptr stops.
  void set_trace(sim::Trace* trace, sim::Trace::TrackId track) {
    trace_ = trace;
    track_ = track;
  }

 protected:
  // One OFM block's span [from, to) on this block's track (nothing when empty or not tracing).
  void trace_span(const std::string& name, uint64_t from, uint64_t to, uint64_t op_offset, size_t block,
                  const CycleClock& clock);
  bool tracing() const { return trace_ != nullptr; }

 private:
  Unit unit_;
  sim::Trace* trace_ = nullptr;
  sim::Trace::TrackId track_{};
};

}  // namespace ethosu::npu
