#include "models/platform/platform.h"

namespace ethosu::platform {

namespace {
sc_core::sc_time period_of(double hz) { return sc_core::sc_time(1.0 / hz, sc_core::SC_SEC); }
}  // namespace

Platform::Platform(const sc_core::sc_module_name& name)
    : sc_module(name),
      sram("sram"),
      dram("dram"),
      axi0("axi0", mem::AxiPortParams{}, period_of(1e9)),
      axi1("axi1", mem::AxiPortParams{}, period_of(1e9)),
      npu("npu", axi0, axi1),
      irq("irq") {
  axi0.socket.bind(sram.socket);
  axi1.socket.bind(dram.socket);
  npu.irq.bind(irq);
  configure(PlatformConfig{});
}

void Platform::configure(const PlatformConfig& c) {
  config_ = c;
  const sc_core::sc_time period = period_of(c.npu.clock_hz);
  axi0.configure(c.axi[0], period);
  axi1.configure(c.axi[1], period);
  npu.configure(c.npu, c.axi);
}

}  // namespace ethosu::platform
