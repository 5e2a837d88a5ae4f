# find_package(ASC): CANN's Ascend C CMake package, on pyasc's CPU device.
#
#   find_package(ASC REQUIRED)                 # before or after project()
#   project(kernel_samples LANGUAGES ASC CXX)  # the CMake language ASC
#   add_executable(demo add.asc)               # .asc compiled by pyasc's driver
#
# Cache options (as CANN's):
#   CMAKE_ASC_RUN_MODE       cpu (the only mode here); npu / sim stop the
#                            configure step with an error (they need an Ascend
#                            NPU / the CANN simulator). Default: npu, as CANN's.
#   CMAKE_ASC_ARCHITECTURES  dav-2201 (Atlas A2/A3) or dav-3510 (Ascend 950);
#                            sets __NPU_ARCH__ and the ASC_* hardware constants
#                            below (for the compiler: --npu-arch=dav-XXXX).
# Link names of CANN libraries the samples list (tiling_api, register,
# platform, unified_dlog, ascendcl, acl_rt, ...) are empty targets: their
# functions are in libasc, which every ASC target links.
# Helper functions: ascendc_library, ascendc_compile_definitions,
# ascendc_compile_options, ascendc_include_directories (asc_helpers.cmake).
get_filename_component(_ASC_CMAKE_DIR "${CMAKE_CURRENT_LIST_FILE}" DIRECTORY)
get_filename_component(ASC_HOME "${_ASC_CMAKE_DIR}/../../.." ABSOLUTE)
set(ASC_FOUND TRUE)
set(ASC_VERSION "${PACKAGE_VERSION}")
# project(... LANGUAGES ASC) looks for CMakeDetermineASCCompiler.cmake on the module path.
if(NOT "${_ASC_CMAKE_DIR}" IN_LIST CMAKE_MODULE_PATH)
  list(APPEND CMAKE_MODULE_PATH "${_ASC_CMAKE_DIR}")
endif()
include("${_ASC_CMAKE_DIR}/asc_arch.cmake")
include("${_ASC_CMAKE_DIR}/asc_helpers.cmake")
