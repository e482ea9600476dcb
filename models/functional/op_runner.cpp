#include "models/functional/op_runner.h"

#include <string>

#include "models/functional/executor.h"
#include "models/kernels/elementwise.h"
#include "models/kernels/pool.h"
#include "sim/error.h"

namespace ethosu::functional {

using isa::Access;
using isa::OpKind;
using isa::Operation;
namespace en = isa::enums;

std::vector<AccessRange> accesses(const Operation& op) {
  std::vector<AccessRange> out;
  auto fm = [&](Access a, const isa::FeatureMap& f) {
    out.push_back({a, f.region, isa::feature_map_span(f, f.width, f.height, f.depth)});
  };
  fm(Access::IFM, op.ifm);
  if (op.reads_ifm2()) fm(Access::IFM2, op.ifm2);
  fm(Access::OFM, op.ofm);
  for (unsigned core = 0; core < op.cores(); ++core) {
    auto stream = [&](Access a, unsigned region, const isa::StreamRef& s) {
      out.push_back({a, region, {static_cast<int64_t>(s.base), static_cast<int64_t>(s.base + s.length_bytes)}});
    };
    if (op.reads_weights()) stream(Access::WEIGHTS, op.weight_region, op.weights[core]);
    if (op.reads_scales()) stream(Access::SCALES, op.scale_region, op.scales[core]);
  }
  return out;
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

OpRunner::OpRunner(const Regions& regions, std::vector<std::vector<uint8_t>>& shram)
    : regions_(regions), shram_(shram) {}

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
    // LUT slot n sits at LUT_BASE + 256 n, LUT_BASE being the end of the banks the kernels may use
    // (spec 03 section 6.2); each core holds its own copy and the model reads core 0's.
    const size_t lut_base = size_t{1024} * (shram_.front().size() / 1024 - 2);
    os.function = kernels::ActivationFunction::Table;
    os.lut = shram_.front().data() + lut_base + 256 * (f - static_cast<unsigned>(en::activation_function::TABLE_0));
  }
  return os;
}

void OpRunner::decode_weights(const Operation& op) {
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
  try {
    weights::prepare(l, dense_);
    std::fill(dense_.values.begin(), dense_.values.end(), int16_t{0});
    for (unsigned core = 0; core < op.cores(); ++core) {
      l.core = static_cast<int>(core);
      const auto& s = op.weights[core];
      weights::decode_weights(l, regions_.at(op.weight_region).data + s.base, s.length_bytes, dense_);
    }
  } catch (const InputError& e) {
    throw WeightFault(std::string("weight stream: ") + e.what());
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
    const uint8_t* p = regions_.at(op.scale_region).data + s.base;
    for (size_t i = 0; i < n; ++i) scales_[i * cores + core] = kernels::decode_scale_bias(p + i * kEntryBytes);
  }
}

uint64_t OpRunner::conv(const Operation& op) {
  decode_weights(op);
  scales_.clear();
  if (op.reads_scales()) decode_scales(op);
  kernels::ConvParams p;
  p.ifm = feature_map(op.ifm);
  p.ifm_zero_point = op.ifm.zero_point;
  p.ifm_depth = static_cast<int>(op.ifm.depth);
  p.ofm = feature_map(op.ofm);
  p.ofm_width = static_cast<int>(op.ofm.width);
  p.ofm_height = static_cast<int>(op.ofm.height);
  p.ofm_depth = static_cast<int>(op.ofm.depth);
  p.kernel = geometry(op);
  p.acc_format = op.acc_format == en::acc_format::I40 ? kernels::AccFormat::Int40 : kernels::AccFormat::Int32;
  p.output = output_stage(op);
  const bool dw = op.kind == OpKind::DEPTHWISE;
  const kernels::ConvWeights w(dense_.values.data(), dense_.ofm_depth, dense_.kernel_height, dense_.kernel_width,
                               dense_.depth);
  if (dw) kernels::depthwise(p, w);
  else kernels::conv(p, w);
  return uint64_t{op.ofm.width} * op.ofm.height * op.ofm.depth * op.kernel.width * op.kernel.height *
         (dw ? 1 : op.ifm.depth);
}

uint64_t OpRunner::pool(const Operation& op) {
  scales_.clear();
  kernels::PoolParams p;
  p.mode = static_cast<kernels::PoolMode>(op.pooling_mode);
  p.ifm = feature_map(op.ifm);
  p.ifm_zero_point = op.ifm.zero_point;
  p.ifm_depth = static_cast<int>(op.ifm.depth);
  p.ofm = feature_map(op.ofm);
  p.ofm_width = static_cast<int>(op.ofm.width);
  p.ofm_height = static_cast<int>(op.ofm.height);
  p.ofm_depth = static_cast<int>(op.ofm.depth);
  p.kernel = geometry(op);
  p.output = output_stage(op);
  kernels::pool(p);
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
  kernels::elementwise(p);
  return 0;
}

uint64_t OpRunner::execute(const Operation& op) {
  switch (op.kind) {
    case OpKind::CONV:
    case OpKind::DEPTHWISE: return conv(op);
    case OpKind::POOL: return pool(op);
    case OpKind::ELEMENTWISE: return elementwise(op);
    case OpKind::DMA: break;
  }
  return 0;
}

}  // namespace ethosu::functional
