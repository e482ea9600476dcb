#include "models/kernels/output_stage.h"

#include <algorithm>
#include <cmath>

namespace ethosu::kernels {

ScaleBias decode_scale_bias(const uint8_t* e) {
  uint64_t bias = 0;
  for (int i = 0; i < 5; ++i) bias |= uint64_t{e[i]} << (8 * i);
  ScaleBias sb;
  // Sign-extend the 40-bit bias through the top of a 64-bit word.
  sb.bias = static_cast<int64_t>(bias << 24) >> 24;
  sb.multiplier = uint32_t{e[5]} | (uint32_t{e[6]} << 8) | (uint32_t{e[7]} << 16) | (uint32_t{e[8]} << 24);
  sb.shift = static_cast<uint8_t>(e[9] & 0x3F);
  return sb;
}

std::vector<ScaleBias> decode_scale_bias_stream(const uint8_t* stream, int channels) {
  std::vector<ScaleBias> out(static_cast<size_t>(channels));
  for (int c = 0; c < channels; ++c) out[static_cast<size_t>(c)] = decode_scale_bias(stream + 10 * c);
  return out;
}

// The silicon's function tables are unknown; round(32768 * f(v / 12288)) matched the corpus float
// references (exact for sigmoid, +-2 LSB for tanh) [I]. Half-way cases round away from zero.
int32_t int16_sigmoid(int64_t v) {
  const double y = 1.0 / (1.0 + std::exp(-static_cast<double>(v) / 12288.0));
  return static_cast<int32_t>(std::lround(32768.0 * y));
}

int32_t int16_tanh(int64_t v) {
  return static_cast<int32_t>(std::lround(32768.0 * std::tanh(static_cast<double>(v) / 12288.0)));
}

int32_t lut16_lookup(const uint8_t* lut, int32_t u) {
  const int i = u >> 7, f = u & 0x7F;
  const uint8_t* e = lut + 4 * i;
  const auto base = static_cast<int16_t>(static_cast<uint16_t>(e[0] | (e[1] << 8)));
  const auto slope = static_cast<int16_t>(static_cast<uint16_t>(e[2] | (e[3] << 8)));
  // Rounding of the interpolation term as TFLite's int16 LUT does it [I].
  return base + ((slope * f + 64) >> 7);
}

namespace {

int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

// The range a LUT index is clipped to: the clip-range register, or the OFM type.
void clip_bounds(const OutputStage& os, int64_t& lo, int64_t& hi) {
  switch (os.clip_range) {
    case ClipRange::ForceUInt8: lo = 0, hi = 255; return;
    case ClipRange::ForceInt8: lo = -128, hi = 127; return;
    case ClipRange::ForceInt16: lo = -32768, hi = 32767; return;
    case ClipRange::OfmPrecision: lo = type_min(os.ofm_type), hi = type_max(os.ofm_type); return;
  }
}

int32_t table_lookup(const OutputStage& os, int64_t x) {
  int64_t lo = 0, hi = 0;
  clip_bounds(os, lo, hi);
  const bool wide_table = os.ofm_type == DataType::Int16 || os.ofm_type == DataType::UInt16;
  if (wide_table) {
    // Interpolated table over the whole 16-bit input range; u = v + 32768 for signed values.
    const int64_t v = clamp64(x, lo, hi);
    const int64_t u = v - type_min(os.ofm_type == DataType::Int16 ? DataType::Int16 : DataType::UInt16);
    return static_cast<int32_t>(
        clamp64(lut16_lookup(os.lut, static_cast<int32_t>(u)), type_min(os.ofm_type), type_max(os.ofm_type)));
  }
  // 256-entry tables.
  lut8_bounds(os, lo, hi);
  const auto idx = static_cast<int>(clamp64(x, lo, hi) - lo);
  if (os.ofm_type == DataType::Int32) {
    const uint8_t* e = os.lut + 4 * idx;
    return static_cast<int32_t>(uint32_t{e[0]} | (uint32_t{e[1]} << 8) | (uint32_t{e[2]} << 16) |
                                (uint32_t{e[3]} << 24));
  }
  // 8-bit tables hold the final OFM value.
  const uint8_t b = os.lut[idx];
  return os.ofm_type == DataType::Int8 ? static_cast<int8_t>(b) : b;
}

}  // namespace

void FastFinish::apply(int32_t* v, size_t n) const {
  // The common case in int32 (see the constructor), so that the loop vectorises. The results lie in [lo, hi] or
  // are hi, which fit int32.
  if (int32_clamp_) {
    const auto lo = static_cast<int32_t>(lo_ - zp_), hi = static_cast<int32_t>(hi_ - zp_);
    const auto zp = static_cast<uint32_t>(zp_);
    for (size_t i = 0; i < n; ++i) {
      int32_t x = v[i] < lo ? lo : v[i];
      x = x > hi ? hi : x;
      v[i] = static_cast<int32_t>(static_cast<uint32_t>(x) + zp);
    }
    return;
  }
  // clamp(clamp(x, a, b), c, d) is clamp(x, max(a, c), min(b, d)) where the ranges meet, else c or d for every x;
  // with the activation bounds the wrong way round the first clamp is no clamp, and each value takes operator().
  if (!lut8_ || os_.activation_min > os_.activation_max) {
    for (size_t i = 0; i < n; ++i) v[i] = (*this)(v[i]);
    return;
  }
  const int64_t lo = std::max<int64_t>(os_.activation_min, lut_lo_), hi = std::min<int64_t>(os_.activation_max, lut_hi_);
  const bool is_signed = os_.ofm_type == DataType::Int8;
  const auto entry = [&](int64_t x) -> int32_t {
    const uint8_t b = os_.lut[x - lut_lo_];
    return is_signed ? static_cast<int8_t>(b) : b;
  };
  if (lo > hi) {
    const int32_t e = entry(os_.activation_max < lut_lo_ ? lut_lo_ : lut_hi_);
    for (size_t i = 0; i < n; ++i) v[i] = e;
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = int64_t{v[i]} + zp_;
    v[i] = entry(x < lo ? lo : (x > hi ? hi : x));
  }
}

void lut8_bounds(const OutputStage& os, int64_t& lo, int64_t& hi) {
  clip_bounds(os, lo, hi);
  if (hi - lo != 255) lo = -128, hi = 127;
}

int32_t finish(const OutputStage& os, int64_t x) {
  if (os.function == ActivationFunction::Table) return table_lookup(os, clamp64(add_saturating(x, os.ofm_zero_point), os.activation_min, os.activation_max));
  // A 32-bit OFM without LUT: no zero point and no ACTIVATION_MIN/MAX (pitfall 11); saturating the
  // store is a choice [I].
  if (os.ofm_type == DataType::Int32) return static_cast<int32_t>(clamp64(x, INT32_MIN, INT32_MAX));
  x = add_saturating(x, os.ofm_zero_point);
  if (os.function == ActivationFunction::Tanh) x = int16_tanh(x);
  if (os.function == ActivationFunction::Sigmoid) x = int16_sigmoid(x);
  x = clamp64(x, os.activation_min, os.activation_max);
  return static_cast<int32_t>(clamp64(x, type_min(os.ofm_type), type_max(os.ofm_type)));
}

}  // namespace ethosu::kernels
