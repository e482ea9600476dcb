// Running a Job: the host side of one submission (map regions, run, collect), and comparing outputs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/job.h"

namespace ethosu::host {

struct RunOutcome {
  std::optional<std::string> fault;  // the NPU's fault (status bit and where), when it faulted
  std::vector<std::string> hazards;  // missing waits observed
  std::string summary;               // a few lines for the user
};

// Runs the job on the simulator; its region buffers hold the results afterwards.
RunOutcome run_job(Job& job);

struct Comparison {
  bool exact = false;
  size_t mismatches = 0;     // elements
  int64_t max_abs_diff = 0;  // in element units
  std::string text;          // "exact (1296 bytes)" or "12 of 1296 elements differ, max |diff| 1"
};
Comparison compare_bytes(const std::vector<uint8_t>& actual, const std::vector<uint8_t>& expected,
                         unsigned element_bytes = 1, bool element_signed = true);

}  // namespace ethosu::host
