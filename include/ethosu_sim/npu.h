// The Arm Ethos-U65 NPU as a SystemC/TLM-2.0 module, for virtual platforms. Part of the public API
// (include/ethosu_sim).
//
// Ports (all standard TLM-2.0 / SystemC types, bus width 32 as TLM's default sockets):
//  * apb: the register file (target). One 32-bit register per access, aligned, at offsets 0x000-0xFFF, with
//    b_transport (nb_transport is converted). An access takes effect at its annotated time (sc_time_stamp() +
//    delay) and never waits: it may come from an SC_METHOD, and the delay goes back as it came (the access costs
//    what the initiator's bus says). Time-dependent registers (STATUS, QREAD) read as the model stands at
//    sc_time_stamp(); the PMU counters, while idle, as at the access time: an initiator running ahead of SystemC
//    synchronises first where it needs them exact. Byte enables are honoured: a read fills the enabled lanes, a
//    write changes only them. Answers: TLM_ADDRESS_ERROR_RESPONSE outside 0x000-0xFFF or unaligned,
//    TLM_BURST_ERROR_RESPONSE for another length or a streaming width below 4, TLM_BYTE_ENABLE_ERROR_RESPONSE
//    for a byte-enable pointer with length 0; TLM_IGNORE_COMMAND is answered OK and does nothing. Debug transport
//    (transport_dbg) reads a register at the current time and writes nothing. The register map, fields and PMU
//    event ids are in registers.h.
//  * axi0, axi1: the AXI master ports M0 and M1 (initiators) carrying tlm_generic_payload. The NPU reaches
//    memory through them at the addresses the driver gives it (QBASE, BASEPn) and REGIONCFG's port choice, in
//    one of two bus modes (set_bus_mode, between jobs):
//    - TRANSACTIONS, the default: the traffic goes through the sockets as the hardware issues it. Every AXI
//      transaction (a run of bytes cut at the burst split AXI_LIMITn selects: 64, 128 or 256 bytes) is one
//      b_transport, whose annotated delay takes it from sc_time_stamp() to the cycle the port issues it: the
//      command fetch at the start, an operation's IFM, weight and scale reads with the OFM tile that needs them,
//      its OFM writes as the output unit writes each tile back, a DMA's reads and then its writes. SystemC's time
//      is brought to each operation's start before its transactions go out, so no byte it writes is in memory
//      before the operation starts. The time the target answers (sc_time_stamp() + returned delay after the
//      call) is when the transaction completed: a read's data in, a write acknowledged; when it is later than the
//      port model's own time, the transaction, its outstanding slot and what waits for it are held until then
//      (so a memory of the platform's with its own timing and contention slows the NPU down). An operation
//      computes its output when it starts, from memory as debug transport (transport_dbg) reads it then, the
//      earlier operations' writes all issued; a memory without debug transport is read by b_transport. No DMI
//      is asked for.
//    - FAST: data moves through DMI where the target grants it (get_direct_mem_ptr, read and write, asked only
//      for the regions a stream reaches), else by b_transport: a region without DMI is read once when a stream
//      starts and its written bytes written back when it ends. Only the time is the port model's; a platform
//      sees no traffic. invalidate_direct_mem_ptr is honoured at any time: a region whose grant goes is asked
//      for again before the next operation touches it. The ready platform (platform.h) uses this mode.
//    Bus errors (any error response) become the NPU's bus fault (STATUS bus_status, the IRQ), as on the hardware.
//    The sockets are 32-bit TLM sockets; width_adapter.h binds them to 64- or 128-bit buses.
//  * irq: the interrupt line, high while an interrupt is pending; driven by one process of the NPU, so it
//    may be bound to an ordinary sc_signal<bool>.
//  * reset: the reset input, active high; a rising edge resets the NPU's registers as at power-on. It must
//    be bound (tie it to a signal that stays low when the platform has no reset).
//
// Time. The NPU runs at `system.clock_hz` and models its AXI ports itself: latency, bandwidth, burst
// efficiency, the shared or separate read and write data paths and the outstanding limits of `mem.axiN.*` and
// AXI_LIMITn (the NPU-side model of the memory system, as Vela describes it). What the platform adds comes on top.
// In TRANSACTIONS mode a target's answer can only make a transaction later than the port model's time (see
// above), so with a bus and memories that answer at once the NPU times exactly as the ready platform, and a
// platform memory that models its own latency, bandwidth and contention makes the NPU wait for it. In FAST mode
// the latency of a DMI grant (tlm_dmi read/write latency) and the delay a target adds to b_transport's annotated
// time are added, rounded up to whole NPU cycles, to the port's read or write latency of every transaction the NPU
// makes in that range (the grant that holds a region's base address gives the latency of the whole region; a
// region without DMI takes the delay of its first read); with a bus and memories that add nothing, the NPU times
// exactly as the ready platform (platform.h) and `ethosu-sim run` do.
//
// Reset. A rising edge of `reset`, or a write of RESET, stops a running job where it is: its remaining work and
// its IRQ are dropped, memory keeps what it wrote, and the next job runs as on a fresh NPU.
//
// Jobs. A driver programs the registers as Arm's core driver or Linux's accel/ethosu driver do (soft reset,
// QCONFIG, REGIONCFG, AXI_LIMITn, BASEPn, the PMU, QBASE/QSIZE, CMD) and waits for the IRQ; report() then
// holds what the stream did. configure() applies new parameters between jobs: SystemC elaborates once per
// process, and the NPU runs any number of jobs with any configurations.
#pragma once

#include <cstdint>
#include <memory>

#include <systemc>
#include <tlm>

#include "ethosu_sim/config.h"
#include "ethosu_sim/report.h"

namespace ethosu_sim {

class Npu : public sc_core::sc_module {
 public:
  tlm::tlm_target_socket<> apb;
  tlm::tlm_initiator_socket<> axi0;
  tlm::tlm_initiator_socket<> axi1;
  sc_core::sc_out<bool> irq;
  sc_core::sc_in<bool> reset;

  explicit Npu(const sc_core::sc_module_name& name, const Config& config = Config());
  ~Npu() override;
  Npu(const Npu&) = delete;
  Npu& operator=(const Npu&) = delete;

  // The NPU variant, its blocks' timing, its clock and its AXI ports (see config.h); between jobs. While a job
  // runs (from CMD to the end of its stream) it throws InputError and changes nothing: the job keeps the machine
  // it started on, and the caller decides when the new one applies.
  void configure(const Config& config);
  // How the NPU's traffic reaches memory (see axi0, axi1 above); between jobs. TRANSACTIONS unless set.
  enum class BusMode { TRANSACTIONS, FAST };
  void set_bus_mode(BusMode mode);
  BusMode bus_mode() const;
  // What the last stream did; reset when a stream starts.
  const JobReport& report() const;
  // The current time in cycles of the NPU clock.
  uint64_t cycle() const;

  // The model itself, for the simulator's own code; its type is not part of the API.
  class Impl;
  Impl& impl() { return *impl_; }
  const Impl& impl() const { return *impl_; }

 private:
  void drive_irq();
  void reset_asserted();

  std::unique_ptr<Impl> impl_;
};

}  // namespace ethosu_sim
