// Ascend C kernel API for the pyasc CPU device (namespace AscendC).
//
// Kernel sources written for the Ascend toolchain include this header and
// compile as ordinary C++: qualifiers (__global__, __aicore__, __gm__, ...)
// are empty, GM_ADDR is uint8_t*, `half` / `bfloat16_t` are 16-bit float
// types, and GlobalTensor / LocalTensor / TPipe / TQue / TBuf / DataCopy /
// vector instructions run on the CPU core executing the block (each core has
// its own Unified Buffer arena; vector instructions use SIMD via Highway).
// Launch with asc::launch(kernel, blockDim, stream, args...) or
// ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...), or build the source
// with pyasc-cc for kernel<<<blockDim, l2ctrl, stream>>>(args...).
// AscendC::printf / PRINTF, DumpTensor and assert: asc/kernel/debug.h.
#pragma once

#include "asc/kernel/qualifiers.h"
#include "asc/kernel/types.h"
#include "asc/kernel/context.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/pipe.h"
#include "asc/kernel/data_copy.h"
#include "asc/kernel/nd_dma.h"
#include "asc/kernel/atomic.h"
#include "asc/kernel/vector.h"
#include "asc/kernel/vector_mask.h"
#include "asc/kernel/copy_ub.h"
#include "asc/kernel/compare_select.h"
#include "asc/kernel/reduce_ext.h"
#include "asc/kernel/cast_repeat.h"
#include "asc/kernel/gather_sort.h"
#include "asc/kernel/local_mem_allocator.h"
#include "asc/kernel/cube.h"
#include "asc/kernel/load_data_v2.h"
#include "asc/kernel/adv_ops.h"
#include "asc/kernel/adv_activation.h"
#include "asc/kernel/adv_reduce.h"
#include "asc/kernel/adv_index.h"
#include "asc/kernel/builtin_vars.h"
#include "asc/kernel/sync.h"
#include "asc/kernel/debug.h"
#include "asc/kernel/reg_api.h"
#include "asc/kernel/block_sync.h"
#include "asc/kernel/cross_core.h"
#include "asc/kernel/mutex.h"
#include "asc/kernel/kernel_log.h"
#include "asc/kernel/compare_mask.h"
#include "asc/kernel/tiling_data.h"
#include "asc/runtime/launch.h"
// Functions CANN declares at global scope (samples call them unqualified).
// (GetSysWorkSpacePtr: asc/kernel/matmul.h, with the matmul API.)
using ::AscendC::GetTPipePtr;
// Unguarded: re-establishes the kernel assert after any <assert.h>.
#include "asc/kernel/debug_assert.h"
