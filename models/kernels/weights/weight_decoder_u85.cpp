#include "models/kernels/weights/weight_decoder_u85.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "sim/error.h"

namespace ethosu::weights::u85 {
namespace {

constexpr int kGroupOfms = 4;      // OFM channels a decoder takes at a time (Vela's InterleaveDepth)
constexpr int kSubKernelTaps = 8;  // a sub-kernel covers at most 8 x 8 dilated taps
constexpr int kMaxIfmStep = 16;    // IFM channels of a group: 8, 16 with 2:4 sparsity, 1 for depthwise
constexpr int kMaxGroupValues = kGroupOfms * kMaxIfmStep;

[[noreturn]] void bad_layout(const std::string& what) { throw InputError("U85 weight layout: " + what); }

const char* stream_name(int stream) {
  static const char* const names[kMaxStreams] = {"WEIGHT", "WEIGHT1", "WEIGHT2", "WEIGHT3"};
  return names[stream];
}

// Runs fn, naming the stream (by its register) in front of an InputError's message.
template <typename Fn>
void naming_stream(int stream, Fn&& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    throw InputError(std::string(stream_name(stream)) + ": " + e.what());
  }
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }
int div_up(int v, int m) { return (v + m - 1) / m; }

// The loop bounds of the order (weights.md section 4), derived once per layout.
struct Order {
  bool depthwise = false, sparse = false;
  int ofm_depth = 0, ifm_depth = 0, kernel_height = 0, kernel_width = 0;
  int sub_height = 0, sub_width = 0;  // sub-kernel
  int stride_y = 1, stride_x = 1;     // the taps are visited by stride phase (1 x 1 for depth-first)
  int ofm_block = 0, ifm_block = 0;   // block depths
  int ifm_ublock = 0;                 // IFM channels taken per pass over a sub-kernel's taps
  int ifm_step = 0;                   // IFM channels of a group: 8, 16 with sparsity, 1 for depthwise
  int tap_round = 1;                  // a sub-kernel's taps are padded to a multiple of this
  int ofm_ublock = 0;
  int streams = 1;     // decoders whose orders split the micro-block's 4-channel groups
  int dw_padding = 0;  // depthwise: taps of zeros after every tap_round taps
  // Values per tap and IFM channel in one stream: its share of the micro-block's OFM channels.
  int lane_values() const { return ofm_ublock / streams; }
};

Order make_order(const Layout& l) {
  Order g;
  g.depthwise = l.kind == OpKind::DEPTHWISE;
  g.sparse = l.sparse;
  g.ofm_depth = l.ofm_depth;
  g.ifm_depth = g.depthwise ? 1 : l.ifm_depth;
  g.kernel_height = l.kernel_height;
  g.kernel_width = l.kernel_width;
  g.sub_height = kSubKernelTaps / l.dilation_y;
  g.sub_width = kSubKernelTaps / l.dilation_x;
  g.ofm_block = l.ofm_block_depth;
  g.ofm_ublock = l.ofm_ublock_depth;
  g.streams = l.weight_decoders;
  const bool wide_ifm = l.ifm_bits == 16;  // Vela's ifm16bit: 32-bit IFMs order as 8-bit ones
  if (g.depthwise) {
    g.stride_y = l.stride_y;
    g.stride_x = l.stride_x;
    g.ifm_block = 1;
    g.ifm_ublock = 1;
    g.tap_round = 10;
    g.dw_padding = (!wide_ifm && l.macs <= 256) ? 0 : (l.macs <= 512 ? 2 : 6);
  } else if (l.part_kernel_first) {
    g.stride_y = l.stride_y;
    g.stride_x = l.stride_x;
    g.ifm_block = ifm_block_depth(l);
    g.ifm_ublock = wide_ifm && !l.sparse ? 8 : g.ifm_block;
    g.tap_round = wide_ifm || l.sparse ? 10 : 5;
  } else {
    g.ifm_block = ifm_block_depth(l);
    g.ifm_ublock = g.ifm_block;
  }
  g.ifm_step = g.depthwise ? 1 : (l.sparse ? 16 : 8);
  return g;
}

// Walks one stream's order: group(o, i, y, x) for each group of 4 OFM channels x ifm_step IFM channels at tap
// (y, x) (its values are [o][i] row-major; channels beyond the operation's are padding), skip(n) for n values of
// padding. The IFM blocks run forwards for even OFM blocks and backwards for odd ones; the taps of a sub-kernel run
// by stride phase, serpentine in X.
template <typename Group, typename Skip>
void walk(const Order& g, int stream, Group&& group, Skip&& skip) {
  const int ifm_blocks = g.depthwise ? 1 : div_up(g.ifm_depth, g.ifm_block);
  const int lane_values = g.lane_values();
  bool forwards = true;
  for (int ob = 0; ob < g.ofm_depth; ob += g.ofm_block, forwards = !forwards) {
    const int ob_depth = std::min(g.ofm_block, g.ofm_depth - ob);
    for (int n = 0; n < ifm_blocks; ++n) {
      const int ib = (forwards ? n : ifm_blocks - 1 - n) * g.ifm_block;
      const int ib_depth = g.depthwise ? 1 : std::min(g.ifm_block, g.ifm_depth - ib);
      for (int sx = 0; sx < g.kernel_width; sx += g.sub_width) {
        const int sw = std::min(g.sub_width, g.kernel_width - sx);
        for (int sy = 0; sy < g.kernel_height; sy += g.sub_height) {
          const int sh = std::min(g.sub_height, g.kernel_height - sy);
          for (int iu = 0; iu < ib_depth; iu += g.ifm_ublock) {
            for (int ou = 0; ou < ob_depth; ou += g.ofm_ublock) {
              int taps_left = round_up(sw * sh, g.tap_round);
              for (int py = 0; py < g.stride_y; ++py) {
                const int phase_height = (sh + g.stride_y - 1 - py) / g.stride_y;
                for (int px = 0; px < g.stride_x; ++px) {
                  const int phase_width = (sw + g.stride_x - 1 - px) / g.stride_x;
                  for (int ky = 0; ky < phase_height; ++ky) {
                    const int y = sy + py + ky * g.stride_y;
                    for (int k = 0; k < phase_width; ++k) {
                      const int x = sx + px + (ky % 2 == 0 ? k : phase_width - 1 - k) * g.stride_x;
                      --taps_left;
                      for (int ii = 0; ii < g.ifm_ublock; ii += g.ifm_step)
                        for (int oz = kGroupOfms * stream; oz < g.ofm_ublock; oz += kGroupOfms * g.streams)
                          group(ob + ou + oz, ib + iu + ii, y, x);
                      if (g.depthwise && taps_left % g.tap_round == 0)
                        skip(static_cast<size_t>(g.dw_padding) * lane_values);
                    }
                  }
                }
              }
              if (taps_left > 0) {
                const int taps = taps_left + (g.depthwise ? g.dw_padding : 0);
                skip(static_cast<size_t>(taps) * g.ifm_ublock * lane_values);
              }
            }
          }
        }
      }
    }
  }
}

// a * b, or InputError beyond the decoder's bound on one stream.
uint64_t bounded_product(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r) || r > kDefaultMaxWeights)
    bad_layout("its streams would hold more than " + std::to_string(kDefaultMaxWeights) + " weights each");
  return r;
}

