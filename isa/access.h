// The classes of memory traffic the NPU makes, one classification for the whole simulator: the validator's
// access extents, the fault channel, the AXI ports' traffic per client and the report's bytes per class. The
// enumeration is the public one (include/ethosu_sim/report.h), under the name the simulator's own code uses.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ethosu_sim/isa.h"
#include "ethosu_sim/report.h"

namespace ethosu::isa {

using ethosu_sim::Access;
using ethosu_sim::access_key;
using ethosu_sim::access_name;
using ethosu_sim::kAccessCount;
using ethosu_sim::kRegionCount;  // base-pointer regions, where the accesses go

bool is_write(Access a);  // OFM, DMA_DST

}  // namespace ethosu::isa
