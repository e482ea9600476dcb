// Integer rounding helpers used by the timing models.
#pragma once

#include <cstdint>

namespace ethosu::sim {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang on every 64-bit target we build for

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

// A divisor fixed across many divisions: a shift and a mask when it is a power of two (bus, burst and tick sizes
// nearly always are), the divide instruction otherwise. A 64-bit divide costs tens of cycles, and the AXI timing
// model divides several times per transfer.
class Divisor {
 public:
  constexpr Divisor() = default;
  constexpr explicit Divisor(uint64_t d) : d_(d), shift_(d != 0 && (d & (d - 1)) == 0 ? __builtin_ctzll(d) : -1) {}
  constexpr uint64_t div(uint64_t a) const { return shift_ >= 0 ? a >> shift_ : a / d_; }
  constexpr uint64_t mod(uint64_t a) const { return shift_ >= 0 ? a & (d_ - 1) : a % d_; }
  constexpr uint64_t ceil_div(uint64_t a) const { return div(a) + (mod(a) != 0); }
  constexpr uint64_t round_up(uint64_t a) const { return ceil_div(a) * d_; }

 private:
  uint64_t d_ = 1;
  int shift_ = 0;
};

}  // namespace ethosu::sim
