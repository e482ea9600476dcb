#include <gtest/gtest.h>

#include <set>

#include "ethosu_sim/registers.h"
#include "isa/isa.h"
#include "isa/registers.h"

using namespace ethosu::isa;

TEST(IsaTable, CommandCodesAreUniqueAndMatchKind) {
  std::set<uint16_t> seen;
  for (const auto& c : kCommands) {
    EXPECT_TRUE(seen.insert(first_halfword(c.cmd)).second) << c.name;
    EXPECT_EQ(c.kind == Kind::CMD1, is_cmd1(c.cmd)) << c.name;
    EXPECT_EQ(first_halfword(c.cmd) & kOpcodeMask, c.opcode) << c.name;
  }
  // 10 operations, 49 cmd0 state and 38 cmd1 state commands of the U65 1.0.6, and the U55's USER_DEFINED0-7.
  EXPECT_EQ(kCommandCount, 105u);
}

TEST(IsaTable, KnownEncodings) {
  EXPECT_EQ(first_halfword(Cmd::NPU_OP_STOP), 0x0000);
  EXPECT_EQ(first_halfword(Cmd::NPU_SET_IFM_BASE0), 0x4000);
  EXPECT_EQ(first_halfword(Cmd::NPU_SET_IFM2_REGION), 0x018F);
  EXPECT_EQ(first_halfword(Cmd::NPU_SET_SCALE1_LENGTH), 0x4093);
  EXPECT_EQ(command_info(Cmd::NPU_SET_IFM_PAD_TOP).mirror_register, 0x800);
  EXPECT_EQ(command_info(Cmd::NPU_SET_SCALE1_LENGTH).mirror_register, 0xB58);
  EXPECT_EQ(first_halfword(Cmd::NPU_SET_USER_DEFINED7), 0x40A7);
  EXPECT_EQ(command_info(Cmd::NPU_SET_USER_DEFINED7).mirror_register, 0xB9C);
}

TEST(IsaTable, MirrorRegisterFollowsTheOpcodeRule) {
  // 01-command-stream.md section 3: the mirror address is a function of the opcode.
  for (const auto& c : kCommands) {
    if (is_operation(c.cmd)) continue;
    // The U55's USER_DEFINED0-7 mirror into 32-bit registers 4 bytes apart (ethosu55_interface.h), not into the
    // 64-bit slots of the rule.
    if (c.cmd >= Cmd::NPU_SET_USER_DEFINED0 && c.cmd <= Cmd::NPU_SET_USER_DEFINED7) continue;
    unsigned op = c.opcode;
    unsigned expect = c.kind == Kind::CMD0 ? 0x800 + (op & 0x7F) * 4 + ((op >> 7) & 1) * 0x100
                                           : 0xA00 + (op & 0xF) * 8 + ((op >> 4) & 7) * 0x40 + ((op >> 7) & 1) * 0x100;
    EXPECT_EQ(c.mirror_register, expect) << c.name;
  }
}

TEST(IsaTable, FieldsStayInsideTheirWordsAndDoNotOverlap) {
  for (const auto& c : kCommands) {
    uint64_t used = 0;
    for (const auto& f : fields_of(c.cmd)) {
      EXPECT_EQ(f.cmd, c.cmd);
      uint64_t m = field_mask(f);
      EXPECT_EQ(m & 0xFFFF, 0u) << c.name << "." << f.name << " overlaps the header";
      if (c.kind == Kind::CMD0) {
        EXPECT_EQ(m >> 32, 0u) << c.name << "." << f.name;
      }
      EXPECT_EQ(used & m, 0u) << c.name << "." << f.name << " overlaps another field";
      used |= m;
      if (f.type == FieldType::ENUM) {
        EXPECT_NE(f.enum_id, EnumId::none) << f.name;
      }
    }
  }
}

