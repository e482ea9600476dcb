#include "models/kernels/u85_kernels.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>

#include "models/kernels/output_stage.h"
#include "models/kernels/simd_loops.h"
#include "models/kernels/tile_scales.h"

namespace ethosu::kernels::u85 {

namespace {

int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

int32_t read_le(const uint8_t* p, int bytes) {
  uint32_t u = 0;
  for (int i = 0; i < bytes; ++i) u |= uint32_t{p[i]} << (8 * i);
  if (bytes == 2) return static_cast<int16_t>(static_cast<uint16_t>(u));
  if (bytes == 1) return static_cast<int8_t>(static_cast<uint8_t>(u));
  return static_cast<int32_t>(u);
}

// The interpolated 16-bit table: 512 entries of (base int16 | slope int16 << 16) over the int16 input range.
int32_t lut16(const uint8_t* table, int64_t v) {
  const auto u = static_cast<int32_t>(clamp64(v, -32768, 32767) + 32768);
  const uint8_t* e = table + 4 * (u >> 7);
  const int32_t base = read_le(e, 2), slope = read_le(e + 2, 2);
  return base + ((slope * (u & 0x7F) + 64) >> 7);
}

// The double-rounding term D = 2^(30 - dbl_rnd) once the shift passes 31 - dbl_rnd. DBL_RND is a 5-bit field:
// at 31 the term, half a unit of the product, has no integer part and adds 0 [I: no source covers 31; Vela writes
// at most 20].
int64_t double_round_term(const Scaling& s) {
  if (s.shift <= 31 - s.double_round || s.double_round > 30) return 0;
  return int64_t{1} << (30 - s.double_round);
}

// The rounding term r of each mode for a value v >= 0 and v < 0: scale(v) = (v * M + r) >> shift.
struct RoundingTerms {
  int64_t pos = 0, neg = 0;
};
RoundingTerms rounding_terms(const Scaling& s) {
  if (s.shift == 0) return {};
  const int64_t half = int64_t{1} << (s.shift - 1);
  const int64_t d = double_round_term(s);
  switch (s.rounding) {
    case Rounding::DoubleSymmetric: return {half + d, half - d};
    case Rounding::Natural: return {half, half};
    case Rounding::DoubleAsymmetric: return {half + d, half + d};
    case Rounding::Symmetric: return {half, half - 1};
    case Rounding::TruncateToZero: return {0, static_cast<int64_t>((uint64_t{1} << s.shift) - 1)};
    case Rounding::TruncateToLower: break;
  }
  return {};
}

}  // namespace

int64_t apply(const Scaling& s, int64_t v) {
  const int128_t p = static_cast<int128_t>(v) * s.multiplier;
  if (s.shift == 0) return saturate_int64(p);
  const RoundingTerms r = rounding_terms(s);
  return saturate_int64((p + (v < 0 ? r.neg : r.pos)) >> s.shift);
}

Scaler::Scaler(const Scaling& s) : s_(s), fast_(s.shift <= 62) {
  const RoundingTerms r = rounding_terms(s);
  pos_ = r.pos, neg_ = r.neg;
}

unsigned lut_bytes(Lut lut) {
  switch (lut) {
    case Lut::None: return 0;
    case Lut::U8U8:
    case Lut::S8S8: return 256;
    case Lut::S8S16: return 512;
    case Lut::S8S32: return 1024;
    case Lut::S16S16:
    case Lut::Tanh:
    case Lut::Sigmoid: return 2048;
  }
  return 0;
}

namespace {

// finish() after the activation clamp: the table, then the saturation to the OFM type.
int32_t table_and_saturate(const Output& o, int64_t y) {
  switch (o.lut) {
    case Lut::None: break;
    case Lut::U8U8: y = o.table[clamp64(y, 0, 255)]; break;
    case Lut::S8S8: y = static_cast<int8_t>(o.table[clamp64(y, -128, 127) + 128]); break;
    case Lut::S8S16: y = read_le(o.table + 2 * (clamp64(y, -128, 127) + 128), 2); break;
    case Lut::S8S32: y = read_le(o.table + 4 * (clamp64(y, -128, 127) + 128), 4); break;
    case Lut::S16S16: y = lut16(o.table, y); break;
    case Lut::Tanh:
    case Lut::Sigmoid: break;
  }
  return static_cast<int32_t>(clamp64(y, type_min(o.type), type_max(o.type)));
}

}  // namespace

int32_t finish(const Output& o, int64_t scaled) {
  int64_t y = add_saturating(scaled, o.zero_point);
  // The built-in int16 functions take the scaled input unclamped (Vela programs ACTIVATION_MIN/MAX as the int16
  // range and an input scale that reaches beyond it) and clamp their result.
  if (o.lut == Lut::Tanh || o.lut == Lut::Sigmoid) {
    y = o.lut == Lut::Tanh ? int16_tanh(y) : int16_sigmoid(y);
    if (o.clip) y = clamp64(y, o.min, o.max);
    return static_cast<int32_t>(clamp64(y, type_min(o.type), type_max(o.type)));
  }
  if (o.clip) y = clamp64(y, o.min, o.max);
  return table_and_saturate(o, y);
}

FeatureMap dense_map(uint8_t* bytes, int width, int depth, DataType type) {
  FeatureMap m;
  m.region = bytes;
  FeatureMapLayout& l = m.layout;
  // One tile: every coordinate in tile 0. Not INT32_MAX: the kernels compute width0 - x for windows from x < 0.
  constexpr int32_t kOneTile = int32_t{1} << 30;
  l.width0 = kOneTile;
  l.height0 = kOneTile;
  l.height1 = kOneTile;
  l.type = type;
  l.layout = Layout::NHWC;
  l.stride_x = int64_t{depth} * element_size_bytes(type);
  l.stride_y = l.stride_x * width;
  l.stride_c = element_size_bytes(type);
  return m;
}

namespace {

void store(const Destination& d, int x, int y, int c, int32_t v) {
  store_element(d.map.region + d.map.layout.byte_offset(x, y, c), d.map.layout.type, v);
}

// The IFM minus its zero point, with `pad` zeros around it where windows reach outside: [row][col][channel].
struct Padded {
  int rows = 0, cols = 0, depth = 0, top = 0, left = 0;
  std::vector<int32_t> v;
  const int32_t* at(int y, int x) const {
    return v.data() + (static_cast<size_t>(y + top) * cols + static_cast<size_t>(x + left)) * depth;
  }
};

Padded gather(const Tensor& t, int top, int left, int bottom, int right) {
  Padded p;
  p.top = top;
  p.left = left;
  p.depth = t.depth;
  p.rows = t.height + top + bottom;
  p.cols = t.width + left + right;
  p.v.assign(static_cast<size_t>(p.rows) * p.cols * p.depth, 0);
  for (int y = 0; y < t.height; ++y)
    for (int x = 0; x < t.width; ++x) {
      int32_t* dst = p.v.data() + (static_cast<size_t>(y + top) * p.cols + static_cast<size_t>(x + left)) * p.depth;
      const uint8_t* pix = t.map.region + t.map.layout.pixel_offset(x, y);
      for (int c = 0; c < t.depth; ++c)
        dst[c] = load_element(pix + t.map.layout.channel_offset(c), t.map.layout.type) - t.zero_point;
    }
  return p;
}

// Padding wide enough that every tap of every output lands in the padded IFM.
Padded gather_for(const Tensor& ifm, const Window& w, const Destination& ofm) {
  const int reach_y = (ofm.height - 1) * w.stride_y + (w.kernel_height - 1) * w.dilation_y + 1;
  const int reach_x = (ofm.width - 1) * w.stride_x + (w.kernel_width - 1) * w.dilation_x + 1;
  return gather(ifm, w.pad_top, w.pad_left, std::max(0, reach_y - w.pad_top - ifm.height),
                std::max(0, reach_x - w.pad_left - ifm.width));
}

bool inside(int v, int extent) { return v >= 0 && v < extent; }

// The padded IFM as int16 when every value fits (8-bit feature maps), else empty: int16 x int16 products summed in
// int32 are what the compiler vectorises (pmaddwd and its kin), several times faster than int64 sums.
std::vector<int16_t> narrow(const Padded& in, int32_t& largest) {
  largest = 0;
  for (const int32_t v : in.v) largest = std::max(largest, std::abs(v));
  if (largest > std::numeric_limits<int16_t>::max()) return {};
  return std::vector<int16_t>(in.v.begin(), in.v.end());
}

// How many products of values up to `a` and `b` in magnitude an int32 may sum without overflow (at least one).
int int32_terms(int64_t a, int64_t b) {
  const int64_t product = a * b;
  if (product == 0) return std::numeric_limits<int>::max();
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(std::numeric_limits<int>::max(),
                                                                   std::numeric_limits<int32_t>::max() / product)));
}

