// Ethos-U85 weight and scale decoding over corpus-u85 (label `corpus`): every compilation (case x configuration).
//
// For every NPU_OP_CONV / NPU_OP_DEPTHWISE of every compilation: its layout from the command stream and the CONFIG
// word, the micro-block and IFM block depth against the comment Vela's listing prints for the operation (the rule
// ifm_block_depth() follows is not in the stream), every weight stream decoded to exactly the layout's weight count,
// and the scale stream's length and padding records. For the single-operator CONV_2D, DEPTHWISE_CONV_2D and
// FULLY_CONNECTED cases, the decoded weights against the source model's (minus their zero point) and the biases
// against its biases, at the OFM channels the operation's OFM address gives.
// The weight and scale bytes are found by replaying the stream's DMAs over byte copies of regions 0..2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "corpus/corpus_paths.h"
#include "corpus/vela_listing.h"
#include "host/formats/payload.h"
#include "host/formats/tflite.h"
#include "isa/decoder.h"
#include "isa/state.h"
#include "models/kernels/weights/scale_stream_u85.h"
#include "models/kernels/weights/weight_decoder_u85.h"
#include "sim/error.h"

namespace fs = std::filesystem;
namespace u85 = ethosu::weights::u85;
using ethosu::test::read_file;
using ethosu::test::shared_root;

