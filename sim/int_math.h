// Integer rounding helpers used by the timing models.
#pragma once

#include <cstdint>

namespace ethosu::sim {

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }  // no overflow near 2^64
constexpr uint64_t round_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }

// Saturating at UINT64_MAX, for cost bounds that must not wrap on hostile sizes.
inline uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline uint64_t sat_round_up(uint64_t a, uint64_t b) { return sat_mul(ceil_div(a, b), b); }

}  // namespace ethosu::sim
