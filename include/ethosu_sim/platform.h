// The ready platform, wired like the i.MX 93: the NPU's AXI M0 port reaches an on-chip SRAM, its AXI M1 port
// an external DRAM, each directly (no bus, no added delay), and its IRQ goes to a signal. The NPU uses the fast
// path (Npu::BusMode::FAST, DMI): nothing else is on these memories, and its port model gives the time; set
// npu.set_bus_mode(Npu::BusMode::TRANSACTIONS) to see its transactions on the memories' sockets. Part of the public
// API (include/ethosu_sim); ethosu_sim::run() (run.h) uses one with the driver-like host (driver.h).
//
// Contract: elaborated once per process, any number of jobs: map a job's buffers into `sram` and `dram` at
// the addresses the driver gives the NPU (BASEPn, QBASE), program the NPU through `npu.apb` (bind an
// initiator to it, and its interrupt input to `irq`), and configure() between jobs. `reset` drives the NPU's
// reset input; it stays low unless the user writes it.
#pragma once

#include <systemc>

#include "ethosu_sim/config.h"
#include "ethosu_sim/memory.h"
#include "ethosu_sim/npu.h"

namespace ethosu_sim {

class Platform : public sc_core::sc_module {
 public:
  Memory sram, dram;
  Npu npu;
  sc_core::sc_signal<bool> irq;
  sc_core::sc_signal<bool> reset;

  explicit Platform(const sc_core::sc_module_name& name, const Config& config = Config());
  void configure(const Config& config) { npu.configure(config); }
};

}  // namespace ethosu_sim
