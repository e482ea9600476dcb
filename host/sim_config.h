// The simulator's configuration as one parameter registry: the system (host/system_config: variant,
// clock, AXI ports, region mapping) plus the timing parameters of the NPU's blocks, and their
// translation into what the platform and the driver need.
//
// Contract: make_config() declares every parameter with its default (the imx93 system); callers layer
// presets, files and --set on top; platform_config() and regioncfg() read the resolved values.
#pragma once

#include <cstdint>

#include "models/platform/platform.h"
#include "sim/config.h"

namespace ethosu::host {

sim::Config make_config();
platform::PlatformConfig platform_config(const sim::Config& c);
// REGIONCFG for regions.N.port: port 0 through limiter 0, port 1 through limiter 2 (the Linux driver's
// convention).
uint32_t regioncfg(const sim::Config& c);

}  // namespace ethosu::host
