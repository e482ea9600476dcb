// Validator extents and findings on hand-built streams.
#include "isa/validator.h"

#include <gtest/gtest.h>

#include "isa/assembler.h"
#include "stream_builder.h"

#include <initializer_list>
#include <string>
#include <random>
#include <utility>
#include <vector>

namespace ethosu::isa {
namespace {

using test::FV;

struct Builder : test::StreamBuilder {
  // A single-tile feature map with default strides. which: 0 IFM, 1 IFM2, 2 OFM.
  void fm(int which, unsigned region, uint64_t base, uint32_t w, uint32_t h, uint32_t c, bool nhcwb16 = false,
          unsigned precision = 0) {
    static const Cmd regs[3][9] = {
        {Cmd::NPU_SET_IFM_REGION, Cmd::NPU_SET_IFM_BASE0, Cmd::NPU_SET_IFM_WIDTH0_M1, Cmd::NPU_SET_IFM_HEIGHT0_M1,
         Cmd::NPU_SET_IFM_HEIGHT1_M1, Cmd::NPU_SET_IFM_STRIDE_X, Cmd::NPU_SET_IFM_STRIDE_Y, Cmd::NPU_SET_IFM_STRIDE_C,
         Cmd::NPU_SET_IFM_PRECISION},
        {Cmd::NPU_SET_IFM2_REGION, Cmd::NPU_SET_IFM2_BASE0, Cmd::NPU_SET_IFM2_WIDTH0_M1,
         Cmd::NPU_SET_IFM2_HEIGHT0_M1, Cmd::NPU_SET_IFM2_HEIGHT1_M1, Cmd::NPU_SET_IFM2_STRIDE_X,
         Cmd::NPU_SET_IFM2_STRIDE_Y, Cmd::NPU_SET_IFM2_STRIDE_C, Cmd::NPU_SET_IFM2_PRECISION},
        {Cmd::NPU_SET_OFM_REGION, Cmd::NPU_SET_OFM_BASE0, Cmd::NPU_SET_OFM_WIDTH0_M1, Cmd::NPU_SET_OFM_HEIGHT0_M1,
         Cmd::NPU_SET_OFM_HEIGHT1_M1, Cmd::NPU_SET_OFM_STRIDE_X, Cmd::NPU_SET_OFM_STRIDE_Y, Cmd::NPU_SET_OFM_STRIDE_C,
         Cmd::NPU_SET_OFM_PRECISION}};
    const Cmd* r = regs[which];
    const int64_t es = int64_t{1} << precision;
    const int64_t cr = (c + 15) / 16 * 16;
    raw(r[0], region);
    raw(r[1], static_cast<int64_t>(base));
    raw(r[2], w - 1);
    raw(r[3], h - 1);
    raw(r[4], h - 1);
    raw(r[5], nhcwb16 ? 16 * es : c * es);
    raw(r[6], nhcwb16 ? w * cr * es : w * c * es);
    raw(r[7], nhcwb16 ? 16 * es * w : es);
    const FieldInfo* f = find_field(r[8], "activation_precision");
    const FieldInfo* l = find_field(r[8], "activation_format");
    const FieldInfo* t = find_field(r[8], "activation_type");
    bits(r[8], set(set(set(header_bits(r[8]), *f, precision), *l, nhcwb16 ? 1 : 0), *t, 1));
    if (which == 0) emit(Cmd::NPU_SET_IFM_DEPTH_M1, {{Field::NPU_SET_IFM_DEPTH_M1_depth_m1, c - 1}});
    if (which == 2) {
      emit(Cmd::NPU_SET_OFM_WIDTH_M1, {{Field::NPU_SET_OFM_WIDTH_M1_width_m1, w - 1}});
      emit(Cmd::NPU_SET_OFM_HEIGHT_M1, {{Field::NPU_SET_OFM_HEIGHT_M1_height_m1, h - 1}});
      emit(Cmd::NPU_SET_OFM_DEPTH_M1, {{Field::NPU_SET_OFM_DEPTH_M1_depth_m1, c - 1}});
    }
  }
  // Writes the command's only (first) field.
  void raw(Cmd c, int64_t v) { bits(c, set(header_bits(c), *fields_of(c).begin(), v)); }
  void bits(Cmd c, uint64_t b) {
    word(static_cast<uint32_t>(b));
    if (is_cmd1(c)) word(static_cast<uint32_t>(b >> 32));
  }
  void kernel(uint32_t kw, uint32_t kh, uint32_t pad = 0) {
    emit(Cmd::NPU_SET_KERNEL_WIDTH_M1, {{Field::NPU_SET_KERNEL_WIDTH_M1_width_m1, kw - 1}});
    emit(Cmd::NPU_SET_KERNEL_HEIGHT_M1, {{Field::NPU_SET_KERNEL_HEIGHT_M1_height_m1, kh - 1}});
    emit(Cmd::NPU_SET_KERNEL_STRIDE);
    emit(Cmd::NPU_SET_IFM_PAD_TOP, {{Field::NPU_SET_IFM_PAD_TOP_pad, pad}});
    emit(Cmd::NPU_SET_IFM_PAD_LEFT, {{Field::NPU_SET_IFM_PAD_LEFT_pad, pad}});
    emit(Cmd::NPU_SET_IFM_PAD_RIGHT, {{Field::NPU_SET_IFM_PAD_RIGHT_pad, pad}});
    emit(Cmd::NPU_SET_IFM_PAD_BOTTOM, {{Field::NPU_SET_IFM_PAD_BOTTOM_pad, pad}});
  }
  // A SHRAM layout that fits small blocks: IFM banks 2..16, accumulators 16..46.
  void shram(uint32_t blk_w = 8, uint32_t blk_h = 8, uint32_t blk_d = 16, uint32_t ib_end = 16,
             uint32_t ab_start = 16) {
    emit(Cmd::NPU_SET_OFM_BLK_WIDTH_M1, {{Field::NPU_SET_OFM_BLK_WIDTH_M1_width_m1, blk_w - 1}});
    emit(Cmd::NPU_SET_OFM_BLK_HEIGHT_M1, {{Field::NPU_SET_OFM_BLK_HEIGHT_M1_height_m1, blk_h - 1}});
    emit(Cmd::NPU_SET_OFM_BLK_DEPTH_M1, {{Field::NPU_SET_OFM_BLK_DEPTH_M1_depth_m1, blk_d - 1}});
    emit(Cmd::NPU_SET_IFM_IB_END, {{Field::NPU_SET_IFM_IB_END_ib_end, ib_end}});
    emit(Cmd::NPU_SET_AB_START, {{Field::NPU_SET_AB_START_ab_start, ab_start}});
  }
  void weights(unsigned region, uint64_t base, uint32_t len) {
    emit(Cmd::NPU_SET_WEIGHT_REGION, {{Field::NPU_SET_WEIGHT_REGION_region, region}});
    emit(Cmd::NPU_SET_WEIGHT_BASE, {{Field::NPU_SET_WEIGHT_BASE_addr, static_cast<int64_t>(base)}});
    emit(Cmd::NPU_SET_WEIGHT_LENGTH, {{Field::NPU_SET_WEIGHT_LENGTH_length, len}});
  }
  void scales(unsigned region, uint64_t base, uint32_t len) {
    emit(Cmd::NPU_SET_SCALE_REGION, {{Field::NPU_SET_SCALE_REGION_region, region}});
    emit(Cmd::NPU_SET_SCALE_BASE, {{Field::NPU_SET_SCALE_BASE_addr, static_cast<int64_t>(base)}});
    emit(Cmd::NPU_SET_SCALE_LENGTH, {{Field::NPU_SET_SCALE_LENGTH_length, len}});
  }
};

void expect_extent(const Report& r, unsigned region, Access a, int64_t lowest, int64_t end) {
  const Extent& e = r.extent(region, a);
  EXPECT_TRUE(e.used) << access_name(a);
  EXPECT_EQ(e.lowest, lowest) << access_name(a);
  EXPECT_EQ(e.end, end) << access_name(a);
}

size_t count(const Report& r, Category c, Severity s) {
  size_t n = 0;
  for (const Finding& f : r.findings) n += f.category == c && f.severity == s;
  return n;
}

// A clean 3x3 SAME conv, 8x8x16 -> 8x8x32 int8 NHWC, IFM at region 1 offset 0x100.
Builder same_conv() {
  Builder b;
  b.fm(0, 1, 0x100, 8, 8, 16);
  b.fm(2, 1, 0x1000, 8, 8, 32);
  b.kernel(3, 3, 1);
  b.weights(0, 0x40, 0x200);
  b.scales(0, 0x400, 0x140);
  b.shram();
  return b;
}

TEST(Validator, NhwcConvExtentsAndNoFindings) {
  Builder b = same_conv();
  b.emit(Cmd::NPU_OP_CONV);
  const Report r = validate(b.finish());
  expect_extent(r, 1, Access::IFM, 0x100, 0x100 + 8 * 8 * 16);
  expect_extent(r, 1, Access::OFM, 0x1000, 0x1000 + 8 * 8 * 32);
  expect_extent(r, 0, Access::WEIGHTS, 0x40, 0x240);
  expect_extent(r, 0, Access::SCALES, 0x400, 0x540);
  EXPECT_FALSE(r.extent(1, Access::IFM2).used);
  EXPECT_EQ(r.operations, 1u);
  EXPECT_TRUE(r.findings.empty()) << render(r);
  EXPECT_EQ(r.region_extent(1).end, 0x1000 + 2048);
  EXPECT_EQ(r.reads(1).end, 0x100 + 1024);
  EXPECT_EQ(r.writes(1).lowest, 0x1000);
}

TEST(Validator, ValidPaddingAndStrideShrinkTheIfm) {
  Builder b;
  b.fm(0, 1, 0, 11, 11, 8);
  b.fm(2, 1, 0x1000, 5, 5, 8);
  b.kernel(3, 3, 0);
  b.emit(Cmd::NPU_SET_KERNEL_STRIDE, {{Field::NPU_SET_KERNEL_STRIDE_stride_x_lsb, 1},
                                      {Field::NPU_SET_KERNEL_STRIDE_stride_y_lsb, 1}});
  b.emit(Cmd::NPU_OP_POOL);
  const Report r = validate(b.finish());
  // (5-1)*2 + 3 = 11 per axis; max pooling reads no weights or scales even though none are set.
  expect_extent(r, 1, Access::IFM, 0, 11 * 11 * 8);
  EXPECT_FALSE(r.extent(0, Access::WEIGHTS).used);
  EXPECT_FALSE(r.extent(0, Access::SCALES).used);
}

TEST(Validator, Nhcwb16RoundsToWholeBricks) {
  Builder b;
  b.fm(0, 1, 0, 4, 4, 20, true);
  b.fm(2, 2, 0x200, 4, 4, 20, true);
  b.kernel(1, 1);
  b.emit(Cmd::NPU_OP_POOL);
  const Report r = validate(b.finish());
  // 2 bricks x 4 x 4 x 16 bytes = 512 for 20 channels.
  expect_extent(r, 1, Access::IFM, 0, 512);
  expect_extent(r, 2, Access::OFM, 0x200, 0x200 + 512);
}

TEST(Validator, UpscaleReadsHalfTheIfm) {
  Builder b;
  b.fm(0, 1, 0, 4, 4, 8);
  b.fm(2, 1, 0x1000, 8, 8, 8);
  b.kernel(1, 1);
  b.emit(Cmd::NPU_SET_IFM_UPSCALE, {{Field::NPU_SET_IFM_UPSCALE_mode, 1}});
  b.emit(Cmd::NPU_OP_POOL);
  const Report r = validate(b.finish());
  expect_extent(r, 1, Access::IFM, 0, 4 * 4 * 8);
}

TEST(Validator, MultiTileAndNegativeStrides) {
  Builder b;
  b.fm(0, 1, 0, 4, 4, 8);
  b.fm(2, 1, 0x1000, 6, 5, 8);
  // OFM: tiles at 0x1000/0x2000/0x3000/0x4000, width0 4, height0 3, height1 2, row stride 48.
  b.emit(Cmd::NPU_SET_OFM_WIDTH0_M1, {{Field::NPU_SET_OFM_WIDTH0_M1_width_m1, 3}});
  b.emit(Cmd::NPU_SET_OFM_HEIGHT0_M1, {{Field::NPU_SET_OFM_HEIGHT0_M1_height_m1, 2}});
  b.emit(Cmd::NPU_SET_OFM_HEIGHT1_M1, {{Field::NPU_SET_OFM_HEIGHT1_M1_height_m1, 1}});
  b.emit(Cmd::NPU_SET_OFM_BASE1, {{Field::NPU_SET_OFM_BASE1_addr, 0x2000}});
  b.emit(Cmd::NPU_SET_OFM_BASE2, {{Field::NPU_SET_OFM_BASE2_addr, 0x3000}});
  b.emit(Cmd::NPU_SET_OFM_BASE3, {{Field::NPU_SET_OFM_BASE3_addr, 0x4000}});
  b.emit(Cmd::NPU_SET_OFM_STRIDE_Y, {{Field::NPU_SET_OFM_STRIDE_Y_stride, 48}});
  // IFM walked backwards in y from row 3 (base at the last row, STRIDE_Y = -32).
  b.emit(Cmd::NPU_SET_IFM_BASE0, {{Field::NPU_SET_IFM_BASE0_addr, 0x100 + 3 * 32}});
  b.emit(Cmd::NPU_SET_IFM_STRIDE_Y, {{Field::NPU_SET_IFM_STRIDE_Y_stride, -32}});
  b.kernel(1, 1);
  // Make the IFM 6x5 too, reusing the OFM-sized extent through elementwise semantics.
  b.emit(Cmd::NPU_SET_IFM_WIDTH0_M1, {{Field::NPU_SET_IFM_WIDTH0_M1_width_m1, 5}});
  b.emit(Cmd::NPU_SET_IFM_HEIGHT0_M1, {{Field::NPU_SET_IFM_HEIGHT0_M1_height_m1, 4}});
  b.emit(Cmd::NPU_SET_IFM_HEIGHT1_M1, {{Field::NPU_SET_IFM_HEIGHT1_M1_height_m1, 4}});
  b.emit(Cmd::NPU_OP_POOL);
  const Report r = validate(b.finish());
  // OFM: tile 3 (x 4..5, y 2..4 local 0..2) ends at 0x4000 + 2*48 + 1*8 + 8.
  expect_extent(r, 1, Access::OFM, 0x1000, 0x4000 + 2 * 48 + 8 + 8);
  // IFM 6x5: rows 0..4 at 0x160 - 32*y: lowest 0x160 - 128, end 0x160 + 5*8.
  expect_extent(r, 1, Access::IFM, 0x160 - 4 * 32, 0x160 + 6 * 8);
}

TEST(Validator, FeatureMapSpanMatchesElementOffsets) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 300; ++iter) {
    auto u = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    auto s = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    FeatureMap fm;
    fm.element.precision = static_cast<enums::activation_precision>(u(0, 2));
    fm.element.format = static_cast<enums::activation_format>(u(0, 1));
    for (auto& base : fm.base) base = 0x10000 + u(0, 4096);
    fm.width0 = u(1, 6);
    fm.height0 = u(1, 6);
    fm.height1 = u(1, 6);
    fm.stride_x = s(-64, 64);
    fm.stride_y = s(-512, 512);
    fm.stride_c = s(-1024, 1024);
    const uint32_t w = u(1, 9), h = u(1, 9), d = u(1, 40);
    const uint32_t dr = fm.element.nhcwb16() ? (d + 15) / 16 * 16 : d;  // whole bricks
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x)
        for (uint32_t c = 0; c < dr; ++c) {
          const int64_t a = element_offset(fm, x, y, c);
          lo = std::min(lo, a);
          hi = std::max(hi, a + int64_t{fm.element.bytes()});
        }
    const Span sp = feature_map_span(fm, w, h, d);
    ASSERT_EQ(sp.lo, lo) << "iteration " << iter;
    ASSERT_EQ(sp.hi, hi) << "iteration " << iter;
  }
}

