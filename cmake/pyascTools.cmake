# Build Ascend C sources against the installed pyasc (included by pyascConfig.cmake).
#
#   find_package(pyasc CONFIG REQUIRED)
#   asc_add_executable(add_custom add_custom.asc)
#   asc_add_library(my_ops SHARED [TRANSLATE_CPP] kernels.asc host.cpp)
#
# `.asc` sources (and, with TRANSLATE_CPP, .cpp/.cc/.cxx sources) are
# translated into C++ at build time by pyasc's translator (the
# `kernel<<<blockDim, l2ctrl, stream>>>(args...)` launch syntax; `#line`
# directives keep diagnostics on the original file and line) and compiled as
# C++17. Editing a source re-translates it; its includes are tracked by the
# compiler as usual. The target links pyasc::asc (with an rpath to libasc)
# and is otherwise an ordinary target (add definitions, includes, ...).
#
# asc_add_library takes STATIC, SHARED or MODULE (default: CMake's default).
# The translator runs under a Python 3 interpreter: Python3_EXECUTABLE or
# Python_EXECUTABLE when set, otherwise the one find_package(Python3) finds.

# The translator is installed next to this file (a copy of pyasc/tools/asc_translate.py).
set(_PYASC_TRANSLATOR "${CMAKE_CURRENT_LIST_DIR}/asc_translate.py")

function(_asc_python out)
  if(Python3_EXECUTABLE)
    set(${out} "${Python3_EXECUTABLE}" PARENT_SCOPE)
  elseif(Python_EXECUTABLE)
    set(${out} "${Python_EXECUTABLE}" PARENT_SCOPE)
  else()
    find_package(Python3 COMPONENTS Interpreter QUIET)
    if(NOT Python3_Interpreter_FOUND)
      message(FATAL_ERROR "pyasc: asc_add_* needs a Python 3 interpreter (set Python3_EXECUTABLE)")
    endif()
    set(${out} "${Python3_EXECUTABLE}" PARENT_SCOPE)
  endif()
endfunction()

# _asc_translate_sources(<target> <out-var> <translate-cpp> sources...)
function(_asc_translate_sources target out translate_cpp)
  if(NOT EXISTS "${_PYASC_TRANSLATOR}")
    message(FATAL_ERROR "pyasc: the translator ${_PYASC_TRANSLATOR} is missing (reinstall pyasc)")
  endif()
  _asc_python(_py)
  set(_result)
  foreach(src IN LISTS ARGN)
    get_filename_component(_abs "${src}" ABSOLUTE)
    get_filename_component(_ext "${src}" LAST_EXT)
    set(_do FALSE)
    if(_ext STREQUAL ".asc")
      set(_do TRUE)
    elseif(translate_cpp AND _ext MATCHES "^\\.(cpp|cc|cxx|c\\+\\+|C)$")
      set(_do TRUE)
    endif()
    if(_do)
      file(RELATIVE_PATH _rel "${CMAKE_CURRENT_SOURCE_DIR}" "${_abs}")
      string(REPLACE ".." "__" _rel "${_rel}")
      set(_gen "${CMAKE_CURRENT_BINARY_DIR}/asc_gen/${target}/${_rel}.cpp")
      get_filename_component(_dir "${_abs}" DIRECTORY)
      add_custom_command(
        OUTPUT "${_gen}"
        COMMAND "${_py}" "${_PYASC_TRANSLATOR}" "${_abs}" "${_gen}"
        DEPENDS "${_abs}" "${_PYASC_TRANSLATOR}"
        COMMENT "Translating Ascend C source ${src}"
        VERBATIM)
      # "file.h" includes resolve against the original file's directory.
      set_source_files_properties("${_gen}" PROPERTIES GENERATED TRUE COMPILE_OPTIONS "-iquote;${_dir}")
      list(APPEND _result "${_gen}")
    else()
      list(APPEND _result "${src}")
    endif()
  endforeach()
  set(${out} "${_result}" PARENT_SCOPE)
endfunction()

function(_asc_setup_target name)
  target_link_libraries(${name} PRIVATE pyasc::asc)
  target_compile_features(${name} PRIVATE cxx_std_17)
  # Find libasc inside the installed pyasc package at run time.
  get_target_property(_lib pyasc::asc IMPORTED_LOCATION_RELEASE)
  if(NOT _lib)
    get_target_property(_lib pyasc::asc IMPORTED_LOCATION_NONE)
  endif()
  if(NOT _lib)
    get_target_property(_lib pyasc::asc IMPORTED_LOCATION)
  endif()
  if(_lib)
    get_filename_component(_libdir "${_lib}" DIRECTORY)
    set_property(TARGET ${name} APPEND PROPERTY BUILD_RPATH "${_libdir}")
    set_property(TARGET ${name} APPEND PROPERTY INSTALL_RPATH "${_libdir}")
  endif()
endfunction()

# asc_add_executable(<name> [TRANSLATE_CPP] sources...)
function(asc_add_executable name)
  cmake_parse_arguments(ARG "TRANSLATE_CPP" "" "" ${ARGN})
  if(NOT ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "asc_add_executable(${name}): no sources")
  endif()
  _asc_translate_sources(${name} _srcs "${ARG_TRANSLATE_CPP}" ${ARG_UNPARSED_ARGUMENTS})
  add_executable(${name} ${_srcs})
  _asc_setup_target(${name})
endfunction()

# asc_add_library(<name> [STATIC|SHARED|MODULE] [TRANSLATE_CPP] sources...)
function(asc_add_library name)
  cmake_parse_arguments(ARG "STATIC;SHARED;MODULE;TRANSLATE_CPP" "" "" ${ARGN})
  set(_kind)
  foreach(k STATIC SHARED MODULE)
    if(ARG_${k})
      if(_kind)
        message(FATAL_ERROR "asc_add_library(${name}): give one of STATIC, SHARED, MODULE")
      endif()
      set(_kind ${k})
    endif()
  endforeach()
  if(NOT ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "asc_add_library(${name}): no sources")
  endif()
  _asc_translate_sources(${name} _srcs "${ARG_TRANSLATE_CPP}" ${ARG_UNPARSED_ARGUMENTS})
  add_library(${name} ${_kind} ${_srcs})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  _asc_setup_target(${name})
endfunction()
