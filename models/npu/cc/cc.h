// CC, the command controller, as a SystemC module: the SystemC shell around the command controller's
// engine (cc/engine.h), which applies the stream's rules. The shell fetches the command stream over the
// AXI port QCONFIG selects, keeps the state-register mirror and QREAD, synchronises with SystemC, raises the
// IRQ, and is the engine's timeline: it answers "when" from the blocks' own models (the DMA, the WD/MAC/AO
// pipeline, the AXI ports) and keeps the job's report.
//
// Contract: start() (on CMD.transition_to_running_state) wakes the CC's thread. Time is loosely timed: the CC
// computes ahead in cycles and synchronises with SystemC at NPU_OP_IRQ/PMU_MASK, at the end of the stream and
// at least every CcTiming::quantum_cycles. The stream is fetched in CcTiming::fetch_bytes pieces all
// requested at the start; the CC parses a command once its bytes are in, at cycles_per_word. Faults set
// STATUS through the control registers and stop the stream.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "isa/state.h"
#include "models/npu/cc/engine.h"
#include "models/npu/cc/timeline.h"
#include "models/npu/axi/axi_port.h"
#include "models/npu/ao/ao.h"
#include "models/npu/block.h"
#include "models/npu/cc/cc_timing.h"
#include "models/npu/cc/time_breakdown.h"
#include "models/npu/control.h"
#include "models/npu/dma/dma.h"
#include "models/npu/mac/mac.h"
#include "models/npu/pipeline.h"
#include "models/npu/pmu/pmu.h"
#include "models/npu/shram/shram.h"
#include "models/npu/wd/wd.h"
#include "models/npu/job_report.h"

namespace ethosu::npu {

// The blocks the CC drives.
struct CcBlocks {
  ControlRegisters& ctrl;
  isa::RegisterState& mirror;  // the state registers as the CC last parsed them
  axi::AxiPort& axi0;
  axi::AxiPort& axi1;
  Dma& dma;
  Shram& shram;
  Wd& wd;
  Mac& mac;
  Ao& ao;
  Pmu& pmu;
  sim::Stats& stats;
};

class Cc : public Block, private cc::Timeline, private RegionBus {
 public:
  enum Stat : uint8_t {
    KERNEL_OPERATIONS, DMA_OPERATIONS, COMMAND_BYTES, BLOCKDEP_STALL, SHRAM_RECONFIG_STALL, CMD_FETCH_STALL,
    DMA_WAIT_STALL, DMA_QUEUE_STALL, KERNEL_WAIT_STALL, WRITE_RESPONSE_STALL, kStats
  };
  static const std::array<CounterSpec, kStats> kCounters;

  Cc(const sc_core::sc_module_name& name, const CcBlocks& blocks);
  SC_HAS_PROCESS(Cc);

  // `variant`: the configuration the stream runs on (its command set and data path).
  void configure(isa::Variant variant, const CcTiming& t, double clock_hz, const cc::Limits& limits);
  // Transaction mode (between jobs): every AXI transaction goes through the ports' sockets at its time (see
  // include/ethosu_sim/npu.h); else the fast path (DMI, or regions staged at the stream's start).
  void set_transactions(bool on) { transactions_ = on; }
  bool transactions() const { return transactions_; }
  const CcTiming& timing() const { return timing_; }
  // `irq_changed` is the NPU's hook, called when an interrupt source may have changed.
  void connect(std::function<void()> irq_changed) { irq_changed_ = std::move(irq_changed); }
  // The stream starts `delay` from now (the time of the host's CMD write).
  void start(const sc_core::sc_time& delay) { start_.notify(delay); }
  // Reset: a job that has not started does not; a running one ends at once, without its remaining work, its
  // IRQ or its write-back.
  void abort();

  const npu::JobReport& report() const { return report_; }
  // The layer of each operation by its stream offset, for the report and the trace (NpuCore::set_layers).
  void set_layers(const std::map<uint32_t, std::string>* layers) { layers_ = layers; }
  // The memory behind port `port` withdrew its DMI grants for [start, end] (inclusive).
  void invalidated(unsigned port, uint64_t start, uint64_t end);

 private:
  // cc::Timeline
  uint64_t now() const override { return cc_cycle_; }
  void wait_until(uint64_t cycle, npu::Stall why) override;
  void command(uint32_t offset, uint32_t end_offset, const isa::StreamState& state) override;
  uint64_t dma(uint32_t offset, const isa::Operation& op) override;
  cc::KernelTimes kernel(uint32_t offset, const isa::Operation& op, const cc::KernelIssue& issue) override;
  std::optional<cc::Fault> prepare(uint32_t offset, const isa::Operation& op) override;
  std::optional<cc::Fault> bus_fault() override;
  void pmu_mask(bool enable) override;
  void irq(uint16_t mask) override;
  void stop(uint16_t mask) override;
  void fault(const cc::Fault& f) override;

