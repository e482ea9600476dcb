// The output stage's SIMD requantisation (requantize_tile, requantize_store_8bit with TileScales' constants) on
// every Highway target of this host, against rounded_scale(): the 32-bit path with and without its wrap-around
// check, rounding by sign and not, tails of every length, int8/uint8 in NHWC and NHCWB16, and the 64-bit path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "models/kernels/simd_loops.h"
#include "models/kernels/tile_scales.h"

namespace ethosu::kernels {
namespace {

struct Tile {
  Tile(int channel_count, int row_count, RoundMode round = RoundMode::Dbl)
      : rows(row_count), channels(channel_count), mode(round) {}
  int rows, channels;
  int offset = 0;  // the tile's first channel within the TileScales range (even)
  bool is_signed = true, nhcwb16 = false, sums_fit = false;
  RoundMode mode;
  int32_t zp = 0, lo = -128, hi = 127;
};

std::string describe(const Tile& t, int64_t target) {
  return "target " + std::string(hwy::TargetName(target)) + " rows " + std::to_string(t.rows) + " channels " +
         std::to_string(t.channels) + " offset " + std::to_string(t.offset) + (t.is_signed ? " int8" : " uint8") +
         (t.nhcwb16 ? " NHCWB16" : " NHWC") + (t.sums_fit ? " sums fit" : " checked") + " round " +
         std::to_string(static_cast<int>(t.mode)) + " zp " + std::to_string(t.zp);
}

// Channels for the 32-bit path (bias within int32, multiplier < 2^31, 32 <= shift <= 61), or, with `wide`, some
// that need the 64-bit one.
std::vector<ScaleBias> random_channels(std::mt19937& rng, int count, int64_t max_bias, bool wide) {
  std::vector<ScaleBias> sb(static_cast<size_t>(count));
  for (auto& e : sb) {
    e.bias = std::uniform_int_distribution<int64_t>(-max_bias, max_bias)(rng);
    e.multiplier = std::uniform_int_distribution<uint32_t>(1u << 28, wide ? 0xFFFFFFFFu : 0x7FFFFFFFu)(rng);
    e.shift = static_cast<uint8_t>(std::uniform_int_distribution<int>(wide ? 20 : 32, 47)(rng));
  }
  // The extremes of the range the 32-bit path accepts; with `wide`, one channel beyond it.
  sb[0].shift = 32;
  if (wide) sb[0].multiplier = 0xFFFFFFFFu;
  if (count > 1) sb[1].shift = wide ? 61 : 47, sb[1].multiplier = 0x7FFFFFFFu;
  return sb;
}

OutputStage stage(const std::vector<ScaleBias>& sb, RoundMode mode) {
  OutputStage os;
  os.channels = sb.data();
  os.round_mode = mode;
  return os;
}

int32_t expected(const std::vector<ScaleBias>& sb, const Tile& t, int c, int32_t sum) {
  const ScaleBias& e = sb[static_cast<size_t>(t.offset + c)];
  // The accumulator saturates to int32 (the vector paths refuse such tiles instead).
  const int64_t x = std::min<int64_t>(std::max<int64_t>(e.bias + sum, INT32_MIN), INT32_MAX);
  const int64_t v = rounded_scale(x, e.multiplier, e.shift, t.mode) + t.zp;
  return static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(v, t.lo), t.hi));
}

// Sums of rows of round_up_lanes(channels), the lanes past `channels` filled with `pad`.
std::vector<int32_t> random_sums(std::mt19937& rng, const Tile& t, int32_t bound, int32_t pad) {
  const auto stride = round_up_lanes(static_cast<size_t>(t.channels));
  std::vector<int32_t> sums(static_cast<size_t>(t.rows) * stride, pad);
  std::uniform_int_distribution<int32_t> d(-bound, bound);
  for (int i = 0; i < t.rows; ++i)
    for (int c = 0; c < t.channels; ++c) sums[i * stride + c] = c % 7 == 3 ? (c % 2 ? bound : -bound) : d(rng);
  return sums;
}

