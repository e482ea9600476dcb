// Run-time parameters with hierarchical names (`npu.mac.per_core`, `mem.axi1.read_latency_cycles`).
//
// Contract: a model lists its parameters once, beside itself, as the fields of its parameter struct
// (sim/params.h), which declares them into a Config and reads them back into the struct at job start, so one
// elaborated simulation can run many jobs with different values. Declaring is a programming step: a bad
// name, a duplicate or a default outside its own range throws std::logic_error. Setting is user input: an unknown name (the message lists close
// names), a value of the wrong type, out of range or not among the allowed choices throws
// ethosu::InputError naming the parameter and where the value came from.
//
// Values live in layers, lowest precedence first: DEFAULT < PRESET < FILE < CLI. The effective value is
// the one in the highest layer that has one, so a preset applied after `--set` does not undo it, and
// clear(PRESET) swaps presets between jobs while keeping file and command-line values.
//
// Config file format (load_file/load_text), one assignment per line:
//     # comment            (also `;`; a ` #` after a value starts a trailing comment)
//     npu.mac.per_core = 256
//     [mem.axi1]           (section: a name prefix for the lines below it)
//     read_latency_cycles = 500
//     []                   (back to full names)
// Blank lines are ignored; the same parameter twice in one file is an error.
//
// Value syntax: int = decimal or 0x hex, or an exactly integral decimal/scientific number (800e6), either
// optionally followed by k/M/G (x1000^n) or Ki/Mi/Gi (x1024^n); double = a finite decimal number; bool
// = true/false/1/0/yes/no/on/off; string = the trimmed text.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ethosu::sim {

enum class ParamType { INT, DOUBLE, BOOL, STRING };
enum class Source { DEFAULT, PRESET, FILE, CLI };
// Alternative index == ParamType.
using Value = std::variant<int64_t, double, bool, std::string>;

const char* to_string(ParamType type);
const char* to_string(Source source);  // "default", "preset", "file", "cli"

class Param {
 public:
  const std::string& name() const { return name_; }
  ParamType type() const { return type_; }
  const std::string& unit() const { return unit_; }
  const std::string& description() const { return description_; }
  const std::vector<std::string>& choices() const { return choices_; }
  // The values a setting may take: [int_min(), int_max()] in steps of int_step() from int_min() (INT), or
  // [double_min(), double_max()] (DOUBLE); choices() when not empty. range_text() says it for people.
  int64_t int_min() const { return int_min_; }
  int64_t int_max() const { return int_max_; }
  int64_t int_step() const { return int_step_; }
  double double_min() const { return double_min_; }
  double double_max() const { return double_max_; }
  std::string range_text() const;
  // An INT may name one value outside its range by a word (mem.sram.size_bytes's `unbounded`): the text form
  // takes the word, value_text() gives it back.
  const std::string& int_word() const { return int_word_; }
  // A read-only parameter records where other values came from (a preset, a vela.ini section): presets set
  // it, files and the command line cannot.
  bool read_only() const { return read_only_; }

  // The effective value; the typed accessors throw std::logic_error on a type mismatch (a programming
  // error), except that as_double() also reads an INT parameter.
  const Value& value() const { return *layers_[static_cast<size_t>(source_)].value; }
  int64_t as_int() const;
  double as_double() const;
  bool as_bool() const;
  const std::string& as_string() const;
  std::string value_text() const;

  Source source() const { return source_; }
  // Where the effective value was set: "file.cfg:12", "--set", a preset name; empty for defaults.
  const std::string& origin() const { return layers_[static_cast<size_t>(source_)].origin; }

 private:
  friend class Config;
  struct Layer {
    std::optional<Value> value;
    std::string origin;
  };

  std::string name_;
  ParamType type_ = ParamType::INT;
  std::string unit_, description_;
  int64_t int_min_ = 0, int_max_ = 0, int_step_ = 1;
  double double_min_ = 0, double_max_ = 0;
  std::vector<std::string> choices_;  // STRING or INT: the allowed values; empty = any in range
  std::string int_word_;              // INT: the word for int_word_value_, if any
  int64_t int_word_value_ = 0;
  std::array<Layer, 4> layers_;       // by Source; DEFAULT always holds a value
  Source source_ = Source::DEFAULT;
  bool read_only_ = false;
};

class Config {
 public:
  Config() = default;
  // Copies own their parameters (the index points into this registry, not the original).
  Config(const Config& other);
  Config& operator=(const Config& other);
  Config(Config&&) = default;
  Config& operator=(Config&&) = default;

  const Param& declare_int(std::string name, int64_t default_value, std::string unit, std::string description,
                           int64_t min = std::numeric_limits<int64_t>::min(),
                           int64_t max = std::numeric_limits<int64_t>::max(), int64_t step = 1);
  // An INT that also takes `word` for `word_value`, a value outside [min, max].
  const Param& declare_int_word(std::string name, int64_t default_value, std::string unit, std::string description,
                                int64_t min, int64_t max, std::string word, int64_t word_value);
  // An INT that takes only the listed values (sorted ascending).
  const Param& declare_int_choice(std::string name, int64_t default_value, std::string unit, std::string description,
                                  std::vector<int64_t> choices);
  const Param& declare_double(std::string name, double default_value, std::string unit, std::string description,
                              double min = -std::numeric_limits<double>::max(),
                              double max = std::numeric_limits<double>::max());
  const Param& declare_bool(std::string name, bool default_value, std::string description);
  const Param& declare_string(std::string name, std::string default_value, std::string description,
                              std::vector<std::string> choices = {});
  // A STRING only presets set (Param::read_only()).
  const Param& declare_label(std::string name, std::string default_value, std::string description,
                             std::vector<std::string> choices = {});

  // Sets one value in layer `source` (not DEFAULT). `origin` says where it came from, for messages and
  // the JSON. The text form parses by the declared type; the typed form accepts an int for a double.
  void set(std::string_view name, std::string_view text, Source source, std::string_view origin);
  void set_value(std::string_view name, const Value& value, Source source, std::string_view origin);
  // "name=value", as given to `--set`.
  void set_assignment(std::string_view assignment, Source source, std::string_view origin);
  // The file format above, into the FILE layer; errors name "<origin>:<line>".
  void load_file(const std::filesystem::path& path);
  void load_text(std::string_view text, std::string_view origin);
  // Drops every value of one layer (not DEFAULT).
  void clear(Source source);

  const Param& param(std::string_view name) const;  // InputError listing close names
  const Param* find(std::string_view name) const;
  std::vector<const Param*> params() const;  // sorted by name

  // {"<name>": {"value", "type", "unit", "source", "origin", "description"}, ...}, sorted by name.
  nlohmann::json to_json() const;

 private:
  Param& declare(std::string name, ParamType type, std::string unit, std::string description, Value default_value);
  Param& lookup(std::string_view name, std::string_view origin);
  static void check_range(const Param& p, const Value& v, std::string_view origin);
  static void store(Param& p, Value v, Source source, std::string_view origin);

  std::deque<Param> storage_;  // deque: references handed out stay valid as parameters are added
  std::map<std::string, Param*, std::less<>> by_name_;
};

// Hierarchical names: lower-case segments of [a-z0-9_] joined by single dots, at least two segments.
bool valid_name(std::string_view name);

// Names within a small edit distance of `name` (or sharing its last segment), closest first, at most 5.
std::vector<std::string> close_names(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace ethosu::sim
