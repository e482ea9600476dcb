// Elementwise kernels: every mode, broadcast, scalar, operand order, ADD/SUB scaling modes and the
// 32-bit quirks (spec 03 §8, README pitfalls 10 and 11).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "models/kernels/elementwise.h"
#include "tests/unit/kernels_test_util.h"

namespace ethosu::kernels {
namespace {

using test::TestMap;

ElementwiseParams params(ElementwiseOp op, TestMap& a, TestMap* b, TestMap& out) {
  ElementwiseParams p;
  p.op = op;
  p.ifm = a.view();
  if (b) p.ifm2 = b->view();
  p.ofm = out.view();
  p.ofm_width = out.w, p.ofm_height = out.h, p.ofm_depth = out.c;
  p.output.ofm_type = out.layout.type;
  p.output.per_channel = false;
  p.output.activation_min = static_cast<int32_t>(std::max<int64_t>(type_min(out.layout.type), -32768));
  p.output.activation_max = static_cast<int32_t>(std::min<int64_t>(type_max(out.layout.type), 32767));
  return p;
}

TEST(Elementwise, AddOpa32ScalesOperandAAndPreShiftsB) {
  // 8-bit: k = 20. OPA = 2^30 >> 12 = 2^18 weight (half of B's 2^19); OFM 2^30 >> 49 = 2^-19.
  TestMap a(1, 1, 2, DataType::Int8, Layout::NHWC), b(1, 1, 2, DataType::Int8, Layout::NHWC),
      o(1, 1, 2, DataType::Int8, Layout::NHWC);
  a.set(0, 0, 0, 40), b.set(0, 0, 0, 7);
  a.set(0, 0, 1, -41), b.set(0, 0, 1, 3);
  ElementwiseParams p = params(ElementwiseOp::Add, a, &b, o);
  p.scale_mode = OperandScaleMode::Opa32;
  p.opa_scale = 1u << 30, p.opa_shift = 12;
  p.output.multiplier = 1u << 30, p.output.shift = 49;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 27);  // 40 / 2 + 7
  // -41 * 2^18 rounds (DBL, s = 12 <= 31) to -20.5 * 2^19 exactly; sum -17.5 * 2^19, output rounding
  // with s = 49 > 31 subtracts 2^30: floor(-17.5 + 0.5 - 2^-19) = -18.
  EXPECT_EQ(o.get(0, 0, 1), -18);
  // operand_order = 1: A is IFM2 now, so the scaling applies to IFM2.
  p.reverse_operands = true;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 44);  // 7 / 2 + 40 = 43.5, rounded up
  // Opb32 scales B (IFM2 without swap).
  p.reverse_operands = false;
  p.scale_mode = OperandScaleMode::Opb32;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 44);
}

TEST(Elementwise, OperandScalingRoundsWithTheIfmRoundMode) {
  // A' = -42 * 2^30 / 2^32 = -10.5; B = 0 and OFM_SCALE 1 show A' itself. DBL (shift > 31) rounds the tie
  // down, NATURAL up, TRUNCATE toward zero.
  TestMap a(1, 1, 1, DataType::Int8, Layout::NHWC), b(1, 1, 1, DataType::Int8, Layout::NHWC),
      o(1, 1, 1, DataType::Int8, Layout::NHWC);
  a.set(0, 0, 0, -42), b.set(0, 0, 0, 0);
  ElementwiseParams p = params(ElementwiseOp::Add, a, &b, o);
  p.scale_mode = OperandScaleMode::Opa32;
  p.opa_scale = 1u << 30, p.opa_shift = 32;
  p.output.multiplier = 1, p.output.shift = 0;
  const std::pair<RoundMode, int> cases[] = {{RoundMode::Dbl, -11}, {RoundMode::Natural, -10}, {RoundMode::Truncate, -10}};
  for (const auto& [mode, want] : cases) {
    p.ifm_round_mode = mode;
    elementwise(p);
    EXPECT_EQ(o.get(0, 0, 0), want) << static_cast<int>(mode);
  }
  a.set(0, 0, 0, 42);  // +10.5: DBL and NATURAL 11, TRUNCATE 10
  p.ifm_round_mode = RoundMode::Truncate;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 10);
  p.ifm_round_mode = RoundMode::Natural;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 11);
}

TEST(Elementwise, SubOperandOrderSwapsOperands) {
  TestMap a(1, 1, 1, DataType::Int16, Layout::NHWC), b(1, 1, 1, DataType::Int16, Layout::NHWC),
      o(1, 1, 1, DataType::Int16, Layout::NHWC);
  a.set(0, 0, 0, 1000), b.set(0, 0, 0, 1);
  ElementwiseParams p = params(ElementwiseOp::Sub, a, &b, o);
  p.ifm_zero_point = 0, p.ifm2_zero_point = -1;  // b = 2
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 998);
  p.reverse_operands = true;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), -998);
}

