// The Ethos-U65 command set as C++ types and tables, all made from isa/isa.def.
//
// Contract: every opcode, field position and enum value in the project comes from here. A command is
// held as 64 "command bits": bits 31:0 are the first word, bits 63:32 the payload word (zero for cmd0),
// the numbering Arm's interface header and the programmer's model use. Field accessors are constexpr,
// so a model reading `get(bits, Field::NPU_SET_IFM_PRECISION_activation_precision)` compiles to a shift
// and a mask.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ethosu::isa {

enum class Kind : uint8_t { CMD0, CMD1 };
enum class Location : uint8_t { PARAM, PAYLOAD, ADDR40 };
enum class FieldType : uint8_t { UNSIGNED, SIGNED, ENUM };

// Commands are identified by their first halfword: the opcode for cmd0, 0x4000 | opcode for cmd1.
enum class Cmd : uint16_t {
#define ISA_COMMAND(n, k, op, mirror, d) n = ((Kind::k == Kind::CMD1) ? 0x4000 : 0) | (op),
#include "isa/isa.def"
};

enum class EnumId : uint8_t {
  none,
#define ISA_ENUM(e, d) e,
#include "isa/isa.def"
};

// One `enum class` per ISA enum, e.g. enums::pooling_mode::AVERAGE.
namespace enums {
enum class isa_enums_begin_ : uint32_t {
#define ISA_ENUM(e, d) \
  }                    \
  ;                    \
  enum class e : uint32_t {
#define ISA_ENUM_VALUE(e, n, v) n = (v),
#include "isa/isa.def"
};
}  // namespace enums

enum class Field : uint16_t {
#define ISA_FIELD(c, f, loc, lsb, width, type, e) c##_##f,
#include "isa/isa.def"
};

struct FieldInfo {
  Cmd cmd;
  std::string_view name;
  Location location;
  uint8_t lsb;    // relative to the param or payload word; 0 for ADDR40
  uint8_t width;  // bits
  FieldType type;
  EnumId enum_id;
};

inline constexpr FieldInfo kFields[] = {
#define ISA_FIELD(c, f, loc, lsb, width, type, e) \
  {Cmd::c, #f, Location::loc, (lsb), (width), FieldType::type, EnumId::e},
#include "isa/isa.def"
};
inline constexpr size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);

struct CommandInfo {
  Cmd cmd;
  std::string_view name;
  Kind kind;
  uint16_t opcode;           // bits 9:0 of the first word
  uint16_t mirror_register;  // APB offset of the state register it writes, 0 for operations
  std::string_view description;
};

inline constexpr CommandInfo kCommands[] = {
#define ISA_COMMAND(n, k, op, mirror, d) {Cmd::n, #n, Kind::k, (op), (mirror), d},
#include "isa/isa.def"
};
inline constexpr size_t kCommandCount = sizeof(kCommands) / sizeof(kCommands[0]);

struct EnumValueInfo {
  EnumId enum_id;
  std::string_view name;
  uint32_t value;
};

inline constexpr EnumValueInfo kEnumValues[] = {
#define ISA_ENUM_VALUE(e, n, v) {EnumId::e, #n, (v)},
#include "isa/isa.def"
};

inline constexpr std::string_view kEnumNames[] = {
    "none",
#define ISA_ENUM(e, d) #e,
#include "isa/isa.def"
};

// Word-level constants of the command format (01-command-stream.md section 2).
inline constexpr uint32_t kOpcodeMask = 0x3FF;
inline constexpr uint32_t kReservedHeaderMask = 0x3C00;  // word bits 13:10
inline constexpr unsigned kControlShift = 14;
inline constexpr unsigned kParamShift = 16;
inline constexpr uint16_t kCmd1Flag = 0x4000;
inline constexpr size_t kMaxStreamBytes = 16u << 20;  // QSIZE limit

constexpr const FieldInfo& info(Field f) { return kFields[static_cast<size_t>(f)]; }

constexpr uint64_t low_mask(unsigned width) { return width >= 64 ? ~0ull : ((1ull << width) - 1); }

// Raw (unsigned) value of a field in command bits.
constexpr uint64_t raw(uint64_t bits, const FieldInfo& f) {
  switch (f.location) {
    case Location::PARAM: return (bits >> (kParamShift + f.lsb)) & low_mask(f.width);
    case Location::PAYLOAD: return (bits >> (32 + f.lsb)) & low_mask(f.width);
    case Location::ADDR40: return (((bits >> kParamShift) & 0xFF) << 32) | (bits >> 32);
  }
  return 0;
}

// Field value, sign-extended for SIGNED fields.
constexpr int64_t value(uint64_t bits, const FieldInfo& f) {
  uint64_t r = raw(bits, f);
  if (f.type == FieldType::SIGNED && f.width < 64 && ((r >> (f.width - 1)) & 1)) r |= ~low_mask(f.width);
  return static_cast<int64_t>(r);
}
constexpr int64_t get(uint64_t bits, Field f) { return value(bits, info(f)); }

// Bits of the command that the field occupies.
constexpr uint64_t field_mask(const FieldInfo& f) {
  switch (f.location) {
    case Location::PARAM: return low_mask(f.width) << (kParamShift + f.lsb);
    case Location::PAYLOAD: return low_mask(f.width) << (32 + f.lsb);
    case Location::ADDR40: return (0xFFull << kParamShift) | (0xFFFFFFFFull << 32);
  }
  return 0;
}

// Writes a field (value truncated to the field width) into command bits.
constexpr uint64_t set(uint64_t bits, const FieldInfo& f, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  switch (f.location) {
    case Location::PARAM:
    case Location::PAYLOAD:
      return (bits & ~field_mask(f)) |
             ((u & low_mask(f.width)) << ((f.location == Location::PARAM ? kParamShift : 32) + f.lsb));
    case Location::ADDR40:
      return (bits & ~field_mask(f)) | (((u >> 32) & 0xFF) << kParamShift) | ((u & 0xFFFFFFFFull) << 32);
  }
  return bits;
}

// True when v fits the field (range of its width; a listed value for ENUM fields).
bool fits(const FieldInfo& f, int64_t v);

// Look-ups by name or code; nullopt / nullptr when unknown.
const CommandInfo* find_command(Cmd cmd);
const CommandInfo* find_command(uint16_t first_halfword);
const CommandInfo* find_command(std::string_view name);
const CommandInfo& command_info(Cmd cmd);
// The fields of a command, in table order (contiguous in kFields).
struct FieldRange {
  const FieldInfo* first;
  const FieldInfo* last;
  const FieldInfo* begin() const { return first; }
  const FieldInfo* end() const { return last; }
  size_t size() const { return static_cast<size_t>(last - first); }
};
FieldRange fields_of(Cmd cmd);
const FieldInfo* find_field(Cmd cmd, std::string_view name);
std::string_view enum_name(EnumId e);
std::string_view enum_value_name(EnumId e, uint32_t value);  // empty when not listed
std::optional<uint32_t> enum_value(EnumId e, std::string_view name);

// Bits of a command that no field, opcode or control bit covers (must be zero).
uint64_t reserved_mask(Cmd cmd);

constexpr uint16_t first_halfword(Cmd c) { return static_cast<uint16_t>(c); }
constexpr bool is_cmd1(Cmd c) { return (static_cast<uint16_t>(c) & kCmd1Flag) != 0; }
constexpr bool is_operation(Cmd c) { return !is_cmd1(c) && static_cast<uint16_t>(c) < 0x100; }

// Command bits for a command with all fields zero.
constexpr uint64_t header_bits(Cmd c) { return first_halfword(c); }

}  // namespace ethosu::isa
