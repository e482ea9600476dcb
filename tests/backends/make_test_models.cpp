// Writes the small Vela-style models the shim tests run (no shared data needed), with the project's own TFLite
// writer (tests/unit/flatbuffer_builder.h) and flexbuffers for the custom options:
//   state_model.tflite    one ethos-u operator whose stream copies a variable (state) tensor to the output and then
//                         the input into the state: run twice, the output is the state's reset value both times
//   ssd_model.tflite      an SSD-style tail: the ethos-u operator splits its int8 input into box encodings
//                         [1, 16, 4] and class scores [1, 16, 4] (background + 3 classes), two DEQUANTIZEs,
//                         TFLite_Detection_PostProcess (fast NMS, 5 detections) with constant anchors
//   ssd_regular.tflite    the same with use_regular_nms
//   ssd_model_unsized.tflite, ssd_regular_unsized.tflite   the same with the post-processing's four outputs
//                         declared with an empty shape, as TOCO's SSD exports declare them (TFLite sizes them)
//   ssd_cpu.tflite, ssd_cpu_regular.tflite   the CPU part alone (the int8 encodings and scores as graph inputs, the
//                         DEQUANTIZEs and the post-processing), for an independent engine
// Usage: make_test_models OUT_DIR
#define FLATBUFFERS_LOCALE_INDEPENDENT 0  // header-only flexbuffers (see host/cpu_ops.cpp)
#include <flatbuffers/flexbuffers.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/unit/flatbuffer_builder.h"

namespace tb = ethosu::testing;

namespace {

constexpr int kAnchors = 16, kClassesWithBackground = 4, kMaxDetections = 5;
constexpr int32_t kDequantize = 6;
constexpr uint32_t kNone = 0xFFFFFFFFu;  // not planned offline

// DMA of `bytes` inside region 1 (the arena), then wait for it.
void dma(std::vector<uint32_t>& w, uint32_t from, uint32_t to, uint32_t bytes) {
  w.insert(w.end(), {0x00010130u, 0x00010131u, 0x00004030u, from, 0x00004031u, to, 0x00004032u, bytes, 0x00000010u,
                     0x00000011u});
}

tb::Bytes floats(const std::vector<float>& values) {
  tb::Bytes b(values.size() * 4);
  std::memcpy(b.data(), values.data(), b.size());
  return b;
}

tb::Bytes plan(const std::vector<uint32_t>& offsets) {
  std::vector<uint32_t> words = {0, 1, static_cast<uint32_t>(offsets.size())};
  words.insert(words.end(), offsets.begin(), offsets.end());
  return tb::words_to_bytes(words);
}

// The Vela-style front of a model: tensors 0-3 (payload, flash, scratch, scratch_fast) and buffers 0-2.
void vela_front(tb::ModelSpec& m, tb::SubgraphSpec& s, const std::vector<uint32_t>& stream, int32_t scratch_bytes) {
  m.opcodes.push_back({32, "ethos-u", false});
  s.tensors.push_back({"cs", 3, {static_cast<int32_t>(4 * stream.size() + 32)}, 1, {}, {}, 0, false});
  s.tensors.push_back({"flash", 3, {16}, 2, {}, {}, 0, false});
  s.tensors.push_back({"scratch", 3, {scratch_bytes}, 0, {}, {}, 0, false});
  s.tensors.push_back({"scratch_fast", 3, {0}, 0, {}, {}, 0, false});
  m.buffers = {{{}, false}, {tb::cop1_payload(stream), false}, {tb::Bytes(16, 0), false}};
}

tb::Bytes state_model() {
  std::vector<uint32_t> stream;
  dma(stream, 16, 32, 16);  // output = state
  dma(stream, 0, 16, 16);   // state = input
  stream.push_back(0xFFFF0000);
  tb::ModelSpec m;
  m.description = "Vela 3.10.0 Optimised";
  tb::SubgraphSpec s;
  vela_front(m, s, stream, 48);
  s.tensors.push_back({"input", 9, {1, 16}, 0, {0.5f}, {0}, 0, false});
  s.tensors.push_back({"state", 9, {1, 16}, 0, {0.25f}, {-3}, 0, true});
  s.tensors.push_back({"output", 9, {1, 16}, 0, {0.25f}, {-3}, 0, false});
  s.operators = {{0, {0, 1, 2, 3, 4, 5}, {6}, {1, 4, 1}}};
  s.inputs = {4};
  s.outputs = {6};
  m.subgraphs = {s};
  m.buffers.push_back({plan({kNone, kNone, 0, 0, 0, 16, 32}), false});
  m.metadata = {{"OfflineMemoryAllocation", 3}};
  return tb::build_model(m);
}

tb::Bytes detection_options(bool regular) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("max_detections", kMaxDetections);
    fbb.Int("max_classes_per_detection", 1);
    fbb.Int("detections_per_class", 3);
    fbb.Bool("use_regular_nms", regular);
    fbb.Float("nms_score_threshold", 0.3f);
    fbb.Float("nms_iou_threshold", 0.5f);
    fbb.Int("num_classes", kClassesWithBackground - 1);
    fbb.Float("y_scale", 10.0f);
    fbb.Float("x_scale", 10.0f);
    fbb.Float("h_scale", 5.0f);
    fbb.Float("w_scale", 5.0f);
  });
  fbb.Finish();
  return fbb.GetBuffer();
}

