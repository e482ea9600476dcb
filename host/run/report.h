// Reports of a timed run: the JSON file tools read (`--report`) and the summary table people read.
//
// Contract: the JSON keeps these top-level keys stable: total_cycles, clock_hz, ops (each with at least
// kind and cycles), pmu (event name -> value, PMCCNTR included), config (the resolved parameters).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "models/npu/job_report.h"

namespace ethosu::host {

// The report as JSON text, indented one space per level, with a final newline; config is written as it is.
std::string report_json(const npu::JobReport& r, const nlohmann::json& config);
std::string summary_table(const npu::JobReport& r);

}  // namespace ethosu::host
