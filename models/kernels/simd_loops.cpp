// Compiled once per Highway target (foreach_target.h) and dispatched at run time by our own table: Highway's
// HWY_DYNAMIC_DISPATCH needs libhwy.so, whose load-time initialisation calibrates a timer for ~5 ms of CPU
// in every process, more than a small job's whole simulation. Only Highway's headers are used.
#ifndef ETHOSU_KERNELS_SIMD_LOOPS_REGISTRY
#define ETHOSU_KERNELS_SIMD_LOOPS_REGISTRY
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "models/kernels/simd_loops.h"
#include "sim/target_registry.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "narrow_store writes elements as the host stores them");

namespace ethosu::kernels {
namespace {

// One target's compiled loops.
struct SimdLoops {
  int64_t target;
  bool (*requantize)(const int32_t*, ptrdiff_t, int, int, const RequantizeParams&, int32_t*, ptrdiff_t);
  bool (*requantize_8bit)(const int32_t*, ptrdiff_t, int, int, const RequantizeParams&, const ByteElements&);
  void (*depthwise)(const int16_t*, ptrdiff_t, const int32_t*, int, const int16_t*, ptrdiff_t, int, int, int32_t*,
                    ptrdiff_t);
  void (*widen)(const uint8_t*, ptrdiff_t, bool, int32_t, int16_t*, ptrdiff_t, int, int);
  void (*offset)(const uint8_t*, ptrdiff_t, uint8_t, uint8_t*, ptrdiff_t, int, int);
  void (*narrow)(const int32_t*, ptrdiff_t, int, uint8_t*, ptrdiff_t, int, int);
  void (*lookup)(const uint8_t*, const uint8_t*, uint8_t*, size_t);
  void (*reduce)(const int32_t*, int, ptrdiff_t, bool, int32_t*, int);
};

using Registry = sim::TargetRegistry<SimdLoops>;

}  // namespace
}  // namespace ethosu::kernels
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "models/kernels/simd_loops.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "models/kernels/simd_loops.h"

HWY_BEFORE_NAMESPACE();
namespace ethosu::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Elements of a buffer that holds one vector of D. Highway 1.0.3's MaxLanes() undercounts a capped or rebound tag
// with fewer lanes than a full vector on SVE (it scales the cap, not the vector, by the fraction): there a buffer
// takes the widest vector the target allows.
template <class D>
constexpr size_t BufferLanes(D d) {
#if HWY_HAVE_SCALABLE
  (void)d;
  return HWY_LANES(hn::TFromD<D>);
#else
  return hn::MaxLanes(d);
#endif
}

// Where the requantised values go: rows of int32 (requantize_tile), or 8-bit feature-map elements of type T
// (requantize_store_8bit), which only the channels in use reach. The 64-bit path stores values it has clamped
// (put); the 32-bit path stores two vectors of channels at a time clamped here to [lo, hi] (put2).
struct Int32Rows {
  int32_t* out;
  ptrdiff_t stride;  // elements from row to row
  int32_t lo, hi;
  void put(int i, int j, int32_t v) const { out[i * stride + j] = v; }
  int32_t* column(size_t j) const { return out + j; }
  template <class D, class V>
  void put(D d, int32_t* column, int i, size_t /*used*/, V v) const {
    hn::StoreU(v, d, column + i * stride);
  }
#if HWY_TARGET != HWY_SCALAR
  // Rows are writable up to whole vectors: a tail stores its first vector whole, its second only if used.
  template <class D, class V>
  void put2(D d, int32_t* row, V a, V b, size_t used) const {
    const auto lo_v = hn::Set(d, lo), hi_v = hn::Set(d, hi);
    hn::StoreU(hn::Min(hn::Max(a, lo_v), hi_v), d, row);
    if (used > hn::Lanes(d)) hn::StoreU(hn::Min(hn::Max(b, lo_v), hi_v), d, row + hn::Lanes(d));
  }
#endif
};

#if HWY_TARGET != HWY_SCALAR
// ReorderDemote2To may interleave its two inputs' lanes (AVX2 packs each 128-bit block on its own): the byte
// indices that put the demoted channels back in order, learnt once per target from the lane numbers.
template <class D8, class D16, class D>
const hn::TFromD<D8>* ChannelOrder(D8 d8, D16 d16, D d) {
  using T = hn::TFromD<D8>;
  struct Order {
    HWY_ALIGN T index[BufferLanes(D8())];
  };
  static const Order order = [&] {
    HWY_ALIGN T lanes[BufferLanes(D8())];
    hn::Store(hn::DemoteTo(d8, hn::ReorderDemote2To(d16, hn::Iota(d, 0), hn::Iota(d, hn::Lanes(d)))), d8, lanes);
    Order o{};
    for (size_t k = 0; k < hn::Lanes(d8); ++k) o.index[static_cast<size_t>(lanes[k])] = static_cast<T>(k);
    return o;
  }();
  return order.index;
}
#endif

