#include "host/formats/case.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/error.h"

namespace ethosu::host {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write_file(const fs::path& p, size_t bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << std::string(bytes, '\x5a');
}

// A case folder with cmdstream.bin (8 bytes), region0_flash.bin (16), input0.bin (4), expected_output.bin (6),
// and a u65_512/ variant folder whose manifest points at ../ files.
class CaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ethosu_case_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    write_file(dir_ / "cmdstream.bin", 8);
    write_file(dir_ / "region0_flash.bin", 16);
    write_file(dir_ / "input0.bin", 4);
    write_file(dir_ / "expected_output.bin", 6);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static json opcorpus_manifest() {
    return json::parse(R"({
      "case": "add_i8", "vela": {"accelerator": "ethos-u65-256"},
      "cmdstream": {"file": "cmdstream.bin"},
      "regions": {"0": {"file": "region0_flash.bin", "size_bytes": 16},
                  "1": {"file": null, "size_bytes": 64},
                  "2": {"file": null, "size_bytes": 32}},
      "inputs": [{"name": "ifm", "region": 1, "offset": 8, "size_bytes": 4, "file": "input0.bin"}],
      "outputs": [{"name": "ofm", "region": 1, "offset": 0, "size_bytes": 6, "file": "expected_output.bin"}],
      "reference": {"files": {"expected_output.bin": "armnn_cpuref"}}})");
  }
  // Model-corpus flavour only (no normalised keys).
  static json corpus_manifest(const std::string& up = "") {
    json m = json::parse(R"({
      "name": "kws", "accelerator": "ethos-u65-512", "cmdstream": {"file": "cmdstream.bin"},
      "regions": [{"region": 0, "size": 16, "file": "region0_flash.bin"}, {"region": 1, "size": 64, "file": null},
                  {"region": 2, "size": 32, "file": null}],
      "npu_inputs": [{"name": "ifm", "region": 1, "offset": 8, "bytes": 4, "file": "input0.bin"}],
      "npu_outputs": [{"name": "ofm", "region": 1, "offset": 0, "bytes": 6, "expected_file": "expected_output.bin"}],
      "reference": {"files": {"expected_output.bin": "tflm_reference_kernels"}}})");
    if (!up.empty()) {
      m["npu_inputs"][0]["file"] = up + "input0.bin";
      m["npu_outputs"][0]["expected_file"] = up + "expected_output.bin";
      m["reference"]["files"] = {{up + "expected_output.bin", "tflm_reference_kernels"}};
    }
    return m;
  }

  fs::path write_manifest(const json& m, const fs::path& sub = {}) {
    const fs::path p = dir_ / sub / "manifest.json";
    fs::create_directories(p.parent_path());
    std::ofstream(p) << m.dump(2);
    return p;
  }

  void expect_error(const json& m, const std::string& needle) {
    const fs::path p = write_manifest(m);
    try {
      load_case(p);
      ADD_FAILURE() << "no InputError (expected one mentioning \"" << needle << "\")";
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(p.string()), std::string::npos) << msg;
      EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    }
  }

  fs::path dir_;
};

TEST_F(CaseTest, OpcorpusFlavour) {
  write_manifest(opcorpus_manifest());
  const CorpusCase c = load_case(dir_);
  EXPECT_EQ(c.flavour, CaseFlavour::OPCORPUS);
  EXPECT_EQ(c.name, "add_i8");
  EXPECT_EQ(c.accelerator, "ethos-u65-256");
  EXPECT_EQ(c.command_stream, dir_ / "cmdstream.bin");
  ASSERT_EQ(c.regions.size(), 3u);
  EXPECT_EQ(c.regions[0].file, dir_ / "region0_flash.bin");
  ASSERT_NE(c.region(1), nullptr);
  EXPECT_EQ(c.region(1)->size_bytes, 64u);
  EXPECT_FALSE(c.region(1)->file);
  EXPECT_EQ(c.region(3), nullptr);
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].offset, 8u);
  EXPECT_EQ(c.inputs[0].file, dir_ / "input0.bin");
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].size_bytes, 6u);
  EXPECT_EQ(c.outputs[0].reference_engine, "armnn_cpuref");
  EXPECT_EQ(c.outputs[0].file, dir_ / "expected_output.bin");
}