// Weights of one order, from the loop bounds rather than by walking, so that a huge layout costs nothing to refuse.
uint64_t order_weight_count(const Order& g) {
  // OFM micro-blocks over all OFM blocks (the last block clipped), IFM passes over all IFM blocks.
  const uint64_t ofm_ublocks = uint64_t(g.ofm_depth / g.ofm_block) * uint64_t(g.ofm_block / g.ofm_ublock) +
                               uint64_t(div_up(g.ofm_depth % g.ofm_block, g.ofm_ublock));
  const uint64_t ifm_passes = g.depthwise
                                  ? 1
                                  : uint64_t(g.ifm_depth / g.ifm_block) * uint64_t(div_up(g.ifm_block, g.ifm_ublock)) +
                                        uint64_t(div_up(g.ifm_depth % g.ifm_block, g.ifm_ublock));
  // Taps of every sub-kernel, padded (depthwise: dw_padding more per tap_round taps).
  const auto padded = [&](int w, int h) {
    const uint64_t taps = uint64_t(round_up(w * h, g.tap_round));
    return taps + (g.depthwise ? taps / uint64_t(g.tap_round) * uint64_t(g.dw_padding) : 0);
  };
  const int full_x = g.kernel_width / g.sub_width, rest_x = g.kernel_width % g.sub_width;
  const int full_y = g.kernel_height / g.sub_height, rest_y = g.kernel_height % g.sub_height;
  uint64_t taps = uint64_t(full_x) * uint64_t(full_y) * padded(g.sub_width, g.sub_height);
  if (rest_x) taps += uint64_t(full_y) * padded(rest_x, g.sub_height);
  if (rest_y) taps += uint64_t(full_x) * padded(g.sub_width, rest_y);
  if (rest_x && rest_y) taps += padded(rest_x, rest_y);
  const uint64_t per_tap = uint64_t(g.ifm_ublock) * uint64_t(g.lane_values());
  return bounded_product(bounded_product(bounded_product(ofm_ublocks, ifm_passes), taps), per_tap);
}

