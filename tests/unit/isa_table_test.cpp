#include <gtest/gtest.h>

#include "ethosu_sim/registers.h"
#include "isa/isa.h"
#include "isa/registers.h"

using namespace ethosu::isa;

size_t commands_of(IsaVersion v) {
  size_t n = 0;
  for (const auto& c : kCommands) n += has(c.versions, v);
  return n;
}

TEST(IsaTable, CommandCodesAreUniquePerVersionAndMatchKind) {
  for (IsaVersion v : {IsaVersion::V1, IsaVersion::V2}) {
    std::set<uint16_t> seen;
    for (const auto& c : kCommands) {
      if (!has(c.versions, v)) continue;
      EXPECT_TRUE(seen.insert(first_halfword(c.cmd)).second) << c.name;
      EXPECT_EQ(c.kind == Kind::CMD1, is_cmd1(c.cmd)) << c.name;
      EXPECT_EQ(first_halfword(c.cmd) & kOpcodeMask, c.opcode) << c.name;
      EXPECT_EQ(find_command(first_halfword(c.cmd), v), &c) << c.name;
    }
  }
  // Version 1: 10 operations, 49 cmd0 state and 38 cmd1 state commands of the U65 1.0.6, and the U55's
  // USER_DEFINED0-7. Version 2 (ethosu85_interface.h): 63 cmd0 and 48 cmd1 commands, 70 of them as in version 1.
  EXPECT_EQ(commands_of(IsaVersion::V1), 105u);
  EXPECT_EQ(commands_of(IsaVersion::V2), 111u);
  size_t shared = 0;
  for (const auto& c : kCommands) shared += c.versions == Versions::ALL;
  EXPECT_EQ(shared, 86u);  // 70 unchanged and 16 with changed fields
}

TEST(IsaTable, Version2ReusesOpcodesAsOtherCommands) {
  EXPECT_EQ(find_command(0x4025, IsaVersion::V1)->cmd, Cmd::NPU_SET_OPA_SCALE);
  EXPECT_EQ(find_command(0x4025, IsaVersion::V2)->cmd, Cmd::NPU_SET_IFM_SCALE);
  EXPECT_EQ(find_command(0x012D, IsaVersion::V1)->cmd, Cmd::NPU_SET_AB_START);
  EXPECT_EQ(find_command(0x012D, IsaVersion::V2)->cmd, Cmd::NPU_SET_RESIZE_Y_OFFSET);
  EXPECT_EQ(first_halfword(Cmd::NPU_SET_IFM_SCALE), 0x4025);
  EXPECT_NE(Cmd::NPU_SET_IFM_SCALE, Cmd::NPU_SET_OPA_SCALE);
  EXPECT_EQ(find_command(0x0123, IsaVersion::V2), nullptr);  // PARALLEL_MODE
  EXPECT_EQ(find_command(0x0007, IsaVersion::V1), nullptr);  // RESIZE
  EXPECT_EQ(find_command("NPU_OP_RESIZE", IsaVersion::V1), nullptr);
  EXPECT_NE(find_command("NPU_OP_RESIZE", IsaVersion::V2), nullptr);
  // The branch is a two-word operation.
  EXPECT_EQ(first_halfword(Cmd::NPU_OP_BRANCH), 0x4100);
  EXPECT_TRUE(is_operation(Cmd::NPU_OP_BRANCH));
  EXPECT_TRUE(is_operation(Cmd::NPU_OP_RESIZE));
  EXPECT_FALSE(is_operation(Cmd::NPU_SET_RESIZE_X_STEP));
}

