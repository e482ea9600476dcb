#include "isa/isa.h"

#include <array>
#include <stdexcept>

namespace ethosu::isa {
namespace {

// Index of each command's first field, built once from the table order.
struct CommandIndex {
  std::array<int16_t, 0x8000> by_halfword{};  // command table index + 1, 0 = unknown
  std::array<uint16_t, kCommandCount + 1> field_begin{};
  std::array<uint64_t, kCommandCount> reserved{};

  CommandIndex() {
    for (size_t i = 0; i < kCommandCount; ++i) by_halfword[first_halfword(kCommands[i].cmd)] = static_cast<int16_t>(i + 1);
    size_t f = 0;
    for (size_t i = 0; i < kCommandCount; ++i) {
      field_begin[i] = static_cast<uint16_t>(f);
      while (f < kFieldCount && kFields[f].cmd == kCommands[i].cmd) ++f;
    }
    if (f != kFieldCount) throw std::logic_error("isa.def: fields must follow their command");
    field_begin[kCommandCount] = static_cast<uint16_t>(kFieldCount);
    for (size_t i = 0; i < kCommandCount; ++i) {
      uint64_t used = 0xFFFF;  // opcode, reserved header bits (checked separately) and control
      for (size_t k = field_begin[i]; k < field_begin[i + 1]; ++k) used |= field_mask(kFields[k]);
      const uint64_t all = is_cmd1(kCommands[i].cmd) ? ~0ull : 0xFFFFFFFFull;
      reserved[i] = all & ~used;
    }
  }
  size_t index_of(Cmd c) const {
    int16_t i = by_halfword[first_halfword(c) & 0x7FFF];
    if (i == 0) throw std::logic_error("isa: command not in the table");
    return static_cast<size_t>(i - 1);
  }
};

const CommandIndex& index() {
  static const CommandIndex idx;
  return idx;
}

}  // namespace

bool fits(const FieldInfo& f, int64_t v) {
  switch (f.type) {
    case FieldType::ENUM:
      return v >= 0 && !enum_value_name(f.enum_id, static_cast<uint32_t>(v)).empty();
    case FieldType::SIGNED: {
      int64_t lo = -(int64_t{1} << (f.width - 1));
      int64_t hi = (int64_t{1} << (f.width - 1)) - 1;
      return v >= lo && v <= hi;
    }
    case FieldType::UNSIGNED:
      return v >= 0 && static_cast<uint64_t>(v) <= low_mask(f.width);
  }
  return false;
}

const CommandInfo* find_command(uint16_t first_halfword) {
  if (first_halfword & 0x8000) return nullptr;
  int16_t i = index().by_halfword[first_halfword];
  return i ? &kCommands[i - 1] : nullptr;
}

const CommandInfo* find_command(Cmd cmd) { return find_command(first_halfword(cmd)); }

const CommandInfo* find_command(std::string_view name) {
  for (const auto& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

const CommandInfo& command_info(Cmd cmd) { return kCommands[index().index_of(cmd)]; }

FieldRange fields_of(Cmd cmd) {
  size_t i = index().index_of(cmd);
  return {kFields + index().field_begin[i], kFields + index().field_begin[i + 1]};
}

const FieldInfo* find_field(Cmd cmd, std::string_view name) {
  for (const auto& f : fields_of(cmd))
    if (f.name == name) return &f;
  return nullptr;
}

std::string_view enum_name(EnumId e) { return kEnumNames[static_cast<size_t>(e)]; }

std::string_view enum_value_name(EnumId e, uint32_t v) {
  for (const auto& ev : kEnumValues)
    if (ev.enum_id == e && ev.value == v) return ev.name;
  return {};
}

std::optional<uint32_t> enum_value(EnumId e, std::string_view name) {
  for (const auto& ev : kEnumValues)
    if (ev.enum_id == e && ev.name == name) return ev.value;
  return std::nullopt;
}

uint64_t reserved_mask(Cmd cmd) { return index().reserved[index().index_of(cmd)]; }

}  // namespace ethosu::isa
