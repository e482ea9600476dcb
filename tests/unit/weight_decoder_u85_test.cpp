// Ethos-U85 weight decoding: the orders pinned by hand on small cases, random layouts of every configuration
// against the test's own restatement of the order (weight_encoder_u85.h), the FWD bitstream in each mode, SWD
// streams per decoder, malformed streams and layouts. (The decode speed is in tests/bench/kernels_bench.cpp.)
#include "models/kernels/weights/weight_decoder_u85.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include "sim/error.h"
#include "tests/unit/weight_encoder.h"
#include "tests/unit/weight_encoder_u85.h"

namespace ethosu::weights::u85 {
namespace {

using test::encode_fwd;
using test::encode_swd;
using test::reference_order;
using test::stream_values;

// The configurations (Vela 5.1 s_EthosU85Configs): MACs, weight decoders, micro-block depths.
struct Config {
  int macs, decoders;
  std::vector<int> ublock_depths;
};
const std::vector<Config> kConfigs = {
    {128, 1, {8, 16}}, {256, 1, {16, 8}}, {512, 2, {16}}, {1024, 4, {32, 16}}, {2048, 4, {64, 16}}};

std::vector<int16_t> random_dense(std::mt19937& rng, const Layout& l) {
  const int depth = l.kind == OpKind::DEPTHWISE ? 1 : l.ifm_depth;
  std::vector<int16_t> dense(size_t(l.ofm_depth) * l.kernel_height * l.kernel_width * depth);
  // FWD's raw bytes hold a range of 256 values (its zero adjust moves the range); SWD holds -255..255.
  const int lo = l.format == WeightFormat::FWD ? int(rng() % 256) - 255 : -255;
  const int span = l.format == WeightFormat::FWD ? 256 : 511;
  for (auto& v : dense) v = int16_t(lo + int(rng() % unsigned(span)));
  if (l.sparse) {
    // 2:4: in every four IFM channels from a multiple of 4, two (or fewer) are nonzero, within -127..127.
    for (size_t k = 0; k < dense.size(); k += size_t(depth))
      for (int quad = 0; quad < depth; quad += 4) {
        const int keep0 = int(rng() % 4), keep1 = int(rng() % 4);
        for (int i = quad; i < std::min(depth, quad + 4); ++i)
          dense[k + size_t(i)] =
              (i - quad == keep0 || i - quad == keep1) ? int16_t(int(rng() % 255) - 127) : int16_t{0};
      }
  }
  return dense;
}

Layout random_layout(std::mt19937& rng, int max_depth, int max_kernel) {
  const Config& c = kConfigs[rng() % kConfigs.size()];
  Layout l;
  l.macs = c.macs;
  l.weight_decoders = c.decoders;
  l.ofm_ublock_depth = c.ublock_depths[rng() % c.ublock_depths.size()];
  l.kind = OpKind(rng() % 3);
  l.ofm_depth = 1 + int(rng() % unsigned(max_depth));
  l.ifm_depth = 1 + int(rng() % unsigned(max_depth));
  const bool fc = l.kind == OpKind::FULLY_CONNECTED;
  l.kernel_height = fc ? 1 : 1 + int(rng() % unsigned(max_kernel));
  l.kernel_width = fc ? 1 : 1 + int(rng() % unsigned(max_kernel));
  l.dilation_y = 1 + int(rng() % 2);
  l.dilation_x = 1 + int(rng() % 2);
  l.stride_y = 1 + int(rng() % 4);
  l.stride_x = 1 + int(rng() % 4);
  l.ofm_block_depth = l.ofm_ublock_depth * (1 + int(rng() % 4));
  l.part_kernel_first = rng() % 2;
  const int bits[] = {8, 16, 32};
  l.ifm_bits = bits[rng() % 3];
  const bool conv = l.kind != OpKind::DEPTHWISE;
  l.sparse = conv && rng() % 4 == 0;
  l.format = conv && rng() % 2 ? WeightFormat::FWD : WeightFormat::SWD;
  return l;
}

std::string describe(const Layout& l) {
  return "kind " + std::to_string(int(l.kind)) + " OFM " + std::to_string(l.ofm_depth) + " IFM " +
         std::to_string(l.ifm_depth) + " kernel " + std::to_string(l.kernel_height) + "x" +
         std::to_string(l.kernel_width) + " dil " + std::to_string(l.dilation_y) + "," + std::to_string(l.dilation_x) +
         " stride " + std::to_string(l.stride_y) + "," + std::to_string(l.stride_x) + " OBD " +
         std::to_string(l.ofm_block_depth) + (l.part_kernel_first ? " PK" : " DF") + " ifm_bits " +
         std::to_string(l.ifm_bits) + " U " + std::to_string(l.ofm_ublock_depth) + " MACs " + std::to_string(l.macs) +
         (l.sparse ? " sparse" : "") + (l.format == WeightFormat::FWD ? " FWD" : " SWD");
}

// The dense weights position k of stream `stream` lands in after reorder() of the values 0, 1, 2, ... (a weight's
// value then names its stream position; positions beyond 255 repeat, so the tests below stay small).
DenseWeights positions(const Layout& l, int stream) {
  std::vector<int16_t> v(stream_weight_count(l));
  for (size_t k = 0; k < v.size(); ++k) v[k] = int16_t(k);
  DenseWeights d;
  prepare(l, d);
  reorder(l, stream, v.data(), v.size(), d);
  return d;
}

// --- the order, pinned by hand -----------------------------------------------------------------

TEST(U85Order, DepthwiseTapsAreSerpentineAndPaddedToTen) {
  // U85-128, 1x1x16 micro-block: per tap the 16 channels as four groups of 4; taps by row, the second row right to
  // left; 9 taps padded to 10.
  Layout l;
  l.kind = OpKind::DEPTHWISE;
  l.macs = 128;
  l.ofm_ublock_depth = 16;
  l.ofm_depth = 16;
  l.ofm_block_depth = 16;
  l.kernel_height = l.kernel_width = 3;
  ASSERT_EQ(stream_weight_count(l), 160u);
  const DenseWeights d = positions(l, 0);
  const int taps[9][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 2}, {1, 1}, {1, 0}, {2, 0}, {2, 1}, {2, 2}};
  for (int t = 0; t < 9; ++t)
    for (int o = 0; o < 16; ++o) EXPECT_EQ(d.at(o, taps[t][0], taps[t][1], 0), 16 * t + o) << t << "," << o;
}

TEST(U85Order, DepthwiseStridePhasesAndPaddingPerConfiguration) {
  // Stride 2: the taps by phase (even rows and columns first), serpentine within each phase. U85-1024 with 4
  // decoders: each decoder holds one group of 4 channels per tap, and 6 taps of padding (4 x 6 values) follow
  // every 10 taps; its 9 taps are padded by 1 + 6.
  Layout l;
  l.kind = OpKind::DEPTHWISE;
  l.macs = 1024;
  l.weight_decoders = 4;
  l.ofm_ublock_depth = 16;
  l.ofm_depth = 16;
  l.ofm_block_depth = 16;
  l.kernel_height = l.kernel_width = 3;
  l.stride_y = l.stride_x = 2;
  ASSERT_EQ(stream_weight_count(l), size_t(9 * 4 + 7 * 4));
  const int taps[9][2] = {{0, 0}, {0, 2}, {2, 2}, {2, 0}, {0, 1}, {2, 1}, {1, 0}, {1, 2}, {1, 1}};
  for (int s = 0; s < 4; ++s) {
    const DenseWeights d = positions(l, s);
    for (int t = 0; t < 9; ++t)
      for (int oi = 0; oi < 4; ++oi)
        EXPECT_EQ(d.at(4 * s + oi, taps[t][0], taps[t][1], 0), 4 * t + oi) << s << "," << t;
  }
  l.macs = 512;  // 2 taps of padding, the stream's share: 8 channels per tap
  l.weight_decoders = 2;
  EXPECT_EQ(stream_weight_count(l), size_t(9 * 8 + 3 * 8));
  l.macs = 256;  // 8-bit IFM on 256 MACs or fewer: none
  l.weight_decoders = 1;
  EXPECT_EQ(stream_weight_count(l), size_t(10 * 16));
  l.ifm_bits = 16;  // 16-bit IFM: 2
  EXPECT_EQ(stream_weight_count(l), size_t(12 * 16));
}

TEST(U85Order, PartKernelFirstGroupsAndTapRound) {
  // U85-256, 2x2x8 micro-block, part-kernel-first 3x3, 16 IFM channels: IFM block 16 taken whole per tap as two
  // groups of 4 OFM x 8 IFM per 4 OFM channels; 9 taps padded to 10 (5 for 8-bit IFM); the second micro-block after
  // the first one's padding. This is the FWD stream of corpus-u85 conv2d_3x3_s1_same_u8 on U85-256 (2592 bytes).
  Layout l;
  l.macs = 256;
  l.ofm_ublock_depth = 8;
  l.ofm_depth = 16;
  l.ofm_block_depth = 16;
  l.ifm_depth = 16;
  l.kernel_height = l.kernel_width = 3;
  l.part_kernel_first = true;
  l.format = WeightFormat::FWD;
  EXPECT_EQ(ifm_block_depth(l), 16);
  ASSERT_EQ(stream_weight_count(l), size_t(2 * 10 * 16 * 8));
  EXPECT_EQ(fwd_stream_bytes(FwdMode::RAW, stream_weight_count(l)), 2592u);
  std::vector<int16_t> v(stream_weight_count(l));
  for (size_t k = 0; k < v.size(); ++k) v[k] = int16_t(k % 4096);
  DenseWeights d;
  prepare(l, d);
  reorder(l, 0, v.data(), v.size(), d);
  // Tap (0, 0): positions [0, 128): IFM 0..7 of OFM 0..3, then of 4..7, then IFM 8..15 of 0..3 and 4..7.
  EXPECT_EQ(d.at(0, 0, 0, 0), 0);
  EXPECT_EQ(d.at(0, 0, 0, 7), 7);
  EXPECT_EQ(d.at(1, 0, 0, 0), 8);
  EXPECT_EQ(d.at(4, 0, 0, 0), 32);
  EXPECT_EQ(d.at(0, 0, 0, 8), 64);
  EXPECT_EQ(d.at(7, 0, 0, 15), 127);
  EXPECT_EQ(d.at(0, 1, 2, 0), 3 * 128);  // the fourth tap: row 1 runs right to left
  EXPECT_EQ(d.at(8, 0, 0, 0), 1280);     // the second micro-block after 10 taps
}

TEST(U85Order, DepthFirstIfmBlocksRunBackwardsInOddOfmBlocks) {
  // U85-512 (2 decoders, 2x2x16): depth-first 1x1, IFM 80 in blocks of 64; OFM blocks of 16, one micro-block
  // each. Decoder 0 holds channels 0..3 and 8..11 of each micro-block. The second OFM block takes IFM block 1
  // (channels 64..79, padded to 128) first.
  Layout l;
  l.macs = 512;
  l.weight_decoders = 2;
  l.ofm_ublock_depth = 16;
  l.ofm_depth = 32;
  l.ofm_block_depth = 16;
  l.ifm_depth = 80;
  EXPECT_EQ(ifm_block_depth(l), 64);
  const size_t per_block = 64 / 8 * 2 * 32;  // IFM steps x groups x values
  ASSERT_EQ(stream_weight_count(l), 2 * 2 * per_block);
  const DenseWeights d0 = positions(l, 0), d1 = positions(l, 1);
  EXPECT_EQ(d0.at(0, 0, 0, 0), 0);
  EXPECT_EQ(d0.at(8, 0, 0, 0), 32);
  EXPECT_EQ(d1.at(4, 0, 0, 0), 0);
  EXPECT_EQ(d1.at(12, 0, 0, 1), 33);
  EXPECT_EQ(d0.at(0, 0, 0, 64), int16_t(per_block));
  EXPECT_EQ(d0.at(16, 0, 0, 64), int16_t(2 * per_block));  // OFM block 1 starts with IFM block 1
  EXPECT_EQ(d0.at(16, 0, 0, 0), int16_t(3 * per_block % 65536));
}

TEST(U85Order, IfmBlockDepthFollowsVelasRule) {
  Layout l;
  l.macs = 256;
  l.ofm_ublock_depth = 8;
  EXPECT_EQ(ifm_block_depth(l), 64);
  l.ofm_ublock_depth = 16;  // 1x2x16 on 256 MACs
  EXPECT_EQ(ifm_block_depth(l), 32);
  l.sparse = true;
  EXPECT_EQ(ifm_block_depth(l), 128);
  l.ifm_bits = 16;
  EXPECT_EQ(ifm_block_depth(l), 64);
  l.ifm_bits = 32;
  EXPECT_EQ(ifm_block_depth(l), 32);
  l.part_kernel_first = true;
  EXPECT_EQ(ifm_block_depth(l), 16);
  l.macs = 1024;
  l.ofm_ublock_depth = 16;
  l.part_kernel_first = false;
  l.ifm_bits = 8;
  l.sparse = false;
  EXPECT_EQ(ifm_block_depth(l), 64);
}

// --- random layouts against the test's order -----------------------------------------------------

TEST(U85Order, RandomLayoutsMatchTheReferenceOrder) {
  std::mt19937 rng(85);
  for (int t = 0; t < 600; ++t) {
    const Layout l = random_layout(rng, 80, 11);
    SCOPED_TRACE(describe(l));
    const std::vector<int16_t> original = random_dense(rng, l);
    const auto streams = stream_values(l, original);
    ASSERT_EQ(int(streams.size()), stream_count(l));
    DenseWeights dense;
    prepare(l, dense);
    for (size_t s = 0; s < streams.size(); ++s) {
      ASSERT_EQ(streams[s].size(), stream_weight_count(l)) << "stream " << s;
      reorder(l, int(s), streams[s].data(), streams[s].size(), dense);
    }
    ASSERT_EQ(dense.values, original);
  }
}

TEST(U85Order, EveryStreamPositionIsAWeightOrPadding) {
  // Each weight appears once over the decoders' orders; the rest is padding (zeros in every stream).
  std::mt19937 rng(7);
  for (int t = 0; t < 200; ++t) {
    Layout l = random_layout(rng, 40, 9);
    SCOPED_TRACE(describe(l));
    const int depth = l.kind == OpKind::DEPTHWISE ? 1 : l.ifm_depth;
    std::vector<int> seen(size_t(l.ofm_depth) * l.kernel_height * l.kernel_width * depth, 0);
    for (int s = 0; s < l.weight_decoders; ++s)
      for (long k : reference_order(l, s))
        if (k >= 0) ++seen[size_t(k)];
    ASSERT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  }
}

// --- whole streams ---------------------------------------------------------------------------------

Streams spans(const std::vector<std::vector<uint8_t>>& bytes) {
  Streams s{};
  for (size_t k = 0; k < bytes.size(); ++k) s[k] = {bytes[k].data(), bytes[k].size()};
  return s;
}

std::vector<std::vector<uint8_t>> encode(const Layout& l, const std::vector<int16_t>& dense, std::mt19937& rng,
                                         FwdMode mode = FwdMode::RAW) {
  std::vector<std::vector<uint8_t>> bytes;
  for (const auto& values : stream_values(l, dense))
    bytes.push_back(l.format == WeightFormat::FWD ? encode_fwd(values, mode) : encode_swd(values, rng));
  return bytes;
}

TEST(U85Decode, RandomLayoutsRoundTripThroughBothFormats) {
  std::mt19937 rng(3);
  for (int t = 0; t < 300; ++t) {
    const Layout l = random_layout(rng, 48, 7);
    SCOPED_TRACE(describe(l));
    const std::vector<int16_t> original = random_dense(rng, l);
    const auto bytes = encode(l, original, rng);
    DenseWeights dense;
    decode_weights(l, spans(bytes), dense);
    ASSERT_EQ(dense.values, original);
  }
}

TEST(U85Decode, FwdModesAndZeroAdjust) {
  // A conv on U85-512: two decoders' orders interleaved in the one FWD stream, in each payload mode. RAW with
  // weights beyond int8 (a uint8 model's weights minus zero point) needs the zero adjust, either way.
  std::mt19937 rng(11);
  Layout l;
  l.macs = 512;
  l.weight_decoders = 2;
  l.ofm_ublock_depth = 16;
  l.ofm_depth = 40;
  l.ofm_block_depth = 32;
  l.ifm_depth = 37;
  l.kernel_height = 3;
  l.kernel_width = 2;
  l.part_kernel_first = true;
  l.format = WeightFormat::FWD;
  const size_t n = size_t(40 * 3 * 2 * 37);
  const auto check = [&](FwdMode mode, const std::vector<int16_t>& original) {
    SCOPED_TRACE("mode " + std::to_string(int(mode)));
    const auto values = stream_values(l, original);
    const std::vector<uint8_t> bytes = encode_fwd(values[0], mode);
    EXPECT_EQ(decode_fwd_header(bytes.data(), bytes.size()).mode, mode);
    EXPECT_EQ(bytes.size(), fwd_stream_bytes(mode, stream_weight_count(l)));
    std::vector<int16_t> decoded;
    decode_fwd(bytes.data(), bytes.size(), values[0].size(), decoded);
    EXPECT_EQ(decoded, values[0]);
    DenseWeights dense;
    decode_weights(l, spans({bytes}), dense);
    EXPECT_EQ(dense.values, original);
  };
  const std::pair<FwdMode, std::vector<int>> tables[] = {
      {FwdMode::LUT2, {0, -7, 200, -255}},
      {FwdMode::LUT4, {0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, 255, -255}}};
  for (const auto& [mode, table] : tables) {
    std::vector<int16_t> original(n);
    for (auto& v : original) v = int16_t(table[rng() % table.size()]);
    check(mode, original);
  }
  for (const auto& [lo, hi] : {std::pair{-200, 50}, std::pair{-50, 200}, std::pair{-128, 127}}) {
    std::vector<int16_t> original(n);
    for (auto& v : original) v = int16_t(lo + int(rng() % unsigned(hi - lo + 1)));
    original[0] = int16_t(lo), original[1] = int16_t(hi);
    check(FwdMode::RAW, original);
  }
}

TEST(U85Decode, PackedIntoTheConvKernelsLayoutEqualsDense) {
  // The conv kernels' packed layout (pair-interleaved groups of 16 OFM channels): decode_packed() writes every
  // weight where the dense decode puts it.
  std::mt19937 rng(5);
  for (int t = 0; t < 100; ++t) {
    const Layout l = random_layout(rng, 40, 5);
    SCOPED_TRACE(describe(l));
    const std::vector<int16_t> original = random_dense(rng, l);
    const auto bytes = encode(l, original, rng);
    const int depth = l.kind == OpKind::DEPTHWISE ? 1 : l.ifm_depth;
    const int taps = l.kernel_height * l.kernel_width, pairs = (depth + 1) / 2;
    const size_t group = size_t(taps) * pairs * 32;
    std::vector<int16_t> packed(size_t((l.ofm_depth + 15) / 16) * group, -1000);
    PackedLayout p;
    p.base = packed.data();
    p.ofm_group_stride = group;
    p.ofm_lane_stride = 2;
    p.tap_stride = size_t(pairs) * 32;
    p.ifm_pair_stride = 32;
    DecodeScratch scratch;
    decode_packed(l, spans(bytes), p, scratch);
    for (int o = 0; o < l.ofm_depth; ++o)
      for (int tap = 0; tap < taps; ++tap)
        for (int i = 0; i < depth; ++i)
          ASSERT_EQ(packed[size_t(o / 16) * group + size_t(tap) * p.tap_stride + size_t(i / 2) * 32 +
                           size_t(o % 16) * 2 + size_t(i % 2)],
                    original[(size_t(o) * taps + size_t(tap)) * size_t(depth) + size_t(i)])
              << o << "," << tap << "," << i;
  }
}

// --- errors ----------------------------------------------------------------------------------------

std::string error_of(const Layout& l, const std::vector<std::vector<uint8_t>>& bytes) {
  try {
    DenseWeights dense;
    decode_weights(l, spans(bytes), dense);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

Layout conv_1024() {
  Layout l;
  l.macs = 1024;
  l.weight_decoders = 4;
  l.ofm_ublock_depth = 32;
  l.ofm_depth = 20;
  l.ofm_block_depth = 32;
  l.ifm_depth = 24;
  l.part_kernel_first = true;
  return l;
}

TEST(U85DecodeErrors, SwdStreamsAreNamedByTheirRegister) {
  std::mt19937 rng(1);
  const Layout l = conv_1024();
  const std::vector<int16_t> original = random_dense(rng, l);
  auto bytes = encode(l, original, rng);
  ASSERT_EQ(error_of(l, bytes), "no error");
  const size_t count = stream_weight_count(l);
  // Decoder 2's stream one weight short, one weight long, cut, without its end marker, reserved ZDIV.
  const auto with_stream2 = [&](std::vector<uint8_t> b) {
    auto all = bytes;
    all[2] = std::move(b);
    return error_of(l, all);
  };
  std::vector<int16_t> v = stream_values(l, original)[2];
  v.pop_back();
  EXPECT_EQ(with_stream2(encode_swd(v, rng)), "WEIGHT2: the stream holds " + std::to_string(count - 1) +
                                                  " weights; the layout consumes " + std::to_string(count));
  v.push_back(0);
  v.push_back(0);
  EXPECT_NE(with_stream2(encode_swd(v, rng)).find("WEIGHT2: weight stream: byte"), std::string::npos);
  EXPECT_NE(
      with_stream2(std::vector<uint8_t>(bytes[2].begin(), bytes[2].begin() + 5)).find("WEIGHT2: weight stream: byte"),
      std::string::npos);
  EXPECT_NE(with_stream2({}).find("WEIGHT2: weight stream: byte 0 bit 0: missing end-of-stream"), std::string::npos);
  EXPECT_NE(with_stream2({0x04, 0xFF}).find("WEIGHT2: weight stream: byte 0 bit 0: reserved ZDIV value 4"),
            std::string::npos);
  // An unused decoder's stream is not read.
  auto fewer = bytes;
  Layout one = l;
  one.macs = 256;
  one.weight_decoders = 1;
  one.ofm_ublock_depth = 8;
  one.ofm_block_depth = 8;
  fewer = encode(one, original, rng);
  fewer.push_back({0x04});
  EXPECT_EQ(error_of(one, fewer), "no error");
}

TEST(U85DecodeErrors, FwdHeaderAndLength) {
  Layout l = conv_1024();
  l.format = WeightFormat::FWD;
  std::mt19937 rng(2);
  const std::vector<int16_t> original = random_dense(rng, l);
  const std::vector<int16_t> values = stream_values(l, original)[0];
  const std::vector<uint8_t> good = encode_fwd(values, FwdMode::RAW);
  ASSERT_EQ(error_of(l, {good}), "no error");
  const size_t count = stream_weight_count(l);
  EXPECT_EQ(error_of(l, {std::vector<uint8_t>(good.begin(), good.begin() + 31)}),
            "WEIGHT: the FWD stream has 31 bytes, less than its 32-byte header");
  // One byte of payload short; 32 bytes beyond the padding.
  const std::string want = "WEIGHT: the FWD stream has ";
  const std::string take =
      " bytes; the layout's " + std::to_string(count) + " weights take " + std::to_string(32 + count);
  EXPECT_EQ(error_of(l, {std::vector<uint8_t>(good.begin(), good.begin() + long(32 + count - 1))})
                .rfind(want + std::to_string(32 + count - 1) + take, 0),
            0u);
  auto longer = good;
  longer.resize(good.size() + 32);
  EXPECT_EQ(error_of(l, {longer}).rfind(want + std::to_string(longer.size()) + take, 0), 0u);
  auto both = good;
  both[0] |= 3;
  EXPECT_EQ(error_of(l, {both}), "WEIGHT: FWD header byte 0: both raw mode and the small table are set");
  EXPECT_EQ(error_of(l, {encode_fwd(values, FwdMode::RAW, 1u << 20)}),
            "WEIGHT: FWD header byte 2: reserved bits 2..103 are not zero");
  EXPECT_EQ(error_of(l, {std::vector<uint8_t>{}}), "WEIGHT: the FWD stream has 0 bytes, less than its 32-byte header");
}

TEST(U85DecodeErrors, SparseWeightsBreakingTheirPattern) {
  std::mt19937 rng(4);
  Layout l = conv_1024();
  l.sparse = true;
  l.kernel_height = l.kernel_width = 2;
  for (const WeightFormat f : {WeightFormat::SWD, WeightFormat::FWD}) {
    l.format = f;
    std::vector<int16_t> original = random_dense(rng, l);
    ASSERT_EQ(error_of(l, encode(l, original, rng)), "no error");
    // OFM channel 5, tap (1, 0), IFM channels 4..7: three nonzero weights.
    const auto at = [&](int o, int y, int x, int i) -> int16_t& {
      return original[((size_t(o) * 2 + size_t(y)) * 2 + size_t(x)) * 24 + size_t(i)];
    };
    for (int i = 4; i < 7; ++i) at(5, 1, 0, i) = 9;
    at(5, 1, 0, 7) = 0;
    const std::string e = error_of(l, encode(l, original, rng));
    EXPECT_NE(e.find("2:4-sparse weights of OFM channel 5, tap (1, 0), IFM channels 4..7 hold 3 nonzero weights"),
              std::string::npos)
        << e;
    at(5, 1, 0, 5) = 0;
    at(5, 1, 0, 4) = 128;
    EXPECT_NE(error_of(l, encode(l, original, rng)).find("hold a weight beyond -127..127"), std::string::npos);
  }
}

TEST(U85DecodeErrors, UnsupportedLayouts) {
  const auto message = [](const Layout& l) {
    try {
      validate(l);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const Layout good = conv_1024();
  EXPECT_EQ(message(good), "no error");
  const auto with = [&](auto change) {
    Layout l = good;
    change(l);
    return message(l);
  };
  EXPECT_NE(with([](Layout& l) { l.kind = OpKind::DEPTHWISE, l.format = WeightFormat::FWD; }).find("FWD"),
            std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.kind = OpKind::DEPTHWISE, l.sparse = true; }).find("2:4 sparsity"),
            std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.ofm_block_depth = 48; }).find("not a multiple of the micro-block depth 32"),
            std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.ofm_ublock_depth = 128; }).find("micro-block depth 128 is not one of 1024 MACs"),
            std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.ofm_ublock_depth = 4; }).find("micro-block depth 4"), std::string::npos);
  EXPECT_NE(with([](Layout& l) {
              l.macs = 256, l.ofm_ublock_depth = 8, l.ofm_block_depth = 8;
            }).find("4-channel groups for 4"),
            std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.macs = 64; }).find("MACs 64"), std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.weight_decoders = 3; }).find("decoders"), std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.stride_x = 5; }).find("stride"), std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.dilation_y = 4; }).find("dilation"), std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.ifm_bits = 64; }).find("IFM precision"), std::string::npos);
  EXPECT_NE(with([](Layout& l) { l.kernel_width = 0; }).find("positive"), std::string::npos);
  // The largest layout the registers describe is refused before any work (the decoder's cap per stream).
  Layout huge = good;
  huge.ofm_depth = huge.ifm_depth = huge.kernel_height = huge.kernel_width = 65536;
  EXPECT_THROW(stream_weight_count(huge), InputError);
  try {
    DenseWeights dense;
    decode_weights(huge, Streams{}, dense);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than " + std::to_string(kDefaultMaxWeights) + " weights"),
              std::string::npos);
  }
}

