// Captures: the folder format round trip, every corruption read_capture() must name, the numbered folders
// under ETHOSU_SIM_CAPTURE, and replays that match or differ.
#include "host/recording/capture.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "sim/files.h"
#include "host/run/job.h"
#include "host/run/run_job.h"
#include "host/config/config.h"
#include "isa/assembler.h"
#include "tests/unit/npu_streams.h"
#include "tests/unit/input_errors.h"
#include "sim/config.h"
#include "sim/error.h"

namespace ethosu::host {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A MAX pool copying 16 int8 channels from region 1 offset 0 to offset 0x20.
constexpr const char* kPool = R"(
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_DEPTH_M1 depth_m1=15
NPU_SET_IFM_PRECISION activation_type=SIGNED
NPU_SET_IFM_STRIDE_X stride=16
NPU_SET_IFM_STRIDE_Y stride=16
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x20
NPU_SET_OFM_DEPTH_M1 depth_m1=15
NPU_SET_OFM_PRECISION activation_type=SIGNED
NPU_SET_OFM_STRIDE_X stride=16
NPU_SET_OFM_STRIDE_Y stride=16
NPU_SET_OFM_STRIDE_C stride=1
NPU_SET_ACTIVATION_MIN clip_boundary=-128
NPU_SET_ACTIVATION_MAX clip_boundary=127
NPU_OP_POOL pooling_mode=MAX
NPU_OP_STOP mask=0xffff
)";

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "capture_test.XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<uint8_t> bytes(std::initializer_list<int> v) { return {v.begin(), v.end()}; }

// Every field away from its default, so that a field the format forgets shows up.
Capture sample() {
  Capture c;
  c.source = "unit-test";
  c.variant = "ethos-u65-512";
  c.stream = bytes({'1', '2', '3', '4', '5', '6', '7', '8', '9'});
  c.regions_before[0] = bytes({1, 2, 3, 4});
  c.regions_before[2] = std::vector<uint8_t>(100, 7);
  c.regions_before[7] = bytes({9});
  c.sram_region = 2;
  c.regioncfg = 0xAA8A;
  c.axi_limits = {1, 2, 3, 0xFFFFFFFF};
  c.pmu_events = {0x11, 0x30, 0, 0x20};
  c.timed = false;
  c.parameters = {{"system.clock_hz", "800000000"}, {"npu.variant", "ethos-u65-512"}, {"npu.cores", "2"}};
  c.regions_after[2] = std::vector<uint8_t>(100, 8);
  c.status = 0xFFFF0022;
  c.cycle_counter = (uint64_t{1} << 40) + 5;
  c.event_counters = {1, 0xFFFFFFFF, 3, 4};
  return c;
}

// A recording of an NXP inference on hardware: every version 2 field away from its default.
Capture inference_sample() {
  Capture c;
  c.source = "nxp-ethosu";
  c.on_hardware = true;
  c.variant = "ethos-u65-256";
  c.pmu_events = {0x11, 0x23, 0, 0};
  c.status_recorded = false;
  c.cycle_counter = 4321;
  c.event_counters = {4300, 4000, 0, 0};
  c.wall_ns = 987654;
  InferenceRecord r;
  r.type = 1;
  r.network = bytes({'C', 'O', 'P', '1'});
  r.ifms = {std::vector<uint8_t>(64, 3), bytes({8, 0, 0, 0}), {}};
  r.ifm_data_bytes = {64, 0, 0};
  r.ofm_free_bytes = {48, 16};
  r.pmu_event_indices = {1, 5, 0, 0};
  r.pmu_cycle_count = true;
  r.status = 0;
  r.ifms_after = {std::vector<uint8_t>(64, 4), {}, {}};
  r.ofms_appended = {std::vector<uint8_t>(48, 6), {}};
  c.inference = r;
  return c;
}

// Region r's bytes before the run, a zero-filled one's too.
std::vector<uint8_t> before_bytes(const Capture& c, unsigned r) {
  return c.regions_before[r].empty() ? std::vector<uint8_t>(c.zero_regions_bytes[r], 0) : c.regions_before[r];
}

