#include "ethosu_sim/memory.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "sim/error.h"

namespace ethosu_sim {

Memory::Memory(const sc_core::sc_module_name& name) : Memory(name, true) {}

Memory::Memory(const sc_core::sc_module_name& name, bool dmi) : sc_module(name), socket("socket"), dmi_enabled_(dmi) {
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Memory::transport_dbg);
}

void Memory::map(uint64_t base, uint8_t* data, uint64_t size_bytes) {
  if (size_bytes == 0 || data == nullptr) throw InputError("memory map: empty buffer");
  if (base + (size_bytes - 1) < base) throw InputError("memory map: range overflows the address space");
  const Mapping m{base, base + (size_bytes - 1), data};
  for (const Mapping& o : mappings_) {
    if (m.base <= o.last && o.base <= m.last) throw InputError("memory map: range overlaps a mapped buffer");
  }
  const auto at = std::lower_bound(mappings_.begin(), mappings_.end(), m,
                                   [](const Mapping& a, const Mapping& b) { return a.base < b.base; });
  mappings_.insert(at, m);
}

void Memory::unmap_all() {
  mappings_.clear();
  socket->invalidate_direct_mem_ptr(0, std::numeric_limits<sc_dt::uint64>::max());
}

void Memory::set_dmi_enabled(bool on) {
  dmi_enabled_ = on;
  // Grants end when it goes off, refusals when it comes on: initiators ask again either way.
  socket->invalidate_direct_mem_ptr(0, std::numeric_limits<sc_dt::uint64>::max());
}

int Memory::find(uint64_t addr) const {
  const auto it = std::upper_bound(mappings_.begin(), mappings_.end(), addr,
                                   [](uint64_t a, const Mapping& m) { return a < m.base; });
  if (it == mappings_.begin()) return -1;
  const auto& m = *(it - 1);
  return addr <= m.last ? static_cast<int>(it - 1 - mappings_.begin()) : -1;
}

bool Memory::mapped(uint64_t addr, uint64_t len) const {
  if (addr + (len - 1) < addr) return false;
  int i = find(addr);
  if (i < 0) return false;
  const uint64_t last = addr + (len - 1);
  // Adjacent buffers form one contiguous range.
  while (mappings_[i].last < last) {
    const uint64_t next = mappings_[i].last + 1;
    if (static_cast<size_t>(i + 1) >= mappings_.size() || mappings_[i + 1].base != next) return false;
    ++i;
  }
  return true;
}

void Memory::timed(const tlm::tlm_generic_payload&, sc_core::sc_time&) {}

void Memory::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t addr = gp.get_address();
  const uint64_t len = gp.get_data_length();
  if (gp.get_byte_enable_ptr() != nullptr && gp.get_byte_enable_length() == 0) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (gp.get_streaming_width() < len) {
    gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const bool is_read = gp.is_read();
  if (!is_read && !gp.is_write()) {  // TLM_IGNORE_COMMAND
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (len == 0 || !mapped(addr, len)) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  copy(is_read, addr, gp.get_data_ptr(), len, gp.get_byte_enable_ptr(), gp.get_byte_enable_length());
  gp.set_dmi_allowed(dmi_enabled_);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  timed(gp, delay);
}

void Memory::copy(bool read, uint64_t addr, uint8_t* buf, uint64_t len, const uint8_t* enables, unsigned enables_len) {
  uint64_t a = addr, done = 0;
  for (int i = find(addr); done < len; ++i) {
    const Mapping& m = mappings_[i];
    const uint64_t n = std::min(len - done, m.last - a + 1);
    uint8_t* mem = m.data + (a - m.base);
    if (enables) {
      // Byte k of the data moves when enable byte k (the pattern repeated over the data) is set.
      for (uint64_t k = 0; k < n; ++k) {
        if (enables[(done + k) % enables_len] != TLM_BYTE_ENABLED) continue;
        if (read)
          buf[done + k] = mem[k];
        else
          mem[k] = buf[done + k];
      }
    } else if (read) {
      std::memcpy(buf + done, mem, n);
    } else {
      std::memcpy(mem, buf + done, n);
    }
    done += n;
    a += n;
  }
}

// Debuggers and loaders: the same bytes as b_transport, no time, no side effects; 0 bytes where unmapped.
unsigned int Memory::transport_dbg(tlm::tlm_generic_payload& gp) {
  const uint64_t len = gp.get_data_length();
  if ((!gp.is_read() && !gp.is_write()) || len == 0 || !mapped(gp.get_address(), len)) return 0;
  copy(gp.is_read(), gp.get_address(), gp.get_data_ptr(), len, nullptr, 0);
  return static_cast<unsigned int>(len);
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
  const uint64_t addr = gp.get_address();
  const int i = find(addr);
  if (!dmi_enabled_ || i < 0) {
    // Describe the range the refusal covers: everything when DMI is off, else the gap around addr.
    uint64_t start = 0, end = std::numeric_limits<uint64_t>::max();
    if (dmi_enabled_) {
      for (const Mapping& m : mappings_) {
        if (m.last < addr) start = m.last + 1;
        if (m.base > addr) {
          end = m.base - 1;
          break;
        }
      }
    }
    dmi.set_start_address(start);
    dmi.set_end_address(end);
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);
    return false;
  }
  const Mapping& m = mappings_[i];
  dmi.set_dmi_ptr(m.data);
  dmi.set_start_address(m.base);
  dmi.set_end_address(m.last);
  dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_READ_WRITE);
  return true;
}

}  // namespace ethosu_sim