TEST(U85DecodeErrors, TruncationsAndGarbageNeverCrash) {
  // Every cut of each stream throws or (for the cut padding alone) decodes the same; random bytes throw or decode,
  // reading only their own bytes.
  std::mt19937 rng(9);
  for (const WeightFormat f : {WeightFormat::SWD, WeightFormat::FWD}) {
    Layout l = conv_1024();
    l.format = f;
    l.kernel_height = 3;
    const std::vector<int16_t> original = random_dense(rng, l);
    const auto bytes = encode(l, original, rng);
    for (size_t s = 0; s < bytes.size(); ++s) {
      for (size_t cut = 0; cut < bytes[s].size(); ++cut) {
        auto all = bytes;
        const std::unique_ptr<uint8_t[]> part(new uint8_t[cut ? cut : 1]);
        std::copy_n(bytes[s].begin(), cut, part.get());
        Streams st = spans(all);
        st[s] = {part.get(), cut};
        DenseWeights dense;
        try {
          decode_weights(l, st, dense);
          ASSERT_EQ(dense.values, original) << "cut " << cut;
        } catch (const InputError&) {
        }
      }
    }
    for (int t = 0; t < 300; ++t) {
      auto all = bytes;
      for (auto& b : all) {
        b.resize(rng() % (2 * b.size() + 1));
        for (auto& x : b) x = uint8_t(rng());
        if (f == WeightFormat::FWD && b.size() > 1)
          b[0] &= 0xFC, std::fill(b.begin() + 1, b.begin() + long(std::min<size_t>(b.size(), 13)), 0);
      }
      DenseWeights dense;
      try {
        decode_weights(l, spans(all), dense);
      } catch (const InputError&) {
      }
    }
  }
}

}  // namespace
}  // namespace ethosu::weights::u85
