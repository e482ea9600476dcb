#include "models/timing/block_work.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/int_math.h"

namespace ethosu::timing {

using isa::OpKind;
namespace enums = isa::enums;

namespace {

using sim::ceil_div;
using sim::round_up;

// Channels c in [c0, c1) with c % cores == core: the interleave of PARALLEL_MODE = DUAL_CORE_DEPTH.
uint32_t core_channels(unsigned core, unsigned cores, uint32_t c0, uint32_t c1) {
  auto below = [&](uint32_t c) { return c <= core ? 0u : (c - core + cores - 1) / cores; };
  return below(c1) - below(c0);
}

bool is_16bit(const isa::ElementType& e) { return e.bits() == 16; }

// Bytes of w x rows elements over channels [c_lo, c_hi) of fm; NHCWB16 moves whole 16-channel bricks when
// `bricks` (reads) and the exact channels otherwise (writes use byte strobes inside a brick).
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

NpuTiming npu_timing(isa::Variant v) {
  NpuTiming t;
  t.cores = isa::variant_info(v).cores;
  return t;
}

OutputRate output_rate(const isa::Operation& op) {
  using M = enums::elementwise_mode;
  const bool ew = op.kind == OpKind::ELEMENTWISE;
  if (ew && op.ifm.element.bits() == 32)
    return op.uses_ifm2() ? OutputRate::ELEMENTWISE_32BIT_BINARY : OutputRate::ELEMENTWISE_32BIT_UNARY;
  const bool mul = ew && op.elementwise_mode == M::MUL;
  if (mul && op.ofm.element.bits() == 32) return OutputRate::MUL_32BIT_OFM;
  if (mul || (!ew && op.acc_format == enums::acc_format::I40)) return OutputRate::MUL_OR_ACC40;
  if (ew && (op.elementwise_mode == M::ADD || op.elementwise_mode == M::SUB)) return OutputRate::ADD_SUB;
  if (op.kind == OpKind::POOL && op.pooling_mode == enums::pooling_mode::MAX) return OutputRate::MAX_POOL;
  return OutputRate::OTHER;
}

ActivationRate activation_rate(const isa::Operation& op) {
  using F = enums::activation_function;
  if (op.activation.function != F::RELU) return ActivationRate::LUT_SIGMOID_TANH;  // TANH, SIGMOID, TABLE_n
  // RELU is the clamp every op has; it costs AO time only when it actually narrows the OFM range.
  const unsigned bits = std::min(op.ofm.element.bits(), 16u);
  const int32_t lo = op.ofm.element.is_signed() ? -(1 << (bits - 1)) : 0;
  const int32_t hi = op.ofm.element.is_signed() ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  const int32_t act_lo = bits == 16 && !op.ofm.element.is_signed() ? op.activation.min & 0xFFFF : op.activation.min;
  const int32_t act_hi = bits == 16 && !op.ofm.element.is_signed() ? op.activation.max & 0xFFFF : op.activation.max;
  return (act_lo > lo || act_hi < hi) ? ActivationRate::RELU : ActivationRate::NONE;
}

double ao_cycles_per_element(const isa::Operation& op, const NpuTiming& t) {
  return std::max(t.ao.output_cycles_per_element[static_cast<size_t>(output_rate(op))],
                  t.ao.activation_cycles_per_element[static_cast<size_t>(activation_rate(op))]);
}

std::vector<SubKernel> sub_kernels(const isa::Kernel& k, unsigned footprint) {
  // An 8x8 dilated footprint holds 8/dilation undilated taps per axis (spec 04 section 3).
  const uint32_t skw = std::max(1u, footprint / std::max(1u, k.dilation_x));
  const uint32_t skh = std::max(1u, footprint / std::max(1u, k.dilation_y));
  std::vector<SubKernel> out;
  for (uint32_t y = 0; y < k.height; y += skh)
    for (uint32_t x = 0; x < k.width; x += skw) out.push_back({x, y, std::min(skw, k.width - x), std::min(skh, k.height - y)});
  return out;
}

OpWork::OpWork(const isa::Operation& op, const NpuTiming& t) : op_(op), t_(t) {
  if (!op.is_kernel() || op.ofm.width == 0 || op.ofm.height == 0 || op.ofm.depth == 0) return;
  const auto& b = op.block;
  nx_ = static_cast<uint32_t>(ceil_div(op.ofm.width, std::max(1u, b.width)));
  ny_ = static_cast<uint32_t>(ceil_div(op.ofm.height, std::max(1u, b.height)));
  nz_ = static_cast<uint32_t>(ceil_div(op.ofm.depth, std::max(1u, b.depth)));
  cores_ = std::min(op.cores(), kMaxCores);
  ifm_bytes_per_element_ = op.ifm.element.bytes();
  ao_rate_ = ao_cycles_per_element(op, t);

  const bool conv1d = op.uses_kernel() && op.ofm.height == 1 && op.kernel.height == 1;
  ub_w_ = conv1d ? t.mac.ublock_w * t.mac.ublock_h : t.mac.ublock_w;
  ub_h_ = conv1d ? 1 : t.mac.ublock_h;

  isa::Kernel k = op.kernel;
  if (!op.uses_kernel()) k = isa::Kernel{};  // elementwise: stale kernel registers are ignored
  subkernels_ = sub_kernels(k, t.mac.subkernel);
  const size_t ns = subkernels_.size();

  const bool up = op.uses_kernel() && op.upscale != enums::ifm_upscale_mode::NONE;
  const unsigned upscale = up ? 2 : 1;
  const uint32_t stride_x = op.uses_kernel() ? k.stride_x : 1, stride_y = op.uses_kernel() ? k.stride_y : 1;
  const isa::Padding pad = op.uses_kernel() ? op.padding : isa::Padding{};
  cols_.resize(size_t{nx_} * ns);
  rows_.resize(size_t{ny_} * ns);
  for (uint32_t bx = 0; bx < nx_; ++bx) {
    const uint32_t x0 = bx * b.width, x1 = std::min(op.ofm.width, x0 + b.width);
    for (size_t s = 0; s < ns; ++s) {
      const auto& sk = subkernels_[s];
      const Range r = ifm_range(x0, x1, stride_x, pad.left, sk.x * k.dilation_x, (sk.w - 1) * k.dilation_x + 1,
                                op.ifm_upscaled_width, upscale, op.ifm.width);
      cols_[bx * ns + s] = {r.lo, r.hi};
    }
  }
  for (uint32_t by = 0; by < ny_; ++by) {
    const uint32_t y0 = by * b.height, y1 = std::min(op.ofm.height, y0 + b.height);
    for (size_t s = 0; s < ns; ++s) {
      const auto& sk = subkernels_[s];
      const Range r = ifm_range(y0, y1, stride_y, pad.top, sk.y * k.dilation_y, (sk.h - 1) * k.dilation_y + 1,
                                op.ifm_upscaled_height, upscale, op.ifm.height);
      rows_[by * ns + s] = {r.lo, r.hi};
    }
  }

  const bool b16 = is_16bit(op.ifm.element);
  if (op.kind == OpKind::CONV) {
    const bool pk = op.kernel.weight_order == enums::weight_order::PART_KERNEL_FIRST;
    ibd_ = pk ? t.mac.part_kernel_ibd : (b16 ? t.mac.depth_first_ibd / 2 : t.mac.depth_first_ibd);
  }
  for (unsigned c = 0; c < cores_; ++c)
    for (uint32_t z = 0; z < nz_; ++z) stream_weights_[c] += slice_weights(c, z);

  const uint64_t taps = uint64_t{k.width} * k.height;
  const uint64_t ofm_elems = uint64_t{op.ofm.width} * op.ofm.height * op.ofm.depth;
  if (op.kind == OpKind::CONV) total_macs_ = ofm_elems * taps * op.ifm.depth;
  else if (op.kind == OpKind::DEPTHWISE || op.kind == OpKind::POOL) total_macs_ = ofm_elems * taps;
}

uint64_t OpWork::slice_weights(unsigned core, uint32_t z) const {
  if (!op_.reads_weights()) return 0;
  // Per-core channel count and block depth of the interleaved split (spec 04 section 1).
  const uint64_t o = core_channels(core, cores_, 0, op_.ofm.depth);
  const uint64_t obd = core_channels(core, cores_, 0, op_.block.depth);
  if (obd == 0 || uint64_t{z} * obd >= o) return 0;
  const uint64_t ofm = round_up(std::min(obd, o - uint64_t{z} * obd), t_.mac.ublock_d);
  uint64_t per_ofm = 0;
  const bool b16 = is_16bit(op_.ifm.element);
  if (op_.kind == OpKind::DEPTHWISE) {
    for (const auto& s : subkernels_) per_ofm += round_up(s.taps(), t_.mac.depthwise_taps);
  } else if (op_.kernel.weight_order == enums::weight_order::PART_KERNEL_FIRST) {
    const unsigned tg = b16 ? t_.mac.part_kernel_taps / 2 : t_.mac.part_kernel_taps;
    for (const auto& s : subkernels_) per_ofm += round_up(s.taps(), tg);
    per_ofm *= round_up(op_.ifm.depth, t_.mac.ifm_ublock_d);  // IBD is a multiple of 8: jobs clip to 8s
  } else {
    for (const auto& s : subkernels_) per_ofm += s.taps();
    per_ofm *= round_up(op_.ifm.depth, ibd_);  // depth-first jobs are zero-padded to IBD
  }
  return ofm * per_ofm;
}

uint64_t OpWork::slice_weight_bytes(unsigned core, uint32_t z) const {
  const uint64_t total = stream_weights_[core], length = op_.weights[core].length_bytes;
  if (total == 0 || length == 0) return 0;
  // Every slice before the last is full, so the weights before slice z are z full slices.
  const uint64_t full = slice_weights(core, 0);
  auto share = [&](uint64_t cum) {
    return static_cast<uint64_t>(static_cast<long double>(length) * static_cast<long double>(cum) /
                                 static_cast<long double>(total));
  };
  const uint64_t before = uint64_t{z} * full;
  return share(before + slice_weights(core, z)) - share(before);
}

uint64_t OpWork::mac_cycles(uint32_t w, uint32_t h, uint32_t channels) const {
  if (channels == 0) return 0;
  const uint64_t ublk_xy = ceil_div(w, ub_w_) * ceil_div(h, ub_h_);
  const uint64_t ublk_z = ceil_div(channels, t_.mac.ublock_d);
  const uint64_t bf = is_16bit(op_.ifm.element) ? 2 : 1;
  const uint64_t refill = t_.mac.weight_buffer_refill_cycles;
  uint64_t per_slice = 0;
  switch (op_.kind) {
    case OpKind::CONV:
      if (op_.kernel.weight_order == enums::weight_order::PART_KERNEL_FIRST) {
        const unsigned tg = bf == 2 ? t_.mac.part_kernel_taps / 2 : t_.mac.part_kernel_taps;
        uint64_t steps = 0;
        for (const auto& s : subkernels_) steps += ceil_div(s.taps(), tg);
        const uint64_t groups = ceil_div(op_.ifm.depth, t_.mac.ifm_ublock_d);
        per_slice = steps * groups * std::max(refill, ublk_xy * t_.mac.part_kernel_step_cycles);
      } else {
        uint64_t taps = 0;
        for (const auto& s : subkernels_) taps += s.taps();
        const uint64_t jobs = ceil_div(op_.ifm.depth, ibd_);
        const uint64_t per_tap = ublk_xy * (ibd_ / t_.mac.ifm_ublock_d) * bf;
        per_slice = taps * jobs * std::max(refill, per_tap);
      }
      break;
    case OpKind::DEPTHWISE: {
      uint64_t steps = 0;
      for (const auto& s : subkernels_) steps += ceil_div(s.taps(), t_.mac.depthwise_taps);
      per_slice = steps * std::max(refill, ublk_xy * t_.mac.depthwise_step_cycles * bf);
      break;
    }
    case OpKind::POOL:
      for (const auto& s : subkernels_) per_slice += ublk_xy * std::max<uint64_t>(t_.mac.pool_min_cycles, s.taps()) * bf;
      break;
    default:
      return 0;
  }
  return per_slice * ublk_z;
}

OfmBox OpWork::box(size_t index) const {
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

BlockWork OpWork::block(size_t index) const {
  BlockWork w;
  w.ofm = box(index);
  const OfmBox& o = w.ofm;
  const uint32_t bz = static_cast<uint32_t>(index % nz_);
  const uint32_t bx = static_cast<uint32_t>((index / nz_) % nx_);
  const uint32_t by = static_cast<uint32_t>(index / (size_t{nz_} * nx_));
  const uint32_t bw = o.x1 - o.x0, bh = o.y1 - o.y0;

  // Core 0 always holds the larger half of an interleaved block, so it sets the pace.
  const uint32_t busy_channels = core_channels(0, cores_, o.c0, o.c1);
  w.mac_cycles = mac_cycles(bw, bh, busy_channels);
  const uint64_t ao_elems =
      round_up(bw, ub_w_) * round_up(bh, ub_h_) * round_up(busy_channels, t_.mac.ublock_d);
  w.ao_cycles = static_cast<uint64_t>(std::ceil(ao_rate_ * static_cast<double>(ao_elems)));
  if (op_.reads_weights()) w.wd_cycles = ceil_div(slice_weights(0, bz), t_.wd.weights_per_cycle);

  const uint64_t taps = uint64_t{op_.kernel.width} * op_.kernel.height;
  if (op_.kind == OpKind::CONV) w.macs = o.elements() * taps * op_.ifm.depth;
  else if (op_.kind == OpKind::DEPTHWISE || op_.kind == OpKind::POOL) w.macs = o.elements() * taps;

  // IFM: a CONV reads every IFM channel, the others the block's own channels.
  const uint32_t ic0 = op_.kind == OpKind::CONV ? 0 : o.c0;
  const uint32_t ic1 = op_.kind == OpKind::CONV ? op_.ifm.depth : std::min(o.c1, op_.ifm.depth);
  const size_t ns = subkernels_.size();
  for (size_t s = 0; s < ns; ++s) {
    const Span1& c = cols_[bx * ns + s];
    const Span1& r = rows_[by * ns + s];
    w.ifm_bytes += box_bytes(op_.ifm, c.hi - c.lo, r.hi - r.lo, ic0, ic1, true);
    if (s == 0) w.ifm_run_bytes = run_bytes(op_.ifm, c.hi - c.lo, r.hi - r.lo, ic0, ic1, true);
  }
  if (op_.reads_ifm2()) {
    const auto& f = op_.ifm2;
    const uint64_t iw = op_.broadcast.w ? 1 : bw, ih = op_.broadcast.h ? 1 : bh;
    const uint32_t c0 = op_.broadcast.c ? 0 : o.c0, c1 = op_.broadcast.c ? 1 : o.c1;
    w.ifm2_bytes = box_bytes(f, iw, ih, c0, c1, true);
    w.ifm2_run_bytes = run_bytes(f, iw, ih, c0, c1, true);
  }
  for (unsigned c = 0; c < cores_; ++c) {
    if (op_.reads_weights()) w.weight_bytes[c] = slice_weight_bytes(c, bz);
    if (op_.reads_scales()) w.scale_bytes[c] = uint64_t{t_.wd.scale_bytes_per_channel} * core_channels(c, cores_, o.c0, o.c1);
  }
  w.ofm_bytes = box_bytes(op_.ofm, bw, bh, o.c0, o.c1, false);
  w.ofm_run_bytes = run_bytes(op_.ofm, bw, bh, o.c0, o.c1, false);
  return w;
}

std::vector<BlockWork> OpWork::blocks() const {
  std::vector<BlockWork> out;
  out.reserve(block_count());
  for (size_t i = 0; i < block_count(); ++i) out.push_back(block(i));
  return out;
}

}  // namespace ethosu::timing
