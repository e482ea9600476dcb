// The golden record of the corpus's simulated cycles (as gem5's MatchStats): each case's timed run must give
// exactly the record committed for it under tests/golden/ (its total cycles, every operation's start and end
// cycle, the PMU registers, the blocks' statistics and the AXI bytes; tests/corpus/golden_record.h lists the
// fields). The cases and their record paths are listed in tests/corpus/golden_cases.h.
//
// Regenerate every record after an intended change of timing:
//   cmake --build build --target update-golden
// (or some of them: ETHOSU_SIM_UPDATE_GOLDEN=1 build/tests/golden_corpus_test --gtest_filter='*kws*'), then read
// `git diff tests/golden`. A commit that changes the record explains each change in its message and in the change
// log of models/FIDELITY.md ("Golden record").
//
// A case of the data with no record skips, naming the command that records it (other people run the suites on
// other corpora); without the data every test skips with skip_message(). The record must not depend on the host:
// a second test runs each case again with the portable SIMD code and three host threads.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "corpus/golden_cases.h"
#include "corpus/golden_record.h"
#include "models/kernels/microkernel.h"
#include "models/kernels/simd_loops.h"

using namespace ethosu;
namespace fs = std::filesystem;

namespace {

// Differences listed in a failure; the count says how many more there are.
constexpr size_t kShownDifferences = 20;

// The command that rewrites the records, with the data folder when the environment chose it (the test program
// then reads that one).
std::string update_command() {
  const std::string command = "cmake --build " ETHOSU_SIM_BUILD_DIR " --target update-golden";
  const char* shared = std::getenv("ETHOSU_SIM_SHARED_DIR");
  return shared && *shared ? "ETHOSU_SIM_SHARED_DIR=" + std::string(shared) + " " + command : command;
}

bool updating() {
  const char* v = std::getenv("ETHOSU_SIM_UPDATE_GOLDEN");
  return v && *v && std::string(v) != "0";
}

std::vector<test::GoldenCase> cases_or_placeholder() {
  auto c = test::golden_cases();
  if (c.empty()) c.push_back({});  // skips with skip_message()
  return c;
}

struct LabelName {
  std::string operator()(const ::testing::TestParamInfo<test::GoldenCase>& info) const {
    std::string n = info.param.label.empty() ? "none" : info.param.label;
    for (char& ch : n)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
  }
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "N differences; the first M:" and the lines, for a failure message.
std::string listing(const std::vector<std::string>& diffs) {
  std::string out = std::to_string(diffs.size()) + (diffs.size() == 1 ? " difference" : " differences");
  if (diffs.size() > kShownDifferences) out += "; the first " + std::to_string(kShownDifferences);
  out += " (old -> new):\n";
  for (size_t i = 0; i < diffs.size() && i < kShownDifferences; ++i) out += "  " + diffs[i] + "\n";
  return out;
}

class GoldenRecord : public ::testing::TestWithParam<test::GoldenCase> {
 protected:
  void SetUp() override {
    if (GetParam().label.empty()) GTEST_SKIP() << test::skip_message();
    if (const std::string why = test::not_run_reason(GetParam().source); !why.empty()) GTEST_SKIP() << why;
  }
};

// The portable SIMD code (Highway's last target, the generic micro-kernels) while it lives; then the target and
// level it found again, ETHOSU_SIM_SIMD's when that is set.
class PortableSimd {
 public:
  PortableSimd() : target_(kernels::simd_target()), level_(kernels::best_simd_level()) {
    kernels::select_simd_target(kernels::available_simd_targets().back());
    kernels::set_simd_level_limit(kernels::SimdLevel::Generic);
  }
  ~PortableSimd() {
    kernels::select_simd_target(target_);
    kernels::set_simd_level_limit(level_);
  }
  PortableSimd(const PortableSimd&) = delete;
  PortableSimd& operator=(const PortableSimd&) = delete;

 private:
  int64_t target_;
  kernels::SimdLevel level_;
};

TEST_P(GoldenRecord, TimedRunMatchesTheRecord) {
  const test::GoldenCase& c = GetParam();
  const nlohmann::json record = test::record_of(c);
  ASSERT_EQ(record["status"], "ok") << c.label << ": the NPU faulted";
  const fs::path path = test::record_path(c);
  const std::string text = test::record_text(record);
  if (updating()) {
    if (fs::exists(path) && read_text(path) == text) return;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    std::cout << "[ recorded ] " << c.label << " -> " << path.string() << "\n";
    return;
  }
  if (!fs::exists(path))
    GTEST_SKIP() << "no golden record for " << c.label << " (" << path.string()
                 << "); to record it: " << update_command();
  const nlohmann::json expected = nlohmann::json::parse(read_text(path));
  const auto diffs = test::record_differences(expected, record);
  if (!diffs.empty())
    ADD_FAILURE() << c.label << ": total_cycles " << expected["total_cycles"] << " -> " << record["total_cycles"]
                  << ", " << listing(diffs) << "against " << path.string()
                  << ". If the change is intended, regenerate with `" << update_command()
                  << "` and explain it in the commit message and models/FIDELITY.md (\"Golden record\").";
}

// The portable SIMD code and three host threads per operation must give the same record as this host's best code
// on one thread; the second run also finds the weight cache filled by the first.
TEST_P(GoldenRecord, HostThreadsAndSimdTargetChangeNothing) {
  const test::GoldenCase& c = GetParam();
  const nlohmann::json best = test::record_of(c);
  const PortableSimd portable_simd;
  const nlohmann::json portable = test::record_of(c, {"sim.limits.host_threads=3"});
  const auto diffs = test::record_differences(best, portable);
  EXPECT_TRUE(diffs.empty()) << c.label << " on " << kernels::simd_target_name() << " with 3 host threads: "
                             << listing(diffs);
}

// The report's exclusive time breakdown adds up to the total: the operations' exclusive cycles (each operation's no
// more than its duration) and the controller's own. No wait inside an operation is longer than the operation.
TEST_P(GoldenRecord, TimeBreakdownAddsUp) {
  const host::RunOutcome outcome = test::run_of(GetParam());
  ASSERT_FALSE(outcome.fault) << *outcome.fault;
  const npu::JobReport& r = *outcome.report;
  ASSERT_EQ(r.ops_not_listed, 0u);
  std::array<uint64_t, npu::kOpTimeKinds> by_cause{};
  for (const npu::OpRecord& op : r.ops) {
    SCOPED_TRACE(op.kind + " at " + std::to_string(op.offset));
    EXPECT_LE(op.exclusive(), op.cycles());
    for (size_t k = 0; k < npu::kOpTimeKinds; ++k) by_cause[k] += op.exclusive_cycles[k];
    for (size_t k = 0; k < npu::kStallKinds; ++k)
      EXPECT_LE(op.stall_cycles[k], op.cycles()) << npu::stall_name(static_cast<npu::Stall>(k));
  }
  EXPECT_EQ(by_cause, r.op_time_cycles);
  uint64_t sum = r.controller_parse_cycles;
  for (const uint64_t c : r.op_time_cycles) sum += c;
  for (const uint64_t c : r.controller_wait_cycles) sum += c;
  EXPECT_EQ(sum, r.total_cycles);
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoldenRecord, ::testing::ValuesIn(cases_or_placeholder()), LabelName());

}  // namespace
