#include "isa/assembler.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "isa/isa.h"
#include "sim/error.h"

namespace ethosu::isa {
namespace {

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool parse_int(std::string_view t, int64_t& v) {
  if (t.empty() || t.size() > 40) return false;
  std::string s(t);
  errno = 0;
  char* end = nullptr;
  long long r = std::strtoll(s.c_str(), &end, 0);
  if (errno == ERANGE || end != s.c_str() + s.size()) {
    // Values up to 2^64-1 in hex are fine for raw words.
    errno = 0;
    unsigned long long u = std::strtoull(s.c_str(), &end, 0);
    if (errno || end != s.c_str() + s.size() || s[0] == '-') return false;
    r = static_cast<long long>(u);
  }
  v = r;
  return true;
}

void put_word(std::vector<uint8_t>& out, uint32_t w) {
  uint8_t b[4];
  std::memcpy(b, &w, 4);
  out.insert(out.end(), b, b + 4);
}

}  // namespace

std::vector<uint8_t> assemble(std::string_view text, const std::string& source_name, IsaVersion version,
                              IsaVersion* version_used) {
  std::vector<uint8_t> out;
  bool commands_started = false;
  size_t line_no = 0;
  bool bytes_started = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    auto fail = [&](const std::string& what) -> void {
      throw InputError(source_name + ":" + std::to_string(line_no) + ": " + what);
    };
    if (size_t c = line.find_first_of(";#"); c != std::string_view::npos) line = line.substr(0, c);
    auto tok = split(line);
    if (tok.empty()) continue;

    if (tok[0] == ".isa") {
      if (tok.size() != 2 || (tok[1] != "1" && tok[1] != "2")) fail(".isa takes 1 (Ethos-U55/U65) or 2 (Ethos-U85)");
      if (commands_started) fail(".isa must come before the first command");
      version = tok[1] == "1" ? IsaVersion::V1 : IsaVersion::V2;
      continue;
    }
    commands_started = true;
    if (tok[0] == ".word" || tok[0] == ".byte") {
      const bool is_word = tok[0] == ".word";
      if (tok.size() < 2) fail(std::string(tok[0]) + " needs at least one value");
      if (is_word && bytes_started) fail(".word after .byte: raw bytes may only end the stream");
      for (size_t i = 1; i < tok.size(); ++i) {
        int64_t v;
        if (!parse_int(tok[i], v) || v < 0 || static_cast<uint64_t>(v) > (is_word ? 0xFFFFFFFFull : 0xFFull))
          fail("'" + std::string(tok[i]) + "' is not a " + (is_word ? "32-bit word" : "byte") + " value");
        if (is_word) {
          put_word(out, static_cast<uint32_t>(v));
        } else {
          out.push_back(static_cast<uint8_t>(v));
          bytes_started = true;
        }
      }
      continue;
    }
    if (bytes_started) fail("command after .byte: raw bytes may only end the stream");

    std::string_view name = tok[0];
    if (name.substr(0, 5) == "cmd0." || name.substr(0, 5) == "cmd1.") name.remove_prefix(5);
    const CommandInfo* ci = find_command(name, version);
    if (!ci) {
      const CommandInfo* other = find_command(name, version == IsaVersion::V1 ? IsaVersion::V2 : IsaVersion::V1);
      fail("unknown command '" + std::string(tok[0]) + "'" +
           (other ? std::string(" in command set ") + version_name(version) + " (it is one of set " +
                        version_name(version == IsaVersion::V1 ? IsaVersion::V2 : IsaVersion::V1) + "; see .isa)"
                  : std::string()));
    }
    uint64_t bits = header_bits(ci->cmd);
    uint64_t assigned = 0;
    for (size_t i = 1; i < tok.size(); ++i) {
      const size_t eq = tok[i].find('=');
      if (eq == std::string_view::npos || eq == 0)
        fail("expected field=value, got '" + std::string(tok[i]) + "'");
      const std::string_view fname = tok[i].substr(0, eq), fval = tok[i].substr(eq + 1);
      const FieldInfo* f = find_field(ci->cmd, fname, version);
      if (!f) {
        std::string known;
        for (const auto& k : fields_of(ci->cmd, version)) known += (known.empty() ? "" : ", ") + std::string(k.name);
        fail(std::string(ci->name) + " has no field '" + std::string(fname) + "' (fields: " +
             (known.empty() ? "none" : known) + ")");
      }
      if (assigned & field_mask(*f)) fail("field '" + std::string(fname) + "' given twice");
      int64_t v;
      if (f->type == FieldType::ENUM) {
        if (auto e = enum_value(f->enum_id, fval, version)) {
          v = *e;
        } else if (!parse_int(fval, v)) {
          fail("'" + std::string(fval) + "' is not a " + std::string(enum_name(f->enum_id)) + " value");
        }
      } else if (!parse_int(fval, v)) {
        fail("'" + std::string(fval) + "' is not an integer");
      }
      if (!fits(*f, v, version))
        fail("value " + std::string(fval) + " does not fit " + std::string(ci->name) + "." + std::string(fname));
      bits = set(bits, *f, v);
      assigned |= field_mask(*f);
    }
    put_word(out, static_cast<uint32_t>(bits));
    if (ci->kind == Kind::CMD1) put_word(out, static_cast<uint32_t>(bits >> 32));
  }
  if (version_used) *version_used = version;
  return out;
}

}  // namespace ethosu::isa
