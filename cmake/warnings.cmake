# Project-wide warning and sanitizer flags, applied to every target through this interface library.
add_library(ethosu_sim_flags INTERFACE)
target_compile_options(ethosu_sim_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(ETHOSU_SIM_WERROR)
  target_compile_options(ethosu_sim_flags INTERFACE -Werror)
endif()
if(ETHOSU_SIM_SANITIZERS)
  target_compile_options(ethosu_sim_flags INTERFACE -fsanitize=address,undefined -fno-sanitize-recover=undefined
                         -fno-omit-frame-pointer)
  target_link_options(ethosu_sim_flags INTERFACE -fsanitize=address,undefined)
endif()
if(ETHOSU_SIM_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ETHOSU_SIM_FUZZERS needs clang (configure with CXX=clang++)")
  endif()
  # Coverage for libFuzzer everywhere but in test programs (ethosu_test_code): only fuzz targets use it. Left out
  # here rather than removed there: a -fno-sanitize before this -fsanitize on the command line would not count.
  target_compile_options(ethosu_sim_flags INTERFACE
    $<$<NOT:$<BOOL:$<TARGET_PROPERTY:ETHOSU_SIM_TEST_CODE>>>:-fsanitize=fuzzer-no-link>
    -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(ethosu_sim_flags INTERFACE -fsanitize=address,undefined)
endif()
