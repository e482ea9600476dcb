// A CPU of the platform's own running a driver for the NPU: it loads the job's buffers into memory, then
// programs the NPU through its registers on the bus as Linux's accel/ethosu driver does (soft reset and wait
// for it, QCONFIG, REGIONCFG and AXI limits, the region base pointers, the command queue, run), waits for the
// NPU's interrupt, reads STATUS, clears the interrupt, reads the results back and returns to sc_main.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <ethosu_sim/registers.h>  // the NPU's register map, fields and PMU event ids


// One buffer at a bus address: loaded before the job, read back after it.
struct Placement {
  uint64_t address;
  std::vector<uint8_t>* bytes;
};

struct NpuSubmission {
  uint64_t registers = 0;  // bus address of the NPU's register page
  uint64_t qbase = 0;
  uint32_t qsize = 0;
  uint32_t regioncfg = 0;
  std::array<uint64_t, 8> basep{};
  std::vector<Placement> buffers;  // the stream and the regions
};

class Cpu : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Cpu> socket;
  sc_core::sc_in<bool> irq;

  Cpu(const sc_core::sc_module_name& name, NpuSubmission job)
      : sc_module(name), socket("socket"), irq("irq"), job_(std::move(job)) {
    SC_HAS_PROCESS(Cpu);
    SC_THREAD(run);
  }

  uint32_t status() const { return status_; }
  bool completed() const {
    using namespace ethosu_sim::regs;
    const uint64_t errors = STATUS_bus_status.mask() | STATUS_cmd_parse_error.mask() | STATUS_wd_fault.mask();
    return STATUS_cmd_end_reached.get(status_) && !(status_ & errors);
  }

 private:
  void run() {
    using namespace ethosu_sim::regs;
    for (const Placement& b : job_.buffers) debug(tlm::TLM_WRITE_COMMAND, b);

    // Probe: soft reset into non-secure user mode and wait for it to complete.
    write(RESET, 2);
    while (STATUS_reset_status.get(read(STATUS))) wait(sc_core::sc_time(100, sc_core::SC_NS));
    if (read(PROT) != 2) SC_REPORT_ERROR(name(), "the NPU did not take the requested security and privilege levels");
    // The command stream on AXI1, regions as the job says, the Linux driver's AXI limits.
    write(QCONFIG, 2);
    write(REGIONCFG, job_.regioncfg);
    const uint32_t limits[4] = {0x1F3F00B0, 0x1F3F00B0, 0x1F3F0002, 0x1F3F0002};
    const uint32_t limit_registers[4] = {AXI_LIMIT0, AXI_LIMIT1, AXI_LIMIT2, AXI_LIMIT3};
    for (unsigned i = 0; i < 4; ++i) write(limit_registers[i], limits[i]);

    // Submit.
    for (unsigned r = 0; r < 8; ++r) {
      write(BASEP.at(r), static_cast<uint32_t>(job_.basep[r]));
      write(BASEP.at(r) + 4, static_cast<uint32_t>(job_.basep[r] >> 32));
    }
    write(QBASE, static_cast<uint32_t>(job_.qbase));
    write(QBASE + 4, static_cast<uint32_t>(job_.qbase >> 32));
    write(QSIZE, job_.qsize);
    write(CMD, static_cast<uint32_t>(CMD_transition_to_running_state.set(0, 1)));

    // The interrupt handler.
    if (!irq.read()) wait(irq.posedge_event());
    status_ = read(STATUS);
    write(CMD, static_cast<uint32_t>(CMD_clear_irq.set(0, 1)));

    for (const Placement& b : job_.buffers) debug(tlm::TLM_READ_COMMAND, b);
    sc_core::sc_pause();  // back to sc_main, whatever the NPU still has scheduled
  }

  void access(tlm::tlm_command cmd, uint32_t offset, uint32_t& value) {
    tlm::tlm_generic_payload gp;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    gp.set_command(cmd);
    gp.set_address(job_.registers + offset);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(gp, delay);
    if (!gp.is_response_ok()) SC_REPORT_ERROR(name(), "NPU register access failed");
    wait(delay);
  }
  uint32_t read(uint32_t offset) {
    uint32_t v = 0;
    access(tlm::TLM_READ_COMMAND, offset, v);
    return v;
  }
  void write(uint32_t offset, uint32_t value) { access(tlm::TLM_WRITE_COMMAND, offset, value); }

  // The loader's way in: debug transport, no time.
  void debug(tlm::tlm_command cmd, const Placement& b) {
    if (b.bytes->empty()) return;
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(b.address);
    gp.set_data_ptr(b.bytes->data());
    gp.set_data_length(static_cast<unsigned int>(b.bytes->size()));
    if (socket->transport_dbg(gp) != b.bytes->size()) SC_REPORT_ERROR(name(), "a buffer does not fit the memory map");
  }

  NpuSubmission job_;
  uint32_t status_ = 0;
};
