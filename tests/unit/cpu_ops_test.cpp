#include "host/firmware/cpu_ops.h"

#define FLATBUFFERS_LOCALE_INDEPENDENT 0  // header-only flexbuffers (see host/cpu_ops.cpp)
#include <flatbuffers/flexbuffers.h>
#include <gtest/gtest.h>

#include <cstring>

#include "sim/error.h"
#include "tests/unit/flatbuffer_builder.h"
#include "tests/unit/input_errors.h"

namespace ethosu::host {
namespace {

namespace tb = ethosu::testing;
constexpr uint32_t kNone = 0xFFFFFFFFu;

using ethosu::testing::expect_input_error;

// A Vela-like model: operator 0 is ethos-u with the given outputs (planned at the given arena offsets), then `ops`.
struct Graph {
  tb::ModelSpec model;
  tb::SubgraphSpec sg;
  std::vector<uint32_t> offsets;

  Graph() {
    model.opcodes.push_back({32, "ethos-u", false});
    model.buffers = {{{}, false}, {tb::cop1_payload({0xFFFF0000}), false}, {tb::Bytes(16, 0), false}};
    add({"cs", 3, {36}, 1, {}, {}, 0, false}, kNone);
    add({"flash", 3, {16}, 2, {}, {}, 0, false}, kNone);
    add({"scratch", 3, {512}, 0, {}, {}, 0, false}, 0);
    add({"scratch_fast", 3, {0}, 0, {}, {}, 0, false}, 0);
    sg.operators.push_back({0, {0, 1, 2, 3}, {}, {1, 4, 1}});
  }
  int32_t add(tb::TensorSpec t, uint32_t offset) {
    sg.tensors.push_back(std::move(t));
    offsets.push_back(offset);
    return static_cast<int32_t>(sg.tensors.size() - 1);
  }
  int32_t npu_output(tb::TensorSpec t, uint32_t offset) {
    const int32_t i = add(std::move(t), offset);
    sg.operators.front().outputs.push_back(i);
    return i;
  }
  uint32_t opcode(int32_t builtin, const std::string& custom = "") {
    model.opcodes.push_back({builtin, custom, false});
    return static_cast<uint32_t>(model.opcodes.size() - 1);
  }
  int32_t constant(tb::TensorSpec t, const tb::Bytes& data) {
    t.buffer = static_cast<uint32_t>(model.buffers.size());
    model.buffers.push_back({data, false});
    return add(std::move(t), kNone);
  }
  VelaModel build() {
    tb::ModelSpec m = model;
    m.subgraphs = {sg};
    std::vector<uint32_t> words = {0, 1, static_cast<uint32_t>(offsets.size())};
    words.insert(words.end(), offsets.begin(), offsets.end());
    m.buffers.push_back({tb::words_to_bytes(words), false});
    m.metadata = {{"OfflineMemoryAllocation", static_cast<uint32_t>(m.buffers.size() - 1)}};
    return describe_vela_model(tb::build_model(m), "graph.tflite");
  }
};

tb::Bytes floats(const std::vector<float>& v) {
  tb::Bytes b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<float> read_floats(const std::vector<uint8_t>& arena, uint32_t offset, size_t n) {
  std::vector<float> v(n);
  std::memcpy(v.data(), arena.data() + offset, n * 4);
  return v;
}

// Decoded boxes come from float arithmetic on the anchors (0.55 - 0.5 is not 0.05 exactly).
void expect_near(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "element " << i;
}

TEST(CpuOps, DequantizePerChannel) {
  Graph g;
  const int32_t q = g.npu_output({"q", 9, {2, 3}, 0, {0.5f, 2.0f}, {1, -1}, 0, false}, 16);
  const int32_t f = g.add({"f", 0, {2, 3}, 0, {}, {}, 0, false}, kNone);
  g.sg.operators.push_back({g.opcode(6), {q}, {f}, {}});
  g.sg.outputs = {f};
  const VelaModel vm = g.build();
  const auto offset = arena_offset(vm, static_cast<uint32_t>(f));
  ASSERT_TRUE(offset);
  EXPECT_EQ(*offset, 512u);  // after the scratch, 16-byte aligned
  EXPECT_EQ(arena_bytes(vm), 512u + 24);
  std::vector<uint8_t> arena(arena_bytes(vm), 0);
  const int8_t values[6] = {1, 3, -1, -1, 0, 5};
  std::memcpy(arena.data() + 16, values, 6);
  run_cpu_operators(vm, arena, "graph.tflite");
  // Row 0: (q - 1) * 0.5; row 1: (q + 1) * 2.
  EXPECT_EQ(read_floats(arena, 512, 6), (std::vector<float>{0.0f, 1.0f, -1.0f, 0.0f, 2.0f, 12.0f}));
}

tb::Bytes detection_options(bool regular, int max_detections) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Int("max_detections", max_detections);
    fbb.Int("max_classes_per_detection", 1);
    fbb.Int("detections_per_class", 3);
    fbb.Bool("use_regular_nms", regular);
    fbb.Float("nms_score_threshold", 0.3f);
    fbb.Float("nms_iou_threshold", 0.5f);
    fbb.Int("num_classes", 2);
    fbb.Float("y_scale", 1);
    fbb.Float("x_scale", 1);
    fbb.Float("h_scale", 1);
    fbb.Float("w_scale", 1);
  });
  fbb.Finish();
  return fbb.GetBuffer();
}

