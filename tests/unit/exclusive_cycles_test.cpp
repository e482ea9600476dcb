#include "sim/exclusive_cycles.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace ethosu::sim {
namespace {

TEST(ExclusiveCyclesTest, HigherRankTakesOverlaps) {
  ExclusiveCycles x(3);
  x.start(100);
  x.add(0, 110, 150);
  x.add(1, 100, 130);  // 110-130 is lane 0's
  x.add(2, 140, 200);  // 140-150 is lane 0's
  x.settle(210);
  EXPECT_EQ(x.charged(0), 40u);
  EXPECT_EQ(x.charged(1), 10u);
  EXPECT_EQ(x.charged(2), 50u);
  EXPECT_EQ(x.uncovered(), 10u);  // 200-210
  EXPECT_EQ(x.settled(), 210u);
}

TEST(ExclusiveCyclesTest, OverlapsWithinALaneCountOnce) {
  ExclusiveCycles x(1);
  x.start(0);
  x.add(0, 10, 30);
  x.add(0, 20, 40);
  x.add(0, 5, 12);
  x.add(0, 50, 60);
  x.settle(100);
  EXPECT_EQ(x.charged(0), 45u);
  EXPECT_EQ(x.uncovered(), 55u);
}

TEST(ExclusiveCyclesTest, SettlingInStepsChargesAsOnce) {
  ExclusiveCycles x(2);
  x.start(0);
  x.add(1, 0, 100);
  x.add(0, 40, 60);
  x.settle(50);  // lane 0 keeps 50-60 pending, lane 1 50-100
  EXPECT_EQ(x.charged(0), 10u);
  EXPECT_EQ(x.charged(1), 40u);
  x.add(0, 45, 70);  // its settled part (45-50) is not charged again
  x.settle(100);
  EXPECT_EQ(x.charged(0), 30u);
  EXPECT_EQ(x.charged(1), 70u);
  EXPECT_EQ(x.uncovered(), 0u);
}

TEST(ExclusiveCyclesTest, NothingBeforeStartOrAfterSettle) {
  ExclusiveCycles x(1);
  x.start(100);
  x.add(0, 0, 120);    // only 100-120 counts
  x.add(0, 300, 400);  // beyond the last settle: never charged
  x.settle(200);
  EXPECT_EQ(x.charged(0), 20u);
  EXPECT_EQ(x.uncovered(), 80u);
  x.settle(150);  // not later: nothing happens
  EXPECT_EQ(x.settled(), 200u);
  x.start(0);
  EXPECT_EQ(x.charged(0), 0u);
  EXPECT_EQ(x.uncovered(), 0u);
}

// Against a cycle-by-cycle count, with intervals arriving out of order between settles.
TEST(ExclusiveCyclesTest, MatchesACountCycleByCycle) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    constexpr size_t kLanes = 4;
    constexpr uint64_t kSpan = 400;
    std::vector<std::vector<bool>> busy(kLanes, std::vector<bool>(kSpan, false));
    ExclusiveCycles x(kLanes);
    x.start(0);
    uint64_t settled = 0;
    for (int step = 0; step < 30; ++step) {
      const size_t lane = rng() % kLanes;
      const uint64_t begin = settled + rng() % 40, length = rng() % 30;
      const uint64_t end = std::min(begin + length, kSpan);
      x.add(lane, begin, end);
      for (uint64_t c = begin; c < end; ++c) busy[lane][c] = true;
      if (rng() % 3 == 0) {
        settled = std::min<uint64_t>(settled + rng() % 20, kSpan);
        x.settle(settled);
      }
    }
    x.settle(kSpan);
    std::vector<uint64_t> expected(kLanes, 0);
    uint64_t none = 0;
    for (uint64_t c = 0; c < kSpan; ++c) {
      size_t lane = 0;
      while (lane < kLanes && !busy[lane][c]) ++lane;
      if (lane < kLanes)
        ++expected[lane];
      else
        ++none;
    }
    for (size_t lane = 0; lane < kLanes; ++lane) EXPECT_EQ(x.charged(lane), expected[lane]) << "lane " << lane;
    EXPECT_EQ(x.uncovered(), none);
  }
}

}  // namespace
}  // namespace ethosu::sim
