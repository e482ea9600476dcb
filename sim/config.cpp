#include "sim/config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/error.h"
#include "sim/files.h"
#include "sim/text.h"

namespace ethosu::sim {
namespace {


size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string_view last_segment(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::string where(std::string_view origin) { return origin.empty() ? std::string() : std::string(origin) + ": "; }

std::string describe_type(const Param& p) {
  switch (p.type()) {
    case ParamType::INT: return p.int_word().empty() ? "an integer" : "an integer or " + p.int_word();
    case ParamType::DOUBLE: return "a number";
    case ParamType::BOOL: return "true or false";
    case ParamType::STRING: return "a string";
  }
  return "";
}

[[noreturn]] void bad_value(const Param& p, std::string_view text, std::string_view origin) {
  std::string msg = where(origin) + "parameter '" + p.name() + "' takes " + describe_type(p);
  if (!p.unit().empty()) msg += " (" + p.unit() + ")";
  throw InputError(msg + ", got '" + std::string(text) + "'");
}

std::optional<int64_t> parse_int(std::string_view text) {
  struct Suffix {
    std::string_view text;
    int64_t factor;
  };
  static constexpr Suffix kSuffixes[] = {{"Ki", int64_t{1} << 10}, {"Mi", int64_t{1} << 20}, {"Gi", int64_t{1} << 30},
                                         {"k", 1000},             {"M", 1000000},           {"G", 1000000000}};
  int64_t factor = 1;
  for (const Suffix& s : kSuffixes) {
    if (text.size() > s.text.size() && text.substr(text.size() - s.text.size()) == s.text) {
      factor = s.factor;
      text.remove_suffix(s.text.size());
      break;
    }
  }
  if (text.empty()) return std::nullopt;
  int64_t v = 0;
  const bool negative = text.front() == '-';
  std::string_view digits = text.substr(text.front() == '-' || text.front() == '+' ? 1 : 0);
  const bool hex = digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  if (hex) digits.remove_prefix(2);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, hex ? 16 : 10);
  if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty()) {
    if (negative) v = -v;
  } else {
    if (hex) return std::nullopt;
    // 800e6, 1.5Ki: accepted only when the value is an exact integer that a double holds exactly.
    double d = 0;
    auto [dend, dec] = std::from_chars(text.data() + (text.front() == '+' ? 1 : 0), text.data() + text.size(), d);
    if (dec != std::errc() || dend != text.data() + text.size()) return std::nullopt;
    d *= static_cast<double>(factor);
    if (!(std::fabs(d) <= 9007199254740992.0) || d != std::floor(d)) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  if (v > std::numeric_limits<int64_t>::max() / factor || v < std::numeric_limits<int64_t>::min() / factor) {
    return std::nullopt;
  }
  return v * factor;
}

std::optional<double> parse_double(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  double d = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<bool> parse_bool(std::string_view text) {
  const std::string t = lower(text);
  if (t == "true" || t == "1" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "0" || t == "no" || t == "off") return false;
  return std::nullopt;
}

std::string format_double(double d) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

}  // namespace

// Lower-case segments of [a-z0-9_] joined by single dots, at least two segments.
bool valid_name(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.back() == '.' || name.find('.') == std::string_view::npos) {
    return false;
  }
  char prev = '.';
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (!ok || (c == '.' && prev == '.')) return false;
    prev = c;
  }
  return true;
}

const char* to_string(ParamType type) {
  switch (type) {
    case ParamType::INT: return "int";
    case ParamType::DOUBLE: return "double";
    case ParamType::BOOL: return "bool";
    case ParamType::STRING: return "string";
  }
  return "";
}

const char* to_string(Source source) {
  switch (source) {
    case Source::DEFAULT: return "default";
    case Source::PRESET: return "preset";
    case Source::FILE: return "file";
    case Source::CLI: return "cli";
  }
  return "";
}

int64_t Param::as_int() const {
  if (type_ != ParamType::INT) throw std::logic_error("parameter " + name_ + " is not an int");
  return std::get<int64_t>(value());
}

double Param::as_double() const {
  if (type_ == ParamType::INT) return static_cast<double>(std::get<int64_t>(value()));
  if (type_ != ParamType::DOUBLE) throw std::logic_error("parameter " + name_ + " is not a double");
  return std::get<double>(value());
}