void expect_equal(const Capture& a, const Capture& b) {
  EXPECT_EQ(a.on_hardware, b.on_hardware);
  EXPECT_EQ(a.status_recorded, b.status_recorded);
  EXPECT_EQ(a.cycle_counter_recorded, b.cycle_counter_recorded);
  EXPECT_EQ(a.event_counters_recorded, b.event_counters_recorded);
  EXPECT_EQ(a.wall_ns, b.wall_ns);
  ASSERT_EQ(a.device.has_value(), b.device.has_value());
  if (a.device) {
    EXPECT_EQ(a.device->id, b.device->id);
    EXPECT_EQ(a.device->config, b.device->config);
    EXPECT_EQ(a.device->sram_size_bytes, b.device->sram_size_bytes);
  }
  ASSERT_EQ(a.inference.has_value(), b.inference.has_value());
  if (a.inference) {
    const InferenceRecord &x = *a.inference, &y = *b.inference;
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.network, y.network);
    EXPECT_EQ(x.ifms, y.ifms);
    EXPECT_EQ(x.ifm_data_bytes, y.ifm_data_bytes);
    EXPECT_EQ(x.ofm_free_bytes, y.ofm_free_bytes);
    EXPECT_EQ(x.pmu_event_indices, y.pmu_event_indices);
    EXPECT_EQ(x.pmu_cycle_count, y.pmu_cycle_count);
    EXPECT_EQ(x.status, y.status);
    EXPECT_EQ(x.ifms_after, y.ifms_after);
    EXPECT_EQ(x.ofms_appended, y.ofms_appended);
  }
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.variant, b.variant);
  EXPECT_EQ(a.stream, b.stream);
  for (unsigned r = 0; r < isa::kRegionCount; ++r) EXPECT_EQ(before_bytes(a, r), before_bytes(b, r)) << "region " << r;
  EXPECT_EQ(a.sram_region, b.sram_region);
  EXPECT_EQ(a.regioncfg, b.regioncfg);
  EXPECT_EQ(a.axi_limits, b.axi_limits);
  EXPECT_EQ(a.pmu_events, b.pmu_events);
  EXPECT_EQ(a.timed, b.timed);
  EXPECT_EQ(a.parameters, b.parameters);
  EXPECT_EQ(a.regions_after, b.regions_after);
  // What was not recorded has no value to keep.
  if (a.status_recorded) {
    EXPECT_EQ(a.status, b.status);
  }
  if (a.cycle_counter_recorded) {
    EXPECT_EQ(a.cycle_counter, b.cycle_counter);
  }
  if (a.event_counters_recorded) {
    EXPECT_EQ(a.event_counters, b.event_counters);
  }
}

json load_manifest(const fs::path& dir) { return json::parse(std::ifstream(dir / "capture.json")); }
void save_manifest(const fs::path& dir, const json& j) { sim::write_text_file((dir / "capture.json").string(), j.dump(1)); }

