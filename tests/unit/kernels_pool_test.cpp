// Pooling kernels: MAX / AVERAGE / REDUCE_SUM, padding rules and scale sources (spec 03 §4.1, §7).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "models/kernels/pool.h"
#include "tests/unit/kernels_test_util.h"

namespace ethosu::kernels {
namespace {

using test::TestMap;

PoolParams params(PoolMode mode, TestMap& ifm, TestMap& ofm, int k, int stride, int pad_tl, int pad_br) {
  PoolParams p;
  p.mode = mode;
  p.ifm = ifm.view(), p.ifm_depth = ifm.c;
  p.ofm = ofm.view(), p.ofm_width = ofm.w, p.ofm_height = ofm.h, p.ofm_depth = ofm.c;
  p.kernel.width = p.kernel.height = k;
  p.kernel.stride_x = p.kernel.stride_y = stride;
  p.kernel.pad_left = p.kernel.pad_top = pad_tl;
  p.kernel.pad_right = p.kernel.pad_bottom = pad_br;
  p.output.ofm_type = ofm.layout.type;
  p.output.per_channel = true;
  p.output.activation_min = static_cast<int32_t>(std::max<int64_t>(type_min(ofm.layout.type), -32768));
  p.output.activation_max = static_cast<int32_t>(std::min<int64_t>(type_max(ofm.layout.type), 32767));
  return p;
}

TEST(Pool, MaxIgnoresPaddingAndPassesThroughUnscaled) {
  // All values negative: a padding value of 0 (or the zero point) would win if it were counted.
  TestMap ifm(3, 3, 2, DataType::Int8, Layout::NHCWB16), ofm(3, 3, 2, DataType::Int8, Layout::NHWC);
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) ifm.set(x, y, 0, -100 + x + 3 * y), ifm.set(x, y, 1, -50 - x - 3 * y);
  PoolParams p = params(PoolMode::Max, ifm, ofm, 3, 1, 1, 1);
  p.ifm_zero_point = -10;
  p.output.ofm_zero_point = -10;
  p.output.multiplier = 12345, p.output.shift = 3;  // ignored in per-channel mode
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), -100 + 1 + 3);  // max of (0..1, 0..1)
  EXPECT_EQ(ofm.get(2, 2, 0), -92);
  EXPECT_EQ(ofm.get(1, 1, 1), -50);
  EXPECT_EQ(ofm.get(2, 0, 1), -51);
}

TEST(Pool, AverageReciprocalIsVelasPoolingScale) {
  // k = bit length of taps - 1; multiplier (2^(31+k) + 2^k) / taps, shift 31 + k.
  EXPECT_EQ(average_reciprocal(1).multiplier, 2147483649u);  // 2^31 + 1
  EXPECT_EQ(average_reciprocal(1).shift, 31);
  EXPECT_EQ(average_reciprocal(4).multiplier, 2147483649u);  // (2^33 + 4) / 4
  EXPECT_EQ(average_reciprocal(4).shift, 33);
  EXPECT_EQ(average_reciprocal(6).multiplier, 2863311532u);  // (2^34 + 8) / 6
  EXPECT_EQ(average_reciprocal(6).shift, 34);
  EXPECT_EQ(average_reciprocal(9).multiplier, 3817748709u);  // (2^35 + 16) / 9
  EXPECT_EQ(average_reciprocal(9).shift, 35);
}

// The exact quotient rounded half away from zero, or toward zero.
int64_t divide_away(int64_t x, int64_t n) { return x >= 0 ? (x + n / 2) / n : -((-x + n / 2) / n); }
int64_t divide_toward_zero(int64_t x, int64_t n) { return x >= 0 ? x / n : -(-x / n); }

