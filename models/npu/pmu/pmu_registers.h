// The NPU's performance monitor registers (spec 02 section 6): PMCR, counter enables, overflow flags and interrupt
// enables, the 48-bit cycle counter with its start/stop events, and the 32-bit event counters (4, 8 on the U85).
//
// Contract: plain C++. The model reports what happened over an interval with add(): cycles of each PMU
// event id, in one call per interval (an operation, an idle gap). The PMU applies its enables, the
// NPU_OP_PMU_MASK gate, the cycle counter's start/stop events, wrap-around and overflow flags. Register
// reads and writes go through read()/write() with APB offsets; irq() is the PMU's interrupt request.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>

#include "isa/architecture.h"
#include "isa/registers.h"

namespace ethosu::npu {

// Per-event counts over an interval, indexed by hardware event id (10-bit PMEVTYPER values).
class EventCounts {
 public:
  static constexpr unsigned kIds = 1024;
  void add(uint16_t id, uint64_t n) { counts_[id & (kIds - 1)] += n; }
  uint64_t operator[](uint16_t id) const { return counts_[id & (kIds - 1)]; }
  void clear() { counts_.fill(0); }

 private:
  std::array<uint64_t, kIds> counts_{};
};

class PmuRegisters {
 public:
  static constexpr unsigned kMaxCounters = 8;
  static constexpr uint32_t kCycleBit = 1u << 31;

  explicit PmuRegisters(isa::Variant v = isa::kDefaultVariant) { set_variant(v); }
  // The configuration's counters, events and register map; another configuration's resets the registers.
  void set_variant(isa::Variant v);
  void reset();
  unsigned counters() const { return counters_; }

  // Counts one interval's events. The cycle counter counts CYCLE events while its start/stop gate is open.
  void add(const EventCounts& events);
  // NPU_OP_PMU_MASK: gates counting when PMCR.mask_en is set.
  void set_mask(bool enable) { mask_enable_ = enable; }

  // The PMU's registers (false for any other register word), and the same at an APB offset.
  bool read(const isa::RegisterWord& at, uint32_t& value) const;
  bool write(const isa::RegisterWord& at, uint32_t value);
  bool read(uint16_t offset, uint32_t& value) const;
  bool write(uint16_t offset, uint32_t value);

  bool irq() const { return (overflow_ & interrupt_enable_) != 0; }
  // Cycles until a counter that counts while the NPU is idle (the cycle counter, CYCLE and NPU_IDLE
  // events) overflows with its interrupt enabled; UINT64_MAX when none will.
  uint64_t idle_cycles_to_interrupt() const;
  uint64_t cycle_counter() const { return pmccntr_; }
  uint32_t event_counter(unsigned n) const { return pmevcntr_.at(n); }
  uint16_t event_type(unsigned n) const { return pmevtyper_.at(n); }
  uint32_t enabled() const { return enable_; }
  uint32_t overflow() const { return overflow_; }

 private:
  bool counting() const { return (pmcr_ & 1u) && (!(pmcr_ & 8u) || mask_enable_); }
  uint32_t counter_bits() const { return kCycleBit | ((1u << counters_) - 1); }

  const isa::Architecture* arch_ = nullptr;
  isa::RegisterMap map_ = isa::RegisterMap::U65;
  unsigned counters_ = 4;
  std::bitset<EventCounts::kIds> events_;  // the hardware ids of the configuration's events
  uint32_t pmcr_ = 0;
  uint32_t enable_ = 0, overflow_ = 0, interrupt_enable_ = 0;
  uint64_t pmccntr_ = 0;  // 48 bits
  uint32_t pmccntr_cfg_ = 0;
  uint32_t pmcaxi_chan_ = 0;
  uint32_t pmclut_ = 0;
  bool cycle_gate_open_ = false;
  bool mask_enable_ = true;
  std::array<uint32_t, kMaxCounters> pmevcntr_{};
  std::array<uint16_t, kMaxCounters> pmevtyper_{};
};

}  // namespace ethosu::npu
