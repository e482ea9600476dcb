// Convolution, depthwise convolution and fully connected (= 1x1 convolution) kernels
// (03-data-semantics.md §3), bit-exact, computed per OFM tile.
//
// Contract: the caller decodes the weights once per operation into dense [ofm_c][ky][kx][ifm_c]
// arrays (ifm_c = 1 for depthwise), packs them once with ConvWeights, then calls conv_tile() /
// depthwise_tile() for any set of OFM tiles (or conv() / depthwise() for the whole OFM). IFM/OFM
// bounds are guaranteed by the caller; output.ofm_type must equal ofm.layout.type. 8-bit IFMs (and int16 with zero point 0) run on int16 SIMD
// micro-kernels with int32 partial sums, or, with int8 weights on a host with 8-bit dot products, on 8-bit ones;
// other cases use an exact int64 loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/kernels/feature_map.h"
#include "models/kernels/gather.h"
#include "models/kernels/microkernel.h"
#include "models/kernels/output_stage.h"
#include "models/kernels/weights/raw_vector.h"
#include "models/kernels/weights/weight_decoder.h"

namespace ethosu::kernels {

struct ConvParams {
  FeatureMap ifm;
  int32_t ifm_zero_point = 0;
  int ifm_depth = 1;  // CONV only; DEPTHWISE reads channel c for OFM channel c
  FeatureMap ofm;
  int ofm_width = 1, ofm_height = 1, ofm_depth = 1;
  KernelGeometry kernel;
  AccFormat acc_format = AccFormat::Int32;
  OutputStage output;
};

// Weights of one operation, packed once for every block. Weights that fit int16 are kept only in the
// packed layouts the kernels read; wider ones (tests) in a dense int32 copy for the exact loops.
class ConvWeights {
 public:
  ConvWeights() = default;
  // `dense` is [ofm_depth][height][width][ifm_depth]; pass ifm_depth = 1 for depthwise.
  ConvWeights(const int32_t* dense, int ofm_depth, int height, int width, int ifm_depth);
  ConvWeights(const int16_t* dense, int ofm_depth, int height, int width, int ifm_depth);

  // Weights to be filled in place through packing() (the weight decoder writes straight into the packed
  // layout), then seal()ed before use. Only the padding is zeroed: the filler must write every weight
  // (o < ofm_depth, tap, i < ifm_depth).
  static ConvWeights unfilled(int ofm_depth, int height, int width, int ifm_depth);
  weights::PackedLayout packing();
  void seal();

  int ofm_depth() const { return ofm_depth_; }
  int height() const { return height_; }
  int width() const { return width_; }
  int ifm_depth() const { return ifm_depth_; }
  int32_t at(int oc, int ky, int kx, int ic) const { return weight(oc, ky * width_ + kx, ic); }
  // Host memory held, for caches.
  size_t size_bytes() const;

  // What the Ethos-U85's weight decoders' rate depends on: the fraction of the weights that are zero and how many
  // distinct values they take (padding not counted). measure() (sealed weights, a pass over them) sets them.
  struct Stats {
    double zero_fraction = 0;
    uint32_t distinct_values = 0;
  };
  void measure();
  const Stats& stats() const { return stats_; }

 private:
  friend struct ConvKernels;
  ConvWeights(int ofm_depth, int height, int width, int ifm_depth);
  template <typename T>
  void pack(const T* dense);
  void pack_bytes();
  int32_t weight(int oc, int tap, int ic) const {
    if (!fits_int16_) return dense_[(static_cast<size_t>(oc) * height_ * width_ + tap) * ifm_depth_ + ic];
    return grouped_[(oc / 16) * group_size() + (static_cast<size_t>(tap) * pairs_ + ic / 2) * 32 + (oc % 16) * 2 +
                    ic % 2];
  }
  size_t group_size() const { return static_cast<size_t>(height_) * width_ * pairs_ * 32; }

  int ofm_depth_ = 0, height_ = 0, width_ = 0, ifm_depth_ = 0;
  std::vector<int32_t> dense_;  // only when some weight does not fit int16
  bool fits_int16_ = false;
  int32_t max_abs_ = 0;
  int pairs_ = 0;  // ceil(ifm_depth / 2)
  // [ofm_c / 16][tap][pair][ofm_c % 16][2], zero-padded to 16 OFM channels and even IFM depth.
  weights::RawVector<int16_t> grouped_;
  // ifm_depth 1 (DEPTHWISE): [tap][channel] (taps of one channel interleaved across channels for vector loads).
  std::vector<int16_t> by_tap_;
  // When every weight fits int8 and this host has 8-bit dot products (sealed under such a level): the same weights
  // as bytes, [ofm_c / 16][tap][quad][ofm_c % 16][4], zero-padded to 16 OFM channels and a multiple of 4 IFM
  // channels, with each OFM channel's sum of weights (padded to 16 channels) for the zero-point correction.
  int quads_ = 0;  // ceil(ifm_depth / 4)
  std::vector<int8_t> bytes_;
  std::vector<int32_t> sums_;
  Stats stats_;
};

// Reusable per-thread buffers, and the SIMD level (tests select lower levels to check them).
struct KernelScratch {
  SimdLevel simd = best_simd_level();
  std::vector<int16_t> ifm16;
  std::vector<int32_t> ifm32;
  std::vector<int32_t> tile32;
  std::vector<int32_t> rows32;  // pooling's row pass: each window row reduced per OFM column
  std::vector<int64_t> tile64;
  std::vector<int32_t> taps;
  std::vector<int64_t> channel_params;  // per-channel output-stage constants of the block
  std::vector<int32_t> values;          // one pixel's output values before the store
  std::vector<uint8_t> bytes;           // raw feature-map bytes
  std::vector<uint8_t> ifm8;            // the 8-bit micro-kernels' IFM window, as unsigned bytes
  std::vector<int32_t> correction;      // the 8-bit micro-kernels' per-channel zero-point correction
};

void conv_tile(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s);
void depthwise_tile(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s);

// Where the kernels' exact sums go (bias not added) in place of the U65's output stage: the U85 has its own
// (u85_kernels.h). Per block, begin() comes first, then tile() and pixel() for every OFM element of the block.
class SumSink {
 public:
  virtual ~SumSink() = default;
  // The block's channels [c0, c1), and the largest |sum| tile() will pass (negative: unknown).
  virtual void begin(int c0, int c1, int64_t sum_bound) = 0;
  // OFM(x0 + i, y, c) for i < np, c in [ca, cb) from sums[i * stride + c - ca]; rows are readable up to
  // round_up_lanes(cb - ca) (the lanes past cb hold anything).
  virtual void tile(int x0, int y, int np, int ca, int cb, const int32_t* sums, ptrdiff_t stride) = 0;
  // OFM(x, y, c) for c in [ca, cb) from sums[c - ca] (reductions that int32 could not hold).
  virtual void pixel(int x, int y, int ca, int cb, const int64_t* sums) = 0;
};

// conv_tile() and depthwise_tile() with `out` as the output stage; p.output and p.acc_format are not read.
void conv_tile(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s, SumSink& out);
void depthwise_tile(const ConvParams& p, const ConvWeights& w, const OfmTile& b, KernelScratch& s, SumSink& out);
void conv(const ConvParams& p, const ConvWeights& w);
void depthwise(const ConvParams& p, const ConvWeights& w);

}  // namespace ethosu::kernels
