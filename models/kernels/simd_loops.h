// Internal: the kernels' inner loops in SIMD, written once with Google Highway and dispatched at run time
// over the host's vector units (SSSE3/SSE4/AVX2/AVX-512 on x86, NEON/SVE on Arm, or one lane). All exact.
//
// requantize_tile(), the output stage of conv, depthwise and elementwise for a tile of accumulators:
// for rows i < rows and channels j < channels,
//   x = saturate(bias[j] + sums[i * sum_stride + j]) to [acc_lo, acc_hi],
//   out[i * out_stride + j] = clamp(round(x * mult[j] / 2^shift[j]) + zp, lo, hi)
// with the rounding given per channel as round(p / 2^s) = (p >> s) + ((p & mask) + r) >> s, r = rpos[j]
// for x >= 0 and rneg[j] for x < 0 (prepared by the caller; shift <= 61 so that nothing overflows).
// Returns false, with `out` unusable, when some x lies outside int32 (the caller then takes the exact
// 128-bit path). Rows of sums and out, and the channel arrays, must be readable/writable up to
// round_up(channels, kRequantizeLanes): the tail is computed on whatever is there and not used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ethosu::kernels {

inline constexpr int kRequantizeLanes = 8;

// The common case in 32-bit lanes: every channel's bias fits int32, mult < 2^31 and 32 <= shift <= 61, and
// |zp| <= 2^(61 - shift). Then x = bias + sum is exact unless it wraps int32 (which makes the tile fall back), the
// product p = x * mult lies within +-2^62, the rounding addend r' = r + zp * 2^s within +-2^62, and
// round(p / 2^s) + zp = floor(floor((p + r') / 2^32) / 2^(s - 32)): the high half of p + r' shifted right in 32-bit
// lanes. The addends are split by channel parity, as 64-bit lanes see them: even[k] for channel 2k, odd[k] for
// 2k + 1. Every array is padded like the per-channel ones, and mult one element further (a vector is also read from
// channel j + 1).
struct Requantize32 {
  const int32_t *bias, *mult, *shift;  // shift: s - 32
  const int64_t *even_rpos, *even_rneg, *odd_rpos, *odd_rneg;  // r' = r + zp * 2^s
  bool by_sign;  // rpos != rneg in some channel
};

struct RequantizeParams {
  const int64_t *bias, *mult, *shift, *mask, *rpos, *rneg;  // per channel (mult < 2^32, shift <= 61)
  int64_t acc_lo, acc_hi, zp, lo, hi;
  // When set (and the tile starts at an even channel of these arrays), the 32-bit path.
  const Requantize32* fast = nullptr;
  // Set when the caller knows that bias + sum fits int32 in every element: the 32-bit path skips its check.
  bool sums_fit = false;
};

bool requantize_tile(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels, const RequantizeParams& p,
                     int32_t* out, ptrdiff_t out_stride);

// 8-bit feature-map elements: value (row i, channel j) at out + i * row_stride + (j / 16) * brick_stride + j % 16
// (NHWC: brick_stride 16; NHCWB16: STRIDE_C, with channel 0 at a brick's start).
struct ByteElements {
  uint8_t* out;
  ptrdiff_t row_stride, brick_stride;
  bool is_signed;  // int8 (else uint8); lo and hi must lie within the type
};

// requantize_tile() storing each value straight as an 8-bit element; only channels < `channels` are written.
// On false, some elements of the tile hold unusable values (the caller stores them all again).
bool requantize_store_8bit(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels,
                           const RequantizeParams& p, const ByteElements& out);

// Depthwise sums of a run of output pixels, accumulators in registers across the taps:
//   acc[i * acc_stride + c] = sum over t < ntaps of a[i * pix_stride + taps[t] + c] * w[t * w_tap_stride + c]
// for i < pixels, c < channels, in wrapping int32 (the caller bounds the sums so that nothing wraps).
void depthwise_sums(const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, const int16_t* w,
                    ptrdiff_t w_tap_stride, int channels, int pixels, int32_t* acc, ptrdiff_t acc_stride);