TEST(Validator, ElementwiseBroadcastAndScalar) {
  Builder b;
  b.fm(0, 1, 0, 8, 4, 16);
  b.fm(1, 1, 0x800, 8, 4, 16);
  b.fm(2, 1, 0x1000, 8, 4, 16);
  b.shram(8, 4, 16, 46, 46);
  b.emit(Cmd::NPU_SET_IFM2_IB_START, {{Field::NPU_SET_IFM2_IB_START_ib_start, 10}});
  b.emit(Cmd::NPU_SET_IFM2_BROADCAST, {{Field::NPU_SET_IFM2_BROADCAST_broadcast_h, 1}});
  b.emit(Cmd::NPU_SET_OFM_SCALE, {{Field::NPU_SET_OFM_SCALE_scale, 1}});
  b.emit(Cmd::NPU_OP_ELEMENTWISE, {{Field::NPU_OP_ELEMENTWISE_elementwise_mode, 1}});
  const Report row = validate(b.finish());
  expect_extent(row, 1, Access::IFM, 0, 8 * 4 * 16);
  expect_extent(row, 1, Access::IFM2, 0x800, 0x800 + 8 * 16);  // one row
  EXPECT_TRUE(row.findings.empty()) << render(row);

  Builder c;
  c.fm(0, 1, 0, 8, 4, 16);
  c.fm(2, 1, 0x1000, 8, 4, 16);
  c.shram(8, 4, 16, 46, 46);
  c.emit(Cmd::NPU_SET_IFM2_BROADCAST, {{Field::NPU_SET_IFM2_BROADCAST_broadcast_constant, 1}});
  c.emit(Cmd::NPU_SET_IFM2_PRECISION, {{Field::NPU_SET_IFM2_PRECISION_activation_type, 1}});
  c.emit(Cmd::NPU_OP_ELEMENTWISE, {{Field::NPU_OP_ELEMENTWISE_elementwise_mode, 0}});
  const Report scalar = validate(c.finish());
  EXPECT_FALSE(scalar.extent(1, Access::IFM2).used);
  EXPECT_EQ(scalar.count(Severity::ERROR), 0u) << render(scalar);
}

