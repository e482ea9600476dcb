// WD functional part for the Ethos-U85: its weight streams -> dense weights (plain C++).
//
// Contract:
//  * A U85 kernel operation's weights come in the standard format (SWD: one stream per weight decoder, WEIGHT and
//    WEIGHT1..3, each the U55/U65 compressed bitstream of weight_decoder.h) or the fast format (FWD: one stream
//    through WEIGHT, a 32-byte header then raw bytes or 4-bit / 2-bit table indices, in which the decoders' orders
//    are interleaved block by block). Both hold the weights (zero-point corrected) in the order the decoders feed
//    the MAC array, which depends on the operation, the configuration (MACs, weight decoders) and the OFM
//    micro-block of ACC_FORMAT: Layout says all that, as the command stream and the CONFIG register give it.
//  * decode_weights() / decode_packed() decode every stream of an operation into DenseWeights or a PackedLayout
//    (the conv kernels'), reading only [data, data + size_bytes) of each stream. They throw ethosu::InputError,
//    naming the stream (WEIGHT, WEIGHT1, ...) and the byte offset where there is one, for a layout out of range or
//    unsupported, a malformed or truncated stream, a stream that holds more or fewer weights than the layout
//    consumes, and 2:4-sparse weights that break the 2:4 pattern. The work is bounded by the layout's weight count,
//    itself at most kDefaultMaxWeights per stream.
//  * The order (Vela 5.1's EthosU85WeightOrdering / EthosU85WeightOrderingFwd, hapv3/neural-compiler @478f864f,
//    ethosu/regor/architecture/ethosu85/ethos_u85_weight_encoder.cpp) is walked
//    once per stream, one 4-OFM-channel group at a time; each group goes straight from the decoder's buffer to
//    its place in the destination.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/kernels/weights/weight_decoder.h"

namespace ethosu::weights::u85 {

enum class WeightFormat : uint8_t { SWD = 0, FWD = 1 };  // WEIGHT_FORMAT.weight_format

// What the command stream and the configuration say about one kernel operation's weights.
struct Layout {
  OpKind kind = OpKind::CONV;
  int ofm_depth = 1;               // OFM_DEPTH_M1 + 1
  int ifm_depth = 1;               // IFM_DEPTH_M1 + 1 (ignored for DEPTHWISE: one IFM channel per filter)
  int kernel_height = 1;           // undilated taps: KERNEL_HEIGHT_M1 / dilation_y + 1
  int kernel_width = 1;            // undilated taps: KERNEL_WIDTH_M1 / dilation_x + 1
  int dilation_y = 1;              // 1 or 2
  int dilation_x = 1;              // 1 or 2
  int stride_y = 1;                // 1..4 (KERNEL_STRIDE); the depth-first order ignores it
  int stride_x = 1;                // 1..4
  int ofm_block_depth = 16;        // OFM_BLK_DEPTH_M1 + 1: a multiple of the micro-block depth
  bool part_kernel_first = false;  // KERNEL_STRIDE.weight_order (CONV only; DEPTHWISE has its own order)
  int ifm_bits = 8;                // 8, 16 or 32 (IFM_PRECISION)
  int ofm_ublock_depth = 16;       // depth of ACC_FORMAT.microblock on this configuration: MACs / (8 x H x W)
  int macs = 256;                  // the configuration's MACs (CONFIG.macs_per_cc)
  int weight_decoders = 1;         // the configuration's standard weight decoders (CONFIG.num_wd): 1, 2 or 4
  WeightFormat format = WeightFormat::SWD;
  bool sparse = false;  // WEIGHT_FORMAT.weight_sparsity = SPARSE_2_4 (CONV only)
};

inline constexpr int kMaxStreams = 4;

struct StreamBytes {
  const uint8_t* data = nullptr;
  size_t size_bytes = 0;
};
// An operation's weight streams by decoder: WEIGHT_BASE/LENGTH, WEIGHT1_*, WEIGHT2_*, WEIGHT3_*. Only the first
// stream_count() are read.
using Streams = std::array<StreamBytes, kMaxStreams>;

// Throws InputError when the layout is out of the hardware's range or a combination the U85 does not have
// (FWD or 2:4 sparsity for DEPTHWISE, a micro-block the MACs do not make, an OFM block depth that is not a
// multiple of the micro-block depth, decoders that do not divide the micro-block into 4-channel groups).
void validate(const Layout& layout);

// The IFM block depth the order uses. It is not in the command stream: Vela 5.1 chooses it by this rule
// (ArchEthosU85::FindBlockConfig, ethos_u85.cpp @478f864f: 16 for part-kernel-first; 32 for a 32-bit IFM or, on
// 128 and 256 MACs, a 16-deep micro-block without sparsity; 128 for 2:4-sparse 8-bit IFM; else 64), and the
// listings' comments confirm it on every convolution of corpus-u85. DEPTHWISE does not use it.
int ifm_block_depth(const Layout& layout);

// Streams the command stream gives: one per decoder for SWD, one for FWD.
int stream_count(const Layout& layout);

// Weights each of those streams holds, padding included (every SWD stream holds as many; the FWD stream holds
// every decoder's). Throws InputError for an invalid layout or one beyond kDefaultMaxWeights per stream.
size_t stream_weight_count(const Layout& layout);

// Sizes `dense` for the layout (zero-filled) unless it already has those dimensions.
void prepare(const Layout& layout, DenseWeights& dense);

// Scatters the values of stream `stream` (SWD: that decoder's decoded weights; FWD: stream 0, the values of the
// fast stream in stream order) into `dense`, prepared for the same layout. Padding positions are skipped.
void reorder(const Layout& layout, int stream, const int16_t* values, size_t count, DenseWeights& dense);

// The FWD header (the first 256 bits, LSB first).
enum class FwdMode : uint8_t { RAW, LUT4, LUT2 };
struct FwdHeader {
  FwdMode mode = FwdMode::RAW;
  int zero_adjust = 0;              // RAW: a weight is its byte as int8 minus this
  std::array<int16_t, 16> table{};  // LUT4 / LUT2: the weight of each index
};
inline constexpr size_t kFwdHeaderBytes = 32;
FwdHeader decode_fwd_header(const uint8_t* data, size_t size_bytes);
// Bytes of an FWD stream of `count` weights: the header and the payload, padded to 32 bytes.
size_t fwd_stream_bytes(FwdMode mode, size_t count);
// The first `count` values of an FWD stream, in stream order. Throws InputError for a malformed header (both mode
// flags, reserved bits set) or a stream shorter than its header and payload, or longer than fwd_stream_bytes().
void decode_fwd(const uint8_t* data, size_t size_bytes, size_t count, std::vector<int16_t>& out);

// Decodes every stream of the operation into `dense` (prepared here).
void decode_weights(const Layout& layout, const Streams& streams, DenseWeights& dense);

// The same into a packed layout, with the SWD decoder's buffers in `scratch` (reused across calls); positions no
// weight fills are left as they are.
void decode_packed(const Layout& layout, const Streams& streams, const PackedLayout& dst, DecodeScratch& scratch);

}  // namespace ethosu::weights::u85