// The exact dot product of a and b, in int32 runs of at most `terms` products.
int64_t dot(const int16_t* a, const int16_t* b, int n, int terms) {
  int64_t total = 0;
  for (int i = 0; i < n;) {
    const int end = n - i > terms ? i + terms : n;
    int32_t run = 0;
    for (int k = i; k < end; ++k) run += int32_t{a[k]} * b[k];
    total += run;
    i = end;
  }
  return total;
}

}  // namespace

void convolution_reference(const Tensor& ifm, const Window& w, const int16_t* weights, bool depthwise,
                           const std::vector<ChannelScale>& channels, const Output& out, const Destination& ofm) {
  const Padded in = gather_for(ifm, w, ofm);
  const int wdepth = depthwise ? 1 : ifm.depth;
  const size_t taps = static_cast<size_t>(w.kernel_height) * w.kernel_width;
  int32_t largest_in = 0;
  const std::vector<int16_t> in16 = depthwise ? std::vector<int16_t>{} : narrow(in, largest_in);
  int terms = 0;
  if (!in16.empty()) {
    int32_t largest_weight = 0;
    const size_t count = static_cast<size_t>(ofm.depth) * taps * wdepth;
    for (size_t i = 0; i < count; ++i) largest_weight = std::max(largest_weight, std::abs(int32_t{weights[i]}));
    terms = int32_terms(largest_in, largest_weight);
  }
  // One tap's contribution: a channel's product (depthwise), else the dot product over the IFM's channels.
  const auto tap = [&](const int32_t* px, const int16_t* wk, int oc) -> int64_t {
    if (depthwise) return int64_t{px[oc]} * wk[0];
    if (!in16.empty()) return dot(in16.data() + (px - in.v.data()), wk, wdepth, terms);
    int64_t sum = 0;
    for (int i = 0; i < wdepth; ++i) sum += int64_t{px[i]} * wk[i];
    return sum;
  };
  for (int oy = 0; oy < ofm.height; ++oy)
    for (int ox = 0; ox < ofm.width; ++ox)
      for (int oc = 0; oc < ofm.depth; ++oc) {
        int64_t acc = channels[oc].bias;
        const int16_t* wo = weights + static_cast<size_t>(oc) * taps * wdepth;
        for (int ky = 0; ky < w.kernel_height; ++ky)
          for (int kx = 0; kx < w.kernel_width; ++kx)
            acc += tap(in.at(oy * w.stride_y - w.pad_top + ky * w.dilation_y,
                             ox * w.stride_x - w.pad_left + kx * w.dilation_x),
                       wo + (static_cast<size_t>(ky) * w.kernel_width + kx) * wdepth, oc);
        store(ofm, ox, oy, oc, finish(out, apply(channels[oc].scaling, acc)));
      }
}