TEST(Pool, AverageReciprocalRoundsTheQuotientAsTfliteDoes) {
  // DBL and NATURAL give TFLite's rounding (half away from zero), TRUNCATE the quotient toward zero, for
  // every window of up to 8x8 taps and every sum a 16-bit IFM window of that size can reach in practice.
  for (int taps = 1; taps <= 64; ++taps) {
    const Reciprocal r = average_reciprocal(taps);
    for (int64_t x = -(1 << 17); x <= (1 << 17); ++x) {
      ASSERT_EQ(rounded_scale(x, r.multiplier, r.shift, RoundMode::Dbl), divide_away(x, taps)) << x << "/" << taps;
      ASSERT_EQ(rounded_scale(x, r.multiplier, r.shift, RoundMode::Natural), divide_away(x, taps)) << x << "/" << taps;
      ASSERT_EQ(rounded_scale(x, r.multiplier, r.shift, RoundMode::Truncate), divide_toward_zero(x, taps))
          << x << "/" << taps;
    }
  }
}

TEST(Pool, PaddedAverageDividesByTheTapsInsideTheIfmInEveryScaleAndRoundMode) {
  TestMap ifm(2, 2, 1, DataType::Int8, Layout::NHWC), ofm(2, 2, 1, DataType::Int8, Layout::NHWC);
  ifm.set(0, 0, 0, -1), ifm.set(1, 0, 0, -2), ifm.set(0, 1, 0, -1), ifm.set(1, 1, 0, -2);
  // Vela 3.10: SAME 3x3 on 2x2 in per-channel mode, no OFM_SCALE programmed: 4 taps inside everywhere.
  PoolParams p = params(PoolMode::Average, ifm, ofm, 3, 1, 1, 1);
  p.output.multiplier = 12345, p.output.shift = 3;  // stale OFM_SCALE, not used
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), -2);  // -6 / 4 = -1.5 -> -2 (half away from zero)
  p.output.round_mode = RoundMode::Natural;
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), -2);  // also away from zero: the reciprocal lies just above 1/4
  p.output.round_mode = RoundMode::Truncate;
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), -1);
  // Vela 5 (Regor): the same in global mode with a unit OFM_SCALE.
  p.output.per_channel = false, p.output.multiplier = 1, p.output.shift = 0, p.output.round_mode = RoundMode::Dbl;
  pool(p);
  EXPECT_EQ(ofm.get(1, 1, 0), -2);
  ifm.set(0, 0, 0, 1), ifm.set(1, 0, 0, 2), ifm.set(0, 1, 0, 1), ifm.set(1, 1, 0, 2);
  pool(p);
  EXPECT_EQ(ofm.get(1, 1, 0), 2);  // 1.5 -> 2
  // 2x2 s1 SAME (pad right/bottom only): corner (1,1) has one tap inside, the edges two.
  TestMap ofm2(2, 2, 1, DataType::Int8, Layout::NHWC);
  PoolParams q = params(PoolMode::Average, ifm, ofm2, 2, 1, 0, 1);
  q.output.per_channel = false, q.output.multiplier = 1, q.output.shift = 0;
  pool(q);
  EXPECT_EQ(ofm2.get(0, 0, 0), 2);  // 6 / 4 = 1.5 -> 2
  EXPECT_EQ(ofm2.get(1, 0, 0), 2);  // 4 / 2
  EXPECT_EQ(ofm2.get(1, 1, 0), 2);  // 2 / 1
  EXPECT_EQ(ofm2.get(0, 1, 0), 2);  // 3 / 2 = 1.5 -> 2
  q.output.round_mode = RoundMode::Truncate;
  pool(q);
  EXPECT_EQ(ofm2.get(0, 0, 0), 1);
  EXPECT_EQ(ofm2.get(0, 1, 0), 1);
}

