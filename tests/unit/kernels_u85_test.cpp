// The Ethos-U85 kernels (models/kernels/u85_kernels.h) and their runner: the scaling primitive's rounding modes and
// double-rounding point, the output stage's clip and LUT types, pooling, elementwise, resize, and an OFM carried to
// the next operation through the chaining buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "isa/architecture.h"
#include "models/kernels/op_runner.h"
#include "models/kernels/regions.h"
#include "models/kernels/u85_kernels.h"
#include "models/kernels/u85_runner.h"

namespace ethosu::kernels::u85 {
namespace {

Scaling scaling(uint32_t m, int shift, Rounding r, int dbl_rnd = 0) { return {m, shift, dbl_rnd, r}; }

TEST(U85Scaling, EachRoundingModeRoundsHalvesItsOwnWay) {
  // 3/2 and -3/2.
  EXPECT_EQ(apply(scaling(1, 1, Rounding::Natural), 3), 2);
  EXPECT_EQ(apply(scaling(1, 1, Rounding::Natural), -3), -1);
  EXPECT_EQ(apply(scaling(1, 1, Rounding::Symmetric), 3), 2);
  EXPECT_EQ(apply(scaling(1, 1, Rounding::Symmetric), -3), -2);
  EXPECT_EQ(apply(scaling(1, 1, Rounding::TruncateToZero), 3), 1);
  EXPECT_EQ(apply(scaling(1, 1, Rounding::TruncateToZero), -3), -1);
  EXPECT_EQ(apply(scaling(1, 1, Rounding::TruncateToLower), 3), 1);
  EXPECT_EQ(apply(scaling(1, 1, Rounding::TruncateToLower), -3), -2);
  EXPECT_EQ(apply(scaling(1, 1, Rounding::DoubleSymmetric), -3), -1);  // no double rounding below shift 32
}

TEST(U85Scaling, DoubleRoundingAddsItsTermPastThePoint) {
  // Shift 32 > 31: DOUBLE_SYMMETRIC adds 2^30 with the value's sign (TFLite's SRDHM nudge), the asymmetric one +2^30.
  const int64_t v = 3;  // 3 * 2^30 / 2^32 = 0.75
  EXPECT_EQ(apply(scaling(1u << 30, 32, Rounding::DoubleSymmetric), v), 1);
  EXPECT_EQ(apply(scaling(1u << 30, 32, Rounding::DoubleSymmetric), -v), -1);
  EXPECT_EQ(apply(scaling(1u << 30, 32, Rounding::DoubleAsymmetric), -v), 0);
  // dbl_rnd 20 moves the point to shift 12: at shift 20 the term 2^10 tips (2^19 - 2^10) over the half.
  const int64_t below_half = (1 << 19) - (1 << 10);
  EXPECT_EQ(apply(scaling(1, 20, Rounding::DoubleSymmetric, 20), below_half), 1);
  EXPECT_EQ(apply(scaling(1, 20, Rounding::Natural, 20), below_half), 0);
  EXPECT_EQ(apply(scaling(1, 20, Rounding::DoubleSymmetric, 0), below_half), 0);
}

TEST(U85Scaling, ShiftZeroIsAnExactProduct) {
  EXPECT_EQ(apply(scaling(3, 0, Rounding::DoubleSymmetric), -7), -21);
}

TEST(U85Output, ClipRangeNoneLeavesTheValueToTheTypeSaturation) {
  Output o;
  o.type = DataType::Int16;
  o.min = -10, o.max = 10;
  EXPECT_EQ(finish(o, 100), 10);
  o.clip = false;
  EXPECT_EQ(finish(o, 100), 100);
  EXPECT_EQ(finish(o, 100000), 32767);
}

TEST(U85Output, EightBitTablesIndexByTheClampedValue) {
  std::vector<uint8_t> table(1024);
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<uint8_t>(i * 7 + 1);
  Output o;
  o.table = table.data();
  o.zero_point = 3;
  o.lut = Lut::S8S8;
  EXPECT_EQ(finish(o, -131), static_cast<int8_t>(table[0]));   // -128 after the zero point
  EXPECT_EQ(finish(o, 0), static_cast<int8_t>(table[131]));
  o.lut = Lut::U8U8;
  o.type = DataType::UInt8;
  o.min = 0, o.max = 255;
  EXPECT_EQ(finish(o, 7), table[10]);
  o.lut = Lut::S8S32;
  o.type = DataType::Int32;
  o.min = -128, o.max = 127;
  const uint8_t* e = table.data() + 4 * (5 + 128);
  EXPECT_EQ(finish(o, 2), static_cast<int32_t>(e[0] | e[1] << 8 | e[2] << 16 | uint32_t{e[3]} << 24));
}

// A dense NHWC feature map for the kernels.
struct Map {
  int w, h, c;
  DataType type;
  std::vector<uint8_t> bytes;
  Map(int w_, int h_, int c_, DataType t) : w(w_), h(h_), c(c_), type(t), bytes(size_t(w_) * h_ * c_ * element_size_bytes(t)) {}
  Tensor tensor(int32_t zp = 0) {
    Tensor t;
    t.map = dense_map(bytes.data(), w, c, type);
    t.width = w, t.height = h, t.depth = c, t.zero_point = zp;
    return t;
  }
  Destination destination() { return {dense_map(bytes.data(), w, c, type), w, h, c}; }
  void set(int x, int y, int ch, int32_t v) {
    store_element(bytes.data() + ((size_t(y) * w + x) * c + ch) * element_size_bytes(type), type, v);
  }
  int32_t get(int x, int y, int ch) const {
    return load_element(bytes.data() + ((size_t(y) * w + x) * c + ch) * element_size_bytes(type), type);
  }
};

Output wide_output(DataType t) {
  Output o;
  o.type = t;
  o.min = -32768, o.max = 32767;
  return o;
}

TEST(U85Pool, AverageCountsOnlyTapsInsideAndRoundsHalvesAwayFromZero) {
  Map in(2, 1, 1, DataType::Int8), out(2, 1, 1, DataType::Int8);
  in.set(0, 0, 0, -3), in.set(1, 0, 0, 0);
  Window w;
  w.kernel_width = 2, w.pad_left = 1;  // output 0 sees padding and -3, output 1 sees -3 and 0
  pool(in.tensor(), w, PoolMode::Average, scaling(1, 0, Rounding::DoubleSymmetric), wide_output(DataType::Int8),
       out.destination());
  EXPECT_EQ(out.get(0, 0, 0), -3);
  EXPECT_EQ(out.get(1, 0, 0), -2);  // -1.5
  pool(in.tensor(), w, PoolMode::Sum, scaling(1, 0, Rounding::DoubleSymmetric), wide_output(DataType::Int8),
       out.destination());
  EXPECT_EQ(out.get(0, 0, 0), -3);
  EXPECT_EQ(out.get(1, 0, 0), -3);
}

TEST(U85Pool, ReduceSumAddsEveryChannelOfTheWindow) {
  Map in(1, 1, 3, DataType::Int8), out(1, 1, 1, DataType::Int32);
  in.set(0, 0, 0, 5), in.set(0, 0, 1, -2), in.set(0, 0, 2, 10);
  Output o = wide_output(DataType::Int32);
  o.clip = false;
  pool(in.tensor(1), Window{}, PoolMode::ReduceSum, scaling(1, 0, Rounding::DoubleSymmetric), o, out.destination());
  EXPECT_EQ(out.get(0, 0, 0), 10);  // (5-1) + (-2-1) + (10-1)
}

// ARGMAX as Vela 5.1 programs it (TFLite ARG_MAX: the reduced axis as a kernel the axis long, OFM_SCALE 1 >> 16,
// TRUNCATE_TO_LOWER, a 32-bit OFM): per channel, the index of the first largest value along the axis; the same
// under DOUBLE_SYMMETRIC (the low 16 bits are 0); along Y with a kernel the column high.
TEST(U85Pool, ArgmaxGivesTheFirstLargestIndexAlongItsAxis) {
  const int values[2][5] = {{3, -7, 9, 9, -128}, {-5, -5, -6, -100, -5}};  // channel 0: 9 at 2 and 3; channel 1: -5
  Map row(5, 1, 2, DataType::Int8), col(1, 5, 2, DataType::Int8);
  for (int x = 0; x < 5; ++x)
    for (int c = 0; c < 2; ++c) row.set(x, 0, c, values[c][x]), col.set(0, x, c, values[c][x]);
  Output o = wide_output(DataType::Int32);
  o.clip = false;
  for (const Rounding r : {Rounding::TruncateToLower, Rounding::DoubleSymmetric}) {
    Map out(1, 1, 2, DataType::Int32);
    Window w;
    w.kernel_width = 5;
    pool(row.tensor(-3), w, PoolMode::ArgmaxX, scaling(1, 16, r), o, out.destination());
    EXPECT_EQ(out.get(0, 0, 0), 2);
    EXPECT_EQ(out.get(0, 0, 1), 0);
    Map down(1, 1, 2, DataType::Int32);
    Window h;
    h.kernel_height = 5;
    pool(col.tensor(0), h, PoolMode::ArgmaxY, scaling(1, 16, r), o, down.destination());
    EXPECT_EQ(down.get(0, 0, 0), 2);
    EXPECT_EQ(down.get(0, 0, 1), 0);
  }
  // A window partly in the padding: indices count from the window's first tap, padding taps never win.
  Map out(2, 1, 1, DataType::Int32);
  Map neg(2, 1, 1, DataType::Int8);
  neg.set(0, 0, 0, -9), neg.set(1, 0, 0, -8);
  Window w;
  w.kernel_width = 2;
  w.pad_left = 1;
  pool(neg.tensor(0), w, PoolMode::ArgmaxX, scaling(1, 16, Rounding::TruncateToLower), o, out.destination());
  EXPECT_EQ(out.get(0, 0, 0), 1);  // taps (pad, -9)
  EXPECT_EQ(out.get(1, 0, 0), 1);  // taps (-9, -8)

  // The runner takes ARGMAX with a one-row (X) or one-column (Y) kernel, and refuses a window across both by name.
  isa::Operation op;
  op.version = isa::IsaVersion::V2;
  op.kind = isa::OpKind::POOL;
  op.ofm_scale_mode = isa::enums::ofm_scale_mode::GLOBAL;
  op.pooling_mode = isa::enums::pooling_mode::ARGMAX_X;
  op.kernel.width = 5;
  EXPECT_FALSE(isa::unknown_behaviour(op).has_value());
  op.kernel.height = 2;
  EXPECT_NE(isa::unknown_behaviour(op).value_or("").find("ARGMAX_X with a 5x2 kernel"), std::string::npos);
  op.pooling_mode = isa::enums::pooling_mode::ARGMAX_Y;
  op.kernel.width = 1;
  EXPECT_FALSE(isa::unknown_behaviour(op).has_value());
}

TEST(U85Elementwise, OperandScalesApplyBeforeTheOperationAndBroadcastHoldsAxes) {
  Map a(2, 1, 2, DataType::Int8), b(1, 1, 2, DataType::Int8), out(2, 1, 2, DataType::Int16);
  a.set(0, 0, 0, 10), a.set(0, 0, 1, 20), a.set(1, 0, 0, 30), a.set(1, 0, 1, 40);
  b.set(0, 0, 0, 1), b.set(0, 0, 1, 2);
  const Tensor ta = a.tensor(), tb = b.tensor();
  Operand oa, ob;
  oa.tensor = &ta;
  oa.scaling = scaling(3, 0, Rounding::DoubleSymmetric);
  ob.tensor = &tb;
  ob.bw = true;
  elementwise(ElementwiseMode::Sub, oa, ob, scaling(1, 0, Rounding::DoubleSymmetric), 8,
              wide_output(DataType::Int16), out.destination());
  EXPECT_EQ(out.get(0, 0, 0), 29);
  EXPECT_EQ(out.get(1, 0, 1), 118);
}

TEST(U85Elementwise, ScalarShiftRightRoundsByTheOfmMode) {
  Map a(1, 1, 2, DataType::Int32), out(1, 1, 2, DataType::Int32);
  a.set(0, 0, 0, 6), a.set(0, 0, 1, -6);
  const Tensor ta = a.tensor();
  Operand oa, ob;
  oa.tensor = &ta;
  ob.scalar = 2;  // 6 / 4 = 1.5
  Output o = wide_output(DataType::Int32);
  o.clip = false;
  elementwise(ElementwiseMode::Shr, oa, ob, scaling(1, 0, Rounding::Natural), 32, o, out.destination());
  EXPECT_EQ(out.get(0, 0, 0), 2);
  EXPECT_EQ(out.get(0, 0, 1), -1);
  elementwise(ElementwiseMode::Shr, oa, ob, scaling(1, 0, Rounding::TruncateToZero), 32, o, out.destination());
  EXPECT_EQ(out.get(0, 0, 0), 1);
  EXPECT_EQ(out.get(0, 0, 1), -1);
}

TEST(U85Elementwise, LeakyReluScalesNegativesByTheSecondOperandScale) {
  Map a(2, 1, 1, DataType::Int16), out(2, 1, 1, DataType::Int16);
  a.set(0, 0, 0, 100), a.set(1, 0, 0, -100);
  const Tensor ta = a.tensor();
  Operand oa, ob;
  oa.tensor = &ta;
  oa.scaling = scaling(1, 0, Rounding::Natural);
  ob.scaling = scaling(1, 2, Rounding::Natural);  // alpha 1/4
  elementwise(ElementwiseMode::LeakyRelu, oa, ob, scaling(1, 0, Rounding::Natural), 8,
              wide_output(DataType::Int16), out.destination());
  EXPECT_EQ(out.get(0, 0, 0), 100);
  EXPECT_EQ(out.get(1, 0, 0), -25);
}

TEST(U85Resize, BilinearTwiceWithHalfPixelCentres) {
  // n/d = 2/1 halved by the half-pixel offset: o samples (o * 2 - 1) / 4; the +16 fractional bits and log2(4*4).
  Map in(2, 1, 1, DataType::Int8), out(4, 1, 1, DataType::Int8);
  in.set(0, 0, 0, 0), in.set(1, 0, 0, 40);
  const ResizeAxis x{4, 2, -1}, y{4, 2, -1};
  resize(in.tensor(), ResizeMode::Bilinear, x, y, scaling(1, 16 + 4, Rounding::Symmetric),
         wide_output(DataType::Int8), out.destination());
  EXPECT_EQ(out.get(0, 0, 0), 0);   // clamped to the first column
  EXPECT_EQ(out.get(1, 0, 0), 10);  // 1/4 of the way
  EXPECT_EQ(out.get(2, 0, 0), 30);
  EXPECT_EQ(out.get(3, 0, 0), 40);
  resize(in.tensor(), ResizeMode::Nearest, x, y, scaling(1, 16, Rounding::Symmetric), wide_output(DataType::Int8),
         out.destination());
  EXPECT_EQ(out.get(1, 0, 0), 0);
  EXPECT_EQ(out.get(2, 0, 0), 40);
}

TEST(U85Convolution, BiasPlusTapsInsideTheIfm) {
  Map in(2, 2, 2, DataType::Int8), out(2, 2, 1, DataType::Int16);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x) in.set(x, y, 0, 1 + x + 2 * y), in.set(x, y, 1, 10);
  const std::vector<int16_t> w = {1, 0, 2, 0, 3, 0, 4, 1};  // 2x2 taps x 2 channels
  Window win;
  win.kernel_width = win.kernel_height = 2;
  win.pad_top = win.pad_left = 1;
  std::vector<ChannelScale> ch(1);
  ch[0].bias = 100;
  convolution_reference(in.tensor(), win, w.data(), false, ch, wide_output(DataType::Int16), out.destination());
  EXPECT_EQ(out.get(0, 0, 0), 100 + 4 * 1 + 10);                        // only the last tap reaches the IFM
  EXPECT_EQ(out.get(1, 1, 0), 100 + 1 * 1 + 2 * 2 + 3 * 3 + 4 * 4 + 10);  // every tap
}

// Scaler is apply() with its rounding terms found once and 64-bit arithmetic where it suffices: the same results
// for every mode, shift and double-rounding point, on values inside and outside its 64-bit range.
TEST(U85Scaler, MatchesApplyOnRandomScalingsAndValues) {
  std::mt19937_64 rng(85);
  const int64_t edges[] = {0, 1, -1, (int64_t{1} << 30), -(int64_t{1} << 30), (int64_t{1} << 30) + 1,
                           -(int64_t{1} << 30) - 1, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
  for (int i = 0; i < 20000; ++i) {
    Scaling s;
    s.multiplier = static_cast<uint32_t>(rng() >> (rng() % 33));
    s.shift = static_cast<int>(rng() % 64);
    s.double_round = static_cast<int>(rng() % 32);
    s.rounding = static_cast<Rounding>(rng() % 6);
    const Scaler scale(s);
    for (int k = 0; k < 8; ++k) {
      const int64_t v = k < 4 ? static_cast<int64_t>(rng()) >> (rng() % 64) : edges[rng() % std::size(edges)];
      ASSERT_EQ(scale(v), apply(s, v)) << "v " << v << " multiplier " << s.multiplier << " shift " << s.shift
                                       << " dbl_rnd " << s.double_round << " mode " << int(s.rounding);
    }
  }
}

// Elementwise against the formula element by element (apply() for each scale, finish()), on random binary
// operations: 8- and 16-bit operands (the 8-bit ones go through per-byte tables), broadcast axes and scalars, every
// rounding mode, clips and zero points.
TEST(U85Elementwise, MatchesTheFormulaOnRandomOperations) {
  std::mt19937 rng(4285);
  const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const DataType types[] = {DataType::Int8, DataType::UInt8, DataType::Int16};
  const ElementwiseMode modes[] = {ElementwiseMode::Add, ElementwiseMode::Sub, ElementwiseMode::Mul,
                                   ElementwiseMode::Min, ElementwiseMode::Max};
  const auto random_scaling = [&] {
    Scaling s;
    s.multiplier = static_cast<uint32_t>(uniform(1, INT32_MAX));
    s.shift = uniform(0, 4) == 0 ? uniform(0, 63) : uniform(20, 40);
    s.double_round = uniform(0, 31);
    s.rounding = static_cast<Rounding>(uniform(0, 5));
    return s;
  };
  for (int iter = 0; iter < 300; ++iter) {
    SCOPED_TRACE("operation " + std::to_string(iter));
    const int w = uniform(1, 6), h = uniform(1, 4), c = uniform(1, 20);
    const ElementwiseMode mode = modes[uniform(0, 4)];
    const bool bw = uniform(0, 3) == 0, bh = uniform(0, 3) == 0, bc = uniform(0, 3) == 0, scalar = uniform(0, 5) == 0;
    Map ma(w, h, c, types[uniform(0, 2)]), mb(bw ? 1 : w, bh ? 1 : h, bc ? 1 : c, types[uniform(0, 2)]);
    for (Map* m : {&ma, &mb})
      for (int y = 0; y < m->h; ++y)
        for (int x = 0; x < m->w; ++x)
          for (int k = 0; k < m->c; ++k) m->set(x, y, k, uniform(int(type_min(m->type)), int(type_max(m->type))));
    const Tensor ta = ma.tensor(uniform(-128, 127)), tb = mb.tensor(uniform(-128, 127));
    Operand a, b;
    a.tensor = &ta;
    a.scaling = random_scaling();
    b.scaling = random_scaling();
    if (scalar) {
      b.scalar = uniform(-32768, 32767), b.scalar_zero_point = uniform(-128, 127);
    } else {
      b.tensor = &tb, b.bw = bw, b.bh = bh, b.bc = bc;
    }
    const Scaling os = random_scaling();
    Output out;
    out.type = types[uniform(0, 2)];
    out.zero_point = uniform(-100, 100);
    out.clip = uniform(0, 3) != 0;
    out.min = uniform(-40000, 0), out.max = uniform(0, 40000);
    Map got(w, h, c, out.type);
    elementwise(mode, a, b, os, 8, out, got.destination());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int k = 0; k < c; ++k) {
          const int64_t va = apply(a.scaling, int64_t{ma.get(x, y, k)} - ta.zero_point);
          const int64_t vb = apply(b.scaling, scalar ? int64_t{b.scalar} - b.scalar_zero_point
                                                     : int64_t{mb.get(bw ? 0 : x, bh ? 0 : y, bc ? 0 : k)} - tb.zero_point);
          int64_t v = 0;
          switch (mode) {
            case ElementwiseMode::Add: v = va + vb; break;
            case ElementwiseMode::Sub: v = va - vb; break;
            case ElementwiseMode::Mul: v = saturate_int64(static_cast<int128_t>(va) * vb); break;
            case ElementwiseMode::Min: v = std::min(va, vb); break;
            default: v = std::max(va, vb); break;
          }
          ASSERT_EQ(got.get(x, y, k), finish(out, apply(os, v))) << "at " << x << "," << y << "," << k;
        }
  }
}

// The modes Vela 5.1 programs with unit scales: compares write -1 for true (Vela's booleans) and compare the scaled
// operands; bitwise ops work on the bits, AND_NOT is a & ~b; LSR shifts the IFM's bits as unsigned (int8 -128 >> 1 =
// 64), 0 from the width on; DIV truncates toward zero, and a zero divisor writes nothing and says so.
TEST(U85Elementwise, ComparesBitwiseLsrAndDivAsVelaProgramsThem) {
  Map a(5, 1, 1, DataType::Int8), b(5, 1, 1, DataType::Int8);
  const int av[] = {-128, -7, 5, 7, 100}, bv[] = {1, 2, 5, -2, 7};
  for (int x = 0; x < 5; ++x) a.set(x, 0, 0, av[x]), b.set(x, 0, 0, bv[x]);
  const Tensor ta = a.tensor(), tb = b.tensor();
  Operand oa, ob;
  oa.tensor = &ta, ob.tensor = &tb;
  oa.scaling = ob.scaling = scaling(1, 0, Rounding::DoubleSymmetric);
  Output o;
  o.clip = false;
  const auto run = [&](ElementwiseMode m) {
    Map out(5, 1, 1, DataType::Int8);
    EXPECT_TRUE(elementwise(m, oa, ob, scaling(1, 0, Rounding::DoubleSymmetric), 8, o, out.destination()));
    std::vector<int> r;
    for (int x = 0; x < 5; ++x) r.push_back(out.get(x, 0, 0));
    return r;
  };
  EXPECT_EQ(run(ElementwiseMode::CmpEq), (std::vector<int>{0, 0, -1, 0, 0}));
  EXPECT_EQ(run(ElementwiseMode::CmpNe), (std::vector<int>{-1, -1, 0, -1, -1}));
  EXPECT_EQ(run(ElementwiseMode::CmpGe), (std::vector<int>{0, 0, -1, -1, -1}));
  EXPECT_EQ(run(ElementwiseMode::CmpGt), (std::vector<int>{0, 0, 0, -1, -1}));
  EXPECT_EQ(run(ElementwiseMode::And), (std::vector<int>{-128 & 1, -7 & 2, 5 & 5, 7 & -2, 100 & 7}));
  EXPECT_EQ(run(ElementwiseMode::Or), (std::vector<int>{-128 | 1, -7 | 2, 5 | 5, 7 | -2, 100 | 7}));
  EXPECT_EQ(run(ElementwiseMode::Xor), (std::vector<int>{-128 ^ 1, -7 ^ 2, 5 ^ 5, 7 ^ -2, 100 ^ 7}));
  EXPECT_EQ(run(ElementwiseMode::Not), (std::vector<int>{127, 6, -6, -8, -101}));
  EXPECT_EQ(run(ElementwiseMode::AndNot), (std::vector<int>{-128 & ~1, -7 & ~2, 0, 7 & ~-2, 100 & ~7}));
  // LSR: -128 is 0x80 as 8 bits: 0x40; -7 (0xF9) >> 2 = 0x3E; a shift of -2 clamps to 0; 100 >> 7 = 0.
  EXPECT_EQ(run(ElementwiseMode::Lsr), (std::vector<int>{64, 62, 0, 7, 0}));
  EXPECT_EQ(run(ElementwiseMode::Div), (std::vector<int>{-128, -3, 1, -3, 14}));  // toward zero
  // Scaled operands compare as scaled: a / 2 (NATURAL) against b.
  oa.scaling = scaling(1, 1, Rounding::Natural);
  EXPECT_EQ(run(ElementwiseMode::CmpEq), (std::vector<int>{0, 0, 0, 0, 0}));
  EXPECT_EQ(run(ElementwiseMode::CmpGt), (std::vector<int>{0, 0, 0, -1, -1}));
  // A zero divisor: false, and the OFM untouched.
  b.set(2, 0, 0, 0);
  Map out(5, 1, 1, DataType::Int8);
  out.set(0, 0, 0, 33);
  EXPECT_FALSE(elementwise(ElementwiseMode::Div, oa, ob, scaling(1, 0, Rounding::DoubleSymmetric), 8, o,
                           out.destination()));
  EXPECT_EQ(out.get(0, 0, 0), 33);
}

// An NHCWB16 destination of w x h x c elements of `type` over `bytes` (sized here).
Destination brick_destination(std::vector<uint8_t>& bytes, int w, int h, int c, DataType type) {
  const int es = element_size_bytes(type), bricks = (c + 15) / 16;
  bytes.assign(size_t(w) * h * bricks * 16 * es, 0);
  Destination d;
  d.map.region = bytes.data();
  FeatureMapLayout& l = d.map.layout;
  l.width0 = l.height0 = l.height1 = 1 << 30;  // one tile
  l.type = type;
  l.layout = Layout::NHCWB16;
  l.stride_x = 16 * es;
  l.stride_c = int64_t{w} * 16 * es;
  l.stride_y = l.stride_c * bricks;
  d.width = w, d.height = h, d.depth = c;
  return d;
}

// The SIMD convolution (the conv kernels with the U85's output stage) against the scalar reference on random
// operations: shapes, strides, dilations, padding, IFM and OFM types and layouts, zero points, weights up to 16
// bits, biases up to 40 bits, every rounding mode and double-rounding point, shifts 0..63, clip ranges and LUTs.
TEST(U85Convolution, SimdMatchesTheReferenceOnRandomOperations) {
  std::mt19937 rng(8585);
  const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const DataType ifm_types[] = {DataType::Int8, DataType::UInt8, DataType::Int16};
  const DataType ofm_types[] = {DataType::Int8, DataType::UInt8, DataType::Int16, DataType::Int32};
  const Lut luts[] = {Lut::None, Lut::None, Lut::None, Lut::U8U8, Lut::S8S8, Lut::S8S16, Lut::S8S32, Lut::S16S16,
                      Lut::Tanh, Lut::Sigmoid};
  std::vector<uint8_t> table(2048);
  for (auto& b : table) b = static_cast<uint8_t>(uniform(0, 255));
  KernelScratch scratch;  // reused across operations, as the runner does
  for (int iter = 0; iter < 400; ++iter) {
    SCOPED_TRACE("operation " + std::to_string(iter));
    const bool dw = uniform(0, 2) == 0;
    Window win;
    win.kernel_width = uniform(1, 4), win.kernel_height = uniform(1, 4);
    win.stride_x = uniform(1, 3), win.stride_y = uniform(1, 3);
    win.dilation_x = uniform(1, 2), win.dilation_y = uniform(1, 2);
    win.pad_left = uniform(0, win.kernel_width - 1), win.pad_top = uniform(0, win.kernel_height - 1);
    const int ofm_w = uniform(1, 9), ofm_h = uniform(1, 5), ofm_c = uniform(1, 40);
    const int ifm_c = dw ? ofm_c : uniform(1, 40);
    // IFMs a little smaller or larger than the windows reach.
    const int ifm_w = std::max(1, (ofm_w - 1) * win.stride_x + (win.kernel_width - 1) * win.dilation_x + 1 -
                                      win.pad_left - uniform(0, 2) + uniform(0, 1));
    const int ifm_h = std::max(1, (ofm_h - 1) * win.stride_y + (win.kernel_height - 1) * win.dilation_y + 1 -
                                      win.pad_top - uniform(0, 2) + uniform(0, 1));
    const DataType it = ifm_types[uniform(0, 2)];
    Map in(ifm_w, ifm_h, ifm_c, it);
    for (int y = 0; y < ifm_h; ++y)
      for (int x = 0; x < ifm_w; ++x)
        for (int c = 0; c < ifm_c; ++c) in.set(x, y, c, uniform(int(type_min(it)), int(type_max(it))));
    const int32_t ifm_zp = it == DataType::Int16 && uniform(0, 1) ? 0 : uniform(-128, 255);

    const int wdepth = dw ? 1 : ifm_c;
    std::vector<int16_t> weights(size_t(ofm_c) * win.kernel_width * win.kernel_height * wdepth);
    const int wmax = uniform(0, 3) == 0 ? 32767 : 255;
    for (auto& w : weights) w = static_cast<int16_t>(uniform(-wmax, wmax));
    std::vector<ChannelScale> channels(static_cast<size_t>(ofm_c));
    const int rounding = uniform(0, 5), dbl_rnd = uniform(0, 31);
    for (auto& ch : channels) {
      ch.bias = uniform(0, 4) == 0 ? int64_t{uniform(-(1 << 30), 1 << 30)} * (int64_t{1} << uniform(0, 9))
                                   : uniform(-5000, 5000);
      ch.scaling.multiplier = static_cast<uint32_t>(uniform(0, INT32_MAX));
      ch.scaling.shift = uniform(0, 5) == 0 ? uniform(0, 63) : uniform(30, 45);
      ch.scaling.double_round = dbl_rnd;
      ch.scaling.rounding = static_cast<Rounding>(rounding);
    }
    Output out;
    out.type = ofm_types[uniform(0, 3)];
    out.zero_point = uniform(-200, 200);
    out.clip = uniform(0, 3) != 0;
    out.min = uniform(-40000, 100), out.max = uniform(-100, 40000);
    out.lut = luts[uniform(0, 9)];
    out.table = table.data();

    const ConvWeights packed(weights.data(), ofm_c, win.kernel_height, win.kernel_width, wdepth);
    const bool bricks = uniform(0, 1);
    std::vector<uint8_t> ref_bytes, simd_bytes;
    Map ref_map(ofm_w, ofm_h, ofm_c, out.type), simd_map(ofm_w, ofm_h, ofm_c, out.type);
    const Destination ref = bricks ? brick_destination(ref_bytes, ofm_w, ofm_h, ofm_c, out.type) : ref_map.destination();
    const Destination simd =
        bricks ? brick_destination(simd_bytes, ofm_w, ofm_h, ofm_c, out.type) : simd_map.destination();
    convolution_reference(in.tensor(ifm_zp), win, weights.data(), dw, channels, out, ref);
    convolution(in.tensor(ifm_zp), win, packed, dw, channels, out, simd, scratch);
    if (bricks)
      ASSERT_EQ(simd_bytes, ref_bytes);
    else
      ASSERT_EQ(simd_map.bytes, ref_map.bytes);
  }
}

// A two-operation chain through the runner: an ADD whose OFM is CHAINED, then a MUL reading it as its IFM.
TEST(U85Runner, ChainedOfmFeedsTheNextOperation) {
  std::vector<uint8_t> memory(64, 0);
  for (int i = 0; i < 4; ++i) memory[i] = static_cast<uint8_t>(i + 1);
  Regions regions{};
  regions[1] = {memory.data(), memory.size()};
  const std::vector<uint8_t> lut_ram(2048);
  U85Runner runner(regions, lut_ram, isa::architecture(isa::Variant::U85_256));

  namespace en = isa::enums;
  isa::Operation add;
  add.version = isa::IsaVersion::V2;
  add.kind = isa::OpKind::ELEMENTWISE;
  add.elementwise_mode = en::elementwise_mode::ADD;
  add.ofm_scale_mode = en::ofm_scale_mode::GLOBAL;
  add.ifm.region = 1;
  add.ifm.element.type = en::activation_type::SIGNED;
  add.ifm.stride_x = 1, add.ifm.stride_y = 4, add.ifm.stride_c = 1;
  add.ifm.width0 = add.ifm.height0 = add.ifm.height1 = 100;
  add.ifm.width = 4, add.ifm.height = 1, add.ifm.depth = 1;
  add.ofm = add.ifm;
  add.ofm.width = 4;
  add.ofm.storage = en::activation_storage::CHAINED;
  add.ofm.region = 0;
  add.ofm.element.precision = en::activation_precision::B16;
  add.ifm2.storage = en::activation_storage::NONE;
  add.broadcast.scalar = true;
  add.op_scalar = 100;
  add.ifm_scale = add.ifm2_scale = add.ofm_scale = {1, 0};
  add.activation.function = en::activation_function::LUT_NONE;
  add.activation.clip_range = en::activation_clip_range::NONE;
  runner.execute(add);
  EXPECT_EQ(memory[0], 1) << "a CHAINED OFM does not reach memory";

  isa::Operation mul = add;
  mul.elementwise_mode = en::elementwise_mode::MUL;
  mul.ifm = add.ofm;
  mul.ifm.region = 0;
  mul.ofm = add.ifm;
  mul.ofm.base[0] = 16;
  mul.ofm.element.precision = en::activation_precision::B16;
  mul.ofm.stride_x = 2, mul.ofm.stride_y = 8, mul.ofm.stride_c = 2;
  mul.ifm2.element.precision = en::activation_precision::B16;  // Vela gives a scalar operand the IFM's width
  mul.op_scalar = 3;
  runner.execute(mul);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(memory[16 + 2 * i] | memory[17 + 2 * i] << 8, (i + 1 + 100) * 3) << i;
}

// A 1x1 SUM pool (Vela's standalone TRANSPOSE and REVERSE) over a 2x3x4 (H x W x C) IFM of distinct values, its
// OFM transposed or reversed: each element where the mode's order of the computed axes puts it in the stored
// tensor, whose registers (BASE, strides) describe it as stored.
TEST(U85Runner, TransposedAndReversedOfmsStoreEachElementWhereTheModeSays) {
  namespace en = isa::enums;
  constexpr uint32_t H = 2, W = 3, C = 4;
  const auto value = [](uint32_t h, uint32_t w, uint32_t c) { return static_cast<uint8_t>(h * 16 + w * 4 + c + 1); };
  struct Case {
    en::activation_transpose transpose;
    en::activation_reverse reverse;
    // The stored coordinate (y, x, channel) of computed (h, w, c), as the stored tensor's outer-to-inner axes.
    std::array<uint32_t, 3> (*stored)(uint32_t h, uint32_t w, uint32_t c);
  };
  using T = en::activation_transpose;
  using R = en::activation_reverse;
  const Case cases[] = {
      {T::WHC, R::NONE, [](uint32_t h, uint32_t w, uint32_t c) { return std::array<uint32_t, 3>{w, h, c}; }},
      {T::HCW, R::NONE, [](uint32_t h, uint32_t w, uint32_t c) { return std::array<uint32_t, 3>{h, c, w}; }},
      {T::WCH, R::NONE, [](uint32_t h, uint32_t w, uint32_t c) { return std::array<uint32_t, 3>{w, c, h}; }},
      {T::CHW, R::NONE, [](uint32_t h, uint32_t w, uint32_t c) { return std::array<uint32_t, 3>{c, h, w}; }},
      {T::CWH, R::NONE, [](uint32_t h, uint32_t w, uint32_t c) { return std::array<uint32_t, 3>{c, w, h}; }},
      {T::HWC, R::H, [](uint32_t h, uint32_t w, uint32_t c) { return std::array<uint32_t, 3>{H - 1 - h, w, c}; }},
      {T::HWC, R::W, [](uint32_t h, uint32_t w, uint32_t c) { return std::array<uint32_t, 3>{h, W - 1 - w, c}; }},
      {T::HWC, R::C, [](uint32_t h, uint32_t w, uint32_t c) { return std::array<uint32_t, 3>{h, w, C - 1 - c}; }},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE("transpose " + std::to_string(int(k.transpose)) + " reverse " + std::to_string(int(k.reverse)));
    std::vector<uint8_t> memory(256, 0);
    for (uint32_t h = 0; h < H; ++h)
      for (uint32_t w = 0; w < W; ++w)
        for (uint32_t c = 0; c < C; ++c) memory[(h * W + w) * C + c] = value(h, w, c);
    Regions regions{};
    regions[1] = {memory.data(), memory.size()};
    const std::vector<uint8_t> lut_ram(2048);
    U85Runner runner(regions, lut_ram, isa::architecture(isa::Variant::U85_256));
    isa::Operation op;
    op.version = isa::IsaVersion::V2;
    op.kind = isa::OpKind::POOL;
    op.pooling_mode = en::pooling_mode::SUM;
    op.ofm_scale_mode = en::ofm_scale_mode::GLOBAL;
    op.ofm_scale = {1, 0};
    op.activation.function = en::activation_function::LUT_NONE;
    op.activation.clip_range = en::activation_clip_range::NONE;
    op.ifm.region = 1;
    op.ifm.element.precision = en::activation_precision::B8;
    op.ifm.width0 = op.ifm.height0 = op.ifm.height1 = 100;
    op.ifm.width = W, op.ifm.height = H, op.ifm.depth = C;
    op.ifm.stride_c = 1, op.ifm.stride_x = C, op.ifm.stride_y = W * C;
    op.ofm = op.ifm;  // computed extents H x W x C
    op.ofm.base[0] = 128;
    op.transpose = k.transpose;
    op.reverse = k.reverse;
    // The stored tensor's extents and NHWC strides.
    const auto last = k.stored(H - 1, W - 1, C - 1), first = k.stored(0, 0, 0);
    const uint32_t sw = std::max(first[1], last[1]) + 1, sc = std::max(first[2], last[2]) + 1;
    op.ofm.stride_c = 1, op.ofm.stride_x = sc, op.ofm.stride_y = int64_t{sw} * sc;
    ASSERT_FALSE(isa::unknown_behaviour(op).has_value()) << *isa::unknown_behaviour(op);
    runner.execute(op);
    for (uint32_t h = 0; h < H; ++h)
      for (uint32_t w = 0; w < W; ++w)
        for (uint32_t c = 0; c < C; ++c) {
          const auto s = k.stored(h, w, c);
          EXPECT_EQ(memory[128 + (s[0] * sw + s[1]) * sc + s[2]], value(h, w, c)) << h << "," << w << "," << c;
          const isa::OfmCoord at = isa::stored_ofm_coord(op, {w, h, c});
          EXPECT_EQ((std::array<uint32_t, 3>{at.y, at.x, at.c}), s);
        }
    const isa::OfmCoord e = isa::stored_ofm_extents(op);
    EXPECT_EQ(uint64_t{e.x} * e.y * e.c, uint64_t{H} * W * C);
    // The bounds checks see the stored tensor's bytes, not the computed extents over the stored strides.
    for (const AccessRange& a : accesses(op)) {
      if (a.access != isa::Access::OFM) continue;
      EXPECT_EQ(a.span.lo, 128);
      EXPECT_EQ(a.span.hi, int64_t{128 + H * W * C});
    }
    EXPECT_EQ(e.x, sw);
    EXPECT_EQ(e.c, sc);
  }
}

TEST(U85Runner, RefusesAModeItDoesNotModelByName) {
  std::vector<uint8_t> memory(64, 0);
  Regions regions{};
  regions[1] = {memory.data(), memory.size()};
  const std::vector<uint8_t> lut_ram(2048);
  U85Runner runner(regions, lut_ram, isa::architecture(isa::Variant::U85_128));
  isa::Operation op;
  op.version = isa::IsaVersion::V2;
  op.kind = isa::OpKind::ELEMENTWISE;
  op.elementwise_mode = isa::enums::elementwise_mode::ADD;
  op.ofm_scale_mode = isa::enums::ofm_scale_mode::GLOBAL;
  op.activation.function = isa::enums::activation_function::LUT_S16_S32;
  try {
    runner.execute(op);
    ADD_FAILURE() << "LUT_S16_S32 ran";
  } catch (const UnknownBehaviour& e) {
    EXPECT_NE(std::string(e.what()).find("LUT_S16_S32"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ethosu::kernels::u85
