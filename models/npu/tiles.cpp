#include "models/npu/tiles.h"

#include <algorithm>
#include <limits>

#include "sim/int_math.h"

namespace ethosu::npu {

using isa::OpKind;
namespace enums = isa::enums;
using sim::ceil_div;

namespace {

// Bytes of w x rows elements over channels [c_lo, c_hi) of fm; NHCWB16 moves whole 16-channel bricks when
// `bricks` (reads fetch them, writes strobe the channels they write inside them), the exact channels otherwise.
uint64_t box_bytes(const isa::FeatureMap& fm, uint64_t w, uint64_t rows, uint32_t c_lo, uint32_t c_hi, bool bricks) {
  const uint64_t esize = fm.element.bytes();
  uint64_t channels = c_hi - c_lo;
  if (fm.element.nhcwb16() && bricks) channels = 16 * (ceil_div(c_hi, 16) - c_lo / 16);
  return w * rows * channels * esize;
}

// Longest contiguous run of the same box, from the programmed strides.
uint32_t run_bytes(const isa::FeatureMap& fm, uint64_t w, uint64_t rows, uint32_t c_lo, uint32_t c_hi, bool bricks) {
  const int64_t esize = fm.element.bytes();
  if (w == 0 || rows == 0 || c_hi <= c_lo) return 0;
  uint64_t run = 0;
  if (fm.element.nhcwb16()) {
    const bool whole_bricks = c_lo % 16 == 0 && (c_hi % 16 == 0 || c_hi == fm.depth || bricks);
    if (!whole_bricks || fm.stride_x != 16 * esize) {
      run = (bricks ? 16 : std::min<uint32_t>(c_hi - c_lo, 16 - c_lo % 16)) * esize;
    } else {
      run = w * 16 * esize;  // one brick row
      const uint64_t nbricks = ceil_div(c_hi, 16) - c_lo / 16;
      if (w == fm.width && fm.stride_c == static_cast<int64_t>(run)) run *= nbricks;  // bricks of a row abut
    }
  } else {
    run = (c_hi - c_lo) * esize;
    if (c_lo == 0 && c_hi == fm.depth && fm.stride_x == static_cast<int64_t>(fm.depth) * esize) {
      run *= w;
      if (w == fm.width && fm.stride_y == static_cast<int64_t>(fm.width) * fm.stride_x) run *= rows;
    }
  }
  return static_cast<uint32_t>(std::min<uint64_t>(run, std::numeric_limits<uint32_t>::max()));
}

// Source IFM range read for OFM range [o0, o1) by a sub-kernel starting at dilated offset `offset` with
// dilated footprint `footprint`, clipped to the (upscaled) map and mapped back through upscaling.
struct Range {
  uint32_t lo, hi;
};
Range ifm_range(uint32_t o0, uint32_t o1, uint32_t stride, uint32_t pad, uint32_t offset, uint32_t footprint,
                int64_t upscaled_extent, unsigned upscale, uint32_t stored_extent) {
  int64_t lo = int64_t{o0} * stride - pad + offset;
  int64_t hi = int64_t{o1 - 1} * stride - pad + offset + footprint;
  lo = std::max<int64_t>(lo, 0);
  hi = std::min<int64_t>(hi, upscaled_extent);
  if (hi <= lo) return {0, 0};
  lo /= upscale;
  hi = std::min<int64_t>((hi + upscale - 1) / upscale, stored_extent);
  if (hi <= lo) return {0, 0};
  return {static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)};
}

}  // namespace

uint64_t OfmTiles::count_of(const isa::Operation& op) {
  if (!op.is_kernel()) return 0;
  const auto& b = op.block;
  return ceil_div(op.ofm.width, std::max(1u, b.width)) * ceil_div(op.ofm.height, std::max(1u, b.height)) *
         ceil_div(op.ofm.depth, std::max(1u, b.depth));
}

