#include "host/backends/shim_env.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "isa/validator.h"
#include "sim/error.h"

namespace ethosu::host {

namespace {

std::optional<std::string> value(const EnvLookup& getenv, const char* name) {
  const char* v = getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool flag(const EnvLookup& getenv, const char* name) {
  const auto v = value(getenv, name);
  if (!v || *v == "0") return false;
  if (*v == "1") return true;
  throw InputError(std::string(name) + "='" + *v + "': expected 0 or 1");
}

// Bytes with an optional K or M suffix (powers of 1024). The UAPI reports the SRAM size in 32 bits.
uint64_t parse_sram_size(const std::string& text) {
  const auto bad = [&] {
    return InputError("ETHOSU_SIM_SRAM_SIZE='" + text + "': expected bytes, with an optional K or M suffix");
  };
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 10) throw bad();
  uint64_t v = std::stoull(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  if (suffix == "K" || suffix == "k")
    v <<= 10;
  else if (suffix == "M" || suffix == "m")
    v <<= 20;
  else if (!suffix.empty())
    throw bad();
  if (v > 0xFFFFFFFFull)
    throw InputError("ETHOSU_SIM_SRAM_SIZE='" + text + "': more than the 32-bit sram_size the driver reports");
  return v;
}

}  // namespace

namespace {

// NXP's stack drives the i.MX 93's U65; the mainline accel/ethosu driver the U65 and the U85 (ethosu_is_u65() takes
// architecture major 1 for a U65 and anything else for a U85). No Linux driver drives a U55.
bool drives(ShimDriver driver, isa::Product p) {
  return p == isa::Product::U65 || (driver == ShimDriver::LINUX_ACCEL && p == isa::Product::U85);
}

}  // namespace

std::string shim_variant_names(ShimDriver driver) {
  std::string out;
  for (isa::Variant v : isa::variants())
    if (drives(driver, isa::architecture(v).product)) out += (out.empty() ? "" : ", ") + std::string(isa::variant_name(v));
  return out;
}

ShimSettings read_shim_settings(const EnvLookup& getenv, ShimDriver driver) {
  ShimSettings s;
  MachineRequest& r = s.request;
  r.variant = value(getenv, "ETHOSU_SIM_VARIANT");
  if (r.variant) {
    const isa::Architecture* arch = isa::find_architecture(*r.variant);
    if (!arch)
      throw InputError("ETHOSU_SIM_VARIANT='" + *r.variant + "': expected one of " + shim_variant_names(driver));
    if (!drives(driver, arch->product))
      throw InputError("ETHOSU_SIM_VARIANT='" + *r.variant + "': the " + arch->describe() + " has no " +
                       (driver == ShimDriver::NXP ? "driver in NXP's stack" : "Linux driver") +
                       "; expected one of " + shim_variant_names(driver));
  }
  r.system = value(getenv, "ETHOSU_SIM_SYSTEM");
  r.memory_mode = value(getenv, "ETHOSU_SIM_MEMORY_MODE");
  if (const auto v = value(getenv, "ETHOSU_SIM_VELA_INI"))
    for (const auto& f : split(*v, ':')) r.vela_ini.emplace_back(f);
  if (const auto v = value(getenv, "ETHOSU_SIM_CONFIG")) r.config_file = *v;
  if (const auto v = value(getenv, "ETHOSU_SIM_SET")) r.assignments = split(*v, ';');
  r.origin = "ETHOSU_SIM_SET";
  s.functional = flag(getenv, "ETHOSU_SIM_FUNCTIONAL");
  s.verbose = flag(getenv, "ETHOSU_SIM_VERBOSE");
  // Resolving now reports a bad system, file or parameter when the device is opened, not at the first job.
  const sim::Config config = [&] {
    try {
      return resolve_config(r, r.variant.value_or(isa::variant_name(isa::kDefaultVariant)));
    } catch (const InputError& e) {
      throw InputError(std::string("ETHOSU_SIM_SYSTEM/MEMORY_MODE/VELA_INI/CONFIG/SET: ") + e.what());
    }
  }();
  if (const auto v = value(getenv, "ETHOSU_SIM_SRAM_SIZE")) {
    s.sram_size_bytes = parse_sram_size(*v);
  } else {
    const int64_t bytes = config.param("mem.sram.size_bytes").as_int();
    s.sram_size_bytes = static_cast<uint64_t>(bytes < 0 ? 0 : std::min<int64_t>(bytes, 0xFFFFFFFFll));
  }
  return s;
}

const ShimSettings& shim_settings(ShimDriver driver) {
  static const ShimSettings settings =
      read_shim_settings([](const char* name) { return std::getenv(name); }, driver);
  return settings;
}

}  // namespace ethosu::host
