// Pooling kernels (03-data-semantics.md §7): MAX, AVERAGE and REDUCE_SUM, bit-exact, per OFM block.
//
// Contract: MAX and AVERAGE map IFM channel c to OFM channel c; REDUCE_SUM sums the window over all
// ifm_depth channels into OFM channel 0 and writes no other channel. Scaling follows §4.1:
// in global mode the sum (or max) is scaled by OFM_SCALE; in per-channel mode MAX passes through
// unscaled and AVERAGE divides by the number of non-padding window elements, rounding half away from
// zero. output.ofm_type must equal ofm.layout.type.
#pragma once

#include <cstdint>

#include "models/kernels/conv.h"

namespace ethosu::kernels {

enum class PoolMode : uint8_t { Max = 0, Average = 1, ReduceSum = 2 };

struct PoolParams {
  PoolMode mode = PoolMode::Max;
  FeatureMap ifm;
  int32_t ifm_zero_point = 0;
  int ifm_depth = 1;  // channels summed by REDUCE_SUM; equals ofm_depth otherwise
  FeatureMap ofm;
  int ofm_width = 1, ofm_height = 1, ofm_depth = 1;
  KernelGeometry kernel;
  OutputStage output;
};

void pool_block(const PoolParams& p, const OfmBlock& b, KernelScratch& s);
void pool(const PoolParams& p);

}  // namespace ethosu::kernels
