// A RAM of the platform's own: `size` bytes at target addresses [0, size), b_transport (byte enables honoured:
// the NPU writes part of a brick with strobes), DMI (read and write) and debug transport. It adds no time itself.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

class Ram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Ram> socket;

  Ram(const sc_core::sc_module_name& name, uint64_t size) : sc_module(name), socket("socket"), bytes_(size) {
    socket.register_b_transport(this, &Ram::b_transport);
    socket.register_get_direct_mem_ptr(this, &Ram::get_direct_mem_ptr);
    socket.register_transport_dbg(this, &Ram::transport_dbg);
  }

 private:
  bool in_range(const tlm::tlm_generic_payload& gp) const {
    return gp.get_address() < bytes_.size() && gp.get_data_length() <= bytes_.size() - gp.get_address();
  }
  void copy(tlm::tlm_generic_payload& gp) {
    uint8_t* mem = bytes_.data() + gp.get_address();
    uint8_t* data = gp.get_data_ptr();
    const unsigned char* enables = gp.get_byte_enable_ptr();
    for (unsigned i = 0; i < gp.get_data_length(); ++i) {
      // The enable pattern repeats over the data.
      if (enables && enables[i % gp.get_byte_enable_length()] != TLM_BYTE_ENABLED) continue;
      if (gp.is_read()) data[i] = mem[i];
      if (gp.is_write()) mem[i] = data[i];
    }
  }

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    if (!in_range(gp) || gp.get_streaming_width() < gp.get_data_length()) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (gp.get_byte_enable_ptr() && gp.get_byte_enable_length() == 0) {
      gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
      return;
    }
    copy(gp);
    gp.set_dmi_allowed(true);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& d) {
    d.set_dmi_ptr(bytes_.data());
    d.set_start_address(0);
    d.set_end_address(bytes_.size() - 1);
    d.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
    return true;
  }

  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) {
    if (!in_range(gp)) return 0;
    copy(gp);
    return gp.get_data_length();
  }

  std::vector<uint8_t> bytes_;
};