namespace {

// finish() with the case without a table inlined: one clamp to the activation range within the OFM type.
class Finisher {
 public:
  explicit Finisher(const Output& o)
      : o_(o),
        lo_(o.clip ? std::max<int64_t>(o.min, type_min(o.type)) : type_min(o.type)),
        hi_(o.clip ? std::min<int64_t>(o.max, type_max(o.type)) : type_max(o.type)),
        simple_(o.lut == Lut::None && lo_ <= hi_) {}
  // The clamp of the case without a table.
  int64_t low() const { return lo_; }
  int64_t high() const { return hi_; }
  int32_t operator()(int64_t scaled) const {
    if (!simple_) return finish(o_, scaled);
    return static_cast<int32_t>(clamp64(add_saturating(scaled, o_.zero_point), lo_, hi_));
  }

 private:
  const Output& o_;
  int64_t lo_, hi_;
  bool simple_;
};

ChannelScaling channel_scaling(const ChannelScale& c) {
  const Scaler s(c.scaling);
  return {c.bias, c.scaling.multiplier, c.scaling.shift, s.round_pos(), s.round_neg()};
}

// The output stage of the conv kernels' sums: bias, scaling and finish(). In SIMD (requantize_tile()) where the
// clamp it applies is finish()'s: without a table, the activation range within the OFM type; with a table, the
// activation range, the table applied after. The int16 functions, whose input is not clamped, take the scalar
// path, as does any tile with a value outside int32.
class ConvOutput : public SumSink {
 public:
  ConvOutput(const std::vector<ChannelScale>& channels, const Output& out, const Destination& ofm, KernelScratch& s)
      : channels_(channels), out_(out), ofm_(ofm), s_(s), finisher_(out) {
    if (out.lut == Lut::None) {
      lo_ = finisher_.low();
      hi_ = finisher_.high();
    } else {
      lo_ = out.clip ? out.min : INT32_MIN;
      hi_ = out.clip ? out.max : INT32_MAX;
    }
    simd_ = lo_ <= hi_ && out.lut != Lut::Tanh && out.lut != Lut::Sigmoid;
  }

