// Exclusive attribution of cycles among activities ranked by priority: every cycle from start() to the last
// settle() is charged once, to the highest-ranked activity busy in it, or to none (uncovered()). Plain C++.
//
// Contract: an activity (a lane, 0 the highest rank) is busy over [begin, end) intervals, given by add() in any
// order and overlapping as they may. settle(cycle) promises that no interval still to come begins before
// `cycle`: the cycles before it are charged and the intervals behind it forgotten, so memory stays bounded by
// what is pending between two settle() calls. An interval that begins before the last settled cycle loses the
// part already settled. Charges always add up: the sum over lanes plus uncovered() is the settled span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ethosu::sim {

class ExclusiveCycles {
 public:
  explicit ExclusiveCycles(size_t lanes) : pending_(lanes), charged_(lanes) {}

  // Starts a new span at `cycle`, forgetting every charge and pending interval.
  void start(uint64_t cycle);
  void add(size_t lane, uint64_t begin, uint64_t end);
  void settle(uint64_t cycle);

  uint64_t charged(size_t lane) const { return charged_[lane]; }
  uint64_t uncovered() const { return uncovered_; }
  uint64_t settled() const { return settled_; }

 private:
  struct Interval {
    uint64_t begin, end;
  };
  // Adds [begin, end) to a sorted list of disjoint intervals, merging what it touches.
  static void merge_into(std::vector<Interval>& list, Interval iv);

  std::vector<std::vector<Interval>> pending_;  // per lane: sorted, disjoint, all ending after settled_
  std::vector<uint64_t> charged_;
  std::vector<Interval> covered_;  // scratch for settle(): the union of higher-ranked lanes
  uint64_t uncovered_ = 0;
  uint64_t settled_ = 0;
};

}  // namespace ethosu::sim