template <typename T>
struct Bytes8 {
  uint8_t* out;
  ptrdiff_t stride, brick_stride;  // bytes from row to row, from brick to brick
  T lo, hi;
  const T* order;  // ChannelOrder() (put2 only)
  uint8_t* column(size_t j) const {
    return out + static_cast<ptrdiff_t>(j / 16) * brick_stride + static_cast<ptrdiff_t>(j % 16);
  }
  void put(int i, int j, int32_t v) const { column(static_cast<size_t>(j))[i * stride] = static_cast<uint8_t>(v); }
  // A vector of int32 lanes (within T, so saturation is exact) as bytes; a tail vector's unused lanes are not
  // written.
  template <class D, class V>
  void put(D /*d*/, uint8_t* column, int i, size_t used, V v) const {
    const hn::Rebind<T, D> d8;
    store(d8, hn::DemoteTo(d8, v), column + i * stride, used);
  }
#if HWY_TARGET != HWY_SCALAR
  // Two vectors of channels demoted together (saturating, so the clamp to lo and hi within T is exact after
  // it) into one store of 2 * Lanes(d) bytes, or of the first `used`.
  template <class D, class V>
  void put2(D /*d*/, uint8_t* row, V a, V b, size_t used) const {
    const hn::Repartition<int16_t, D> d16;
    const hn::Rebind<T, decltype(d16)> d8;
    auto v = hn::DemoteTo(d8, hn::ReorderDemote2To(d16, a, b));
    v = hn::TableLookupBytes(v, hn::Load(d8, order));
    store(d8, hn::Min(hn::Max(v, hn::Set(d8, lo)), hn::Set(d8, hi)), row, used);
  }
#endif
  template <class D8, class V8>
  static void store(D8 d8, V8 v8, uint8_t* dst, size_t used) {
    if (used == hn::Lanes(d8)) {
      hn::StoreU(v8, d8, reinterpret_cast<T*>(dst));
      return;
    }
    HWY_ALIGN T lanes[BufferLanes(d8)];
    hn::Store(v8, d8, lanes);
    std::memcpy(dst, lanes, used);
  }
};

#if HWY_TARGET == HWY_SCALAR
// One lane has no 32-bit halves to multiply: the same arithmetic in plain C++.
template <class Sink>
bool RequantizeRows(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels, const RequantizeParams& p,
                    const Sink& sink) {
  int64_t wide = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < channels; ++j) {
      int64_t x = p.bias[j] + sums[i * sum_stride + j];
      x = x < p.acc_lo ? p.acc_lo : (x > p.acc_hi ? p.acc_hi : x);
      wide |= (x + (int64_t{1} << 31)) >> 32;
      const uint64_t magnitude = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
      const uint64_t product = (magnitude & 0xFFFFFFFFu) * static_cast<uint64_t>(p.mult[j]);
      const int64_t prod = x < 0 ? -static_cast<int64_t>(product) : static_cast<int64_t>(product);
      int64_t v = (prod >> p.shift[j]) + (((prod & p.mask[j]) + (x < 0 ? p.rneg[j] : p.rpos[j])) >> p.shift[j]) + p.zp;
      v = v < p.lo ? p.lo : (v > p.hi ? p.hi : v);
      sink.put(i, j, static_cast<int32_t>(v));
    }
  return wide == 0;
}
#else
// One of two 64-bit rounding addends by the sign of v. Highway 1.0.3's IfNegativeThenElse blends whole lanes on
// SSSE3 (no BLENDVPD there) instead of by their sign bits: that target broadcasts the sign first.
template <class V>
HWY_INLINE V BySign(V v, V negative, V positive) {
#if HWY_TARGET == HWY_SSSE3
  return hn::IfThenElse(hn::MaskFromVec(hn::BroadcastSignBit(v)), negative, positive);
#else
  return hn::IfNegativeThenElse(v, negative, positive);
#endif
}

// floor((x * mult + r) / 2^shift) + zp per channel (see Requantize32: r includes zp): the high halves of the two parities' 64-bit sums
// p + r, then an arithmetic shift by shift - 32 in 32-bit lanes. mult_odd holds channel 2k + 1's multiplier in
// lane 2k, where MulEven reads. kBySign: r depends on the product's sign.
template <bool kBySign, class D, class V, class V64>
HWY_INLINE V Scale32(D d, V x, V mult, V mult_odd, V shift32, V64 even_rpos, V64 even_rneg, V64 odd_rpos,
                     V64 odd_rneg) {
  const hn::RebindToUnsigned<hn::Repartition<int64_t, D>> du64;
  const auto x_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, x)));
  auto even = hn::MulEven(x, mult), odd = hn::MulEven(x_odd, mult_odd);
  if (kBySign) {
    even = hn::Add(even, BySign(even, even_rneg, even_rpos));
    odd = hn::Add(odd, BySign(odd, odd_rneg, odd_rpos));
  } else {
    even = hn::Add(even, even_rpos);
    odd = hn::Add(odd, odd_rpos);
  }
  const auto high = hn::OddEven(hn::BitCast(d, odd), hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, even))));
  return hn::Shr(high, shift32);
}

// bias + sum in wrapping int32, and where it wrapped (both operands of one sign and the sum of the other) in the
// sign bits of `wrapped`, for the lanes of `used` (kCheck only).
template <bool kCheck, class D, class V>
HWY_INLINE V BiasedSum(D d, const int32_t* sum, V bias, hn::Mask<D> used, V& wrapped) {
  const hn::RebindToUnsigned<D> du;
  const auto s = hn::LoadU(d, sum);
  const auto x = hn::BitCast(d, hn::Add(hn::BitCast(du, s), hn::BitCast(du, bias)));
  if (kCheck) wrapped = hn::Or(wrapped, hn::IfThenElseZero(used, hn::And(hn::Xor(x, s), hn::Xor(x, bias))));
  return x;
}

