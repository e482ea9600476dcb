// The Ethos-U65 APB register map as C++ tables, made from isa/registers.def, and the PMU event list
// from isa/pmu_events.def.
//
// Contract: Reg values are byte offsets; arrays (BASEP, PMEVCNTR, PMEVTYPER, SHARED_BUFFER) are named by
// their first element and indexed with reg_at(). RegField values give bit positions for get/set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ethosu::isa {

enum class RegAccess : uint8_t { RO, RW, WO };

enum class Reg : uint16_t {
#define ISA_REGISTER(n, off, width, count, acc, reset, d) n = (off),
#include "isa/registers.def"
};

struct RegisterInfo {
  Reg reg;
  std::string_view name;
  uint16_t offset;
  uint8_t width_bits;  // 32 or 64 (64-bit: low word at offset, high word at offset + 4)
  uint16_t count;      // array length (1 for plain registers)
  RegAccess access;
  uint32_t reset;
  std::string_view description;
  // Distance between array elements in bytes.
  constexpr uint16_t stride() const { return width_bits == 64 ? 8 : 4; }
};

inline constexpr RegisterInfo kRegisters[] = {
#define ISA_REGISTER(n, off, width, count, acc, reset, d) {Reg::n, #n, (off), (width), (count), RegAccess::acc, (reset), d},
#include "isa/registers.def"
};

enum class RegField : uint16_t {
#define ISA_REGISTER_FIELD(r, f, lsb, width) r##_##f,
#include "isa/registers.def"
};

struct RegFieldInfo {
  Reg reg;
  std::string_view name;
  uint8_t lsb;
  uint8_t width;
};

inline constexpr RegFieldInfo kRegFields[] = {
#define ISA_REGISTER_FIELD(r, f, lsb, width) {Reg::r, #f, (lsb), (width)},
#include "isa/registers.def"
};

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

// Offset of element i of an array register (BASEP[i], PMEVCNTR[i], ...).
uint16_t reg_at(Reg first, unsigned i);
const RegisterInfo& register_info(Reg r);

// The one decoder of APB offsets: the register word a 32-bit access at `offset` reaches. Every model of the
// register file (control, PMU, the NPU top) decodes through it and switches on the register.
struct RegisterWord {
  const RegisterInfo* info = nullptr;  // nullptr: no register there (or the offset is not word-aligned)
  unsigned index = 0;                  // the element of an array register
  bool high = false;                   // the high word of a 64-bit register
  explicit operator bool() const { return info != nullptr; }
  Reg reg() const { return info->reg; }
};
RegisterWord locate_register(uint16_t offset);
// The low or high word of a 64-bit register's value.
constexpr uint32_t word_of(uint64_t value, bool high) {
  return high ? static_cast<uint32_t>(value >> 32) : static_cast<uint32_t>(value);
}
// `value` with the low or high word replaced by `v`.
constexpr uint64_t with_word(uint64_t value, bool high, uint32_t v) {
  return high ? (value & 0xFFFFFFFFull) | (uint64_t{v} << 32) : (value & ~0xFFFFFFFFull) | v;
}

enum class PmuEvent : uint16_t {
#define ISA_PMU_EVENT(n, id, idx, d) n = (id),
#include "isa/pmu_events.def"
};

struct PmuEventInfo {
  PmuEvent event;
  std::string_view name;
  uint16_t hw_id;         // PMEVTYPER value, Linux perfmon id
  uint16_t driver_index;  // Arm core driver API / NXP UAPI enum index
  std::string_view description;
};

inline constexpr PmuEventInfo kPmuEvents[] = {
#define ISA_PMU_EVENT(n, id, idx, d) {PmuEvent::n, #n, (id), (idx), d},
#include "isa/pmu_events.def"
};

const PmuEventInfo* find_pmu_event(uint16_t hw_id);
const PmuEventInfo* find_pmu_event(std::string_view name);
const PmuEventInfo* find_pmu_event_by_driver_index(uint16_t index);

}  // namespace ethosu::isa
