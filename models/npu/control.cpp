#include "models/npu/control.h"

#include "isa/registers.h"

namespace ethosu::npu {

using isa::Reg;
using isa::RegField;

namespace {
constexpr uint16_t off(Reg r) { return static_cast<uint16_t>(r); }
constexpr uint64_t kAddressMask = (uint64_t{1} << 40) - 1;  // U65 addresses are 40-bit

uint32_t bit(RegField f) { return isa::reg_field_mask(f); }

// Sets the low or high word of a 64-bit register; only address bits 39:32 exist in the high word.
void set_word(uint64_t& reg, bool high, uint32_t v) {
  reg = high ? ((reg & 0xFFFFFFFFull) | (uint64_t{v} << 32)) & kAddressMask : (reg & ~0xFFFFFFFFull) | v;
}
}  // namespace

IdentityRegisters identity(isa::Variant v) {
  // Product 1 (U65), command stream version 0, 48 KiB SHRAM per 256-MAC core; macs_per_cc = log2(total MACs).
  IdentityRegisters r;
  r.id = isa::register_info(Reg::ID).reset;
  const bool dual = v == isa::Variant::U65_512;
  uint32_t c = 0;
  c = isa::set(c, RegField::CONFIG_macs_per_cc, dual ? 9 : 8);
  c = isa::set(c, RegField::CONFIG_shram_size, dual ? 96 : 48);
  c = isa::set(c, RegField::CONFIG_product, 1);
  r.config = c;
  return r;
}

void ControlRegisters::reset() {
  status_ = isa::register_info(Reg::STATUS).reset & ~bit(RegField::STATUS_reset_status);  // reset completes at once
  cmd_ = isa::register_info(Reg::CMD).reset;
  qbase_ = 0;
  qread_ = qconfig_ = qsize_ = regioncfg_ = lock_ = 0;
  axi_limit_.fill(0);
  basep_.fill(0);
  // The requested privilege/security levels become active with the reset.
  prot_ = reset_ & (bit(RegField::PROT_active_CPL) | bit(RegField::PROT_active_CSL));
}

bool ControlRegisters::read(uint16_t offset, uint32_t& v) const {
  const uint16_t basep = off(Reg::BASEP);
  if (offset >= basep && offset < basep + 8 * 8) {
    const uint64_t b = basep_[(offset - basep) / 8];
    v = (offset & 4) ? static_cast<uint32_t>(b >> 32) : static_cast<uint32_t>(b);
    return true;
  }
  const uint16_t limit0 = off(Reg::AXI_LIMIT0);
  if (offset >= limit0 && offset < limit0 + 16) {
    v = axi_limit_[(offset - limit0) / 4];
    return true;
  }
  switch (static_cast<Reg>(offset)) {
    case Reg::ID: v = identity_.id; return true;
    case Reg::STATUS: v = status_; return true;
    case Reg::CMD: v = cmd_; return true;
    case Reg::RESET: v = reset_; return true;
    case Reg::QBASE: v = static_cast<uint32_t>(qbase_); return true;
    case Reg::QREAD: v = qread_; return true;
    case Reg::QCONFIG: v = qconfig_; return true;
    case Reg::QSIZE: v = qsize_; return true;
    case Reg::PROT: v = prot_; return true;
    case Reg::CONFIG: v = identity_.config; return true;
    case Reg::LOCK: v = lock_; return true;
    case Reg::REGIONCFG: v = regioncfg_; return true;
    default: break;
  }
  if (offset == off(Reg::QBASE) + 4) {
    v = static_cast<uint32_t>(qbase_ >> 32);
    return true;
  }
  if (offset < 0xC0) {  // undecoded control-page offsets read as 0 [I]
    v = 0;
    return true;
  }
  return false;
}

bool ControlRegisters::write(uint16_t offset, uint32_t v, HostAction& action) {
  action = HostAction::NONE;
  const bool stopped = !running();
  const uint16_t basep = off(Reg::BASEP);
  if (offset >= basep && offset < basep + 8 * 8) {
    set_word(basep_[(offset - basep) / 8], offset & 4, v);
    return true;
  }
  const uint16_t limit0 = off(Reg::AXI_LIMIT0);
  if (offset >= limit0 && offset < limit0 + 16) {
    axi_limit_[(offset - limit0) / 4] = v;
    return true;
  }
  switch (static_cast<Reg>(offset)) {
    case Reg::CMD:
      cmd_ = v;
      if (isa::get(v, RegField::CMD_clear_irq))
        status_ &= ~(bit(RegField::STATUS_irq_raised) | bit(RegField::STATUS_pmu_irq_raised));
      status_ &= ~(isa::get(v, RegField::CMD_clear_irq_history) << 16);
      // A start while an error is latched does nothing until reset [I, spec 02 section 5].
      if (isa::get(v, RegField::CMD_transition_to_running_state) && !faulted() && stopped) action = HostAction::RUN;
      return true;
    case Reg::RESET:
      reset_ = v & 3;
      action = HostAction::SOFT_RESET;
      return true;
    case Reg::QBASE:
      set_word(qbase_, false, v);
      if (stopped) status_ &= ~bit(RegField::STATUS_cmd_end_reached);
      return true;
    case Reg::QSIZE:
      qsize_ = v;
      if (stopped) status_ &= ~bit(RegField::STATUS_cmd_end_reached);
      return true;
    case Reg::QCONFIG: qconfig_ = v; return true;
    case Reg::LOCK: lock_ = v; return true;
    case Reg::REGIONCFG: regioncfg_ = v; return true;
    default: break;
  }
  if (offset == off(Reg::QBASE) + 4) {
    set_word(qbase_, true, v);
    if (stopped) status_ &= ~bit(RegField::STATUS_cmd_end_reached);
    return true;
  }
  return offset < 0xC0;  // read-only and undecoded control-page offsets ignore writes
}

void ControlRegisters::set_running(bool r) {
  status_ = r ? status_ | bit(RegField::STATUS_state) : status_ & ~bit(RegField::STATUS_state);
}

void ControlRegisters::stop_reached(uint16_t mask) {
  set_running(false);
  status_ |= bit(RegField::STATUS_cmd_end_reached) | bit(RegField::STATUS_irq_raised) | (uint32_t{mask} << 16);
}

void ControlRegisters::irq_op(uint16_t mask) {
  status_ |= bit(RegField::STATUS_irq_raised) | (uint32_t{mask} << 16);
}

void ControlRegisters::fault(const cc::Fault& f) {
  set_running(false);
  status_ |= bit(RegField::STATUS_irq_raised);
  switch (f.kind) {
    case cc::FaultKind::BUS_ERROR:
      status_ |= bit(RegField::STATUS_bus_status);
      status_ = isa::set(status_, RegField::STATUS_faulting_interface, f.port);
      status_ = isa::set(status_, RegField::STATUS_faulting_channel, static_cast<uint32_t>(f.channel));
      break;
    case cc::FaultKind::CMD_PARSE_ERROR:
    case cc::FaultKind::LIMIT: status_ |= bit(RegField::STATUS_cmd_parse_error); break;
    case cc::FaultKind::WD_FAULT: status_ |= bit(RegField::STATUS_wd_fault); break;
  }
}

void ControlRegisters::set_pmu_irq(bool pending) {
  if (pending) status_ |= bit(RegField::STATUS_pmu_irq_raised) | bit(RegField::STATUS_irq_raised);
}

bool ControlRegisters::irq() const { return isa::get(status_, RegField::STATUS_irq_raised) != 0; }
bool ControlRegisters::running() const { return isa::get(status_, RegField::STATUS_state) != 0; }
bool ControlRegisters::faulted() const {
  return (status_ & (bit(RegField::STATUS_bus_status) | bit(RegField::STATUS_cmd_parse_error) |
                     bit(RegField::STATUS_wd_fault) | bit(RegField::STATUS_ecc_fault))) != 0;
}

}  // namespace ethosu::npu
