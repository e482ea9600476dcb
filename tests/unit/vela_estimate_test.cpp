// Vela's per-operator estimate on hand-built operations whose Vela figures are known (they equal the
// corresponding opcorpus cases, recomputed here by hand from spec 05 section 7).
#include "models/estimate/vela_estimate.h"

#include <gtest/gtest.h>

namespace ethosu::estimate {
namespace {

using isa::OpKind;
namespace enums = isa::enums;

isa::FeatureMap fm(uint32_t w, uint32_t h, uint32_t d, bool nhcwb16 = false) {
  isa::FeatureMap f;
  f.region = 1;  // DRAM in Vela's internal-default system
  f.width = w;
  f.height = h;
  f.depth = d;
  f.element.type = enums::activation_type::SIGNED;
  f.element.format = nhcwb16 ? enums::activation_format::NHCWB16 : enums::activation_format::NHWC;
  return f;
}

isa::Operation add_8x8x16() {
  isa::Operation op;
  op.kind = OpKind::ELEMENTWISE;
  op.elementwise_mode = enums::elementwise_mode::ADD;
  op.ifm = op.ifm2 = op.ofm = fm(8, 8, 16);
  op.block = {8, 8, 16};
  op.activation.min = -128;
  op.activation.max = 127;
  return op;
}

TEST(TimingVelaEstimate, ElementwiseAddIsMemoryBound) {
  // Per 8x8x16 block: IFM 500 + 1024 B x (128 / 16 B bursts) / 3.75 B/cycle, OFM 250 + the same;
  // (5119.07 + 0.75 x 1024) / 4 / 1024 = 1.4372 cycles per element; x 1024, rounded up: 1472.
  const auto e = vela_estimate(add_8x8x16(), vela_internal_default_u65());
  EXPECT_NEAR(e.ifm_block_memory_cycles, 500 + 8192 / 3.75, 1e-6);
  EXPECT_NEAR(e.ofm_block_memory_cycles, 250 + 8192 / 3.75, 1e-6);
  EXPECT_EQ(e.npu_cycles, 1472u);
  // Whole-op DRAM access: IFM, IFM2 and OFM, each 8192 burst-scaled bytes, / 3.75.
  EXPECT_EQ(e.access_cycles[1], 6553u);
  EXPECT_EQ(e.total_cycles, 6553u);
}

TEST(TimingVelaEstimate, SramIsFasterAndBrickLayoutBurstsLonger) {
  auto sys = vela_internal_default_u65();
  auto op = add_8x8x16();
  const auto dram = vela_estimate(op, sys);
  op.ifm.element.format = enums::activation_format::NHCWB16;  // 16 x 8 columns = 128 B runs: full bursts
  const auto brick = vela_estimate(op, sys);
  EXPECT_NEAR(brick.ifm_block_memory_cycles, 500 + 1024 / 3.75, 1e-6);
  EXPECT_LT(brick.npu_cycles, dram.npu_cycles);
  sys.region_port[1] = 0;  // move everything to SRAM: compute-bound at 0.75 cycles per element
  EXPECT_EQ(vela_estimate(add_8x8x16(), sys).npu_cycles, 768u);
}

TEST(TimingVelaEstimate, MaxPool2x2Stride2) {
  // maxpool_2x2_s2_i8: IFM 16x16x32, OFM 8x8x32, block 6x6x32 -> 4 blocks, IFM block 12x12x32.
  isa::Operation op;
  op.kind = OpKind::POOL;
  op.pooling_mode = enums::pooling_mode::MAX;
  op.ifm = fm(16, 16, 32);
  op.ofm = fm(8, 8, 32);
  op.kernel.width = op.kernel.height = op.kernel.dilated_width = op.kernel.dilated_height = 2;
  op.kernel.stride_x = op.kernel.stride_y = 2;
  op.block = {6, 6, 32};
  op.activation.min = -128;
  op.activation.max = 127;
  const auto e = vela_estimate(op, vela_internal_default_u65());
  EXPECT_EQ(e.blocks, 4u);
  EXPECT_EQ(e.ifm_block_w, 12u);
  EXPECT_EQ(e.ifm_block_d, 32u);
  EXPECT_DOUBLE_EQ(e.mac_cycles_per_block > e.output_cycles_per_block ? e.mac_cycles_per_block
                                                                      : e.output_cycles_per_block,
                   (e.ifm_block_memory_cycles + e.ofm_block_memory_cycles + 144 + 4 * 9 * 4) / 4);
  EXPECT_EQ(e.npu_cycles, 10513u);  // Vela's printed figure
  EXPECT_EQ(e.macs, 8u * 8 * 32 * 4);
}

TEST(TimingVelaEstimate, DualCoreHalvesComputeBoundCycles) {
  isa::Operation op;
  op.kind = OpKind::CONV;
  op.ifm = fm(1, 1, 1024);
  op.ofm = fm(1, 1, 256);
  op.ifm.region = op.ofm.region = 2;  // SRAM: compute-bound
  op.block = {1, 1, 128};
  op.activation.min = -128;
  op.activation.max = 127;
  const auto one = vela_estimate(op, vela_internal_default_u65());
  // 32 IFM jobs x 16 ublock slices x max(32, 4 x 1 ublock); the single-ublock delay 2 x (steps - 1) is 0.
  EXPECT_EQ(one.mac_cycles_per_block, 32.0 * 16 * 32);
  op.parallel_mode = enums::parallel_mode::DUAL_CORE_DEPTH;
  const auto two = vela_estimate(op, vela_internal_default_u65());
  EXPECT_EQ(two.mac_cycles_per_block, one.mac_cycles_per_block / 2);
}

TEST(TimingVelaEstimate, DmaIsNotEstimated) {
  isa::Operation op;
  op.kind = OpKind::DMA;
  EXPECT_EQ(vela_estimate(op, vela_internal_default_u65()).npu_cycles, 0u);
}

}  // namespace
}  // namespace ethosu::estimate
