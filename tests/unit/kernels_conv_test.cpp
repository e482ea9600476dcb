// Convolution, depthwise and fully-connected kernels: hand-computed cases, addressing, and a
// randomized cross-check of the fast paths (every SIMD level and Highway target of this host) against a direct
// reading of spec 03 §3.2/§3.3.
#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "models/kernels/conv.h"
#include "models/kernels/simd_loops.h"
#include "tests/unit/kernels_test_util.h"

namespace ethosu::kernels {
namespace {

using test::TestMap;

TEST(FeatureMapLayout, NhwcAndNhcwb16AddressesFollowTheSpec) {
  TestMap nhwc(5, 4, 20, DataType::Int16, Layout::NHWC, false, 100);
  // base + y*W*C*2 + x*C*2 + c*2
  EXPECT_EQ(nhwc.layout.byte_offset(3, 2, 7), 100 + 2 * 5 * 20 * 2 + 3 * 20 * 2 + 7 * 2);
  TestMap b16(5, 4, 20, DataType::Int16, Layout::NHCWB16, false, 100);
  // base + y*W*32*2 + (c/16)*16*2*W + x*16*2 + (c%16)*2
  EXPECT_EQ(b16.layout.byte_offset(3, 2, 18), 100 + 2 * 5 * 32 * 2 + 1 * 16 * 2 * 5 + 3 * 16 * 2 + 2 * 2);
  EXPECT_EQ(b16.layout.byte_offset(4, 0, 15), 100 + 4 * 32 + 30);
}

TEST(FeatureMapLayout, TileSelection) {
  FeatureMapLayout l;
  l.base = {1000, 2000, 3000, 4000};
  l.width0 = 4, l.height0 = 3, l.height1 = 2;
  l.stride_x = 1, l.stride_y = 10;
  EXPECT_EQ(l.byte_offset(3, 2, 0), 1000 + 20 + 3);  // tile 0
  EXPECT_EQ(l.byte_offset(3, 3, 0), 3000 + 0 + 3);   // tile 2: y >= height0
  EXPECT_EQ(l.byte_offset(5, 1, 0), 2000 + 10 + 1);  // tile 1: x >= width0, y < height1
  EXPECT_EQ(l.byte_offset(5, 2, 0), 4000 + 0 + 1);   // tile 3: y >= height1 (not height0)
  EXPECT_EQ(l.byte_offset(4, 7, 0), 4000 + 50);
}

OutputStage per_channel_stage(DataType t, const std::vector<ScaleBias>& sb) {
  OutputStage os;
  os.ofm_type = t;
  os.channels = sb.data();
  os.activation_min = static_cast<int32_t>(std::max<int64_t>(type_min(t), -32768));
  os.activation_max = static_cast<int32_t>(std::min<int64_t>(type_max(t), 32767));
  return os;
}

TEST(Conv, HandComputed1x1WithZeroPointsAndBias) {
  // IFM 2x1x2 int8 with zp 3; weights [[1, -2], [4, 5]]; bias [10, -7]; scale 0.5 (M 2^30, s 31).
  TestMap ifm(2, 1, 2, DataType::Int8, Layout::NHWC), ofm(2, 1, 2, DataType::Int8, Layout::NHWC);
  ifm.set(0, 0, 0, 13), ifm.set(0, 0, 1, -1), ifm.set(1, 0, 0, 3), ifm.set(1, 0, 1, 103);
  const int16_t w[] = {1, -2, 4, 5};
  const std::vector<ScaleBias> sb = {{10, 1u << 30, 31}, {-7, 1u << 30, 31}};
  ConvParams p;
  p.ifm = ifm.view(), p.ifm_zero_point = 3, p.ifm_depth = 2;
  p.ofm = ofm.view(), p.ofm_width = 2, p.ofm_height = 1, p.ofm_depth = 2;
  p.output = per_channel_stage(DataType::Int8, sb);
  p.output.ofm_zero_point = -1;
  conv(p, ConvWeights(w, 2, 1, 1, 2));
  // (0,0): a = (10, -4): oc0 = 10 + 10 + 8 = 28 -> 14 - 1 = 13; oc1 = -7 + 40 - 20 = 13 -> 6.5 -> 7 - 1 = 6
  EXPECT_EQ(ofm.get(0, 0, 0), 13);
  EXPECT_EQ(ofm.get(0, 0, 1), 6);
  // (1,0): a = (0, 100): oc0 = 10 - 200 = -190 -> -95 - 1 = -96; oc1 = -7 + 500 = 493 -> 246.5 -> 247 - 1
  EXPECT_EQ(ofm.get(1, 0, 0), -96);
  EXPECT_EQ(ofm.get(1, 0, 1), 127);  // 246 saturates
}

TEST(Depthwise, HandComputed3x3SamePaddingCountsPaddingAsZeroPoint) {
  // 3x3x1 uint8 IFM of 10 + i, zp 10: values 0..8 after the zero point; all-ones kernel, pad 1.
  TestMap ifm(3, 3, 1, DataType::UInt8, Layout::NHWC), ofm(3, 3, 1, DataType::UInt8, Layout::NHWC);
  for (int i = 0; i < 9; ++i) ifm.set(i % 3, i / 3, 0, 10 + i);
  const int16_t w[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  const std::vector<ScaleBias> sb = {{0, 1, 0}};
  ConvParams p;
  p.ifm = ifm.view(), p.ifm_zero_point = 10;
  p.ofm = ofm.view(), p.ofm_width = 3, p.ofm_height = 3, p.ofm_depth = 1;
  p.kernel.width = p.kernel.height = 3;
  p.kernel.pad_top = p.kernel.pad_left = p.kernel.pad_bottom = p.kernel.pad_right = 1;
  p.output = per_channel_stage(DataType::UInt8, sb);
  depthwise(p, ConvWeights(w, 1, 3, 3, 1));
  EXPECT_EQ(ofm.get(0, 0, 0), 0 + 1 + 3 + 4);
  EXPECT_EQ(ofm.get(1, 1, 0), 36);
  EXPECT_EQ(ofm.get(2, 2, 0), 4 + 5 + 7 + 8);
}

TEST(Conv, ZeroInsertionUpscaleForTransposeConv) {
  // 2x2 IFM, ZEROS upscale -> 4x4 upscaled space (data at even positions), 2x2 all-ones kernel,
  // stride 1, no padding: OFM 3x3 where each window holds exactly one data element.
  TestMap ifm(2, 2, 1, DataType::Int8, Layout::NHWC), ofm(3, 3, 1, DataType::Int16, Layout::NHWC);
  ifm.set(0, 0, 0, 1), ifm.set(1, 0, 0, 2), ifm.set(0, 1, 0, 3), ifm.set(1, 1, 0, 4);
  const int16_t w[4] = {1, 10, 100, 1000};  // [ky][kx]
  const std::vector<ScaleBias> sb = {{0, 1, 0}};
  ConvParams p;
  p.ifm = ifm.view(), p.ifm_depth = 1;
  p.ofm = ofm.view(), p.ofm_width = 3, p.ofm_height = 3, p.ofm_depth = 1;
  p.kernel.width = p.kernel.height = 2;
  p.kernel.upscale = Upscale::Zeros;
  p.output = per_channel_stage(DataType::Int16, sb);
  // Implied upscaled extent (3 - 1) + 2 = 4; U[0][0] = 1, U[0][2] = 2, U[2][0] = 3, U[2][2] = 4.
  conv(p, ConvWeights(w, 1, 2, 2, 1));
  const int expect[3][3] = {{1, 20, 2}, {300, 4000, 400}, {3, 40, 4}};
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) EXPECT_EQ(ofm.get(x, y, 0), expect[y][x]) << x << "," << y;
}

TEST(Conv, NearestUpscaleReplicates2x2) {
  TestMap ifm(2, 1, 1, DataType::Int8, Layout::NHWC), ofm(4, 2, 1, DataType::Int8, Layout::NHWC);
  ifm.set(0, 0, 0, 7), ifm.set(1, 0, 0, -9);
  const int16_t w[1] = {1};
  const std::vector<ScaleBias> sb = {{0, 1, 0}};
  ConvParams p;
  p.ifm = ifm.view();
  p.ofm = ofm.view(), p.ofm_width = 4, p.ofm_height = 2, p.ofm_depth = 1;
  p.kernel.upscale = Upscale::Nearest;
  p.output = per_channel_stage(DataType::Int8, sb);
  conv(p, ConvWeights(w, 1, 1, 1, 1));
  const int expect[2][4] = {{7, 7, -9, -9}, {7, 7, -9, -9}};
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 4; ++x) EXPECT_EQ(ofm.get(x, y, 0), expect[y][x]) << x << "," << y;
}

TEST(Conv, FortyBitAccumulatorAndInt32Saturation) {
  // int16 IFM 32767 times weight 255 over 512 channels: 4278059520, beyond int32.
  const int ic = 512;
  TestMap ifm(1, 1, ic, DataType::Int16, Layout::NHWC), ofm(1, 1, 2, DataType::Int32, Layout::NHWC);
  for (int c = 0; c < ic; ++c) ifm.set(0, 0, c, 32767);
  std::vector<int16_t> w(2 * ic, 255);
  const std::vector<ScaleBias> sb = {{0, 1, 0}, {-5, 1, 0}};
  ConvParams p;
  p.ifm = ifm.view(), p.ifm_depth = ic;
  p.ofm = ofm.view(), p.ofm_depth = 2;
  p.output = per_channel_stage(DataType::Int32, sb);
  p.output.ofm_zero_point = 77;  // ignored for a 32-bit OFM
  p.acc_format = AccFormat::Int40;
  ConvWeights cw(w.data(), 2, 1, 1, ic);
  conv(p, cw);
  EXPECT_EQ(ofm.get(0, 0, 0), INT32_MAX);  // the exact sum saturates only on store
  // Scale the exact 40-bit sum down by 2: proves the accumulator held all 33 bits.
  std::vector<ScaleBias> half = {{0, 1u << 30, 31}, {-5, 1u << 30, 31}};
  p.output.channels = half.data();
  conv(p, cw);
  EXPECT_EQ(ofm.get(0, 0, 0), 2139029760);
  EXPECT_EQ(ofm.get(0, 0, 1), 2139029758);  // (4278059520 - 5) / 2 rounded half up
  p.acc_format = AccFormat::Int32;
  conv(p, cw);
  EXPECT_EQ(ofm.get(0, 0, 0), 1073741824);  // accumulator saturated to 2^31 - 1 before scaling
}

// ---- randomized cross-check against a direct reading of the spec ----

struct Case {
  DataType ifm_t, ofm_t;
  Layout ifm_l, ofm_l;
  bool ifm_tiled, ofm_tiled;
  int ifm_zp;
  int ow, oh, ic, oc;
  KernelGeometry k;
  AccFormat acc;
  int weight_max;
  bool depthwise;
};

std::vector<int32_t> reference(const Case& cs, const TestMap& ifm, const std::vector<int32_t>& w,
                               const OutputStage& os) {
  const KernelGeometry& k = cs.k;
  const int up_w = implied_ifm_extent(cs.ow, k.stride_x, k.width, k.dilation_x, k.pad_left, k.pad_right);
  const int up_h = implied_ifm_extent(cs.oh, k.stride_y, k.height, k.dilation_y, k.pad_top, k.pad_bottom);
  const int ic = cs.depthwise ? 1 : cs.ic;
  std::vector<int32_t> out;
  for (int oy = 0; oy < cs.oh; ++oy)
    for (int ox = 0; ox < cs.ow; ++ox)
      for (int oc = 0; oc < cs.oc; ++oc) {
        int64_t acc = os.channels[oc].bias;
        for (int ky = 0; ky < k.height; ++ky)
          for (int kx = 0; kx < k.width; ++kx)
            for (int i = 0; i < ic; ++i) {
              bool inside = false;
              const int64_t v = test::upscaled_value(ifm, k.upscale, up_w, up_h, ox * k.stride_x - k.pad_left + kx * k.dilation_x,
                                                     oy * k.stride_y - k.pad_top + ky * k.dilation_y,
                                                     cs.depthwise ? oc : i, cs.ifm_zp, inside);
              acc += v * w[((static_cast<size_t>(oc) * k.height + ky) * k.width + kx) * ic + i];
            }
        acc = saturate_accumulator(acc, cs.acc);
        const ScaleBias& e = os.channels[oc];
        out.push_back(finish(os, rounded_scale(acc, e.multiplier, e.shift, os.round_mode)));
      }
  return out;
}

Case random_case(std::mt19937& rng, bool depthwise) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Case c{};
  const DataType types[] = {DataType::Int8, DataType::UInt8, DataType::Int8, DataType::Int16, DataType::UInt16};
  c.ifm_t = types[pick(0, 4)];
  const DataType otypes[] = {DataType::Int8, DataType::UInt8, DataType::Int16, DataType::Int32};
  c.ofm_t = otypes[pick(0, 3)];
  c.ifm_l = pick(0, 1) ? Layout::NHCWB16 : Layout::NHWC;
  c.ofm_l = pick(0, 1) ? Layout::NHCWB16 : Layout::NHWC;
  c.ifm_tiled = pick(0, 4) == 0, c.ofm_tiled = pick(0, 4) == 0;
  if (c.ifm_t == DataType::Int8) c.ifm_zp = pick(-128, 127);
  if (c.ifm_t == DataType::UInt8) c.ifm_zp = pick(0, 255);
  if (c.ifm_t == DataType::Int16) c.ifm_zp = pick(0, 3) ? 0 : pick(-300, 300);  // nonzero: exact path
  c.ow = pick(1, 9), c.oh = pick(1, 7);
  c.ic = depthwise ? 0 : pick(1, 40);
  c.oc = pick(1, depthwise ? 40 : 70);
  c.k.width = pick(1, 5), c.k.height = pick(1, 4);
  c.k.stride_x = pick(1, 3), c.k.stride_y = pick(1, 3);
  c.k.dilation_x = pick(1, 2), c.k.dilation_y = pick(1, 2);
  c.k.upscale = static_cast<Upscale>(pick(0, 5) < 4 ? 0 : pick(1, 2));
  auto pads = [&](int taps, int dil, int& a, int& b) {
    const int ext = (taps - 1) * dil;
    a = pick(0, std::min(ext, 3)), b = pick(0, std::min(ext - a, 3));
  };
  pads(c.k.width, c.k.dilation_x, c.k.pad_left, c.k.pad_right);
  pads(c.k.height, c.k.dilation_y, c.k.pad_top, c.k.pad_bottom);
  c.acc = pick(0, 1) ? AccFormat::Int40 : AccFormat::Int32;
  // Mostly 9-bit weights or int8 ones (127: -128..127, the 8-bit micro-kernels' case); sometimes full int16 (forces
  // split reductions) or beyond (exact path).
  const int wsel = pick(0, 9);
  c.weight_max = wsel < 4 ? 255 : (wsel < 7 ? 127 : (wsel < 9 ? 32767 : 100000));
  c.depthwise = depthwise;
  return c;
}

