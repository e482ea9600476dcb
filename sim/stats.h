// Statistics: named event counters with units, grouped by component.
//
// Contract: a component asks once, at elaboration, for each of its counters with counter("mac.active",
// "cycles", "what it counts") and keeps the reference; incrementing is then a plain add with no lookup. Asking again for
// the same path with the same unit returns the same counter (so the PMU and the report read one
// number); a different unit, or a malformed path, is a programming error (std::logic_error). The
// component is the path up to its last dot (`mem.axi0` for `mem.axi0.read_bytes`). Derived figures
// (utilisation, bandwidth) are computed by the report, not stored. reset() zeroes every counter
// between jobs; references stay valid for the life of the Stats object.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ethosu::sim {

class Counter {
 public:
  Counter(std::string path, std::string unit, std::string description)
      : path_(std::move(path)), unit_(std::move(unit)), description_(std::move(description)) {}
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  void add(uint64_t n) noexcept { value_ += n; }
  Counter& operator+=(uint64_t n) noexcept {
    value_ += n;
    return *this;
  }
  Counter& operator++() noexcept {
    ++value_;
    return *this;
  }
  uint64_t value() const noexcept { return value_; }
  void reset() noexcept { value_ = 0; }

  const std::string& path() const { return path_; }
  const std::string& unit() const { return unit_; }
  const std::string& description() const { return description_; }

 private:
  uint64_t value_ = 0;
  std::string path_, unit_, description_;
};

class Stats {
 public:
  Counter& counter(std::string_view path, std::string_view unit, std::string_view description = {});
  const Counter* find(std::string_view path) const;
  std::vector<const Counter*> counters() const;  // sorted by path
  void reset() noexcept;

  // {"<component>": {"<counter>": {"value": N, "unit": "...", "description": "..."}}}, sorted.
  nlohmann::json to_json() const;

 private:
  std::deque<Counter> storage_;  // deque: references stay valid as counters are added
  std::map<std::string, Counter*, std::less<>> by_path_;
};

}  // namespace ethosu::sim
