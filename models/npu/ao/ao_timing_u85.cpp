#include "models/npu/ao/ao_timing_u85.h"

#include <algorithm>
#include <cmath>

namespace ethosu::npu {

OutputRateU85 output_rate(const AoOutputU85& q) {
  if (q.divide) return OutputRateU85::DIVIDE;
  if (q.to_chaining_buffer && (q.ofm_bits == 32 || q.ifm_bits == 32)) return OutputRateU85::CHAINED;
  if (q.ofm_bits == 64) return OutputRateU85::B64;
  if (q.binary_elementwise && q.ifm_bits == 32)
    return q.ofm_bits == 32 ? OutputRateU85::BINARY_32BIT : OutputRateU85::CHAINED;
  if (q.ofm_bits == 32) return OutputRateU85::B32;
  if (q.ofm_bits == 16) return OutputRateU85::B16;
  return OutputRateU85::B8;
}

AoTimingU85 AoTimingU85::of(const isa::Architecture& a) {
  AoTimingU85 t;
  std::copy_n(a.output_cycles_per_element.begin(), t.output_cycles_per_element.size(),
              t.output_cycles_per_element.begin());
  t.activation_cycles_per_element = a.activation_cycles_per_element[0];
  t.transposed_activation_cycles_per_element = a.activation_cycles_per_element[1];
  return t;
}

double AoTimingU85::cycles_per_element(const AoOutputU85& q) const {
  const double activation = q.transposed ? transposed_activation_cycles_per_element : activation_cycles_per_element;
  const OutputRateU85 r = output_rate(q);
  const double output =
      r == OutputRateU85::DIVIDE ? divide_cycles_per_element : output_cycles_per_element[static_cast<size_t>(r)];
  return std::max(output, activation);
}

uint64_t AoTimingU85::cycles(const AoOutputU85& q, uint64_t elements) const {
  return static_cast<uint64_t>(std::ceil(cycles_per_element(q) * static_cast<double>(elements)));
}

}  // namespace ethosu::npu
