// CC, the command controller, as a SystemC module: fetches the command stream over the AXI port QCONFIG
// selects, parses it with the isa library, keeps the state registers, and launches operations: kernel
// operations through the WD/MAC/AO pipeline (their data effect from the functional model's OpRunner),
// DMAs on the DMA block; it honours NPU_OP_KERNEL_WAIT/DMA_WAIT, BLOCKDEP, SHRAM reconfiguration and the
// TSU's operations in flight, and ends the stream at NPU_OP_STOP or a fault.
//
// Contract: start() (on CMD.transition_to_running_state) wakes the CC's thread. Time is loosely timed:
// the CC computes ahead in cycles and synchronises with SystemC at waits, interrupts, the end of the stream
// and at least every CcTiming::quantum_cycles. The stream is fetched in CcTiming::fetch_bytes pieces all
// requested at the start; parsing a command waits until its bytes are in. NPU_OP_STOP waits for the
// operations, the DMAs and the write responses of the last OFM writes. Faults set STATUS through the
// control registers and stop the stream.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "isa/operation.h"
#include "isa/state.h"
#include "models/functional/executor.h"
#include "models/functional/op_runner.h"
#include "models/mem/axi_port.h"
#include "models/npu/ao.h"
#include "models/npu/control.h"
#include "models/npu/dma.h"
#include "models/npu/job_report.h"
#include "models/npu/mac.h"
#include "models/npu/pmu.h"
#include "models/npu/shram.h"
#include "models/npu/wd.h"
#include "models/timing/block_work.h"

namespace ethosu::npu {

// The command controller's own timing [I: not documented].
struct CcTiming {
  uint32_t cycles_per_word = 1;      // one 32-bit command word parsed per cycle
  uint32_t tsu_banks = 4;            // kernel operations in flight (spec 01 section 3)
  uint32_t fetch_bytes = 64;         // command fetch request size (one AXI burst at the default split)
  uint64_t quantum_cycles = 100000;  // longest run-ahead before synchronising with SystemC
};

// The blocks the CC drives.
struct CcBlocks {
  ControlRegisters& ctrl;
  isa::RegisterState& mirror;  // the state registers as the CC last parsed them
  mem::AxiPort& axi0;
  mem::AxiPort& axi1;
  Dma& dma;
  Shram& shram;
  Wd& wd;
  Mac& mac;
  Ao& ao;
  Pmu& pmu;
};

class Cc : public sc_core::sc_module {
 public:
  Cc(const sc_core::sc_module_name& name, const CcBlocks& blocks);
  SC_HAS_PROCESS(Cc);

  // `units` is the whole NPU's per-block timing (OpWork needs all of it); `axi` the ports' capabilities,
  // within which the limiters the driver programs in AXI_LIMITn apply.
  void configure(const CcTiming& t, const timing::NpuTiming& units, double clock_hz,
                 const std::array<mem::AxiPortParams, 2>& axi);
  // `irq_changed` is the NPU's hook, called when an interrupt source may have changed.
  void connect(std::function<void()> irq_changed) { irq_changed_ = std::move(irq_changed); }
  void start() { start_.notify(sc_core::SC_ZERO_TIME); }

  const JobReport& report() const { return report_; }
  // Operations on `cc`, their traffic on `axi0`/`axi1`; nullptr stops.
  void set_trace(sim::Trace* trace, sim::Trace::TrackId cc, sim::Trace::TrackId axi0, sim::Trace::TrackId axi1);

 private:
  struct InFlight {
    uint64_t end_cycle;
  };

  void thread();
  void run_stream();
  bool fetch_stream(std::vector<uint8_t>& bytes);
  void parse_until(uint32_t end_offset);
  void map_regions();
  bool kernel_operation(uint32_t offset, const isa::Operation& op);
  bool start_dma(uint32_t offset, const isa::Operation& op);
  bool admit(uint32_t offset, const char* name, const functional::OpCost& c);
  void wait_kernels(size_t max_outstanding);
  void stop(uint16_t mask);
  void fault(const BlockFault& f, uint32_t offset);
  void sync();
  void trace_op(const OpRecord& rec);
  mem::AxiPort& port(unsigned index) { return index ? b_.axi1 : b_.axi0; }
  uint64_t cycle_now() const;

  CcBlocks b_;
  CcTiming timing_;
  std::array<mem::AxiPortParams, 2> axi_caps_{};
  timing::NpuTiming units_;
  CycleClock clock_;
  std::function<void()> irq_changed_;
  sc_core::sc_event start_;

  // State of the running stream.
  functional::Regions regions_{};
  functional::OpRunner runner_;
  PipelineUnits pipeline_;
  functional::Limits limits_;
  uint64_t work_left_ = 0;
  uint64_t cc_cycle_ = 0;
  uint64_t run_start_cycle_ = 0;
  std::vector<uint64_t> fetch_done_;  // per fetch request: when its bytes are in
  uint32_t parsed_ = 0;               // stream bytes the CC has parsed
  std::deque<InFlight> kernels_;
  std::vector<uint64_t> prev_block_done_;
  bool have_prev_op_ = false;
  uint64_t writes_acknowledged_ = 0;  // the last OFM write response of the stream so far
  JobReport report_;
  std::vector<BlockStages> stages_;  // reused per op while tracing
  sim::Trace* trace_ = nullptr;
  sim::Trace::TrackId cc_track_{}, axi_tracks_[2]{};
};

}  // namespace ethosu::npu
