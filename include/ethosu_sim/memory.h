// A memory on the NPU's bus (on-chip SRAM, DRAM): a TLM-2.0 loosely-timed target over host buffers mapped at
// bus addresses, so that region buffers appear at their BASEP addresses without copying. Part of the public
// API (include/ethosu_sim); the ready platform (platform.h) has two.
//
// Contract: map() places a caller-owned buffer at [base, base + size); the buffer must outlive the mapping
// (unmap_all() ends every mapping and invalidates DMI). b_transport moves data only when every byte of the
// access lies in mapped buffers (adjacent buffers may be spanned) and otherwise answers
// TLM_ADDRESS_ERROR_RESPONSE touching nothing, so no host memory outside the mapped buffers is ever
// accessed. Byte enables are honoured (a byte moves where its enable is TLM_BYTE_ENABLED; an empty enable array
// answers TLM_BYTE_ENABLE_ERROR_RESPONSE); streaming (a width below the length) answers TLM_BURST_ERROR_RESPONSE.
// DMI is granted per buffer (read and write); where nothing is mapped it is refused with the unmapped range
// described. The memory adds no time of its own: b_transport leaves the delay as it is and DMI grants have zero
// latency, so what an access costs is the NPU's AXI port model plus what the bus between them adds (dram.h is a
// memory with timing of its own).
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace ethosu_sim {

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  explicit Memory(const sc_core::sc_module_name& name);

  // Throws ethosu_sim::InputError when the range is empty, overflows 64 bits or overlaps a mapping.
  void map(uint64_t base, uint8_t* data, uint64_t size_bytes);
  void unmap_all();

  // Turns DMI off, e.g. to check that the b_transport path gives the same results.
  void set_dmi_enabled(bool on);

 protected:
  // A memory with timing of its own (dram.h): DMI off from the start; after every access b_transport completes,
  // timed() adds the access's time to the annotated delay.
  Memory(const sc_core::sc_module_name& name, bool dmi);
  virtual void timed(const tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

 private:
  struct Mapping {
    uint64_t base, last;  // inclusive end, so a buffer may end at 2^64 - 1
    uint8_t* data;
  };

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp);
  // Index of the mapping holding addr, or -1; mappings_ is sorted by base.
  int find(uint64_t addr) const;
  bool mapped(uint64_t addr, uint64_t len) const;
  // Copies len bytes at addr (all mapped) to or from buf, only the enabled ones when `enables` is given.
  void copy(bool read, uint64_t addr, uint8_t* buf, uint64_t len, const uint8_t* enables, unsigned enables_len);

  std::vector<Mapping> mappings_;
  bool dmi_enabled_ = true;
};

}  // namespace ethosu_sim
