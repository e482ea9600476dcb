// The Ethos-U85 MAC array's cycles per OFM block (models/npu/mac/mac_timing_u85.h), worked out by hand from the
// mechanism in its header, on the configurations' own architecture descriptions.
#include "models/npu/mac/mac_timing_u85.h"

#include <gtest/gtest.h>

namespace ethosu::npu {
namespace {

using isa::Variant;

MacTimingU85 array(Variant v) { return MacTimingU85::of(isa::architecture(v)); }

isa::MicroBlock ublock(Variant v, isa::enums::microblock m) {
  for (const auto& [name, ub] : isa::architecture(v).microblocks)
    if (name == m) return ub;
  ADD_FAILURE() << "no such micro-block";
  return {};
}

MacBlockU85 block(MacOpU85 op, uint32_t h, uint32_t w, uint32_t c, isa::MicroBlock ub, uint32_t ifm_depth,
                  uint32_t k, unsigned bits = 8) {
  MacBlockU85 b;
  b.op = op;
  b.block_h = h;
  b.block_w = w;
  b.block_c = c;
  b.ublock = ub;
  b.ifm_depth = ifm_depth;
  b.kernel_w = b.kernel_h = k;
  b.ifm_bits = bits;
  return b;
}

using M = isa::enums::microblock;

TEST(TimingMacU85, MaxPool2x2OnU85_128) {
  // notes/u85/timing.md 3.2, maxpool_2x2_s2_i8: OFM block 8x8x32 in 1x1x16 micro-blocks = 128 of them, 4 taps
  // (the minimum), 8-bit: 4 x 128 x 4 = 2048 = Vela's MAC term.
  const auto b = block(MacOpU85::POOL, 8, 8, 32, ublock(Variant::U85_128, M::U1X1), 32, 2);
  EXPECT_EQ(array(Variant::U85_128).block_cycles(b), 2048u);
  // A 3x3 window is 9 taps per micro-block instead of the minimum 4.
  auto b3 = b;
  b3.kernel_w = b3.kernel_h = 3;
  EXPECT_EQ(array(Variant::U85_128).block_cycles(b3), 9u * 128 * 4);
}

TEST(TimingMacU85, DepthwiseStepsOfFourTaps) {
  // U85-128, 1x2x8 micro-blocks: an 8x8x16 block is 32 positions x 2 depth groups; 3x3 = 3 steps of 4 taps at 4
  // cycles per position: 128 per step and group, over the 32-cycle weight-load floor: 128 x 3 x 2.
  const auto b = block(MacOpU85::DEPTHWISE, 8, 8, 16, ublock(Variant::U85_128, M::U1X2), 16, 3);
  EXPECT_EQ(array(Variant::U85_128).block_cycles(b), 768u);
  EXPECT_EQ(array(Variant::U85_128).block_cycles(block(MacOpU85::DEPTHWISE, 8, 8, 16, b.ublock, 16, 3, 16)), 1536u);
}

TEST(TimingMacU85, WeightDecodersSetTheLoadFloor) {
  // A 1x1 depth-first conv of 16 IFM channels on U85-2048's 2x2x64 micro-block, 4x4x64 block: 4 positions x 2 lane
  // groups = 8 cycles of MAC work per step, but 64 OFM channels x 32 weights at 8 per decoder per cycle take 64
  // cycles with the 2048's four decoders.
  const auto b = block(MacOpU85::CONV_DEPTH_FIRST, 4, 4, 64, ublock(Variant::U85_2048, M::U2X2), 16, 1);
  EXPECT_EQ(array(Variant::U85_2048).block_cycles(b), 64u);
  MacTimingU85 one_decoder = array(Variant::U85_2048);
  one_decoder.weight_decoders = 1;
  EXPECT_EQ(one_decoder.block_cycles(b), 256u);
}

TEST(TimingMacU85, IfmBlockDepthRule) {
  const MacTimingU85 small = array(Variant::U85_128), big = array(Variant::U85_1024);
  auto b = block(MacOpU85::CONV_DEPTH_FIRST, 8, 8, 16, ublock(Variant::U85_128, M::U1X2), 256, 1);
  EXPECT_EQ(small.ifm_block_depth_for(b), 64u);
  b.ublock = ublock(Variant::U85_128, M::U1X1);  // depth 16 on a 128-MAC array
  EXPECT_EQ(small.ifm_block_depth_for(b), 32u);
  b.sparse = true;
  EXPECT_EQ(small.ifm_block_depth_for(b), 128u);
  b = block(MacOpU85::CONV_DEPTH_FIRST, 8, 8, 16, ublock(Variant::U85_1024, M::U2X4), 256, 1);
  EXPECT_EQ(big.ifm_block_depth_for(b), 64u);  // depth 16, but not a small array
  b.ifm_bits = 32;
  EXPECT_EQ(big.ifm_block_depth_for(b), 32u);
  b.op = MacOpU85::CONV_PART_KERNEL_FIRST;
  EXPECT_EQ(big.ifm_block_depth_for(b), 16u);
  b.op = MacOpU85::DEPTHWISE;
  EXPECT_EQ(big.ifm_block_depth_for(b), 0u);
}

TEST(TimingMacU85, SparseWeightsHalveTheSteps) {
  // U85-256, 2x2x8 micro-blocks, 8x8x16 block (16 positions, 2 groups), 1x1 conv over 256 channels. Dense: IFM block
  // depth 64 = 8 lane groups x 16 positions = 128 cycles per group, x 2 groups x 4 passes = 1024. 2:4 sparse: IFM
  // block depth 128, 16 x 16 = 256 per group, halved, x 2 groups x 2 passes = 512.
  auto b = block(MacOpU85::CONV_DEPTH_FIRST, 8, 8, 16, ublock(Variant::U85_256, M::U2X2), 256, 1);
  EXPECT_EQ(array(Variant::U85_256).block_cycles(b), 1024u);
  b.sparse = true;
  EXPECT_EQ(array(Variant::U85_256).block_cycles(b), 512u);
}

TEST(TimingMacU85, PartKernelFirst) {
  // U85-512, 2x2x16 micro-blocks, 8x8x16 block (16 positions): a 3x3 kernel over 3 IFM channels is 3 steps of 4 taps
  // in one lane group, 4 cycles per position = 64 per step (the floor is 32 x 16 / (8 x 2) = 32): 192. At 16 bit a
  // step takes 2 taps: 5 steps.
  const auto ub = ublock(Variant::U85_512, M::U2X2);
  EXPECT_EQ(array(Variant::U85_512).block_cycles(block(MacOpU85::CONV_PART_KERNEL_FIRST, 8, 8, 16, ub, 3, 3)), 192u);
  EXPECT_EQ(array(Variant::U85_512).block_cycles(block(MacOpU85::CONV_PART_KERNEL_FIRST, 8, 8, 16, ub, 3, 3, 16)),
            320u);
  // 40 IFM channels: 3 passes of 16 (the last 8 wide), each 2 lane groups: 192 x 2 x 3.
  EXPECT_EQ(array(Variant::U85_512).block_cycles(block(MacOpU85::CONV_PART_KERNEL_FIRST, 8, 8, 16, ub, 40, 3)),
            1152u);
}

TEST(TimingMacU85, SingleMicroBlockWaitsForTheAccumulators) {
  // A fully connected layer on U85-128's 1x1x16 micro-block: one position, one group. IFM block depth 32 (small
  // array, depth-16 micro-block): 4 lane groups, under the 64-cycle weight-load floor, + 2 cycles of accumulator
  // delay per step (one tap), x 2 passes over 64 channels.
  auto b = block(MacOpU85::VECTOR_PRODUCT, 1, 1, 16, ublock(Variant::U85_128, M::U1X1), 64, 1);
  EXPECT_EQ(array(Variant::U85_128).block_cycles(b), 132u);
  b.acc48 = true;  // 3 cycles with 48-bit accumulators on the 128
  EXPECT_EQ(array(Variant::U85_128).block_cycles(b), 134u);
  // Two depth groups: the first step of each needs no wait.
  b.acc48 = false;
  b.block_c = 32;
  b.kernel_w = b.kernel_h = 3;
  b.op = MacOpU85::CONV_DEPTH_FIRST;
  EXPECT_EQ(array(Variant::U85_128).block_cycles(b), (64u * 9 * 2 + 2 * 8 * 2) * 2);
}

TEST(TimingMacU85, ReduceSumRunsAsAConvolution) {
  // ic_resnet8_mlperf's REDUCE_SUM on U85-128: 10 channels of 32-bit IFM into one output, 1x2x8 micro-block. One
  // pass (IFM block depth 32), 2 lane groups under the 32-cycle load floor, x 4 for 32 bits, + 2 cycles of
  // accumulator delay = Vela's 130.
  auto b = block(MacOpU85::REDUCE_SUM, 1, 1, 1, ublock(Variant::U85_128, M::U1X2), 10, 1, 32);
  EXPECT_EQ(array(Variant::U85_128).block_cycles(b), 130u);
}

TEST(TimingMacU85, KernelsOverEightBySplitIntoSubKernels) {
  // A 10x1 pooling window is an 8x1 and a 2x1 sub-kernel: 8 + max(4, 2) taps per micro-block.
  auto b = block(MacOpU85::POOL, 4, 4, 16, ublock(Variant::U85_256, M::U2X2), 16, 1);
  b.kernel_w = 10;
  EXPECT_EQ(array(Variant::U85_256).block_cycles(b), (8u + 4) * 4 * 2 * 4);
}

}  // namespace
}  // namespace ethosu::npu