  void begin(int c0, int c1, int64_t sum_bound) override {
    c0_ = c0;
    scales_.emplace([&](int c) { return channel_scaling(channels_[static_cast<size_t>(c)]); }, c0, c1, INT64_MIN,
                    INT64_MAX, out_.zero_point, lo_, hi_, s_.channel_params);
    sums_fit_ = scales_->sums_fit(sum_bound);
  }

  void tile(int x0, int y, int np, int ca, int cb, const int32_t* sums, ptrdiff_t stride) override {
    const int nc = cb - ca;
    if (simd_ && scales_->vector_ok()) {
      Requantize32 r32;
      RequantizeParams r = scales_->at(static_cast<size_t>(ca - c0_), r32);
      r.sums_fit = sums_fit_;
      ByteElements bytes;
      if (out_.lut == Lut::None && byte_elements_at(ofm_.map, x0, y, np, ca, bytes)) {
        if (requantize_store_8bit(sums, stride, np, nc, r, bytes)) return;
      } else {
        const auto vstride = static_cast<ptrdiff_t>(round_up_lanes(static_cast<size_t>(nc)));
        const size_t n = static_cast<size_t>(np * vstride);
        if (s_.values.size() < n) s_.values.resize(n);
        int32_t* v = s_.values.data();
        if (requantize_tile(sums, stride, np, nc, r, v, vstride)) {
          if (out_.lut != Lut::None)
            for (int i = 0; i < np; ++i)
              for (int c = 0; c < nc; ++c) v[i * vstride + c] = table_and_saturate(out_, v[i * vstride + c]);
          store_pixels(ofm_.map, x0, y, np, ca, nc, v, vstride);
          return;
        }
      }
    }
    for (int i = 0; i < np; ++i) scalar(x0 + i, y, ca, cb, sums + i * stride);
  }

