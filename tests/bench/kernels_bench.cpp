// Throughput of the bit-exact kernels on MobileNetV2-224 / common layer shapes, single thread: conv and
// depthwise in MAC/s next to the host's int8 multiply-accumulate peak (a register-resident dot-product loop
// with the best instruction set available); the weight decoder in compressed bytes/s and weights/s
// (stream decode, and decode straight into the conv kernel's packed layout, for the U65 and the U85's formats and
// decoders); elementwise and pooling in OFM bytes/s. The label names the Highway target the SIMD loops dispatched to.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/kernels/conv.h"
#include "models/kernels/elementwise.h"
#include "models/kernels/pool.h"
#include "models/kernels/simd_loops.h"
#include "models/kernels/weights/weight_decoder.h"
#include "models/kernels/weights/weight_decoder_u85.h"
#include "tests/unit/weight_encoder.h"
#include "tests/unit/weight_encoder_u85.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ethosu::kernels {
namespace {

struct Map {
  std::vector<uint8_t> bytes;
  FeatureMap fm;
  Map(int w, int h, int c, DataType t) {
    fm.layout.type = t;
    fm.layout.layout = Layout::NHWC;
    const int es = element_size_bytes(t);
    fm.layout.width0 = w, fm.layout.height0 = fm.layout.height1 = h;
    fm.layout.stride_c = es, fm.layout.stride_x = int64_t{c} * es, fm.layout.stride_y = int64_t{w} * c * es;
    bytes.resize(static_cast<size_t>(h) * w * c * es);
    std::mt19937 rng(1);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    fm.region = bytes.data();
  }
};

struct Shape {
  int ifm_w, ifm_h, ic, oc, k, stride, pad;  // square kernels; SAME-style padding `pad`
  bool depthwise;
  int weight_max = 127;  // int8 weights (an int8 model's; the 8-bit micro-kernels where the host has them), or 9-bit
};

void run_conv(benchmark::State& state, Shape sh) {
  const int ow = (sh.ifm_w + 2 * sh.pad - sh.k) / sh.stride + 1;
  const int oh = (sh.ifm_h + 2 * sh.pad - sh.k) / sh.stride + 1;
  const int ic = sh.depthwise ? sh.oc : sh.ic;
  Map ifm(sh.ifm_w, sh.ifm_h, ic, DataType::Int8), ofm(ow, oh, sh.oc, DataType::Int8);
  const int wic = sh.depthwise ? 1 : ic;
  std::vector<int16_t> w(static_cast<size_t>(sh.oc) * sh.k * sh.k * wic);
  std::mt19937 rng(2);
  for (auto& v : w)
    v = static_cast<int16_t>(static_cast<int>(rng() % static_cast<unsigned>(2 * sh.weight_max + 1)) - sh.weight_max);
  std::vector<ScaleBias> sb(static_cast<size_t>(sh.oc), ScaleBias{1234, 1518500250u, 38});
  ConvParams p;
  p.ifm = ifm.fm, p.ifm_zero_point = -3, p.ifm_depth = ic;
  p.ofm = ofm.fm, p.ofm_width = ow, p.ofm_height = oh, p.ofm_depth = sh.oc;
  p.kernel.width = p.kernel.height = sh.k;
  p.kernel.stride_x = p.kernel.stride_y = sh.stride;
  // Vela's SAME padding puts the extra row/column at the end.
  p.kernel.pad_left = p.kernel.pad_top = sh.pad;
  p.kernel.pad_right = (ow - 1) * sh.stride + sh.k - sh.ifm_w - sh.pad;
  p.kernel.pad_bottom = (oh - 1) * sh.stride + sh.k - sh.ifm_h - sh.pad;
  p.output.ofm_type = DataType::Int8;
  p.output.channels = sb.data();
  const ConvWeights cw(w.data(), sh.oc, sh.k, sh.k, wic);
  KernelScratch s;
  const OfmTile whole{0, ow, 0, oh, 0, sh.oc};
  for (auto _ : state) {
    if (sh.depthwise)
      depthwise_tile(p, cw, whole, s);
    else
      conv_tile(p, cw, whole, s);
    benchmark::DoNotOptimize(ofm.bytes.data());
  }
  const double macs = double(ow) * oh * sh.oc * sh.k * sh.k * wic;
  state.counters["MAC/s"] = benchmark::Counter(macs, benchmark::Counter::kIsIterationInvariantRate);
  const bool bytes = !sh.depthwise && sh.weight_max <= 127 && micro_kernels_8bit(best_simd_level());
  state.SetLabel(std::string(simd_target_name()) + (bytes ? ", 8-bit micro-kernels" : ""));
}

// 1x1 expansion 56x56x24 -> 144
BENCHMARK_CAPTURE(run_conv, mnv2_expand_1x1_56x56x24_144, Shape{56, 56, 24, 144, 1, 1, 0, false})->Unit(benchmark::kMillisecond);
// 1x1 projection 28x28x192 -> 32
BENCHMARK_CAPTURE(run_conv, mnv2_project_1x1_28x28x192_32, Shape{28, 28, 192, 32, 1, 1, 0, false})->Unit(benchmark::kMillisecond);
// first layer 3x3 s2 224x224x3 -> 32
BENCHMARK_CAPTURE(run_conv, mnv2_first_3x3s2_224x224x3_32, Shape{224, 224, 3, 32, 3, 2, 0, false})->Unit(benchmark::kMillisecond);
// depthwise 3x3 56x56x144, stride 1 and 2
BENCHMARK_CAPTURE(run_conv, mnv2_dw_3x3s1_56x56x144, Shape{56, 56, 0, 144, 3, 1, 1, true})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run_conv, mnv2_dw_3x3s2_56x56x144, Shape{56, 56, 0, 144, 3, 2, 0, true})->Unit(benchmark::kMillisecond);
// FC 1280 -> 1001 (MobileNetV2 classifier) and 1024 -> 1000
BENCHMARK_CAPTURE(run_conv, mnv2_fc_1280_1001, Shape{1, 1, 1280, 1001, 1, 1, 0, false})->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run_conv, fc_1024_1000, Shape{1, 1, 1024, 1000, 1, 1, 0, false})->Unit(benchmark::kMicrosecond);
// Generic shapes of the brief
BENCHMARK_CAPTURE(run_conv, conv_1x1_112x112x32_64, Shape{112, 112, 32, 64, 1, 1, 0, false})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run_conv, conv_3x3_56x56x64_64, Shape{56, 56, 64, 64, 3, 1, 1, false})->Unit(benchmark::kMillisecond);
// The same two with 9-bit weights (a uint8 model's, weight minus zero point): the int16 micro-kernels.
BENCHMARK_CAPTURE(run_conv, conv_1x1_112x112x32_64_9bit, Shape{112, 112, 32, 64, 1, 1, 0, false, 255})
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run_conv, conv_3x3_56x56x64_64_9bit, Shape{56, 56, 64, 64, 3, 1, 1, false, 255})
    ->Unit(benchmark::kMillisecond);