void run_random(bool depthwise, int iterations, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<SimdLevel> levels = {SimdLevel::Generic};
  if (best_simd_level() >= SimdLevel::Avx2) levels.push_back(SimdLevel::Avx2);
  if (host_has_avx_vnni()) levels.push_back(SimdLevel::AvxVnni);
  if (best_simd_level() == SimdLevel::Avx512Vnni) levels.push_back(SimdLevel::Avx512Vnni);
  for (int it = 0; it < iterations; ++it) {
    const Case cs = random_case(rng, depthwise);
    const KernelGeometry& k = cs.k;
    const int up_w = implied_ifm_extent(cs.ow, k.stride_x, k.width, k.dilation_x, k.pad_left, k.pad_right);
    const int up_h = implied_ifm_extent(cs.oh, k.stride_y, k.height, k.dilation_y, k.pad_top, k.pad_bottom);
    const bool up = k.upscale != Upscale::None;
    const int ic = depthwise ? cs.oc : cs.ic;
    TestMap ifm(up ? (up_w + 1) / 2 : up_w, up ? (up_h + 1) / 2 : up_h, ic, cs.ifm_t, cs.ifm_l, cs.ifm_tiled);
    ifm.randomize(rng);
    const int wic = depthwise ? 1 : cs.ic;
    std::vector<int32_t> w(static_cast<size_t>(cs.oc) * k.width * k.height * wic);
    std::uniform_int_distribution<int> wd(cs.weight_max == 127 ? -128 : -cs.weight_max, cs.weight_max);
    for (auto& v : w) v = wd(rng);
    std::vector<ScaleBias> sb(static_cast<size_t>(cs.oc));
    for (auto& e : sb) {
      e.bias = std::uniform_int_distribution<int64_t>(-(int64_t{1} << 20), int64_t{1} << 20)(rng);
      e.multiplier = std::uniform_int_distribution<uint32_t>(1u << 29, 0xFFFFFFFFu)(rng);
      // Mostly the shifts compilers emit; sometimes any the 6-bit field allows (a zero scale gives 63).
      const int max_shift = std::uniform_int_distribution<int>(0, 9)(rng) == 0 ? 63 : 45;
      e.shift = static_cast<uint8_t>(
          std::uniform_int_distribution<int>(cs.ofm_t == DataType::Int32 ? 0 : 20, max_shift)(rng));
    }
    TestMap ofm(cs.ow, cs.oh, cs.oc, cs.ofm_t, cs.ofm_l, cs.ofm_tiled);
    ConvParams p;
    p.ifm = ifm.view(), p.ifm_zero_point = cs.ifm_zp, p.ifm_depth = ic;
    p.ofm_width = cs.ow, p.ofm_height = cs.oh, p.ofm_depth = cs.oc;
    p.kernel = k;
    p.acc_format = cs.acc;
    p.output = per_channel_stage(cs.ofm_t, sb);
    p.output.ofm_zero_point = cs.ofm_t == DataType::UInt8 ? 7 : -3;
    p.output.round_mode = static_cast<RoundMode>(it % 3);
    if (cs.ofm_t != DataType::Int32) p.output.activation_min += 2;
    // Sometimes a function or LUT after the clamp (the scaling still runs in SIMD while the zero point and the
    // bounds allow), sometimes with bounds too wide for that.
    std::vector<uint8_t> lut(2048);
    for (auto& byte : lut) byte = static_cast<uint8_t>(rng());
    if (it % 4 == 3) {
      const ActivationFunction functions[] = {ActivationFunction::Tanh, ActivationFunction::Sigmoid,
                                              ActivationFunction::Table};
      p.output.function = functions[std::uniform_int_distribution<int>(0, 2)(rng)];
      p.output.lut = lut.data();
      if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) p.output.activation_max = INT32_MAX;
    }
    const std::vector<int32_t> expect = reference(cs, ifm, w, p.output);
    const ConvWeights cw(w.data(), cs.oc, k.height, k.width, wic);
    // Every micro-kernel level on the best Highway target, then the best level on every other Highway target.
    std::vector<std::pair<SimdLevel, int64_t>> paths;
    for (SimdLevel level : levels) paths.emplace_back(level, 0);
    for (int64_t target : available_simd_targets()) paths.emplace_back(levels.back(), target);
    for (const auto& [level, target] : paths) {
      select_simd_target(target);
      TestMap got = ofm;
      p.ofm = got.view();
      KernelScratch s;
      s.simd = level;
      // Random block split of the OFM, reusing the scratch across blocks.
      const int bx = std::uniform_int_distribution<int>(1, cs.ow)(rng), by = std::uniform_int_distribution<int>(1, cs.oh)(rng),
                bc = std::uniform_int_distribution<int>(1, cs.oc)(rng);
      for (int y0 = 0; y0 < cs.oh; y0 += by)
        for (int x0 = 0; x0 < cs.ow; x0 += bx)
          for (int c0 = 0; c0 < cs.oc; c0 += bc) {
            const OfmTile b{x0, std::min(cs.ow, x0 + bx), y0, std::min(cs.oh, y0 + by), c0, std::min(cs.oc, c0 + bc)};
            if (depthwise)
              depthwise_tile(p, cw, b, s);
            else
              conv_tile(p, cw, b, s);
          }
      // Compare element by element, then the whole region (nothing written outside the OFM).
      TestMap want = ofm;
      size_t i = 0;
      for (int y = 0; y < cs.oh; ++y)
        for (int x = 0; x < cs.ow; ++x)
          for (int c = 0; c < cs.oc; ++c, ++i) want.set(x, y, c, expect[i]);
      select_simd_target(0);
      ASSERT_EQ(got.bytes, want.bytes) << "iteration " << it << " simd " << static_cast<int>(level) << " target "
                                       << target << " ifm type "
                                       << static_cast<int>(cs.ifm_t) << " k " << k.width << "x" << k.height
                                       << " ic " << cs.ic << " oc " << cs.oc << " wmax " << cs.weight_max;
    }
  }
}

