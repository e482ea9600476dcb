// Compiled once per Highway target (foreach_target.h, headers only as in simd_loops.cpp); run_chunks() calls the
// target the caller names. On x86's AVX2 and AVX-512 targets a chunk's quotients stay in registers and its remainder
// lanes are vector arithmetic; elsewhere they are the scalar table lookups (the loop around them is the same code
// for every target).
#ifndef ETHOSU_WEIGHTS_CHUNK_LOOP_REGISTRY
#define ETHOSU_WEIGHTS_CHUNK_LOOP_REGISTRY
#include <array>
#include <cstring>
#include <memory>

#include "models/kernels/weights/chunk_loop.h"
#include "sim/target_registry.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the chunk loop loads 8 stream bytes as one word");

namespace ethosu::weights {
namespace {

// Six WUNARY0 bits per lookup: only the WUNARY1 bits that its 1 bits take index the table, so that it stays small
// (3^6 = 729 entries of 32 bytes). The entries of WUNARY0 bits b start at kSixIndex.first[b], one per pattern of
// its kSixIndex.ones[b] WUNARY1 bits.
constexpr unsigned kSixBits = 6;
constexpr size_t kSixEntries = 729;

struct SixIndex {
  std::array<uint16_t, 64> first{};
  std::array<uint8_t, 64> ones{}, mask{};
};

constexpr SixIndex six_index() {
  SixIndex x{};
  unsigned next = 0;
  for (unsigned b = 0; b < 64; ++b) {
    unsigned ones = 0;
    for (unsigned i = 0; i < kSixBits; ++i) ones += (b >> i) & 1;
    x.first[b] = static_cast<uint16_t>(next);
    x.ones[b] = static_cast<uint8_t>(ones);
    x.mask[b] = static_cast<uint8_t>((1u << ones) - 1);
    next += 1u << ones;
  }
  return x;
}
constexpr SixIndex kSixIndex = six_index();

// The symbols that end in six unary bits: their quotients scaled by 2^WDIV (a quotient is then its weight index
// without the remainder). `ended` is stored with one 16-byte and one 8-byte copy; `keep` is -1 when no symbol ends
// (the carry passes through), else 0; `ended_or` is the OR of `ended`, for the index check.
struct alignas(32) SixGroup {
  std::array<uint32_t, 6> ended{};
  uint16_t tail = 0, ended_or = 0;
  int16_t keep = 0;
  uint8_t count = 0;
  uint8_t unused = 0;  // defined bytes throughout: the vector lanes load all 32 (lanes 6 and 7 are not quotients)
};
using SixGroups = std::array<SixGroup, kSixEntries>;

// Not constexpr: the tables are built on first use rather than stored in the binary (12 of 23 KiB).
SixGroups six_groups(bool truncated_rice, unsigned shift) {
  SixGroups table{};
  for (unsigned b = 0; b < 64; ++b) {
    for (unsigned unary1 = 0; unary1 <= kSixIndex.mask[b]; ++unary1) {
      SixGroup& g = table[kSixIndex.first[b] + unary1];
      unsigned sum = 0, used = 0;
      for (unsigned i = 0; i < kSixBits; ++i) {
        unsigned code = 0;
        if ((b >> i) & 1) code = 1 + ((unary1 >> used++) & 1);
        sum += code;
        if (truncated_rice || code < 2) {
          g.ended[g.count++] = sum << shift;
          sum = 0;
        }
      }
      g.tail = static_cast<uint16_t>(sum << shift);
      g.keep = static_cast<int16_t>(g.count ? 0 : -1);
      for (uint32_t e : g.ended) g.ended_or = static_cast<uint16_t>(g.ended_or | e);
    }
  }
  return table;
}

// On the heap rather than in .bss: a process (the CLI) whose heap is in huge pages then takes no page faults for
// them, where .bss costs one 4 KiB page fault per 4 KiB touched (12 per shift used; 6 shifts, 273 KiB in all).
template <unsigned kShift>
const SixGroups& scaled_six_groups(bool truncated_rice) {
  static const std::unique_ptr<const SixGroups[]> tables(
      new SixGroups[2]{six_groups(false, kShift), six_groups(true, kShift)});
  return tables[truncated_rice ? 1 : 0];
}

// Each target's loop, for run_chunks() to choose from.
struct TargetLoop {
  int64_t target;
  void (*run)(ChunkLoopState&);
};
using Loops = sim::TargetRegistry<TargetLoop>;

}  // namespace
}  // namespace ethosu::weights
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "models/kernels/weights/chunk_loop.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace ethosu::weights {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The next 57 bits or more from bit `pos` (bit 0 first); the loop's conditions keep 64 bits after it.
HWY_INLINE uint64_t PeekAt(const uint8_t* data, uint64_t pos) {
  uint64_t window;
  std::memcpy(&window, data + (pos >> 3), 8);
  return window >> (pos & 7);
}

