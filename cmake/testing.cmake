# ethosu_unit_test(NAME LIBS...): tests/unit/NAME.cpp as one GoogleTest program with label `unit`.
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

function(ethosu_unit_test name)
  if(NOT ETHOSU_SIM_TESTS)
    return()
  endif()
  add_executable(${name} ${PROJECT_SOURCE_DIR}/tests/unit/${name}.cpp)
  target_link_libraries(${name} PRIVATE ${ARGN} GTest::gtest_main)
  ethosu_test_code(${name})
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
  target_link_libraries(${name} PRIVATE ${ARGN} GTest::gtest_main)
  ethosu_test_code(${name})
  gtest_discover_tests(${name} PROPERTIES LABELS corpus DISCOVERY_TIMEOUT 120)
endfunction()
