// Weight stream decoder and reorder: streams built bit by bit from 04-weight-codec.md, a test-side encoder
// for randomised round trips, malformed streams, and the consumption order.
#include "models/kernels/weights/weight_decoder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "models/kernels/simd_loops.h"
#include "sim/error.h"
#include "tests/unit/weight_encoder.h"

namespace ethosu::weights {
namespace {

using namespace test;

// The SIMD target of decode() and decode_bytes(): 0 is the baseline build's chunk loop.
int64_t g_target = 0;

void decode_bytes(const uint8_t* data, size_t size, std::vector<int16_t>& out) {
  DecodeScratch scratch;
  scratch.simd_target = g_target;
  decode_stream(data, size, scratch);
  out.assign(scratch.stream.begin(), scratch.stream.end());
}

std::vector<int16_t> decode(const std::vector<uint8_t>& b) {
  std::vector<int16_t> out;
  decode_bytes(b.data(), b.size(), out);
  return out;
}

// Runs `body` with decode() on every SIMD target this host runs (the kernels' list; their dispatch names the
// decoder's target in the simulator) and on the baseline build's: each must decode the same weights and errors.
template <typename Body>
void on_every_target(Body&& body) {
  std::vector<int64_t> targets{0};
  std::vector<std::string> names{"baseline"};
  for (int64_t t : kernels::available_simd_targets()) targets.push_back(t);
  for (const std::string& n : kernels::simd_target_names()) names.push_back(n);
  for (size_t i = 0; i < targets.size(); ++i) {
    SCOPED_TRACE("SIMD target " + names[i]);
    g_target = targets[i];
    body();
  }
  g_target = 0;
}

// --- streams written field by field ------------------------------------------------------------------

// Header of a single-palette-definition slice without palette entries.
void header(BitWriter& w, int zdiv, size_t n, int wdiv, bool trunc, int dirofs, int palsize_coded, int palbits_coded) {
  w.put(unsigned(zdiv), 3);
  w.put(n - 1, 15);
  w.put(unsigned(wdiv), 3);
  w.put(trunc, 1);
  w.put(1, 1);
  w.put(unsigned(dirofs), 5);
  w.put(unsigned(palsize_coded), 5);
  w.put(unsigned(palbits_coded), 3);
}

TEST(WeightStream, SingleWeightUnaryOnly) {
  // +3 -> code 6 -> direct index 6 (no palette, DIROFS 0), k = 0: quotient 6 = codes 2,2,2,0.
  BitWriter w;
  header(w, 6, 1, 0, false, 0, 0, 0);
  w.put(0x007, 12);  // WUNARY0: three 1s then zeros (the zeros end padding symbols)
  w.put(0x7, 3);     // WUNARY1: each 1-bit of WUNARY0 is a code 2
  EXPECT_EQ(decode(w.finish()), std::vector<int16_t>({3}));
}

TEST(WeightStream, RemaindersLagOneChunk) {
  // 13 weights, k = 2: chunk 1 carries 12 quotients, chunk 2 the 13th quotient then chunk 1's remainders,
  // chunk 3 (no unary) the 13th remainder. Indices 4*q + r; DIROFS 2 shifts the direct range.
  BitWriter w;
  header(w, 6, 13, 2, false, 2, 0, 0);
  std::vector<uint32_t> idx;
  for (uint32_t i = 0; i < 13; ++i) idx.push_back(i % 3 == 0 ? 4 + (i & 3) : (i & 3));  // quotients 1 or 0
  uint32_t u0 = 0;
  for (int i = 0; i < 12; ++i) u0 |= uint32_t(idx[size_t(i)] >> 2) << i;
  w.put(u0, 12);
  w.put(0, unsigned(__builtin_popcount(u0)));  // codes of 1: the quotient-1 symbols end at once
  w.put(uint32_t(idx[12] >> 2), 12);           // chunk 2: the 13th symbol, then 11 padding symbols
  w.put(0, unsigned(idx[12] >> 2));
  for (int i = 0; i < 12; ++i) w.put(idx[size_t(i)] & 3, 2);  // chunk 1's remainders
  w.put(idx[12] & 3, 2);                                     // chunk 3: only the 13th remainder
  std::vector<int16_t> expect;
  for (uint32_t i : idx) expect.push_back(code_to_weight(i + 2));
  EXPECT_EQ(decode(w.finish()), expect);
}

TEST(WeightStream, PaletteWithSizeAndDirectValues) {
  // PALSIZE coded 2 = three entries {code 10 (+5), code 3 (-1), code 7 (-3)}; index 3 is the first direct
  // value: 3 - 3 + DIROFS 4 = code 4 (+2).
  BitWriter w;
  header(w, 6, 4, 7, false, 4, 2, 3);  // uncompressed, PALBITS 5; B = ceil(log2(3)) = 2 bits per index
  w.put(10, 5);
  w.put(3, 5);
  w.put(7, 5);
  // Uncompressed chunk: no unary; 12 symbols (4 real) whose 2-bit remainders come one chunk later.
  for (uint32_t i : {1u, 0u, 3u, 2u}) w.put(i, 2);
  EXPECT_EQ(decode(w.finish()), std::vector<int16_t>({-1, 5, 2, -3}));
}

TEST(WeightStream, PalsizeZeroMeansNoPalette) {
  // Coded PALSIZE 0 with PALBITS 7 (9-bit entries): no entries follow, uncompressed indices are 9 bits.
  BitWriter w;
  header(w, 6, 2, 7, false, 0, 0, 7);
  w.put(255 * 2 + 1, 9);  // -255
  w.put(254, 9);          // +127
  EXPECT_EQ(decode(w.finish()), std::vector<int16_t>({-255, 127}));
}

TEST(WeightStream, ZeroRunsAroundWeights) {
  // ZDIV 0 (k_z 0), new palette: z0 zeros, then weight, z1 zeros, weight, z2 zeros.
  BitWriter w;
  header(w, 0, 2, 0, false, 2, 0, 0);  // direct codes from 2: index 0 -> +1, index 1 -> -1
  // Chunk 1: W reads 12 unary positions (index 0, index 1, padding); Z reads 12: runs 2, 0, 1 then padding.
  w.put(0x002, 12);         // second symbol has quotient 1
  w.put(0b0'10'0'11, 12);   // z: 1,1,0 (2) | 0 (0) | 1,0 (1) | zeros = padding symbols
  w.put(0, 1);              // WUNARY1 for the single 1-bit: code 1
  // Chunk 2: nothing participates; remainders all 0 bits. Then end of stream.
  EXPECT_EQ(decode(w.finish()), std::vector<int16_t>({0, 0, 1, -1, 0}));
}

TEST(WeightStream, TruncatedRiceEndsEverySymbol) {
  BitWriter w;
  header(w, 6, 3, 1, true, 0, 0, 0);
  // Quotients 2, 0, 1 (truncated: one code each), remainders 1, 0, 1 -> indices 5, 0, 3.
  w.put(0b101, 12);
  w.put(0b1, 1);  // first symbol's code is 2, the third's is 1
  w.put(0b0, 1);  // WUNARY1 second bit
  for (uint32_t r : {1u, 0u, 1u}) w.put(r, 1);
  EXPECT_EQ(decode(w.finish()), std::vector<int16_t>({-2, 0, -1}));
}

TEST(WeightStream, FFPaddingIsRepeatedEndMarkersAndNewPaletteRestarts) {
  BitWriter w;
  header(w, 6, 1, 0, false, 0, 0, 0);
  w.put(0, 12);  // index 0 -> code 0 -> 0
  w.put(7, 3);   // end marker, then 1-padding to the byte and a run of 0xFF bytes
  w.pad_ones_to_byte();
  for (int i = 0; i < 5; ++i) w.put(0xFF, 8);
  header(w, 6, 1, 0, false, 4, 0, 0);  // a second stream after the padding: DIROFS 4 -> code 4 = +2
  w.put(0, 12);
  EXPECT_EQ(decode(w.finish()), std::vector<int16_t>({0, 2}));
}

// --- malformed streams ---------------------------------------------------------------------------

void expect_error(const std::vector<uint8_t>& bytes, const std::string& fragment) {
  try {
    decode(bytes);
    ADD_FAILURE() << "no error; expected one mentioning '" << fragment << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("byte "), std::string::npos) << e.what();
  }
}

TEST(WeightStreamErrors, ReservedFieldValues) {
  for (int zdiv : {4, 5}) {
    BitWriter w;
    header(w, zdiv, 1, 0, false, 0, 0, 0);
    expect_error(w.finish(), "reserved ZDIV");
  }
  BitWriter w;
  header(w, 6, 1, 6, false, 0, 0, 0);
  expect_error(w.finish(), "reserved WDIV");
}

TEST(WeightStreamErrors, MissingPaletteDefinition) {
  BitWriter w;
  w.put(6, 3);
  w.put(0, 15);
  w.put(0, 3);
  w.put(0, 1);
  w.put(0, 1);  // NEWPAL 0 in the first slice
  w.put(0, 12);
  expect_error(w.finish(), "palette");
}

TEST(WeightStreamErrors, TruncatedAndMissingEnd) {
  BitWriter w;
  header(w, 6, 1, 0, false, 0, 0, 0);
  w.put(0, 12);
  const std::vector<uint8_t> no_end = w.bytes();  // the slice ends on a byte boundary, nothing follows
  expect_error(no_end, "missing end-of-stream");
  std::vector<uint8_t> cut(no_end.begin(), no_end.begin() + 2);
  expect_error(cut, "truncated");
  expect_error({}, "missing end-of-stream");
}

TEST(WeightStreamErrors, CodeBeyondNineBits) {
  BitWriter w;
  header(w, 6, 1, 7, false, 31, 0, 7);  // direct index 500 + DIROFS 31 = code 531
  w.put(500, 9);
  expect_error(w.finish(), "beyond 9 bits");
}

TEST(WeightStreamErrors, CodeBeyondNineBitsInsideALongSlice) {
  // Far from the end of the buffer the decoder reads many remainders at once: the error still names the bad
  // symbol's own remainder. Every other symbol is index 0 (quotient and remainder 0, one unary code each), so
  // the bad symbol, 2 codes into chunk 58, ends there third and is the only one with 1 bits in its remainder.
  constexpr uint32_t kBad = (15u << 5) | 0x16;  // index 502: direct code 502 + DIROFS 31 = 533
  SliceSpec s;
  s.wdiv = 5;
  s.dirofs = 31;
  s.indices.assign(2000, 0);
  s.indices[58 * 12 + 2] = kBad;
  BitWriter w;
  encode_slice(w, s);
  const std::vector<uint8_t> b = w.finish();
  try {
    decode(b);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("weight index 502 gives code 533"), std::string::npos) << what;
    unsigned byte = 0, bit = 0;
    ASSERT_EQ(std::sscanf(what.c_str(), "weight stream: byte %u bit %u", &byte, &bit), 2) << what;
    const size_t pos = size_t{byte} * 8 + bit;
    uint32_t remainder = 0;
    for (unsigned i = 0; i < 5; ++i) remainder |= uint32_t((b.at((pos + i) / 8) >> ((pos + i) % 8)) & 1) << i;
    EXPECT_EQ(remainder, kBad & 31) << what;
  }
}

// The bit position an InputError names ("weight stream: byte B bit b: ...").
size_t error_bit(const std::string& what) {
  unsigned byte = 0, bit = 0;
  EXPECT_EQ(std::sscanf(what.c_str(), "weight stream: byte %u bit %u", &byte, &bit), 2) << what;
  return size_t{byte} * 8 + bit;
}

TEST(WeightStreamErrors, SmallestBadIndexAtEveryLaneOfEveryWdiv) {
  on_every_target([&] {
    // A slice of index-0 symbols with one index at the limit (512 + palette size - DIROFS = 481 here), at every
    // lane of the first chunks (the fast path, which takes a chunk's remainders in fixed lanes whatever its
    // symbol count) and of the last ones (the checked path). One below the limit decodes. The error names the
    // bad symbol: its index, and its own remainder's position (the only remainder with 1 bits).
    constexpr size_t kSymbols = 300;
    constexpr uint32_t kLimit = 512 - 31;
    std::vector<size_t> positions;
    for (size_t p = 0; p < 40; ++p) positions.push_back(p);
    for (size_t p = kSymbols - 30; p < kSymbols; ++p) positions.push_back(p);
    for (int wdiv = 0; wdiv <= 5; ++wdiv) {
      for (size_t p : positions) {
        SliceSpec s;
        s.wdiv = wdiv;
        s.dirofs = 31;
        s.indices.assign(kSymbols, 0);
        s.indices[p] = kLimit - 1;
        BitWriter good;
        encode_slice(good, s);
        std::vector<int16_t> expect;
        expected_slice(s, {}, 31, expect);
        ASSERT_EQ(decode(good.finish()), expect) << "WDIV " << wdiv << " position " << p;
        s.indices[p] = kLimit;
        BitWriter w;
        encode_slice(w, s);
        const std::vector<uint8_t> b = w.finish();
        try {
          decode(b);
          ADD_FAILURE() << "no error: WDIV " << wdiv << " position " << p;
        } catch (const InputError& e) {
          const std::string what = e.what();
          ASSERT_NE(what.find("weight index 481 gives code 512"), std::string::npos) << what;
          const size_t pos = error_bit(what);
          uint32_t remainder = 0;
          for (int i = 0; i < wdiv; ++i) remainder |= uint32_t((b.at((pos + i) / 8) >> ((pos + i) % 8)) & 1) << i;
          ASSERT_EQ(remainder, kLimit & ((1u << wdiv) - 1)) << "WDIV " << wdiv << " position " << p << ": " << what;
        }
      }
    }
  });
}

TEST(WeightStreamErrors, HugeQuotientInsideALongSlice) {
  on_every_target([&] {
    // A quotient so long that its carry passes the fast path's cap (2^24, scaled by 2^WDIV): the checked path takes
    // over, and the error still names the symbol's index.
    constexpr uint32_t kHuge = 1u << 25;
    for (int wdiv : {3, 5}) {
      SliceSpec s;
      s.wdiv = wdiv;
      s.indices.assign(2000, 0);
      s.indices[100] = kHuge;
      BitWriter w;
      encode_slice(w, s);
      try {
        decode(w.finish());
        ADD_FAILURE() << "no error: WDIV " << wdiv;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("weight index " + std::to_string(kHuge) + " gives code"), std::string::npos)
            << e.what();
      }
    }
  });
}

