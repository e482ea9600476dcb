// The content-keyed weight cache: hits by content (not by address), full key compare, failures not
// stored, the memory bound and LRU eviction; and the packed layout a decoder fills in place.
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "models/kernels/weight_cache.h"

namespace ethosu::kernels {
namespace {

ConvWeights make_weights(int16_t fill, int ofm_depth = 4, int ifm_depth = 3) {
  const std::vector<int16_t> dense(static_cast<size_t>(ofm_depth) * ifm_depth, fill);
  return ConvWeights(dense.data(), ofm_depth, 1, 1, ifm_depth);
}

// A make() for the cache that counts the decodes.
std::function<ConvWeights()> counting_make(int& decodes, int16_t fill) {
  return [&decodes, fill] {
    ++decodes;
    return make_weights(fill);
  };
}

TEST(WeightCache, HitsByContentAcrossCopiesAndMissesOnAnyDifference) {
  WeightCache cache;
  int decodes = 0;
  const auto make = counting_make(decodes, 7);
  const std::vector<uint8_t> a = {1, 2, 3, 4}, a_copy = a, b = {1, 2, 3, 5};
  const auto w1 = cache.get({{a.data(), a.size()}}, make);
  const auto w2 = cache.get({{a_copy.data(), a_copy.size()}}, make);
  EXPECT_EQ(w1, w2);
  EXPECT_EQ(decodes, 1);
  cache.get({{b.data(), b.size()}}, make);
  EXPECT_EQ(decodes, 2);
  // The same bytes split differently are another key (the part lengths belong to it).
  cache.get({{a.data(), 2}, {a.data() + 2, 2}}, make);
  EXPECT_EQ(decodes, 3);
  const WeightCache::Stats s = cache.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.entries, 3u);
}

TEST(WeightCache, LongKeysDifferingOutsideTheHashedSamplesAreStillDistinct) {
  // Long key parts are hashed by samples: keys that differ only between the samples share a hash, and the
  // full compare must still tell them apart, at every position of the part.
  WeightCache cache;
  int decodes = 0;
  const auto make = counting_make(decodes, 1);
  std::vector<uint8_t> base(3 * WeightCache::kWholeHashBytes);
  std::iota(base.begin(), base.end(), uint8_t{0});
  cache.get({{base.data(), base.size()}}, make);
  const std::vector<uint8_t> copy = base;
  cache.get({{copy.data(), copy.size()}}, make);
  EXPECT_EQ(decodes, 1);
  int expected = 1;
  for (size_t at = 0; at < base.size(); at += 97) {
    std::vector<uint8_t> other = base;
    other[at] ^= 0x40;
    cache.get({{other.data(), other.size()}}, make);
    EXPECT_EQ(decodes, ++expected) << "byte " << at;
    cache.get({{other.data(), other.size()}}, make);
    EXPECT_EQ(decodes, expected) << "byte " << at;
  }
}

TEST(WeightCache, FailedDecodesAreNotStored) {
  WeightCache cache;
  const std::vector<uint8_t> k = {9};
  EXPECT_THROW(cache.get({{k.data(), k.size()}}, []() -> ConvWeights { throw std::runtime_error("bad stream"); }),
               std::runtime_error);
  EXPECT_EQ(cache.stats().entries, 0u);
  int decodes = 0;
  cache.get({{k.data(), k.size()}}, [&] {
    ++decodes;
    return make_weights(1);
  });
  EXPECT_EQ(decodes, 1);
}

TEST(WeightCache, AdmitOnReuseKeepsFirstUsesOnProbationWithinItsBound) {
  WeightCache cache;
  cache.set_admit_on_reuse(true);
  int decodes = 0;
  const auto make = counting_make(decodes, 3);
  const std::vector<uint8_t> a = {9, 8, 7}, b = {9, 8, 6};
  const auto first = cache.get({{a.data(), a.size()}}, make);
  EXPECT_EQ(cache.stats().entries, 1u);
  EXPECT_EQ(cache.get({{a.data(), a.size()}}, make), first);  // the second use: a hit, promoted
  EXPECT_EQ(decodes, 1);
  // Entries used once leave probation once later first uses fill its bound; promoted ones stay.
  const WeightCache::Stats before = cache.stats();
  const std::vector<uint8_t> big(WeightCache::kProbationBytes / 3, 1);
  for (uint8_t i = 0; i < 6; ++i) {
    std::vector<uint8_t> key = big;
    key[0] = i;
    cache.get({{key.data(), key.size()}}, make);
  }
  const WeightCache::Stats after = cache.stats();
  EXPECT_GT(after.evictions, before.evictions);
  EXPECT_LE(after.bytes - before.bytes, WeightCache::kProbationBytes);
  EXPECT_EQ(cache.get({{a.data(), a.size()}}, make), first);
  cache.get({{b.data(), b.size()}}, make);
  const int decodes_b = decodes;
  std::vector<uint8_t> big0 = big;
  big0[0] = 0;  // the oldest first use, dropped by now
  cache.get({{big0.data(), big0.size()}}, make);
  EXPECT_EQ(decodes, decodes_b + 1);
  // An entry over the probation bound is returned but not kept.
  const std::vector<uint8_t> huge(WeightCache::kProbationBytes + 1, 2);
  const size_t entries = cache.stats().entries;
  cache.get({{huge.data(), huge.size()}}, make);
  EXPECT_EQ(cache.stats().entries, entries);
  // Turned off, the cache keeps first uses in full again.
  cache.set_admit_on_reuse(false);
  cache.get({{huge.data(), huge.size()}}, make);
  EXPECT_EQ(cache.stats().entries, 2u);  // a and the huge key; probation was emptied
}

TEST(WeightCache, EvictsLeastRecentlyUsedWithinTheBound) {
  const size_t entry = make_weights(0).size_bytes() + sizeof(uint64_t) + 1;
  WeightCache cache(2 * entry + entry / 2);  // room for two entries
  const uint8_t keys[3] = {0, 1, 2};
  int decodes = 0;
  auto get = [&](int i) {
    return cache.get({{&keys[i], 1}}, [&] {
      ++decodes;
      return make_weights(static_cast<int16_t>(i));
    });
  };
  get(0);
  get(1);
  get(0);  // 1 is now the least recently used
  get(2);                  // evicts 1
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_LE(cache.stats().bytes, 2 * entry + entry / 2);
  decodes = 0;
  get(0);
  get(2);
  EXPECT_EQ(decodes, 0);
  get(1);
  EXPECT_EQ(decodes, 1);
  // An evicted entry still in use stays valid.
  const auto held = get(0);
  cache.set_capacity_bytes(0);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(held->at(3, 0, 0, 2), 0);
  // With no room, nothing is kept but the weights are returned.
  EXPECT_EQ(get(1)->at(0, 0, 0, 0), 1);
  EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(ConvWeightsPacking, FillingThePackedLayoutEqualsPackingDenseWeights) {
  const int oc = 19, kh = 2, kw = 3, ic = 5;
  std::vector<int16_t> dense(static_cast<size_t>(oc) * kh * kw * ic);
  std::iota(dense.begin(), dense.end(), int16_t{-300});
  const ConvWeights from_dense(dense.data(), oc, kh, kw, ic);
  ConvWeights filled = ConvWeights::unfilled(oc, kh, kw, ic);
  const weights::PackedLayout l = filled.packing();
  for (int o = 0; o < oc; ++o)
    for (int t = 0; t < kh * kw; ++t)
      for (int i = 0; i < ic; ++i)
        l.base[(o / 16) * l.ofm_group_stride + (o % 16) * l.ofm_lane_stride + t * l.tap_stride +
               (i / 2) * l.ifm_pair_stride + i % 2] = dense[(static_cast<size_t>(o) * kh * kw + t) * ic + i];
  filled.seal();
  for (int o = 0; o < oc; ++o)
    for (int y = 0; y < kh; ++y)
      for (int x = 0; x < kw; ++x)
        for (int i = 0; i < ic; ++i) {
          ASSERT_EQ(filled.at(o, y, x, i), from_dense.at(o, y, x, i));
          ASSERT_EQ(filled.at(o, y, x, i), dense[((static_cast<size_t>(o) * kh + y) * kw + x) * ic + i]);
        }
}

TEST(ConvWeightsPacking, UnfilledWeightsHaveZeroPadding) {
  // unfilled() zeroes only what no filler writes: OFM lanes beyond the depth (19 of 32) and, with an odd IFM
  // depth, the last pair's second channel. Freed memory full of 1 bits first makes a missed position likely to
  // show (the allocator tends to hand the same block back).
  const int oc = 19, kh = 2, kw = 3, ic = 5, pairs = (ic + 1) / 2, groups = (oc + 15) / 16;
  const size_t elements = static_cast<size_t>(groups) * kh * kw * pairs * 32;
  { std::vector<int16_t> poison(elements, int16_t{-1}); }
  ConvWeights w = ConvWeights::unfilled(oc, kh, kw, ic);
  const weights::PackedLayout l = w.packing();
  for (int g = 0; g < groups; ++g)
    for (int lane = 0; lane < 16; ++lane)
      for (int t = 0; t < kh * kw; ++t)
        for (int i = 0; i < 2 * pairs; ++i) {
          if (g * 16 + lane < oc && i < ic) continue;
          EXPECT_EQ(l.base[g * l.ofm_group_stride + lane * l.ofm_lane_stride + t * l.tap_stride +
                           (i / 2) * l.ifm_pair_stride + i % 2],
                    0)
              << "OFM " << g * 16 + lane << " tap " << t << " IFM " << i;
        }
}

}  // namespace
}  // namespace ethosu::kernels
