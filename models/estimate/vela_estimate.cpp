#include "models/estimate/vela_estimate.h"

#include <algorithm>
#include <cmath>

#include "sim/int_math.h"

namespace ethosu::estimate {

using isa::OpKind;
namespace enums = isa::enums;
using npu::AoTiming;
using npu::MacTiming;
using npu::sub_kernels;

namespace {

using sim::ceil_div;
using sim::round_up;

struct Shape {
  uint64_t h = 1, w = 1, d = 1;
  uint64_t elements() const { return h * w * d; }
};
Shape min_shape(const Shape& a, const Shape& b) { return {std::min(a.h, b.h), std::min(a.w, b.w), std::min(a.d, b.d)}; }

// Vela's burst-efficiency scaling: bytes moved as if every access were a full burst of `burst_bytes`,
// with the useful run per access from the layout (spec 05 section 7.3).
double transfer(const MemoryTiming& m, bool read, const isa::ElementType& e, const Shape& fm, const Shape& blk,
                unsigned cores, uint64_t amount) {
  const uint64_t bits = e.bits();
  uint64_t burst_bits;
  if (e.nhcwb16()) {
    const uint64_t brick_stride_bytes = 16 * fm.w * e.bytes();  // Vela compares this with the block depth
    if (brick_stride_bytes == blk.d) burst_bits = bits * blk.d * blk.w;
    else burst_bits = 16 * bits * blk.w * (read ? 1 : cores);
  } else if (read) {
    burst_bits = e.bytes() == blk.d ? bits * blk.d * blk.w : bits * blk.d;
  } else if (blk.d <= 16 && e.bytes() == blk.d) {
    burst_bits = bits * blk.d * blk.w;
  } else {
    burst_bits = std::min<uint64_t>({64 * 8, 16 * bits * cores, blk.d * bits});
  }
  const double eff = static_cast<double>(std::min<uint64_t>(m.burst_bytes, std::max<uint64_t>(1, burst_bits / 8)));
  return static_cast<double>(amount) * static_cast<double>(m.burst_bytes) / eff;
}

double block_memory_cycles(const MemoryTiming& m, bool read, const isa::ElementType& e, const Shape& fm,
                           const Shape& blk, unsigned cores) {
  // Vela counts elements, not bytes, of the block part inside the feature map.
  const double moved = transfer(m, read, e, fm, blk, cores, min_shape(fm, blk).elements());
  return (read ? m.read_latency_cycles : m.write_latency_cycles) + moved / m.bytes_per_cycle;
}

bool is_16bit(const isa::ElementType& e) { return e.bits() == 16; }

}  // namespace

VelaSystem vela_internal_default_u65() {
  VelaSystem s;
  s.axi[0] = {16.0, 32, 32, 32};
  s.axi[1] = {16.0 * 0.234375, 500, 250, 128};
  s.region_port = {1, 1, 0, 1, 1, 1, 1, 1};
  return s;
}

VelaEstimate vela_estimate(const isa::Operation& op, const VelaSystem& sys) {
  // Vela's constants for the U65, which are also the defaults of the block models: its estimate does not
  // follow a what-if change of the simulated blocks.
  const MacTiming mac;
  const AoTiming ao;
  VelaEstimate r;
  if (!op.is_kernel()) return r;
  const unsigned cores = std::max(1u, op.cores());
  const Shape ofm{op.ofm.height, op.ofm.width, op.ofm.depth};
  const Shape ifm{op.ifm.height, op.ifm.width, op.ifm.depth};
  const Shape ofm_blk{op.block.height, op.block.width, op.block.depth};
  const bool b16 = is_16bit(op.ifm.element);
  const bool ew = op.kind == OpKind::ELEMENTWISE;
  const bool pk = op.kind == OpKind::CONV && op.kernel.weight_order == enums::weight_order::PART_KERNEL_FIRST;
  const bool reduce_sum = op.kind == OpKind::POOL && op.pooling_mode == enums::pooling_mode::REDUCE_SUM;
  const bool pooling = op.kind == OpKind::POOL && !reduce_sum;
  const bool conv_like = op.kind == OpKind::CONV || reduce_sum;

  // IFM block (spec 05 section 4).
  Shape ifm_blk = ofm_blk;
  if (!ew) {
    const unsigned up = op.upscale == enums::ifm_upscale_mode::NONE ? 1 : 2;
    const unsigned nearest = op.upscale == enums::ifm_upscale_mode::NEAREST ? 1 : 0;
    auto extent = [&](uint64_t o, uint32_t stride, uint32_t dilated, unsigned ub) {
      return round_up(ceil_div((o - 1) * stride + std::min<uint64_t>(mac.subkernel, dilated) + nearest, up), ub);
    };
    ifm_blk.w = extent(ofm_blk.w, op.kernel.stride_x, op.kernel.dilated_width, mac.ublock().w);
    ifm_blk.h = extent(ofm_blk.h, op.kernel.stride_y, op.kernel.dilated_height, mac.ublock().h);
    if (conv_like) {
      const uint64_t d = (pk || b16) ? 16 : 32;
      ifm_blk.d = std::min(d, round_up(ifm.d, 8));
    }
  }
  r.ifm_block_w = static_cast<uint32_t>(ifm_blk.w);
  r.ifm_block_h = static_cast<uint32_t>(ifm_blk.h);
  r.ifm_block_d = static_cast<uint32_t>(ifm_blk.d);

  const MemoryTiming& ifm_mem = sys.memory_of_region(op.ifm.region);
  const MemoryTiming& ofm_mem = sys.memory_of_region(op.ofm.region);
  r.ifm_block_memory_cycles = block_memory_cycles(ifm_mem, true, op.ifm.element, ifm, ifm_blk, cores);
  r.ofm_block_memory_cycles = block_memory_cycles(ofm_mem, false, op.ofm.element, ofm, ofm_blk, cores);

  // Vela's table for a multi-core variant is the per-core table divided by the cores.
  const double per_elem = ao.cycles_per_element(op) / cores;
  r.blocks = ceil_div(ofm.h, ofm_blk.h) * ceil_div(ofm.w, ofm_blk.w) * ceil_div(ofm.d, ofm_blk.d);
  const auto subs = sub_kernels(op.kernel, mac.subkernel);

  if (ew) {
    const double blk_elems = static_cast<double>(ofm_blk.elements());
    const double cmd = (r.ifm_block_memory_cycles + r.ofm_block_memory_cycles + per_elem * blk_elems) / 4 / blk_elems;
    const double rate = std::max(per_elem, cmd);
    const uint64_t elems = ofm.h * ofm.w * (op.ofm.element.nhcwb16() ? round_up(ofm.d, 16) : ofm.d);
    r.output_cycles_per_block = rate * blk_elems;
    r.npu_cycles = static_cast<uint64_t>(std::ceil(rate * static_cast<double>(elems)));  // Vela rounds up here
  } else {
    const uint64_t ublk_x = ceil_div(ofm_blk.w, mac.ublock().w), ublk_y = ceil_div(ofm_blk.h, mac.ublock().h);
    const uint64_t ublk_xy = ublk_x * ublk_y, ublk_z = ceil_div(ofm_blk.d, mac.ublock().d);
    const double wb = mac.weight_buffer_refill_cycles;
    const auto xy = static_cast<double>(ublk_xy), z = static_cast<double>(ublk_z);
    const auto ifm_groups = static_cast<double>(ceil_div(ifm_blk.d, 8));
    const double bf = b16 ? 2 : 1;
    double dpu = 0;
    for (const auto& s : subs) {
      const uint64_t n = s.taps();
      double steps, c;
      if (pooling) {
        steps = 1;
        c = static_cast<double>(std::max<uint64_t>(4, n)) * xy * z * bf;
      } else if (op.kind == OpKind::DEPTHWISE) {
        steps = static_cast<double>(ceil_div(n, 4));
        c = std::max(wb, 4.0 * xy * bf) * steps * z;
      } else if (pk) {
        steps = static_cast<double>(ceil_div(n, b16 ? 2 : 4));
        c = std::max(wb, 4.0 * xy) * steps * ifm_groups * z;
      } else {
        steps = static_cast<double>(n);
        c = std::max(wb, 4.0 * xy) * steps * z;
      }
      if (ublk_xy == 1) {
        const double delay = 2;
        double added = 0;
        if (ublk_z == 1) added = delay * steps;
        else if (steps > 1) added = delay * (steps - 1) * z;
        if (pk) added *= ifm_groups;
        c += added;
      }
      dpu += c;
    }
    if (conv_like) dpu *= static_cast<double>(ceil_div(ifm.d, ifm_blk.d));
    dpu /= cores;

    double out = std::ceil(per_elem * static_cast<double>(ofm_blk.elements()));
    if (op.reads_scales()) {
      const double lat = sys.memory_of_region(op.scale_region).read_latency_cycles;
      out = std::max(out, 10.0 * static_cast<double>(ofm_blk.d) * lat / 256);
    }
    const double cmd = (r.ifm_block_memory_cycles + r.ofm_block_memory_cycles + out + dpu) / 4;
    dpu = std::max(dpu, cmd);
    out = std::max(out, cmd);
    r.mac_cycles_per_block = dpu;
    r.output_cycles_per_block = out;
    const double nb = static_cast<double>(r.blocks);
    r.npu_cycles = static_cast<uint64_t>(dpu > out ? dpu * nb + out : out * nb + dpu);
  }

  // Whole-op access cycles per port (spec 05 section 7.4).
  std::array<double, 2> port_bytes{};
  auto add = [&](unsigned region, bool read, const isa::ElementType& e, const Shape& fm, const Shape& blk,
                 uint64_t amount) {
    port_bytes[sys.region_port[region % isa::kRegionCount] & 1] +=
        transfer(sys.memory_of_region(region), read, e, fm, blk, cores, amount * e.bytes());
  };
  const uint64_t xy_blocks = ceil_div(ofm.h, ofm_blk.h) * ceil_div(ofm.w, ofm_blk.w);
  if (ew) {
    add(op.ifm.region, true, op.ifm.element, ifm, ifm_blk, ofm.elements());
    if (op.reads_ifm2()) {
      const Shape ifm2{op.ifm2.height, op.ifm2.width, op.ifm2.depth};
      add(op.ifm2.region, true, op.ifm2.element, ifm2, ofm_blk, ifm2.elements());
    }
  } else {
    const uint64_t depth = conv_like ? ifm.d : ofm_blk.d;
    add(op.ifm.region, true, op.ifm.element, ifm, ifm_blk, ifm_blk.w * ifm_blk.h * depth * subs.size() * r.blocks);
  }
  add(op.ofm.region, false, op.ofm.element, ofm, ofm_blk, ofm.elements());
  if (op.reads_weights()) {
    const uint64_t w = op.weights[0].length_bytes + op.weights[1].length_bytes;
    port_bytes[sys.region_port[op.weight_region % isa::kRegionCount] & 1] += static_cast<double>(w * xy_blocks);
  }
  if (op.reads_scales())
    port_bytes[sys.region_port[op.scale_region % isa::kRegionCount] & 1] += 10.0 * static_cast<double>(ofm.d);
  r.total_cycles = r.npu_cycles;
  for (unsigned p = 0; p < 2; ++p) {
    r.access_cycles[p] = static_cast<uint64_t>(port_bytes[p] / sys.axi[p].bytes_per_cycle);
    r.total_cycles = std::max(r.total_cycles, r.access_cycles[p]);
  }

  const uint64_t taps = uint64_t{op.kernel.width} * op.kernel.height;
  if (op.kind == OpKind::CONV) r.macs = ofm.elements() * taps * ifm.d;
  else if (op.uses_kernel()) r.macs = ofm.elements() * taps;
  return r;
}

}  // namespace ethosu::estimate
