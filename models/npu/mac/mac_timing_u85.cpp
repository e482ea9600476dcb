#include "models/npu/mac/mac_timing_u85.h"

#include <algorithm>

#include "models/kernels/weights/weight_decoder_u85.h"
#include "sim/int_math.h"

namespace ethosu::npu {

using sim::ceil_div;

MacTimingU85 MacTimingU85::of(const isa::Architecture& a) {
  MacTimingU85 t;
  t.macs = a.macs();
  t.weight_decoders = a.weight_decoders;
  t.microblocks.fill(a.microblocks.empty() ? a.ofm_ublock : a.microblocks.front().second);
  for (const auto& [value, ublock] : a.microblocks) t.microblocks[static_cast<size_t>(value) % 6] = ublock;
  return t;
}

uint32_t MacTimingU85::ifm_block_depth_for(const MacBlockU85& b) const {
  if (b.op == MacOpU85::DEPTHWISE || b.op == MacOpU85::POOL) return 0;
  weights::u85::Layout l;
  l.part_kernel_first = b.op == MacOpU85::CONV_PART_KERNEL_FIRST;
  l.ifm_bits = static_cast<int>(b.ifm_bits);
  l.ofm_ublock_depth = static_cast<int>(b.ublock.d);
  l.macs = static_cast<int>(macs);
  l.sparse = b.sparse;
  return static_cast<uint32_t>(weights::u85::ifm_block_depth(l));
}

uint64_t MacTimingU85::block_cycles(const MacBlockU85& b) const {
  const uint64_t n_h = ceil_div(b.block_h, b.ublock.h), n_w = ceil_div(b.block_w, b.ublock.w);
  const uint64_t n_c = ceil_div(b.block_c, b.ublock.d);
  const uint64_t n_plane = n_h * n_w;
  const uint64_t bytes_per_element = std::max(1u, b.ifm_bits / 8);
  const uint64_t load_floor = b.op == MacOpU85::POOL ? 0
                                                     : uint64_t{weights_per_step} * b.ublock.d /
                                                           (uint64_t{decoder_weights_per_cycle} * weight_decoders);
  const uint32_t ibd_rule = ifm_block_depth_for(b);
  const uint64_t ibd = ibd_rule ? std::min(b.ifm_depth, ibd_rule) : 0;
  const uint64_t lane_groups = ibd ? ceil_div(ibd, dot_product_depth) : 0;
  const uint64_t delay_unit = b.acc48 && macs <= acc48_delay_max_macs ? acc48_delay_cycles : acc_delay_cycles;
  const uint64_t sparse_div = b.sparse ? 2 : 1;

  uint64_t total = 0;
  for (uint32_t x = 0; x < b.kernel_w; x += subkernel) {
    for (uint32_t y = 0; y < b.kernel_h; y += subkernel) {
      const uint64_t taps = uint64_t{std::min(subkernel, b.kernel_w - x)} * std::min(subkernel, b.kernel_h - y);
      uint64_t steps = 0, cycles = 0;
      switch (b.op) {
        case MacOpU85::POOL:
          steps = 1;
          cycles = std::max<uint64_t>(pool_min_taps, taps) * n_plane * n_c * (b.ifm_bits / 2);
          break;
        case MacOpU85::DEPTHWISE:
          steps = ceil_div(taps, step_taps);
          cycles = std::max(load_floor, step_cycles * n_plane * bytes_per_element) * steps * n_c;
          break;
        case MacOpU85::CONV_PART_KERNEL_FIRST:
          steps = ceil_div(taps, b.ifm_bits == 16 ? step_taps / 2 : step_taps);
          cycles = std::max(load_floor, step_cycles * n_plane) * steps * n_c * lane_groups / sparse_div;
          break;
        default:  // depth-first convolution, vector product, REDUCE_SUM
          steps = taps;
          cycles = std::max(load_floor, lane_groups * n_plane) * steps * n_c * bytes_per_element / sparse_div;
          break;
      }
      // With one micro-block in the plane there is nothing to interleave between steps into the same accumulators.
      uint64_t delay = 0;
      if (n_plane == 1) {
        if (n_c == 1)
          delay = delay_unit * steps;
        else if (steps > 1)
          delay = delay_unit * (steps - 1) * n_c;
      }
      if (b.op == MacOpU85::CONV_PART_KERNEL_FIRST) delay *= lane_groups;
      total += cycles + delay;
    }
  }
  // The operations with an IFM block depth of their own do the whole block again for each pass over the IFM.
  if (ibd) total *= ceil_div(b.ifm_depth, ibd);
  return total;
}

}  // namespace ethosu::npu
