// Every corpus-u85 compilation through the Linux accel/ethosu shim configured as its U85, in-process, as a client
// submits it: CMDSTREAM_BO_CREATE (the shim's validator must take every one of Vela's streams), one BO per region
// the stream reaches with the job's bytes (region 2 the driver's SRAM, by sram_size), SUBMIT, BO_WAIT. The outputs
// are compared bit-exact with the references; while the simulator does not run U85 operations the job must end as
// a failed job does on the driver (an error IRQ, the BOs left as they were), and the comparison skips with the reason.
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corpus/corpus_paths.h"
#include "host/backends/accel/cmdstream.h"
#include "host/backends/accel/device.h"
#include "host/backends/accel/ethosu_accel_uapi.h"
#include "host/backends/shim_env.h"
#include "host/run/job.h"

using namespace ethosu;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kSramBytes = 384 * 1024;  // Vela's Dedicated_Sram_384KB: the largest region 2 of the corpus fits

accel::Device& device(isa::Variant v) {
  static std::map<isa::Variant, std::unique_ptr<accel::Device>> devices;
  auto& d = devices[v];
  if (!d) {
    host::ShimSettings s;
    s.request.variant = isa::variant_name(v);
    s.sram_size_bytes = kSramBytes;
    d = std::make_unique<accel::Device>(s);
  }
  return *d;
}

std::vector<uint8_t> read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A BO mapped into the test, unmapped at the end.
struct Mapped {
  uint8_t* data = nullptr;
  uint64_t size = 0;
  ~Mapped() {
    if (data) munmap(data, size);
  }
};

class AccelU85Corpus : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << test::skip_message();
  }
};

std::vector<fs::path> params() {
  std::vector<fs::path> dirs;
  for (const fs::path& d : test::compilation_dirs())
    if (isa::find_architecture(d.filename().string())->product == isa::Product::U85) dirs.push_back(d);
  if (dirs.empty()) dirs.emplace_back();
  return dirs;
}

TEST_P(AccelU85Corpus, SubmittedAsAClientDoes) {
  const isa::Variant v = isa::find_architecture(GetParam().filename().string())->variant;
  accel::Device& dev = device(v);
  const host::Job job = host::job_from_compilation(GetParam());
  accel::DeviceFile file(dev);

  ethosu_accel_cmdstream_bo_create c{};
  c.size = static_cast<uint32_t>(job.stream.size());
  c.data = reinterpret_cast<uintptr_t>(job.stream.data());
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &c), 0) << "the shim's validator refused the stream";
  std::string reason;
  const auto reach = accel::validate_cmdstream(job.stream.data(), job.stream.size(), v, reason);
  ASSERT_TRUE(reach) << reason;

  ethosu_accel_job j{};
  j.cmd_bo = c.handle;
  std::vector<Mapped> maps(isa::kRegionCount);
  for (unsigned r = 0; r < isa::kRegionCount; ++r) {
    const uint64_t need = std::max<uint64_t>(reach->region_size_bytes[r], job.regions[r].size());
    if (need == 0) continue;
    if (r == ETHOSU_ACCEL_SRAM_REGION) {
      ASSERT_LE(need, kSramBytes);
      ASSERT_TRUE(std::all_of(job.regions[r].begin(), job.regions[r].end(), [](uint8_t b) { return b == 0; }))
          << "region 2 holds data, the driver's SRAM starts cleared";
      j.sram_size = static_cast<uint32_t>(need);
      continue;
    }
    ethosu_accel_bo_create b{};
    b.size = need;
    ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_BO_CREATE, &b), 0);
    ethosu_accel_bo_mmap_offset m{};
    m.handle = b.handle;
    ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &m), 0);
    const intptr_t p = file.map(nullptr, b.size, PROT_READ | PROT_WRITE, MAP_SHARED, m.offset);
    ASSERT_GE(p, 0);
    maps[r] = {reinterpret_cast<uint8_t*>(p), b.size};
    if (!job.regions[r].empty()) std::memcpy(maps[r].data, job.regions[r].data(), job.regions[r].size());
    j.region_bo_handles[r] = b.handle;
  }
  ethosu_accel_submit s{};
  s.jobs = reinterpret_cast<uintptr_t>(&j);
  s.job_count = 1;
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_SUBMIT, &s), 0);
  ethosu_accel_bo_wait w{};
  w.handle = c.handle;
  w.timeout_ns = INT64_MAX;
  EXPECT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_BO_WAIT, &w), 0);
  const std::string log = ::testing::internal::GetCapturedStderr();

  const std::string not_run = test::not_run_reason(GetParam());
  EXPECT_EQ(log.find("Error IRQ") != std::string::npos, !not_run.empty()) << log;
  for (const host::OutputSpec& out : job.outputs) {
    ASSERT_NE(maps[out.region].data, nullptr) << "output '" << out.name << "' is in no BO";
    const std::vector<uint8_t> got(maps[out.region].data + out.offset,
                                   maps[out.region].data + out.offset + out.size_bytes);
    if (!not_run.empty()) {
      EXPECT_EQ(got, job.output_bytes(out)) << "a failed job changed output '" << out.name << "'";
    } else if (out.expected) {
      EXPECT_EQ(got, read_file(*out.expected)) << "output '" << out.name << "'";
    }
  }
  if (!not_run.empty()) GTEST_SKIP() << not_run;
}

INSTANTIATE_TEST_SUITE_P(Corpus, AccelU85Corpus, ::testing::ValuesIn(params()), test::CaseName());

}  // namespace
