// The micro-kernels are compiled per ISA with target attributes and chosen at run time, so the
// library stays portable (no -march=native).
#include "models/kernels/microkernel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "models/kernels/simd_loops.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define ETHOSU_KERNELS_X86 1
#endif

namespace ethosu::kernels {
namespace {

// The 4 IFM bytes of one step (an int16 pair or a uint8 quad), to broadcast.
template <typename T>
inline int32_t load_step(const T* p) {
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
// One AVX-512 VNNI body for both dot products: a step is 4 IFM bytes (an int16 pair or four uint8) broadcast against
// 64 weight bytes (16 channels x one pair or quad), so only the element types and the instruction differ.
struct Int16Pairs {
  using Ifm = int16_t;
  using Weight = int16_t;
  static __attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) inline __m512i dot(__m512i acc,
                                                                                                  __m512i b,
                                                                                                  __m512i w) {
    return _mm512_dpwssd_epi32(acc, b, w);
  }
};
struct ByteQuads {
  using Ifm = uint8_t;
  using Weight = int8_t;
  static __attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) inline __m512i dot(__m512i acc,
                                                                                                  __m512i b,
                                                                                                  __m512i w) {
    return _mm512_dpbusd_epi32(acc, b, w);
  }
};

// correction: null (the 16-bit contract), or 16 x NB values subtracted from each pixel's sums (the 8-bit one).
template <int P, int NB, class Step>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void mk_avx512_steps(
    const typename Step::Ifm* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, int nsteps,
    const typename Step::Weight* w, ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride, const int32_t* correction,
    int runs, int32_t* out) {
  constexpr int kIfmStep = 4 / sizeof(typename Step::Ifm), kWeightStep = 64 / sizeof(typename Step::Weight);
  __m512i corr[NB];
#pragma GCC unroll 2
  for (int j = 0; j < NB; ++j) corr[j] = correction ? _mm512_loadu_si512(correction + 16 * j) : _mm512_setzero_si512();
  for (int run = 0; run < runs; ++run, a += P * pix_stride, out += 32 * P) {
    __m512i acc[P][NB];
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 2
      for (int j = 0; j < NB; ++j) acc[i][j] = _mm512_setzero_si512();
    for (int t = 0; t < ntaps; ++t) {
      const typename Step::Ifm* at = a + taps[t];
      const typename Step::Weight* wt = w + t * w_tap_stride;
      for (int k = 0; k < nsteps; ++k) {
        __m512i wv[NB];
#pragma GCC unroll 2
        for (int j = 0; j < NB; ++j) wv[j] = _mm512_loadu_si512(wt + j * w_group_stride + kWeightStep * k);
#pragma GCC unroll 8
        for (int i = 0; i < P; ++i) {
          const __m512i b = _mm512_set1_epi32(load_step(at + i * pix_stride + kIfmStep * k));
#pragma GCC unroll 2
          for (int j = 0; j < NB; ++j) acc[i][j] = Step::dot(acc[i][j], b, wv[j]);
        }
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 2
      for (int j = 0; j < NB; ++j) _mm512_storeu_si512(out + 32 * i + 16 * j, _mm512_sub_epi32(acc[i][j], corr[j]));
  }
}

template <int P, int NB>
void mk_avx512(const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, int npairs, const int16_t* w,
               ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride, int runs, int32_t* out) {
  mk_avx512_steps<P, NB, Int16Pairs>(a, pix_stride, taps, ntaps, npairs, w, w_tap_stride, w_group_stride, nullptr,
                                     runs, out);
}

template <int P, int NB>
void mk8_avx512(const uint8_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, int nquads, const int8_t* w,
                ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride, const int32_t* correction, int runs, int32_t* out) {
  mk_avx512_steps<P, NB, ByteQuads>(a, pix_stride, taps, ntaps, nquads, w, w_tap_stride, w_group_stride, correction,
                                    runs, out);
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
          const __m256i b = _mm256_set1_epi32(load_step(at + i * pix_stride + 2 * k));
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

// Not one body with mk_avx2 as for AVX-512: mk_avx2 must not be compiled with AVX-VNNI enabled, where the compiler
// may turn its vpmaddwd + vpaddd into a vpdpwssd that an AVX2-only host cannot run, and a target cannot vary with a
// template argument.
template <int P, int NB>
__attribute__((target("avx2,avxvnni"))) void mk8_avxvnni(const uint8_t* a, ptrdiff_t pix_stride, const int32_t* taps,
                                                          int ntaps, int nquads, const int8_t* w,
                                                          ptrdiff_t w_tap_stride, ptrdiff_t w_group_stride,
                                                          const int32_t* correction, int runs, int32_t* out) {
  __m256i corr[NB][2];
#pragma GCC unroll 2
  for (int j = 0; j < NB; ++j) {
    corr[j][0] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(correction + 16 * j));
    corr[j][1] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(correction + 16 * j + 8));
  }
  for (int run = 0; run < runs; ++run, a += P * pix_stride, out += 32 * P) {
    __m256i acc[P][NB][2];
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 2
      for (int j = 0; j < NB; ++j) acc[i][j][0] = acc[i][j][1] = _mm256_setzero_si256();
    for (int t = 0; t < ntaps; ++t) {
      const uint8_t* at = a + taps[t];
      const int8_t* wt = w + t * w_tap_stride;
      for (int k = 0; k < nquads; ++k) {
        __m256i wv[NB][2];
#pragma GCC unroll 2
        for (int j = 0; j < NB; ++j) {
          const int8_t* wk = wt + j * w_group_stride + 64 * k;
          wv[j][0] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wk));
          wv[j][1] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wk + 32));
        }
#pragma GCC unroll 8
        for (int i = 0; i < P; ++i) {
          const __m256i b = _mm256_set1_epi32(load_step(at + i * pix_stride + 4 * k));
#pragma GCC unroll 2
          for (int j = 0; j < NB; ++j) {
            acc[i][j][0] = _mm256_dpbusd_avx_epi32(acc[i][j][0], b, wv[j][0]);
            acc[i][j][1] = _mm256_dpbusd_avx_epi32(acc[i][j][1], b, wv[j][1]);
          }
        }
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i)
#pragma GCC unroll 2
      for (int j = 0; j < NB; ++j) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * i + 16 * j),
                            _mm256_sub_epi32(acc[i][j][0], corr[j][0]));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * i + 16 * j + 8),
                            _mm256_sub_epi32(acc[i][j][1], corr[j][1]));
      }
  }
}
#endif