// The rows of one column of the tile: two vectors of channels, from j and from j + second (second is 0 when a tail
// has one vector, whose result then also serves as the unused second), `used` channels stored. The channel
// constants are loaded once, before the rows (those the registers cannot hold the compiler spills once and reads as
// memory operands).
template <bool kCheck, bool kBySign, class D, class Sink>
HWY_INLINE void RequantizeColumn(D d, const Requantize32& f, size_t j, size_t second, hn::Mask<D> used_a,
                                 hn::Mask<D> used_b, size_t used, const int32_t* sums, ptrdiff_t sum_stride, int rows,
                                 const Sink& sink, hn::Vec<D>& wrapped) {
  const hn::Repartition<int64_t, D> d64;
  const size_t k = j + second;
  const auto bias_a = hn::LoadU(d, f.bias + j), bias_b = hn::LoadU(d, f.bias + k);
  const auto mult_a = hn::LoadU(d, f.mult + j), mult_b = hn::LoadU(d, f.mult + k);
  const auto mult_odd_a = hn::LoadU(d, f.mult + j + 1), mult_odd_b = hn::LoadU(d, f.mult + k + 1);
  const auto shift_a = hn::LoadU(d, f.shift + j), shift_b = hn::LoadU(d, f.shift + k);
  const auto erp_a = hn::LoadU(d64, f.even_rpos + j / 2), erp_b = hn::LoadU(d64, f.even_rpos + k / 2);
  const auto orp_a = hn::LoadU(d64, f.odd_rpos + j / 2), orp_b = hn::LoadU(d64, f.odd_rpos + k / 2);
  const auto ern_a = hn::LoadU(d64, f.even_rneg + j / 2), ern_b = hn::LoadU(d64, f.even_rneg + k / 2);
  const auto orn_a = hn::LoadU(d64, f.odd_rneg + j / 2), orn_b = hn::LoadU(d64, f.odd_rneg + k / 2);
  const int32_t* s = sums + j;
  auto row = sink.column(j);
  for (int i = 0; i < rows; ++i, s += sum_stride, row += sink.stride) {
    const auto xa = BiasedSum<kCheck>(d, s, bias_a, used_a, wrapped);
    const auto xb = BiasedSum<kCheck>(d, s + second, bias_b, used_b, wrapped);
    const auto a = Scale32<kBySign>(d, xa, mult_a, mult_odd_a, shift_a, erp_a, ern_a, orp_a, orn_a);
    const auto b = Scale32<kBySign>(d, xb, mult_b, mult_odd_b, shift_b, erp_b, ern_b, orp_b, orn_b);
    sink.put2(d, row, a, b, used);
  }
}

// Two vectors of channels per step, so that an 8-bit sink stores them at once; the channels no whole step covers
// once, after the others. kCheck: bias + sum may wrap int32 (then the result is false).
template <bool kCheck, bool kBySign, class Sink>
bool RequantizeRows32(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels, const RequantizeParams& p,
                      const Sink& sink_in) {
  // Locals: the stores (8-bit ones alias everything) cannot make the compiler reload them.
  const Sink sink = sink_in;
  const Requantize32 f = *p.fast;
  const hn::CappedTag<int32_t, kRequantizeLanes> d;
  const size_t n = hn::Lanes(d), step = 2 * n, count = static_cast<size_t>(channels);
  const auto all = hn::FirstN(d, n);
  auto wrapped = hn::Zero(d);
  size_t j = 0;
  for (; j + step <= count; j += step)
    RequantizeColumn<kCheck, kBySign>(d, f, j, n, all, all, step, sums, sum_stride, rows, sink, wrapped);
  if (j < count) {
    // The second vector only where some of its lanes are used (rows are readable up to whole vectors).
    const size_t used = count - j, second = used > n ? n : 0;
    RequantizeColumn<kCheck, kBySign>(d, f, j, second, hn::FirstN(d, used), hn::FirstN(d, second ? used - n : 0),
                                      used, sums, sum_stride, rows, sink, wrapped);
  }
  return !kCheck || hn::AllFalse(d, hn::Lt(wrapped, hn::Zero(d)));
}