OfmTiles::OfmTiles(const isa::Operation& op, const MacWork& mac, const WdTiming& wd)
    : op_(op), stored_ofm_(op.ofm), mac_(mac), wd_(wd) {
  if (!op.is_kernel() || op.ofm.width == 0 || op.ofm.height == 0 || op.ofm.depth == 0) return;
  const isa::OfmCoord extents = isa::stored_ofm_extents(op);
  stored_ofm_.width = extents.x, stored_ofm_.height = extents.y, stored_ofm_.depth = extents.c;
  const auto& b = op.block;
  nx_ = static_cast<uint32_t>(ceil_div(op.ofm.width, std::max(1u, b.width)));
  ny_ = static_cast<uint32_t>(ceil_div(op.ofm.height, std::max(1u, b.height)));
  nz_ = static_cast<uint32_t>(ceil_div(op.ofm.depth, std::max(1u, b.depth)));

  isa::Kernel k = op.kernel;
  if (!op.uses_kernel()) k = isa::Kernel{};  // elementwise: stale kernel registers are ignored
  const auto& subkernels = mac.subkernels();
  const size_t ns = subkernels.size();
  const bool up = op.uses_kernel() && op.upscale != enums::ifm_upscale_mode::NONE;
  const unsigned upscale = up ? 2 : 1;
  const uint32_t stride_x = op.uses_kernel() ? k.stride_x : 1, stride_y = op.uses_kernel() ? k.stride_y : 1;
  const isa::Padding pad = op.uses_kernel() ? op.padding : isa::Padding{};
  // Per block column (row) and sub-kernel: the IFM columns (rows) it reads.
  const auto spans = [&](std::vector<Span1>& out, uint32_t blocks, uint32_t block, uint32_t ofm_extent,
                         uint32_t stride, uint32_t before, uint32_t dilation, int64_t upscaled, uint32_t stored,
                         bool horizontal) {
    out.resize(size_t{blocks} * ns);
    for (uint32_t i = 0; i < blocks; ++i) {
      const uint32_t o0 = i * block, o1 = std::min(ofm_extent, o0 + block);
      for (size_t s = 0; s < ns; ++s) {
        const auto& sk = subkernels[s];
        const uint32_t first = horizontal ? sk.x : sk.y, taps = horizontal ? sk.w : sk.h;
        const Range r =
            ifm_range(o0, o1, stride, before, first * dilation, (taps - 1) * dilation + 1, upscaled, upscale, stored);
        out[i * ns + s] = {r.lo, r.hi};
      }
    }
  };
  spans(cols_, nx_, b.width, op.ofm.width, stride_x, pad.left, k.dilation_x, op.ifm_upscaled_width, op.ifm.width, true);
  spans(rows_, ny_, b.height, op.ofm.height, stride_y, pad.top, k.dilation_y, op.ifm_upscaled_height, op.ifm.height,
        false);
}

namespace {

// floor(length * cum / total), exactly (the product can pass 2^64 only for sizes no real stream has).
uint64_t share(uint64_t length, uint64_t cum, uint64_t total) {
  uint64_t product;
  if (!__builtin_mul_overflow(length, cum, &product)) return product / total;
  return static_cast<uint64_t>(static_cast<sim::u128>(length) * cum / total);
}

// Runs of the w x rows box at columns [x0, x0 + w), rows [y0, y0 + rows) over channels [c_lo, c_hi) of fm; NHCWB16
// reads move whole 16-channel bricks (`bricks`), writes the exact channels.
void box_runs(const isa::FeatureMap& fm, uint32_t x0, uint32_t w, uint32_t y0, uint32_t rows, uint32_t c_lo,
              uint32_t c_hi, bool bricks, std::vector<ByteRun>& runs) {
  if (w == 0 || rows == 0 || c_hi <= c_lo) return;
  const uint64_t esize = fm.element.bytes();
  if (!fm.element.nhcwb16()) {
    for (uint32_t y = y0; y < y0 + rows; ++y)
      for (uint32_t x = x0; x < x0 + w; ++x)
        add_run(runs, static_cast<uint64_t>(isa::element_offset(fm, x, y, c_lo)), (c_hi - c_lo) * esize);
    return;
  }
  // Row by row, the bricks of a row in turn: the bricks of one row are contiguous in the usual layout.
  const auto brick = static_cast<uint32_t>(16 * esize);
  for (uint32_t y = y0; y < y0 + rows; ++y)
    for (uint32_t b = c_lo / 16; b < ceil_div(c_hi, 16); ++b) {
      // Reads fetch whole bricks; a write covers the brick and strobes the channels it writes.
      const uint32_t lo = bricks ? 0 : std::max(c_lo, 16 * b) - 16 * b;
      const uint32_t hi = bricks ? 16 : std::min(c_hi, 16 * (b + 1)) - 16 * b;
      const ByteRun strobes{0, 0, hi - lo < 16 ? brick : 0, static_cast<uint32_t>(lo * esize),
                            static_cast<uint32_t>(hi * esize)};
      for (uint32_t x = x0; x < x0 + w; ++x) {
        ByteRun run = strobes;
        run.offset = static_cast<uint64_t>(isa::element_offset(fm, x, y, 16 * b));
        run.bytes = brick;
        if (!run.strobe_period) run.strobe_lo = run.strobe_hi = 0;
        add_run(runs, run);
      }
    }
}

}  // namespace