  void pixel(int x, int y, int ca, int cb, const int64_t* sums) override { scalar(x, y, ca, cb, sums); }

 private:
  template <typename Sum>
  void scalar(int x, int y, int ca, int cb, const Sum* sums) {
    if (s_.values.size() < static_cast<size_t>(cb - ca)) s_.values.resize(static_cast<size_t>(cb - ca));
    for (int c = ca; c < cb; ++c) {
      const ChannelScale& ch = channels_[static_cast<size_t>(c)];
      s_.values[static_cast<size_t>(c - ca)] = finisher_(apply(ch.scaling, ch.bias + int64_t{sums[c - ca]}));
    }
    store_channels(ofm_.map, x, y, ca, cb - ca, s_.values.data());
  }

  const std::vector<ChannelScale>& channels_;
  const Output& out_;
  const Destination& ofm_;
  KernelScratch& s_;
  const Finisher finisher_;
  int64_t lo_ = 0, hi_ = 0;
  bool simd_ = false, sums_fit_ = false;
  int c0_ = 0;
  std::optional<TileScales> scales_;
};

}  // namespace

void convolution(const Tensor& ifm, const Window& w, const ConvWeights& weights, bool depthwise,
                 const std::vector<ChannelScale>& channels, const Output& out, const Destination& ofm,
                 KernelScratch& scratch, int y0, int y1) {
  ConvParams p;
  p.ifm = ifm.map;
  p.ifm_zero_point = ifm.zero_point;
  p.ifm_depth = ifm.depth;
  p.ofm = ofm.map;
  p.ofm_width = ofm.width;
  p.ofm_height = ofm.height;
  p.ofm_depth = ofm.depth;
  KernelGeometry& k = p.kernel;
  k.width = w.kernel_width;
  k.height = w.kernel_height;
  k.stride_x = w.stride_x;
  k.stride_y = w.stride_y;
  k.dilation_x = w.dilation_x;
  k.dilation_y = w.dilation_y;
  k.pad_top = w.pad_top;
  k.pad_left = w.pad_left;
  // The kernels take the IFM extent from the padding (U65 semantics); these paddings make it the tensor's.
  k.pad_bottom = (ofm.height - 1) * w.stride_y + (w.kernel_height - 1) * w.dilation_y + 1 - w.pad_top - ifm.height;
  k.pad_right = (ofm.width - 1) * w.stride_x + (w.kernel_width - 1) * w.dilation_x + 1 - w.pad_left - ifm.width;
  ConvOutput sink(channels, out, ofm, scratch);
  const OfmTile rows{0, ofm.width, y0, y1 < 0 ? ofm.height : y1, 0, ofm.depth};
  if (depthwise)
    depthwise_tile(p, weights, rows, scratch, sink);
  else
    conv_tile(p, weights, rows, scratch, sink);
}

