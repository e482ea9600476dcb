#include "models/kernels/op_runner.h"

#include <algorithm>
#include <string>

#include "models/kernels/regions.h"
#include "models/kernels/elementwise.h"
#include "models/kernels/pool.h"
#include "models/kernels/simd_loops.h"
#include "models/kernels/weight_cache.h"
#include "sim/error.h"
#include "sim/int_math.h"

namespace ethosu::kernels {

using isa::Access;
using isa::OpKind;
using isa::Operation;
namespace en = isa::enums;

namespace {

// IFM channels the kernels read: conv and REDUCE_SUM read IFM_DEPTH channels, the others channel c
// for each OFM channel c.
uint32_t ifm_depth_read(const Operation& op) {
  const bool reduce = op.kind == OpKind::POOL && op.pooling_mode == en::pooling_mode::REDUCE_SUM;
  return op.kind == OpKind::CONV || reduce ? op.ifm.depth : op.ofm.depth;
}

// Saturating arithmetic for the cost bounds: anything that saturates is far over every limit.
uint64_t mul(uint64_t a, uint64_t b) { return sim::sat_mul(a, b); }
uint64_t add(uint64_t a, uint64_t b) { return sim::sat_add(a, b); }
uint64_t round_up(uint64_t a, uint64_t b) { return sim::sat_round_up(a, b); }
uint64_t div_up(uint64_t a, uint64_t b) { return sim::ceil_div(a, b); }

}  // namespace

std::vector<AccessRange> accesses(const Operation& op) {
  std::vector<AccessRange> out;
  auto fm = [&](Access a, const isa::FeatureMap& f, uint32_t depth) {
    out.push_back({a, f.region, isa::feature_map_span(f, f.width, f.height, depth)});
  };
  if (op.reads_ifm()) fm(Access::IFM, op.ifm, std::max(op.ifm.depth, ifm_depth_read(op)));
  if (op.reads_ifm2()) fm(Access::IFM2, op.ifm2, op.ifm2.depth);
  if (op.writes_ofm()) {
    isa::FeatureMap stored = op.ofm;  // the tensor the OFM registers address: transposed on the U85
    const isa::OfmCoord e = isa::stored_ofm_extents(op);
    stored.width = e.x, stored.height = e.y;
    fm(Access::OFM, stored, e.c);
  }
  if (op.v2()) {
    // One stream per weight decoder (the unused ones have length 0) and one scale stream.
    for (const isa::StreamRef& w : op.weights)
      if (op.reads_weights() && w.length_bytes)
        out.push_back({Access::WEIGHTS, op.weight_region,
                       {static_cast<int64_t>(w.base), static_cast<int64_t>(w.base + w.length_bytes)}});
    if (op.reads_scales())
      out.push_back({Access::SCALES, op.scale_region,
                     {static_cast<int64_t>(op.scales[0].base),
                      static_cast<int64_t>(op.scales[0].base + op.scales[0].length_bytes)}});
    return out;
  }
  for (unsigned core = 0; core < op.cores(); ++core) {
    auto stream = [&](Access a, unsigned region, const isa::StreamRef& s) {
      out.push_back({a, region, {static_cast<int64_t>(s.base), static_cast<int64_t>(s.base + s.length_bytes)}});
    };
    if (op.reads_weights()) stream(Access::WEIGHTS, op.weight_region, op.weights[core]);
    if (op.reads_scales()) stream(Access::SCALES, op.scale_region, op.scales[core]);
  }
  return out;
}

isa::Span lut_span(const Operation& op, size_t shram_bytes) {
  const auto f = static_cast<unsigned>(op.activation.function);
  const auto first = static_cast<unsigned>(en::activation_function::TABLE_0);
  if (f < first) return {};
  // Slot n sits at LUT_BASE + 256 n, LUT_BASE being the end of the banks the kernels may use, two
  // banks below the top (spec 03 section 6.2). Wider tables run on into the following slots.
  const int64_t lo = int64_t{1024} * static_cast<int64_t>(shram_bytes / 1024 - 2) + 256 * int64_t{f - first};
  const unsigned bytes = op.ofm.element.bytes();
  return {lo, lo + (bytes == 1 ? 256 : bytes == 2 ? 2048 : 1024)};
}

OpCost cost(const Operation& op) {
  OpCost c;
  if (op.kind == OpKind::DMA) {
    // Row copies, bytes moved, and the snapshot of the source the copy reads from.
    const isa::Dma& d = op.dma;
    const isa::Span src = isa::dma_span(d, d.src);
    const uint64_t snapshot = src.empty() ? 0 : static_cast<uint64_t>(src.hi) - static_cast<uint64_t>(src.lo);
    const uint64_t rows = mul(d.rows(), d.planes());
    c.work = add(add(rows, mul(rows, d.length_bytes)), snapshot);
    c.buffer_elements = snapshot;
    return c;
  }
  const uint64_t pixels = uint64_t{op.ofm.width} * op.ofm.height, od = op.ofm.depth, id = op.ifm.depth;
  if (op.kind == OpKind::ELEMENTWISE || op.kind == OpKind::RESIZE) {
    c.work = mul(pixels, od);
    return c;
  }
  const isa::Kernel& k = op.kernel;
  const uint64_t taps = uint64_t{k.width} * k.height;
  // The IFM window the kernels gather for the whole OFM, in upscaled space, at the widest channel
  // stride any kernel uses.
  const uint64_t rows = uint64_t{op.ofm.height - 1} * k.stride_y + uint64_t{k.height - 1} * k.dilation_y + 1;
  const uint64_t cols = uint64_t{op.ofm.width - 1} * k.stride_x + uint64_t{k.width - 1} * k.dilation_x + 1;
  const uint64_t window = mul(mul(rows, cols), round_up(std::max(id, od), 2));
  uint64_t per_pixel = 0;
  switch (op.kind) {
    case OpKind::CONV: per_pixel = mul(mul(od, taps), id); break;
    case OpKind::DEPTHWISE: per_pixel = mul(od, taps); break;
    default: per_pixel = add(mul(ifm_depth_read(op), taps), uint64_t{k.width} + k.height); break;
  }
  c.work = add(window, mul(pixels, per_pixel));
  c.buffer_elements = window;
  if (op.reads_weights()) {
    // Packed weights (16-channel groups, even IFM depth), and the decoded stream: its padding adds at
    // most 7 channels per OFM tile, IFM blocks of 32 and 3 taps per 8x8 sub-kernel (spec 04 section 3).
    const bool dw = op.kind == OpKind::DEPTHWISE;
    const uint64_t depth = dw ? 1 : id;
    const uint64_t packed = mul(mul(round_up(od, 16), taps), round_up(depth, 2));
    const uint64_t block = std::max<uint64_t>(1, op.block.depth / op.cores());
    const uint64_t stream = mul(mul(add(od, mul(7, div_up(od, block))), dw ? 1 : round_up(id, 32)),
                                add(taps, mul(3, mul(div_up(k.height, 4), div_up(k.width, 4)))));
    c.buffer_elements = std::max({c.buffer_elements, packed, stream});
    c.work = add(c.work, mul(4, add(packed, stream)));
  }
  return c;
}

namespace {

kernels::DataType data_type(const isa::ElementType& e) {
  switch (e.bits()) {
    case 8: return e.is_signed() ? kernels::DataType::Int8 : kernels::DataType::UInt8;
    case 16: return e.is_signed() ? kernels::DataType::Int16 : kernels::DataType::UInt16;
    default: return kernels::DataType::Int32;
  }
}

kernels::Upscale upscale(en::ifm_upscale_mode m) {
  switch (m) {
    case en::ifm_upscale_mode::NEAREST: return kernels::Upscale::Nearest;
    case en::ifm_upscale_mode::ZEROS: return kernels::Upscale::Zeros;
    default: return kernels::Upscale::None;
  }
}

kernels::KernelGeometry geometry(const Operation& op) {
  kernels::KernelGeometry k;
  k.width = static_cast<int>(op.kernel.width);
  k.height = static_cast<int>(op.kernel.height);
  k.stride_x = static_cast<int>(op.kernel.stride_x);
  k.stride_y = static_cast<int>(op.kernel.stride_y);
  k.dilation_x = static_cast<int>(op.kernel.dilation_x);
  k.dilation_y = static_cast<int>(op.kernel.dilation_y);
  k.pad_top = static_cast<int>(op.padding.top);
  k.pad_left = static_cast<int>(op.padding.left);
  k.pad_bottom = static_cast<int>(op.padding.bottom);
  k.pad_right = static_cast<int>(op.padding.right);
  k.upscale = upscale(op.upscale);
  return k;
}

}  // namespace

OpRunner::OpRunner(const Regions& regions, std::vector<std::vector<uint8_t>>& shram, unsigned host_threads,
                   unsigned ofm_ublock_depth)
    : regions_(regions), shram_(shram), ofm_ublock_depth_(static_cast<int>(ofm_ublock_depth)), threads_(host_threads),
      scratch_(threads_.threads()) {}

unsigned kernel_bands(const Operation& op, const Regions& regions, unsigned threads) {
  // About a tenth of a millisecond of kernel work per band: waking a thread costs some microseconds.
  constexpr uint64_t kWorkPerBand = uint64_t{1} << 20;
  if (threads <= 1) return 1;  // the default: no cost() on every operation
  const uint64_t most = std::min<uint64_t>({threads, op.ofm.height, cost(op).work / kWorkPerBand});
  if (most <= 1) return 1;
  const std::vector<AccessRange> all = accesses(op);
  const auto host_span = [&](const AccessRange& a) {
    const auto base = reinterpret_cast<uintptr_t>(regions[a.region].data);
    return std::pair<uintptr_t, uintptr_t>{base + static_cast<uintptr_t>(a.span.lo),
                                           base + static_cast<uintptr_t>(a.span.hi)};
  };
  for (const AccessRange& w : all) {
    if (!isa::is_write(w.access) || w.span.empty()) continue;
    const auto [wlo, whi] = host_span(w);
    for (const AccessRange& r : all) {
      if (isa::is_write(r.access) || r.span.empty()) continue;
      const auto [rlo, rhi] = host_span(r);
      if (wlo < rhi && rlo < whi) return 1;
    }
  }
  return static_cast<unsigned>(most);
}

kernels::FeatureMap OpRunner::feature_map(const isa::FeatureMap& fm) const {
  kernels::FeatureMap k;
  k.region = regions_.at(fm.region).data;
  auto& l = k.layout;
  l.base = fm.base;
  l.width0 = static_cast<int32_t>(fm.width0);
  l.height0 = static_cast<int32_t>(fm.height0);
  l.height1 = static_cast<int32_t>(fm.height1);
  l.stride_x = fm.stride_x;
  l.stride_y = fm.stride_y;
  l.stride_c = fm.stride_c;
  l.layout = fm.element.nhcwb16() ? kernels::Layout::NHCWB16 : kernels::Layout::NHWC;
  l.type = data_type(fm.element);
  return k;
}

kernels::OutputStage OpRunner::output_stage(const Operation& op) {
  kernels::OutputStage os;
  os.ofm_type = data_type(op.ofm.element);
  os.ofm_zero_point = op.ofm.zero_point;
  os.round_mode = static_cast<kernels::RoundMode>(op.ofm.round_mode);
  os.per_channel = op.ofm_scale_mode == en::ofm_scale_mode::PER_CHANNEL;
  os.multiplier = op.ofm_scale.scale;
  os.shift = static_cast<uint8_t>(op.ofm_scale.shift);
  os.channels = scales_.empty() ? nullptr : scales_.data();
  os.activation_min = op.activation.min;
  os.activation_max = op.activation.max;
  os.clip_range = static_cast<kernels::ClipRange>(op.activation.clip_range);
  const auto f = static_cast<unsigned>(op.activation.function);
  if (op.activation.function == en::activation_function::TANH) {
    os.function = kernels::ActivationFunction::Tanh;
  } else if (op.activation.function == en::activation_function::SIGMOID) {
    os.function = kernels::ActivationFunction::Sigmoid;
  } else if (f >= static_cast<unsigned>(en::activation_function::TABLE_0)) {
    // Each core holds its own copy of the table; the model reads core 0's.
    os.function = kernels::ActivationFunction::Table;
    os.lut = shram_.front().data() + lut_span(op, shram_.front().size()).lo;
  }
  return os;
}

const uint8_t* OpRunner::stream_bytes(unsigned region, const isa::StreamRef& s) const {
  // An empty stream may name any offset, or a region the host did not map; it has no bytes.
  return s.length_bytes ? regions_.at(region).data + s.base : nullptr;
}

std::shared_ptr<const kernels::ConvWeights> OpRunner::decode_weights(const Operation& op) {
  weights::WeightLayout l;
  l.kind = op.kind == OpKind::DEPTHWISE ? weights::OpKind::DEPTHWISE : weights::OpKind::CONV;
  l.ofm_depth = static_cast<int>(op.ofm.depth);
  l.ifm_depth = static_cast<int>(op.ifm.depth);
  l.kernel_height = static_cast<int>(op.kernel.height);
  l.kernel_width = static_cast<int>(op.kernel.width);
  l.dilation_y = static_cast<int>(op.kernel.dilation_y);
  l.dilation_x = static_cast<int>(op.kernel.dilation_x);
  l.ofm_block_depth = static_cast<int>(op.block.depth);
  l.part_kernel_first = op.kernel.weight_order == en::weight_order::PART_KERNEL_FIRST;
  l.ifm_bits = static_cast<int>(op.ifm.element.bits());
  l.cores = static_cast<int>(op.cores());
  l.ofm_ublock_depth = ofm_ublock_depth_;
  // The cache key: every input of the decode, the layout and each core's compressed bytes.
  const int32_t params[] = {static_cast<int32_t>(l.kind), l.ofm_depth,    l.ifm_depth,       l.kernel_height,
                            l.kernel_width,              l.dilation_y,   l.dilation_x,      l.ofm_block_depth,
                            l.part_kernel_first,         l.ifm_bits,     l.cores,           l.ofm_ublock_depth};
  std::vector<kernels::ByteSpan> key{{reinterpret_cast<const uint8_t*>(params), sizeof params}};
  for (unsigned core = 0; core < op.cores(); ++core) {
    const auto& s = op.weights[core];
    key.push_back({stream_bytes(op.weight_region, s), s.length_bytes});
  }
  try {
    return kernels::WeightCache::shared().get(key, [&] {
      weights::validate(l);
      const int depth = l.kind == weights::OpKind::DEPTHWISE ? 1 : l.ifm_depth;
      kernels::ConvWeights w = kernels::ConvWeights::unfilled(l.ofm_depth, l.kernel_height, l.kernel_width, depth);
      const weights::PackedLayout dst = w.packing();
      stream_scratch_.simd_target = kernels::simd_target();  // the decoder's loop follows the kernels' target
      for (unsigned core = 0; core < op.cores(); ++core) {
        l.core = static_cast<int>(core);
        weights::decode_packed(l, key[core + 1].data, key[core + 1].size, dst, stream_scratch_);
      }
      w.seal();
      return w;
    });
  } catch (const InputError& e) {
    throw WeightFault(e.what());  // the decoder's messages name the stream or layout already
  }
}

void OpRunner::decode_scales(const Operation& op) {
  scales_.assign(op.ofm.depth, kernels::ScaleBias{});
  constexpr size_t kEntryBytes = 10;
  const unsigned cores = op.cores();
  for (unsigned core = 0; core < cores; ++core) {
    // U65-512: core k holds OFM channels k, k + 2, ... in its own stream (spec README pitfall 6).
    const size_t n = (op.ofm.depth + cores - 1 - core) / cores;
    const auto& s = op.scales[core];
    if (s.length_bytes < n * kEntryBytes)
      throw WeightFault("scale stream of core " + std::to_string(core) + " holds " + std::to_string(s.length_bytes) +
                        " bytes, " + std::to_string(n * kEntryBytes) + " needed for " + std::to_string(n) +
                        " channels");
    const uint8_t* p = stream_bytes(op.scale_region, s);
    for (size_t i = 0; i < n; ++i) scales_[i * cores + core] = kernels::decode_scale_bias(p + i * kEntryBytes);
  }
}

// The parameters conv, depthwise and pooling share: IFM, OFM and the kernel window.
template <typename Params>
void OpRunner::windowed(const Operation& op, Params& p) const {
  p.ifm = feature_map(op.ifm);
  p.ifm_zero_point = op.ifm.zero_point;
  p.ifm_depth = static_cast<int>(op.ifm.depth);
  p.ofm = feature_map(op.ofm);
  p.ofm_width = static_cast<int>(op.ofm.width);
  p.ofm_height = static_cast<int>(op.ofm.height);
  p.ofm_depth = static_cast<int>(op.ofm.depth);
  p.kernel = geometry(op);
}

uint64_t OpRunner::conv(const Operation& op) {
  std::shared_ptr<const kernels::ConvWeights> w;
  {
    const sim::HostTimer timer(host_seconds_.weights);
    w = decode_weights(op);
    scales_.clear();
    if (op.reads_scales()) decode_scales(op);
  }
  kernels::ConvParams p;
  windowed(op, p);
  p.acc_format = op.acc_format == en::acc_format::I40 ? kernels::AccFormat::Int40 : kernels::AccFormat::Int32;
  p.output = output_stage(op);
  const bool dw = op.kind == OpKind::DEPTHWISE;
  {
    const sim::HostTimer timer(host_seconds_.kernels);
    run_in_bands(op, regions_, threads_, scratch_, [&](const kernels::OfmTile& b, kernels::KernelScratch& s) {
      if (dw) kernels::depthwise_tile(p, *w, b, s);
      else kernels::conv_tile(p, *w, b, s);
    });
  }
  return uint64_t{op.ofm.width} * op.ofm.height * op.ofm.depth * op.kernel.width * op.kernel.height *
         (dw ? 1 : op.ifm.depth);
}

uint64_t OpRunner::pool(const Operation& op) {
  scales_.clear();
  kernels::PoolParams p;
  p.mode = static_cast<kernels::PoolMode>(op.pooling_mode);
  windowed(op, p);
  p.output = output_stage(op);
  const sim::HostTimer timer(host_seconds_.kernels);
  run_in_bands(op, regions_, threads_, scratch_,
               [&](const kernels::OfmTile& b, kernels::KernelScratch& s) { kernels::pool_tile(p, b, s); });
  return 0;
}

uint64_t OpRunner::elementwise(const Operation& op) {
  scales_.clear();
  kernels::ElementwiseParams p;
  p.op = static_cast<kernels::ElementwiseOp>(op.elementwise_mode);
  p.ifm = feature_map(op.ifm);
  p.ifm_zero_point = op.ifm.zero_point;
  if (op.reads_ifm2()) p.ifm2 = feature_map(op.ifm2);
  p.ifm2_zero_point = op.ifm2.zero_point;
  p.ofm = feature_map(op.ofm);
  p.ofm_width = static_cast<int>(op.ofm.width);
  p.ofm_height = static_cast<int>(op.ofm.height);
  p.ofm_depth = static_cast<int>(op.ofm.depth);
  p.broadcast_h = op.broadcast.h;
  p.broadcast_w = op.broadcast.w;
  p.broadcast_c = op.broadcast.c;
  p.ifm2_is_scalar = op.broadcast.scalar;
  // The scalar register is 16 bits, extended by the IFM2 signedness (spec 01 section 4.2).
  p.ifm2_scalar = op.ifm2.element.is_signed() ? op.broadcast.scalar_value : (op.broadcast.scalar_value & 0xFFFF);
  p.reverse_operands = op.broadcast.operand_order == en::ifm2_operand_order::ORDER_A;
  p.scale_mode = static_cast<kernels::OperandScaleMode>(op.ifm_scale_mode);
  p.opa_scale = op.opa_scale.scale;
  p.opa_shift = static_cast<uint8_t>(op.opa_scale.shift);
  p.opb_scale = static_cast<uint16_t>(op.opb_scale.scale);
  p.ifm_round_mode = static_cast<kernels::RoundMode>(op.ifm.round_mode);
  p.output = output_stage(op);
  const sim::HostTimer timer(host_seconds_.kernels);
  run_in_bands(op, regions_, threads_, scratch_,
               [&](const kernels::OfmTile& b, kernels::KernelScratch&) { kernels::elementwise_tile(p, b); });
  return 0;
}

uint64_t OpRunner::execute(const Operation& op) {
  if (const auto why = isa::unknown_behaviour(op)) throw UnknownBehaviour("not modelled: " + *why);
  switch (op.kind) {
    case OpKind::CONV:
    case OpKind::DEPTHWISE: return conv(op);
    case OpKind::POOL: return pool(op);
    case OpKind::ELEMENTWISE: return elementwise(op);
    case OpKind::DMA:
    case OpKind::RESIZE: break;  // RESIZE is the U85's (U85Runner)
  }
  return 0;
}

}  // namespace ethosu::kernels
