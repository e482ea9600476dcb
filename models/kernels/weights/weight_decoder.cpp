#include "models/kernels/weights/weight_decoder.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "models/kernels/weights/chunk_loop.h"
#include "sim/error.h"

namespace ethosu::weights {
namespace {

// Bitstream constants (04-weight-codec.md section 2).
constexpr unsigned kZdivBits = 3, kSliceLenBits = 15, kWdivBits = 3, kDirOfsBits = 5, kPalSizeBits = 5,
                   kPalBitsBits = 3;
constexpr uint32_t kZdivEndOfStream = 7, kZdivNoZeroRuns = 6, kMaxZdiv = 3;
constexpr uint32_t kWdivUncompressed = 7, kMaxWdiv = 5;
constexpr uint32_t kCodeLimit = 512;  // codes are 9 bits

[[noreturn]] void fail(uint64_t bit_pos, const std::string& what) {
  throw InputError("weight stream: byte " + std::to_string(bit_pos / 8) + " bit " + std::to_string(bit_pos % 8) +
                   ": " + what);
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "BitReader loads 8 stream bytes as one little-endian word");

// LSB-first bit reader that never reads past the buffer: a short read throws with the field name.
class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size_bytes) : data_(data), size_bytes_(size_bytes), size_bits_(size_bytes * 8) {}

  uint64_t pos() const { return pos_; }
  const uint8_t* data() const { return data_; }
  uint64_t size_bits() const { return size_bits_; }
  void seek(uint64_t pos) { pos_ = pos; }
  uint64_t bits_left() const { return size_bits_ - pos_; }
  bool at_end() const { return pos_ == size_bits_; }
  void align_to_byte() { pos_ = std::min<uint64_t>((pos_ + 7) & ~uint64_t{7}, size_bits_); }

  // n <= 57 bits (any bit offset then fits one 64-bit load); the first bit read becomes bit 0. The error path
  // is kept out of line so that this inlines.
  uint64_t read(unsigned n, const char* field) {
    if (__builtin_expect(n > size_bits_ - pos_, 0)) truncated(n, field);
    const size_t byte = static_cast<size_t>(pos_ >> 3);
    const unsigned shift = static_cast<unsigned>(pos_ & 7);
    uint64_t window = 0;
    if (__builtin_expect(byte + 8 <= size_bytes_, 1)) {
      std::memcpy(&window, data_ + byte, 8);  // one load on the hot path (little-endian host, see above)
    } else {
      for (size_t i = 0; byte + i < size_bytes_; ++i) window |= uint64_t{data_[byte + i]} << (8 * i);
    }
    pos_ += n;
    return (window >> shift) & ((uint64_t{1} << n) - 1);
  }

 private:
  [[noreturn, gnu::noinline, gnu::cold]] void truncated(unsigned n, const char* field) const {
    fail(pos_, std::string("stream truncated while reading ") + field + " (" + std::to_string(n) + " bits, " +
                   std::to_string(size_bits_ - pos_) + " left)");
  }

  const uint8_t* data_;
  size_t size_bytes_;
  uint64_t size_bits_;
  uint64_t pos_ = 0;
};

// 9-bit sign/magnitude code -> weight: magnitude in bits 8..1, sign in bit 0.
int16_t code_weight(uint32_t code) {
  return static_cast<int16_t>((code & 1) ? -static_cast<int>(code >> 1) : static_cast<int>(code >> 1));
}

// Palette and settings that continuation slices inherit, with the weight of every index they make valid.
struct SliceContext {
  bool valid = false;  // a NEWPAL slice has been seen since the start / the last end marker
  bool zero_runs = false;
  uint32_t dir_offset = 0;
  uint32_t pal_bits = 2;
  uint32_t pal_size = 0;
  std::array<uint16_t, kMaxPaletteSize> palette{};
  // Indices below index_limit give codes below 512; weight_of[index] is their weight (the rest is unused).
  uint64_t index_limit = 0;
  std::array<int16_t, kIndexTableSize> weight_of{};

  void index_table() {
    index_limit = kCodeLimit + pal_size - dir_offset;
    for (uint32_t i = 0; i < pal_size; ++i) weight_of[i] = code_weight(palette[i]);
    for (uint64_t i = pal_size; i < index_limit; ++i) weight_of[i] = code_weight(static_cast<uint32_t>(i - pal_size + dir_offset));
  }
};

