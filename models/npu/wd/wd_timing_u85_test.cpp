// The Ethos-U85 weight decoders' rates (models/npu/wd/wd_timing_u85.h) on the configurations' own architecture
// descriptions.
#include "models/npu/wd/wd_timing_u85.h"

#include "models/npu/wd/wd_timing.h"

#include <gtest/gtest.h>

namespace ethosu::npu {
namespace {

using isa::Variant;

WdTimingU85 wd(Variant v) { return WdTimingU85::of(isa::architecture(v)); }

TEST(TimingWdU85, StandardRateRisesWithZeros) {
  WeightStreamU85 s;
  EXPECT_DOUBLE_EQ(wd(Variant::U85_128).weights_per_cycle(s), 8.0);  // dense weights: the minimum
  s.zero_fraction = 0.7;
  EXPECT_DOUBLE_EQ(wd(Variant::U85_128).weights_per_cycle(s), 20.0);  // half-way from 50 % to 90 %
  s.zero_fraction = 0.95;
  EXPECT_DOUBLE_EQ(wd(Variant::U85_128).weights_per_cycle(s), 32.0);
  EXPECT_EQ(wd(Variant::U85_128).decode_cycles(s, 1000), 32u);  // 31.25, whole cycles
}

TEST(TimingWdU85, StandardDecodersPerConfiguration) {
  const WeightStreamU85 dense;
  EXPECT_DOUBLE_EQ(wd(Variant::U85_256).weights_per_cycle(dense), 8.0);
  EXPECT_DOUBLE_EQ(wd(Variant::U85_512).weights_per_cycle(dense), 16.0);
  EXPECT_DOUBLE_EQ(wd(Variant::U85_1024).weights_per_cycle(dense), 32.0);
  EXPECT_DOUBLE_EQ(wd(Variant::U85_2048).weights_per_cycle(dense), 32.0);
}

TEST(TimingWdU85, OneFastDecoder) {
  WeightStreamU85 s;
  s.fast = true;
  EXPECT_DOUBLE_EQ(wd(Variant::U85_2048).weights_per_cycle(s), 32.0);  // not x4: one fast decoder
  s.distinct_values = 15;
  EXPECT_DOUBLE_EQ(wd(Variant::U85_128).weights_per_cycle(s), 64.0);
  s.distinct_values = 16;
  EXPECT_DOUBLE_EQ(wd(Variant::U85_128).weights_per_cycle(s), 32.0);
}

// An operation's decode time follows its measured weights; a U65 operation's does not.
TEST(TimingWdU85, AnOperationDecodesAtItsMeasuredWeightsRate) {
  WdTiming t;
  t.u85 = wd(Variant::U85_256);
  isa::Operation op;
  op.version = isa::IsaVersion::V2;
  WeightStreamU85 sparse;
  sparse.zero_fraction = 0.9;
  EXPECT_EQ(t.decode_cycles(op, 3200), 400u);             // not measured: dense, 8 per cycle
  EXPECT_EQ(t.decode_cycles(op, 3200, &sparse), 100u);    // 90 % zeros: 32 per cycle
  op.weight_format = isa::enums::weight_format::FWD;
  sparse.distinct_values = 3;
  EXPECT_EQ(t.decode_cycles(op, 3200, &sparse), 50u);     // the fast decoder, few values: 64 per cycle
  op.version = isa::IsaVersion::V1;
  EXPECT_EQ(t.decode_cycles(op, 3200, &sparse), 400u);    // the U65's decoder: weights_per_cycle
}

}  // namespace
}  // namespace ethosu::npu
