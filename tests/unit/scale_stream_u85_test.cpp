// Ethos-U85 scale/bias records: both accumulator forms written byte by byte, the padded record count, short
// streams and bad layouts.
#include "models/kernels/weights/scale_stream_u85.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/error.h"

namespace ethosu::weights::u85 {
namespace {

void put_le(std::vector<uint8_t>& b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + size_t(i)] = uint8_t(v >> (8 * i));
}

TEST(U85Scales, Int32Records) {
  ScaleLayout l;
  l.ofm_depth = 3;
  std::vector<uint8_t> b(scale_stream_bytes(l), 0);
  ASSERT_EQ(b.size(), 160u);  // 16 records of 10 bytes
  put_le(b, 0, uint32_t(-123456), 4);
  put_le(b, 4, 0x7FFFFFFFu, 4);
  b[8] = 63;
  put_le(b, 10, 0x7FFFFFFFu, 4);  // the largest bias
  put_le(b, 14, 1234567890u, 4);
  b[18] = 31;
  put_le(b, 20, 0x80000000u, 4);  // the smallest
  put_le(b, 24, 0x80000001u, 4);  // bit 31 of the multiplier is not part of it
  b[28] = 0xC5;                   // nor bits 7:6 of the shift
  std::vector<ChannelScale> s;
  decode_scales(b.data(), b.size(), l, s);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].bias, -123456);
  EXPECT_EQ(s[0].multiplier, 0x7FFFFFFFu);
  EXPECT_EQ(s[0].shift, 63);
  EXPECT_EQ(s[1].bias, INT32_MAX);
  EXPECT_EQ(s[1].multiplier, 1234567890u);
  EXPECT_EQ(s[1].shift, 31);
  EXPECT_EQ(s[2].bias, INT32_MIN);
  EXPECT_EQ(s[2].multiplier, 1u);
  EXPECT_EQ(s[2].shift, 5);
}

TEST(U85Scales, Int48Records) {
  ScaleLayout l;
  l.ofm_depth = 2;
  l.acc = AccFormat::I48;
  std::vector<uint8_t> b(scale_stream_bytes(l), 0);
  put_le(b, 0, uint64_t(-(int64_t{1} << 47)), 6);
  put_le(b, 6, 0xFFFF, 2);  // 15 bits of multiplier
  b[8] = 25;
  put_le(b, 10, (uint64_t{1} << 47) - 1, 6);
  put_le(b, 16, 25423, 2);
  b[18] = 40;
  std::vector<ChannelScale> s;
  decode_scales(b.data(), b.size(), l, s);
  EXPECT_EQ(s[0].bias, -(int64_t{1} << 47));
  EXPECT_EQ(s[0].multiplier, 0x7FFFu);
  EXPECT_EQ(s[0].shift, 25);
  EXPECT_EQ(s[1].bias, (int64_t{1} << 47) - 1);
  EXPECT_EQ(s[1].multiplier, 25423u);
  EXPECT_EQ(s[1].shift, 40);
}

TEST(U85Scales, RecordsArePaddedToTheMicroBlockRoundedTo16) {
  ScaleLayout l;
  const struct {
    int depth, ublock;
    size_t records, bytes;
  } cases[] = {{1, 8, 16, 160},   {16, 16, 16, 160}, {17, 16, 32, 320},   {20, 32, 32, 320},
               {33, 32, 64, 640}, {20, 64, 64, 640}, {65, 64, 128, 1280}, {3, 16, 16, 160}};
  for (const auto& c : cases) {
    l.ofm_depth = c.depth;
    l.ofm_ublock_depth = c.ublock;
    EXPECT_EQ(scale_record_count(l), c.records) << c.depth << "," << c.ublock;
    EXPECT_EQ(scale_stream_bytes(l), c.bytes) << c.depth << "," << c.ublock;
  }
  l.ofm_depth = 7;  // 70 bytes of records: SCALE_LENGTH rounds to 16
  l.ofm_ublock_depth = 8;
  EXPECT_EQ(scale_stream_bytes(l), 160u);
}

TEST(U85Scales, ShortStreamsAndBadLayouts) {
  ScaleLayout l;
  l.ofm_depth = 20;
  l.ofm_ublock_depth = 32;
  std::vector<uint8_t> b(319);
  std::vector<ChannelScale> s;
  try {
    decode_scales(b.data(), b.size(), l, s);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "scale stream: 319 bytes hold fewer than the 32 records of 10 bytes for OFM depth 20 padded to 32 channels");
  }
  b.resize(320);
  EXPECT_NO_THROW(decode_scales(b.data(), b.size(), l, s));
  EXPECT_EQ(s.size(), 20u);
  l.ofm_ublock_depth = 12;
  EXPECT_THROW(scale_record_count(l), InputError);
  l.ofm_ublock_depth = 16;
  l.ofm_depth = 0;
  EXPECT_THROW(decode_scales(b.data(), b.size(), l, s), InputError);
  l.ofm_depth = 1;
  l.acc = AccFormat(2);
  EXPECT_THROW(decode_scales(b.data(), b.size(), l, s), InputError);
}

}  // namespace
}  // namespace ethosu::weights::u85
