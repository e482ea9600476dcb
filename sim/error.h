// Error types shared by every layer: the public ethosu_sim::InputError (include/ethosu_sim/error.h) under the
// name the simulator's own code uses.
#pragma once

#include <string>

#include "ethosu_sim/error.h"

namespace ethosu {

using InputError = ethosu_sim::InputError;

}  // namespace ethosu
