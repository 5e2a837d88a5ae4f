// Ascend C kernel API for the pyasc CPU device (namespace AscendC).
//
// Kernel sources written for the Ascend toolchain include this header and
// compile as ordinary C++: qualifiers (__global__, __aicore__, __gm__, ...)
// are empty, GM_ADDR is uint8_t*, `half` / `bfloat16_t` are 16-bit float
// types, and GlobalTensor / LocalTensor / TPipe / TQue / TBuf / DataCopy /
// vector instructions run on the CPU core executing the block (each core has
// its own Unified Buffer arena; vector instructions use SIMD via Highway).
// Launch with asc::launch(kernel, blockDim, stream, args...) or
// ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...).
#pragma once

#include "asc/kernel/qualifiers.h"
#include "asc/kernel/types.h"
#include "asc/kernel/context.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/pipe.h"
#include "asc/kernel/data_copy.h"
#include "asc/kernel/vector.h"
#include "asc/kernel/sync.h"
#include "asc/runtime/launch.h"
