// Every model and manifest of the shared conformance data through the host-format readers: the ethos-u
// payload extracted from each Vela model must equal the case's own cmdstream.bin, region0_flash.bin,
// region sizes and offline-planned input/output offsets.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "corpus/corpus_paths.h"
#include "host/formats/case.h"
#include "host/formats/payload.h"
#include "sim/error.h"
#include "sim/files.h"

namespace ethosu::host {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::read_file;
using test::shared_root;

json read_json(const fs::path& p) { return json::parse(sim::read_text_file(p)); }

std::vector<fs::path> case_dirs(const fs::path& root) {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory() && fs::exists(entry.path() / "manifest.json")) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

// Checks one ethos-u operator against a loaded case.
void expect_matches_case(const EthosuOperator& op, const CorpusCase& c) {
  EXPECT_EQ(op.payload.command_stream, read_file(c.command_stream)) << "command stream differs";
  ASSERT_TRUE(op.payload.config);
  EXPECT_EQ(op.payload.config->accelerator(), c.accelerator);
  const CaseRegion* flash = c.region(0);
  ASSERT_NE(flash, nullptr);
  EXPECT_EQ(op.flash.size(), flash->size_bytes);
  if (flash->file) {
    EXPECT_EQ(op.flash, read_file(*flash->file)) << "flash differs";
  }
  ASSERT_NE(c.region(1), nullptr);
  ASSERT_NE(c.region(2), nullptr);
  EXPECT_EQ(op.scratch_bytes, c.region(1)->size_bytes);
  EXPECT_EQ(op.scratch_fast_bytes, c.region(2)->size_bytes);
  const auto expect_tensors = [](const std::vector<NpuTensor>& model, const std::vector<CaseTensor>& manifest) {
    ASSERT_EQ(model.size(), manifest.size());
    for (size_t i = 0; i < model.size(); ++i) {
      SCOPED_TRACE(manifest[i].name);
      EXPECT_EQ(model[i].name, manifest[i].name);
      EXPECT_EQ(manifest[i].region, 1u);
      EXPECT_EQ(model[i].arena_offset, std::optional<uint32_t>(static_cast<uint32_t>(manifest[i].offset)));
      EXPECT_EQ(model[i].size_bytes, manifest[i].size_bytes);
    }
  };
  expect_tensors(op.inputs, c.inputs);
  expect_tensors(op.outputs, c.outputs);
}

TEST(FormatsCorpus, Opcorpus) {
  const fs::path root = shared_root() / "opcorpus";
  if (!fs::is_directory(root)) GTEST_SKIP() << "no opcorpus at " << root << " (set ETHOSU_SIM_SHARED_DIR)";
  size_t matched = 0, tflite_int = 0;
  for (const fs::path& dir : case_dirs(root)) {
    SCOPED_TRACE(dir.string());
    const CorpusCase c = load_case(dir);
    EXPECT_EQ(c.flavour, CaseFlavour::OPCORPUS);
    const VelaModel vm = describe_vela_model(read_file(dir / "vela.tflite"), (dir / "vela.tflite").string());
    EXPECT_TRUE(vm.cpu_operators.empty());
    ASSERT_EQ(vm.ethosu_operators.size(), 1u);
    EXPECT_EQ(vm.ethosu_operators[0].payload.command_stream_offset_bytes, 32u);
    expect_matches_case(vm.ethosu_operators[0], c);
    ASSERT_EQ(c.outputs.size(), 1u);
    if (c.outputs[0].reference_engine == "tflite_int_numpy") ++tflite_int;
    else EXPECT_EQ(c.outputs[0].reference_engine, "armnn_cpuref");
    if (!::testing::Test::HasFailure()) ++matched;
  }
  std::cout << "opcorpus: " << matched << " cases matched (" << tflite_int << " with TFLite-int references)\n";
  EXPECT_GT(matched, 0u);
}

TEST(FormatsCorpus, ModelCorpus) {
  const fs::path root = shared_root() / "corpus";
  if (!fs::is_directory(root)) GTEST_SKIP() << "no corpus at " << root << " (set ETHOSU_SIM_SHARED_DIR)";
  size_t variants = 0, npu_operators = 0, originals = 0;
  for (const fs::path& model_dir : case_dirs(root)) {
    std::vector<std::pair<fs::path, std::string>> builds = {{model_dir, "vela_u65_256.tflite"}};
    if (fs::exists(model_dir / "u65_512" / "manifest.json")) builds.emplace_back(model_dir / "u65_512", "vela_u65_512.tflite");
    for (const auto& [dir, model_file] : builds) {
      SCOPED_TRACE(dir.string());
      const CorpusCase c = load_case(dir);
      EXPECT_EQ(c.flavour, CaseFlavour::MODEL_CORPUS);
      const json m = read_json(dir / "manifest.json");
      const std::vector<uint8_t> model_bytes = read_file(dir / model_file);
      ASSERT_EQ(classify_npu_file(model_bytes, model_file), NpuFileKind::TFLITE);
      const VelaModel vm = describe_vela_model(model_bytes, (dir / model_file).string());
      ASSERT_FALSE(vm.ethosu_operators.empty());
      if (m["vela"].contains("compiled_graph_ops")) {
        EXPECT_EQ(vm.operator_names, m["vela"]["compiled_graph_ops"].get<std::vector<std::string>>());
      }
      if (m["vela"].contains("ops_after_vela_rewrite")) {
        EXPECT_EQ(vm.cpu_operators.size(), m["vela"]["ops_after_vela_rewrite"]["cpu"].get<size_t>());
      }
      size_t this_case = 0;
      if (m.contains("npu_subgraphs")) {
        const json& sgs = m["npu_subgraphs"]["subgraphs"];
        ASSERT_EQ(vm.ethosu_operators.size(), sgs.size());
        for (size_t k = 0; k < sgs.size(); ++k) {
          EXPECT_EQ(vm.ethosu_operators[k].operator_index, sgs[k]["compiled_op_index"].get<uint32_t>());
          const fs::path stream = dir / sgs[k]["cmdstream_file"].get<std::string>();
          ASSERT_TRUE(fs::exists(stream)) << stream;
          EXPECT_EQ(vm.ethosu_operators[k].payload.command_stream, read_file(stream)) << stream;
          if (sgs[k]["is_this_case"].get<bool>()) this_case = k;
        }
      } else {
        ASSERT_EQ(vm.ethosu_operators.size(), 1u);
      }
      const EthosuOperator& op = vm.ethosu_operators[this_case];
      EXPECT_EQ(op.payload_bytes, read_file(dir / "driver_payload.bin"));
      expect_matches_case(op, c);
      npu_operators += vm.ethosu_operators.size();
      ++variants;
    }
    // The published model: every operator is named from the builtin table as the manifest counts them.
    const json m = read_json(model_dir / "manifest.json");
    if (m.contains("original_model") && fs::exists(model_dir / "original.tflite")) {
      const TfliteModel original = parse_tflite(read_file(model_dir / "original.tflite"), "original.tflite");
      std::map<std::string, size_t> counts;
      size_t operators = 0;
      for (const TfliteSubgraph& sg : original.subgraphs) {
        for (const TfliteOperator& o : sg.operators) {
          ++counts[std::string(tflite_builtin_name(o.builtin_code))];
          ++operators;
        }
      }
      EXPECT_EQ(operators, m["original_model"]["operators"].get<size_t>()) << model_dir;
      EXPECT_EQ(counts, (m["original_model"]["op_counts"].get<std::map<std::string, size_t>>())) << model_dir;
      ++originals;
    }
  }
  std::cout << "corpus: " << variants << " compiled models matched (" << npu_operators
            << " ethos-u operators), " << originals << " original models parsed\n";
  EXPECT_GT(variants, 0u);
}

}  // namespace
}  // namespace ethosu::host