template <class Sink>
bool RequantizeRows(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels, const RequantizeParams& p,
                    const Sink& sink) {
  if (p.fast) {
    if (p.sums_fit)
      return p.fast->by_sign ? RequantizeRows32<false, true>(sums, sum_stride, rows, channels, p, sink)
                             : RequantizeRows32<false, false>(sums, sum_stride, rows, channels, p, sink);
    return p.fast->by_sign ? RequantizeRows32<true, true>(sums, sum_stride, rows, channels, p, sink)
                           : RequantizeRows32<true, false>(sums, sum_stride, rows, channels, p, sink);
  }
  // int64 lanes, at most kRequantizeLanes so that callers know how far the tail may reach.
  const hn::CappedTag<int64_t, kRequantizeLanes> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::Repartition<uint32_t, decltype(du)> du32;
  const hn::Rebind<int32_t, decltype(d)> d32;
  const hn::Rebind<uint32_t, decltype(d)> du32_half;
  const size_t n = hn::Lanes(d);
  const auto acc_lo = hn::Set(d, p.acc_lo), acc_hi = hn::Set(d, p.acc_hi);
  const auto zp = hn::Set(d, p.zp), lo = hn::Set(d, p.lo), hi = hn::Set(d, p.hi);
  const auto int32_bias = hn::Set(d, int64_t{1} << 31);
  const auto zero = hn::Zero(d);
  auto wide = hn::Zero(d);
  for (size_t j = 0; j < static_cast<size_t>(channels); j += n) {
    // The channel constants once per tile column, for every row.
    const auto mult = hn::BitCast(du32, hn::LoadU(d, p.mult + j));
    const auto bias = hn::LoadU(d, p.bias + j), shift = hn::LoadU(d, p.shift + j), mask = hn::LoadU(d, p.mask + j);
    const auto rpos = hn::LoadU(d, p.rpos + j), rneg = hn::LoadU(d, p.rneg + j);
    const size_t used_lanes = std::min(n, static_cast<size_t>(channels) - j);
    const auto used = hn::FirstN(d, used_lanes);  // the tail's lanes are not stored
    const auto column = sink.column(j);
    for (int i = 0; i < rows; ++i) {
      auto x = hn::Add(bias, hn::PromoteTo(d, hn::LoadU(d32, sums + i * sum_stride + j)));
      x = hn::Min(hn::Max(x, acc_lo), acc_hi);
      // Nonzero high half after the offset: x is outside int32 (only lanes that are used count).
      wide = hn::Or(wide, hn::IfThenElseZero(used, hn::ShiftRight<32>(hn::Add(x, int32_bias))));
      // |x| * mult as an unsigned 32 x 32 -> 64 product (exact for |x| <= 2^31), then the sign.
      const auto negative = hn::Lt(x, zero);
      const auto magnitude = hn::BitCast(du32, hn::Abs(x));
      const auto product = hn::BitCast(d, hn::MulEven(magnitude, mult));
      const auto prod = hn::IfThenElse(negative, hn::Neg(product), product);
      const auto rem = hn::And(prod, mask);
      auto v = hn::Add(hn::Shr(prod, shift), hn::Shr(hn::Add(rem, hn::IfThenElse(negative, rneg, rpos)), shift));
      v = hn::Min(hn::Max(hn::Add(v, zp), lo), hi);
      sink.put(d32, column, i, used_lanes, hn::BitCast(d32, hn::TruncateTo(du32_half, hn::BitCast(du, v))));
    }
  }
  return hn::AllTrue(d, hn::Eq(wide, zero));
}
#endif

bool RequantizeTile(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels, const RequantizeParams& p,
                    int32_t* out, ptrdiff_t out_stride) {
  return RequantizeRows(sums, sum_stride, rows, channels, p,
                        Int32Rows{out, out_stride, static_cast<int32_t>(p.lo), static_cast<int32_t>(p.hi)});
}

template <typename T>
bool RequantizeStoreAs(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels, const RequantizeParams& p,
                      const ByteElements& out) {
  const T* order = nullptr;
#if HWY_TARGET != HWY_SCALAR
  const hn::CappedTag<int32_t, kRequantizeLanes> d;
  const hn::Repartition<int16_t, decltype(d)> d16;
  order = ChannelOrder(hn::Rebind<T, decltype(d16)>(), d16, d);
#endif
  return RequantizeRows(sums, sum_stride, rows, channels, p,
                        Bytes8<T>{out.out, out.row_stride, out.brick_stride, static_cast<T>(p.lo), static_cast<T>(p.hi),
                                  order});
}

bool RequantizeStore8(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels, const RequantizeParams& p,
                      const ByteElements& out) {
  return out.is_signed ? RequantizeStoreAs<int8_t>(sums, sum_stride, rows, channels, p, out)
                       : RequantizeStoreAs<uint8_t>(sums, sum_stride, rows, channels, p, out);
}

// The channels no whole vector covers, one at a time (uint32: wrap-around stays defined).
void DepthwiseTail(const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, const int16_t* w,
                   ptrdiff_t w_tap_stride, int c, int channels, int pixels, int32_t* acc, ptrdiff_t acc_stride) {
  for (; c < channels; ++c)
    for (int i = 0; i < pixels; ++i) {
      uint32_t sum = 0;
      for (int t = 0; t < ntaps; ++t)
        sum += static_cast<uint32_t>(int32_t{a[i * pix_stride + taps[t] + c]} * w[t * w_tap_stride + c]);
      acc[i * acc_stride + c] = static_cast<int32_t>(sum);
    }
}

