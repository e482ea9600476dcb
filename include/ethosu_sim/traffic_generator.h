// A synthetic bus master for platforms of one's own: a CPU or display controller that moves a set bandwidth
// through a memory (a Dram, dram.h) while the NPU runs. Part of the public API (include/ethosu_sim).
//
// Contract: start() makes the generator issue, from the current time until stop(), one transaction of
// `transaction_bytes` every transaction_bytes / bytes_per_ns ns (open loop, as a display refill does: a slow
// memory delays the answers, not the next request), cycling through [base, base + size), a read_share of them
// reads and the rest writes (writes carry the generator's own bytes: point it at memory nothing else uses). It is
// loosely timed: it runs up to `quantum` ahead of SystemC's time, each b_transport annotated with its own request
// time, and synchronises only then. stats() gives what it moved and the mean latency the memory answered with. A
// refused transaction stops it (stats().error). It keeps no sc_start() from returning a driver's sc_pause().
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace ethosu_sim {

class TrafficGenerator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TrafficGenerator> socket;

  struct Pattern {
    uint64_t base = 0, size = 0;     // the address range it cycles through
    uint32_t transaction_bytes = 64;
    double bytes_per_ns = 1.0;       // GB/s it asks for
    double read_share = 1.0;         // 0..1: the fraction of its transactions that read
    sc_core::sc_time quantum{1, sc_core::SC_US};
  };
  struct Stats {
    uint64_t transactions = 0, bytes = 0;
    double latency_ns = 0;  // summed over the transactions: request to the memory's answer
    bool error = false;
  };

  explicit TrafficGenerator(const sc_core::sc_module_name& name);
  SC_HAS_PROCESS(TrafficGenerator);

  // Throws ethosu_sim::InputError for an empty range, a zero transaction size, a bandwidth that is not positive
  // or a read share outside [0, 1].
  void start(const Pattern& pattern);
  void stop();
  const Stats& stats() const { return stats_; }

 private:
  void run();

  Pattern pattern_;
  Stats stats_;
  bool running_ = false;
  sc_core::sc_event start_, stop_;
  std::vector<uint8_t> data_;
  tlm::tlm_generic_payload gp_;
};

}  // namespace ethosu_sim
