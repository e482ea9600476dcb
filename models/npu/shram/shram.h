// SHRAM, the NPU's shared buffer RAM, as a SystemC module: per core, the input buffers, accumulator buffers
// and LUT banks that kernel operations lay out with IB_END/AB_START/IFM2_IB_START and ACC_FORMAT, and that
// internal DMAs fill (LUTs). Its size per core is a run-time parameter (npu.shram.bytes_per_core; the LUT
// sits in its top two banks); it owns its statistics and a trace track of the layouts operations hold.
//
// Contract: banks() are the bytes (one buffer per core) the command controller's engine works on; their
// contents survive soft reset [I] and are kept when the size stays. occupy() records that an operation holds
// its layout from `start` to `end` (the command controller tells whether it is a new one), counting layout
// changes and drawing the span. The host's debug window
// (SHARED_BUFFER at 0x400, DEBUG_ADDRESS/DEBUGCORE) reads 32-bit words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/operation.h"
#include "models/npu/block.h"

namespace ethosu::npu {

class Shram : public Block {
 public:
  enum Stat : uint8_t { LAYOUT_CHANGES, kStats };
  static const std::array<CounterSpec, kStats> kCounters;

  Shram(const sc_core::sc_module_name& name, sim::Stats& stats);

  // `cores` buffers of `bytes_per_core` bytes.
  void configure(unsigned cores, uint64_t bytes_per_core);
  std::vector<std::vector<uint8_t>>& banks() { return banks_; }
  uint64_t bytes_per_core() const { return banks_.empty() ? 0 : banks_.front().size(); }

  void occupy(const isa::Operation& op, uint32_t offset, uint64_t start, uint64_t end, bool new_layout);

  // The debug window: the word at byte `at` of core `core`'s SHRAM (0 outside).
  uint32_t debug_read(unsigned core, uint64_t at) const;

 private:
  std::vector<std::vector<uint8_t>> banks_;
  std::array<sim::Counter*, kStats> stat_;
};

}  // namespace ethosu::npu
