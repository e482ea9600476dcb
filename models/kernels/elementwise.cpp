#include "models/kernels/elementwise.h"

#include <algorithm>

namespace ethosu::kernels {

int64_t elementwise_value(const ElementwiseParams& p, int64_t a, int64_t b) {
  const OutputStage& os = p.output;
  switch (p.op) {
    case ElementwiseOp::Mul: return a * b;
    case ElementwiseOp::Add:
    case ElementwiseOp::Sub: {
      // The unscaled operand of the 32-bit modes is pre-shifted by k - 1 so that the scale pair
      // Vela computes (k = 20 for 8-bit, 15 otherwise) yields TFLite's sums (§8.1).
      const bool ifm8 = element_size_bytes(p.ifm.layout.type) == 1;
      const int pre_shift = (ifm8 ? 20 : 15) - 1;
      int64_t sa = 0, sb = 0;
      switch (p.scale_mode) {
        case OperandScaleMode::OpaOpb16:
          sa = a * static_cast<int64_t>(p.opa_scale & 0xFFFF);
          sb = b * int64_t{p.opb_scale};
          break;
        case OperandScaleMode::Opa32:
          sa = rounded_scale(a, p.opa_scale, p.opa_shift, p.ifm_round_mode);
          sb = b * (int64_t{1} << pre_shift);
          break;
        case OperandScaleMode::Opb32:
          sa = a * (int64_t{1} << pre_shift);
          sb = rounded_scale(b, p.opa_scale, p.opa_shift, p.ifm_round_mode);
          break;
      }
      return p.op == ElementwiseOp::Add ? sa + sb : sa - sb;
    }
    case ElementwiseOp::Min: return std::min(a, b);
    case ElementwiseOp::Max: return std::max(a, b);
    case ElementwiseOp::LRelu:
      return a >= 0 ? a
                    : scale(os, a, os.multiplier, os.shift, p.ifm.layout.type == DataType::Int32);
    case ElementwiseOp::Abs: return a < 0 ? -a : a;
    case ElementwiseOp::Clz: {
      const auto u = static_cast<uint32_t>(a);
      return u == 0 ? 32 : __builtin_clz(u);
    }
    case ElementwiseOp::Shr:
      // Shift amounts outside 0..63 are clamped [I].
      return rounded_scale(a, 1, static_cast<int>(std::clamp<int64_t>(b, 0, 63)), os.round_mode);
    case ElementwiseOp::Shl:
      // Kept exact (saturating at 64 bits) and saturated when stored; shifts clamped to 0..31 [I].
      // A multiply, not <<: shifting a negative value left is undefined in C++17.
      return saturate_int64(static_cast<int128_t>(a) * (int128_t{1} << std::clamp<int64_t>(b, 0, 31)));
  }
  return 0;
}

void elementwise_block(const ElementwiseParams& p, const OfmBlock& blk) {
  const OutputStage& os = p.output;
  const bool ifm32 = p.ifm.layout.type == DataType::Int32;
  const bool unary = is_unary(p.op);
  const bool use_ifm2 = !unary && !p.ifm2_is_scalar;
  const FastFinish fin(os);
  const DataType t1 = p.ifm.layout.type, t2 = p.ifm2.layout.type, to = os.ofm_type;
  const int64_t scalar_b = int64_t{p.ifm2_scalar} - p.ifm2_zero_point;
  for (int y = blk.y0; y < blk.y1; ++y)
    for (int x = blk.x0; x < blk.x1; ++x) {
      const uint8_t* in1 = p.ifm.region + p.ifm.layout.pixel_offset(x, y);
      const uint8_t* in2 =
          use_ifm2 ? p.ifm2.region + p.ifm2.layout.pixel_offset(p.broadcast_w ? 0 : x, p.broadcast_h ? 0 : y)
                   : nullptr;
      uint8_t* out = p.ofm.region + p.ofm.layout.pixel_offset(x, y);
      for (int c = blk.c0; c < blk.c1; ++c) {
        int64_t a = int64_t{load_element(in1 + p.ifm.layout.channel_offset(c), t1)} - p.ifm_zero_point;
        int64_t b = use_ifm2 ? int64_t{load_element(in2 + p.ifm2.layout.channel_offset(p.broadcast_c ? 0 : c), t2)} -
                                   p.ifm2_zero_point
                             : scalar_b;
        if (p.reverse_operands && !unary) std::swap(a, b);
        int64_t v = elementwise_value(p, a, b);
        if (p.op != ElementwiseOp::LRelu) v = scale(os, v, os.multiplier, os.shift, ifm32);
        store_element(out + p.ofm.layout.channel_offset(c), to, fin(v));
      }
    }
}

void elementwise(const ElementwiseParams& p) {
  elementwise_block(p, OfmBlock{0, p.ofm_width, 0, p.ofm_height, 0, p.ofm_depth});
}

}  // namespace ethosu::kernels
