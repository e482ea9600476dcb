#include "sim/exclusive_cycles.h"

#include <algorithm>

namespace ethosu::sim {

void ExclusiveCycles::start(uint64_t cycle) {
  for (auto& lane : pending_) lane.clear();
  std::fill(charged_.begin(), charged_.end(), 0);
  uncovered_ = 0;
  settled_ = cycle;
}

void ExclusiveCycles::merge_into(std::vector<Interval>& list, Interval iv) {
  // Most intervals come in order: after the last one, or overlapping only it.
  if (list.empty() || iv.begin > list.back().end) {
    list.push_back(iv);
    return;
  }
  if (iv.begin >= list.back().begin) {
    list.back().end = std::max(list.back().end, iv.end);
    return;
  }
  // The lists hold a few intervals (a pipeline's tiles in flight): a linear pass is the cheapest.
  auto first = std::find_if(list.begin(), list.end(), [&](const Interval& x) { return x.end >= iv.begin; });
  auto last = first;
  while (last != list.end() && last->begin <= iv.end) {
    iv.begin = std::min(iv.begin, last->begin);
    iv.end = std::max(iv.end, last->end);
    ++last;
  }
  if (first == last) {
    list.insert(first, iv);
  } else {
    *first = iv;
    list.erase(first + 1, last);
  }
}

void ExclusiveCycles::add(size_t lane, uint64_t begin, uint64_t end) {
  begin = std::max(begin, settled_);
  if (end > begin) merge_into(pending_[lane], {begin, end});
}

void ExclusiveCycles::settle(uint64_t cycle) {
  if (cycle <= settled_) return;
  covered_.clear();
  uint64_t covered_cycles = 0;
  for (size_t lane = 0; lane < pending_.size(); ++lane) {
    auto& list = pending_[lane];
    for (const Interval& iv : list) {
      if (iv.begin >= cycle) break;
      const Interval part{iv.begin, std::min(iv.end, cycle)};
      // What of `part` no higher-ranked lane took.
      uint64_t free = part.end - part.begin;
      for (const Interval& c : covered_) {
        const uint64_t lo = std::max(c.begin, part.begin), hi = std::min(c.end, part.end);
        if (hi > lo) free -= hi - lo;
      }
      charged_[lane] += free;
      covered_cycles += free;
      merge_into(covered_, part);
    }
    // Forget what is settled; an interval across `cycle` keeps its rest.
    list.erase(list.begin(), std::find_if(list.begin(), list.end(), [&](const Interval& x) { return x.end > cycle; }));
    if (!list.empty() && list.front().begin < cycle) list.front().begin = cycle;
  }
  uncovered_ += (cycle - settled_) - covered_cycles;
  settled_ = cycle;
}

}  // namespace ethosu::sim