// A chunk's weight quotients come from two six-bit lookups (SixGroup): the first one's symbols add the carry from
// earlier chunks to their first quotient, the second one's the first one's tail (or that carry when no symbol ends
// in it). The lane policies below keep them for the next chunk's remainders and turn both into weights.

// Quotients in wq (six stores per lookup, the first with its carry; wq has room past the last symbol), weights
// by the slice's table: index = scaled quotient + the lane's remainder bits at pos + lane * kKw, masked to the
// table (lanes beyond the previous chunk's symbols read quotients that may be anything; their weights are
// overwritten later).
template <unsigned kKw>
class ScalarLanes {
 public:
  ScalarLanes(const ChunkLoopState& s) : wq_(s.wq), table_(s.weight_of) {}

  HWY_INLINE void Quotients(const SixGroup& first, const SixGroup& second, uint32_t first_carry,
                            uint32_t second_carry, size_t wp) {
    std::memcpy(wq_ + wp, first.ended.data(), sizeof first.ended);
    wq_[wp] = first.ended[0] + first_carry;
    wp += first.count;
    std::memcpy(wq_ + wp, second.ended.data(), sizeof second.ended);
    wq_[wp] = second.ended[0] + second_carry;
  }

  // The previous chunk's quotients are in wq already.
  HWY_INLINE void Flush(size_t /*begin*/) {}
  HWY_INLINE void Next() {}

  HWY_INLINE void Weights(const uint8_t* data, uint64_t pos, size_t begin, int16_t* weights) const {
    // 12 remainders of up to 4 bits fit one 57-bit window; 5-bit ones take two windows of 6.
    constexpr size_t kLanesPerRead = kKw <= 4 ? kMaxChunkSymbols : kMaxChunkSymbols / 2;
    constexpr uint32_t kMask = (uint32_t{1} << kKw) - 1;
    for (size_t half = 0; half < kMaxChunkSymbols; half += kLanesPerRead) {
      const uint64_t r = kKw ? PeekAt(data, pos + half * kKw) : 0;
      for (size_t j = 0; j < kLanesPerRead; ++j) {
        const size_t i = begin + half + j;
        const uint32_t index = wq_[i] + (static_cast<uint32_t>(r >> (j * kKw)) & kMask);
        weights[i] = table_[index & (kIndexTableSize - 1)];
      }
    }
  }

 private:
  uint32_t* wq_;
  const int16_t* table_;
};

#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// The same with the quotients of two chunks in registers, twice 16 lanes (two vectors of 8), and weights computed
// rather than looked up: an index below the palette size takes that palette code (a permute of the palette in
// registers), any other the direct code index - palette size + DIROFS, and a code is a weight in sign/magnitude
// (bit 0 the sign). Remainders come from per-lane shifts of two 30-bit windows (lanes 0-5 and 6-11). No lane
// indexes memory, so lanes beyond the symbols are harmless; and no load reads quotients just stored piecewise,
// which would stall on store forwarding (the reason they stay in registers).
template <unsigned kKw, bool kPalette>
class VectorLanes {
  using D = hn::FixedTag<uint32_t, 8>;
  using DI = hn::RebindToSigned<D>;
  using D16 = hn::Rebind<int16_t, D>;

