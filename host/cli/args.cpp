#include "host/cli/args.h"

#include <cerrno>
#include <cstdlib>

namespace ethosu::cli {

Args::Args(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs) {
  auto find = [&](const std::string& n) -> const OptionSpec* {
    for (const auto& s : specs)
      if (s.name == n || (!s.short_name.empty() && s.short_name == n)) return &s;
    return nullptr;
  };
  bool only_positionals = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (only_positionals || a.size() < 2 || a[0] != '-') {
      positionals_.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positionals = true;
      continue;
    }
    std::string name = a, val;
    bool has_inline = false;
    if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = a.substr(0, eq);
      val = a.substr(eq + 1);
      has_inline = true;
    }
    const OptionSpec* spec = find(name);
    if (!spec) throw UsageError("unknown option '" + name + "'");
    if (!spec->repeatable && values_.count(spec->name)) throw UsageError("option " + spec->name + " given twice");
    if (spec->takes_value) {
      if (!has_inline) {
        if (i + 1 >= argv.size()) throw UsageError("option " + spec->name + " needs a value");
        val = argv[++i];
      }
      values_[spec->name].push_back(val);
    } else {
      if (has_inline) throw UsageError("option " + spec->name + " takes no value");
      values_[spec->name];
    }
  }
}

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Args::values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

void Args::expect_positionals(size_t min, size_t max, const std::string& what) const {
  if (positionals_.size() < min) throw UsageError("missing " + what);
  if (positionals_.size() > max) throw UsageError("unexpected argument '" + positionals_[max] + "'");
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(option + " expects N=VALUE, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

uint64_t parse_size(const std::string& text, const std::string& what) {
  if (text.empty() || text[0] == '-') throw UsageError(what + ": '" + text + "' is not a size");
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  uint64_t mult = 1;
  std::string suffix(end);
  if (suffix == "K" || suffix == "k" || suffix == "KiB") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") mult = 1ull << 30;
  else if (!suffix.empty()) throw UsageError(what + ": '" + text + "' is not a size");
  if (errno || end == text.c_str() || v > (~0ull) / mult) throw UsageError(what + ": '" + text + "' is not a size");
  return v * mult;
}

}  // namespace ethosu::cli
