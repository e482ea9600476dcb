// Output stage: rounding modes, scale/bias stream decoding, activations, LUTs (spec 03 §4-§6).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "models/kernels/output_stage.h"

namespace ethosu::kernels {
namespace {

TEST(RoundedScale, WorkedExampleSection11) {
  // acc 123456, M 1518500250, s 39: (P + 2^38 + 2^30) >> 39 = 341; negative: r = 2^38 - 2^30.
  EXPECT_EQ(rounded_scale(123456, 1518500250u, 39, RoundMode::Dbl), 341);
  EXPECT_EQ(rounded_scale(-123456, 1518500250u, 39, RoundMode::Dbl), -341);
  OutputStage os;
  os.ofm_type = DataType::Int8;
  os.ofm_zero_point = 3;
  os.activation_min = -128;
  os.activation_max = 127;
  EXPECT_EQ(finish(os, 341), 127);   // 344 clamped
  EXPECT_EQ(finish(os, -341), -128);  // -338 clamped
  os.ofm_type = DataType::Int16;
  os.activation_min = -32768;
  os.activation_max = 32767;
  EXPECT_EQ(finish(os, 341), 344);
  EXPECT_EQ(finish(os, -341), -338);
}

TEST(RoundedScale, DblTiesRoundUpBelowShift32) {
  // s <= 31: r = 2^(s-1), ties go toward +infinity.
  EXPECT_EQ(rounded_scale(5, 1, 1, RoundMode::Dbl), 3);    // 2.5 -> 3
  EXPECT_EQ(rounded_scale(-5, 1, 1, RoundMode::Dbl), -2);  // -2.5 -> -2
  EXPECT_EQ(rounded_scale(7, 3, 0, RoundMode::Dbl), 21);   // s = 0: no rounding term
}

TEST(RoundedScale, DblAboveShift31AddsSignedHalfOf2To31) {
  // x * M = 2^32 * 3; s = 33: (3 * 2^32 + 2^32 + 2^30) >> 33 = 2 (1.5 + 0.125 rounds to 2).
  EXPECT_EQ(rounded_scale(3, 1u << 31, 32, RoundMode::Dbl), 2);
  // Exactly 0.5 * 2^33 - 2^30 boundary: x*M = 2^32 - 2^30 gives (2^32 - 2^30 + 2^32 + 2^30) >> 33 = 1.
  EXPECT_EQ(rounded_scale(3, 1u << 30, 33, RoundMode::Dbl), 1);
  // Negative side subtracts: -(2^32 - 2^30) + 2^32 - 2^30 = 0 -> 0.
  EXPECT_EQ(rounded_scale(-3, 1u << 30, 33, RoundMode::Dbl), 0);
}

TEST(RoundedScale, TruncateRoundsTowardZero) {
  EXPECT_EQ(rounded_scale(7, 1, 1, RoundMode::Truncate), 3);
  EXPECT_EQ(rounded_scale(-7, 1, 1, RoundMode::Truncate), -3);
  EXPECT_EQ(rounded_scale(-1, 1, 10, RoundMode::Truncate), 0);
}

TEST(RoundedScale, NaturalRoundsHalfUp) {
  EXPECT_EQ(rounded_scale(5, 1, 1, RoundMode::Natural), 3);
  EXPECT_EQ(rounded_scale(-5, 1, 1, RoundMode::Natural), -2);
  EXPECT_EQ(rounded_scale(-7, 1, 1, RoundMode::Natural), -3);  // -3.5 -> -3
  // Large shift: no 2^30 term (differs from DBL).
  EXPECT_EQ(rounded_scale(3, 1u << 30, 33, RoundMode::Natural), 0);
}

TEST(RoundedScale, FortyBitAccumulatorTimesFullMultiplierIsExact) {
  // (2^39 - 1) * (2^32 - 1) needs 71 bits; shift 40 brings it back to just below 2^31.
  const int64_t x = (int64_t{1} << 39) - 1;
  const uint32_t m = 0xFFFFFFFFu;
  const int128_t p = static_cast<int128_t>(x) * m;
  const int64_t expect_nat = static_cast<int64_t>((p + (int128_t{1} << 39)) >> 40);
  EXPECT_EQ(rounded_scale(x, m, 40, RoundMode::Natural), expect_nat);
  EXPECT_EQ(expect_nat, 2147483647);
  EXPECT_EQ(rounded_scale(-x, m, 40, RoundMode::Truncate), -2147483647);  // -2147483647.5 toward zero
}

TEST(RoundedScale, UnsignedMultiplierAbove2To31) {
  // Average-pool scales exceed 2^31: M = 2^31 + 1 must not be read as negative.
  EXPECT_EQ(rounded_scale(2, 0x80000001u, 32, RoundMode::Natural), 1);
  EXPECT_EQ(rounded_scale(100, 0x80000001u, 31, RoundMode::Dbl), 100);
}

TEST(ScaleBiasStream, DecodesFortyBitBiasMultiplierAndShift) {
  // bias = -2 (40-bit), M = 0x89ABCDEF, shift 0x3F with the two top bits set (ignored).
  const uint8_t e[10] = {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xEF, 0xCD, 0xAB, 0x89, 0xFF};
  const ScaleBias sb = decode_scale_bias(e);
  EXPECT_EQ(sb.bias, -2);
  EXPECT_EQ(sb.multiplier, 0x89ABCDEFu);
  EXPECT_EQ(sb.shift, 63);
  const uint8_t big[20] = {0x00, 0x00, 0x00, 0x00, 0x7F, 1, 0, 0, 0, 5,
                           0x01, 0x00, 0x00, 0x00, 0x80, 2, 0, 0, 0, 6};
  const auto v = decode_scale_bias_stream(big, 2);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].bias, int64_t{0x7F} << 32);
  EXPECT_EQ(v[1].bias, -(int64_t{1} << 39) + 1);
  EXPECT_EQ(v[1].multiplier, 2u);
  EXPECT_EQ(v[1].shift, 6);
}

