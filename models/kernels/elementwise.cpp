#include "models/kernels/elementwise.h"

#include <algorithm>
#include <vector>

#include "models/kernels/simd_loops.h"

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

namespace {

// The binary operations on 8/16-bit operands whose exact value fits int64 without 128-bit steps, with an
// output stage whose scale the SIMD path handles (shift <= 61) and a zero point small enough that
// scaling clamped to int32 first changes nothing.
bool vector_path_applies(const ElementwiseParams& p) {
  switch (p.op) {
    case ElementwiseOp::Add:
    case ElementwiseOp::Sub:
    case ElementwiseOp::Mul:
    case ElementwiseOp::Min:
    case ElementwiseOp::Max: break;
    default: return false;
  }
  const auto narrow = [](const FeatureMap& f) { return element_size_bytes(f.layout.type) <= 2; };
  const auto small = [](int64_t v) { return v >= -65536 && v <= 65536; };
  const bool operand_scale_ok = p.scale_mode == OperandScaleMode::OpaOpb16 || p.opa_shift <= 61;
  return narrow(p.ifm) && (p.ifm2_is_scalar || narrow(p.ifm2)) && p.output.shift <= 61 && operand_scale_ok &&
         small(p.output.ofm_zero_point) && small(p.ifm_zero_point) && small(p.ifm2_zero_point) &&
         small(p.ifm2_scalar);
}

// rounded_scale() for |x| <= 2^30 and m < 2^32, where the product and its rounding fit int64.
int64_t rounded_scale_small(int64_t x, uint32_t m, int shift, RoundMode mode) {
  const int64_t prod = x * m;
  if (shift == 0) return prod;
  return (prod + round_addend(mode, shift, x < 0)) >> shift;
}

// Reads channels [c0, c0 + n) of pixel (x, y) minus the zero point, by contiguous runs.
void read_pixel(const FeatureMap& f, int x, int y, int c0, int n, int32_t zp, int32_t* dst) {
  const FeatureMapLayout& l = f.layout;
  const uint8_t* pix = f.region + l.pixel_offset(x, y);
  const int es = element_size_bytes(l.type);
  for (int c = 0; c < n;) {
    const int cc = c0 + c;
    const int run = l.layout == Layout::NHWC ? n - c : std::min(n - c, 16 - cc % 16);
    const uint8_t* src = pix + l.channel_offset(cc);
    switch (l.type) {
      case DataType::UInt8: for (int k = 0; k < run; ++k) dst[c + k] = int32_t{src[k]} - zp; break;
      case DataType::Int8: for (int k = 0; k < run; ++k) dst[c + k] = int32_t{static_cast<int8_t>(src[k])} - zp; break;
      default: for (int k = 0; k < run; ++k) dst[c + k] = load_element(src + k * es, l.type) - zp; break;
    }
    c += run;
  }
}

// One pixel at a time: operands read by runs, the operation over the pixel's channels in plain loops,
// the output scale in SIMD (requantize_tile), then the zero point, activation or LUT. The whole pixel is
// read before it is written, so an OFM may still alias its IFM exactly.
void elementwise_vector(const ElementwiseParams& p, const OfmBlock& blk) {
  const OutputStage& os = p.output;
  const int n = blk.c1 - blk.c0;
  const size_t padded = (static_cast<size_t>(n) + kRequantizeLanes - 1) / kRequantizeLanes * kRequantizeLanes;
  std::vector<int32_t> a(padded), b(padded), v32(padded), scaled(padded);
  std::vector<int64_t> v(padded);
  // The global OFM scale as per-channel arrays, and no accumulator saturation or clamp: only the scaling.
  const int64_t m = os.multiplier, shift = os.shift;
  const std::vector<int64_t> zeros(padded, 0), mult(padded, m), shifts(padded, shift),
      mask(padded, static_cast<int64_t>((uint64_t{1} << shift) - 1)),
      rpos(padded, round_addend(os.round_mode, os.shift, false)), rneg(padded, round_addend(os.round_mode, os.shift, true));
  const RequantizeParams rq{zeros.data(), mult.data(), shifts.data(), mask.data(), rpos.data(), rneg.data(),
                            INT64_MIN,    INT64_MAX,   0,             INT32_MIN,   INT32_MAX};
  const FastFinish fin(os);
  const int32_t scalar_b = p.ifm2_scalar - p.ifm2_zero_point;
  const bool ifm8 = element_size_bytes(p.ifm.layout.type) == 1;
  const int pre_shift = (ifm8 ? 20 : 15) - 1;
  for (int y = blk.y0; y < blk.y1; ++y)
    for (int x = blk.x0; x < blk.x1; ++x) {
      read_pixel(p.ifm, x, y, blk.c0, n, p.ifm_zero_point, a.data());
      if (p.ifm2_is_scalar) {
        std::fill(b.begin(), b.begin() + n, scalar_b);
      } else if (p.broadcast_c) {
        read_pixel(p.ifm2, p.broadcast_w ? 0 : x, p.broadcast_h ? 0 : y, 0, 1, p.ifm2_zero_point, b.data());
        std::fill(b.begin() + 1, b.begin() + n, b[0]);
      } else {
        read_pixel(p.ifm2, p.broadcast_w ? 0 : x, p.broadcast_h ? 0 : y, blk.c0, n, p.ifm2_zero_point, b.data());
      }
      const int32_t* A = p.reverse_operands ? b.data() : a.data();
      const int32_t* B = p.reverse_operands ? a.data() : b.data();
      switch (p.op) {
        case ElementwiseOp::Mul: for (int i = 0; i < n; ++i) v[i] = int64_t{A[i]} * B[i]; break;
        case ElementwiseOp::Min: for (int i = 0; i < n; ++i) v[i] = std::min(A[i], B[i]); break;
        case ElementwiseOp::Max: for (int i = 0; i < n; ++i) v[i] = std::max(A[i], B[i]); break;
        default: {
          // ADD/SUB with the operand scaling of elementwise_value().
          const int64_t sign = p.op == ElementwiseOp::Add ? 1 : -1;
          switch (p.scale_mode) {
            case OperandScaleMode::OpaOpb16: {
              const int64_t sa = p.opa_scale & 0xFFFF, sb = p.opb_scale;
              for (int i = 0; i < n; ++i) v[i] = A[i] * sa + sign * (B[i] * sb);
              break;
            }
            case OperandScaleMode::Opa32:
              for (int i = 0; i < n; ++i)
                v[i] = rounded_scale_small(A[i], p.opa_scale, p.opa_shift, p.ifm_round_mode) + sign * (int64_t{B[i]} * (int64_t{1} << pre_shift));
              break;
            case OperandScaleMode::Opb32:
              for (int i = 0; i < n; ++i)
                v[i] = int64_t{A[i]} * (int64_t{1} << pre_shift) + sign * rounded_scale_small(B[i], p.opa_scale, p.opa_shift, p.ifm_round_mode);
              break;
          }
        }
      }
      bool fits = true;
      for (int i = 0; i < n; ++i) {
        fits = fits && v[i] >= INT32_MIN && v[i] <= INT32_MAX;
        v32[i] = static_cast<int32_t>(v[i]);
      }
      if (fits && requantize_tile(v32.data(), 0, 1, n, rq, scaled.data(), 0)) {
        for (int i = 0; i < n; ++i) scaled[i] = fin(scaled[i]);
      } else {
        for (int i = 0; i < n; ++i) scaled[i] = fin(scale(os, v[i], os.multiplier, os.shift, false));
      }
      store_channels(p.ofm, x, y, blk.c0, n, scaled.data());
    }
}

}  // namespace

void elementwise_block(const ElementwiseParams& p, const OfmBlock& blk) {
  if (blk.x0 >= blk.x1 || blk.y0 >= blk.y1 || blk.c0 >= blk.c1) return;
  if (vector_path_applies(p)) {
    elementwise_vector(p, blk);
    return;
  }
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