TEST(IsaTable, ChangedFieldsPerVersion) {
  // NPU_OP_DMA_WAIT's k: 4 bits on the U65, 2 on the U85, both printed "k".
  const FieldInfo* k1 = find_field(Cmd::NPU_OP_DMA_WAIT, "k", IsaVersion::V1);
  const FieldInfo* k2 = find_field(Cmd::NPU_OP_DMA_WAIT, "k", IsaVersion::V2);
  ASSERT_TRUE(k1 && k2);
  EXPECT_EQ(k1->width, 4);
  EXPECT_EQ(k2->width, 2);
  EXPECT_EQ(k2, &info(Field::NPU_OP_DMA_WAIT_k_v2));
  EXPECT_EQ(reserved_mask(Cmd::NPU_OP_DMA_WAIT, IsaVersion::V2) & 0x000C0000u, 0x000C0000u);
  EXPECT_EQ(reserved_mask(Cmd::NPU_OP_DMA_WAIT, IsaVersion::V1) & 0x000C0000u, 0u);
  // IFM_PRECISION bits 15:14: round_mode on the U65, activation_storage on the U85.
  EXPECT_NE(find_field(Cmd::NPU_SET_IFM_PRECISION, "round_mode", IsaVersion::V1), nullptr);
  EXPECT_EQ(find_field(Cmd::NPU_SET_IFM_PRECISION, "round_mode", IsaVersion::V2), nullptr);
  EXPECT_NE(find_field(Cmd::NPU_SET_IFM_PRECISION, "activation_storage", IsaVersion::V2), nullptr);
  EXPECT_EQ(fields_of(Cmd::NPU_SET_IFM_PRECISION, IsaVersion::V1).size(), 5u);
  EXPECT_EQ(fields_of(Cmd::NPU_SET_IFM_PRECISION, IsaVersion::V2).size(), 4u);
  // Enum values per version: activation_function 4 is SIGMOID on the U65, LUT_S8_S8 on the U85.
  EXPECT_EQ(enum_value_name(EnumId::activation_function, 4, IsaVersion::V1), "SIGMOID");
  EXPECT_EQ(enum_value_name(EnumId::activation_function, 4, IsaVersion::V2), "LUT_S8_S8");
  EXPECT_FALSE(enum_value(EnumId::activation_function, "LUT_S8_S8", IsaVersion::V1));
  EXPECT_EQ(enum_value(EnumId::pooling_mode, "SUM", IsaVersion::V2), 3u);
  EXPECT_FALSE(fits(info(Field::NPU_OP_POOL_pooling_mode), 3, IsaVersion::V1));
  EXPECT_EQ(enum_value_name(EnumId::acc_format, 0, IsaVersion::V2), "I32");
  EXPECT_EQ(enum_value_name(EnumId::acc_format, 1, IsaVersion::V2), "I48");
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
    // The U85's DMA index limit and skip would land on IFM2_BASE0/1: they have a page of their own
    // (ethosu85_interface.h TSU_DMA_EBASE).
    if (c.cmd == Cmd::NPU_SET_DMA0_IDX_MAX || c.cmd == Cmd::NPU_SET_DMA0_IDX_SKIP1) {
      EXPECT_EQ(c.mirror_register, c.cmd == Cmd::NPU_SET_DMA0_IDX_MAX ? 0xBC0 : 0xBC8);
      continue;
    }
    unsigned op = c.opcode;
    unsigned expect = c.kind == Kind::CMD0 ? 0x800 + (op & 0x7F) * 4 + ((op >> 7) & 1) * 0x100
                                           : 0xA00 + (op & 0xF) * 8 + ((op >> 4) & 7) * 0x40 + ((op >> 7) & 1) * 0x100;
    EXPECT_EQ(c.mirror_register, expect) << c.name;
  }
}