// A 4x4 grid of anchors (ycenter, xcenter, h, w), two sizes.
std::vector<float> anchors() {
  std::vector<float> a;
  for (int i = 0; i < kAnchors; ++i)
    a.insert(a.end(), {0.125f + 0.25f * static_cast<float>(i / 4), 0.125f + 0.25f * static_cast<float>(i % 4),
                       i % 2 ? 0.3f : 0.2f, i % 2 ? 0.2f : 0.3f});
  return a;
}

// The CPU tail: DEQUANTIZE x2 (when `quantized`) and the post-processing, appended to `s` and `m`. Inputs are the
// tensors `boxes` and `scores`; returns nothing, sets the graph outputs, whose shapes are declared when `sized`.
void detection_tail(tb::ModelSpec& m, tb::SubgraphSpec& s, int32_t boxes, int32_t scores, bool quantized, bool regular,
                    bool sized = true) {
  const auto opcode = [&](int32_t builtin, const std::string& custom) {
    m.opcodes.push_back({builtin, custom, false});
    return static_cast<uint32_t>(m.opcodes.size() - 1);
  };
  int32_t boxes_f = boxes, scores_f = scores;
  if (quantized) {
    const uint32_t deq = opcode(kDequantize, "");
    boxes_f = static_cast<int32_t>(s.tensors.size());
    s.tensors.push_back({"boxes_f", 0, {1, kAnchors, 4}, 0, {}, {}, 0, false});
    scores_f = boxes_f + 1;
    s.tensors.push_back({"scores_f", 0, {1, kAnchors, kClassesWithBackground}, 0, {}, {}, 0, false});
    s.operators.push_back({deq, {boxes}, {boxes_f}, {}});
    s.operators.push_back({deq, {scores}, {scores_f}, {}});
  }
  const uint32_t anchors_buffer = static_cast<uint32_t>(m.buffers.size());
  m.buffers.push_back({floats(anchors()), false});
  const auto anchors_tensor = static_cast<int32_t>(s.tensors.size());
  s.tensors.push_back({"anchors", 0, {kAnchors, 4}, anchors_buffer, {}, {}, 0, false});
  const int slots = kMaxDetections;
  const auto first_out = static_cast<int32_t>(s.tensors.size());
  const auto shape = [&](std::vector<int32_t> dims) { return sized ? dims : std::vector<int32_t>{}; };
  s.tensors.push_back({"detection_boxes", 0, shape({1, slots, 4}), 0, {}, {}, 0, false});
  s.tensors.push_back({"detection_classes", 0, shape({1, slots}), 0, {}, {}, 0, false});
  s.tensors.push_back({"detection_scores", 0, shape({1, slots}), 0, {}, {}, 0, false});
  s.tensors.push_back({"num_detections", 0, shape({1}), 0, {}, {}, 0, false});
  const uint32_t dpp = opcode(32, "TFLite_Detection_PostProcess");
  s.operators.push_back({dpp, {boxes_f, scores_f, anchors_tensor},
                         {first_out, first_out + 1, first_out + 2, first_out + 3}, detection_options(regular)});
  s.outputs = {first_out, first_out + 1, first_out + 2, first_out + 3};
}

