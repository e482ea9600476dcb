#include "host/formats/payload.h"

#include <gtest/gtest.h>

#include "sim/error.h"
#include "tests/unit/flatbuffer_builder.h"
#include "tests/unit/input_errors.h"

namespace ethosu::host {
namespace {

namespace tb = ethosu::testing;

const std::vector<uint32_t> kStream = {0x00000001, 0x0000FFFF, 0x12345678};

using ethosu::testing::expect_input_error;

TEST(Cop1, DecodesVelaLayout) {
  const DriverPayload p = parse_driver_payload(tb::cop1_payload(kStream), "p.bin");
  ASSERT_EQ(p.actions.size(), 5u);
  EXPECT_EQ(p.actions[0].type, DriverActionType::OPTIMIZER_CONFIG);
  EXPECT_EQ(p.actions[0].byte_offset, 4u);
  EXPECT_EQ(p.actions[1].type, DriverActionType::NOP);
  EXPECT_EQ(p.actions[3].byte_offset, 24u);
  EXPECT_EQ(p.actions[4].type, DriverActionType::COMMAND_STREAM);
  EXPECT_EQ(p.actions[4].byte_offset, 28u);
  EXPECT_EQ(p.command_stream_offset_bytes, 32u);
  EXPECT_EQ(p.command_stream_length_bytes, 12u);
  EXPECT_EQ(p.command_stream, tb::words_to_bytes(kStream));
  ASSERT_TRUE(p.config);
  EXPECT_EQ(p.config->release, 0u);
  EXPECT_EQ(p.config->patch, 1u);
  EXPECT_EQ(p.config->config_word, 0x10003008u);
  EXPECT_EQ(p.config->macs_per_cc_log2, 8u);
  EXPECT_EQ(p.config->shram_size_kib, 48u);
  EXPECT_EQ(p.config->product, 1u);
  EXPECT_FALSE(p.config->custom_dma);
  EXPECT_EQ(p.config->arch_major, 1u);
  EXPECT_EQ(p.config->arch_minor, 0u);
  EXPECT_EQ(p.config->arch_patch, 6u);
  EXPECT_EQ(p.config->accelerator(), "ethos-u65-256");
}

TEST(Cop1, U65_512AndUnknownProduct) {
  EXPECT_EQ(parse_driver_payload(tb::cop1_payload(kStream, 0x10006009), "p").config->accelerator(), "ethos-u65-512");
  EXPECT_EQ(parse_driver_payload(tb::cop1_payload(kStream, 0x00003008), "p").config->accelerator(), "ethos-u55-256");
  const DriverPayload p = parse_driver_payload(tb::cop1_payload(kStream, 0x70003008), "p");
  expect_input_error([&] { p.config->accelerator(); }, "unknown product 7");
}

TEST(Cop1, TwentyFourBitStreamLength) {
  // 65539 words: length bit 16 lives in tag bits 15:8.
  const std::vector<uint32_t> stream(65539, 0xABCD0000);
  const std::vector<uint8_t> bytes = tb::cop1_payload(stream);
  EXPECT_EQ(bytes[28], 0x02);
  EXPECT_EQ(bytes[29], 0x01);
  const DriverPayload p = parse_driver_payload(bytes, "long.bin");
  EXPECT_EQ(p.command_stream_length_bytes, 4u * 65539);
  EXPECT_EQ(p.command_stream.size(), 4u * 65539);
}

TEST(Cop1, OtherActionsAndTrailingWords) {
  // COP1, READ_APB (param 0x1fff), DUMP_SHRAM, COMMAND_STREAM of 1 word, NOP after the stream.
  const DriverPayload p =
      parse_driver_payload(tb::words_to_bytes({0x31504F43, 0x1FFF0003, 0x00000004, 0x00010002, 0xFFFF, 0x5}), "x.bin");
  ASSERT_EQ(p.actions.size(), 4u);
  EXPECT_EQ(p.actions[0].type, DriverActionType::READ_APB);
  EXPECT_EQ(p.actions[0].param, 0x1FFFu);
  EXPECT_EQ(p.actions[1].type, DriverActionType::DUMP_SHRAM);
  EXPECT_EQ(p.actions[3].type, DriverActionType::NOP);
  EXPECT_EQ(p.actions[3].byte_offset, 20u);
  EXPECT_FALSE(p.config);
  EXPECT_EQ(p.command_stream_offset_bytes, 16u);
  EXPECT_EQ(p.command_stream, tb::words_to_bytes({0xFFFF}));
}

TEST(Cop1, Malformed) {
  expect_input_error([] { parse_driver_payload({}, "e.bin"); },
                     "e.bin: byte 0: does not start with a driver payload FourCC (COP1 or COP2)");
  expect_input_error([] { parse_driver_payload(tb::words_to_bytes({0x31504F44, 0x00010002, 0}), "b"); }, "COP1");
  std::vector<uint8_t> odd = tb::cop1_payload(kStream);
  odd.push_back(0);
  expect_input_error([&] { parse_driver_payload(odd, "odd.bin"); }, "not a whole number of 32-bit words");
  std::vector<uint8_t> cut = tb::cop1_payload(kStream);
  cut.resize(cut.size() - 4);
  expect_input_error([&] { parse_driver_payload(cut, "cut.bin"); }, "byte 28 (tag 0x00030002): COMMAND_STREAM of 3 words");
  expect_input_error([] { parse_driver_payload(tb::words_to_bytes({0x31504F43, 0x00000002}), "z"); }, "length 0");
  expect_input_error([] { parse_driver_payload(tb::words_to_bytes({0x31504F43, 0x00000007}), "u"); },
                     "byte 4 (tag 0x00000007): unknown driver action command 7");
  expect_input_error([] { parse_driver_payload(tb::words_to_bytes({0x31504F43, 0x00100001, 0x10003008}), "c"); },
                     "OPTIMIZER_CONFIG needs 2 more words");
  expect_input_error([] { parse_driver_payload(tb::words_to_bytes({0x31504F43, 0x5, 0x5}), "n"); }, "no COMMAND_STREAM");
  expect_input_error([] { parse_driver_payload(tb::words_to_bytes({0x31504F43, 0x00010002, 0, 0x00010002, 0}), "2"); },
                     "second COMMAND_STREAM");
  expect_input_error(
      [] {
        parse_driver_payload(tb::words_to_bytes({0x31504F43, 0x00100001, 0, 0, 0x00100001, 0, 0, 0x00010002, 0}), "2c");
      },
      "second OPTIMIZER_CONFIG");
}

TEST(Cop1, WriterLaysOutAsVela) {
  // make_driver_payload against the independent test builder (the corpus layout, spec 06 section 3).
  const auto stream = tb::words_to_bytes(kStream);
  EXPECT_EQ(make_driver_payload(stream, PayloadFormat::COP1, 0x10003008, kVelaIdWord), tb::cop1_payload(kStream));
  EXPECT_EQ(make_driver_payload(stream, PayloadFormat::COP1, vela_config_word("ethos-u65-512"), kVelaIdWord),
            tb::cop1_payload(kStream, 0x10006009));
}

TEST(Cop1, OldVelaHeaderNamesTheU55) {
  // Vela 3.2 and older write product 0 whatever the target: the header then names an Ethos-U55.
  const auto old = make_driver_payload(tb::words_to_bytes(kStream), PayloadFormat::COP1, 0x00003008, kVelaIdWord);
  const DriverPayload p = parse_driver_payload(old, "old.bin");
  ASSERT_TRUE(p.config);
  EXPECT_EQ(p.config->product, 0u);
  EXPECT_EQ(p.config->accelerator(), "ethos-u55-256");
}

TEST(Cop2, WriterAndReaderFollowVela5) {
  const auto stream = tb::words_to_bytes(kStream);
  const auto bytes = make_driver_payload(stream, PayloadFormat::COP2, 0x10006009, kVelaIdWord, true, 0x12345);
  // Vela 5 (Regor's DriverActions::CreateDriverPayload2): header, entry, VEUM metadata, 0xFF to byte 64.
  const std::vector<uint32_t> head = {0x32504F43, 1,          60,         0,          1,      52,     36,     0x4D554556,
                                      1,          20,         0x10006009, 0x10060000, 2,      0x12345, 0, 0xFFFFFFFF};
  ASSERT_EQ(bytes.size(), 64 + stream.size());
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 64), tb::words_to_bytes(head));
  const DriverPayload p = parse_driver_payload(bytes, "p2.bin");
  EXPECT_EQ(p.format, PayloadFormat::COP2);
  EXPECT_TRUE(p.separate_io_regions);
  EXPECT_EQ(p.staging_bytes, 0x12345u);
  EXPECT_EQ(p.command_stream_offset_bytes, 64u);
  EXPECT_EQ(p.command_stream, stream);
  ASSERT_TRUE(p.config);
  EXPECT_EQ(p.config->accelerator(), "ethos-u65-512");
  EXPECT_EQ(p.config->arch_patch, 6u);
  EXPECT_FALSE(parse_driver_payload(make_driver_payload(stream, PayloadFormat::COP2, 0x10003008, kVelaIdWord), "n")
                   .separate_io_regions);
  const NpuFile f = read_npu_file(bytes, "p2.bin");
  EXPECT_EQ(f.kind, NpuFileKind::DRIVER_PAYLOAD);
  EXPECT_EQ(f.command_stream, stream);
}

