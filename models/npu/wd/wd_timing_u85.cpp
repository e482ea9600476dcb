#include "models/npu/wd/wd_timing_u85.h"

#include <algorithm>
#include <cmath>

namespace ethosu::npu {

WdTimingU85 WdTimingU85::of(const isa::Architecture& a) {
  WdTimingU85 t;
  t.standard_decoders = a.weight_decoders;
  return t;
}

double WdTimingU85::weights_per_cycle(const WeightStreamU85& s) const {
  if (s.fast)
    return s.distinct_values < fast_few_values_below ? fast_few_values_weights_per_cycle : fast_weights_per_cycle;
  const double z = std::clamp(s.zero_fraction, zero_fraction_low, zero_fraction_high);
  const double slope = (standard_max_weights_per_cycle - standard_min_weights_per_cycle) /
                       (zero_fraction_high - zero_fraction_low);
  return (standard_min_weights_per_cycle + (z - zero_fraction_low) * slope) * standard_decoders;
}

uint64_t WdTimingU85::decode_cycles(const WeightStreamU85& s, uint64_t weights) const {
  return static_cast<uint64_t>(std::ceil(static_cast<double>(weights) / weights_per_cycle(s)));
}

}  // namespace ethosu::npu
