# Checks that the ASC driver runs and finds the kernel API headers (a full
# test compile would cost every configure a kernel_operator.h build; the
# driver is the host C++ compiler CMake has just checked for CXX).
if(NOT CMAKE_ASC_COMPILER_WORKS)
  message(CHECK_START "Check for working ASC compiler: ${CMAKE_ASC_COMPILER}")
  execute_process(COMMAND "${CMAKE_ASC_COMPILER}" --print-include-dir
    RESULT_VARIABLE _asc_rc OUTPUT_VARIABLE _asc_inc ERROR_VARIABLE _asc_err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _asc_rc EQUAL 0 OR NOT EXISTS "${_asc_inc}/kernel_operator.h")
    message(CHECK_FAIL "broken")
    message(FATAL_ERROR "ASC: the compiler driver ${CMAKE_ASC_COMPILER} does not run or finds no "
      "kernel_operator.h (exit ${_asc_rc}, include dir '${_asc_inc}'):\n${_asc_err}")
  endif()
  message(CHECK_PASS "works")
  set(CMAKE_ASC_COMPILER_WORKS TRUE CACHE INTERNAL "")
endif()
