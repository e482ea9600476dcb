#include "sim/stats.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/config.h"

namespace ethosu::sim {

Counter& Stats::counter(std::string_view path, std::string_view unit, std::string_view description) {
  if (auto it = by_path_.find(path); it != by_path_.end()) {
    if (it->second->unit() != unit) {
      throw std::logic_error("counter '" + std::string(path) + "' registered with units '" + it->second->unit() +
                             "' and '" + std::string(unit) + "'");
    }
    return *it->second;
  }
  if (!valid_name(path)) throw std::logic_error("invalid counter path '" + std::string(path) + "'");
  if (unit.empty()) throw std::logic_error("counter '" + std::string(path) + "' has no unit");
  Counter& c = storage_.emplace_back(std::string(path), std::string(unit), std::string(description));
  by_path_.emplace(c.path(), &c);
  return c;
}

const Counter* Stats::find(std::string_view path) const {
  auto it = by_path_.find(path);
  return it == by_path_.end() ? nullptr : it->second;
}

std::vector<const Counter*> Stats::counters() const {
  std::vector<const Counter*> out;
  out.reserve(by_path_.size());
  for (const auto& [path, c] : by_path_) out.push_back(c);
  return out;
}

void Stats::reset() noexcept {
  for (Counter& c : storage_) c.reset();
}

nlohmann::json Stats::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [path, c] : by_path_) {
    const size_t dot = path.rfind('.');
    out[path.substr(0, dot)][path.substr(dot + 1)] = {
        {"value", c->value()}, {"unit", c->unit()}, {"description", c->description()}};
  }
  return out;
}

}  // namespace ethosu::sim
