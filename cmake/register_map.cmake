# The public register map (include/ethosu_sim/registers.h in the build tree, installed with the other public
# headers), written at configure time from the ISA's tables: isa/registers.def (offsets, widths, arrays, fields)
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
register_map_lines(${PROJECT_SOURCE_DIR}/isa/registers.def lines)
foreach(line IN LISTS lines)
  if(line MATCHES "^ISA_REGISTER\\(([A-Z0-9_]+), (0x[0-9A-Fa-f]+), ([0-9]+), ([0-9]+), ([A-Z]+), (0x[0-9A-Fa-f]+), \"(.*)\"\\)$")
    set(name ${CMAKE_MATCH_1})
    set(offset ${CMAKE_MATCH_2})
    set(width ${CMAKE_MATCH_3})
    set(count ${CMAKE_MATCH_4})
    set(access ${CMAKE_MATCH_5})
    set(reset ${CMAKE_MATCH_6})
    string(REPLACE "@SEMI@" ";" description "${CMAKE_MATCH_7}")
    string(APPEND body "\n// ${name}: ${description}\n")
    string(APPEND body "inline constexpr Register ${name}{${offset}, ${width}, ${count}, Access::${access}, ${reset}};\n")
  elseif(line MATCHES "^ISA_REGISTER_FIELD\\(([A-Za-z0-9_]+), ([A-Za-z0-9_]+), ([0-9]+), ([0-9]+)\\)")
    string(APPEND body "inline constexpr Field ${CMAKE_MATCH_1}_${CMAKE_MATCH_2}{${CMAKE_MATCH_3}, ${CMAKE_MATCH_4}};\n")
  elseif(line MATCHES "^ISA_REGISTER")
    message(FATAL_ERROR "cmake/register_map.cmake: cannot read this line of isa/registers.def:\n${line}")
  endif()
endforeach()

set(events "")
register_map_lines(${PROJECT_SOURCE_DIR}/isa/pmu_events.def lines)
foreach(line IN LISTS lines)
  if(line MATCHES "^ISA_PMU_EVENT\\(([A-Z0-9_]+), (0x[0-9A-Fa-f]+), ([0-9]+), \"(.*)\"\\)$")
    string(REPLACE "@SEMI@" ";" description "${CMAKE_MATCH_4}")
    string(APPEND events "inline constexpr uint16_t ${CMAKE_MATCH_1} = ${CMAKE_MATCH_2};  // ${description}\n")
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
// STATUS_irq_raised; get() and set() work on a register's value. Offsets are those of the Ethos-U65; the U55
// uses the same map. No SystemC.
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
}  // namespace ethosu_sim::regs

// PMU event ids, the values PMEVTYPERn takes (as Arm's pmu_ethosu.h numbers them).
namespace ethosu_sim::pmu_event {

@events@
}  // namespace ethosu_sim::pmu_event
]=] @ONLY)
