// The OFM tiles of a kernel operation and the bytes each moves: the memory side of the per-block work,
// plain C++ (no SystemC). The units' cycles come from their own models (mac.h, wd.h, ao.h).
//
// Contract: OfmTiles(op, mac, wd) describes a kernel operation (CONV, DEPTHWISE, POOL, ELEMENTWISE; a DMA
// has no blocks) as its grid of OFM tiles in hardware traversal order: depth fastest, then x, then y
// (spec 05 section 4). traffic(i) computes block i's bytes on demand in O(sub-kernels) time from per-column,
// per-row tables built once by the constructor, so an op with tens of thousands of blocks costs no vector.
//
// Bytes: IFM/IFM2 windows are clipped to the feature map (padding is not read) and mapped back through 2x
// upscaling; kernels larger than 8x8 re-read their IFM window per sub-kernel; NHCWB16 reads whole 16-channel
// bricks. A CONV reads every IFM channel, the others their block's channels. Weight bytes of a block are its
// slice's share of the core's WEIGHT_LENGTH, proportional to the slice's decoded weight count (exact slice
// offsets would need decoding the bitstream; the shares of all slices sum exactly to the length); weights
// and scales are re-fetched for every block (spec 04 section 1), per core from each core's stream; the IFM
// is read once for both cores (the DMA has one IFM channel but per-core WGT/BAS channels). On the Ethos-U85
// each standard weight decoder's stream gives its share of every slice, the one scale stream its share by
// OFM channels, and a chained feature map (the chaining buffer) moves no bytes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "isa/operation.h"
#include "models/npu/mac/mac_timing.h"
#include "models/npu/wd/wd_timing.h"

namespace ethosu::npu {

struct TileTraffic {
  uint64_t ifm_bytes = 0;   // IFM read for this block, all sub-kernels, brick rounding included
  uint64_t ifm2_bytes = 0;
  std::array<uint64_t, kMaxWeightStreams> weight_bytes{};  // compressed weight bytes fetched, per stream
  std::array<uint64_t, kMaxCores> scale_bytes{};
  uint64_t ofm_bytes = 0;
  // Longest contiguous runs (bytes) of the accesses, for the AXI model's burst splitting.
  uint32_t ifm_run_bytes = 0, ifm2_run_bytes = 0, ofm_run_bytes = 0;

  uint64_t total_weight_bytes() const { return weight_bytes[0] + weight_bytes[1] + weight_bytes[2] + weight_bytes[3]; }
  uint64_t total_scale_bytes() const { return scale_bytes[0] + scale_bytes[1]; }
};

// Bytes at a region offset: one contiguous piece of a tile's access, for the bus (transaction mode). A write
// into part of NHCWB16 bricks moves whole bricks with byte strobes: in every `strobe_period` bytes only
// [strobe_lo, strobe_hi) are written (strobe_period 0: every byte).
struct ByteRun {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint32_t strobe_period = 0, strobe_lo = 0, strobe_hi = 0;
};

// Appends `run` to `runs`, merged into the last run when it follows it with the same strobes.
void add_run(std::vector<ByteRun>& runs, const ByteRun& run);
inline void add_run(std::vector<ByteRun>& runs, uint64_t offset, uint64_t bytes) { add_run(runs, {offset, bytes}); }

class OfmTiles {
 public:
  OfmTiles(const isa::Operation& op, const MacWork& mac, const WdTiming& wd);

  size_t count() const { return size_t{nx_} * ny_ * nz_; }
  // The number of blocks of op, without building anything (0 for a DMA).
  static uint64_t count_of(const isa::Operation& op);
  uint32_t tiles_x() const { return nx_; }
  uint32_t tiles_y() const { return ny_; }
  uint32_t tiles_z() const { return nz_; }
  OfmBox box(size_t index) const;  // traversal order: depth fastest, then x, then y
  uint32_t depth_slice(size_t index) const { return static_cast<uint32_t>(index % nz_); }
  TileTraffic traffic(size_t index) const;  // index < count()

  // Where tile `index`'s bytes are, as runs of region offsets in the order the tile moves them (row by row; NHCWB16
  // brick by brick): the same bytes traffic(index) counts (a partial brick is written as the whole brick, with
  // strobes). Replaces `runs`' contents.
  void ifm_runs(size_t index, std::vector<ByteRun>& runs) const;
  void ifm2_runs(size_t index, std::vector<ByteRun>& runs) const;
  void ofm_runs(size_t index, std::vector<ByteRun>& runs) const;
  ByteRun weight_run(size_t index, unsigned stream) const;
  ByteRun scale_run(size_t index, unsigned core) const;

 private:
  struct Span1 {  // source IFM range for one OFM column/row range, per sub-kernel
    uint32_t lo = 0, hi = 0;
  };
  uint64_t slice_weight_bytes(unsigned stream, uint32_t z) const;
  // Offset of slice z's weights in the stream.
  uint64_t slice_weight_offset(unsigned stream, uint32_t z) const;
  unsigned weight_streams() const;

  isa::Operation op_;
  // The OFM as stored (isa::stored_ofm_extents(): transposed on the U85), which the OFM writes address.
  isa::FeatureMap stored_ofm_;
  const MacWork& mac_;
  WdTiming wd_;
  uint32_t nx_ = 0, ny_ = 0, nz_ = 0;
  std::vector<Span1> cols_, rows_;  // [block x or y][sub-kernel]
};

}  // namespace ethosu::npu
