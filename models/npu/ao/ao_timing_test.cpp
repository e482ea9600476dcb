// The AO's work per OFM tile (models/npu/ao/ao_timing.h): cycles per element by operation and activation, over
// the accumulator elements the MAC hands over, worked out by hand from spec 05 section 7.2's table.
#include "models/npu/ao/ao_timing.h"

#include <gtest/gtest.h>

#include "models/npu/mac/mac_timing.h"
#include "tests/unit/timing_ops.h"

namespace ethosu::npu {
namespace {

using isa::OpKind;
using test::kernel_op;
using test::whole;
namespace enums = isa::enums;

uint64_t block_cycles(const isa::Operation& op, const OfmBox& box) {
  return AoTiming{}.cycles(op, MacWork(op, MacTiming{}).ublock_elements(box));
}

TEST(TimingAo, ConvOutputAtAQuarterCyclePerElement) {
  const auto op = kernel_op(OpKind::CONV, 8, 8, 16, 16, 1, 1, 0, {8, 8, 16});
  EXPECT_EQ(output_rate(op), OutputRate::OTHER);
  EXPECT_EQ(activation_rate(op), ActivationRate::NONE);  // the clamp is the OFM's own range
  EXPECT_EQ(block_cycles(op, whole(op)), 256u);          // 1024 elements x 0.25
}

TEST(TimingAo, MaxPoolIsFastest) {
  auto op = kernel_op(OpKind::POOL, 8, 8, 16, 16, 2, 2, 0, {8, 8, 16});
  op.pooling_mode = enums::pooling_mode::MAX;
  EXPECT_EQ(block_cycles(op, whole(op)), 128u);  // 1024 x 0.125
}

TEST(TimingAo, ElementwiseAddAndActivations) {
  auto op = test::elementwise_add(8, 8, 16);
  EXPECT_EQ(block_cycles(op, whole(op)), 768u);  // 1024 x 0.75 (ADD with scaling)
  // A narrowing ReLU clamp adds the activation rate 0.25, which ADD's 0.75 already covers.
  op.activation.min = 0;
  EXPECT_EQ(activation_rate(op), ActivationRate::RELU);
  EXPECT_EQ(block_cycles(op, whole(op)), 768u);
  // A LUT costs a cycle per element.
  op.activation.function = enums::activation_function::TABLE_0;
  EXPECT_EQ(block_cycles(op, whole(op)), 1024u);
}

TEST(TimingAo, EdgeTilesRoundToMicroBlocks) {
  // A 1x1x3 corner of a conv still drains a whole 2x2x8 micro-block: 32 elements x 0.25.
  const auto op = kernel_op(OpKind::CONV, 9, 9, 19, 16, 1, 1, 0, {8, 8, 16});
  EXPECT_EQ(block_cycles(op, {8, 8, 16, 9, 9, 19}), 8u);
}

TEST(TimingAo, DualCoreHalvesTheBusierCoresElements) {
  auto op = kernel_op(OpKind::CONV, 8, 8, 32, 32, 1, 1, 0, {8, 8, 32});
  const uint64_t one = block_cycles(op, whole(op));
  op.parallel_mode = enums::parallel_mode::DUAL_CORE_DEPTH;
  EXPECT_EQ(block_cycles(op, whole(op)), one / 2);
}

TEST(TimingAo, RatesAreParameters) {
  auto op = test::elementwise_add(8, 8, 16);
  AoTiming t;
  t.output_cycles_per_element[static_cast<size_t>(OutputRate::ADD_SUB)] = 2.0;
  EXPECT_EQ(t.cycles(op, 1024), 2048u);
}

}  // namespace
}  // namespace ethosu::npu
