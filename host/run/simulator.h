// The timed simulator of a whole submission: the platform (NPU, AXI ports, SRAM, DRAM) and a host CPU
// that drives it like a driver, elaborated once per process and reused for every job.
//
// Contract: run() maps the job's region buffers into the memories (each region into the memory its
// REGIONCFG port reaches), places the command stream in DRAM, lets the host program the NPU and run
// it, and returns the driver's view (STATUS, PMU) and the NPU's report. The job's buffers hold the
// results afterwards. Configurations may differ from one run to the next. Not thread-safe: SystemC
// has one kernel per process. The NPU contains what goes wrong inside a job (it ends the job with a fault);
// should the kernel itself fail, this and every later run throw InputError saying so, never run on.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/run/driver.h"
#include "host/run/job.h"
#include "models/npu/job_report.h"
#include "models/platform/platform.h"

namespace ethosu::host {

struct TimedRun {
  DriverResult driver;
  npu::JobReport report;
  std::optional<std::string> fault;  // the NPU's fault, as the driver would log it
};

class Simulator {
 public:
  // The process's simulator; elaborates the platform on first use.
  static Simulator& instance();

  // regioncfg: the driver's REGIONCFG (which AXI port each region is on).
  // trace: when non-null and open, the run is recorded into it. transactions: the NPU's traffic goes to the
  // memories as TLM transactions (Npu::BusMode::TRANSACTIONS) instead of through DMI.
  TimedRun run(Job& job, const npu::NpuConfig& config, uint32_t regioncfg,
               const std::array<uint16_t, isa::kMaxEventCounters>& pmu_events = {}, sim::Trace* trace = nullptr,
               bool transactions = false);

 private:
  Simulator();
  platform::Platform platform_;
  HostCpu host_;
  std::vector<uint8_t> stream_buffer_;
  std::optional<std::string> broken_;  // why SystemC can no longer run jobs in this process
};

}  // namespace ethosu::host