TEST(Cop2, Malformed) {
  const auto good = make_driver_payload(tb::words_to_bytes(kStream), PayloadFormat::COP2, 0x10003008, kVelaIdWord);
  auto with_word = [&](size_t word, uint32_t value) {
    auto b = good;
    for (int i = 0; i < 4; ++i) b[4 * word + i] = static_cast<uint8_t>(value >> (8 * i));
    return b;
  };
  expect_input_error([&] { parse_driver_payload({good.begin(), good.begin() + 12}, "s"); }, "shorter than its 16-byte header");
  expect_input_error([&] { parse_driver_payload(with_word(1, 2), "v"); }, "byte 4: COP2 version 2.0");
  expect_input_error([&] { parse_driver_payload(with_word(2, 1000), "l"); }, "byte 8: COP2 entries of 1000 bytes run past");
  expect_input_error([&] { parse_driver_payload(with_word(4, 7), "t"); }, "COP2 entry at byte 16: unknown entry type 7");
  expect_input_error([&] { parse_driver_payload(with_word(5, 500), "d"); }, "500 bytes of data run past");
  expect_input_error([&] { parse_driver_payload(with_word(7, 0), "m"); }, "byte 28: command-stream metadata without the VEUM");
  expect_input_error([&] { parse_driver_payload(with_word(8, 3), "mv"); }, "byte 32: VEUM version 3");
  expect_input_error([&] { parse_driver_payload(with_word(12, 5), "a"); }, "byte 48: unknown addressing mode 5");
  expect_input_error([&] { parse_driver_payload(with_word(6, 38), "o"); }, "is not a non-empty whole number of 32-bit words");
  auto no_stream = with_word(2, 0);
  expect_input_error([&] { parse_driver_payload(no_stream, "e"); }, "COP2 payload has no COMMAND_STREAM entry");
}