// Where a stream's values sit in the stream it is read from: itself (SWD), or the FWD stream, in which the
// decoders' orders alternate in blocks of `block` values (micro-block x IFM micro-block x tap_round taps, a stream's
// share: a whole number of groups, so that a group is contiguous in the FWD stream too).
struct Interleave {
  uint64_t block = 1;
  uint64_t streams = 1;
  uint64_t stream = 0;
  uint64_t at(uint64_t q) const { return (q / block * streams + stream) * block + q % block; }
};

Interleave interleave(const Layout& l, const Order& g, int stream) {
  Interleave m;
  if (l.format == WeightFormat::FWD) {
    m.block = uint64_t(g.ofm_ublock) * uint64_t(g.ifm_ublock) * uint64_t(g.tap_round) / uint64_t(g.streams);
    m.streams = uint64_t(g.streams);
    m.stream = uint64_t(stream);
  }
  return m;
}

// Writes a group's values to their places in `d`; channels beyond the operation's are padding. o is a multiple of
// 4, so that the group's channels share one 16-channel group of the packed layout; i a multiple of 2.
template <int kStep>
struct Placer {
  PackedLayout d;
  int ofm_depth, ifm_depth, kernel_width;

  void operator()(const int16_t* v, int o, int i, int y, int x) const {
    const size_t tap = (static_cast<size_t>(y) * kernel_width + x) * d.tap_stride;
    int16_t* const first = d.base + (static_cast<size_t>(o) / 16) * d.ofm_group_stride +
                           (static_cast<size_t>(o) % 16) * d.ofm_lane_stride + tap +
                           static_cast<size_t>(i / 2) * d.ifm_pair_stride;
    if constexpr (kStep == 1) {  // depthwise: one value per OFM channel
      for (int oz = 0; oz < kGroupOfms && o + oz < ofm_depth; ++oz) first[oz * d.ofm_lane_stride] = v[oz];
    } else if (o + kGroupOfms <= ofm_depth && i + kStep <= ifm_depth) {  // the common whole group: pairs as words
      for (int oz = 0; oz < kGroupOfms; ++oz, v += kStep) {
        int16_t* row = first + oz * d.ofm_lane_stride;
        for (int pair = 0; pair < kStep / 2; ++pair)
          std::memcpy(row + pair * d.ifm_pair_stride, v + 2 * pair, 2 * sizeof(int16_t));
      }
    } else {
      const int i_count = std::max(0, std::min(kStep, ifm_depth - i));
      for (int oz = 0; oz < kGroupOfms && o + oz < ofm_depth; ++oz, v += kStep) {
        int16_t* row = first + oz * d.ofm_lane_stride;
        for (int k = 0; k < i_count; ++k) row[(k / 2) * d.ifm_pair_stride + k % 2] = v[k];
      }
    }
  }
};

