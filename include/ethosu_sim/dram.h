// A DRAM shared by the masters of a platform (two NPUs, an NPU and a CPU or display), as a TLM-2.0 target. Part of
// the public API (include/ethosu_sim).
//
// Contract: a Memory (memory.h: caller-owned buffers mapped at bus addresses, byte enables, the standard error
// responses, debug transport) whose b_transport also takes time: every access is booked on the DRAM's one data
// bus, shared by reads and writes and by every master, first come first served, and its completion goes back in
// the annotated delay (the request is at sc_time_stamp() + delay; the delay returned makes it the completion). A
// read completes when its last data is out (at least read_latency_ns after the request), a write write_latency_ns
// after its data went in; an access occupies the bus for its bytes rounded up to whole bursts at bytes_per_ns.
// Out-of-time-order requests (decoupled masters) take the first free gap on the bus after their time. The DRAM
// grants no DMI: a DMI access would skip its timing. Its parameters are `mem.dram.*` of a Config (the i.MX 93's
// LPDDR4X by default: 3.75 GB/s, 500/250 ns, 32-byte bursts); the NPU in transaction mode (npu.h) waits for its
// answers, so an NPU slows down when another master takes the DRAM's bandwidth.
#pragma once

#include <cstdint>
#include <memory>

#include <systemc>
#include <tlm>

#include "ethosu_sim/config.h"
#include "ethosu_sim/memory.h"

namespace ethosu_sim {

class Dram : public Memory {
 public:
  explicit Dram(const sc_core::sc_module_name& name, const Config& config = Config());
  ~Dram() override;

  // mem.dram.* of `config`; between runs (bookings already made stay).
  void configure(const Config& config);

  struct Stats {
    uint64_t accesses = 0, bytes_read = 0, bytes_written = 0;
    double busy_ns = 0;  // the data bus occupied
    double wait_ns = 0;  // accesses waiting for the bus, beyond their latency
  };
  Stats stats() const;
  void reset_stats();

  // The timing model itself, for the simulator's own code; its type is not part of the API.
  class Timing;

 private:
  void timed(const tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override;

  std::unique_ptr<Timing> timing_;
};

}  // namespace ethosu_sim