bool Param::as_bool() const {
  if (type_ != ParamType::BOOL) throw std::logic_error("parameter " + name_ + " is not a bool");
  return std::get<bool>(value());
}

const std::string& Param::as_string() const {
  if (type_ != ParamType::STRING) throw std::logic_error("parameter " + name_ + " is not a string");
  return std::get<std::string>(value());
}

std::string Param::value_text() const {
  switch (type_) {
    case ParamType::INT:
      return !int_word_.empty() && as_int() == int_word_value_ ? int_word_ : std::to_string(as_int());
    case ParamType::DOUBLE: return format_double(as_double());
    case ParamType::BOOL: return as_bool() ? "true" : "false";
    case ParamType::STRING: return as_string();
  }
  return "";
}

Config::Config(const Config& other) : storage_(other.storage_) {
  for (Param& p : storage_) by_name_.emplace(p.name_, &p);
}

Config& Config::operator=(const Config& other) {
  if (this != &other) *this = Config(other);
  return *this;
}

Param& Config::declare(std::string name, ParamType type, std::string unit, std::string description,
                       Value default_value) {
  if (!valid_name(name)) throw std::logic_error("invalid parameter name '" + name + "'");
  if (by_name_.count(name)) throw std::logic_error("parameter '" + name + "' declared twice");
  Param& p = storage_.emplace_back();
  p.name_ = std::move(name);
  p.type_ = type;
  p.unit_ = std::move(unit);
  p.description_ = std::move(description);
  p.layers_[static_cast<size_t>(Source::DEFAULT)].value = std::move(default_value);
  by_name_.emplace(p.name_, &p);
  return p;
}

const Param& Config::declare_int(std::string name, int64_t default_value, std::string unit, std::string description,
                                 int64_t min, int64_t max, int64_t step) {
  if (min > max || default_value < min || default_value > max || step < 1 ||
      (step > 1 && (default_value - min) % step != 0)) {
    throw std::logic_error("parameter '" + name + "': default outside its range");
  }
  Param& p = declare(std::move(name), ParamType::INT, std::move(unit), std::move(description), default_value);
  p.int_min_ = min;
  p.int_max_ = max;
  p.int_step_ = step;
  return p;
}

const Param& Config::declare_int_word(std::string name, int64_t default_value, std::string unit,
                                      std::string description, int64_t min, int64_t max, std::string word,
                                      int64_t word_value) {
  if (word.empty() || (word_value >= min && word_value <= max))
    throw std::logic_error("parameter '" + name + "': a named value must lie outside the range");
  const Param& p = declare_int(std::move(name), default_value, std::move(unit), std::move(description), min, max);
  Param& q = *by_name_.at(p.name());
  q.int_word_ = std::move(word);
  q.int_word_value_ = word_value;
  return p;
}

const Param& Config::declare_int_choice(std::string name, int64_t default_value, std::string unit,
                                        std::string description, std::vector<int64_t> choices) {
  if (choices.empty() || !std::is_sorted(choices.begin(), choices.end()) ||
      std::find(choices.begin(), choices.end(), default_value) == choices.end()) {
    throw std::logic_error("parameter '" + name + "': default not among its choices");
  }
  const Param& p = declare_int(std::move(name), default_value, std::move(unit), std::move(description),
                               choices.front(), choices.back());
  Param& q = *by_name_.at(p.name());
  for (int64_t c : choices) q.choices_.push_back(std::to_string(c));
  return p;
}

std::string Param::range_text() const {
  if (read_only_) return "read-only";
  std::string out;
  if (!choices_.empty()) {
    out = "one of";
    for (const std::string& c : choices_) out += " " + c;
    return out;
  }
  switch (type_) {
    case ParamType::INT:
      out = "[" + std::to_string(int_min_) + ", " + std::to_string(int_max_) + "]";
      if (int_step_ > 1) out += " in steps of " + std::to_string(int_step_);
      if (!int_word_.empty()) out += " or " + int_word_;
      return out;
    case ParamType::DOUBLE: return "[" + format_double(double_min_) + ", " + format_double(double_max_) + "]";
    case ParamType::BOOL: return "true or false";
    case ParamType::STRING: return read_only_ ? "read-only" : "any text";
  }
  return out;
}

