// Per-OFM-block work of the NPU's hardware blocks (MAC, WD, AO) and the bytes each block moves: the timing
// side of a kernel operation, plain C++ (no SystemC).
//
// Contract: OpWork(op, t) describes a kernel operation (CONV, DEPTHWISE, POOL, ELEMENTWISE; a DMA has no
// blocks) as its grid of OFM blocks in hardware traversal order: depth fastest, then x, then y (spec 05
// section 4). block(i) computes block i's work on demand in O(sub-kernels) time from per-column, per-row
// and per-depth-slice tables built once by the constructor, so an op with tens of thousands of blocks costs
// no vector. The SystemC platform asks for each block in order and overlaps the units itself; nothing here
// models overlap between units or memory timing.
//
// Mechanism (spec 05 sections 1, 4, 7.1, 8 and the weight order of spec 04 section 3), per core:
//  * MAC (CONV, depth-first): one cycle per OFM micro-block (2x2x8) per kernel tap per 8 IFM channels
//    (4 channels at 16 bit). Every IFM depth job is IBD = 32 (16 at 16 bit) channels wide even when the
//    IFM has fewer, because the weight stream pads depth-first jobs with zero weights to IBD.
//  * MAC (CONV, part-kernel-first): a step takes 4 taps (2 at 16 bit) x 8 IFM channels in 4 cycles per
//    micro-block; taps are padded to the step, IFM depth is clipped to a multiple of 8 (same stream rule).
//  * MAC (DEPTHWISE): a step takes 4 taps in 4 cycles (8 at 16 bit) per micro-block.
//  * Each of those steps (one weight-buffer load of 8 OFM channels) lasts at least
//    weight_buffer_refill_cycles: the double-buffered weight buffer cannot be refilled faster.
//  * MAC (POOL): max(4, taps) cycles per micro-block and sub-kernel (x2 at 16 bit); no weights.
//  * ELEMENTWISE: no MAC work; the AO does it.
//  * Kernels larger than 8x8 (dilated footprint) run as 8x8 sub-kernels, each re-reading its IFM window.
//  * Conv1D: OFM height 1 with kernel height 1 uses a 4x1 micro-block.
//  * AO: cycles per output element = max(output rate, activation rate) over the micro-blocks produced
//    (block extents rounded up to the micro-block).
//  * WD: decoded weights of the block's OFM-depth slice / WdTiming::weights_per_cycle. The MAC's refill floor
//    already serialises on the same weights, so a platform should overlap WD with MAC, not add them.
//  * Dual core (U65-512, PARALLEL_MODE = DUAL_CORE_DEPTH): core k takes OFM channels k, k+2, ...; MAC and
//    AO cycles are those of the busier core (core 0); weights and scales are fetched per core from each
//    core's stream; the IFM is read once (the DMA has one IFM channel but per-core WGT/BAS channels).
//
// Bytes: IFM/IFM2 windows are clipped to the feature map (padding is not read) and mapped back through
// 2x upscaling; NHCWB16 reads whole 16-channel bricks. Weight bytes of a block are its slice's share of the
// core's WEIGHT_LENGTH, proportional to the slice's decoded weight count (exact slice offsets would need
// decoding the bitstream; the shares of all slices sum exactly to the length). Scale bytes are 10 per OFM
// channel of the block. Weights and scales are re-fetched for every block (spec 04 section 1).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isa/operation.h"
#include "isa/validator.h"