tb::Bytes ssd_model(bool regular, bool sized = true) {
  constexpr int kBoxBytes = kAnchors * 4, kScoreBytes = kAnchors * kClassesWithBackground;
  std::vector<uint32_t> stream;
  dma(stream, 0, 128, kBoxBytes);
  dma(stream, kBoxBytes, 128 + kBoxBytes, kScoreBytes);
  stream.push_back(0xFFFF0000);
  tb::ModelSpec m;
  m.description = "Vela 3.10.0 Optimised";
  tb::SubgraphSpec s;
  vela_front(m, s, stream, 256);
  s.tensors.push_back({"input", 9, {1, kBoxBytes + kScoreBytes}, 0, {0.05f}, {2}, 0, false});
  s.tensors.push_back({"boxes_q", 9, {1, kAnchors, 4}, 0, {0.05f}, {2}, 0, false});
  s.tensors.push_back({"scores_q", 9, {1, kAnchors, kClassesWithBackground}, 0, {1.0f / 256}, {-128}, 0, false});
  s.operators = {{0, {0, 1, 2, 3, 4}, {5, 6}, {1, 4, 1}}};
  s.inputs = {4};
  detection_tail(m, s, 5, 6, true, regular, sized);
  std::vector<uint32_t> offsets(s.tensors.size(), kNone);
  offsets[2] = offsets[3] = offsets[4] = 0;
  offsets[5] = 128;
  offsets[6] = 128 + kBoxBytes;
  m.subgraphs = {s};
  m.buffers.push_back({plan(offsets), false});
  m.metadata = {{"OfflineMemoryAllocation", static_cast<uint32_t>(m.buffers.size() - 1)}};
  return tb::build_model(m);
}

tb::Bytes ssd_cpu(bool regular) {
  tb::ModelSpec m;
  m.buffers = {{{}, false}};
  tb::SubgraphSpec s;
  s.tensors.push_back({"boxes_q", 9, {1, kAnchors, 4}, 0, {0.05f}, {2}, 0, false});
  s.tensors.push_back({"scores_q", 9, {1, kAnchors, kClassesWithBackground}, 0, {1.0f / 256}, {-128}, 0, false});
  s.inputs = {0, 1};
  detection_tail(m, s, 0, 1, true, regular);
  m.subgraphs = {s};
  return tb::build_model(m);
}

void write(const std::filesystem::path& p, const tb::Bytes& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_test_models OUT_DIR\n");
    return 2;
  }
  try {
    const std::filesystem::path out = argv[1];
    std::filesystem::create_directories(out);
    write(out / "state_model.tflite", state_model());
    write(out / "ssd_model.tflite", ssd_model(false));
    write(out / "ssd_regular.tflite", ssd_model(true));
    write(out / "ssd_model_unsized.tflite", ssd_model(false, false));
    write(out / "ssd_regular_unsized.tflite", ssd_model(true, false));
    write(out / "ssd_cpu.tflite", ssd_cpu(false));
    write(out / "ssd_cpu_regular.tflite", ssd_cpu(true));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_test_models: %s\n", e.what());
    return 1;
  }
  return 0;
}