TEST(WeightStreamErrors, EveryTruncationThrowsOrDecodesTheSame) {
  on_every_target([&] {
    // Long slices (fast path) of random indices, cut at every byte: the decoder must throw InputError, or, when
    // only padding was cut, return exactly the weights; never other weights, never read past the cut.
    std::mt19937 rng(21);
    for (int wdiv = 0; wdiv <= 5; ++wdiv) {
      SliceSpec s;
      s.wdiv = wdiv;
      s.dirofs = 3;
      if (wdiv % 2) s.palette = {4, 9, 0, 17};
      for (int i = 0; i < 400; ++i) s.indices.push_back(uint32_t(rng() % (rng() % 4 ? 40 : 500)));
      BitWriter w;
      encode_slice(w, s);
      const std::vector<uint8_t> b = w.finish();
      std::vector<int16_t> expect;
      expected_slice(s, s.palette, s.dirofs, expect);
      ASSERT_EQ(decode(b), expect) << "WDIV " << wdiv;
      size_t threw = 0;
      for (size_t cut = 0; cut < b.size(); ++cut) {
        // An exactly sized copy, so that a sanitizer sees any read past the cut.
        const std::unique_ptr<uint8_t[]> part(new uint8_t[cut ? cut : 1]);
        std::memcpy(part.get(), b.data(), cut);
        std::vector<int16_t> out;
        try {
          decode_bytes(part.get(), cut, out);
          ASSERT_EQ(out, expect) << "WDIV " << wdiv << " cut " << cut;
        } catch (const InputError&) {
          ++threw;
        }
      }
      EXPECT_GT(threw, b.size() - 20) << "WDIV " << wdiv;
    }
  });
}