void pool(const Tensor& ifm, const Window& w, PoolMode mode, const Scaling& scaling, const Output& out,
          const Destination& ofm) {
  const Padded in = gather_for(ifm, w, ofm);
  const auto depth = static_cast<size_t>(std::max(mode == PoolMode::ReduceSum ? 1 : ofm.depth, 0));
  const Scaler scale(scaling);
  const Finisher finisher(out);
  const bool argmax = mode == PoolMode::ArgmaxX || mode == PoolMode::ArgmaxY;
  // A pixel at a time: every tap a loop over the channels, the mode's switch outside it.
  std::vector<int64_t> acc(depth), best(depth);
  std::vector<int32_t> index(depth), values(depth);
  const int64_t start = mode == PoolMode::Max ? INT64_MIN : mode == PoolMode::Min ? INT64_MAX : 0;
  for (int oy = 0; oy < ofm.height; ++oy)
    for (int ox = 0; ox < ofm.width; ++ox) {
      std::fill(acc.begin(), acc.end(), start);
      std::fill(best.begin(), best.end(), INT64_MIN);
      std::fill(index.begin(), index.end(), 0);
      int64_t count = 0;
      for (int ky = 0; ky < w.kernel_height; ++ky)
        for (int kx = 0; kx < w.kernel_width; ++kx) {
          const int iy = oy * w.stride_y - w.pad_top + ky * w.dilation_y;
          const int ix = ox * w.stride_x - w.pad_left + kx * w.dilation_x;
          const bool valid = inside(iy, ifm.height) && inside(ix, ifm.width);
          const int32_t* px = in.at(iy, ix);
          switch (mode) {
            case PoolMode::Max:
              if (valid)
                for (size_t c = 0; c < depth; ++c) acc[c] = std::max<int64_t>(acc[c], px[c]);
              break;
            case PoolMode::Min:
              if (valid)
                for (size_t c = 0; c < depth; ++c) acc[c] = std::min<int64_t>(acc[c], px[c]);
              break;
            case PoolMode::Average:
              if (!valid) break;
              for (size_t c = 0; c < depth; ++c) acc[c] += px[c];
              ++count;
              break;
            case PoolMode::Sum:
              for (size_t c = 0; c < depth; ++c) acc[c] += px[c];
              break;
            case PoolMode::ReduceSum:
              for (int c = 0; c < ifm.depth; ++c) acc[0] += px[c];
              break;
            case PoolMode::ArgmaxX:
            case PoolMode::ArgmaxY:
              if (!valid) break;
              for (size_t c = 0; c < depth; ++c)
                if (px[c] > best[c]) best[c] = px[c], index[c] = mode == PoolMode::ArgmaxX ? kx : ky;
              break;
          }
        }
      for (size_t c = 0; c < depth; ++c) {
        int64_t a = acc[c];
        if (mode == PoolMode::Average && count > 0) a = a >= 0 ? (a + count / 2) / count : -((-a + count / 2) / count);
        if (argmax) a = int64_t{index[c]} * 65536;
        values[c] = finisher(scale(a));
      }
      store_channels(ofm.map, ox, oy, 0, static_cast<int>(depth), values.data());
    }
}

namespace {

// One operand's values at a pixel after a function of them (its scaling): f(the tensor's element, its broadcast axes
// held at 0, minus the zero point), or f(the scalar). f is found once per byte value for an 8-bit tensor.
template <typename F>
class ScaledOperand {
 public:
  ScaledOperand(const Operand& o, const F& f) : o_(o), f_(f) {
    if (!o.tensor) {
      scalar_ = f(int64_t{o.scalar} - o.scalar_zero_point);
      return;
    }
    const DataType t = o.tensor->map.layout.type;
    if (element_size_bytes(t) != 1) return;
    table_.resize(256);
    for (int byte = 0; byte < 256; ++byte) {
      const auto b = static_cast<uint8_t>(byte);
      table_[b] = f(int64_t{load_element(&b, t)} - o.tensor->zero_point);
    }
  }
  void at_pixel(int x, int y) {
    if (o_.tensor) pixel_ = o_.tensor->map.region + o_.tensor->map.layout.pixel_offset(o_.bw ? 0 : x, o_.bh ? 0 : y);
  }
  // The values of channels [0, n) of the pixel.
  void channels(int64_t* dst, int n) const {
    if (!o_.tensor || o_.bc) {
      std::fill(dst, dst + n, o_.tensor ? at(0) : scalar_);
      return;
    }
    if (!table_.empty() && o_.tensor->map.layout.layout == Layout::NHWC) {
      for (int c = 0; c < n; ++c) dst[c] = table_[pixel_[c]];
      return;
    }
    for (int c = 0; c < n; ++c) dst[c] = at(c);
  }

 private:
  int64_t at(int c) const {
    const FeatureMapLayout& l = o_.tensor->map.layout;
    const uint8_t* p = pixel_ + l.channel_offset(c);
    if (!table_.empty()) return table_[*p];
    return f_(int64_t{load_element(p, l.type)} - o_.tensor->zero_point);
  }

