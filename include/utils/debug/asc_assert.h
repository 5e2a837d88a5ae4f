// CANN's utils/debug/asc_assert.h: assert(expr) and assert(expr, fmt, ...)
// in kernels (the kernel form of asc/kernel/debug_assert.h: a failed assert
// fails the launch with the message, instead of aborting the process).
#pragma once

#include "kernel_operator.h"
#include "asc/kernel/debug_assert.h"