// Gaussian weights (sigma 30) within [-limit, limit].
std::vector<int16_t> gaussian_weights(size_t count, int limit) {
  std::mt19937 rng(3);
  std::normal_distribution<double> gauss(0, 30);
  std::vector<int16_t> v(count);
  for (auto& x : v) x = static_cast<int16_t>(std::clamp(int(gauss(rng)), -limit, limit));
  return v;
}

// A compressed stream of `values` as the test encoder writes it (Vela-like: Golomb-Rice with WDIV 5, no palette, no
// zero runs).
std::vector<uint8_t> rice_stream(const std::vector<int16_t>& values) {
  weights::test::BitWriter w;
  for (size_t done = 0; done < values.size();) {
    weights::test::SliceSpec spec;
    spec.wdiv = 5;
    spec.dirofs = 0;
    const size_t n = std::min<size_t>(32768, values.size() - done);
    for (size_t i = done; i < done + n; ++i) spec.indices.push_back(weights::test::weight_to_code(values[i]));
    weights::test::encode_slice(w, spec);
    done += n;
  }
  return w.finish();
}

// A MobileNetV2-sized weight stream (1x1, 320 -> 1280 channels: 409 600 weights) of Gaussian weights.
std::vector<uint8_t> weight_stream(const weights::WeightLayout& l) {
  return rice_stream(gaussian_weights(weights::stream_weight_count(l), 255));
}

