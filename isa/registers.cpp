#include "isa/registers.h"

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

const RegisterInfo* find_register(uint16_t offset, unsigned* index) {
  for (const auto& ri : kRegisters) {
    const unsigned span = ri.count * ri.stride();
    if (offset >= ri.offset && offset < ri.offset + span) {
      if (index) *index = (offset - ri.offset) / ri.stride();
      return &ri;
    }
  }
  return nullptr;
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
