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

enum class SimdLevel : uint8_t { Generic, Avx2, Avx512Vnni };

using MicroKernel = void (*)(const int16_t* a, ptrdiff_t pix_stride, const int32_t* tap_offsets, int ntaps,
                             int npairs, const int16_t* w, ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride,
                             int runs, int32_t* out);

struct MicroKernelSet {
  int max_pixels[2] = {1, 1};  // [NB - 1]: P may be 1..max_pixels; max_pixels[1] == 0: one group at a time
  MicroKernel kernel[2][8];    // [NB - 1][P - 1]
};

// The best level this host supports (AVX-512 VNNI, AVX2, or portable C++), at most the limit below.
SimdLevel best_simd_level();
// Caps best_simd_level() for the whole process (tests compare every level on whole jobs).
void set_simd_level_limit(SimdLevel limit);
// The kernels for `level`, which must not exceed best_simd_level().
const MicroKernelSet& micro_kernels(SimdLevel level);

}  // namespace ethosu::kernels
