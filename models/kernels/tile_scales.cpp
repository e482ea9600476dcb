#include "models/kernels/tile_scales.h"

#include <algorithm>

namespace ethosu::kernels {
namespace {

// bias, multiplier, shift, low-bit mask of the shift, and the rounding addend for x >= 0 and x < 0.
enum ChannelArray { kBias, kMult, kShift, kMask, kRoundPos, kRoundNeg, kArrays };
// The 32-bit path's rounding addends with the zero point, each an array over channel pairs (see Requantize32).
enum PairArray { kEvenRpos, kEvenRneg, kOddRpos, kOddRneg, kPairArrays };
// Its int32 arrays: bias, multiplier, shift - 32.
enum Array32 { kBias32, kMult32, kShift32, kArrays32 };

// Channel c's bias and scale: its own in per-channel mode, else the global scale (with its bias, if any).
ScaleBias channel_scale(const OutputStage& os, int c) {
  if (os.per_channel) return os.channels[c];
  ScaleBias e;
  e.bias = os.channels ? os.channels[c].bias : 0;
  e.multiplier = os.multiplier;
  e.shift = os.shift;
  return e;
}

}  // namespace

TileScales::TileScales(const OutputStage& os, int c0, int c1, int64_t acc_lo, int64_t acc_hi, int64_t zp, int64_t lo,
                       int64_t hi, std::vector<int64_t>& storage)
    : TileScales(
          [&](int c) {
            const ScaleBias e = channel_scale(os, c);
            return ChannelScaling{e.bias, e.multiplier, e.shift, round_addend(os.round_mode, e.shift, false),
                                  round_addend(os.round_mode, e.shift, true)};
          },
          c0, c1, acc_lo, acc_hi, zp, lo, hi, storage) {}

TileScales::TileScales(const std::function<ChannelScaling(int)>& channel, int c0, int c1, int64_t acc_lo,
                       int64_t acc_hi, int64_t zp, int64_t lo, int64_t hi, std::vector<int64_t>& storage)
    : padded_(round_up_lanes(static_cast<size_t>(c1 - c0)) + kRequantizeLanes) {
  const size_t half = padded_ / 2;
  // The int32 arrays (kArrays32 x padded) take half as many int64 slots.
  storage.assign(kArrays * padded_ + kPairArrays * half + kArrays32 * half, 0);
  params_ = storage.data();
  params32_ = reinterpret_cast<int32_t*>(params_ + kArrays * padded_ + kPairArrays * half);
  // Locals, not members, in the loop: its stores could otherwise alias them.
  bool vector_ok = true, fast32 = true, by_sign = false;
  uint64_t max_abs_bias = 0;
  int64_t* cp = params_;
  int64_t* pairs = cp + kArrays * padded_;
  for (int c = c0; c < c1; ++c) {
    const size_t i = static_cast<size_t>(c - c0);
    const ChannelScaling e = channel(c);
    cp[kBias * padded_ + i] = e.bias;
    cp[kMult * padded_ + i] = e.multiplier;
    cp[kShift * padded_ + i] = e.shift;
    cp[kMask * padded_ + i] = static_cast<int64_t>((uint64_t{1} << e.shift) - 1);
    const int64_t rpos = e.round_pos, rneg = e.round_neg;
    cp[kRoundPos * padded_ + i] = rpos;
    cp[kRoundNeg * padded_ + i] = rneg;
    vector_ok = vector_ok && e.shift <= 61;
    max_abs_bias = std::max(max_abs_bias, e.bias < 0 ? -static_cast<uint64_t>(e.bias) : static_cast<uint64_t>(e.bias));

    const bool fits32 = e.bias >= INT32_MIN && e.bias <= INT32_MAX && e.multiplier <= uint32_t{INT32_MAX} &&
                        e.shift >= 32 && e.shift <= 61 && zp >= -(int64_t{1} << (61 - e.shift)) &&
                        zp <= (int64_t{1} << (61 - e.shift));
    fast32 = fast32 && fits32;
    by_sign = by_sign || rpos != rneg;
    // Only the 32-bit path reads these, and only when every channel fits it.
    if (!fits32) continue;
    params32_[kBias32 * padded_ + i] = static_cast<int32_t>(e.bias);
    params32_[kMult32 * padded_ + i] = static_cast<int32_t>(e.multiplier);
    params32_[kShift32 * padded_ + i] = e.shift - 32;
    const bool odd = i % 2;
    const size_t k = i / 2;
    const int64_t zp_scaled = zp * (int64_t{1} << e.shift);
    pairs[(odd ? kOddRpos : kEvenRpos) * half + k] = rpos + zp_scaled;
    pairs[(odd ? kOddRneg : kEvenRneg) * half + k] = rneg + zp_scaled;
  }
  vector_ok_ = vector_ok, fast32_ = fast32, by_sign_ = by_sign, max_abs_bias_ = max_abs_bias;
  base_ = {cp + kBias * padded_, cp + kMult * padded_,     cp + kShift * padded_, cp + kMask * padded_,
           cp + kRoundPos * padded_, cp + kRoundNeg * padded_, acc_lo, acc_hi, zp, lo, hi};
}

bool byte_elements_at(const FeatureMap& m, int x0, int y, int np, int ca, ByteElements& e) {
  const FeatureMapLayout& l = m.layout;
  if (element_size_bytes(l.type) != 1 || (x0 < l.width0 && x0 + np > l.width0)) return false;
  const bool nhwc = l.layout == Layout::NHWC;
  if (!nhwc && ca % 16 != 0) return false;
  e = {m.region + l.pixel_offset(x0, y) + l.channel_offset(ca), l.stride_x, nhwc ? 16 : l.stride_c,
       l.type == DataType::Int8};
  return true;
}

Requantize32 TileScales::fast_at(size_t offset) const {
  const int64_t* pairs = params_ + kArrays * padded_ + offset / 2;
  const size_t half = padded_ / 2;
  return {params32_ + kBias32 * padded_ + offset, params32_ + kMult32 * padded_ + offset,
          params32_ + kShift32 * padded_ + offset, pairs + kEvenRpos * half, pairs + kEvenRneg * half,
          pairs + kOddRpos * half, pairs + kOddRneg * half, by_sign_};
}

}  // namespace ethosu::kernels