// read_capture() must throw InputError whose message contains `file` (a path) and `what`.
void expect_rejected(const fs::path& dir, const std::string& file, const std::string& what) {
  try {
    read_capture(dir);
    ADD_FAILURE() << "read_capture accepted a capture that should fail with: " << what;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

TEST(Capture, RoundTripKeepsEveryField) {
  TempDir t;
  const Capture c = sample();
  write_capture(t.path() / "c", c);
  expect_equal(read_capture(t.path() / "c"), c);
  // Python's zlib.crc32(b"123456789") is the CRC-32 check value 0xcbf43926.
  EXPECT_EQ(load_manifest(t.path() / "c")["stream"]["crc32"], "cbf43926");
  EXPECT_TRUE(fs::exists(t.path() / "c" / "region7.before.bin"));
  EXPECT_FALSE(fs::exists(t.path() / "c" / "region1.before.bin"));  // absent regions have no file
}

TEST(Capture, Crc32IsZlibsAtEveryLength) {
  // zlib.crc32(bytes(i * 7 % 256 for i in range(1000))) and its prefixes, across the 8-byte steps and the tail.
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7 % 256);
  EXPECT_EQ(crc32(data.data(), data.size()), 0x114ad5ffu);
  EXPECT_EQ(crc32(data.data(), 0), 0u);
  const std::vector<std::pair<size_t, uint32_t>> prefixes = {{1, 0xd202ef8du},  {7, 0x28b012a9u},  {8, 0x2cfe44e9u},
                                                             {9, 0x23faf38bu},  {15, 0xc356fbb9u}, {16, 0x54126ba2u},
                                                             {17, 0xba8b4e1eu}, {999, 0x44b4d3acu}};
  for (const auto& [n, want] : prefixes) EXPECT_EQ(crc32(data.data(), n), want) << n << " bytes";
  // Continued: the CRC of the whole from the CRC of a part.
  EXPECT_EQ(crc32(data.data() + 13, data.size() - 13, crc32(data.data(), 13)), 0x114ad5ffu);
}

struct Corruption {
  const char* name;
  std::function<void(const fs::path&)> apply;
  const char* file;  // the file the message must name
  const char* what;
};

TEST(Capture, HardwareRecordingRoundTrip) {
  TempDir t;
  Capture c = sample();
  c.on_hardware = true;
  c.timed = true;
  c.parameters.clear();
  c.status_recorded = false;
  c.wall_ns = 123456789;
  c.device = NpuIdentity{0x10046001, 0x10003009, 0x60000};  // CONFIG: U65, 2^9 MACs per cycle
  write_capture(t.path() / "hw", c);
  const json m = load_manifest(t.path() / "hw");
  EXPECT_EQ(m["version"], 2);
  EXPECT_EQ(m["recorded_on"], "hardware");
  EXPECT_TRUE(m["results"]["status"].is_null());
  expect_equal(read_capture(t.path() / "hw"), c);
  c.cycle_counter_recorded = c.event_counters_recorded = false;
  write_capture(t.path() / "hw", c);
  expect_equal(read_capture(t.path() / "hw"), c);
}

TEST(Capture, InferenceRecordingRoundTrip) {
  TempDir t;
  const Capture c = inference_sample();
  write_capture(t.path(), c);
  EXPECT_TRUE(fs::exists(t.path() / "network.bin"));
  EXPECT_TRUE(fs::exists(t.path() / "ifm2.before.bin"));  // an empty IFM buffer still has its (empty) file
  EXPECT_TRUE(fs::exists(t.path() / "ifm0.after.bin"));
  EXPECT_FALSE(fs::exists(t.path() / "ifm1.after.bin"));  // unchanged
  EXPECT_FALSE(fs::exists(t.path() / "stream.bin"));
  expect_equal(read_capture(t.path()), c);
}

// A board's DEV_QUERY CONFIG names the configuration the recorder writes into the capture: every one the simulator
// models, the U85's too (whose word also holds its AXI ports and weight decoders), and a capture made on a U85 board
// reads back with it.
TEST(Capture, EveryConfigurationsConfigWordNamesIt) {
  for (const isa::Variant v : isa::variants()) {
    const isa::Architecture& a = isa::architecture(v);
    EXPECT_EQ(variant_of_config(a.config).value_or("none"), a.name) << a.describe();
  }
  EXPECT_FALSE(variant_of_config(0xF0000008).has_value());  // product 15
  TempDir t;
  Capture c = sample();
  c.on_hardware = true;
  c.variant = "ethos-u85-512";
  c.parameters.clear();
  c.pmu_events = {};  // the sample's are U65 event ids
  c.event_counters = {};
  const isa::Architecture& u85 = isa::architecture(isa::Variant::U85_512);
  c.device = NpuIdentity{u85.id, u85.config, 0x60000};
  write_capture(t.path() / "u85", c);
  EXPECT_EQ(read_capture(t.path() / "u85").variant, "ethos-u85-512");
}

TEST(Capture, ZerosNeedNoFile) {
  TempDir t;
  Capture c = sample();
  c.regions_before[2].assign(100, 0);  // a cleared SRAM
  write_capture(t.path(), c);
  EXPECT_FALSE(fs::exists(t.path() / "region2.before.bin"));
  EXPECT_EQ(load_manifest(t.path())["regions"][1]["zero_filled"], true);
  const Capture read = read_capture(t.path());
  expect_equal(read, c);
  EXPECT_TRUE(read.regions_before[2].empty());  // kept as a size: nothing allocated
  EXPECT_EQ(read.zero_regions_bytes[2], 100u);
}

TEST(Capture, Version1StillReads) {
  TempDir t;
  const Capture c = sample();
  write_capture(t.path(), c);
  json j = load_manifest(t.path());
  j["version"] = 1;
  for (const char* key : {"recorded_on", "device", "wall_ns"}) j.erase(key);
  save_manifest(t.path(), j);
  expect_equal(read_capture(t.path()), c);
  j["results"]["status"] = nullptr;  // version 1 knows no unrecorded results
  save_manifest(t.path(), j);
  expect_rejected(t.path(), "capture.json", "results.status");
}

TEST(Capture, BadRecordingsNameTheFile) {
  const std::vector<Corruption> cases = {
      {"wrong variant for the device",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["device"] = {{"id", "0x10046001"}, {"config", "0x10003009"}, {"sram_size_bytes", 0}};
         save_manifest(d, j);
       },
       "capture.json", "wrong variant"},
      {"truncated IFM", [](const fs::path& d) { fs::resize_file(d / "ifm0.before.bin", 63); }, "ifm0.before.bin",
       "63 bytes, capture.json says 64"},
      {"IFM after of another size",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["results"]["ifms"][0]["size_bytes"] = 65;
         sim::write_file((d / "ifm0.after.bin").string(), std::vector<uint8_t>(65, 4));
         j["results"]["ifms"][0]["crc32"] = "51869609";
         save_manifest(d, j);
       },
       "capture.json", "mismatched sizes"},
      {"more appended than the OFM had room for",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["inference"]["ofm_free_bytes"][0] = 40;
         save_manifest(d, j);
       },
       "capture.json", "mismatched sizes"},
      {"a gap in the IFM list",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["inference"]["ifms"].erase(1);
         save_manifest(d, j);
         fs::remove(d / "ifm1.before.bin");
       },
       "capture.json", "IFM buffer 1 is missing"},
      {"unknown recorded_on",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["recorded_on"] = "fpga";
         save_manifest(d, j);
       },
       "capture.json", "recorded_on"},
      {"stream key in an inference",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["stream"] = {{"file", "stream.bin"}, {"size_bytes", 4}, {"crc32", "00000000"}};
         save_manifest(d, j);
       },
       "capture.json", "unknown key 'stream'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir t;
    write_capture(t.path(), inference_sample());
    ASSERT_NO_THROW(read_capture(t.path()));
    c.apply(t.path());
    expect_rejected(t.path(), c.file, c.what);
  }
}

