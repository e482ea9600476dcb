#include "models/npu/pmu/pmu.h"

#include <algorithm>

#include "isa/registers.h"

namespace ethosu::npu {

using isa::PmuEvent;

namespace {

constexpr uint16_t ev(PmuEvent e) { return static_cast<uint16_t>(e); }

// The AXI events of one port, from the difference of its statistics over an interval.
struct AxiEventIds {
  PmuEvent rd_accepted, rd_completed, rd_beats, wr_accepted, wr_completed_m, wr_completed_s, wr_beats, rd_limit,
      wr_limit;
};
constexpr AxiEventIds kAxiEvents[2] = {
    {PmuEvent::AXI0_RD_TRANS_ACCEPTED, PmuEvent::AXI0_RD_TRANS_COMPLETED, PmuEvent::AXI0_RD_DATA_BEAT_RECEIVED,
     PmuEvent::AXI0_WR_TRANS_ACCEPTED, PmuEvent::AXI0_WR_TRANS_COMPLETED_M, PmuEvent::AXI0_WR_TRANS_COMPLETED_S,
     PmuEvent::AXI0_WR_DATA_BEAT_WRITTEN, PmuEvent::AXI0_RD_STALL_LIMIT, PmuEvent::AXI0_WR_STALL_LIMIT},
    {PmuEvent::AXI1_RD_TRANS_ACCEPTED, PmuEvent::AXI1_RD_TRANS_COMPLETED, PmuEvent::AXI1_RD_DATA_BEAT_RECEIVED,
     PmuEvent::AXI1_WR_TRANS_ACCEPTED, PmuEvent::AXI1_WR_TRANS_COMPLETED_M, PmuEvent::AXI1_WR_TRANS_COMPLETED_S,
     PmuEvent::AXI1_WR_DATA_BEAT_WRITTEN, PmuEvent::AXI1_RD_STALL_LIMIT, PmuEvent::AXI1_WR_STALL_LIMIT},
};

void axi_events(EventCounts& e, unsigned port, const axi::AxiPortStats& now, const axi::AxiPortStats& before) {
  const AxiEventIds& id = kAxiEvents[port];
  const uint64_t rd_tr = now.read.transactions - before.read.transactions;
  const uint64_t wr_tr = now.write.transactions - before.write.transactions;
  e.add(ev(id.rd_accepted), rd_tr);
  e.add(ev(id.rd_completed), rd_tr);
  e.add(ev(id.rd_beats), now.read.beats - before.read.beats);
  e.add(ev(id.wr_accepted), wr_tr);
  e.add(ev(id.wr_completed_m), wr_tr);
  e.add(ev(id.wr_completed_s), wr_tr);
  e.add(ev(id.wr_beats), now.write.beats - before.write.beats);
  e.add(ev(id.rd_limit), now.read.limit_stall_cycles - before.read.limit_stall_cycles);
  e.add(ev(id.wr_limit), now.write.limit_stall_cycles - before.write.limit_stall_cycles);
}

}  // namespace

Pmu::Pmu(const sc_core::sc_module_name& name, axi::AxiPort& axi0, axi::AxiPort& axi1)
    : sc_module(name), axi0_(axi0), axi1_(axi1) {
  SC_METHOD(idle_overflow);
  sensitive << overflow_due_;
  dont_initialize();
}

void Pmu::connect(std::function<bool()> running, std::function<void()> irq_changed) {
  running_ = std::move(running);
  irq_changed_ = std::move(irq_changed);
}

uint64_t Pmu::cycle_now() const { return static_cast<uint64_t>(sc_core::sc_time_stamp() / axi0_.clock_period()); }

void Pmu::count(PmuEvent e, const sim::Counter& counter) { bindings_.push_back({ev(e), &counter, counter.value()}); }

void Pmu::forget_block_statistics() {
  for (Binding& b : bindings_) b.seen = b.counter->value();
}

void Pmu::account_until(uint64_t cycle) {
  const uint64_t dt = cycle > accounted_cycle_ ? cycle - accounted_cycle_ : 0;
  for (Binding& b : bindings_) {
    const uint64_t now = b.counter->value();
    pending_.add(b.event, now - b.seen);
    b.seen = now;
  }
  pending_.add(ev(PmuEvent::CYCLE), dt);
  pending_.add(running_ && running_() ? ev(PmuEvent::NPU_ACTIVE) : ev(PmuEvent::NPU_IDLE), dt);
  for (unsigned p = 0; p < 2; ++p) {
    const auto now = (p ? axi1_ : axi0_).timing().stats();
    axi_events(pending_, p, now, port_stats_[p]);
    port_stats_[p] = now;
  }
  regs_.add(pending_);
  pending_.clear();
  accounted_cycle_ = std::max(accounted_cycle_, cycle);
  if (irq_changed_) irq_changed_();
}

void Pmu::reset(uint64_t cycle) {
  account_until(cycle);
  regs_.reset();
  plan_idle_overflow();
}

void Pmu::plan_idle_overflow() {
  overflow_due_.cancel();
  if (running_ && running_()) return;  // the CC accounts as it goes
  const uint64_t cycles = regs_.idle_cycles_to_interrupt();
  if (cycles == UINT64_MAX) return;
  // From the accounted point, which is where the counters stand.
  const uint64_t due = accounted_cycle_ + cycles;
  const uint64_t now = cycle_now();
  overflow_due_.notify(axi0_.clock_period() * static_cast<double>(due > now ? due - now : 0));
}

void Pmu::idle_overflow() {
  if (running_ && running_()) return;
  account_until(cycle_now());
  plan_idle_overflow();
}

}  // namespace ethosu::npu