namespace ethosu::timing {

inline constexpr unsigned kMaxCores = 2;

// Indices into AoTiming::output_cycles_per_element (spec 05 section 7.2).
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

// Each block's timing parameters, per core. All run-time values: a sweep may change any of them.
struct MacTiming {
  unsigned ublock_w = 2, ublock_h = 2, ublock_d = 8;  // OFM micro-block (elements, channels)
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
};

struct WdTiming {
  unsigned weights_per_cycle = 8;         // decoded weights per cycle into the weight buffer
  unsigned scale_bytes_per_channel = 10;  // bias/scale record the WD's scale channel reads (spec 03 section 5)
};

struct AoTiming {
  // Vela's U65-512 table is this divided by the core count.
  std::array<double, 8> output_cycles_per_element{0.625, 1.125, 0.5, 0.375, 0.5, 0.75, 0.125, 0.25};
  std::array<double, 3> activation_cycles_per_element{1.0, 0.25, 0.0};
};

// A variant's blocks together: what the per-block work below needs.
struct NpuTiming {
  unsigned cores = 1;
  MacTiming mac;
  WdTiming wd;
  AoTiming ao;
};

NpuTiming npu_timing(isa::Variant v);

// Which AO rates apply to an operation (shared by the block model and the Vela estimate).
OutputRate output_rate(const isa::Operation& op);
ActivationRate activation_rate(const isa::Operation& op);
double ao_cycles_per_element(const isa::Operation& op, const NpuTiming& t);

struct OfmBox {
  uint32_t x0 = 0, y0 = 0, c0 = 0, x1 = 0, y1 = 0, c1 = 0;  // half-open
  uint64_t elements() const { return uint64_t{x1 - x0} * (y1 - y0) * (c1 - c0); }
};

struct BlockWork {
  OfmBox ofm;
  uint64_t macs = 0;        // useful multiply-accumulates (pooling: taps accumulated), all cores
  uint64_t mac_cycles = 0;  // MAC array busy cycles of the busier core (0 for elementwise)
  uint64_t wd_cycles = 0;   // weight decoder cycles of the busier core
  uint64_t ao_cycles = 0;   // AO cycles of the busier core
  uint64_t ifm_bytes = 0;   // IFM read for this block, all sub-kernels, brick rounding included
  uint64_t ifm2_bytes = 0;
  std::array<uint64_t, kMaxCores> weight_bytes{};  // compressed weight bytes fetched, per core
  std::array<uint64_t, kMaxCores> scale_bytes{};
  uint64_t ofm_bytes = 0;
  // Longest contiguous runs (bytes) of the accesses, for the AXI model's burst splitting.
  uint32_t ifm_run_bytes = 0, ifm2_run_bytes = 0, ofm_run_bytes = 0;

  uint64_t total_weight_bytes() const { return weight_bytes[0] + weight_bytes[1]; }
  uint64_t total_scale_bytes() const { return scale_bytes[0] + scale_bytes[1]; }
};

// One 8x8 (dilated) piece of the kernel: its first undilated taps and size in taps.
struct SubKernel {
  uint32_t x = 0, y = 0, w = 0, h = 0;
  uint32_t taps() const { return w * h; }
};
std::vector<SubKernel> sub_kernels(const isa::Kernel& k, unsigned subkernel_footprint);

class OpWork {
 public:
  OpWork(const isa::Operation& op, const NpuTiming& t);

  size_t block_count() const { return size_t{nx_} * ny_ * nz_; }
  uint32_t blocks_x() const { return nx_; }
  uint32_t blocks_y() const { return ny_; }
  uint32_t blocks_z() const { return nz_; }
  OfmBox box(size_t index) const;       // traversal order: depth fastest, then x, then y
  BlockWork block(size_t index) const;  // index < block_count()
  std::vector<BlockWork> blocks() const;

  uint64_t total_macs() const { return total_macs_; }
  const std::vector<SubKernel>& subkernels() const { return subkernels_; }
  uint32_t ifm_job_depth() const { return ibd_; }  // IFM depth per CONV job (0 otherwise)

 private:
  struct Span1 {  // source IFM range for one OFM column/row range, per sub-kernel
    uint32_t lo = 0, hi = 0;
  };
  uint64_t mac_cycles(uint32_t w, uint32_t h, uint32_t core_channels) const;
  uint64_t slice_weights(unsigned core, uint32_t z) const;  // decoded weights of depth slice z
  uint64_t slice_weight_bytes(unsigned core, uint32_t z) const;

  isa::Operation op_;
  NpuTiming t_;
  uint32_t nx_ = 0, ny_ = 0, nz_ = 0;
  std::vector<SubKernel> subkernels_;
  std::vector<Span1> cols_, rows_;  // [block x or y][sub-kernel]
  uint32_t ibd_ = 0;
  unsigned cores_ = 1;
  uint32_t ub_w_ = 2, ub_h_ = 1;
  unsigned ifm_bytes_per_element_ = 1;
  double ao_rate_ = 0;
  uint64_t total_macs_ = 0;
  std::array<uint64_t, kMaxCores> stream_weights_{};  // decoded weights in each core's stream
};

}  // namespace ethosu::timing