// 2:4 sparsity: in each run of 4 IFM channels of an OFM channel at least two weights are 0, and every weight
// fits -127..127 (Vela's SparsityTracker checks both before it chooses the format; the hardware behaviour
// otherwise is not documented, so such a stream is refused [I]).
void check_sparse(const int16_t* v, int o, int i, int y, int x) {
  for (int oz = 0; oz < kGroupOfms; ++oz) {
    for (int quad = 0; quad < 16; quad += 4) {
      const int16_t* q = v + oz * 16 + quad;
      const int nonzero = (q[0] != 0) + (q[1] != 0) + (q[2] != 0) + (q[3] != 0);
      const bool in_range = std::all_of(q, q + 4, [](int16_t w) { return w >= -127 && w <= 127; });
      if (nonzero <= 2 && in_range) continue;
      throw InputError(
          "2:4-sparse weights of OFM channel " + std::to_string(o + oz) + ", tap (" + std::to_string(y) + ", " +
          std::to_string(x) + "), IFM channels " + std::to_string(i + quad) + ".." + std::to_string(i + quad + 3) +
          (in_range ? " hold " + std::to_string(nonzero) + " nonzero weights" : " hold a weight beyond -127..127"));
    }
  }
}

// Scatters one stream's values from `source` (take(n): the next n values, skip(n): n values of padding).
template <int kStep, typename Source>
void scatter(const Order& g, int stream, const PackedLayout& dst, Source& source) {
  const Placer<kStep> place{dst, g.ofm_depth, g.ifm_depth, g.kernel_width};
  const bool sparse = g.sparse;
  walk(
      g, stream,
      [&](int o, int i, int y, int x) {
        const int16_t* v = source.take(kGroupOfms * kStep);
        if (kStep == 16 && sparse) check_sparse(v, o, i, y, x);
        place(v, o, i, y, x);
      },
      [&](size_t n) { source.skip(n); });
}

template <typename Source>
void scatter_any(const Order& g, int stream, const PackedLayout& dst, Source& source) {
  if (g.ifm_step == 1) return scatter<1>(g, stream, dst, source);
  if (g.ifm_step == 16) return scatter<16>(g, stream, dst, source);
  scatter<8>(g, stream, dst, source);
}

[[noreturn]] void count_mismatch(uint64_t count, uint64_t expected) {
  throw InputError("the stream holds " + std::to_string(count) + " weights; the layout consumes " +
                   std::to_string(expected));
}

// Values already decoded (reorder()).
struct ArraySource {
  const int16_t* values;
  Interleave map;
  uint64_t q = 0;  // this stream's position
  const int16_t* take(size_t n) {
    const int16_t* v = values + map.at(q);
    q += n;
    return v;
  }
  void skip(size_t n) { q += n; }
};

// An SWD stream decoded as the walk takes it.
class SwdSource {
 public:
  SwdSource(const StreamBytes& bytes, DecodeScratch& scratch, uint64_t expected)
      : puller_(bytes.data, bytes.size_bytes, scratch, static_cast<size_t>(expected)), expected_(expected) {}

  const int16_t* take(size_t n) {
    if (__builtin_expect(static_cast<size_t>(end_ - next_) < n, 0)) {
      next_ = puller_.window(static_cast<size_t>(end_ - next_), n, end_);
      if (!next_) {
        puller_.finish();  // a malformed end is reported first, as decode_stream() would
        count_mismatch(puller_.decoded(), expected_);
      }
    }
    const int16_t* v = next_;
    next_ += n;
    return v;
  }
  void skip(size_t n) { take(n); }
  // The rest of the stream: end markers, or an error for weights beyond the layout's (the cap).
  void finish() { puller_.finish(); }