#if HWY_TARGET == HWY_SCALAR
void DepthwiseSums(const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, const int16_t* w,
                   ptrdiff_t w_tap_stride, int channels, int pixels, int32_t* acc, ptrdiff_t acc_stride) {
  DepthwiseTail(a, pix_stride, taps, ntaps, w, w_tap_stride, 0, channels, pixels, acc, acc_stride);
}
#else
// Two taps per multiply-add: the int16 values of taps t and t + 1 interleaved (per 128-bit block) against their
// weights, each int32 lane the sum of one channel's two products (no pair can wrap: the caller bounds the whole
// sum). Lane 4k + m of the lower interleave's sums is channel 8k + m of the vector, of the upper's 8k + 4 + m.
// Up to four pixels (pix_stride apart from a) share each interleaved weight pair.
template <int P, class D16>
HWY_INLINE void DepthwisePixels(D16 d16, const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps,
                                const int16_t* w, ptrdiff_t w_tap_stride, int32_t* out, ptrdiff_t out_stride) {
  static_assert(P >= 1 && P <= 4, "accumulators for at most four pixels");
  const hn::Repartition<int32_t, D16> d32;
  const auto zero = hn::Zero(d32);
  // Per pixel: lower and upper interleave, each with ReorderWidenMulAccumulate's second sum.
  auto l0 = zero, l0b = zero, h0 = zero, h0b = zero, l1 = zero, l1b = zero, h1 = zero, h1b = zero;
  auto l2 = zero, l2b = zero, h2 = zero, h2b = zero, l3 = zero, l3b = zero, h3 = zero, h3b = zero;
  const auto step = [&](const auto wl, const auto wh, const int16_t* x, int32_t t0, int32_t t1, auto& l, auto& lb,
                        auto& h, auto& hb) {
    const auto x0 = hn::LoadU(d16, x + t0), x1 = hn::LoadU(d16, x + t1);
    l = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveLower(d16, x0, x1), wl, l, lb);
    h = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveUpper(d16, x0, x1), wh, h, hb);
  };
  const auto taps_pair = [&](int32_t t0, int32_t t1, const auto w0, const auto w1) {
    const auto wl = hn::InterleaveLower(d16, w0, w1), wh = hn::InterleaveUpper(d16, w0, w1);
    step(wl, wh, a, t0, t1, l0, l0b, h0, h0b);
    if (P > 1) step(wl, wh, a + pix_stride, t0, t1, l1, l1b, h1, h1b);
    if (P > 2) step(wl, wh, a + 2 * pix_stride, t0, t1, l2, l2b, h2, h2b);
    if (P > 3) step(wl, wh, a + 3 * pix_stride, t0, t1, l3, l3b, h3, h3b);
  };
  int t = 0;
  for (; t + 1 < ntaps; t += 2)
    taps_pair(taps[t], taps[t + 1], hn::LoadU(d16, w + t * w_tap_stride), hn::LoadU(d16, w + (t + 1) * w_tap_stride));
  if (t < ntaps) taps_pair(taps[t], taps[t], hn::LoadU(d16, w + t * w_tap_stride), hn::Zero(d16));  // odd last tap
  const auto store = [&](auto l, auto lb, auto h, auto hb, int32_t* o) {
    const auto lower = hn::RearrangeToOddPlusEven(l, lb), upper = hn::RearrangeToOddPlusEven(h, hb);
#if HWY_TARGET == HWY_AVX2
    if (hn::Lanes(d32) == 8) {
      // Two blocks: channels 0-3 and 8-11 in `lower`, 4-7 and 12-15 in `upper`.
      hn::StoreU(hn::ConcatLowerLower(d32, upper, lower), d32, o);
      hn::StoreU(hn::ConcatUpperUpper(d32, upper, lower), d32, o + 8);
      return;
    }
#endif
    HWY_ALIGN int32_t lo[BufferLanes(d32)], hi[BufferLanes(d32)];
    hn::Store(lower, d32, lo);
    hn::Store(upper, d32, hi);
    for (size_t k = 0; k < hn::Lanes(d32) / 4; ++k) {
      std::memcpy(o + 8 * k, lo + 4 * k, 4 * sizeof(int32_t));
      std::memcpy(o + 8 * k + 4, hi + 4 * k, 4 * sizeof(int32_t));
    }
  };
  store(l0, l0b, h0, h0b, out);
  if (P > 1) store(l1, l1b, h1, h1b, out + out_stride);
  if (P > 2) store(l2, l2b, h2, h2b, out + 2 * out_stride);
  if (P > 3) store(l3, l3b, h3, h3b, out + 3 * out_stride);
}

// Channels [c, c + Lanes(d16)) of every pixel, four pixels at a time.
template <class D16>
HWY_INLINE void DepthwiseChannels(D16 d16, const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps,
                                  const int16_t* w, ptrdiff_t w_tap_stride, int c, int pixels, int32_t* acc,
                                  ptrdiff_t acc_stride) {
  int i = 0;
  for (; i + 4 <= pixels; i += 4)
    DepthwisePixels<4>(d16, a + i * pix_stride + c, pix_stride, taps, ntaps, w + c, w_tap_stride,
                       acc + i * acc_stride + c, acc_stride);
  const int16_t* ai = a + i * pix_stride + c;
  int32_t* oi = acc + i * acc_stride + c;
  switch (pixels - i) {
    case 1: DepthwisePixels<1>(d16, ai, pix_stride, taps, ntaps, w + c, w_tap_stride, oi, acc_stride); break;
    case 2: DepthwisePixels<2>(d16, ai, pix_stride, taps, ntaps, w + c, w_tap_stride, oi, acc_stride); break;
    case 3: DepthwisePixels<3>(d16, ai, pix_stride, taps, ntaps, w + c, w_tap_stride, oi, acc_stride); break;
    default: break;
  }
}

// Whole vectors first, then the channels left (an OFM tile of 16 or 8 channels under AVX-512's 32 lanes) in
// vectors of 16 and 8 lanes rather than in scalar code.
void DepthwiseSums(const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, const int16_t* w,
                   ptrdiff_t w_tap_stride, int channels, int pixels, int32_t* acc, ptrdiff_t acc_stride) {
  const hn::ScalableTag<int16_t> d;
  const int n = static_cast<int>(hn::Lanes(d));
  int c = 0;
  for (; c + n <= channels; c += n)
    DepthwiseChannels(d, a, pix_stride, taps, ntaps, w, w_tap_stride, c, pixels, acc, acc_stride);
  const hn::CappedTag<int16_t, 16> d16;
  if (static_cast<int>(hn::Lanes(d16)) < n)
    for (; c + 16 <= channels; c += 16)
      DepthwiseChannels(d16, a, pix_stride, taps, ntaps, w, w_tap_stride, c, pixels, acc, acc_stride);
  const hn::CappedTag<int16_t, 8> d8;
  if (static_cast<int>(hn::Lanes(d8)) < n && hn::Lanes(d8) == 8)
    for (; c + 8 <= channels; c += 8)
      DepthwiseChannels(d8, a, pix_stride, taps, ntaps, w, w_tap_stride, c, pixels, acc, acc_stride);
  DepthwiseTail(a, pix_stride, taps, ntaps, w, w_tap_stride, c, channels, pixels, acc, acc_stride);
}
#endif