namespace {

using ethosu::isa::Cmd;
using ethosu::isa::Field;
namespace enums = ethosu::isa::enums;

const Field kWeightBases[u85::kMaxStreams] = {Field::NPU_SET_WEIGHT_BASE_addr, Field::NPU_SET_WEIGHT1_BASE_addr,
                                              Field::NPU_SET_WEIGHT2_BASE_addr, Field::NPU_SET_WEIGHT3_BASE_addr};
const Field kWeightLengths[u85::kMaxStreams] = {
    Field::NPU_SET_WEIGHT_LENGTH_length, Field::NPU_SET_WEIGHT1_LENGTH_length, Field::NPU_SET_WEIGHT2_LENGTH_length,
    Field::NPU_SET_WEIGHT3_LENGTH_length};

// One kernel operation as the stream programs it, with its streams' bytes.
struct KernelOp {
  uint32_t offset = 0;
  u85::Layout layout;
  u85::ScaleLayout scale_layout;
  std::vector<std::vector<uint8_t>> weights;  // per stream
  std::vector<int64_t> unused_lengths;        // WEIGHTn_LENGTH of decoders the format leaves unused
  std::vector<uint8_t> scales;
  int64_t ofm_region = 0, ofm_base = 0, ofm_stride_x = 0, ofm_stride_y = 0, ofm_stride_c = 0;
  bool ofm_bricks = false;  // NHCWB16
};

// Elements (H x W) of each ACC_FORMAT.microblock.
int microblock_elements(int64_t microblock) {
  switch (enums::microblock(microblock)) {
    case enums::microblock::U1X1:
      return 1;
    case enums::microblock::U1X2:
      return 2;
    case enums::microblock::U1X4:
      return 4;
    case enums::microblock::U2X2:
      return 4;
    case enums::microblock::U2X4:
      return 8;
    case enums::microblock::U4X4:
      return 16;
  }
  ADD_FAILURE() << "microblock " << microblock;
  return 1;
}

std::vector<uint8_t> bytes_at(const std::vector<uint8_t>& region, int64_t base, int64_t length) {
  if (base < 0 || length < 0 || size_t(base + length) > region.size()) {
    ADD_FAILURE() << "stream [" << base << ", +" << length << ") outside its region of " << region.size() << " bytes";
    return {};
  }
  return {region.begin() + base, region.begin() + base + length};
}

// Replays the stream: state commands, 1-D DMAs between regions 0..2 (byte copies), kernel operations.
std::vector<KernelOp> kernel_ops(const std::vector<uint8_t>& stream, const std::vector<uint8_t>& flash, int macs,
                                 int decoders) {
  const ethosu::isa::Stream decoded = ethosu::isa::decode(stream, ethosu::isa::IsaVersion::V2);
  EXPECT_TRUE(decoded.ok());
  std::vector<std::vector<uint8_t>> regions(3);
  regions[0] = flash;
  ethosu::isa::RegisterState st;
  std::vector<KernelOp> ops;
  for (const auto& c : decoded.commands) {
    if (st.apply(c) || !c.info) continue;
    if (c.cmd() == Cmd::NPU_OP_DMA_START) {
      const auto src_region = size_t(st.get(Field::NPU_SET_DMA0_SRC_REGION_region));
      const auto dst_region = size_t(st.get(Field::NPU_SET_DMA0_DST_REGION_region));
      const bool internal = st.get(Field::NPU_SET_DMA0_DST_REGION_region_mode) != 0;  // the LUT RAM
      const bool strided = st.get(Field::NPU_SET_DMA0_SRC_REGION_stride_mode) != 0;
      if (internal || strided || src_region > 2 || dst_region > 2) continue;
      const auto src = size_t(st.get(Field::NPU_SET_DMA0_SRC_addr));
      const auto dst = size_t(st.get(Field::NPU_SET_DMA0_DST_addr));
      const auto len = size_t(st.get(Field::NPU_SET_DMA0_LEN_length));
      auto& from = regions[src_region];
      auto& to = regions[dst_region];
      if (from.size() < src + len) from.resize(src + len);  // regions 1 and 2 start undefined: zero
      if (to.size() < dst + len) to.resize(dst + len);
      std::copy_n(from.begin() + long(src), len, to.begin() + long(dst));
      continue;
    }
    if (c.cmd() != Cmd::NPU_OP_CONV && c.cmd() != Cmd::NPU_OP_DEPTHWISE) continue;
    if (c.cmd() == Cmd::NPU_OP_CONV && c.get(Field::NPU_OP_CONV_weights_ifm2)) continue;  // no weight stream
    KernelOp op;
    op.offset = c.offset;
    u85::Layout& l = op.layout;
    l.kind = c.cmd() == Cmd::NPU_OP_DEPTHWISE ? ethosu::weights::OpKind::DEPTHWISE : ethosu::weights::OpKind::CONV;
    l.ofm_depth = int(st.get(Field::NPU_SET_OFM_DEPTH_M1_depth_m1)) + 1;
    l.ifm_depth = int(st.get(Field::NPU_SET_IFM_DEPTH_M1_depth_m1)) + 1;
    l.stride_x = 1 + int(st.get(Field::NPU_SET_KERNEL_STRIDE_stride_x_lsb) |
                         st.get(Field::NPU_SET_KERNEL_STRIDE_stride_x_msb) << 1);
    l.stride_y = 1 + int(st.get(Field::NPU_SET_KERNEL_STRIDE_stride_y_lsb) |
                         st.get(Field::NPU_SET_KERNEL_STRIDE_stride_y_msb) << 1);
    l.part_kernel_first = enums::weight_order(st.get(Field::NPU_SET_KERNEL_STRIDE_weight_order)) ==
                          enums::weight_order::PART_KERNEL_FIRST;
    l.dilation_x = 1 + int(st.get(Field::NPU_SET_KERNEL_STRIDE_dilation_x));
    l.dilation_y = 1 + int(st.get(Field::NPU_SET_KERNEL_STRIDE_dilation_y));
    l.kernel_width = int(st.get(Field::NPU_SET_KERNEL_WIDTH_M1_width_m1)) / l.dilation_x + 1;
    l.kernel_height = int(st.get(Field::NPU_SET_KERNEL_HEIGHT_M1_height_m1)) / l.dilation_y + 1;
    l.ofm_block_depth = int(st.get(Field::NPU_SET_OFM_BLK_DEPTH_M1_depth_m1_v2)) + 1;
    l.ifm_bits = 8 << st.get(Field::NPU_SET_IFM_PRECISION_activation_precision);
    l.macs = macs;
    l.weight_decoders = decoders;
    l.ofm_ublock_depth = macs / (8 * microblock_elements(st.get(Field::NPU_SET_ACC_FORMAT_microblock)));
    l.format = enums::weight_format(st.get(Field::NPU_SET_WEIGHT_FORMAT_weight_format)) == enums::weight_format::FWD
                   ? u85::WeightFormat::FWD
                   : u85::WeightFormat::SWD;
    l.sparse = enums::weight_sparsity(st.get(Field::NPU_SET_WEIGHT_FORMAT_weight_sparsity)) ==
               enums::weight_sparsity::SPARSE_2_4;
    op.scale_layout.ofm_depth = l.ofm_depth;
    op.scale_layout.ofm_ublock_depth = l.ofm_ublock_depth;
    op.scale_layout.acc = u85::AccFormat(st.get(Field::NPU_SET_ACC_FORMAT_acc_format));

    const auto& weight_region = regions.at(std::min<size_t>(size_t(st.get(Field::NPU_SET_WEIGHT_REGION_region)), 2));
    const int streams = u85::stream_count(l);
    for (int s = 0; s < decoders; ++s) {
      const int64_t length = st.get(kWeightLengths[s]);
      if (s < streams)
        op.weights.push_back(bytes_at(weight_region, st.get(kWeightBases[s]), length));
      else
        op.unused_lengths.push_back(length);
    }
    const auto& scale_region = regions.at(std::min<size_t>(size_t(st.get(Field::NPU_SET_SCALE_REGION_region)), 2));
    op.scales =
        bytes_at(scale_region, st.get(Field::NPU_SET_SCALE_BASE_addr), st.get(Field::NPU_SET_SCALE_LENGTH_length));
    op.ofm_region = st.get(Field::NPU_SET_OFM_REGION_region);
    op.ofm_base = st.get(Field::NPU_SET_OFM_BASE0_addr);
    op.ofm_stride_x = st.get(Field::NPU_SET_OFM_STRIDE_X_stride);
    op.ofm_stride_y = st.get(Field::NPU_SET_OFM_STRIDE_Y_stride);
    op.ofm_stride_c = st.get(Field::NPU_SET_OFM_STRIDE_C_stride);
    op.ofm_bricks = enums::activation_format(st.get(Field::NPU_SET_OFM_PRECISION_activation_format)) ==
                    enums::activation_format::NHCWB16;
    ops.push_back(std::move(op));
  }
  return ops;
}

// What Vela's listing says about the kernel operation at each command offset.
struct ListedOp {
  int ifm_block_depth = 0, ofm_ublock_depth = 0;
  std::string traversal;
};

std::map<uint32_t, ListedOp> listed_ops(const fs::path& listing) {
  static const std::regex ifm_block(R"(IFM Block=\[\d+, \d+, \d+, (\d+)\])"),
      ublock(R"(OFM UBlock=\[\d+, \d+, (\d+)\])"), traversal(R"(Traversal=(\w+))"),
      kernel_op(R"(^0x([0-9a-f]+):.* - NPU_OP_(CONV|DEPTHWISE) )");
  std::map<uint32_t, ListedOp> ops;
  ListedOp current;
  const auto bytes = read_file(listing);
  for (const std::string& line : ethosu::test::lines_of(std::string(bytes.begin(), bytes.end()))) {
    std::smatch m;
    if (line.rfind("//", 0) == 0) {
      current = ListedOp{};
      if (std::regex_search(line, m, ifm_block)) current.ifm_block_depth = std::stoi(m[1]);
      if (std::regex_search(line, m, ublock)) current.ofm_ublock_depth = std::stoi(m[1]);
      if (std::regex_search(line, m, traversal)) current.traversal = m[1];
    } else if (std::regex_search(line, m, kernel_op)) {
      ops[uint32_t(std::stoul(m[1], nullptr, 16))] = current;
    }
  }
  return ops;
}

// The source model's weights and biases of a single-operator case, as OHWI.
struct SourceOp {
  bool depthwise = false;
  int ofm_channels = 0, kernel_height = 1, kernel_width = 1, depth = 1;
  std::vector<int> weights;  // minus the zero point
  std::vector<int64_t> biases;

