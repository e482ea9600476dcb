// Host (wall-clock) time of a simulation's parts, for speed reports (`ethosu-sim bench`, `--report`).
//
// Contract: timers read the steady clock (some 20 ns a reading), so they go around whole operations and
// DMAs, never around single elements or commands; what no timer covers is the rest (stream decoding,
// checks, SystemC, the host's driver model).
#pragma once

#include <chrono>

namespace ethosu::sim {

struct HostSeconds {
  double weights = 0;  // weight and scale streams of the operations: decoding, or the weight cache's lookup
  double kernels = 0;  // the operations' bit-exact kernels
  double dma = 0;      // DMA copies
  double timing = 0;   // the timing of operations and DMAs (block work, pipeline, AXI ports)
};

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
