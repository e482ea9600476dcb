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

// The NPU's register offsets and bits (Arm Ethos-U65 programmer's model, as the Linux driver names them).
namespace npu_reg {
constexpr uint32_t STATUS = 0x004, CMD = 0x008, RESET = 0x00C, QBASE = 0x010, QBASE_HI = 0x014, QCONFIG = 0x01C,
                   QSIZE = 0x020, PROT = 0x024, REGIONCFG = 0x03C, AXI_LIMIT0 = 0x040;
constexpr uint32_t basep(unsigned region) { return 0x080 + 8 * region; }
constexpr uint32_t STATUS_BUS_STATUS = 1u << 2, STATUS_RESET_STATUS = 1u << 3, STATUS_CMD_PARSE_ERROR = 1u << 4,
                   STATUS_CMD_END_REACHED = 1u << 5, STATUS_WD_FAULT = 1u << 7;
constexpr uint32_t CMD_TRANSITION_TO_RUN = 1u << 0, CMD_CLEAR_IRQ = 1u << 1;
}  // namespace npu_reg

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
    using namespace npu_reg;
    const uint32_t errors = STATUS_BUS_STATUS | STATUS_CMD_PARSE_ERROR | STATUS_WD_FAULT;
    return (status_ & STATUS_CMD_END_REACHED) && !(status_ & errors);
  }

 private:
  void run() {
    using namespace npu_reg;
    for (const Placement& b : job_.buffers) debug(tlm::TLM_WRITE_COMMAND, b);

    // Probe: soft reset into non-secure user mode and wait for it to complete.
    write(RESET, 2);
    while (read(STATUS) & STATUS_RESET_STATUS) wait(sc_core::sc_time(100, sc_core::SC_NS));
    if (read(PROT) != 2) SC_REPORT_ERROR(name(), "the NPU did not take the requested security and privilege levels");
    // The command stream on AXI1, regions as the job says, the Linux driver's AXI limits.
    write(QCONFIG, 2);
    write(REGIONCFG, job_.regioncfg);
    const uint32_t limits[4] = {0x1F3F00B0, 0x1F3F00B0, 0x1F3F0002, 0x1F3F0002};
    for (unsigned i = 0; i < 4; ++i) write(AXI_LIMIT0 + 4 * i, limits[i]);

    // Submit.
    for (unsigned r = 0; r < 8; ++r) {
      write(basep(r), static_cast<uint32_t>(job_.basep[r]));
      write(basep(r) + 4, static_cast<uint32_t>(job_.basep[r] >> 32));
    }
    write(QBASE, static_cast<uint32_t>(job_.qbase));
    write(QBASE_HI, static_cast<uint32_t>(job_.qbase >> 32));
    write(QSIZE, job_.qsize);
    write(CMD, CMD_TRANSITION_TO_RUN);

    // The interrupt handler.
    if (!irq.read()) wait(irq.posedge_event());
    status_ = read(STATUS);
    write(CMD, CMD_CLEAR_IRQ);

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
