// Test-side encoder of Ethos-U85 weight streams: the order written again, line by line, from the loop nest of Vela
// 5.1's EthosU85WeightOrdering (each position a key into the dense weights, or padding), the interleave of the
// fast format, the FWD bitstream, and SWD streams through the U55/U65 slice encoder of weight_encoder.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <vector>

#include "models/kernels/weights/weight_decoder_u85.h"
#include "tests/unit/weight_encoder.h"

namespace ethosu::weights::u85::test {

// One position of an order: a dense index ((o * KH + y) * KW + x) * depth + i, or -1 for padding.
using Keys = std::vector<long>;

// The IFM block depth as Vela 5.1 chooses it (restated for the test).
inline int vela_ifm_block_depth(const Layout& l) {
  if (l.kind != OpKind::DEPTHWISE && l.part_kernel_first) return 16;
  if (l.ifm_bits == 32) return 32;
  if ((l.macs == 128 || l.macs == 256) && l.ofm_ublock_depth == 16 && !l.sparse) return 32;
  if (l.sparse && l.ifm_bits == 8) return 128;
  return 64;
}

// Decoder `s`'s order (of l.weight_decoders), as the pseudo-code of weights.md section 4 writes it.
inline Keys reference_order(const Layout& l, int s) {
  const bool DW = l.kind == OpKind::DEPTHWISE, PK = !DW && l.part_kernel_first;
  const bool ifm16 = l.ifm_bits == 16;
  const int OD = l.ofm_depth, ID = DW ? 1 : l.ifm_depth, KH = l.kernel_height, KW = l.kernel_width;
  const int U = l.ofm_ublock_depth, OBD = l.ofm_block_depth, S = l.weight_decoders;
  const int IBD = DW ? 1 : vela_ifm_block_depth(l);
  int R = 1, IUB = IBD, sy = 1, sx = 1;
  if (PK) {
    R = (ifm16 || l.sparse) ? 10 : 5;
    IUB = (ifm16 && !l.sparse) ? 8 : IBD;
    sy = l.stride_y, sx = l.stride_x;
  } else if (DW) {
    R = 10;
    IUB = 1;
    sy = l.stride_y, sx = l.stride_x;
  }
  const int IS = DW ? 1 : (l.sparse ? 16 : 8);
  const int DWP = (!ifm16 && l.macs <= 256) ? 0 : (l.macs <= 512 ? 2 : 6);
  const int dX = 8 / l.dilation_x, dY = 8 / l.dilation_y;
  Keys keys;
  const auto pad = [&](long n) { keys.insert(keys.end(), size_t(n), -1); };
  int block_number = 0;
  for (int ob = 0; ob < OD; ob += OBD, ++block_number) {
    std::vector<int> ibs;
    for (int ib = 0; ib < ID; ib += IBD) ibs.push_back(ib);
    if (DW) ibs = {0};
    if (block_number % 2) std::reverse(ibs.begin(), ibs.end());
    const int cobd = std::min(OBD, OD - ob);
    for (int ib : ibs) {
      const int cibd = std::min(IBD, ID - ib);
      for (int skx = 0; skx < KW; skx += dX) {
        const int sw = std::min(KW - skx, dX);
        for (int sky = 0; sky < KH; sky += dY) {
          const int sh = std::min(KH - sky, dY);
          for (int iuo = 0; iuo < (DW ? 1 : cibd); iuo += IUB) {
            for (int ouo = 0; ouo < cobd; ouo += U) {
              int left = (sw * sh + R - 1) / R * R;
              for (int py = 0; py < sy; ++py) {
                for (int px = 0; px < sx; ++px) {
                  const int kh = (sh - py + sy - 1) / sy, kw = (sw - px + sx - 1) / sx;
                  for (int ky = 0; ky < kh; ++ky) {
                    for (int kxx = 0; kxx < kw; ++kxx) {
                      const int kx = ky % 2 == 0 ? kxx : kw - 1 - kxx;
                      left -= 1;
                      for (int iui = 0; iui < IUB; iui += IS)
                        for (int ouz = 4 * s; ouz < U; ouz += 4 * S)
                          for (int oi = 0; oi < 4; ++oi)
                            for (int iz = 0; iz < IS; ++iz) {
                              const int o = ob + ouo + ouz + oi, i = ib + iuo + iui + iz;
                              const int y = sky + py + ky * sy, x = skx + px + kx * sx;
                              keys.push_back(o < OD && i < ID ? ((long(o) * KH + y) * KW + x) * ID + i : -1);
                            }
                      if (DW && left % R == 0) pad(long(DWP) * U / S);
                    }
                  }
                }
              }
              if (left > 0) pad(long(left + (DW ? DWP : 0)) * IUB * U / S);
            }
          }
        }
      }
    }
  }
  return keys;
}

inline std::vector<int16_t> values_of(const Keys& keys, const std::vector<int16_t>& dense) {
  std::vector<int16_t> v(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) v[k] = keys[k] < 0 ? int16_t{0} : dense[size_t(keys[k])];
  return v;
}

// The fast format's single stream: the decoders' orders in turn, `block` values of each.
inline std::vector<int16_t> interleave(const std::vector<std::vector<int16_t>>& orders, size_t block) {
  std::vector<int16_t> out;
  for (size_t at = 0; at < orders[0].size(); at += block)
    for (const auto& order : orders) out.insert(out.end(), order.begin() + long(at), order.begin() + long(at + block));
  return out;
}

inline size_t fwd_block(const Layout& l) {
  const bool PK = l.part_kernel_first, ifm16 = l.ifm_bits == 16;
  const int IBD = vela_ifm_block_depth(l);
  const int IUB = PK && ifm16 && !l.sparse ? 8 : IBD;
  const int R = PK ? (!ifm16 && !l.sparse ? 5 : 10) : 1;
  return size_t(l.ofm_ublock_depth * IUB * R / l.weight_decoders);
}

// The stream(s) of values the command stream's weight streams hold for `dense`: one per decoder (SWD), or one
// interleaved (FWD).
inline std::vector<std::vector<int16_t>> stream_values(const Layout& l, const std::vector<int16_t>& dense) {
  std::vector<std::vector<int16_t>> orders;
  for (int s = 0; s < l.weight_decoders; ++s) orders.push_back(values_of(reference_order(l, s), dense));
  if (l.format == WeightFormat::SWD) return orders;
  return {l.weight_decoders == 1 ? orders[0] : interleave(orders, fwd_block(l))};
}

inline int fold(int v) { return (std::abs(v) << 1) | (v < 0 ? 1 : 0); }

// An FWD stream of `values` in `mode` (RAW derives its zero adjust as Vela does; the LUT modes need at most 4 or
// 16 distinct values). `reserved` sets header bits 2.. to test their check.
inline std::vector<uint8_t> encode_fwd(const std::vector<int16_t>& values, FwdMode mode, uint32_t reserved = 0) {
  weights::test::BitWriter w;
  std::vector<int16_t> table;
  std::map<int, int> index;
  for (int16_t v : values)
    if (!index.count(v)) {
      index[v] = int(table.size());
      table.push_back(v);
    }
  int zero_adjust = 0;
  if (mode == FwdMode::RAW) {
    const int lo = values.empty() ? 0 : *std::min_element(values.begin(), values.end());
    const int hi = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
    if (lo < -128) zero_adjust = -128 - lo;
    if (hi > 127) zero_adjust = 127 - hi;
    table.resize(std::min<size_t>(table.size(), 16));  // Vela leaves the first values met there
  }
  table.resize(16, 0);
  w.put(mode == FwdMode::RAW, 1);
  w.put(mode == FwdMode::LUT2, 1);
  w.put(reserved, 32);
  w.put(0, 35);  // (put() takes at most 64 bits)
  w.put(0, 35);
  w.put(uint32_t(zero_adjust) & 0xFF, 8);
  for (int16_t t : table) w.put(uint32_t(fold(t)), 9);
  for (int16_t v : values) {
    if (mode == FwdMode::RAW) w.put(uint32_t(v + zero_adjust) & 0xFF, 8);
    if (mode == FwdMode::LUT4) w.put(uint32_t(index.at(v)), 4);
    if (mode == FwdMode::LUT2) w.put(uint32_t(index.at(v)), 2);
  }
  std::vector<uint8_t> bytes = w.bytes();
  bytes.resize((bytes.size() + 31) / 32 * 32, 0);
  return bytes;
}

// An SWD stream of `values`: slices of up to 32768 symbols, each with a random Rice parameter or uncompressed, with
// or without zero runs.
template <typename Rng>
std::vector<uint8_t> encode_swd(const std::vector<int16_t>& values, Rng& rng) {
  weights::test::BitWriter w;
  for (size_t at = 0; at < values.size();) {
    weights::test::SliceSpec s;
    const size_t n = std::min<size_t>(values.size() - at, 1 + rng() % 32768);
    const int mode = int(rng() % 3);
    s.wdiv = mode == 2 ? 7 : int(rng() % 6);
    s.palbits = 9;  // uncompressed: 9-bit direct codes
    if (mode == 1) {
      s.zdiv = int(rng() % 4);
      // Zero runs: each nonzero weight takes the zeros after it; the slice's leading zeros come first.
      size_t k = at;
      uint64_t run = 0;
      while (k < at + n && values[k] == 0) ++run, ++k;
      s.zruns.push_back(run);
      for (; k < at + n;) {
        s.indices.push_back(weights::test::weight_to_code(values[k++]));
        run = 0;
        while (k < at + n && values[k] == 0) ++run, ++k;
        s.zruns.push_back(run);
      }
      if (s.indices.empty()) {  // all zeros: a slice needs a weight, so code the last zero as one
        s.indices.push_back(0);
        s.zruns = {n - 1, 0};
      }
    } else {
      for (size_t k = at; k < at + n; ++k) s.indices.push_back(weights::test::weight_to_code(values[k]));
    }
    weights::test::encode_slice(w, s);
    at += n;
  }
  return w.finish();
}

}  // namespace ethosu::weights::u85::test
