#include "models/kernels/weights/scale_stream_u85.h"

#include <string>

#include "sim/error.h"

namespace ethosu::weights::u85 {
namespace {

uint64_t little_endian(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

int64_t sign_extend(uint64_t v, int bits) { return static_cast<int64_t>(v << (64 - bits)) >> (64 - bits); }

void validate(const ScaleLayout& l) {
  const int u = l.ofm_ublock_depth;
  if (l.ofm_depth < 1) throw InputError("U85 scale layout: OFM depth must be positive");
  if (u < 8 || u > 64 || (u & (u - 1)) != 0)
    throw InputError("U85 scale layout: OFM micro-block depth " + std::to_string(u) + " is not 8, 16, 32 or 64");
  if (l.acc != AccFormat::I32 && l.acc != AccFormat::I48)
    throw InputError("U85 scale layout: accumulator format " + std::to_string(int(l.acc)) + " is not I32 or I48");
}

}  // namespace

size_t scale_record_count(const ScaleLayout& l) {
  validate(l);
  const size_t granule = (static_cast<size_t>(l.ofm_ublock_depth) + 15) / 16 * 16;
  return (static_cast<size_t>(l.ofm_depth) + granule - 1) / granule * granule;
}

size_t scale_stream_bytes(const ScaleLayout& l) { return (scale_record_count(l) * kScaleRecordBytes + 15) / 16 * 16; }

void decode_scales(const uint8_t* data, size_t size_bytes, const ScaleLayout& l, std::vector<ChannelScale>& out) {
  const size_t records = scale_record_count(l);
  if (size_bytes < records * kScaleRecordBytes) {
    throw InputError("scale stream: " + std::to_string(size_bytes) + " bytes hold fewer than the " +
                     std::to_string(records) + " records of " + std::to_string(kScaleRecordBytes) +
                     " bytes for OFM depth " + std::to_string(l.ofm_depth) + " padded to " + std::to_string(records) +
                     " channels");
  }
  out.resize(static_cast<size_t>(l.ofm_depth));
  for (size_t c = 0; c < out.size(); ++c) {
    const uint8_t* r = data + c * kScaleRecordBytes;
    ChannelScale& s = out[c];
    if (l.acc == AccFormat::I32) {
      s.bias = sign_extend(little_endian(r, 4), 32);
      s.multiplier = static_cast<uint32_t>(little_endian(r + 4, 4) & 0x7FFFFFFFu);
    } else {
      s.bias = sign_extend(little_endian(r, 6), 48);
      s.multiplier = static_cast<uint32_t>(little_endian(r + 6, 2) & 0x7FFFu);
    }
    s.shift = static_cast<uint8_t>(r[8] & 0x3F);
  }
}

}  // namespace ethosu::weights::u85