// Groups of `length` elements, dst[g * dst_stride + i] from src[g * src_stride + i], by vectors of D (length >=
// Lanes(d)): whole ones, the tail as one vector overlapping the last. vector(d, s, o) maps the vector at s to o.
template <class D, typename In, typename Out, class Vector>
HWY_INLINE void MapVectors(D d, const In* src, ptrdiff_t src_stride, Out* dst, ptrdiff_t dst_stride, int groups,
                           int length, const Vector& vector) {
  const int n = static_cast<int>(hn::Lanes(d));
  if (length == n) {  // one vector per group: an NHCWB16 brick, the gather's common case
    for (int g = 0; g < groups; ++g) vector(d, src + g * src_stride, dst + g * dst_stride);
    return;
  }
  for (int g = 0; g < groups; ++g) {
    const In* s = src + g * src_stride;
    Out* o = dst + g * dst_stride;
    int i = 0;
    for (; i + n <= length; i += n) vector(d, s + i, o + i);
    if (i < length) vector(d, s + length - n, o + length - n);
  }
}

// MapVectors() with the widest vector of Out a group fills (a 16-channel brick under AVX-512 takes 16 lanes), or
// element(value) one by one when it fills none.
template <typename In, typename Out, class Vector, class Element>
HWY_INLINE void MapGroups(const In* src, ptrdiff_t src_stride, Out* dst, ptrdiff_t dst_stride, int groups, int length,
                          const Vector& vector, const Element& element) {
  const hn::ScalableTag<Out> d;
  const hn::CappedTag<Out, 16> d16;
  const hn::CappedTag<Out, 8> d8;
  if (length >= static_cast<int>(hn::Lanes(d))) {
    MapVectors(d, src, src_stride, dst, dst_stride, groups, length, vector);
  } else if (length >= 16 && hn::Lanes(d16) == 16) {
    MapVectors(d16, src, src_stride, dst, dst_stride, groups, length, vector);
  } else if (length >= 8 && hn::Lanes(d8) == 8) {
    MapVectors(d8, src, src_stride, dst, dst_stride, groups, length, vector);
  } else {
    for (int g = 0; g < groups; ++g)
      for (int i = 0; i < length; ++i) dst[g * dst_stride + i] = element(src[g * src_stride + i]);
  }
}

template <typename Narrow>
void WidenGroups(const Narrow* src, ptrdiff_t src_stride, int32_t zero_point, int16_t* dst, ptrdiff_t dst_stride,
                 int groups, int length) {
  const auto zp16 = static_cast<int16_t>(static_cast<uint16_t>(zero_point));  // modulo 2^16, as the differences
  MapGroups(
      src, src_stride, dst, dst_stride, groups, length,
      [zp16](auto d, const Narrow* s, int16_t* o) {
        const hn::Rebind<Narrow, decltype(d)> dn;
        hn::StoreU(hn::Sub(hn::PromoteTo(d, hn::LoadU(dn, s)), hn::Set(d, zp16)), d, o);
      },
      [zp16](Narrow v) { return static_cast<int16_t>(static_cast<uint16_t>(v) - static_cast<uint16_t>(zp16)); });
}

void Widen8(const uint8_t* src, ptrdiff_t src_stride, bool is_signed, int32_t zero_point, int16_t* dst,
            ptrdiff_t dst_stride, int groups, int length) {
  if (is_signed)
    WidenGroups(reinterpret_cast<const int8_t*>(src), src_stride, zero_point, dst, dst_stride, groups, length);
  else
    WidenGroups(src, src_stride, zero_point, dst, dst_stride, groups, length);
}

// Bytes plus an addend modulo 256.
void OffsetBytes(const uint8_t* src, ptrdiff_t src_stride, uint8_t addend, uint8_t* dst, ptrdiff_t dst_stride,
                 int groups, int length) {
  MapGroups(
      src, src_stride, dst, dst_stride, groups, length,
      [addend](auto d, const uint8_t* s, uint8_t* o) { hn::StoreU(hn::Add(hn::LoadU(d, s), hn::Set(d, addend)), d, o); },
      [addend](uint8_t v) { return static_cast<uint8_t>(v + addend); });
}

template <typename Narrow>
void NarrowGroups(const int32_t* v, ptrdiff_t v_stride, uint8_t* dst, ptrdiff_t dst_stride, int groups, int length) {
  const hn::ScalableTag<uint32_t> d;
  const hn::Rebind<Narrow, decltype(d)> dn;
  const int n = static_cast<int>(hn::Lanes(d));
  for (int g = 0; g < groups; ++g) {
    const auto* s = reinterpret_cast<const uint32_t*>(v + g * v_stride);
    uint8_t* o = dst + g * dst_stride;
    int i = 0;
    for (; i + n <= length; i += n)
      hn::StoreU(hn::TruncateTo(dn, hn::LoadU(d, s + i)), dn, reinterpret_cast<Narrow*>(o + i * sizeof(Narrow)));
    for (; i < length; ++i) {
      const auto e = static_cast<Narrow>(s[i]);
      std::memcpy(o + i * sizeof(Narrow), &e, sizeof e);
    }
  }
}