const Param& Config::declare_double(std::string name, double default_value, std::string unit,
                                    std::string description, double min, double max) {
  if (!(min <= max) || !(default_value >= min && default_value <= max)) {
    throw std::logic_error("parameter '" + name + "': default outside its range");
  }
  Param& p = declare(std::move(name), ParamType::DOUBLE, std::move(unit), std::move(description), default_value);
  p.double_min_ = min;
  p.double_max_ = max;
  return p;
}

const Param& Config::declare_bool(std::string name, bool default_value, std::string description) {
  return declare(std::move(name), ParamType::BOOL, "", std::move(description), default_value);
}

const Param& Config::declare_string(std::string name, std::string default_value, std::string description,
                                    std::vector<std::string> choices) {
  if (!choices.empty() && std::find(choices.begin(), choices.end(), default_value) == choices.end()) {
    throw std::logic_error("parameter '" + name + "': default not among its choices");
  }
  Param& p = declare(std::move(name), ParamType::STRING, "", std::move(description), std::move(default_value));
  p.choices_ = std::move(choices);
  return p;
}

const Param& Config::declare_label(std::string name, std::string default_value, std::string description,
                                   std::vector<std::string> choices) {
  const Param& p = declare_string(std::move(name), std::move(default_value), std::move(description), std::move(choices));
  by_name_.at(p.name())->read_only_ = true;
  return p;
}

Param& Config::lookup(std::string_view name, std::string_view origin) {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return *it->second;
  std::vector<std::string> names;
  names.reserve(by_name_.size());
  for (const auto& [n, p] : by_name_) names.push_back(n);
  std::string msg = where(origin) + "unknown parameter '" + std::string(name) + "'";
  const std::vector<std::string> close = close_names(name, names);
  if (close.empty()) {
    msg += " (no parameter has a similar name)";
  } else {
    msg += "; did you mean";
    for (size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : " ") + close[i];
    msg += "?";
  }
  throw InputError(msg);
}

const Param& Config::param(std::string_view name) const { return const_cast<Config*>(this)->lookup(name, ""); }

const Param* Config::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<const Param*> Config::params() const {
  std::vector<const Param*> out;
  out.reserve(by_name_.size());
  for (const auto& [n, p] : by_name_) out.push_back(p);
  return out;
}

void Config::check_range(const Param& p, const Value& v, std::string_view origin) {
  if (p.type_ == ParamType::INT) {
    const int64_t x = std::get<int64_t>(v);
    const bool named = !p.int_word_.empty() && x == p.int_word_value_;
    const bool allowed = named || (p.choices_.empty()
                             ? x >= p.int_min_ && x <= p.int_max_ && (x - p.int_min_) % p.int_step_ == 0
                             : std::find(p.choices_.begin(), p.choices_.end(), std::to_string(x)) != p.choices_.end());
    if (!allowed)
      throw InputError(where(origin) + "parameter '" + p.name_ + "' = " + std::to_string(x) +
                       (p.choices_.empty() ? " is out of range " : " is not ") + p.range_text());
  } else if (p.type_ == ParamType::DOUBLE) {
    const double x = std::get<double>(v);
    if (!std::isfinite(x) || x < p.double_min_ || x > p.double_max_) {
      throw InputError(where(origin) + "parameter '" + p.name_ + "' = " + format_double(x) + " is out of range [" +
                       format_double(p.double_min_) + ", " + format_double(p.double_max_) + "]");
    }
  } else if (p.type_ == ParamType::STRING && !p.choices_.empty()) {
    const std::string& s = std::get<std::string>(v);
    if (std::find(p.choices_.begin(), p.choices_.end(), s) == p.choices_.end()) {
      std::string msg = where(origin) + "parameter '" + p.name_ + "' = '" + s + "' is not one of:";
      for (const std::string& c : p.choices_) msg += " " + c;
      throw InputError(msg);
    }
  }
}

void Config::store(Param& p, Value v, Source source, std::string_view origin) {
  if (source == Source::DEFAULT) throw std::logic_error("defaults are set by declaration only");
  if (p.read_only_ && source > Source::PRESET)
    throw InputError(where(origin) + "parameter '" + p.name_ + "' is read-only: it records where the values came from (" +
                     p.description_ + "); choose them with a system or preset instead");
  check_range(p, v, origin);
  Param::Layer& layer = p.layers_[static_cast<size_t>(source)];
  layer.value = std::move(v);
  layer.origin = std::string(origin);
  if (source >= p.source_) p.source_ = source;
}

