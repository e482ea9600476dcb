#include "host/run/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

namespace ethosu::host {

namespace {

// A separator, a line break and the indentation of the next element come from one buffer, in one append.
constexpr size_t kIndentInBuffer = 64;
constexpr std::string_view kBreak = ",\n                                                                ";
static_assert(kBreak.size() == 2 + kIndentInBuffer);

// Printable ASCII other than the quote and the backslash: the characters JSON text holds as they are.
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> plain{};
  for (unsigned c = 0x20; c < 0x7f; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}();

bool plain(std::string_view s) {
  for (const char c : s)
    if (!kPlain[static_cast<unsigned char>(c)]) return false;
  return true;
}

}  // namespace

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ == 0) return;  // the top-level value
  line_break(empty_ ? 0 : 1, depth_);
  empty_ = false;
}

void JsonWriter::line_break(size_t commas, size_t indent) {
  out_.append(kBreak.data() + 1 - commas, 1 + commas + std::min(indent, kIndentInBuffer));
  if (indent > kIndentInBuffer) out_.append(indent - kIndentInBuffer, ' ');
}

void JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  ++depth_;
  empty_ = true;
}

void JsonWriter::close(char bracket) {
  --depth_;
  if (!empty_) line_break(0, depth_);
  out_ += bracket;
  empty_ = false;
}

void JsonWriter::key(std::string_view k) {
  before_value();
  char quoted[64];
  if (k.size() + 4 <= sizeof quoted && plain(k)) {  // most keys: in one append
    quoted[0] = '"';
    std::memcpy(quoted + 1, k.data(), k.size());
    std::memcpy(quoted + 1 + k.size(), "\": ", 3);
    out_.append(quoted, k.size() + 4);
  } else {
    string(k);
    out_ += ": ";
  }
  after_key_ = true;
}

void JsonWriter::value(uint64_t v) {
  before_value();
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void JsonWriter::value(double v) {
  before_value();
  if (!std::isfinite(v)) {
    out_ += "null";
    return;
  }
  // The shortest digits that read back as v, in nlohmann's choice of notation: positional from 1e-4 to 1e15.
  const double magnitude = std::fabs(v);
  const bool positional = magnitude == 0 || (magnitude >= 1e-4 && magnitude < 1e15);
  char buf[48];
  const char* end =
      std::to_chars(buf, buf + sizeof buf, v, positional ? std::chars_format::fixed : std::chars_format::scientific).ptr;
  const std::string_view text(buf, size_t(end - buf));
  out_ += text;
  if (text.find_first_of(".e") == std::string_view::npos) out_ += ".0";  // stays a float for the reader
}

void JsonWriter::value(std::string_view s) {
  before_value();
  string(s);
}

void JsonWriter::string(std::string_view s) {
  // Plain printable ASCII as it is; anything else (quotes, backslashes, control characters, UTF-8) through
  // nlohmann's escaping, which also rejects invalid UTF-8 as a dump of the DOM did.
  if (!plain(s)) {
    out_ += nlohmann::json(std::string(s)).dump();
    return;
  }
  out_ += '"';
  out_ += s;
  out_ += '"';
}

void JsonWriter::value(const nlohmann::json& j) {
  if (j.is_object()) {
    begin_object();
    for (const auto& [k, v] : j.items()) {
      key(k);
      value(v);
    }
    end_object();
  } else if (j.is_array()) {
    begin_array();
    for (const auto& v : j) value(v);
    end_array();
  } else {
    before_value();
    out_ += j.dump();
  }
}

}  // namespace ethosu::host
