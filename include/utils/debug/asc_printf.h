// CANN's utils/debug/asc_printf.h: printf in kernels (C API and kernel code
// that includes this instead of kernel_operator.h). On the CPU device a
// kernel's printf is the C library's; AscendC::printf / PRINTF come with the
// kernel API (asc/kernel/debug.h).
#pragma once

#include <cstdio>

#include "kernel_operator.h"