TEST(NpuFile, Classification) {
  EXPECT_EQ(classify_npu_file(tb::cop1_payload(kStream), "p"), NpuFileKind::DRIVER_PAYLOAD);
  EXPECT_EQ(classify_npu_file(tb::words_to_bytes(kStream), "s"), NpuFileKind::COMMAND_STREAM);
  const tb::ModelSpec spec = tb::vela_like_model(kStream, {1, 2}, 64, 32);
  EXPECT_EQ(classify_npu_file(tb::build_model(spec), "m"), NpuFileKind::TFLITE);
  expect_input_error([] { classify_npu_file({}, "empty.bin"); }, "empty.bin: file is empty");
  expect_input_error([] { classify_npu_file({1, 2, 3, 4, 5}, "five.bin"); }, "5 bytes is not a driver payload");
}

TEST(NpuFile, ReadsEachKind) {
  const NpuFile bare = read_npu_file(tb::words_to_bytes(kStream), "s");
  EXPECT_EQ(bare.kind, NpuFileKind::COMMAND_STREAM);
  EXPECT_EQ(bare.command_stream, tb::words_to_bytes(kStream));
  EXPECT_FALSE(bare.payload);

  const NpuFile cop1 = read_npu_file(tb::cop1_payload(kStream), "p");
  EXPECT_EQ(cop1.kind, NpuFileKind::DRIVER_PAYLOAD);
  EXPECT_EQ(cop1.command_stream, tb::words_to_bytes(kStream));
  ASSERT_TRUE(cop1.payload);

  const NpuFile model = read_npu_file(tb::build_model(tb::vela_like_model(kStream, {1, 2}, 64, 32)), "m");
  EXPECT_EQ(model.kind, NpuFileKind::TFLITE);
  EXPECT_TRUE(model.command_stream.empty());
  ASSERT_TRUE(model.model);
  EXPECT_EQ(model.model->ethosu_operators.size(), 1u);
}

TEST(VelaModel, DescribesTheEthosuOperator) {
  const std::vector<uint8_t> flash = {9, 8, 7, 6, 5, 4, 3, 2, 1};
  const VelaModel vm = describe_vela_model(tb::build_model(tb::vela_like_model(kStream, flash, 96, 48)), "v.tflite");
  ASSERT_EQ(vm.ethosu_operators.size(), 1u);
  EXPECT_TRUE(vm.cpu_operators.empty());
  EXPECT_EQ(vm.operator_names, std::vector<std::string>{"CUSTOM:ethos-u"});
  ASSERT_TRUE(vm.offline_plan);
  const EthosuOperator& e = vm.ethosu_operators[0];
  EXPECT_EQ(e.subgraph, 0u);
  EXPECT_EQ(e.operator_index, 0u);
  EXPECT_EQ(e.payload.command_stream, tb::words_to_bytes(kStream));
  EXPECT_EQ(e.payload_bytes, tb::cop1_payload(kStream));
  EXPECT_EQ(e.flash, flash);
  EXPECT_EQ(e.scratch_bytes, 96u);
  EXPECT_EQ(e.scratch_fast_bytes, 48u);
  ASSERT_EQ(e.inputs.size(), 1u);
  EXPECT_EQ(e.inputs[0].name, "ifm");
  EXPECT_EQ(e.inputs[0].tensor_index, 4);
  EXPECT_EQ(e.inputs[0].size_bytes, 32u);
  EXPECT_EQ(e.inputs[0].arena_offset, std::optional<uint32_t>(64));
  ASSERT_EQ(e.outputs.size(), 1u);
  EXPECT_EQ(e.outputs[0].size_bytes, 8u);
  EXPECT_EQ(e.outputs[0].arena_offset, std::optional<uint32_t>(0));
}

