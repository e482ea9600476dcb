// Hostile recordings (host/recording): files linked out of the capture folder, which were read, their size and CRC
// reported.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "host/config/config.h"
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

}  // namespace
}  // namespace ethosu::host
