// WD functional part: compressed weight stream -> dense weights (04-weight-codec.md).
//
// Contract:
//  * decode_stream() turns one compressed stream (the WEIGHT_BASE/WEIGHT_LENGTH bytes of one core) into
//    its 9-bit signed weights (-255..255, zero-point corrected by the encoder) in stream order. It reads
//    only [data, data + size_bytes), always terminates, and throws ethosu::InputError naming the byte/bit
//    offset for every malformation the hardware would flag with STATUS.wd_fault: reserved ZDIV/WDIV
//    values, a slice without the palette it needs, an index whose code exceeds 9 bits, a stream that ends
//    inside a slice or without an end-of-stream marker, or more weights than `max_weights`.
//  * reorder() maps that sequence back to the dense OHWI layout, using the hardware consumption order
//    (OFM tile depth, the OFM micro-block depth, part-kernel-first or depth-first, 8/16-bit IFM, dilation,
//    U65-512 channel split).
//    It throws InputError when the stream length differs from what the layout consumes.
//  * decode_weights() does both for one core's stream; decode_packed() does both straight into any layout
//    whose element (o, tap, i) sits at a separable offset (the kernels' packed layouts, see PackedLayout).
// Plain C++, no SystemC; no allocation per weight (output vectors grow once per stream).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/kernels/weights/raw_vector.h"

namespace ethosu::weights {

// Default output cap for decode_stream(): far above any real layer (MobileNetV2's largest holds ~410k
// weights) but small enough that a garbage zero-run length cannot exhaust memory.
inline constexpr size_t kDefaultMaxWeights = size_t{1} << 26;

// Buffers of the decoder, kept across calls so that they grow once (and, but for `quotients`, without zero-fill).
struct DecodeScratch {
  RawVector<int16_t> stream;         // the decoded weights in stream order (decode_packed(): a slice or so at a time)
  // Per weight symbol of a slice; zero-filled as it grows, since the fast path's spare lanes read entries that the
  // slice may not have written (their results are overwritten).
  std::vector<uint32_t> quotients;
  RawVector<uint64_t> zero_runs;     // per zero-run symbol of a slice
  RawVector<int16_t> slice_weights;  // a slice with zero runs before they are spread out
  // The Highway target (HWY_AVX2, ...) whose fast loop decodes, one this CPU runs; 0: the baseline build's. Every
  // target decodes the same weights.
  int64_t simd_target = 0;
};

// Decodes a whole stream into scratch.stream (cleared first), in stream order.
void decode_stream(const uint8_t* data, size_t size_bytes, DecodeScratch& scratch,
                   size_t max_weights = kDefaultMaxWeights);
// The same into `out` (a copy of scratch.stream; for callers that keep no scratch).
void decode_stream(const uint8_t* data, size_t size_bytes, std::vector<int16_t>& out,
                   size_t max_weights = kDefaultMaxWeights);
std::vector<int16_t> decode_stream(const std::vector<uint8_t>& bytes, size_t max_weights = kDefaultMaxWeights);

enum class OpKind : uint8_t { CONV, DEPTHWISE, FULLY_CONNECTED };  // FC is a 1x1 CONV to the hardware

// What the command stream says about one kernel operation's weights (04-weight-codec.md section 4).
struct WeightLayout {
  OpKind kind = OpKind::CONV;
  int ofm_depth = 1;             // OFM_DEPTH_M1 + 1: the op's channels, both cores together
  int ifm_depth = 1;             // IFM_DEPTH_M1 + 1 (ignored for DEPTHWISE: one IFM channel per filter)
  int kernel_height = 1;         // undilated taps: KERNEL_HEIGHT_M1 / dilation_y + 1
  int kernel_width = 1;          // undilated taps: KERNEL_WIDTH_M1 / dilation_x + 1
  int dilation_y = 1;            // 1 or 2
  int dilation_x = 1;            // 1 or 2
  int ofm_block_depth = 8;       // OFM_BLK_DEPTH_M1 + 1, as programmed (before the per-core split)
  bool part_kernel_first = false;  // KERNEL_STRIDE.weight_order
  int ifm_bits = 8;              // 8 or 16 (IFM_PRECISION)
  int cores = 1;                 // 2 on U65-512 with PARALLEL_MODE = 1
  int core = 0;                  // which core's stream (core k holds OFM channels k, k + cores, ...)
  int ofm_ublock_depth = 8;      // the MAC array's OFM micro-block depth, which groups the stream's OFM channels:
                                 // 8, or 4 on the Ethos-U55-32
};

// Dense weights of the whole op, [ofm_depth][kernel_height][kernel_width][depth] with depth = ifm_depth
// (1 for DEPTHWISE), row-major; channels not filled by the given streams stay 0.
struct DenseWeights {
  int ofm_depth = 0, kernel_height = 0, kernel_width = 0, depth = 0;
  std::vector<int16_t> values;

