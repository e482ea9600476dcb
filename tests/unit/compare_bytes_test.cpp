// host::compare_bytes: an output against its reference, exact or counted per element (signed or not, 1, 2 or 4
// bytes), as `run` and `bench` report it.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "host/run/run_job.h"

namespace ethosu::host {
namespace {

TEST(CompareBytes, IdenticalBuffersAreExact) {
  const std::vector<uint8_t> a = {1, 2, 3, 250};
  const Comparison c = compare_bytes(a, a, 1, false);
  EXPECT_TRUE(c.exact);
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_EQ(c.max_abs_diff, 0);
  EXPECT_EQ(c.text, "exact (4 bytes)");
}

TEST(CompareBytes, CountsDifferingElementsAndTheLargestDifference) {
  const std::vector<uint8_t> a = {0, 10, 0x80, 7}, b = {0, 13, 0x7F, 7};
  const Comparison u = compare_bytes(a, b, 1, false);
  EXPECT_FALSE(u.exact);
  EXPECT_EQ(u.mismatches, 2u);
  EXPECT_EQ(u.max_abs_diff, 3);
  // Signed: 0x80 is -128 against 127.
  EXPECT_EQ(compare_bytes(a, b, 1, true).max_abs_diff, 255);
  // One 16-bit little-endian element differs in each half: 0x0A00 - 0x0D00 and 0x0780 - 0x077F.
  const Comparison h = compare_bytes(a, b, 2, false);
  EXPECT_EQ(h.mismatches, 2u);
  EXPECT_EQ(h.max_abs_diff, 0x300);
  EXPECT_EQ(h.text, "2 of 2 elements differ, max |diff| 768");
}

TEST(CompareBytes, SizeMismatchCountsTheLargerSize) {
  const Comparison c = compare_bytes({1, 2, 3}, {1, 2}, 1, false);
  EXPECT_FALSE(c.exact);
  EXPECT_EQ(c.mismatches, 3u);
  EXPECT_EQ(c.text, "size differs: 3 bytes, expected 2");
}

}  // namespace
}  // namespace ethosu::host
