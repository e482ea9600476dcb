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
//    memory through them at the addresses the driver gives it (QBASE, BASEPn) and REGIONCFG's port choice.
//    Data moves through DMI where the target grants it (get_direct_mem_ptr, read and write), else by
//    b_transport (loosely timed); a region without DMI is read once when a stream starts and its written
//    bytes written back when it ends. Bus errors (any error response) become the NPU's bus fault (STATUS
//    bus_status, the IRQ), as on the hardware.
//  * irq: the interrupt line, high while an interrupt is pending; driven by one process of the NPU, so it
//    may be bound to an ordinary sc_signal<bool>.
//  * reset: the reset input, active high; a rising edge resets the NPU's registers as at power-on. It must
//    be bound (tie it to a signal that stays low when the platform has no reset).
//
// Time. The NPU runs at `system.clock_hz` and models its AXI ports itself: latency, bandwidth, burst
// efficiency and the outstanding limits of `mem.axiN.*` and AXI_LIMITn (the NPU-side model of the memory
// system). What the platform between the NPU and the memories adds comes on top: the latency of a DMI grant
// (tlm_dmi read/write latency) and the delay a target adds to b_transport's annotated time are added, rounded
// up to whole NPU cycles, to the port's read or write latency of every transaction the NPU makes in that
// range. So with a bus and memories that add nothing, the NPU times exactly as the ready platform
// (platform.h) and `ethosu-sim run` do. The grant that holds a region's base address gives the latency of the
// whole region; a region without DMI takes the delay of its first read.
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

  // The NPU variant, its blocks' timing, its clock and its AXI ports (see config.h); between jobs.
  void configure(const Config& config);
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
