// The NPU's DMA engine as a SystemC module: NPU_OP_DMA_START copies between regions (external memory
// through AXI) and the SHRAM (internal), 1D/2D/3D, while kernel operations run.
//
// Contract: the CC checks a DMA (check(): outside its region or the SHRAM is a bus error, as the hardware
// reports it) and starts it (start()): it is issued when the queue has room (DmaTiming::queue_depth; the
// CC stalls otherwise) and runs when the engine is free. The read side streams through the source port;
// the write side follows one burst behind it, so its first write waits for the first read burst and its
// last write for the last read data; the DMA is done when its last write response is back. A DMA's data
// lands at its done cycle: land_until() lands the ones done by a cycle (an operation issued later sees
// them, an earlier one does not), wait() is NPU_OP_DMA_WAIT.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include <systemc>

#include "isa/operation.h"
#include "models/functional/executor.h"
#include "models/mem/axi_port.h"
#include "models/npu/block_unit.h"
#include "models/npu/control.h"
#include "models/npu/job_report.h"
#include "models/npu/shram.h"
#include "sim/trace.h"

namespace ethosu::npu {

struct DmaTiming {
  uint32_t queue_depth = 2;  // outstanding NPU_OP_DMA_START before the CC stalls [I: Vela assumes 2 on U65]
};

// A fault a block detected, as STATUS will report it.
struct BlockFault {
  Fault kind = Fault::BUS_ERROR;
  std::string what;
  unsigned port = 0;
  Channel channel = Channel::RD_CMD;
};

class Dma : public sc_core::sc_module {
 public:
  Dma(const sc_core::sc_module_name& name, mem::AxiPort& axi0, mem::AxiPort& axi1, const ControlRegisters& ctrl,
      Shram& shram);

  void configure(const DmaTiming& t) { timing_ = t; }
  const DmaTiming& timing() const { return timing_; }

  // A new stream on these regions; the engine is idle from `cycle` on.
  void begin_stream(uint64_t cycle, const functional::Regions& regions);
  std::optional<BlockFault> check(uint32_t offset, const isa::Operation& op) const;
  // Books op; `cc_cycle` moves on when the CC must wait for a queue slot. Returns its record.
  OpRecord start(uint32_t offset, const isa::Operation& op, uint64_t& cc_cycle);
  void land_until(uint64_t cycle);
  void wait(size_t max_outstanding, uint64_t& cc_cycle);
  // Lands every queued DMA without moving time (the stream ends or faults).
  void land_all();
  size_t outstanding() const { return queue_.size(); }
  double host_copy_seconds() const { return host_copy_seconds_; }

  // Records each DMA on `track` of `trace`; nullptr stops.
  void set_trace(sim::Trace* trace, sim::Trace::TrackId track, const CycleClock& clock) {
    trace_ = trace;
    track_ = track;
    clock_ = clock;
  }

 private:
  struct Pending {
    isa::Operation op;
    uint64_t done_cycle;
  };
  void land_front();
  mem::AxiPort& port(unsigned index) { return index ? axi1_ : axi0_; }

  mem::AxiPort& axi0_;
  mem::AxiPort& axi1_;
  const ControlRegisters& ctrl_;
  Shram& shram_;
  DmaTiming timing_;
  functional::Regions regions_{};
  std::deque<Pending> queue_;
  uint64_t free_at_ = 0;
  double host_copy_seconds_ = 0;
  sim::Trace* trace_ = nullptr;
  sim::Trace::TrackId track_{};
  CycleClock clock_;
};

}  // namespace ethosu::npu
