#include "models/platform/platform.h"

namespace ethosu_sim {

Platform::Platform(const sc_core::sc_module_name& name, const Config& config)
    : sc_module(name), sram("sram"), dram("dram"), npu("npu", config), irq("irq"), reset("reset") {
  npu.axi0.bind(sram.socket);
  npu.axi1.bind(dram.socket);
  npu.irq.bind(irq);
  npu.reset.bind(reset);
  // Nothing else is on these memories: the NPU reaches them directly (DMI), its time from its port model.
  npu.set_bus_mode(Npu::BusMode::FAST);
}

}  // namespace ethosu_sim
