// MAC, the multiply-accumulate array: its timing parameters and its work per OFM tile, plain C++ (no
// SystemC). The MAC module (models/npu/mac/mac.h) owns one MacTiming and books this work on its unit.
//
// Mechanism (spec 05 sections 1, 4, 8 and the weight order of spec 04 section 3), per core:
//  * CONV, depth-first: one cycle per OFM micro-block per kernel tap per 8 IFM channels (4 at 16 bit). Every
//    IFM depth job is IBD = 32 (16 at 16 bit) channels wide even when the IFM has fewer, because the weight
//    stream pads depth-first jobs with zero weights to IBD.
//  * CONV, part-kernel-first: a step takes 4 taps (2 at 16 bit) x 8 IFM channels in 4 cycles per
//    micro-block; taps are padded to the step, IFM depth is clipped to a multiple of 8 (same stream rule).
//  * DEPTHWISE: a step takes 4 taps in 4 cycles (8 at 16 bit) per micro-block.
//  * Each of those steps (one weight-buffer load of 8 OFM channels) lasts at least
//    weight_buffer_refill_cycles: the double-buffered weight buffer cannot be refilled faster.
//  * POOL: max(4, taps) cycles per micro-block and sub-kernel (x2 at 16 bit); no weights.
//  * ELEMENTWISE: no MAC work; the AO does it.
//  * Kernels larger than 8x8 (dilated footprint) run as 8x8 sub-kernels.
//  * Conv1D (OFM height 1, kernel height 1) lays the micro-block out as one row (4x1 at 256 MACs).
//  * The array's width sets the micro-block, as Arm's configurations do (Vela's accelerator table): 256
//    MACs per core work on 2x2x8 OFM micro-blocks, 128 on 2x1x8, 64 on 1x1x8, 32 on 1x1x4, each OFM element
//    taking 8 IFM channels per cycle.
//  * Dual core (U65-512, PARALLEL_MODE = DUAL_CORE_DEPTH): core k takes OFM channels k, k+2, ...; a block
//    lasts as long as its busier core, which is always core 0.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isa/operation.h"
#include "models/npu/mac/mac_timing_u85.h"

namespace ethosu::npu {

inline constexpr unsigned kMaxCores = 2;
// Weight streams an operation reads: one per core on the U65, one per standard weight decoder on the U85.
inline constexpr unsigned kMaxWeightStreams = 4;

struct MacTiming {
  unsigned macs_per_core = 256;                      // 32 .. 2048: sets the micro-block (ublock())
  unsigned ifm_ublock_d = 8;                         // IFM channels per MAC dot-product lane group
  unsigned depth_first_ibd = 32;                     // IFM depth job, depth-first 8-bit (16-bit: half)
  unsigned part_kernel_ibd = 16;                     // IFM depth job, part-kernel-first
  unsigned part_kernel_taps = 4;                     // taps per part-kernel step at 8 bit (16-bit: half)
  unsigned part_kernel_step_cycles = 4;              // per micro-block and 8 IFM channels
  unsigned depthwise_taps = 4;                       // taps per depthwise step
  unsigned depthwise_step_cycles = 4;                // per micro-block (16-bit: double)
  unsigned pool_min_cycles = 4;                      // per micro-block and sub-kernel
  unsigned subkernel = 8;                            // dilated sub-kernel footprint (8x8)
  unsigned weight_buffer_refill_cycles = 32;         // minimum cycles per weight-buffer load
  // The Ethos-U85's array (command set 2), from its architecture description: its own mechanism, not the above.
  MacTimingU85 u85;

  // The OFM micro-block of an array of macs_per_core MACs (elements, channels), as Arm's configurations lay it
  // out. Throws ethosu::InputError for a width the model has no micro-block for.
  struct MicroBlock {
    unsigned w, h, d;
  };
  MicroBlock ublock() const;
  // This array with `macs` MACs per core; throws as ublock() does.
  MacTiming with_macs_per_core(unsigned macs) const;

  template <typename Fields>
  void fields(Fields& f) {
    f.choice("per_core", macs_per_core, "MACs/cycle",
             "8x8-bit MACs per cycle per core: the MAC array's OFM micro-block (256: 2x2x8, 128: 2x1x8, 64: 1x1x8, "
             "32: 1x1x4 elements; the Ethos-U85's 512, 1024, 2048: its first micro-block); the NPU still identifies "
             "as its variant",
             {32, 64, 128, 256, 512, 1024, 2048});
    f.field("weight_buffer_refill_cycles", weight_buffer_refill_cycles, "cycles",
            "minimum cycles per weight-buffer load of 8 OFM channels", {1, 4096});
  }
};

// Channels c in [c0, c1) with c % cores == core: the interleave of PARALLEL_MODE = DUAL_CORE_DEPTH.
uint32_t core_channels(unsigned core, unsigned cores, uint32_t c0, uint32_t c1);

struct OfmBox {
  uint32_t x0 = 0, y0 = 0, c0 = 0, x1 = 0, y1 = 0, c1 = 0;  // half-open
  uint32_t width() const { return x1 - x0; }
  uint32_t height() const { return y1 - y0; }
  uint64_t elements() const { return uint64_t{x1 - x0} * (y1 - y0) * (c1 - c0); }
};

// One 8x8 (dilated) piece of the kernel: its first undilated taps and size in taps.
struct SubKernel {
  uint32_t x = 0, y = 0, w = 0, h = 0;
  uint32_t taps() const { return w * h; }
};
std::vector<SubKernel> sub_kernels(const isa::Kernel& k, unsigned subkernel_footprint);

// Multiply-accumulates per OFM element of `op` as Vela counts them (pooling: taps; REDUCE_SUM: taps x channels),
// whatever the MAC array: the operation alone sets them.
uint64_t macs_per_ofm_element(const isa::Operation& op);

// The MAC's work for one kernel operation; an Ethos-U85 operation's (command set 2) by MacTimingU85, in the
// micro-block its ACC_FORMAT selects.
class MacWork {
 public:
  MacWork(const isa::Operation& op, const MacTiming& t);

  // MAC array cycles of the busier core for the block (0 for elementwise).
  uint64_t cycles(const OfmBox& box) const;
  // Useful multiply-accumulates of the block, all cores (pooling: taps accumulated; REDUCE_SUM: taps x channels).
  uint64_t macs(const OfmBox& box) const;
  uint64_t total_macs() const { return total_macs_; }
  // Accumulator elements of the busier core the block hands to the AO: its extent in whole micro-blocks.
  uint64_t ublock_elements(const OfmBox& box) const;
  // Decoded weights the MAC consumes for OFM depth slice z (block depth `op.block.depth`) on `core`, and
  // in the core's whole stream.
  uint64_t slice_weights(unsigned core, uint32_t z) const;
  uint64_t stream_weights(unsigned core) const { return stream_weights_[core]; }

  unsigned cores() const { return cores_; }
  const std::vector<SubKernel>& subkernels() const { return subkernels_; }
  uint32_t ifm_job_depth() const { return ibd_; }  // IFM depth per CONV job (0 otherwise)
  double peak_macs_per_cycle() const { return double(t_.macs_per_core) * cores_; }

 private:
  isa::Operation op_;
  MacTiming t_;
  std::vector<SubKernel> subkernels_;
  uint32_t ibd_ = 0;
  unsigned cores_ = 1;
  uint32_t ub_w_ = 2, ub_h_ = 1, ub_d_ = 8;
  MacBlockU85 u85_block(const OfmBox& box) const;

  uint64_t total_macs_ = 0;
  std::array<uint64_t, kMaxCores> stream_weights_{};
};

}  // namespace ethosu::npu
