// One NPU AXI master port (M0 or M1): moves data to and from a Memory over TLM and charges time from
// AxiPortTiming. It also counts its PMU events, draws its traffic on its trace track and applies the driver's
// AXI_LIMITn.
//
// Data paths. Fast path: the CC fetches the command stream with read(); the data of operations and DMAs is reached
// through direct() (DMI) or, where the memory grants none, staged with transfer_untimed(), and its time is booked
// on timing() by the blocks' models (models/npu/pipeline.h, the DMA). Transaction mode: transactions() sends every
// AXI transaction of a transfer through the socket as a b_transport at the cycle the port issues it, and holds it
// until the target's answer; debug_read() reads bytes without bus time (transport_dbg).
//
// Contract: read()/write() are called from an SC_THREAD, loosely timed: the caller's
// local time offset (its tlm_quantumkeeper's, or its own) says when the request is made; the call
// books the transfer at absolute cycle ceil((sc_time_stamp() + offset) / clock_period), which keeps
// contention between callers right however far each has run ahead, moves the data (through DMI when
// the memory grants it, else b_transport), and advances the offset to the data-done cycle. Writes are
// posted: the offset moves to the last data beat, and AxiAccess::completion.complete_cycle says when
// the response arrives, for callers that must wait for it. Time is AxiPortTiming's, plus what the target
// side adds (include/ethosu_sim/npu.h): the DMI grant's read or write latency, or the delay b_transport
// adds to the annotated time (the initiator's offset goes in, as the loosely-timed protocol has it; a
// target that calls wait() adds the time it waited), rounded up to whole cycles and added to the latency of
// the access's transactions. A target that adds nothing gives the same timing on both data paths.
// A failed access (e.g. TLM_ADDRESS_ERROR_RESPONSE outside the mapped memory) still costs its bus
// time, moves nothing from the failing chunk on, and reports the chunk's address: the NPU turns it
// into a bus error. No allocation or formatting per call.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "isa/registers.h"
#include "models/npu/axi/axi_timing.h"
#include "models/npu/pmu/pmu_registers.h"
#include "models/npu/track.h"

namespace ethosu::axi {

struct AxiAccess {
  tlm::tlm_response_status status = tlm::TLM_OK_RESPONSE;
  uint64_t fault_address = 0;  // start of the chunk that failed, when status is not OK
  Completion completion;       // in cycles of the port's clock
  bool ok() const { return status == tlm::TLM_OK_RESPONSE; }
};

class AxiPort : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<AxiPort> socket;

  // `index`: M0 (0) or M1 (1), which names its PMU events and its trace track.
  AxiPort(const sc_core::sc_module_name& name, const AxiPortParams& params, sc_core::sc_time clock_period,
          unsigned index = 0);

  // Run-time parameters, set between jobs (no re-elaboration): the port's capabilities, within which the
  // driver's AXI_LIMITn apply.
  void configure(const AxiPortParams& params, sc_core::sc_time clock_period);
  // The two limiters of this port as the driver programmed them in AXI_LIMIT(2 * index) and (2 * index + 1):
  // burst split and outstanding transactions, capped by the port's capabilities.
  void apply_limits(const std::array<uint32_t, kLimitersPerPort>& axi_limit);

  // The PMU events of this port (AXIn_*), counted from its statistics: adds the events of the interval since
  // `since` to `counts` and moves `since` to now.
  void count_pmu_events(npu::EventCounts& counts, AxiPortStats& since) const;
  // Every PMU event a port counts.
  static std::vector<isa::PmuEvent> pmu_events();

  // Draws the port's traffic of an operation on its own track ("AXI0"); nullptr stops.
  void set_trace(sim::Trace* trace, const npu::CycleClock& clock);
  void trace_traffic(const std::string& kind, uint32_t op_offset, uint64_t start_cycle, uint64_t end_cycle,
                     uint64_t read_bytes, uint64_t write_bytes) const;

  // `bytes` contiguous bytes; run_bytes says how the hardware issues them (0 = one run). `open_run`: the next
  // read goes on at the next address (see AxiPortTiming::read).
  AxiAccess read(uint64_t addr, uint8_t* dst, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                 sc_core::sc_time& local_offset, unsigned limiter = 0, bool open_run = false);
  AxiAccess write(uint64_t addr, const uint8_t* src, uint64_t bytes, uint32_t run_bytes, isa::Access client,
                  sc_core::sc_time& local_offset, unsigned limiter = 0);
  // `runs` runs of run_bytes at addr + k * stride_bytes, packed in the host buffer.
  AxiAccess read_strided(uint64_t addr, uint64_t stride_bytes, uint32_t run_bytes, uint64_t runs, uint8_t* dst,
                         isa::Access client, sc_core::sc_time& local_offset, unsigned limiter = 0);
  AxiAccess write_strided(uint64_t addr, uint64_t stride_bytes, uint32_t run_bytes, uint64_t runs,
                          const uint8_t* src, isa::Access client, sc_core::sc_time& local_offset, unsigned limiter = 0);