void Config::set(std::string_view name, std::string_view text, Source source, std::string_view origin) {
  Param& p = lookup(name, origin);
  text = trim(text);
  Value v;
  switch (p.type_) {
    case ParamType::INT: {
      if (!p.int_word_.empty() && text == p.int_word_) {
        v = p.int_word_value_;
        break;
      }
      const auto x = parse_int(text);
      if (!x || (!p.int_word_.empty() && *x == p.int_word_value_)) bad_value(p, text, origin);  // only the word says it
      v = *x;
      break;
    }
    case ParamType::DOUBLE: {
      const auto x = parse_double(text);
      if (!x) bad_value(p, text, origin);
      v = *x;
      break;
    }
    case ParamType::BOOL: {
      const auto x = parse_bool(text);
      if (!x) bad_value(p, text, origin);
      v = *x;
      break;
    }
    case ParamType::STRING: v = std::string(text); break;
  }
  store(p, std::move(v), source, origin);
}

void Config::set_value(std::string_view name, const Value& value, Source source, std::string_view origin) {
  Param& p = lookup(name, origin);
  if (p.type_ == ParamType::DOUBLE && std::holds_alternative<int64_t>(value)) {
    store(p, static_cast<double>(std::get<int64_t>(value)), source, origin);
    return;
  }
  if (value.index() != static_cast<size_t>(p.type_)) {
    throw InputError(where(origin) + "parameter '" + p.name_ + "' takes " + describe_type(p));
  }
  store(p, value, source, origin);
}

void Config::set_assignment(std::string_view assignment, Source source, std::string_view origin) {
  const size_t eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw InputError(where(origin) + "expected name=value, got '" + std::string(assignment) + "'");
  }
  set(trim(assignment.substr(0, eq)), assignment.substr(eq + 1), source, origin);
}

void Config::clear(Source source) {
  if (source == Source::DEFAULT) throw std::logic_error("defaults cannot be cleared");
  for (Param& p : storage_) {
    p.layers_[static_cast<size_t>(source)] = Param::Layer{};
    if (p.source_ == source) {
      size_t s = static_cast<size_t>(source);
      while (!p.layers_[s].value) --s;  // DEFAULT always holds a value
      p.source_ = static_cast<Source>(s);
    }
  }
}

void Config::load_file(const std::filesystem::path& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const InputError& e) {
    throw InputError(std::string("config file ") + e.what());
  }
  load_text(text, path.string());
}

void Config::load_text(std::string_view text, std::string_view origin) {
  std::string prefix;
  std::map<std::string, size_t> first_line;  // full name -> line, to reject repeats
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_no;
    const std::string at = std::string(origin) + ":" + std::to_string(line_no);
    line = trim(line);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '#' && std::isspace(static_cast<unsigned char>(line[i - 1]))) {
        line = trim(line.substr(0, i));
        break;
      }
    }
    if (line.front() == '[') {
      if (line.back() != ']') throw InputError(at + ": section header without closing ']'");
      const std::string_view section = trim(line.substr(1, line.size() - 2));
      if (!section.empty() && !valid_name(std::string(section) + ".x")) {
        throw InputError(at + ": invalid section name '" + std::string(section) + "'");
      }
      prefix = section.empty() ? std::string() : std::string(section) + ".";
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) throw InputError(at + ": expected 'name = value', got '" + std::string(line) + "'");
    const std::string name = prefix + std::string(trim(line.substr(0, eq)));
    auto [it, inserted] = first_line.emplace(name, line_no);
    if (!inserted) {
      throw InputError(at + ": parameter '" + name + "' already set on line " + std::to_string(it->second));
    }
    set(name, line.substr(eq + 1), Source::FILE, at);
  }
}

nlohmann::json Config::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, p] : by_name_) {
    nlohmann::json v;
    std::visit([&v](const auto& x) { v = x; }, p->value());
    out[name] = {{"value", v},
                 {"type", to_string(p->type())},
                 {"unit", p->unit()},
                 {"source", to_string(p->source())},
                 {"origin", p->origin()},
                 {"description", p->description()}};
  }
  return out;
}

std::vector<std::string> close_names(std::string_view name, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, name.size() / 4);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d > limit && last_segment(c) == last_segment(name)) d = limit;  // right leaf, wrong component
    if (d <= limit) scored.emplace_back(d, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < 5; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace ethosu::sim