TEST_F(CaseTest, CorpusFlavourAndVariantFolder) {
  write_manifest(corpus_manifest());
  const CorpusCase c = load_case(dir_ / "manifest.json");
  EXPECT_EQ(c.flavour, CaseFlavour::MODEL_CORPUS);
  EXPECT_EQ(c.name, "kws");
  EXPECT_EQ(c.accelerator, "ethos-u65-512");
  ASSERT_EQ(c.regions.size(), 3u);
  EXPECT_EQ(c.regions[2].size_bytes, 32u);
  EXPECT_EQ(c.inputs[0].size_bytes, 4u);
  EXPECT_EQ(c.outputs[0].file, dir_ / "expected_output.bin");
  EXPECT_EQ(c.outputs[0].reference_engine, "tflm_reference_kernels");

  write_file(dir_ / "u65_512" / "cmdstream.bin", 4);
  write_file(dir_ / "u65_512" / "region0_flash.bin", 16);
  write_manifest(corpus_manifest("../"), "u65_512");
  const CorpusCase v = load_case(dir_ / "u65_512");
  EXPECT_EQ(v.inputs[0].file, dir_ / "input0.bin");
  EXPECT_EQ(v.outputs[0].file, dir_ / "expected_output.bin");
  EXPECT_EQ(v.outputs[0].reference_engine, "tflm_reference_kernels");
  EXPECT_EQ(v.command_stream, dir_ / "u65_512" / "cmdstream.bin");
}

TEST_F(CaseTest, BothFlavoursMustAgree) {
  json m = corpus_manifest();
  const json op = opcorpus_manifest();
  m["regions_detail"] = m["regions"];
  m["regions"] = op["regions"];
  m["inputs"] = op["inputs"];
  m["outputs"] = op["outputs"];
  write_manifest(m);
  const CorpusCase c = load_case(dir_);
  EXPECT_EQ(c.flavour, CaseFlavour::MODEL_CORPUS);
  EXPECT_EQ(c.outputs[0].reference_engine, "tflm_reference_kernels");

  json bad = m;
  bad["npu_inputs"][0]["offset"] = 12;
  expect_error(bad, "npu_inputs[0]: region, offset, size or file disagrees with inputs[0]");
  bad = m;
  bad["npu_outputs"].push_back(bad["npu_outputs"][0]);
  expect_error(bad, "npu_outputs: 2 entries but outputs has 1");
  bad = m;
  bad["regions_detail"][1]["size"] = 128;
  expect_error(bad, "regions_detail: disagrees with regions");
}

TEST_F(CaseTest, MissingKeysAndWrongTypes) {
  json m = opcorpus_manifest();
  m.erase("cmdstream");
  expect_error(m, ": cmdstream: missing");
  m = opcorpus_manifest();
  m["inputs"][0].erase("offset");
  expect_error(m, "inputs[0].offset: missing");
  m = opcorpus_manifest();
  m["inputs"][0]["offset"] = "8";
  expect_error(m, "inputs[0].offset: is not a non-negative integer");
  m = opcorpus_manifest();
  m["regions"]["1"]["size_bytes"] = -1;
  expect_error(m, "regions.1.size_bytes: is not a non-negative integer");
  m = opcorpus_manifest();
  m["regions"]["x"] = m["regions"]["1"];
  expect_error(m, "regions.x: key is not a region number");
  m = opcorpus_manifest();
  m.erase("inputs");
  expect_error(m, "inputs: missing");
  m = opcorpus_manifest();
  m["outputs"] = json::object();
  expect_error(m, "outputs: is not a list");
  m = opcorpus_manifest();
  m.erase("vela");
  expect_error(m, "vela: missing");
  m = opcorpus_manifest();
  m["inputs"][0]["region"] = 9;
  expect_error(m, "inputs[0].region: region 9 is not a base pointer");
  m = opcorpus_manifest();
  m["inputs"][0]["region"] = 3;
  expect_error(m, "inputs[0].region: region 3 is not described");
  m = corpus_manifest();
  m["regions"].push_back(m["regions"][1]);
  expect_error(m, "regions: region 1 appears twice");
}

