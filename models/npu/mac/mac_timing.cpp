#include "models/npu/mac/mac_timing.h"

#include <algorithm>
#include <string>

#include "isa/architecture.h"
#include "sim/error.h"
#include "sim/int_math.h"

namespace ethosu::npu {

using isa::OpKind;
namespace enums = isa::enums;
using sim::ceil_div;
using sim::round_up;

namespace {

bool is_16bit(const isa::ElementType& e) { return e.bits() == 16; }

}  // namespace

MacTiming::MicroBlock MacTiming::ublock() const {
  // The micro-block of Arm's configuration of that width (the architecture descriptions), each element taking 8 IFM
  // channels; the first one listed where a family has several.
  std::string widths;
  for (isa::Variant v : isa::variants()) {
    const isa::Architecture& a = isa::architecture(v);
    if (a.macs_per_core == macs_per_core) return {a.ofm_ublock.w, a.ofm_ublock.h, a.ofm_ublock.d};
    if (widths.find(std::to_string(a.macs_per_core) + ",") == std::string::npos)
      widths += std::to_string(a.macs_per_core) + ",";
  }
  widths.pop_back();
  throw InputError("MAC array: " + std::to_string(macs_per_core) + " MACs per core has no micro-block (" + widths + ")");
}

MacTiming MacTiming::with_macs_per_core(unsigned macs) const {
  MacTiming t = *this;
  t.macs_per_core = macs;
  t.ublock();
  return t;
}

uint32_t core_channels(unsigned core, unsigned cores, uint32_t c0, uint32_t c1) {
  auto below = [&](uint32_t c) { return c <= core ? 0u : (c - core + cores - 1) / cores; };
  return below(c1) - below(c0);
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

MacWork::MacWork(const isa::Operation& op, const MacTiming& t) : op_(op), t_(t) {
  cores_ = std::min(op.cores(), kMaxCores);
  if (op.v2()) {
    const isa::MicroBlock ub = t.u85.ublock(op.microblock);
    ub_w_ = ub.w;
    ub_h_ = ub.h;
    ub_d_ = ub.d;
  } else {
    const bool conv1d = op.uses_kernel() && op.ofm.height == 1 && op.kernel.height == 1;
    const MacTiming::MicroBlock ub = t.ublock();
    ub_w_ = conv1d ? ub.w * ub.h : ub.w;
    ub_h_ = conv1d ? 1 : ub.h;
    ub_d_ = ub.d;
  }
  isa::Kernel k = op.kernel;
  if (!op.uses_kernel()) k = isa::Kernel{};  // elementwise: stale kernel registers are ignored
  subkernels_ = sub_kernels(k, t.subkernel);
  if (op.kind == OpKind::CONV && !op.v2()) {
    const bool pk = op.kernel.weight_order == enums::weight_order::PART_KERNEL_FIRST;
    ibd_ = pk ? t.part_kernel_ibd : (is_16bit(op.ifm.element) ? t.depth_first_ibd / 2 : t.depth_first_ibd);
  }
  const uint32_t nz = op.block.depth ? static_cast<uint32_t>(ceil_div(op.ofm.depth, op.block.depth)) : 0;
  for (unsigned c = 0; c < cores_; ++c)
    for (uint32_t z = 0; z < nz; ++z) stream_weights_[c] += slice_weights(c, z);
  total_macs_ = uint64_t{op.ofm.width} * op.ofm.height * op.ofm.depth * macs_per_ofm_element(op);
}

uint64_t macs_per_ofm_element(const isa::Operation& op) {
  const uint64_t taps = uint64_t{op.kernel.width} * op.kernel.height;
  // A convolution and REDUCE_SUM (which sums over the IFM's channels, as Vela counts it) accumulate every IFM
  // channel of every tap; depthwise and the other poolings one channel.
  const bool all_channels = op.kind == OpKind::CONV ||
                            (op.kind == OpKind::POOL && op.pooling_mode == enums::pooling_mode::REDUCE_SUM);
  if (all_channels) return taps * op.ifm.depth;
  return op.kind == OpKind::DEPTHWISE || op.kind == OpKind::POOL ? taps : 0;
}

uint64_t MacWork::slice_weights(unsigned core, uint32_t z) const {
  if (!op_.reads_weights()) return 0;
  if (op_.v2()) {
    // Each decoder's stream holds its share of every slice; this is the slice's weights, all streams.
    if (core != 0 || uint64_t{z} * op_.block.depth >= op_.ofm.depth) return 0;
    const uint64_t left = op_.ofm.depth - uint64_t{z} * op_.block.depth;
    const uint64_t ofm = round_up(std::min<uint64_t>(op_.block.depth, left), ub_d_);
    const uint64_t taps = uint64_t{op_.kernel.width} * op_.kernel.height;
    return ofm * taps * (op_.kind == OpKind::DEPTHWISE ? 1 : op_.ifm.depth);
  }
  // Per-core channel count and block depth of the interleaved split (spec 04 section 1).
  const uint64_t o = core_channels(core, cores_, 0, op_.ofm.depth);
  const uint64_t obd = core_channels(core, cores_, 0, op_.block.depth);
  if (obd == 0 || uint64_t{z} * obd >= o) return 0;
  const uint64_t ofm = round_up(std::min(obd, o - uint64_t{z} * obd), ub_d_);
  uint64_t per_ofm = 0;
  const bool b16 = is_16bit(op_.ifm.element);
  if (op_.kind == OpKind::DEPTHWISE) {
    for (const auto& s : subkernels_) per_ofm += round_up(s.taps(), t_.depthwise_taps);
  } else if (op_.kernel.weight_order == enums::weight_order::PART_KERNEL_FIRST) {
    const unsigned tg = b16 ? t_.part_kernel_taps / 2 : t_.part_kernel_taps;
    for (const auto& s : subkernels_) per_ofm += round_up(s.taps(), tg);
    per_ofm *= round_up(op_.ifm.depth, t_.ifm_ublock_d);  // IBD is a multiple of 8: jobs clip to 8s
  } else {
    for (const auto& s : subkernels_) per_ofm += s.taps();
    per_ofm *= round_up(op_.ifm.depth, ibd_);  // depth-first jobs are zero-padded to IBD
  }
  return ofm * per_ofm;
}

MacBlockU85 MacWork::u85_block(const OfmBox& box) const {
  MacBlockU85 b;
  using M = MacOpU85;
  switch (op_.kind) {
    case OpKind::CONV:
      b.op = op_.weights_from_ifm2                                                        ? M::VECTOR_PRODUCT
             : op_.kernel.weight_order == enums::weight_order::PART_KERNEL_FIRST ? M::CONV_PART_KERNEL_FIRST
                                                                                   : M::CONV_DEPTH_FIRST;
      break;
    case OpKind::DEPTHWISE: b.op = M::DEPTHWISE; break;
    default: b.op = op_.pooling_mode == enums::pooling_mode::REDUCE_SUM ? M::REDUCE_SUM : M::POOL; break;
  }
  b.block_h = box.height();
  b.block_w = box.width();
  b.block_c = box.c1 - box.c0;
  b.ublock = {ub_w_, ub_h_, ub_d_};
  b.ifm_depth = op_.ifm.depth;
  b.ifm_bits = op_.ifm.element.bits();
  b.kernel_w = op_.kernel.width;
  b.kernel_h = op_.kernel.height;
  b.acc48 = op_.acc_format == enums::acc_format::I48;
  b.sparse = op_.weight_sparsity == enums::weight_sparsity::SPARSE_2_4;
  return b;
}

uint64_t MacWork::cycles(const OfmBox& box) const {
  if (op_.v2()) {
    const bool mac_op = op_.kind == OpKind::CONV || op_.kind == OpKind::DEPTHWISE || op_.kind == OpKind::POOL;
    return mac_op ? t_.u85.block_cycles(u85_block(box)) : 0;
  }
  // Core 0 always holds the larger half of an interleaved block, so it sets the pace.
  const uint32_t channels = core_channels(0, cores_, box.c0, box.c1);
  if (channels == 0) return 0;
  const uint64_t ublk_xy = ceil_div(box.width(), ub_w_) * ceil_div(box.height(), ub_h_);
  const uint64_t ublk_z = ceil_div(channels, ub_d_);
  const uint64_t bf = is_16bit(op_.ifm.element) ? 2 : 1;
  // The refill floor is per weight-buffer load of 8 OFM channels; a load holds a micro-block depth of them.
  const uint64_t refill = std::max<uint64_t>(1, uint64_t{t_.weight_buffer_refill_cycles} * ub_d_ / 8);
  uint64_t per_slice = 0;
  switch (op_.kind) {
    case OpKind::CONV:
      if (op_.kernel.weight_order == enums::weight_order::PART_KERNEL_FIRST) {
        const unsigned tg = bf == 2 ? t_.part_kernel_taps / 2 : t_.part_kernel_taps;
        uint64_t steps = 0;
        for (const auto& s : subkernels_) steps += ceil_div(s.taps(), tg);
        const uint64_t groups = ceil_div(op_.ifm.depth, t_.ifm_ublock_d);
        per_slice = steps * groups * std::max(refill, ublk_xy * t_.part_kernel_step_cycles);
      } else {
        uint64_t taps = 0;
        for (const auto& s : subkernels_) taps += s.taps();
        const uint64_t jobs = ceil_div(op_.ifm.depth, ibd_);
        const uint64_t per_tap = ublk_xy * (ibd_ / t_.ifm_ublock_d) * bf;
        per_slice = taps * jobs * std::max(refill, per_tap);
      }
      break;
    case OpKind::DEPTHWISE: {
      uint64_t steps = 0;
      for (const auto& s : subkernels_) steps += ceil_div(s.taps(), t_.depthwise_taps);
      per_slice = steps * std::max(refill, ublk_xy * t_.depthwise_step_cycles * bf);
      break;
    }
    case OpKind::POOL:
      for (const auto& s : subkernels_) per_slice += ublk_xy * std::max<uint64_t>(t_.pool_min_cycles, s.taps()) * bf;
      break;
    default:
      return 0;
  }
  return per_slice * ublk_z;
}

uint64_t MacWork::macs(const OfmBox& box) const { return box.elements() * macs_per_ofm_element(op_); }

uint64_t MacWork::ublock_elements(const OfmBox& box) const {
  const uint32_t channels = core_channels(0, cores_, box.c0, box.c1);
  return round_up(box.width(), ub_w_) * round_up(box.height(), ub_h_) * round_up(channels, ub_d_);
}

}  // namespace ethosu::npu
