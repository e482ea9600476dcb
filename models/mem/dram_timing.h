// Timing of a DRAM shared by every master on it, as plain C++ (no SystemC): one data bus for reads and writes (an
// LPDDR channel's DQ bus carries both directions), accesses served on it first come, first served.
//
// Contract: access() books one access requested at an absolute time and returns when it completes: a read when its
// last data is out, a write when the device has taken it (its data in, plus the write latency). Times are in
// picoseconds. A read's data may start `read_latency_ns` after the request, a write's at once (posted); either
// then waits for the first gap on the data bus long enough for it, and occupies it for its bytes rounded up to
// whole bursts at `bytes_per_ns`. The bus is a calendar of busy intervals, not a single free-at time: requests from
// masters decoupled in time (each running ahead of SystemC by its own amount) arrive out of time order, and a
// late-booked request still takes an earlier gap instead of queueing behind bookings made far in the future.
// forget_before() drops the intervals no request can reach any more. Not modelled, for want of public figures
// for a given controller: banks, refresh and the read/write turnaround (tWTR, tRTW), which a controller that
// batches writes hides mostly; the bandwidth figure is the one to lower for them.
#pragma once

#include <cstdint>
#include <map>

namespace ethosu::mem {

struct DramParams {
  double bytes_per_ns = 3.75;        // GB/s over the one data bus, both directions together
  double read_latency_ns = 500;      // request to first data, bus free
  double write_latency_ns = 250;     // last data to the write's completion
  uint32_t burst_bytes = 32;         // smallest access (LPDDR4X x16, BL16: 32 bytes)

  template <typename Fields>
  void fields(Fields& f) {
    f.field("bytes_per_ns", bytes_per_ns, "GB/s",
            "data bandwidth of the DRAM's one data bus, reads and writes together, shared by its masters "
            "(a platform's Dram model; the NPU's own view is mem.axiN)", {1.0 / 1024, 1024.0});
    f.field("read_latency_ns", read_latency_ns, "ns", "DRAM read latency: request to first data", {0.0, 1e6});
    f.field("write_latency_ns", write_latency_ns, "ns", "DRAM write latency: last data to completion", {0.0, 1e6});
    f.field("burst_bytes", burst_bytes, "bytes", "DRAM access granularity: an access moves whole bursts", {1, 4096});
  }
};

class DramTiming {
 public:
  // Throws ethosu::InputError on parameters out of range.
  explicit DramTiming(const DramParams& p = {});
  void configure(const DramParams& p);
  const DramParams& params() const { return params_; }

  // When an access of `bytes` requested at `request_ps` completes (ps).
  uint64_t access(bool read, uint64_t request_ps, uint64_t bytes);
  // No request will come before `ps`: intervals that ended by then are dropped.
  void forget_before(uint64_t ps);
  void reset() { busy_.clear(); }

  struct Stats {
    uint64_t accesses = 0, bytes_read = 0, bytes_written = 0;
    uint64_t busy_ps = 0;  // data bus occupied
    uint64_t wait_ps = 0;  // accesses waiting for the bus beyond their latency
  };
  const Stats& stats() const { return stats_; }
  void reset_stats() { stats_ = {}; }

 private:
  DramParams params_;
  std::map<uint64_t, uint64_t> busy_;  // start -> end (ps), disjoint, merged where they touch
  Stats stats_;
};

}  // namespace ethosu::mem
