#include "isa/variant.h"

namespace ethosu::isa {

VariantInfo variant_info(Variant v) {
  // Both U65 variants have 48 x 1 KiB banks per core with the LUT in the top two (spec 05 sections 1, 3).
  return v == Variant::U65_512 ? VariantInfo{2, 48, 2} : VariantInfo{1, 48, 2};
}

}  // namespace ethosu::isa

namespace ethosu_sim {

std::optional<Variant> parse_variant(const std::string& name) {
  if (name == variant_name(Variant::U65_256)) return Variant::U65_256;
  if (name == variant_name(Variant::U65_512)) return Variant::U65_512;
  return std::nullopt;
}

const char* variant_name(Variant v) { return v == Variant::U65_512 ? "ethos-u65-512" : "ethos-u65-256"; }

}  // namespace ethosu_sim
