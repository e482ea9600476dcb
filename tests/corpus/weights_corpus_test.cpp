// Weight decoder conformance over the Vela corpora (label `corpus`).
//
// opcorpus: every NPU_OP_CONV/NPU_OP_DEPTHWISE of every CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and
// TRANSPOSE_CONV case decodes to the original model's weights minus their zero point, channel for channel.
// corpus (whole models, incl. the two-core u65_512 builds): every weight stream of every kernel op decodes
// without error to exactly the number of weights its layout consumes.
// The weight bytes are found by replaying the stream's DMAs over byte copies of regions 0..2.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "corpus/corpus_paths.h"
#include "host/formats/tflite.h"
#include "isa/decoder.h"
#include "isa/state.h"
#include "models/kernels/weights/weight_decoder.h"
#include "sim/error.h"

namespace fs = std::filesystem;
using ethosu::isa::Cmd;
using ethosu::isa::Field;
using namespace ethosu::weights;

namespace {

using ethosu::test::read_file;
using ethosu::test::shared_root;

// One kernel op as the command stream programs it, with each core's weight stream bytes.
struct KernelOp {
  uint32_t offset = 0;  // of the NPU_OP_* command
  WeightLayout layout;
  std::vector<std::vector<uint8_t>> streams;  // per core
  uint64_t ofm_base = 0;
  int64_t ofm_stride_x = 0;
  int ofm_elem_bytes = 1;
};

// Replays the stream: state commands, 1-D DMAs between regions 0..2 (byte copies), kernel ops.
std::vector<KernelOp> kernel_ops(const fs::path& case_dir) {
  const ethosu::isa::Stream s = ethosu::isa::decode(read_file(case_dir / "cmdstream.bin"));
  EXPECT_TRUE(s.ok()) << case_dir;
  std::vector<std::vector<uint8_t>> regions(3);
  // A u65_512 build shares its model's flash.
  const fs::path flash = case_dir / "region0_flash.bin";
  regions[0] = read_file(fs::exists(flash) ? flash : case_dir / ".." / "region0_flash.bin");
  ethosu::isa::RegisterState st;
  std::vector<KernelOp> ops;
  for (const auto& c : s.commands) {
    if (st.apply(c) || !c.info) continue;
    if (c.cmd() == Cmd::NPU_OP_DMA_START) {
      const auto src_r = st.get(Field::NPU_SET_DMA0_SRC_REGION_region);
      const auto dst_r = st.get(Field::NPU_SET_DMA0_DST_REGION_region);
      const bool internal = st.get(Field::NPU_SET_DMA0_DST_REGION_region_mode) != 0;  // SHRAM (LUTs)
      const bool strided = st.get(Field::NPU_SET_DMA0_SRC_REGION_stride_mode) != 0;   // feature maps only
      if (internal || strided || src_r > 2 || dst_r > 2) continue;
      const auto src = static_cast<size_t>(st.get(Field::NPU_SET_DMA0_SRC_addr));
      const auto dst = static_cast<size_t>(st.get(Field::NPU_SET_DMA0_DST_addr));
      const auto len = static_cast<size_t>(st.get(Field::NPU_SET_DMA0_LEN_length));
      auto& from = regions[size_t(src_r)];
      auto& to = regions[size_t(dst_r)];
      if (from.size() < src + len) from.resize(src + len);  // regions 1/2 start undefined: zero
      if (to.size() < dst + len) to.resize(dst + len);
      std::copy_n(from.begin() + long(src), len, to.begin() + long(dst));
      continue;
    }
    if (c.cmd() != Cmd::NPU_OP_CONV && c.cmd() != Cmd::NPU_OP_DEPTHWISE) continue;
    KernelOp op;
    op.offset = c.offset;
    WeightLayout& l = op.layout;
    l.kind = c.cmd() == Cmd::NPU_OP_DEPTHWISE ? OpKind::DEPTHWISE : OpKind::CONV;
    l.ofm_depth = int(st.get(Field::NPU_SET_OFM_DEPTH_M1_depth_m1)) + 1;
    l.ifm_depth = int(st.get(Field::NPU_SET_IFM_DEPTH_M1_depth_m1)) + 1;
    l.dilation_x = 1 + int(st.get(Field::NPU_SET_KERNEL_STRIDE_dilation_x));
    l.dilation_y = 1 + int(st.get(Field::NPU_SET_KERNEL_STRIDE_dilation_y));
    l.kernel_width = int(st.get(Field::NPU_SET_KERNEL_WIDTH_M1_width_m1)) / l.dilation_x + 1;
    l.kernel_height = int(st.get(Field::NPU_SET_KERNEL_HEIGHT_M1_height_m1)) / l.dilation_y + 1;
    l.ofm_block_depth = int(st.get(Field::NPU_SET_OFM_BLK_DEPTH_M1_depth_m1)) + 1;
    l.part_kernel_first = st.get(Field::NPU_SET_KERNEL_STRIDE_weight_order) != 0;
    l.ifm_bits = st.get(Field::NPU_SET_IFM_PRECISION_activation_precision) == 1 ? 16 : 8;
    l.cores = st.get(Field::NPU_SET_PARALLEL_MODE_parallel_mode) != 0 ? 2 : 1;
    const auto& wr = regions.at(size_t(st.get(Field::NPU_SET_WEIGHT_REGION_region)));
    const Field bases[2] = {Field::NPU_SET_WEIGHT_BASE_addr, Field::NPU_SET_WEIGHT1_BASE_addr};
    const Field lengths[2] = {Field::NPU_SET_WEIGHT_LENGTH_length, Field::NPU_SET_WEIGHT1_LENGTH_length};
    for (int k = 0; k < l.cores; ++k) {
      const auto base = static_cast<size_t>(st.get(bases[k]));
      const auto len = static_cast<size_t>(st.get(lengths[k]));
      EXPECT_LE(base + len, wr.size()) << case_dir << " op at " << c.offset << ": weights outside the region";
      if (base + len > wr.size()) continue;
      op.streams.emplace_back(wr.begin() + long(base), wr.begin() + long(base + len));
    }
    op.ofm_base = uint64_t(st.get(Field::NPU_SET_OFM_BASE0_addr));
    op.ofm_stride_x = st.get(Field::NPU_SET_OFM_STRIDE_X_stride);
    op.ofm_elem_bytes = 1 << st.get(Field::NPU_SET_OFM_PRECISION_activation_precision);
    ops.push_back(std::move(op));
  }
  return ops;
}

// Decodes every core's stream of an op into dense [o][ky][kx][i] weights of the whole op.
DenseWeights decode_op(const KernelOp& op) {
  DenseWeights dense;
  WeightLayout l = op.layout;
  for (l.core = 0; l.core < l.cores; ++l.core) {
    decode_weights(l, op.streams.at(size_t(l.core)).data(), op.streams[size_t(l.core)].size(), dense);
  }
  return dense;
}

std::vector<fs::path> case_dirs(const fs::path& root) {
  std::vector<fs::path> dirs;
  if (!fs::is_directory(root)) return dirs;
  for (const auto& e : fs::directory_iterator(root)) {
    if (fs::exists(e.path() / "cmdstream.bin")) dirs.push_back(e.path());
    if (fs::exists(e.path() / "u65_512" / "cmdstream.bin")) dirs.push_back(e.path() / "u65_512");
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

TEST(WeightsCorpus, OpcorpusMatchesOriginalWeights) {
  const fs::path root = shared_root() / "opcorpus";
  if (!fs::is_directory(root)) GTEST_SKIP() << "no corpus at " << root << " (set ETHOSU_SIM_SHARED_DIR)";
  const std::map<std::string, OpKind> kinds = {{"CONV_2D", OpKind::CONV},
                                               {"TRANSPOSE_CONV", OpKind::CONV},
                                               {"DEPTHWISE_CONV_2D", OpKind::DEPTHWISE},
                                               {"FULLY_CONNECTED", OpKind::FULLY_CONNECTED}};
  size_t cases = 0, ops = 0, streams = 0, weights = 0;
  for (const fs::path& dir : case_dirs(root)) {
    const nlohmann::json m = nlohmann::json::parse(read_file(dir / "manifest.json"));
    const std::string op_name = m.at("op");
    if (!kinds.count(op_name)) continue;
    SCOPED_TRACE(dir.filename().string());
    const bool depthwise = kinds.at(op_name) == OpKind::DEPTHWISE;
    const bool flip = op_name == "TRANSPOSE_CONV";  // Vela flips the kernel in H and W before encoding
    const auto& wt = m.at("source_model").at("tensors").at("weights");
    const std::vector<int> shape = wt.at("shape");
    const std::vector<int64_t> zero_points = wt.at("zero_point");
    const auto model = ethosu::host::parse_tflite(read_file(dir / "original.tflite"), "original.tflite");
    const auto& tensor = model.subgraphs.at(0).tensors.at(wt.at("index").get<size_t>());
    const std::vector<uint8_t>& raw = model.buffer(tensor.buffer);
    const bool is_uint8 = tensor.type == int(ethosu::host::TfliteType::UINT8);
    // OHWI view of the original: depthwise is [1][H][W][C], fully connected [O][I].
    const int O = depthwise ? shape[3] : shape[0];
    const int KH = shape.size() == 4 ? shape[1] : 1, KW = shape.size() == 4 ? shape[2] : 1;
    const int I = depthwise ? 1 : shape.back();
    ASSERT_EQ(raw.size(), size_t(O) * size_t(KH * KW * I));
    const auto original = [&](int o, int ky, int kx, int i) {
      if (flip) ky = KH - 1 - ky, kx = KW - 1 - kx;
      const size_t idx = depthwise ? size_t((ky * KW + kx) * O + o) : size_t(((o * KH + ky) * KW + kx) * I + i);
      const int q = is_uint8 ? int(raw[idx]) : int(int8_t(raw[idx]));
      return q - int(zero_points.size() > 1 ? zero_points[size_t(o)] : zero_points[0]);
    };
    const size_t out_offset = m.at("outputs").at(0).at("offset");
    ++cases;
    for (const KernelOp& op : kernel_ops(dir)) {
      SCOPED_TRACE("op at byte " + std::to_string(op.offset));
      DenseWeights d;
      ASSERT_NO_THROW(d = decode_op(op));
      ASSERT_EQ(d.kernel_height, KH);
      ASSERT_EQ(d.kernel_width, KW);
      ASSERT_EQ(d.depth, I);
      // The op's first OFM channel, from where its OFM_BASE0 lands inside the NHWC output tensor.
      ASSERT_GT(op.ofm_stride_x, 0);
      const int c0 = int(((op.ofm_base - out_offset) % uint64_t(op.ofm_stride_x)) / uint64_t(op.ofm_elem_bytes));
      ASSERT_LE(c0 + d.ofm_depth, O);
      size_t mismatches = 0;
      for (int o = 0; o < d.ofm_depth; ++o)
        for (int ky = 0; ky < KH; ++ky)
          for (int kx = 0; kx < KW; ++kx)
            for (int i = 0; i < I; ++i) {
              if (d.at(o, ky, kx, i) != original(c0 + o, ky, kx, i) && mismatches++ < 5) {
                ADD_FAILURE() << "OFM channel " << c0 + o << " tap " << ky << "," << kx << " IFM channel " << i
                              << ": decoded " << d.at(o, ky, kx, i) << ", original " << original(c0 + o, ky, kx, i);
              }
            }
      EXPECT_EQ(mismatches, 0u);
      ++ops;
      streams += op.streams.size();
      weights += d.values.size();
    }
  }
  EXPECT_GT(cases, 0u);
  std::printf("opcorpus: %zu cases, %zu kernel ops, %zu weight streams, %zu weights matched\n", cases, ops, streams,
              weights);
  RecordProperty("ops_matched", std::to_string(ops));
}

TEST(WeightsCorpus, WholeModelStreamsDecode) {
  const fs::path root = shared_root() / "corpus";
  if (!fs::is_directory(root)) GTEST_SKIP() << "no corpus at " << root << " (set ETHOSU_SIM_SHARED_DIR)";
  size_t cases = 0, ops = 0, streams = 0, dual = 0, weights = 0, empty = 0;
  for (const fs::path& dir : case_dirs(root)) {
    SCOPED_TRACE(dir.string());
    ++cases;
    for (const KernelOp& op : kernel_ops(dir)) {
      WeightLayout l = op.layout;
      for (l.core = 0; l.core < l.cores; ++l.core) {
        const auto& bytes = op.streams.at(size_t(l.core));
        std::vector<int16_t> out;
        try {
          if (stream_weight_count(l) == 0) {
            EXPECT_TRUE(bytes.empty()) << "op at byte " << op.offset << " core " << l.core << " has no channels";
            ++empty;
            continue;
          }
          decode_stream(bytes.data(), bytes.size(), out);
          EXPECT_EQ(out.size(), stream_weight_count(l)) << "op at byte " << op.offset << " core " << l.core;
        } catch (const ethosu::InputError& e) {
          ADD_FAILURE() << "op at byte " << op.offset << " core " << l.core << ": " << e.what();
        }
        ++streams;
        weights += out.size();
      }
      ++ops;
      dual += l.cores == 2;
    }
  }
  EXPECT_GT(cases, 0u);
  std::printf("corpus: %zu command streams, %zu kernel ops (%zu dual-core), %zu weight streams decoded, %zu weights, "
              "%zu empty core shares\n", cases, ops, dual, streams, weights, empty);
}

}  // namespace