// Four anchors, zero encodings (each box is its anchor): A0 [0,0,1,1]; A1 [0.05,0,1.05,1] overlaps A0 (IoU 0.905);
// A2 [2.5,2.5,3.5,3.5] and A3 [0,1.5,1,2.5] overlap nothing. Scores (background, class 0, class 1):
// A0 (.1,.2,.9), A1 (0,.8,.1), A2 (0,.4,.35), A3 (0,.1,.2).
struct Detection {
  VelaModel vm;
  std::vector<uint8_t> arena;
  uint32_t boxes = 0, classes = 0, scores = 0, count = 0;
};

Detection detection(const tb::Bytes& options) {
  Graph g;
  const int32_t enc = g.npu_output({"enc", 0, {1, 4, 4}, 0, {}, {}, 0, false}, 16);
  const int32_t cls = g.npu_output({"cls", 0, {1, 4, 3}, 0, {}, {}, 0, false}, 96);
  const int32_t anc = g.constant({"anchors", 0, {4, 4}, 0, {}, {}, 0, false},
                                 floats({0.5f, 0.5f, 1, 1, 0.55f, 0.5f, 1, 1, 3, 3, 1, 1, 0.5f, 2, 1, 1}));
  const int32_t out = g.add({"boxes", 0, {1, 3, 4}, 0, {}, {}, 0, false}, kNone);
  g.add({"classes", 0, {1, 3}, 0, {}, {}, 0, false}, kNone);
  g.add({"scores", 0, {1, 3}, 0, {}, {}, 0, false}, kNone);
  g.add({"count", 0, {1}, 0, {}, {}, 0, false}, kNone);
  g.sg.operators.push_back(
      {g.opcode(32, "TFLite_Detection_PostProcess"), {enc, cls, anc}, {out, out + 1, out + 2, out + 3}, options});
  g.sg.outputs = {out, out + 1, out + 2, out + 3};
  Detection d{g.build(), {}, 0, 0, 0, 0};
  d.arena.assign(arena_bytes(d.vm), 0xEE);
  std::memset(d.arena.data() + 16, 0, 64);
  const tb::Bytes s = floats({0.1f, 0.2f, 0.9f, 0, 0.8f, 0.1f, 0, 0.4f, 0.35f, 0, 0.1f, 0.2f});
  std::memcpy(d.arena.data() + 96, s.data(), s.size());
  d.boxes = *arena_offset(d.vm, static_cast<uint32_t>(out));
  d.classes = *arena_offset(d.vm, static_cast<uint32_t>(out + 1));
  d.scores = *arena_offset(d.vm, static_cast<uint32_t>(out + 2));
  d.count = *arena_offset(d.vm, static_cast<uint32_t>(out + 3));
  return d;
}

TEST(CpuOps, DetectionFastNms) {
  Detection d = detection(detection_options(false, 3));
  run_cpu_operators(d.vm, d.arena, "ssd.tflite");
  // Candidates >= 0.3 by their best class: A0 .9 (class 1), A1 .8 (suppressed by A0), A2 .4 (class 0).
  EXPECT_EQ(read_floats(d.arena, d.count, 1), std::vector<float>{2});
  EXPECT_EQ(read_floats(d.arena, d.classes, 3), (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(read_floats(d.arena, d.scores, 3), (std::vector<float>{0.9f, 0.4f, 0}));
  expect_near(read_floats(d.arena, d.boxes, 12), {0, 0, 1, 1, 2.5f, 2.5f, 3.5f, 3.5f, 0, 0, 0, 0});
}

TEST(CpuOps, DetectionRegularNms) {
  Detection d = detection(detection_options(true, 3));
  run_cpu_operators(d.vm, d.arena, "ssd.tflite");
  // Per class: class 0 keeps A1 .8 and A2 .4; class 1 keeps A0 .9 and A2 .35 (classes do not suppress each
  // other); the best three of all.
  EXPECT_EQ(read_floats(d.arena, d.count, 1), std::vector<float>{3});
  EXPECT_EQ(read_floats(d.arena, d.classes, 3), (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(read_floats(d.arena, d.scores, 3), (std::vector<float>{0.9f, 0.8f, 0.4f}));
  expect_near(read_floats(d.arena, d.boxes, 12), {0, 0, 1, 1, 0.05f, 0, 1.05f, 1, 2.5f, 2.5f, 3.5f, 3.5f});
}

TEST(CpuOps, BadOptionsAndOperators) {
  Detection garbage = detection({1, 2, 3});
  expect_input_error([&] { run_cpu_operators(garbage.vm, garbage.arena, "ssd.tflite"); }, "no readable options");
  flexbuffers::Builder fbb;
  fbb.Map([&] { fbb.Int("max_detections", 3); });
  fbb.Finish();
  Detection missing = detection(fbb.GetBuffer());
  expect_input_error([&] { run_cpu_operators(missing.vm, missing.arena, "ssd.tflite"); }, "'max_classes_per_detection'");

  Graph transpose;
  const int32_t x = transpose.npu_output({"x", 9, {4}, 0, {}, {}, 0, false}, 0);
  const int32_t y = transpose.add({"y", 9, {4}, 0, {}, {}, 0, false}, kNone);
  transpose.sg.operators.push_back({transpose.opcode(39), {x}, {y}, {}});
  expect_input_error([&] { check_cpu_operators(transpose.build(), "t.tflite"); }, "cannot run: TRANSPOSE");

  Graph before;
  const int32_t in = before.add({"in", 9, {4}, 0, {0.5f}, {0}, 0, false}, kNone);
  const int32_t f = before.add({"f", 0, {4}, 0, {}, {}, 0, false}, kNone);
  before.sg.operators.insert(before.sg.operators.begin(), {before.opcode(6), {in}, {f}, {}});
  expect_input_error([&] { check_cpu_operators(before.build(), "b.tflite"); }, "does not run after the NPU operator");
}

}  // namespace
}  // namespace ethosu::host
