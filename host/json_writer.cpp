#include "host/json_writer.h"

#include <charconv>
#include <cmath>

namespace ethosu::host {

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (empty_.empty()) return;  // the top-level value
  out_ += empty_.back() ? "\n" : ",\n";
  empty_.back() = false;
  out_.append(empty_.size(), ' ');
}

void JsonWriter::open(char bracket) {
  before_value();
  out_ += bracket;
  empty_.push_back(true);
}

void JsonWriter::close(char bracket) {
  const bool was_empty = empty_.back();
  empty_.pop_back();
  if (!was_empty) {
    out_ += '\n';
    out_.append(empty_.size(), ' ');
  }
  out_ += bracket;
}

void JsonWriter::key(std::string_view k) {
  before_value();
  string(k);
  out_ += ": ";
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
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f || c == '"' || c == '\\') {
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