TEST(VelaModel, SeveralNpuOperatorsAndCpuOperators) {
  tb::ModelSpec spec = tb::vela_like_model(kStream, {1}, 64, 32);
  spec.opcodes = {{32, "ethos-u", false}, {114, "", false}, {32, "my-op", false}, {200, "", false}, {6, "", true}};
  tb::OperatorSpec npu = spec.subgraphs[0].operators[0];
  spec.subgraphs[0].operators = {{1, {4}, {4}, {}}, npu, {2, {5}, {5}, {}}, npu, {3, {5}, {5}, {}}, {4, {5}, {5}, {}}};
  spec.metadata.clear();
  const VelaModel vm = describe_vela_model(tb::build_model(spec), "multi.tflite");
  EXPECT_EQ(vm.operator_names, (std::vector<std::string>{"QUANTIZE", "CUSTOM:ethos-u", "CUSTOM:my-op",
                                                         "CUSTOM:ethos-u", "BUILTIN_200", "DEQUANTIZE"}));
  ASSERT_EQ(vm.ethosu_operators.size(), 2u);
  EXPECT_EQ(vm.ethosu_operators[0].operator_index, 1u);
  EXPECT_EQ(vm.ethosu_operators[1].operator_index, 3u);
  ASSERT_EQ(vm.cpu_operators.size(), 4u);
  EXPECT_EQ(vm.cpu_operators[0].operator_index, 0u);
  EXPECT_EQ(vm.cpu_operators[0].builtin_code, 114);
  EXPECT_EQ(vm.cpu_operators[1].name, "CUSTOM:my-op");
  EXPECT_EQ(vm.cpu_operators[1].builtin_code, kTfliteBuiltinCustom);
  EXPECT_EQ(vm.cpu_operators[2].builtin_code, 200);
  EXPECT_EQ(vm.cpu_operators[3].operator_index, 5u);
  EXPECT_FALSE(vm.offline_plan);
  EXPECT_EQ(vm.ethosu_operators[0].inputs[0].arena_offset, std::nullopt);
}

TEST(VelaModel, MalformedEthosuOperator) {
  tb::ModelSpec spec = tb::vela_like_model(kStream, {1}, 64, 32);
  spec.subgraphs[0].operators[0].inputs = {0, 1, 2};
  expect_input_error([&] { describe_vela_model(tb::build_model(spec), "few.tflite"); },
                     "few.tflite: subgraph 0 operator 0 (ethos-u): has 3 inputs");

  spec = tb::vela_like_model(kStream, {1}, 64, 32);
  spec.buffers[1].data = tb::words_to_bytes({0x31504F43, 0x00050002, 0});  // stream longer than the payload
  expect_input_error([&] { describe_vela_model(tb::build_model(spec), "bad.tflite"); },
                     "operator 0 (ethos-u) input 0, tensor 0 \"cs\": driver action at byte 4");

  spec = tb::vela_like_model(kStream, {1}, 64, 32);
  spec.subgraphs[0].tensors[4].shape = {1, -1};
  expect_input_error([&] { describe_vela_model(tb::build_model(spec), "dyn.tflite"); }, "dynamic dimension");

  spec = tb::vela_like_model(kStream, {1}, 64, 32);
  spec.subgraphs[0].operators[0].inputs = {0, -1, -1, -1};  // omitted flash and scratch read as empty
  const VelaModel vm = describe_vela_model(tb::build_model(spec), "min.tflite");
  EXPECT_TRUE(vm.ethosu_operators[0].flash.empty());
  EXPECT_EQ(vm.ethosu_operators[0].scratch_bytes, 0u);
  spec.subgraphs[0].operators[0].inputs = {-1, 1, 2, 3};
  expect_input_error([&] { describe_vela_model(tb::build_model(spec), "noc.tflite"); }, "input 0 (command stream)");
}

}  // namespace
}  // namespace ethosu::host