// The weights' zero fraction and distinct values (the U85 decoders' rate), the packing's padding not counted: an odd
// IFM depth and 20 OFM channels leave padding in the last pair and in the last group of 16.
TEST(ConvWeights, MeasureCountsTheWeightsNotThePadding) {
  std::vector<int16_t> dense(20 * 3);  // [20 OFM][1x1][3 IFM]
  for (size_t i = 0; i < dense.size(); ++i) dense[i] = static_cast<int16_t>(i % 4 == 0 ? 0 : (i % 3) - 1);
  ConvWeights w(dense.data(), 20, 1, 1, 3);
  w.measure();
  size_t zeros = 0;
  for (int16_t v : dense) zeros += v == 0;
  EXPECT_DOUBLE_EQ(w.stats().zero_fraction, double(zeros) / double(dense.size()));
  EXPECT_EQ(w.stats().distinct_values, 3u);  // -1, 0, 1
  std::vector<int16_t> no_zero(dense.size(), -300);
  no_zero[5] = 7;
  ConvWeights nz(no_zero.data(), 20, 1, 1, 3);
  nz.measure();
  EXPECT_DOUBLE_EQ(nz.stats().zero_fraction, 0.0);
  EXPECT_EQ(nz.stats().distinct_values, 2u);  // the padding's zeros are not a value
}

