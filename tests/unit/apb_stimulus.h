// A driver-like stimulus for the NPU's APB socket in SystemC tests: each sc_start() runs one script in its
// thread. Register accesses take no APB time, so the script controls exactly when each happens; after each the
// thread waits out the (zero) delay as an initiator does, a delta cycle in which the IRQ line follows.
#pragma once

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <functional>
#include <systemc>
#include <tlm>

namespace ethosu::testing {

SC_MODULE(ApbStimulus) {
  tlm_utils::simple_initiator_socket<ApbStimulus> apb;
  sc_core::sc_in<bool> irq;
  std::function<void(ApbStimulus&)> script;
  sc_core::sc_event go;
  sc_core::sc_time period{1, sc_core::SC_NS};  // the NPU clock's, for now() and the waits

  SC_CTOR(ApbStimulus) : apb("apb"), irq("irq") { SC_THREAD(thread); }

  void thread() {
    for (;;) {
      wait(go);
      if (script) script(*this);
      // Hand control back even when the NPU has timed events ahead (a PMU overflow due while idle).
      sc_core::sc_pause();
    }
  }
  uint32_t access(bool write, uint16_t offset, uint32_t v = 0) {
    tlm::tlm_generic_payload gp;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(offset);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    apb->b_transport(gp, delay);
    EXPECT_TRUE(gp.is_response_ok()) << "offset " << offset;
    wait(delay);
    return v;
  }
  uint32_t rd(uint16_t offset) { return access(false, offset); }
  void wr(uint16_t offset, uint32_t v) { access(true, offset, v); }
  uint64_t now() const { return static_cast<uint64_t>(sc_core::sc_time_stamp() / period); }
  void idle(uint64_t cycles) { wait(period * static_cast<double>(cycles)); }
  // Waits for the IRQ line; false when it does not rise within `limit` cycles.
  bool wait_irq(uint64_t limit = 10'000'000) {
    if (irq.read()) return true;
    wait(period * static_cast<double>(limit), irq.posedge_event());
    return irq.read();
  }
};

}  // namespace ethosu::testing
