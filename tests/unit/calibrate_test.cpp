// Calibration (host/recording/calibrate.h) on DMA jobs "recorded" on a machine with other memory timing: the fit
// finds it, the clock comes from wall times, and what the jobs cannot tell is reported.
#include "host/recording/calibrate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/files.h"
#include "isa/assembler.h"
#include "sim/config.h"
#include "sim/error.h"

namespace ethosu::host {
namespace {

// One DMA of `bytes` from region 0 to region 1, both in DRAM (AXI1 under the Linux driver's REGIONCFG; the
// external port on a U85), on `variant`.
Capture dma_job(uint32_t bytes, const std::string& variant = "ethos-u65-256") {
  const bool u85 = variant.rfind("ethos-u85", 0) == 0;
  const std::string text = std::string(u85 ? ".isa 2\n" : "") + "NPU_SET_DMA0_SRC_REGION region=0\nNPU_SET_DMA0_DST_REGION region=1\nNPU_SET_DMA0_SRC addr=0\n"
                           "NPU_SET_DMA0_DST addr=0\nNPU_SET_DMA0_LEN length=" +
                           std::to_string(bytes) + "\nNPU_OP_DMA_START\nNPU_OP_STOP mask=0xffff\n";
  Capture c;
  c.source = "unit-test";
  c.variant = variant;
  c.on_hardware = true;
  c.stream = isa::assemble(text, "dma", u85 ? isa::IsaVersion::V2 : isa::IsaVersion::V1);
  c.regions_before[0].assign(bytes, 1);
  c.regions_before[1].assign(bytes, 0);
  c.status_recorded = false;
  return c;
}

npu::NpuConfig machine(const std::vector<std::string>& assignments, const std::string& variant = "ethos-u65-256") {
  MachineRequest r;
  r.assignments = assignments;
  return npu::read_config(resolve_config(r, variant));
}

const std::vector<std::string> kSecret = {"mem.axi1.read_latency_cycles=800", "mem.axi1.bytes_per_cycle=2.0"};

// DMA jobs of several sizes as a board with the secret timing would record them; wall times as a driver at
// 800 MHz with 50 us per job outside the NPU would see them.
std::vector<RecordedJob> recorded(const std::vector<uint32_t>& sizes, const std::string& variant = "ethos-u65-256") {
  std::vector<RecordedJob> jobs;
  for (uint32_t bytes : sizes) {
    Capture c = dma_job(bytes, variant);
    c.cycle_counter_recorded = false;
    c.cycle_counter = RecordedJob(c, "probe").simulate(machine(kSecret, variant));
    c.cycle_counter_recorded = true;
    c.wall_ns = 50000 + static_cast<uint64_t>(std::llround(static_cast<double>(c.cycle_counter) / 0.8));
    jobs.emplace_back(c, "dma" + std::to_string(bytes));
  }
  return jobs;
}

const FittedParameter& param(const CalibrationResult& r, const std::string& name) {
  for (const auto& p : r.parameters)
    if (p.name == name) return p;
  throw std::runtime_error("no parameter " + name);
}

TEST(Calibrate, FindsTheLatencyAndBandwidthAJobSetDetermines) {
  const auto jobs = recorded({64, 1024, 16384, 131072});
  CalibrationOptions o;
  o.fit = {"mem.axi1.read_latency_cycles", "mem.axi1.bytes_per_cycle"};
  const CalibrationResult r = calibrate(jobs, o);
  EXPECT_NEAR(std::stod(param(r, "mem.axi1.read_latency_cycles").after), 800, 80);
  EXPECT_NEAR(std::stod(param(r, "mem.axi1.bytes_per_cycle").after), 2.0, 0.2);
  EXPECT_EQ(param(r, "mem.axi1.read_latency_cycles").before, "500");
  EXPECT_GT(r.median_abs_error_before, 0.1);
  EXPECT_LT(r.median_abs_error_after, 0.01);
  EXPECT_TRUE(r.flat_directions.empty());
  ASSERT_EQ(r.jobs.size(), 4u);
  EXPECT_LT(std::fabs(r.jobs[3].error_after), std::fabs(r.jobs[3].error_before));
  // The parameter file resolves to the fitted values.
  const auto file = std::filesystem::temp_directory_path() / "calibrate_test.cfg";
  sim::write_text_file(file.string(), r.parameter_file());
  MachineRequest request;
  request.config_file = file;
  const sim::Config fitted = resolve_config(request, "ethos-u65-256");
  EXPECT_EQ(fitted.param("mem.axi1.read_latency_cycles").value_text(), param(r, "mem.axi1.read_latency_cycles").after);
  std::filesystem::remove(file);
}

// The same on a U85 board (its external port), from the U85-256's default timing.
TEST(Calibrate, FindsTheU85sExternalMemoryTiming) {
  const auto jobs = recorded({64, 1024, 16384, 131072}, "ethos-u85-256");
  CalibrationOptions o;
  o.fit = {"mem.axi1.read_latency_cycles", "mem.axi1.bytes_per_cycle"};
  const CalibrationResult r = calibrate(jobs, o);
  EXPECT_NEAR(std::stod(param(r, "mem.axi1.read_latency_cycles").after), 800, 80);
  EXPECT_NEAR(std::stod(param(r, "mem.axi1.bytes_per_cycle").after), 2.0, 0.2);
  EXPECT_GT(r.median_abs_error_before, 0.1);
  EXPECT_LT(r.median_abs_error_after, 0.01);
}

TEST(Calibrate, TheClockComesFromWallTimes) {
  const auto jobs = recorded({64, 4096, 65536});
  CalibrationOptions o;
  o.fit = {"system.clock_hz"};
  const CalibrationResult r = calibrate(jobs, o);
  EXPECT_NEAR(std::stod(param(r, "system.clock_hz").after), 800e6, 8e6);
  ASSERT_TRUE(r.overhead_ns);
  EXPECT_NEAR(*r.overhead_ns, 50000, 500);
  EXPECT_TRUE(param(r, "system.clock_hz").determined);
}

TEST(Calibrate, ReportsWhatTheJobsCannotDetermine) {
  // DMA jobs do no MAC work: the weight buffer refill time changes none of them.
  CalibrationOptions o;
  o.fit = {"mem.axi1.read_latency_cycles", "npu.mac.weight_buffer_refill_cycles"};
  o.max_evaluations = 60;
  const CalibrationResult flat = calibrate(recorded({64, 16384}), o);
  EXPECT_FALSE(param(flat, "npu.mac.weight_buffer_refill_cycles").determined);
  EXPECT_TRUE(param(flat, "mem.axi1.read_latency_cycles").determined);
  ASSERT_EQ(flat.flat_directions.size(), 1u);
  EXPECT_NE(flat.flat_directions[0].find("npu.mac.weight_buffer_refill_cycles"), std::string::npos);
  // One job cannot separate latency from bandwidth.
  o.fit = {"mem.axi1.read_latency_cycles", "mem.axi1.bytes_per_cycle"};
  const CalibrationResult one = calibrate(recorded({16384}), o);
  ASSERT_EQ(one.flat_directions.size(), 1u);
  EXPECT_NE(one.flat_directions[0].find("only a combination"), std::string::npos) << one.flat_directions[0];
  // Wall times of a single job cannot give a clock.
  o.fit = {"system.clock_hz"};
  EXPECT_FALSE(param(calibrate(recorded({64}), o), "system.clock_hz").determined);
}

TEST(Calibrate, RefusesWhatCannotBeFitted) {
  const auto jobs = recorded({64});
  CalibrationOptions o;
  for (const char* name : {"mem.axi1.read_latancy_cycles", "npu.mac.per_core", "system.config", "npu.variant"}) {
    o.fit = {name};
    EXPECT_THROW(calibrate(jobs, o), InputError) << name;
  }
  o.fit = {"mem.axi1.read_latency_cycles", "mem.axi1.read_latency_cycles"};
  EXPECT_THROW(calibrate(jobs, o), InputError);
  Capture uncounted = dma_job(64);
  uncounted.cycle_counter_recorded = false;
  o.fit = {"mem.axi1.read_latency_cycles"};
  try {
    calibrate({RecordedJob(uncounted, "uncounted")}, o);
    ADD_FAILURE() << "a job without cycles was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("uncounted: no recorded cycle count"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ethosu::host
