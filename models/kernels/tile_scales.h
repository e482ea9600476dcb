// The output stage's constants of a range of channels, laid out as requantize_tile() reads them: shared by
// the conv, depthwise and elementwise kernels, which requantise tiles of exact int32 values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "models/kernels/output_stage.h"
#include "models/kernels/simd_loops.h"

namespace ethosu::kernels {

// One channel's constants: bias, multiplier, shift, and the rounding addends for an accumulator >= 0 and < 0
// (round(p / 2^shift) = (p + addend) >> shift; both addends in [0, 2^shift)).
struct ChannelScaling {
  int64_t bias = 0;
  uint32_t multiplier = 1;
  int shift = 0;  // 0..63
  int64_t round_pos = 0, round_neg = 0;
};

// Channels [c0, c1) of an output stage (per channel, or its global scale with each channel's bias if any).
class TileScales {
 public:
  // requantize_tile() saturates bias + sum to [acc_lo, acc_hi], then adds zp and clamps to [lo, hi]. The
  // constants live in `storage` (reused across operations: no allocation per operation).
  TileScales(const OutputStage& os, int c0, int c1, int64_t acc_lo, int64_t acc_hi, int64_t zp, int64_t lo,
             int64_t hi, std::vector<int64_t>& storage);
  // The same for any scaling (the U85's rounding modes): channel(c) gives channel c's constants.
  TileScales(const std::function<ChannelScaling(int)>& channel, int c0, int c1, int64_t acc_lo, int64_t acc_hi,
             int64_t zp, int64_t lo, int64_t hi, std::vector<int64_t>& storage);
  // Whether requantize_tile() applies: every shift <= 61 (its split rounding cannot overflow). It does not apply
  // the output stage's function or LUT: the caller checks for those.
  bool vector_ok() const { return vector_ok_; }
  // The parameters for the channels from c0 + offset on; `r32` receives the 32-bit path's constants when they
  // apply (it must outlive the result).
  RequantizeParams at(size_t offset, Requantize32& r32) const {
    RequantizeParams r = base_;
    r.bias += offset, r.mult += offset, r.shift += offset, r.mask += offset, r.rpos += offset, r.rneg += offset;
    if (fast32_ && offset % 2 == 0) {
      r32 = fast_at(offset);
      r.fast = &r32;
    }
    return r;
  }
  // Whether bias + sum fits int32 for every channel and every |sum| <= sum_bound (requantize_tile() then needs no
  // wrap-around check: RequantizeParams::sums_fit).
  bool sums_fit(int64_t sum_bound) const {
    return sum_bound >= 0 && sum_bound <= INT32_MAX && max_abs_bias_ <= static_cast<uint64_t>(INT32_MAX - sum_bound);
  }
  // Channel c0 + i's bias, multiplier and shift.
  int64_t bias(size_t i) const { return base_.bias[i]; }
  uint32_t multiplier(size_t i) const { return static_cast<uint32_t>(base_.mult[i]); }
  int shift(size_t i) const { return static_cast<int>(base_.shift[i]); }

 private:
  Requantize32 fast_at(size_t offset) const;

  // Channel array length: whole SIMD vectors and one more, so that a vector read from any channel offset (at())
  // stays within its own array, where the lanes past the last channel hold zeros (a shift of 0, not the next
  // array's values: lanes are computed even where they are not stored).
  size_t padded_ = 0;
  bool vector_ok_ = false, fast32_ = false, by_sign_ = false;
  uint64_t max_abs_bias_ = 0;
  int64_t* params_ = nullptr;
  int32_t* params32_ = nullptr;  // inside the same storage
  RequantizeParams base_{};
};

// Where an 8-bit map's pixels x0 .. x0 + np - 1 of row y take channels from ca on, as requantize_store_8bit() writes
// them; false unless the map is 8-bit, the pixels lie in one tile and (NHCWB16) ca starts a brick.
bool byte_elements_at(const FeatureMap& m, int x0, int y, int np, int ca, ByteElements& e);

inline size_t round_up_lanes(size_t n) { return (n + kRequantizeLanes - 1) / kRequantizeLanes * kRequantizeLanes; }

}  // namespace ethosu::kernels