TEST(Finish, Int32OfmWithoutLutIgnoresZeroPointAndClamp) {
  OutputStage os;
  os.ofm_type = DataType::Int32;
  os.ofm_zero_point = 5;  // stale value Vela leaves behind
  os.activation_min = -128;
  os.activation_max = 127;
  EXPECT_EQ(finish(os, 100000), 100000);
  EXPECT_EQ(finish(os, int64_t{1} << 40), INT32_MAX);
  EXPECT_EQ(finish(os, -(int64_t{1} << 40)), INT32_MIN);
}

TEST(Finish, ZeroPointThenClampThenSaturate) {
  OutputStage os;
  os.ofm_type = DataType::UInt8;
  os.ofm_zero_point = 10;
  os.activation_min = 10;  // ReLU in quantized units
  os.activation_max = 200;
  EXPECT_EQ(finish(os, -50), 10);
  EXPECT_EQ(finish(os, 100), 110);
  EXPECT_EQ(finish(os, 1000), 200);
  const FastFinish fast(os);
  for (int64_t x : {-1000, -11, -10, 0, 45, 189, 190, 191, 5000}) EXPECT_EQ(fast(x), finish(os, x)) << x;
  os.activation_min = 300;  // beyond the type: saturation wins
  os.activation_max = 400;
  EXPECT_EQ(finish(os, 0), 255);
  EXPECT_EQ(FastFinish(os)(0), 255);
}

TEST(Finish, SigmoidAndTanhAreClampedAfterTheFunction) {
  OutputStage os;
  os.ofm_type = DataType::Int16;
  os.function = ActivationFunction::Sigmoid;
  os.activation_min = 0;
  os.activation_max = 32767;
  EXPECT_EQ(finish(os, 0), 16384);                // sigmoid(0) = 0.5
  EXPECT_EQ(finish(os, 1000000), 32767);          // 32768 saturates
  EXPECT_EQ(finish(os, -1000000), 0);
  // Input 12288 = 1.0: round(32768 * 0.7310585786) = 23955.
  EXPECT_EQ(finish(os, 12288), 23955);
  // sigmoid(3.255) = 31551; clamping the input to 32767 first would give 30639.
  EXPECT_EQ(finish(os, 40000), 31551);
  os.function = ActivationFunction::Tanh;
  os.activation_min = -32768;
  EXPECT_EQ(finish(os, 12288), 24956);  // round(32768 * tanh(1))
  EXPECT_EQ(finish(os, -12288), -24956);
  os.ofm_zero_point = 12288;  // zero point is added before the function
  EXPECT_EQ(finish(os, 0), 24956);
}

