// What the NPU's hardware-block modules share: statistics the PMU counts, a trace track drawn at the NPU clock,
// and, for the three units of the per-tile pipeline (WD, MAC, AO), their timing, occupancy and tile stages.
//
// Contract: nothing here ticks. A block computes its work as plain C++ (its timing model) and books it on its
// own occupancy. Each block lists its statistics once, as a table of CounterSpec (name, unit, meaning, the
// PMU events that count it); the block's counters are made from that table, the PMU binds its events to them,
// and the list of events the model counts (npu::counted_pmu_events()) is read from the same tables. span()
// draws [from, to) on the block's track when a trace is open and costs one test otherwise.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <systemc>

#include "isa/registers.h"
#include "models/npu/pipeline.h"
#include "models/npu/pmu/pmu.h"
#include "models/npu/track.h"
#include "sim/stats.h"
#include "sim/trace.h"

namespace ethosu::npu {

// One statistic of a block: "npu.<block>.<name>", and the PMU events that count its increase.
struct CounterSpec {
  std::string_view name, unit, description;
  std::array<isa::PmuEvent, 2> events{isa::PmuEvent::NO_EVENT, isa::PmuEvent::NO_EVENT};
};

class Block : public sc_core::sc_module {
 public:
  // `pmu` counts the events the block's counters name; nullptr for a block whose counters name none.
  Block(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu* pmu = nullptr)
      : sc_module(name), stats_(stats), pmu_(pmu) {}

  // Records this block's spans into `trace` on its own track, named as the hardware names the block ("MAC");
  // nullptr stops.
  void set_trace(sim::Trace* trace, const CycleClock& clock);

 protected:
  // The block's counters, made from its table, in the table's order.
  template <size_t N>
  std::array<sim::Counter*, N> counters(const std::array<CounterSpec, N>& specs) {
    std::array<sim::Counter*, N> out{};
    for (size_t i = 0; i < N; ++i) out[i] = &counter(specs[i]);
    return out;
  }
  bool tracing() const { return track_.on(); }
  void span(std::string_view name, std::string_view category, uint64_t from, uint64_t to,
            std::initializer_list<sim::TraceArg> args = {}) const {
    track_.span(name, category, from, to, args);
  }

 private:
  sim::Counter& counter(const CounterSpec& spec);

  sim::Stats& stats_;
  Pmu* pmu_;
  Track track_;
};

// A block that does one stage of every OFM tile of a kernel operation (WD, MAC, AO): its timing parameters, its
// occupancy over the stream, and its stages on its track.
template <typename Timing>
class PipelineUnit : public Block {
 public:
  void configure(const Timing& t) { timing_ = t; }
  const Timing& timing() const { return timing_; }

  Unit& unit() { return unit_; }
  // A new stream; the unit is free from `cycle` on.
  void begin_stream(uint64_t cycle) { unit_ = Unit{cycle, 0}; }
  // Draws this unit's stage of each tile of the operation at `offset`.
  void trace_tiles(const std::string& kind, uint32_t offset, const std::vector<TileStages>& stages) const {
    if (!tracing()) return;
    const std::string name = kind + " " + stage_name_;
    for (size_t i = 0; i < stages.size(); ++i)
      span(name, "tile", stages[i].*start_, stages[i].*end_, {{"op_offset", offset}, {"tile", i}});
  }

 protected:
  // The unit's stage of a tile runs from TileStages::*start to ::*end; its spans are called "<kind> <stage>".
  PipelineUnit(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu, std::string stage_name,
               uint64_t TileStages::*start, uint64_t TileStages::*end)
      : Block(name, stats, &pmu), stage_name_(std::move(stage_name)), start_(start), end_(end) {}

 private:
  Timing timing_;
  Unit unit_;
  std::string stage_name_;
  uint64_t TileStages::*start_;
  uint64_t TileStages::*end_;
};

}  // namespace ethosu::npu
