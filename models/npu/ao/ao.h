// AO, the activation and output unit, as a SystemC module: scales, activates and converts each OFM tile's
// accumulators (or, for elementwise operations, the input buffer) into the output buffer. It owns its
// timing parameters (npu::AoTiming: cycles per element by operation and activation), its occupancy, its
// statistics and PMU events and its trace track.
//
// Contract: the pipeline (pipeline.h) books each block's output stage on unit(); account() adds the
// operation's activity, from which the PMU counts AO_ACTIVE (and by OFM precision) and the AO's stalls;
// trace_tiles() draws each block's output stage.
#pragma once

#include <string>
#include <vector>

#include "isa/operation.h"
#include "models/npu/block.h"
#include "models/npu/pipeline.h"
#include "models/npu/ao/ao_timing.h"

namespace ethosu::npu {

class Ao : public Block {
 public:
  Ao(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu);

  void configure(const npu::AoTiming& t) { timing_ = t; }
  const npu::AoTiming& timing() const { return timing_; }

  Unit& unit() { return unit_; }
  void begin_stream(uint64_t cycle) { unit_ = Unit{cycle, 0}; }
  void account(const isa::Operation& op, const OpTiming& t);
  void trace_tiles(const std::string& kind, uint32_t offset, const std::vector<TileStages>& stages);

 private:
  npu::AoTiming timing_;
  Unit unit_;
  sim::Counter &active_, &active_8bit_, &active_16bit_, &stalled_by_acc_, &stalled_by_ob_;
};

}  // namespace ethosu::npu
