// Operation description, addressing rule and stream walker on hand-built command words.
#include "isa/operation.h"

#include <gtest/gtest.h>

#include "stream_builder.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ethosu::isa {
namespace {

using test::FV;
using Builder = test::StreamBuilder;

// The operation at `index` among the OPERATION events of s.
Operation nth_operation(const Stream& s, size_t index) {
  std::vector<Operation> ops;
  walk(s, [&](const Event& e, const StreamState&) {
    if (e.kind == EventKind::OPERATION) ops.push_back(*e.operation);
  });
  EXPECT_GT(ops.size(), index);
  return ops.at(index);
}

TEST(Operation, ConvKernelStrideDilationAndIfmExtent) {
  Builder b;
  b.emit(Cmd::NPU_SET_OFM_WIDTH_M1, {{Field::NPU_SET_OFM_WIDTH_M1_width_m1, 9}});
  b.emit(Cmd::NPU_SET_OFM_HEIGHT_M1, {{Field::NPU_SET_OFM_HEIGHT_M1_height_m1, 4}});
  b.emit(Cmd::NPU_SET_OFM_DEPTH_M1, {{Field::NPU_SET_OFM_DEPTH_M1_depth_m1, 31}});
  b.emit(Cmd::NPU_SET_IFM_DEPTH_M1, {{Field::NPU_SET_IFM_DEPTH_M1_depth_m1, 7}});
  b.emit(Cmd::NPU_SET_KERNEL_WIDTH_M1, {{Field::NPU_SET_KERNEL_WIDTH_M1_width_m1, 4}});   // 3 taps, dilation 2
  b.emit(Cmd::NPU_SET_KERNEL_HEIGHT_M1, {{Field::NPU_SET_KERNEL_HEIGHT_M1_height_m1, 2}});  // 3 taps
  // stride x = 3 (msb 1, lsb 0), stride y = 4 (msb 1, lsb 1), dilation x2 in X, part-kernel-first
  b.emit(Cmd::NPU_SET_KERNEL_STRIDE, {{Field::NPU_SET_KERNEL_STRIDE_stride_x_msb, 1},
                                      {Field::NPU_SET_KERNEL_STRIDE_stride_y_msb, 1},
                                      {Field::NPU_SET_KERNEL_STRIDE_stride_y_lsb, 1},
                                      {Field::NPU_SET_KERNEL_STRIDE_dilation_x, 1},
                                      {Field::NPU_SET_KERNEL_STRIDE_weight_order, 1}});
  b.emit(Cmd::NPU_SET_IFM_PAD_LEFT, {{Field::NPU_SET_IFM_PAD_LEFT_pad, 2}});
  b.emit(Cmd::NPU_SET_IFM_PAD_RIGHT, {{Field::NPU_SET_IFM_PAD_RIGHT_pad, 1}});
  b.emit(Cmd::NPU_SET_IFM_PAD_TOP, {{Field::NPU_SET_IFM_PAD_TOP_pad, 1}});
  b.emit(Cmd::NPU_SET_IFM_PRECISION, {{Field::NPU_SET_IFM_PRECISION_activation_type, 1},
                                      {Field::NPU_SET_IFM_PRECISION_activation_precision, 1},
                                      {Field::NPU_SET_IFM_PRECISION_scale_mode, 2},
                                      {Field::NPU_SET_IFM_PRECISION_round_mode, 2}});
  b.emit(Cmd::NPU_SET_OFM_PRECISION, {{Field::NPU_SET_OFM_PRECISION_activation_format, 1},
                                      {Field::NPU_SET_OFM_PRECISION_scale_mode, 1},
                                      {Field::NPU_SET_OFM_PRECISION_round_mode, 1}});
  b.emit(Cmd::NPU_SET_WEIGHT1_BASE, {{Field::NPU_SET_WEIGHT1_BASE_addr, 0x12'3456'7890}});
  b.emit(Cmd::NPU_SET_IFM_STRIDE_X, {{Field::NPU_SET_IFM_STRIDE_X_stride, -3}});
  b.emit(Cmd::NPU_SET_OFM_SCALE, {{Field::NPU_SET_OFM_SCALE_scale, 0x80000001}, {Field::NPU_SET_OFM_SCALE_shift, 33}});
  b.emit(Cmd::NPU_SET_ACTIVATION_MIN, {{Field::NPU_SET_ACTIVATION_MIN_clip_boundary, -128}});
  b.emit(Cmd::NPU_OP_CONV);
  const Operation op = nth_operation(b.finish(), 0);

  EXPECT_EQ(op.kind, OpKind::CONV);
  EXPECT_EQ(op.kernel.width, 3u);
  EXPECT_EQ(op.kernel.dilated_width, 5u);
  EXPECT_EQ(op.kernel.height, 3u);
  EXPECT_EQ(op.kernel.dilation_x, 2u);
  EXPECT_EQ(op.kernel.dilation_y, 1u);
  EXPECT_EQ(op.kernel.stride_x, 3u);
  EXPECT_EQ(op.kernel.stride_y, 4u);
  EXPECT_EQ(op.kernel.weight_order, enums::weight_order::PART_KERNEL_FIRST);
  // IFM_W = (10-1)*3 + 5 - 2 - 1 = 29; IFM_H = (5-1)*4 + 3 - 1 - 0 = 18
  EXPECT_EQ(op.ifm.width, 29u);
  EXPECT_EQ(op.ifm.height, 18u);
  EXPECT_EQ(op.ifm.depth, 8u);
  EXPECT_EQ(op.ofm.width, 10u);
  EXPECT_EQ(op.ofm.height, 5u);
  EXPECT_EQ(op.ofm.depth, 32u);
  EXPECT_TRUE(op.ifm.element.is_signed());
  EXPECT_EQ(op.ifm.element.bits(), 16u);
  EXPECT_TRUE(op.ofm.element.nhcwb16());
  EXPECT_EQ(op.ifm_scale_mode, enums::ifm_scale_mode::OPB_32);
  EXPECT_EQ(op.ifm.round_mode, enums::round_mode::NATURAL);
  EXPECT_EQ(op.ofm_scale_mode, enums::ofm_scale_mode::GLOBAL);
  EXPECT_EQ(op.ofm.round_mode, enums::round_mode::TRUNCATE);
  EXPECT_EQ(op.weights[1].base, 0x12'3456'7890u);
  EXPECT_EQ(op.ifm.stride_x, -3);
  EXPECT_EQ(op.ofm_scale.scale, 0x80000001u);
  EXPECT_EQ(op.ofm_scale.shift, 33u);
  EXPECT_EQ(op.activation.min, -128);
  EXPECT_TRUE(op.reads_weights());
  EXPECT_FALSE(op.reads_scales());  // global scale
  EXPECT_FALSE(op.reads_ifm2());
}

TEST(Operation, UpscaleHalvesTheStoredIfm) {
  Builder b;
  b.emit(Cmd::NPU_SET_OFM_WIDTH_M1, {{Field::NPU_SET_OFM_WIDTH_M1_width_m1, 7}});
  b.emit(Cmd::NPU_SET_OFM_HEIGHT_M1, {{Field::NPU_SET_OFM_HEIGHT_M1_height_m1, 7}});
  b.emit(Cmd::NPU_SET_KERNEL_WIDTH_M1, {{Field::NPU_SET_KERNEL_WIDTH_M1_width_m1, 1}});
  b.emit(Cmd::NPU_SET_KERNEL_HEIGHT_M1, {{Field::NPU_SET_KERNEL_HEIGHT_M1_height_m1, 2}});
  b.emit(Cmd::NPU_SET_IFM_UPSCALE, {{Field::NPU_SET_IFM_UPSCALE_mode, 2}});
  b.emit(Cmd::NPU_OP_CONV);
  b.emit(Cmd::NPU_SET_IFM_UPSCALE, {{Field::NPU_SET_IFM_UPSCALE_mode, 0}});
  b.emit(Cmd::NPU_OP_CONV);
  const Stream s = b.finish();
  const Operation up = nth_operation(s, 0);
  EXPECT_EQ(up.upscale, enums::ifm_upscale_mode::ZEROS);
  EXPECT_EQ(up.ifm_upscaled_width, 9);   // 7 + 2
  EXPECT_EQ(up.ifm_upscaled_height, 10);  // 7 + 3
  EXPECT_EQ(up.ifm.width, 5u);             // ceil(9 / 2)
  EXPECT_EQ(up.ifm.height, 5u);
  const Operation plain = nth_operation(s, 1);
  EXPECT_EQ(plain.ifm.width, 9u);
  EXPECT_EQ(plain.ifm.height, 10u);
}

TEST(Operation, ElementwiseIgnoresKernelStateAndBroadcastsIfm2) {
  Builder b;
  b.emit(Cmd::NPU_SET_OFM_WIDTH_M1, {{Field::NPU_SET_OFM_WIDTH_M1_width_m1, 5}});
  b.emit(Cmd::NPU_SET_OFM_HEIGHT_M1, {{Field::NPU_SET_OFM_HEIGHT_M1_height_m1, 3}});
  b.emit(Cmd::NPU_SET_OFM_DEPTH_M1, {{Field::NPU_SET_OFM_DEPTH_M1_depth_m1, 19}});
  b.emit(Cmd::NPU_SET_KERNEL_WIDTH_M1, {{Field::NPU_SET_KERNEL_WIDTH_M1_width_m1, 6}});  // stale
  b.emit(Cmd::NPU_SET_IFM_PAD_LEFT, {{Field::NPU_SET_IFM_PAD_LEFT_pad, 3}});             // stale
  b.emit(Cmd::NPU_SET_IFM2_BROADCAST, {{Field::NPU_SET_IFM2_BROADCAST_broadcast_h, 1},
                                       {Field::NPU_SET_IFM2_BROADCAST_broadcast_c, 1},
                                       {Field::NPU_SET_IFM2_BROADCAST_operand_order, 1}});
  b.emit(Cmd::NPU_SET_IFM2_SCALAR, {{Field::NPU_SET_IFM2_SCALAR_scalar, -5}});
  b.emit(Cmd::NPU_OP_ELEMENTWISE, {{Field::NPU_OP_ELEMENTWISE_elementwise_mode, 2}});
  b.emit(Cmd::NPU_SET_IFM2_BROADCAST, {{Field::NPU_SET_IFM2_BROADCAST_broadcast_constant, 1}});
  b.emit(Cmd::NPU_OP_ELEMENTWISE, {{Field::NPU_OP_ELEMENTWISE_elementwise_mode, 1}});
  b.emit(Cmd::NPU_OP_ELEMENTWISE, {{Field::NPU_OP_ELEMENTWISE_elementwise_mode, 7}});
  const Stream s = b.finish();

  const Operation sub = nth_operation(s, 0);
  EXPECT_EQ(sub.elementwise_mode, enums::elementwise_mode::SUB);
  EXPECT_EQ(sub.ifm.width, 6u);
  EXPECT_EQ(sub.ifm.height, 4u);
  EXPECT_EQ(sub.ifm2.width, 6u);
  EXPECT_EQ(sub.ifm2.height, 1u);
  EXPECT_EQ(sub.ifm2.depth, 1u);
  EXPECT_EQ(sub.broadcast.operand_order, enums::ifm2_operand_order::ORDER_A);
  EXPECT_EQ(sub.broadcast.scalar_value, -5);
  EXPECT_TRUE(sub.reads_ifm2());
  EXPECT_FALSE(sub.reads_weights());
  EXPECT_FALSE(sub.uses_kernel());

  const Operation add_scalar = nth_operation(s, 1);
  EXPECT_TRUE(add_scalar.broadcast.scalar);
  EXPECT_TRUE(add_scalar.uses_ifm2());
  EXPECT_FALSE(add_scalar.reads_ifm2());

  const Operation clz = nth_operation(s, 2);
  EXPECT_TRUE(clz.is_unary());
  EXPECT_FALSE(clz.uses_ifm2());
}

FeatureMap tiled_map(enums::activation_format layout) {
  FeatureMap fm;
  fm.base = {0x1000, 0x2000, 0x3000, 0x4000};
  fm.width0 = 4;
  fm.height0 = 3;
  fm.height1 = 2;
  fm.width = 6;
  fm.height = 5;
  fm.depth = 20;
  fm.element.precision = enums::activation_precision::B16;
  fm.element.format = layout;
  fm.stride_x = layout == enums::activation_format::NHWC ? 40 : 32;
  fm.stride_y = 1000;
  fm.stride_c = 200;
  return fm;
}

TEST(Addressing, TileSelection) {
  const FeatureMap fm = tiled_map(enums::activation_format::NHWC);
  auto check = [&](uint32_t x, uint32_t y, unsigned tile, uint32_t tx, uint32_t ty) {
    const TileCoord t = tile_of(fm, x, y);
    EXPECT_EQ(t.tile, tile) << x << "," << y;
    EXPECT_EQ(t.x, tx) << x << "," << y;
    EXPECT_EQ(t.y, ty) << x << "," << y;
  };
  check(0, 0, 0, 0, 0);
  check(3, 2, 0, 3, 2);
  check(3, 3, 2, 3, 0);  // below HEIGHT0, left of WIDTH0
  check(4, 0, 1, 0, 0);
  check(5, 1, 1, 1, 1);
  check(4, 2, 3, 0, 0);  // tile 3 splits at HEIGHT1 (2), not HEIGHT0 (3)
  check(5, 4, 3, 1, 2);
}

TEST(Addressing, NhwcAndNhcwb16ByteOffsets) {
  const FeatureMap nhwc = tiled_map(enums::activation_format::NHWC);
  EXPECT_EQ(element_offset(nhwc, 0, 0, 0), 0x1000);
  EXPECT_EQ(element_offset(nhwc, 2, 1, 7), 0x1000 + 1000 + 2 * 40 + 7 * 2);
  EXPECT_EQ(element_offset(nhwc, 5, 1, 3), 0x2000 + 1000 + 1 * 40 + 3 * 2);
  EXPECT_EQ(element_offset(nhwc, 1, 4, 0), 0x3000 + 1000 + 40);
  EXPECT_EQ(element_offset(nhwc, 4, 3, 19), 0x4000 + 1000 + 19 * 2);

  const FeatureMap brick = tiled_map(enums::activation_format::NHCWB16);
  EXPECT_EQ(element_offset(brick, 2, 1, 7), 0x1000 + 1000 + 2 * 32 + 7 * 2);
  EXPECT_EQ(element_offset(brick, 2, 1, 17), 0x1000 + 1000 + 2 * 32 + 200 + 1 * 2);
  EXPECT_EQ(element_offset(brick, 5, 4, 19), 0x4000 + 2 * 1000 + 32 + 200 + 3 * 2);

  FeatureMap neg = nhwc;
  neg.stride_y = -1000;
  EXPECT_EQ(element_offset(neg, 0, 2, 0), 0x1000 - 2000);
}

TEST(Dma, SpansFor1d2d3dWithSignedSkips) {
  Dma d;
  d.src.address = 100;
  d.dst.address = 5000;
  d.length_bytes = 16;
  d.size0 = 4;
  d.size1 = 3;
  d.skip0 = 8;
  d.skip1 = 32;
  // Both 1D: SIZE0/SIZE1 are ignored.
  EXPECT_EQ(d.total_bytes(), 16u);
  EXPECT_EQ(dma_span(d, d.src).lo, 100);
  EXPECT_EQ(dma_span(d, d.src).hi, 116);
  // 2D source: rows at 0, 24, 48, 72; the 1D destination is contiguous.
  d.src.stride_mode = enums::dma_stride_mode::D2;
  EXPECT_EQ(d.total_bytes(), 64u);
  EXPECT_EQ(dma_span(d, d.src).hi, 100 + 72 + 16);
  EXPECT_EQ(dma_span(d, d.dst).hi, 5000 + 64);
  // 3D destination: planes at 0, 4*24+32 = 128, 256; rows inside at 0..72.
  d.dst.stride_mode = enums::dma_stride_mode::D3;
  EXPECT_EQ(d.total_bytes(), 192u);
  EXPECT_EQ(dma_span(d, d.dst).lo, 5000);
  EXPECT_EQ(dma_span(d, d.dst).hi, 5000 + 256 + 72 + 16);
  // 2D source with a 3D partner: 12 rows in sequence.
  EXPECT_EQ(dma_span(d, d.src).hi, 100 + 11 * 24 + 16);
  // Negative skip: rows move down.
  d.skip0 = -48;  // row step -32
  d.src.stride_mode = enums::dma_stride_mode::D2;
  d.dst.stride_mode = enums::dma_stride_mode::D1;
  EXPECT_EQ(dma_span(d, d.src).lo, 100 - 3 * 32);
  EXPECT_EQ(dma_span(d, d.src).hi, 116);
  d.size0 = 0;
  EXPECT_TRUE(dma_span(d, d.src).empty());
}

TEST(Walker, ReportsEventsInOrderAndStopsAtStop) {
  Builder b;
  b.emit(Cmd::NPU_SET_DMA0_LEN, {{Field::NPU_SET_DMA0_LEN_length, 256}});
  b.emit(Cmd::NPU_SET_DMA0_DST_REGION, {{Field::NPU_SET_DMA0_DST_REGION_region, 3},
                                        {Field::NPU_SET_DMA0_DST_REGION_region_mode, 1}});
  const uint32_t dma = b.emit(Cmd::NPU_OP_DMA_START);
  b.emit(Cmd::NPU_OP_DMA_WAIT, {{Field::NPU_OP_DMA_WAIT_k, 1}});
  b.emit(Cmd::NPU_OP_POOL, {{Field::NPU_OP_POOL_pooling_mode, 1}});
  b.emit(Cmd::NPU_OP_KERNEL_WAIT, {{Field::NPU_OP_KERNEL_WAIT_n, 2}});
  b.emit(Cmd::NPU_OP_PMU_MASK, {{Field::NPU_OP_PMU_MASK_enable, 1}});
  b.emit(Cmd::NPU_OP_STOP, {{Field::NPU_OP_STOP_mask, 7}});
  b.emit(Cmd::NPU_OP_CONV);  // after STOP: never executed
  const Stream s = b.finish();

  std::vector<EventKind> kinds;
  std::vector<uint32_t> values;
  std::vector<uint32_t> offsets;
  walk(s, [&](const Event& e, const StreamState& st) {
    kinds.push_back(e.kind);
    values.push_back(e.value);
    offsets.push_back(e.command.offset);
    if (e.kind == EventKind::OPERATION && e.operation->kind == OpKind::DMA) {
      EXPECT_TRUE(e.operation->dma.dst.internal());
      EXPECT_EQ(e.operation->dma.dst.region, 3u);
      EXPECT_EQ(e.operation->dma.length_bytes, 256u);
      EXPECT_TRUE(st.written(Cmd::NPU_SET_DMA0_LEN));
      EXPECT_FALSE(st.written(Cmd::NPU_SET_DMA0_SRC));
    }
    if (e.kind == EventKind::OPERATION && e.operation->kind == OpKind::POOL) {
      EXPECT_EQ(e.operation->pooling_mode, enums::pooling_mode::AVERAGE);
    }
  });
  const std::vector<EventKind> want = {EventKind::OPERATION, EventKind::DMA_WAIT,  EventKind::OPERATION,
                                       EventKind::KERNEL_WAIT, EventKind::PMU_MASK, EventKind::STOP};
  EXPECT_EQ(kinds, want);
  EXPECT_EQ(values[1], 1u);
  EXPECT_EQ(values[3], 2u);
  EXPECT_EQ(values[4], 1u);
  EXPECT_EQ(values[5], 7u);
  EXPECT_EQ(offsets[0], dma);
}

// A 4x4 -> 4x4 AVERAGE 3x3 SAME pool (padding 1 all round), as Vela 3.10 emits it.
Operation padded_average() {
  Operation op;
  op.kind = OpKind::POOL;
  op.pooling_mode = enums::pooling_mode::AVERAGE;
  op.ofm.width = op.ofm.height = 4;
  op.ofm.depth = op.ifm.depth = 8;
  op.ofm.stride_c = op.ifm.stride_c = 1;
  op.kernel.width = op.kernel.height = op.kernel.dilated_width = op.kernel.dilated_height = 3;
  op.padding = {1, 1, 1, 1};
  op.ifm_upscaled_width = op.ifm_upscaled_height = 4;
  op.ofm_scale_mode = enums::ofm_scale_mode::PER_CHANNEL;
  return op;
}

bool names(const std::optional<std::string>& why, const char* text) {
  return why && why->find(text) != std::string::npos;
}

TEST(UnknownBehaviour, PoolScaleModesPaddingAndUpscale) {
  Operation op = padded_average();
  EXPECT_FALSE(unknown_behaviour(op)) << *unknown_behaviour(op);  // Vela 3.10: per-channel
  op.ofm_scale_mode = enums::ofm_scale_mode::GLOBAL;
  op.ofm_scale = {1, 0};
  EXPECT_FALSE(unknown_behaviour(op));  // Regor: global, unit scale
  op.ofm_scale = {1u << 20, 20};
  EXPECT_FALSE(unknown_behaviour(op));  // also exactly 1
  op.ofm_scale = {3, 1};
  EXPECT_TRUE(names(unknown_behaviour(op), "global OFM_SCALE other than 1 (scale 3, shift 1)"));
  op = padded_average();
  op.kernel.width = op.kernel.dilated_width = 9;
  op.ifm_upscaled_width = 10;
  EXPECT_TRUE(names(unknown_behaviour(op), "9x3 kernel"));
  op = padded_average();
  op.padding = {};
  op.ifm_upscaled_width = op.ifm_upscaled_height = 6;
  EXPECT_TRUE(names(unknown_behaviour(op), "without padding in per-channel"));
  op.ofm_scale_mode = enums::ofm_scale_mode::GLOBAL;
  EXPECT_FALSE(unknown_behaviour(op));
  op.pooling_mode = enums::pooling_mode::MAX;
  op.ofm_scale_mode = enums::ofm_scale_mode::PER_CHANNEL;
  EXPECT_FALSE(unknown_behaviour(op));
  op.pooling_mode = enums::pooling_mode::REDUCE_SUM;
  EXPECT_TRUE(names(unknown_behaviour(op), "REDUCE_SUM in per-channel"));
  op = padded_average();
  op.upscale = enums::ifm_upscale_mode::ZEROS;
  EXPECT_TRUE(names(unknown_behaviour(op), "IFM_UPSCALE ZEROS"));
  op.upscale = enums::ifm_upscale_mode::NEAREST;  // Regor's bilinear resize
  EXPECT_FALSE(unknown_behaviour(op));
}

TEST(UnknownBehaviour, PoolWindowsWithoutAnIfmTap) {
  // 1x1 kernel, padding 1: the first and last windows lie entirely in padding.
  Operation op = padded_average();
  op.pooling_mode = enums::pooling_mode::MAX;
  op.kernel.width = op.kernel.dilated_width = 1;
  op.ifm_upscaled_width = 2;
  EXPECT_TRUE(names(unknown_behaviour(op), "no kernel tap inside the IFM"));
  // A 1-row kernel over a one-row IFM with a row of padding below: the second output row is all padding.
  op = padded_average();
  op.kernel.height = op.kernel.dilated_height = 1;
  op.padding.top = 0;
  op.ofm.height = 2, op.ifm_upscaled_height = 1;
  EXPECT_TRUE(names(unknown_behaviour(op), "no kernel tap inside the IFM"));
  op.ifm_upscaled_height = 2;  // row 1 exists
  EXPECT_FALSE(unknown_behaviour(op));
  op.ifm.stride_c = 8;  // NHWC channels 8 bytes apart
  EXPECT_TRUE(names(unknown_behaviour(op), "IFM in NHWC with STRIDE_C 8 for 1-byte elements"));
  op.ifm.stride_c = 1;
  op.kernel.dilation_y = 2, op.kernel.dilated_height = 1;
  EXPECT_TRUE(names(unknown_behaviour(op), "NPU_OP_POOL with dilation"));
}

TEST(UnknownBehaviour, AccumulatorFormatAndMixedOperandWidths) {
  Operation conv;
  conv.kind = OpKind::CONV;
  EXPECT_FALSE(unknown_behaviour(conv));
  conv.acc_format = enums::acc_format::F16;
  EXPECT_TRUE(names(unknown_behaviour(conv), "ACC_FORMAT F16"));
  Operation ew;
  ew.kind = OpKind::ELEMENTWISE;
  ew.elementwise_mode = enums::elementwise_mode::MUL;
  ew.ifm.element.precision = enums::activation_precision::B16;
  ew.ifm.element.type = enums::activation_type::SIGNED;
  EXPECT_TRUE(names(unknown_behaviour(ew), "per-channel OFM scale mode with OFM_SCALE scale 0, shift 0"));
  ew.ofm_scale = {1, 0};  // Vela's MIN/MAX/SHR/SHL/CLZ: per-channel mode, OFM_SCALE 1
  EXPECT_FALSE(unknown_behaviour(ew));
  ew.ofm_scale_mode = enums::ofm_scale_mode::GLOBAL;
  ew.ofm_scale = {3, 1};
  EXPECT_FALSE(unknown_behaviour(ew));  // int16 x uint8 in global mode
  ew.elementwise_mode = enums::elementwise_mode::ADD;
  ew.ifm_scale_mode = enums::ifm_scale_mode::OPB_32;
  EXPECT_TRUE(names(unknown_behaviour(ew), "pre-shift"));
  ew.elementwise_mode = enums::elementwise_mode::ABS;  // unary: IFM2 unused
  EXPECT_FALSE(unknown_behaviour(ew));
  ew.elementwise_mode = enums::elementwise_mode::MAX;
  ew.ifm2.element.precision = enums::activation_precision::B32;
  EXPECT_TRUE(names(unknown_behaviour(ew), "IFM2 of unsigned 32-bit elements"));
  ew.ifm2.element.type = enums::activation_type::SIGNED;
  EXPECT_TRUE(names(unknown_behaviour(ew), "IFM of 16 bits with an IFM2 of 32 bits"));
}

TEST(UnknownBehaviour, ElementTypesActivationsStridesAndConvScaleModes) {
  Operation conv;
  conv.kind = OpKind::CONV;
  conv.ofm.element.precision = enums::activation_precision::B64;
  EXPECT_TRUE(names(unknown_behaviour(conv), "OFM precision B64"));
  conv.ofm.element.precision = enums::activation_precision::B32;
  EXPECT_TRUE(names(unknown_behaviour(conv), "OFM of unsigned 32-bit elements"));
  conv.ofm.element.type = enums::activation_type::SIGNED;
  EXPECT_FALSE(unknown_behaviour(conv));
  conv.ofm.element = {};
  conv.activation.function = enums::activation_function::TANH;
  EXPECT_TRUE(names(unknown_behaviour(conv), "TANH with a 8-bit OFM"));
  conv.ofm.element.precision = enums::activation_precision::B16;
  EXPECT_FALSE(unknown_behaviour(conv));  // Vela's int16 tanh
  conv.activation.clip_range = enums::activation_clip_range::FORCE_INT8;
  EXPECT_TRUE(names(unknown_behaviour(conv), "activation_clip_range FORCE_INT8 with TANH"));
  conv.activation.function = enums::activation_function::TABLE_2;
  conv.ofm.element.precision = enums::activation_precision::B32;
  conv.ofm.element.type = enums::activation_type::SIGNED;
  EXPECT_FALSE(unknown_behaviour(conv));  // softmax's 32-bit table
  conv.activation.clip_range = enums::activation_clip_range::FORCE_INT16;
  EXPECT_TRUE(names(unknown_behaviour(conv), "FORCE_INT16 with TABLE_2 and a 32-bit OFM"));
  conv.activation = {};
  conv.ofm.element = {};
  conv.kernel.stride_y = 4;
  EXPECT_TRUE(names(unknown_behaviour(conv), "stride 1x4"));
  conv.kernel.stride_y = 3;
  conv.kernel.decomposition = enums::kernel_decomposition::D4X4;
  EXPECT_TRUE(names(unknown_behaviour(conv), "4x4 kernel decomposition"));
  conv.kernel.decomposition = enums::kernel_decomposition::D8X8;
  conv.ofm_scale_mode = enums::ofm_scale_mode::GLOBAL;
  EXPECT_TRUE(names(unknown_behaviour(conv), "global OFM scale mode"));
  conv.ofm_scale_mode = enums::ofm_scale_mode::PER_CHANNEL;
  EXPECT_FALSE(unknown_behaviour(conv));
  Operation dma;
  dma.kind = OpKind::DMA;
  dma.acc_format = enums::acc_format::F16;  // DMAs use no accumulators
  EXPECT_FALSE(unknown_behaviour(dma));
}

}  // namespace
}  // namespace ethosu::isa
