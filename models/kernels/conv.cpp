#include "models/kernels/conv.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "models/kernels/simd_loops.h"
#include "models/kernels/tile_scales.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "pack_bytes treats int16 pairs and byte quads as words");

namespace ethosu::kernels {

ConvWeights::ConvWeights(int ofm_depth, int height, int width, int ifm_depth)
    : ofm_depth_(ofm_depth), height_(height), width_(width), ifm_depth_(ifm_depth), pairs_((ifm_depth + 1) / 2) {}

ConvWeights::ConvWeights(const int32_t* dense, int ofm_depth, int height, int width, int ifm_depth)
    : ConvWeights(ofm_depth, height, width, ifm_depth) {
  pack(dense);
}

ConvWeights::ConvWeights(const int16_t* dense, int ofm_depth, int height, int width, int ifm_depth)
    : ConvWeights(ofm_depth, height, width, ifm_depth) {
  pack(dense);
}

ConvWeights ConvWeights::unfilled(int ofm_depth, int height, int width, int ifm_depth) {
  ConvWeights w(ofm_depth, height, width, ifm_depth);
  w.fits_int16_ = true;
  const int groups = (ofm_depth + 15) / 16, taps = height * width;
  w.grouped_.resize(static_cast<size_t>(groups) * w.group_size());
  // Padding: the last pair's second IFM channel when the depth is odd (rows of 16 lanes x 2), and the lanes
  // beyond the OFM depth in the last group.
  const auto row = [&](int g, int t, int pair) {
    return w.grouped_.data() + g * w.group_size() + (static_cast<size_t>(t) * w.pairs_ + pair) * 32;
  };
  if (ifm_depth % 2) {
    for (int g = 0; g < groups; ++g)
      for (int t = 0; t < taps; ++t) std::fill_n(row(g, t, w.pairs_ - 1), 32, int16_t{0});
  }
  const int lanes = ofm_depth - (groups - 1) * 16;
  if (lanes < 16) {
    for (int t = 0; t < taps; ++t)
      for (int pair = 0; pair < w.pairs_; ++pair)
        std::fill_n(row(groups - 1, t, pair) + 2 * lanes, 32 - 2 * lanes, int16_t{0});
  }
  return w;
}

weights::PackedLayout ConvWeights::packing() {
  weights::PackedLayout l;
  l.base = grouped_.data();
  l.ofm_group_stride = group_size();
  l.ofm_lane_stride = 2;
  l.tap_stride = static_cast<size_t>(pairs_) * 32;
  l.ifm_pair_stride = 32;
  return l;
}

void ConvWeights::seal() {
  // The int16 extremes: a loop the compiler vectorises.
  int16_t lo = 0, hi = 0;
  for (int16_t v : grouped_) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  max_abs_ = std::max(-int32_t{lo}, int32_t{hi});
  if (ifm_depth_ != 1) {
    if (lo >= INT8_MIN && hi <= INT8_MAX && micro_kernels_8bit(best_simd_level())) pack_bytes();
    return;
  }
  const int taps = height_ * width_;
  by_tap_.assign(static_cast<size_t>(taps) * ofm_depth_, 0);
  for (int t = 0; t < taps; ++t)
    for (int c = 0; c < ofm_depth_; ++c)
      by_tap_[static_cast<size_t>(t) * ofm_depth_ + c] = static_cast<int16_t>(weight(c, t, 0));
}

void ConvWeights::pack_bytes() {
  const int groups = (ofm_depth_ + 15) / 16, taps = height_ * width_;
  quads_ = (ifm_depth_ + 3) / 4;
  const size_t quad_group = static_cast<size_t>(taps) * quads_ * 64;
  bytes_.resize(static_cast<size_t>(groups) * quad_group);
  sums_.resize(static_cast<size_t>(groups) * 16);
  // Per OFM channel a 32-bit word of each int16 pair (a | b << 16) and one of bytes (a, b, c, d): lane-wise
  // arithmetic on 16 channels, which the compiler vectorises.
  for (int g = 0; g < groups; ++g) {
    // Sums wrap like the kernels' int32 arithmetic: only their value modulo 2^32 is used.
    uint32_t sum[16] = {};
    for (int t = 0; t < taps; ++t) {
      // A quad is two pairs of the int16 layout; the last one's second pair is padding when the pairs are odd.
      const int16_t* src = grouped_.data() + g * group_size() + static_cast<size_t>(t) * pairs_ * 32;
      int8_t* dst = bytes_.data() + g * quad_group + static_cast<size_t>(t) * quads_ * 64;
      for (int q = 0; q < quads_; ++q, dst += 64) {
        uint32_t ab[16], cd[16] = {}, quad[16];
        std::memcpy(ab, src + static_cast<size_t>(q) * 64, sizeof ab);
        if (2 * q + 1 < pairs_) std::memcpy(cd, src + static_cast<size_t>(q) * 64 + 32, sizeof cd);
        for (int o = 0; o < 16; ++o) {
          quad[o] = (ab[o] & 0xFFu) | ((ab[o] >> 8) & 0xFF00u) | ((cd[o] & 0xFFu) << 16) | ((cd[o] << 8) & 0xFF000000u);
          sum[o] += static_cast<uint32_t>(static_cast<int16_t>(ab[o]) + static_cast<int16_t>(ab[o] >> 16) +
                                          static_cast<int16_t>(cd[o]) + static_cast<int16_t>(cd[o] >> 16));
        }
        std::memcpy(dst, quad, sizeof quad);
      }
    }
    for (int o = 0; o < 16; ++o) sums_[static_cast<size_t>(g) * 16 + o] = static_cast<int32_t>(sum[o]);
  }
}

void ConvWeights::measure() {
  const size_t weights = static_cast<size_t>(ofm_depth_) * height_ * width_ * ifm_depth_;
  std::vector<uint64_t> seen(65536 / 64, 0);
  size_t zeros = 0;
  const auto count = [&](int32_t v) {
    zeros += v == 0;
    const auto u = static_cast<uint16_t>(v);
    seen[u / 64] |= uint64_t{1} << (u % 64);
  };
  if (fits_int16_) {
    for (const int16_t v : grouped_) count(v);
    zeros -= grouped_.size() - weights;  // the padding, all zeros
  } else {
    for (const int32_t v : dense_) count(v);  // wider weights (tests) keep no packed copy
  }
  uint32_t distinct = 0;
  for (const uint64_t w : seen) distinct += static_cast<uint32_t>(__builtin_popcountll(w));
  if (zeros == 0 && (seen[0] & 1)) --distinct;  // 0 seen only in the padding
  stats_.zero_fraction = weights ? double(zeros) / double(weights) : 0;
  stats_.distinct_values = distinct;
}

size_t ConvWeights::size_bytes() const {
  return sizeof(*this) + dense_.capacity() * sizeof(int32_t) +
         (grouped_.capacity() + by_tap_.capacity()) * sizeof(int16_t) + bytes_.capacity() +
         sums_.capacity() * sizeof(int32_t);
}

template <typename T>
void ConvWeights::pack(const T* dense) {
  const size_t n = static_cast<size_t>(ofm_depth_) * height_ * width_ * ifm_depth_;
  int64_t m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max<int64_t>(m, std::abs(int64_t{dense[i]}));
  if (m > 32767) {
    fits_int16_ = false;
    max_abs_ = static_cast<int32_t>(std::min<int64_t>(m, INT32_MAX));
    dense_.assign(dense, dense + n);
    return;
  }
  *this = unfilled(ofm_depth_, height_, width_, ifm_depth_);
  const int taps = height_ * width_;
  const weights::PackedLayout l = packing();
  for (int oc = 0; oc < ofm_depth_; ++oc)
    for (int t = 0; t < taps; ++t) {
      const T* src = dense + (static_cast<size_t>(oc) * taps + t) * ifm_depth_;
      int16_t* dst = l.base + (oc / 16) * l.ofm_group_stride + (oc % 16) * l.ofm_lane_stride + t * l.tap_stride;
      for (int ic = 0; ic < ifm_depth_; ++ic) dst[(ic / 2) * l.ifm_pair_stride + ic % 2] = static_cast<int16_t>(src[ic]);
    }
  seal();
}

namespace {

// Largest |IFM - zero point| of a type; the bound that decides whether int16 buffers and int32
// partial sums are exact.
int64_t max_abs_ifm(DataType t, int32_t zp) {
  return std::max(std::abs(type_min(t) - zp), std::abs(type_max(t) - zp));
}

// Whether every IFM - zero point fits an int16 buffer. With |weights| <= 32767 a pair of products then
// stays below 2^31 (vpmaddwd cannot wrap); the sums are bounded by splitting the reduction.
bool ifm_fits_int16(DataType t, int32_t zp) { return type_min(t) - zp >= INT16_MIN && type_max(t) - zp <= INT16_MAX; }

// Pixels per output-stage pass.
constexpr int kTilePixels = 16;

// A scratch buffer of at least n elements. It only grows: the kernels write every element they use, so the
// capacity of earlier blocks and operations is reused without filling it again.
template <typename T>
T* at_least(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

struct Window {
  IfmWindow w;
  int sx, sy;
};

Window conv_window(const ConvParams& p, const OfmTile& b, int c0, int channels, int channel_stride) {
  return {tile_window(p.kernel, p.ofm_width, p.ofm_height, b, c0, channels, channel_stride), p.kernel.stride_x,
          p.kernel.stride_y};
}

// Stores the output stage of tiles of exact sums (bias not yet added): rows of pixels along x.
struct Writer {
  const ConvParams& p;
  KernelScratch& s;
  FastFinish fin;
  int c0;
  TileScales scales;
  // With a function or LUT after the clamp, the scaled values are clamped to int32 before finish() (see
  // function_in_simd()): requantize_tile() adds no zero point then.
  bool with_function;
  bool sums_fit;  // bias + sum cannot wrap int32 (RequantizeParams::sums_fit)

  // sum_bound: the largest |sum| of a tile (negative: unknown).
  Writer(const ConvParams& params, KernelScratch& scratch, int first_channel, int end_channel, int64_t sum_bound = -1)
      : p(params), s(scratch), fin(params.output), c0(first_channel),
        scales(params.output, first_channel, end_channel, -accumulator_max(params.acc_format) - 1,
               accumulator_max(params.acc_format), ofm32() || function() ? 0 : params.output.ofm_zero_point,
               ofm32() || function() ? INT32_MIN : to_type(params.output.activation_min),
               ofm32() || function() ? INT32_MAX : to_type(params.output.activation_max), scratch.channel_params),
        with_function(function()), sums_fit(scales.sums_fit(sum_bound)) {}

  bool function() const { return p.output.function != ActivationFunction::None; }
  // finish() of the scaled value clamped to int32 equals finish() of the value when the zero point and the
  // activation bounds lie well inside int32: a value clamped to int32 plus the zero point still lies beyond the
  // bounds (and where TANH and SIGMOID are +-1 in double) exactly when the value does.
  bool function_in_simd() const {
    const OutputStage& os = p.output;
    const auto inside = [](int64_t v, int64_t bound) { return v >= -bound && v <= bound; };
    return inside(os.ofm_zero_point, int64_t{1} << 16) && inside(os.activation_min, int64_t{1} << 30) &&
           inside(os.activation_max, int64_t{1} << 30);
  }

  // A 32-bit OFM (no LUT here) stores x saturated: no zero point, no activation clamp.
  bool ofm32() const { return p.output.ofm_type == DataType::Int32; }
  int64_t to_type(int64_t v) const {
    return std::min(std::max(v, type_min(p.output.ofm_type)), type_max(p.output.ofm_type));
  }
  static int64_t accumulator_max(AccFormat f) { return f == AccFormat::Int32 ? INT32_MAX : (int64_t{1} << 39) - 1; }

  // Stores OFM(x0 + i, y, c) for i < np, c in [ca, cb) from sums[i * stride + c - ca]. The rows of `sums`
  // must be readable up to round_up_lanes(cb - ca).
  void tile(int x0, int y, int np, int ca, int cb, const int32_t* sums, ptrdiff_t stride) const {
    const int nc = cb - ca;
    const auto vstride = static_cast<ptrdiff_t>(round_up_lanes(static_cast<size_t>(nc)));
    Requantize32 r32;
    RequantizeParams r = scales.at(static_cast<size_t>(ca - c0), r32);
    r.sums_fit = sums_fit;
    const bool simd = scales.vector_ok() && (!with_function || function_in_simd());
    ByteElements bytes;
    if (simd && !with_function && byte_elements_at(p.ofm, x0, y, np, ca, bytes)) {
      if (requantize_store_8bit(sums, stride, np, nc, r, bytes)) return;
      for (int i = 0; i < np; ++i) scalar(x0 + i, y, ca, cb, sums + i * stride);
      return;
    }
    if (simd && requantize_tile(sums, stride, np, nc, r, at_least(s.values, static_cast<size_t>(np * vstride)), vstride)) {
      if (with_function)
        for (int i = 0; i < np; ++i) fin.apply(s.values.data() + i * vstride, static_cast<size_t>(nc));
      store_pixels(p.ofm, x0, y, np, ca, nc, s.values.data(), vstride);
      return;
    }
    for (int i = 0; i < np; ++i) scalar(x0 + i, y, ca, cb, sums + i * stride);
  }
  void pixel(int x, int y, int ca, int cb, const int64_t* sums) const { scalar(x, y, ca, cb, sums); }

  template <typename Acc>
  void scalar(int x, int y, int ca, int cb, const Acc* sums) const {
    at_least(s.values, static_cast<size_t>(cb - ca));
    for (int c = ca; c < cb; ++c) {
      const size_t i = static_cast<size_t>(c - c0);
      const int64_t acc = saturate_accumulator(scales.bias(i) + static_cast<int64_t>(sums[c - ca]), p.acc_format);
      const int64_t v = rounded_scale(acc, scales.multiplier(i), scales.shift(i), p.output.round_mode);
      s.values[static_cast<size_t>(c - ca)] = fin(v);
    }
    store(x, y, ca, cb, s.values.data());
  }

  void store(int x, int y, int ca, int cb, const int32_t* v) const { store_channels(p.ofm, x, y, ca, cb - ca, v); }
};

}  // namespace

namespace {

// The Writer interface over a SumSink.
struct SinkWriter {
  SumSink& sink;
  void tile(int x0, int y, int np, int ca, int cb, const int32_t* sums, ptrdiff_t stride) const {
    sink.tile(x0, y, np, ca, cb, sums, stride);
  }
  void pixel(int x, int y, int ca, int cb, const int64_t* sums) const { sink.pixel(x, y, ca, cb, sums); }
};

}  // namespace

// Each kernel makes its output with make_out(sum_bound) (the largest |sum| it passes, negative: unknown) once it
// knows the bound: the U65's output stage (Writer) or a SumSink's (SinkWriter).
struct ConvKernels {
  template <class MakeOut>
  static void conv(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s,
                   const MakeOut& make_out) {
    const int64_t ifm_bound = max_abs_ifm(p.ifm.layout.type, p.ifm_zero_point);
    if (w.fits_int16_ && ifm_fits_int16(p.ifm.layout.type, p.ifm_zero_point))
      conv_fast(p, w, b, s, ifm_bound, make_out);
    else
      conv_exact(p, w, b, s, make_out);
  }

