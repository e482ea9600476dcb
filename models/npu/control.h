// The NPU's control and status registers (spec 02 sections 3 and 5): ID, STATUS, CMD, RESET, QBASE/QREAD/
// QCONFIG/QSIZE, PROT, CONFIG, REGIONCFG, BASEP0-7, LOCK and AXI_LIMIT0-3 (U55, U65) or MEM_ATTR0-3, AXI_SRAM,
// AXI_EXT, POWER_CTRL and FEATURE_DISABLE (U85), and how run, stop, faults and the IRQ change them.
//
// Contract: plain C++. write() applies a host write and tells the NPU what to start (run, soft reset);
// the model reports what the hardware does (stop reached, NPU_OP_IRQ, faults) through the model-side
// calls, which set STATUS bits and raise the IRQ as the hardware does. irq() is the level of the IRQ
// line (the PMU's request is or-ed in by the NPU). Time-dependent fields (QREAD, STATUS.state) are
// set by the model before a read is answered.
#pragma once

#include <array>
#include <cstdint>

#include "isa/registers.h"
#include "isa/architecture.h"
#include "models/npu/cc/fault.h"

namespace ethosu::npu {

enum class HostAction : uint8_t { NONE, RUN, SOFT_RESET };

class ControlRegisters {
 public:
  // ID and CONFIG read the configuration's values; addresses have its width.
  explicit ControlRegisters(isa::Variant v) : arch_(&isa::architecture(v)) { reset(); }
  const isa::Architecture& architecture() const { return *arch_; }
  void set_variant(isa::Variant v) { arch_ = &isa::architecture(v); }
  void reset();

  // Host side: the control page's registers (false for any other register word).
  bool read(const isa::RegisterWord& at, uint32_t& value) const;
  bool write(const isa::RegisterWord& at, uint32_t value, HostAction& action);
  // The same at an APB offset.
  bool read(uint16_t offset, uint32_t& value) const;
  bool write(uint16_t offset, uint32_t value, HostAction& action);

  // Model side.
  void set_running(bool running);
  void set_qread(uint32_t offset) { qread_ = offset; }
  uint32_t qread() const { return qread_; }
  void stop_reached(uint16_t mask);  // NPU_OP_STOP
  void irq_op(uint16_t mask);        // NPU_OP_IRQ
  // The error bit of f's kind (a LIMIT shows as a command parse error), and for a bus error its AXI
  // interface and channel.
  void fault(const cc::Fault& f);
  void set_pmu_irq(bool pending);

  bool irq() const;
  bool running() const;
  bool faulted() const;  // an error bit that only reset clears
  uint32_t status() const { return status_; }
  uint64_t qbase() const { return qbase_; }
  uint32_t qsize() const { return qsize_; }
  uint32_t qconfig() const { return qconfig_; }
  uint32_t regioncfg() const { return regioncfg_; }
  // Limiter n (0, 1 on M0; 2, 3 on M1) as an AXI_LIMITn word: on the U85, whose limits are per port, AXI_SRAM's
  // (M0) or AXI_EXT's (M1) fields in that layout.
  uint32_t axi_limit(unsigned n) const;
  uint64_t basep(unsigned region) const { return basep_.at(region); }
  // AXI port (0 = M0, the SRAM port; 1 = M1, the external port) and limiter (0..3) of a region. U55/U65: REGIONCFG
  // (values 0/1 -> M0, 2/3 -> M1). U85: REGIONCFG selects a MEM_ATTR entry, whose axi_port is the port; the limiter
  // is the port's first.
  unsigned region_limiter(unsigned region) const { return limiter_of((regioncfg_ >> (2 * region)) & 3); }
  unsigned region_port(unsigned region) const { return region_limiter(region) >> 1; }
  unsigned command_port() const { return limiter_of(qconfig_ & 3) >> 1; }

 private:
  uint64_t address(uint64_t v) const { return v & arch_->address_mask(); }
  bool u85() const { return arch_->register_map == isa::RegisterMap::U85; }
  unsigned limiter_of(unsigned selector) const;

  const isa::Architecture* arch_;
  uint32_t status_ = 0, cmd_ = 0, reset_ = 0, prot_ = 0, lock_ = 0;
  uint64_t qbase_ = 0;
  uint32_t qread_ = 0, qconfig_ = 0, qsize_ = 0, regioncfg_ = 0;
  std::array<uint32_t, 4> axi_limit_{};
  std::array<uint32_t, 4> mem_attr_{};
  uint32_t axi_sram_ = 0, axi_ext_ = 0, power_ctrl_ = 0, feature_disable_ = 0;
  std::array<uint64_t, 8> basep_{};
};

}  // namespace ethosu::npu
