// The bytes a corpus case leaves in its output tensors after a run on the functional model.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "host/run/job.h"
#include "host/run/run_job.h"

namespace ethosu::test {

inline std::vector<std::vector<uint8_t>> functional_outputs(const std::filesystem::path& dir,
                                                            host::RunOptions options = {}) {
  host::Job job = host::job_from_case(dir);
  options.timed = false;
  const host::RunOutcome r = host::run_job(job, options);
  EXPECT_FALSE(r.fault) << *r.fault;
  std::vector<std::vector<uint8_t>> out;
  for (const auto& o : job.outputs) out.push_back(job.output_bytes(o));
  return out;
}

}  // namespace ethosu::test