TEST(WeightStreamErrors, OutputCapStopsHugeZeroRuns) {
  BitWriter w;
  SliceSpec s;
  s.zdiv = 3;
  s.indices = {0};
  s.zruns = {100, 0};
  encode_slice(w, s);
  const std::vector<uint8_t> b = w.finish();
  std::vector<int16_t> out;
  decode_stream(b.data(), b.size(), out, 101);
  EXPECT_EQ(out.size(), 101u);
  try {
    decode_stream(b.data(), b.size(), out, 100);
    ADD_FAILURE() << "cap not enforced";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 100 weights"), std::string::npos) << e.what();
  }
}

TEST(WeightStreamErrors, RandomGarbageNeverCrashes) {
  std::mt19937 rng(12345);
  size_t threw = 0;
  std::vector<int16_t> out;
  for (int t = 0; t < 3000; ++t) {
    std::vector<uint8_t> b(size_t(rng() % 64));
    for (auto& x : b) x = uint8_t(rng());
    try {
      decode_stream(b.data(), b.size(), out, 1 << 16);
    } catch (const InputError&) {
      ++threw;
    }
  }
  EXPECT_GT(threw, 1500u);  // almost all garbage is malformed; the point is no crash or hang
}

// --- randomised round trips through the test encoder ---------------------------------------------