 public:
  explicit VectorLanes(const ChunkLoopState& s)
      : wq_(s.wq),
        iota_(hn::Iota(D(), 0)),
        pal_size_(hn::Set(DI(), static_cast<int32_t>(s.pal_size))),
        direct_offset_(hn::Set(D(), s.dir_offset - s.pal_size)),
        pal_blocks_(static_cast<int>((s.pal_size + 7) / 8)) {
    const D d;
    HWY_ALIGN uint32_t shifts[16] = {};
    for (unsigned j = 0; j < kMaxChunkSymbols; ++j) shifts[j] = (j % 6) * kKw;
    shift_low_ = hn::Load(d, shifts);
    shift_high_ = hn::Load(d, shifts + 8);
    from_second_ = hn::RebindMask(d, hn::Gt(hn::BitCast(DI(), iota_), hn::Set(DI(), 5)));
    for (size_t b = 0; b < 4; ++b) {
      HWY_ALIGN uint32_t codes[8];
      for (size_t k = 0; k < 8; ++k) codes[k] = s.palette[8 * b + k];
      palette_[b] = hn::Load(d, codes);
    }
    prev_low_ = prev_high_ = cur_low_ = cur_high_ = hn::Zero(d);
  }

  // Lanes [0, first.count) from the first lookup, the next six from the second (lanes 6 and 7 of a SixGroup's
  // 32 bytes are not quotients: they land only in lanes beyond the chunk's symbols).
  HWY_INLINE void Quotients(const SixGroup& first, const SixGroup& second, uint32_t first_carry,
                            uint32_t second_carry, size_t /*wp*/) {
    const D d;
    const auto lane0 = hn::Eq(iota_, hn::Zero(d));
    const auto a = hn::Add(hn::LoadU(d, first.ended.data()), hn::IfThenElseZero(lane0, hn::Set(d, first_carry)));
    const auto b = hn::Add(hn::LoadU(d, second.ended.data()), hn::IfThenElseZero(lane0, hn::Set(d, second_carry)));
    const auto count = hn::Set(d, first.count);
    const auto low_from_b = hn::TableLookupLanes(b, hn::IndicesFromVec(d, hn::And(hn::Sub(iota_, count), hn::Set(d, 7))));
    const DI di;
    cur_low_ = hn::IfThenElse(hn::RebindMask(d, hn::Lt(hn::BitCast(di, iota_), hn::BitCast(di, count))), a, low_from_b);
    cur_high_ = hn::TableLookupLanes(
        b, hn::IndicesFromVec(d, hn::And(hn::Sub(hn::Add(iota_, hn::Set(d, 8)), count), hn::Set(d, 7))));
  }

  // The previous chunk's quotients into wq from `begin` (before a check or the checked loop reads them).
  HWY_INLINE void Flush(size_t begin) {
    const D d;
    hn::StoreU(prev_low_, d, wq_ + begin);
    hn::StoreU(prev_high_, d, wq_ + begin + 8);
  }

  HWY_INLINE void Next() {
    prev_low_ = cur_low_;
    prev_high_ = cur_high_;
  }

