// The SoC around the NPU: the public ethosu_sim::Platform (include/ethosu_sim/platform.h) under the name the
// simulator's own code uses.
#pragma once

#include "ethosu_sim/platform.h"
#include "models/npu/npu.h"

namespace ethosu::platform {

using Platform = ethosu_sim::Platform;

// Applies a configuration between jobs (NPU variant and block timing, each port's timing, clock).
inline void configure(Platform& p, const npu::NpuConfig& c) { p.npu.impl().configure(c); }

}  // namespace ethosu::platform