TEST(WeightStream, RandomSlicesRoundTrip) {
  on_every_target([&] {
    std::mt19937 rng(7);
    for (int t = 0; t < 400; ++t) {
      BitWriter w;
      std::vector<int16_t> expect;
      std::vector<uint32_t> palette;
      int dirofs = 0, palbits = 2;
      bool zr = false;
      const int slices = 1 + int(rng() % 3);
      for (int si = 0; si < slices; ++si) {
        SliceSpec s;
        s.new_palette = si == 0 || rng() % 2;
        if (s.new_palette) {
          zr = rng() % 2;
          palette.clear();
          const size_t ps = rng() % 3 == 0 ? 0 : 2 + rng() % 31;
          palbits = 2 + int(rng() % 8);
          for (size_t i = 0; i < ps; ++i) palette.push_back(uint32_t(rng()) & ((1u << palbits) - 1));
          dirofs = int(rng() % 32);
        }
        s.palette = palette;
        s.dirofs = dirofs;
        s.palbits = palbits;
        s.zdiv = zr ? int(rng() % 4) : 6;
        const int mode = int(rng() % 3);  // normal, truncated, uncompressed
        s.wdiv = mode == 2 ? 7 : int(rng() % 6);
        s.trunc = mode == 1;
        unsigned kw = unsigned(s.wdiv);
        if (mode == 2) {
          kw = 0;
          if (palette.empty()) kw = unsigned(s.palbits);
          else while ((1u << kw) < palette.size()) ++kw;
        }
        const size_t n = 1 + (rng() % 4 == 0 ? rng() % 3000 : rng() % 40);
        const uint32_t max_index = 511 + uint32_t(palette.size()) - uint32_t(dirofs);  // code stays < 512
        for (size_t i = 0; i < n; ++i) {
          uint32_t idx = uint32_t(rng() % (rng() % 2 ? 8 : max_index + 1));
          if (s.trunc) idx = std::min<uint32_t>(idx, (3u << kw) - 1);  // quotient <= 2
          if (mode == 2) idx &= (1u << kw) - 1;
          s.indices.push_back(std::min(idx, max_index));
        }
        if (zr) {
          for (size_t i = 0; i < n + s.new_palette; ++i) s.zruns.push_back(rng() % 3 ? 0 : rng() % 40);
        }
        encode_slice(w, s);
        expected_slice(s, palette, dirofs, expect);
      }
      ASSERT_EQ(decode(w.finish()), expect) << "trial " << t;
    }
  });
}