// 8-bit feature-map values minus a zero point, as int16, in groups of `length` contiguous elements:
//   dst[g * dst_stride + i] = src[g * src_stride + i] - zero_point  for g < groups, i < length,
// the source signed or unsigned, the difference modulo 2^16 (exact when it fits int16, as the callers ensure).
void widen_8bit(const uint8_t* src, ptrdiff_t src_stride, bool is_signed, int32_t zero_point, int16_t* dst,
                ptrdiff_t dst_stride, int groups, int length);

// Bytes plus an addend modulo 256, in groups of `length` contiguous bytes (the 8-bit micro-kernels' IFM bytes):
//   dst[g * dst_stride + i] = src[g * src_stride + i] + addend  for g < groups, i < length.
void offset_bytes(const uint8_t* src, ptrdiff_t src_stride, uint8_t addend, uint8_t* dst, ptrdiff_t dst_stride,
                  int groups, int length);

// int32 values already within an 8-, 16- or 32-bit element type, stored as its little-endian elements of
// `element_bytes`, in groups of `length` contiguous elements:
//   element i of group g at dst + g * dst_stride + i * element_bytes  <-  v[g * v_stride + i].
void narrow_store(const int32_t* v, ptrdiff_t v_stride, int element_bytes, uint8_t* dst, ptrdiff_t dst_stride,
                  int groups, int length);

// dst[i] = table[src[i]] for i < n, through a 256-entry byte table (src and dst may be the same buffer). Runs
// under 64 bytes take a plain loop here: for them the call to the SIMD loop costs more than it saves.
void lookup_bytes_simd(const uint8_t* table, const uint8_t* src, uint8_t* dst, size_t n);
inline void lookup_bytes(const uint8_t* table, const uint8_t* src, uint8_t* dst, size_t n) {
  if (n >= 64) {
    lookup_bytes_simd(table, src, dst, n);
    return;
  }
  for (size_t i = 0; i < n; ++i) dst[i] = table[src[i]];
}

// Pooling's reduction of `taps` rows of `channels` int32 values, `step` elements apart from `a`, into r:
//   r[c] = max(r[c], a[t * step + c]) (max) or r[c] + a[t * step + c] (sum, which the caller keeps within int32)
// for t < taps, c < channels.
void reduce_taps(const int32_t* a, int taps, ptrdiff_t step, bool max, int32_t* r, int channels);

// The Highway targets (HWY_AVX2, ...) this host runs and the build holds, best first; the loops run on the
// first unless select_simd_target() picks another (0: the best again). For tests and benchmarks.
std::vector<int64_t> available_simd_targets();
void select_simd_target(int64_t target);
// The target the loops run on, and its name.
int64_t simd_target();
const char* simd_target_name();
// The names of available_simd_targets(), best first (Highway's: "AVX3_ZEN4", "AVX2", "EMU128", ...).
std::vector<std::string> simd_target_names();

// The names limit_simd() takes: simd_target_names(), and before AVX2 "AVX2_VNNI" where the host has AVX-VNNI.
std::vector<std::string> simd_limit_names();
// Caps the SIMD code of the whole process at the named target (one of simd_limit_names(), any case): the loops
// run on it, and the conv micro-kernels follow (AVX-512 VNNI under an AVX3 target, AVX2 under AVX2, the AVX-VNNI
// ones under AVX2_VNNI, which runs the AVX2 loops; the portable ones under any other). For comparing hosts on one
// machine and for narrowing a bug down to a target. Throws InputError naming the choices when the name is not one
// of them.
void limit_simd(const std::string& name);
// Applies ETHOSU_SIM_SIMD=NAME, when set, as limit_simd(NAME), once per process. The loops' dispatch and
// best_simd_level() call it on their first use, so that the variable reaches every client (CLI, Python, driver
// shims); an unknown name makes those first uses throw until it is fixed.
void apply_simd_environment();

}  // namespace ethosu::kernels
