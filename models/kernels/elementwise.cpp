#include "models/kernels/elementwise.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "models/kernels/tile_bytes.h"
#include "models/kernels/simd_loops.h"
#include "models/kernels/tile_scales.h"
#include "models/kernels/weights/raw_vector.h"

namespace ethosu::kernels {

namespace {

// ADD's and SUB's operand A (or B) scaled as the operand scale mode says. The unscaled operand of the 32-bit
// modes is pre-shifted by k - 1 so that the scale pair Vela computes (k = 20 for 8-bit, 15 otherwise) yields
// TFLite's sums (§8.1).
int64_t scaled_operand(const ElementwiseParams& p, bool operand_a, int64_t v) {
  const int pre_shift = (element_size_bytes(p.ifm.layout.type) == 1 ? 20 : 15) - 1;
  switch (p.scale_mode) {
    case OperandScaleMode::OpaOpb16: return v * (operand_a ? int64_t{p.opa_scale & 0xFFFF} : int64_t{p.opb_scale});
    case OperandScaleMode::Opa32:
      return operand_a ? rounded_scale(v, p.opa_scale, p.opa_shift, p.ifm_round_mode) : v * (int64_t{1} << pre_shift);
    case OperandScaleMode::Opb32:
      return operand_a ? v * (int64_t{1} << pre_shift) : rounded_scale(v, p.opa_scale, p.opa_shift, p.ifm_round_mode);
  }
  return 0;
}

}  // namespace

int64_t elementwise_value(const ElementwiseParams& p, int64_t a, int64_t b) {
  const OutputStage& os = p.output;
  switch (p.op) {
    case ElementwiseOp::Mul: return a * b;
    case ElementwiseOp::Add:
    case ElementwiseOp::Sub: {
      const int64_t sa = scaled_operand(p, true, a), sb = scaled_operand(p, false, b);
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
void elementwise_vector(const ElementwiseParams& p, const OfmTile& blk) {
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
        fin.apply(scaled.data(), static_cast<size_t>(n));
      } else {
        for (int i = 0; i < n; ++i) scaled[i] = fin(scale(os, v[i], os.multiplier, os.shift, false));
      }
      store_channels(p.ofm, x, y, blk.c0, n, scaled.data());
    }
}

// The stored value of one element: the operation, the output scale (except LRELU's) and the finish.
int32_t element_result(const ElementwiseParams& p, const FastFinish& fin, int64_t a, int64_t b) {
  if (p.reverse_operands && !is_unary(p.op)) std::swap(a, b);
  const int64_t v = elementwise_value(p, a, b);
  if (p.op == ElementwiseOp::LRelu) return fin(v);
  return fin(scale(p.output, v, p.output.multiplier, p.output.shift, p.ifm.layout.type == DataType::Int32));
}

bool is_8bit(const FeatureMap& f) { return element_size_bytes(f.layout.type) == 1; }

// The value of an 8-bit element's byte, sign- or zero-extended.
int64_t byte_value(const FeatureMap& f, int raw) {
  return f.layout.type == DataType::Int8 ? int64_t{static_cast<int8_t>(raw)} : int64_t{raw};
}

// The bytes of channels [c0, c0 + n) of pixels (x0 + k, y), k < count, of an 8-bit map, pixel k at dst + k * n;
// axes of extent 1 (bw, bh, bc) broadcast.
void read_bytes(const FeatureMap& f, int x0, int y, int count, int c0, int n, bool bw, bool bh, bool bc,
                uint8_t* dst) {
  const FeatureMapLayout& l = f.layout;
  for (int k = 0; k < count; ++k, dst += n) {
    const uint8_t* pix = f.region + l.pixel_offset(bw ? 0 : x0 + k, bh ? 0 : y);
    if (bc) {
      std::fill(dst, dst + n, pix[0]);
      continue;
    }
    for (int c = 0; c < n;) {
      const int cc = c0 + c;
      const int run = l.layout == Layout::NHWC ? n - c : std::min(n - c, 16 - cc % 16);
      std::memcpy(dst + c, pix + l.channel_offset(cc), static_cast<size_t>(run));
      c += run;
    }
  }
}

int64_t tile_elements(const OfmTile& b) { return int64_t{b.x1 - b.x0} * (b.y1 - b.y0) * (b.c1 - b.c0); }

// The block sizes from which the tables pay for themselves (measured on the KWS LSTM's small operations): the
// results of 256 bytes cost about as much as 256 elements of the other paths, the operand terms much less.
constexpr int64_t kOneOperandTableMin = 1024;
constexpr int64_t kTwoOperandTablesMin = 512;

// Every result a function of one 8-bit IFM byte (a unary operation, a scalar IFM2 or an IFM2 of one element):
// the 256 results computed once with the per-element definition, the block a table lookup (each row, or with an
// 8-bit OFM the whole block, read before it is written).
bool one_operand_table(const ElementwiseParams& p, const OfmTile& blk) {
  const bool single_ifm2 = p.ifm2_is_scalar || (p.broadcast_h && p.broadcast_w && p.broadcast_c);
  if (!is_8bit(p.ifm) || !(is_unary(p.op) || single_ifm2) || tile_elements(blk) < kOneOperandTableMin) return false;
  int64_t b = int64_t{p.ifm2_scalar} - p.ifm2_zero_point;
  if (!is_unary(p.op) && !p.ifm2_is_scalar)
    b = int64_t{load_element(p.ifm2.region + p.ifm2.layout.pixel_offset(0, 0), p.ifm2.layout.type)} - p.ifm2_zero_point;
  const FastFinish fin(p.output);
  int32_t table[256];
  for (int raw = 0; raw < 256; ++raw) table[raw] = element_result(p, fin, byte_value(p.ifm, raw) - p.ifm_zero_point, b);
  if (element_size_bytes(p.ofm.layout.type) == 1) {
    // Byte to byte: the whole block read, then written through the table.
    uint8_t bytes_table[256];
    for (int raw = 0; raw < 256; ++raw) bytes_table[raw] = static_cast<uint8_t>(table[raw]);
    const TileBytes block(blk, p.ifm.layout.layout == Layout::NHCWB16 || p.ofm.layout.layout == Layout::NHCWB16);
    weights::RawVector<uint8_t> values(block.size());  // no zero-fill: the spans below write every byte
    block.spans(p.ifm, 1, 1, 0, [&](const uint8_t* map, size_t at, size_t n) { std::memcpy(values.data() + at, map, n); });
    block.spans(p.ofm, 1, 1, 0, [&](uint8_t* map, size_t at, size_t n) { lookup_bytes(bytes_table, values.data() + at, map, n); });
    return true;
  }
  const int n = blk.c1 - blk.c0, count = blk.x1 - blk.x0;
  const size_t elements = static_cast<size_t>(count) * static_cast<size_t>(n);
  std::vector<uint8_t> bytes(elements);
  std::vector<int32_t> values(elements);
  for (int y = blk.y0; y < blk.y1; ++y) {
    read_bytes(p.ifm, blk.x0, y, count, blk.c0, n, false, false, false, bytes.data());
    for (size_t i = 0; i < elements; ++i) values[i] = table[bytes[i]];
    store_pixels(p.ofm, blk.x0, y, count, blk.c0, n, values.data(), n);
  }
  return true;
}

// ADD, SUB, MUL, MIN and MAX of two 8-bit maps into a narrower-than-32-bit OFM without function: each operand's
// term (its value minus the zero point, for ADD/SUB scaled as elementwise_value() scales it, SUB's negated) from
// a 256-entry table, exact in int64; when the terms' combination provably fits int32, the rows are combined from
// the tables and requantised in SIMD (requantize_tile), each row read before it is written.
bool two_operand_tables(const ElementwiseParams& p, const OfmTile& blk) {
  const OutputStage& os = p.output;
  if (!is_8bit(p.ifm) || p.ifm2_is_scalar || !is_8bit(p.ifm2) || is_unary(p.op) ||
      tile_elements(blk) < kTwoOperandTablesMin ||
      p.op == ElementwiseOp::Shr || p.op == ElementwiseOp::Shl || os.function != ActivationFunction::None ||
      os.ofm_type == DataType::Int32)
    return false;
  const bool add_sub = p.op == ElementwiseOp::Add || p.op == ElementwiseOp::Sub;
  // Operand A's and B's terms (after the operand order) of a value.
  const auto term = [&](bool operand_a, int64_t v) -> int64_t {
    if (!add_sub) return v;
    const int64_t t = scaled_operand(p, operand_a, v);
    return operand_a || p.op == ElementwiseOp::Add ? t : -t;
  };
  int64_t t1[256], t2[256], m1 = 0, m2 = 0;
  for (int raw = 0; raw < 256; ++raw) {
    t1[raw] = term(!p.reverse_operands, byte_value(p.ifm, raw) - p.ifm_zero_point);
    t2[raw] = term(p.reverse_operands, byte_value(p.ifm2, raw) - p.ifm2_zero_point);
    m1 = std::max(m1, t1[raw] < 0 ? -t1[raw] : t1[raw]);
    m2 = std::max(m2, t2[raw] < 0 ? -t2[raw] : t2[raw]);
  }
  // Bounds below 2^62 each, so neither the sum nor the product of the bounds overflows.
  if (m1 > INT32_MAX || m2 > INT32_MAX) return false;
  if (p.op == ElementwiseOp::Mul ? m1 * m2 > INT32_MAX : add_sub && m1 + m2 > INT32_MAX) return false;
  const FastFinish fin(os);
  OutputStage global = os;  // the global scale without bias
  global.per_channel = false, global.channels = nullptr;
  std::vector<int64_t> storage;
  const TileScales scales(global, blk.c0, blk.c1, INT64_MIN, INT64_MAX, os.ofm_zero_point, fin.low(), fin.high(),
                          storage);
  if (!scales.vector_ok()) return false;
  int32_t a32[256], b32[256];
  for (int raw = 0; raw < 256; ++raw) a32[raw] = static_cast<int32_t>(t1[raw]), b32[raw] = static_cast<int32_t>(t2[raw]);

  const int n = blk.c1 - blk.c0, count = blk.x1 - blk.x0;
  const size_t elements = static_cast<size_t>(count) * static_cast<size_t>(n);
  const auto out_stride = static_cast<ptrdiff_t>(round_up_lanes(static_cast<size_t>(n)));
  std::vector<uint8_t> bytes1(elements), bytes2(elements);
  std::vector<int32_t> v(elements + kRequantizeLanes), out(static_cast<size_t>(count * out_stride));
  Requantize32 r32;
  const RequantizeParams rq = scales.at(0, r32);
  for (int y = blk.y0; y < blk.y1; ++y) {
    read_bytes(p.ifm, blk.x0, y, count, blk.c0, n, false, false, false, bytes1.data());
    read_bytes(p.ifm2, blk.x0, y, count, blk.c0, n, p.broadcast_w, p.broadcast_h, p.broadcast_c, bytes2.data());
    const uint8_t *x1 = bytes1.data(), *x2 = bytes2.data();
    switch (p.op) {
      case ElementwiseOp::Mul: for (size_t i = 0; i < elements; ++i) v[i] = a32[x1[i]] * b32[x2[i]]; break;
      case ElementwiseOp::Min: for (size_t i = 0; i < elements; ++i) v[i] = std::min(a32[x1[i]], b32[x2[i]]); break;
      case ElementwiseOp::Max: for (size_t i = 0; i < elements; ++i) v[i] = std::max(a32[x1[i]], b32[x2[i]]); break;
      default: for (size_t i = 0; i < elements; ++i) v[i] = a32[x1[i]] + b32[x2[i]]; break;
    }
    if (requantize_tile(v.data(), n, count, n, rq, out.data(), out_stride)) {
      store_pixels(p.ofm, blk.x0, y, count, blk.c0, n, out.data(), out_stride);
      continue;
    }
    for (size_t i = 0; i < elements; ++i) v[i] = fin(scale(os, v[i], os.multiplier, os.shift, false));
    store_pixels(p.ofm, blk.x0, y, count, blk.c0, n, v.data(), n);
  }
  return true;
}

}  // namespace

void elementwise_tile(const ElementwiseParams& p, const OfmTile& blk) {
  if (blk.x0 >= blk.x1 || blk.y0 >= blk.y1 || blk.c0 >= blk.c1) return;
  if (one_operand_table(p, blk) || two_operand_tables(p, blk)) return;
  if (vector_path_applies(p)) {
    elementwise_vector(p, blk);
    return;
  }
  const OutputStage& os = p.output;
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
        const int64_t a = int64_t{load_element(in1 + p.ifm.layout.channel_offset(c), t1)} - p.ifm_zero_point;
        const int64_t b = use_ifm2 ? int64_t{load_element(in2 + p.ifm2.layout.channel_offset(p.broadcast_c ? 0 : c), t2)} -
                                         p.ifm2_zero_point
                                   : scalar_b;
        store_element(out + p.ofm.layout.channel_offset(c), to, element_result(p, fin, a, b));
      }
    }
}

void elementwise(const ElementwiseParams& p) {
  elementwise_tile(p, OfmTile{0, p.ofm_width, 0, p.ofm_height, 0, p.ofm_depth});
}

}  // namespace ethosu::kernels