  // Transaction mode: where each transaction's bytes are (a read's destination, a write's source).
  class TransactionData {
   public:
    virtual ~TransactionData() = default;
    virtual uint8_t* at(uint64_t address, uint64_t bytes) = 0;
  };
  // One transfer over `runs` (bus addresses), requested at `request_cycle`: each AXI transaction (the runs cut at
  // the limiter's burst split) goes through the socket as a b_transport whose annotated delay takes it to its
  // issue cycle (never before the current time: a target that waited has moved it on); the time the target
  // answers (sc_time_stamp() + returned delay) holds the transaction until then if it is later than the port's
  // own time (AxiPortTiming, TransactionBus). The first refused transaction's address and status go to the result;
  // the transactions after it are still timed but move nothing. No allocation per call.
  AxiAccess transactions(tlm::tlm_command cmd, uint64_t request_cycle, const std::vector<AddressRun>& runs,
                         isa::Access client, unsigned limiter, TransactionData& data, bool open_run = false);
  // Reads `bytes` at addr by debug transport (no bus time, no side effects); the bytes it got.
  uint64_t debug_read(uint64_t addr, uint8_t* dst, uint64_t bytes);

  // Host pointer to the memory at addr and the bytes that follow it in the same buffer, through DMI with
  // read and write access, and the grant's latencies in cycles; data nullptr (bytes 0) where the memory
  // grants none. For bulk data the NPU's blocks work on directly, with time charged separately on timing().
  struct Direct {
    uint8_t* data = nullptr;
    uint64_t bytes = 0;
    uint32_t read_latency_cycles = 0, write_latency_cycles = 0;
  };
  Direct direct(uint64_t addr);
  // Moves bytes without booking time (staging a region the memory grants no DMI for); `added_latency_cycles`
  // is raised to what the target added. False at the first refused chunk, whose address goes to `fault_address`.
  bool transfer_untimed(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf, uint64_t bytes, uint32_t& added_latency_cycles,
                        uint64_t& fault_address);

  // Called after the memory withdraws DMI grants for [start, end] (inclusive), so that a user of a pointer
  // from direct() stops using it.
  void on_invalidate(std::function<void(uint64_t start, uint64_t end)> f) { on_invalidate_ = std::move(f); }

  AxiPortTiming& timing() { return timing_; }
  const AxiPortTiming& timing() const { return timing_; }
  sc_core::sc_time clock_period() const { return sc_core::sc_time::from_value(period_); }

 private:
  AxiAccess access(tlm::tlm_command cmd, uint64_t addr, uint64_t stride_bytes, uint32_t run_bytes, uint64_t runs,
                   uint8_t* buf, isa::Access client, sc_core::sc_time& local_offset, unsigned limiter,
                   bool open_run = false);
  // Moves len bytes at addr, requested `offset` after sc_time_stamp(); false (with status and fault address
  // set) when the target refuses. Raises `added` to the latency the target side added, in cycles.
  bool move(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf, uint64_t len, sc_core::sc_time offset, AxiAccess& result,
            uint32_t& added);
  uint32_t cycles_ceil(sc_core::sc_time t) const;
  const tlm::tlm_dmi* dmi_for(tlm::tlm_command cmd, uint64_t addr);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

  AxiPortTiming timing_;
  AxiPortParams caps_;
  sc_core::sc_time::value_type period_;  // in SystemC time resolution units
  unsigned index_;
  npu::Track track_;

  // Granted DMI regions (one per mapped buffer in practice) and the last refused range, so a memory
  // without DMI is asked once, not per call.
  static constexpr unsigned kDmiSlots = 8;
  std::array<tlm::tlm_dmi, kDmiSlots> dmi_{};
  unsigned dmi_count_ = 0, dmi_last_ = 0, dmi_victim_ = 0;
  uint64_t refused_start_ = 1, refused_end_ = 0;  // empty
  tlm::tlm_generic_payload gp_;  // reused by every call
  std::vector<uint8_t> strobes_;  // transaction mode: a strobed write's byte enables
  std::function<void(uint64_t, uint64_t)> on_invalidate_;
};

}  // namespace ethosu::axi