  HWY_INLINE void Weights(const uint8_t* data, uint64_t pos, size_t begin, int16_t* weights) const {
    static_assert(6 * kKw <= 32, "six remainders fit the low 32 bits of a window");
    const D d;
    const D16 d16;
    const auto mask = hn::Set(d, (uint32_t{1} << kKw) - 1);
    const auto first = hn::Set(d, static_cast<uint32_t>(PeekAt(data, pos)));
    const auto second = hn::Set(d, static_cast<uint32_t>(PeekAt(data, pos + 6 * kKw)));
    const auto low = hn::Add(hn::And(hn::IfThenElse(from_second_, second, first) >> shift_low_, mask), prev_low_);
    const auto high = hn::Add(hn::And(second >> shift_high_, mask), prev_high_);
    hn::StoreU(hn::DemoteTo(d16, Codes(low)), d16, weights + begin);
    const hn::Half<D16> d16_half;
    hn::StoreU(hn::LowerHalf(d16_half, hn::DemoteTo(d16, Codes(high))), d16_half, weights + begin + 8);
  }

 private:
  // The weights of indices.
  HWY_INLINE hn::Vec<DI> Codes(hn::Vec<D> index) const {
    const D d;
    const DI di;
    auto code = hn::Add(index, direct_offset_);
    if (kPalette) {
      const auto lane = hn::IndicesFromVec(d, hn::And(index, hn::Set(d, 7)));
      const auto block = hn::ShiftRight<3>(index);
      auto listed = hn::TableLookupLanes(palette_[0], lane);
      for (int b = 1; b < pal_blocks_; ++b)
        listed = hn::IfThenElse(hn::Eq(block, hn::Set(d, static_cast<uint32_t>(b))),
                                hn::TableLookupLanes(palette_[b], lane), listed);
      // The symbols' indices are below 2^31 (the scaled carry stays below 2^24 plus a chunk's sums), so a signed
      // compare orders them; lanes beyond the symbols may hold anything, and their results are discarded.
      code = hn::IfThenElse(hn::RebindMask(d, hn::Lt(hn::BitCast(di, index), pal_size_)), listed, code);
    }
    const auto sign = hn::Neg(hn::BitCast(di, hn::And(code, hn::Set(d, 1))));
    const auto magnitude = hn::BitCast(di, hn::ShiftRight<1>(code));
    return hn::Sub(hn::Xor(magnitude, sign), sign);
  }

  uint32_t* wq_;
  hn::Vec<D> iota_;
  hn::Vec<D> shift_low_, shift_high_;
  hn::Mask<D> from_second_;
  hn::Vec<DI> pal_size_;
  hn::Vec<D> direct_offset_;
  hn::Vec<D> palette_[4];
  int pal_blocks_;
  hn::Vec<D> prev_low_, prev_high_, cur_low_, cur_high_;
};
#endif

