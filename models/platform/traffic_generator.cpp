#include "ethosu_sim/traffic_generator.h"

#include <cmath>

#include "ethosu_sim/error.h"

namespace ethosu_sim {

TrafficGenerator::TrafficGenerator(const sc_core::sc_module_name& name) : sc_module(name), socket("socket") {
  SC_THREAD(run);
}

void TrafficGenerator::start(const Pattern& p) {
  if (p.size == 0 || p.transaction_bytes == 0 || p.transaction_bytes > p.size)
    throw InputError("traffic generator: the range must hold at least one transaction");
  if (!std::isfinite(p.bytes_per_ns) || p.bytes_per_ns <= 0)
    throw InputError("traffic generator: bytes_per_ns must be positive");
  if (!(p.read_share >= 0 && p.read_share <= 1)) throw InputError("traffic generator: read_share must be in [0, 1]");
  pattern_ = p;
  stats_ = {};
  data_.assign(p.transaction_bytes, 0xA5);
  running_ = true;
  start_.notify(sc_core::SC_ZERO_TIME);
}

void TrafficGenerator::stop() {
  running_ = false;
  stop_.notify(sc_core::SC_ZERO_TIME);
}

void TrafficGenerator::run() {
  for (;;) {
    if (!running_) wait(start_);
    const Pattern p = pattern_;
    const sc_core::sc_time every = sc_core::sc_time(p.transaction_bytes / p.bytes_per_ns, sc_core::SC_NS);
    sc_core::sc_time offset = sc_core::SC_ZERO_TIME;  // ahead of SystemC's time
    uint64_t address = p.base;
    double reads = 0;  // reads owed to keep the share
    while (running_ && !stats_.error) {
      reads += p.read_share;
      const bool read = reads >= 1;
      if (read) reads -= 1;
      sc_core::sc_time delay = offset;
      gp_.set_command(read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
      gp_.set_address(address);
      gp_.set_data_ptr(data_.data());
      gp_.set_data_length(p.transaction_bytes);
      gp_.set_streaming_width(p.transaction_bytes);
      gp_.set_byte_enable_ptr(nullptr);
      gp_.set_dmi_allowed(false);
      gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      socket->b_transport(gp_, delay);
      if (gp_.is_response_error()) {
        stats_.error = true;
        break;
      }
      ++stats_.transactions;
      stats_.bytes += p.transaction_bytes;
      stats_.latency_ns += (delay - offset).to_seconds() * 1e9;
      address += p.transaction_bytes;
      if (address + p.transaction_bytes > p.base + p.size) address = p.base;
      // Open loop: the next request is due one period on, whatever this one's answer.
      offset += every;
      if (offset >= p.quantum) {
        wait(offset, stop_);
        offset = sc_core::SC_ZERO_TIME;
      }
    }
    running_ = false;
  }
}

}  // namespace ethosu_sim
