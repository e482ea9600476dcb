#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "isa/assembler.h"
#include "isa/disasm.h"
#include "sim/error.h"

using namespace ethosu;
using namespace ethosu::isa;

namespace {
std::vector<uint32_t> words_of(const std::vector<uint8_t>& b) {
  std::vector<uint32_t> w(b.size() / 4);
  std::memcpy(w.data(), b.data(), w.size() * 4);
  return w;
}

std::string error_of(const std::string& text) {
  try {
    assemble(text, "t.s");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Assembler, SymbolicCommands) {
  auto b = assemble(
      "; a comment\n"
      "NPU_SET_IFM_PRECISION activation_type=SIGNED round_mode=NATURAL  # another\n"
      "\n"
      "cmd1.NPU_SET_OFM_BASE0 addr=0x123456789a\n"
      "NPU_SET_IFM_ZERO_POINT zero_point=-7\n"
      "NPU_OP_STOP mask=0xffff\n");
  EXPECT_EQ(words_of(b), (std::vector<uint32_t>{0x80010105, 0x00124010, 0x3456789A, 0xFFF90109, 0xFFFF0000}));
}

TEST(Assembler, RawWordsAndBytes) {
  auto b = assemble(".word 0x4 0xdeadbeef\n.byte 1 2\n");
  EXPECT_EQ(b, (std::vector<uint8_t>{4, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde, 1, 2}));
}

TEST(Assembler, ErrorsNameLineAndProblem) {
  EXPECT_EQ(error_of("NPU_OP_STOP\nNPU_SET_BOGUS x=1\n"), "t.s:2: unknown command 'NPU_SET_BOGUS'");
  EXPECT_NE(error_of("NPU_SET_IFM_PAD_TOP pad=128").find("does not fit NPU_SET_IFM_PAD_TOP.pad"), std::string::npos);
  EXPECT_NE(error_of("NPU_SET_ACTIVATION activation_function=TABLE_9").find("not a activation_function value"),
            std::string::npos);
  EXPECT_NE(error_of("NPU_SET_ACTIVATION activation_function=7").find("does not fit"), std::string::npos);
  EXPECT_NE(error_of("NPU_SET_IFM_REGION depth=1").find("has no field 'depth' (fields: region)"), std::string::npos);
  EXPECT_NE(error_of("NPU_SET_IFM_REGION region=1 region=2").find("given twice"), std::string::npos);
  EXPECT_NE(error_of("NPU_SET_IFM_REGION region").find("expected field=value"), std::string::npos);
  EXPECT_NE(error_of(".word 0x100000000").find("not a 32-bit word"), std::string::npos);
  EXPECT_NE(error_of(".byte 1\nNPU_OP_STOP").find("raw bytes may only end"), std::string::npos);
}

TEST(Assembler, RoundTripsRandomWords) {
  // Any byte string, valid or not, survives disassemble -> assemble.
  std::mt19937 rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    std::vector<uint8_t> bytes(rng() % 64);
    for (auto& x : bytes) {
      // Bias towards real opcodes so that symbolic lines are exercised too.
      x = static_cast<uint8_t>(rng());
    }
    for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
      if (rng() % 2) {
        bytes[i + 1] = static_cast<uint8_t>((rng() % 2) ? 0x01 : ((rng() % 2) ? 0x40 : 0x00));
        bytes[i] = static_cast<uint8_t>(rng() % 0x40);
      }
    }
    auto text = disassemble(decode(bytes));
    ASSERT_EQ(assemble(text), bytes) << text;
  }
}