// --- reorder -----------------------------------------------------------------------------------

// Reference consumption order, written straight from section 3's loop nest.
std::vector<int16_t> reference_stream(const WeightLayout& l, const std::vector<int16_t>& dense) {
  const bool dw = l.kind == OpKind::DEPTHWISE, pk = l.part_kernel_first;
  const int O = (l.ofm_depth - l.core + l.cores - 1) / l.cores;
  const int OBD = (l.ofm_block_depth - l.core + l.cores - 1) / l.cores;
  const int I = dw ? 1 : l.ifm_depth, KH = l.kernel_height, KW = l.kernel_width;
  const int IBD = (pk || l.ifm_bits == 16) ? 16 : 32;
  const int SKH = 8 / l.dilation_y, SKW = 8 / l.dilation_x;
  std::vector<int16_t> out;
  for (int ob = 0; ob < O; ob += OBD) {
    const int obd = std::min(OBD, O - ob);
    for (int ib = 0; ib < (dw ? 1 : I); ib += IBD) {
      const int ibd = dw ? 8 : (pk ? std::min(IBD, I - ib) : IBD);
      for (int sy = 0; sy < KH; sy += SKH)
        for (int sx = 0; sx < KW; sx += SKW) {
          const int sh = std::min(SKH, KH - sy), sw = std::min(SKW, KW - sx);
          int E = sw * sh;
          const int r = dw ? 4 : (pk ? (l.ifm_bits == 8 ? 4 : 2) : 1);
          E = (E + r - 1) / r * r;
          for (int iuo = 0; iuo < (pk ? ibd : 1); iuo += 8)
            for (int ou = 0; ou < obd; ou += 8)
              for (int e = 0; e < E; ++e) {
                const int kx = e % sw, ky = e / sw;
                for (int iui = 0; iui < (pk ? 1 : ibd); iui += 8)
                  for (int oz = 0; oz < 8; ++oz)
                    for (int iz = 0; iz < (dw ? 1 : 8); ++iz) {
                      const int o = ob + ou + oz, i = ib + iuo + iui + iz;
                      const int og = l.core + o * l.cores;
                      const bool in = i < I && o < ob + obd && ky < sh;
                      out.push_back(in ? dense[size_t(((og * KH + sy + ky) * KW + sx + kx) * I + i)] : 0);
                    }
              }
        }
    }
  }
  return out;
}

