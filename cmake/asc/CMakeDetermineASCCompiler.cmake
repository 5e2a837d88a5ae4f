# project(... LANGUAGES ASC): finds the ASC compiler driver (pyasc-cc of the
# installed pyasc, through the wrapper in the CANN home's bin/) and records it.
if(NOT CMAKE_ASC_COMPILER)
  if(DEFINED ENV{ASC} AND NOT "$ENV{ASC}" STREQUAL "")
    set(CMAKE_ASC_COMPILER "$ENV{ASC}")
  elseif(ASC_HOME AND EXISTS "${ASC_HOME}/bin/asc-cc")
    set(CMAKE_ASC_COMPILER "${ASC_HOME}/bin/asc-cc")
  else()
    find_program(CMAKE_ASC_COMPILER NAMES asc-cc pyasc-cc)
  endif()
endif()
if(NOT CMAKE_ASC_COMPILER)
  message(FATAL_ERROR "ASC: no compiler driver found: call find_package(ASC REQUIRED) first "
    "(source the set_env.sh of `pyasc-info --cann-home`) or set CMAKE_ASC_COMPILER")
endif()
mark_as_advanced(CMAKE_ASC_COMPILER)
set(CMAKE_ASC_COMPILER_ID "PYASC")
set(CMAKE_ASC_COMPILER_ENV_VAR "ASC")
configure_file("${CMAKE_CURRENT_LIST_DIR}/CMakeASCCompiler.cmake.in"
  "${CMAKE_PLATFORM_INFO_DIR}/CMakeASCCompiler.cmake" @ONLY)