TEST(Pool, RegorBilinearResizeIsAPaddedAverageOfTheNearestUpscaledIfm) {
  // Regor's 2x RESIZE_BILINEAR (align_corners false): NEAREST upscale, 2x2 AVERAGE, stride 1, padding
  // bottom/right 1, global mode with OFM_SCALE 1, DBL rounding. IFM 2x1 (w x h) -> OFM 4x2.
  TestMap ifm(2, 1, 1, DataType::Int8, Layout::NHWC), ofm(4, 2, 1, DataType::Int8, Layout::NHWC);
  ifm.set(0, 0, 0, 10), ifm.set(1, 0, 0, -5);
  PoolParams p = params(PoolMode::Average, ifm, ofm, 2, 1, 0, 1);
  p.kernel.upscale = Upscale::Nearest;
  p.output.per_channel = false, p.output.multiplier = 1, p.output.shift = 0;
  pool(p);
  // Upscaled row: 10 10 -5 -5. Row 0 windows cover upscaled rows 0 and 1 (both row 0 of the IFM).
  EXPECT_EQ(ofm.get(0, 0, 0), 10);  // 40 / 4
  EXPECT_EQ(ofm.get(1, 0, 0), 3);   // (10 - 5) * 2 / 4 = 2.5 -> 3
  EXPECT_EQ(ofm.get(2, 0, 0), -5);  // -20 / 4
  EXPECT_EQ(ofm.get(3, 0, 0), -5);  // right edge: -10 / 2
  EXPECT_EQ(ofm.get(1, 1, 0), 3);   // bottom edge: 5 / 2 = 2.5 -> 3
  ifm.set(0, 0, 0, -10), ifm.set(1, 0, 0, 5);
  pool(p);
  EXPECT_EQ(ofm.get(1, 0, 0), -3);  // -2.5 -> -3
}

TEST(Pool, AverageGlobalScaleUsesOfmScale) {
  // 2x2 VALID, sum scaled by M / 2^s = 1/4 with rounding mode NATURAL and DBL (ties differ in sign).
  TestMap ifm(2, 2, 1, DataType::UInt8, Layout::NHWC), ofm(1, 1, 1, DataType::UInt8, Layout::NHWC);
  for (int i = 0; i < 4; ++i) ifm.set(i % 2, i / 2, 0, 10 + i);  // minus zp 12: -2, -1, 0, 1 -> -2
  PoolParams p = params(PoolMode::Average, ifm, ofm, 2, 2, 0, 0);
  p.ifm_zero_point = 12;
  p.output.per_channel = false;
  p.output.multiplier = 1u << 30, p.output.shift = 32;
  p.output.ofm_zero_point = 100;
  p.output.round_mode = RoundMode::Natural;
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), 100 + 0);  // -0.5 -> 0 (half up)
  p.output.round_mode = RoundMode::Truncate;
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), 100 + 0);
  p.ifm_zero_point = 14;  // sum -10 -> -2.5
  p.output.round_mode = RoundMode::Natural;
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), 100 - 2);
  p.output.round_mode = RoundMode::Dbl;  // s > 31: r = 2^31 - 2^30 for negatives -> -3
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), 100 - 3);
}

TEST(Pool, ReduceSumOverWindowAndChannelsWithInt32InputDropsMultiplier) {
  // Softmax-style: 1x1 kernel, int32 IFM 1x2x3 -> int32 OFM 1x2x1; OFM_SCALE (2^30, 1): only the
  // shift applies (sum / 2, rounded).
  TestMap ifm(1, 2, 3, DataType::Int32, Layout::NHWC), ofm(1, 2, 1, DataType::Int32, Layout::NHWC);
  const int32_t v[2][3] = {{1000000000, 1000000000, 1000000001}, {-5, 2, 0}};
  for (int y = 0; y < 2; ++y)
    for (int c = 0; c < 3; ++c) ifm.set(0, y, c, v[y][c]);
  PoolParams p = params(PoolMode::ReduceSum, ifm, ofm, 1, 1, 0, 0);
  p.ifm_depth = 3;
  p.output.per_channel = false;
  p.output.multiplier = 1u << 30, p.output.shift = 1;
  p.output.ofm_zero_point = 9;  // ignored: 32-bit OFM
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), 1500000001);  // 3000000001 / 2 = 1500000000.5 -> up; no int32 wrap
  EXPECT_EQ(ofm.get(0, 1, 0), -1);           // -3 / 2 = -1.5 -> -1 (DBL, s <= 31: half up)
}