  const Operand& o_;
  const F& f_;
  std::vector<int64_t> table_;
  int64_t scalar_ = 0;
  const uint8_t* pixel_ = nullptr;
};

}  // namespace

bool elementwise(ElementwiseMode mode, const Operand& a, const Operand& b, const Scaling& ofm_scaling, int ifm_bits,
                 const Output& out, const Destination& ofm) {
  Scaling os = ofm_scaling;
  if (ifm_bits == 32) os.multiplier = 1;
  const bool unary = mode == ElementwiseMode::LeakyRelu || mode == ElementwiseMode::Abs ||
                     mode == ElementwiseMode::Clz || mode == ElementwiseMode::Not;
  const Scaler scale_a(a.scaling), scale_b(b.scaling), scale_out(os);
  const Finisher finisher(out);
  // LRELU's one operand: its IFM_SCALE for values >= 0, IFM2_SCALE below.
  const auto fa = [&](int64_t va) {
    return mode == ElementwiseMode::LeakyRelu && va < 0 ? scale_b(va) : scale_a(va);
  };
  ScaledOperand<decltype(fa)> read_a(a, fa);
  const Operand none;
  ScaledOperand<Scaler> read_b(unary ? none : b, scale_b);
  // A pixel at a time, each step a loop over its channels.
  const auto n = static_cast<size_t>(std::max(ofm.depth, 0));
  std::vector<int64_t> va(n), vb(n, 0), v(n);
  std::vector<int32_t> values(n);
  const int depth = ofm.depth;
  if (mode == ElementwiseMode::Div) {  // a zero divisor anywhere: nothing written
    for (int y = 0; y < ofm.height; ++y)
      for (int x = 0; x < ofm.width; ++x) {
        read_b.at_pixel(x, y);
        read_b.channels(vb.data(), depth);
        if (std::find(vb.begin(), vb.end(), 0) != vb.end()) return false;
      }
  }
  const uint64_t lsr_mask = ifm_bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << ifm_bits) - 1;
  for (int y = 0; y < ofm.height; ++y)
    for (int x = 0; x < ofm.width; ++x) {
      read_a.at_pixel(x, y);
      read_a.channels(va.data(), depth);
      if (!unary) {
        read_b.at_pixel(x, y);
        read_b.channels(vb.data(), depth);
      }
      const int64_t* sa = va.data();
      const int64_t* sb = vb.data();
      switch (mode) {
        case ElementwiseMode::Mul:
          for (int c = 0; c < depth; ++c) v[c] = saturate_int64(static_cast<int128_t>(sa[c]) * sb[c]);
          break;
        case ElementwiseMode::Add:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] + sb[c];
          break;
        case ElementwiseMode::Sub:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] - sb[c];
          break;
        case ElementwiseMode::Min:
          for (int c = 0; c < depth; ++c) v[c] = std::min(sa[c], sb[c]);
          break;
        case ElementwiseMode::Max:
          for (int c = 0; c < depth; ++c) v[c] = std::max(sa[c], sb[c]);
          break;
        case ElementwiseMode::LeakyRelu: std::copy(sa, sa + depth, v.begin()); break;
        case ElementwiseMode::Abs:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] < 0 ? -sa[c] : sa[c];
          break;
        case ElementwiseMode::Clz:
          for (int c = 0; c < depth; ++c) {
            const auto u = static_cast<uint32_t>(sa[c]);
            v[c] = u == 0 ? 32 : __builtin_clz(u);
          }
          break;
        case ElementwiseMode::Shr:
          for (int c = 0; c < depth; ++c) {
            Scaling shr;
            shr.shift = static_cast<int>(clamp64(sb[c], 0, 63));
            shr.rounding = os.rounding;
            v[c] = apply(shr, sa[c]);
          }
          break;
        case ElementwiseMode::Shl:
          // A multiply, not <<: shifting a negative value left is undefined in C++17.
          for (int c = 0; c < depth; ++c)
            v[c] = saturate_int64(static_cast<int128_t>(sa[c]) * (int128_t{1} << clamp64(sb[c], 0, 31)));
          break;
        case ElementwiseMode::Lsr:
          for (int c = 0; c < depth; ++c) {
            const int64_t shift = clamp64(sb[c], 0, 64);
            v[c] = shift >= ifm_bits ? 0 : static_cast<int64_t>((static_cast<uint64_t>(sa[c]) & lsr_mask) >> shift);
          }
          break;
        case ElementwiseMode::Div:
          for (int c = 0; c < depth; ++c)
            v[c] = sb[c] != -1 ? sa[c] / sb[c] : (sa[c] == INT64_MIN ? INT64_MAX : -sa[c]);
          break;
        case ElementwiseMode::CmpEq:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] == sb[c] ? -1 : 0;
          break;
        case ElementwiseMode::CmpNe:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] != sb[c] ? -1 : 0;
          break;
        case ElementwiseMode::CmpGe:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] >= sb[c] ? -1 : 0;
          break;
        case ElementwiseMode::CmpGt:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] > sb[c] ? -1 : 0;
          break;
        case ElementwiseMode::And:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] & sb[c];
          break;
        case ElementwiseMode::Or:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] | sb[c];
          break;
        case ElementwiseMode::Xor:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] ^ sb[c];
          break;
        case ElementwiseMode::Not:
          for (int c = 0; c < depth; ++c) v[c] = ~sa[c];
          break;
        case ElementwiseMode::AndNot:
          for (int c = 0; c < depth; ++c) v[c] = sa[c] & ~sb[c];
          break;
      }
      for (int c = 0; c < depth; ++c) values[c] = finisher(scale_out(v[c]));
      store_channels(ofm.map, x, y, 0, depth, values.data());
    }
  return true;
}

