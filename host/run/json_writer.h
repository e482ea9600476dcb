// Writes JSON text straight into a string, in the layout nlohmann::json::dump(1) gives (one space per level,
// "key": value, empty containers as {} and []). The run report uses it instead of building a DOM: a report
// has tens of thousands of values, and the DOM's allocations cost more than the text.
//
// The caller writes an object's keys in sorted order, as nlohmann's std::map-based objects hold them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ethosu::host {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }
  void key(std::string_view k);

  void value(uint64_t v);
  void value(double v);  // NaN and infinities as null, whole numbers with ".0", as nlohmann writes them
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(const nlohmann::json& j);

 private:
  void open(char bracket);
  void close(char bracket);
  void before_value();  // the separator and indentation of the next array element or key
  void line_break(size_t commas, size_t indent);
  void string(std::string_view s);

  std::string& out_;
  size_t depth_ = 0;    // containers open
  bool empty_ = false;  // nothing written yet into the innermost open container (an outer one holds at least it)
  bool after_key_ = false;
};

}  // namespace ethosu::host
