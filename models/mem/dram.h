// The public Dram's timing model (include/ethosu_sim/dram.h) under the simulator's own names.
#pragma once

#include "ethosu_sim/dram.h"
#include "models/mem/dram_timing.h"

namespace ethosu_sim {

class Dram::Timing : public ethosu::mem::DramTiming {
 public:
  using DramTiming::DramTiming;
};

}  // namespace ethosu_sim