void NarrowStore(const int32_t* v, ptrdiff_t v_stride, int element_bytes, uint8_t* dst, ptrdiff_t dst_stride, int groups,
                 int length) {
  if (element_bytes == 1) {
    NarrowGroups<uint8_t>(v, v_stride, dst, dst_stride, groups, length);
  } else if (element_bytes == 2) {
    NarrowGroups<uint16_t>(v, v_stride, dst, dst_stride, groups, length);
  } else {
    for (int g = 0; g < groups; ++g) std::memcpy(dst + g * dst_stride, v + g * v_stride, size_t(length) * sizeof(int32_t));
  }
}

// A byte table of 256 entries as 16 rows of 16: the high nibble picks the row, a 16-entry lookup in every 128-bit
// block (pshufb, tbl) takes the low nibble. The rows are loaded where they are used rather than kept in an array,
// which scalable vectors (SVE) cannot form.
void LookupBytes(const uint8_t* table, const uint8_t* src, uint8_t* dst, size_t n) {
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  const auto low_mask = hn::Set(d, uint8_t{15});
  for (; i + lanes <= n; i += lanes) {
    const auto x = hn::LoadU(d, src + i);
    const auto lo = hn::And(x, low_mask);
    const auto hi = hn::ShiftRight<4>(x);
    auto r = hn::TableLookupBytes(hn::LoadDup128(d, table), lo);
    for (int h = 1; h < 16; ++h)
      r = hn::IfThenElse(hn::Eq(hi, hn::Set(d, static_cast<uint8_t>(h))),
                         hn::TableLookupBytes(hn::LoadDup128(d, table + 16 * h), lo), r);
    hn::StoreU(r, d, dst + i);
  }
#endif
  for (; i < n; ++i) dst[i] = table[src[i]];
}

// Each vector of channels stays in a register across the taps.
void ReduceTaps(const int32_t* a, int taps, ptrdiff_t step, bool max, int32_t* r, int channels) {
  const hn::ScalableTag<int32_t> d;
  const int lanes = static_cast<int>(hn::Lanes(d));
  int c = 0;
  for (; c + lanes <= channels; c += lanes) {
    auto acc = hn::LoadU(d, r + c);
    const int32_t* p = a + c;
    if (max) {
      for (int t = 0; t < taps; ++t, p += step) acc = hn::Max(acc, hn::LoadU(d, p));
    } else {
      for (int t = 0; t < taps; ++t, p += step) acc = hn::Add(acc, hn::LoadU(d, p));
    }
    hn::StoreU(acc, d, r + c);
  }
  for (; c < channels; ++c) {
    const int32_t* p = a + c;
    for (int t = 0; t < taps; ++t, p += step) r[c] = max ? std::max(r[c], *p) : r[c] + *p;
  }
}

const bool registered =
    Registry::add({HWY_TARGET, &RequantizeTile, &RequantizeStore8, &DepthwiseSums, &Widen8, &OffsetBytes,
                    &NarrowStore, &LookupBytes, &ReduceTaps});

}  // namespace HWY_NAMESPACE
}  // namespace ethosu::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <string>

#include "models/kernels/microkernel.h"
#include "sim/error.h"

#if HWY_ARCH_X86
#include <cpuid.h>
#elif HWY_ARCH_ARM_A64 && defined(__linux__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

namespace ethosu::kernels {
namespace {

// Whether this CPU runs a target's code: the instruction sets Highway compiles each target for
// (HWY_TARGET_STR_*). On Arm, NEON is the aarch64 baseline; SVE2 is compiled with its AES extension, and the
// fixed-size SVE targets need their vector length.
#if HWY_ARCH_X86
// F16C from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports does not know the name.
bool cpu_has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && ((ecx >> 29) & 1);
}
#elif HWY_ARCH_ARM_A64 && defined(__linux__)
// Bytes per SVE vector for this thread (0 without SVE).
size_t sve_vector_bytes() {
  const int vl = prctl(PR_SVE_GET_VL);
  return vl < 0 ? 0 : static_cast<size_t>(vl & PR_SVE_VL_LEN_MASK);
}
#endif

bool cpu_runs(int64_t target) {
#if HWY_ARCH_X86
  __builtin_cpu_init();
  const bool ssse3 = __builtin_cpu_supports("ssse3");
  const bool sse4 = ssse3 && __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("sse4.2") &&
                    __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("aes");
  const bool avx2 = sse4 && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma") &&
                    cpu_has_f16c();
  const bool avx3 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
  switch (target) {
    case HWY_SSSE3: return ssse3;
    case HWY_SSE4: return sse4;
    case HWY_AVX2: return avx2;
    case HWY_AVX3: return avx3;
    default: break;
  }
#elif HWY_ARCH_ARM_A64
#if defined(__linux__)
  const unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  const bool sve = (hwcap & HWCAP_SVE) != 0;
  const bool sve2 = sve && (hwcap2 & HWCAP2_SVE2) != 0 && (hwcap2 & HWCAP2_SVEAES) != 0;
  switch (target) {
    case HWY_SVE: return sve;
    case HWY_SVE2: return sve2;
    case HWY_SVE_256: return sve && sve_vector_bytes() == 32;
    case HWY_SVE2_128: return sve2 && sve_vector_bytes() == 16;
    default: break;
  }
#endif
  if (target == HWY_NEON) return true;
#endif
  return target == HWY_SCALAR || target == HWY_EMU128;
}

// The targets this CPU runs, best first (Highway numbers better targets lower).
std::vector<SimdLoops> runnable() {
  std::vector<SimdLoops> out;
  for (const SimdLoops& l : Registry::entries())
    if (cpu_runs(l.target)) out.push_back(l);
  std::sort(out.begin(), out.end(), [](const SimdLoops& a, const SimdLoops& b) { return a.target < b.target; });
  return out;
}

const std::vector<SimdLoops>& available() {
  static const std::vector<SimdLoops> loops = runnable();
  return loops;
}

std::atomic<const SimdLoops*> chosen{nullptr};

const SimdLoops& loops() {
  const SimdLoops* l = chosen.load(std::memory_order_relaxed);
  if (!l) {
    apply_simd_environment();
    l = chosen.load(std::memory_order_relaxed);
    if (!l) {
      l = &available().front();
      chosen.store(l, std::memory_order_relaxed);
    }
  }
  return *l;
}

}  // namespace