TEST(Validator, DmaExtents1d2d3dAndInternal) {
  Builder b;
  b.emit(Cmd::NPU_SET_DMA0_SRC_REGION, {{Field::NPU_SET_DMA0_SRC_REGION_region, 0}});
  b.emit(Cmd::NPU_SET_DMA0_SRC, {{Field::NPU_SET_DMA0_SRC_addr, 0x100}});
  b.emit(Cmd::NPU_SET_DMA0_DST_REGION, {{Field::NPU_SET_DMA0_DST_REGION_region, 2}});
  b.emit(Cmd::NPU_SET_DMA0_DST, {{Field::NPU_SET_DMA0_DST_addr, 0x40}});
  b.emit(Cmd::NPU_SET_DMA0_LEN, {{Field::NPU_SET_DMA0_LEN_length, 0x80}});
  b.emit(Cmd::NPU_OP_DMA_START);  // 1D: src [0x100, 0x180), dst [0x40, 0xc0)
  b.emit(Cmd::NPU_SET_DMA0_SRC_REGION, {{Field::NPU_SET_DMA0_SRC_REGION_region, 3},
                                        {Field::NPU_SET_DMA0_SRC_REGION_stride_mode, 1}});
  b.emit(Cmd::NPU_SET_DMA0_SIZE0, {{Field::NPU_SET_DMA0_SIZE0_size, 4}});
  b.emit(Cmd::NPU_SET_DMA0_SIZE1, {{Field::NPU_SET_DMA0_SIZE1_size, 3}});
  b.emit(Cmd::NPU_SET_DMA0_SKIP0, {{Field::NPU_SET_DMA0_SKIP0_skip, 0x20}});
  b.emit(Cmd::NPU_SET_DMA0_SKIP1, {{Field::NPU_SET_DMA0_SKIP1_skip, 0x100}});
  b.emit(Cmd::NPU_OP_DMA_START);  // 2D src: rows at 0xa0 steps; dst 1D 4*0x80
  b.emit(Cmd::NPU_SET_DMA0_DST_REGION, {{Field::NPU_SET_DMA0_DST_REGION_region, 4},
                                        {Field::NPU_SET_DMA0_DST_REGION_stride_mode, 2}});
  b.emit(Cmd::NPU_OP_DMA_START);  // 3D dst: planes at 4*0xa0+0x100 = 0x380
  b.emit(Cmd::NPU_SET_DMA0_SRC_REGION, {{Field::NPU_SET_DMA0_SRC_REGION_region, 0}});
  b.emit(Cmd::NPU_SET_DMA0_DST_REGION, {{Field::NPU_SET_DMA0_DST_REGION_region, 3},
                                        {Field::NPU_SET_DMA0_DST_REGION_region_mode, 1}});
  b.emit(Cmd::NPU_SET_DMA0_DST, {{Field::NPU_SET_DMA0_DST_addr, 0xB800}});
  b.emit(Cmd::NPU_SET_DMA0_LEN, {{Field::NPU_SET_DMA0_LEN_length, 256}});
  b.emit(Cmd::NPU_OP_DMA_START);  // LUT load into SHRAM
  const Report r = validate(b.finish());
  expect_extent(r, 0, Access::DMA_SRC, 0x100, 0x100 + 256);
  expect_extent(r, 2, Access::DMA_DST, 0x40, 0xc0 + 3 * 0x80);
  expect_extent(r, 3, Access::DMA_SRC, 0x100, 0x100 + 11 * 0xa0 + 0x80);  // 2D side, 12 rows with the 3D dst
  expect_extent(r, 4, Access::DMA_DST, 0x40, 0x40 + 2 * 0x380 + 3 * 0xa0 + 0x80);
  EXPECT_FALSE(r.extent(3, Access::DMA_DST).used);  // internal: region field is a core mask
  EXPECT_TRUE(r.shram.used);
  EXPECT_EQ(r.shram.lowest, 0xB800);
  EXPECT_EQ(r.shram.end, 0xB900);
  EXPECT_EQ(r.count(Severity::ERROR), 0u) << render(r);
}

