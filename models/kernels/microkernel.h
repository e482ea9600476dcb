// Internal: the int16 x int16 -> int32 convolution micro-kernels and their run-time ISA dispatch.
//
// Contract: a micro-kernel computes `runs` x P output pixels (P at a time in registers, one call for a row of
// tiles) x NB groups of 16 OFM channels: for i < runs * P,
//   out[i][16 j + o] = sum over taps t < ntaps, pairs k < npairs, h < 2 of
//       a[i * pix_stride + tap_offsets[t] + 2 k + h] * w[j * w_group_stride + t * w_tap_stride + 32 k + 2 o + h]
// with wrapping int32 arithmetic; the caller bounds the sums so that nothing wraps. `out` rows are
// 32 int32 apart. The weight layout is the packed one of ConvWeights (pairs of input channels
// interleaved per output channel, as vpdpwssd/vpmaddwd consume them).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ethosu::kernels {

// AvxVnni: AVX2 with the VEX-encoded 8-bit dot products of AVX-VNNI (Intel since Alder Lake, AMD since Zen 5). A host
// with AVX-512 VNNI need not have AVX-VNNI (Intel's Cascade Lake and Ice Lake do not): see host_has_avx_vnni().
enum class SimdLevel : uint8_t { Generic, Avx2, AvxVnni, Avx512Vnni };

using MicroKernel = void (*)(const int16_t* a, ptrdiff_t pix_stride, const int32_t* tap_offsets, int ntaps,
                             int npairs, const int16_t* w, ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride,
                             int runs, int32_t* out);

struct MicroKernelSet {
  int max_pixels[2] = {1, 1};  // [NB - 1]: P may be 1..max_pixels; max_pixels[1] == 0: one group at a time
  MicroKernel kernel[2][8];    // [NB - 1][P - 1]
};

// The 8-bit variant, for levels with 8-bit dot products (vpdpbusd): unsigned IFM bytes times signed weight bytes,
// four input channels per 32-bit lane, minus a per-channel correction:
//   out[i][16 j + o] = sum over taps t < ntaps, quads k < nquads, h < 4 of
//       a[i * pix_stride + tap_offsets[t] + 4 k + h] * w[j * w_group_stride + t * w_tap_stride + 64 k + 4 o + h]
//     - correction[16 j + o]
// in wrapping int32 arithmetic (vpdpbusd does not saturate), so the result is exact whenever the true value fits
// int32, however the partial sums wrap.
using MicroKernel8 = void (*)(const uint8_t* a, ptrdiff_t pix_stride, const int32_t* tap_offsets, int ntaps,
                              int nquads, const int8_t* w, ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride,
                              const int32_t* correction, int runs, int32_t* out);

struct MicroKernel8Set {
  int max_pixels[2] = {1, 1};
  MicroKernel8 kernel[2][8];
};

// The best level this host supports (AVX-512 VNNI, AVX-VNNI, AVX2, or portable C++), at most the limit below.
SimdLevel best_simd_level();
// The best level this host supports, whatever the limit.
SimdLevel host_simd_level();
// Whether this host has AVX-VNNI: the AvxVnni level has 8-bit kernels only then (below, it runs the AVX2 ones).
bool host_has_avx_vnni();
// Caps best_simd_level() for the whole process (tests compare every level on whole jobs).
void set_simd_level_limit(SimdLevel limit);
// The kernels for `level`, which must not exceed best_simd_level().
const MicroKernelSet& micro_kernels(SimdLevel level);
// The 8-bit kernels for `level`, or null where the level has none (Generic, Avx2, AvxVnni without
// host_has_avx_vnni()).
const MicroKernel8Set* micro_kernels_8bit(SimdLevel level);

}  // namespace ethosu::kernels
