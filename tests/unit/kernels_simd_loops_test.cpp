// The SIMD loops of simd_loops.h that the conv and depthwise kernels run (widen_8bit, depthwise_sums), on every
// Highway target of this host, against plain loops over the same contract: shapes around each target's vector
// length, and guard values around every group that must stay untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/kernels/microkernel.h"
#include "models/kernels/simd_loops.h"
#include "sim/error.h"

namespace ethosu::kernels {
namespace {

constexpr int16_t kGuard = 0x5A5A;

// Selects each target in turn; the best again afterwards.
template <typename Body>
void on_every_target(const Body& body) {
  for (int64_t target : available_simd_targets()) {
    select_simd_target(target);
    SCOPED_TRACE(simd_target_name());
    body();
  }
  select_simd_target(0);
}

TEST(OffsetBytes, MatchesPlainLoopForEveryLengthAndStride) {
  std::mt19937 rng(12);
  on_every_target([&] {
    // Lengths below, at and past one vector of every target (1 to 64 bytes), as the 8-bit gather calls them.
    for (int length : {1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 130}) {
      for (uint8_t addend : {uint8_t{0}, uint8_t{128}, uint8_t{37}}) {
        const int groups = 5;
        const ptrdiff_t src_stride = length + 3, dst_stride = length + 5;
        std::vector<uint8_t> src(static_cast<size_t>(1 + (groups - 1) * src_stride + length));
        for (auto& b : src) b = static_cast<uint8_t>(rng());
        const uint8_t guard = 0xA5;
        std::vector<uint8_t> dst(static_cast<size_t>(groups * dst_stride + 8), guard);
        offset_bytes(src.data() + 1, src_stride, addend, dst.data() + 2, dst_stride, groups, length);
        for (size_t k = 0; k < dst.size(); ++k) {
          const ptrdiff_t rel = static_cast<ptrdiff_t>(k) - 2;
          const bool inside = rel >= 0 && rel % dst_stride < length && rel / dst_stride < groups;
          const uint8_t want =
              inside ? static_cast<uint8_t>(src[static_cast<size_t>(1 + rel / dst_stride * src_stride + rel % dst_stride)] +
                                            addend)
                     : guard;
          ASSERT_EQ(dst[k], want) << "length " << length << " addend " << int{addend} << " byte " << k;
        }
      }
    }
  });
}

TEST(LookupBytes, MatchesTheTableForEveryByteAndLength) {
  std::mt19937 rng(14);
  std::vector<uint8_t> table(256);
  for (auto& b : table) b = static_cast<uint8_t>(rng());
  on_every_target([&] {
    // Every byte value, and lengths below, at and past one vector of every target, misaligned; in place too.
    for (size_t length : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{31}, size_t{33}, size_t{64},
                          size_t{65}, size_t{256}, size_t{1000}}) {
      std::vector<uint8_t> src(length + 1);
      for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(length >= 256 ? i : rng());
      const uint8_t guard = 0x5A;
      std::vector<uint8_t> dst(length + 3, guard);
      lookup_bytes(table.data(), src.data() + 1, dst.data() + 1, length);
      for (size_t i = 0; i < dst.size(); ++i)
        ASSERT_EQ(dst[i], i >= 1 && i <= length ? table[src[i]] : guard) << "length " << length << " byte " << i;
      std::vector<uint8_t> in_place(src.begin() + 1, src.end());
      lookup_bytes(table.data(), in_place.data(), in_place.data(), length);
      for (size_t i = 0; i < length; ++i) ASSERT_EQ(in_place[i], table[src[i + 1]]);
    }
  });
}

TEST(ReduceTaps, MatchesPlainLoopForEveryChannelCountAndTapCount) {
  std::mt19937 rng(17);
  on_every_target([&] {
    // Channel counts below, at and past one vector of every target (1 to 16 int32 lanes), taps of 1 to 13 rows.
    for (int channels : {1, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 64}) {
      for (int taps : {1, 2, 5, 13}) {
        for (bool max : {false, true}) {
          const ptrdiff_t step = channels + 3;
          // Exactly the values the taps span, so that a sanitizer sees any read beyond.
          std::vector<int32_t> a(static_cast<size_t>((taps - 1) * step + channels));
          for (auto& v : a) v = static_cast<int32_t>(rng() % 2000001) - 1000000;
          std::vector<int32_t> r(static_cast<size_t>(channels) + 2, kGuard), expect = r;
          for (int c = 0; c < channels; ++c) r[static_cast<size_t>(c) + 1] = expect[static_cast<size_t>(c) + 1] =
              static_cast<int32_t>(rng() % 2001) - 1000;
          for (int c = 0; c < channels; ++c)
            for (int t = 0; t < taps; ++t) {
              int32_t& e = expect[static_cast<size_t>(c) + 1];
              const int32_t v = a[static_cast<size_t>(t * step + c)];
              e = max ? std::max(e, v) : e + v;
            }
          reduce_taps(a.data(), taps, step, max, r.data() + 1, channels);
          ASSERT_EQ(r, expect) << "channels " << channels << " taps " << taps << " max " << max;
        }
      }
    }
  });
}

TEST(Widen8bit, MatchesPlainLoopForEveryLengthAndStride) {
  std::mt19937 rng(11);
  on_every_target([&] {
    // Lengths below, at and past one vector of every target (1 to 64 int16 lanes), as the gather calls them.
    for (int length : {1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 64, 65, 100}) {
      for (bool is_signed : {false, true}) {
        const int groups = 5;
        const ptrdiff_t src_stride = length + 3, dst_stride = length + 5;
        const int32_t zp = is_signed ? -37 : 129;
        // Exactly the bytes the groups span (after one leading byte), so that a sanitizer sees any read beyond.
        std::vector<uint8_t> src(static_cast<size_t>(1 + (groups - 1) * src_stride + length));
        for (auto& b : src) b = static_cast<uint8_t>(rng());
        std::vector<int16_t> dst(static_cast<size_t>(groups * dst_stride + 8), kGuard);
        widen_8bit(src.data() + 1, src_stride, is_signed, zp, dst.data() + 2, dst_stride, groups, length);
        for (int g = 0; g < groups; ++g)
          for (int i = 0; i < length; ++i) {
            const uint8_t byte = src[static_cast<size_t>(1 + g * src_stride + i)];
            const int32_t v = (is_signed ? int32_t{static_cast<int8_t>(byte)} : int32_t{byte}) - zp;
            ASSERT_EQ(dst[static_cast<size_t>(2 + g * dst_stride + i)], v)
                << "length " << length << " signed " << is_signed << " group " << g << " element " << i;
          }
        // Nothing outside the groups is written.
        for (size_t k = 0; k < dst.size(); ++k) {
          const ptrdiff_t rel = static_cast<ptrdiff_t>(k) - 2;
          if (rel >= 0 && rel % dst_stride < length && rel / dst_stride < groups) continue;
          ASSERT_EQ(dst[k], kGuard) << "length " << length << " wrote element " << k;
        }
      }
    }
  });
}

TEST(DepthwiseSums, MatchesPlainLoopForEveryPixelCountAndTapCount) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> value(-255, 255);
  on_every_target([&] {
    // Pixel counts past each multiple of the pixels that share a weight load, odd and even tap counts,
    // channel counts with and without a tail (and with 16- and 8-lane remainders under wider vectors).
    for (int pixels : {1, 2, 3, 4, 5, 7, 8, 9, 16}) {
      for (int ntaps : {1, 2, 3, 9, 25}) {
        for (int channels : {8, 16, 19, 24, 32, 40, 56, 64, 70}) {
          const ptrdiff_t pix_stride = 2 * channels + 3, w_tap_stride = channels + 1, acc_stride = channels + 6;
          std::vector<int32_t> taps(static_cast<size_t>(ntaps));
          for (int t = 0; t < ntaps; ++t) taps[static_cast<size_t>(t)] = (t % 3) * static_cast<int32_t>(pix_stride) + (t / 3) * 7;
          const size_t a_size =
              static_cast<size_t>(pixels) * pix_stride + static_cast<size_t>(*std::max_element(taps.begin(), taps.end())) + channels;
          std::vector<int16_t> a(a_size), w(static_cast<size_t>(ntaps) * w_tap_stride);
          for (auto& v : a) v = static_cast<int16_t>(value(rng));
          for (auto& v : w) v = static_cast<int16_t>(value(rng));
          std::vector<int32_t> acc(static_cast<size_t>(pixels) * acc_stride + 8, kGuard);
          depthwise_sums(a.data(), pix_stride, taps.data(), ntaps, w.data(), w_tap_stride, channels, pixels, acc.data(),
                         acc_stride);
          for (int i = 0; i < pixels; ++i) {
            for (int c = 0; c < channels; ++c) {
              int32_t sum = 0;
              for (int t = 0; t < ntaps; ++t)
                sum += int32_t{a[static_cast<size_t>(i * pix_stride + taps[static_cast<size_t>(t)] + c)]} *
                       w[static_cast<size_t>(t * w_tap_stride + c)];
              ASSERT_EQ(acc[static_cast<size_t>(i * acc_stride + c)], sum)
                  << "pixels " << pixels << " taps " << ntaps << " channels " << channels << " pixel " << i << " channel " << c;
            }
            for (ptrdiff_t c = channels; c < acc_stride; ++c)
              ASSERT_EQ(acc[static_cast<size_t>(i * acc_stride + c)], kGuard) << "pixel " << i << " wrote padding " << c;
          }
        }
      }
    }
  });
}

