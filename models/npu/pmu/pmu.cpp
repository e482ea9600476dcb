#include "models/npu/pmu/pmu.h"

#include <algorithm>

#include "isa/registers.h"

namespace ethosu::npu {

using isa::PmuEvent;

namespace {

constexpr uint16_t ev(PmuEvent e) { return static_cast<uint16_t>(e); }

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

const std::array<PmuEvent, 3> Pmu::kOwnEvents = {PmuEvent::CYCLE, PmuEvent::NPU_ACTIVE, PmuEvent::NPU_IDLE};

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
  axi0_.count_pmu_events(pending_, port_stats_[0]);
  axi1_.count_pmu_events(pending_, port_stats_[1]);
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
