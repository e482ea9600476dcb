// The weight decoder's fast loop over the chunks of a compressed slice without zero runs, far from the end of its
// buffer (04-weight-codec.md section 2.3), compiled once per SIMD target (chunk_loop.cpp) and chosen by the caller
// through DecodeScratch::simd_target. Internal to the decoder: weight_decoder.cpp fills the state (the slice's
// table and palette), chunk_loop.cpp holds the six-bit unary tables the loop reads.
//
// Contract: run_chunks(s) decodes whole chunks from bit s.pos while every load stays inside the buffer, the slice
// has a chunk left beyond the previous one, and the carry is small; it returns with the state where the checked
// loop goes on (pending quotients and carry unscaled). Every target writes the same weights; an index beyond the
// palette and 9-bit codes is reported through s.bad_index, which throws.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ethosu::weights {

constexpr unsigned kWeightUnaryBits = 12;
constexpr size_t kMaxChunkSymbols = 12;
// A chunk without zero runs takes at most 12 + 12 unary bits and 12 remainders of 5 bits; with 64 more bits
// left, every 64-bit load in it stays inside the buffer.
constexpr uint64_t kUncheckedChunkBits = 12 + 12 + 12 * 5 + 64;
// Indices that can give a valid code: below 512 + palette size (at most 32) - DIROFS.
constexpr size_t kIndexTableSize = 1024;
constexpr size_t kMaxPaletteSize = 32;
// The quotient buffer's room past the slice's last symbol: a chunk of padding symbols, and the vector lanes' store
// of 16 quotients from a chunk's first symbol (at most n - 1) when they hand them to the checked loop.
constexpr size_t kQuotientSlack = 16;

// A slice's fast loop: inputs, and the position it continues from and returns with.
struct ChunkLoopState {
  const uint8_t* data = nullptr;
  uint64_t size_bits = 0;
  bool truncated_rice = false;  // WTRUNC: every unary code ends a symbol
  const int16_t* weight_of = nullptr;  // [kIndexTableSize]: the weight of each valid index
  const uint16_t* palette = nullptr;   // [kMaxPaletteSize] codes, the first pal_size in use
  uint32_t pal_size = 0, dir_offset = 0;
  uint64_t index_limit = 0;  // indices below it are valid
  unsigned kw = 0;           // WDIV, 0..5
  size_t n = 0;              // the slice's weights
  uint32_t* wq = nullptr;    // quotients, with kQuotientSlack entries of room past n
  int16_t* weights = nullptr;
  // Throws the decoder's error for an index at or beyond index_limit whose remainder starts at bit `pos`.
  void (*bad_index)(const void* decoder, uint64_t index, uint64_t pos) = nullptr;
  const void* decoder = nullptr;

  uint64_t pos = 0;
  size_t wp = 0;
  uint32_t carry = 0;
  size_t prev_begin = 0, prev_end = 0;  // the symbols whose remainders come next
};

// The loop compiled for a Highway target (HWY_AVX2, ...); 0, or a target this build does not hold, gives the
// baseline build's. The caller must pass only targets this CPU runs.
void run_chunks(int64_t simd_target, ChunkLoopState& s);

}  // namespace ethosu::weights
