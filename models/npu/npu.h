// The Ethos-U65 NPU as a SystemC module: the APB register file behind a TLM-2.0 target socket, the IRQ
// line, and the blocks that run a command stream: CC (command controller), DMA, WD, MAC, AO, SHRAM, PMU.
//
// Contract: the host programs it through `apb` with 32-bit accesses, exactly as a driver does (soft
// reset, QBASE/QSIZE, BASEPn, REGIONCFG, AXI_LIMITn, PMU set-up, CMD). CMD.transition_to_running_state
// wakes the CC, which fetches the stream over the AXI port QCONFIG selects, decodes it with the isa
// library and runs it: kernel operations get their functional effect from the functional model's
// OpRunner on the region memory (reached through DMI) and their time from the per-block pipeline over
// the WD/MAC/AO units and the AXI port timing; DMAs move data when they complete. Time is loosely timed:
// the CC computes ahead in cycles and synchronises with SystemC at waits, interrupts, the end of the
// stream and at least every `quantum_cycles`. Faults set STATUS as the hardware does and raise the IRQ.
// All parameters are run-time: configure() between jobs, no re-elaboration.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "isa/operation.h"
#include "isa/validator.h"
#include "models/functional/executor.h"
#include "models/functional/op_runner.h"
#include "models/mem/axi_port.h"
#include "models/npu/control.h"
#include "models/npu/job_report.h"
#include "models/npu/pipeline.h"
#include "models/npu/pmu.h"
#include "models/timing/block_work.h"
#include "sim/trace.h"

namespace ethosu::npu {

// The command controller's own timing [I: not documented; one 32-bit word parsed per cycle].
struct CcTiming {
  uint32_t cycles_per_word = 1;
  uint32_t tsu_banks = 4;  // kernel operations in flight (spec 01 section 3)
  uint64_t quantum_cycles = 100000;  // longest run-ahead before synchronising with SystemC
};

// The DMA engine's own timing.
struct DmaTiming {
  uint32_t queue_depth = 2;  // outstanding NPU_OP_DMA_START before the CC stalls [I: Vela assumes 2 on U65]
};

struct NpuConfig {
  isa::Variant variant = isa::Variant::U65_256;
  double clock_hz = 1e9;
  timing::NpuTiming units = timing::npu_timing(isa::Variant::U65_256);
  CcTiming cc;
  DmaTiming dma;
};

// True for the PMU events the model derives; the other event ids count nothing.
bool derives_pmu_event(uint16_t hw_id);

class Npu : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Npu> apb;
  sc_core::sc_out<bool> irq;

  Npu(const sc_core::sc_module_name& name, mem::AxiPort& axi0, mem::AxiPort& axi1);
  SC_HAS_PROCESS(Npu);

  // `axi` are the ports' capabilities; the limiters the driver programs in AXI_LIMITn apply within them.
  void configure(const NpuConfig& c, const std::array<mem::AxiPortParams, 2>& axi);
  const NpuConfig& config() const { return config_; }
  // What the last stream did (operations, traffic, stalls); reset when a run starts.
  const JobReport& report() const { return report_; }
  uint64_t cycle_now() const;
  // Records the next runs into `trace` (one track per block: CC, DMA, WD, MAC, AO, AXI0, AXI1);
  // nullptr stops tracing.
  void set_trace(sim::Trace* trace);

 private:
  struct PendingDma {
    uint32_t offset;
    isa::Operation op;
    uint64_t done_cycle;
  };
  struct InFlight {
    uint64_t end_cycle;
  };

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  uint32_t read_register(uint16_t offset);
  void write_register(uint16_t offset, uint32_t value);
  void soft_reset();

  void cc_thread();
  void run_stream();
  bool fetch_stream(std::vector<uint8_t>& bytes);
  void map_regions();
  bool kernel_operation(uint32_t offset, const isa::Operation& op);
  bool start_dma(uint32_t offset, const isa::Operation& op);
  bool admit(uint32_t offset, const char* name, const functional::OpCost& c);
  void complete_dma(const PendingDma& d);
  void complete_dmas_until(uint64_t cycle);
  void wait_kernels(size_t max_outstanding);
  void fault(Fault f, uint32_t offset, const std::string& what, unsigned port = 0, Channel ch = Channel::RD_CMD);
  // Advances SystemC time to the CC's cycle and accounts the PMU events of the interval.
  void sync();
  void account_until(uint64_t cycle);
  void update_irq();
  void trace_op(const OpRecord& rec, const std::vector<BlockStages>& stages);
  uint64_t ps(uint64_t cycle) const { return static_cast<uint64_t>(double(cycle) * 1e12 / config_.clock_hz + 0.5); }
  mem::AxiPort& port(unsigned index) { return index ? axi1_ : axi0_; }

  mem::AxiPort& axi0_;
  mem::AxiPort& axi1_;
  NpuConfig config_;
  std::array<mem::AxiPortParams, 2> config_axi_{};
  ControlRegisters ctrl_;
  Pmu pmu_;
  isa::RegisterState mirror_;  // the state registers as the CC last saw them (0x800-0xB5F)
  std::array<uint32_t, 4> debug_{};  // DEBUG_ADDRESS, DEBUG_MISC, DEBUGCORE, DEBUG_BLOCK
  uint32_t clkforce_ = 0;
  std::vector<std::vector<uint8_t>> shram_;  // per core
  sc_core::sc_event start_;

  // State of the running stream.
  functional::Regions regions_{};
  functional::OpRunner runner_;
  PipelineUnits units_;
  uint64_t cc_cycle_ = 0;
  uint64_t accounted_cycle_ = 0;  // PMU events counted up to here
  uint64_t run_start_cycle_ = 0;
  functional::Limits limits_;
  uint64_t work_left_ = 0;
  std::deque<PendingDma> dmas_;
  uint64_t dma_free_ = 0;
  std::deque<InFlight> kernels_;
  std::vector<uint64_t> prev_block_done_;
  isa::ShramConfig prev_shram_{};
  isa::enums::acc_format prev_acc_ = isa::enums::acc_format::I32;
  bool have_prev_op_ = false;
  EventCounts pending_events_;
  std::array<mem::AxiPortStats, 2> port_stats_at_sync_{};
  JobReport report_;
  sim::Trace* trace_ = nullptr;
  enum Track { CC, DMA, WD, MAC, AO, AXI0, AXI1, kTracks };
  std::array<sim::Trace::TrackId, kTracks> tracks_{};
  std::vector<BlockStages> stages_;  // reused per op while tracing
};

}  // namespace ethosu::npu