  int at(int o, int ky, int kx, int i) const {
    return weights[((size_t(o) * kernel_height + size_t(ky)) * kernel_width + size_t(kx)) * size_t(depth) + size_t(i)];
  }
};

std::optional<SourceOp> source_op(const fs::path& case_dir) {
  const fs::path manifest = case_dir / "manifest.json";
  if (!fs::exists(manifest)) return std::nullopt;
  const nlohmann::json m = nlohmann::json::parse(read_file(manifest));
  const std::string op = m.value("op", "");  // whole models have none
  if (op != "CONV_2D" && op != "DEPTHWISE_CONV_2D" && op != "FULLY_CONNECTED") return std::nullopt;
  const auto model = ethosu::host::parse_tflite(read_file(case_dir / "original.tflite"), "original.tflite");
  const auto& tensors = m.at("source_model").at("tensors");
  const auto& wt = tensors.at("weights");
  const std::vector<int> shape = wt.at("shape");
  const std::vector<int64_t> zero_points = wt.at("zero_point");
  const auto& weight_tensor = model.subgraphs.at(0).tensors.at(wt.at("index").get<size_t>());
  const std::vector<uint8_t>& raw = model.buffer(weight_tensor.buffer);
  const bool is_uint8 = weight_tensor.type == int(ethosu::host::TfliteType::UINT8);
  SourceOp s;
  s.depthwise = op == "DEPTHWISE_CONV_2D";
  // Depthwise weights are [1][H][W][C]; fully connected [O][I].
  s.ofm_channels = s.depthwise ? shape[3] : shape[0];
  s.kernel_height = shape.size() == 4 ? shape[1] : 1;
  s.kernel_width = shape.size() == 4 ? shape[2] : 1;
  s.depth = s.depthwise ? 1 : shape.back();
  const int taps = s.kernel_height * s.kernel_width;
  EXPECT_EQ(raw.size(), size_t(s.ofm_channels) * size_t(taps) * size_t(s.depth));
  s.weights.resize(raw.size());
  for (int o = 0; o < s.ofm_channels; ++o)
    for (int t = 0; t < taps; ++t)
      for (int i = 0; i < s.depth; ++i) {
        const size_t from = s.depthwise ? size_t(t) * size_t(s.ofm_channels) + size_t(o)
                                        : (size_t(o) * size_t(taps) + size_t(t)) * size_t(s.depth) + size_t(i);
        const int q = is_uint8 ? int(raw[from]) : int(int8_t(raw[from]));
        s.weights[(size_t(o) * size_t(taps) + size_t(t)) * size_t(s.depth) + size_t(i)] =
            q - int(zero_points.size() > 1 ? zero_points[size_t(o)] : zero_points[0]);
      }
  if (tensors.contains("bias")) {
    const auto& bias_tensor = model.subgraphs.at(0).tensors.at(tensors.at("bias").at("index").get<size_t>());
    const std::vector<uint8_t>& b = model.buffer(bias_tensor.buffer);
    const size_t width = bias_tensor.type == int(ethosu::host::TfliteType::INT64) ? 8 : 4;
    for (size_t k = 0; k + width <= b.size(); k += width) {
      uint64_t v = 0;
      for (size_t j = 0; j < width; ++j) v |= uint64_t{b[k + j]} << (8 * j);
      s.biases.push_back(width == 8 ? int64_t(v) : int64_t(int32_t(uint32_t(v))));
    }
  }
  return s;
}

struct Totals {
  size_t compilations = 0, ops = 0, listing_checked = 0, swd_streams = 0, fwd_streams = 0, sparse_ops = 0;
  size_t weights_decoded = 0, scale_streams = 0;
  std::map<std::string, size_t> fwd_modes;
  size_t compared_ops = 0, compared_weights = 0, weight_mismatches = 0, compared_biases = 0, bias_mismatches = 0;
  size_t not_compared_ops = 0;  // single-operator cases whose OFM address does not say its channels
};

// The first OFM channel of an operation whose OFM is the model's output, from its OFM address; nullopt elsewhere.
std::optional<int> first_channel(const KernelOp& op, const ethosu::host::EthosuOperator& npu) {
  if (npu.model_outputs.size() != 1 || !npu.model_outputs[0].arena_offset ||
      op.ofm_region != int64_t(npu.model_outputs[0].region))
    return std::nullopt;
  const auto start = int64_t(*npu.model_outputs[0].arena_offset);
  if (op.ofm_base < start || op.ofm_stride_c <= 0 || op.ofm_stride_x <= 0 || op.ofm_stride_y <= 0) return std::nullopt;
  const int64_t offset = op.ofm_base - start;
  if (op.ofm_bricks) return int((offset % op.ofm_stride_y) / op.ofm_stride_c * 16);
  return int((offset % op.ofm_stride_x) / op.ofm_stride_c);
}

void check_compilation(const fs::path& dir, Totals& t) {
  const auto file = read_file(dir / "model_vela.tflite");
  const auto model = ethosu::host::describe_vela_model(file, (dir / "model_vela.tflite").string());
  ASSERT_EQ(model.ethosu_operators.size(), 1u);
  const auto& npu = model.ethosu_operators[0];
  ASSERT_TRUE(npu.payload.config.has_value());
  // CONFIG: macs_per_cc 3:0 (log2), num_wd 13:12 (log2) (Arm's ethosu85_interface.h; docs/registers.md).
  const uint32_t config = npu.payload.config->config_word;
  const int macs = 1 << (config & 0xF), decoders = 1 << ((config >> 12) & 3);
  ASSERT_EQ(dir.filename().string(), "ethos-u85-" + std::to_string(macs));
  const std::map<uint32_t, ListedOp> listed = listed_ops(dir / "vela_cmdstream.txt");

  const nlohmann::json info = nlohmann::json::parse(read_file(dir.parent_path() / "info.json"));
  const std::optional<SourceOp> source = source_op(shared_root() / info.at("source_case").get<std::string>());
  ++t.compilations;

  for (const KernelOp& op : kernel_ops(npu.payload.command_stream, npu.flash, macs, decoders)) {
    SCOPED_TRACE("op at byte " + std::to_string(op.offset));
    const u85::Layout& l = op.layout;
    ++t.ops;
    t.sparse_ops += l.sparse;
    // Vela's comment for the operation: its micro-block, traversal and IFM block.
    const auto it = listed.find(op.offset);
    if (it != listed.end()) {
      EXPECT_EQ(it->second.ofm_ublock_depth, l.ofm_ublock_depth);
      if (l.kind == ethosu::weights::OpKind::DEPTHWISE) {
        EXPECT_EQ(it->second.traversal, "Depthwise");
      } else {
        EXPECT_EQ(it->second.traversal, l.part_kernel_first ? "PartKernel" : "DepthFirst");
        EXPECT_EQ(it->second.ifm_block_depth, u85::ifm_block_depth(l));
      }
      ++t.listing_checked;
    }

    // Every stream decodes to exactly the layout's weights (decode_weights() checks each stream's count).
    u85::Streams streams{};
    for (size_t s = 0; s < op.weights.size(); ++s) streams[s] = {op.weights[s].data(), op.weights[s].size()};
    ethosu::weights::DenseWeights dense;
    try {
      u85::decode_weights(l, streams, dense);
    } catch (const ethosu::InputError& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    const size_t count = u85::stream_weight_count(l);
    t.weights_decoded += count * op.weights.size();
    if (l.format == u85::WeightFormat::FWD) {
      ++t.fwd_streams;
      const auto mode = u85::decode_fwd_header(op.weights[0].data(), op.weights[0].size()).mode;
      ++t.fwd_modes[mode == u85::FwdMode::RAW ? "raw" : (mode == u85::FwdMode::LUT4 ? "lut4" : "lut2")];
    } else {
      t.swd_streams += op.weights.size();
    }
    for (int64_t unused : op.unused_lengths) EXPECT_EQ(unused, 0) << "an unused decoder's WEIGHTn_LENGTH";

    // The scale stream: Vela's length for the padded records, zero padding records.
    EXPECT_EQ(op.scales.size(), u85::scale_stream_bytes(op.scale_layout));
    std::vector<u85::ChannelScale> scales;
    ASSERT_NO_THROW(u85::decode_scales(op.scales.data(), op.scales.size(), op.scale_layout, scales));
    const size_t used = size_t(l.ofm_depth) * u85::kScaleRecordBytes;
    EXPECT_TRUE(std::all_of(op.scales.begin() + long(used), op.scales.end(), [](uint8_t b) { return b == 0; }))
        << "padding records";
    ++t.scale_streams;

    if (!source) continue;
    const std::optional<int> c0 = first_channel(op, npu);
    if (!c0) {
      ++t.not_compared_ops;
      continue;
    }
    ASSERT_EQ(dense.kernel_height, source->kernel_height);
    ASSERT_EQ(dense.kernel_width, source->kernel_width);
    ASSERT_EQ(dense.depth, source->depth);
    ASSERT_LE(*c0 + dense.ofm_depth, source->ofm_channels);
    size_t mismatches = 0;
    for (int o = 0; o < dense.ofm_depth; ++o)
      for (int ky = 0; ky < dense.kernel_height; ++ky)
        for (int kx = 0; kx < dense.kernel_width; ++kx)
          for (int i = 0; i < dense.depth; ++i)
            if (dense.at(o, ky, kx, i) != source->at(*c0 + o, ky, kx, i) && mismatches++ < 5)
              ADD_FAILURE() << "OFM channel " << *c0 + o << " tap " << ky << "," << kx << " IFM channel " << i
                            << ": decoded " << dense.at(o, ky, kx, i) << ", original "
                            << source->at(*c0 + o, ky, kx, i);
    ++t.compared_ops;
    t.compared_weights += dense.values.size();
    t.weight_mismatches += mismatches;
    for (int o = 0; o < dense.ofm_depth && !source->biases.empty(); ++o) {
      ++t.compared_biases;
      if (scales[size_t(o)].bias != source->biases.at(size_t(*c0 + o)) && t.bias_mismatches++ < 5)
        ADD_FAILURE() << "OFM channel " << *c0 + o << ": bias " << scales[size_t(o)].bias << ", original "
                      << source->biases[size_t(*c0 + o)];
    }
  }
}

TEST(WeightsU85Corpus, EveryCompilationDecodes) {
  const fs::path root = shared_root() / "corpus-u85";
  if (!fs::is_directory(root)) GTEST_SKIP() << "no corpus-u85 at " << root << " (set ETHOSU_SIM_SHARED_DIR); skipping";
  std::vector<fs::path> dirs;
  for (const auto& c : fs::directory_iterator(root))
    for (int macs : {128, 256, 512, 1024, 2048}) {
      const fs::path d = c.path() / ("ethos-u85-" + std::to_string(macs));
      if (fs::exists(d / "model_vela.tflite")) dirs.push_back(d);
    }
  std::sort(dirs.begin(), dirs.end());
  Totals t;
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(fs::relative(dir, root).string());
    check_compilation(dir, t);
  }
  EXPECT_GT(t.compilations, 0u);
  EXPECT_EQ(t.weight_mismatches, 0u);
  EXPECT_EQ(t.bias_mismatches, 0u);
  std::string modes;
  for (const auto& [mode, n] : t.fwd_modes) modes += " " + mode + " " + std::to_string(n);
  std::printf(
      "corpus-u85: %zu compilations, %zu kernel ops (%zu 2:4-sparse), %zu listed ops checked, %zu SWD + %zu FWD "
      "streams (FWD:%s), %zu weights decoded, %zu scale streams\n"
      "single-op cases: %zu ops compared, %zu weights (%zu mismatches), %zu biases (%zu mismatches); %zu ops whose "
      "OFM address does not give their channels\n",
      t.compilations, t.ops, t.sparse_ops, t.listing_checked, t.swd_streams, t.fwd_streams, modes.c_str(),
      t.weights_decoded, t.scale_streams, t.compared_ops, t.compared_weights, t.weight_mismatches, t.compared_biases,
      t.bias_mismatches, t.not_compared_ops);
  RecordProperty("compilations", std::to_string(t.compilations));
  RecordProperty("weights_compared", std::to_string(t.compared_weights));
}

}  // namespace
