#include "isa/registers.h"

#include <stdexcept>
#include <vector>

namespace ethosu::isa {

const RegisterInfo& register_info(Reg r) {
  for (const auto& ri : kRegisters)
    if (ri.reg == r) return ri;
  throw std::logic_error("isa: register not in the table");
}

uint16_t reg_at(Reg first, unsigned i, RegisterMap map) {
  const RegisterPlacement& p = register_info(first).in(map);
  if (!p.present()) throw std::logic_error("isa: register not in this register map");
  if (i >= p.count) throw std::out_of_range("isa: register array index out of range");
  return static_cast<uint16_t>(p.offset + i * p.stride());
}

namespace {

// A map's register page word by word, made once from the table.
std::vector<RegisterWord> words_of(RegisterMap map) {
  std::vector<RegisterWord> words(register_page_bytes(map) / 4u);
  for (const auto& ri : kRegisters) {
    const RegisterPlacement& p = ri.in(map);
    if (!p.present()) continue;
    for (unsigned i = 0; i < p.count; ++i)
      for (unsigned w = 0; w < p.width_bits / 32u; ++w) {
        const unsigned at = (p.offset + i * p.stride()) / 4 + w;
        if (at < words.size()) words[at] = {&ri, &p, i, w == 1};
      }
  }
  return words;
}

}  // namespace

RegisterWord locate_register(uint16_t offset, RegisterMap map) {
  static const std::vector<RegisterWord> kWords[kRegisterMaps] = {words_of(RegisterMap::U65),
                                                                   words_of(RegisterMap::U85)};
  const std::vector<RegisterWord>& words = kWords[static_cast<size_t>(map)];
  if (offset & 3 || offset / 4u >= words.size()) return {};
  return words[offset / 4u];
}

const PmuEventInfo* find_pmu_event(uint16_t hw_id, RegisterMap map) {
  for (const auto& e : kPmuEvents)
    if (e.hw_id == hw_id && e.in(map)) return &e;
  return nullptr;
}

const PmuEventInfo* find_pmu_event(std::string_view name, RegisterMap map) {
  for (const auto& e : kPmuEvents)
    if (e.name == name && e.in(map)) return &e;
  return nullptr;
}

const PmuEventInfo* find_pmu_event_by_driver_index(uint16_t index, RegisterMap map) {
  for (const auto& e : kPmuEvents)
    if (e.driver_index[static_cast<size_t>(map)] == index && e.in(map)) return &e;
  return nullptr;
}

}  // namespace ethosu::isa
