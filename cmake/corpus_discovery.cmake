# Run by ctest (TEST_INCLUDE_FILES) for one corpus suite program: lists its tests and registers one ctest test per
# source case (a case's every configuration and every check in one process), where GoogleTest's own discovery
# registers one per check per compilation: several thousand processes, each loading its case again, which is most
# of the corpus suites' time (a multiple of it under the sanitizers). A test that is not parameterized by a case is
# registered alone. The list is kept until the program or $ETHOSU_SIM_SHARED_DIR changes.
#
# Expects: program (the executable), suite (its name), list_file (where to keep the list), timeout (seconds). The
# work is a function so that one suite's groups do not leak into the next suite's (ctest includes them in one scope).

function(ethosu_discover_corpus_suite)
  set(key "${program}|$ENV{ETHOSU_SIM_SHARED_DIR}")
  if(EXISTS "${program}")
    file(TIMESTAMP "${program}" built "%Y%m%d%H%M%S" UTC)
    string(APPEND key "|${built}")
  endif()
  if(EXISTS "${list_file}")
    file(STRINGS "${list_file}" first LIMIT_COUNT 1)
    if(first STREQUAL "# ${key}")
      include("${list_file}")
      return()
    endif()
  endif()

  execute_process(COMMAND "${program}" --gtest_list_tests OUTPUT_VARIABLE listing ERROR_VARIABLE errors
                  RESULT_VARIABLE status TIMEOUT 120)
  if(NOT status EQUAL 0)
    # A program that cannot list its tests fails as one test that says so, rather than vanishing from the run.
    add_test("${suite}_NOT_LISTED" "${CMAKE_COMMAND}" -E echo "${program} --gtest_list_tests failed: ${status} ${errors}")
    set_tests_properties("${suite}_NOT_LISTED" PROPERTIES LABELS corpus WILL_FAIL TRUE)
    return()
  endif()

  string(REPLACE "\n" ";" lines "${listing}")
  set(groups)
  set(test_suite)
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ #][^ ]*)\\.")
      set(test_suite "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^  ([^ ]+)( +# GetParam\\(\\) = (.*))?$")
      set(name "${test_suite}.${CMAKE_MATCH_1}")
      if(CMAKE_MATCH_2)
        # The case in the parameter (a path, quoted or not, absolute or under the data folder):
        # .../corpus-u85/add_i8/ethos-u85-128 -> corpus-u85/add_i8; .../corpus/kws/u65_512 -> corpus/kws.
        string(REGEX MATCH "(opcorpus|corpus(-[a-z0-9]+)?)/[^/\"]+" group "${CMAKE_MATCH_3}")
        if(group STREQUAL "")
          set(group "no-data")
        endif()
      else()
        set(group "${name}")
      endif()
      string(MAKE_C_IDENTIFIER "${group}" id)
      if(NOT DEFINED "members_${id}")
        list(APPEND groups "${group}")
        set("members_${id}" "${name}")
      else()
        string(APPEND "members_${id}" ":${name}")
      endif()
    endif()
  endforeach()

  set(out "# ${key}\n")
  foreach(group IN LISTS groups)
    string(MAKE_C_IDENTIFIER "${group}" id)
    set(test "${suite}:${group}")
    string(APPEND out "add_test([==[${test}]==] [==[${program}]==] [==[--gtest_filter=${members_${id}}]==])\n"
           "set_tests_properties([==[${test}]==] PROPERTIES LABELS corpus SKIP_RETURN_CODE 77 TIMEOUT ${timeout})\n")
  endforeach()
  file(WRITE "${list_file}" "${out}")
  include("${list_file}")
endfunction()
ethosu_discover_corpus_suite()
