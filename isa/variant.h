// The NPU configurations the simulator models, and what the hardware description fixes for each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ethosu_sim/isa.h"

namespace ethosu::isa {

// The public enumeration (include/ethosu_sim/isa.h) under the name the simulator's own code uses.
using ethosu_sim::parse_variant;
using ethosu_sim::Variant;
using ethosu_sim::variant_name;

struct VariantInfo {
  unsigned cores;
  unsigned shram_banks;  // 1 KiB banks per core
  unsigned lut_banks;    // reserved at the top of SHRAM on the U65 (spec 05 section 3)
  uint64_t shram_bytes() const { return uint64_t{shram_banks} * 1024; }
  unsigned usable_banks() const { return shram_banks - lut_banks; }
};
VariantInfo variant_info(Variant v);

}  // namespace ethosu::isa
