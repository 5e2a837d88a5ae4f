// Ascend C qualifiers, global scalar types and CCE enums for the CPU device.
//
// On the NPU, `__global__`, `__aicore__`, `__gm__`, ... are compiler keywords;
// on the CPU they expand to nothing so that kernel sources compile as plain
// C++. `half` and `bfloat16_t` are global names, as with the Ascend toolchain,
// aliasing asc::float16 / asc::bfloat16 (16-bit storage, RNE conversions).
//
// Thread-safety: declarations only.
#pragma once

#include <cstdint>

#include "asc/core/half.h"
#include "asc/kernel/mix.h"

#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __cbuf__
#define __cbuf__
#endif
#ifndef __ca__
#define __ca__
#endif
#ifndef __cb__
#define __cb__
#endif
#ifndef __cc__
#define __cc__
#endif
#ifndef __vector__
#define __vector__
#endif
#ifndef __cube__
#define __cube__
#endif
// __mix__(c, v) puts the kernel's code in section asc_mix_<c>_<v>, which is
// how a launch tells a MIX kernel from its address (asc/kernel/mix.h).
#ifndef __mix__
#define __mix__(c, v) __attribute__((section("asc_mix_" #c "_" #v)))
#endif
#ifndef __in_pipe__
#define __in_pipe__(...)
#endif
#ifndef __out_pipe__
#define __out_pipe__(...)
#endif
#ifndef __inout_pipe__
#define __inout_pipe__(...)
#endif
// Marks a matmul kernel's workspace parameter for CANN's AIC/AIV message
// server (KFC); pyasc's matmul runs in the block and needs no workspace.
#ifndef __kfc_workspace__
#define __kfc_workspace__
#endif

// Core-type tests of mixed (cube + vector) kernels: `if ASCEND_IS_AIV { ... }`.
// In a MIX launch (a `__mix__(c, v)` kernel, asc/kernel/mix.h) each instance
// is an AIC or an AIV; elsewhere a CPU core runs both the cube and the vector
// instructions of its block, so both tests are true.
#ifndef ASCEND_IS_AIV
#define ASCEND_IS_AIV (::asc::kernel::mix::is_aiv())
#endif
#ifndef ASCEND_IS_AIC
#define ASCEND_IS_AIC (::asc::kernel::mix::is_aic())
#endif
// Kernel task type annotations (e.g. KERNEL_TYPE_MIX_AIC_1_2): scheduling
// hints for the NPU; nothing to do on the CPU.
#ifndef KERNEL_TASK_TYPE_DEFAULT
#define KERNEL_TASK_TYPE_DEFAULT(type)
#endif
#ifndef KERNEL_TASK_TYPE
#define KERNEL_TASK_TYPE(key, type)
#endif

#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t*
#endif

using half = ::asc::float16;
using bfloat16_t = ::asc::bfloat16;

/// Hardware pipelines (CCE's pipe_t). On the CPU each core runs one thread, so
/// barriers between pipes order nothing.
enum pipe_t : int {
  PIPE_S = 0,
  PIPE_V,
  PIPE_M,
  PIPE_MTE1,
  PIPE_MTE2,
  PIPE_MTE3,
  PIPE_ALL,
  PIPE_MTE4,
  PIPE_MTE5,
  PIPE_V2,
  PIPE_FIX,
};

/// Event ids for SetFlag/WaitFlag (CCE's event_t).
enum event_t : int {
  EVENT_ID0 = 0,
  EVENT_ID1,
  EVENT_ID2,
  EVENT_ID3,
  EVENT_ID4,
  EVENT_ID5,
  EVENT_ID6,
  EVENT_ID7,
};
