#include "models/npu/shram.h"

#include <algorithm>
#include <cstring>

#include "models/functional/op_runner.h"

namespace ethosu::npu {

void Shram::configure(isa::Variant v) {
  const auto vi = isa::variant_info(v);
  banks_.assign(vi.cores, std::vector<uint8_t>(vi.shram_bytes(), 0));
}

bool Shram::needs_reconfig(const isa::Operation& op) const {
  return have_layout_ && (op.shram.ib_end != layout_.ib_end || op.shram.ab_start != layout_.ab_start ||
                          op.shram.ifm2_ib_start != layout_.ifm2_ib_start || op.acc_format != acc_);
}

void Shram::occupy(const isa::Operation& op) {
  layout_ = op.shram;
  acc_ = op.acc_format;
  have_layout_ = true;
}

bool Shram::lut_inside(const isa::Operation& op, isa::Span& lut) const {
  lut = functional::lut_span(op, bytes_per_core());
  return lut.empty() || (lut.lo >= 0 && static_cast<uint64_t>(lut.hi) <= bytes_per_core());
}

uint32_t Shram::debug_read(unsigned core, uint64_t at) const {
  uint32_t v = 0;
  if (banks_.empty()) return v;
  const auto& bank = banks_[std::min<size_t>(core, banks_.size() - 1)];
  if (at + 4 <= bank.size()) std::memcpy(&v, bank.data() + at, 4);
  return v;
}

}  // namespace ethosu::npu
