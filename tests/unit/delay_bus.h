// Test helper: a bus between one initiator and one target, as a platform's interconnect would be, that adds
// `latency` to every access (annotated on b_transport, or waited for with `waits`; added to DMI grants'
// read and write latencies), grants DMI only when `dmi` is set and, as a bus monitor, can log what passes.
// BITS: its sockets' width.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace ethosu::test {

template <unsigned BITS = 32>
struct DelayBusOf : sc_core::sc_module {
  tlm_utils::simple_target_socket<DelayBusOf, BITS> in;
  tlm_utils::simple_initiator_socket<DelayBusOf, BITS> out;
  sc_core::sc_time latency = sc_core::SC_ZERO_TIME;
  bool waits = false;
  bool dmi = true;
  std::vector<uint64_t> dmi_requests;  // the address of every DMI request, in order
  // With `monitor`, every b_transport as it arrives: its time is sc_time_stamp() + the annotated delay.
  struct Seen {
    bool write;
    uint64_t address, bytes;
    sc_core::sc_time time;
  };
  bool monitor = false;
  std::vector<Seen> seen;

  explicit DelayBusOf(const sc_core::sc_module_name& name) : sc_module(name), in("in"), out("out") {
    in.register_b_transport(this, &DelayBusOf::b_transport);
    in.register_get_direct_mem_ptr(this, &DelayBusOf::get_direct_mem_ptr);
    in.register_transport_dbg(this, &DelayBusOf::transport_dbg);
    out.register_invalidate_direct_mem_ptr(this, &DelayBusOf::invalidate);
  }
  // New settings; the initiator asks for DMI grants again.
  void set(sc_core::sc_time l, bool with_dmi, bool wait_instead = false) {
    latency = l;
    dmi = with_dmi;
    waits = wait_instead;
    in->invalidate_direct_mem_ptr(0, ~sc_dt::uint64{0});
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (monitor) seen.push_back({gp.is_write(), gp.get_address(), gp.get_data_length(), sc_core::sc_time_stamp() + delay});
    if (waits) {
      sc_core::wait(delay + latency);
      delay = sc_core::SC_ZERO_TIME;
    } else {
      delay += latency;
    }
    out->b_transport(gp, delay);
    if (!dmi) gp.set_dmi_allowed(false);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) {
    dmi_requests.push_back(gp.get_address());
    if (!dmi) {
      d.set_start_address(0);
      d.set_end_address(~sc_dt::uint64{0});
      d.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);
      return false;
    }
    const bool ok = out->get_direct_mem_ptr(gp, d);
    d.set_read_latency(d.get_read_latency() + latency);
    d.set_write_latency(d.get_write_latency() + latency);
    return ok;
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { in->invalidate_direct_mem_ptr(start, end); }
};
using DelayBus = DelayBusOf<32>;

}  // namespace ethosu::test
