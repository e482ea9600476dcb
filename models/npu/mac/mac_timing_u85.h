// MAC, the multiply-accumulate array of the Ethos-U85: its timing parameters and its cycles per OFM block, plain
// C++ (no SystemC). Parameterised by the configuration's architecture description (MACs, weight decoders), never
// by its name.
//
// Mechanism, per OFM block (Vela 5.1's U85 model, ethos_u85_performance.cpp EstimateMacCyclesPerBlock and
// ethos_u85.cpp FindBlockConfig, hapv3/neural-compiler @478f864f; reproduced on corpus-u85 in
// notes/u85/timing.md section 3; no hardware document gives these rates):
//  * The block is a grid of OFM micro-blocks (ACC_FORMAT.microblock, H x W x D with D = MACs / (8 H W)); each
//    micro-block position does an 8-channel dot product per OFM channel of the micro-block per cycle.
//  * Kernels are worked as 8x8 sub-kernels; a sub-kernel is done in kernel steps.
//  * CONV depth-first, vector product (fully connected, MatMul) and REDUCE_SUM: a step is one tap over the IFM
//    block depth: ceil(IFM block depth / 8) cycles per micro-block position (x2 at 16-bit IFM), repeated for every
//    IFM block depth pass over the IFM. A pass of fewer than 8 channels still takes its cycle (Vela counts it as
//    none, which only its weight-load floor hides).
//  * CONV part-kernel-first: a step is 4 taps (2 at 16 bit) x 8 IFM channels, 4 cycles per micro-block position,
//    once per 8 channels of the IFM block depth.
//  * DEPTHWISE: a step is 4 taps, 4 cycles per micro-block position (x2 at 16 bit).
//  * POOL (incl. the min/max reductions and ArgMax): max(4, taps) cycles per micro-block per sub-kernel, x IFM
//    bits / 2; no weights.
//  * Weight-load floor (all but pooling): a step lasts at least as long as the weight decoders need to deliver its
//    weights at their guaranteed rate: 32 weights per OFM channel of the micro-block, at 8 weights per cycle per
//    decoder. REDUCE_SUM has no weight stream but runs as a convolution and keeps the floor (as Vela costs it).
//  * 2:4 sparse weights halve the CONV and vector-product steps.
//  * Accumulator delay: when the block's plane is one micro-block, consecutive steps into the same accumulators
//    wait `acc_delay_cycles` (more with 48-bit accumulators on the smallest arrays): per step for a single
//    micro-block depth, per step after the first and per depth group otherwise; x 8-channel groups for
//    part-kernel-first.
//  * IFM block depth: not in the command stream, but the weight stream's order is laid out in it, so the MAC reads
//    in the depth the weight decoder's order uses (weights::u85::ifm_block_depth, Vela's rule; the decoder
//    reproduces every weight stream of corpus-u85 with it).
#pragma once

#include <array>
#include <cstdint>

#include "isa/architecture.h"

namespace ethosu::npu {

// What the MAC array does for an operation (Vela's NPU operation classes).
enum class MacOpU85 : uint8_t {
  CONV_DEPTH_FIRST,
  CONV_PART_KERNEL_FIRST,
  VECTOR_PRODUCT,  // fully connected, MatMul: 1x1 steps, never part-kernel-first
  REDUCE_SUM,      // a convolution over the IFM's channels
  DEPTHWISE,
  POOL,            // pooling, REDUCE_MIN/MAX, ArgMax
};

// One OFM block's MAC work.
struct MacBlockU85 {
  MacOpU85 op = MacOpU85::CONV_DEPTH_FIRST;
  uint32_t block_h = 1, block_w = 1, block_c = 1;  // the OFM block, clipped to the OFM
  isa::MicroBlock ublock{1, 1, 8};                  // ACC_FORMAT.microblock's (w, h, d)
  uint32_t ifm_depth = 1;                           // the whole IFM's
  unsigned ifm_bits = 8;
  uint32_t kernel_w = 1, kernel_h = 1;  // taps (undilated)
  bool acc48 = false;                   // ACC_FORMAT: 48-bit accumulators
  bool sparse = false;                  // 2:4 sparse weights
};

struct MacTimingU85 {
  unsigned macs = 256;
  unsigned weight_decoders = 1;
  // The array's micro-block for each ACC_FORMAT.microblock value; a value the configuration does not offer has its
  // first one's.
  std::array<isa::MicroBlock, 6> microblocks{};
  unsigned dot_product_depth = 8;        // IFM channels per micro-block position per cycle
  unsigned subkernel = 8;                // sub-kernel side, taps
  unsigned step_taps = 4;                // part-kernel-first (8-bit) and depthwise taps per step
  unsigned step_cycles = 4;              // per micro-block position, part-kernel-first and depthwise
  unsigned pool_min_taps = 4;
  unsigned weights_per_step = 32;        // per OFM channel of the micro-block, for the weight-load floor
  unsigned decoder_weights_per_cycle = 8;  // a decoder's guaranteed rate
  unsigned acc_delay_cycles = 2;
  unsigned acc48_delay_cycles = 3;       // on arrays of at most acc48_delay_max_macs
  unsigned acc48_delay_max_macs = 128;

  // The MAC array of configuration `a` (its MACs and weight decoders).
  static MacTimingU85 of(const isa::Architecture& a);

  // The IFM block depth the array works in for b's operation (before clipping to the IFM's depth); 0 for the
  // operations whose IFM block depth is their OFM block depth (depthwise, pooling).
  uint32_t ifm_block_depth_for(const MacBlockU85& b) const;
  // MAC array cycles for the block.
  uint64_t block_cycles(const MacBlockU85& b) const;
  isa::MicroBlock ublock(isa::enums::microblock m) const { return microblocks[static_cast<size_t>(m) % 6]; }
};

}  // namespace ethosu::npu