TEST(Capture, WritingReplacesAnOlderCaptureButNotOtherFiles) {
  TempDir t;
  Capture c = sample();
  write_capture(t.path(), c);
  c.regions_before[7].clear();
  write_capture(t.path(), c);
  EXPECT_FALSE(fs::exists(t.path() / "region7.before.bin"));
  expect_equal(read_capture(t.path()), c);
  sim::write_text_file((t.path() / "notes.txt").string(), "mine");
  EXPECT_THROW(write_capture(t.path(), c), InputError);
  EXPECT_TRUE(fs::exists(t.path() / "notes.txt"));
}

TEST(Capture, WriteRefusesInconsistentRegions) {
  TempDir t;
  Capture c = sample();
  c.regions_after[0] = bytes({1});  // region 0 holds 4 bytes before
  EXPECT_THROW(write_capture(t.path(), c), InputError);
}

TEST(Capture, EveryCorruptionIsAnInputErrorNamingTheFile) {
  const std::vector<Corruption> cases = {
      {"missing manifest", [](const fs::path& d) { fs::remove(d / "capture.json"); }, "capture.json", "missing"},
      {"missing region file", [](const fs::path& d) { fs::remove(d / "region2.before.bin"); }, "region2.before.bin",
       "missing"},
      {"missing stream", [](const fs::path& d) { fs::remove(d / "stream.bin"); }, "stream.bin", "missing"},
      {"extra file", [](const fs::path& d) { sim::write_text_file((d / "region3.before.bin").string(), "x"); },
       "region3.before.bin", "not part of the capture"},
      {"truncated file", [](const fs::path& d) { fs::resize_file(d / "region2.after.bin", 99); }, "region2.after.bin",
       "99 bytes, capture.json says 100"},
      {"changed byte",
       [](const fs::path& d) {
         auto b = sim::read_file((d / "region0.before.bin").string());
         b[1] ^= 1;
         sim::write_file((d / "region0.before.bin").string(), b);
       },
       "region0.before.bin", "CRC-32"},
      {"size mismatch in the manifest",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["stream"]["size_bytes"] = 10;
         save_manifest(d, j);
       },
       "stream.bin", "9 bytes, capture.json says 10"},
      {"bad JSON", [](const fs::path& d) { sim::write_text_file((d / "capture.json").string(), "{\"format\": "); },
       "capture.json", "not valid JSON"},
      {"number too large for JSON",  // found by fuzz_capture
       [](const fs::path& d) { sim::write_text_file((d / "capture.json").string(), "555e5555555555555555555555"); },
       "capture.json", "not valid JSON"},
      {"unknown version",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["version"] = 3;
         save_manifest(d, j);
       },
       "capture.json", "version 3 is not known"},
      {"other format",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["format"] = "something-else";
         save_manifest(d, j);
       },
       "capture.json", "format"},
      {"unknown variant",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["variant"] = "ethos-u99-1";
         save_manifest(d, j);
       },
       "capture.json", "unknown NPU variant 'ethos-u99-1'"},
      {"unknown key",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["results"]["cycles"] = 1;
         save_manifest(d, j);
       },
       "capture.json", "unknown key 'cycles'"},
      {"missing key",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j.erase("regioncfg");
         save_manifest(d, j);
       },
       "capture.json", "missing key 'regioncfg'"},
      {"bad register value",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["results"]["status"] = "34";
         save_manifest(d, j);
       },
       "capture.json", "results.status"},
      {"unknown parameter",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["parameters"]["mem.axi9.latency"] = "1";
         save_manifest(d, j);
       },
       "capture.json", "unknown parameter 'mem.axi9.latency'"},
      {"variant contradicting the parameters",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["variant"] = "ethos-u65-256";
         save_manifest(d, j);
       },
       "capture.json", "contradicts variant"},
      {"renamed region file",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["regions"][0]["file"] = "../region0.before.bin";
         save_manifest(d, j);
       },
       "capture.json", "expected 'region0.before.bin'"},
      {"region out of range",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["regions"][0]["region"] = 8;
         save_manifest(d, j);
       },
       "capture.json", "regions[0].region"},
      {"sram region on AXI1",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["sram_region"] = 1;
         save_manifest(d, j);
       },
       "capture.json", "not on the SRAM port"},
      {"unknown PMU event",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["pmu_events"][0] = 9999;
         save_manifest(d, j);
       },
       "capture.json", "not a PMU event id of the Ethos-U65"},
      {"negative counter",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["results"]["event_counters"][0] = -1;
         save_manifest(d, j);
       },
       "capture.json", "non-negative integer"},
      {"PMCCNTR beyond 48 bits",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["results"]["cycle_counter"] = uint64_t{1} << 48;
         save_manifest(d, j);
       },
       "capture.json", "results.cycle_counter"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir t;
    write_capture(t.path(), sample());
    ASSERT_NO_THROW(read_capture(t.path()));
    c.apply(t.path());
    expect_rejected(t.path(), c.file, c.what);
  }
}