// A random layout: depths up to max_depth, kernels up to max_kernel, OFM tiles of up to max_blocks x 8 channels.
WeightLayout random_layout(std::mt19937& rng, int max_depth, int max_kernel, int max_blocks) {
  WeightLayout l;
  l.kind = OpKind(rng() % 3);
  l.ofm_depth = 1 + int(rng() % unsigned(max_depth));
  l.ifm_depth = 1 + int(rng() % unsigned(max_depth));
  l.kernel_height = l.kind == OpKind::FULLY_CONNECTED ? 1 : 1 + int(rng() % unsigned(max_kernel));
  l.kernel_width = l.kind == OpKind::FULLY_CONNECTED ? 1 : 1 + int(rng() % unsigned(max_kernel));
  l.dilation_y = 1 + int(rng() % 2);
  l.dilation_x = 1 + int(rng() % 2);
  l.ofm_block_depth = 8 * (1 + int(rng() % unsigned(max_blocks)));
  l.part_kernel_first = rng() % 2;
  l.ifm_bits = rng() % 2 ? 8 : 16;
  l.cores = 1 + int(rng() % 2);
  return l;
}

TEST(WeightReorder, MatchesConsumptionOrder) {
  std::mt19937 rng(99);
  for (int t = 0; t < 300; ++t) {
    WeightLayout l = random_layout(rng, 70, 9, 8);
    const int depth = l.kind == OpKind::DEPTHWISE ? 1 : l.ifm_depth;
    std::vector<int16_t> original(size_t(l.ofm_depth * l.kernel_height * l.kernel_width * depth));
    for (auto& v : original) v = int16_t(int(rng() % 511) - 255);
    DenseWeights dense;
    for (l.core = 0; l.core < l.cores; ++l.core) {
      const std::vector<int16_t> s = reference_stream(l, original);
      ASSERT_EQ(s.size(), stream_weight_count(l)) << "trial " << t;
      prepare(l, dense);
      reorder(l, s.data(), s.size(), dense);
    }
    ASSERT_EQ(dense.values, original) << "trial " << t;
  }
}

TEST(WeightReorder, KnownCounts) {
  WeightLayout l;  // depth-first 8-bit 3x3, 13 IFM channels: one 32-deep IFM block, 9 taps, 2 OFM micro-blocks
  l.ofm_depth = 16;
  l.ifm_depth = 13;
  l.kernel_height = l.kernel_width = 3;
  l.ofm_block_depth = 16;
  EXPECT_EQ(stream_weight_count(l), size_t(2 * 9 * 4 * 64));
  l.part_kernel_first = true;  // IFM clipped to 13 -> 2 micro-blocks; taps 9 -> 12
  EXPECT_EQ(stream_weight_count(l), size_t(2 * 2 * 12 * 64));
  l.kind = OpKind::DEPTHWISE;  // taps 9 -> 12, 8 OFM x 1 per tap
  l.part_kernel_first = false;
  EXPECT_EQ(stream_weight_count(l), size_t(2 * 12 * 8));
}

