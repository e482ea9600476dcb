#include "isa/registers.h"

#include <array>
#include <stdexcept>

namespace ethosu::isa {

const RegisterInfo& register_info(Reg r) {
  for (const auto& ri : kRegisters)
    if (ri.reg == r) return ri;
  throw std::logic_error("isa: register not in the table");
}

uint16_t reg_at(Reg first, unsigned i) {
  const auto& ri = register_info(first);
  if (i >= ri.count) throw std::out_of_range("isa: register array index out of range");
  return static_cast<uint16_t>(ri.offset + i * ri.stride());
}

RegisterWord locate_register(uint16_t offset) {
  // The 4 KiB register page word by word, made once from the table.
  static const std::array<RegisterWord, 1024> kWords = [] {
    std::array<RegisterWord, 1024> words{};
    for (const auto& ri : kRegisters)
      for (unsigned i = 0; i < ri.count; ++i)
        for (unsigned w = 0; w < ri.width_bits / 32u; ++w) {
          const unsigned at = (ri.offset + i * ri.stride()) / 4 + w;
          if (at < words.size()) words[at] = {&ri, i, w == 1};
        }
    return words;
  }();
  if (offset & 3 || offset / 4u >= kWords.size()) return {};
  return kWords[offset / 4u];
}

const PmuEventInfo* find_pmu_event(uint16_t hw_id) {
  for (const auto& e : kPmuEvents)
    if (e.hw_id == hw_id) return &e;
  return nullptr;
}

const PmuEventInfo* find_pmu_event(std::string_view name) {
  for (const auto& e : kPmuEvents)
    if (e.name == name) return &e;
  return nullptr;
}

const PmuEventInfo* find_pmu_event_by_driver_index(uint16_t index) {
  for (const auto& e : kPmuEvents)
    if (e.driver_index == index) return &e;
  return nullptr;
}

}  // namespace ethosu::isa
