// The public configuration, jobs and runs (include/ethosu_sim/config.h, run.h).
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "ethosu_sim/config.h"
#include "ethosu_sim/error.h"
#include "ethosu_sim/run.h"
#include "tests/unit/npu_streams.h"
#include "tests/unit/input_errors.h"

namespace ethosu_sim {
namespace {

using ethosu::testing::input_error_of;

TEST(PublicConfig, ParametersByNameLayeredAsTheCli) {
  Config c;
  EXPECT_EQ(c.variant(), "ethos-u65-256");
  EXPECT_EQ(c.get("mem.axi1.read_latency_cycles"), "500");
  EXPECT_EQ(c.regioncfg(), 0xAA8Au);
  Config copy = c;
  c.set("mem.axi1.read_latency_cycles", "900");
  EXPECT_EQ(c.get("mem.axi1.read_latency_cycles"), "900");
  EXPECT_EQ(copy.get("mem.axi1.read_latency_cycles"), "500");
  c.set("npu.variant", "ethos-u65-512");
  EXPECT_EQ(c.get("npu.cores"), "2");
  EXPECT_NE(input_error_of([&] { c.set("mem.axi1.read_latancy_cycles", "1"); }).find("mem.axi1.read_latency_cycles"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { c.set("regions.2.port", "7"); }), "");
  MachineRequest r;
  r.system = "arm-internal-default";
  r.assignments = {"regions.2.port=1"};
  const Config d(r, "ethos-u65-512");
  EXPECT_EQ(d.variant(), "ethos-u65-512");
  EXPECT_NE(d.get("mem.axi1.bytes_per_cycle"), Config().get("mem.axi1.bytes_per_cycle"));
  EXPECT_EQ(d.regioncfg(), 0xAAAAu);
  bool found = false;
  for (const Parameter& p : d.parameters())
    if (p.name == "regions.2.port") {
      found = true;
      EXPECT_EQ(p.value, "1");
      EXPECT_EQ(p.origin, "assignment");
    }
  EXPECT_TRUE(found);
  EXPECT_NE(d.to_json().find("\"mem.axi1.bytes_per_cycle\""), std::string::npos);
}

// A 4x4x16 1x1 MAX pool from region 1 to region 2 at 0x100: a copy.
Job pool_job() {
  std::array<std::vector<uint8_t>, kRegionCount> regions{};
  regions[1].resize(256);
  for (size_t i = 0; i < 256; ++i) regions[1][i] = static_cast<uint8_t>(i * 5 + 1);
  regions[2].resize(512);
  return Job::from_stream(assemble(ethosu::npu::test::pool(4, 4, 4, 1, 0, 2, 0x100) +
                                   "NPU_SET_IFM_IB_END ib_end=2\nNPU_SET_AB_START ab_start=2\n"
                                   "NPU_OP_POOL pooling_mode=MAX\n" + ethosu::npu::test::kStop),
                          std::move(regions));
}

TEST(PublicRun, TimedAndFunctionalRunsOfAStream) {
  Job timed = pool_job(), functional = pool_job();
  const std::filesystem::path trace = std::filesystem::temp_directory_path() / "public_run_test_trace.json";
  RunOptions o;
  o.pmu_events = pmu_events({"MAC_ACTIVE", "ETHOSU_PMU_NPU_ACTIVE"});
  o.trace = trace;
  const RunResult t = run(timed, o);
  ASSERT_TRUE(t.completed) << *t.fault;
  ASSERT_TRUE(t.report);
  EXPECT_GT(t.total_cycles(), 0u);
  EXPECT_EQ(t.report->ops.size(), 1u);
  EXPECT_EQ(t.report->ops[0].kind, "POOL.MAX");
  EXPECT_GE(t.cycle_counter, t.total_cycles());  // the driver reads it after its IRQ handler
  EXPECT_GT(t.event_counters[1], 0u);  // NPU_ACTIVE
  EXPECT_TRUE(std::equal(timed.region(1).begin(), timed.region(1).end(), timed.region(2).begin() + 0x100));
  EXPECT_NE(report_json(*t.report, o.config).find("\"total_cycles\""), std::string::npos);
  EXPECT_NE(summary_table(*t.report).find("POOL.MAX"), std::string::npos);
  EXPECT_GT(std::filesystem::file_size(trace), 0u);
  std::filesystem::remove(trace);

  o = RunOptions{};
  o.timed = false;
  const RunResult f = run(functional, o);
  EXPECT_TRUE(f.completed);
  EXPECT_FALSE(f.report);
  EXPECT_EQ(functional.region(2), timed.region(2));
  EXPECT_EQ(f.status, t.status);
  EXPECT_TRUE(compare_outputs(functional).empty());  // a raw stream names no outputs
}

// kU85MaxPool2x2 over a ramp.
Job u85_pool_job() {
  std::array<std::vector<uint8_t>, kRegionCount> regions{};
  regions[1].resize(0x200);
  for (size_t i = 0; i < 256; ++i) regions[1][0x100 + i] = static_cast<uint8_t>(i * 7 + 3);
  return Job::from_stream(assemble(ethosu::npu::test::kU85MaxPool2x2), regions, "ethos-u85-256");
}

// The U85's PMU has 8 event counters, and all 8 count: an event counts the same in the last counter as in the first.
TEST(PublicRun, TheU85CountsEightEvents) {
  const std::vector<std::string> eight{"CYCLE",          "NPU_ACTIVE",         "MAC_ACTIVE",
                                       "AO_ACTIVE",      "EXT_RD_TRANS_ACCEPTED", "EXT_RD_DATA_BEAT_RECEIVED",
                                       "EXT_WR_TRANS_ACCEPTED", "EXT_WR_DATA_BEAT_WRITTEN"};
  RunOptions o;
  o.pmu_events = pmu_events(eight, Variant::U85_256);
  Job job = u85_pool_job();
  const RunResult r = run(job, o);
  ASSERT_TRUE(r.completed) << r.fault.value_or("");
  for (size_t i = 0; i < eight.size(); ++i) EXPECT_GT(r.event_counters[i], 0u) << eight[i];
  int8_t expected_max = -128;  // OFM (0, 0, 0): the IFM's elements (0..1, 0..1, 0)
  for (size_t y = 0; y < 2; ++y)
    for (size_t x = 0; x < 2; ++x)
      expected_max = std::max(expected_max, static_cast<int8_t>(job.region(1)[0x100 + y * 64 + x * 16]));
  EXPECT_EQ(static_cast<int8_t>(job.region(1)[0]), expected_max);

  std::vector<std::string> reversed(eight.rbegin(), eight.rend());
  o.pmu_events = pmu_events(reversed, Variant::U85_256);
  Job again = u85_pool_job();
  const RunResult back = run(again, o);
  for (size_t i = 0; i < eight.size(); ++i)
    if (eight[i] != "CYCLE" && eight[i] != "NPU_ACTIVE") {  // these count the driver's register accesses too
      EXPECT_EQ(back.event_counters[eight.size() - 1 - i], r.event_counters[i]) << eight[i];
    }

  // A ninth event, and a fifth on a U65, are refused by name.
  EXPECT_NE(input_error_of([&] {
              auto nine = eight;
              nine.push_back("WD_ACTIVE");
              pmu_events(nine, Variant::U85_256);
            }).find("at most 8"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { pmu_events({"MAC_ACTIVE", "CYCLE", "NPU_IDLE", "NPU_ACTIVE", "AO_ACTIVE"}); }).find("at most 4"),
            std::string::npos);
  // Set by hand, a fifth event on a U65 is a driver error: PMCR says it has 4 counters.
  RunOptions fifth;
  fifth.pmu_events[4] = 48;
  Job u65 = pool_job();
  const RunResult refused = run(u65, fifth);
  EXPECT_FALSE(refused.completed);
  EXPECT_NE(refused.fault.value_or("").find("the NPU has 4 event counters"), std::string::npos) << refused.fault.value_or("");
}

// Exceptions are thrown before SystemC runs in the process (ASan misreads a throw after SystemC's
// coroutine stacks have run).
// A 1x1 SUM pool of a 1 x 16 x 2 (H x W x C) IFM whose OFM is stored transposed CHW, as a 2 x 1 x 16 tensor: the
// OFM registers hold the computed 1 x 16 x 2, the strides the stored tensor's. The region ends where the stored
// tensor does, which the computed extents over the stored strides would pass by 210 bytes (an out-of-region
// fault before transposes were modelled), timed and functional alike.
TEST(PublicRun, TheU85StoresATransposedOfmWhereItsRegistersSay) {
  const std::string stream = R"(.isa 2
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC activation_storage=TILE2X2
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_BASE0 addr=0x0
NPU_SET_IFM_HEIGHT0_M1 height_m1=0
NPU_SET_IFM_HEIGHT1_M1 height_m1=0
NPU_SET_IFM_WIDTH0_M1 width_m1=15
NPU_SET_IFM_DEPTH_M1 depth_m1=1
NPU_SET_IFM_STRIDE_Y stride=32
NPU_SET_IFM_STRIDE_X stride=2
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_IFM_PAD_TOP pad=0
NPU_SET_IFM_PAD_LEFT pad=0
NPU_SET_IFM_PAD_BOTTOM pad=0
NPU_SET_IFM_PAD_RIGHT pad=0
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC scale_mode=GLOBAL activation_transpose=CHW activation_storage=TILE2X2
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x20
NPU_SET_OFM_HEIGHT_M1 height_m1=0
NPU_SET_OFM_WIDTH_M1 width_m1=15
NPU_SET_OFM_DEPTH_M1 depth_m1=1
NPU_SET_OFM_HEIGHT0_M1 height_m1=1
NPU_SET_OFM_HEIGHT1_M1 height_m1=1
NPU_SET_OFM_WIDTH0_M1 width_m1=0
NPU_SET_OFM_STRIDE_Y stride=16
NPU_SET_OFM_STRIDE_X stride=16
NPU_SET_OFM_STRIDE_C stride=1
NPU_SET_KERNEL_HEIGHT_M1 height_m1=0
NPU_SET_KERNEL_WIDTH_M1 width_m1=0
NPU_SET_KERNEL_STRIDE stride_x_lsb=0 stride_y_lsb=0
NPU_SET_ACTIVATION_MIN clip_boundary=-128
NPU_SET_ACTIVATION_MAX clip_boundary=127
NPU_SET_OFM_SCALE shift=0 scale=1
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=0
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=15
NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=15
NPU_SET_ACC_FORMAT acc_format=I32 acc_input=RESET acc_output=ENABLE microblock=U1X2
NPU_OP_POOL pooling_mode=SUM
NPU_OP_STOP mask=0
)";
  for (const bool timed : {true, false}) {
    SCOPED_TRACE(timed ? "timed" : "functional");
    std::array<std::vector<uint8_t>, kRegionCount> regions{};
    regions[1].resize(0x40);
    for (size_t i = 0; i < 32; ++i) regions[1][i] = static_cast<uint8_t>(i * 5 + 1);  // IFM (0, w, c) at 2w + c
    Job job = Job::from_stream(assemble(stream), regions, "ethos-u85-256");
    RunOptions o;
    o.timed = timed;
    const RunResult r = run(job, o);
    ASSERT_TRUE(r.completed) << r.fault.value_or("");
    for (size_t w = 0; w < 16; ++w)
      for (size_t c = 0; c < 2; ++c)
        EXPECT_EQ(job.region(1)[0x20 + c * 16 + w], job.region(1)[2 * w + c]) << w << "," << c;
  }
}

// Vela 5.1's transpose of a 32-bit tensor: pooling NONE with ACC_FORMAT acc_input IFM2 (the accumulators loaded from
// IFM2, the IFM programmed as an unused int8 map of the same bytes), a unit OFM scale, the OFM stored transposed WHC.
// Every int32 value arrives whole where the transpose puts it, timed and functional, and the IFM2 bytes read are the
// whole tensor's though IFM2_BROADCAST still says C from an earlier elementwise operation (Vela leaves it so: only
// elementwise operands broadcast); pooling NONE without IFM2 into the accumulators is refused by name.
TEST(PublicRun, TheU85CopiesInt32ThroughItsAccumulators) {
  const std::string head = R"(.isa 2
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC activation_storage=TILE2X2
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_BASE0 addr=0x0
NPU_SET_IFM_HEIGHT0_M1 height_m1=1
NPU_SET_IFM_HEIGHT1_M1 height_m1=1
NPU_SET_IFM_WIDTH0_M1 width_m1=1
NPU_SET_IFM_DEPTH_M1 depth_m1=2
NPU_SET_IFM_STRIDE_Y stride=24
NPU_SET_IFM_STRIDE_X stride=12
NPU_SET_IFM_STRIDE_C stride=4
NPU_SET_IFM_PAD_TOP pad=0
NPU_SET_IFM_PAD_LEFT pad=0
NPU_SET_IFM_PAD_BOTTOM pad=0
NPU_SET_IFM_PAD_RIGHT pad=0
NPU_SET_IFM2_PRECISION activation_type=SIGNED activation_precision=B32 activation_format=NHWC activation_storage=TILE2X2
NPU_SET_IFM2_REGION region=1
NPU_SET_IFM2_BASE0 addr=0x0
NPU_SET_IFM2_HEIGHT0_M1 height_m1=1
NPU_SET_IFM2_HEIGHT1_M1 height_m1=1
NPU_SET_IFM2_WIDTH0_M1 width_m1=1
NPU_SET_IFM2_STRIDE_Y stride=24
NPU_SET_IFM2_STRIDE_X stride=12
NPU_SET_IFM2_STRIDE_C stride=4
NPU_SET_IFM2_BROADCAST broadcast_mode=C
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B32 activation_format=NHWC scale_mode=GLOBAL activation_transpose=WHC activation_storage=TILE2X2
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x40
NPU_SET_OFM_HEIGHT_M1 height_m1=1
NPU_SET_OFM_WIDTH_M1 width_m1=1
NPU_SET_OFM_DEPTH_M1 depth_m1=2
NPU_SET_OFM_HEIGHT0_M1 height_m1=1
NPU_SET_OFM_HEIGHT1_M1 height_m1=1
NPU_SET_OFM_WIDTH0_M1 width_m1=1
NPU_SET_OFM_STRIDE_Y stride=24
NPU_SET_OFM_STRIDE_X stride=12
NPU_SET_OFM_STRIDE_C stride=4
NPU_SET_KERNEL_HEIGHT_M1 height_m1=0
NPU_SET_KERNEL_WIDTH_M1 width_m1=0
NPU_SET_KERNEL_STRIDE stride_x_lsb=0 stride_y_lsb=0
NPU_SET_ACTIVATION activation_function=LUT_NONE activation_clip_range=NONE
NPU_SET_OFM_SCALE shift=0 scale=1
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=1
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=1
NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=15
)";
  const auto job_with = [&](const std::string& acc_input) {
    std::array<std::vector<uint8_t>, kRegionCount> regions{};
    regions[1].resize(0x70);
    for (uint32_t i = 0; i < 12; ++i) {  // IFM2 (h, w, c) at 24h + 12w + 4c
      const auto v = static_cast<uint32_t>(int32_t{-1} * static_cast<int32_t>(i * 0x01234567u % 0x7FFFFFFF));
      std::memcpy(regions[1].data() + 4 * i, &v, 4);
    }
    return Job::from_stream(assemble(head + "NPU_SET_ACC_FORMAT acc_format=I32 acc_input=" + acc_input +
                                     " acc_output=ENABLE microblock=U1X2\nNPU_OP_POOL pooling_mode=NONE\n"
                                     "NPU_OP_STOP mask=0\n"),
                            regions, "ethos-u85-256");
  };
  for (const bool timed : {true, false}) {
    SCOPED_TRACE(timed ? "timed" : "functional");
    Job job = job_with("IFM2");
    RunOptions o;
    o.timed = timed;
    const RunResult r = run(job, o);
    ASSERT_TRUE(r.completed) << r.fault.value_or("");
    for (uint32_t h = 0; h < 2; ++h)
      for (uint32_t w = 0; w < 2; ++w)
        for (uint32_t c = 0; c < 3; ++c)  // stored at (y = w, x = h, c)
          EXPECT_EQ(std::memcmp(job.region(1).data() + 0x40 + 24 * w + 12 * h + 4 * c,
                                job.region(1).data() + 24 * h + 12 * w + 4 * c, 4),
                    0)
              << h << "," << w << "," << c;
    if (timed) {
      uint64_t ifm2 = 0, ifm = 0;
      for (const PortTraffic& p : r.report->ports) ifm2 += p.read(Access::IFM2), ifm += p.read(Access::IFM);
      EXPECT_EQ(ifm2, 48u);  // 2 x 2 x 3 int32
      EXPECT_EQ(ifm, 0u);    // pooling NONE reads no IFM
    }
  }
  Job reset = job_with("RESET");
  const RunResult refused = run(reset, RunOptions{});
  ASSERT_FALSE(refused.completed);
  EXPECT_NE(refused.fault.value_or("").find("pooling mode NONE without ACC_FORMAT acc_input IFM2"), std::string::npos)
      << refused.fault.value_or("");
}

