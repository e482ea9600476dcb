// The corpus suites' main: as GoogleTest's, but a run in which every selected test skipped (the conformance data
// is absent, or the case's configuration is not run yet) exits 77, which ctest reports as skipped
// (cmake/corpus_discovery.cmake registers several tests per ctest test, so GoogleTest's skip line cannot be read).
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const testing::UnitTest& run = *testing::UnitTest::GetInstance();
  if (status == 0 && run.successful_test_count() == 0 && run.skipped_test_count() > 0) return 77;
  return status;
}
