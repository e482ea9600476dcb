#include "isa/pmu_event_text.h"

#include <string>

namespace ethosu::isa {

const PmuEventInfo* pmu_event_from_text(const Architecture& arch, std::string_view text) {
  if (text.rfind("ETHOSU_PMU_", 0) == 0) text.remove_prefix(11);
  if (const PmuEventInfo* e = arch.pmu_event(text)) return e;
  // Hardware ids fit 16 bits: at most 5 digits.
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string_view::npos) return nullptr;
  const unsigned long id = std::stoul(std::string(text));
  return id <= 0xFFFF ? arch.pmu_event(static_cast<uint16_t>(id)) : nullptr;
}

}  // namespace ethosu::isa