void add_run(std::vector<ByteRun>& runs, const ByteRun& run) {
  if (run.bytes == 0) return;
  ByteRun* last = runs.empty() ? nullptr : &runs.back();
  if (last && last->offset + last->bytes == run.offset && last->strobe_period == run.strobe_period &&
      last->strobe_lo == run.strobe_lo && last->strobe_hi == run.strobe_hi)
    last->bytes += run.bytes;
  else
    runs.push_back(run);
}

unsigned OfmTiles::weight_streams() const {
  if (!op_.reads_weights()) return 0;
  if (!op_.v2()) return mac_.cores();
  unsigned n = 0;
  while (n < kMaxWeightStreams && op_.weights[n].length_bytes) ++n;
  return n;
}

// The U65's streams are per core, the U85's each a share of the one count MacWork gives for core 0.
uint64_t OfmTiles::slice_weight_offset(unsigned stream, uint32_t z) const {
  const unsigned core = op_.v2() ? 0 : stream;
  const uint64_t total = mac_.stream_weights(core), length = op_.weights[stream].length_bytes;
  if (total == 0 || length == 0) return 0;
  // Every slice before the last is full, so the weights before slice z are z full slices.
  return share(length, uint64_t{z} * mac_.slice_weights(core, 0), total);
}

uint64_t OfmTiles::slice_weight_bytes(unsigned stream, uint32_t z) const {
  const unsigned core = op_.v2() ? 0 : stream;
  const uint64_t total = mac_.stream_weights(core), length = op_.weights[stream].length_bytes;
  if (total == 0 || length == 0) return 0;
  const uint64_t before = uint64_t{z} * mac_.slice_weights(core, 0);
  return share(length, before + mac_.slice_weights(core, z), total) - share(length, before, total);
}

OfmBox OfmTiles::box(size_t index) const {
  const uint32_t z = static_cast<uint32_t>(index % nz_);
  const uint32_t x = static_cast<uint32_t>((index / nz_) % nx_);
  const uint32_t y = static_cast<uint32_t>(index / (size_t{nz_} * nx_));
  const auto& b = op_.block;
  OfmBox box;
  box.x0 = x * b.width;
  box.y0 = y * b.height;
  box.c0 = z * b.depth;
  box.x1 = std::min(op_.ofm.width, box.x0 + b.width);
  box.y1 = std::min(op_.ofm.height, box.y0 + b.height);
  box.c1 = std::min(op_.ofm.depth, box.c0 + b.depth);
  return box;
}

TileTraffic OfmTiles::traffic(size_t index) const {
  TileTraffic t;
  const OfmBox o = box(index);
  const uint32_t bz = static_cast<uint32_t>(index % nz_);
  const uint32_t bx = static_cast<uint32_t>((index / nz_) % nx_);
  const uint32_t by = static_cast<uint32_t>(index / (size_t{nz_} * nx_));
  const uint32_t bw = o.width(), bh = o.height();

  // IFM: a CONV reads every IFM channel, the others the block's own channels.
  const uint32_t ic0 = op_.kind == OpKind::CONV ? 0 : o.c0;
  const uint32_t ic1 = op_.kind == OpKind::CONV ? op_.ifm.depth : std::min(o.c1, op_.ifm.depth);
  const size_t ns = op_.reads_ifm() ? mac_.subkernels().size() : 0;
  for (size_t s = 0; s < ns; ++s) {
    const Span1& c = cols_[bx * ns + s];
    const Span1& r = rows_[by * ns + s];
    t.ifm_bytes += box_bytes(op_.ifm, c.hi - c.lo, r.hi - r.lo, ic0, ic1, true);
    if (s == 0) t.ifm_run_bytes = run_bytes(op_.ifm, c.hi - c.lo, r.hi - r.lo, ic0, ic1, true);
  }
  if (op_.reads_ifm2() && op_.weights_from_ifm2) {
    // MatMul: the block's OFM channels' weights, one IFM2 column each over the IFM depth.
    t.ifm2_bytes = box_bytes(op_.ifm2, o.c1 - o.c0, 1, 0, op_.ifm2.depth, true);
    t.ifm2_run_bytes = run_bytes(op_.ifm2, o.c1 - o.c0, 1, 0, op_.ifm2.depth, true);
  } else if (op_.reads_ifm2()) {
    const auto& f = op_.ifm2;
    const uint64_t iw = op_.broadcast.w ? 1 : bw, ih = op_.broadcast.h ? 1 : bh;
    const uint32_t c0 = op_.broadcast.c ? 0 : o.c0, c1 = op_.broadcast.c ? 1 : o.c1;
    t.ifm2_bytes = box_bytes(f, iw, ih, c0, c1, true);
    t.ifm2_run_bytes = run_bytes(f, iw, ih, c0, c1, true);
  }
  for (unsigned s = 0; s < weight_streams(); ++s) t.weight_bytes[s] = slice_weight_bytes(s, bz);
  const unsigned cores = mac_.cores();
  for (unsigned c = 0; c < cores && op_.reads_scales(); ++c)
    t.scale_bytes[c] = scale_run(index, c).bytes;
  if (!op_.writes_ofm()) return t;
  // A write into part of an NHCWB16 brick moves the whole brick, the other channels' byte strobes off. The block
  // writes the stored image of its box.
  const isa::OfmBox3 s = isa::stored_ofm_box(op_, {o.x0, o.x1, o.y0, o.y1, o.c0, o.c1});
  t.ofm_bytes = box_bytes(stored_ofm_, s.x1 - s.x0, s.y1 - s.y0, s.c0, s.c1, true);
  t.ofm_run_bytes = run_bytes(stored_ofm_, s.x1 - s.x0, s.y1 - s.y0, s.c0, s.c1, true);
  return t;
}

