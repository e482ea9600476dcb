// The Ethos-U85's arithmetic (plain C++, no SystemC): the scaling primitive with its six rounding modes and
// double-rounding point, the output stage with the U85's LUT types, and the convolution, depthwise, pooling,
// elementwise and resize kernels over feature maps in memory or in a chaining buffer.
//
// Contract: every function is exact (128-bit products) and reads only the elements its parameters address; bounds
// are the caller's. The rules are Vela 5.1's (hapv3/neural-compiler @478f864f:
// ethos_u85_register_cs_generator.cpp, graphir_optimiser.cpp Scale<T>()) and checked against corpus-u85:
//  * scale(v) = (v * M + r) >> shift, r by the rounding mode, with the double-rounding term D = 2^(30 - dbl_rnd)
//    when shift > 31 - dbl_rnd (DOUBLE_SYMMETRIC adds D with the sign of v, DOUBLE_ASYMMETRIC adds +D; at
//    dbl_rnd 31, D = 1/2 has no integer part and adds nothing [I]).
//  * output: + OFM zero point, clamp to ACTIVATION_MIN/MAX unless the clip range is NONE, then the LUT (its input
//    is the clamped value, saturated to the table's input type), then saturation to the OFM type.
#pragma once

#include <cstdint>
#include <vector>

#include "models/kernels/conv.h"
#include "models/kernels/feature_map.h"

namespace ethosu::kernels::u85 {

// ROUND_MODE_OFM (IFM_SCALE's two modes have the values 0 and 1).
enum class Rounding : uint8_t {
  DoubleSymmetric = 0,
  Natural = 1,
  DoubleAsymmetric = 2,
  Symmetric = 3,
  TruncateToZero = 4,
  TruncateToLower = 5
};

struct Scaling {
  uint32_t multiplier = 1;  // 31 bits
  int shift = 0;            // 0..63
  int double_round = 0;     // dbl_rnd, 0..31
  Rounding rounding = Rounding::DoubleSymmetric;
};

int64_t apply(const Scaling& s, int64_t v);

// apply() for one scaling applied to many values, with the same results: the rounding term found once, and 64-bit
// arithmetic where the product cannot leave int64 (|v| <= 2^30, M < 2^32: |v * M + term| < 2^63).
class Scaler {
 public:
  explicit Scaler(const Scaling& s);
  int64_t operator()(int64_t v) const {
    constexpr int64_t kBound = int64_t{1} << 30;
    if (fast_ && v >= -kBound && v <= kBound) return (v * int64_t{s_.multiplier} + (v < 0 ? neg_ : pos_)) >> s_.shift;
    return apply(s_, v);
  }
  // The rounding term for v >= 0 and v < 0: apply(s, v) = (v * M + term) >> shift, then saturated to int64. Both
  // lie in [0, 2^shift).
  int64_t round_pos() const { return pos_; }
  int64_t round_neg() const { return neg_; }

