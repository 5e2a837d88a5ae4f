# CMAKE_ASC_ARCHITECTURES -> __NPU_ARCH__ and each architecture's on-chip
# buffer sizes (bytes, per AI core; from the CANN platform tables of the
# Atlas A2 (dav-2201, Ascend910B) and Ascend 950 (dav-3510) products).
# _asc_arch_constants(<arch> <prefix>) sets <prefix>_NPU_ARCH, _UB_SIZE,
# _L1_SIZE, _L0A_SIZE, _L0B_SIZE, _L0C_SIZE, _SOC_VERSION, or FATAL_ERROR.
function(_asc_arch_constants arch prefix)
  if(arch STREQUAL "dav-2201")
    set(v 2201 196608 524288 65536 65536 131072 Ascend910B1)
  elseif(arch STREQUAL "dav-3510")
    set(v 3510 262144 524288 65536 65536 262144 Ascend950PR_9589)
  else()
    message(FATAL_ERROR "ASC: CMAKE_ASC_ARCHITECTURES='${arch}' is not supported: use dav-2201 or dav-3510")
  endif()
  set(i 0)
  foreach(k NPU_ARCH UB_SIZE L1_SIZE L0A_SIZE L0B_SIZE L0C_SIZE SOC_VERSION)
    list(GET v ${i} x)
    set(${prefix}_${k} "${x}" PARENT_SCOPE)
    math(EXPR i "${i} + 1")
  endforeach()
endfunction()
