// SHRAM, the NPU's shared buffer RAM, as a SystemC module: per core, the input buffers, accumulator buffers
// and LUT banks that kernel operations lay out with IB_END/AB_START/IFM2_IB_START and ACC_FORMAT, and that
// internal DMAs fill (LUTs).
//
// Contract: banks() are the bytes (one buffer per core) the functional model and internal DMAs use; their
// contents survive soft reset [I]. A kernel operation whose layout differs from the previous operation's
// must wait until that operation has released its banks (needs_reconfig(), then occupy()). The host's
// debug window (SHARED_BUFFER at 0x400, DEBUG_ADDRESS/DEBUGCORE) reads 32-bit words.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "isa/operation.h"
#include "isa/validator.h"

namespace ethosu::npu {

class Shram : public sc_core::sc_module {
 public:
  explicit Shram(const sc_core::sc_module_name& name) : sc_module(name) {}

  void configure(isa::Variant v);
  std::vector<std::vector<uint8_t>>& banks() { return banks_; }
  uint64_t bytes_per_core() const { return banks_.empty() ? 0 : banks_.front().size(); }

  // A new stream: no layout yet.
  void begin_stream() { have_layout_ = false; }
  // True when op lays out the SHRAM differently from the previous kernel operation of this stream.
  bool needs_reconfig(const isa::Operation& op) const;
  void occupy(const isa::Operation& op);
  // False when the LUT op reads lies outside the SHRAM (lut receives the span).
  bool lut_inside(const isa::Operation& op, isa::Span& lut) const;

  // The debug window: the word at byte `at` of core `core`'s SHRAM (0 outside).
  uint32_t debug_read(unsigned core, uint64_t at) const;

 private:
  std::vector<std::vector<uint8_t>> banks_;
  isa::ShramConfig layout_{};
  isa::enums::acc_format acc_ = isa::enums::acc_format::I32;
  bool have_layout_ = false;
};

}  // namespace ethosu::npu
