#include "isa/isa.h"

#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>
#include <stdexcept>

namespace ethosu::isa {
namespace {

constexpr size_t kVersions = 2;
constexpr size_t slot(IsaVersion v) { return static_cast<size_t>(v) - 1; }
constexpr IsaVersion kAllVersions[] = {IsaVersion::V1, IsaVersion::V2};

// Index of each command's first field, built once from the table order.
struct CommandIndex {
  std::array<std::array<int16_t, 0x8000>, kVersions> by_halfword{};  // command table index + 1, 0 = unknown
  std::array<uint16_t, kCommandCount + 1> field_begin{};
  std::array<std::array<uint64_t, kCommandCount>, kVersions> reserved{};
  // Each enum's values as a range of kEnumValues (the table lists them enum by enum), and commands by name:
  // the assembler and disassembler look them up per field.
  static constexpr size_t kEnumIds = sizeof(kEnumNames) / sizeof(kEnumNames[0]);
  std::array<std::pair<uint16_t, uint16_t>, kEnumIds> enum_range{};
  std::vector<std::pair<std::string_view, uint16_t>> by_name;
  std::array<int16_t, 0x10000> by_cmd{};  // by the Cmd's value

  CommandIndex() {
    for (size_t i = 0; i < sizeof(kEnumValues) / sizeof(kEnumValues[0]); ++i) {
      auto& r = enum_range[static_cast<size_t>(kEnumValues[i].enum_id)];
      if (r.first == r.second) r.first = static_cast<uint16_t>(i);
      else if (r.second != i) throw std::logic_error("isa.def: an enum's values must be listed together");
      r.second = static_cast<uint16_t>(i + 1);
    }
    for (size_t i = 0; i < kCommandCount; ++i) by_name.emplace_back(kCommands[i].name, static_cast<uint16_t>(i));
    std::sort(by_name.begin(), by_name.end());
    for (size_t i = 1; i < by_name.size(); ++i)
      if (by_name[i].first == by_name[i - 1].first) throw std::logic_error("isa.def: a command name is listed twice");
    for (size_t i = 0; i < kCommandCount; ++i) {
      by_cmd[static_cast<uint16_t>(kCommands[i].cmd)] = static_cast<int16_t>(i + 1);
      for (IsaVersion v : kAllVersions) {
        if (!has(kCommands[i].versions, v)) continue;
        int16_t& at = by_halfword[slot(v)][first_halfword(kCommands[i].cmd)];
        if (at) throw std::logic_error("isa.def: two commands of one version share an opcode");
        at = static_cast<int16_t>(i + 1);
      }
    }
    size_t f = 0;
    for (size_t i = 0; i < kCommandCount; ++i) {
      field_begin[i] = static_cast<uint16_t>(f);
      while (f < kFieldCount && kFields[f].cmd == kCommands[i].cmd) ++f;
    }
    if (f != kFieldCount) throw std::logic_error("isa.def: fields must follow their command");
    field_begin[kCommandCount] = static_cast<uint16_t>(kFieldCount);
    for (IsaVersion v : kAllVersions) {
      for (size_t i = 0; i < kCommandCount; ++i) {
        uint64_t used = 0xFFFF;  // opcode, reserved header bits (checked separately) and control
        for (size_t k = field_begin[i]; k < field_begin[i + 1]; ++k)
          if (has(kFields[k].versions, v)) used |= field_mask(kFields[k]);
        const uint64_t all = is_cmd1(kCommands[i].cmd) ? ~0ull : 0xFFFFFFFFull;
        reserved[slot(v)][i] = all & ~used;
      }
    }
  }
  size_t index_of(Cmd c) const {
    int16_t i = by_cmd[static_cast<uint16_t>(c)];
    if (i == 0) throw std::logic_error("isa: command not in the table");
    return static_cast<size_t>(i - 1);
  }
};

const CommandIndex& index() {
  // On the heap rather than in .bss (all written by the constructor): a process whose heap is in huge pages (the
  // CLI) then takes no 4 KiB page fault per page of it.
  static const std::unique_ptr<const CommandIndex> idx = std::make_unique<const CommandIndex>();
  return *idx;
}

}  // namespace

const char* version_name(IsaVersion v) {
  return v == IsaVersion::V1 ? "1 (Ethos-U55/U65)" : "2 (Ethos-U85)";
}

size_t FieldRange::size() const {
  size_t n = 0;
  for (auto it = begin(); it != end(); ++it) ++n;
  return n;
}

bool fits(const FieldInfo& f, int64_t v, IsaVersion version) {
  switch (f.type) {
    case FieldType::ENUM:
      return v >= 0 && !enum_value_name(f.enum_id, static_cast<uint32_t>(v), version).empty();
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

const CommandInfo* find_command(uint16_t first_halfword, IsaVersion version) {
  if (first_halfword & kVersion2Only) return nullptr;
  int16_t i = index().by_halfword[slot(version)][first_halfword];
  return i ? &kCommands[i - 1] : nullptr;
}

const CommandInfo* find_command(Cmd cmd) {
  int16_t i = index().by_cmd[static_cast<uint16_t>(cmd)];
  return i ? &kCommands[i - 1] : nullptr;
}

const CommandInfo* find_command(std::string_view name, IsaVersion version) {
  const auto& v = index().by_name;
  const auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(name, uint16_t{0}));
  if (it == v.end() || it->first != name) return nullptr;
  const CommandInfo& c = kCommands[it->second];
  return has(c.versions, version) ? &c : nullptr;
}

const CommandInfo& command_info(Cmd cmd) { return kCommands[index().index_of(cmd)]; }

FieldRange fields_of(Cmd cmd, IsaVersion version) {
  size_t i = index().index_of(cmd);
  return {kFields + index().field_begin[i], kFields + index().field_begin[i + 1], version};
}

const FieldInfo* find_field(Cmd cmd, std::string_view name, IsaVersion version) {
  for (const auto& f : fields_of(cmd, version))
    if (f.name == name) return &f;
  return nullptr;
}

std::string_view enum_name(EnumId e) { return kEnumNames[static_cast<size_t>(e)]; }

std::string_view enum_value_name(EnumId e, uint32_t v, IsaVersion version) {
  const auto [begin, end] = index().enum_range[static_cast<size_t>(e)];
  for (size_t i = begin; i < end; ++i)
    if (kEnumValues[i].value == v && has(kEnumValues[i].versions, version)) return kEnumValues[i].name;
  return {};
}

std::optional<uint32_t> enum_value(EnumId e, std::string_view name, IsaVersion version) {
  const auto [begin, end] = index().enum_range[static_cast<size_t>(e)];
  for (size_t i = begin; i < end; ++i)
    if (kEnumValues[i].name == name && has(kEnumValues[i].versions, version)) return kEnumValues[i].value;
  return std::nullopt;
}

uint64_t reserved_mask(Cmd cmd, IsaVersion version) { return index().reserved[slot(version)][index().index_of(cmd)]; }

}  // namespace ethosu::isa
