// The Linux accel/ethosu shim configured as an Ethos-U85: DEV_QUERY presents the U85 as the driver reads it (ID of
// architecture major 2, so that Mesa takes its U85 path; the configuration's CONFIG; the SRAM), PERFMON_CREATE takes
// the U85's event ids (up to 671), and a U85 stream goes through CMDSTREAM_BO_CREATE, SUBMIT and BO_WAIT. Until the
// simulator runs U85 operations the job ends as a failed job does on the driver (an error IRQ). Vela's streams:
// tests/corpus/accel_u85_corpus_test.cpp.
#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/backends/accel/device.h"
#include "host/backends/accel/ethosu_accel_uapi.h"
#include "host/backends/shim_env.h"
#include "isa/architecture.h"
#include "isa/assembler.h"

namespace {

namespace acc = ethosu::accel;
namespace host = ethosu::host;
namespace isa = ethosu::isa;

constexpr uint32_t kSramBytes = 384 * 1024;  // Vela's Dedicated_Sram_384KB, the U85's default memory mode

acc::Device& device() {
  static acc::Device d = [] {
    host::ShimSettings s;
    s.request.variant = "ethos-u85-256";
    s.sram_size_bytes = kSramBytes;
    return acc::Device(s);
  }();
  return d;
}

TEST(AccelU85, DevQueryPresentsTheU85) {
  acc::DeviceFile file(device());
  ethosu_accel_npu_info info{};
  ethosu_accel_dev_query q{};
  q.type = ETHOSU_ACCEL_DEV_QUERY_NPU_INFO;
  q.size = sizeof info;
  q.pointer = reinterpret_cast<uintptr_t>(&info);
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_DEV_QUERY, &q), 0);
  const isa::Architecture& arch = isa::architecture(isa::Variant::U85_256);
  EXPECT_EQ(info.id, 0x20007001u);
  EXPECT_NE(info.id >> 28, 1u);  // the driver's and Mesa's test for "not a U65"
  EXPECT_EQ(info.config, arch.config);
  EXPECT_EQ(info.config >> 28, 2u);  // product: Ethos-U85
  EXPECT_EQ(info.sram_size, kSramBytes);
  EXPECT_EQ(info.pmu_counters, 4u);  // what a job's run carries; the hardware has 8 (docs/shims.md)
}

TEST(AccelU85, PerfmonTakesTheU85EventIds) {
  acc::DeviceFile file(device());
  ethosu_accel_perfmon_create c{};
  c.ncounters = 1;
  c.counters[0] = 671;  // EXT1_WR_STALL_LIMIT, the U85's highest event id (433 on the U65)
  EXPECT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &c), 0);
  c.counters[0] = 672;
  EXPECT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &c), -EINVAL);
}

TEST(AccelU85, AStreamTheNpuRefusesEndsAsAFailedJob) {
  // A U85 stream of one NPU_OP_STOP: taken by the validator and run; while the simulator refuses U85 streams (a
  // LIMIT fault, which STATUS shows as a command parse error) the driver sees an error IRQ and BO_WAIT still returns.
  const std::vector<uint8_t> stream = isa::assemble(".isa 2\nNPU_OP_STOP mask=0\n", "<test>", isa::IsaVersion::V2);
  acc::DeviceFile file(device());
  ethosu_accel_cmdstream_bo_create c{};
  c.size = static_cast<uint32_t>(stream.size());
  c.data = reinterpret_cast<uintptr_t>(stream.data());
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &c), 0);
  ethosu_accel_job j{};
  j.cmd_bo = c.handle;
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
  if (isa::architecture(device().variant()).operations_modelled()) {
    EXPECT_EQ(log.find("Error IRQ"), std::string::npos) << log;
  } else {
    EXPECT_NE(log.find("Error IRQ"), std::string::npos) << log;
    EXPECT_NE(log.find("does not run"), std::string::npos) << log;
  }
}

}  // namespace
