// Every SIMD path gives the same bytes: each corpus case runs on the functional model with every Highway
// target this host supports and was built for (the one-lane scalar target included), and with every
// level of the hand-written conv micro-kernels, and must leave exactly the outputs of the best ones.
#include <gtest/gtest.h>

#include <iostream>

#include "corpus/case_outputs.h"
#include "corpus/corpus_paths.h"
#include "models/kernels/microkernel.h"
#include "models/kernels/simd_loops.h"

using namespace ethosu;
namespace fs = std::filesystem;

namespace {

class SimdTargets : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    if (GetParam().empty()) GTEST_SKIP() << test::skip_message();
  }
  void TearDown() override {
    kernels::select_simd_target(0);
    kernels::set_simd_level_limit(kernels::SimdLevel::Avx512Vnni);
  }
};

TEST_P(SimdTargets, EveryTargetGivesTheSameBytes) {
  const auto best = test::functional_outputs(GetParam());
  ASSERT_FALSE(best.empty());
  const std::vector<int64_t> targets = kernels::available_simd_targets();
  ASSERT_GE(targets.size(), 2u) << "the build should include the scalar target besides the host's best";
  for (const int64_t target : targets) {
    kernels::select_simd_target(target);
    std::cout << "[ target   ] " << kernels::simd_target_name() << "\n";
    EXPECT_EQ(test::functional_outputs(GetParam()), best) << "Highway target " << kernels::simd_target_name();
  }
  kernels::select_simd_target(0);
  for (auto level : {kernels::SimdLevel::Generic, kernels::SimdLevel::Avx2, kernels::SimdLevel::AvxVnni}) {
    // Against the host's level, not best_simd_level(): the limit set in this loop caps that.
    if (level > kernels::host_simd_level() || (level == kernels::SimdLevel::AvxVnni && !kernels::host_has_avx_vnni()))
      continue;
    kernels::set_simd_level_limit(level);
    EXPECT_EQ(test::functional_outputs(GetParam()), best) << "micro-kernel level " << static_cast<int>(level);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, SimdTargets, ::testing::ValuesIn(test::cases_or_placeholder()), test::CaseName());

}  // namespace
