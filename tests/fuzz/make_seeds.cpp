// Writes the fuzz seed corpus: the same well-formed and malformed models, payloads and streams the unit tests
// build, so the fuzzers start from inputs that reach deep into the readers, and the inputs earlier fuzzing runs
// found to add coverage (tests/fuzz/seeds/<target>.hex: one input per line, in hex; libFuzzer's -merge=1 picked
// them, the smallest kept). Usage: make_seeds DIR [HEXFILE...]
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "isa/architecture.h"
#include "isa/assembler.h"
#include "tests/unit/flatbuffer_builder.h"
#include "tests/unit/npu_streams.h"
#include "tests/unit/weight_encoder.h"

namespace tb = ethosu::testing;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: make_seeds DIR [HEXFILE...]\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const tb::Bytes& bytes) {
    std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                     static_cast<std::streamsize>(bytes.size()));
  };
  const std::vector<uint32_t> stream = {0x00000001, 0x4000400F, 0x00000010, 0x0000FFFF};
  tb::ModelSpec one = tb::vela_like_model(stream, {1, 2, 3, 4}, 96, 48);
  write("vela_one_op.tflite", tb::build_model(one));

  tb::ModelSpec multi = one;
  multi.opcodes = {{32, "ethos-u", false}, {114, "", false}, {6, "", true}};
  const tb::OperatorSpec npu = multi.subgraphs[0].operators[0];
  multi.subgraphs[0].operators = {{1, {4}, {4}, {}}, npu, npu, {2, {5}, {5}, {}}};
  multi.buffers[2].external = true;
  write("vela_multi_op_external.tflite", tb::build_model(multi));

  tb::ModelSpec quant = one;
  quant.subgraphs[0].tensors[4].scale = {0.1f, 0.2f};
  quant.subgraphs[0].tensors[4].zero_point = {1, -1};
  quant.subgraphs[0].tensors[4].is_variable = true;
  write("vela_quant.tflite", tb::build_model(quant));

  write("cop1_u65_256.bin", tb::cop1_payload(stream));
  write("cop1_u65_512.bin", tb::cop1_payload(stream, 0x10006009));
  write("cop1_other_actions.bin", tb::words_to_bytes({0x31504F43, 0x1FFF0003, 0x4, 0x00010002, 0xFFFF, 0x5}));
  // COP2 (Vela 5): header, COMMAND_STREAM entry with VEUM metadata (separate I/O regions), 0xFF padding, stream.
  std::vector<uint32_t> cop2 = {0x32504F43, 1,          48 + 4 * static_cast<uint32_t>(stream.size()), 0, 1,
                                40 + 4 * static_cast<uint32_t>(stream.size()), 36, 0x4D554556, 1, 20,
                                0x10003008, 0x10060000, 2, 0, 0, 0xFFFFFFFF};
  cop2.insert(cop2.end(), stream.begin(), stream.end());
  write("cop2_separate_io.bin", tb::words_to_bytes(cop2));
  write("cop1_truncated.bin", tb::words_to_bytes({0x31504F43, 0x00100001, 0x10003008, 0x10060000, 0x00050002, 0}));
  write("bare_stream.bin", tb::words_to_bytes(stream));
  // Weight streams for fuzz_weights (byte 0 even: a stream alone; odd: a 4-byte layout header first), one per
  // kind of slice: Rice with a palette, truncated Rice, uncompressed, zero runs, two slices.
  namespace wt = ethosu::weights::test;
  const auto weight_seed = [&](const std::string& name, std::vector<wt::SliceSpec> slices, tb::Bytes header) {
    wt::BitWriter bits;
    for (const wt::SliceSpec& slice : slices) wt::encode_slice(bits, slice);
    const std::vector<uint8_t> body = bits.finish();
    header.insert(header.end(), body.begin(), body.end());
    write(name, header);
  };
  wt::SliceSpec rice;
  rice.wdiv = 3;
  rice.dirofs = 2;
  rice.palette = {0, 3, 5};
  rice.palbits = 4;
  for (uint32_t i = 0; i < 64; ++i) rice.indices.push_back((i * 37) % 90);
  weight_seed("weights_rice.bin", {rice}, {0});
  // CONV 1x1, 8 -> 4 channels, OFM tile 8, depth-first 8-bit: 8 x 32 weights (channels padded).
  wt::SliceSpec conv = rice;
  conv.indices.resize(256, 7);
  weight_seed("weights_conv_1x1.bin", {conv}, {1, 12, 7, 0, 0});
  wt::SliceSpec trunc = rice;
  trunc.trunc = true;
  for (uint32_t& i : trunc.indices) i %= 24;
  weight_seed("weights_truncated.bin", {trunc}, {0});
  wt::SliceSpec raw = rice;
  raw.wdiv = 7;
  for (uint32_t& i : raw.indices) i %= 4;
  weight_seed("weights_uncompressed.bin", {raw}, {0});
  wt::SliceSpec zeros = rice;
  zeros.zdiv = 1;
  zeros.zruns.assign(zeros.indices.size() + 1, 2);
  wt::SliceSpec more = zeros;
  more.new_palette = false;
  more.zruns.pop_back();
  weight_seed("weights_zero_runs_two_slices.bin", {zeros, more}, {0});
  // fuzz_capture: manifests of zero-filled regions, for the folder of its NPU-level capture (tests/fuzz/fuzz_capture.cpp:
  // stream.bin, region 1 before and after): seven regions of 4 GiB, over a job's limit (a capture.json of this size
  // once made the reader allocate 28 GiB), and two that fit it, read without allocating them.
  const auto capture_seed = [&](const std::string& name, const std::string& zero_regions) {
    const std::string text =
        R"({"format": "ethosu-sim-capture", "version": 2, "source": "fuzz", "recorded_on": "simulator",)"
        R"( "variant": "ethos-u65-256", "timed": true, "parameters": {"mem.axi1.read_latency_cycles": "300"},)"
        R"( "device": null, "wall_ns": null, "pmu_events": [17, 0, 0, 0], "regioncfg": "0x0000aa8a",)"
        R"( "axi_limits": ["0x1f3f00b0", "0x1f3f00b0", "0x1f3f0002", "0x1f3f0002"], "sram_region": null,)"
        R"( "stream": {"file": "stream.bin", "size_bytes": 8, "crc32": "a988dff7"},)"
        R"( "regions": [{"region": 1, "file": "region1.before.bin", "size_bytes": 64, "crc32": "d53c59b8"})" +
        zero_regions +
        R"(], "results": {"status": "0x00000022", "cycle_counter": 1234, "event_counters": [0, 0, 0, 0],)"
        R"( "regions": [{"region": 1, "file": "region1.after.bin", "size_bytes": 64, "crc32": "4f2f2ae5"}]}})";
    write(name, tb::Bytes(text.begin(), text.end()));
  };
  std::string seven;
  for (int r : {0, 2, 3, 4, 5, 6, 7})
    seven += R"(, {"region": )" + std::to_string(r) + R"(, "size_bytes": 4294967296, "zero_filled": true})";
  capture_seed("capture_zero_filled_over_the_limit.json", seven);
  capture_seed("capture_zero_filled.json", R"(, {"region": 0, "size_bytes": 4294967296, "zero_filled": true},)"
                                           R"( {"region": 2, "size_bytes": 4294966272, "zero_filled": true})");
  // A U85 stream behind the headers of fuzz_submit (byte 4 odd: the U85 device) and fuzz_run (byte 4: the
  // configuration's index; region 1 of 1 KiB).
  const std::vector<uint8_t> u85_pool =
      ethosu::isa::assemble(ethosu::npu::test::kU85MaxPool2x2, "u85_pool", ethosu::isa::IsaVersion::V2);
  const auto& variants = ethosu::isa::variants();
  const auto u85_256 = std::find(variants.begin(), variants.end(), ethosu::isa::Variant::U85_256) - variants.begin();
  tb::Bytes submit_u85 = {'F', 'Z', 'S', 'U', 1, 0, 0, 0};
  submit_u85.insert(submit_u85.end(), u85_pool.begin(), u85_pool.end());
  write("submit_u85_maxpool.bin", submit_u85);
  tb::Bytes run_u85 = {'F', 'Z', 'R', 'N', static_cast<uint8_t>(u85_256), 1 << 3, 0, 0};
  run_u85.insert(run_u85.end(), u85_pool.begin(), u85_pool.end());
  write("run_u85_maxpool.bin", run_u85);

  for (int a = 2; a < argc; ++a) {
    std::ifstream in(argv[a]);
    if (!in) {
      std::cerr << "make_seeds: cannot read " << argv[a] << "\n";
      return 2;
    }
    const std::string stem = std::filesystem::path(argv[a]).stem().string();
    std::string line;
    for (size_t n = 0; std::getline(in, line); ++n) {
      tb::Bytes bytes;
      for (size_t i = 0; i + 1 < line.size(); i += 2) bytes.push_back(static_cast<uint8_t>(std::stoul(line.substr(i, 2), nullptr, 16)));
      write(stem + "_grown_" + std::to_string(n), bytes);
    }
  }
  return 0;
}