TEST_F(CaseTest, FilesMustExistWithTheDeclaredSize) {
  json m = opcorpus_manifest();
  m["inputs"][0]["size_bytes"] = 5;
  expect_error(m, "inputs[0].file: " + (dir_ / "input0.bin").string() + " holds 4 bytes but the manifest says 5");
  m = opcorpus_manifest();
  m["regions"]["0"]["size_bytes"] = 8;
  expect_error(m, "regions.0.file");
  m = opcorpus_manifest();
  m["outputs"][0]["file"] = "nope.bin";
  expect_error(m, "outputs[0].file: file " + (dir_ / "nope.bin").string() + " does not exist");
  write_file(dir_ / "odd.bin", 6);
  m = opcorpus_manifest();
  m["cmdstream"]["file"] = "odd.bin";
  expect_error(m, "cmdstream.file: " + (dir_ / "odd.bin").string() + " is not a non-empty whole number");
}

TEST_F(CaseTest, TensorsMustLieInsideTheirRegion) {
  json m = opcorpus_manifest();
  m["inputs"][0]["offset"] = 61;
  expect_error(m, "inputs[0].offset: bytes [61, 65) lie outside region 1 (64 bytes)");
  m["inputs"][0]["offset"] = uint64_t{0xFFFFFFFFFFFFFFFF};
  expect_error(m, "inputs[0].offset");
}

TEST_F(CaseTest, NotJsonOrMissing) {
  std::ofstream(dir_ / "manifest.json") << "{\"case\": ";
  try {
    load_case(dir_);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
  fs::remove(dir_ / "manifest.json");
  EXPECT_THROW(load_case(dir_), InputError);
  std::ofstream(dir_ / "manifest.json") << "[1, 2]";
  EXPECT_THROW(load_case(dir_), InputError);
  // A number beyond double's range is a JSON error of its own kind (out_of_range, not parse_error).
  std::ofstream(dir_ / "manifest.json") << "{\"case\": 1e99999}";
  EXPECT_THROW(load_case(dir_), InputError);
}

TEST_F(CaseTest, FilesMustLieInsideTheCaseFolder) {
  // Someone else's case must not name any file it likes: `run --capture` would copy it into the capture.
  write_file(dir_ / "outside" / "secret.bin", 4);
  const fs::path case_dir = dir_ / "case";
  for (const char* f : {"cmdstream.bin", "region0_flash.bin", "input0.bin", "expected_output.bin"})
    write_file(case_dir / f, fs::file_size(dir_ / f));
  fs::create_symlink(dir_ / "outside" / "secret.bin", case_dir / "link.bin");
  const std::vector<std::string> escapes = {"../outside/secret.bin", (dir_ / "outside" / "secret.bin").string(),
                                            "link.bin"};
  for (const std::string& name : escapes) {
    SCOPED_TRACE(name);
    json m = opcorpus_manifest();
    m["inputs"][0]["file"] = name;
    const fs::path p = write_manifest(m, "case");
    try {
      load_case(p);
      ADD_FAILURE() << "no InputError";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("lies outside the case folder"), std::string::npos) << e.what();
    }
    EXPECT_EQ(load_case(p, true).inputs[0].size_bytes, 4u);  // when the user allows it
  }
}

}  // namespace
}  // namespace ethosu::host
