// The PMU block as a SystemC module: the PMU registers (pmu_registers.h) and the accounting that feeds
// them: NPU_ACTIVE/NPU_IDLE and CYCLE over time, the AXI events from the ports' statistics, and the
// events of the other blocks, counted from the blocks' own statistics so that a report and a driver
// reading PMEVCNTR see one number.
//
// Contract: each block declares, at elaboration, which counter of its statistics an event counts
// (count()); the events of an interval are those counters' increase over it. account_until(cycle) closes
// the interval up to `cycle` and hands everything to the registers (the CC calls it when it synchronises, the NPU before a register
// access while idle). While the NPU is idle a counter that counts idle cycles (the cycle counter, CYCLE,
// NPU_IDLE) overflows at a definite time: the module schedules that moment and raises the interrupt then,
// not at the next register access. irq_changed is called whenever the PMU's interrupt request may have
// changed.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>

#include "models/npu/axi/axi_port.h"
#include "isa/registers.h"
#include "models/npu/pmu/pmu_registers.h"
#include "sim/stats.h"

namespace ethosu::npu {

class Pmu : public sc_core::sc_module {
 public:
  // The events the PMU counts itself, over time; the blocks' and the AXI ports' are theirs.
  static const std::array<isa::PmuEvent, 3> kOwnEvents;

  Pmu(const sc_core::sc_module_name& name, axi::AxiPort& axi0, axi::AxiPort& axi1);
  SC_HAS_PROCESS(Pmu);

  // `running` tells whether the NPU is running (NPU_ACTIVE) or idle; `irq_changed` is the NPU's hook.
  void connect(std::function<bool()> running, std::function<void()> irq_changed);

  PmuRegisters& registers() { return regs_; }
  const PmuRegisters& registers() const { return regs_; }
  // Event `e` counts the increase of `counter`.
  void count(isa::PmuEvent e, const sim::Counter& counter);
  // The blocks' statistics were reset (a new job): their counters count from zero again.
  void forget_block_statistics();

  void account_until(uint64_t cycle);
  uint64_t accounted_cycle() const { return accounted_cycle_; }
  // Soft reset: registers to their reset values, accounting continues from `cycle`.
  void reset(uint64_t cycle);
  // The ports' statistics were reset: AXI events count from zero again.
  void forget_port_statistics() { port_stats_ = {}; }
  // Re-plans the idle overflow interrupt after the NPU stops or the host changes the PMU.
  void plan_idle_overflow();

 private:
  void idle_overflow();
  uint64_t cycle_now() const;

  axi::AxiPort& axi0_;
  axi::AxiPort& axi1_;
  PmuRegisters regs_;
  struct Binding {
    uint16_t event;
    const sim::Counter* counter;
    uint64_t seen;
  };
  EventCounts pending_;
  std::vector<Binding> bindings_;
  uint64_t accounted_cycle_ = 0;
  std::array<axi::AxiPortStats, 2> port_stats_{};
  std::function<bool()> running_;
  std::function<void()> irq_changed_;
  sc_core::sc_event overflow_due_;
};

}  // namespace ethosu::npu
