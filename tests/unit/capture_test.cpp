// Captures: the folder format round trip, every corruption read_capture() must name, the numbered folders
// under ETHOSU_SIM_CAPTURE, and replays that match or differ.
#include "host/capture.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "host/file_io.h"
#include "host/job.h"
#include "host/run_job.h"
#include "host/sim_config.h"
#include "isa/assembler.h"
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

void expect_equal(const Capture& a, const Capture& b) {
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.variant, b.variant);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.regions_before, b.regions_before);
  EXPECT_EQ(a.sram_region, b.sram_region);
  EXPECT_EQ(a.regioncfg, b.regioncfg);
  EXPECT_EQ(a.axi_limits, b.axi_limits);
  EXPECT_EQ(a.pmu_events, b.pmu_events);
  EXPECT_EQ(a.timed, b.timed);
  EXPECT_EQ(a.parameters, b.parameters);
  EXPECT_EQ(a.regions_after, b.regions_after);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.cycle_counter, b.cycle_counter);
  EXPECT_EQ(a.event_counters, b.event_counters);
}

json load_manifest(const fs::path& dir) { return json::parse(std::ifstream(dir / "capture.json")); }
void save_manifest(const fs::path& dir, const json& j) { write_text_file((dir / "capture.json").string(), j.dump(1)); }

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

TEST(Capture, WritingReplacesAnOlderCaptureButNotOtherFiles) {
  TempDir t;
  Capture c = sample();
  write_capture(t.path(), c);
  c.regions_before[7].clear();
  write_capture(t.path(), c);
  EXPECT_FALSE(fs::exists(t.path() / "region7.before.bin"));
  expect_equal(read_capture(t.path()), c);
  write_text_file((t.path() / "notes.txt").string(), "mine");
  EXPECT_THROW(write_capture(t.path(), c), InputError);
  EXPECT_TRUE(fs::exists(t.path() / "notes.txt"));
}

TEST(Capture, WriteRefusesInconsistentRegions) {
  TempDir t;
  Capture c = sample();
  c.regions_after[0] = bytes({1});  // region 0 holds 4 bytes before
  EXPECT_THROW(write_capture(t.path(), c), InputError);
}

struct Corruption {
  const char* name;
  std::function<void(const fs::path&)> apply;
  const char* file;  // the file the message must name
  const char* what;
};

TEST(Capture, EveryCorruptionIsAnInputErrorNamingTheFile) {
  const std::vector<Corruption> cases = {
      {"missing manifest", [](const fs::path& d) { fs::remove(d / "capture.json"); }, "capture.json", "missing"},
      {"missing region file", [](const fs::path& d) { fs::remove(d / "region2.before.bin"); }, "region2.before.bin",
       "missing"},
      {"missing stream", [](const fs::path& d) { fs::remove(d / "stream.bin"); }, "stream.bin", "missing"},
      {"extra file", [](const fs::path& d) { write_text_file((d / "region3.before.bin").string(), "x"); },
       "region3.before.bin", "not part of the capture"},
      {"truncated file", [](const fs::path& d) { fs::resize_file(d / "region2.after.bin", 99); }, "region2.after.bin",
       "99 bytes, capture.json says 100"},
      {"changed byte",
       [](const fs::path& d) {
         auto b = read_file((d / "region0.before.bin").string());
         b[1] ^= 1;
         write_file((d / "region0.before.bin").string(), b);
       },
       "region0.before.bin", "CRC-32"},
      {"size mismatch in the manifest",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["stream"]["size_bytes"] = 10;
         save_manifest(d, j);
       },
       "stream.bin", "9 bytes, capture.json says 10"},
      {"bad JSON", [](const fs::path& d) { write_text_file((d / "capture.json").string(), "{\"format\": "); },
       "capture.json", "not valid JSON"},
      {"number too large for JSON",  // found by fuzz_capture
       [](const fs::path& d) { write_text_file((d / "capture.json").string(), "555e5555555555555555555555"); },
       "capture.json", "not valid JSON"},
      {"unknown version",
       [](const fs::path& d) {
         json j = load_manifest(d);
         j["version"] = 2;
         save_manifest(d, j);
       },
       "capture.json", "version 2 is not known"},
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
         j["variant"] = "ethos-u55-128";
         save_manifest(d, j);
       },
       "capture.json", "unknown NPU variant 'ethos-u55-128'"},
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
       "capture.json", "not a U65 PMU event"},
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
  write_text_file((t.path() / "file").string(), "x");
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
  ConfigRequest request;
  request.assignments = assignments;
  const sim::Config config = resolve_config(request, job.variant);
  RunOptions options;
  options.timed = timed;
  options.config = platform_config(config);
  options.regioncfg = regioncfg(config);
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
