// WD, the weight decoder: its timing parameters and its work per OFM tile, plain C++ (no SystemC). The WD
// module (models/npu/wd/wd.h) owns one WdTiming and books this work on its unit.
//
// Mechanism: the WD decodes the weights of the block's OFM-depth slice (MacWork::slice_weights) into the
// MAC's weight buffer at weights_per_cycle, as the compressed stream arrives; the MAC's refill floor
// already serialises on the same weights, so the WD overlaps the MAC. Its scale channel reads one bias and
// scale record per OFM channel of the block (spec 03 section 5).
#pragma once

#include <cstdint>

namespace ethosu::npu {

struct WdTiming {
  unsigned weights_per_cycle = 8;         // decoded weights per cycle into the weight buffer
  unsigned scale_bytes_per_channel = 10;  // bias/scale record the WD's scale channel reads

  uint64_t decode_cycles(uint64_t weights) const { return (weights + weights_per_cycle - 1) / weights_per_cycle; }

  template <typename Fields>
  void fields(Fields& f) {
    f.field("weights_per_cycle", weights_per_cycle, "weights/cycle", "weights the weight decoder delivers per cycle",
            {1, 1024});
  }
};

}  // namespace ethosu::npu
