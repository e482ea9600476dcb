// The NPU configurations the simulator models, and what the hardware description fixes for each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ethosu::isa {

enum class Variant : uint8_t { U65_256, U65_512 };

struct VariantInfo {
  unsigned cores;
  unsigned shram_banks;  // 1 KiB banks per core
  unsigned lut_banks;    // reserved at the top of SHRAM on the U65 (spec 05 section 3)
  uint64_t shram_bytes() const { return uint64_t{shram_banks} * 1024; }
  unsigned usable_banks() const { return shram_banks - lut_banks; }
};
VariantInfo variant_info(Variant v);
std::optional<Variant> parse_variant(const std::string& name);  // "ethos-u65-256", "ethos-u65-512"
const char* variant_name(Variant v);

}  // namespace ethosu::isa
