// A memory behind an AXI port: the public ethosu_sim::Memory (include/ethosu_sim/memory.h) under the name
// the simulator's own code uses.
#pragma once

#include "ethosu_sim/memory.h"

namespace ethosu::mem {

using Memory = ethosu_sim::Memory;

}  // namespace ethosu::mem