  // Walks a block's tiles for micro-kernels that take whole sums in one call: per OFM row, per channel group (pairs of
  // groups where the set has them; groups outermost so one group's weights stay in cache across the row), each tile's
  // whole runs of the kernel's pixels in one call and then the rest, then the tile's output stage. kernel(oy, g, nb,
  // x, pixels, runs, dst) runs `runs` x `pixels` pixels from block column x into rows of dst 32 apart.
  template <class Set, class Out, class Kernel>
  static void tiles(const OfmTile& b, const Set& mk, const Out& out, KernelScratch& s, const Kernel& kernel) {
    const int max_p = std::max(mk.max_pixels[0], mk.max_pixels[1]);
    // A tile of pixels shares one output-stage pass; rows 32 apart, padded for its vector tail (lanes past a row's
    // channels are read, not used).
    const int tile_p = std::max(max_p, kTilePixels / max_p * max_p);
    int32_t* const tile32 = at_least(s.tile32, static_cast<size_t>(32 * tile_p + kRequantizeLanes));
    for (int oy = b.y0; oy < b.y1; ++oy)
      for (int g = b.c0 / 16; g * 16 < b.c1;) {
        const int nb = mk.max_pixels[1] > 0 && (g + 1) * 16 < b.c1 ? 2 : 1;
        const int ca = std::max(b.c0, g * 16), cb = std::min(b.c1, (g + nb) * 16);
        for (int ox = b.x0; ox < b.x1;) {
          const int nt = std::min(tile_p, b.x1 - ox);
          const int run_p = mk.max_pixels[nb - 1];
          const int runs = nt / run_p, rest = nt % run_p;
          if (runs) kernel(oy, g, nb, ox - b.x0, run_p, runs, tile32);
          if (rest) kernel(oy, g, nb, ox - b.x0 + runs * run_p, rest, 1, tile32 + 32 * runs * run_p);
          out.tile(ox, oy, nt, ca, cb, tile32 + (ca - g * 16), 32);
          ox += nt;
        }
        g += nb;
      }
  }

