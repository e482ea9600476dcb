// Host (wall-clock) time of a simulation's parts, for speed reports.
//
// Contract: timers read the steady clock (some 20 ns a reading), so they go around large pieces of work, never
// around single elements.
#pragma once

#include <chrono>

namespace ethosu::sim {

// Adds the host time of its scope to a counter.
class HostTimer {
 public:
  explicit HostTimer(double& seconds) : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  ~HostTimer() { seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  HostTimer(const HostTimer&) = delete;
  HostTimer& operator=(const HostTimer&) = delete;

 private:
  double& seconds_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ethosu::sim