// An int8 output stage looking up `lut`, a 256-entry table holding 255 - index.
OutputStage descending_table(std::vector<uint8_t>& lut) {
  lut.resize(256);
  for (int i = 0; i < 256; ++i) lut[i] = static_cast<uint8_t>(255 - i);
  OutputStage os;
  os.ofm_type = DataType::Int8;
  os.function = ActivationFunction::Table;
  os.lut = lut.data();
  return os;
}

TEST(Finish, EightBitLutIndexedBySignedValuePlus128) {
  std::vector<uint8_t> lut;
  OutputStage os = descending_table(lut);
  os.ofm_zero_point = 0;
  os.activation_min = -128;
  os.activation_max = 127;
  EXPECT_EQ(finish(os, -128), static_cast<int8_t>(255));  // index 0
  EXPECT_EQ(finish(os, 0), static_cast<int8_t>(127));     // index 128
  EXPECT_EQ(finish(os, 1000), static_cast<int8_t>(0));    // clipped to 127 -> index 255
  os.activation_max = 0;                                  // MIN/MAX clamp applies before the lookup
  EXPECT_EQ(finish(os, 100), static_cast<int8_t>(127));
  os.ofm_type = DataType::UInt8;
  os.activation_min = 0;
  os.activation_max = 255;
  EXPECT_EQ(finish(os, 3), 252);  // unsigned: index = value
  EXPECT_EQ(finish(os, -5), 255);
}

TEST(Finish, ForcedUnsignedClipRangeIndexesAnEightBitTableByValue) {
  // FORCE_UINT8 on a signed OFM: after the MIN/MAX clamp the value is clipped to 0..255 and is the index.
  std::vector<uint8_t> lut;
  OutputStage os = descending_table(lut);
  os.clip_range = ClipRange::ForceUInt8;
  os.activation_min = -128;
  os.activation_max = 127;
  EXPECT_EQ(finish(os, -5), -1);     // clipped to 0: entry 255 read as int8
  EXPECT_EQ(finish(os, 100), -101);  // entry 155
  EXPECT_EQ(finish(os, 500), -128);  // MAX 127 first: entry 128
}

TEST(Finish, Int32LutForSoftmaxUsesZeroPointAndInt8Clip) {
  std::vector<uint8_t> lut(1024);
  for (int i = 0; i < 256; ++i) {
    const int32_t v = i * 100000 - 7;
    for (int b = 0; b < 4; ++b) lut[4 * i + b] = static_cast<uint8_t>(static_cast<uint32_t>(v) >> (8 * b));
  }
  OutputStage os;
  os.ofm_type = DataType::Int32;
  os.function = ActivationFunction::Table;
  os.clip_range = ClipRange::ForceInt8;
  os.lut = lut.data();
  os.ofm_zero_point = 10;
  os.activation_min = -128;
  os.activation_max = 127;
  EXPECT_EQ(finish(os, -10), 128 * 100000 - 7);   // -10 + 10 = 0 -> index 128
  EXPECT_EQ(finish(os, 500), 255 * 100000 - 7);   // clipped
  EXPECT_EQ(finish(os, -500), -7);
}

