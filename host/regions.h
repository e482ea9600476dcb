// The NPU's eight base-pointer regions, as the host side counts them.
#pragma once

#include <cstddef>

namespace ethosu::host {

inline constexpr size_t kRegions = 8;

}  // namespace ethosu::host