TEST(Pool, Int16SigmoidOnAverage1x1) {
  // Vela's int16 logistic: AVERAGE 1x1 with global scale 1.5 (0x6000 >> 14), SIGMOID, MIN 0.
  TestMap ifm(2, 1, 1, DataType::Int16, Layout::NHWC), ofm(2, 1, 1, DataType::Int16, Layout::NHWC);
  ifm.set(0, 0, 0, 8192), ifm.set(1, 0, 0, -32768);
  PoolParams p = params(PoolMode::Average, ifm, ofm, 1, 1, 0, 0);
  p.output.per_channel = false;
  p.output.multiplier = 0x6000, p.output.shift = 14;
  p.output.round_mode = RoundMode::Natural;
  p.output.function = ActivationFunction::Sigmoid;
  p.output.activation_min = 0;
  pool(p);
  EXPECT_EQ(ofm.get(0, 0, 0), 23955);  // 12288 = 1.0 -> sigmoid(1)
  EXPECT_EQ(ofm.get(1, 0, 0), 589);    // -49152 = -4.0 -> 32768 * 0.017986
}

// Random windows (kernel, stride and padding per axis; up to max_k taps a side) and blocks against the definition.
void check_random_pools(unsigned seed, int iterations, int max_k) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int it = 0; it < iterations; ++it) {
    const PoolMode mode = pick(0, 1) ? PoolMode::Max : PoolMode::Average;
    const int kw = pick(1, max_k), kh = max_k <= 4 ? kw : pick(1, max_k);
    const int sx = pick(1, 3), sy = max_k <= 4 ? sx : pick(1, 3);
    const int ow = pick(1, 6), oh = pick(1, 6), c = pick(1, 20);
    const int pl = pick(0, kw - 1), pr = pick(0, kw - 1 - pl), pt = pick(0, kh - 1), pb = pick(0, kh - 1 - pt);
    const int pad_t = max_k <= 4 ? pl : pt, pad_b = max_k <= 4 ? pr : pb;
    const int up_w = (ow - 1) * sx + kw - pl - pr, up_h = (oh - 1) * sy + kh - pad_t - pad_b;
    if (up_w < 1 || up_h < 1) continue;
    const DataType ifm_type = pick(0, 1) ? DataType::Int8 : DataType::UInt8;
    const DataType ofm_type = pick(0, 1) ? DataType::Int8 : DataType::UInt8;
    TestMap ifm(up_w, up_h, c, ifm_type, pick(0, 1) ? Layout::NHCWB16 : Layout::NHWC, pick(0, 3) == 0);
    ifm.randomize(rng);
    TestMap ofm(ow, oh, c, ofm_type, pick(0, 1) ? Layout::NHCWB16 : Layout::NHWC);
    PoolParams p = params(mode, ifm, ofm, kw, sx, pl, pr);
    p.kernel.height = kh, p.kernel.stride_y = sy, p.kernel.pad_top = pad_t, p.kernel.pad_bottom = pad_b;
    p.ifm_zero_point = pick(-20, 20);
    p.output.ofm_zero_point = pick(-20, 20);
    p.output.round_mode = static_cast<RoundMode>(pick(0, 2));
    const bool padded_average = mode == PoolMode::Average && (pl || pr || pad_t || pad_b);
    // Only the combinations the hardware is known to run (isa::unknown_behaviour refuses the others).
    p.output.per_channel = (padded_average || mode == PoolMode::Max) && pick(0, 1);
    p.output.multiplier = static_cast<uint32_t>(pick(1, 1 << 30)), p.output.shift = static_cast<uint8_t>(pick(0, 40));
    if (padded_average && !p.output.per_channel) p.output.multiplier = 1, p.output.shift = 0;
    TestMap want = ofm;
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int ch = 0; ch < c; ++ch) {
          int64_t acc = mode == PoolMode::Max ? INT64_MIN : 0, n = 0;
          for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx) {
              bool inside = false;
              const int64_t v = test::upscaled_value(ifm, Upscale::None, up_w, up_h, ox * sx - pl + kx,
                                                     oy * sy - pad_t + ky, ch, p.ifm_zero_point, inside);
              if (!inside) continue;
              ++n;
              acc = mode == PoolMode::Max ? std::max(acc, v) : acc + v;
            }
          int64_t x = acc;
          if (padded_average)
            x = p.output.round_mode == RoundMode::Truncate ? divide_toward_zero(acc, n) : divide_away(acc, n);
          else if (!p.output.per_channel)
            x = rounded_scale(acc, p.output.multiplier, p.output.shift, p.output.round_mode);
          want.set(ox, oy, ch, finish(p.output, x));
        }
    KernelScratch scratch;
    const int bx = pick(1, ow), by = pick(1, oh), bc = pick(1, c);
    for (int y0 = 0; y0 < oh; y0 += by)
      for (int x0 = 0; x0 < ow; x0 += bx)
        for (int c0 = 0; c0 < c; c0 += bc)
          pool_tile(p, OfmTile{x0, std::min(ow, x0 + bx), y0, std::min(oh, y0 + by), c0, std::min(c, c0 + bc)}, scratch);
    ASSERT_EQ(ofm.bytes, want.bytes) << "iteration " << it << ": " << kw << "x" << kh << " window, stride " << sx
                                     << "x" << sy;
  }
}