TEST(WeightReorder, LengthMismatchAndBadLayoutAreErrors) {
  WeightLayout l;
  l.ofm_depth = 8;
  l.ifm_depth = 8;
  DenseWeights dense;
  prepare(l, dense);
  std::vector<int16_t> s(stream_weight_count(l) - 1);
  EXPECT_THROW(reorder(l, s.data(), s.size(), dense), InputError);
  l.dilation_x = 3;
  EXPECT_THROW(stream_weight_count(l), InputError);
  l.dilation_x = 1;
  l.cores = 2;
  l.core = 1;
  l.ofm_block_depth = 1;
  EXPECT_THROW(stream_weight_count(l), InputError);
}

// A random stream of exactly `count` weights in several slices, some with zero runs and some shorter than a group,
// so that groups straddle slices; `end_marker` false ends it after the last slice's bits.
std::vector<uint8_t> random_stream(std::mt19937& rng, size_t count, bool end_marker = true) {
  BitWriter w;
  std::vector<uint32_t> palette;
  bool zero_runs = false;
  size_t made = 0;
  for (bool first = true; made < count; first = false) {
    SliceSpec sl;
    const size_t left = count - made;
    // The last slice starts a palette without zero runs, so that it can hold exactly what is left.
    const bool last = left <= 200 || (left <= 30000 && rng() % 4 == 0);  // SLICELEN holds up to 32768
    sl.new_palette = first || last || rng() % 3 == 0;
    if (sl.new_palette) {
      zero_runs = !last && rng() % 2;
      palette.clear();
      for (size_t i = 0, n = rng() % 2 ? 0 : 2 + rng() % 8; i < n; ++i) palette.push_back(uint32_t(rng() % 64));
    }
    sl.palette = palette;
    sl.palbits = 8;
    sl.zdiv = zero_runs ? int(rng() % 4) : 6;
    sl.wdiv = int(rng() % 4);
    const size_t n = last ? left : 1 + rng() % std::min<size_t>(left / 4, 150);
    for (size_t i = 0; i < n; ++i) sl.indices.push_back(uint32_t(rng() % 40));
    size_t total = n;
    if (zero_runs) {
      for (size_t i = 0; i < n + sl.new_palette; ++i) {
        const uint64_t run = rng() % 3 ? 0 : rng() % 9;
        sl.zruns.push_back(total + run + (count - made - total) / 2 < left ? run : 0);  // leaves room for the last
        total += sl.zruns.back();
      }
    }
    encode_slice(w, sl);
    made += total;
  }
  return end_marker ? w.finish() : w.bytes();
}

// decode_weights() decodes as it scatters, a slice at a time: it must equal decoding the whole stream first.
TEST(WeightDecodePacked, EqualsDecodingTheWholeStreamThenReordering) {
  std::mt19937 rng(5);
  for (int t = 0; t < 300; ++t) {
    WeightLayout l = random_layout(rng, 40, 5, 4);
    DenseWeights pulled, whole;
    for (l.core = 0; l.core < l.cores; ++l.core) {
      const size_t count = stream_weight_count(l);
      if (count == 0) continue;
      const std::vector<uint8_t> bytes = random_stream(rng, count);
      const std::vector<int16_t> stream = decode(bytes);
      ASSERT_EQ(stream.size(), count) << "trial " << t;
      prepare(l, whole);
      reorder(l, stream.data(), stream.size(), whole);
      decode_weights(l, bytes.data(), bytes.size(), pulled);
    }
    ASSERT_EQ(pulled.values, whole.values) << "trial " << t;
  }
}

