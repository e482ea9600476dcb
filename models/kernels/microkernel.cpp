// The micro-kernels are compiled per ISA with target attributes and chosen at run time, so the
// library stays portable (no -march=native).
#include "models/kernels/microkernel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "models/kernels/simd_loops.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define ETHOSU_KERNELS_X86 1
#endif

namespace ethosu::kernels {
namespace {

inline int32_t load_pair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <int P, int NB>
void mk_generic(const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, int npairs,
                const int16_t* w, ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride, int runs, int32_t* out) {
  for (int run = 0; run < runs; ++run, a += P * pix_stride, out += 32 * P) {
    // uint32 sums: the caller guarantees no overflow, and unsigned keeps wrap-around defined.
    uint32_t acc[P][NB * 16] = {};
    for (int t = 0; t < ntaps; ++t) {
      const int16_t* at = a + taps[t];
      const int16_t* wt = w + t * w_tap_stride;
      for (int k = 0; k < npairs; ++k) {
        for (int i = 0; i < P; ++i) {
          const int32_t a0 = at[i * pix_stride + 2 * k], a1 = at[i * pix_stride + 2 * k + 1];
          for (int j = 0; j < NB; ++j) {
            const int16_t* wk = wt + j * w_group_stride + 32 * k;
            for (int o = 0; o < 16; ++o)
              acc[i][16 * j + o] += static_cast<uint32_t>(a0 * wk[2 * o] + a1 * wk[2 * o + 1]);
          }
        }
      }
    }
    for (int i = 0; i < P; ++i)
      for (int o = 0; o < NB * 16; ++o) out[32 * i + o] = static_cast<int32_t>(acc[i][o]);
  }
}

#if ETHOSU_KERNELS_X86
template <int P, int NB>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void mk_avx512(
    const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, int npairs, const int16_t* w,
    ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride, int runs, int32_t* out) {
  for (int run = 0; run < runs; ++run, a += P * pix_stride, out += 32 * P) {
    __m512i acc[P][NB];
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 2
      for (int j = 0; j < NB; ++j) acc[i][j] = _mm512_setzero_si512();
    for (int t = 0; t < ntaps; ++t) {
      const int16_t* at = a + taps[t];
      const int16_t* wt = w + t * w_tap_stride;
      for (int k = 0; k < npairs; ++k) {
        __m512i wv[NB];
#pragma GCC unroll 2
        for (int j = 0; j < NB; ++j) wv[j] = _mm512_loadu_si512(wt + j * w_group_stride + 32 * k);
#pragma GCC unroll 8
        for (int i = 0; i < P; ++i) {
          const __m512i b = _mm512_set1_epi32(load_pair(at + i * pix_stride + 2 * k));
#pragma GCC unroll 2
          for (int j = 0; j < NB; ++j) acc[i][j] = _mm512_dpwssd_epi32(acc[i][j], b, wv[j]);
        }
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 2
      for (int j = 0; j < NB; ++j) _mm512_storeu_si512(out + 32 * i + 16 * j, acc[i][j]);
  }
}

template <int P, int NB>
__attribute__((target("avx2"))) void mk_avx2(const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps,
                                             int ntaps, int npairs, const int16_t* w, ptrdiff_t w_tap_stride,
                                             ptrdiff_t w_group_stride, int runs, int32_t* out) {
  for (int run = 0; run < runs; ++run, a += P * pix_stride, out += 32 * P) {
    __m256i acc[P][NB][2];
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 2
      for (int j = 0; j < NB; ++j) acc[i][j][0] = acc[i][j][1] = _mm256_setzero_si256();
    for (int t = 0; t < ntaps; ++t) {
      const int16_t* at = a + taps[t];
      const int16_t* wt = w + t * w_tap_stride;
      for (int k = 0; k < npairs; ++k) {
        __m256i wv[NB][2];
#pragma GCC unroll 2
        for (int j = 0; j < NB; ++j) {
          const int16_t* wk = wt + j * w_group_stride + 32 * k;
          wv[j][0] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wk));
          wv[j][1] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wk + 16));
        }
#pragma GCC unroll 8
        for (int i = 0; i < P; ++i) {
          const __m256i b = _mm256_set1_epi32(load_pair(at + i * pix_stride + 2 * k));
#pragma GCC unroll 2
          for (int j = 0; j < NB; ++j) {
            acc[i][j][0] = _mm256_add_epi32(acc[i][j][0], _mm256_madd_epi16(b, wv[j][0]));
            acc[i][j][1] = _mm256_add_epi32(acc[i][j][1], _mm256_madd_epi16(b, wv[j][1]));
          }
        }
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 2
      for (int j = 0; j < NB; ++j) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * i + 16 * j), acc[i][j][0]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * i + 16 * j + 8), acc[i][j][1]);
      }
  }
}
#endif

