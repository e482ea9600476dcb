// The MAC array's work per OFM tile (models/npu/mac/mac_timing.h) on hand-built operations: cycle counts worked
// out by hand from the mechanism the header describes, the micro-block of each array width, and the
// decoded weights per depth slice the WD works on (with its decode cycles).
#include "models/npu/mac/mac_timing.h"

#include <gtest/gtest.h>

#include "models/npu/tiles.h"
#include "models/npu/wd/wd_timing.h"
#include "sim/error.h"
#include "tests/unit/timing_ops.h"

namespace ethosu::npu {
namespace {

using isa::OpKind;
using test::kernel_op;
using test::whole;
namespace enums = isa::enums;

const MacTiming kU65;

TEST(TimingMac, Conv1x1DepthFirstBlock) {
  // 8x8x16 OFM tile, 16 IFM channels: 16 ublocks x 2 depth slices; the depth-first job is 32 channels
  // wide (zero-padded), so one tap costs 16 ublocks x 4 cycles = 64 > 32-cycle refill.
  const auto op = kernel_op(OpKind::CONV, 8, 8, 16, 16, 1, 1, 0, {8, 8, 16});
  const MacWork w(op, kU65);
  EXPECT_EQ(w.cycles(whole(op)), 2u * 64u);
  EXPECT_EQ(w.macs(whole(op)), 8u * 8 * 16 * 16);
  EXPECT_EQ(w.slice_weights(0, 0), 16u * 32);  // 16 OFM x 32 (padded) IFM weights
  EXPECT_EQ(WdTiming{}.decode_cycles(w.slice_weights(0, 0)), 512u / 8);
}

TEST(TimingMac, RefillFloorForSmallTiles) {
  // A 2x2 block is one ublock: 4 cycles of compute per tap, but the weight buffer needs 32.
  const auto op = kernel_op(OpKind::CONV, 2, 2, 8, 32, 1, 1, 0, {2, 2, 8});
  EXPECT_EQ(MacWork(op, kU65).cycles(whole(op)), 32u);
}

TEST(TimingMac, PartKernelVersusDepthFirstSteps) {
  // 3x3 kernel, 16 IFM channels, 8x8x8 block (16 ublocks, one slice).
  auto op = kernel_op(OpKind::CONV, 8, 8, 8, 16, 3, 1, 1, {8, 8, 8});
  // Depth-first: 9 taps x 1 job x max(32, 16*4).
  EXPECT_EQ(MacWork(op, kU65).cycles(whole(op)), 9u * 64u);
  // Part-kernel-first: ceil(9/4) = 3 steps x 2 groups of 8 channels x max(32, 16*4).
  op.kernel.weight_order = enums::weight_order::PART_KERNEL_FIRST;
  EXPECT_EQ(MacWork(op, kU65).cycles(whole(op)), 3u * 2u * 64u);
}

TEST(TimingMac, Depthwise3x3Block) {
  // ceil(9/4) = 3 steps x max(32, 16 ublocks x 4) x 2 slices.
  const auto op = kernel_op(OpKind::DEPTHWISE, 8, 8, 16, 16, 3, 1, 1, {8, 8, 16});
  const MacWork w(op, kU65);
  EXPECT_EQ(w.cycles(whole(op)), 3u * 64u * 2u);
  EXPECT_EQ(w.macs(whole(op)), 8u * 8 * 16 * 9);
  EXPECT_EQ(w.slice_weights(0, 0), 16u * 12);  // 9 taps padded to 3 steps of 4
}

TEST(TimingMac, MaxPool2x2Block) {
  auto op = kernel_op(OpKind::POOL, 8, 8, 16, 16, 2, 2, 0, {8, 8, 16});
  op.pooling_mode = enums::pooling_mode::MAX;
  const MacWork w(op, kU65);
  EXPECT_EQ(w.cycles(whole(op)), 4u * 16u * 2u);  // max(4, 4 taps) per ublock
  EXPECT_EQ(w.slice_weights(0, 0), 0u);
}

TEST(TimingMac, ReduceSumCountsEveryChannel) {
  // A softmax's sum over 1001 classes into one element: 1001 accumulates, as Vela counts them (a max pool over
  // the same IFM counts its taps only).
  auto op = kernel_op(OpKind::POOL, 1, 1, 1, 1001, 1, 1, 0, {1, 1, 8});
  op.pooling_mode = enums::pooling_mode::REDUCE_SUM;
  EXPECT_EQ(MacWork(op, kU65).total_macs(), 1001u);
  EXPECT_EQ(MacWork(op, kU65).macs(whole(op)), 1001u);
  op.pooling_mode = enums::pooling_mode::MAX;
  EXPECT_EQ(MacWork(op, kU65).total_macs(), 1u);
}

TEST(TimingMac, SixteenBitIfmHalvesThroughput) {
  const auto op8 = kernel_op(OpKind::CONV, 8, 8, 8, 32, 1, 1, 0, {8, 8, 8}, 8);
  const auto op16 = kernel_op(OpKind::CONV, 8, 8, 8, 32, 1, 1, 0, {8, 8, 8}, 16);
  EXPECT_EQ(MacWork(op8, kU65).cycles(whole(op8)), 64u);
  EXPECT_EQ(MacWork(op16, kU65).cycles(whole(op16)), 128u);  // two 16-channel jobs
  const auto dw8 = kernel_op(OpKind::DEPTHWISE, 8, 8, 8, 8, 3, 1, 1, {8, 8, 8}, 8);
  const auto dw16 = kernel_op(OpKind::DEPTHWISE, 8, 8, 8, 8, 3, 1, 1, {8, 8, 8}, 16);
  EXPECT_EQ(MacWork(dw16, kU65).cycles(whole(dw16)), 2 * MacWork(dw8, kU65).cycles(whole(dw8)));
}

TEST(TimingMac, ElementwiseHasNoMacWork) {
  const auto op = test::elementwise_add(8, 8, 16);
  const MacWork w(op, kU65);
  EXPECT_EQ(w.cycles(whole(op)), 0u);
  EXPECT_EQ(w.macs(whole(op)), 0u);
  EXPECT_EQ(w.ublock_elements(whole(op)), 1024u);
}

TEST(TimingMac, EdgeTilesAndTotals) {
  // OFM 10x10x24 in 8x8x16 blocks; the last block is 2x2x8: one ublock, one slice, the refill floor.
  const auto op = kernel_op(OpKind::CONV, 10, 10, 24, 16, 1, 1, 0, {8, 8, 16});
  const MacWork w(op, kU65);
  const OfmTiles blocks(op, w, WdTiming{});
  EXPECT_EQ(w.cycles(blocks.box(7)), 32u);
  EXPECT_EQ(w.ublock_elements(blocks.box(7)), 32u);  // 2x2x8
  EXPECT_EQ(w.cycles(blocks.box(2)), 2u * 32u);      // 2x8 columns: 4 ublocks x 4 < 32, two slices
  uint64_t macs = 0;
  for (size_t i = 0; i < blocks.count(); ++i) macs += w.macs(blocks.box(i));
  EXPECT_EQ(macs, w.total_macs());
  EXPECT_EQ(macs, 10u * 10 * 24 * 16);
}

TEST(TimingMac, SubKernelsOfALargeKernel) {
  // 9x9 pooling: 2x2 sub-kernels with taps 64, 8, 8, 1 -> max(4, n) = 64 + 8 + 8 + 4 per ublock, 16 ublocks.
  const auto op = kernel_op(OpKind::POOL, 8, 8, 8, 8, 9, 1, 0, {8, 8, 8});
  const MacWork w(op, kU65);
  ASSERT_EQ(w.subkernels().size(), 4u);
  EXPECT_EQ(w.cycles(whole(op)), (64u + 8 + 8 + 4) * 16);
}

TEST(TimingMac, DualCoreSplitsChannels) {
  auto op = kernel_op(OpKind::CONV, 8, 8, 32, 32, 1, 1, 0, {8, 8, 32});
  const MacWork one(op, kU65);
  op.parallel_mode = enums::parallel_mode::DUAL_CORE_DEPTH;
  const MacWork two(op, kU65);
  EXPECT_EQ(one.cycles(whole(op)), 4u * 64u);
  EXPECT_EQ(two.cycles(whole(op)), 2u * 64u);  // 16 channels per core
  EXPECT_EQ(two.ublock_elements(whole(op)), one.ublock_elements(whole(op)) / 2);
  EXPECT_EQ(two.macs(whole(op)), one.macs(whole(op)));
  EXPECT_EQ(two.slice_weights(0, 0), 16u * 32);
  EXPECT_EQ(two.slice_weights(1, 0), 16u * 32);
}

TEST(TimingMac, Conv1DUsesA4x1Ublock) {
  // OFM height 1, kernel height 1: 8 wide = two 4x1 ublocks instead of four 2x2 (half empty) ones.
  const auto op = kernel_op(OpKind::CONV, 64, 1, 8, 32, 1, 1, 0, {64, 1, 8});
  EXPECT_EQ(MacWork(op, kU65).cycles(whole(op)), 16u * 4u);
}

TEST(TimingMac, ArrayWidthSetsTheMicroBlock) {
  // 8x8x32 depth-first 1x1 conv over 32 IFM channels, one job: ublocks x 4 cycles per tap and slice.
  const auto op = kernel_op(OpKind::CONV, 8, 8, 32, 32, 1, 1, 0, {8, 8, 32});
  const uint64_t per_width[][2] = {{256, 16 * 4 * 4}, {128, 32 * 4 * 4}, {64, 64 * 4 * 4}, {32, 64 * 8 * 4}};
  for (const auto& [macs, cycles] : per_width) {
    SCOPED_TRACE(macs);
    const MacTiming t = kU65.with_macs_per_core(static_cast<unsigned>(macs));
    const MacWork w(op, t);
    EXPECT_EQ(w.cycles(whole(op)), cycles);
    EXPECT_EQ(w.peak_macs_per_cycle(), double(macs));
    EXPECT_EQ(uint64_t{t.ublock().w} * t.ublock().h * t.ublock().d * t.ifm_ublock_d, macs);
  }
  EXPECT_THROW(kU65.with_macs_per_core(96), InputError);
}

TEST(TimingMac, ManyTilesNeedNoTables) {
  // A MobileNetV2-sized layer: 112x112x96 in 8x8x16 blocks = 1176 blocks, 3x3 depthwise.
  const auto op = kernel_op(OpKind::DEPTHWISE, 112, 112, 96, 96, 3, 1, 1, {8, 8, 16});
  const MacWork w(op, kU65);
  const OfmTiles blocks(op, w, WdTiming{});
  uint64_t cycles = 0;
  for (size_t i = 0; i < blocks.count(); ++i) cycles += w.cycles(blocks.box(i));
  EXPECT_EQ(cycles, 1176u * 3 * 64 * 2);  // 3 steps x max(32, 64) x 2 slices per block
}

}  // namespace
}  // namespace ethosu::npu