void OfmTiles::ifm_runs(size_t index, std::vector<ByteRun>& runs) const {
  runs.clear();
  const OfmBox o = box(index);
  const uint32_t bx = static_cast<uint32_t>((index / nz_) % nx_);
  const uint32_t by = static_cast<uint32_t>(index / (size_t{nz_} * nx_));
  const uint32_t ic0 = op_.kind == OpKind::CONV ? 0 : o.c0;
  const uint32_t ic1 = op_.kind == OpKind::CONV ? op_.ifm.depth : std::min(o.c1, op_.ifm.depth);
  const size_t ns = op_.reads_ifm() ? mac_.subkernels().size() : 0;
  for (size_t s = 0; s < ns; ++s) {  // a kernel over 8x8 reads its window again per sub-kernel
    const Span1& c = cols_[bx * ns + s];
    const Span1& r = rows_[by * ns + s];
    box_runs(op_.ifm, c.lo, c.hi - c.lo, r.lo, r.hi - r.lo, ic0, ic1, true, runs);
  }
}

void OfmTiles::ifm2_runs(size_t index, std::vector<ByteRun>& runs) const {
  runs.clear();
  if (!op_.reads_ifm2()) return;
  const OfmBox o = box(index);
  if (op_.weights_from_ifm2) {
    box_runs(op_.ifm2, o.c0, o.c1 - o.c0, 0, 1, 0, op_.ifm2.depth, true, runs);
    return;
  }
  const auto& b = op_.broadcast;
  box_runs(op_.ifm2, b.w ? 0 : o.x0, b.w ? 1 : o.width(), b.h ? 0 : o.y0, b.h ? 1 : o.height(), b.c ? 0 : o.c0,
           b.c ? 1 : o.c1, true, runs);
}

void OfmTiles::ofm_runs(size_t index, std::vector<ByteRun>& runs) const {
  runs.clear();
  if (!op_.writes_ofm()) return;
  const OfmBox o = box(index);
  const isa::OfmBox3 s = isa::stored_ofm_box(op_, {o.x0, o.x1, o.y0, o.y1, o.c0, o.c1});
  box_runs(stored_ofm_, s.x0, s.x1 - s.x0, s.y0, s.y1 - s.y0, s.c0, s.c1, false, runs);
}

ByteRun OfmTiles::weight_run(size_t index, unsigned stream) const {
  if (stream >= weight_streams()) return {};
  const auto z = static_cast<uint32_t>(index % nz_);
  return {op_.weights[stream].base + slice_weight_offset(stream, z), slice_weight_bytes(stream, z)};
}

ByteRun OfmTiles::scale_run(size_t index, unsigned core) const {
  const unsigned cores = mac_.cores();
  if (!op_.reads_scales() || core >= cores) return {};
  const OfmBox o = box(index);
  if (op_.v2()) {
    // One stream of records in channel order (whose size is the weight encoder's): the block's share by channels.
    const uint64_t length = op_.scales[0].length_bytes, depth = op_.ofm.depth;
    const uint64_t from = share(length, o.c0, depth);
    return {op_.scales[0].base + from, share(length, o.c1, depth) - from};
  }
  // Each core's stream holds its own channels' entries, in channel order.
  const uint64_t per_channel = wd_.scale_bytes_per_channel;
  return {op_.scales[core].base + per_channel * core_channels(core, cores, 0, o.c0),
          per_channel * core_channels(core, cores, o.c0, o.c1)};
}

}  // namespace ethosu::npu