 private:
  StreamPuller puller_;
  const int16_t *next_ = nullptr, *end_ = nullptr;
  uint64_t expected_;
};

uint32_t read_bits(const uint8_t* data, size_t pos, unsigned n) {
  uint32_t v = 0;
  for (unsigned b = 0; b < n; ++b) v |= uint32_t((data[(pos + b) / 8] >> ((pos + b) % 8)) & 1) << b;
  return v;
}

unsigned fwd_index_bits(FwdMode mode) { return mode == FwdMode::RAW ? 8 : (mode == FwdMode::LUT4 ? 4 : 2); }

// An FWD stream's values, decoded a group at a time where the walk takes them (the format is random access).
template <FwdMode kMode>
class FwdSource {
 public:
  FwdSource(const uint8_t* payload, const FwdHeader& header, Interleave map)
      : payload_(payload), header_(header), map_(map) {}

  const int16_t* take(size_t n) {
    const uint64_t p = map_.at(q_);
    q_ += n;
    for (size_t k = 0; k < n; ++k) {
      const uint64_t at = p + k;
      if constexpr (kMode == FwdMode::RAW) {
        values_[k] = static_cast<int16_t>(static_cast<int8_t>(payload_[at]) - header_.zero_adjust);
      } else if constexpr (kMode == FwdMode::LUT4) {
        values_[k] = header_.table[(payload_[at / 2] >> (4 * (at % 2))) & 15];
      } else {
        values_[k] = header_.table[(payload_[at / 4] >> (2 * (at % 4))) & 3];
      }
    }
    return values_;
  }
  void skip(size_t n) { q_ += n; }

 private:
  const uint8_t* payload_;
  FwdHeader header_;
  Interleave map_;
  uint64_t q_ = 0;
  int16_t values_[kMaxGroupValues];
};

template <FwdMode kMode>
void scatter_fwd(const Layout& l, const Order& g, const uint8_t* payload, const FwdHeader& header,
                 const PackedLayout& dst) {
  for (int s = 0; s < g.streams; ++s) {
    FwdSource<kMode> source(payload, header, interleave(l, g, s));
    scatter_any(g, s, dst, source);
  }
}

// The FWD stream's length against the layout's values: at least the header and the payload, at most that padded
// to 32 bytes (what Vela writes).
void check_fwd_length(const FwdHeader& header, size_t size_bytes, uint64_t count) {
  const uint64_t needed = kFwdHeaderBytes + (count * fwd_index_bits(header.mode) + 7) / 8;
  const uint64_t padded = fwd_stream_bytes(header.mode, static_cast<size_t>(count));
  if (size_bytes < needed || size_bytes > padded) {
    throw InputError("the FWD stream has " + std::to_string(size_bytes) + " bytes; the layout's " +
                     std::to_string(count) + " weights take " + std::to_string(needed) + " (" + std::to_string(padded) +
                     " padded to 32 bytes)");
  }
}

}  // namespace

int ifm_block_depth(const Layout& l) {
  if (l.kind != OpKind::DEPTHWISE && l.part_kernel_first) return 16;
  if (l.ifm_bits == 32 || ((l.macs == 128 || l.macs == 256) && l.ofm_ublock_depth == 16 && !l.sparse)) return 32;
  if (l.sparse && l.ifm_bits == 8) return 128;
  return 64;
}

