// WD, the weight decoder, as a SystemC module: fetches each OFM tile's compressed weights (and scales) and decodes
// them into the MAC's weight buffer. Its timing parameters are plain C++ (wd_timing.h).
//
// Contract: the pipeline (pipeline.h) books each tile's decode on unit(); account() adds the operation's decode
// cycles and weights, from which the PMU counts WD_ACTIVE; trace_tiles() draws each tile's decode.
#pragma once

#include <array>

#include "models/npu/block.h"
#include "models/npu/pipeline.h"
#include "models/npu/wd/wd_timing.h"

namespace ethosu::npu {

class Wd : public PipelineUnit<WdTiming> {
 public:
  enum Stat : uint8_t { ACTIVE, DECODED_WEIGHTS, kStats };
  static const std::array<CounterSpec, kStats> kCounters;

  Wd(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu);
  void account(const OpTiming& t);

 private:
  std::array<sim::Counter*, kStats> stat_;
};

}  // namespace ethosu::npu
