#include "models/kernels/u85_runner.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "models/kernels/regions.h"
#include "models/kernels/simd_loops.h"
#include "models/kernels/u85_kernels.h"
#include "models/kernels/weight_cache.h"
#include "models/kernels/weights/scale_stream_u85.h"
#include "models/kernels/weights/weight_decoder_u85.h"
#include "sim/error.h"
#include "sim/host_time.h"

namespace ethosu::kernels {

using isa::OpKind;
using isa::Operation;
namespace en = isa::enums;
namespace wu = weights::u85;

namespace {

DataType data_type(const isa::ElementType& e) {
  switch (e.bits()) {
    case 8: return e.is_signed() ? DataType::Int8 : DataType::UInt8;
    case 16: return e.is_signed() ? DataType::Int16 : DataType::UInt16;
    default: return DataType::Int32;
  }
}

u85::Lut lut_of(en::activation_function f) {
  using F = en::activation_function;
  switch (f) {
    case F::LUT_U8_U8: return u85::Lut::U8U8;
    case F::LUT_S8_S8: return u85::Lut::S8S8;
    case F::LUT_S8_S16: return u85::Lut::S8S16;
    case F::LUT_S8_S32: return u85::Lut::S8S32;
    case F::LUT_S16_S16: return u85::Lut::S16S16;
    case F::LUT_TANH: return u85::Lut::Tanh;
    case F::LUT_SIGMOID: return u85::Lut::Sigmoid;
    default: return u85::Lut::None;  // LUT_NONE; the others are refused by isa::unknown_behaviour
  }
}

u85::Scaling scaling_of(const isa::Scale& s) {
  return {s.scale, static_cast<int>(s.shift), static_cast<int>(s.dbl_rnd), static_cast<u85::Rounding>(s.rounding)};
}

u85::Window window_of(const Operation& op) {
  u85::Window w;
  w.kernel_width = static_cast<int>(op.kernel.width);
  w.kernel_height = static_cast<int>(op.kernel.height);
  w.stride_x = static_cast<int>(op.kernel.stride_x);
  w.stride_y = static_cast<int>(op.kernel.stride_y);
  w.dilation_x = static_cast<int>(op.kernel.dilation_x);
  w.dilation_y = static_cast<int>(op.kernel.dilation_y);
  w.pad_top = static_cast<int>(op.padding.top);
  w.pad_left = static_cast<int>(op.padding.left);
  return w;
}

const uint8_t* stream_bytes(const Regions& regions, unsigned region, const isa::StreamRef& s) {
  return s.length_bytes ? regions.at(region).data + s.base : nullptr;
}

}  // namespace

std::shared_ptr<const ConvWeights> U85Runner::decode_weights(const wu::Layout& l, const wu::Streams& streams) {
  // The cache key: a tag that no U65 key starts with (its first word is the operation kind, 0 or 1), every input
  // of the decode, and the bytes of the streams the layout reads.
  const int32_t params[] = {0x55383500,          static_cast<int32_t>(l.kind), l.ofm_depth,     l.ifm_depth,
                            l.kernel_height,     l.kernel_width,               l.dilation_y,    l.dilation_x,
                            l.stride_y,          l.stride_x,                   l.ofm_block_depth, l.part_kernel_first,
                            l.ifm_bits,          l.ofm_ublock_depth,           l.macs,          l.weight_decoders,
                            static_cast<int32_t>(l.format), l.sparse};
  wu::validate(l);
  std::vector<ByteSpan> key{{reinterpret_cast<const uint8_t*>(params), sizeof params}};
  const int streams_read = wu::stream_count(l);
  for (int i = 0; i < streams_read; ++i)
    key.push_back({streams[static_cast<size_t>(i)].data, streams[static_cast<size_t>(i)].size_bytes});
  return WeightCache::shared().get(key, [&] {
    wu::stream_weight_count(l);  // refuses a layout beyond the decoder's bound before the buffer is made
    ConvWeights w = ConvWeights::unfilled(l.ofm_depth, l.kernel_height, l.kernel_width,
                                          l.kind == weights::OpKind::DEPTHWISE ? 1 : l.ifm_depth);
    decode_scratch_.simd_target = simd_target();  // the decoder's loop follows the kernels' target
    wu::decode_packed(l, streams, w.packing(), decode_scratch_);
    w.seal();
    w.measure();
    return w;
  });
}

isa::Span lut_ram_span(const Operation& op) {
  const unsigned bytes = u85::lut_bytes(lut_of(op.activation.function));
  if (!op.is_kernel() || bytes == 0) return {};
  const int64_t lo = int64_t{op.activation.table} * bytes;
  return {lo, lo + bytes};
}

U85Runner::U85Runner(const Regions& regions, const std::vector<uint8_t>& lut_ram, const isa::Architecture& arch,
                     unsigned host_threads)
    : regions_(regions), lut_ram_(lut_ram), arch_(arch), threads_(host_threads), scratch_(threads_.threads()) {}

uint64_t U85Runner::execute(const Operation& op) {
  weight_stats_.reset();
  if (const auto why = isa::unknown_behaviour(op)) throw UnknownBehaviour("not modelled: " + *why);

  // A feature map in memory or in a chaining buffer, as the kernels read it.
  const auto tensor = [&](const isa::FeatureMap& fm, uint32_t width, uint32_t height, uint32_t depth) {
    u85::Tensor t;
    t.width = static_cast<int>(width);
    t.height = static_cast<int>(height);
    t.depth = static_cast<int>(depth);
    t.zero_point = fm.zero_point;
    const DataType type = data_type(fm.element);
    if (!fm.chained()) {
      t.map.region = regions_.at(fm.region).data;
      FeatureMapLayout& l = t.map.layout;
      l.base = fm.base;
      l.width0 = static_cast<int32_t>(fm.width0);
      l.height0 = static_cast<int32_t>(fm.height0);
      l.height1 = static_cast<int32_t>(fm.height1);
      l.stride_x = fm.stride_x;
      l.stride_y = fm.stride_y;
      l.stride_c = fm.stride_c;
      l.layout = fm.element.nhcwb16() ? Layout::NHCWB16 : Layout::NHWC;
      l.type = type;
      return t;
    }
    const auto it = chains_.find(fm.region);
    if (it == chains_.end())
      throw UnknownBehaviour("not modelled: a CHAINED feature map read from chaining buffer " +
                             std::to_string(fm.region) + ", which no earlier operation of the job wrote");
    const Chain& c = it->second;
    if (c.type != type || c.width < width || c.height < height || c.depth < depth)
      throw UnknownBehaviour("not modelled: a CHAINED feature map of " + std::to_string(width) + "x" +
                             std::to_string(height) + "x" + std::to_string(depth) +
                             " read from a chaining buffer written as " + std::to_string(c.width) + "x" +
                             std::to_string(c.height) + "x" + std::to_string(c.depth) +
                             " or with another element type");
    t.map = u85::dense_map(const_cast<uint8_t*>(c.bytes.data()), static_cast<int>(c.width), static_cast<int>(c.depth),
                           type);
    return t;
  };

  // The OFM: memory, or a new chaining buffer that replaces the one of its id once the operation is done (the
  // operation may read the old one).
  Chain produced;
  u85::Destination ofm;
  ofm.width = static_cast<int>(op.ofm.width);
  ofm.height = static_cast<int>(op.ofm.height);
  ofm.depth = static_cast<int>(op.ofm.depth);
  const DataType ofm_type = data_type(op.ofm.element);
  const uint64_t ofm_bytes = uint64_t{op.ofm.width} * op.ofm.height * op.ofm.depth * op.ofm.element.bytes();
  // A transposed or reversed OFM: the results as computed, dense, then stored element by element where they go.
  std::vector<uint8_t> computed;
  const bool permuted = isa::ofm_permuted(op);
  if (op.ofm.chained()) {
    produced = {std::vector<uint8_t>(ofm_bytes), op.ofm.width, op.ofm.height, op.ofm.depth, ofm_type};
    ofm.map = u85::dense_map(produced.bytes.data(), ofm.width, ofm.depth, ofm_type);
  } else if (permuted) {
    computed.resize(ofm_bytes);
    ofm.map = u85::dense_map(computed.data(), ofm.width, ofm.depth, ofm_type);
  } else {
    ofm.map = tensor(op.ofm, op.ofm.width, op.ofm.height, op.ofm.depth).map;
  }

  u85::Output out;
  out.type = ofm_type;
  out.zero_point = op.ofm.zero_point;
  out.clip = op.activation.clip_range == en::activation_clip_range::B16;
  out.min = op.activation.min;
  out.max = op.activation.max;
  out.lut = lut_of(op.activation.function);
  if (out.lut != u85::Lut::None) out.table = lut_ram_.data() + lut_ram_span(op).lo;

  uint64_t macs = 0;
  switch (op.kind) {
    case OpKind::CONV:
    case OpKind::DEPTHWISE:
      macs = op.weights_from_ifm2 ? matmul(op, tensor, out, ofm) : convolution(op, tensor, out, ofm);
      break;
    case OpKind::POOL: {
      if (op.loads_ifm2_into_accumulators()) {
        // NullPool: each accumulator is its IFM2 element (minus IFM2's zero point [I: Vela's own constant folding
        // subtracts it; it programs 0 for the 32-bit maps it copies]), then the output stage: a 1x1 SUM of IFM2.
        const u85::Tensor ifm2 = tensor(op.ifm2, op.ifm2.width, op.ifm2.height, op.ifm2.depth);
        const sim::HostTimer timer(host_seconds_.kernels);
        u85::pool(ifm2, u85::Window{}, u85::PoolMode::Sum, scaling_of(op.ofm_scale), out, ofm);
        break;
      }
      // By POOLING_MODE; NONE (4) without IFM2 into the accumulators is refused before.
      static constexpr u85::PoolMode kModes[] = {u85::PoolMode::Max, u85::PoolMode::Average, u85::PoolMode::ReduceSum,
                                                 u85::PoolMode::Sum, u85::PoolMode::Max,     u85::PoolMode::Min,
                                                 u85::PoolMode::ArgmaxX, u85::PoolMode::ArgmaxY};
      const bool reduce = op.pooling_mode == en::pooling_mode::REDUCE_SUM;
      const u85::Tensor ifm = tensor(op.ifm, op.ifm.width, op.ifm.height, reduce ? op.ifm.depth : op.ofm.depth);
      const sim::HostTimer timer(host_seconds_.kernels);
      const auto mode = static_cast<unsigned>(op.pooling_mode);
      if (mode >= std::size(kModes))
        throw UnknownBehaviour("not modelled: pooling mode " + std::to_string(mode));
      u85::pool(ifm, window_of(op), kModes[mode], scaling_of(op.ofm_scale), out,
                ofm);
      break;
    }
    case OpKind::ELEMENTWISE: {
      const auto operand = [&](const isa::FeatureMap& fm, const isa::Broadcast& b, const isa::Scale& s,
                               u85::Tensor& storage) {
        u85::Operand o;
        o.scaling = scaling_of(s);
        o.bh = b.h;
        o.bw = b.w;
        o.bc = b.c;
        if (b.scalar) {
          o.scalar = op.op_scalar;
          o.scalar_zero_point = fm.zero_point;
        } else {
          storage = tensor(fm, fm.width, fm.height, fm.depth);
          o.tensor = &storage;
        }
        return o;
      };
      u85::Tensor ifm, ifm2;
      const isa::Broadcast b2{op.broadcast.h, op.broadcast.w, op.broadcast.c, op.broadcast.scalar};
      const u85::Operand a = operand(op.ifm, op.ifm_broadcast, op.ifm_scale, ifm);
      const u85::Operand b = op.uses_ifm2() ? operand(op.ifm2, b2, op.ifm2_scale, ifm2) : u85::Operand{};
      u85::Operand unary_b = b;
      if (op.elementwise_mode == en::elementwise_mode::LRELU) unary_b.scaling = scaling_of(op.ifm2_scale);
      const sim::HostTimer timer(host_seconds_.kernels);
      if (!u85::elementwise(static_cast<u85::ElementwiseMode>(op.elementwise_mode), a, unary_b,
                            scaling_of(op.ofm_scale), static_cast<int>(op.ifm.element.bits()), out, ofm))
        throw UnknownBehaviour("not modelled: elementwise DIV by zero (IFM2 holds a 0): the hardware's result is not "
                               "known");
      break;
    }
    case OpKind::RESIZE: {
      const u85::Tensor ifm = tensor(op.ifm, op.ifm.width, op.ifm.height, op.ofm.depth);
      const auto& r = op.resize;
      const u85::ResizeMode mode =
          r.mode == en::resize_mode::NEAREST ? u85::ResizeMode::Nearest : u85::ResizeMode::Bilinear;
      const sim::HostTimer timer(host_seconds_.kernels);
      u85::resize(ifm, mode, {static_cast<int>(r.x_n), static_cast<int>(r.x_d), r.x_offset},
                  {static_cast<int>(r.y_n), static_cast<int>(r.y_d), r.y_offset}, scaling_of(op.ofm_scale), out, ofm);
      break;
    }
    case OpKind::DMA: break;
  }
  if (op.ofm.chained()) chains_[op.ofm.region] = std::move(produced);
  if (permuted) {
    const FeatureMap stored = tensor(op.ofm, op.ofm.width, op.ofm.height, op.ofm.depth).map;
    const unsigned es = op.ofm.element.bytes();
    const uint8_t* from = computed.data();
    for (uint32_t y = 0; y < op.ofm.height; ++y)
      for (uint32_t x = 0; x < op.ofm.width; ++x)
        for (uint32_t c = 0; c < op.ofm.depth; ++c, from += es) {
          const isa::OfmCoord at = isa::stored_ofm_coord(op, {x, y, c});
          std::copy(from, from + es,
                    stored.region + stored.layout.byte_offset(static_cast<int>(at.x), static_cast<int>(at.y),
                                                              static_cast<int>(at.c)));
        }
  }
  return macs;
}

template <typename TensorOf>
uint64_t U85Runner::matmul(const Operation& op, const TensorOf& tensor, const u85::Output& out,
                           const u85::Destination& ofm) {
  // The weights are IFM2's elements minus its zero point, OFM channel n's at IFM2 (x = n, y = 0) over the IFM's
  // depth; no bias; the global OFM scale (Vela 5.1's MatMul: GenerateConvolutionOp, GenerateIFM2, DecomposeMatmul).
  const u85::Tensor ifm2 = tensor(op.ifm2, op.ifm2.width, op.ifm2.height, op.ifm2.depth);
  const int n = static_cast<int>(op.ofm.depth), k = static_cast<int>(op.ifm.depth);
  std::vector<int32_t> dense(static_cast<size_t>(n) * static_cast<size_t>(k));
  for (int o = 0; o < n; ++o)
    for (int i = 0; i < k; ++i) dense[static_cast<size_t>(o) * k + i] = ifm2.at(o, 0, i) - ifm2.zero_point;
  const ConvWeights weights(dense.data(), n, 1, 1, k);
  std::vector<u85::ChannelScale> channels(static_cast<size_t>(n));
  for (u85::ChannelScale& c : channels) c.scaling = scaling_of(op.ofm_scale);
  const u85::Tensor ifm = tensor(op.ifm, op.ifm.width, op.ifm.height, op.ifm.depth);
  const sim::HostTimer timer(host_seconds_.kernels);
  u85::convolution(ifm, window_of(op), weights, false, channels, out, ofm, scratch_[0]);
  return uint64_t{op.ofm.width} * op.ofm.height * op.ofm.depth * op.ifm.depth;
}

template <typename TensorOf>
uint64_t U85Runner::convolution(const Operation& op, const TensorOf& tensor, const u85::Output& out,
                                const u85::Destination& ofm) {
  const bool dw = op.kind == OpKind::DEPTHWISE;
  unsigned ublock_depth = 0;
  for (const auto& [m, shape] : arch_.microblocks)
    if (m == op.microblock) ublock_depth = shape.d;
  if (ublock_depth == 0)
    throw WeightFault("ACC_FORMAT microblock " +
                      std::string(isa::enum_value_name(isa::EnumId::microblock, static_cast<uint32_t>(op.microblock),
                                                       isa::IsaVersion::V2)) +
                      ": not a micro-block of the " + arch_.describe());
  wu::Layout l;
  l.kind = dw ? weights::OpKind::DEPTHWISE : weights::OpKind::CONV;
  l.ofm_depth = static_cast<int>(op.ofm.depth);
  l.ifm_depth = static_cast<int>(op.ifm.depth);
  l.kernel_height = static_cast<int>(op.kernel.height);
  l.kernel_width = static_cast<int>(op.kernel.width);
  l.dilation_y = static_cast<int>(op.kernel.dilation_y);
  l.dilation_x = static_cast<int>(op.kernel.dilation_x);
  l.stride_y = static_cast<int>(op.kernel.stride_y);
  l.stride_x = static_cast<int>(op.kernel.stride_x);
  l.ofm_block_depth = static_cast<int>(op.block.depth);
  l.part_kernel_first = op.kernel.weight_order == en::weight_order::PART_KERNEL_FIRST;
  l.ifm_bits = static_cast<int>(op.ifm.element.bits());
  l.ofm_ublock_depth = static_cast<int>(ublock_depth);
  l.macs = static_cast<int>(arch_.macs());
  l.weight_decoders = static_cast<int>(arch_.weight_decoders);
  l.format = op.weight_format == en::weight_format::FWD ? wu::WeightFormat::FWD : wu::WeightFormat::SWD;
  l.sparse = op.weight_sparsity == en::weight_sparsity::SPARSE_2_4;

  wu::Streams streams{};
  for (size_t i = 0; i < streams.size(); ++i)
    streams[i] = {stream_bytes(regions_, op.weight_region, op.weights[i]), op.weights[i].length_bytes};
  std::shared_ptr<const ConvWeights> packed;
  std::vector<wu::ChannelScale> records;
  {
    const sim::HostTimer timer(host_seconds_.weights);
    try {
      packed = decode_weights(l, streams);
      const wu::ScaleLayout sl{l.ofm_depth, l.ofm_ublock_depth,
                               op.acc_format == en::acc_format::I48 ? wu::AccFormat::I48 : wu::AccFormat::I32};
      wu::decode_scales(stream_bytes(regions_, op.scale_region, op.scales[0]), op.scales[0].length_bytes, sl,
                        records);
    } catch (const InputError& e) {
      throw WeightFault(e.what());  // the decoders' messages name the stream or layout already
    }
  }
  std::vector<u85::ChannelScale> channels(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    channels[i].bias = records[i].bias;
    channels[i].scaling = scaling_of(op.ofm_scale);  // the rounding and double-rounding point are OFM_SCALE's
    channels[i].scaling.multiplier = records[i].multiplier;
    channels[i].scaling.shift = records[i].shift;
  }
  const u85::Tensor ifm = tensor(op.ifm, op.ifm.width, op.ifm.height, dw ? op.ofm.depth : op.ifm.depth);
  weight_stats_ = packed->stats();
  const sim::HostTimer timer(host_seconds_.kernels);
  const u85::Window window = window_of(op);
  run_in_bands(op, regions_, threads_, scratch_, [&](const OfmTile& b, KernelScratch& s) {
    u85::convolution(ifm, window, *packed, dw, channels, out, ofm, s, b.y0, b.y1);
  });
  return uint64_t{op.ofm.width} * op.ofm.height * op.ofm.depth * op.kernel.width * op.kernel.height *
         (dw ? 1 : op.ifm.depth);
}

}  // namespace ethosu::kernels
