// The memory an operation's data effect works on: the host buffers of regions 0-7.
#pragma once

#include <array>
#include <cstdint>

namespace ethosu::kernels {

struct Region {
  uint8_t* data = nullptr;
  uint64_t size_bytes = 0;
};
using Regions = std::array<Region, 8>;

}  // namespace ethosu::kernels
