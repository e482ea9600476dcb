// WD, the weight decoder: its timing parameters and its work per OFM tile, plain C++ (no SystemC). The WD
// module (models/npu/wd/wd.h) owns one WdTiming and books this work on its unit.
//
// Mechanism: the WD decodes the weights of the block's OFM-depth slice (MacWork::slice_weights) into the
// MAC's weight buffer at weights_per_cycle, as the compressed stream arrives; the MAC's refill floor
// already serialises on the same weights, so the WD overlaps the MAC. Its scale channel reads one bias and
// scale record per OFM channel of the block (spec 03 section 5).
#pragma once

#include <cstdint>

#include "isa/operation.h"
#include "models/npu/wd/wd_timing_u85.h"

namespace ethosu::npu {

struct WdTiming {
  unsigned weights_per_cycle = 8;         // decoded weights per cycle into the weight buffer
  unsigned scale_bytes_per_channel = 10;  // bias/scale record the WD's scale channel reads

  // The Ethos-U85's decoders, from its architecture description; its operations use them instead of the above.
  WdTimingU85 u85;

  uint64_t decode_cycles(uint64_t weights) const { return (weights + weights_per_cycle - 1) / weights_per_cycle; }
  // Cycles to decode `weights` weights of op's stream. On the U85 at the rate its weights give (`measured`: their
  // zero fraction and distinct values), or without them at the rate for dense weights of many values.
  uint64_t decode_cycles(const isa::Operation& op, uint64_t weights, const WeightStreamU85* measured = nullptr) const {
    if (!op.v2()) return decode_cycles(weights);
    WeightStreamU85 s;
    if (measured) s = *measured;
    s.fast = op.weight_format == isa::enums::weight_format::FWD;
    return u85.decode_cycles(s, weights);
  }

  template <typename Fields>
  void fields(Fields& f) {
    f.field("weights_per_cycle", weights_per_cycle, "weights/cycle", "weights the weight decoder delivers per cycle",
            {1, 1024});
  }
};

}  // namespace ethosu::npu
