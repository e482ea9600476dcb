// Hostile recordings (host/recording): a small capture.json that declares gigabytes of zero-filled regions, files
// linked out of the capture folder, wall times no job takes; and the parameters calibration must step over.
// Each once cost gigabytes, read a file outside the folder and reported its size and CRC, printed INT64_MIN, or
// failed with a message naming no parameter.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "host/config/config.h"
#include "host/recording/calibrate.h"
#include "host/recording/capture.h"
#include "host/run/run_job.h"
#include "isa/assembler.h"
#include "sim/error.h"
#include "sim/files.h"
#include "tests/unit/input_errors.h"

namespace ethosu::host {
namespace {

namespace fs = std::filesystem;
using ethosu::testing::input_error_of;
using nlohmann::json;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "recording_robustness.XXXXXX").string();
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

json load_manifest(const fs::path& dir) { return json::parse(std::ifstream(dir / "capture.json")); }
void save_manifest(const fs::path& dir, const json& j) { sim::write_text_file(dir / "capture.json", j.dump(1)); }

// One DMA of `bytes` from region 0 to region 1 at 0x20, run and captured as `run --capture` does.
Capture dma_capture(uint32_t bytes) {
  Job job;
  job.name = "dma";
  job.stream = isa::assemble("NPU_SET_DMA0_SRC_REGION region=0\nNPU_SET_DMA0_DST_REGION region=1\nNPU_SET_DMA0_SRC addr=0\n"
                             "NPU_SET_DMA0_DST addr=0x20\nNPU_SET_DMA0_LEN length=" +
                                 std::to_string(bytes) + "\nNPU_OP_DMA_START\nNPU_OP_STOP mask=0xffff\n",
                             "dma");
  job.regions[0].assign(bytes, 7);
  job.regions[1].assign(bytes + 0x20, 0);
  const sim::Config config = resolve_config(MachineRequest{}, job.variant);
  const RunOptions options = run_options(config, true);
  const auto before = job.regions;
  const RunOutcome outcome = run_job(job, options);
  EXPECT_FALSE(outcome.fault);
  return capture_run("unit-test", before, job, options, outcome, config);
}

TEST(RecordingRobustness, FilesLinkedOutOfTheCaptureFolderAreNotRead) {
  TempDir t;
  const fs::path dir = t.path() / "capture";
  write_capture(dir, dma_capture(64));
  // The same bytes outside the folder, linked in: size and CRC match, yet the link is refused, as a case
  // folder's would be, before the file is opened (its size and CRC are never reported).
  const fs::path outside = t.path() / "outside.bin";
  fs::copy_file(dir / "region0.before.bin", outside);
  fs::remove(dir / "region0.before.bin");
  fs::create_symlink(outside, dir / "region0.before.bin");
  std::string e = input_error_of([&] { read_capture(dir); });
  EXPECT_NE(e.find("region0.before.bin: lies outside the capture folder"), std::string::npos) << e;
  fs::remove(dir / "region0.before.bin");
  fs::create_symlink("/etc/passwd", dir / "region0.before.bin");
  e = input_error_of([&] { read_capture(dir); });
  EXPECT_NE(e.find("lies outside the capture folder"), std::string::npos) << e;
  EXPECT_EQ(e.find("CRC"), std::string::npos) << e;
  EXPECT_EQ(e.find("bytes"), std::string::npos) << e;
  // A link inside the folder is the folder's own file.
  fs::remove(dir / "region0.before.bin");
  fs::copy_file(outside, dir / "data");
  fs::create_symlink("data", dir / "region0.before.bin");
  EXPECT_NE(input_error_of([&] { read_capture(dir); }).find("data: not part of the capture"), std::string::npos);
  // The manifest itself.
  fs::remove(dir / "data");
  fs::remove(dir / "region0.before.bin");
  fs::copy_file(outside, dir / "region0.before.bin");
  fs::rename(dir / "capture.json", t.path() / "capture.json");
  fs::create_symlink(t.path() / "capture.json", dir / "capture.json");
  EXPECT_NE(input_error_of([&] { read_capture(dir); }).find("capture.json: lies outside the capture folder"),
            std::string::npos);
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(RecordingRobustness, ZeroFilledRegionsCostNothingUntilARunNeedsThem) {
  TempDir t;
  Capture c = dma_capture(64);
  c.regions_after[1].clear();  // the results of region 1 are not compared: its recorded size is 1 GiB below
  write_capture(t.path(), c);
  json j = load_manifest(t.path());
  // Region 1 as 1 GiB of zeros, region 3 as 1 GiB no stream uses: a few hundred bytes of manifest.
  j["regions"][1] = {{"region", 1}, {"size_bytes", uint64_t{1} << 30}, {"zero_filled", true}};
  j["regions"].push_back({{"region", 3}, {"size_bytes", uint64_t{1} << 30}, {"zero_filled", true}});
  save_manifest(t.path(), j);
  const long before = max_rss_kib();
  const Capture read = read_capture(t.path());
  EXPECT_EQ(read.region_before_bytes(1), uint64_t{1} << 30);
  EXPECT_EQ(read.region_before_bytes(3), uint64_t{1} << 30);
  // A run allocates a zero-filled region as far as the stream reaches (region 1: the DMA's 64 bytes at 0x20),
  // and nothing of one the stream never touches; the cycles are the recorded ones.
  const Job job = capture_job(read, "replay");
  EXPECT_EQ(job.regions[1].size(), 0x20u + 64);
  EXPECT_TRUE(job.regions[3].empty());
  const ReplayResult r = replay(read);
  EXPECT_TRUE(r.identical) << (r.differences.empty() ? "" : r.differences.front());
  EXPECT_LT(max_rss_kib() - before, 64 * 1024) << "KiB grown reading and replaying 2 GiB of zero-filled regions";
}

TEST(RecordingRobustness, ACaptureHoldsNoMoreThanAJob) {
  TempDir t;
  write_capture(t.path(), dma_capture(64));
  json j = load_manifest(t.path());
  for (unsigned r = 2; r < 5; ++r)
    j["regions"].push_back({{"region", r}, {"size_bytes", uint64_t{1} << 32}, {"zero_filled", true}});
  save_manifest(t.path(), j);
  const long before = max_rss_kib();
  const std::string e = input_error_of([&] { read_capture(t.path()); });
  EXPECT_NE(e.find("capture.json: regions: the stream and the regions before the run hold"), std::string::npos) << e;
  EXPECT_NE(e.find("over the 8 GiB limit of a job"), std::string::npos) << e;
  EXPECT_LT(max_rss_kib() - before, 64 * 1024);
  // A single region over 4 GiB, zero-filled or not.
  j = load_manifest(t.path());
  j["regions"] = json::array({{{"region", 1}, {"size_bytes", (uint64_t{1} << 32) + 1}, {"zero_filled", true}}});
  save_manifest(t.path(), j);
  EXPECT_NE(input_error_of([&] { read_capture(t.path()); }).find("regions[0].size_bytes: 4294967297 is larger than"),
            std::string::npos);
}

TEST(RecordingRobustness, RecordingsBeyondTheKeptBytesAreReadAgainForEachRun) {
  TempDir t;
  const Capture c = dma_capture(4096);
  std::vector<std::string> folders;
  for (int k = 0; k < 3; ++k) {
    folders.push_back((t.path() / std::to_string(k)).string());
    write_capture(folders.back(), c);
  }
  const std::vector<RecordedJob> kept = read_recordings(folders);
  const std::vector<RecordedJob> released = read_recordings(folders, 1);
  const npu::NpuConfig config = npu::read_config(resolve_config(MachineRequest{}, "ethos-u65-256"));
  for (size_t k = 0; k < folders.size(); ++k) {
    EXPECT_GT(kept[k].job_bytes(), 0u);
    EXPECT_EQ(released[k].job_bytes(), 0u);
    EXPECT_EQ(released[k].simulate(config), kept[k].simulate(config));
    EXPECT_EQ(released[k].simulate(config), c.cycle_counter);
  }
}

TEST(RecordingRobustness, WallTimesAreBoundedAndTheClockNoteStaysFinite) {
  TempDir t;
  Capture c = dma_capture(64);
  c.on_hardware = true;
  c.wall_ns = 1000;
  write_capture(t.path(), c);
  json j = load_manifest(t.path());
  j["wall_ns"] = uint64_t{1} << 63;
  save_manifest(t.path(), j);
  EXPECT_NE(input_error_of([&] { read_capture(t.path()); }).find("wall_ns: 9223372036854775808 is larger than"),
            std::string::npos);
  // The largest wall times read: two jobs a cycle apart and 2^52 ns apart put the clock line's intercept far below
  // any integer; the note prints it as the number it is.
  c.cycle_counter = 1000000;
  c.wall_ns = uint64_t{1} << 52;
  std::vector<RecordedJob> jobs;
  jobs.emplace_back(c, "a");
  c.cycle_counter = 1000001;
  c.wall_ns = uint64_t{1} << 53;
  jobs.emplace_back(c, "b");
  CalibrationOptions o;
  o.fit = {"system.clock_hz"};
  o.max_evaluations = 4;
  const CalibrationResult r = calibrate(jobs, o);
  ASSERT_EQ(r.parameters.size(), 1u);
  const std::string& note = r.parameters[0].note;
  EXPECT_NE(note.find("around wall = -4503595123770868629504 ns"), std::string::npos) << note;
}

TEST(RecordingRobustness, BurstBytesStepsInWholeBeats) {
  // Only multiples of the 16-byte bus run: the registry says so, naming the parameter.
  MachineRequest request;
  request.assignments = {"mem.axi1.burst_bytes=24"};
  const std::string e = input_error_of([&] { resolve_config(request, "ethos-u65-256"); });
  EXPECT_NE(e.find("'mem.axi1.burst_bytes' = 24 is out of range [16, 4096] in steps of 16"), std::string::npos) << e;
  // Calibration searches only values that run (it once failed at its first step).
  std::vector<RecordedJob> jobs;
  for (uint32_t bytes : {48u, 1040u}) {
    Capture c = dma_capture(bytes);
    c.on_hardware = true;
    c.cycle_counter += 50;
    jobs.emplace_back(c, "dma" + std::to_string(bytes));
  }
  CalibrationOptions o;
  o.fit = {"mem.axi1.burst_bytes"};
  o.max_evaluations = 40;
  const CalibrationResult r = calibrate(jobs, o);
  ASSERT_EQ(r.parameters.size(), 1u);
  EXPECT_EQ(std::stoi(r.parameters[0].after) % 16, 0) << r.parameters[0].after;
}

}  // namespace
}  // namespace ethosu::host
