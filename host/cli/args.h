// A small command-line parser for the ethosu-sim subcommands.
//
// Options are "--name value", "--name=value" or "-x value"; flags take no value. Unknown options,
// missing values and surplus positionals are UsageError (exit status 2).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ethosu::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;        // "--region"
  std::string short_name;  // "-o" or empty
  bool takes_value = true;
  bool repeatable = false;
};

class Args {
 public:
  Args(const std::vector<std::string>& argv, const std::vector<OptionSpec>& specs);

  bool flag(const std::string& name) const { return values_.count(name) != 0; }
  std::optional<std::string> value(const std::string& name) const;
  std::vector<std::string> values(const std::string& name) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  // Exactly `count` positionals or UsageError naming what was expected.
  void expect_positionals(size_t min, size_t max, const std::string& what) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positionals_;
};

// "N=VALUE" split at the first '='; UsageError when malformed.
std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option);
// Unsigned integer with optional K/M/G suffix (KiB units), decimal or 0x hex.
uint64_t parse_size(const std::string& text, const std::string& what);

}  // namespace ethosu::cli
