// The Ethos-U85 output unit's rates (models/npu/ao/ao_timing_u85.h) on the configurations' own architecture
// descriptions, against the elementwise figures Vela prints for corpus-u85.
#include "models/npu/ao/ao_timing_u85.h"

#include <gtest/gtest.h>

namespace ethosu::npu {
namespace {

using isa::Variant;

AoTimingU85 ao(Variant v) { return AoTimingU85::of(isa::architecture(v)); }

TEST(TimingAoU85, ElementwiseAddScalesWithTheConfiguration) {
  // add_i8 (8x8x16 = 1024 elements): Vela's NPU cycles 512 / 256 / 128 / 64 / 32 on U85-128 ... 2048.
  const AoOutputU85 add{8, 8, true};
  const Variant vs[] = {Variant::U85_128, Variant::U85_256, Variant::U85_512, Variant::U85_1024, Variant::U85_2048};
  uint64_t expect = 512;
  for (Variant v : vs) {
    EXPECT_EQ(ao(v).cycles(add, 1024), expect) << isa::variant_name(v);
    expect /= 2;
  }
}

TEST(TimingAoU85, OutputRateByWidth) {
  AoOutputU85 q;
  EXPECT_EQ(output_rate(q), OutputRateU85::B8);
  q.ofm_bits = 16;
  EXPECT_EQ(output_rate(q), OutputRateU85::B16);
  EXPECT_DOUBLE_EQ(ao(Variant::U85_1024).cycles_per_element(q), 0.125);  // twice the 8-bit 0.0625
  q.ofm_bits = 64;
  EXPECT_EQ(output_rate(q), OutputRateU85::B64);
  q = AoOutputU85{32, 32, true};
  EXPECT_EQ(output_rate(q), OutputRateU85::BINARY_32BIT);
  q.ofm_bits = 8;
  EXPECT_EQ(output_rate(q), OutputRateU85::CHAINED);
  q = AoOutputU85{32, 8};
  q.to_chaining_buffer = true;
  EXPECT_EQ(output_rate(q), OutputRateU85::CHAINED);
  q.divide = true;
  EXPECT_DOUBLE_EQ(ao(Variant::U85_2048).cycles_per_element(q), 33.0);
}

TEST(TimingAoU85, TransposeHalvesTheActivationRate) {
  // MaxPool's AO in the worked example (notes/u85/timing.md 3.2): 2048 elements at 0.5 on U85-128 = 1024.
  AoOutputU85 q;
  EXPECT_EQ(ao(Variant::U85_128).cycles(q, 2048), 1024u);
  // On U85-2048 an 8-bit OFM goes at 1/32 cycle, a transposed one at the transposed activation rate 1/16.
  EXPECT_EQ(ao(Variant::U85_2048).cycles(q, 2048), 64u);
  q.transposed = true;
  EXPECT_EQ(ao(Variant::U85_2048).cycles(q, 2048), 128u);
}

}  // namespace
}  // namespace ethosu::npu
