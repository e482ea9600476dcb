// The Ethos-U85's scale/bias stream (SCALE_BASE/SCALE_LENGTH) -> per-OFM-channel bias, multiplier and shift.
//
// Contract: one 10-byte little-endian record per OFM channel of the operation, channel k in record k (one stream
// for all weight decoders), in the form ACC_FORMAT.acc_format selects: I32 = bias int32 | multiplier uint31 |
// shift uint6 | 0, I48 = bias int48 | multiplier uint15 | shift uint6 | 0 (Vela 5.1 EncodeBias32/EncodeBias48,
// ethos_u85_weight_encoder.cpp, hapv3/neural-compiler @478f864f). Vela pads the records to a multiple of
// the micro-block depth rounded up to 16 channels, with zero records; decode() requires those bytes and ignores
// their content and the records' unused bits, as the U65 reader does. A stream shorter than that throws
// ethosu::InputError naming the lengths. Plain C++, no SystemC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ethosu::weights::u85 {

enum class AccFormat : uint8_t { I32 = 0, I48 = 1 };  // ACC_FORMAT.acc_format

struct ScaleLayout {
  int ofm_depth = 1;          // OFM_DEPTH_M1 + 1
  int ofm_ublock_depth = 16;  // depth of ACC_FORMAT.microblock on this configuration
  AccFormat acc = AccFormat::I32;
};

struct ChannelScale {
  int64_t bias = 0;         // 32 or 48-bit two's complement
  uint32_t multiplier = 0;  // 31 bits (I32) or 15 bits (I48)
  uint8_t shift = 0;        // 0..63
};

inline constexpr size_t kScaleRecordBytes = 10;

// Records the stream holds: the OFM depth rounded up to the micro-block depth rounded up to 16.
size_t scale_record_count(const ScaleLayout& layout);
// SCALE_LENGTH as Vela writes it: the records, rounded up to 16 bytes.
size_t scale_stream_bytes(const ScaleLayout& layout);

// The OFM channels' records into `out` (resized to ofm_depth).
void decode_scales(const uint8_t* data, size_t size_bytes, const ScaleLayout& layout, std::vector<ChannelScale>& out);

}  // namespace ethosu::weights::u85