weights::WeightLayout mnv2_1x1_layout() {
  weights::WeightLayout l;
  l.ofm_depth = 1280, l.ifm_depth = 320, l.ofm_block_depth = 64;
  return l;
}

void weight_decode_stream(benchmark::State& state) {
  const weights::WeightLayout l = mnv2_1x1_layout();
  const std::vector<uint8_t> bytes = weight_stream(l);
  weights::DecodeScratch out;
  out.simd_target = simd_target();
  for (auto _ : state) {
    weights::decode_stream(bytes.data(), bytes.size(), out);
    benchmark::DoNotOptimize(out.stream.data());
  }
  state.counters["bytes/s"] = benchmark::Counter(double(bytes.size()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weights/s"] =
      benchmark::Counter(double(out.stream.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(weight_decode_stream)->Unit(benchmark::kMillisecond);

void weight_decode_packed(benchmark::State& state) {
  const weights::WeightLayout l = mnv2_1x1_layout();
  const std::vector<uint8_t> bytes = weight_stream(l);
  weights::DecodeScratch scratch;
  scratch.simd_target = simd_target();
  for (auto _ : state) {
    ConvWeights w = ConvWeights::unfilled(l.ofm_depth, 1, 1, l.ifm_depth);
    weights::decode_packed(l, bytes.data(), bytes.size(), w.packing(), scratch);
    w.seal();
    benchmark::DoNotOptimize(&w);
  }
  state.counters["bytes/s"] = benchmark::Counter(double(bytes.size()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weights/s"] =
      benchmark::Counter(double(l.ofm_depth) * l.ifm_depth, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(weight_decode_packed)->Unit(benchmark::kMillisecond);

// The same layer's weights as the Ethos-U85 holds them, decoded straight into the conv kernel's packed layout: SWD on
// one decoder (U85-256, 1x2x16 micro-block) or four (U85-1024, 2x2x32), and the fast format (FWD, raw bytes; one
// stream whatever the decoders). The FWD weights are int8 (its raw bytes hold 256 values), for which seal() also packs
// the 8-bit copy the 8-bit micro-kernels read: its figure includes that work, which the 9-bit SWD cases skip.
void weight_decode_packed_u85(benchmark::State& state, int macs, int decoders, int ublock,
                              weights::u85::WeightFormat format) {
  namespace u85 = weights::u85;
  u85::Layout l;
  l.macs = macs, l.weight_decoders = decoders, l.ofm_ublock_depth = ublock, l.format = format;
  l.ofm_depth = 1280, l.ifm_depth = 320, l.ofm_block_depth = 64;
  const std::vector<int16_t> dense =
      gaussian_weights(size_t(l.ofm_depth) * l.ifm_depth, format == u85::WeightFormat::FWD ? 127 : 255);
  std::vector<std::vector<uint8_t>> bytes;
  for (const auto& values : u85::test::stream_values(l, dense))
    bytes.push_back(format == u85::WeightFormat::FWD ? u85::test::encode_fwd(values, u85::FwdMode::RAW)
                                                     : rice_stream(values));
  u85::Streams streams{};
  size_t total_bytes = 0;
  for (size_t s = 0; s < bytes.size(); ++s) {
    streams[s] = {bytes[s].data(), bytes[s].size()};
    total_bytes += bytes[s].size();
  }
  weights::DecodeScratch scratch;
  scratch.simd_target = simd_target();
  for (auto _ : state) {
    ConvWeights w = ConvWeights::unfilled(l.ofm_depth, 1, 1, l.ifm_depth);
    u85::decode_packed(l, streams, w.packing(), scratch);
    w.seal();
    benchmark::DoNotOptimize(&w);
  }
  state.counters["bytes/s"] = benchmark::Counter(double(total_bytes), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weights/s"] =
      benchmark::Counter(double(l.ofm_depth) * l.ifm_depth, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(weight_decode_packed_u85, u85_256_swd, 256, 1, 16, weights::u85::WeightFormat::SWD)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(weight_decode_packed_u85, u85_1024_swd_4_streams, 1024, 4, 32, weights::u85::WeightFormat::SWD)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(weight_decode_packed_u85, u85_256_fwd_raw, 256, 1, 16, weights::u85::WeightFormat::FWD)
    ->Unit(benchmark::kMillisecond);

// MobileNetV2's residual ADD (28x28x32, int8, Vela's OPA/OPB 16-bit operand scales) and YOLOX-Nano's MUL.
void run_elementwise(benchmark::State& state, ElementwiseOp op) {
  const int w = 28, h = 28, c = 32;
  Map a(w, h, c, DataType::Int8), b(w, h, c, DataType::Int8), o(w, h, c, DataType::Int8);
  ElementwiseParams p;
  p.op = op;
  p.ifm = a.fm, p.ifm2 = b.fm, p.ofm = o.fm;
  p.ifm_zero_point = -3, p.ifm2_zero_point = 5;
  p.ofm_width = w, p.ofm_height = h, p.ofm_depth = c;
  p.opa_scale = 23456, p.opb_scale = 18000;
  p.output.ofm_type = DataType::Int8;
  p.output.per_channel = false;
  p.output.multiplier = 1518500250u, p.output.shift = 45;
  for (auto _ : state) {
    elementwise(p);
    benchmark::DoNotOptimize(o.bytes.data());
  }
  state.counters["bytes/s"] = benchmark::Counter(double(w) * h * c, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(simd_target_name());
}
BENCHMARK_CAPTURE(run_elementwise, add_28x28x32, ElementwiseOp::Add)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run_elementwise, mul_28x28x32, ElementwiseOp::Mul)->Unit(benchmark::kMicrosecond);

// YOLOX-Nano's ADD of one broadcast IFM2 value (40x40x64 int8): a byte table over the block.
void elementwise_broadcast_add(benchmark::State& state) {
  const int w = 40, h = 40, c = 64;
  Map a(w, h, c, DataType::Int8), b(1, 1, 1, DataType::Int8), o(w, h, c, DataType::Int8);
  ElementwiseParams p;
  p.op = ElementwiseOp::Add;
  p.ifm = a.fm, p.ifm2 = b.fm, p.ofm = o.fm;
  p.broadcast_h = p.broadcast_w = p.broadcast_c = true;
  p.ifm_zero_point = -128;
  p.ofm_width = w, p.ofm_height = h, p.ofm_depth = c;
  p.output.ofm_type = DataType::Int8;
  p.output.ofm_zero_point = -128;
  p.output.per_channel = false;
  for (auto _ : state) {
    elementwise(p);
    benchmark::DoNotOptimize(o.bytes.data());
  }
  state.counters["bytes/s"] = benchmark::Counter(double(w) * h * c, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(elementwise_broadcast_add)->Unit(benchmark::kMicrosecond);

// Max pooling 3x3 s2 (YOLOX-Nano's SPP-like pools run 5x5 s1) and MobileNetV2's global average 7x7x1280.
void run_pool(benchmark::State& state, PoolMode mode, int w, int h, int c, int k, int stride) {
  const int ow = (w - k) / stride + 1, oh = (h - k) / stride + 1;
  Map ifm(w, h, c, DataType::Int8), ofm(ow, oh, c, DataType::Int8);
  PoolParams p;
  p.mode = mode;
  p.ifm = ifm.fm, p.ofm = ofm.fm;
  p.ifm_depth = c;
  p.ofm_width = ow, p.ofm_height = oh, p.ofm_depth = c;
  p.kernel.width = p.kernel.height = k;
  p.kernel.stride_x = p.kernel.stride_y = stride;
  p.output.ofm_type = DataType::Int8;
  p.output.per_channel = false;
  p.output.multiplier = 1518500250u, p.output.shift = 36;
  KernelScratch s;
  for (auto _ : state) {
    pool_tile(p, OfmTile{0, ow, 0, oh, 0, c}, s);
    benchmark::DoNotOptimize(ofm.bytes.data());
  }
  state.counters["bytes/s"] = benchmark::Counter(double(ow) * oh * c, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(run_pool, max_5x5s1_20x20x128, PoolMode::Max, 24, 24, 128, 5, 1)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run_pool, avg_global_7x7x1280, PoolMode::Average, 7, 7, 1280, 7, 1)->Unit(benchmark::kMicrosecond);

// Vela's concatenation of a 40x40x64 int8 map: a 1x1 average with the identity scale (a copy), and the same
// with a requantising scale (a byte table).
void pool_1x1(benchmark::State& state, uint32_t multiplier, uint8_t shift) {
  const int w = 40, h = 40, c = 64;
  Map ifm(w, h, c, DataType::Int8), ofm(w, h, c, DataType::Int8);
  PoolParams p;
  p.mode = PoolMode::Average;
  p.ifm = ifm.fm, p.ofm = ofm.fm;
  p.ifm_depth = c, p.ifm_zero_point = -128;
  p.ofm_width = w, p.ofm_height = h, p.ofm_depth = c;
  p.output.ofm_type = DataType::Int8;
  p.output.ofm_zero_point = -128;
  p.output.per_channel = false;
  p.output.multiplier = multiplier, p.output.shift = shift;
  KernelScratch s;
  for (auto _ : state) {
    pool_tile(p, OfmTile{0, w, 0, h, 0, c}, s);
    benchmark::DoNotOptimize(ofm.bytes.data());
  }
  state.counters["bytes/s"] = benchmark::Counter(double(w) * h * c, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(pool_1x1, identity_40x40x64, 0x80000001u, 31)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(pool_1x1, requantise_40x40x64, 1215264045u, 33)->Unit(benchmark::kMicrosecond);

#if defined(__x86_64__)
// Host int8 MAC peak: independent vpdpbusd chains on registers (64 MACs each), 16 chains to cover
// latency. This is the upper bound the kernels compare against.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) int64_t peak_avx512(int64_t iters) {
  __m512i acc[16];
  for (auto& a : acc) a = _mm512_setzero_si512();
  __m512i x = _mm512_set1_epi8(3), y = _mm512_set1_epi8(-2);
  // Opaque operands, so the compiler cannot fold the chains.
  __asm__ volatile("" : "+v"(x), "+v"(y));
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) acc[j] = _mm512_dpbusd_epi32(acc[j], x, y);
  }
  __m512i s = acc[0];
  for (int j = 1; j < 16; ++j) s = _mm512_add_epi32(s, acc[j]);
  // Stored and summed by hand: GCC 12 warns falsely inside _mm512_reduce_add_epi32.
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, s);
  int64_t sum = 0;
  for (int32_t v : lanes) sum += v;
  return sum;
}

__attribute__((target("avx2"))) int64_t peak_avx2(int64_t iters) {
  // vpmaddubsw + vpmaddwd + vpaddd: 32 int8 MACs per three instructions.
  __m256i acc[8];
  for (auto& a : acc) a = _mm256_setzero_si256();
  __m256i x = _mm256_set1_epi8(3), y = _mm256_set1_epi8(-2), one = _mm256_set1_epi16(1);
  __asm__ volatile("" : "+x"(x), "+x"(y), "+x"(one));
  for (int64_t i = 0; i < iters; ++i) {
    // Each chain gets its own operands so the products are not shared between chains.
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      __asm__ volatile("" : "+x"(x));
      acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(_mm256_maddubs_epi16(x, y), one));
    }
  }
  __m256i s = acc[0];
  for (int j = 1; j < 8; ++j) s = _mm256_add_epi32(s, acc[j]);
  return _mm256_extract_epi32(s, 0);
}

void host_int8_mac_peak(benchmark::State& state) {
  const bool vnni = best_simd_level() == SimdLevel::Avx512Vnni;
  const int64_t iters = 1 << 20;
  for (auto _ : state) benchmark::DoNotOptimize(vnni ? peak_avx512(iters) : peak_avx2(iters));
  const double macs = double(iters) * (vnni ? 16 * 64 : 8 * 32);
  state.counters["MAC/s"] = benchmark::Counter(macs, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(vnni ? "avx512 vpdpbusd" : "avx2 vpmaddubsw");
}
BENCHMARK(host_int8_mac_peak)->Unit(benchmark::kMillisecond);
#endif

}  // namespace
}  // namespace ethosu::kernels

BENCHMARK_MAIN();
