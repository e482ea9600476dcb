#include "ethosu_sim/dram.h"

#include "models/mem/dram.h"

namespace ethosu_sim {

Dram::~Dram() = default;

void Dram::timed(const tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const sc_core::sc_time ps(1, sc_core::SC_PS);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  // Nothing can be asked for before the present any more.
  timing_->forget_before(static_cast<uint64_t>(now / ps));
  const auto request = static_cast<uint64_t>((now + delay) / ps);
  const uint64_t done = timing_->access(gp.is_read(), request, gp.get_data_length());
  delay = ps * static_cast<double>(done) - now;
}

Dram::Stats Dram::stats() const {
  const ethosu::mem::DramTiming::Stats& s = timing_->stats();
  return {s.accesses, s.bytes_read, s.bytes_written, double(s.busy_ps) / 1000.0, double(s.wait_ps) / 1000.0};
}

void Dram::reset_stats() { timing_->reset_stats(); }

}  // namespace ethosu_sim
