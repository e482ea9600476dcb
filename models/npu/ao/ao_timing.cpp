#include "models/npu/ao/ao_timing.h"

#include <algorithm>
#include <cmath>

namespace ethosu::npu {

using isa::OpKind;
namespace enums = isa::enums;

OutputRate output_rate(const isa::Operation& op) {
  using M = enums::elementwise_mode;
  const bool ew = op.kind == OpKind::ELEMENTWISE;
  if (ew && op.ifm.element.bits() == 32)
    return op.uses_ifm2() ? OutputRate::ELEMENTWISE_32BIT_BINARY : OutputRate::ELEMENTWISE_32BIT_UNARY;
  const bool mul = ew && op.elementwise_mode == M::MUL;
  if (mul && op.ofm.element.bits() == 32) return OutputRate::MUL_32BIT_OFM;
  if (mul || (!ew && op.acc_format == enums::acc_format::I40)) return OutputRate::MUL_OR_ACC40;
  if (ew && (op.elementwise_mode == M::ADD || op.elementwise_mode == M::SUB)) return OutputRate::ADD_SUB;
  if (op.kind == OpKind::POOL && op.pooling_mode == enums::pooling_mode::MAX) return OutputRate::MAX_POOL;
  return OutputRate::OTHER;
}

ActivationRate activation_rate(const isa::Operation& op) {
  using F = enums::activation_function;
  if (op.activation.function != F::RELU) return ActivationRate::LUT_SIGMOID_TANH;  // TANH, SIGMOID, TABLE_n
  // RELU is the clamp every op has; it costs AO time only when it actually narrows the OFM range.
  const unsigned bits = std::min(op.ofm.element.bits(), 16u);
  const int32_t lo = op.ofm.element.is_signed() ? -(1 << (bits - 1)) : 0;
  const int32_t hi = op.ofm.element.is_signed() ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  const int32_t act_lo = bits == 16 && !op.ofm.element.is_signed() ? op.activation.min & 0xFFFF : op.activation.min;
  const int32_t act_hi = bits == 16 && !op.ofm.element.is_signed() ? op.activation.max & 0xFFFF : op.activation.max;
  return (act_lo > lo || act_hi < hi) ? ActivationRate::RELU : ActivationRate::NONE;
}

AoOutputU85 ao_output_u85(const isa::Operation& op) {
  using T = enums::activation_transpose;
  AoOutputU85 q;
  q.ifm_bits = op.ifm.element.bits();
  q.ofm_bits = op.ofm.element.bits();
  q.binary_elementwise = op.uses_ifm2();
  q.divide = op.kind == OpKind::ELEMENTWISE && op.elementwise_mode == enums::elementwise_mode::DIV;
  q.to_chaining_buffer = op.ofm.chained();
  // The transposes that swap H and W (output orders W-first), and a reversed W.
  q.transposed = op.transpose == T::WHC || op.transpose == T::WCH || op.transpose == T::CWH ||
                 op.reverse == enums::activation_reverse::W;
  return q;
}

double AoTiming::cycles_per_element(const isa::Operation& op) const {
  if (op.v2()) return u85.cycles_per_element(ao_output_u85(op));
  return std::max(output_cycles_per_element[static_cast<size_t>(output_rate(op))],
                  activation_cycles_per_element[static_cast<size_t>(activation_rate(op))]);
}

uint64_t AoTiming::cycles(const isa::Operation& op, uint64_t elements) const {
  return static_cast<uint64_t>(std::ceil(cycles_per_element(op) * static_cast<double>(elements)));
}

}  // namespace ethosu::npu