TEST(Validator, OutOfRegionReportsOffsetOperationAndRange) {
  Builder b = same_conv();
  const uint32_t at = b.emit(Cmd::NPU_OP_CONV);
  ValidatorOptions opt;
  opt.region_size_bytes[0] = 0x1000;
  opt.region_size_bytes[1] = 0x1400;  // OFM needs 0x1800
  const Report r = validate(b.finish(), opt);
  ASSERT_EQ(r.count(Category::OUT_OF_REGION), 1u) << render(r);
  const Finding& f = r.findings.front();
  EXPECT_EQ(f.offset, at);
  EXPECT_EQ(f.operation, "NPU_OP_CONV");
  ASSERT_TRUE(f.access.has_value());
  EXPECT_EQ(*f.access, Access::OFM);
  EXPECT_EQ(f.region, 1);
  EXPECT_EQ(f.range.lo, 0x1000);
  EXPECT_EQ(f.range.hi, 0x1800);
  EXPECT_EQ(f.region_size_bytes, 0x1400u);
  EXPECT_NE(f.message.find(hex_offset(at)), std::string::npos);
  const std::string text = render(r);
  EXPECT_NE(text.find("out-of-region"), std::string::npos);
  EXPECT_NE(text.find("0x1800"), std::string::npos);
}

