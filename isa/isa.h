// The Ethos-U command sets (version 1: Ethos-U55/U65; version 2: Ethos-U85) as C++ types and tables, all made
// from isa/isa.def.
//
// Contract: every opcode, field position and enum value in the project comes from here. A command is
// held as 64 "command bits": bits 31:0 are the first word, bits 63:32 the payload word (zero for cmd0),
// the numbering Arm's interface header and the programmer's model use. Field accessors are constexpr,
// so a model reading `get(bits, Field::NPU_SET_IFM_PRECISION_activation_precision)` compiles to a shift
// and a mask. Look-ups that depend on the command set (opcodes, a command's fields, enum values) take the
// IsaVersion; a Cmd or Field names one entry of one table whatever the version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace ethosu::isa {

enum class Kind : uint8_t { CMD0, CMD1 };

// The two command sets: version 1 (architecture 1.x: Ethos-U55, U65) and version 2 (architecture 2.x: Ethos-U85).
enum class IsaVersion : uint8_t { V1 = 1, V2 = 2 };
// The versions a table entry belongs to.
enum class Versions : uint8_t { V1 = 1, V2 = 2, ALL = 3 };
constexpr bool has(Versions set, IsaVersion v) { return (static_cast<uint8_t>(set) & static_cast<uint8_t>(v)) != 0; }
const char* version_name(IsaVersion v);  // "1 (Ethos-U55/U65)"

// A version-2 field whose layout differs from the version-1 field of the same name is listed as NAME_v2.
constexpr std::string_view printed_field_name(std::string_view id) {
  return id.size() > 3 && id.substr(id.size() - 3) == "_v2" ? id.substr(0, id.size() - 3) : id;
}
enum class Location : uint8_t { PARAM, PAYLOAD, ADDR40 };
enum class FieldType : uint8_t { UNSIGNED, SIGNED, ENUM };

// Commands are identified by their first halfword (the opcode for cmd0, 0x4000 | opcode for cmd1), with bit 15 set
// for the commands only version 2 has, so that a version-2 command on a version-1 opcode is another Cmd.
inline constexpr uint16_t kVersion2Only = 0x8000;
enum class Cmd : uint16_t {
#define ISA_COMMAND(n, k, op, mirror, gen, d)                                                           \
  n = ((Versions::gen == Versions::V2) ? kVersion2Only : 0) | ((Kind::k == Kind::CMD1) ? 0x4000 : 0) | \
      (op),
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
#define ISA_ENUM_VALUE(e, n, v, gen) n = (v),
#include "isa/isa.def"
};
}  // namespace enums

enum class Field : uint16_t {
#define ISA_FIELD(c, f, loc, lsb, width, type, e, gen) c##_##f,
#include "isa/isa.def"
};

struct FieldInfo {
  Cmd cmd;
  std::string_view name;  // as printed (without a _v2 suffix)
  Location location;
  uint8_t lsb;    // relative to the param or payload word; 0 for ADDR40
  uint8_t width;  // bits
  FieldType type;
  EnumId enum_id;
  Versions versions;
};

inline constexpr FieldInfo kFields[] = {
#define ISA_FIELD(c, f, loc, lsb, width, type, e, gen) \
  {Cmd::c, printed_field_name(#f), Location::loc, (lsb), (width), FieldType::type, EnumId::e, Versions::gen},
#include "isa/isa.def"
};
inline constexpr size_t kFieldCount = sizeof(kFields) / sizeof(kFields[0]);

struct CommandInfo {
  Cmd cmd;
  std::string_view name;
  Kind kind;
  uint16_t opcode;           // bits 9:0 of the first word
  uint16_t mirror_register;  // APB offset of the state register it writes, 0 for operations
  Versions versions;
  std::string_view description;
};

inline constexpr CommandInfo kCommands[] = {
#define ISA_COMMAND(n, k, op, mirror, gen, d) {Cmd::n, #n, Kind::k, (op), (mirror), Versions::gen, d},
#include "isa/isa.def"
};
inline constexpr size_t kCommandCount = sizeof(kCommands) / sizeof(kCommands[0]);

struct EnumValueInfo {
  EnumId enum_id;
  std::string_view name;
  uint32_t value;
  Versions versions;
};

inline constexpr EnumValueInfo kEnumValues[] = {
#define ISA_ENUM_VALUE(e, n, v, gen) {EnumId::e, #n, (v), Versions::gen},
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

// True when v fits the field in that command set (range of its width; a listed value for ENUM fields).
bool fits(const FieldInfo& f, int64_t v, IsaVersion version);

// Look-ups by name or code in one command set; nullptr / nullopt when unknown there.
const CommandInfo* find_command(Cmd cmd);
const CommandInfo* find_command(uint16_t first_halfword, IsaVersion version);
const CommandInfo* find_command(std::string_view name, IsaVersion version);
const CommandInfo& command_info(Cmd cmd);
// The fields a command has in one command set, in table order.
class FieldRange {
 public:
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = FieldInfo;
    using difference_type = std::ptrdiff_t;
    using pointer = const FieldInfo*;
    using reference = const FieldInfo&;
    iterator(const FieldInfo* at, const FieldInfo* last, IsaVersion v) : at_(at), last_(last), v_(v) { skip(); }
    const FieldInfo& operator*() const { return *at_; }
    const FieldInfo* operator->() const { return at_; }
    iterator& operator++() {
      ++at_;
      skip();
      return *this;
    }
    bool operator!=(const iterator& o) const { return at_ != o.at_; }
    bool operator==(const iterator& o) const { return at_ == o.at_; }

   private:
    void skip() {
      while (at_ != last_ && !has(at_->versions, v_)) ++at_;
    }
    const FieldInfo* at_;
    const FieldInfo* last_;
    IsaVersion v_;
  };
  FieldRange(const FieldInfo* first, const FieldInfo* last, IsaVersion v) : first_(first), last_(last), v_(v) {}
  iterator begin() const { return {first_, last_, v_}; }
  iterator end() const { return {last_, last_, v_}; }
  size_t size() const;

 private:
  const FieldInfo* first_;
  const FieldInfo* last_;
  IsaVersion v_;
};
FieldRange fields_of(Cmd cmd, IsaVersion version);
const FieldInfo* find_field(Cmd cmd, std::string_view name, IsaVersion version);
std::string_view enum_name(EnumId e);
std::string_view enum_value_name(EnumId e, uint32_t value, IsaVersion version);  // empty when not listed
std::optional<uint32_t> enum_value(EnumId e, std::string_view name, IsaVersion version);

// Bits of a command that no field of that command set, the opcode or the control bits cover (must be zero).
uint64_t reserved_mask(Cmd cmd, IsaVersion version);

constexpr uint16_t first_halfword(Cmd c) { return static_cast<uint16_t>(c) & ~kVersion2Only; }
constexpr bool is_cmd1(Cmd c) { return (static_cast<uint16_t>(c) & kCmd1Flag) != 0; }
// cmd0 opcodes below 0x100 and cmd1 opcodes with bit 8 set (version 2's NPU_OP_BRANCH) are operations.
constexpr bool is_operation(Cmd c) {
  return is_cmd1(c) ? (first_halfword(c) & 0x100) != 0 : first_halfword(c) < 0x100;
}

// Command bits for a command with all fields zero.
constexpr uint64_t header_bits(Cmd c) { return first_halfword(c); }

}  // namespace ethosu::isa