void validate(const Layout& l) {
  if (l.ofm_depth < 1 || l.ifm_depth < 1 || l.kernel_height < 1 || l.kernel_width < 1)
    bad_layout("sizes must be positive");
  if ((l.dilation_x != 1 && l.dilation_x != 2) || (l.dilation_y != 1 && l.dilation_y != 2))
    bad_layout("dilation must be 1 or 2");
  if (l.stride_x < 1 || l.stride_x > 4 || l.stride_y < 1 || l.stride_y > 4) bad_layout("stride must be 1 to 4");
  if (l.ifm_bits != 8 && l.ifm_bits != 16 && l.ifm_bits != 32) bad_layout("IFM precision must be 8, 16 or 32 bits");
  if (l.macs != 128 && l.macs != 256 && l.macs != 512 && l.macs != 1024 && l.macs != 2048)
    bad_layout("MACs " + std::to_string(l.macs) + " is not an Ethos-U85 configuration (128 to 2048)");
  if (l.weight_decoders != 1 && l.weight_decoders != 2 && l.weight_decoders != 4)
    bad_layout("weight decoders must be 1, 2 or 4");
  // The micro-blocks' depths per configuration (Vela 5.1 s_EthosU85Configs, ethos_u85.cpp @478f864f): until the
  // U85 is in the architecture description (isa/architecture.h), the one U85 fact the decoder holds itself.
  const int u = l.ofm_ublock_depth;
  const bool known_ublock =
      l.macs == 512 ? u == 16 : (l.macs <= 256 ? (u == 8 || u == 16) : (u == 16 || u == l.macs / 32));
  if (!known_ublock)
    bad_layout("OFM micro-block depth " + std::to_string(u) + " is not one of " + std::to_string(l.macs) + " MACs");
  if (u % (kGroupOfms * l.weight_decoders) != 0)
    bad_layout("OFM micro-block depth " + std::to_string(u) + " does not split into 4-channel groups for " +
               std::to_string(l.weight_decoders) + " weight decoders");
  // Vela's block search steps in micro-blocks; for other depths the channels the decoders feed beyond the block
  // are not defined.
  if (l.ofm_block_depth < u || l.ofm_block_depth % u != 0)
    bad_layout("OFM block depth " + std::to_string(l.ofm_block_depth) + " is not a multiple of the micro-block depth " +
               std::to_string(u));
  if (l.kind == OpKind::DEPTHWISE && l.format == WeightFormat::FWD)
    bad_layout("the fast weight format (FWD) is for convolutions only, not DEPTHWISE");
  if (l.kind == OpKind::DEPTHWISE && l.sparse) bad_layout("2:4 sparsity is for convolutions only, not DEPTHWISE");
}

int stream_count(const Layout& l) { return l.format == WeightFormat::FWD ? 1 : l.weight_decoders; }

size_t stream_weight_count(const Layout& l) {
  validate(l);
  const Order g = make_order(l);
  const uint64_t per_order = order_weight_count(g);
  return static_cast<size_t>(l.format == WeightFormat::FWD ? bounded_product(per_order, uint64_t(g.streams))
                                                           : per_order);
}