TEST(Validator, NegativeStrideBelowRegionIsReported) {
  Builder b = same_conv();
  b.emit(Cmd::NPU_SET_IFM_STRIDE_Y, {{Field::NPU_SET_IFM_STRIDE_Y_stride, -128}});
  b.emit(Cmd::NPU_OP_CONV);
  const Report r = validate(b.finish());
  ASSERT_EQ(r.count(Category::OUT_OF_REGION), 1u) << render(r);
  EXPECT_EQ(r.findings.front().range.lo, 0x100 - 7 * 128);
}

TEST(Validator, ShramOverflowAndOverlap) {
  Builder b = same_conv();
  b.shram(8, 8, 128, 16, 32);  // the 8x8x128 block on an 8x8x32 OFM: int32 accumulators need 2 x 8 banks, 14 left
  b.emit(Cmd::NPU_OP_CONV);
  Builder c = same_conv();
  c.shram(8, 8, 16, 20, 16);  // IB_END beyond AB_START
  c.emit(Cmd::NPU_OP_CONV);
  Builder d = same_conv();
  d.shram(8, 8, 16, 4, 16);  // IFM block 10x10x16 needs 4 banks, only 2 given
  d.emit(Cmd::NPU_OP_CONV);
  EXPECT_EQ(count(validate(b.finish()), Category::SHRAM, Severity::ERROR), 1u);
  EXPECT_EQ(count(validate(c.finish()), Category::SHRAM, Severity::ERROR), 1u);
  EXPECT_EQ(count(validate(d.finish()), Category::SHRAM, Severity::ERROR), 1u);
  EXPECT_EQ(count(validate(same_conv().finish()), Category::SHRAM, Severity::ERROR), 0u);
}