// The loop (see chunk_loop.h) for WDIV kKw, a constant so that shifts and masks are immediates: one load for both
// unary parts (the WUNARY1 bits the two six-bit groups take add up to its length), then the previous chunk's
// remainders through all kMaxChunkSymbols lanes whatever its symbol count, so that the loop has no data-dependent
// exit to mispredict; the lanes beyond the count store weights that later lanes overwrite, which is why the loop
// stops one chunk before the end of the slice. Indices are checked per chunk through the OR of its quotients (at
// least the largest; real weights keep it far below the limit, so the branch is predictable). Only when it allows
// an index beyond the table are the chunk's indices checked one by one.
template <unsigned kKw, class Lanes>
HWY_INLINE void RunChunks(ChunkLoopState& s, Lanes& lanes) {
  static_assert(kWeightUnaryBits == 2 * kSixBits, "a chunk's WUNARY0 is two six-bit groups");
  constexpr uint32_t kMask = (uint32_t{1} << kKw) - 1;
  // Beyond this carry the scaled quotients could wrap; the checked loop takes over.
  constexpr uint32_t kMaxCarry = uint32_t{1} << 24;
  const SixGroups& groups = scaled_six_groups<kKw>(s.truncated_rice);
  const uint8_t* const data = s.data;
  int16_t* const weights = s.weights;
  const size_t n = s.n;
  // Every remainder gives a valid index with a scaled quotient up to safe_quotient (index_limit > 2^5 always).
  const uint64_t safe_quotient = s.index_limit - 1 - kMask;
  uint64_t pos = s.pos;
  size_t wp = s.wp, prev_begin = s.prev_begin, prev_end = s.prev_end;
  uint32_t carry = s.carry << kKw;
  uint32_t prev_or = 0;  // of the scaled quotients of the previous chunk
  while (wp < n && prev_begin + kMaxChunkSymbols <= n && s.size_bits - pos >= kUncheckedChunkBits &&
         carry < kMaxCarry) {
    const uint64_t window = PeekAt(data, pos);
    const unsigned low = window & 63, high = (window >> kSixBits) & 63;
    const uint64_t unary1 = window >> kWeightUnaryBits;
    const unsigned low_ones = kSixIndex.ones[low];
    const SixGroup& first = groups[kSixIndex.first[low] + (unary1 & kSixIndex.mask[low])];
    const SixGroup& second = groups[kSixIndex.first[high] + ((unary1 >> low_ones) & kSixIndex.mask[high])];
    const uint32_t first_carry = carry;
    const uint32_t second_carry = first.tail + (first_carry & static_cast<uint32_t>(int32_t{first.keep}));
    carry = second.tail + (second_carry & static_cast<uint32_t>(int32_t{second.keep}));
    const uint32_t quotient_or =
        (first.ended[0] + first_carry) | first.ended_or | (second.ended[0] + second_carry) | second.ended_or;
    lanes.Quotients(first, second, first_carry, second_carry, wp);
    pos += kWeightUnaryBits + low_ones + kSixIndex.ones[high];
    lanes.Weights(data, pos, prev_begin, weights);
    if (HWY_UNLIKELY(prev_or > safe_quotient)) {
      lanes.Flush(prev_begin);
      for (size_t i = prev_begin; i < prev_end; ++i) {
        const uint64_t at = pos + (i - prev_begin) * kKw;
        const uint64_t index = s.wq[i] + (kKw ? PeekAt(data, at) & kMask : 0);
        if (index >= s.index_limit) s.bad_index(s.decoder, index, at);
      }
    }
    pos += (prev_end - prev_begin) * kKw;
    prev_or = quotient_or;
    prev_begin = wp;
    prev_end = wp += first.count + second.count;
    lanes.Next();
  }
  lanes.Flush(prev_begin);
  for (size_t i = prev_begin; i < prev_end; ++i) s.wq[i] >>= kKw;
  s.pos = pos;
  s.wp = wp;
  s.carry = carry >> kKw;
  s.prev_begin = prev_begin;
  s.prev_end = prev_end;
}

template <unsigned kKw>
HWY_NOINLINE void RunChunksFor(ChunkLoopState& s) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  if (s.pal_size) {
    VectorLanes<kKw, true> lanes(s);
    RunChunks<kKw>(s, lanes);
  } else {
    VectorLanes<kKw, false> lanes(s);
    RunChunks<kKw>(s, lanes);
  }
#else
  ScalarLanes<kKw> lanes(s);
  RunChunks<kKw>(s, lanes);
#endif
}

void RunChunksAnyWdiv(ChunkLoopState& s) {
  switch (s.kw) {  // compressed: WDIV 0..5
    case 0: return RunChunksFor<0>(s);
    case 1: return RunChunksFor<1>(s);
    case 2: return RunChunksFor<2>(s);
    case 3: return RunChunksFor<3>(s);
    case 4: return RunChunksFor<4>(s);
    default: return RunChunksFor<5>(s);
  }
}

const bool registered = Loops::add({HWY_TARGET, &RunChunksAnyWdiv});

}  // namespace HWY_NAMESPACE
}  // namespace ethosu::weights
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ethosu::weights {

void run_chunks(int64_t simd_target, ChunkLoopState& s) {
  for (const TargetLoop& loop : Loops::entries())
    if (loop.target == simd_target) return loop.run(s);
  HWY_STATIC_DISPATCH(RunChunksAnyWdiv)(s);
}

}  // namespace ethosu::weights
#endif