  // Convolution on unsigned IFM bytes and int8 weights with the 8-bit micro-kernels, where the level has them, the
  // weights were packed as bytes and every exact sum fits int32 (the kernels' sums may wrap on the way). Each IFM
  // byte u is the value plus an offset (128 for int8, so that it is unsigned), and the kernels subtract
  // (offset + zero point) * (the channel's weight sum): padding, whose value minus the zero point is 0, holds
  // offset + zero point. False when the case is not one for them.
  template <class MakeOut>
  static bool conv_8bit(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s,
                        int64_t ifm_bound, const MakeOut& make_out) {
    const MicroKernel8Set* mk = micro_kernels_8bit(s.simd);
    const DataType type = p.ifm.layout.type;
    if (!mk || w.bytes_.empty() || p.kernel.upscale == Upscale::Zeros ||
        (type != DataType::Int8 && type != DataType::UInt8))
      return false;
    const int32_t offset = type == DataType::Int8 ? 128 : 0;
    const int32_t pad = offset + p.ifm_zero_point;
    const int ic_stride = 4 * w.quads_;
    const int ntaps = p.kernel.width * p.kernel.height;
    const int64_t term_bound = std::max<int64_t>(1, ifm_bound * w.max_abs_);
    const int64_t sum_bound = int64_t{ntaps} * ic_stride * term_bound;
    if (pad < 0 || pad > 255 || sum_bound > INT32_MAX) return false;

    const Window win = conv_window(p, b, 0, p.ifm_depth, ic_stride);
    gather_ifm<uint8_t>(p.ifm, -offset, win.w, static_cast<uint8_t>(pad), s.ifm8);
    tap_offsets(p.kernel, win.w.cols, ic_stride, s.taps);
    const int g0 = b.c0 / 16, g_end = (b.c1 + 15) / 16;
    int32_t* const correction = at_least(s.correction, static_cast<size_t>(g_end - g0) * 16);
    for (int c = g0 * 16; c < g_end * 16; ++c)
      correction[c - g0 * 16] = static_cast<int32_t>(static_cast<uint32_t>(pad) * static_cast<uint32_t>(w.sums_[c]));

    const auto out = make_out(sum_bound);
    const ptrdiff_t tap_stride = ptrdiff_t{w.quads_} * 64;
    const ptrdiff_t group_stride = ptrdiff_t{ntaps} * tap_stride;
    const ptrdiff_t pix_stride = ptrdiff_t{win.sx} * ic_stride;
    const ptrdiff_t row_stride = ptrdiff_t{win.sy} * win.w.cols * ic_stride;
    tiles(b, *mk, out, s, [&](int oy, int g, int nb, int x, int pixels, int runs, int32_t* dst) {
      mk->kernel[nb - 1][pixels - 1](s.ifm8.data() + (oy - b.y0) * row_stride + x * pix_stride, pix_stride,
                                     s.taps.data(), ntaps, w.quads_, w.bytes_.data() + g * group_stride, tap_stride,
                                     group_stride, correction + (g - g0) * 16, runs, dst);
    });
    return true;
  }