TEST(PoolRandom, MatchesDirectReference) { check_random_pools(7, 200, 4); }

// Windows of up to 13x13 (as a spatial pyramid pool's), rectangular, with a stride per axis: most go through the
// separate row and column passes.
TEST(PoolRandom, LargeAndRectangularWindowsMatchDirectReference) { check_random_pools(11, 300, 13); }

}  // namespace
}  // namespace ethosu::kernels

namespace ethosu::kernels {
namespace {

// 1x1 windows between 8-bit maps (strided, nearest-upscaled, tiled, either layout, identity or requantising scale,
// per-channel mode without scale) run as a table lookup or a copy: checked against the definition, and the
// bytes around the OFM stay untouched.
TEST(Pool, PointwiseWindowsEqualTheDefinition) {
  std::mt19937 rng(5);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  for (int round = 0; round < 300; ++round) {
    const DataType ti = pick(2) ? DataType::Int8 : DataType::UInt8, to = pick(2) ? DataType::Int8 : DataType::UInt8;
    const int w = 1 + pick(9), h = 1 + pick(4), c = 1 + pick(40), stride = 1 + pick(2);
    const bool nearest = pick(3) == 0;
    const int iw = nearest ? (w * stride + 1) / 2 : (w - 1) * stride + 1, ih = nearest ? (h * stride + 1) / 2 : (h - 1) * stride + 1;
    TestMap ifm(iw, ih, c, ti, pick(2) ? Layout::NHWC : Layout::NHCWB16, pick(3) == 0),
        ofm(w, h, c, to, pick(2) ? Layout::NHWC : Layout::NHCWB16, pick(3) == 0);
    ifm.randomize(rng);
    PoolParams p = params(pick(2) ? PoolMode::Max : PoolMode::Average, ifm, ofm, 1, stride, 0, 0);
    p.kernel.upscale = nearest ? Upscale::Nearest : Upscale::None;
    p.ifm_zero_point = ti == DataType::Int8 ? -128 : 0;
    OutputStage& os = p.output;
    os.per_channel = pick(4) == 0;
    os.ofm_zero_point = pick(2) ? p.ifm_zero_point + (to == ti ? 0 : (to == DataType::UInt8 ? 128 : -128)) : pick(21) - 10;
    if (pick(2)) {
      os.multiplier = 0x80000001u, os.shift = 31;  // identity: Vela's concatenations and resizes
    } else {
      os.multiplier = static_cast<uint32_t>(rng() | 0x40000000u), os.shift = static_cast<uint8_t>(30 + pick(8));
    }
    const FastFinish fin(os);
    TestMap want = ofm;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int ch = 0; ch < c; ++ch) {
          const int sx = nearest ? (x * stride) >> 1 : x * stride, sy = nearest ? (y * stride) >> 1 : y * stride;
          const int64_t v = int64_t{ifm.get(sx, sy, ch)} - p.ifm_zero_point;
          want.set(x, y, ch, fin(os.per_channel ? v : scale(os, v, os.multiplier, os.shift, false)));
        }
    pool(p);
    ASSERT_EQ(ofm.bytes, want.bytes) << "round " << round;
  }
}

}  // namespace
}  // namespace ethosu::kernels