// requantize_store_8bit() of a tile into a map of sentinel bytes: every element as rounded_scale() gives it and no
// other byte written. Returns its result.
bool check_bytes(const std::vector<ScaleBias>& sb, const Tile& t, const std::vector<int32_t>& sums, int64_t target,
                 bool expect_fast = true) {
  std::vector<int64_t> storage;
  const int scales_end = std::min<int>(static_cast<int>(sb.size()), t.offset + t.channels + 5);
  const TileScales scales(stage(sb, t.mode), 0, scales_end, INT32_MIN, INT32_MAX, t.zp, t.lo, t.hi, storage);
  Requantize32 r32;
  RequantizeParams r = scales.at(static_cast<size_t>(t.offset), r32);
  r.sums_fit = t.sums_fit;
  EXPECT_EQ(r.fast != nullptr, expect_fast) << describe(t, target);
  // NHWC: rows of 3 spare bytes apart; NHCWB16: bricks of rows of 16, a spare row between bricks.
  const ptrdiff_t row_stride = t.nhcwb16 ? 16 : t.channels + 3;
  const ptrdiff_t brick_stride = t.nhcwb16 ? 16 * (t.rows + 1) : 16;
  const int bricks = (t.channels + 15) / 16;
  std::vector<uint8_t> out(static_cast<size_t>(t.nhcwb16 ? bricks * brick_stride : t.rows * row_stride) + 32, 0xA5);
  std::vector<uint8_t> want = out;
  const auto stride = static_cast<ptrdiff_t>(round_up_lanes(static_cast<size_t>(t.channels)));
  for (int i = 0; i < t.rows; ++i)
    for (int c = 0; c < t.channels; ++c)
      want[static_cast<size_t>(i * row_stride + (c / 16) * brick_stride + c % 16)] =
          static_cast<uint8_t>(expected(sb, t, c, sums[static_cast<size_t>(i * stride + c)]));
  const bool ok = requantize_store_8bit(sums.data(), stride, t.rows, t.channels, r,
                                        ByteElements{out.data(), row_stride, brick_stride, t.is_signed});
  if (ok) {
    EXPECT_EQ(out, want) << describe(t, target);
  }
  return ok;
}

// requantize_tile() of a tile into rows of int32: every value as rounded_scale() gives it.
void check_int32(const std::vector<ScaleBias>& sb, const Tile& t, const std::vector<int32_t>& sums, int64_t target,
                 bool expect_fast) {
  std::vector<int64_t> storage;
  const TileScales scales(stage(sb, t.mode), 0, t.channels, INT32_MIN, INT32_MAX, t.zp, t.lo, t.hi, storage);
  Requantize32 r32;
  RequantizeParams r = scales.at(0, r32);
  r.sums_fit = t.sums_fit;
  EXPECT_EQ(r.fast != nullptr, expect_fast) << describe(t, target);
  const auto stride = static_cast<ptrdiff_t>(round_up_lanes(static_cast<size_t>(t.channels)));
  std::vector<int32_t> out(sums.size(), 0x5A5A5A5A);
  ASSERT_TRUE(requantize_tile(sums.data(), stride, t.rows, t.channels, r, out.data(), stride)) << describe(t, target);
  for (int i = 0; i < t.rows; ++i)
    for (int c = 0; c < t.channels; ++c)
      ASSERT_EQ(out[static_cast<size_t>(i * stride + c)], expected(sb, t, c, sums[static_cast<size_t>(i * stride + c)]))
          << describe(t, target) << " row " << i << " channel " << c;
}

class Requantize : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { select_simd_target(GetParam()); }
  void TearDown() override { select_simd_target(0); }
};

TEST_P(Requantize, BytesOfEveryTailLayoutSignednessAndRoundMode) {
  std::mt19937 rng(17);
  for (int channels = 1; channels <= 40; ++channels)
    for (int variant = 0; variant < 12; ++variant) {
      Tile t(channels, 1 + variant % 5, static_cast<RoundMode>(variant % 3));
      t.offset = 2 * (variant % 3);
      t.is_signed = variant % 2 == 0;
      t.nhcwb16 = (variant / 2) % 2 == 1;
      t.sums_fit = (variant / 4) % 2 == 1;
      t.zp = t.is_signed ? -5 : 9;
      t.lo = t.is_signed ? (variant % 5 == 0 ? -128 : -100) : (variant % 5 == 0 ? 0 : 9);
      t.hi = t.is_signed ? (variant % 5 == 0 ? 127 : 90) : (variant % 5 == 0 ? 255 : 200);
      const std::vector<ScaleBias> sb = random_channels(rng, t.offset + channels + 8, 1 << 24, false);
      // Sums as large as they may be when the caller says they fit.
      const std::vector<int32_t> sums = random_sums(rng, t, INT32_MAX - (1 << 24), 0);
      EXPECT_TRUE(check_bytes(sb, t, sums, GetParam())) << describe(t, GetParam());
    }
}