TEST(Capture, NotAFolder) {
  TempDir t;
  EXPECT_THROW(read_capture(t.path() / "nothing"), InputError);
}

TEST(Capture, EnvironmentGivesFreshNumberedFolders) {
  TempDir t;
  unsetenv("ETHOSU_SIM_CAPTURE");
  EXPECT_FALSE(capture_dir_from_env("linux-accel"));
  setenv("ETHOSU_SIM_CAPTURE", (t.path() / "caps").c_str(), 1);
  const auto a = capture_dir_from_env("linux-accel");
  const auto b = capture_dir_from_env("nxp-ethosu");
  unsetenv("ETHOSU_SIM_CAPTURE");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->filename(), "0001-linux-accel");
  EXPECT_EQ(b->filename(), "0002-nxp-ethosu");
  EXPECT_TRUE(fs::is_directory(*a));
  write_capture(*a, sample());  // the claimed, empty folder takes a capture
  expect_equal(read_capture(*a), sample());
}

// Before any test runs the SystemC platform: an exception thrown after SystemC has switched its coroutines trips
// AddressSanitizer (stale stack poisoning), so refusals are checked on captures that have not run.
TEST(Capture, TimedReplayOfOtherAxiLimitsIsRefusedBeforeRunning) {
  Capture c = sample();
  c.timed = true;
  EXPECT_THROW(check_replay(c, {}), InputError);
  EXPECT_THROW(replay(c), InputError);
  ReplayOptions functional;
  functional.functional = true;
  EXPECT_NO_THROW(check_replay(c, functional));  // the functional model has no AXI limits
  ReplayOptions bad;
  bad.assignments = {"npu.nothing=1"};
  c.axi_limits = Capture{}.axi_limits;
  EXPECT_NO_THROW(check_replay(c, {}));
  EXPECT_THROW(check_replay(c, bad), InputError);
}

