#include "isa/isa.h"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>
#include <stdexcept>

namespace ethosu::isa {
namespace {

// Index of each command's first field, built once from the table order.
struct CommandIndex {
  std::array<int16_t, 0x8000> by_halfword{};  // command table index + 1, 0 = unknown
  std::array<uint16_t, kCommandCount + 1> field_begin{};
  std::array<uint64_t, kCommandCount> reserved{};
  // Each enum's values as a range of kEnumValues (the table lists them enum by enum), and commands by name:
  // the assembler and disassembler look them up per field.
  static constexpr size_t kEnumIds = sizeof(kEnumNames) / sizeof(kEnumNames[0]);
  std::array<std::pair<uint16_t, uint16_t>, kEnumIds> enum_range{};
  std::vector<std::pair<std::string_view, uint16_t>> by_name;

  CommandIndex() {
    for (size_t i = 0; i < sizeof(kEnumValues) / sizeof(kEnumValues[0]); ++i) {
      auto& r = enum_range[static_cast<size_t>(kEnumValues[i].enum_id)];
      if (r.first == r.second) r.first = static_cast<uint16_t>(i);
      else if (r.second != i) throw std::logic_error("isa.def: an enum's values must be listed together");
      r.second = static_cast<uint16_t>(i + 1);
    }
    for (size_t i = 0; i < kCommandCount; ++i) by_name.emplace_back(kCommands[i].name, static_cast<uint16_t>(i));
    std::sort(by_name.begin(), by_name.end());
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
  // On the heap rather than in .bss (65 KiB, all written by the constructor): a process whose heap is in huge
  // pages (the CLI) then takes no 4 KiB page fault per page of it.
  static const std::unique_ptr<const CommandIndex> idx = std::make_unique<const CommandIndex>();
  return *idx;
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
  const auto& v = index().by_name;
  const auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(name, uint16_t{0}));
  return it != v.end() && it->first == name ? &kCommands[it->second] : nullptr;
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
  const auto [begin, end] = index().enum_range[static_cast<size_t>(e)];
  for (size_t i = begin; i < end; ++i)
    if (kEnumValues[i].value == v) return kEnumValues[i].name;
  return {};
}

std::optional<uint32_t> enum_value(EnumId e, std::string_view name) {
  const auto [begin, end] = index().enum_range[static_cast<size_t>(e)];
  for (size_t i = begin; i < end; ++i)
    if (kEnumValues[i].name == name) return kEnumValues[i].value;
  return std::nullopt;
}

uint64_t reserved_mask(Cmd cmd) { return index().reserved[index().index_of(cmd)]; }

}  // namespace ethosu::isa