TEST(Validator, UnsupportedOnU65) {
  Builder b = same_conv();
  b.emit(Cmd::NPU_SET_WEIGHT1_BASE, {{Field::NPU_SET_WEIGHT1_BASE_addr, 0x800}});
  b.emit(Cmd::NPU_SET_WEIGHT1_LENGTH, {{Field::NPU_SET_WEIGHT1_LENGTH_length, 0x100}});
  b.emit(Cmd::NPU_SET_PARALLEL_MODE, {{Field::NPU_SET_PARALLEL_MODE_parallel_mode, 1}});
  b.emit(Cmd::NPU_SET_ACC_FORMAT, {{Field::NPU_SET_ACC_FORMAT_acc_format, 2}});
  b.emit(Cmd::NPU_SET_KERNEL_STRIDE, {{Field::NPU_SET_KERNEL_STRIDE_stride_x_lsb, 1},
                                      {Field::NPU_SET_KERNEL_STRIDE_stride_x_msb, 1},
                                      {Field::NPU_SET_KERNEL_STRIDE_decomposition, 1}});
  b.emit(Cmd::NPU_OP_CONV);
  const Stream s = b.finish();
  const Report r256 = validate(s);
  EXPECT_EQ(count(r256, Category::UNSUPPORTED, Severity::ERROR), 1u) << render(r256);  // dual core on -256
  EXPECT_EQ(count(r256, Category::UNSUPPORTED, Severity::WARNING), 3u) << render(r256);  // F16, stride 4, 4x4
  ValidatorOptions o512;
  o512.variant = Variant::U65_512;
  const Report r512 = validate(s, o512);
  EXPECT_EQ(count(r512, Category::UNSUPPORTED, Severity::ERROR), 0u) << render(r512);
  // Only the dual-core variant runs the second core, which reads WEIGHT1.
  expect_extent(r512, 0, Access::WEIGHTS, 0x40, 0x900);
  expect_extent(r256, 0, Access::WEIGHTS, 0x40, 0x240);

  Builder p = same_conv();
  p.emit(Cmd::NPU_SET_OFM_PRECISION, {{Field::NPU_SET_OFM_PRECISION_activation_precision, 3}});
  p.emit(Cmd::NPU_OP_CONV);
  EXPECT_EQ(count(validate(p.finish()), Category::UNSUPPORTED, Severity::ERROR), 1u);
}

TEST(Validator, AlignmentRules) {
  Builder b = same_conv();
  b.emit(Cmd::NPU_SET_OFM_BASE0, {{Field::NPU_SET_OFM_BASE0_addr, 0x1001}});
  b.emit(Cmd::NPU_OP_CONV);
  const Report r = validate(b.finish());
  EXPECT_EQ(r.count(Category::ALIGNMENT), 0u) << "int8 NHWC: any base is aligned";
  Builder c;
  c.fm(0, 1, 0x108, 4, 4, 32, true);  // NHCWB16 base not 16-aligned
  c.fm(2, 1, 0x1000, 4, 4, 32, true);
  c.kernel(1, 1);
  c.weights(0, 0x44, 0x200);  // not read by pooling
  c.emit(Cmd::NPU_OP_POOL);
  const Report rc = validate(c.finish());
  EXPECT_EQ(rc.count(Category::ALIGNMENT), 1u) << render(rc);
  Builder d = same_conv();
  d.weights(0, 0x44, 0x200);
  d.emit(Cmd::NPU_OP_CONV);
  EXPECT_EQ(validate(d.finish()).count(Category::ALIGNMENT), 1u);
}

TEST(Validator, LinuxRejections) {
  Builder b = same_conv();
  const uint32_t irq = b.emit(Cmd::NPU_OP_IRQ);
  b.emit(Cmd::NPU_OP_CONV);
  b.emit(Cmd::NPU_OP_STOP);
  b.emit(Cmd::NPU_OP_CONV);
  const Report r = validate(b.finish());
  size_t irq_found = 0, stop_found = 0;
  for (const Finding& f : r.findings) {
    if (f.category != Category::LINUX) continue;
    irq_found += f.offset == irq;
    stop_found += f.message.find("not the last") != std::string::npos;
  }
  EXPECT_EQ(irq_found, 1u) << render(r);
  EXPECT_GE(stop_found, 1u) << render(r);
  EXPECT_GE(r.count(Category::DECODE), 1u);

  Builder u;  // a conv on never-written registers
  u.emit(Cmd::NPU_OP_CONV);
  const Report ru = validate(u.finish());
  EXPECT_EQ(count(ru, Category::LINUX, Severity::WARNING), 1u) << render(ru);
  EXPECT_NE(ru.findings.front().message.find("NPU_SET_IFM_BASE0"), std::string::npos);
}

