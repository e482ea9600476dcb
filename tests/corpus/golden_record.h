// A golden record: what one case's timed run measured, in the form committed under tests/golden/ and checked by
// tests/corpus/golden_corpus_test.cpp.
//
// Contract: run_of() runs the case as `ethosu-sim run SOURCE --pmu <kRecordedPmuEvents> [--set A ...]` does
// (the default configuration for the job's variant, then the assignments); record_of() runs it so and returns
//   status        "ok" or the NPU's fault
//   total_cycles  from the CMD write that started the stream to its end
//   ops           every kernel operation and DMA in stream order: offset (of its NPU_OP_* command), kind,
//                 start_cycle, end_cycle
//   pmu           what the driver reads in its IRQ handler: PMCCNTR, and PMEVCNTR0-3 keyed "PMEVCNTRn EVENT"
//                 (PMCCNTR counts on to that read: on the corpus 30 cycles of register accesses more than the
//                 report's pmu.PMCCNTR, taken at the job's end)
//   stats         every block statistic by path (the counters the PMU events count)
//   axi_bytes     per port (axi0, axi1), direction (read, write) and traffic class, zeros included
// record_text() writes a record with sorted keys, one object entry or array element per line, so that a diff of
// two records shows the fields and operations that changed. record_differences() lists, field by field, how a
// record differs from the expected one.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus/golden_cases.h"
#include "host/run/run_job.h"

namespace ethosu::test {

// One event per block that has one to count: the three compute units and the DRAM port's reads (weights, the
// command stream and most feature maps).
inline constexpr std::array<const char*, 4> kRecordedPmuEvents{"MAC_ACTIVE", "AO_ACTIVE", "WD_ACTIVE",
                                                               "AXI1_RD_DATA_BEAT_RECEIVED"};

// The run record_of() records.
host::RunOutcome run_of(const GoldenCase& c, const std::vector<std::string>& assignments = {});
nlohmann::json record_of(const GoldenCase& c, const std::vector<std::string>& assignments = {});

std::string record_text(const nlohmann::json& record);

// One line per value that differs, in key order: "ops (offset 0x1a4, CONV).end_cycle: 1234 -> 1240" (operations
// matched by offset); a value present on one side only shows "absent" on the other.
std::vector<std::string> record_differences(const nlohmann::json& expected, const nlohmann::json& actual);

}  // namespace ethosu::test
