#include "models/npu/axi/axi_port.h"

#include <algorithm>
#include <cstring>

#include "sim/error.h"

namespace ethosu::axi {

using isa::PmuEvent;

namespace {

sc_core::sc_time::value_type period_value(sc_core::sc_time period) {
  if (period.value() == 0) throw InputError("AXI port: clock period must be positive");
  return period.value();
}

// The events of port M0 and port M1, from the difference of the port's statistics over an interval.
struct AxiPmuEvents {
  PmuEvent rd_accepted, rd_completed, rd_beats, wr_accepted, wr_completed_m, wr_completed_s, wr_beats, rd_limit,
      wr_limit;
};
constexpr AxiPmuEvents kPmuEvents[2] = {
    {PmuEvent::AXI0_RD_TRANS_ACCEPTED, PmuEvent::AXI0_RD_TRANS_COMPLETED, PmuEvent::AXI0_RD_DATA_BEAT_RECEIVED,
     PmuEvent::AXI0_WR_TRANS_ACCEPTED, PmuEvent::AXI0_WR_TRANS_COMPLETED_M, PmuEvent::AXI0_WR_TRANS_COMPLETED_S,
     PmuEvent::AXI0_WR_DATA_BEAT_WRITTEN, PmuEvent::AXI0_RD_STALL_LIMIT, PmuEvent::AXI0_WR_STALL_LIMIT},
    {PmuEvent::AXI1_RD_TRANS_ACCEPTED, PmuEvent::AXI1_RD_TRANS_COMPLETED, PmuEvent::AXI1_RD_DATA_BEAT_RECEIVED,
     PmuEvent::AXI1_WR_TRANS_ACCEPTED, PmuEvent::AXI1_WR_TRANS_COMPLETED_M, PmuEvent::AXI1_WR_TRANS_COMPLETED_S,
     PmuEvent::AXI1_WR_DATA_BEAT_WRITTEN, PmuEvent::AXI1_RD_STALL_LIMIT, PmuEvent::AXI1_WR_STALL_LIMIT},
};

constexpr uint16_t id(PmuEvent e) { return static_cast<uint16_t>(e); }

}  // namespace

AxiPort::AxiPort(const sc_core::sc_module_name& name, const AxiPortParams& params, sc_core::sc_time clock_period,
                 unsigned index)
    : sc_module(name), socket("socket"), timing_(params), caps_(params), period_(period_value(clock_period)),
      index_(index & 1) {
  socket.register_invalidate_direct_mem_ptr(this, &AxiPort::invalidate_direct_mem_ptr);
}

void AxiPort::configure(const AxiPortParams& params, sc_core::sc_time clock_period) {
  const auto period = period_value(clock_period);
  timing_.configure(params);
  caps_ = params;
  period_ = period;
}

void AxiPort::apply_limits(const std::array<uint32_t, kLimitersPerPort>& axi_limit) {
  AxiPortParams params = timing_.params();
  for (unsigned l = 0; l < kLimitersPerPort; ++l) {
    const uint32_t v = axi_limit[l];
    LimiterParams& lim = params.limiters[l];
    const LimiterParams& cap = caps_.limiters[l];
    lim.burst_split_bytes = 64u << std::min<uint32_t>(isa::get(v, isa::RegField::AXI_LIMIT0_max_beats), 2);
    lim.max_outstanding_reads =
        std::min(cap.max_outstanding_reads, isa::get(v, isa::RegField::AXI_LIMIT0_max_outstanding_read_m1) + 1);
    lim.max_outstanding_writes =
        std::min(cap.max_outstanding_writes, isa::get(v, isa::RegField::AXI_LIMIT0_max_outstanding_write_m1) + 1);
  }
  timing_.configure(params);
}

void AxiPort::count_pmu_events(npu::EventCounts& e, AxiPortStats& since) const {
  const AxiPmuEvents& ev = kPmuEvents[index_];
  const AxiPortStats now = timing_.stats();
  const uint64_t rd_tr = now.read.transactions - since.read.transactions;
  const uint64_t wr_tr = now.write.transactions - since.write.transactions;
  e.add(id(ev.rd_accepted), rd_tr);
  e.add(id(ev.rd_completed), rd_tr);
  e.add(id(ev.rd_beats), now.read.beats - since.read.beats);
  e.add(id(ev.wr_accepted), wr_tr);
  e.add(id(ev.wr_completed_m), wr_tr);
  e.add(id(ev.wr_completed_s), wr_tr);
  e.add(id(ev.wr_beats), now.write.beats - since.write.beats);
  e.add(id(ev.rd_limit), now.read.limit_stall_cycles - since.read.limit_stall_cycles);
  e.add(id(ev.wr_limit), now.write.limit_stall_cycles - since.write.limit_stall_cycles);
  since = now;
}

std::vector<PmuEvent> AxiPort::pmu_events() {
  std::vector<PmuEvent> out;
  for (const AxiPmuEvents& ev : kPmuEvents)
    out.insert(out.end(), {ev.rd_accepted, ev.rd_completed, ev.rd_beats, ev.wr_accepted, ev.wr_completed_m,
                           ev.wr_completed_s, ev.wr_beats, ev.rd_limit, ev.wr_limit});
  return out;
}

void AxiPort::set_trace(sim::Trace* trace, const npu::CycleClock& clock) {
  if (trace)
    track_.set(trace, trace->track("AXI" + std::to_string(index_)), clock);
  else
    track_.set(nullptr, {}, clock);
}

void AxiPort::trace_traffic(const std::string& kind, uint32_t op_offset, uint64_t start_cycle, uint64_t end_cycle,
                            uint64_t read_bytes, uint64_t write_bytes) const {
  if (read_bytes + write_bytes)
    track_.span(kind + " traffic", "axi", start_cycle, end_cycle,
                {{"read_bytes", read_bytes}, {"write_bytes", write_bytes}, {"op_offset", op_offset}});
}

AxiAccess AxiPort::read(uint64_t addr, uint8_t* dst, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                        sc_core::sc_time& local_offset, unsigned limiter, bool open_run) {
  return access(tlm::TLM_READ_COMMAND, addr, bytes, run_bytes, 1, dst, client, local_offset, limiter, open_run);
}

AxiAccess AxiPort::write(uint64_t addr, const uint8_t* src, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                         sc_core::sc_time& local_offset, unsigned limiter) {
  // TLM payloads carry a non-const pointer; a write never modifies it.
  return access(tlm::TLM_WRITE_COMMAND, addr, bytes, run_bytes, 1, const_cast<uint8_t*>(src), client,
                local_offset, limiter);
}

AxiAccess AxiPort::read_strided(uint64_t addr, uint64_t stride_bytes, uint32_t run_bytes, uint64_t runs,
                                uint8_t* dst, isa::Access client, sc_core::sc_time& local_offset, unsigned limiter) {
  return access(tlm::TLM_READ_COMMAND, addr, stride_bytes, run_bytes, runs, dst, client, local_offset, limiter);
}

AxiAccess AxiPort::write_strided(uint64_t addr, uint64_t stride_bytes, uint32_t run_bytes, uint64_t runs,
                                 const uint8_t* src, isa::Access client, sc_core::sc_time& local_offset,
                                 unsigned limiter) {
  return access(tlm::TLM_WRITE_COMMAND, addr, stride_bytes, run_bytes, runs, const_cast<uint8_t*>(src), client,
                local_offset, limiter);
}

// runs == 1: one contiguous chunk of `stride_bytes` bytes issued as runs of run_bytes (the contiguous
// API); runs > 1: `runs` chunks of run_bytes, stride_bytes apart. The data moves first, because what the
// target adds to the time is known only once it has answered.
AxiAccess AxiPort::access(tlm::tlm_command cmd, uint64_t addr, uint64_t stride_bytes, uint32_t run_bytes,
                          uint64_t runs, uint8_t* buf, isa::Access client, sc_core::sc_time& local_offset,
                          unsigned limiter, bool open_run) {
  AxiAccess result;
  const uint64_t now = sc_core::sc_time_stamp().value();
  const uint64_t request_cycle = (now + local_offset.value() + period_ - 1) / period_;
  const bool contiguous = runs == 1;
  const uint64_t bytes = contiguous ? stride_bytes : runs * run_bytes;
  // Runs back to back in memory are one sequential stream for the memory.
  const uint32_t timing_run = (contiguous ? run_bytes : (stride_bytes == run_bytes ? 0 : run_bytes));
  const auto request_offset = sc_core::sc_time::from_value(request_cycle * period_ - now);
  uint32_t added = 0;
  if (contiguous) {
    move(cmd, addr, buf, bytes, request_offset, result, added);
  } else {
    for (uint64_t k = 0; k < runs; ++k) {
      if (!move(cmd, addr + k * stride_bytes, buf + k * run_bytes, run_bytes, request_offset, result, added)) break;
    }
  }
  result.completion = cmd == tlm::TLM_READ_COMMAND
                          ? timing_.read(request_cycle, bytes, timing_run, client, limiter, added, open_run)
                          : timing_.write(request_cycle, bytes, timing_run, client, limiter, added);
  // A target that waited has moved SystemC's time on: the offset is from the time now.
  const uint64_t after = sc_core::sc_time_stamp().value();
  const uint64_t done = result.completion.data_done_cycle * period_;
  local_offset = sc_core::sc_time::from_value(done > after ? done - after : 0);
  return result;
}

AxiAccess AxiPort::transactions(tlm::tlm_command cmd, uint64_t request_cycle, const std::vector<AddressRun>& runs,
                                isa::Access client, unsigned limiter, TransactionData& data, bool open_run) {
  struct Bus : TransactionBus {
    AxiPort& port;
    tlm::tlm_command cmd;
    TransactionData& data;
    AxiAccess& result;
    Bus(AxiPort& p, tlm::tlm_command c, TransactionData& d, AxiAccess& r) : port(p), cmd(c), data(d), result(r) {}
    uint64_t transaction(bool, const AddressRun& run, uint64_t address, uint64_t bytes, uint64_t issue_cycle) override {
      if (!result.ok()) return 0;
      const uint64_t now = sc_core::sc_time_stamp().value(), at = issue_cycle * port.period_;
      sc_core::sc_time delay = sc_core::sc_time::from_value(at > now ? at - now : 0);
      tlm::tlm_generic_payload& gp = port.gp_;
      gp.set_command(cmd);
      gp.set_address(address);
      gp.set_data_ptr(data.at(address, bytes));
      gp.set_data_length(static_cast<unsigned>(bytes));
      gp.set_streaming_width(static_cast<unsigned>(bytes));
      gp.set_byte_enable_ptr(nullptr);
      if (run.strobe_period) {
        // The pattern of one period repeats over the transaction, which starts on a period boundary.
        std::vector<uint8_t>& strobes = port.strobes_;
        strobes.assign(run.strobe_period, TLM_BYTE_DISABLED);
        std::fill(strobes.begin() + run.strobe_lo, strobes.begin() + run.strobe_hi, uint8_t{TLM_BYTE_ENABLED});
        gp.set_byte_enable_ptr(strobes.data());
        gp.set_byte_enable_length(run.strobe_period);
      }
      gp.set_dmi_allowed(false);
      gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      port.socket->b_transport(gp, delay);
      if (gp.is_response_error()) {
        result.status = gp.get_response_status();
        result.fault_address = address;
        return 0;
      }
      const uint64_t answered = sc_core::sc_time_stamp().value() + delay.value();
      return (answered + port.period_ - 1) / port.period_;
    }
  };
  AxiAccess result;
  Bus bus(*this, cmd, data, result);
  result.completion = cmd == tlm::TLM_READ_COMMAND
                          ? timing_.read(request_cycle, runs.data(), runs.size(), client, limiter, bus, open_run)
                          : timing_.write(request_cycle, runs.data(), runs.size(), client, limiter, bus);
  return result;
}

uint64_t AxiPort::debug_read(uint64_t addr, uint8_t* dst, uint64_t bytes) {
  uint64_t done = 0;
  while (done < bytes) {
    gp_.set_command(tlm::TLM_READ_COMMAND);
    gp_.set_address(addr + done);
    gp_.set_data_ptr(dst + done);
    gp_.set_data_length(static_cast<unsigned>(std::min<uint64_t>(bytes - done, 0x10000000u)));
    gp_.set_streaming_width(gp_.get_data_length());
    gp_.set_byte_enable_ptr(nullptr);
    const unsigned n = socket->transport_dbg(gp_);
    done += n;
    if (n < gp_.get_data_length()) break;
  }
  return done;
}

bool AxiPort::transfer_untimed(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf, uint64_t bytes,
                               uint32_t& added_latency_cycles, uint64_t& fault_address) {
  AxiAccess result;
  const bool ok = move(cmd, addr, buf, bytes, sc_core::SC_ZERO_TIME, result, added_latency_cycles);
  fault_address = result.fault_address;
  return ok;
}

uint32_t AxiPort::cycles_ceil(sc_core::sc_time t) const {
  return static_cast<uint32_t>(std::min<uint64_t>((t.value() + period_ - 1) / period_, UINT32_MAX));
}

const tlm::tlm_dmi* AxiPort::dmi_for(tlm::tlm_command cmd, uint64_t addr) {
  const auto fits = [&](const tlm::tlm_dmi& d) {
    return addr >= d.get_start_address() && addr <= d.get_end_address() &&
           (cmd == tlm::TLM_READ_COMMAND ? d.is_read_allowed() : d.is_write_allowed());
  };
  if (dmi_count_ > 0 && fits(dmi_[dmi_last_])) return &dmi_[dmi_last_];
  for (unsigned i = 0; i < dmi_count_; ++i) {
    if (fits(dmi_[i])) {
      dmi_last_ = i;
      return &dmi_[i];
    }
  }
  if (addr >= refused_start_ && addr <= refused_end_) return nullptr;
  tlm::tlm_dmi d;
  gp_.set_command(cmd);
  gp_.set_address(addr);
  if (!socket->get_direct_mem_ptr(gp_, d)) {
    refused_start_ = d.get_start_address();
    refused_end_ = d.get_end_address();
    return nullptr;
  }
  if (!fits(d)) return nullptr;
  // Few buffers are mapped per job; when the slots are full, replace them in turn.
  const unsigned slot = dmi_count_ < kDmiSlots ? dmi_count_++ : (dmi_victim_++ % kDmiSlots);
  dmi_[slot] = d;
  dmi_last_ = slot;
  return &dmi_[slot];
}

AxiPort::Direct AxiPort::direct(uint64_t addr) {
  Direct out;
  const tlm::tlm_dmi* r = dmi_for(tlm::TLM_READ_COMMAND, addr);
  if (!r) return out;
  out.read_latency_cycles = cycles_ceil(r->get_read_latency());
  const tlm::tlm_dmi* w = dmi_for(tlm::TLM_WRITE_COMMAND, addr);
  if (!w) return Direct{};
  out.write_latency_cycles = cycles_ceil(w->get_write_latency());
  out.bytes = w->get_end_address() - addr + 1;
  out.data = w->get_dmi_ptr() + (addr - w->get_start_address());
  return out;
}

bool AxiPort::move(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf, uint64_t len, sc_core::sc_time offset,
                   AxiAccess& result, uint32_t& added) {
  while (len > 0) {
    if (const tlm::tlm_dmi* d = dmi_for(cmd, addr)) {
      added = std::max(added, cycles_ceil(cmd == tlm::TLM_READ_COMMAND ? d->get_read_latency() : d->get_write_latency()));
      const uint64_t n = std::min<uint64_t>(len, d->get_end_address() - addr + 1);
      uint8_t* mem = d->get_dmi_ptr() + (addr - d->get_start_address());
      if (cmd == tlm::TLM_READ_COMMAND) {
        std::memcpy(buf, mem, n);
      } else {
        std::memcpy(mem, buf, n);
      }
      addr += n;
      buf += n;
      len -= n;
      continue;
    }
    // No DMI here: the rest in one transaction; the memory decides whether all of it is mapped.
    sc_core::sc_time delay = offset;
    const uint64_t requested = sc_core::sc_time_stamp().value() + offset.value();
    gp_.set_command(cmd);
    gp_.set_address(addr);
    gp_.set_data_ptr(buf);
    gp_.set_data_length(static_cast<unsigned>(std::min<uint64_t>(len, 0xFFFFFFFFu)));
    gp_.set_streaming_width(gp_.get_data_length());
    gp_.set_byte_enable_ptr(nullptr);
    gp_.set_dmi_allowed(false);
    gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(gp_, delay);
    const uint64_t answered = sc_core::sc_time_stamp().value() + delay.value();
    if (answered > requested) added = std::max(added, cycles_ceil(sc_core::sc_time::from_value(answered - requested)));
    if (gp_.is_response_error()) {
      result.status = gp_.get_response_status();
      result.fault_address = addr;
      return false;
    }
    addr += gp_.get_data_length();
    buf += gp_.get_data_length();
    len -= gp_.get_data_length();
  }
  return true;
}

void AxiPort::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  // Drop overlapping grants (keeping the rest) and forget the refusal: the map has changed.
  unsigned kept = 0;
  for (unsigned i = 0; i < dmi_count_; ++i) {
    if (dmi_[i].get_end_address() < start || dmi_[i].get_start_address() > end) dmi_[kept++] = dmi_[i];
  }
  dmi_count_ = kept;
  dmi_last_ = 0;
  refused_start_ = 1;
  refused_end_ = 0;
  if (on_invalidate_) on_invalidate_(start, end);
}

}  // namespace ethosu::axi
