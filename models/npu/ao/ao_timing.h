// AO, the activation and output unit: its timing parameters and its work per OFM tile, plain C++ (no
// SystemC). The AO module (models/npu/ao/ao.h) owns one AoTiming and books this work on its unit.
//
// Mechanism (spec 05 section 7.2): cycles per output element = max(output rate, activation rate), over the
// accumulator elements the MAC hands over (the block in whole micro-blocks, MacWork::ublock_elements); an
// elementwise operation's elements come from the input buffer with the same rounding. The rates are per
// core; Vela's U65-512 table is this one divided by the core count.
#pragma once

#include <array>
#include <cstdint>

#include "isa/operation.h"
#include "models/npu/ao/ao_timing_u85.h"

namespace ethosu::npu {

// Indices into AoTiming::output_cycles_per_element.
enum class OutputRate : uint8_t {
  ELEMENTWISE_32BIT_BINARY = 0,
  ELEMENTWISE_32BIT_UNARY = 1,
  MUL_32BIT_OFM = 2,
  MUL_OR_ACC40 = 3,
  SIMPLE_ADD_SUB = 4,
  ADD_SUB = 5,
  MAX_POOL = 6,
  OTHER = 7,
};
// Indices into AoTiming::activation_cycles_per_element.
enum class ActivationRate : uint8_t { LUT_SIGMOID_TANH = 0, RELU = 1, NONE = 2 };

OutputRate output_rate(const isa::Operation& op);
ActivationRate activation_rate(const isa::Operation& op);
// What sets an Ethos-U85 operation's (command set 2) output rate.
AoOutputU85 ao_output_u85(const isa::Operation& op);

struct AoTiming {
  std::array<double, 8> output_cycles_per_element{0.625, 1.125, 0.5, 0.375, 0.5, 0.75, 0.125, 0.25};
  std::array<double, 3> activation_cycles_per_element{1.0, 0.25, 0.0};
  // The Ethos-U85's output unit, from its architecture description; its operations use it instead of the above.
  AoTimingU85 u85;

  double cycles_per_element(const isa::Operation& op) const;
  // AO cycles for `elements` accumulator elements of op.
  uint64_t cycles(const isa::Operation& op, uint64_t elements) const;
};

}  // namespace ethosu::npu
