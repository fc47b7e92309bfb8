# Registers one GoogleTest program's tests with ctest, read by ctest itself before it runs
# (tests/CMakeLists.txt, pha_add_test, writes a file that sets the PHA_T_* variables below and
# includes this one). The program is asked for its tests (--gtest_list_tests) when it is newer
# than the list kept beside it, so a rebuilt program's new tests appear without reconfiguring.
#
# One ctest entry per GoogleTest suite ("Suite.*", or "Prefix/Suite.*" for a parameterised
# one), run as `<program> --gtest_filter=Suite.*`: every test of ours that links LibTorch pays
# its 0.4 s of start-up (Debian's libtorch_cpu registers its operators when it is loaded), and
# one process per test cost about 280 s of the README test command's 1,180 s of test time.
# Programs labelled slow or long (PHA_T_MODE tests) keep one entry per test, so that ctest
# runs their long cases side by side. Every entry runs through tests/run_gtest.sh, which
# turns "no test passed, some skipped" into exit code 77 (ctest's skipped).
#
# Inputs: PHA_T_NAME, PHA_T_EXE, PHA_T_MODE (suites | tests), PHA_T_PREFIX (put before each
# name, may be empty), PHA_T_LABELS, PHA_T_ENV, PHA_T_TIMEOUT, PHA_T_COST (may be empty),
# PHA_T_WORKDIR, PHA_T_RUNNER.
set(_pha_list "${PHA_T_WORKDIR}/${PHA_T_NAME}_gtest_list.txt")
if(NOT EXISTS "${PHA_T_EXE}")
  # Not built (a failed or partial build): one failing entry that says so, as CMake's own
  # GoogleTest module does.
  add_test("${PHA_T_NAME}_NOT_BUILT" "${PHA_T_NAME}_NOT_BUILT")
  return()
endif()
if(NOT EXISTS "${_pha_list}" OR "${PHA_T_EXE}" IS_NEWER_THAN "${_pha_list}")
  execute_process(COMMAND "${PHA_T_EXE}" --gtest_list_tests
                  WORKING_DIRECTORY "${PHA_T_WORKDIR}"
                  TIMEOUT 120
                  OUTPUT_VARIABLE _pha_out
                  ERROR_VARIABLE _pha_err
                  RESULT_VARIABLE _pha_rc)
  if(NOT _pha_rc EQUAL 0)
    message(WARNING "${PHA_T_EXE} --gtest_list_tests failed (${_pha_rc}): ${_pha_err}")
    add_test("${PHA_T_NAME}_NOT_LISTED" "${PHA_T_EXE}" --gtest_list_tests)
    return()
  endif()
  file(WRITE "${_pha_list}" "${_pha_out}")
endif()
file(READ "${_pha_list}" _pha_out)
# Comments ("  # GetParam() = ...") may hold brackets or semicolons, which a CMake list would
# not split around: drop them before splitting the lines.
string(REGEX REPLACE "[ ]+#[^\n]*" "" _pha_out "${_pha_out}")
string(REPLACE "\r" "" _pha_out "${_pha_out}")
string(REPLACE "\n" ";" _pha_lines "${_pha_out}")

set(_pha_names "")
set(_pha_suite "")
set(_pha_suite_tests 0)
macro(_pha_add name filter)
  add_test("${PHA_T_PREFIX}${name}" "${PHA_T_RUNNER}" "${PHA_T_EXE}" "--gtest_filter=${filter}")
  set_tests_properties("${PHA_T_PREFIX}${name}" PROPERTIES
    WORKING_DIRECTORY "${PHA_T_WORKDIR}"
    LABELS "${PHA_T_LABELS}"
    ENVIRONMENT "${PHA_T_ENV}"
    TIMEOUT "${PHA_T_TIMEOUT}"
    SKIP_RETURN_CODE 77)
  if(NOT PHA_T_COST STREQUAL "")
    set_tests_properties("${PHA_T_PREFIX}${name}" PROPERTIES COST "${PHA_T_COST}")
  endif()
endmacro()
macro(_pha_end_suite)
  if(PHA_T_MODE STREQUAL "suites" AND NOT _pha_suite STREQUAL "" AND _pha_suite_tests GREATER 0)
    _pha_add("${_pha_suite}.*" "${_pha_suite}.*")
  endif()
endmacro()
foreach(_pha_line IN LISTS _pha_lines)
  if(_pha_line MATCHES "^([A-Za-z_][A-Za-z0-9_/]*)\\.$")
    _pha_end_suite()
    set(_pha_suite "${CMAKE_MATCH_1}")
    set(_pha_suite_tests 0)
  elseif(_pha_line MATCHES "^  ([A-Za-z_][A-Za-z0-9_/]*)$" AND NOT _pha_suite STREQUAL "")
    set(_pha_test "${CMAKE_MATCH_1}")
    # DISABLED_ tests and suites are helpers run by name (the store's peer process), never
    # entries of their own.
    if(NOT _pha_test MATCHES "^DISABLED_" AND NOT _pha_suite MATCHES "(^|/)DISABLED_")
      math(EXPR _pha_suite_tests "${_pha_suite_tests} + 1")
      if(PHA_T_MODE STREQUAL "tests")
        _pha_add("${_pha_suite}.${_pha_test}" "${_pha_suite}.${_pha_test}")
      endif()
    endif()
  endif()
endforeach()
_pha_end_suite()
