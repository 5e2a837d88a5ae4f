# Rules of the ASC language: .asc sources go through pyasc's driver (asc-cc ->
# pyasc-cc: translation of the <<<>>> launches, then the host C++ compiler).
include(CMakeCommonLanguageInclude)

# Run mode: only `cpu` runs here; CANN's default is npu.
if(NOT DEFINED CMAKE_ASC_RUN_MODE OR CMAKE_ASC_RUN_MODE STREQUAL "")
  set(_asc_mode npu)
else()
  set(_asc_mode "${CMAKE_ASC_RUN_MODE}")
endif()
if(_asc_mode STREQUAL "npu")
  message(FATAL_ERROR "ASC: CMAKE_ASC_RUN_MODE=npu needs an Ascend NPU and CANN's runtime; pyasc runs Ascend C "
    "on the CPU only: configure with -DCMAKE_ASC_RUN_MODE=cpu (after `rm CMakeCache.txt`)")
elseif(_asc_mode STREQUAL "sim")
  message(FATAL_ERROR "ASC: CMAKE_ASC_RUN_MODE=sim needs the CANN simulator, which pyasc does not provide: "
    "configure with -DCMAKE_ASC_RUN_MODE=cpu (after `rm CMakeCache.txt`)")
elseif(NOT _asc_mode STREQUAL "cpu")
  message(FATAL_ERROR "ASC: CMAKE_ASC_RUN_MODE='${_asc_mode}' is not one of cpu, npu, sim")
endif()

if(NOT CMAKE_ASC_ARCHITECTURES)
  set(CMAKE_ASC_ARCHITECTURES "dav-2201")
endif()
if(NOT COMMAND _asc_arch_constants)
  include("${CMAKE_CURRENT_LIST_DIR}/asc_arch.cmake")
endif()
_asc_arch_constants("${CMAKE_ASC_ARCHITECTURES}" ASC)

set(CMAKE_ASC_OUTPUT_EXTENSION .o)
set(CMAKE_INCLUDE_FLAG_ASC "-I")
set(CMAKE_INCLUDE_SYSTEM_FLAG_ASC "-isystem ")
set(CMAKE_ASC_COMPILE_OPTIONS_PIC "-fPIC")
set(CMAKE_SHARED_LIBRARY_ASC_FLAGS "-fPIC")
set(CMAKE_SHARED_LIBRARY_CREATE_ASC_FLAGS "-shared")
set(CMAKE_SHARED_LIBRARY_SONAME_ASC_FLAG "-Wl,-soname,")
set(CMAKE_EXECUTABLE_RUNTIME_ASC_FLAG "-Wl,-rpath,")
set(CMAKE_EXECUTABLE_RUNTIME_ASC_FLAG_SEP ":")
set(CMAKE_SHARED_LIBRARY_RUNTIME_ASC_FLAG "-Wl,-rpath,")
set(CMAKE_SHARED_LIBRARY_RUNTIME_ASC_FLAG_SEP ":")
set(CMAKE_ASC_FLAGS_DEBUG_INIT "-O0 -g")
set(CMAKE_ASC_FLAGS_RELEASE_INIT "-O3 -DNDEBUG")
set(CMAKE_ASC_FLAGS_RELWITHDEBINFO_INIT "-O2 -g -DNDEBUG")
set(CMAKE_ASC_FLAGS_MINSIZEREL_INIT "-Os -DNDEBUG")
set(CMAKE_ASC_FLAGS_INIT "$ENV{ASCFLAGS} ${CMAKE_ASC_FLAGS_INIT}")
cmake_initialize_per_config_variable(CMAKE_ASC_FLAGS "Flags used by the ASC compiler")

# The CPU run mode as CANN's: ASCENDC_CPU_DEBUG, and the architecture's
# __NPU_ARCH__ (the driver's --npu-arch also sets it; a target's own
# --npu-arch= option comes later on the command line and wins).
set(_ASC_MODE_FLAGS "-DASCENDC_CPU_DEBUG=1 --npu-arch=${CMAKE_ASC_ARCHITECTURES}")

set(CMAKE_ASC_COMPILE_OBJECT
  "<CMAKE_ASC_COMPILER> ${_ASC_MODE_FLAGS} <DEFINES> <INCLUDES> <FLAGS> -o <OBJECT> -c <SOURCE>")
set(CMAKE_ASC_LINK_EXECUTABLE
  "<CMAKE_ASC_COMPILER> <FLAGS> <CMAKE_ASC_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
set(CMAKE_ASC_CREATE_SHARED_LIBRARY
  "<CMAKE_ASC_COMPILER> <CMAKE_SHARED_LIBRARY_ASC_FLAGS> <LANGUAGE_COMPILE_FLAGS> <LINK_FLAGS> <CMAKE_SHARED_LIBRARY_CREATE_ASC_FLAGS> <SONAME_FLAG><TARGET_SONAME> -o <TARGET> <OBJECTS> <LINK_LIBRARIES>")
set(CMAKE_ASC_CREATE_SHARED_MODULE "${CMAKE_ASC_CREATE_SHARED_LIBRARY}")
set(CMAKE_ASC_ARCHIVE_CREATE "<CMAKE_AR> qc <TARGET> <LINK_FLAGS> <OBJECTS>")
set(CMAKE_ASC_ARCHIVE_APPEND "<CMAKE_AR> q <TARGET> <LINK_FLAGS> <OBJECTS>")
set(CMAKE_ASC_ARCHIVE_FINISH "<CMAKE_RANLIB> <TARGET>")
set(CMAKE_ASC_INFORMATION_LOADED 1)