  // RegionBus (transaction mode): a transfer of an operation or a DMA, transaction by transaction on the region's
  // port. A refused transaction becomes the operation's bus fault.
  axi::Completion read(unsigned region, uint64_t request_cycle, const std::vector<ByteRun>& runs,
                       isa::Access client) override;
  axi::Completion write(unsigned region, uint64_t request_cycle, const std::vector<ByteRun>& runs,
                        isa::Access client) override;
  axi::Completion transfer(tlm::tlm_command cmd, unsigned region, uint64_t request_cycle,
                           const std::vector<ByteRun>& runs, isa::Access client);
  // Transaction mode: the bytes a kernel operation reads, from memory into its region buffers.
  std::optional<cc::Fault> load_inputs(uint32_t offset, const isa::Operation& op);

  void thread();
  void run_stream();
  bool fetch_stream(std::vector<uint8_t>& bytes);
  void map_regions();
  // The regions the stream reaches (the validator's extents), each through DMI where the memory grants it, else
  // staged: those bytes read through b_transport now, the bytes it may write written back when it ends.
  void bind_regions(const isa::Stream& stream);
  void bind_region(unsigned region);
  void write_back_staged();
  void finish_report(uint64_t host_start_ns);
  void sync();
  // Bytes by class on both ports since `before`.
  std::array<npu::PortTraffic, 2> traffic_since(const std::array<axi::ClassBytes, 2>& before) const;
  std::array<axi::ClassBytes, 2> port_bytes() const;
  void trace_op(const npu::OpRecord& rec);
  // Adds an operation to the report's list, while it has room.
  void list(npu::OpRecord&& rec);
  // The index list() will give the next operation (TimeBreakdown::kUnlisted when the list is full).
  size_t next_record() const;
  // The layer of the operation at `offset`, or nothing.
  std::string layer_of(uint32_t offset) const;
  axi::AxiPort& port(unsigned index) { return index ? b_.axi1 : b_.axi0; }
  uint64_t cycle_now() const;

  // Thrown out of the engine at the CC's next synchronisation after abort().
  struct Aborted {};
  void check_abort() const {
    if (abort_requested_) throw Aborted{};
  }

  CcBlocks b_;
  CcTiming timing_;
  cc::Limits limits_;
  CycleClock clock_;
  std::function<void()> irq_changed_;
  sc_core::sc_event start_, abort_;
  bool running_ = false, abort_requested_ = false;
  const std::map<uint32_t, std::string>* layers_ = nullptr;

  // State of the running stream.
  cc::Regions regions_{};
  struct Bound {
    bool used = false;    // the stream reaches it
    bool staged = false;  // held in `bytes` (no DMI)
    bool stale = false;   // its DMI grant was invalidated: asked for again before the next data effect
    uint64_t lowest = 0, end = 0;  // the extent the stream reaches
    std::vector<uint8_t> bytes;    // staged: the region from offset 0 to the end of its extent
    uint64_t write_from = 0, write_end = 0;
  };
  std::array<Bound, 8> bound_;
  bool any_stale_ = false;
  bool transactions_ = false;
  // Transaction mode: the operation whose transfers go out, the DMA whose rows the writes carry, what reads
  // deliver where their bytes were already loaded, and the first refused transaction's fault.
  uint32_t op_offset_ = 0;
  const isa::Dma* dma_op_ = nullptr;
  std::vector<uint8_t> dma_rows_, discard_;
  std::vector<axi::AddressRun> addresses_;
  std::optional<cc::Fault> bus_fault_;
  cc::EngineConfig engine_config_;
  PipelineBlocks pipeline_;
  uint64_t cc_cycle_ = 0;
  uint64_t run_start_cycle_ = 0;
  std::vector<uint64_t> fetch_done_;  // per fetch request: when its bytes are in
  uint32_t parsed_ = 0;               // stream bytes the CC has parsed
  std::array<uint64_t, npu::kStallKinds> held_{};  // the CC's gate waits for the next operation
  TimeBreakdown time_;
  std::array<axi::ClassBytes, 2> job_start_bytes_{};
  npu::JobReport report_;
  std::vector<TileStages> stages_;  // reused per op while tracing

  std::array<sim::Counter*, kStats> stat_;
  std::array<sim::Counter*, npu::kStallKinds> waits_{};  // stat_'s counters of the CC's waits, by cause
};

}  // namespace ethosu::npu