// P = 1..sizeof...(P1) for one group of 16 OFM channels, 1..sizeof...(P2) for two.
template <template <int, int> class K, typename Set = MicroKernelSet, int... P1, int... P2>
Set make_set(std::integer_sequence<int, P1...>, std::integer_sequence<int, P2...>) {
  Set s{};
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
template <int P, int NB>
struct Avx512Bytes {
  static constexpr MicroKernel8 fn = mk8_avx512<P, NB>;
};
template <int P, int NB>
struct AvxVnniBytes {
  static constexpr MicroKernel8 fn = mk8_avxvnni<P, NB>;
};
#endif

}  // namespace

namespace {

bool detected_avx_vnni() {
#if ETHOSU_KERNELS_X86
  // CPUID leaf 7, subleaf 1, EAX bit 4 (clang 14's __builtin_cpu_supports does not know the name); the OS saves
  // its YMM state as it does AVX2's.
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __builtin_cpu_supports("avx2") && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && ((eax >> 4) & 1);
#else
  return false;
#endif
}

}  // namespace

bool host_has_avx_vnni() {
  static const bool has = detected_avx_vnni();
  return has;
}

namespace {

SimdLevel detected_simd_level() {
#if ETHOSU_KERNELS_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"))
    return SimdLevel::Avx512Vnni;
  if (!__builtin_cpu_supports("avx2")) return SimdLevel::Generic;
  return host_has_avx_vnni() ? SimdLevel::AvxVnni : SimdLevel::Avx2;
#endif
  return SimdLevel::Generic;
}

std::atomic<SimdLevel> simd_level_limit{SimdLevel::Avx512Vnni};

}  // namespace

SimdLevel best_simd_level() {
  // ETHOSU_SIM_SIMD's cap, once, before the first answer (it throws again while the name is wrong).
  static const SimdLevel detected = (apply_simd_environment(), host_simd_level());
  return std::min(detected, simd_level_limit.load(std::memory_order_relaxed));
}

SimdLevel host_simd_level() {
  static const SimdLevel detected = detected_simd_level();
  return detected;
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
  // AVX-VNNI's 16-bit dot product (vpdpwssd) only fuses vpmaddwd's add: likely no gain on a multiplier-bound loop
  // (not measured); its 8-bit one is what the level adds.
  if (level == SimdLevel::Avx2 || level == SimdLevel::AvxVnni) return avx2;
#else
  (void)level;
#endif
  return generic;
}

const MicroKernel8Set* micro_kernels_8bit(SimdLevel level) {
  // The same shapes as the 16-bit kernels of the level. A vpdpbusd does twice the multiplies of a vpdpwssd (and four
  // times those of a vpmaddwd, with the add): measured on an AMD Zen 5 virtual machine (kernels_bench), a 3x3 conv
  // over 64 channels went from 183 to 335 G MAC/s with AVX-512 and from 85 to 174 G MAC/s with AVX-VNNI.
#if ETHOSU_KERNELS_X86
  static const MicroKernel8Set avx512 = make_set<Avx512Bytes, MicroKernel8Set>(std::make_integer_sequence<int, 6>{},
                                                                              std::make_integer_sequence<int, 6>{});
  static const MicroKernel8Set avxvnni = make_set<AvxVnniBytes, MicroKernel8Set>(
      std::make_integer_sequence<int, 4>{}, std::make_integer_sequence<int, 0>{});
  if (level == SimdLevel::Avx512Vnni) return &avx512;
  if (level == SimdLevel::AvxVnni && host_has_avx_vnni()) return &avxvnni;
#else
  (void)level;
#endif
  return nullptr;
}

}  // namespace ethosu::kernels
