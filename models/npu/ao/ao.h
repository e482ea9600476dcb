// AO, the activation and output unit, as a SystemC module: scales, activates and converts each OFM tile's
// accumulators (or, for elementwise operations, the input buffer) into the output buffer. Its timing parameters
// are plain C++ (ao_timing.h: cycles per element by operation and activation).
//
// Contract: the pipeline (pipeline.h) books each tile's output stage on unit(); account() adds the operation's
// activity, from which the PMU counts AO_ACTIVE (and by OFM precision) and the AO's stalls; trace_tiles() draws
// each tile's output stage.
#pragma once

#include <array>

#include "isa/operation.h"
#include "models/npu/ao/ao_timing.h"
#include "models/npu/block.h"
#include "models/npu/pipeline.h"

namespace ethosu::npu {

class Ao : public PipelineUnit<AoTiming> {
 public:
  enum Stat : uint8_t { ACTIVE, ACTIVE_8BIT, ACTIVE_16BIT, STALLED_BY_ACC, STALLED_BY_OB, kStats };
  static const std::array<CounterSpec, kStats> kCounters;

  Ao(const sc_core::sc_module_name& name, sim::Stats& stats, Pmu& pmu);
  void account(const isa::Operation& op, const OpTiming& t);

 private:
  std::array<sim::Counter*, kStats> stat_;
};

}  // namespace ethosu::npu
