# The public register maps (include/ethosu_sim/registers.h in the build tree, installed with the other public
# headers), written at configure time from the ISA's tables: isa/registers.def (offsets, widths, arrays, fields per map)
# and isa/pmu_events.def (PMU event ids). A change to either table reconfigures, so the header never disagrees
# with the model. Plain CMake, so that a cross build needs no program of its own run on the build machine.

set(register_map_sources ${PROJECT_SOURCE_DIR}/isa/registers.def ${PROJECT_SOURCE_DIR}/isa/pmu_events.def)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${register_map_sources})

# The lines of a table as a CMake list; ';' (in descriptions) travels as @SEMI@.
function(register_map_lines file out)
  file(READ ${file} text)
  string(REPLACE ";" "@SEMI@" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(body "")
set(body_u85 "")
register_map_lines(${PROJECT_SOURCE_DIR}/isa/registers.def lines)
set(hex "0x[0-9A-Fa-f]+")
set(placement "(ABSENT|${hex}), ([0-9]+), ([0-9]+), (${hex})")
foreach(line IN LISTS lines)
  # CMake's expressions have at most 9 groups: the placements are matched apart.
  if(line MATCHES "^ISA_REGISTER\\(([A-Z0-9_]+), ([A-Z]+), ([^\"]*), \"(.*)\"\\)$")
    set(name ${CMAKE_MATCH_1})
    set(access ${CMAKE_MATCH_2})
    set(placements ${CMAKE_MATCH_3})
    string(REPLACE "@SEMI@" ";" description "${CMAKE_MATCH_4}")
    if(NOT placements MATCHES "^${placement}, ${placement}$")
      message(FATAL_ERROR "cmake/register_map.cmake: cannot read the placements of ${name} in isa/registers.def")
    endif()
    set(in_u65 NO)
    set(in_u85 NO)
    if(NOT CMAKE_MATCH_1 STREQUAL "ABSENT")
      set(in_u65 YES)
      string(APPEND body "\n// ${name}: ${description}\n")
      string(APPEND body "inline constexpr Register ${name}{${CMAKE_MATCH_1}, ${CMAKE_MATCH_2}, ${CMAKE_MATCH_3}, Access::${access}, ${CMAKE_MATCH_4}};\n")
    endif()
    if(NOT CMAKE_MATCH_5 STREQUAL "ABSENT")
      set(in_u85 YES)
      string(APPEND body_u85 "\n// ${name}: ${description}\n")
      string(APPEND body_u85 "inline constexpr Register ${name}{${CMAKE_MATCH_5}, ${CMAKE_MATCH_6}, ${CMAKE_MATCH_7}, Access::${access}, ${CMAKE_MATCH_8}};\n")
    endif()
  elseif(line MATCHES "^ISA_REGISTER_FIELD\\(([A-Za-z0-9_]+), ([A-Za-z0-9_]+), ([0-9]+), ([0-9]+), (ALL|U65|U85)\\)")
    set(field "inline constexpr Field ${CMAKE_MATCH_1}_${CMAKE_MATCH_2}{${CMAKE_MATCH_3}, ${CMAKE_MATCH_4}};\n")
    if(NOT CMAKE_MATCH_5 STREQUAL "U85" AND in_u65)
      string(APPEND body "${field}")
    endif()
    if(NOT CMAKE_MATCH_5 STREQUAL "U65" AND in_u85)
      string(APPEND body_u85 "${field}")
    endif()
  elseif(line MATCHES "^ISA_REGISTER")
    message(FATAL_ERROR "cmake/register_map.cmake: cannot read this line of isa/registers.def:\n${line}")
  endif()
endforeach()

set(events "")
set(events_u85 "")
register_map_lines(${PROJECT_SOURCE_DIR}/isa/pmu_events.def lines)
foreach(line IN LISTS lines)
  if(line MATCHES "^ISA_PMU_EVENT\\(([A-Z0-9_]+), (${hex}), (ABSENT|[0-9]+), (ABSENT|[0-9]+), \"(.*)\"\\)$")
    string(REPLACE "@SEMI@" ";" description "${CMAKE_MATCH_5}")
    set(event "inline constexpr uint16_t ${CMAKE_MATCH_1} = ${CMAKE_MATCH_2};  // ${description}\n")
    if(NOT CMAKE_MATCH_3 STREQUAL "ABSENT")
      string(APPEND events "${event}")
    endif()
    if(NOT CMAKE_MATCH_4 STREQUAL "ABSENT")
      string(APPEND events_u85 "${event}")
    endif()
  elseif(line MATCHES "^ISA_PMU_EVENT")
    message(FATAL_ERROR "cmake/register_map.cmake: cannot read this line of isa/pmu_events.def:\n${line}")
  endif()
endforeach()

file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/include/ethosu_sim/registers.h CONTENT [=[
// The Ethos-U NPU's APB register map, for driver models in a platform of one's own: every register's offset, width,
// array size, access and reset value, every field's position, and the PMU event ids PMEVTYPERn takes. Part of the
// public API (include/ethosu_sim); generated from the simulator's own ISA tables (isa/registers.def,
// isa/pmu_events.def) when the library is configured, so it is the map the model decodes. Do not edit.
//
// Names are the programmer's model's. Register::at(n) is element n of an array (BASEP, PMEVCNTR, PMEVTYPER,
// SHARED_BUFFER); a 64-bit register's high word is at offset + 4. Field names are REGISTER_field, as
// STATUS_irq_raised; get() and set() work on a register's value. ethosu_sim::regs is the map of the Ethos-U65,
// which the U55 shares; ethosu_sim::regs::u85 the Ethos-U85's (its PMU and debug status 0x1000 up, 8 event
// counters, MEM_ATTR and AXI_SRAM/AXI_EXT instead of AXI_LIMIT). Likewise pmu_event and pmu_event::u85, whose ids
// the U85 partly gives new names and meanings. No SystemC.
#pragma once

#include <cstdint>

namespace ethosu_sim::regs {

enum class Access : uint8_t { RO, RW };

struct Register {
  uint32_t offset;
  uint32_t width_bits;  // 32 or 64
  uint32_t count;       // 1, or the elements of an array at width_bits / 8 apart
  Access access;
  uint64_t reset;
  constexpr uint32_t at(uint32_t n) const { return offset + n * (width_bits / 8); }
  constexpr operator uint32_t() const { return offset; }
};

struct Field {
  uint32_t lsb, width;
  constexpr uint64_t mask() const { return (width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1) << lsb; }
  constexpr uint64_t get(uint64_t value) const { return (value & mask()) >> lsb; }
  constexpr uint64_t set(uint64_t value, uint64_t field) const { return (value & ~mask()) | ((field << lsb) & mask()); }
};
@body@
namespace u85 {
@body_u85@
}  // namespace u85

}  // namespace ethosu_sim::regs

// PMU event ids, the values PMEVTYPERn takes (as Arm's pmu_ethosu.h numbers them).
namespace ethosu_sim::pmu_event {

@events@
namespace u85 {

@events_u85@
}  // namespace u85

}  // namespace ethosu_sim::pmu_event
]=] @ONLY)
