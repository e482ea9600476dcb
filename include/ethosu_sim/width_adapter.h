// Binds TLM-2.0 sockets of different bus widths. Part of the public API (include/ethosu_sim); header only.
//
// The NPU's sockets (npu.h) are TLM's default 32-bit ones, but its AXI ports are 128 bits wide on the Ethos-U65
// (64 on the U55), and a platform's buses may be of any width. TLM makes the width part of a socket's type, so a
// 32-bit initiator socket cannot bind a 128-bit target socket; the generic payload itself carries no width.
// WidthAdapter<IN, OUT> is a pass-through between an IN-bit target socket and an OUT-bit initiator socket:
// b_transport, nb_transport in both directions, DMI requests, debug transport and DMI invalidations go through
// unchanged (same payload, same delay, same phase), so it adds no time and changes no behaviour.
//
//   ethosu_sim::WidthAdapter<32, 128> m1("npu_m1");   // the NPU's M1 onto a 128-bit interconnect
//   npu.axi1.bind(m1.in);
//   m1.out.bind(interconnect.target_socket);
//   ethosu_sim::WidthAdapter<64, 32> apb("npu_apb");   // a 64-bit peripheral bus onto the NPU's registers
//   bus.initiator_socket.bind(apb.in);
//   apb.out.bind(npu.apb);
#pragma once

#include <systemc>
#include <tlm>

namespace ethosu_sim {

template <unsigned IN_BITS, unsigned OUT_BITS>
class WidthAdapter : public sc_core::sc_module, public tlm::tlm_fw_transport_if<>, public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_target_socket<IN_BITS> in;
  tlm::tlm_initiator_socket<OUT_BITS> out;

  explicit WidthAdapter(const sc_core::sc_module_name& name) : sc_module(name), in("in"), out("out") {
    in.bind(*this);
    out.bind(*this);
  }

  // Initiator to target.
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override { out->b_transport(gp, delay); }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    return out->nb_transport_fw(gp, phase, delay);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override {
    return out->get_direct_mem_ptr(gp, dmi);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override { return out->transport_dbg(gp); }

  // Target to initiator.
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    return in->nb_transport_bw(gp, phase, delay);
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override {
    in->invalidate_direct_mem_ptr(start, end);
  }
};

}  // namespace ethosu_sim