TEST(Elementwise, AddOpaOpb16UsesUnsigned16BitScales) {
  // Vela's equal-scale ADD: OPA = OPB = 32768 (unsigned), OFM scale 2^-15.
  TestMap a(1, 1, 1, DataType::UInt8, Layout::NHWC), b(1, 1, 1, DataType::UInt8, Layout::NHWC),
      o(1, 1, 1, DataType::UInt8, Layout::NHWC);
  a.set(0, 0, 0, 200), b.set(0, 0, 0, 100);
  ElementwiseParams p = params(ElementwiseOp::Add, a, &b, o);
  p.ifm_zero_point = p.ifm2_zero_point = 128;
  p.opa_scale = 32768, p.opb_scale = 32768;
  p.output.multiplier = 1, p.output.shift = 15;
  p.output.ofm_zero_point = 128;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 128 + 72 - 28);
  p.opa_scale = 0x18000;  // only the low 16 bits count: 0x8000
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 172);
}

TEST(Elementwise, BroadcastHwCAndScalar) {
  TestMap a(2, 2, 3, DataType::Int8, Layout::NHCWB16), o(2, 2, 3, DataType::Int8, Layout::NHWC);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x)
      for (int c = 0; c < 3; ++c) a.set(x, y, c, 10 * (2 * y + x) + c);
  TestMap bc(1, 1, 3, DataType::Int8, Layout::NHWC);  // broadcast in H and W
  bc.set(0, 0, 0, 100), bc.set(0, 0, 1, 101), bc.set(0, 0, 2, 102);
  ElementwiseParams p = params(ElementwiseOp::Sub, a, &bc, o);
  p.broadcast_h = p.broadcast_w = true;
  elementwise(p);
  EXPECT_EQ(o.get(1, 1, 2), 32 - 102);
  EXPECT_EQ(o.get(1, 0, 1), 11 - 101);
  TestMap bhw(2, 2, 1, DataType::Int8, Layout::NHWC);  // broadcast in C
  for (int i = 0; i < 4; ++i) bhw.set(i % 2, i / 2, 0, i);
  p = params(ElementwiseOp::Mul, a, &bhw, o);
  p.broadcast_c = true;
  elementwise(p);
  EXPECT_EQ(o.get(1, 1, 2), 32 * 3);
  EXPECT_EQ(o.get(0, 1, 1), 21 * 2);
  p = params(ElementwiseOp::Max, a, nullptr, o);
  p.ifm2_is_scalar = true, p.ifm2_scalar = 25, p.ifm2_zero_point = 5;  // b = 20
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 20);
  EXPECT_EQ(o.get(0, 1, 2), 22);
}

TEST(Elementwise, Int32MulDropsMultiplierKeepsShift) {
  // Vela's int32 "doubling high multiply": OFM_SCALE (2^30, 31) must give round(a*b / 2^31).
  TestMap a(1, 1, 2, DataType::Int32, Layout::NHWC), b(1, 1, 2, DataType::Int32, Layout::NHWC),
      o(1, 1, 2, DataType::Int32, Layout::NHWC);
  a.set(0, 0, 0, 1 << 30), b.set(0, 0, 0, 3);
  a.set(0, 0, 1, INT32_MAX), b.set(0, 0, 1, INT32_MAX);
  ElementwiseParams p = params(ElementwiseOp::Mul, a, &b, o);
  p.output.multiplier = 1u << 30, p.output.shift = 31;
  p.output.ofm_zero_point = 50;  // stale: not applied to a 32-bit OFM
  p.output.activation_max = 127;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 2);           // 1.5 -> 2
  EXPECT_EQ(o.get(0, 0, 1), 2147483646);  // (2^31-1)^2 / 2^31 needs the 64-bit product
}

TEST(Elementwise, Int32AddNeedsMoreThan32Bits) {
  // From Vela's softmax: 79605760 + (2^31 - 1) with OFM_SCALE (1, 1) -> 1113544704.
  TestMap a(1, 1, 1, DataType::Int32, Layout::NHWC), b(1, 1, 1, DataType::Int32, Layout::NHWC),
      o(1, 1, 1, DataType::Int32, Layout::NHWC);
  a.set(0, 0, 0, 79605760), b.set(0, 0, 0, INT32_MAX);
  ElementwiseParams p = params(ElementwiseOp::Add, a, &b, o);
  p.output.multiplier = 1, p.output.shift = 1;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), 1113544704);
}