TEST(IsaTable, FieldAccessRoundTrips) {
  const auto& zp = info(Field::NPU_SET_IFM_ZERO_POINT_zero_point);
  uint64_t bits = set(header_bits(Cmd::NPU_SET_IFM_ZERO_POINT), zp, -7);
  EXPECT_EQ(static_cast<uint32_t>(bits), 0xFFF90109u);
  EXPECT_EQ(value(bits, zp), -7);

  const auto& base = info(Field::NPU_SET_OFM_BASE0_addr);
  bits = set(header_bits(Cmd::NPU_SET_OFM_BASE0), base, 0x12'3456'789A);
  EXPECT_EQ(static_cast<uint32_t>(bits), 0x00124010u);
  EXPECT_EQ(static_cast<uint32_t>(bits >> 32), 0x3456789Au);
  EXPECT_EQ(value(bits, base), 0x12'3456'789A);

  const auto& stride = info(Field::NPU_SET_IFM_STRIDE_Y_stride);
  bits = set(header_bits(Cmd::NPU_SET_IFM_STRIDE_Y), stride, -16);
  EXPECT_EQ(value(bits, stride), -16);
  EXPECT_EQ((bits >> 16) & 0xFFFF, 0xFFu);  // only param bits 7:0 carry address bits 39:32

  const auto& mode = info(Field::NPU_SET_OFM_PRECISION_round_mode);
  bits = set(header_bits(Cmd::NPU_SET_OFM_PRECISION), mode, 2);
  EXPECT_EQ(static_cast<uint32_t>(bits), 0x80000114u);
}

TEST(IsaTable, EnumsByNameAndValue) {
  EXPECT_EQ(enum_value(EnumId::activation_function, "SIGMOID"), 4u);
  EXPECT_EQ(enum_value_name(EnumId::elementwise_mode, 9), "SHL");
  EXPECT_TRUE(enum_value_name(EnumId::round_mode, 3).empty());
  EXPECT_EQ(static_cast<uint32_t>(enums::pooling_mode::REDUCE_SUM), 2u);
  EXPECT_FALSE(fits(info(Field::NPU_SET_ACTIVATION_activation_function), 7));
  EXPECT_TRUE(fits(info(Field::NPU_SET_ACTIVATION_activation_function), 23));
  EXPECT_FALSE(fits(info(Field::NPU_SET_IFM_PAD_TOP_pad), 128));
  EXPECT_TRUE(fits(info(Field::NPU_SET_IFM_ZERO_POINT_zero_point), -32768));
}

TEST(IsaTable, LookupByName) {
  ASSERT_NE(find_command("NPU_SET_KERNEL_STRIDE"), nullptr);
  EXPECT_EQ(find_command("NPU_SET_KERNEL_STRIDE")->cmd, Cmd::NPU_SET_KERNEL_STRIDE);
  EXPECT_EQ(find_command("NPU_SET_NOTHING"), nullptr);
  EXPECT_EQ(find_command(uint16_t{0x0004}), nullptr);
  ASSERT_NE(find_field(Cmd::NPU_SET_KERNEL_STRIDE, "stride_y_msb"), nullptr);
  EXPECT_EQ(find_field(Cmd::NPU_SET_KERNEL_STRIDE, "stride_y_msb")->lsb, 9);
}

// The installed register map (include/ethosu_sim/registers.h, generated from the same tables) names every register,
// field and PMU event as the model decodes them.
TEST(IsaTable, PublicRegisterMapIsTheTables) {
  namespace regs = ethosu_sim::regs;
#define ISA_REGISTER(n, off_, width_, count_, acc_, reset_, d_)                  \
  EXPECT_EQ(regs::n.offset, uint32_t{off_}) << #n;                               \
  EXPECT_EQ(regs::n.width_bits, uint32_t{width_}) << #n;                         \
  EXPECT_EQ(regs::n.count, uint32_t{count_}) << #n;                              \
  EXPECT_EQ(regs::n.access, regs::Access::acc_) << #n;                           \
  EXPECT_EQ(regs::n.reset, uint64_t{reset_}) << #n;                              \
  EXPECT_EQ(regs::n.at(regs::n.count - 1), reg_at(Reg::n, regs::n.count - 1)) << #n;
#define ISA_REGISTER_FIELD(r, f, lsb_, width_)                            \
  EXPECT_EQ(regs::r##_##f.lsb, uint32_t{lsb_}) << #r "." #f;              \
  EXPECT_EQ(regs::r##_##f.width, uint32_t{width_}) << #r "." #f;
#include "isa/registers.def"
#undef ISA_REGISTER
#undef ISA_REGISTER_FIELD
  EXPECT_EQ(regs::QBASE_offset_HI.mask(), uint64_t{0xFF} << 32);
  EXPECT_EQ(regs::STATUS_faulting_channel.set(0, 5), uint64_t{5} << 12);
#define ISA_PMU_EVENT(n, id_, idx_, d_) EXPECT_EQ(ethosu_sim::pmu_event::n, uint16_t{id_}) << #n;
#include "isa/pmu_events.def"
#undef ISA_PMU_EVENT
}
