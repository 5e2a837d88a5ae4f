# The ascendc_* helper functions of CANN's ASC package, over ordinary targets.
#
#   ascendc_library(<name> [STATIC|SHARED|OBJECT] sources...)
#   ascendc_compile_definitions(<target> <PRIVATE|PUBLIC|INTERFACE> defs...)
#   ascendc_compile_options(<target> <PRIVATE|PUBLIC|INTERFACE> opts...)
#   ascendc_include_directories(<target> <PRIVATE|PUBLIC|INTERFACE> dirs...)
# .asc sources are compiled as the ASC language (enable it with project(... ASC)).
function(ascendc_library name)
  set(kind)
  set(srcs ${ARGN})
  if(ARGC GREATER 1)
    list(GET srcs 0 first)
    if(first MATCHES "^(STATIC|SHARED|OBJECT|MODULE)$")
      set(kind ${first})
      list(REMOVE_AT srcs 0)
    endif()
  endif()
  if(NOT srcs)
    message(FATAL_ERROR "ascendc_library(${name}): no sources")
  endif()
  add_library(${name} ${kind} ${srcs})
  if(kind STREQUAL "SHARED" OR kind STREQUAL "MODULE")
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
endfunction()

function(ascendc_compile_definitions target)
  target_compile_definitions(${target} ${ARGN})
endfunction()

function(ascendc_compile_options target)
  target_compile_options(${target} ${ARGN})
endfunction()

function(ascendc_include_directories target)
  target_include_directories(${target} ${ARGN})
endfunction()

# CANN library names the samples link: libasc has what pyasc implements of
# them. The ASC driver links libasc anyway; the targets also carry pyasc's
# headers and libasc so that plain C++ targets (a host main.cpp, a CXX-only
# project) that link them get acl/acl.h and the runtime, as with CANN's.
get_filename_component(_asc_pkg "${ASC_HOME}/.." ABSOLUTE)
foreach(_asc_lib tiling_api register platform unified_dlog ascendcl acl_rt acl_rtc nnopbase
        acl_op_executor acl_mdl runtime graph graph_base c_sec mmpa error_manager ascendalog)
  if(NOT TARGET ${_asc_lib})
    add_library(${_asc_lib} INTERFACE IMPORTED)
    if(EXISTS "${_asc_pkg}/include/acl/acl.h")
      set_target_properties(${_asc_lib} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_asc_pkg}/include")
    endif()
    if(EXISTS "${_asc_pkg}/lib/libasc.so")
      set_target_properties(${_asc_lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${_asc_pkg}/lib/libasc.so")
    endif()
  endif()
endforeach()
unset(_asc_lib)
unset(_asc_pkg)
