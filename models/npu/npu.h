// The Ethos-U65 NPU's model behind the public module (include/ethosu_sim/npu.h): the APB register file, the
// IRQ, the AXI ports M0/M1, and one child module per hardware block: cc (command controller), dma, wd (weight
// decoder), mac, ao (activation/output), shram and pmu, wired as the hardware is.
//
// Contract: the host programs it through `apb` with 32-bit accesses, exactly as a driver does (soft
// reset, QBASE/QSIZE, BASEPn, REGIONCFG, AXI_LIMITn, PMU set-up, CMD). CMD.transition_to_running_state
// wakes the CC, which runs the stream (cc.h). The NPU top owns the control/status registers (control.h),
// answers register reads (the PMU's, the state-register mirrors, the SHRAM debug window) and drives the
// IRQ line from the control registers and the PMU. All parameters are run-time: configure() between jobs,
// no re-elaboration.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "ethosu_sim/npu.h"
#include "isa/state.h"
#include "isa/architecture.h"
#include "models/npu/cc/fault.h"
#include "models/npu/axi/axi_port.h"
#include "models/npu/ao/ao.h"
#include "models/npu/cc/cc.h"
#include "models/npu/control.h"
#include "models/npu/dma/dma.h"
#include "models/npu/mac/mac.h"
#include "models/npu/npu_config.h"
#include "models/npu/pmu/pmu.h"
#include "models/npu/shram/shram.h"
#include "models/npu/wd/wd.h"
#include "models/npu/ao/ao_timing.h"
#include "models/npu/job_report.h"
#include "models/npu/mac/mac_timing.h"
#include "models/npu/wd/wd_timing.h"
#include "sim/stats.h"
#include "sim/trace.h"

namespace ethosu::npu {

// The PMU events the model counts, read from the blocks' tables of statistics (CounterSpec), the AXI ports' and
// the PMU's own; the others count nothing.
std::vector<isa::PmuEvent> counted_pmu_events();
bool counts_pmu_event(uint16_t hw_id);

// The NPU top's model: the register file, the two AXI ports and one module per block. It lives inside the
// public module (ethosu_sim::Npu), whose constructor builds it, so the blocks are that module's children and
// its sockets, IRQ and reset are the NPU's.
class NpuCore {
 public:
  explicit NpuCore(ethosu_sim::Npu& top);
  NpuCore(const NpuCore&) = delete;
  NpuCore& operator=(const NpuCore&) = delete;

  // c.axi are the ports' capabilities; the limiters the driver programs in AXI_LIMITn apply within them.
  void configure(const NpuConfig& c);
  const NpuConfig& config() const { return config_; }
  // What the last stream did (operations, traffic, stalls, the blocks' statistics); reset when a run starts.
  const npu::JobReport& report() const { return cc_.report(); }
  uint64_t cycle_now() const;
  // The configured variant's register map, which decodes APB offsets.
  isa::RegisterMap register_map() const;
  sc_core::sc_time clock_period() const { return axi0_.clock_period(); }
  // Records the next runs into `trace` (one track per block: CC, DMA, WD, MAC, AO, SHRAM, AXI0, AXI1);
  // nullptr stops tracing.
  void set_trace(sim::Trace* trace);
  // Names the next runs' operations, by the stream offset of their NPU_OP_* command, in the report and the trace
  // (the compiled network's layers, host/run/layers.h); nullptr names none. The map must outlive the runs.
  void set_layers(const std::map<uint32_t, std::string>* layers) { cc_.set_layers(layers); }

  // The level of the IRQ line, and the event that tells the top to drive it anew.
  bool irq_level() const { return irq_level_; }
  const sc_core::sc_event& irq_changed() const { return irq_changed_; }
  // The reset input: every register to its power-on value.
  void hard_reset();
  // Transaction mode or the fast path (ethosu_sim::Npu::BusMode), between jobs.
  void set_transactions(bool on) { cc_.set_transactions(on); }
  bool transactions() const { return cc_.transactions(); }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);
  // `time`: when the access takes effect (the initiator's annotated time).
  uint32_t read_register(uint16_t offset, const sc_core::sc_time& time);
  void write_register(uint16_t offset, uint32_t value, const sc_core::sc_time& time);
  uint64_t cycle_at(const sc_core::sc_time& t) const;
  void soft_reset(uint64_t cycle);
  void update_irq();

  tlm_utils::simple_target_socket<NpuCore> apb_;
  axi::AxiPort axi0_, axi1_;
  NpuConfig config_;
  ControlRegisters ctrl_;
  isa::RegisterState mirror_;  // the state registers as the CC last parsed them (0x800-0xB5F)
  std::array<uint32_t, 4> debug_{};  // DEBUG_ADDRESS, DEBUG_MISC, DEBUGCORE, DEBUG_BLOCK
  uint32_t clkforce_ = 0;
  bool irq_level_ = false;
  sc_core::sc_event irq_changed_;

  sim::Stats stats_;  // every block's counters; the PMU and the report read them
  Shram shram_;
  Pmu pmu_;
  Wd wd_;
  Mac mac_;
  Ao ao_;
  Dma dma_;
  Cc cc_;
};

}  // namespace ethosu::npu

namespace ethosu_sim {

class Npu::Impl : public ethosu::npu::NpuCore {
 public:
  using NpuCore::NpuCore;
};

}  // namespace ethosu_sim
