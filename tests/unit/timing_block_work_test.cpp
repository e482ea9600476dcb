// Per-block work of the timing model on hand-built operations: cycle counts worked out by hand from the
// mechanism described in models/timing/block_work.h, traversal order and byte counts.
#include "models/timing/block_work.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ethosu::timing {
namespace {

using isa::OpKind;
namespace enums = isa::enums;

isa::FeatureMap fm(uint32_t w, uint32_t h, uint32_t d, unsigned bits = 8, bool nhcwb16 = false) {
  isa::FeatureMap f;
  f.width = w;
  f.height = h;
  f.depth = d;
  f.element.type = enums::activation_type::SIGNED;
  f.element.precision = bits == 16 ? enums::activation_precision::B16 : enums::activation_precision::B8;
  f.element.format = nhcwb16 ? enums::activation_format::NHCWB16 : enums::activation_format::NHWC;
  const int64_t es = bits / 8;
  f.stride_x = nhcwb16 ? 16 * es : d * es;
  f.stride_c = nhcwb16 ? int64_t{w} * 16 * es : 0;
  f.stride_y = nhcwb16 ? int64_t{w} * ((d + 15) / 16) * 16 * es : int64_t{w} * d * es;
  return f;
}

// A kernel op with OFM w x h x d, IFM depth `in_d`, kernel kw x kh, stride s, padding p on every side.
isa::Operation kernel_op(OpKind kind, uint32_t w, uint32_t h, uint32_t d, uint32_t in_d, uint32_t k, uint32_t s,
                         uint32_t p, isa::BlockConfig blk, unsigned bits = 8) {
  isa::Operation op;
  op.kind = kind;
  op.ofm = fm(w, h, d);
  op.kernel.width = op.kernel.height = op.kernel.dilated_width = op.kernel.dilated_height = k;
  op.kernel.stride_x = op.kernel.stride_y = s;
  op.padding = {p, p, p, p};
  op.ifm_upscaled_width = int64_t{w - 1} * s + k - 2 * p;
  op.ifm_upscaled_height = int64_t{h - 1} * s + k - 2 * p;
  op.ifm = fm(static_cast<uint32_t>(op.ifm_upscaled_width), static_cast<uint32_t>(op.ifm_upscaled_height), in_d, bits);
  op.block = blk;
  op.activation.min = -128;
  op.activation.max = 127;
  return op;
}

NpuTiming u65_256() { return npu_timing(isa::Variant::U65_256); }

TEST(TimingBlockWork, Conv1x1DepthFirstBlock) {
  // 8x8x16 OFM block, 16 IFM channels: 16 ublocks x 2 depth slices; the depth-first job is 32 channels
  // wide (zero-padded), so one tap costs 16 ublocks x 4 cycles = 64 > 32-cycle refill.
  const auto op = kernel_op(OpKind::CONV, 8, 8, 16, 16, 1, 1, 0, {8, 8, 16});
  const OpWork w(op, u65_256());
  ASSERT_EQ(w.block_count(), 1u);
  const BlockWork b = w.block(0);
  EXPECT_EQ(b.mac_cycles, 2u * 64u);
  EXPECT_EQ(b.macs, 8u * 8 * 16 * 16);
  EXPECT_EQ(b.ao_cycles, 256u);      // 1024 elements x 0.25
  EXPECT_EQ(b.wd_cycles, 512u / 8);  // 16 OFM x 32 (padded) IFM weights at 8 per cycle
  EXPECT_EQ(b.ifm_bytes, 8u * 8 * 16);
  EXPECT_EQ(b.ifm_run_bytes, 8u * 8 * 16);  // whole rows of a full-depth NHWC map are contiguous
  EXPECT_EQ(b.ofm_bytes, 8u * 8 * 16);
}

TEST(TimingBlockWork, RefillFloorForSmallBlocks) {
  // A 2x2 block is one ublock: 4 cycles of compute per tap, but the weight buffer needs 32.
  const auto op = kernel_op(OpKind::CONV, 2, 2, 8, 32, 1, 1, 0, {2, 2, 8});
  EXPECT_EQ(OpWork(op, u65_256()).block(0).mac_cycles, 32u);
}

TEST(TimingBlockWork, PartKernelVersusDepthFirstSteps) {
  // 3x3 kernel, 16 IFM channels, 8x8x8 block (16 ublocks, one slice).
  auto op = kernel_op(OpKind::CONV, 8, 8, 8, 16, 3, 1, 1, {8, 8, 8});
  // Depth-first: 9 taps x 1 job x max(32, 16*4).
  EXPECT_EQ(OpWork(op, u65_256()).block(0).mac_cycles, 9u * 64u);
  // Part-kernel-first: ceil(9/4) = 3 steps x 2 groups of 8 channels x max(32, 16*4).
  op.kernel.weight_order = enums::weight_order::PART_KERNEL_FIRST;
  EXPECT_EQ(OpWork(op, u65_256()).block(0).mac_cycles, 3u * 2u * 64u);
}

TEST(TimingBlockWork, Depthwise3x3Block) {
  // ceil(9/4) = 3 steps x max(32, 16 ublocks x 4) x 2 slices.
  const auto op = kernel_op(OpKind::DEPTHWISE, 8, 8, 16, 16, 3, 1, 1, {8, 8, 16});
  const BlockWork b = OpWork(op, u65_256()).block(0);
  EXPECT_EQ(b.mac_cycles, 3u * 64u * 2u);
  EXPECT_EQ(b.macs, 8u * 8 * 16 * 9);
  EXPECT_EQ(b.ifm_bytes, 8u * 8 * 16);  // padding is not read: the 10x10 window clips to the 8x8 map
}

TEST(TimingBlockWork, MaxPool2x2Block) {
  auto op = kernel_op(OpKind::POOL, 8, 8, 16, 16, 2, 2, 0, {8, 8, 16});
  op.pooling_mode = enums::pooling_mode::MAX;
  const BlockWork b = OpWork(op, u65_256()).block(0);
  EXPECT_EQ(b.mac_cycles, 4u * 16u * 2u);  // max(4, 4 taps) per ublock
  EXPECT_EQ(b.ao_cycles, 128u);            // 1024 x 0.125
  EXPECT_EQ(b.ifm_bytes, 16u * 16 * 16);
  EXPECT_EQ(b.total_weight_bytes(), 0u);
}

TEST(TimingBlockWork, SixteenBitIfmHalvesThroughput) {
  const auto op8 = kernel_op(OpKind::CONV, 8, 8, 8, 32, 1, 1, 0, {8, 8, 8}, 8);
  const auto op16 = kernel_op(OpKind::CONV, 8, 8, 8, 32, 1, 1, 0, {8, 8, 8}, 16);
  EXPECT_EQ(OpWork(op8, u65_256()).block(0).mac_cycles, 64u);
  EXPECT_EQ(OpWork(op16, u65_256()).block(0).mac_cycles, 128u);  // two 16-channel jobs
  const auto dw8 = kernel_op(OpKind::DEPTHWISE, 8, 8, 8, 8, 3, 1, 1, {8, 8, 8}, 8);
  const auto dw16 = kernel_op(OpKind::DEPTHWISE, 8, 8, 8, 8, 3, 1, 1, {8, 8, 8}, 16);
  EXPECT_EQ(OpWork(dw16, u65_256()).block(0).mac_cycles, 2 * OpWork(dw8, u65_256()).block(0).mac_cycles);
  EXPECT_EQ(OpWork(dw16, u65_256()).block(0).ifm_bytes, 2 * OpWork(dw8, u65_256()).block(0).ifm_bytes);
}

TEST(TimingBlockWork, ElementwiseAddBlock) {
  isa::Operation op;
  op.kind = OpKind::ELEMENTWISE;
  op.elementwise_mode = enums::elementwise_mode::ADD;
  op.ofm = op.ifm = op.ifm2 = fm(8, 8, 16);
  op.ifm_upscaled_width = op.ifm_upscaled_height = 8;
  op.block = {8, 8, 16};
  op.activation.min = -128;
  op.activation.max = 127;
  BlockWork b = OpWork(op, u65_256()).block(0);
  EXPECT_EQ(b.mac_cycles, 0u);
  EXPECT_EQ(b.ao_cycles, 768u);  // 1024 x 0.75 (ADD with scaling)
  EXPECT_EQ(b.ifm_bytes, 1024u);
  EXPECT_EQ(b.ifm2_bytes, 1024u);
  op.broadcast.h = op.broadcast.w = true;  // IFM2 is one pixel
  op.ifm2 = fm(1, 1, 16);
  b = OpWork(op, u65_256()).block(0);
  EXPECT_EQ(b.ifm2_bytes, 16u);
  op.broadcast.scalar = true;
  EXPECT_EQ(OpWork(op, u65_256()).block(0).ifm2_bytes, 0u);
  // A ReLU clamp adds the activation rate, which ADD's own 0.75 already covers; LUT does not.
  op.activation.function = enums::activation_function::TABLE_0;
  EXPECT_EQ(OpWork(op, u65_256()).block(0).ao_cycles, 1024u);
}

TEST(TimingBlockWork, EdgeBlocksAndTraversalOrder) {
  // OFM 10x10x24 in 8x8x16 blocks: 2 x 2 x 2 blocks, depth fastest, then x, then y.
  const auto op = kernel_op(OpKind::CONV, 10, 10, 24, 16, 1, 1, 0, {8, 8, 16});
  const OpWork w(op, u65_256());
  ASSERT_EQ(w.block_count(), 8u);
  const uint32_t expect[8][3] = {{0, 0, 0}, {0, 0, 16}, {8, 0, 0}, {8, 0, 16},
                                 {0, 8, 0}, {0, 8, 16}, {8, 8, 0}, {8, 8, 16}};
  for (size_t i = 0; i < 8; ++i) {
    const OfmBox b = w.box(i);
    EXPECT_EQ(b.x0, expect[i][0]) << i;
    EXPECT_EQ(b.y0, expect[i][1]) << i;
    EXPECT_EQ(b.c0, expect[i][2]) << i;
  }
  // Last block: 2x2x8, one ublock, one slice: the refill floor.
  const BlockWork last = w.block(7);
  EXPECT_EQ(last.ofm.x1 - last.ofm.x0, 2u);
  EXPECT_EQ(last.ofm.c1, 24u);
  EXPECT_EQ(last.mac_cycles, 32u);
  EXPECT_EQ(last.ao_cycles, 8u);  // 32 elements x 0.25
  EXPECT_EQ(last.ofm_bytes, 2u * 2 * 8);
  EXPECT_EQ(w.block(2).mac_cycles, 2u * 32u);  // 2x8 columns: 4 ublocks x 4 < 32, two slices
  uint64_t macs = 0;
  for (const auto& b : w.blocks()) macs += b.macs;
  EXPECT_EQ(macs, w.total_macs());
  EXPECT_EQ(macs, 10u * 10 * 24 * 16);
}

TEST(TimingBlockWork, IfmHaloStride1And2) {
  // 3x3 stride 1 pad 1 on 16x16: the block at (8, 8) reads rows/cols 7..15 (halo 1, bottom padding unread).
  const auto s1 = kernel_op(OpKind::DEPTHWISE, 16, 16, 8, 8, 3, 1, 1, {8, 8, 8});
  const OpWork w1(s1, u65_256());
  EXPECT_EQ(w1.block(0).ifm_bytes, 9u * 9 * 8);
  EXPECT_EQ(w1.block(3).ifm_bytes, 9u * 9 * 8);
  // Stride 2, pad 0, OFM 8x8 from IFM 17x17: a 4x4 block reads (4-1)*2+3 = 9 rows and columns.
  const auto s2 = kernel_op(OpKind::DEPTHWISE, 8, 8, 8, 8, 3, 2, 0, {4, 4, 8});
  const OpWork w2(s2, u65_256());
  EXPECT_EQ(s2.ifm.width, 17u);
  EXPECT_EQ(w2.block(0).ifm_bytes, 9u * 9 * 8);
  EXPECT_EQ(w2.block(3).ifm_bytes, 9u * 9 * 8);  // starts at 8, ends at 17
}

TEST(TimingBlockWork, SubKernelsReReadTheIfm) {
  // 9x9 kernel: 2x2 sub-kernels (8+1 taps per axis), each re-reading its own window.
  const auto op = kernel_op(OpKind::POOL, 8, 8, 8, 8, 9, 1, 0, {8, 8, 8});
  const OpWork w(op, u65_256());
  ASSERT_EQ(w.subkernels().size(), 4u);
  // Windows: 8+7 = 15 wide for the 8-tap part, 8 wide for the 1-tap part.
  EXPECT_EQ(w.block(0).ifm_bytes, (15u * 15 + 15 * 8 + 8 * 15 + 8 * 8) * 8);
  // Pooling: sub-kernel taps 64, 8, 8, 1 -> max(4, n) = 64 + 8 + 8 + 4 per ublock, 16 ublocks.
  EXPECT_EQ(w.block(0).mac_cycles, (64u + 8 + 8 + 4) * 16);
}

TEST(TimingBlockWork, Nhcwb16BrickRounding) {
  // Depthwise over 24 channels in blocks of depth 8: the slice [8, 16) still reads the whole first brick,
  // and [16, 24) the whole second one.
  auto op = kernel_op(OpKind::DEPTHWISE, 4, 4, 24, 24, 1, 1, 0, {4, 4, 8});
  op.ifm = fm(4, 4, 24, 8, true);
  const OpWork w(op, u65_256());
  EXPECT_EQ(w.block(1).ifm_bytes, 4u * 4 * 16);
  EXPECT_EQ(w.block(1).ifm_run_bytes, 16u);  // a partial brick is one 16-byte run per pixel
  EXPECT_EQ(w.block(2).ifm_bytes, 4u * 4 * 16);
  EXPECT_EQ(w.block(1).ofm_bytes, 4u * 4 * 8);  // NHWC writes exactly the block
}

TEST(TimingBlockWork, UpscaledIfm) {
  // Nearest 2x upscale, 1x1 pooling: an 8x8 OFM block reads a 4x4 IFM window.
  auto op = kernel_op(OpKind::POOL, 16, 16, 8, 8, 1, 1, 0, {8, 8, 8});
  op.upscale = enums::ifm_upscale_mode::NEAREST;
  op.ifm = fm(8, 8, 8);
  op.ifm_upscaled_width = op.ifm_upscaled_height = 16;
  const OpWork w(op, u65_256());
  EXPECT_EQ(w.block(0).ifm_bytes, 4u * 4 * 8);
  EXPECT_EQ(w.block(3).ifm_bytes, 4u * 4 * 8);
}

TEST(TimingBlockWork, WeightBytesShareTheStreamAndRepeatPerXyBlock) {
  auto op = kernel_op(OpKind::CONV, 16, 8, 40, 16, 1, 1, 0, {8, 8, 16});
  op.weights[0].length_bytes = 1000;
  op.ofm_scale_mode = enums::ofm_scale_mode::PER_CHANNEL;
  const OpWork w(op, u65_256());
  ASSERT_EQ(w.block_count(), 6u);  // 2 x-blocks x 3 depth slices (16, 16, 8 channels)
  // Decoded weights per slice: 16, 16 and 8 OFM channels x 32 IFM -> shares 2/5, 2/5, 1/5.
  EXPECT_EQ(w.block(0).weight_bytes[0], 400u);
  EXPECT_EQ(w.block(1).weight_bytes[0], 400u);
  EXPECT_EQ(w.block(2).weight_bytes[0], 200u);
  uint64_t total = 0, scales = 0;
  for (const auto& b : w.blocks()) {
    total += b.total_weight_bytes();
    scales += b.total_scale_bytes();
  }
  EXPECT_EQ(total, 2u * 1000);  // the whole stream once per (x, y) block
  EXPECT_EQ(scales, 2u * 40 * 10);
}

TEST(TimingBlockWork, DualCoreSplitsChannels) {
  auto op = kernel_op(OpKind::CONV, 8, 8, 32, 32, 1, 1, 0, {8, 8, 32});
  op.weights[0].length_bytes = 512;
  op.weights[1].length_bytes = 256;
  const BlockWork one = OpWork(op, u65_256()).block(0);
  op.parallel_mode = enums::parallel_mode::DUAL_CORE_DEPTH;
  const BlockWork two = OpWork(op, npu_timing(isa::Variant::U65_512)).block(0);
  EXPECT_EQ(one.mac_cycles, 4u * 64u);
  EXPECT_EQ(two.mac_cycles, 2u * 64u);  // 16 channels per core
  EXPECT_EQ(two.ao_cycles, one.ao_cycles / 2);
  EXPECT_EQ(two.weight_bytes[0], 512u);  // each core fetches its own stream
  EXPECT_EQ(two.weight_bytes[1], 256u);
  EXPECT_EQ(two.ifm_bytes, one.ifm_bytes);  // the IFM is read once
  EXPECT_EQ(two.macs, one.macs);
}

TEST(TimingBlockWork, Conv1DUsesA4x1Ublock) {
  // OFM height 1, kernel height 1: 8 wide = two 4x1 ublocks instead of four 2x2 (half empty) ones.
  const auto op = kernel_op(OpKind::CONV, 64, 1, 8, 32, 1, 1, 0, {64, 1, 8});
  EXPECT_EQ(OpWork(op, u65_256()).block(0).mac_cycles, 16u * 4u);
}

TEST(TimingBlockWork, DmaHasNoBlocks) {
  isa::Operation op;
  op.kind = OpKind::DMA;
  EXPECT_EQ(OpWork(op, u65_256()).block_count(), 0u);
}

TEST(TimingBlockWork, ManyBlocksAreCheap) {
  // A MobileNetV2-sized layer: 112x112x96 in 8x8x16 blocks = 1176 blocks, 3x3 depthwise.
  const auto op = kernel_op(OpKind::DEPTHWISE, 112, 112, 96, 96, 3, 1, 1, {8, 8, 16});
  const auto start = std::chrono::steady_clock::now();
  uint64_t cycles = 0;
  const OpWork w(op, u65_256());
  for (size_t i = 0; i < w.block_count(); ++i) cycles += w.block(i).mac_cycles;
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(cycles, 1176u * 3 * 64 * 2);  // 3 steps x max(32, 64) x 2 slices per block
  EXPECT_LT(us, 1000.0);
}

}  // namespace
}  // namespace ethosu::timing