TEST_P(Requantize, CheckedPathRefusesWrapAroundOnlyInUsedChannels) {
  std::mt19937 rng(5);
  for (int channels : {1, 7, 8, 9, 15, 16, 17, 20, 31, 32, 33}) {
    const Tile t(channels, 3);
    std::vector<ScaleBias> sb = random_channels(rng, channels + 8, 1000, false);
    for (auto& e : sb) e.bias = 1000;
    // Lanes past the tile hold sums that would wrap with their channels' bias: they must not count.
    std::vector<int32_t> sums = random_sums(rng, t, 1 << 20, INT32_MAX);
    EXPECT_TRUE(check_bytes(sb, t, sums, GetParam())) << describe(t, GetParam());
    // One used element that wraps: positive bias + INT32_MAX, then negative bias + INT32_MIN. The scalar target
    // computes in int64 and saturates: it stores the exact values instead.
    const bool refuses = GetParam() != HWY_SCALAR;
    sums[sums.size() - round_up_lanes(static_cast<size_t>(channels)) + static_cast<size_t>(channels) - 1] = INT32_MAX;
    EXPECT_EQ(check_bytes(sb, t, sums, GetParam()), !refuses) << describe(t, GetParam());
    for (auto& e : sb) e.bias = -1000;
    sums[sums.size() - round_up_lanes(static_cast<size_t>(channels)) + static_cast<size_t>(channels) - 1] = INT32_MIN;
    EXPECT_EQ(check_bytes(sb, t, sums, GetParam()), !refuses) << describe(t, GetParam());
  }
}

TEST_P(Requantize, Int32RowsAndTheSixtyFourBitPath) {
  std::mt19937 rng(23);
  for (int channels = 1; channels <= 35; ++channels)
    for (int variant = 0; variant < 6; ++variant) {
      Tile t(channels, 1 + variant % 4, static_cast<RoundMode>(variant % 3));
      t.zp = 1000;
      t.lo = -30000, t.hi = variant % 2 ? 30000 : INT32_MAX;
      t.sums_fit = variant >= 3;
      const bool wide = variant == 2 || variant == 5;
      const std::vector<ScaleBias> sb = random_channels(rng, channels + 8, 1 << 24, wide);
      check_int32(sb, t, random_sums(rng, t, INT32_MAX - (1 << 24), 0), GetParam(), !wide);
    }
}

TEST_P(Requantize, ZeroPointFoldsIntoTheRoundingOnlyWhereItFits) {
  // The 32-bit path adds zp * 2^shift to the rounding addend: with shift 45 only while |zp| <= 2^16.
  std::mt19937 rng(31);
  for (int32_t zp : {65536, -65536, 65537, -65537}) {
    Tile t(19, 2);
    t.zp = zp, t.lo = INT32_MIN, t.hi = INT32_MAX;
    std::vector<ScaleBias> sb = random_channels(rng, t.channels + 8, 1 << 24, false);
    for (auto& e : sb) e.shift = 45;
    check_int32(sb, t, random_sums(rng, t, INT32_MAX - (1 << 24), 0), GetParam(), zp == 65536 || zp == -65536);
  }
}

TEST_P(Requantize, SixtyFourBitPathStoresBytes) {
  std::mt19937 rng(29);
  for (int channels : {1, 5, 8, 13, 16, 21, 40}) {
    Tile t(channels, 2);
    t.is_signed = channels % 2 == 1;
    t.lo = t.is_signed ? -128 : 0, t.hi = t.is_signed ? 127 : 255;
    const std::vector<ScaleBias> sb = random_channels(rng, channels + 8, 1 << 24, true);
    const std::vector<int32_t> sums = random_sums(rng, t, 1 << 24, 0);
    EXPECT_TRUE(check_bytes(sb, t, sums, GetParam(), false)) << describe(t, GetParam());
  }
}

INSTANTIATE_TEST_SUITE_P(EveryTarget, Requantize, ::testing::ValuesIn(available_simd_targets()),
                         [](const ::testing::TestParamInfo<int64_t>& target) { return hwy::TargetName(target.param); });

}  // namespace
}  // namespace ethosu::kernels
