// A parameter struct's fields as named run-time parameters (sim/config.h), listed once, beside the model that
// uses them, as gem5's Param and VCML's property sit beside theirs.
//
// Contract: a struct lists its parameters in one member template,
//
//     struct MacTiming {
//       unsigned weight_buffer_refill_cycles = 32;
//       template <typename Fields> void fields(Fields& f) {
//         f.field("weight_buffer_refill_cycles", weight_buffer_refill_cycles, "cycles",
//                 "minimum cycles per weight-buffer load", {1, 4096});
//       }
//     };
//
// and that one list does both directions: declare_fields(config, "npu.mac", MacTiming{}) declares
// `npu.mac.weight_buffer_refill_cycles` with the struct's value as its default (elaboration; a programming error
// throws std::logic_error as Config::declare_* do), read_fields(config, "npu.mac", t) sets the fields from the
// effective values (job start). Adding a parameter is adding a field and its line. A field is an integer
// (field() with an IntRange, or choice() with the values it may take), a double (RealRange), a bool or a string
// (its choices); a nested struct with fields of its own goes under a name of its own with group(). An empty
// prefix puts the names at the top of the hierarchy.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/config.h"

namespace ethosu::sim {

// [min, max] in steps of `step` from min.
struct IntRange {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
  int64_t step = 1;
};
struct RealRange {
  double min = -std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::max();
};

// Declares the fields' parameters, their current values the defaults.
class FieldDeclarer {
 public:
  FieldDeclarer(Config& config, std::string prefix) : config_(config), prefix_(std::move(prefix)) {}

  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void field(std::string_view name, const T& value, std::string_view unit, std::string_view description,
             IntRange range) {
    config_.declare_int(path(name), static_cast<int64_t>(value), std::string(unit), std::string(description), range.min,
                        range.max, range.step);
  }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void choice(std::string_view name, const T& value, std::string_view unit, std::string_view description,
              std::vector<int64_t> choices) {
    config_.declare_int_choice(path(name), static_cast<int64_t>(value), std::string(unit), std::string(description),
                               std::move(choices));
  }
  void field(std::string_view name, const double& value, std::string_view unit, std::string_view description,
             RealRange range) {
    config_.declare_double(path(name), value, std::string(unit), std::string(description), range.min, range.max);
  }
  void field(std::string_view name, const bool& value, std::string_view description) {
    config_.declare_bool(path(name), value, std::string(description));
  }
  void field(std::string_view name, const std::string& value, std::string_view description,
             std::vector<std::string> choices) {
    config_.declare_string(path(name), value, std::string(description), std::move(choices));
  }
  template <typename S>
  void group(std::string_view name, S& s) {
    FieldDeclarer inner(config_, path(name));
    s.fields(inner);
  }

 private:
  std::string path(std::string_view name) const {
    return prefix_.empty() ? std::string(name) : prefix_ + "." + std::string(name);
  }
  Config& config_;
  std::string prefix_;
};

// Sets the fields from the parameters' effective values (checked against their ranges when they were set).
class FieldReader {
 public:
  FieldReader(const Config& config, std::string prefix) : config_(config), prefix_(std::move(prefix)) {}

  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void field(std::string_view name, T& value, std::string_view, std::string_view, IntRange) {
    value = static_cast<T>(config_.param(path(name)).as_int());
  }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void choice(std::string_view name, T& value, std::string_view, std::string_view, const std::vector<int64_t>&) {
    value = static_cast<T>(config_.param(path(name)).as_int());
  }
  void field(std::string_view name, double& value, std::string_view, std::string_view, RealRange) {
    value = config_.param(path(name)).as_double();
  }
  void field(std::string_view name, bool& value, std::string_view) { value = config_.param(path(name)).as_bool(); }
  void field(std::string_view name, std::string& value, std::string_view, const std::vector<std::string>&) {
    value = config_.param(path(name)).as_string();
  }
  template <typename S>
  void group(std::string_view name, S& s) {
    FieldReader inner(config_, path(name));
    s.fields(inner);
  }

 private:
  std::string path(std::string_view name) const {
    return prefix_.empty() ? std::string(name) : prefix_ + "." + std::string(name);
  }
  const Config& config_;
  std::string prefix_;
};

template <typename S>
void declare_fields(Config& config, std::string_view prefix, S defaults) {
  FieldDeclarer d(config, std::string(prefix));
  defaults.fields(d);
}

template <typename S>
void read_fields(const Config& config, std::string_view prefix, S& s) {
  FieldReader r(config, std::string(prefix));
  s.fields(r);
}

}  // namespace ethosu::sim
