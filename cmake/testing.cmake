# ethosu_unit_test(NAME LIBS...): NAME.cpp as one GoogleTest program with label `unit`: a hardware block's test
# beside the block (the calling folder), any other in tests/unit.
# Defined at the top so that each part of the tree registers its own unit tests.
if(ETHOSU_SIM_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

# ethosu_test_code(TARGET): flags for a program that only tests. It is compiled without optimisation (the code
# under test keeps its library's flags, and most of a test's compile time is the optimiser working on GoogleTest's
# expansions) and, in fuzzer builds, without libFuzzer's coverage instrumentation, which only fuzz targets use.
function(ethosu_test_code target)
  target_compile_options(${target} PRIVATE -O0)
  set_target_properties(${target} PROPERTIES ETHOSU_SIM_TEST_CODE ON)  # no fuzzer coverage (cmake/warnings.cmake)
endfunction()

# Precompiled headers for the test programs (ETHOSU_SIM_TEST_PCH): at -O0, parsing GoogleTest, nlohmann/json and
# SystemC/TLM is about 40 % of a test program's compile time. The first test program of each kind precompiles
# the headers, the others reuse its PCH: they are compiled with the same flags, but for the corpus suites' data
# folder (a macro the headers do not use) and include folder, which neither GCC nor clang hold against a PCH.
# Programs that link SystemC get its headers too; the others cannot, since SystemC's headers leave a reference to
# the library in every translation unit. The kind is decided once every target exists
# (ethosu_test_precompiled_headers, deferred to the end of the top directory).
set(ethosu_test_pch_headers <gtest/gtest.h> <nlohmann/json.hpp> <filesystem> <fstream> <random>)
set(ethosu_test_pch_systemc_headers <systemc> <tlm> <tlm_utils/simple_initiator_socket.h>
    <tlm_utils/simple_target_socket.h>)

# ethosu_links_systemc(TARGET RESULT): whether TARGET links SystemC, directly or through its libraries.
function(ethosu_links_systemc target result)
  set(pending ${target})
  set(seen)
  while(pending)
    list(POP_FRONT pending current)
    if(current IN_LIST seen OR NOT TARGET ${current})
      continue()
    endif()
    list(APPEND seen ${current})
    if(current STREQUAL "PkgConfig::SYSTEMC")
      set(${result} TRUE PARENT_SCOPE)
      return()
    endif()
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libraries ${current} ${property})
      if(libraries)
        string(REGEX REPLACE "\\$<LINK_ONLY:([^>]*)>" "\\1" libraries "${libraries}")
        list(APPEND pending ${libraries})
      endif()
    endforeach()
  endwhile()
  set(${result} FALSE PARENT_SCOPE)
endfunction()

function(ethosu_test_precompiled_headers)
  if(NOT ETHOSU_SIM_TEST_PCH)
    return()
  endif()
  get_property(programs GLOBAL PROPERTY ethosu_test_programs)
  set(anchor_plain)
  set(anchor_systemc)
  foreach(program IN LISTS programs)
    ethosu_links_systemc(${program} systemc)
    if(systemc)
      set(kind systemc)
      set(headers ${ethosu_test_pch_headers} ${ethosu_test_pch_systemc_headers})
    else()
      set(kind plain)
      set(headers ${ethosu_test_pch_headers})
    endif()
    if(anchor_${kind})
      target_precompile_headers(${program} REUSE_FROM ${anchor_${kind}})
    else()
      target_precompile_headers(${program} PRIVATE ${headers})
      set(anchor_${kind} ${program})
    endif()
  endforeach()
endfunction()
if(ETHOSU_SIM_TESTS)
  cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL ethosu_test_precompiled_headers)
endif()

function(ethosu_unit_test name)
  if(NOT ETHOSU_SIM_TESTS)
    return()
  endif()
  set(source ${CMAKE_CURRENT_SOURCE_DIR}/${name}.cpp)
  if(NOT EXISTS ${source})
    set(source ${PROJECT_SOURCE_DIR}/tests/unit/${name}.cpp)
  endif()
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ${ARGN} GTest::gtest_main)
  ethosu_test_code(${name})
  set_property(GLOBAL APPEND PROPERTY ethosu_test_programs ${name})
  gtest_discover_tests(${name} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
endfunction()

# ethosu_robustness_test(NAME LIBS...): a unit test that is also a reproducer of hostile input: its cases are
# discovered under label `unit`, and the whole program runs once more as one test under label `robustness`.
function(ethosu_robustness_test name)
  if(NOT ETHOSU_SIM_TESTS)
    return()
  endif()
  ethosu_unit_test(${name} ${ARGN})
  add_test(NAME robustness_${name} COMMAND ${name})
  set_tests_properties(robustness_${name} PROPERTIES LABELS robustness)
endfunction()

# ethosu_corpus_test(NAME LIBS...): tests/corpus/NAME.cpp, label `corpus`, reading the data from
# $ETHOSU_SIM_SHARED_DIR or the ETHOSU_SIM_SHARED_DIR cache variable; skips when the data is absent.
function(ethosu_corpus_test name)
  if(NOT ETHOSU_SIM_TESTS)
    return()
  endif()
  add_executable(${name} ${PROJECT_SOURCE_DIR}/tests/corpus/${name}.cpp)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${name} PRIVATE ETHOSU_SIM_SHARED_DIR_DEFAULT="${ETHOSU_SIM_SHARED_DIR}")
  if(NOT TARGET ethosu_corpus_main)
    add_library(ethosu_corpus_main STATIC ${PROJECT_SOURCE_DIR}/tests/corpus/corpus_main.cpp)
    target_link_libraries(ethosu_corpus_main PUBLIC GTest::gtest)
  endif()
  target_link_libraries(${name} PRIVATE ${ARGN} ethosu_corpus_main)
  ethosu_test_code(${name})
  set_property(GLOBAL APPEND PROPERTY ethosu_test_programs ${name})
  # The cases are listed when ctest runs (not when the program is built), so that $ETHOSU_SIM_SHARED_DIR may be
  # set for ctest alone; one ctest test per source case (cmake/corpus_discovery.cmake).
  string(CONCAT include "set(program [==[$<TARGET_FILE:${name}>]==])\nset(suite ${name})\n"
         "set(list_file [==[${CMAKE_CURRENT_BINARY_DIR}/${name}_tests.cmake]==])\nset(timeout 1500)\n"
         "include([==[${PROJECT_SOURCE_DIR}/cmake/corpus_discovery.cmake]==])\n")
  file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${name}_include.cmake" CONTENT "${include}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${CMAKE_CURRENT_BINARY_DIR}/${name}_include.cmake")
endfunction()

# ETHOSU_SIM_CLI: the command that test scripts run as ethosu-sim. In a cross build (cmake/aarch64-linux-gnu.cmake)
# a shell cannot execute the program, so they get a wrapper that runs it through CMAKE_CROSSCOMPILING_EMULATOR.
if(CMAKE_CROSSCOMPILING_EMULATOR)
  list(JOIN CMAKE_CROSSCOMPILING_EMULATOR "\" \"" ethosu_emulator)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/ethosu-sim-emulated
       CONTENT "#!/bin/sh\nexec \"${ethosu_emulator}\" \"$<TARGET_FILE:ethosu-sim>\" \"$@\"\n"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(ETHOSU_SIM_CLI ${PROJECT_BINARY_DIR}/ethosu-sim-emulated)
else()
  set(ETHOSU_SIM_CLI $<TARGET_FILE:ethosu-sim>)
endif()
