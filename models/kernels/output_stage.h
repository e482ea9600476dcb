// The output stage shared by every operation (03-data-semantics.md §4-§6): scaling with the three
// rounding modes, OFM zero point, activation clamp, built-in int16 TANH/SIGMOID, LUTs, saturation.
//
// Contract: scale() then finish() turns an exact intermediate (accumulator + bias, pooling sum,
// elementwise result) into the value stored in the OFM. All arithmetic is exact: 40-bit
// accumulators times 32-bit unsigned multipliers use 128-bit intermediates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/kernels/feature_map.h"

namespace ethosu::kernels {

__extension__ typedef __int128 int128_t;  // GCC/Clang on every 64-bit target we build for

enum class RoundMode : uint8_t { Dbl = 0, Truncate = 1, Natural = 2 };
enum class AccFormat : uint8_t { Int32 = 0, Int40 = 1 };
enum class ActivationFunction : uint8_t { None, Tanh, Sigmoid, Table };  // None = RELU (clamp only)
enum class ClipRange : uint8_t { OfmPrecision = 0, ForceUInt8 = 2, ForceInt8 = 3, ForceInt16 = 5 };

// One 10-byte entry of the scale/bias stream (§5).
struct ScaleBias {
  int64_t bias = 0;         // 40-bit two's complement
  uint32_t multiplier = 1;  // unsigned
  uint8_t shift = 0;        // 0..63
};
ScaleBias decode_scale_bias(const uint8_t* entry);
// `channels` consecutive entries (the caller de-interleaves U65-512 streams).
std::vector<ScaleBias> decode_scale_bias_stream(const uint8_t* stream, int channels);

// x + y saturated to int64: the zero point added to a saturated scale result must not wrap (the clamps
// that follow give the exact result's value either way).
inline int64_t add_saturating(int64_t x, int64_t y) {
  int64_t r;
  if (__builtin_add_overflow(x, y, &r)) return y > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

inline int64_t saturate_int64(int128_t v) {
  constexpr int128_t lo = INT64_MIN, hi = INT64_MAX;
  return static_cast<int64_t>(v < lo ? lo : (v > hi ? hi : v));
}

// round(x * m / 2^shift) with the given mode (§4.2).
inline int64_t rounded_scale(int64_t x, uint32_t m, int shift, RoundMode mode) {
  const int128_t p = static_cast<int128_t>(x) * m;
  if (shift == 0) return saturate_int64(p);
  const int128_t half = static_cast<int128_t>(1) << (shift - 1);
  switch (mode) {
    case RoundMode::Dbl: {
      int128_t r = half;
      if (shift > 31) r += x >= 0 ? (int128_t{1} << 30) : -(int128_t{1} << 30);
      return saturate_int64((p + r) >> shift);
    }
    case RoundMode::Truncate: return saturate_int64(p >= 0 ? p >> shift : -((-p) >> shift));
    case RoundMode::Natural: return saturate_int64((p + half) >> shift);
  }
  return 0;
}

// The rounding addend r such that rounded_scale(x, m, shift, mode) = (p >> shift) + ((p mod 2^shift) + r) >> shift
// for p = x * m (x < 0 takes the `negative` one); for the SIMD paths, which cannot shift 128 bits.
inline int64_t round_addend(RoundMode mode, int shift, bool negative) {
  if (shift == 0) return 0;
  const int64_t half = int64_t{1} << (shift - 1);
  switch (mode) {
    case RoundMode::Dbl: return shift > 31 ? half + (negative ? -(int64_t{1} << 30) : (int64_t{1} << 30)) : half;
    case RoundMode::Truncate: return negative ? static_cast<int64_t>((uint64_t{1} << shift) - 1) : 0;
    case RoundMode::Natural: return half;
  }
  return 0;
}

// The output-stage registers of one operation.
struct OutputStage {
  DataType ofm_type = DataType::Int8;
  int32_t ofm_zero_point = 0;
  RoundMode round_mode = RoundMode::Dbl;  // OFM_PRECISION.round_mode
  bool per_channel = true;                // OFM_PRECISION.scale_mode == PER_CHANNEL
  uint32_t multiplier = 1;                // OFM_SCALE (global mode)
  uint8_t shift = 0;                      // OFM_SCALE_SHIFT (global mode)
  // Per-OFM-channel bias and scale, indexed by OFM channel. Required in per-channel mode for
  // CONV/DEPTHWISE; in global mode only its bias is used, and a null pointer means bias 0 [I].
  const ScaleBias* channels = nullptr;
  ActivationFunction function = ActivationFunction::None;
  int32_t activation_min = -128;  // ACTIVATION_MIN/MAX, OFM quantized units
  int32_t activation_max = 127;
  ClipRange clip_range = ClipRange::OfmPrecision;
  // The LUT slot for Table: 256 bytes (8-bit OFM), 1 KiB of LE int32 (32-bit OFM) or 2 KiB of LE
  // (base, slope) int16 pairs (16-bit OFM). The caller passes the SHRAM bytes of slot n.
  const uint8_t* lut = nullptr;
};

// Step 1: exact scaling of x (bias already added). With a 32-bit IFM the multiplier is dropped and
// only the shift applies (pitfall 11).
inline int64_t scale(const OutputStage& os, int64_t x, uint32_t m, int shift, bool ifm_is_32bit) {
  return rounded_scale(x, ifm_is_32bit ? 1u : m, shift, os.round_mode);
}

// Step 2: zero point, activation, LUT and saturation; returns the value to store.
int32_t finish(const OutputStage& os, int64_t x);

// The index range of a 256-entry LUT of an 8-bit OFM: the clip range (a 16/32-bit one cannot index the table,
// so the signed 8-bit range instead [I]).
void lut8_bounds(const OutputStage& os, int64_t& lo, int64_t& hi);

// finish() with the common cases (no function, OFM narrower than 32 bits; a LUT of an 8-bit OFM) inlined for
// the per-element loops.
class FastFinish {
 public:
  explicit FastFinish(const OutputStage& os)
      : os_(os),
        simple_(os.function == ActivationFunction::None && os.ofm_type != DataType::Int32),
        lut8_(os.function == ActivationFunction::Table && element_size_bytes(os.ofm_type) == 1),
        zp_(os.ofm_zero_point),
        // clamp(clamp(x, min, max), type) == clamp(x, lo, hi) with the bounds clamped to the type.
        lo_(clamp_to_type(os.activation_min, os.ofm_type)),
        hi_(clamp_to_type(os.activation_max, os.ofm_type)) {
    if (lut8_) lut8_bounds(os, lut_lo_, lut_hi_);
    // apply()'s int32 clamp: clamp(x + zp, lo, hi) is clamp(x, lo - zp, hi - zp) + zp (the same two comparisons in
    // the same order), whose bounds are int32 values unless the zero point is near the int32 extremes.
    const auto int32 = [](int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
    int32_clamp_ = simple_ && int32(lo_ - zp_) && int32(hi_ - zp_);
  }
  int32_t operator()(int64_t x) const {
    if (simple_) {
      x = add_saturating(x, zp_);
      x = x < lo_ ? lo_ : x;
      return static_cast<int32_t>(x > hi_ ? hi_ : x);
    }
    if (!lut8_) return finish(os_, x);
    // finish()'s table lookup: the activation clamp, then the index clamp.
    x = add_saturating(x, zp_);
    x = x < os_.activation_min ? os_.activation_min : (x > os_.activation_max ? os_.activation_max : x);
    x = x < lut_lo_ ? lut_lo_ : (x > lut_hi_ ? lut_hi_ : x);
    const uint8_t b = os_.lut[x - lut_lo_];
    return os_.ofm_type == DataType::Int8 ? static_cast<int8_t>(b) : b;
  }
  // operator() of n int32 values in place (the SIMD output stages' results). For an 8-bit LUT the activation clamp
  // and the index clamp fold into one, and the zero point cannot overflow: a clamp and a table load per value.
  void apply(int32_t* v, size_t n) const;
  // The clamp of the common case: the activation bounds within the OFM type.
  int64_t low() const { return lo_; }
  int64_t high() const { return hi_; }

 private:
  static int64_t clamp_to_type(int64_t v, DataType t) {
    return v < type_min(t) ? type_min(t) : (v > type_max(t) ? type_max(t) : v);
  }
  const OutputStage& os_;
  bool simple_, lut8_, int32_clamp_ = false;
  int64_t zp_, lo_, hi_, lut_lo_ = 0, lut_hi_ = 0;
};

// int16 fixed functions on the pre-scaled input (real value * 0x3000), Q0.15 result before clamping.
int32_t int16_sigmoid(int64_t v);
int32_t int16_tanh(int64_t v);
// The interpolated 16-bit LUT: 512 (base, slope) pairs, v already clipped to int16.
int32_t lut16_lookup(const uint8_t* lut, int32_t v);

// Saturates the accumulator to its format's width [I: saturation, not wrap-around, is a choice].
inline int64_t saturate_accumulator(int64_t acc, AccFormat f) {
  const int64_t hi = f == AccFormat::Int32 ? INT32_MAX : (int64_t{1} << 39) - 1;
  const int64_t lo = -hi - 1;
  return acc < lo ? lo : (acc > hi ? hi : acc);
}

}  // namespace ethosu::kernels