bool requantize_tile(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels, const RequantizeParams& p,
                     int32_t* out, ptrdiff_t out_stride) {
  return loops().requantize(sums, sum_stride, rows, channels, p, out, out_stride);
}

bool requantize_store_8bit(const int32_t* sums, ptrdiff_t sum_stride, int rows, int channels,
                           const RequantizeParams& p, const ByteElements& out) {
  return loops().requantize_8bit(sums, sum_stride, rows, channels, p, out);
}

void depthwise_sums(const int16_t* a, ptrdiff_t pix_stride, const int32_t* taps, int ntaps, const int16_t* w,
                    ptrdiff_t w_tap_stride, int channels, int pixels, int32_t* acc, ptrdiff_t acc_stride) {
  loops().depthwise(a, pix_stride, taps, ntaps, w, w_tap_stride, channels, pixels, acc, acc_stride);
}

void widen_8bit(const uint8_t* src, ptrdiff_t src_stride, bool is_signed, int32_t zero_point, int16_t* dst,
                ptrdiff_t dst_stride, int groups, int length) {
  loops().widen(src, src_stride, is_signed, zero_point, dst, dst_stride, groups, length);
}

void offset_bytes(const uint8_t* src, ptrdiff_t src_stride, uint8_t addend, uint8_t* dst, ptrdiff_t dst_stride,
                  int groups, int length) {
  loops().offset(src, src_stride, addend, dst, dst_stride, groups, length);
}

void narrow_store(const int32_t* v, ptrdiff_t v_stride, int element_bytes, uint8_t* dst, ptrdiff_t dst_stride,
                  int groups, int length) {
  loops().narrow(v, v_stride, element_bytes, dst, dst_stride, groups, length);
}

void lookup_bytes_simd(const uint8_t* table, const uint8_t* src, uint8_t* dst, size_t n) {
  loops().lookup(table, src, dst, n);
}

void reduce_taps(const int32_t* a, int taps, ptrdiff_t step, bool max, int32_t* r, int channels) {
  loops().reduce(a, taps, step, max, r, channels);
}

std::vector<int64_t> available_simd_targets() {
  std::vector<int64_t> targets;
  for (const SimdLoops& l : available()) targets.push_back(l.target);
  return targets;
}

void select_simd_target(int64_t target) {
  for (const SimdLoops& l : available())
    if (target == 0 || l.target == target) {
      chosen.store(&l, std::memory_order_relaxed);
      return;
    }
}

int64_t simd_target() { return loops().target; }

const char* simd_target_name() { return hwy::TargetName(loops().target); }

std::vector<std::string> simd_target_names() {
  std::vector<std::string> names;
  for (const SimdLoops& l : available()) names.emplace_back(hwy::TargetName(l.target));
  return names;
}

std::vector<std::string> simd_limit_names() {
  std::vector<std::string> names = simd_target_names();
  const auto avx2 = std::find(names.begin(), names.end(), "AVX2");
  if (avx2 != names.end() && host_has_avx_vnni()) names.insert(avx2, "AVX2_VNNI");
  return names;
}

void limit_simd(const std::string& name) {
  std::string wanted = name;
  for (char& c : wanted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  // AVX2_VNNI: Highway's AVX2 loops with the AVX-VNNI micro-kernels, as a host with AVX-VNNI but no AVX-512 runs.
  const bool vnni = wanted == "AVX2_VNNI" && host_has_avx_vnni();
  if (vnni) wanted = "AVX2";
  for (const SimdLoops& l : available()) {
    const std::string target = hwy::TargetName(l.target);
    if (target != wanted) continue;
    chosen.store(&l, std::memory_order_relaxed);
    set_simd_level_limit(target.rfind("AVX3", 0) == 0 ? SimdLevel::Avx512Vnni
                         : vnni                        ? SimdLevel::AvxVnni
                         : target == "AVX2"            ? SimdLevel::Avx2
                                                       : SimdLevel::Generic);
    return;
  }
  std::string choices;
  for (const std::string& n : simd_limit_names()) choices += (choices.empty() ? "" : ", ") + n;
  throw InputError("SIMD target '" + name + "' is not one this host runs and this build holds (" + choices + ")");
}

void apply_simd_environment() {
  static const bool applied = [] {
    const char* name = std::getenv("ETHOSU_SIM_SIMD");
    if (name && *name) limit_simd(name);
    return true;
  }();
  (void)applied;
}

}  // namespace ethosu::kernels
#endif
