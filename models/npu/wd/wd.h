// WD, the weight decoder, as a SystemC module: fetches each OFM tile's compressed weights (and scales) and
// decodes them into the MAC's weight buffer. It owns its timing parameters (npu::WdTiming), its
// occupancy, its statistics and PMU events (WD_ACTIVE) and its trace track.
//
// Contract: the pipeline (pipeline.h) books each block's decode on unit(); account() adds the operation's
// decode cycles and weights; trace_tiles() draws each block's decode.
#pragma once

#include <string>
#include <vector>

#include "models/npu/block.h"
#include "models/npu/pipeline.h"
#include "models/npu/wd/wd_timing.h"

namespace ethosu::npu {

class Wd : public Block {
 public:
  Wd(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu);

  void configure(const npu::WdTiming& t) { timing_ = t; }
  const npu::WdTiming& timing() const { return timing_; }

  Unit& unit() { return unit_; }
  void begin_stream(uint64_t cycle) { unit_ = Unit{cycle, 0}; }
  void account(const OpTiming& t);
  void trace_tiles(const std::string& kind, uint32_t offset, const std::vector<TileStages>& stages);

 private:
  npu::WdTiming timing_;
  Unit unit_;
  sim::Counter &active_, &weights_;
};

}  // namespace ethosu::npu