void prepare(const Layout& l, DenseWeights& dense) {
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

void reorder(const Layout& l, int stream, const int16_t* values, size_t count, DenseWeights& dense) {
  const size_t expected = stream_weight_count(l);
  if (stream < 0 || stream >= stream_count(l))
    bad_layout("stream " + std::to_string(stream) + " of " + std::to_string(stream_count(l)));
  const int depth = l.kind == OpKind::DEPTHWISE ? 1 : l.ifm_depth;
  if (dense.ofm_depth != l.ofm_depth || dense.kernel_height != l.kernel_height ||
      dense.kernel_width != l.kernel_width || dense.depth != depth) {
    throw InputError("U85 weight reorder: dense buffer not prepared for this layout");
  }
  const Order g = make_order(l);
  const PackedLayout dst = dense_packing(dense);
  naming_stream(stream, [&] {
    if (count != expected) count_mismatch(count, expected);
    // An FWD stream holds every decoder's order; an SWD stream its own.
    const int first = l.format == WeightFormat::FWD ? 0 : stream;
    const int last = l.format == WeightFormat::FWD ? g.streams - 1 : stream;
    for (int s = first; s <= last; ++s) {
      ArraySource source{values, interleave(l, g, s)};
      scatter_any(g, s, dst, source);
    }
  });
}

FwdHeader decode_fwd_header(const uint8_t* data, size_t size_bytes) {
  if (size_bytes < kFwdHeaderBytes)
    throw InputError("the FWD stream has " + std::to_string(size_bytes) + " bytes, less than its " +
                     std::to_string(kFwdHeaderBytes) + "-byte header");
  // Bits 0 raw mode, 1 small table, 2..103 zero, 104..111 zero adjust (int8), 112.. 16 table entries of 9 bits
  // (|w| << 1 | sign) [S mlw_encode_fwd.cpp fwd_emit_header].
  const bool raw = read_bits(data, 0, 1) != 0;
  const bool small_table = read_bits(data, 1, 1) != 0;
  if (raw && small_table) throw InputError("FWD header byte 0: both raw mode and the small table are set");
  for (size_t bit = 2; bit < 104; ++bit) {
    if (read_bits(data, bit, 1) != 0)
      // Vela writes zeros there; a stream with other bits is taken for a misplaced one rather than guessed at [I].
      throw InputError("FWD header byte " + std::to_string(bit / 8) + ": reserved bits 2..103 are not zero");
  }
  FwdHeader h;
  h.mode = raw ? FwdMode::RAW : (small_table ? FwdMode::LUT2 : FwdMode::LUT4);
  h.zero_adjust = static_cast<int8_t>(read_bits(data, 104, 8));
  for (size_t k = 0; k < h.table.size(); ++k) {
    const uint32_t folded = read_bits(data, 112 + 9 * k, 9);
    const int magnitude = static_cast<int>(folded >> 1);
    h.table[k] = static_cast<int16_t>((folded & 1) ? -magnitude : magnitude);
  }
  return h;
}

size_t fwd_stream_bytes(FwdMode mode, size_t count) {
  const size_t payload = (count * fwd_index_bits(mode) + 7) / 8;
  return (kFwdHeaderBytes + payload + 31) / 32 * 32;
}

void decode_fwd(const uint8_t* data, size_t size_bytes, size_t count, std::vector<int16_t>& out) {
  const FwdHeader header = decode_fwd_header(data, size_bytes);
  check_fwd_length(header, size_bytes, count);
  out.resize(count);
  const uint8_t* payload = data + kFwdHeaderBytes;
  for (size_t k = 0; k < count; ++k) {
    switch (header.mode) {
      case FwdMode::RAW:
        out[k] = static_cast<int16_t>(static_cast<int8_t>(payload[k]) - header.zero_adjust);
        break;
      case FwdMode::LUT4:
        out[k] = header.table[(payload[k / 2] >> (4 * (k % 2))) & 15];
        break;
      case FwdMode::LUT2:
        out[k] = header.table[(payload[k / 4] >> (2 * (k % 4))) & 3];
        break;
    }
  }
}

void decode_packed(const Layout& l, const Streams& streams, const PackedLayout& dst, DecodeScratch& scratch) {
  const size_t expected = stream_weight_count(l);
  const Order g = make_order(l);
  if (l.format == WeightFormat::FWD) {
    naming_stream(0, [&] {
      const StreamBytes& bytes = streams[0];
      const FwdHeader header = decode_fwd_header(bytes.data, bytes.size_bytes);
      check_fwd_length(header, bytes.size_bytes, expected);
      const uint8_t* payload = bytes.data + kFwdHeaderBytes;
      switch (header.mode) {
        case FwdMode::RAW:
          return scatter_fwd<FwdMode::RAW>(l, g, payload, header, dst);
        case FwdMode::LUT4:
          return scatter_fwd<FwdMode::LUT4>(l, g, payload, header, dst);
        case FwdMode::LUT2:
          return scatter_fwd<FwdMode::LUT2>(l, g, payload, header, dst);
      }
    });
    return;
  }
  for (int s = 0; s < g.streams; ++s) {
    naming_stream(s, [&] {
      SwdSource source(streams[static_cast<size_t>(s)], scratch, expected);
      scatter_any(g, s, dst, source);
      source.finish();
    });
  }
}

void decode_weights(const Layout& l, const Streams& streams, DenseWeights& dense) {
  prepare(l, dense);
  DecodeScratch scratch;
  decode_packed(l, streams, dense_packing(dense), scratch);
}

}  // namespace ethosu::weights::u85