TEST(Validator, RenderListsExtentTable) {
  Builder b = same_conv();
  b.emit(Cmd::NPU_OP_CONV);
  ValidatorOptions opt;
  opt.region_size_bytes[1] = 0x2000;
  const std::string text = render(validate(b.finish(), opt));
  EXPECT_NE(text.find("1 operation(s), 0 error(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("IFM"), std::string::npos);
  EXPECT_NE(text.find("0x1800"), std::string::npos);
  EXPECT_NE(text.find("0x2000"), std::string::npos);
}

// A 1x1 convolution whose OFM is one row high under a block two rows high (Vela's usual layout for
// MobileNet's last layers and fully connected ops), in the project's assembler text.
std::string one_row_conv(unsigned ab_start) {
  return R"(
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_BASE0 addr=0
NPU_SET_IFM_WIDTH0_M1 width_m1=7
NPU_SET_IFM_HEIGHT0_M1 height_m1=0
NPU_SET_IFM_HEIGHT1_M1 height_m1=0
NPU_SET_IFM_DEPTH_M1 depth_m1=15
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_IFM_STRIDE_Y stride=128
NPU_SET_IFM_STRIDE_X stride=16
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8
NPU_SET_IFM_PAD_TOP pad=0
NPU_SET_IFM_PAD_LEFT pad=0
NPU_SET_IFM_PAD_BOTTOM pad=0
NPU_SET_IFM_PAD_RIGHT pad=0
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x400
NPU_SET_OFM_WIDTH0_M1 width_m1=7
NPU_SET_OFM_HEIGHT0_M1 height_m1=0
NPU_SET_OFM_HEIGHT1_M1 height_m1=0
NPU_SET_OFM_WIDTH_M1 width_m1=7
NPU_SET_OFM_HEIGHT_M1 height_m1=0
NPU_SET_OFM_DEPTH_M1 depth_m1=63
NPU_SET_OFM_STRIDE_C stride=1
NPU_SET_OFM_STRIDE_Y stride=512
NPU_SET_OFM_STRIDE_X stride=64
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B8 scale_mode=PER_CHANNEL
NPU_SET_KERNEL_WIDTH_M1 width_m1=0
NPU_SET_KERNEL_HEIGHT_M1 height_m1=0
NPU_SET_KERNEL_STRIDE
NPU_SET_WEIGHT_REGION region=0
NPU_SET_WEIGHT_BASE addr=0
NPU_SET_WEIGHT_LENGTH length=0x800
NPU_SET_SCALE_REGION region=0
NPU_SET_SCALE_BASE addr=0x800
NPU_SET_SCALE_LENGTH length=0x280
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=7
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=1
NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=63
NPU_SET_IFM_IB_END ib_end=4
NPU_SET_AB_START ab_start=)" + std::to_string(ab_start) + R"(
NPU_SET_ACC_FORMAT acc_format=I32
NPU_OP_CONV
NPU_OP_STOP mask=0xffff
)";
}

Report validate_text(const std::string& text) {
  const std::vector<uint8_t> bytes = assemble(text, "test.s");
  return validate(decode(bytes.data(), bytes.size()));
}

TEST(Validator, AccumulatorsHoldTheTileClippedToTheOfm) {
  // 8x1x64 int32 accumulators (the 8x2x64 block clipped to the one-row OFM): 2 KiB, 2 x 2 banks.
  const Report fits = validate_text(one_row_conv(42));  // banks 42..45 below the LUT at 46
  EXPECT_EQ(count(fits, Category::SHRAM, Severity::ERROR), 0u) << render(fits);
  const Report over = validate_text(one_row_conv(44));
  ASSERT_EQ(count(over, Category::SHRAM, Severity::ERROR), 1u) << render(over);
  EXPECT_NE(render(over).find("8x1x64 (clipped to the OFM) need 4 banks from AB_START 44"), std::string::npos)
      << render(over);
}

TEST(Validator, SmallU55sLendTheLutBanksToOperationsWithoutALut) {
  // The U55-32 has 16 banks and keeps none for the LUT: accumulators in banks 12..15 fit unless the operation
  // reads the LUT, which then holds banks 14 and 15 (Vela's ethos_u55.hpp).
  ValidatorOptions u55;
  u55.variant = Variant::U55_32;
  const auto run = [&](const std::string& text) {
    const std::vector<uint8_t> bytes = assemble(text, "test.s");
    return validate(decode(bytes.data(), bytes.size()), u55);
  };
  const std::string plain = one_row_conv(12);
  const Report fits = run(plain);
  EXPECT_EQ(count(fits, Category::SHRAM, Severity::ERROR), 0u) << render(fits);
  std::string with_lut = plain;
  with_lut.insert(with_lut.find("NPU_OP_CONV"), "NPU_SET_ACTIVATION activation_function=TABLE_0\n");
  const Report over = run(with_lut);
  EXPECT_EQ(count(over, Category::SHRAM, Severity::ERROR), 1u) << render(over);
  EXPECT_NE(render(over).find("from AB_START 12, beyond bank 14"), std::string::npos) << render(over);
  // The U55-256's 48 banks keep the LUT's two whatever the operation.
  u55.variant = Variant::U55_256;
  const Report big = run(one_row_conv(45));
  EXPECT_EQ(count(big, Category::SHRAM, Severity::ERROR), 1u) << render(big);
}

// An elementwise op of a 16-bit IFM and an 8-bit IFM2 in the project's assembler text; `mode` and
// `scale_mode` pick the operation.
std::string mixed_elementwise(const std::string& mode, const std::string& scale_mode,
                              const std::string& ifm2_precision, const std::string& ifm2_type = "UNSIGNED") {
  return R"(
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_BASE0 addr=0
NPU_SET_IFM_WIDTH0_M1 width_m1=3
NPU_SET_IFM_HEIGHT0_M1 height_m1=0
NPU_SET_IFM_HEIGHT1_M1 height_m1=0
NPU_SET_IFM_DEPTH_M1 depth_m1=3
NPU_SET_IFM_STRIDE_C stride=2
NPU_SET_IFM_STRIDE_Y stride=32
NPU_SET_IFM_STRIDE_X stride=8
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B16 scale_mode=)" + scale_mode + R"(
NPU_SET_IFM2_REGION region=1
NPU_SET_IFM2_BASE0 addr=0x100
NPU_SET_IFM2_WIDTH0_M1 width_m1=3
NPU_SET_IFM2_HEIGHT0_M1 height_m1=0
NPU_SET_IFM2_HEIGHT1_M1 height_m1=0
NPU_SET_IFM2_STRIDE_C stride=)" + std::to_string(ifm2_precision == "B32" ? 4 : 1) + R"(
NPU_SET_IFM2_STRIDE_Y stride=16
NPU_SET_IFM2_STRIDE_X stride=4
NPU_SET_IFM2_PRECISION activation_type=)" + ifm2_type + R"( activation_precision=)" + ifm2_precision + R"(
NPU_SET_IFM2_BROADCAST
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x200
NPU_SET_OFM_WIDTH0_M1 width_m1=3
NPU_SET_OFM_HEIGHT0_M1 height_m1=0
NPU_SET_OFM_HEIGHT1_M1 height_m1=0
NPU_SET_OFM_WIDTH_M1 width_m1=3
NPU_SET_OFM_HEIGHT_M1 height_m1=0
NPU_SET_OFM_DEPTH_M1 depth_m1=3
NPU_SET_OFM_STRIDE_C stride=2
NPU_SET_OFM_STRIDE_Y stride=32
NPU_SET_OFM_STRIDE_X stride=8
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B16 scale_mode=GLOBAL
NPU_SET_OFM_SCALE scale=1 shift=0
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=3
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=0
NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=15
NPU_SET_IFM_IB_END ib_end=8
NPU_SET_IFM2_IB_START ib_start=8
NPU_OP_ELEMENTWISE elementwise_mode=)" + mode + R"(
NPU_OP_STOP mask=0xffff
)";
}

