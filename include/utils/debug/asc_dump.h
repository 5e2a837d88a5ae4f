// CANN's utils/debug/asc_dump.h: DumpTensor / DumpAccChkPoint / PrintTimeStamp
// for kernels, from the kernel API (asc/kernel/debug.h).
#pragma once

#include "kernel_operator.h"