// Vela 5.1's MatMul (BATCH_MATMUL): NPU_OP_CONV with weights_ifm2, the IFM one row of M = 3 vectors of K = 5, IFM2
// one row of N = 4 vectors of K (output channel n's weights at x = n), zero points on both, one OFM row of M x N
// int32 sums (unit global scale, no clip): OFM(m, n) = sum over k of (IFM(m, k) - zp) * (IFM2(n, k) - zp2), timed and
// functional. With two OFM rows it is refused by name.
TEST(PublicRun, TheU85MultipliesMatricesWithWeightsFromIfm2) {
  const auto stream = [](int ofm_height_m1) {
    return std::string(R"(.isa 2
NPU_SET_IFM_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC activation_storage=TILE2X2
NPU_SET_IFM_REGION region=1
NPU_SET_IFM_BASE0 addr=0x0
NPU_SET_IFM_HEIGHT0_M1 height_m1=1
NPU_SET_IFM_HEIGHT1_M1 height_m1=1
NPU_SET_IFM_WIDTH0_M1 width_m1=2
NPU_SET_IFM_DEPTH_M1 depth_m1=4
NPU_SET_IFM_STRIDE_Y stride=15
NPU_SET_IFM_STRIDE_X stride=5
NPU_SET_IFM_STRIDE_C stride=1
NPU_SET_IFM_ZERO_POINT zero_point=3
NPU_SET_IFM_PAD_TOP pad=0
NPU_SET_IFM_PAD_LEFT pad=0
NPU_SET_IFM_PAD_BOTTOM pad=0
NPU_SET_IFM_PAD_RIGHT pad=0
NPU_SET_IFM2_PRECISION activation_type=SIGNED activation_precision=B8 activation_format=NHWC activation_storage=TILE2X2
NPU_SET_IFM2_REGION region=1
NPU_SET_IFM2_BASE0 addr=0x20
NPU_SET_IFM2_HEIGHT0_M1 height_m1=0
NPU_SET_IFM2_HEIGHT1_M1 height_m1=0
NPU_SET_IFM2_WIDTH0_M1 width_m1=3
NPU_SET_IFM2_STRIDE_Y stride=20
NPU_SET_IFM2_STRIDE_X stride=5
NPU_SET_IFM2_STRIDE_C stride=1
NPU_SET_IFM2_ZERO_POINT zero_point=-2
NPU_SET_OFM_PRECISION activation_type=SIGNED activation_precision=B32 activation_format=NHWC scale_mode=GLOBAL activation_storage=TILE2X2
NPU_SET_OFM_REGION region=1
NPU_SET_OFM_BASE0 addr=0x40
NPU_SET_OFM_HEIGHT_M1 height_m1=)") + std::to_string(ofm_height_m1) + R"(
NPU_SET_OFM_WIDTH_M1 width_m1=2
NPU_SET_OFM_DEPTH_M1 depth_m1=3
NPU_SET_OFM_HEIGHT0_M1 height_m1=1
NPU_SET_OFM_HEIGHT1_M1 height_m1=1
NPU_SET_OFM_WIDTH0_M1 width_m1=2
NPU_SET_OFM_STRIDE_Y stride=48
NPU_SET_OFM_STRIDE_X stride=16
NPU_SET_OFM_STRIDE_C stride=4
NPU_SET_KERNEL_HEIGHT_M1 height_m1=0
NPU_SET_KERNEL_WIDTH_M1 width_m1=0
NPU_SET_KERNEL_STRIDE stride_x_lsb=0 stride_y_lsb=0
NPU_SET_ACTIVATION activation_function=LUT_NONE activation_clip_range=NONE
NPU_SET_OFM_SCALE shift=0 scale=1
NPU_SET_OFM_BLK_HEIGHT_M1 height_m1=0
NPU_SET_OFM_BLK_WIDTH_M1 width_m1=2
NPU_SET_OFM_BLK_DEPTH_M1 depth_m1=15
NPU_SET_ACC_FORMAT acc_format=I32 acc_input=RESET acc_output=ENABLE microblock=U1X2
NPU_OP_CONV weights_ifm2=1
NPU_OP_STOP mask=0
)";
  };
  const auto job_of = [&](int ofm_height_m1) {
    std::array<std::vector<uint8_t>, kRegionCount> regions{};
    regions[1].resize(0x100);
    for (size_t i = 0; i < 15; ++i) regions[1][i] = static_cast<uint8_t>(static_cast<int8_t>(i * 11 % 37 - 18));
    for (size_t i = 0; i < 20; ++i) regions[1][0x20 + i] = static_cast<uint8_t>(static_cast<int8_t>(i * 7 % 29 - 14));
    return Job::from_stream(assemble(stream(ofm_height_m1)), regions, "ethos-u85-256");
  };
  for (const bool timed : {true, false}) {
    SCOPED_TRACE(timed ? "timed" : "functional");
    Job job = job_of(0);
    RunOptions o;
    o.timed = timed;
    const RunResult r = run(job, o);
    ASSERT_TRUE(r.completed) << r.fault.value_or("");
    const std::vector<uint8_t>& m = job.region(1);
    for (int x = 0; x < 3; ++x)
      for (int n = 0; n < 4; ++n) {
        int32_t sum = 0;
        for (int k = 0; k < 5; ++k)
          sum += (static_cast<int8_t>(m[x * 5 + k]) - 3) * (static_cast<int8_t>(m[0x20 + n * 5 + k]) + 2);
        int32_t got = 0;
        std::memcpy(&got, m.data() + 0x40 + x * 16 + n * 4, 4);
        EXPECT_EQ(got, sum) << x << "," << n;
      }
  }
  Job two_rows = job_of(1);
  const RunResult refused = run(two_rows, RunOptions{});
  ASSERT_FALSE(refused.completed);
  EXPECT_NE(refused.fault.value_or("").find("weights_ifm2 (MatMul) with more than one OFM row"), std::string::npos)
      << refused.fault.value_or("");
}

TEST(PublicRun, BadInputIsAnInputError) {
  EXPECT_NE(input_error_of([] { pmu_events({"MAC_ACTIVE", "CYCLE", "NPU_IDLE", "NPU_ACTIVE", "AO_ACTIVE"}); }), "");
  EXPECT_NE(input_error_of([] { pmu_events({"NO_SUCH_EVENT"}); }).find("NO_SUCH_EVENT"), std::string::npos);
  EXPECT_NE(input_error_of([] { Job::from_case("/nonexistent/case"); }), "");
  EXPECT_NE(input_error_of([] { Job::from_stream({1, 2, 3}, {}); }), "");
  EXPECT_NE(input_error_of([] { Job::from_stream(assemble(ethosu::npu::test::kStop), {}, "ethos-u99"); }).find("ethos-u99"),
            std::string::npos);
  Job j = pool_job();
  j.region(2).resize(64);  // the OFM runs past region 2: the NPU's bus error, a result
  const RunResult r = run(j);
  EXPECT_FALSE(r.completed);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->find("bus error"), std::string::npos);
}

}  // namespace
}  // namespace ethosu_sim