TEST(Finish, Int16InterpolatedLut) {
  std::vector<uint8_t> lut(2048);
  auto put = [&](int i, int16_t base, int16_t slope) {
    lut[4 * i] = static_cast<uint8_t>(base), lut[4 * i + 1] = static_cast<uint8_t>(static_cast<uint16_t>(base) >> 8);
    lut[4 * i + 2] = static_cast<uint8_t>(slope), lut[4 * i + 3] = static_cast<uint8_t>(static_cast<uint16_t>(slope) >> 8);
  };
  for (int i = 0; i < 512; ++i) put(i, static_cast<int16_t>(i * 10), static_cast<int16_t>(i % 2 ? -3 : 100));
  OutputStage os;
  os.ofm_type = DataType::Int16;
  os.function = ActivationFunction::Table;
  os.lut = lut.data();
  os.activation_min = -32768;
  os.activation_max = 32767;
  // v = -32768 -> u = 0: entry 0, fraction 0.
  EXPECT_EQ(finish(os, -32768), 0);
  // v = 0 -> u = 32768 = 256 * 128: entry 256 base 2560.
  EXPECT_EQ(finish(os, 0), 2560);
  // u = 32768 + 64: entry 256, f = 64: 2560 + ((100 * 64 + 64) >> 7) = 2560 + 50.
  EXPECT_EQ(finish(os, 64), 2610);
  // Odd entry with negative slope: u = 257 * 128 + 127: 2570 + ((-3 * 127 + 64) >> 7) = 2570 - 3.
  EXPECT_EQ(finish(os, 128 + 127), 2567);
  // Beyond int16: clipped to 32767 -> entry 511, f = 127: 5110 + ((-3*127+64)>>7).
  EXPECT_EQ(finish(os, 100000), 5107);
  EXPECT_EQ(lut16_lookup(lut.data(), 65535), 5107);
}

// apply() over int32 values equals operator() on each: 8-bit LUTs (signed, unsigned, forced-unsigned clip, activation
// bounds inside, beyond, disjoint from or the wrong way round the table's), no function (8 and 16-bit OFMs, any zero
// point), and a fixed function.
TEST(Finish, ApplyEqualsFinishingEachValue) {
  std::mt19937 rng(3);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  std::vector<uint8_t> lut(256);
  for (auto& b : lut) b = static_cast<uint8_t>(pick(0, 255));
  for (int it = 0; it < 400; ++it) {
    OutputStage os;
    const int kind = static_cast<int>(pick(0, 3));
    const DataType narrow[] = {DataType::Int8, DataType::UInt8, DataType::Int16, DataType::UInt16};
    os.ofm_type = kind == 3 ? DataType::Int16 : narrow[pick(0, kind == 0 ? 3 : 1)];
    os.function = kind == 0 ? ActivationFunction::None
                            : (kind == 3 ? ActivationFunction::Tanh : ActivationFunction::Table);
    os.lut = lut.data();
    const ClipRange clips[] = {ClipRange::OfmPrecision, ClipRange::ForceUInt8, ClipRange::ForceInt8};
    os.clip_range = clips[pick(0, 2)];
    // Now and then a zero point that puts the bounds minus it outside int32 (apply() then goes value by value).
    const int64_t extreme = pick(0, 1) ? INT32_MAX - pick(0, 300) : INT32_MIN + pick(0, 300);
    os.ofm_zero_point = static_cast<int32_t>(pick(0, 7) == 0 ? extreme : pick(-300, 300));
    os.activation_min = static_cast<int32_t>(pick(-400, 400));
    os.activation_max = static_cast<int32_t>(pick(-400, 400));
    const FastFinish fin(os);
    std::vector<int32_t> v(64);
    // Values around 0 and around -zero point (where the clamp bounds are), and anywhere.
    for (auto& x : v) {
      const int64_t near = pick(0, 1) ? 0 : -int64_t{os.ofm_zero_point};
      x = static_cast<int32_t>(pick(0, 3) == 0 ? pick(INT32_MIN, INT32_MAX)
                                               : std::clamp<int64_t>(near + pick(-600, 600), INT32_MIN, INT32_MAX));
    }
    std::vector<int32_t> got = v;
    fin.apply(got.data(), got.size());
    for (size_t i = 0; i < v.size(); ++i)
      ASSERT_EQ(got[i], fin(v[i])) << "iteration " << it << ", value " << v[i] << ", activation ["
                                   << os.activation_min << ", " << os.activation_max << "]";
  }
}

TEST(Accumulator, SaturatesToFormatWidth) {
  EXPECT_EQ(saturate_accumulator(int64_t{1} << 35, AccFormat::Int32), INT32_MAX);
  EXPECT_EQ(saturate_accumulator(int64_t{1} << 35, AccFormat::Int40), int64_t{1} << 35);
  EXPECT_EQ(saturate_accumulator(-(int64_t{1} << 45), AccFormat::Int40), -(int64_t{1} << 39));
}

}  // namespace
}  // namespace ethosu::kernels