  // Convolution on int16 buffers with the SIMD micro-kernels.
  template <class MakeOut>
  static void conv_fast(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s,
                        int64_t ifm_bound, const MakeOut& make_out) {
    if (conv_8bit(p, w, b, s, ifm_bound, make_out)) return;
    const int ic_stride = 2 * w.pairs_;
    const Window win = conv_window(p, b, 0, p.ifm_depth, ic_stride);
    gather_ifm<int16_t>(p.ifm, p.ifm_zero_point, win.w, 0, s.ifm16);
    tap_offsets(p.kernel, win.w.cols, ic_stride, s.taps);
    const int ntaps = static_cast<int>(s.taps.size());

    // Split the reduction so that no int32 partial sum can overflow.
    const int64_t term_bound = std::max<int64_t>(1, ifm_bound * w.max_abs_);
    const int64_t max_terms = INT32_MAX / term_bound;
    int taps_per = ntaps, pairs_per = w.pairs_;
    if (int64_t{ntaps} * ic_stride > max_terms) {
      if (ic_stride <= max_terms) {
        taps_per = static_cast<int>(max_terms / ic_stride);
      } else {
        taps_per = 1;
        pairs_per = static_cast<int>(std::max<int64_t>(1, max_terms / 2));
      }
    }
    const bool chunked = taps_per < ntaps || pairs_per < w.pairs_;

    const MicroKernelSet& mk = micro_kernels(s.simd);
    const auto out = make_out(chunked ? -1 : int64_t{ntaps} * ic_stride * term_bound);
    const ptrdiff_t tap_stride = ptrdiff_t{w.pairs_} * 32;
    const ptrdiff_t group_stride = ptrdiff_t{ntaps} * tap_stride;
    const ptrdiff_t pix_stride = ptrdiff_t{win.sx} * ic_stride;
    const ptrdiff_t row_stride = ptrdiff_t{win.sy} * win.w.cols * ic_stride;
    if (!chunked) {
      tiles(b, mk, out, s, [&](int oy, int g, int nb, int x, int pixels, int runs, int32_t* dst) {
        mk.kernel[nb - 1][pixels - 1](s.ifm16.data() + (oy - b.y0) * row_stride + x * pix_stride, pix_stride,
                                      s.taps.data(), ntaps, w.pairs_, w.grouped_.data() + g * group_stride,
                                      tap_stride, group_stride, runs, dst);
      });
      return;
    }
    // Split reductions: each pixel's partial sums added up in int64, a few pixels at a time.
    const auto max_p = static_cast<size_t>(std::max(mk.max_pixels[0], mk.max_pixels[1]));
    int32_t* const tile32 = at_least(s.tile32, 32 * max_p);
    int64_t* const tile64 = at_least(s.tile64, 32 * max_p);
    for (int oy = b.y0; oy < b.y1; ++oy) {
      const int16_t* row = s.ifm16.data() + (oy - b.y0) * row_stride;
      for (int g = b.c0 / 16; g * 16 < b.c1;) {
        const int nb = mk.max_pixels[1] > 0 && (g + 1) * 16 < b.c1 ? 2 : 1;  // pairs of groups where the set has them
        const int ca = std::max(b.c0, g * 16), cb = std::min(b.c1, (g + nb) * 16);
        const int16_t* wg = w.grouped_.data() + g * group_stride;
        for (int ox = b.x0; ox < b.x1;) {
          const int np = std::min(mk.max_pixels[nb - 1], b.x1 - ox);
          const int16_t* a = row + (ox - b.x0) * pix_stride;
          const MicroKernel kern = mk.kernel[nb - 1][np - 1];
          std::fill(tile64, tile64 + 32 * np, 0);
          for (int t0 = 0; t0 < ntaps; t0 += taps_per)
            for (int k0 = 0; k0 < w.pairs_; k0 += pairs_per) {
              kern(a + 2 * k0, pix_stride, s.taps.data() + t0, std::min(taps_per, ntaps - t0),
                   std::min(pairs_per, w.pairs_ - k0), wg + t0 * tap_stride + 32 * k0, tap_stride, group_stride, 1,
                   tile32);
              for (int i = 0; i < 32 * np; ++i) tile64[i] += tile32[i];
            }
          for (int i = 0; i < np; ++i) out.pixel(ox + i, oy, ca, cb, tile64 + 32 * i + (ca - g * 16));
          ox += np;
        }
        g += nb;
      }
    }
  }

