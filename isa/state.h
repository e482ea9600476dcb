// The sticky command state (the "TSU" register file that NPU_SET_* commands write).
//
// Contract: apply() records a state command's bits; get() reads any field of the latest value, or 0
// when the command never ran (soft-reset value). Operations snapshot this state when they are issued.
#pragma once

#include <array>
#include <cstdint>

#include "isa/decoder.h"
#include "isa/isa.h"

namespace ethosu::isa {

class RegisterState {
 public:
  // Records c when it is a state command; returns false for operations (NPU_OP_*) and invalid entries.
  bool apply(const Command& c) {
    if (!c.info || is_operation(c.info->cmd)) return false;
    bits_[slot(c.info->cmd)] = c.bits;
    return true;
  }
  void set_bits(Cmd c, uint64_t bits) { bits_[slot(c)] = bits; }
  uint64_t bits(Cmd c) const { return bits_[slot(c)]; }
  int64_t get(Field f) const { return isa::get(bits_[slot(info(f).cmd)], f); }
  void reset() { bits_.fill(0); }

 private:
  // cmd0 state commands are 0x100..0x1FF, cmd1 are 0x4000..0x40FF: 512 slots.
  static constexpr size_t slot(Cmd c) {
    const auto h = static_cast<uint16_t>(c);
    return (h & kCmd1Flag) ? 256 + (h & 0xFF) : (h & 0xFF);
  }
  std::array<uint64_t, 512> bits_{};
};

}  // namespace ethosu::isa
