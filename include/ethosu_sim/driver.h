// A host CPU running a driver, as a SystemC module: programs the NPU through its APB registers exactly as
// Arm's core driver and Linux's accel/ethosu driver do, waits for the IRQ, checks STATUS and reads the PMU.
// Part of the public API (include/ethosu_sim); the ready platform's runs (run.h) use it.
//
// Contract: bind `apb` to the NPU's apb socket and `irq` to the NPU's interrupt signal. submit() hands one
// job to the host's thread; it runs when SystemC runs, and when the job is over the thread calls
// sc_pause(), so sc_start() returns to the caller with result() holding what the driver saw. The register
// sequence: RESET (non-secure, user) and wait for reset_status to clear; CMD with the clock/power Q-channel
// enables; read ID (arch major 1: the U55/U65 map; else the U85's, as the Linux driver decides); QCONFIG,
// REGIONCFG, AXI_LIMIT0-3 (U85: MEM_ATTR0-3 routing REGIONCFG's values 0/1 to the SRAM port and 2/3 to the external
// port, AXI_SRAM/AXI_EXT from AXI_LIMIT0/2); BASEP0-7; the PMU (PMCR's num_event_cnt, PMEVTYPERn, PMCCNTR_CFG start = CYCLE,
// PMCNTENSET, PMCR enable + reset); QBASE, QSIZE; CMD run; wait for the IRQ; read STATUS; CMD clear IRQ;
// stop the PMU and read PMCCNTR and PMEVCNTRn.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "ethosu_sim/isa.h"

namespace ethosu_sim {

struct DriverJob {
  uint64_t qbase = 0;             // bus address of the command stream
  uint32_t qsize = 0;             // its size in bytes
  uint32_t qconfig = 2;           // command fetch on AXI1 limiter 2, the core driver's default
  uint32_t regioncfg = 0xAA8A;    // region 2 on AXI0 (SRAM), the others on AXI1: the Linux driver's value
  std::array<uint32_t, 4> axi_limits{0x1F3F00B0, 0x1F3F00B0, 0x1F3F0002, 0x1F3F0002};  // Linux's values
  std::array<uint64_t, 8> basep{};  // bus address of each region
  std::array<uint16_t, kMaxEventCounters> pmu_events{};  // hardware event ids, 0 = counter unused;
                                                        // one past PMCR.num_event_cnt: an error
};

struct DriverResult {
  bool completed = false;  // the IRQ came with cmd_end_reached and no error bit
  bool started = false;    // the driver started the NPU (false: it gave up during set-up, `error` says why)
  uint32_t status = 0;     // STATUS as read in the IRQ handler
  uint64_t cycle_counter = 0;
  std::array<uint32_t, kMaxEventCounters> event_counters{};
  std::string error;       // what the driver would report when !completed
};

class HostCpu : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<HostCpu> apb;
  sc_core::sc_in<bool> irq;

  explicit HostCpu(const sc_core::sc_module_name& name);
  SC_HAS_PROCESS(HostCpu);

  void submit(const DriverJob& job);
  const DriverResult& result() const { return result_; }
  // Time one register access takes on the APB [I: a few bus cycles; 10 ns].
  void set_access_time(sc_core::sc_time t) { access_time_ = t; }

 private:
  void driver_thread();
  void access(tlm::tlm_command cmd, uint16_t offset, uint32_t& value);
  uint32_t read(uint16_t offset);
  void write(uint16_t offset, uint32_t value);

  DriverJob job_;
  DriverResult result_;
  sc_core::sc_event submitted_;
  bool pending_ = false;
  sc_core::sc_time access_time_ = sc_core::sc_time(10, sc_core::SC_NS);
  bool u85_ = false;  // the NPU's ID says Ethos-U85: its register map
  tlm::tlm_generic_payload gp_;
};

}  // namespace ethosu_sim