TEST(ConvRandom, MatchesReferenceOnRandomShapes) { run_random(false, 300, 1234); }
TEST(DepthwiseRandom, MatchesReferenceOnRandomShapes) { run_random(true, 300, 99); }

TEST(FullyConnected, LongReductionMatchesReference) {
  // 1x1x1024 -> 37: a 1x1 conv on a 1x1 map, the FC shape, with a reduction long enough to need
  // split int32 partial sums when weights use the full int16 range.
  std::mt19937 rng(5);
  for (int wmax : {127, 255, 32767}) {
    Case cs{};
    cs.ifm_t = DataType::Int8, cs.ofm_t = DataType::Int8, cs.ifm_l = cs.ofm_l = Layout::NHWC;
    cs.ifm_zp = -5, cs.ow = cs.oh = 1, cs.ic = 1024, cs.oc = 37, cs.acc = AccFormat::Int40, cs.weight_max = wmax;
    TestMap ifm(1, 1, cs.ic, cs.ifm_t, cs.ifm_l);
    ifm.randomize(rng);
    std::vector<int32_t> w(static_cast<size_t>(cs.oc) * cs.ic);
    for (auto& v : w) v = std::uniform_int_distribution<int>(-wmax, wmax)(rng);
    std::vector<ScaleBias> sb(static_cast<size_t>(cs.oc), ScaleBias{100, 1u << 31, 40});
    TestMap ofm(1, 1, cs.oc, cs.ofm_t, cs.ofm_l);
    ConvParams p;
    p.ifm = ifm.view(), p.ifm_zero_point = cs.ifm_zp, p.ifm_depth = cs.ic;
    p.ofm = ofm.view(), p.ofm_depth = cs.oc;
    p.acc_format = cs.acc;
    p.output = per_channel_stage(cs.ofm_t, sb);
    conv(p, ConvWeights(w.data(), cs.oc, 1, 1, cs.ic));
    const std::vector<int32_t> expect = reference(cs, ifm, w, p.output);
    for (int c = 0; c < cs.oc; ++c) EXPECT_EQ(ofm.get(0, 0, c), expect[static_cast<size_t>(c)]) << c << " " << wmax;
  }
}

}  // namespace
}  // namespace ethosu::kernels
