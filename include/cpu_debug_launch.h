// CANN's CPU-debug launch header (the samples include it under
// ASCENDC_CPU_DEBUG, which the ASC language's cpu run mode defines).
// pyasc's driver already turns kernel<<<blockDim, l2ctrl, stream>>>(...)
// launches into CPU launches, so this header only brings the CPU-debug API
// (ICPU_RUN_KF, GmAlloc/GmFree, SetKernelMode: tikicpulib.h).
#pragma once

#include "tikicpulib.h"