unsigned popcount32(uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return (((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

// The unary weight-quotient codes of four WUNARY0 bits at once. Each 1 bit takes the next WUNARY1 bit (code 1 + that
// bit), a 0 bit is code 0; a symbol ends at a code below 2, or at every code in truncated Rice mode. Indexed by the
// four WUNARY0 bits and the next four WUNARY1 bits: the symbols ending in the group (the first one still adds the
// carry from earlier groups), and the codes after the last end.
// `ended` is four 32-bit words so that one 16-byte copy stores it.
struct UnaryGroup {
  alignas(16) std::array<uint32_t, 4> ended{};
  uint8_t count = 0, tail = 0;
};
using UnaryGroups = std::array<UnaryGroup, 256>;

constexpr UnaryGroups unary_groups(bool truncated_rice) {
  UnaryGroups table{};
  for (unsigned index = 0; index < 256; ++index) {
    UnaryGroup& g = table[index];
    unsigned sum = 0, used = 0;
    for (unsigned b = 0; b < 4; ++b) {
      unsigned code = 0;
      if ((index >> b) & 1) code = 1 + ((index >> (4 + used++)) & 1);
      sum += code;
      if (truncated_rice || code < 2) {
        g.ended[g.count++] = sum;
        sum = 0;
      }
    }
    g.tail = static_cast<uint8_t>(sum);
  }
  return table;
}
constexpr UnaryGroups kUnaryGroups[2] = {unary_groups(false), unary_groups(true)};

// 1 bits in each 4-bit value.
constexpr uint8_t kNibbleOnes[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

// The weight quotients of one chunk from its WUNARY0 bits and the WUNARY1 bits that follow, into wq from wp, four
// bits per table lookup, branch-free (unary bits are random, so branches mispredict). Each group's WUNARY1 bits
// start after the 1 bits of the groups before it, counted from WUNARY0 alone, so that the three lookups do not
// wait for each other. Four stores per group: wq has room for them past the last symbol. Returns how many
// WUNARY1 bits the chunk took.
inline unsigned weight_quotients(const UnaryGroups& groups, uint32_t unary0, uint64_t unary1,
                                 uint32_t* wq, size_t& wp, uint32_t& carry) {
  unsigned used = 0;
  for (unsigned i = 0; i < kWeightUnaryBits; i += 4) {
    const unsigned bits = (unary0 >> i) & 15;
    const UnaryGroup& g = groups[bits | ((unary1 >> used) & 15) << 4];
    used += kNibbleOnes[bits];
    std::memcpy(wq + wp, g.ended.data(), sizeof g.ended);
    wq[wp] += carry;
    wp += g.count;
    carry = g.tail + (g.count ? 0 : carry);
  }
  return used;
}

unsigned ceil_log2(uint32_t v) {
  unsigned b = 0;
  while ((uint32_t{1} << b) < v) ++b;
  return b;
}

class StreamDecoder {
 public:
  StreamDecoder(const uint8_t* data, size_t size_bytes, DecodeScratch& scratch, size_t max_weights)
      : in_(data, size_bytes),
        out_(scratch.stream),
        max_weights_(max_weights),
        simd_target_(scratch.simd_target),
        wq_(scratch.quotients),
        zq_(scratch.zero_runs),
        slice_weights_(scratch.slice_weights) {
    out_.clear();
  }

  // The whole stream into scratch.stream.
  void run() { finish(); }

  // Pull mode: the weights decoded so far that the caller has not used, decoding slices until there are at least n;
  // null if the stream ends first. The caller still needs the last `keep` weights of the previous window (the
  // window starts with them); the others are dropped before a slice is decoded, so the buffer holds about one slice
  // rather than the whole stream, and stays in the cache. The window, [result, end), is valid until the next call.
  const int16_t* window(size_t keep, size_t n, const int16_t*& end) {
    const size_t used = out_.size() - keep;
    if (keep) std::memmove(out_.data(), out_.data() + used, keep * sizeof(int16_t));  // (data() is null before any slice)
    out_.resize(keep);
    dropped_ += used;
    while (out_.size() < n && step()) {
    }
    if (out_.size() < n) return nullptr;
    end = out_.data() + out_.size();
    return out_.data();
  }

  // Weights decoded so far, taken or not.
  uint64_t decoded() const { return dropped_ + out_.size(); }

  // Decodes the rest of the stream and checks that it ends with an end marker.
  void finish() {
    while (step()) {
    }
    if (!after_end_marker_) fail(in_.pos(), "missing end-of-stream marker (ZDIV = 7) before the end of the buffer");
  }

 private:
  // One slice or end marker; false at the end of the buffer.
  bool step() {
    if (in_.at_end()) return false;
    const uint64_t slice_pos = in_.pos();
    const auto zdiv = static_cast<uint32_t>(in_.read(kZdivBits, "ZDIV"));
    if (zdiv == kZdivEndOfStream) {
      // Padding bits and 0xFF bytes decode as further end markers, so just resynchronise on bytes.
      in_.align_to_byte();
      ctx_.valid = false;
      after_end_marker_ = true;
      return true;
    }
    after_end_marker_ = false;
    slice(slice_pos, zdiv);
    return true;
  }

  void slice(uint64_t slice_pos, uint32_t zdiv) {
    if (zdiv > kMaxZdiv && zdiv != kZdivNoZeroRuns) fail(slice_pos, "reserved ZDIV value " + std::to_string(zdiv));
    const size_t n = static_cast<size_t>(in_.read(kSliceLenBits, "SLICELEN")) + 1;
    const uint64_t wdiv_pos = in_.pos();
    const auto wdiv = static_cast<uint32_t>(in_.read(kWdivBits, "WDIV"));
    if (wdiv > kMaxWdiv && wdiv != kWdivUncompressed) fail(wdiv_pos, "reserved WDIV value " + std::to_string(wdiv));
    const bool truncated_rice = in_.read(1, "WTRUNC") != 0;
    const bool new_palette = in_.read(1, "NEWPAL") != 0;
    const bool zero_runs = zdiv != kZdivNoZeroRuns;

    if (new_palette) {
      ctx_.valid = true;
      ctx_.zero_runs = zero_runs;
      ctx_.dir_offset = static_cast<uint32_t>(in_.read(kDirOfsBits, "DIROFS"));
      const auto coded_size = static_cast<uint32_t>(in_.read(kPalSizeBits, "PALSIZE"));
      ctx_.pal_bits = static_cast<uint32_t>(in_.read(kPalBitsBits, "PALBITS")) + 2;
      ctx_.pal_size = coded_size > 0 ? coded_size + 1 : 0;  // coded 0 means "no palette", not one entry
      for (uint32_t i = 0; i < ctx_.pal_size; ++i)
        ctx_.palette[i] = static_cast<uint16_t>(in_.read(ctx_.pal_bits, "palette entry"));
      ctx_.index_table();
    } else if (!ctx_.valid) {
      fail(slice_pos, "slice without NEWPAL where a palette definition is required (first slice of a stream)");
    } else if (ctx_.zero_runs != zero_runs) {
      fail(slice_pos, "continuation slice switches zero runs " + std::string(zero_runs ? "on" : "off"));
    }

    const bool uncompressed = wdiv == kWdivUncompressed;
    Payload p;
    p.n = n;
    p.nz = zero_runs ? n + (new_palette ? 1 : 0) : 0;
    // Uncompressed indices are raw remainders: just wide enough for the palette, or PALBITS without one.
    p.kw = uncompressed ? (ctx_.pal_size > 0 ? ceil_log2(ctx_.pal_size) : ctx_.pal_bits) : wdiv;
    p.kz = zero_runs ? zdiv : 0;
    p.uncompressed = uncompressed;
    p.truncated_rice = truncated_rice;
    p.remainders_per_read = p.kw ? std::min<size_t>(56 / p.kw, kMaxChunkSymbols) : kMaxChunkSymbols;

    // Without zero runs the weights go straight to the output (when they fit the cap); with them, to a
    // scratch row that emit() spreads out between the runs.
    const size_t begin = out_.size();
    const bool direct = !zero_runs && n <= max_weights_ - decoded();
    int16_t* weights;
    if (direct) {
      out_.resize(begin + n);
      weights = out_.data() + begin;
    } else {
      if (slice_weights_.size() < n) slice_weights_.resize(n);
      weights = slice_weights_.data();
    }
    // Quotients per symbol, with room beyond the end for the fast loop (kQuotientSlack).
    if (wq_.size() < n + kQuotientSlack) wq_.resize(n + kQuotientSlack);
    if (zq_.size() < p.nz + kMaxChunkSymbols) zq_.resize(p.nz + kMaxChunkSymbols);
    if (zero_runs)
      payload<true>(p, weights);
    else
      payload<false>(p, weights);
    if (!direct) emit(weights, n, p.nz, new_palette, slice_pos);
  }

  struct Payload {
    size_t n, nz;     // weight and zero-run symbols
    unsigned kw, kz;  // their Rice parameters (remainder bits)
    bool uncompressed, truncated_rice;
    size_t remainders_per_read;  // weight remainders one 57-bit window holds (at most a chunk)
  };

  // The chunks of a slice (04-weight-codec.md section 2.3): weights [0, n) to `weights`, zero runs to zq_. A
  // template on zero runs, so that the common slices without them run a loop with only the weight stream.
  template <bool kZeroRuns>
  void payload(const Payload& p, int16_t* weights) {
    BitReader in = in_;  // a local copy keeps the position in a register
    uint32_t* const wq = wq_.data();
    uint64_t* const zq = zq_.data();
    const UnaryGroups& groups = kUnaryGroups[p.truncated_rice ? 1 : 0];
    const unsigned z_unary_bits = p.kz < 3 ? 12 : 8;
    const size_t uncompressed_chunk = p.kw > 5 ? 8 : 12;
    size_t wp = 0, zp = 0;
    uint32_t w_carry = 0;
    uint64_t z_carry = 0;
    size_t prev_w_begin = 0, prev_w_end = 0, prev_z_begin = 0, prev_z_end = 0;
    if (!kZeroRuns && !p.uncompressed) {
      ChunkLoopState c;
      c.data = in.data();
      c.size_bits = in.size_bits();
      c.truncated_rice = p.truncated_rice;
      c.weight_of = ctx_.weight_of.data();
      c.palette = ctx_.palette.data();
      c.pal_size = ctx_.pal_size;
      c.dir_offset = ctx_.dir_offset;
      c.index_limit = ctx_.index_limit;
      c.kw = p.kw;
      c.n = p.n;
      c.wq = wq;
      c.weights = weights;
      c.bad_index = [](const void* decoder, uint64_t index, uint64_t pos) {
        static_cast<const StreamDecoder*>(decoder)->index_error(index, pos);
      };
      c.decoder = this;
      c.pos = in.pos();
      run_chunks(simd_target_, c);
      in.seek(c.pos);
      wp = c.wp;
      w_carry = c.carry;
      prev_w_begin = c.prev_begin;
      prev_w_end = c.prev_end;
    }
    while (true) {
      const long balance = kZeroRuns ? static_cast<long>(wp) - static_cast<long>(zp) : 0;
      const bool w_part = (!kZeroRuns || balance < 8) && wp < p.n;
      const bool z_part = kZeroRuns && balance >= 0 && zp < p.nz;
      const size_t w_begin = wp, z_begin = zp;

      uint32_t w_unary0 = 0;
      if (w_part && !p.uncompressed) w_unary0 = static_cast<uint32_t>(in.read(kWeightUnaryBits, "WUNARY0"));
      if (z_part) {
        const auto z_unary = static_cast<uint32_t>(in.read(z_unary_bits, "ZUNARY"));
        // Each 0 bit ends a symbol: its quotient is the carry plus the 1 bits since the previous end.
        uint32_t ends = ~z_unary & ((1u << z_unary_bits) - 1);
        unsigned next = 0;
        while (ends) {
          const auto b = static_cast<unsigned>(__builtin_ctz(ends));
          zq[zp++] = z_carry + (b - next);
          z_carry = 0;
          next = b + 1;
          ends &= ends - 1;
        }
        z_carry += z_unary_bits - next;
      }
      if (w_part) {
        if (p.uncompressed) {
          std::fill(wq + wp, wq + wp + uncompressed_chunk, 0);  // quotients are 0
          wp += uncompressed_chunk;
        } else {
          weight_quotients(groups, w_unary0, in.read(popcount32(w_unary0), "WUNARY1"), wq, wp, w_carry);
        }
      }
      // Remainders trail their quotients by one chunk.
      weight_remainders(in, prev_w_begin, std::min(prev_w_end, p.n), p, weights);
      if (kZeroRuns)
        for (size_t j = prev_z_begin; j < std::min(prev_z_end, p.nz); ++j)
          zq[j] = (zq[j] << p.kz) + in.read(p.kz, "ZREMAIN");

      if (!w_part && !z_part) break;
      prev_w_begin = w_begin;
      prev_w_end = wp;
      prev_z_begin = z_begin;
      prev_z_end = zp;
    }
    in_ = in;
  }

  // The weights of symbols [b, e) from their quotients and the next remainders: index = quotient * 2^kw +
  // remainder. The remainders of several symbols come in one read. The buffer may end within them; a read it
  // cannot satisfy goes symbol by symbol, so that the error names the first missing one.
  void weight_remainders(BitReader& in, size_t b, size_t e, const Payload& p, int16_t* __restrict weights) const {
    const uint32_t* wq = wq_.data();
    const int16_t* table = ctx_.weight_of.data();
    const unsigned kw = p.kw;
    const uint64_t mask = (uint64_t{1} << kw) - 1;
    for (size_t j = b; j < e;) {
      const size_t count = std::min(e - j, p.remainders_per_read);
      const auto bits = static_cast<unsigned>(count * kw);
      const uint64_t pos = in.pos();
      if (bits > in.bits_left()) {
        for (; j < e; ++j) {
          const uint64_t at = in.pos();
          check_and_store(j, (uint64_t{wq[j]} << kw) + in.read(kw, "WREMAIN"), at, weights);
        }
        return;
      }
      const uint64_t read = in.read(bits, "WREMAIN");
      uint64_t r = read, largest = 0;
      for (size_t i = j; i < j + count; ++i, r >>= kw) {
        const uint64_t index = (uint64_t{wq[i]} << kw) + (r & mask);
        largest = std::max(largest, index);
        weights[i] = table[index & (kIndexTableSize - 1)];
      }
      if (__builtin_expect(largest >= ctx_.index_limit, 0)) {
        r = read;
        for (size_t i = j; i < j + count; ++i, r >>= kw)
          check_and_store(i, (uint64_t{wq[i]} << kw) + (r & mask), pos + (i - j) * kw, weights);
      }
      j += count;
    }
  }

  void check_and_store(size_t j, uint64_t index, uint64_t pos, int16_t* weights) const {
    if (index >= ctx_.index_limit) index_error(index, pos);
    weights[j] = ctx_.weight_of[index];
  }

  // An index at or beyond index_limit (> pal_size): a direct value beyond 9 bits.
  [[noreturn]] void index_error(uint64_t index, uint64_t pos) const {
    const uint64_t code = index - ctx_.pal_size + ctx_.dir_offset;
    fail(pos, "weight index " + std::to_string(index) + " gives code " + std::to_string(code) +
                  ", beyond 9 bits (palette size " + std::to_string(ctx_.pal_size) + ", DIROFS " +
                  std::to_string(ctx_.dir_offset) + ")");
  }

  // Appends a slice that did not go straight to the output: a new palette's leading zero run, then each weight
  // followed by its zero run. The size is counted first so that the output grows once per slice; the growth is
  // zero-filled, which writes the zero runs.
  void emit(const int16_t* weights, size_t n, size_t nz, bool new_palette, uint64_t slice_pos) {
    const uint64_t room = max_weights_ - decoded();
    uint64_t total = n;
    bool too_many = total > room;
    for (size_t i = 0; i < nz && !too_many; ++i) {
      total += zq_[i];
      too_many = total > room;
    }
    if (too_many) fail(slice_pos, "slice decodes to more than " + std::to_string(max_weights_) + " weights");
    const size_t begin = out_.size();
    out_.resize(begin + static_cast<size_t>(total));
    int16_t* o = out_.data() + begin;
    std::fill(o, o + total, int16_t{0});
    const uint64_t* z = zq_.data();
    if (new_palette) o += *z++;
    for (size_t i = 0; i < n; ++i) {
      *o++ = weights[i];
      o += *z++;
    }
  }

  BitReader in_;
  RawVector<int16_t>& out_;
  uint64_t dropped_ = 0;  // weights window() has dropped from the front of out_
  bool after_end_marker_ = false;
  size_t max_weights_;
  int64_t simd_target_;
  SliceContext ctx_;
  std::vector<uint32_t>& wq_;
  RawVector<uint64_t>& zq_;
  RawVector<int16_t>& slice_weights_;
};

// Sizes of one core's share (04-weight-codec.md section 1): core k gets channels k, k + cores, ...
int core_share(int total, const WeightLayout& l) { return (total - l.core + l.cores - 1) / l.cores; }

struct Geometry {
  int ofm_depth, block_depth, depth, ifm_block_depth, sub_h, sub_w, tap_round;
  int ofm_ublock;  // OFM channels per group of the stream
  bool dw, pk;
};

constexpr int kIfmMicroBlock = 8;

Geometry geometry(const WeightLayout& l) {
  Geometry g{};
  g.dw = l.kind == OpKind::DEPTHWISE;
  g.pk = l.part_kernel_first;
  g.ofm_depth = core_share(l.ofm_depth, l);
  g.block_depth = core_share(l.ofm_block_depth, l);
  g.depth = g.dw ? 1 : l.ifm_depth;
  g.ifm_block_depth = (g.pk || l.ifm_bits == 16) ? 16 : 32;
  // Sub-kernels cover an 8x8 dilated footprint.
  g.sub_h = 8 / l.dilation_y;
  g.sub_w = 8 / l.dilation_x;
  g.tap_round = g.dw ? 4 : (g.pk ? (l.ifm_bits == 16 ? 2 : 4) : 1);
  g.ofm_ublock = l.ofm_ublock_depth;
  return g;
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

// Walks the consumption order (04-weight-codec.md section 3) one OFM micro-block x 8-IFM (or x 1) group at a time;
// visit(o_first, o_end, i_first, ky, kx) gets the group's first stream position implicitly by call order.
template <typename Visit>
void walk(const WeightLayout& l, const Geometry& g, Visit&& visit) {
  for (int ob = 0; ob < g.ofm_depth; ob += g.block_depth) {
    const int o_end = std::min(ob + g.block_depth, g.ofm_depth);  // the MACs ignore channels beyond the block
    const int ib_count = g.dw ? 1 : (g.depth + g.ifm_block_depth - 1) / g.ifm_block_depth;
    for (int ibn = 0; ibn < ib_count; ++ibn) {
      const int ib = ibn * g.ifm_block_depth;
      const int ibd = g.dw ? kIfmMicroBlock : (g.pk ? std::min(g.ifm_block_depth, g.depth - ib) : g.ifm_block_depth);
      for (int sy = 0; sy < l.kernel_height; sy += g.sub_h) {
        for (int sx = 0; sx < l.kernel_width; sx += g.sub_w) {
          const int sh = std::min(g.sub_h, l.kernel_height - sy);
          const int sw = std::min(g.sub_w, l.kernel_width - sx);
          const int taps = round_up(sw * sh, g.tap_round);
          const int iu_out_end = g.pk ? ibd : 1;
          const int iu_in_end = g.pk ? 1 : ibd;
          for (int iu_out = 0; iu_out < iu_out_end; iu_out += kIfmMicroBlock) {
            for (int ou = 0; ou < o_end - ob; ou += g.ofm_ublock) {
              for (int e = 0; e < taps; ++e) {
                const int ky = e / sw, kx = e % sw;
                for (int iu_in = 0; iu_in < iu_in_end; iu_in += kIfmMicroBlock) {
                  visit(ob + ou, o_end, ib + iu_out + iu_in, ky < sh ? sy + ky : -1, sx + kx);
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

void decode_stream(const uint8_t* data, size_t size_bytes, DecodeScratch& scratch, size_t max_weights) {
  StreamDecoder(data, size_bytes, scratch, max_weights).run();
}

void decode_stream(const uint8_t* data, size_t size_bytes, std::vector<int16_t>& out, size_t max_weights) {
  DecodeScratch scratch;
  decode_stream(data, size_bytes, scratch, max_weights);
  out.assign(scratch.stream.begin(), scratch.stream.end());
}

std::vector<int16_t> decode_stream(const std::vector<uint8_t>& bytes, size_t max_weights) {
  std::vector<int16_t> out;
  decode_stream(bytes.data(), bytes.size(), out, max_weights);
  return out;
}

void validate(const WeightLayout& l) {
  const auto bad = [](const std::string& what) { throw InputError("weight layout: " + what); };
  if (l.ofm_depth < 1 || l.ifm_depth < 1 || l.kernel_height < 1 || l.kernel_width < 1) bad("sizes must be positive");
  if ((l.dilation_x != 1 && l.dilation_x != 2) || (l.dilation_y != 1 && l.dilation_y != 2)) bad("dilation must be 1 or 2");
  if (l.ifm_bits != 8 && l.ifm_bits != 16) bad("IFM precision must be 8 or 16 bits");
  if (l.cores < 1 || l.cores > 2 || l.core < 0 || l.core >= l.cores) bad("core must be 0 or 1 of 1 or 2 cores");
  if (l.ofm_ublock_depth != 4 && l.ofm_ublock_depth != 8) bad("OFM micro-block depth must be 4 or 8");
  if (core_share(l.ofm_block_depth, l) < 1) {
    bad("OFM tile depth " + std::to_string(l.ofm_block_depth) + " leaves core " + std::to_string(l.core) + " no channels");
  }
}

size_t stream_weight_count(const WeightLayout& l) {
  validate(l);
  const Geometry g = geometry(l);
  const size_t group = static_cast<size_t>(g.ofm_ublock) * (g.dw ? 1 : kIfmMicroBlock);
  size_t count = 0;
  walk(l, g, [&](int, int, int, int, int) { count += group; });
  return count;
}

void prepare(const WeightLayout& l, DenseWeights& dense) {
  validate(l);
  const int depth = l.kind == OpKind::DEPTHWISE ? 1 : l.ifm_depth;
  if (dense.ofm_depth == l.ofm_depth && dense.kernel_height == l.kernel_height &&
      dense.kernel_width == l.kernel_width && dense.depth == depth) {
    return;
  }
  dense.ofm_depth = l.ofm_depth;
  dense.kernel_height = l.kernel_height;
  dense.kernel_width = l.kernel_width;
  dense.depth = depth;
  dense.values.assign(static_cast<size_t>(l.ofm_depth) * l.kernel_height * l.kernel_width * depth, 0);
}

namespace {

[[noreturn]] void count_mismatch(const WeightLayout& l, uint64_t count, size_t expected) {
  throw InputError("weight stream holds " + std::to_string(count) + " weights; the layout (OFM depth " +
                   std::to_string(l.ofm_depth) + ", core " + std::to_string(l.core) + ") consumes " +
                   std::to_string(expected));
}

// Scatters the stream into `dst` group by group in consumption order; take(n) gives the next n stream weights (a
// group: an OFM micro-block x 8 IFM, or x 1 for depthwise), valid until its next call.
template <typename Take>
void scatter(const WeightLayout& l, const PackedLayout& dst, Take&& take) {
  const int depth = l.kind == OpKind::DEPTHWISE ? 1 : l.ifm_depth;
  const Geometry g = geometry(l);
  const int i_group = g.dw ? 1 : kIfmMicroBlock;
  const int ofm_ublock = g.ofm_ublock;
  const size_t group = static_cast<size_t>(ofm_ublock * i_group);
  // Local copies: the stores below could alias the caller's structs, which would reload every stride.
  const PackedLayout d = dst;
  const int core = l.core, cores = l.cores, kernel_width = l.kernel_width;
  const auto lane = [&](int o) {
    const size_t oc = static_cast<size_t>(core + o * cores);
    return (oc / 16) * d.ofm_group_stride + (oc % 16) * d.ofm_lane_stride;
  };
  const size_t lane_step = static_cast<size_t>(cores) * d.ofm_lane_stride;
  // The conv kernel's layout on one core: a pair's 8 channels of a group are 16 contiguous elements.
  constexpr size_t kConvPairStride = 32;
  const bool conv_layout = lane_step == 2 && d.ifm_pair_stride == kConvPairStride;
  walk(l, g, [&](int o_first, int o_end, int i_first, int ky, int kx) {
    const int16_t* s = take(group);
    if (ky < 0) return;  // tap padding
    const size_t tap = (static_cast<size_t>(ky) * kernel_width + kx) * d.tap_stride;
    const int i_count = std::max(0, std::min(i_group, depth - i_first));
    // i_first is a multiple of 8: its pairs start at a pair boundary.
    const size_t pair0 = static_cast<size_t>(i_first / 2) * d.ifm_pair_stride;
    if (i_count == kIfmMicroBlock && o_first + ofm_ublock <= o_end) {
      // The common whole group: each OFM channel's 8 IFM channels are 4 pairs, copied as 32-bit words. o_first
      // is a multiple of the micro-block depth (4 or 8), so the group's channels share one 16-channel group,
      // `lane_step` apart.
      int16_t* const first = d.base + lane(o_first) + tap + pair0;
      if (conv_layout) {
        for (int pair = 0; pair < kIfmMicroBlock / 2; ++pair)
          for (int oz = 0; oz < ofm_ublock; ++oz)
            std::memcpy(first + pair * kConvPairStride + oz * 2, s + oz * kIfmMicroBlock + 2 * pair,
                        2 * sizeof(int16_t));
        return;
      }
      for (int oz = 0; oz < ofm_ublock; ++oz, s += kIfmMicroBlock) {
        int16_t* row = first + oz * lane_step;
        for (int pair = 0; pair < kIfmMicroBlock / 2; ++pair)
          std::memcpy(row + pair * d.ifm_pair_stride, s + 2 * pair, 2 * sizeof(int16_t));
      }
      return;
    }
    for (int oz = 0; oz < ofm_ublock; ++oz, s += i_group) {
      const int o = o_first + oz;
      if (o >= o_end) continue;
      int16_t* row = d.base + lane(o) + tap + pair0;
      int i = 0;
      for (; i + 1 < i_count; i += 2, row += d.ifm_pair_stride) {
        row[0] = s[i];
        row[1] = s[i + 1];
      }
      if (i < i_count) row[0] = s[i];
    }
  });
}

}  // namespace

void reorder_packed(const WeightLayout& l, const int16_t* stream, size_t count, const PackedLayout& dst) {
  const size_t expected = stream_weight_count(l);
  if (count != expected) count_mismatch(l, count, expected);
  scatter(l, dst, [&](size_t n) {
    const int16_t* group = stream;
    stream += n;
    return group;
  });
}

PackedLayout dense_packing(DenseWeights& dense) {
  PackedLayout dst;
  dst.base = dense.values.data();
  dst.tap_stride = static_cast<size_t>(dense.depth);
  dst.ofm_lane_stride = static_cast<size_t>(dense.kernel_height) * dense.kernel_width * dst.tap_stride;
  dst.ofm_group_stride = 16 * dst.ofm_lane_stride;
  dst.ifm_pair_stride = 2;
  return dst;
}

void reorder(const WeightLayout& l, const int16_t* stream, size_t count, DenseWeights& dense) {
  const int depth = l.kind == OpKind::DEPTHWISE ? 1 : l.ifm_depth;
  if (dense.ofm_depth != l.ofm_depth || dense.kernel_height != l.kernel_height ||
      dense.kernel_width != l.kernel_width || dense.depth != depth) {
    throw InputError("weight reorder: dense buffer not prepared for this layout");
  }
  reorder_packed(l, stream, count, dense_packing(dense));
}

void decode_packed(const WeightLayout& l, const uint8_t* data, size_t size_bytes, const PackedLayout& dst,
                   DecodeScratch& scratch) {
  const size_t expected = stream_weight_count(l);
  if (expected == 0) {
    // A core without channels (OFM depth 1 on two cores): Vela programs WEIGHT1_LENGTH = 0.
    if (size_bytes != 0) throw InputError("weight stream: core " + std::to_string(l.core) + " has no OFM channels but a " + std::to_string(size_bytes) + "-byte stream");
    return;
  }
  // Decoded as the scatter consumes it, never as a whole stream in between.
  StreamDecoder decoder(data, size_bytes, scratch, expected);
  const int16_t *next = nullptr, *end = nullptr;
  scatter(l, dst, [&](size_t n) {
    if (__builtin_expect(static_cast<size_t>(end - next) < n, 0)) {
      next = decoder.window(static_cast<size_t>(end - next), n, end);
      if (!next) {
        decoder.finish();  // a malformed end is reported first, as decode_stream() would
        count_mismatch(l, decoder.decoded(), expected);
      }
    }
    const int16_t* group = next;
    next += n;
    return group;
  });
  decoder.finish();  // the rest: end markers, or an error for weights beyond the layout's count (the cap)
}

void decode_weights(const WeightLayout& l, const uint8_t* data, size_t size_bytes, DenseWeights& dense) {
  prepare(l, dense);
  DecodeScratch scratch;
  decode_packed(l, data, size_bytes, dense_packing(dense), scratch);
}

struct StreamPuller::Impl {
  Impl(const uint8_t* data, size_t size_bytes, DecodeScratch& scratch, size_t max_weights)
      : decoder(data, size_bytes, scratch, max_weights) {}
  StreamDecoder decoder;
};

StreamPuller::StreamPuller(const uint8_t* data, size_t size_bytes, DecodeScratch& scratch, size_t max_weights)
    : impl_(std::make_unique<Impl>(data, size_bytes, scratch, max_weights)) {}

StreamPuller::~StreamPuller() = default;

const int16_t* StreamPuller::window(size_t keep, size_t n, const int16_t*& end) {
  return impl_->decoder.window(keep, n, end);
}

void StreamPuller::finish() { impl_->decoder.finish(); }

uint64_t StreamPuller::decoded() const { return impl_->decoder.decoded(); }

}  // namespace ethosu::weights