// P = 1..sizeof...(P1) for one group of 16 OFM channels, 1..sizeof...(P2) for two.
template <template <int, int> class K, int... P1, int... P2>
MicroKernelSet make_set(std::integer_sequence<int, P1...>, std::integer_sequence<int, P2...>) {
  MicroKernelSet s{};
  s.max_pixels[0] = static_cast<int>(sizeof...(P1));
  s.max_pixels[1] = static_cast<int>(sizeof...(P2));
  ((s.kernel[0][P1] = K<P1 + 1, 1>::fn), ...);
  ((s.kernel[1][P2] = K<P2 + 1, 2>::fn), ...);
  return s;
}

template <int P, int NB>
struct Generic {
  static constexpr MicroKernel fn = mk_generic<P, NB>;
};
#if ETHOSU_KERNELS_X86
template <int P, int NB>
struct Avx512 {
  static constexpr MicroKernel fn = mk_avx512<P, NB>;
};
template <int P, int NB>
struct Avx2 {
  static constexpr MicroKernel fn = mk_avx2<P, NB>;
};
#endif

}  // namespace

namespace {

SimdLevel detected_simd_level() {
#if ETHOSU_KERNELS_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))
    return SimdLevel::Avx512Vnni;
  if (__builtin_cpu_supports("avx2")) return SimdLevel::Avx2;
#endif
  return SimdLevel::Generic;
}

std::atomic<SimdLevel> simd_level_limit{SimdLevel::Avx512Vnni};

}  // namespace

SimdLevel best_simd_level() {
  // ETHOSU_SIM_SIMD's cap, once, before the first answer (it throws again while the name is wrong).
  static const SimdLevel detected = (apply_simd_environment(), detected_simd_level());
  return std::min(detected, simd_level_limit.load(std::memory_order_relaxed));
}

void set_simd_level_limit(SimdLevel limit) { simd_level_limit.store(limit, std::memory_order_relaxed); }

const MicroKernelSet& micro_kernels(SimdLevel level) {
  // Register budget per ISA: P x NB accumulators plus NB weight vectors and one broadcast. AVX2 takes 4 pixels of
  // one channel group and no pairs of groups: measured on the AVX-512 build machine running its AVX2 code, that made
  // MobileNetV2 6-8 % and YOLOX-Nano 11-13 % faster than 2 pixels of two groups (likely because one group's weights,
  // 18 KiB for a 1x1 conv over 576 IFM channels, stay in a 32 KiB L1 across a row and a pair's do not), though it
  // takes about 10 % more instructions (rows' remainders run the 1-3 pixel kernels more often). Pairs only where
  // their weights fit 16 KiB was slower than never; more than 4 pixels gained nothing. AVX-512 is faster with pairs
  // of groups (6 pixels) throughout, and with 8 pixels of one group it was not faster.
  static const MicroKernelSet generic =
      make_set<Generic>(std::make_integer_sequence<int, 4>{}, std::make_integer_sequence<int, 4>{});
#if ETHOSU_KERNELS_X86
  static const MicroKernelSet avx512 =
      make_set<Avx512>(std::make_integer_sequence<int, 6>{}, std::make_integer_sequence<int, 6>{});
  static const MicroKernelSet avx2 =
      make_set<Avx2>(std::make_integer_sequence<int, 4>{}, std::make_integer_sequence<int, 0>{});
  if (level == SimdLevel::Avx512Vnni) return avx512;
  if (level == SimdLevel::Avx2) return avx2;
#else
  (void)level;
#endif
  return generic;
}

}  // namespace ethosu::kernels
