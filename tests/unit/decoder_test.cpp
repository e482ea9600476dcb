#include <gtest/gtest.h>

#include <cstring>

#include "isa/architecture.h"
#include "isa/decoder.h"
#include "isa/state.h"

using namespace ethosu::isa;

namespace {

std::vector<uint8_t> bytes_of(const std::vector<uint32_t>& words) {
  std::vector<uint8_t> b(words.size() * 4);
  std::memcpy(b.data(), words.data(), b.size());
  return b;
}

bool has(const Stream& s, Problem p) {
  for (const auto& d : s.diagnostics)
    if (d.problem == p) return true;
  return false;
}

}  // namespace

TEST(Decoder, DecodesCmd0AndCmd1WithOffsets) {
  auto s = decode(bytes_of({0x00000123, 0x00004030, 0x00000130, 0x0002010F, 0xFFFF0000}));
  ASSERT_TRUE(s.ok()) << s.diagnostics.front().message;
  ASSERT_EQ(s.commands.size(), 4u);
  EXPECT_EQ(s.commands[0].cmd(), Cmd::NPU_SET_PARALLEL_MODE);
  EXPECT_EQ(s.commands[1].cmd(), Cmd::NPU_SET_DMA0_SRC);
  EXPECT_EQ(s.commands[1].get(Field::NPU_SET_DMA0_SRC_addr), 0x130);
  EXPECT_EQ(s.commands[1].words, 2);
  EXPECT_EQ(s.commands[2].offset, 12u);
  EXPECT_EQ(s.commands[2].get(Field::NPU_SET_IFM_REGION_region), 2);
  EXPECT_EQ(s.commands[3].cmd(), Cmd::NPU_OP_STOP);
  EXPECT_EQ(s.commands[3].param(), 0xFFFF);
}

