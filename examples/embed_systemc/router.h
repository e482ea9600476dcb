// A simple system bus: any number of initiators, targets at address ranges, loosely timed. Every access
// costs `latency` on top of what the target adds: annotated on b_transport and added to DMI grants, so an
// initiator that models its own port timing (the NPU does) sees it as a longer latency. DMI pointers and
// invalidations are translated between the bus's addresses and each target's own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

class Router : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Router> in;      // bind initiators here
  tlm_utils::multi_passthrough_initiator_socket<Router> out;  // and targets here, in map() order

  sc_core::sc_time latency = sc_core::SC_ZERO_TIME;
  bool dmi = true;  // false: the bus refuses DMI, everything goes by b_transport

  explicit Router(const sc_core::sc_module_name& name) : sc_module(name), in("in"), out("out") {
    in.register_b_transport(this, &Router::b_transport);
    in.register_get_direct_mem_ptr(this, &Router::get_direct_mem_ptr);
    in.register_transport_dbg(this, &Router::transport_dbg);
    out.register_invalidate_direct_mem_ptr(this, &Router::invalidate_direct_mem_ptr);
  }

  // The next target bound to `out` answers [base, base + size).
  void map(uint64_t base, uint64_t size) { ranges_.push_back({base, size}); }

 private:
  struct Range {
    uint64_t base, size;
  };

  // Index of the target holding addr, or -1.
  int decode(uint64_t addr) const {
    for (size_t i = 0; i < ranges_.size(); ++i)
      if (addr >= ranges_[i].base && addr - ranges_[i].base < ranges_[i].size) return static_cast<int>(i);
    return -1;
  }

  void b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    const uint64_t addr = gp.get_address();
    const int t = decode(addr);
    if (t < 0) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    delay += latency;
    gp.set_address(addr - ranges_[t].base);
    out[t]->b_transport(gp, delay);
    gp.set_address(addr);
    if (!dmi) gp.set_dmi_allowed(false);
  }

  bool get_direct_mem_ptr(int, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) {
    const uint64_t addr = gp.get_address();
    const int t = decode(addr);
    if (!dmi || t < 0) {
      d.set_start_address(t < 0 || !dmi ? 0 : ranges_[t].base);
      d.set_end_address(~sc_dt::uint64{0});
      d.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);
      return false;
    }
    const Range& r = ranges_[t];
    gp.set_address(addr - r.base);
    const bool ok = out[t]->get_direct_mem_ptr(gp, d);
    gp.set_address(addr);
    // Back to bus addresses, within the target's range.
    d.set_start_address(d.get_start_address() + r.base);
    d.set_end_address(std::min<sc_dt::uint64>(d.get_end_address(), r.size - 1) + r.base);
    d.set_read_latency(d.get_read_latency() + latency);
    d.set_write_latency(d.get_write_latency() + latency);
    return ok;
  }

  unsigned int transport_dbg(int, tlm::tlm_generic_payload& gp) {
    const uint64_t addr = gp.get_address();
    const int t = decode(addr);
    if (t < 0) return 0;
    gp.set_address(addr - ranges_[t].base);
    const unsigned int n = out[t]->transport_dbg(gp);
    gp.set_address(addr);
    return n;
  }

  void invalidate_direct_mem_ptr(int target, sc_dt::uint64 start, sc_dt::uint64 end) {
    const Range& r = ranges_.at(static_cast<size_t>(target));
    const sc_dt::uint64 last = std::min<sc_dt::uint64>(end, r.size - 1);
    for (unsigned i = 0; i < in.size(); ++i) in[i]->invalidate_direct_mem_ptr(r.base + start, r.base + last);
  }

  std::vector<Range> ranges_;
};