  int16_t at(int o, int ky, int kx, int i) const {
    return values[((static_cast<size_t>(o) * kernel_height + ky) * kernel_width + kx) * depth + i];
  }
};

// Throws InputError when the layout is out of the hardware's range (non-positive sizes, dilation not 1/2,
// ifm_bits not 8/16, core >= cores, an OFM micro-block depth other than 4 or 8).
void validate(const WeightLayout& layout);

// Number of weights one core's stream holds for this layout (padding included).
size_t stream_weight_count(const WeightLayout& layout);

// Sizes `dense` for the layout (zero-filled) unless it already has those dimensions.
void prepare(const WeightLayout& layout, DenseWeights& dense);

// Scatters one core's decoded stream into `dense` (prepared for the same layout). Padding positions and
// channels the hardware ignores (beyond the current OFM tile) are skipped.
void reorder(const WeightLayout& layout, const int16_t* stream, size_t count, DenseWeights& dense);

// decode_stream + reorder for one core's stream, with the decoded length capped at the layout's count.
// A core whose share of the OFM channels is empty must have an empty stream (nothing is decoded).
void decode_weights(const WeightLayout& layout, const uint8_t* data, size_t size_bytes, DenseWeights& dense);

// Where weight (o, tap, i) of the op goes (tap = ky * kernel_width + kx; i = 0 for DEPTHWISE), in int16
// elements from `base`:
//   (o / 16) * ofm_group_stride + (o % 16) * ofm_lane_stride + tap * tap_stride + (i / 2) * ifm_pair_stride + i % 2.
// Dense OHWI is ofm_lane_stride = taps * depth, ofm_group_stride = 16 * that, tap_stride = depth,
// ifm_pair_stride = 2; the conv kernel's pair-interleaved groups and the depthwise by-tap layout are others.
struct PackedLayout {
  int16_t* base = nullptr;
  size_t ofm_group_stride = 0, ofm_lane_stride = 0, tap_stride = 0, ifm_pair_stride = 0;
};

// reorder() into a packed layout: positions no stream fills are left as they are.
void reorder_packed(const WeightLayout& layout, const int16_t* stream, size_t count, const PackedLayout& dst);

// decode_weights() into a packed layout, with the decoder's buffers in `scratch` (reused across calls).
void decode_packed(const WeightLayout& layout, const uint8_t* data, size_t size_bytes, const PackedLayout& dst,
                   DecodeScratch& scratch);

// The packed layout of a dense OHWI buffer.
PackedLayout dense_packing(DenseWeights& dense);

// One stream decoded as its consumer takes it, for consumption orders other than reorder()'s (the Ethos-U85's,
// weight_decoder_u85.h), as decode_packed() does internally, so that the decoded weights stay about one slice.
// window(keep, n, end) returns the weights decoded and not yet used, starting with the last `keep` weights of the
// previous window, decoding slices until there are at least n; null if the stream ends first. [result, end) stays
// valid until the next call. finish() decodes the rest: InputError for a malformed end, or for weights beyond
// `max_weights` (the cap also stops decoding there). The puller uses `scratch`'s buffers while it lives.
class StreamPuller {
 public:
  StreamPuller(const uint8_t* data, size_t size_bytes, DecodeScratch& scratch, size_t max_weights);
  ~StreamPuller();
  StreamPuller(const StreamPuller&) = delete;
  StreamPuller& operator=(const StreamPuller&) = delete;

  const int16_t* window(size_t keep, size_t n, const int16_t*& end);
  void finish();
  uint64_t decoded() const;  // weights decoded so far, taken or not

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ethosu::weights
