// The SoC around the NPU, wired like the i.MX 93: the NPU's AXI M0 port reaches the on-chip SRAM, its
// AXI M1 port the external DRAM, and its IRQ line goes to the host.
//
// Contract: elaborated once per process; configure() applies a configuration between jobs (NPU variant
// and block timing, each port's timing, clock). The host maps job buffers into `sram` and `dram` and
// programs the NPU through `npu.apb`.
#pragma once

#include <array>

#include <systemc>

#include "models/mem/axi_port.h"
#include "models/mem/memory.h"
#include "models/npu/npu.h"

namespace ethosu::platform {

struct PlatformConfig {
  npu::NpuConfig npu;
  std::array<mem::AxiPortParams, 2> axi{};  // AXI0 (SRAM), AXI1 (DRAM)
};

class Platform : public sc_core::sc_module {
 public:
  mem::Memory sram, dram;
  mem::AxiPort axi0, axi1;
  npu::Npu npu;
  sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> irq;  // written from register accesses and the CC

  explicit Platform(const sc_core::sc_module_name& name);
  void configure(const PlatformConfig& c);
  const PlatformConfig& config() const { return config_; }
  sc_core::sc_time clock_period() const { return axi0.clock_period(); }

 private:
  PlatformConfig config_;
};

}  // namespace ethosu::platform
