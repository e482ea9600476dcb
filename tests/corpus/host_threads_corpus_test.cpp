// Host threads change nothing the job leaves: each corpus case runs on the functional model with one host
// thread and with three (bands of uneven height where an operation is large enough to be split), and must
// leave the same bytes.
#include <gtest/gtest.h>

#include "corpus/case_outputs.h"
#include "corpus/corpus_paths.h"

using namespace ethosu;
namespace fs = std::filesystem;

namespace {

class HostThreadsCorpus : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << test::skip_message();
  }
};

std::vector<std::vector<uint8_t>> outputs(const fs::path& dir, unsigned threads) {
  host::RunOptions options;
  options.config.limits.host_threads = threads;
  return test::functional_outputs(dir, options);
}

TEST_P(HostThreadsCorpus, ThreeThreadsGiveTheBytesOfOne) {
  const auto one = outputs(GetParam(), 1);
  ASSERT_FALSE(one.empty());
  EXPECT_EQ(outputs(GetParam(), 3), one);
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostThreadsCorpus, ::testing::ValuesIn(test::cases_or_placeholder()),
                         test::CaseName());

}  // namespace