  // Exact int64 convolution for 16/32-bit IFMs with arbitrary zero points and wide weights.
  template <class MakeOut>
  static void conv_exact(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s,
                         const MakeOut& make_out) {
    const Window win = conv_window(p, b, 0, p.ifm_depth, p.ifm_depth);
    gather_ifm<int32_t>(p.ifm, p.ifm_zero_point, win.w, 0, s.ifm32);
    tap_offsets(p.kernel, win.w.cols, p.ifm_depth, s.taps);
    const size_t ntaps = s.taps.size();
    const auto out = make_out(-1);
    std::vector<int64_t> sums(static_cast<size_t>(b.c1 - b.c0));
    for (int oy = b.y0; oy < b.y1; ++oy)
      for (int ox = b.x0; ox < b.x1; ++ox) {
        const int32_t* a = s.ifm32.data() + ((oy - b.y0) * win.sy * win.w.cols + (ox - b.x0) * win.sx) * p.ifm_depth;
        for (int oc = b.c0; oc < b.c1; ++oc) {
          int64_t sum = 0;
          for (size_t t = 0; t < ntaps; ++t)
            for (int ic = 0; ic < p.ifm_depth; ++ic)
              sum += int64_t{a[s.taps[t] + ic]} * w.weight(oc, static_cast<int>(t), ic);
          sums[static_cast<size_t>(oc - b.c0)] = sum;
        }
        out.pixel(ox, oy, b.c0, b.c1, sums.data());
      }
  }