TEST(Elementwise, ClzShrShlAbs) {
  TestMap a(1, 1, 4, DataType::Int32, Layout::NHWC), b(1, 1, 4, DataType::Int32, Layout::NHWC),
      o(1, 1, 4, DataType::Int32, Layout::NHWC);
  const int32_t av[4] = {0, 1, -1, 0x00010000}, bv[4] = {1, 1, 1, 4};
  for (int c = 0; c < 4; ++c) a.set(0, 0, c, av[c]), b.set(0, 0, c, bv[c]);
  ElementwiseParams p = params(ElementwiseOp::Clz, a, nullptr, o);
  elementwise(p);
  const int32_t clz[4] = {32, 31, 0, 15};
  for (int c = 0; c < 4; ++c) EXPECT_EQ(o.get(0, 0, c), clz[c]) << c;

  a.set(0, 0, 0, -5), a.set(0, 0, 1, 5), a.set(0, 0, 2, -7), a.set(0, 0, 3, 1 << 30);
  p = params(ElementwiseOp::Shr, a, &b, o);
  p.output.round_mode = RoundMode::Natural;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), -2);  // -2.5 half up
  EXPECT_EQ(o.get(0, 0, 1), 3);
  EXPECT_EQ(o.get(0, 0, 2), -3);  // -3.5 half up
  EXPECT_EQ(o.get(0, 0, 3), 1 << 26);
  p.output.round_mode = RoundMode::Truncate;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), -2);
  EXPECT_EQ(o.get(0, 0, 2), -3);
  EXPECT_EQ(o.get(0, 0, 1), 2);

  p = params(ElementwiseOp::Shl, a, &b, o);
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), -10);
  EXPECT_EQ(o.get(0, 0, 3), INT32_MAX);  // 2^34 saturates on store [I]

  TestMap s8(1, 1, 2, DataType::Int8, Layout::NHWC), o8(1, 1, 2, DataType::Int8, Layout::NHWC);
  s8.set(0, 0, 0, -128), s8.set(0, 0, 1, 9);
  p = params(ElementwiseOp::Abs, s8, nullptr, o8);
  p.ifm_zero_point = 1;
  p.output.multiplier = 1u << 30, p.output.shift = 31;  // * 0.5
  elementwise(p);
  EXPECT_EQ(o8.get(0, 0, 0), 65);  // |-129| / 2 = 64.5 -> 65
  EXPECT_EQ(o8.get(0, 0, 1), 4);
}

TEST(Elementwise, LeakyReluScalesOnlyNegativeValues) {
  TestMap a(1, 1, 3, DataType::Int16, Layout::NHWC), o(1, 1, 3, DataType::Int16, Layout::NHWC);
  a.set(0, 0, 0, -100), a.set(0, 0, 1, 100), a.set(0, 0, 2, -3);
  ElementwiseParams p = params(ElementwiseOp::LRelu, a, nullptr, o);
  p.output.multiplier = 1u << 30, p.output.shift = 32;  // alpha 0.25
  p.output.round_mode = RoundMode::Natural;
  elementwise(p);
  EXPECT_EQ(o.get(0, 0, 0), -25);
  EXPECT_EQ(o.get(0, 0, 1), 100);
  EXPECT_EQ(o.get(0, 0, 2), -1);  // -0.75 -> -1
}

TEST(Elementwise, MinWithZeroPointsAndInPlaceOutput) {
  TestMap a(3, 1, 1, DataType::UInt8, Layout::NHWC), b(3, 1, 1, DataType::UInt8, Layout::NHWC);
  const int av[3] = {0, 100, 255}, bv[3] = {10, 10, 10};
  for (int x = 0; x < 3; ++x) a.set(x, 0, 0, av[x]), b.set(x, 0, 0, bv[x]);
  ElementwiseParams p = params(ElementwiseOp::Min, a, &b, a);  // OFM aliases the IFM, as Vela does
  p.ifm_zero_point = 0, p.ifm2_zero_point = -50;               // b = 60
  p.output.ofm_zero_point = 3;
  elementwise(p);
  EXPECT_EQ(a.get(0, 0, 0), 3);
  EXPECT_EQ(a.get(1, 0, 0), 63);
  EXPECT_EQ(a.get(2, 0, 0), 63);
}

TEST(Elementwise, TilesCoverOnlyTheirRange) {
  TestMap a(4, 3, 5, DataType::Int8, Layout::NHWC), o(4, 3, 5, DataType::Int8, Layout::NHWC, true);
  for (int i = 0; i < 60; ++i) a.set(i % 4, (i / 4) % 3, i / 12, i - 30);
  ElementwiseParams p = params(ElementwiseOp::Abs, a, nullptr, o);
  const TestMap before = o;
  elementwise_tile(p, OfmTile{1, 3, 1, 2, 2, 4});
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 5; ++c) {
        const bool inside = x >= 1 && x < 3 && y == 1 && c >= 2 && c < 4;
        EXPECT_EQ(o.get(x, y, c), inside ? std::abs(a.get(x, y, c)) : before.get(x, y, c)) << x << y << c;
      }
}

