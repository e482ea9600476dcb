# ethosu_unit_test(NAME LIBS...): tests/unit/NAME.cpp as one GoogleTest program with label `unit`.
# Defined at the top so that each part of the tree registers its own unit tests.
if(ETHOSU_SIM_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()

function(ethosu_unit_test name)
  if(NOT ETHOSU_SIM_TESTS)
    return()
  endif()
  add_executable(${name} ${PROJECT_SOURCE_DIR}/tests/unit/${name}.cpp)
  target_link_libraries(${name} PRIVATE ${ARGN} GTest::gtest_main)
  gtest_discover_tests(${name} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
endfunction()
