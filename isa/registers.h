// The Ethos-U APB register maps as C++ tables, made from isa/registers.def, and the PMU event lists from
// isa/pmu_events.def.
//
// Contract: Reg names a register of either map; where it sits (offset, width, array length, reset value) depends on
// the map, RegisterMap::U65 (U55 and U65) or RegisterMap::U85, and an architecture names its map
// (Architecture::register_map). Arrays (BASEP, MEM_ATTR, PMEVCNTR, PMEVTYPER, SHARED_BUFFER, ...) are named by their
// first element and indexed with reg_at(). RegField values give bit positions for get/set; a field of the U85's map
// only is spelled U85_REGISTER_field (so that a name the two maps lay out differently stays one name per layout).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ethosu::isa {

// The tables' mark for "this map (or family) has none".
inline constexpr uint16_t ABSENT = 0xFFFF;

enum class RegisterMap : uint8_t { U65, U85 };
inline constexpr size_t kRegisterMaps = 2;
// The end of each map's register page: the U85's PMU sits above 0x1000.
inline constexpr uint16_t register_page_bytes(RegisterMap m) { return m == RegisterMap::U85 ? 0x1400 : 0x1000; }

enum class RegAccess : uint8_t { RO, RW, WO };

enum class Reg : uint16_t {
#define ISA_REGISTER(n, acc, o65, w65, c65, r65, o85, w85, c85, r85, d) n,
#include "isa/registers.def"
};

// Where a register sits in one map; width 0 where the map has none.
struct RegisterPlacement {
  uint16_t offset;
  uint8_t width_bits;  // 32 or 64 (64-bit: low word at offset, high word at offset + 4)
  uint16_t count;      // array length (1 for plain registers)
  uint32_t reset;
  constexpr bool present() const { return width_bits != 0; }
  // Distance between array elements in bytes.
  constexpr uint16_t stride() const { return width_bits == 64 ? 8 : 4; }
};

struct RegisterInfo {
  Reg reg;
  std::string_view name;
  RegAccess access;
  std::array<RegisterPlacement, kRegisterMaps> placements;
  std::string_view description;
  constexpr const RegisterPlacement& in(RegisterMap m) const { return placements[static_cast<size_t>(m)]; }
};

inline constexpr RegisterInfo kRegisters[] = {
#define ISA_REGISTER(n, acc, o65, w65, c65, r65, o85, w85, c85, r85, d) \
  {Reg::n, #n, RegAccess::acc, {{{(o65), (w65), (c65), (r65)}, {(o85), (w85), (c85), (r85)}}}, d},
#include "isa/registers.def"
};

enum class RegField : uint16_t {
#define ISA_REGISTER_FIELD_ALL(r, f) r##_##f
#define ISA_REGISTER_FIELD_U65(r, f) r##_##f
#define ISA_REGISTER_FIELD_U85(r, f) U85_##r##_##f
#define ISA_REGISTER_FIELD(r, f, lsb, width, maps) ISA_REGISTER_FIELD_##maps(r, f),
#include "isa/registers.def"
};

// Which maps a field's layout belongs to.
enum class FieldMaps : uint8_t { ALL, U65, U85 };

struct RegFieldInfo {
  Reg reg;
  std::string_view name;
  uint8_t lsb;
  uint8_t width;
  FieldMaps maps;
  constexpr bool in(RegisterMap m) const {
    return maps == FieldMaps::ALL || (maps == FieldMaps::U65) == (m == RegisterMap::U65);
  }
};

inline constexpr RegFieldInfo kRegFields[] = {
#define ISA_REGISTER_FIELD(r, f, lsb, width, maps) {Reg::r, #f, (lsb), (width), FieldMaps::maps},
#include "isa/registers.def"
};
#undef ISA_REGISTER_FIELD_ALL
#undef ISA_REGISTER_FIELD_U65
#undef ISA_REGISTER_FIELD_U85

constexpr const RegFieldInfo& info(RegField f) { return kRegFields[static_cast<size_t>(f)]; }
constexpr uint32_t reg_field_mask(RegField f) {
  return static_cast<uint32_t>(((1ull << info(f).width) - 1) << info(f).lsb);
}
constexpr uint32_t get(uint32_t reg_value, RegField f) {
  return (reg_value & reg_field_mask(f)) >> info(f).lsb;
}
constexpr uint32_t set(uint32_t reg_value, RegField f, uint32_t v) {
  return (reg_value & ~reg_field_mask(f)) | ((v << info(f).lsb) & reg_field_mask(f));
}

const RegisterInfo& register_info(Reg r);
// Offset of element i of an array register (BASEP[i], PMEVCNTR[i], ...) in `map`; throws if the map has no such
// register or element.
uint16_t reg_at(Reg first, unsigned i = 0, RegisterMap map = RegisterMap::U65);

// The one decoder of APB offsets: the register word a 32-bit access at `offset` reaches in `map`. Every model of the
// register file (control, PMU, the NPU top) decodes through it and switches on the register.
struct RegisterWord {
  const RegisterInfo* info = nullptr;  // nullptr: no register there (or the offset is not word-aligned)
  const RegisterPlacement* placement = nullptr;
  unsigned index = 0;                  // the element of an array register
  bool high = false;                   // the high word of a 64-bit register
  explicit operator bool() const { return info != nullptr; }
  Reg reg() const { return info->reg; }
};
RegisterWord locate_register(uint16_t offset, RegisterMap map = RegisterMap::U65);
// The low or high word of a 64-bit register's value.
constexpr uint32_t word_of(uint64_t value, bool high) {
  return high ? static_cast<uint32_t>(value >> 32) : static_cast<uint32_t>(value);
}
// `value` with the low or high word replaced by `v`.
constexpr uint64_t with_word(uint64_t value, bool high, uint32_t v) {
  return high ? (value & 0xFFFFFFFFull) | (uint64_t{v} << 32) : (value & ~0xFFFFFFFFull) | v;
}

// Named by the hardware id; a name the U85 gives an id anew is a second enumerator of the same value.
enum class PmuEvent : uint16_t {
#define ISA_PMU_EVENT(n, id, i65, i85, d) n = (id),
#include "isa/pmu_events.def"
};

struct PmuEventInfo {
  PmuEvent event;
  std::string_view name;
  uint16_t hw_id;  // PMEVTYPER value, Linux perfmon id
  // Arm core driver API / NXP UAPI enum index, per family (RegisterMap order: U55 and U65, U85); ABSENT where the
  // family has no such event.
  std::array<uint16_t, kRegisterMaps> driver_index;
  std::string_view description;
  constexpr bool in(RegisterMap m) const { return driver_index[static_cast<size_t>(m)] != ABSENT; }
};

inline constexpr PmuEventInfo kPmuEvents[] = {
#define ISA_PMU_EVENT(n, id, i65, i85, d) {PmuEvent::n, #n, (id), {{(i65), (i85)}}, d},
#include "isa/pmu_events.def"
};

// The event of a family (its PMU map) by hardware id, name or driver index; nullptr if the family has none.
const PmuEventInfo* find_pmu_event(uint16_t hw_id, RegisterMap map = RegisterMap::U65);
const PmuEventInfo* find_pmu_event(std::string_view name, RegisterMap map = RegisterMap::U65);
const PmuEventInfo* find_pmu_event_by_driver_index(uint16_t index, RegisterMap map = RegisterMap::U65);

}  // namespace ethosu::isa
