// The SoC around the NPU: the public ethosu_sim::Platform (include/ethosu_sim/platform.h) under the name the
// simulator's own code uses, and its configuration as structures (host/sim_config.h makes one from named
// parameters).
#pragma once

#include <array>

#include "ethosu_sim/platform.h"
#include "models/npu/axi/axi_timing.h"
#include "models/npu/npu.h"

namespace ethosu::platform {

using Platform = ethosu_sim::Platform;

struct PlatformConfig {
  npu::NpuConfig npu;
  std::array<axi::AxiPortParams, 2> axi{};  // AXI0 (SRAM), AXI1 (DRAM)
};

// Applies a configuration between jobs (NPU variant and block timing, each port's timing, clock).
inline void configure(Platform& p, const PlatformConfig& c) { p.npu.impl().configure(c.npu, c.axi); }

}  // namespace ethosu::platform
