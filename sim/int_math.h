// Integer rounding helpers used by the timing models.
#pragma once

#include <cstdint>

namespace ethosu::sim {

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
constexpr uint64_t round_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }

}  // namespace ethosu::sim