namespace {

// Floor division for a positive divisor.
int floor_div(int64_t a, int64_t b) { return static_cast<int>(a >= 0 ? a / b : -((-a + b - 1) / b)); }

}  // namespace

void resize(const Tensor& ifm, ResizeMode mode, const ResizeAxis& x, const ResizeAxis& y, const Scaling& scaling,
            const Output& out, const Destination& ofm) {
  const auto clamp_x = [&](int v) { return std::clamp(v, 0, ifm.width - 1); };
  const auto clamp_y = [&](int v) { return std::clamp(v, 0, ifm.height - 1); };
  const Scaler scale(scaling);
  for (int oy = 0; oy < ofm.height; ++oy) {
    const int64_t sy = int64_t{oy} * y.d + y.offset;
    const int iy = floor_div(sy, y.n);
    const int64_t fy = sy - int64_t{iy} * y.n;
    for (int ox = 0; ox < ofm.width; ++ox) {
      const int64_t sx = int64_t{ox} * x.d + x.offset;
      const int ix = floor_div(sx, x.n);
      const int64_t fx = sx - int64_t{ix} * x.n;
      for (int c = 0; c < ofm.depth; ++c) {
        const auto v = [&](int yy, int xx) { return int64_t{ifm.at(clamp_x(xx), clamp_y(yy), c)} - ifm.zero_point; };
        int64_t acc;
        if (mode == ResizeMode::Nearest) {
          acc = v(iy + (2 * fy >= y.n), ix + (2 * fx >= x.n));
        } else {
          acc = v(iy, ix) * (y.n - fy) * (x.n - fx) + v(iy, ix + 1) * (y.n - fy) * fx +
                v(iy + 1, ix) * fy * (x.n - fx) + v(iy + 1, ix + 1) * fy * fx;
        }
        store(ofm, ox, oy, c, finish(out, scale(acc * 65536)));
      }
    }
  }
}

}  // namespace ethosu::kernels::u85