// limit_simd (ETHOSU_SIM_SIMD): every available target by name in any case, the micro-kernels capped with it, and an
// unknown name refused with the choices.
TEST(LimitSimd, SelectsEveryTargetByNameAndCapsTheMicroKernels) {
  ASSERT_EQ(simd_target_names().size(), available_simd_targets().size());
  const std::vector<std::string> names = simd_limit_names();
  const bool vnni = std::find(names.begin(), names.end(), "AVX2_VNNI") != names.end();
  EXPECT_EQ(vnni, host_has_avx_vnni() && std::find(names.begin(), names.end(), "AVX2") != names.end());
  EXPECT_EQ(names.size(), simd_target_names().size() + (vnni ? 1 : 0));
  for (const std::string& name : names) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    limit_simd(lower);
    // AVX2_VNNI runs Highway's AVX2 loops.
    EXPECT_EQ(std::string(simd_target_name()), name == "AVX2_VNNI" ? "AVX2" : name);
    const SimdLevel cap = name.rfind("AVX3", 0) == 0 ? SimdLevel::Avx512Vnni
                          : name == "AVX2_VNNI"       ? SimdLevel::AvxVnni
                          : name == "AVX2"            ? SimdLevel::Avx2
                                                      : SimdLevel::Generic;
    EXPECT_LE(best_simd_level(), cap) << name;
    if (name == "AVX2_VNNI") {
      EXPECT_EQ(best_simd_level(), SimdLevel::AvxVnni);
    }
  }
  select_simd_target(0);
  set_simd_level_limit(SimdLevel::Avx512Vnni);
}

TEST(LimitSimd, UnknownNameIsAnInputErrorListingTheChoices) {
  try {
    limit_simd("NOSUCH");
    FAIL() << "accepted an unknown target";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'NOSUCH'"), std::string::npos) << what;
    for (const std::string& name : simd_limit_names()) EXPECT_NE(what.find(name), std::string::npos) << what;
  }
  EXPECT_EQ(std::string(simd_target_name()), simd_target_names().front());  // unchanged
}

}  // namespace
}  // namespace ethosu::kernels
