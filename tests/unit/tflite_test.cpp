#include "host/formats/tflite.h"

#include <gtest/gtest.h>

#include <random>

#include "sim/error.h"
#include "tests/unit/flatbuffer_builder.h"
#include "tests/unit/input_errors.h"

namespace ethosu::host {
namespace {

namespace tb = ethosu::testing;

tb::ModelSpec sample_spec() { return tb::vela_like_model({0x00000001, 0x0000FFFF}, {1, 2, 3, 4, 5}, 96, 48); }

using ethosu::testing::expect_input_error;

TEST(Tflite, ReadsTensorsOperatorsBuffersAndMetadata) {
  const TfliteModel m = parse_tflite(tb::build_model(sample_spec()), "sample.tflite");
  EXPECT_EQ(m.version, 3u);
  ASSERT_EQ(m.subgraphs.size(), 1u);
  const TfliteSubgraph& sg = m.subgraphs[0];
  EXPECT_EQ(sg.name, "main");
  ASSERT_EQ(sg.tensors.size(), 6u);
  const TfliteTensor& ifm = sg.tensors[4];
  EXPECT_EQ(ifm.name, "ifm");
  EXPECT_EQ(ifm.type, static_cast<int>(TfliteType::INT8));
  EXPECT_EQ(ifm.shape, (std::vector<int32_t>{1, 4, 4, 2}));
  EXPECT_EQ(ifm.scale, std::vector<float>{0.5f});
  EXPECT_EQ(ifm.zero_point, std::vector<int64_t>{-3});
  EXPECT_EQ(sg.tensors[1].buffer, 2u);
  EXPECT_EQ(sg.inputs, std::vector<int32_t>{4});
  EXPECT_EQ(sg.outputs, std::vector<int32_t>{5});
  ASSERT_EQ(sg.operators.size(), 1u);
  const TfliteOperator& op = sg.operators[0];
  EXPECT_EQ(op.builtin_code, kTfliteBuiltinCustom);
  EXPECT_EQ(op.custom_code, "ethos-u");
  EXPECT_EQ(op.inputs, (std::vector<int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(op.custom_options, (std::vector<uint8_t>{1, 4, 1}));
  ASSERT_EQ(m.buffers.size(), 4u);
  EXPECT_EQ(m.buffer(2), (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(m.buffer(0).empty());
  ASSERT_EQ(m.metadata.size(), 1u);
  EXPECT_EQ(m.metadata[0].first, "OfflineMemoryAllocation");
  EXPECT_EQ(m.metadata[0].second, 3u);
  expect_input_error([&] { m.buffer(4); }, "buffer index 4");
}

TEST(Tflite, QuantizationAndVariableFlag) {
  tb::ModelSpec spec = sample_spec();
  spec.subgraphs[0].tensors[5].scale = {0.1f, 0.2f, 0.3f};
  spec.subgraphs[0].tensors[5].zero_point = {0, 1, -2};
  spec.subgraphs[0].tensors[5].quantized_dimension = 3;
  spec.subgraphs[0].tensors[5].is_variable = true;
  const TfliteTensor t = parse_tflite(tb::build_model(spec), "q.tflite").subgraphs[0].tensors[5];
  EXPECT_EQ(t.scale, (std::vector<float>{0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(t.zero_point, (std::vector<int64_t>{0, 1, -2}));
  EXPECT_EQ(t.quantized_dimension, 3);
  EXPECT_TRUE(t.is_variable);
}

TEST(Tflite, BuiltinCodeIsTheLargerOfTheTwoFields) {
  tb::ModelSpec spec = sample_spec();
  spec.opcodes = {{3, "", true}, {150, "", false}};  // CONV_2D in the old field only; GELU beyond int8
  spec.subgraphs[0].operators = {{0, {4}, {5}, {}}, {1, {4}, {5}, {}}};
  const TfliteModel m = parse_tflite(tb::build_model(spec), "codes.tflite");
  EXPECT_EQ(m.subgraphs[0].operators[0].builtin_code, 3);
  EXPECT_EQ(m.subgraphs[0].operators[1].builtin_code, 150);
  EXPECT_TRUE(m.subgraphs[0].operators[0].custom_code.empty());
}

TEST(Tflite, ExternalBufferData) {
  tb::ModelSpec spec = sample_spec();
  spec.buffers[2] = {{9, 8, 7, 6, 5, 4, 3}, true};
  const std::vector<uint8_t> file = tb::build_model(spec);
  const TfliteModel m = parse_tflite(file, "ext.tflite");
  EXPECT_EQ(m.buffer(2), (std::vector<uint8_t>{9, 8, 7, 6, 5, 4, 3}));
  // The data lives after the flatbuffer: cutting it off must be reported, not read past the end.
  const std::vector<uint8_t> cut(file.begin(), file.end() - 3);
  expect_input_error([&] { parse_tflite(cut, "ext.tflite"); }, "external data");
}

TEST(Tflite, OfflineMemoryAllocation) {
  const TfliteModel m = parse_tflite(tb::build_model(sample_spec()), "plan.tflite");
  const std::optional<OfflineMemoryAllocation> plan = read_offline_memory_allocation(m, "plan.tflite");
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->version, 0u);
  EXPECT_EQ(plan->subgraph_count, 1u);
  EXPECT_EQ(plan->offsets.size(), 6u);
  EXPECT_EQ(plan->offset_of(m, 0, 4), std::optional<uint32_t>(64));
  EXPECT_EQ(plan->offset_of(m, 0, 5), std::optional<uint32_t>(0));
  EXPECT_EQ(plan->offset_of(m, 0, 0), std::nullopt);
  expect_input_error([&] { plan->offset_of(m, 0, 6); }, "no entry");

  tb::ModelSpec none = sample_spec();
  none.metadata.clear();
  EXPECT_FALSE(read_offline_memory_allocation(parse_tflite(tb::build_model(none), "x"), "x"));
}

TEST(Tflite, OfflineMemoryAllocationMalformed) {
  const auto with_plan = [](const std::vector<uint32_t>& words) {
    tb::ModelSpec spec = sample_spec();
    spec.buffers[3].data = tb::words_to_bytes(words);
    return parse_tflite(tb::build_model(spec), "plan.tflite");
  };
  expect_input_error([&] { read_offline_memory_allocation(with_plan({0, 1, 5, 0, 0, 0, 0, 0}), "p"); }, "tensor count 5");
  expect_input_error([&] { read_offline_memory_allocation(with_plan({0, 1}), "p"); }, "3-word header");
  expect_input_error([&] { read_offline_memory_allocation(with_plan({1, 1, 6, 0, 0, 0, 0, 0, 0}), "p"); },
                     "unsupported version");
  expect_input_error([&] { read_offline_memory_allocation(with_plan({0, 2, 6, 0, 0, 0, 0, 0, 0}), "p"); },
                     "subgraph count 2");
  expect_input_error([&] { read_offline_memory_allocation(with_plan({0, 1, 6, 0, 0, 0, 0, 0, 0xFFFFFFFE}), "p"); },
                     "byte 32: negative offset -2");
}

TEST(Tflite, TensorBytes) {
  TfliteTensor t;
  t.type = static_cast<int>(TfliteType::INT16);
  t.shape = {2, 3};
  EXPECT_EQ(tflite_tensor_bytes(t, "x"), 12u);
  t.type = static_cast<int>(TfliteType::INT4);
  t.shape = {3};
  EXPECT_EQ(tflite_tensor_bytes(t, "x"), 2u);
  t.shape = {};
  t.type = static_cast<int>(TfliteType::FLOAT32);
  EXPECT_EQ(tflite_tensor_bytes(t, "x"), 4u);  // a scalar
  t.shape = {1, -1};
  expect_input_error([&] { tflite_tensor_bytes(t, "x"); }, "dynamic dimension");
  t.shape = {65536, 65536, 65536};
  expect_input_error([&] { tflite_tensor_bytes(t, "x"); }, "2^48");
  t.shape = {4};
  t.type = static_cast<int>(TfliteType::STRING);
  expect_input_error([&] { tflite_tensor_bytes(t, "x"); }, "no fixed element size");
}

TEST(Tflite, BuiltinNames) {
  EXPECT_EQ(tflite_builtin_name(0), "ADD");
  EXPECT_EQ(tflite_builtin_name(3), "CONV_2D");
  EXPECT_EQ(tflite_builtin_name(32), "CUSTOM");
  EXPECT_EQ(tflite_builtin_name(114), "QUANTIZE");
  EXPECT_EQ(tflite_builtin_name(126), "BATCH_MATMUL");
  EXPECT_TRUE(tflite_builtin_name(127).empty());
  EXPECT_TRUE(tflite_builtin_name(-1).empty());
}

TEST(Tflite, RejectsShortOrForeignFiles) {
  expect_input_error([] { parse_tflite({}, "empty.tflite"); }, "empty.tflite: 0 bytes is too short");
  expect_input_error([] { parse_tflite({1, 2, 3, 4, 'T', 'F', 'L'}, "s"); }, "too short");
  std::vector<uint8_t> file = tb::build_model(sample_spec());
  file[7] = '2';
  expect_input_error([&] { parse_tflite(file, "id.tflite"); }, "TFL3");
}

TEST(Tflite, EveryTruncationIsAnInputError) {
  const std::vector<uint8_t> file = tb::build_model(sample_spec());
  for (size_t n = 0; n < file.size(); ++n) {
    const std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_THROW(parse_tflite(cut, "cut.tflite"), InputError) << "prefix of " << n << " bytes";
  }
}

TEST(Tflite, RandomCorruptionNeverEscapesAsAnotherError) {
  const std::vector<uint8_t> file = tb::build_model(sample_spec());
  std::mt19937 rng(12345);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> bad = file;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) bad[8 + rng() % (bad.size() - 8)] = static_cast<uint8_t>(rng());
    try {
      parse_tflite(bad, "corrupt.tflite");
      ++parsed;
    } catch (const InputError&) {
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_EQ(parsed + rejected, 3000);
}

// Hand-made files for the wire-format checks the builder never produces.
tb::Ref raw_words(std::vector<uint32_t> words) {
  return [words = std::move(words)](tb::Bytes& b) {
    tb::align(b, 4);
    const size_t pos = b.size();
    for (const uint32_t w : words) tb::append(b, w, 4);
    return pos;
  };
}

TEST(Tflite, AbsurdVectorLength) {
  const auto file = tb::finish(tb::table({tb::ref(2, raw_words({0xFFFFFFFF}))}));
  expect_input_error([&] { parse_tflite(file, "huge.tflite"); }, "Model.subgraphs at byte");
}

TEST(Tflite, VtableOutsideTheFile) {
  std::vector<uint8_t> file = tb::finish(tb::table({tb::scalar(0, 4, 3)}));
  const uint32_t root = file[0];
  tb::put(file, root, 0x7FFFFFF0, 4);  // soffset: vtable far before byte 0
  expect_input_error([&] { parse_tflite(file, "vt.tflite"); }, "points outside the file");
  tb::put(file, root, static_cast<uint32_t>(-1000000), 4);  // vtable far beyond the end
  expect_input_error([&] { parse_tflite(file, "vt.tflite"); }, "points outside the file");
}

TEST(Tflite, SelfReferencingOffsetsTerminate) {
  // The root points at a table whose vtable is the table itself (soffset 0): vtable size 0 is invalid.
  std::vector<uint8_t> file = {8, 0, 0, 0, 'T', 'F', 'L', '3', 0, 0, 0, 0};
  expect_input_error([&] { parse_tflite(file, "self.tflite"); }, "vtable size 0");
}

TEST(Tflite, StringWithoutTerminator) {
  std::vector<uint8_t> file = tb::build_model(sample_spec());
  const std::string name = "OfflineMemoryAllocation";
  const auto it = std::search(file.begin(), file.end(), name.begin(), name.end());
  ASSERT_NE(it, file.end());
  *(it + static_cast<std::ptrdiff_t>(name.size())) = 'X';
  expect_input_error([&] { parse_tflite(file, "str.tflite"); }, "not NUL-terminated");
}

TEST(Tflite, SharedDataCannotExpandWithoutBound) {
  // 20000 tensor slots all pointing at one tensor with a 20000-entry shape: 1.6 GB if decoded.
  constexpr uint32_t kCount = 20000;
  tb::TensorSpec big{"big", 3, std::vector<int32_t>(kCount, 1), 0, {}, {}, 0, false};
  const tb::Ref shared_tensors = [&](tb::Bytes& b) {
    tb::align(b, 4);
    const size_t pos = tb::append(b, kCount, 4);
    b.resize(b.size() + 4 * kCount);
    const size_t target = tb::tensor(big)(b);
    for (uint32_t i = 0; i < kCount; ++i) tb::put(b, pos + 4 + 4 * i, target - (pos + 4 + 4 * i), 4);
    return pos;
  };
  const auto file = tb::finish(tb::table({tb::ref(2, tb::refs({tb::table({tb::ref(0, shared_tensors)})})),
                                          tb::ref(4, tb::refs({tb::table({})}))}));
  expect_input_error([&] { parse_tflite(file, "shared.tflite"); }, "implausibly often");
}

TEST(Tflite, IndicesAreValidated) {
  tb::ModelSpec spec = sample_spec();
  spec.subgraphs[0].tensors[2].buffer = 9;
  expect_input_error([&] { parse_tflite(tb::build_model(spec), "b.tflite"); }, "uses buffer 9");

  spec = sample_spec();
  spec.subgraphs[0].operators[0].opcode_index = 1;
  expect_input_error([&] { parse_tflite(tb::build_model(spec), "o.tflite"); }, "operator code 1 does not exist");

  spec = sample_spec();
  spec.subgraphs[0].operators[0].inputs.push_back(6);
  expect_input_error([&] { parse_tflite(tb::build_model(spec), "t.tflite"); }, "tensor index 6 is out of range");

  spec = sample_spec();
  spec.subgraphs[0].operators[0].inputs.push_back(-1);  // omitted optional input: allowed
  EXPECT_EQ(parse_tflite(tb::build_model(spec), "t.tflite").subgraphs[0].operators[0].inputs.back(), -1);
  spec.subgraphs[0].outputs = {-1};
  expect_input_error([&] { parse_tflite(tb::build_model(spec), "t.tflite"); }, "SubGraph.outputs");

  spec = sample_spec();
  spec.metadata = {{"OfflineMemoryAllocation", 7}};
  expect_input_error([&] { parse_tflite(tb::build_model(spec), "m.tflite"); }, "Metadata.buffer");
}

}  // namespace
}  // namespace ethosu::host