 private:
  Scaling s_;
  bool fast_;
  int64_t pos_ = 0, neg_ = 0;
};

// ACTIVATION.activation_function on the U85.
enum class Lut : uint8_t { None, U8U8, S8S8, S8S16, S8S32, S16S16, Tanh, Sigmoid };

// Bytes one table of that type takes in the LUT RAM (ACTIVATION.table counts in these units).
unsigned lut_bytes(Lut lut);

struct Output {
  DataType type = DataType::Int8;
  int32_t zero_point = 0;
  bool clip = true;  // activation_clip_range B16: clamp to [min, max]
  int32_t min = -128, max = 127;
  Lut lut = Lut::None;
  const uint8_t* table = nullptr;  // lut_bytes(lut) bytes of the LUT RAM
};

// The stored value of a scaled result.
int32_t finish(const Output& o, int64_t scaled);

// A feature map as a kernel reads it: memory through the tile addressing, or a chaining buffer (dense NHWC).
struct Tensor {
  FeatureMap map;
  int width = 1, height = 1, depth = 1;  // the extent the operation reads (for broadcast and clamping)
  int32_t zero_point = 0;
  int32_t at(int x, int y, int c) const {
    return load_element(map.region + map.layout.byte_offset(x, y, c), map.layout.type);
  }
};

// A dense NHWC view of `bytes` (a chaining buffer) holding width x height x depth elements of `type`.
FeatureMap dense_map(uint8_t* bytes, int width, int depth, DataType type);

struct Window {
  int kernel_width = 1, kernel_height = 1;
  int stride_x = 1, stride_y = 1;
  int dilation_x = 1, dilation_y = 1;
  int pad_top = 0, pad_left = 0;
};

struct Destination {
  FeatureMap map;
  int width = 1, height = 1, depth = 1;
};

// Per-OFM-channel bias and scale (scale stream records, or the global OFM_SCALE with bias 0).
struct ChannelScale {
  int64_t bias = 0;
  Scaling scaling;
};

// Convolution / depthwise: acc = bias + sum (ifm - zp) * w over the taps inside the IFM (padding adds 0).
// weights[((o * kh + ky) * kw + kx) * wdepth + i], wdepth = IFM depth (conv) or 1 (depthwise). The scalar
// reference of convolution() below.
void convolution_reference(const Tensor& ifm, const Window& w, const int16_t* weights, bool depthwise,
                           const std::vector<ChannelScale>& channels, const Output& out, const Destination& ofm);

// The same on the U65's convolution kernels (conv.h: SIMD sums, exact) with this output stage in SIMD where every
// value of a tile fits it (scalar otherwise), on the weights packed once per operation (ConvWeights of
// [ofm][ky][kx][IFM depth or 1]), for OFM rows [y0, y1) (-1: to the last; bands of rows may run on several threads
// at once); `scratch` holds the buffers, reused across calls.
void convolution(const Tensor& ifm, const Window& w, const ConvWeights& weights, bool depthwise,
                 const std::vector<ChannelScale>& channels, const Output& out, const Destination& ofm,
                 KernelScratch& scratch, int y0 = 0, int y1 = -1);

enum class PoolMode : uint8_t { Max, Average, Sum, ReduceSum, Min, ArgmaxX, ArgmaxY };
// MAX / MIN over the taps inside the IFM; AVERAGE: their sum / count, rounded half away from zero; SUM: the sum
// over the window (padding adds 0); REDUCE_SUM: the sum over the window and every IFM channel (OFM depth 1);
// ARGMAX_X / ARGMAX_Y: the index along the window's row / column (kernel 1 high / wide) of its first largest tap
// inside the IFM, as index << 16 (0 when no tap is inside). Then `scaling` and the output stage.
//  [I] ARGMAX: Vela 5.1 programs OFM_SCALE 1 with shift 16 "to separate values and indices", rounding
//  TRUNCATE_TO_LOWER (or DOUBLE_SYMMETRIC), and splits axes at 32768 so that the index "shifted out" is never
//  negative: the index sits in bits 16 and up, and low bits of 0 give it under either rounding. That the first of
//  equal maxima wins is TFLite's ARG_MAX, which Vela's U85 lowering relies on without correction.
void pool(const Tensor& ifm, const Window& w, PoolMode mode, const Scaling& scaling, const Output& out,
          const Destination& ofm);

// ELEMENTWISE_MODE's values.
enum class ElementwiseMode : uint8_t {
  Mul = 0, Add = 1, Sub = 2, Min = 3, Max = 4, LeakyRelu = 5, Abs = 6, Clz = 7, Shr = 8, Shl = 9, Lsr = 10, Div = 11,
  CmpEq = 16, CmpNe = 17, CmpGe = 18, CmpGt = 19, And = 33, Or = 34, Xor = 35, Not = 36, AndNot = 42
};
struct Operand {
  const Tensor* tensor = nullptr;  // null: the scalar
  int32_t scalar = 0;              // OP_SCALAR (already minus nothing: the zero point is the tensor's or below)
  int32_t scalar_zero_point = 0;
  bool bh = false, bw = false, bc = false;  // broadcast axes
  Scaling scaling;                          // IFM_SCALE / IFM2_SCALE
};
// a = IFM - zp, b = IFM2 - zp (broadcast or scalar), each scaled by its operand scale; the operation; OFM_SCALE
// (its multiplier ignored for a 32-bit IFM: only the shift applies, as on the U65 and as Vela relies on); output.
// LRELU: a >= 0 ? scale(a, IFM_SCALE) : scale(a, IFM2_SCALE), then OFM_SCALE. SHR: a >> b rounded by the OFM
// rounding mode. Shift amounts are clamped to 0..63 (SHR) and 0..31 (SHL) [I].
// The modes Vela 5.1 programs with unit scales and zero points 0 (ethos_u85_register_cs_generator.cpp, graphir_
// optimiser.cpp @478f864f), on the scaled operands all the same [I where Vela does not set scales]:
//  * CMP_EQ/NE/GE/GT: -1 where a = b, a != b, a >= b, a > b, else 0 (Vela's booleans are -1 and 0: ConvertBool8Tensors;
//    LESS is GT with the operands swapped). Different operand scales compare the scaled values.
//  * AND, OR, XOR, NOT (unary), AND_NOT = a & ~b (Vela's SELECT rewrite): on the values' two's complement bits.
//  * LSR: a's `ifm_bits` bits as unsigned, shifted right by b (TOSA LOGICAL_RIGHT_SHIFT: int8 -128 >> 1 = 64); a shift
//    of the width or more gives 0 [I].
//  * DIV: a / b truncated toward zero (TOSA INTDIV). A zero divisor's result is not known: elementwise() returns false
//    then, writing nothing.
bool elementwise(ElementwiseMode mode, const Operand& a, const Operand& b, const Scaling& ofm_scaling, int ifm_bits,
                 const Output& out, const Destination& ofm);

enum class ResizeMode : uint8_t { Bilinear, Nearest };
struct ResizeAxis {
  int n = 1, d = 1, offset = 0;  // output o samples input (o * d + offset) / n
};
// TOSA RESIZE: bilinear interpolation (weights in 1/n units) or nearest, source coordinates clamped to the IFM;
// the result carries 16 extra fractional bits, which `scaling` (OFM_SCALE, shift 16 + log2(nx * ny)) removes.
void resize(const Tensor& ifm, ResizeMode mode, const ResizeAxis& x, const ResizeAxis& y, const Scaling& scaling,
            const Output& out, const Destination& ofm);

}  // namespace ethosu::kernels::u85