TEST(Capture, CheckCaptureDirRefusesFilesAndForeignFolders) {
  TempDir t;
  EXPECT_NO_THROW(check_capture_dir(t.path() / "new"));
  EXPECT_NO_THROW(check_capture_dir(t.path()));  // empty
  sim::write_text_file((t.path() / "file").string(), "x");
  EXPECT_THROW(check_capture_dir(t.path() / "file"), InputError);
  EXPECT_THROW(check_capture_dir(t.path()), InputError);
}

// A capture of a real run of the pool stream, as `ethosu-sim run --capture` makes it.
Capture captured_run(bool timed, const std::vector<std::string>& assignments = {}) {
  Job job;
  job.name = "pool";
  job.stream = isa::assemble(kPool, "pool");
  job.regions[1].resize(256);
  for (size_t i = 0; i < 16; ++i) job.regions[1][i] = static_cast<uint8_t>(i * 7);
  MachineRequest request;
  request.assignments = assignments;
  const sim::Config config = resolve_config(request, job.variant);
  RunOptions options = run_options(config, timed);
  if (timed) options.pmu_events = parse_pmu_events({"CYCLE", "MAC_ACTIVE", "AXI1_WR_DATA_BEAT_WRITTEN"}).events;
  const auto before = job.regions;
  const RunOutcome outcome = run_job(job, options);
  EXPECT_FALSE(outcome.fault);
  return capture_run("unit-test", before, job, options, outcome, config);
}

TEST(Replay, TimedCaptureReplaysIdenticallyToTheCycle) {
  const Capture c = captured_run(true, {"mem.axi1.read_latency_cycles=300"});
  ASSERT_FALSE(c.regions_after[1].empty());
  EXPECT_TRUE(c.regions_after[0].empty());  // the stream writes only region 1
  EXPECT_EQ(c.parameters.at("mem.axi1.read_latency_cycles"), "300");
  EXPECT_GT(c.cycle_counter, 300u);
  EXPECT_GT(c.event_counters[2], 0u);  // the OFM write on AXI1
  TempDir t;
  write_capture(t.path(), c);
  const ReplayResult r = replay(read_capture(t.path()));
  EXPECT_TRUE(r.identical);
  EXPECT_TRUE(r.differences.empty());
  EXPECT_EQ(r.replayed.cycle_counter, c.cycle_counter);
  EXPECT_EQ(r.replayed.event_counters, c.event_counters);
  EXPECT_EQ(r.replayed.regions_after, c.regions_after);
}

TEST(Replay, AVersion1CaptureReplaysIdentically) {
  const Capture c = captured_run(true);
  TempDir t;
  write_capture(t.path(), c);
  json j = load_manifest(t.path());
  j["version"] = 1;
  for (const char* key : {"recorded_on", "device", "wall_ns"}) j.erase(key);
  save_manifest(t.path(), j);
  const ReplayResult r = replay(read_capture(t.path()));
  EXPECT_TRUE(r.identical) << (r.differences.empty() ? "" : r.differences[0]);
  EXPECT_EQ(r.replayed.cycle_counter, c.cycle_counter);
}