// The binary operations on 8/16-bit operands run a vectorised path, those on 8-bit operands (and the unary ones, or
// with one IFM2 value) table paths; checked against the per-element definition (elementwise_value, scale, finish)
// over random layouts, types, zero points, broadcasts, operand orders, operand and output scales, including shifts
// small enough that the scaled values leave int32.
TEST(Elementwise, VectorPathEqualsThePerElementDefinition) {
  std::mt19937 rng(11);
  const ElementwiseOp ops[] = {ElementwiseOp::Add, ElementwiseOp::Sub, ElementwiseOp::Mul, ElementwiseOp::Min,
                               ElementwiseOp::Max, ElementwiseOp::LRelu, ElementwiseOp::Abs, ElementwiseOp::Clz};
  const DataType types[] = {DataType::Int8, DataType::UInt8, DataType::Int16, DataType::Int32};
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  for (int round = 0; round < 400; ++round) {
    const DataType ta = types[pick(3)], tb = types[pick(3)], to = types[pick(4)];
    // Every other round large enough for the table paths (from 512 or 1024 elements).
    const bool large = round % 2 == 1;
    const int w = 1 + pick(large ? 16 : 5), h = 1 + pick(large ? 8 : 3), c = 1 + pick(40);
    const Layout la = pick(2) ? Layout::NHWC : Layout::NHCWB16, lo = pick(2) ? Layout::NHWC : Layout::NHCWB16;
    ElementwiseParams p;
    p.broadcast_h = pick(4) == 0, p.broadcast_w = pick(4) == 0, p.broadcast_c = pick(4) == 0;
    if (pick(8) == 0) p.broadcast_h = p.broadcast_w = p.broadcast_c = true;  // one IFM2 value
    TestMap a(w, h, c, ta, la), b(p.broadcast_w ? 1 : w, p.broadcast_h ? 1 : h, p.broadcast_c ? 1 : c, tb, Layout::NHWC),
        out(w, h, c, to, lo);
    a.randomize(rng), b.randomize(rng);
    p.op = ops[pick(pick(4) == 0 ? 8 : 5)];
    p.ifm = a.view(), p.ifm2 = b.view(), p.ofm = out.view();
    p.ofm_width = w, p.ofm_height = h, p.ofm_depth = c;
    p.ifm2_is_scalar = pick(5) == 0;
    p.ifm2_scalar = pick(200) - 100;
    p.ifm_zero_point = pick(41) - 20, p.ifm2_zero_point = pick(41) - 20;
    p.reverse_operands = pick(2);
    p.scale_mode = static_cast<OperandScaleMode>(pick(3));
    p.opa_scale = static_cast<uint32_t>(rng()), p.opa_shift = static_cast<uint8_t>(pick(40));
    p.opb_scale = static_cast<uint16_t>(rng());
    p.ifm_round_mode = static_cast<RoundMode>(pick(3));
    OutputStage& os = p.output;
    os.ofm_type = to;
    os.per_channel = false;
    os.multiplier = static_cast<uint32_t>(rng());
    os.shift = static_cast<uint8_t>(pick(62));
    os.round_mode = static_cast<RoundMode>(pick(3));
    os.ofm_zero_point = pick(21) - 10;
    os.activation_min = static_cast<int32_t>(type_min(to)) + pick(10);
    os.activation_max = static_cast<int32_t>(type_max(to)) - pick(10);
    elementwise(p);
    const FastFinish fin(os);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int ch = 0; ch < c; ++ch) {
          int64_t va = int64_t{a.get(x, y, ch)} - p.ifm_zero_point;
          int64_t vb = p.ifm2_is_scalar ? int64_t{p.ifm2_scalar} - p.ifm2_zero_point
                                        : int64_t{b.get(p.broadcast_w ? 0 : x, p.broadcast_h ? 0 : y, p.broadcast_c ? 0 : ch)} -
                                              p.ifm2_zero_point;
          if (p.reverse_operands && !is_unary(p.op)) std::swap(va, vb);
          int64_t v = elementwise_value(p, va, vb);
          if (p.op != ElementwiseOp::LRelu) v = scale(os, v, os.multiplier, os.shift, false);
          ASSERT_EQ(out.get(x, y, ch), fin(v)) << "round " << round << " at " << x << "," << y << "," << ch;
        }
  }
}

}  // namespace
}  // namespace ethosu::kernels
