// AO, the activation and output unit of the Ethos-U85: its timing parameters and its cycles per element, plain
// C++ (no SystemC). Parameterised by the configuration's architecture description (its rates), never by its name.
//
// Mechanism (Vela 5.1's U85 model, ethos_u85_performance.cpp GetOutputCyclesPerElement,
// GetActivationCyclesPerElement and EstimateAOCyclesPerElement, rates from s_EthosU85PerfInfo in ethos_u85.cpp,
// hapv3/neural-compiler @478f864f; notes/u85/timing.md section 2): the AO writes each output element at the
// output rate of its width, and runs the operation's activation (clamp, LUT) and the OFM's transpose or reverse
// in the same pass, at the activation rate; an element costs the slower of the two. The output rate, first match:
//  * DIV: 33 cycles per element on every configuration (the iterative divider);
//  * OFM into the chaining buffer with a 32-bit IFM or OFM: the chained rate;
//  * 64-bit OFM; binary elementwise with 32-bit IFMs (32-bit OFM: the 32-bit binary rate, else the chained rate);
//  * else by OFM width: 32, 16, 8 bits.
// The activation rate halves (the transposed rate) for an OFM transposed between H and W or reversed in W.
// Elementwise operations are AO work alone: the same rates over the OFM elements. A standalone activation (a LUT
// on a no-op pooling) is an operation like any other here, at its output rate; Vela costs it at the activation
// rate alone, half the 16-bit output rate on the 1024 and 2048.
#pragma once

#include <array>
#include <cstdint>

#include "isa/architecture.h"

namespace ethosu::npu {

// Indices into AoTimingU85::output_cycles_per_element, in the order of the architecture description's table.
enum class OutputRateU85 : uint8_t { B8 = 0, B16 = 1, B32 = 2, B64 = 3, CHAINED = 4, BINARY_32BIT = 5, DIVIDE = 6 };

// What sets an operation's AO rate.
struct AoOutputU85 {
  unsigned ifm_bits = 8, ofm_bits = 8;
  bool binary_elementwise = false;  // elementwise with an IFM2 (not a scalar one)
  bool divide = false;              // elementwise DIV
  bool to_chaining_buffer = false;  // OFM chained to the next operation, not written to memory
  bool transposed = false;          // OFM transposed between H and W, or reversed in W
};

OutputRateU85 output_rate(const AoOutputU85& q);

struct AoTimingU85 {
  std::array<double, 6> output_cycles_per_element{0.25, 0.25, 0.25, 0.5, 0.5, 0.5};  // by OutputRateU85
  double divide_cycles_per_element = 33.0;
  double activation_cycles_per_element = 0.25;
  double transposed_activation_cycles_per_element = 0.5;

  // The output unit of configuration `a` (its rates).
  static AoTimingU85 of(const isa::Architecture& a);

  double cycles_per_element(const AoOutputU85& q) const;
  // AO cycles for `elements` output elements.
  uint64_t cycles(const AoOutputU85& q, uint64_t elements) const;
};

}  // namespace ethosu::npu