// An Ethos-U85 capture carries its 8 event counters; one of 4 (as written before the U85 had 8) still reads.
TEST(Replay, AU85CaptureKeepsEightCounters) {
  Job job;
  job.name = "u85-pool";
  job.variant = "ethos-u85-256";
  job.stream = isa::assemble(npu::test::kU85MaxPool2x2, "u85-pool", isa::IsaVersion::V2);
  job.regions[1].resize(0x200);
  for (size_t i = 0; i < 256; ++i) job.regions[1][0x100 + i] = static_cast<uint8_t>(i * 7 + 3);
  const sim::Config config = resolve_config(MachineRequest{}, job.variant);
  RunOptions options = run_options(config, true);
  options.pmu_events = parse_pmu_events({"MAC_ACTIVE", "AO_ACTIVE", "NPU_ACTIVE", "EXT_RD_TRANS_ACCEPTED",
                                         "EXT_RD_DATA_BEAT_RECEIVED", "EXT_WR_TRANS_ACCEPTED",
                                         "EXT_WR_DATA_BEAT_WRITTEN", "EXT_WR_TRANS_COMPLETED_M"},
                                        isa::Variant::U85_256)
                           .events;
  const auto before = job.regions;
  const RunOutcome outcome = run_job(job, options);
  ASSERT_FALSE(outcome.fault);
  const Capture c = capture_run("unit-test", before, job, options, outcome, config);
  EXPECT_GT(c.event_counters[7], 0u);
  TempDir t;
  write_capture(t.path(), c);
  json j = load_manifest(t.path());
  EXPECT_EQ(j["pmu_events"].size(), 8u);
  EXPECT_EQ(j["results"]["event_counters"].size(), 8u);
  const ReplayResult r = replay(read_capture(t.path()));
  EXPECT_TRUE(r.identical) << (r.differences.empty() ? "" : r.differences[0]);
  EXPECT_EQ(r.replayed.event_counters, c.event_counters);

  j["results"]["event_counters"][7] = c.event_counters[7] + 1;  // a difference in the last counter is found
  save_manifest(t.path(), j);
  const ReplayResult differs = replay(read_capture(t.path()));
  ASSERT_EQ(differs.differences.size(), 1u);
  EXPECT_NE(differs.differences[0].find("PMEVCNTR7 (EXT_WR_TRANS_COMPLETED_M)"), std::string::npos) << differs.differences[0];

  j["pmu_events"] = json::array({48, 64, 35, 384});
  j["results"]["event_counters"] = json::array({c.event_counters[0], c.event_counters[1], c.event_counters[2], c.event_counters[3]});
  save_manifest(t.path(), j);
  EXPECT_TRUE(replay(read_capture(t.path())).identical);

  j["pmu_events"] = json::array({48, 64, 35, 384, 386});
  save_manifest(t.path(), j);
  ethosu::testing::expect_input_error([&] { read_capture(t.path()); }, "expected 8 (or 4) event ids");
}

TEST(Replay, FunctionalCaptureReplaysIdentically) {
  const Capture c = captured_run(false);
  EXPECT_EQ(c.status, 0xFFFF0022u);  // irq_raised, cmd_end_reached and the stop's IRQ mask, as the NPU reports
  EXPECT_EQ(c.status, captured_run(true).status);
  EXPECT_EQ(c.cycle_counter, 0u);
  EXPECT_TRUE(replay(c).identical);
}

TEST(Replay, FindsAChangedOutputByte) {
  Capture c = captured_run(true);
  c.regions_after[1][0x25] ^= 0x10;
  const ReplayResult r = replay(c);
  EXPECT_FALSE(r.identical);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_NE(r.differences[0].find("region 1"), std::string::npos) << r.differences[0];
  EXPECT_NE(r.differences[0].find("1 of 256 bytes differ"), std::string::npos) << r.differences[0];
  EXPECT_NE(r.differences[0].find("offset 0x25"), std::string::npos) << r.differences[0];
}

TEST(Replay, FindsChangedCountersAndStatus) {
  Capture c = captured_run(true);
  c.cycle_counter += 1;
  c.event_counters[1] += 2;
  c.status ^= 0x4;  // bus_status
  const ReplayResult r = replay(c);
  EXPECT_FALSE(r.identical);
  ASSERT_EQ(r.differences.size(), 3u);
  EXPECT_NE(r.differences[0].find("STATUS"), std::string::npos) << r.differences[0];
  EXPECT_NE(r.differences[1].find("PMCCNTR"), std::string::npos) << r.differences[1];
  EXPECT_NE(r.differences[2].find("PMEVCNTR1 (MAC_ACTIVE)"), std::string::npos) << r.differences[2];
}

TEST(Replay, WhatIfParametersChangeTheCycles) {
  const Capture c = captured_run(true);
  ReplayOptions o;
  o.assignments = {"mem.axi1.read_latency_cycles=2000"};
  const ReplayResult r = replay(c, o);
  EXPECT_FALSE(r.identical);
  EXPECT_GT(r.replayed.cycle_counter, c.cycle_counter);
  EXPECT_EQ(r.replayed.parameters.at("mem.axi1.read_latency_cycles"), "2000");
  EXPECT_EQ(r.replayed.regions_after, c.regions_after);
}

TEST(Replay, FunctionalReplayOfATimedCaptureComparesOutputsAndCompletion) {
  Capture c = captured_run(true);
  ReplayOptions o;
  o.functional = true;
  EXPECT_TRUE(replay(c, o).identical);
  c.status = 0x26;  // recorded with a bus error: the functional replay completes
  const ReplayResult r = replay(c, o);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_NE(r.differences[0].find("the replay completed"), std::string::npos) << r.differences[0];
}

}  // namespace
}  // namespace ethosu::host
