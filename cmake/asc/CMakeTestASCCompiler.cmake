# Checks that the ASC driver compiles and links a kernel with a launch.
if(NOT CMAKE_ASC_COMPILER_WORKS)
  set(_asc_dir "${CMAKE_BINARY_DIR}${CMAKE_FILES_DIRECTORY}/CMakeScratch/ASCTest")
  file(MAKE_DIRECTORY "${_asc_dir}")
  file(WRITE "${_asc_dir}/test.asc" [=[
#include "kernel_operator.h"
__global__ __aicore__ void asc_probe(GM_ADDR x) { (void)x; }
int main() { return 0; }
]=])
  message(CHECK_START "Check for working ASC compiler: ${CMAKE_ASC_COMPILER}")
  execute_process(COMMAND "${CMAKE_ASC_COMPILER}" "${_asc_dir}/test.asc" -o "${_asc_dir}/test"
    RESULT_VARIABLE _asc_rc OUTPUT_VARIABLE _asc_out ERROR_VARIABLE _asc_out)
  if(NOT _asc_rc EQUAL 0)
    message(CHECK_FAIL "broken")
    message(FATAL_ERROR "ASC: the compiler driver ${CMAKE_ASC_COMPILER} cannot build a test kernel "
      "(exit ${_asc_rc}):\n${_asc_out}")
  endif()
  message(CHECK_PASS "works")
  set(CMAKE_ASC_COMPILER_WORKS TRUE CACHE INTERNAL "")
endif()