TEST(Decoder, FortyBitAddress) {
  auto s = decode(bytes_of({0x00AB4000, 0x12345678, 0x00000000}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.commands[0].get(Field::NPU_SET_IFM_BASE0_addr), 0xAB12345678);
}

TEST(Decoder, UnknownOpcode) {
  auto s = decode(bytes_of({0x00000004, 0x00000000}));
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(has(s, Problem::UNKNOWN_OPCODE));
  EXPECT_EQ(s.commands[0].info, nullptr);
  EXPECT_EQ(s.diagnostics[0].offset, 0u);
  EXPECT_NE(s.diagnostics[0].message.find("unknown cmd0 opcode 0x4"), std::string::npos);
}

TEST(Decoder, UnknownCmd1KeepsItsPayload) {
  auto s = decode(bytes_of({0x000040FF, 0x00000000, 0x00000000}));
  EXPECT_TRUE(has(s, Problem::UNKNOWN_OPCODE));
  ASSERT_EQ(s.commands.size(), 2u);
  EXPECT_EQ(s.commands[1].offset, 8u);
  EXPECT_EQ(s.commands[1].cmd(), Cmd::NPU_OP_STOP);
}

TEST(Decoder, TruncatedCmd1) {
  auto s = decode(bytes_of({0x00000000, 0x00004000}));
  EXPECT_TRUE(has(s, Problem::TRUNCATED));
  EXPECT_EQ(s.diagnostics.front().offset, 4u);
}

TEST(Decoder, MissingStop) {
  auto s = decode(bytes_of({0x00000123}));
  EXPECT_TRUE(has(s, Problem::MISSING_STOP));
  EXPECT_FALSE(s.ok());
}

TEST(Decoder, EmptyAndOddSizes) {
  EXPECT_TRUE(has(decode(nullptr, 0), Problem::EMPTY));
  std::vector<uint8_t> b = {0, 0, 0, 0, 1};
  EXPECT_TRUE(has(decode(b), Problem::SIZE_NOT_WORDS));
}

TEST(Decoder, ReservedAndIllegalValues) {
  EXPECT_TRUE(has(decode(bytes_of({0x00000523, 0xFFFF0000})), Problem::RESERVED_HEADER));
  EXPECT_TRUE(has(decode(bytes_of({0x0000C123, 0xFFFF0000})), Problem::RESERVED_CONTROL));
  // NPU_SET_IFM_REGION has a 3-bit region field: param bit 3 is reserved.
  EXPECT_TRUE(has(decode(bytes_of({0x0008010F, 0xFFFF0000})), Problem::RESERVED_BITS));
  // activation_function 7 is not defined.
  auto s = decode(bytes_of({0x00070125, 0xFFFF0000}));
  EXPECT_TRUE(has(s, Problem::ILLEGAL_VALUE));
  EXPECT_NE(s.diagnostics[0].message.find("activation_function = 7"), std::string::npos);
  // address high bits beyond 39 (param bits 15:8) are reserved.
  EXPECT_TRUE(has(decode(bytes_of({0x01004000, 0, 0xFFFF0000})), Problem::RESERVED_BITS));
}

TEST(Decoder, WordsAfterStopAreAWarning) {
  auto s = decode(bytes_of({0xFFFF0000, 0x00000123}));
  EXPECT_TRUE(s.ok());
  EXPECT_TRUE(has(s, Problem::AFTER_STOP));
}

TEST(Decoder, TooLongIsRefusedWithoutDecoding) {
  std::vector<uint8_t> big(kMaxStreamBytes + 4, 0xFF);  // junk: every word would be a problem
  const Stream s = decode(big);
  EXPECT_TRUE(has(s, Problem::TOO_LONG));
  EXPECT_EQ(s.diagnostics.size(), 1u);
  EXPECT_TRUE(s.commands.empty());
}

TEST(Decoder, JunkListsABoundedNumberOfProblems) {
  std::vector<uint8_t> junk(4 * 100000, 0xFF);  // reserved control values throughout
  const Stream s = decode(junk);
  EXPECT_EQ(s.commands.size(), 100000u);
  ASSERT_EQ(s.diagnostics.size(), 1001u);
  EXPECT_NE(s.diagnostics.back().message.find("more problems from here on are not listed"), std::string::npos);
  EXPECT_EQ(s.first_error()->offset, 0u);
}

TEST(Decoder, ConfigurationsRefuseCommandsTheyDoNotHave) {
  const auto stream = bytes_of({0x00000123, 0x000040A0, 0xCAFE0000, 0xFFFF0000});  // PARALLEL_MODE, USER_DEFINED0
  const Stream table = decode(stream);
  EXPECT_TRUE(table.ok()) << "the table has both commands";

  const Stream u55 = decode(stream, architecture(Variant::U55_128));
  ASSERT_EQ(u55.diagnostics.size(), 1u);
  EXPECT_EQ(u55.diagnostics[0].problem, Problem::UNKNOWN_OPCODE);
  EXPECT_EQ(u55.diagnostics[0].offset, 0u);
  EXPECT_NE(u55.diagnostics[0].message.find("NPU_SET_PARALLEL_MODE does not exist on the ethos-u55-128"),
            std::string::npos)
      << u55.diagnostics[0].message;

  const Stream u65 = decode(stream, architecture(Variant::U65_256));
  ASSERT_EQ(u65.diagnostics.size(), 1u);
  EXPECT_EQ(u65.diagnostics[0].offset, 4u);
  EXPECT_NE(u65.diagnostics[0].message.find("NPU_SET_USER_DEFINED0"), std::string::npos);
}

TEST(Decoder, AddressesWiderThanTheConfigurationsAreRefused) {
  const auto stream = bytes_of({0x00AB4000, 0x12345678, 0xFFFF0000});  // IFM_BASE0 = 0xAB12345678
  EXPECT_TRUE(decode(stream, architecture(Variant::U65_256)).ok());
  const Stream u55 = decode(stream, architecture(Variant::U55_32));
  ASSERT_FALSE(u55.ok());
  EXPECT_NE(u55.diagnostics[0].message.find("32-bit addresses"), std::string::npos) << u55.diagnostics[0].message;
  EXPECT_TRUE(decode(bytes_of({0x00004000, 0xFFFFFFF0, 0xFFFF0000}), architecture(Variant::U55_32)).ok());
}

TEST(Decoder, DmaStrideModesBeyondTheConfigurationsDmaAreRefused) {
  const auto d2 = bytes_of({0x02000130, 0xFFFF0000});  // DMA0_SRC_REGION stride_mode D2
  EXPECT_TRUE(decode(d2, architecture(Variant::U65_512)).ok());
  const Stream u55 = decode(d2, architecture(Variant::U55_256));
  ASSERT_FALSE(u55.ok());
  EXPECT_EQ(u55.diagnostics[0].problem, Problem::ILLEGAL_VALUE);
  EXPECT_NE(u55.diagnostics[0].message.find("1-D stride modes only"), std::string::npos) << u55.diagnostics[0].message;
}

TEST(RegisterState, StickyValues) {
  RegisterState st;
  auto s = decode(bytes_of({0x0001010F, 0x00020002, 0x0003010F, 0xFFFF0000}));
  EXPECT_EQ(st.get(Field::NPU_SET_IFM_REGION_region), 0);
  EXPECT_TRUE(st.apply(s.commands[0]));
  EXPECT_FALSE(st.apply(s.commands[1]));  // an operation is not state
  EXPECT_EQ(st.get(Field::NPU_SET_IFM_REGION_region), 1);
  st.apply(s.commands[2]);
  EXPECT_EQ(st.get(Field::NPU_SET_IFM_REGION_region), 3);
  st.reset();
  EXPECT_EQ(st.get(Field::NPU_SET_IFM_REGION_region), 0);
}