  template <class MakeOut>
  static void depthwise(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s,
                        const MakeOut& make_out) {
    const int nc = b.c1 - b.c0;
    const int ntaps = w.height_ * w.width_;
    const int64_t ifm_bound = max_abs_ifm(p.ifm.layout.type, p.ifm_zero_point);
    // int16 buffers and int32 sums are exact when every tap product and their sum fit.
    const int64_t sum_bound = int64_t{ntaps} * ifm_bound * w.max_abs_;
    const bool fast = w.fits_int16_ && ifm_fits_int16(p.ifm.layout.type, p.ifm_zero_point) && sum_bound <= INT32_MAX;
    const Window win = conv_window(p, b, b.c0, nc, nc);
    tap_offsets(p.kernel, win.w.cols, nc, s.taps);
    const auto out = make_out(fast ? sum_bound : -1);
    if (fast) {
      gather_ifm<int16_t>(p.ifm, p.ifm_zero_point, win.w, 0, s.ifm16);
      const auto stride = static_cast<ptrdiff_t>(round_up_lanes(static_cast<size_t>(nc)));
      int32_t* const tile32 = at_least(s.tile32, static_cast<size_t>(kTilePixels * stride));
      const ptrdiff_t pix_stride = ptrdiff_t{win.sx} * nc;
      for (int oy = b.y0; oy < b.y1; ++oy) {
        const int16_t* row = s.ifm16.data() + static_cast<ptrdiff_t>(oy - b.y0) * win.sy * win.w.cols * nc;
        for (int ox = b.x0; ox < b.x1;) {
          const int nt = std::min(kTilePixels, b.x1 - ox);
          depthwise_sums(row + (ox - b.x0) * pix_stride, pix_stride, s.taps.data(), ntaps, w.by_tap_.data() + b.c0,
                         w.ofm_depth_, nc, nt, tile32, stride);
          out.tile(ox, oy, nt, b.c0, b.c1, tile32, stride);
          ox += nt;
        }
      }
      return;
    }
    gather_ifm<int32_t>(p.ifm, p.ifm_zero_point, win.w, 0, s.ifm32);
    int64_t* const sums = at_least(s.tile64, static_cast<size_t>(nc));
    for (int oy = b.y0; oy < b.y1; ++oy)
      for (int ox = b.x0; ox < b.x1; ++ox) {
        const int32_t* a = s.ifm32.data() + ((oy - b.y0) * win.sy * win.w.cols + (ox - b.x0) * win.sx) * nc;
        for (int c = 0; c < nc; ++c) {
          int64_t sum = 0;
          for (int t = 0; t < ntaps; ++t)
            sum += int64_t{a[s.taps[static_cast<size_t>(t)] + c]} * w.weight(b.c0 + c, t, 0);
          sums[c] = sum;
        }
        out.pixel(ox, oy, b.c0, b.c1, sums);
      }
  }
};

namespace {

bool empty(const OfmTile& b) { return b.x0 >= b.x1 || b.y0 >= b.y1 || b.c0 >= b.c1; }

}  // namespace

void conv_tile(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s) {
  if (empty(b)) return;
  ConvKernels::conv(p, w, b, s, [&](int64_t bound) { return Writer(p, s, b.c0, b.c1, bound); });
}

void depthwise_tile(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s) {
  if (empty(b)) return;
  ConvKernels::depthwise(p, w, b, s, [&](int64_t bound) { return Writer(p, s, b.c0, b.c1, bound); });
}

void conv_tile(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s, SumSink& out) {
  if (empty(b)) return;
  ConvKernels::conv(p, w, b, s, [&](int64_t bound) {
    out.begin(b.c0, b.c1, bound);
    return SinkWriter{out};
  });
}

void depthwise_tile(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s, SumSink& out) {
  if (empty(b)) return;
  ConvKernels::depthwise(p, w, b, s, [&](int64_t bound) {
    out.begin(b.c0, b.c1, bound);
    return SinkWriter{out};
  });
}

void conv(const ConvParams& p, const ConvWeights& w) {
  KernelScratch s;
  conv_tile(p, w, OfmTile{0, p.ofm_width, 0, p.ofm_height, 0, p.ofm_depth}, s);
}

void depthwise(const ConvParams& p, const ConvWeights& w) {
  KernelScratch s;
  depthwise_tile(p, w, OfmTile{0, p.ofm_width, 0, p.ofm_height, 0, p.ofm_depth}, s);
}

}  // namespace ethosu::kernels
