// The Linux accel/ethosu shim configured as an Ethos-U85: DEV_QUERY presents the U85 as the driver reads it (ID of
// architecture major 2, so that Mesa takes its U85 path; the configuration's CONFIG; the SRAM; PMCR's 8 event
// counters), PERFMON_CREATE takes the U85's event ids (up to 671) and up to 8 counters, and a U85 stream goes through
// CMDSTREAM_BO_CREATE, SUBMIT and BO_WAIT with its perfmon counting in all 8 counters. Vela's streams:
// tests/corpus/accel_u85_corpus_test.cpp.
#include <sys/mman.h>

#include <algorithm>
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
#include "tests/unit/npu_streams.h"

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
  EXPECT_EQ(info.pmu_counters, 8u);  // PMCR.num_event_cnt
}

TEST(AccelU85, PerfmonTakesTheU85EventIds) {
  acc::DeviceFile file(device());
  ethosu_accel_perfmon_create c{};
  c.ncounters = 1;
  c.counters[0] = 671;  // EXT1_WR_STALL_LIMIT, the U85's highest event id (433 on the U65)
  EXPECT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &c), 0);
  c.counters[0] = 672;
  EXPECT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &c), -EINVAL);
  c.counters[0] = 48;
  c.ncounters = 8;
  EXPECT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &c), 0);
  EXPECT_EQ(c.ncounters, 9u);  // the cycle counter appended
  c.ncounters = 9;
  EXPECT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &c), -EINVAL);
}

TEST(AccelU85, AJobCountsInAllEightCounters) {
  acc::DeviceFile file(device());
  const std::vector<uint8_t> stream = isa::assemble(ethosu::npu::test::kU85MaxPool2x2, "<test>", isa::IsaVersion::V2);
  ethosu_accel_cmdstream_bo_create c{};
  c.size = static_cast<uint32_t>(stream.size());
  c.data = reinterpret_cast<uintptr_t>(stream.data());
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_CMDSTREAM_BO_CREATE, &c), 0);
  ethosu_accel_bo_create bo{};
  bo.size = 0x200;
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_BO_CREATE, &bo), 0);
  ethosu_accel_bo_mmap_offset mo{};
  mo.handle = bo.handle;
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_BO_MMAP_OFFSET, &mo), 0);
  const intptr_t mapped = file.map(nullptr, bo.size, PROT_READ | PROT_WRITE, MAP_SHARED, mo.offset);
  ASSERT_GT(mapped, 0);
  auto* data = reinterpret_cast<uint8_t*>(mapped);
  for (size_t i = 0; i < 256; ++i) data[0x100 + i] = static_cast<uint8_t>(i * 7 + 3);

  // MAC_ACTIVE, AO_ACTIVE, NPU_ACTIVE, then the external port's reads and writes: region 1 is on it.
  const std::vector<uint16_t> events{48, 64, 35, 384, 386, 388, 391, 389};
  ethosu_accel_perfmon_create pc{};
  pc.ncounters = static_cast<uint32_t>(events.size());
  std::copy(events.begin(), events.end(), pc.counters);
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_PERFMON_CREATE, &pc), 0);

  ethosu_accel_job j{};
  j.cmd_bo = c.handle;
  j.region_bo_handles[1] = bo.handle;
  ethosu_accel_submit s{};
  s.jobs = reinterpret_cast<uintptr_t>(&j);
  s.job_count = 1;
  s.perfmon_id = pc.id;
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_SUBMIT, &s), 0);
  ethosu_accel_bo_wait w{};
  w.handle = bo.handle;
  w.timeout_ns = INT64_MAX;
  EXPECT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_BO_WAIT, &w), 0);

  std::vector<uint64_t> values(events.size() + 1);
  ethosu_accel_perfmon_get_values g{};
  g.id = pc.id;
  g.values_ptr = reinterpret_cast<uintptr_t>(values.data());
  ASSERT_EQ(file.ioctl(ETHOSU_ACCEL_IOCTL_PERFMON_GET_VALUES, &g), 0);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_GT(values[i], 0u) << "value " << i;
  int8_t max = -128;  // OFM (0, 0, 0)
  for (size_t i : {0x100, 0x110, 0x140, 0x150}) max = std::max(max, static_cast<int8_t>(data[i]));
  EXPECT_EQ(static_cast<int8_t>(data[0]), max);
  munmap(data, bo.size);
}

}  // namespace
