// WD, the weight decoders of the Ethos-U85: their timing parameters and decode rate, plain C++ (no SystemC).
// Parameterised by the configuration's architecture description (its number of standard decoders), never by its
// name.
//
// Mechanism (Vela 5.1's U85 model, ethos_u85_performance.cpp WeightDecodeCycles, hapv3/neural-compiler
// @478f864f; notes/u85/timing.md section 5; Vela uses it to choose an encoding, not in its cycle estimate):
//  * Standard format (SWD): each standard decoder delivers 8 weights per cycle, rising linearly to 32 as the zero
//    fraction of its weights rises from 50 % to 90 % (zero runs decode in one go); the configuration's decoders
//    (1, 1, 2, 4, 4) share the stream.
//  * Fast format (FWD): one fast decoder, 32 weights per cycle, 64 when the weights take fewer than 16 distinct
//    values (their codes are short enough for two per lane).
//  * 2:4 sparse streams decode at their format's rate over the weights they carry.
#pragma once

#include <cstdint>

#include "isa/architecture.h"

namespace ethosu::npu {

// What sets a weight stream's decode rate.
struct WeightStreamU85 {
  bool fast = false;          // WEIGHT_FORMAT = FWD
  double zero_fraction = 0;   // of its weights, 0..1
  uint32_t distinct_values = 256;
};

struct WdTimingU85 {
  unsigned standard_decoders = 1;
  double standard_min_weights_per_cycle = 8;  // per decoder, at or below zero_fraction_low
  double standard_max_weights_per_cycle = 32; // per decoder, at or above zero_fraction_high
  double zero_fraction_low = 0.5, zero_fraction_high = 0.9;
  double fast_weights_per_cycle = 32;
  double fast_few_values_weights_per_cycle = 64;
  uint32_t fast_few_values_below = 16;  // distinct values

  // The weight decoders of configuration `a`.
  static WdTimingU85 of(const isa::Architecture& a);

  double weights_per_cycle(const WeightStreamU85& s) const;
  // Cycles to decode `weights` weights of stream s.
  uint64_t decode_cycles(const WeightStreamU85& s, uint64_t weights) const;
};

}  // namespace ethosu::npu
