#include <gtest/gtest.h>

#include <cstring>

#include "isa/disasm.h"

using namespace ethosu::isa;

namespace {
Stream stream_of(const std::vector<uint32_t>& words) {
  std::vector<uint8_t> b(words.size() * 4);
  std::memcpy(b.data(), words.data(), b.size());
  return decode(b);
}
}  // namespace

TEST(Disasm, VelaLayout) {
  auto s = stream_of({0x00000123, 0x00004030, 0x00000130, 0xFFF90109, 0xFFFF0000});
  EXPECT_EQ(vela_line(s.commands[0]), "0x000000:          0000 0123 - cmd0.NPU_SET_PARALLEL_MODE         0");
  EXPECT_EQ(vela_line(s.commands[1]), "0x000004: 00000130 0000 4030 - cmd1.NPU_SET_DMA0_SRC              0");
  EXPECT_EQ(vela_line(s.commands[2]), "0x00000c:          fff9 0109 - cmd0.NPU_SET_IFM_ZERO_POINT    65529");
  auto text = disassemble(s, DisasmFormat::VELA);
  EXPECT_NE(text.find("Number of commands = 4\nCommand stream length = 20 bytes\n"), std::string::npos);
}

TEST(Disasm, NativeDecodesFields) {
  auto s = stream_of({0x80010105, 0x00124010, 0x3456789A, 0xFFF90109, 0xFFFF0000});
  EXPECT_EQ(command_text(s.commands[0], IsaVersion::V1),
            "NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC "
            "scale_mode=OPA_OPB_16 round_mode=NATURAL");
  EXPECT_EQ(command_text(s.commands[1], IsaVersion::V1), "NPU_SET_OFM_BASE0 addr=0x123456789a");
  EXPECT_EQ(command_text(s.commands[2], IsaVersion::V1), "NPU_SET_IFM_ZERO_POINT zero_point=-7");
  auto text = disassemble(s);
  EXPECT_NE(text.find("; 0x000004: 3456789a 0012 4010 param=18"), std::string::npos) << text;
}

TEST(Disasm, InvalidWordsBecomeRawWords) {
  auto s = stream_of({0x00000004, 0x00070125, 0x00004000});
  auto text = disassemble(s);
  EXPECT_NE(text.find(".word 0x00000004"), std::string::npos);
  EXPECT_NE(text.find(".word 0x00070125"), std::string::npos);  // illegal activation_function
  EXPECT_NE(text.find(".word 0x00004000"), std::string::npos);  // truncated cmd1
}