TEST(WeightDecodePacked, StreamLengthAndEndErrors) {
  std::mt19937 rng(11);
  WeightLayout l;
  l.ofm_depth = 24;
  l.ifm_depth = 20;
  l.kernel_height = l.kernel_width = 3;
  l.ofm_block_depth = 16;
  const size_t count = stream_weight_count(l);
  DenseWeights dense;
  const auto message = [&](const std::vector<uint8_t>& bytes) {
    try {
      decode_weights(l, bytes.data(), bytes.size(), dense);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(random_stream(rng, count)), "no error");
  EXPECT_NE(message(random_stream(rng, count - 1)).find("holds " + std::to_string(count - 1) + " weights"),
            std::string::npos);
  EXPECT_NE(message(random_stream(rng, count + 1)).find("more than " + std::to_string(count) + " weights"),
            std::string::npos);
  // A stream without its end marker fails as decoding it alone does (whether short or not): the malformed end
  // comes first.
  for (const size_t n : {count - 1, count}) {
    const std::vector<uint8_t> bytes = random_stream(rng, n, false);
    std::string alone = "no error";
    try {
      decode(bytes);
    } catch (const InputError& e) {
      alone = e.what();
    }
    EXPECT_NE(alone, "no error");
    EXPECT_EQ(message(bytes), alone);
  }
}

// Decode speed on a MobileNetV2-sized layer (1x1, 320 -> 1280 channels, 409 600 weights).
TEST(WeightStream, DecodeSpeed) {
  std::mt19937 rng(3);
  std::normal_distribution<double> gauss(0, 30);
  BitWriter w;
  std::vector<int16_t> expect;
  const size_t total = 409600;
  for (size_t done = 0; done < total;) {
    SliceSpec s;
    s.wdiv = 5;
    s.dirofs = 0;
    const size_t n = std::min<size_t>(32768, total - done);
    for (size_t i = 0; i < n; ++i) {
      const int v = std::clamp(int(gauss(rng)), -255, 255);
      s.indices.push_back(weight_to_code(v));
    }
    encode_slice(w, s);
    expected_slice(s, {}, 0, expect);
    done += n;
  }
  const std::vector<uint8_t> bytes = w.finish();
  std::vector<int16_t> out;
  const auto t0 = std::chrono::steady_clock::now();
  const int reps = 20;
  for (int r = 0; r < reps; ++r) decode_stream(bytes.data(), bytes.size(), out);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / reps;
  ASSERT_EQ(out, expect);
  std::printf("decode: %zu weights, %zu bytes in %.0f us (%.2f ns/weight)\n", total, bytes.size(), us,
              us * 1000.0 / double(total));
  RecordProperty("decode_us", std::to_string(us));
}

TEST(WeightReorder, OfmMicroBlockDepthGroupsTheStreamsChannels) {
  // A 1x1 conv of 8 IFM to 8 OFM channels: each group of the stream holds the micro-block's OFM channels x 8 IFM
  // channels, and a 32-channel IFM block gives four groups per micro-block, three of them padding. The U55-32's
  // 4-deep micro-block puts channels 4..7 after the first micro-block's four groups, the others' 8-deep one has
  // all eight in the first group.
  WeightLayout l;
  l.ofm_depth = 8;
  l.ifm_depth = 8;
  l.ofm_block_depth = 8;
  std::vector<int16_t> stream(stream_weight_count(l));
  ASSERT_EQ(stream.size(), 256u);
  for (size_t k = 0; k < stream.size(); ++k) stream[k] = static_cast<int16_t>(k);

  DenseWeights eight;
  prepare(l, eight);
  reorder(l, stream.data(), stream.size(), eight);
  for (int o = 0; o < 8; ++o)
    for (int i = 0; i < 8; ++i) EXPECT_LT(eight.at(o, 0, 0, i), 64) << o << "," << i;

  l.ofm_ublock_depth = 4;
  ASSERT_EQ(stream_weight_count(l), 256u);
  DenseWeights four;
  prepare(l, four);
  reorder(l, stream.data(), stream.size(), four);
  for (int i = 0; i < 8; ++i) {
    for (int o = 0; o < 4; ++o) EXPECT_LT(four.at(o, 0, 0, i), 32) << o << "," << i;
    for (int o = 4; o < 8; ++o) {
      EXPECT_GE(four.at(o, 0, 0, i), 128) << o << "," << i;
      EXPECT_LT(four.at(o, 0, 0, i), 160) << o << "," << i;
    }
  }
  EXPECT_EQ(four.at(4, 0, 0, 0), 128);

  l.ofm_ublock_depth = 2;
  EXPECT_THROW(validate(l), InputError);
}

}  // namespace
}  // namespace ethosu::weights
