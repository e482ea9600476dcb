#include "models/kernels/pool.h"

#include <algorithm>
#include <cstring>

#include "models/kernels/tile_bytes.h"
#include "models/kernels/simd_loops.h"

namespace ethosu::kernels {
namespace {

// Taps of one axis that land inside the IFM (padding excluded).
int valid_taps(int o, int stride, int taps, int dilation, int pad, int extent) {
  int n = 0;
  for (int k = 0; k < taps; ++k) {
    const int u = o * stride - pad + k * dilation;
    n += u >= 0 && u < extent;
  }
  return n;
}

bool padded(const KernelGeometry& k) { return k.pad_top || k.pad_left || k.pad_bottom || k.pad_right; }

}  // namespace

Reciprocal average_reciprocal(int taps) {
  int k = 0;  // the exponent of frexp(taps - 1)
  while ((taps - 1) >> k) ++k;
  const int shift = 31 + k;
  return {static_cast<uint32_t>(((int64_t{1} << shift) + (int64_t{1} << k)) / taps), shift};
}

namespace {

// MAX and AVERAGE on 8/16-bit IFMs: int32 window accumulators, the global scale in SIMD, stores by runs.
// Same results as the general path.
void pool_narrow(const PoolParams& p, const OfmTile& b, KernelScratch& s, const IfmWindow& win) {
  const KernelGeometry& k = p.kernel;
  const OutputStage& os = p.output;
  const int nc = b.c1 - b.c0;
  const size_t lanes = (static_cast<size_t>(nc) + kRequantizeLanes - 1) / kRequantizeLanes * kRequantizeLanes;
  s.tile32.assign(2 * lanes, 0);
  int32_t* r = s.tile32.data();
  int32_t* vals = r + lanes;
  // The global scale as per-channel arrays, without accumulator saturation or clamp: only the scaling. A padded
  // average scales by its own reciprocal per pixel instead (average_reciprocal), on the scalar path.
  const bool hardware_average = p.mode == PoolMode::Average && padded(k);
  const bool scaled = !os.per_channel && !hardware_average;
  const bool vector_scale = scaled && os.shift <= 61 && os.ofm_zero_point >= -65536 && os.ofm_zero_point <= 65536;
  s.channel_params.assign(6 * lanes, 0);
  int64_t* cp = s.channel_params.data();
  std::fill(cp + lanes, cp + 2 * lanes, int64_t{os.multiplier});
  std::fill(cp + 2 * lanes, cp + 3 * lanes, int64_t{os.shift});
  std::fill(cp + 3 * lanes, cp + 4 * lanes, static_cast<int64_t>((uint64_t{1} << (os.shift & 63)) - 1));
  std::fill(cp + 4 * lanes, cp + 5 * lanes, round_addend(os.round_mode, os.shift, false));
  std::fill(cp + 5 * lanes, cp + 6 * lanes, round_addend(os.round_mode, os.shift, true));
  const RequantizeParams rq{cp, cp + lanes, cp + 2 * lanes, cp + 3 * lanes, cp + 4 * lanes, cp + 5 * lanes,
                            INT64_MIN, INT64_MAX, 0, INT32_MIN, INT32_MAX};
  const FastFinish fin(os);
  const bool max = p.mode == PoolMode::Max;
  const int32_t identity = max ? INT32_MIN : 0;  // of the reduction
  // A window of several rows and columns separates into a pass along the rows (each window row reduced for every
  // OFM column of the block) and one down the columns: kw + kh steps per element instead of kw x kh, where that
  // is less (a 13x13 window: 26 instead of 169). The same results: MAX does not depend on the order, and the
  // int32 sums cannot wrap (the caller's bound holds for every partial sum).
  const int out_w = b.x1 - b.x0, out_h = b.y1 - b.y0;
  const ptrdiff_t col_step = static_cast<ptrdiff_t>(k.dilation_x) * nc;
  const bool separate = k.width > 1 && k.height > 1 &&
                        int64_t{win.rows} * k.width + int64_t{out_h} * k.height < int64_t{out_h} * k.width * k.height;
  const ptrdiff_t row_len = static_cast<ptrdiff_t>(out_w) * nc;  // elements of one row of the row pass
  if (separate) {
    s.rows32.resize(static_cast<size_t>(win.rows) * static_cast<size_t>(row_len));
    for (int row = 0; row < win.rows; ++row)
      for (int j = 0; j < out_w; ++j) {
        int32_t* dst = s.rows32.data() + row * row_len + j * nc;
        std::fill(dst, dst + nc, identity);
        reduce_taps(s.ifm32.data() + (static_cast<ptrdiff_t>(row) * win.cols + j * k.stride_x) * nc, k.width, col_step,
                    max, dst, nc);
      }
  }
  for (int oy = b.y0; oy < b.y1; ++oy) {
    const int vy = valid_taps(oy, k.stride_y, k.height, k.dilation_y, k.pad_top, win.height);
    for (int ox = b.x0; ox < b.x1; ++ox) {
      const int count = vy * valid_taps(ox, k.stride_x, k.width, k.dilation_x, k.pad_left, win.width);
      std::fill(r, r + nc, identity);
      if (separate) {
        reduce_taps(s.rows32.data() + (oy - b.y0) * k.stride_y * row_len + (ox - b.x0) * nc, k.height,
                    k.dilation_y * row_len, max, r, nc);
      } else {
        const int32_t* a = s.ifm32.data() + ((oy - b.y0) * k.stride_y * win.cols + (ox - b.x0) * k.stride_x) * nc;
        for (int ky = 0; ky < k.height; ++ky)
          reduce_taps(a + static_cast<ptrdiff_t>(ky) * k.dilation_y * win.cols * nc, k.width, col_step, max, r, nc);
      }
      if (vector_scale && requantize_tile(r, 0, 1, nc, rq, vals, 0)) {
        fin.apply(vals, static_cast<size_t>(nc));
      } else if (!scaled && !hardware_average) {  // per-channel mode: unscaled, as on the general path
        std::copy(r, r + nc, vals);
        fin.apply(vals, static_cast<size_t>(nc));
      } else {
        // Windows without a tap inside the IFM (count 0) are refused before the kernel runs.
        const Reciprocal inv = hardware_average ? average_reciprocal(std::max(count, 1)) : Reciprocal{1, 0};
        for (int c = 0; c < nc; ++c) {
          int64_t x = r[c];
          if (hardware_average)
            x = rounded_scale(x, inv.multiplier, inv.shift, os.round_mode);
          else if (scaled)
            x = scale(os, x, os.multiplier, os.shift, false);
          vals[c] = fin(x);
        }
      }
      store_channels(p.ofm, ox, oy, b.c0, nc, vals);
    }
  }
}

// A 1x1 MAX or AVERAGE window without padding (nearest upscaling allowed) between 8-bit feature maps: each OFM
// element is a function of one IFM byte, the same for every channel (the scale is global or none), so the 256
// results are computed once with the general path's arithmetic and the block is a table lookup (or a copy, when
// the table is the identity, as for Vela's concatenations and resizes).
bool pointwise_8bit(const PoolParams& p) {
  const KernelGeometry& k = p.kernel;
  return p.mode != PoolMode::ReduceSum && k.width == 1 && k.height == 1 && !padded(k) && k.upscale != Upscale::Zeros &&
         element_size_bytes(p.ifm.layout.type) == 1 && element_size_bytes(p.output.ofm_type) == 1;
}

void pool_by_table(const PoolParams& p, const OfmTile& b, KernelScratch& s) {
  const OutputStage& os = p.output;
  const FastFinish fin(os);
  const bool is_signed = p.ifm.layout.type == DataType::Int8;
  uint8_t table[256];
  bool identity = true;
  for (int raw = 0; raw < 256; ++raw) {
    // One tap: its value is the max and the sum.
    const int64_t x = (is_signed ? int64_t{static_cast<int8_t>(raw)} : int64_t{raw}) - p.ifm_zero_point;
    table[raw] = static_cast<uint8_t>(fin(os.per_channel ? x : scale(os, x, os.multiplier, os.shift, false)));
    identity = identity && table[raw] == raw;
  }
  // The whole block is read before any of it is written, as on the general path, so an OFM overlapping the
  // IFM gets the same bytes.
  const TileBytes block(b, p.ifm.layout.layout == Layout::NHCWB16 || p.ofm.layout.layout == Layout::NHCWB16);
  s.bytes.resize(block.size());
  uint8_t* values = s.bytes.data();
  const int shift = p.kernel.upscale == Upscale::Nearest ? 1 : 0;
  block.spans(p.ifm, p.kernel.stride_x, p.kernel.stride_y, shift,
              [&](const uint8_t* map, size_t at, size_t n) { std::memcpy(values + at, map, n); });
  block.spans(p.ofm, 1, 1, 0, [&](uint8_t* map, size_t at, size_t n) {
    if (identity) {
      std::memcpy(map, values + at, n);
      return;
    }
    lookup_bytes(table, values + at, map, n);
  });
}

}  // namespace

void pool_tile(const PoolParams& p, const OfmTile& b, KernelScratch& s) {
  if (b.x0 >= b.x1 || b.y0 >= b.y1 || b.c0 >= b.c1) return;
  const KernelGeometry& k = p.kernel;
  const bool reduce = p.mode == PoolMode::ReduceSum;
  const int c0 = reduce ? 0 : b.c0;
  const int nc = reduce ? p.ifm_depth : b.c1 - b.c0;
  // REDUCE_SUM has one result per pixel: with OFM depth > 1 only channel 0 is written [I].
  const int c_end = reduce ? std::min(b.c1, 1) : b.c1;
  if (b.c0 >= c_end) return;
  // The table costs about 256 elements of the general path: smaller blocks take that instead.
  const int64_t elements = int64_t{b.x1 - b.x0} * (b.y1 - b.y0) * (b.c1 - b.c0);
  if (pointwise_8bit(p) && elements >= 256) {
    pool_by_table(p, b, s);
    return;
  }
  const IfmWindow win = tile_window(k, p.ofm_width, p.ofm_height, b, c0, nc, nc);
  // Padding never wins a max; for sums it adds nothing.
  const int32_t fill = p.mode == PoolMode::Max ? INT32_MIN : 0;
  gather_ifm<int32_t>(p.ifm, p.ifm_zero_point, win, fill, s.ifm32);
  // Narrow values minus a 16-bit zero point are below 2^17 in magnitude: 2^14 taps of them fit int32.
  const bool small_zp = p.ifm_zero_point >= -65536 && p.ifm_zero_point <= 65536;
  if (!reduce && element_size_bytes(p.ifm.layout.type) <= 2 && small_zp && int64_t{k.width} * k.height < (1 << 14)) {
    pool_narrow(p, b, s, win);
    return;
  }
  tap_offsets(k, win.cols, nc, s.taps);

  const OutputStage& os = p.output;
  const bool ifm32 = p.ifm.layout.type == DataType::Int32;
  const bool hardware_average = p.mode == PoolMode::Average && padded(k);
  const FastFinish fin(os);
  s.tile64.resize(static_cast<size_t>(nc));
  for (int oy = b.y0; oy < b.y1; ++oy) {
    const int vy = valid_taps(oy, k.stride_y, k.height, k.dilation_y, k.pad_top, win.height);
    for (int ox = b.x0; ox < b.x1; ++ox) {
      const int count = vy * valid_taps(ox, k.stride_x, k.width, k.dilation_x, k.pad_left, win.width);
      // Windows without a tap inside the IFM (count 0) are refused before the kernel runs.
      const Reciprocal inv = hardware_average ? average_reciprocal(std::max(count, 1)) : Reciprocal{1, 0};
      const int32_t* a = s.ifm32.data() + ((oy - b.y0) * k.stride_y * win.cols + (ox - b.x0) * k.stride_x) * nc;
      int64_t* r = s.tile64.data();
      if (p.mode == PoolMode::Max) {
        std::fill(r, r + nc, int64_t{INT32_MIN});
        for (int32_t t : s.taps)
          for (int c = 0; c < nc; ++c) r[c] = std::max<int64_t>(r[c], a[t + c]);
      } else {
        std::fill(r, r + nc, 0);
        for (int32_t t : s.taps)
          for (int c = 0; c < nc; ++c) r[c] += a[t + c];
      }
      if (reduce) {
        for (int c = 1; c < nc; ++c) r[0] += r[c];
      }
      uint8_t* out = p.ofm.region + p.ofm.layout.pixel_offset(ox, oy);
      for (int c = b.c0; c < c_end; ++c) {
        int64_t x = r[c - b.c0];
        if (hardware_average)
          x = rounded_scale(x, inv.multiplier, inv.shift, os.round_mode);
        else if (!os.per_channel)
          x = scale(os, x, os.multiplier, os.shift, ifm32);
        store_element(out + p.ofm.layout.channel_offset(c), os.ofm_type, fin(x));
      }
    }
  }
}

void pool(const PoolParams& p) {
  KernelScratch s;
  pool_tile(p, OfmTile{0, p.ofm_width, 0, p.ofm_height, 0, p.ofm_depth}, s);
}

}  // namespace ethosu::kernels