TEST(IsaTable, FieldsStayInsideTheirWordsAndDoNotOverlap) {
  for (const auto& c : kCommands)
    for (IsaVersion v : {IsaVersion::V1, IsaVersion::V2}) {
    if (!has(c.versions, v)) continue;
    uint64_t used = 0;
    for (const auto& f : fields_of(c.cmd, v)) {
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
  constexpr IsaVersion V1 = IsaVersion::V1;
  EXPECT_EQ(enum_value(EnumId::activation_function, "SIGMOID", V1), 4u);
  EXPECT_EQ(enum_value_name(EnumId::elementwise_mode, 9, V1), "SHL");
  EXPECT_TRUE(enum_value_name(EnumId::round_mode, 3, V1).empty());
  EXPECT_EQ(static_cast<uint32_t>(enums::pooling_mode::REDUCE_SUM), 2u);
  EXPECT_FALSE(fits(info(Field::NPU_SET_ACTIVATION_activation_function), 7, V1));
  EXPECT_TRUE(fits(info(Field::NPU_SET_ACTIVATION_activation_function), 23, V1));
  EXPECT_FALSE(fits(info(Field::NPU_SET_IFM_PAD_TOP_pad), 128, V1));
  EXPECT_TRUE(fits(info(Field::NPU_SET_IFM_ZERO_POINT_zero_point), -32768, V1));
}

TEST(IsaTable, LookupByName) {
  constexpr IsaVersion V1 = IsaVersion::V1;
  ASSERT_NE(find_command("NPU_SET_KERNEL_STRIDE", V1), nullptr);
  EXPECT_EQ(find_command("NPU_SET_KERNEL_STRIDE", V1)->cmd, Cmd::NPU_SET_KERNEL_STRIDE);
  EXPECT_EQ(find_command("NPU_SET_NOTHING", V1), nullptr);
  EXPECT_EQ(find_command(uint16_t{0x0004}, V1), nullptr);
  ASSERT_NE(find_field(Cmd::NPU_SET_KERNEL_STRIDE, "stride_y_msb", V1), nullptr);
  EXPECT_EQ(find_field(Cmd::NPU_SET_KERNEL_STRIDE, "stride_y_msb", V1)->lsb, 9);
}

// The installed register maps (include/ethosu_sim/registers.h, generated from the same tables) name every register,
// field and PMU event of each map as the model decodes them.
TEST(IsaTable, PublicRegisterMapIsTheTables) {
  namespace regs = ethosu_sim::regs;
  // The U65's map (the U55's too) in ethosu_sim::regs, the U85's in ethosu_sim::regs::u85.
  const auto expect_register = [](const regs::Register& r, Reg reg, RegisterMap map, uint32_t offset, uint32_t width,
                                  uint32_t count, regs::Access access, uint64_t reset) {
    EXPECT_EQ(r.offset, offset) << register_info(reg).name;
    EXPECT_EQ(r.width_bits, width) << register_info(reg).name;
    EXPECT_EQ(r.count, count) << register_info(reg).name;
    EXPECT_EQ(r.access, access) << register_info(reg).name;
    EXPECT_EQ(r.reset, reset) << register_info(reg).name;
    EXPECT_EQ(r.at(r.count - 1), reg_at(reg, r.count - 1, map)) << register_info(reg).name;
  };
  unsigned u65 = 0, u85 = 0;
  // A map's width is 0 where it has no such register: the check of that map expands to nothing.
#define IN_U65_0(n, o, w, c, acc, r)
#define IN_U65_32(n, o, w, c, acc, r) \
  expect_register(regs::n, Reg::n, RegisterMap::U65, o, w, c, regs::Access::acc, r), ++u65;
#define IN_U65_64 IN_U65_32
#define IN_U85_0(n, o, w, c, acc, r)
#define IN_U85_32(n, o, w, c, acc, r) \
  expect_register(regs::u85::n, Reg::n, RegisterMap::U85, o, w, c, regs::Access::acc, r), ++u85;
#define IN_U85_64 IN_U85_32
#define ISA_REGISTER(n, acc_, o65, w65, c65, r65, o85, w85, c85, r85, d_) \
  IN_U65_##w65(n, o65, w65, c65, acc_, r65) IN_U85_##w85(n, o85, w85, c85, acc_, r85)
#define FIELD_U65(r, f, lsb_, width_)                          \
  EXPECT_EQ(regs::r##_##f.lsb, uint32_t{lsb_}) << #r "." #f;   \
  EXPECT_EQ(regs::r##_##f.width, uint32_t{width_}) << #r "." #f;
#define FIELD_U85(r, f, lsb_, width_)                               \
  EXPECT_EQ(regs::u85::r##_##f.lsb, uint32_t{lsb_}) << #r "." #f;   \
  EXPECT_EQ(regs::u85::r##_##f.width, uint32_t{width_}) << #r "." #f;
#define FIELD_ALL(r, f, lsb_, width_) FIELD_U65(r, f, lsb_, width_) FIELD_U85(r, f, lsb_, width_)
#define ISA_REGISTER_FIELD(r, f, lsb_, width_, maps) FIELD_##maps(r, f, lsb_, width_)
#include "isa/registers.def"
  EXPECT_EQ(regs::QBASE_offset_HI.mask(), uint64_t{0xFF} << 32);
  EXPECT_EQ(regs::STATUS_faulting_channel.set(0, 5), uint64_t{5} << 12);
  EXPECT_EQ(regs::u85::MEM_ATTR_axi_port.lsb, info(RegField::U85_MEM_ATTR_axi_port).lsb);
  EXPECT_EQ(regs::u85::DEBUG_ADDRESS_addr.width, 28u);  // the U65's is 32 bits wide
  EXPECT_EQ(regs::DEBUG_ADDRESS_addr.width, 32u);
  EXPECT_GT(u65, 150u);
  EXPECT_GT(u85, 150u);
  // The U85 reuses ids under new names: each family's namespace has its own.
  EXPECT_EQ(ethosu_sim::pmu_event::WD_PARSE_ACTIVE, 84);
  EXPECT_EQ(ethosu_sim::pmu_event::u85::WD_STALLED_BY_WS_FC, 84);
  EXPECT_EQ(ethosu_sim::pmu_event::u85::SRAM_RD_TRANS_ACCEPTED, 128);
  EXPECT_EQ(ethosu_sim::pmu_event::u85::EXT1_WR_STALL_LIMIT, 671);
}

// The event lists of the core driver's headers: 74 for the U55 and U65 (one list), 171 for the U85, numbered by
// their order there.
TEST(IsaTable, PmuEventListsPerFamily) {
  unsigned u65 = 0, u85 = 0;
  for (const PmuEventInfo& e : kPmuEvents) {
    if (e.in(RegisterMap::U65)) {
      EXPECT_EQ(e.driver_index[0], u65++) << e.name;
    }
    if (e.in(RegisterMap::U85)) ++u85;
  }
  EXPECT_EQ(u65, 74u);
  EXPECT_EQ(u85, 171u);
  EXPECT_EQ(find_pmu_event(uint16_t{84}, RegisterMap::U65)->name, "WD_PARSE_ACTIVE");
  EXPECT_EQ(find_pmu_event(uint16_t{84}, RegisterMap::U85)->name, "WD_STALLED_BY_WS_FC");
  EXPECT_EQ(find_pmu_event("MAC_ACTIVE_8BIT", RegisterMap::U85), nullptr);
  EXPECT_EQ(find_pmu_event("SRAM0_ENABLED_CYCLES", RegisterMap::U65), nullptr);
  EXPECT_EQ(find_pmu_event_by_driver_index(170, RegisterMap::U85)->name, "EXT1_WR_STALL_LIMIT");
}

// Every state register of the U85's map is where its command's mirror is in the ISA (version 2).
TEST(IsaTable, U85StateRegistersAreTheCommandMirrors) {
  unsigned mirrors = 0;
  for (const CommandInfo& c : kCommands) {
    if (!has(c.versions, IsaVersion::V2) || is_operation(c.cmd) || c.mirror_register == 0) continue;
    const RegisterWord at = locate_register(c.mirror_register, RegisterMap::U85);
    ASSERT_TRUE(at) << c.name;
    EXPECT_EQ("NPU_SET_" + std::string(at.info->name), c.name);
    EXPECT_FALSE(at.high) << c.name;
    ++mirrors;
  }
  EXPECT_GT(mirrors, 90u);
}
