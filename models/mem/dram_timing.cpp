#include "models/mem/dram_timing.h"

#include <cmath>
#include <iterator>
#include <string>

#include "sim/error.h"

namespace ethosu::mem {

namespace {

void check(const DramParams& p) {
  const auto fail = [](const std::string& what) { throw InputError("DRAM parameters: " + what); };
  if (!std::isfinite(p.bytes_per_ns) || p.bytes_per_ns <= 0) fail("bytes_per_ns must be positive");
  if (!std::isfinite(p.read_latency_ns) || p.read_latency_ns < 0) fail("read_latency_ns must not be negative");
  if (!std::isfinite(p.write_latency_ns) || p.write_latency_ns < 0) fail("write_latency_ns must not be negative");
  if (p.burst_bytes == 0) fail("burst_bytes must be positive");
}

uint64_t ps(double ns) { return static_cast<uint64_t>(std::llround(ns * 1000.0)); }

}  // namespace

DramTiming::DramTiming(const DramParams& p) { configure(p); }

void DramTiming::configure(const DramParams& p) {
  check(p);
  params_ = p;
}

uint64_t DramTiming::access(bool read, uint64_t request_ps, uint64_t bytes) {
  const uint64_t bursts = (bytes + params_.burst_bytes - 1) / params_.burst_bytes;
  const uint64_t occupy = std::max<uint64_t>(1, ps(double(bursts * params_.burst_bytes) / params_.bytes_per_ns));
  const uint64_t earliest = request_ps + (read ? ps(params_.read_latency_ns) : 0);
  // The first gap of `occupy` at or after `earliest`: step over the intervals in the way.
  uint64_t start = earliest;
  auto it = busy_.upper_bound(start);
  if (it != busy_.begin()) {
    auto before = std::prev(it);
    if (before->second > start) start = before->second;
  }
  while (it != busy_.end() && it->first < start + occupy) {
    start = std::max(start, it->second);
    ++it;
  }
  const uint64_t end = start + occupy;
  // Book [start, end), merged with the intervals it touches.
  uint64_t lo = start, hi = end;
  auto next = busy_.lower_bound(start);
  if (next != busy_.begin() && std::prev(next)->second == start) {
    --next;
    lo = next->first;
  }
  while (next != busy_.end() && next->first <= hi) {
    hi = std::max(hi, next->second);
    next = busy_.erase(next);
  }
  busy_[lo] = hi;

  ++stats_.accesses;
  (read ? stats_.bytes_read : stats_.bytes_written) += bytes;
  stats_.busy_ps += occupy;
  stats_.wait_ps += start - earliest;
  return read ? end : end + ps(params_.write_latency_ns);
}

void DramTiming::forget_before(uint64_t t) {
  auto it = busy_.begin();
  while (it != busy_.end() && it->second <= t) it = busy_.erase(it);
}

}  // namespace ethosu::mem
