// The host CPU running a driver: the public ethosu_sim::HostCpu (include/ethosu_sim/driver.h) under the
// names the simulator's own code uses.
#pragma once

#include "ethosu_sim/driver.h"

namespace ethosu::host {

using ethosu_sim::DriverJob;
using ethosu_sim::DriverResult;
using ethosu_sim::HostCpu;

}  // namespace ethosu::host
