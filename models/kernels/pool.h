// Pooling kernels (03-data-semantics.md §7): MAX, AVERAGE and REDUCE_SUM, bit-exact, per OFM tile.
//
// Contract: MAX and AVERAGE map IFM channel c to OFM channel c; REDUCE_SUM sums the window over all
// ifm_depth channels into OFM channel 0 and writes no other channel. Scaling (§4.1, §7):
// - AVERAGE with any padding register set uses the hardware's own scaling: the window sum times the
//   reciprocal of the number of kernel taps inside the (upscaled) IFM (average_reciprocal), rounded
//   with the OFM round mode, in either scale mode and without OFM_SCALE. Vela 3.10 programs it in
//   per-channel mode, Vela 5's Regor in global mode with a unit OFM_SCALE.
// - Otherwise global mode scales the sum (or max) by OFM_SCALE, per-channel mode passes it unscaled.
// The caller keeps out what isa::unknown_behaviour() names (a window with no tap inside the IFM, a
// non-unit OFM_SCALE on a padded average, ...). output.ofm_type must equal ofm.layout.type.
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

// The multiplier and shift the hardware applies to the sum of `taps` > 0 elements: Vela's pooling
// scale for that kernel size (k = bit length of taps - 1, shift 31 + k, multiplier
// (2^(31+k) + 2^k) / taps). In DBL and NATURAL rounding it gives the quotient rounded half away from
// zero (TFLite's integer average pool and bilinear resize), in TRUNCATE the quotient rounded toward zero
// (kernels_pool_test checks every sum of up to 17 bits for 1..64 taps).
struct Reciprocal {
  uint32_t multiplier;
  int shift;
};
Reciprocal average_reciprocal(int taps);

void pool_tile(const PoolParams& p, const OfmTile& b, KernelScratch& s);
void pool(const PoolParams& p);

}  // namespace ethosu::kernels
