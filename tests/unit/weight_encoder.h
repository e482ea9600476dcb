// Test-side encoder of compressed weight streams (04-weight-codec.md), for the decoder's unit tests and
// benchmark: a bit writer, one slice encoded following the chunk schedule of section 2.3, and the
// weights a slice must decode to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ethosu::weights::test {

// LSB-first bit writer: the format's field convention.
class BitWriter {
 public:
  void put(uint64_t value, unsigned bits) {
    for (unsigned b = 0; b < bits; ++b) {
      if (pos_ % 8 == 0) bytes_.push_back(0);
      bytes_.back() = static_cast<uint8_t>(bytes_.back() | (((value >> b) & 1) << (pos_ % 8)));
      ++pos_;
    }
  }
  // End-of-stream marker, 1-bits to the byte boundary, 0xFF to a 16-byte multiple (what Vela emits).
  std::vector<uint8_t> finish(bool end_marker = true) {
    if (end_marker) put(7, 3);
    pad_ones_to_byte();
    while (bytes_.size() % 16 != 0) put(0xFF, 8);
    return bytes_;
  }
  void pad_ones_to_byte() {
    while (pos_ % 8 != 0) put(1, 1);
  }
  std::vector<uint8_t> bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  size_t pos_ = 0;
};

inline int16_t code_to_weight(uint32_t code) { return static_cast<int16_t>((code & 1) ? -int(code >> 1) : int(code >> 1)); }
inline uint32_t weight_to_code(int w) { return w < 0 ? uint32_t(-2 * w + 1) : uint32_t(2 * w); }

struct SliceSpec {
  int zdiv = 6;  // 6: no zero runs
  int wdiv = 0;
  bool trunc = false;
  bool new_palette = true;
  int dirofs = 0;
  std::vector<uint32_t> palette;  // codes; empty = no palette
  int palbits = 9;                // entry width (2..9); uncompressed index width without a palette
  std::vector<uint32_t> indices;  // weight symbols
  std::vector<uint64_t> zruns;    // n + new_palette values when zdiv <= 3
};

// Test-side encoder of one slice following the chunk schedule of section 2.3, so that random data covers
// every field combination. The hand-written streams below pin the format independently of it.
inline void encode_slice(BitWriter& w, const SliceSpec& s) {
  const size_t n = s.indices.size();
  const bool zr = s.zdiv <= 3;
  const bool unc = s.wdiv == 7;
  const size_t nz = zr ? n + (s.new_palette ? 1 : 0) : 0;
  w.put(unsigned(s.zdiv), 3);
  w.put(n - 1, 15);
  w.put(unsigned(s.wdiv), 3);
  w.put(s.trunc, 1);
  w.put(s.new_palette, 1);
  unsigned kw = unsigned(s.wdiv);
  if (s.new_palette) {
    w.put(unsigned(s.dirofs), 5);
    w.put(s.palette.empty() ? 0 : s.palette.size() - 1, 5);
    w.put(unsigned(s.palbits - 2), 3);
    for (uint32_t p : s.palette) w.put(p, unsigned(s.palbits));
  }
  if (unc) {
    kw = 0;
    if (s.palette.empty()) kw = unsigned(s.palbits);
    else while ((1u << kw) < s.palette.size()) ++kw;
  }
  const unsigned kz = zr ? unsigned(s.zdiv) : 0;
  // Unary codes per symbol, then zero padding codes (each ends a padding symbol).
  std::vector<int> wcodes;
  for (uint32_t idx : s.indices) {
    uint32_t q = idx >> kw;
    if (s.trunc) {
      wcodes.push_back(int(q));
    } else {
      for (; q >= 2; q -= 2) wcodes.push_back(2);
      wcodes.push_back(int(q));
    }
  }
  std::vector<int> zbits;
  for (size_t j = 0; j < nz; ++j) {
    for (uint64_t q = s.zruns[j] >> kz; q > 0; --q) zbits.push_back(1);
    zbits.push_back(0);
  }
  size_t wc = 0, zb = 0, wp = 0, zp = 0;
  size_t pw0 = 0, pw1 = 0, pz0 = 0, pz1 = 0;
  const unsigned zlen = kz < 3 ? 12 : 8;
  const size_t uchunk = kw > 5 ? 8 : 12;
  while (true) {
    const long bal = zr ? long(wp) - long(zp) : 0;
    const bool wpart = (bal < 8 || !zr) && wp < n;
    const bool zpart = zr && bal >= 0 && zp < nz;
    const size_t w0 = wp, z0 = zp;
    uint32_t u0 = 0, u1 = 0;
    unsigned u1n = 0;
    if (wpart && !unc) {
      for (unsigned i = 0; i < 12; ++i) {
        const int c = wc < wcodes.size() ? wcodes[wc] : 0;
        ++wc;
        if (c > 0) {
          u0 |= 1u << i;
          u1 |= uint32_t(c - 1) << u1n++;
        }
        if (s.trunc || c < 2) ++wp;
      }
      w.put(u0, 12);
    } else if (wpart) {
      wp += uchunk;
    }
    if (zpart) {
      uint32_t zu = 0;
      for (unsigned i = 0; i < zlen; ++i) {
        const int b = zb < zbits.size() ? zbits[zb] : 0;
        ++zb;
        zu |= uint32_t(b) << i;
        if (!b) ++zp;
      }
      w.put(zu, zlen);
    }
    if (wpart && !unc) w.put(u1, u1n);
    for (size_t j = pw0; j < std::min(pw1, n); ++j) w.put(s.indices[j] & ((1u << kw) - 1), kw);
    for (size_t j = pz0; j < std::min(pz1, nz); ++j) w.put(s.zruns[j] & ((1u << kz) - 1), kz);
    if (!wpart && !zpart) break;
    pw0 = w0, pw1 = wp, pz0 = z0, pz1 = zp;
  }
}

// Expected decoder output of a slice (section 2.5, 2.6).
inline void expected_slice(const SliceSpec& s, const std::vector<uint32_t>& palette, int dirofs, std::vector<int16_t>& out) {
  const bool zr = s.zdiv <= 3;
  const size_t shift = s.new_palette ? 1 : 0;
  if (zr && s.new_palette) out.insert(out.end(), s.zruns[0], 0);
  for (size_t i = 0; i < s.indices.size(); ++i) {
    const uint32_t idx = s.indices[i];
    out.push_back(code_to_weight(idx < palette.size() ? palette[idx] : idx - uint32_t(palette.size()) + uint32_t(dirofs)));
    if (zr) out.insert(out.end(), s.zruns[i + shift], 0);
  }
}

}  // namespace ethosu::weights::test
