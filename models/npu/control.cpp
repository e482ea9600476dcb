#include "models/npu/control.h"

#include "isa/registers.h"

namespace ethosu::npu {

using isa::Reg;
using isa::RegField;

namespace {
uint32_t bit(RegField f) { return isa::reg_field_mask(f); }
}  // namespace

void ControlRegisters::reset() {
  status_ = isa::register_info(Reg::STATUS).in(arch_->register_map).reset &
            ~bit(RegField::STATUS_reset_status);  // reset completes at once
  cmd_ = isa::register_info(Reg::CMD).in(arch_->register_map).reset;
  qbase_ = 0;
  qread_ = qconfig_ = qsize_ = regioncfg_ = lock_ = 0;
  axi_limit_.fill(0);
  mem_attr_.fill(0);
  axi_sram_ = axi_ext_ = power_ctrl_ = feature_disable_ = 0;
  basep_.fill(0);
  // The requested privilege/security levels become active with the reset.
  prot_ = reset_ & (bit(RegField::PROT_active_CPL) | bit(RegField::PROT_active_CSL));
}

bool ControlRegisters::read(uint16_t offset, uint32_t& v) const {
  return read(isa::locate_register(offset, arch_->register_map), v);
}

bool ControlRegisters::write(uint16_t offset, uint32_t v, HostAction& action) {
  return write(isa::locate_register(offset, arch_->register_map), v, action);
}

unsigned ControlRegisters::limiter_of(unsigned selector) const {
  if (!u85()) return selector;
  return isa::get(mem_attr_[selector & 3], RegField::U85_MEM_ATTR_axi_port) ? 2 : 0;
}

uint32_t ControlRegisters::axi_limit(unsigned n) const {
  if (!u85()) return axi_limit_.at(n);
  const uint32_t port = n < 2 ? axi_sram_ : axi_ext_;  // AXI_EXT has AXI_SRAM's layout
  uint32_t v = 0;
  v = isa::set(v, RegField::AXI_LIMIT0_max_beats, isa::get(port, RegField::U85_AXI_SRAM_max_beats));
  v = isa::set(v, RegField::AXI_LIMIT0_max_outstanding_read_m1,
               isa::get(port, RegField::U85_AXI_SRAM_max_outstanding_read_m1));
  v = isa::set(v, RegField::AXI_LIMIT0_max_outstanding_write_m1,
               isa::get(port, RegField::U85_AXI_SRAM_max_outstanding_write_m1));
  return v;
}

bool ControlRegisters::read(const isa::RegisterWord& at, uint32_t& v) const {
  if (!at) return false;
  switch (at.reg()) {
    case Reg::ID: v = arch_->id; return true;
    case Reg::STATUS: v = status_; return true;
    case Reg::CMD: v = cmd_; return true;
    case Reg::RESET: v = reset_; return true;
    case Reg::QBASE: v = isa::word_of(qbase_, at.high); return true;
    case Reg::QREAD: v = qread_; return true;
    case Reg::QCONFIG: v = qconfig_; return true;
    case Reg::QSIZE: v = qsize_; return true;
    case Reg::PROT: v = prot_; return true;
    case Reg::CONFIG: v = arch_->config; return true;
    case Reg::LOCK: v = lock_; return true;
    case Reg::REGIONCFG: v = regioncfg_; return true;
    case Reg::AXI_LIMIT0: v = axi_limit_[0]; return true;
    case Reg::AXI_LIMIT1: v = axi_limit_[1]; return true;
    case Reg::AXI_LIMIT2: v = axi_limit_[2]; return true;
    case Reg::AXI_LIMIT3: v = axi_limit_[3]; return true;
    case Reg::BASEP: v = isa::word_of(basep_[at.index], at.high); return true;
    case Reg::MEM_ATTR: v = mem_attr_[at.index]; return true;
    case Reg::AXI_SRAM: v = axi_sram_; return true;
    case Reg::AXI_EXT: v = axi_ext_; return true;
    case Reg::POWER_CTRL: v = power_ctrl_; return true;
    case Reg::FEATURE_DISABLE: v = feature_disable_; return true;
    default: return false;
  }
}

bool ControlRegisters::write(const isa::RegisterWord& at, uint32_t v, HostAction& action) {
  action = HostAction::NONE;
  if (!at) return false;
  const bool stopped = !running();
  switch (at.reg()) {
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
      qbase_ = address(isa::with_word(qbase_, at.high, v));
      if (stopped) status_ &= ~bit(RegField::STATUS_cmd_end_reached);
      return true;
    case Reg::QSIZE:
      qsize_ = v;
      if (stopped) status_ &= ~bit(RegField::STATUS_cmd_end_reached);
      return true;
    case Reg::QCONFIG: qconfig_ = v; return true;
    case Reg::LOCK: lock_ = v; return true;
    case Reg::REGIONCFG: regioncfg_ = v; return true;
    case Reg::AXI_LIMIT0: axi_limit_[0] = v; return true;
    case Reg::AXI_LIMIT1: axi_limit_[1] = v; return true;
    case Reg::AXI_LIMIT2: axi_limit_[2] = v; return true;
    case Reg::AXI_LIMIT3: axi_limit_[3] = v; return true;
    case Reg::BASEP: basep_[at.index] = address(isa::with_word(basep_[at.index], at.high, v)); return true;
    case Reg::MEM_ATTR: mem_attr_[at.index] = v; return true;
    case Reg::AXI_SRAM: axi_sram_ = v; return true;
    case Reg::AXI_EXT: axi_ext_ = v; return true;
    case Reg::POWER_CTRL: power_ctrl_ = v; return true;
    case Reg::FEATURE_DISABLE: feature_disable_ = v; return true;
    // The read-only registers of the control page ignore writes.
    case Reg::ID:
    case Reg::STATUS:
    case Reg::QREAD:
    case Reg::PROT:
    case Reg::CONFIG: return true;
    default: return false;
  }
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
    // The U85's STATUS has no wd_fault (bit 7 is reserved there, Arm's ethosu85_interface.h): a weight stream its
    // decoders cannot parse is reported as a command-stream parse error [I: no source says what the U85 reports].
    case cc::FaultKind::WD_FAULT:
      status_ |= bit(u85() ? RegField::STATUS_cmd_parse_error : RegField::STATUS_wd_fault);
      break;
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
