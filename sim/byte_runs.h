// The bytes a run changed, as runs: what a copy back into memory others share must write, and nothing else.
//
// Contract: differing_runs(before, after, size) returns, in order, the maximal [begin, end) ranges of offsets at
// which the two buffers of `size` bytes differ. Writing only those leaves every byte the run did not change as the
// memory holds it now, whoever wrote it meanwhile (a client's thread filling another slot of a shared buffer).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace ethosu::sim {

inline std::vector<std::pair<size_t, size_t>> differing_runs(const uint8_t* before, const uint8_t* after, size_t size) {
  // Equal stretches, the usual case, are skipped a block at a time at memcmp's speed.
  constexpr size_t kBlock = 64;
  std::vector<std::pair<size_t, size_t>> runs;
  size_t at = 0;
  while (at < size) {
    const size_t n = std::min(kBlock, size - at);
    if (std::memcmp(before + at, after + at, n) == 0) {
      at += n;
      continue;
    }
    for (const size_t end = at + n; at < end; ++at) {
      if (before[at] == after[at]) continue;
      if (!runs.empty() && runs.back().second == at)
        runs.back().second = at + 1;
      else
        runs.emplace_back(at, at + 1);
    }
  }
  return runs;
}

}  // namespace ethosu::sim
