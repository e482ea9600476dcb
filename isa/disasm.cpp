#include "isa/disasm.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

namespace ethosu::isa {
namespace {

std::string fmt(const char* f, unsigned long long a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

std::string field_text(const Command& c, const FieldInfo& f, IsaVersion version) {
  const int64_t v = value(c.bits, f);
  std::string s(f.name);
  s += '=';
  if (f.type == FieldType::ENUM) {
    auto n = enum_value_name(f.enum_id, static_cast<uint32_t>(v), version);
    s += n.empty() ? std::to_string(v) : std::string(n);
  } else if (f.location == Location::ADDR40 && f.type == FieldType::UNSIGNED) {
    s += fmt("0x%llx", static_cast<unsigned long long>(v));
  } else {
    s += std::to_string(v);
  }
  return s;
}

// A command is written symbolically only when its text assembles back to the same bits.
bool representable(const Command& c, IsaVersion version) {
  if (!c.info || (c.word0() & kReservedHeaderMask)) return false;
  std::vector<Diagnostic> problems;
  check_fields(c, version, problems);
  return problems.empty();
}

std::string raw_columns(const Command& c) {
  std::string s = hex_offset(c.offset) + ": ";
  s += c.words == 2 ? fmt("%08llx", c.payload()) : std::string(8, ' ');
  s += ' ' + fmt("%04llx", c.param()) + ' ' + fmt("%04llx", c.code());
  return s;
}

}  // namespace

std::string command_text(const Command& c, IsaVersion version) {
  std::string s(c.info->name);
  for (const auto& f : fields_of(c.cmd(), version)) s += ' ' + field_text(c, f, version);
  return s;
}

std::string vela_line(const Command& c) {
  std::string s = raw_columns(c) + " - ";
  if (!c.info) return s + "<invalid>";
  s += c.info->kind == Kind::CMD1 ? "cmd1." : "cmd0.";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%-26s%5u", std::string(c.info->name).c_str(), static_cast<unsigned>(c.param()));
  return s + buf;
}

std::string vela_regor_line(const Command& c, IsaVersion version) {
  std::string s = raw_columns(c) + " - ";
  if (!c.info) return s + "<invalid>";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%-31s%5u", std::string(c.info->name).c_str(), static_cast<unsigned>(c.param()));
  s += buf;
  // Every field in bit order, parameter bits first: enumerations as TYPE_VALUE, 40-bit values as "addr" in hex
  // (strides and lengths too), the rest as their raw unsigned bits.
  std::vector<const FieldInfo*> fields;
  for (const auto& f : fields_of(c.cmd(), version)) fields.push_back(&f);
  const auto order = [](const FieldInfo* f) { return (f->location == Location::PARAM ? 0 : 64) + f->lsb; };
  std::stable_sort(fields.begin(), fields.end(), [&](const FieldInfo* a, const FieldInfo* b) { return order(a) < order(b); });
  for (const FieldInfo* f : fields) {
    s += ", ";
    if (f->location == Location::ADDR40) {
      s += "addr = " + fmt("0x%llx", (((c.bits >> kParamShift) & 0xFF) << 32) | c.payload());
      continue;
    }
    const uint64_t word = f->location == Location::PARAM ? c.param() : c.payload();
    const uint64_t raw = (word >> f->lsb) & ((uint64_t{1} << f->width) - 1);
    s += std::string(f->name) + " = ";
    // Vela 5.1 declares the U85's resize offsets as signed and prints them so; it prints OP_SCALAR through a
    // conversion that gives a negative value's ones' complement (one less than the payload).
    if (c.cmd() == Cmd::NPU_SET_RESIZE_X_OFFSET || c.cmd() == Cmd::NPU_SET_RESIZE_Y_OFFSET) {
      s += std::to_string(value(c.bits, *f));
      continue;
    }
    if (c.cmd() == Cmd::NPU_SET_OP_SCALAR && (raw >> 31)) {
      s += std::to_string(raw - 1);
      continue;
    }
    const std::string_view value_name =
        f->type == FieldType::ENUM ? enum_value_name(f->enum_id, static_cast<uint32_t>(raw), version) : std::string_view();
    if (value_name.empty()) {
      s += std::to_string(raw);
      continue;
    }
    std::string type(enum_name(f->enum_id));
    for (char& ch : type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    s += type + "_" + std::string(value_name);
  }
  return s;
}

std::string disassemble(const Stream& s, DisasmFormat format) {
  std::string out;
  if (format == DisasmFormat::VELA_REGOR) {
    out += "Register command stream: " + std::to_string(s.size_bytes / 4) + " words\n";
    out += "  Offset: Payload Param Code - Command                        Param, Fields\n";
    for (const auto& c : s.commands) out += vela_regor_line(c, s.version) + '\n';
    return out;
  }
  if (format == DisasmFormat::VELA) {
    out += "Register-Level Command Stream: Output\n";
    out += "  Offset: Payload Param Code - Command                        Param\n";
    for (const auto& c : s.commands) out += vela_line(c) + '\n';
    out += "Number of commands = " + std::to_string(s.commands.size()) + '\n';
    out += "Command stream length = " + std::to_string(s.size_bytes) + " bytes\n";
    return out;
  }
  out += "; ethosu-sim disassembly: " + std::to_string(s.size_bytes) + " bytes, " +
         std::to_string(s.commands.size()) + " commands\n";
  out += "; comment columns: offset: payload param code, as in Vela's register command stream listing\n";
  if (s.version != IsaVersion::V1) out += ".isa 2\n";
  constexpr size_t kCommentColumn = 64;
  for (const auto& c : s.commands) {
    std::string line;
    if (representable(c, s.version)) {
      line = command_text(c, s.version);
    } else {
      line = fmt(".word 0x%08llx", c.word0());
      if (c.words == 2) line += fmt(" 0x%08llx", c.payload());
    }
    if (line.size() < kCommentColumn) line.append(kCommentColumn - line.size(), ' ');
    line += " ; " + raw_columns(c);
    if (c.info) line += " param=" + std::to_string(c.param());
    out += line + '\n';
  }
  // Odd trailing bytes are not words; keep them so that the text still describes the whole file.
  for (uint8_t b : s.trailing_bytes) out += fmt(".byte 0x%02llx", b) + "\n";
  return out;
}

}  // namespace ethosu::isa
