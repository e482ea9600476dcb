#include "ethosu_sim/driver.h"

#include <algorithm>
#include <cstring>

#include "isa/registers.h"

namespace ethosu_sim {

namespace isa = ethosu::isa;

using isa::Reg;
using isa::RegField;

namespace {

// AXI_LIMITn's limits in the U85's per-port layout (AXI_SRAM, AXI_EXT).
uint32_t port_limits(uint32_t axi_limit) {
  uint32_t v = 0;
  v = isa::set(v, RegField::U85_AXI_SRAM_max_beats, isa::get(axi_limit, RegField::AXI_LIMIT0_max_beats));
  v = isa::set(v, RegField::U85_AXI_SRAM_max_outstanding_read_m1,
               isa::get(axi_limit, RegField::AXI_LIMIT0_max_outstanding_read_m1));
  v = isa::set(v, RegField::U85_AXI_SRAM_max_outstanding_write_m1,
               isa::get(axi_limit, RegField::AXI_LIMIT0_max_outstanding_write_m1));
  return v;
}

}  // namespace

HostCpu::HostCpu(const sc_core::sc_module_name& name) : sc_module(name), apb("apb"), irq("irq") {
  SC_THREAD(driver_thread);
}

void HostCpu::submit(const DriverJob& job) {
  job_ = job;
  result_ = DriverResult{};
  pending_ = true;
  submitted_.notify(sc_core::SC_ZERO_TIME);
}

void HostCpu::access(tlm::tlm_command cmd, uint16_t offset, uint32_t& value) {
  sc_core::sc_time delay = access_time_;
  gp_.set_command(cmd);
  gp_.set_address(offset);
  gp_.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  gp_.set_data_length(4);
  gp_.set_streaming_width(4);
  gp_.set_byte_enable_ptr(nullptr);
  gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  apb->b_transport(gp_, delay);
  wait(delay);
}

uint32_t HostCpu::read(uint16_t offset) {
  uint32_t v = 0;
  access(tlm::TLM_READ_COMMAND, offset, v);
  return v;
}

void HostCpu::write(uint16_t offset, uint32_t value) { access(tlm::TLM_WRITE_COMMAND, offset, value); }

void HostCpu::driver_thread() {
  // Offsets in the map of the NPU found at the last reset.
  const auto off = [this](Reg r, unsigned i = 0) {
    return isa::reg_at(r, i, u85_ ? isa::RegisterMap::U85 : isa::RegisterMap::U65);
  };
  for (;;) {
    // A job submitted before SystemC first ran the thread finds it here without a notification to wait for.
    if (!pending_) wait(submitted_);
    pending_ = false;
    u85_ = false;  // until ID says otherwise
    // Soft reset into non-secure user mode, as the Linux driver does, and wait for it to finish.
    write(off(Reg::RESET), 2);
    while (isa::get(read(off(Reg::STATUS)), RegField::STATUS_reset_status)) wait(access_time_);
    // Which map: the Linux driver's test, the architecture's major revision (1: U55, U65; 2: U85).
    u85_ = isa::get(read(off(Reg::ID)), RegField::ID_arch_major_rev) != 1;
    if (read(off(Reg::PROT)) != 2) {
      result_.error = "PROT does not show the requested security and privilege levels after reset";
      continue;
    }
    write(off(Reg::CMD), 0xC);  // keep the clock and power Q-channel enables, as the core driver does
    write(off(Reg::QCONFIG), job_.qconfig);
    write(off(Reg::REGIONCFG), job_.regioncfg);
    if (!u85_) {
      for (unsigned i = 0; i < 4; ++i) write(static_cast<uint16_t>(off(Reg::AXI_LIMIT0) + 4 * i), job_.axi_limits[i]);
    } else {
      // REGIONCFG's values keep their U65 meaning (0, 1: the SRAM port; 2, 3: the external port) through MEM_ATTR
      // entries set up so, with the Linux driver's attributes (SRAM: non-shareable device; external: system
      // domain, write-back read/write-allocate); each port takes the limits of its first AXI_LIMIT.
      for (unsigned i = 0; i < 4; ++i) write(off(Reg::MEM_ATTR, i), i < 2 ? 0x00 : 0xB7);
      write(off(Reg::AXI_SRAM), port_limits(job_.axi_limits[0]));
      write(off(Reg::AXI_EXT), port_limits(job_.axi_limits[2]));
    }
    for (unsigned r = 0; r < 8; ++r) {
      write(off(Reg::BASEP, r), static_cast<uint32_t>(job_.basep[r]));
      write(static_cast<uint16_t>(off(Reg::BASEP, r) + 4), static_cast<uint32_t>(job_.basep[r] >> 32));
    }
    // PMU: the Linux perfmon set-up. Cycle counter started by the CYCLE event, counters reset and enabled; as
    // many event counters as PMCR says the NPU has (4 on the U55 and U65, 8 on the U85).
    const unsigned counters = std::min<unsigned>(isa::get(read(off(Reg::PMCR)), RegField::PMCR_num_event_cnt), kMaxEventCounters);
    const auto beyond = std::find_if(job_.pmu_events.begin() + counters, job_.pmu_events.end(), [](uint16_t e) { return e != 0; });
    if (beyond != job_.pmu_events.end()) {
      result_.error = "PMU event for counter " + std::to_string(beyond - job_.pmu_events.begin()) + ", but the NPU has " +
                      std::to_string(counters) + " event counters";
      continue;
    }
    uint32_t enable = 1u << 31;
    for (unsigned n = 0; n < counters; ++n) {
      write(off(Reg::PMEVTYPER, n), job_.pmu_events[n]);
      if (job_.pmu_events[n]) enable |= 1u << n;
    }
    write(off(Reg::PMCCNTR_CFG), static_cast<uint32_t>(isa::PmuEvent::CYCLE));
    write(off(Reg::PMCNTENSET), enable);
    write(off(Reg::PMCR), 7);
    write(off(Reg::QBASE), static_cast<uint32_t>(job_.qbase));
    write(static_cast<uint16_t>(off(Reg::QBASE) + 4), static_cast<uint32_t>(job_.qbase >> 32));
    write(off(Reg::QSIZE), job_.qsize);
    write(off(Reg::CMD), 0xC | 1);
    result_.started = true;

    if (!irq.read()) wait(irq.posedge_event());
    // The IRQ handler: clear the interrupt, then judge the job by STATUS.
    const uint32_t status = read(off(Reg::STATUS));
    write(off(Reg::CMD), 0xC | 2);
    result_.status = status;
    const bool error = isa::get(status, RegField::STATUS_bus_status) ||
                       isa::get(status, RegField::STATUS_cmd_parse_error) ||
                       isa::get(status, RegField::STATUS_ecc_fault) ||
                       isa::get(status, u85_ ? RegField::U85_STATUS_branch_fault : RegField::STATUS_wd_fault);
    result_.completed = !error && isa::get(status, RegField::STATUS_cmd_end_reached);
    if (!result_.completed) result_.error = error ? "the NPU reported an error in STATUS" : "IRQ without cmd_end_reached";
    // Stop counting, then read the counters.
    write(off(Reg::PMCR), 0);
    result_.cycle_counter = read(off(Reg::PMCCNTR)) | (uint64_t{read(off(Reg::PMCCNTR) + 4)} << 32);
    for (unsigned n = 0; n < counters; ++n) result_.event_counters[n] = read(off(Reg::PMEVCNTR, n));
    // The job is over for the host: hand control back to whoever called sc_start(), even if the NPU still
    // has timed events ahead (a PMU overflow due while idle).
    sc_core::sc_pause();
  }
}

}  // namespace ethosu_sim
