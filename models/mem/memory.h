// A memory behind an AXI port (on-chip SRAM, DRAM): a TLM-2.0 target over host buffers mapped at bus
// addresses, so the host can place region buffers at their BASEP addresses without copying.
//
// Contract: map() places a caller-owned buffer at [base, base + size); the buffer must outlive the
// mapping (unmap_all() ends every mapping and invalidates DMI). b_transport moves data only when
// every byte of the access lies in mapped buffers (adjacent buffers may be spanned) and otherwise
// answers TLM_ADDRESS_ERROR_RESPONSE touching nothing, so no host memory outside the mapped buffers
// is ever accessed. Byte enables and streaming are not used by the NPU and are rejected. DMI is
// granted per buffer (read and write); where nothing is mapped it is refused with the unmapped range
// described. The memory adds no time of its own: what an access costs is the AXI port's model
// (axi_timing.h), so b_transport leaves the delay and DMI grants zero latency.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace ethosu::mem {

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  explicit Memory(const sc_core::sc_module_name& name);

  // Throws ethosu::InputError when the range is empty, overflows 64 bits or overlaps a mapping.
  void map(uint64_t base, uint8_t* data, uint64_t size_bytes);
  void unmap_all();

  // Turns DMI off, e.g. to check that the b_transport path gives the same results.
  void set_dmi_enabled(bool on);

 private:
  struct Mapping {
    uint64_t base, last;  // inclusive end, so a buffer may end at 2^64 - 1
    uint8_t* data;
  };

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  // Index of the mapping holding addr, or -1; mappings_ is sorted by base.
  int find(uint64_t addr) const;
  bool mapped(uint64_t addr, uint64_t len) const;

  std::vector<Mapping> mappings_;
  bool dmi_enabled_ = true;
};

}  // namespace ethosu::mem
