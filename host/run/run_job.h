// Running a Job: the host side of one submission (map regions, run, collect), and comparing outputs.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/run/job.h"
#include "models/npu/job_report.h"
#include "models/platform/platform.h"
#include "sim/config.h"
#include "sim/trace.h"

namespace ethosu::host {

struct RunOptions {
  bool timed = true;                   // the SystemC platform driven through registers; else the functional model
  npu::NpuConfig config;     // timed runs; the job's variant overrides config.variant
  uint32_t regioncfg = 0xAA8A;         // timed runs: region 2 on AXI0 (SRAM), the rest on AXI1 (DRAM)
  std::array<uint16_t, isa::kMaxEventCounters> pmu_events{};  // PMEVTYPER values the driver programs
  sim::Trace* trace = nullptr;            // timed runs: record blocks and operations here
  bool transactions = false;  // timed runs: the NPU's traffic as TLM transactions on the memories' sockets
  // The on-chip SRAM: the ports that reach it (mem.axiN.memory) and its size (mem.sram.size_bytes; none: no
  // limit). The regions REGIONCFG maps to those ports must fit in it together, or the run is refused.
  std::array<bool, 2> port_on_sram{true, false};
  std::optional<uint64_t> sram_size_bytes;
};

struct RunOutcome {
  std::optional<std::string> fault;  // the NPU's fault (status bit and where), when it faulted
  std::vector<std::string> hazards;  // missing waits observed (functional runs)
  std::string summary;               // a few lines for the user
  std::optional<npu::JobReport> report;  // timed runs
  // What the driver reads at the end. Timed runs: STATUS in the IRQ handler, PMCCNTR and PMEVCNTRn. Functional
  // runs have no registers: status holds the bits their end would set (irq_raised with cmd_end_reached, or with
  // the fault's error bit: cmd_parse_error, bus_status, wd_fault; a simulation limit counts as a parse error, as
  // on the timed platform) and the counters are 0.
  uint32_t status = 0;
  uint64_t cycle_counter = 0;
  std::array<uint32_t, isa::kMaxEventCounters> event_counters{};
};

// The options of a run on the machine `config` resolves to: its NPU configuration and the REGIONCFG its region
// mapping gives a driver. Every front end starts its runs from them (and sets what it adds: PMU events, a trace,
// a driver's own REGIONCFG).
RunOptions run_options(const sim::Config& config, bool timed = true);

// InputError naming the regions, their sizes and the SRAM's when the regions mapped to the SRAM do not fit in it.
void check_sram_fits(const Job& job, const RunOptions& options);

// Runs the job on the simulator (after check_sram_fits); its region buffers hold the results afterwards.
RunOutcome run_job(Job& job, const RunOptions& options = {});

struct Comparison {
  bool exact = false;
  size_t mismatches = 0;     // elements
  int64_t max_abs_diff = 0;  // in element units
  std::string text;          // "exact (1296 bytes)" or "12 of 1296 elements differ, max |diff| 1"
};
Comparison compare_bytes(const std::vector<uint8_t>& actual, const std::vector<uint8_t>& expected,
                         unsigned element_bytes = 1, bool element_signed = true);

}  // namespace ethosu::host
