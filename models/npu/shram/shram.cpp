#include "models/npu/shram/shram.h"

#include <algorithm>
#include <cstring>

namespace ethosu::npu {

const std::array<CounterSpec, Shram::kStats> Shram::kCounters = {{
    {"layout_changes", "layouts", "kernel operations that laid the SHRAM out anew"},
}};

Shram::Shram(const sc_core::sc_module_name& name, sim::Stats& stats) : Block(name, stats), stat_(counters(kCounters)) {}

void Shram::configure(unsigned cores, uint64_t bytes_per_core) {
  if (banks_.size() == cores && bytes_per_core == this->bytes_per_core()) return;
  banks_.assign(cores, std::vector<uint8_t>(bytes_per_core, 0));
}

void Shram::occupy(const isa::Operation& op, uint32_t offset, uint64_t start, uint64_t end, bool new_layout) {
  if (new_layout) ++*stat_[LAYOUT_CHANGES];
  if (tracing())
    span("IB_END " + std::to_string(op.shram.ib_end) + " AB_START " + std::to_string(op.shram.ab_start), "layout",
         start, end, {{"op_offset", offset}, {"ifm2_ib_start", op.shram.ifm2_ib_start}});
}

uint32_t Shram::debug_read(unsigned core, uint64_t at) const {
  uint32_t v = 0;
  if (banks_.empty()) return v;
  const auto& bank = banks_[std::min<size_t>(core, banks_.size() - 1)];
  if (at + 4 <= bank.size()) std::memcpy(&v, bank.data() + at, 4);
  return v;
}

}  // namespace ethosu::npu
