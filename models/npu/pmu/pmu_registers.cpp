#include "models/npu/pmu/pmu_registers.h"

#include <algorithm>

#include "isa/registers.h"

namespace ethosu::npu {

using isa::Reg;
using isa::RegField;

namespace {
constexpr uint64_t kCycleCounterMask = (uint64_t{1} << 48) - 1;
}  // namespace

void PmuRegisters::set_variant(isa::Variant v) {
  const isa::Architecture& arch = isa::architecture(v);
  if (arch_ == &arch) return;
  arch_ = &arch;
  map_ = arch.register_map;
  counters_ = arch.pmu_event_counters;
  events_.reset();
  for (const isa::PmuEventInfo* e : arch.pmu_events) events_.set(e->hw_id);
  reset();
}

void PmuRegisters::reset() {
  pmcr_ = 0;
  enable_ = overflow_ = interrupt_enable_ = 0;
  pmccntr_ = 0;
  pmccntr_cfg_ = pmcaxi_chan_ = pmclut_ = 0;
  cycle_gate_open_ = false;
  mask_enable_ = true;
  pmevcntr_.fill(0);
  pmevtyper_.fill(0);
}

void PmuRegisters::add(const EventCounts& ev) {
  if (!counting()) return;
  const uint16_t start = static_cast<uint16_t>(isa::get(pmccntr_cfg_, RegField::PMCCNTR_CFG_CYCLE_CNT_CFG_START));
  const uint16_t stop = static_cast<uint16_t>(isa::get(pmccntr_cfg_, RegField::PMCCNTR_CFG_CYCLE_CNT_CFG_STOP));
  // With no start event the gate is always open; a start event opens it, a stop event closes it. Within
  // one interval the model cannot order them, so an interval that has the start event counts whole.
  if (start == 0 || ev[start]) cycle_gate_open_ = true;
  if ((enable_ & kCycleBit) && cycle_gate_open_) {
    const uint64_t before = pmccntr_;
    pmccntr_ = (pmccntr_ + ev[static_cast<uint16_t>(isa::PmuEvent::CYCLE)]) & kCycleCounterMask;
    if (pmccntr_ < before) overflow_ |= kCycleBit;
  }
  if (stop != 0 && ev[stop]) cycle_gate_open_ = false;
  for (unsigned n = 0; n < counters_; ++n) {
    if (!(enable_ & (1u << n)) || !events_[pmevtyper_[n]] || pmevtyper_[n] == 0) continue;
    const uint64_t sum = uint64_t{pmevcntr_[n]} + ev[pmevtyper_[n]];
    if (sum >> 32) overflow_ |= 1u << n;
    pmevcntr_[n] = static_cast<uint32_t>(sum);
  }
}

uint64_t PmuRegisters::idle_cycles_to_interrupt() const {
  uint64_t cycles = UINT64_MAX;
  if (!counting()) return cycles;
  const uint16_t cycle = static_cast<uint16_t>(isa::PmuEvent::CYCLE), idle = static_cast<uint16_t>(isa::PmuEvent::NPU_IDLE);
  auto counts_when_idle = [&](uint16_t id) { return id == cycle || id == idle; };
  const uint16_t start = static_cast<uint16_t>(isa::get(pmccntr_cfg_, RegField::PMCCNTR_CFG_CYCLE_CNT_CFG_START));
  const uint16_t stop = static_cast<uint16_t>(isa::get(pmccntr_cfg_, RegField::PMCCNTR_CFG_CYCLE_CNT_CFG_STOP));
  const bool gate = (cycle_gate_open_ || start == 0 || counts_when_idle(start)) && !(stop != 0 && counts_when_idle(stop));
  if ((enable_ & interrupt_enable_ & kCycleBit) && !(overflow_ & kCycleBit) && gate)
    cycles = (kCycleCounterMask + 1) - pmccntr_;
  for (unsigned n = 0; n < counters_; ++n) {
    const uint32_t bit = 1u << n;
    if ((enable_ & interrupt_enable_ & bit) && !(overflow_ & bit) && counts_when_idle(pmevtyper_[n]))
      cycles = std::min(cycles, (uint64_t{1} << 32) - pmevcntr_[n]);
  }
  return cycles;
}

bool PmuRegisters::read(uint16_t offset, uint32_t& v) const { return read(isa::locate_register(offset, map_), v); }

bool PmuRegisters::write(uint16_t offset, uint32_t v) { return write(isa::locate_register(offset, map_), v); }

bool PmuRegisters::read(const isa::RegisterWord& at, uint32_t& v) const {
  if (!at) return false;
  switch (at.reg()) {
    case Reg::PMCR: v = isa::set(pmcr_, RegField::PMCR_num_event_cnt, counters_); return true;
    case Reg::PMCNTENSET:
    case Reg::PMCNTENCLR: v = enable_; return true;
    case Reg::PMOVSSET:
    case Reg::PMOVSCLR: v = overflow_; return true;
    case Reg::PMINTSET:
    case Reg::PMINTCLR: v = interrupt_enable_; return true;
    case Reg::PMCCNTR: v = isa::word_of(pmccntr_, at.high); return true;
    case Reg::PMCCNTR_CFG: v = pmccntr_cfg_; return true;
    case Reg::PMCAXI_CHAN: v = pmcaxi_chan_; return true;
    case Reg::PMCLUT: v = pmclut_; return true;
    case Reg::PMEVCNTR: v = pmevcntr_[at.index]; return true;
    case Reg::PMEVTYPER: v = pmevtyper_[at.index]; return true;
    default: return false;
  }
}

bool PmuRegisters::write(const isa::RegisterWord& at, uint32_t v) {
  const uint32_t counter_mask = counter_bits();
  if (!at) return false;
  switch (at.reg()) {
    case Reg::PMCR:
      // The reset bits act on write and read back as 0; num_event_cnt is read-only.
      if (isa::get(v, RegField::PMCR_event_cnt_rst)) pmevcntr_.fill(0);
      if (isa::get(v, RegField::PMCR_cycle_cnt_rst)) pmccntr_ = 0;
      pmcr_ = v & (isa::reg_field_mask(RegField::PMCR_cnt_en) | isa::reg_field_mask(RegField::PMCR_mask_en));
      return true;
    case Reg::PMCNTENSET: enable_ |= v & counter_mask; return true;
    case Reg::PMCNTENCLR: enable_ &= ~v; return true;
    case Reg::PMOVSSET: overflow_ |= v & counter_mask; return true;
    case Reg::PMOVSCLR: overflow_ &= ~v; return true;
    case Reg::PMINTSET: interrupt_enable_ |= v & counter_mask; return true;
    case Reg::PMINTCLR: interrupt_enable_ &= ~v; return true;
    // The cycle counter is 48 bits wide: its high word has 16.
    case Reg::PMCCNTR: pmccntr_ = isa::with_word(pmccntr_, at.high, at.high ? v & 0xFFFF : v); return true;
    case Reg::PMCCNTR_CFG: pmccntr_cfg_ = v; return true;
    case Reg::PMCAXI_CHAN: pmcaxi_chan_ = v; return true;
    case Reg::PMCLUT: pmclut_ = v; return true;
    case Reg::PMEVCNTR: pmevcntr_[at.index] = v; return true;
    case Reg::PMEVTYPER: pmevtyper_[at.index] = static_cast<uint16_t>(isa::get(v, RegField::PMEVTYPER_EV_TYPE)); return true;
    default: return false;
  }
}

}  // namespace ethosu::npu