TEST(Validator, TypeRulesAreTheOnesTheModelRuns) {
  // int16 x uint8 multiplies run exactly (each operand is read as its own type): no finding.
  const Report mul = validate_text(mixed_elementwise("MUL", "OPA_OPB_16", "B8"));
  EXPECT_EQ(mul.count(Category::UNSUPPORTED), 0u) << render(mul);
  EXPECT_TRUE(mul.ok()) << render(mul);
  // What the model refuses, validate names: a 32-bit operand mixed with a narrower one, or the
  // operand pre-shift of a 32-bit ADD scale mode between 8- and 16-bit operands.
  const Report wide = validate_text(mixed_elementwise("MUL", "OPA_OPB_16", "B32", "SIGNED"));
  EXPECT_EQ(count(wide, Category::UNSUPPORTED, Severity::WARNING), 1u) << render(wide);
  EXPECT_NE(render(wide).find("IFM of 16 bits with an IFM2 of 32 bits"), std::string::npos) << render(wide);
  const Report add = validate_text(mixed_elementwise("ADD", "OPA_32", "B8"));
  EXPECT_EQ(count(add, Category::UNSUPPORTED, Severity::WARNING), 1u) << render(add);
  EXPECT_EQ(validate_text(mixed_elementwise("ADD", "OPA_OPB_16", "B8")).count(Category::UNSUPPORTED), 0u);
}

}  // namespace
}  // namespace ethosu::isa
