// PMU events as people name them on command lines and in environment variables: Arm's pmu_ethosu.h names, with or
// without the ETHOSU_PMU_ prefix, or decimal hardware ids, of one configuration's family. The CLI, Python and the
// board recorder read them alike.
#pragma once

#include <string_view>

#include "isa/architecture.h"

namespace ethosu::isa {

// The event `text` names on `arch`, or nullptr when it names none of its family's.
const PmuEventInfo* pmu_event_from_text(const Architecture& arch, std::string_view text);

}  // namespace ethosu::isa
