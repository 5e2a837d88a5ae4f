// The Ascend C CPU-debug API (the `ASCENDC_CPU_DEBUG` path of real samples):
//
//   #include "tikicpulib.h"
//   uint8_t* x = (uint8_t*)AscendC::GmAlloc(bytes);
//   AscendC::SetKernelMode(KernelMode::AIV_MODE);
//   ICPU_RUN_KF(add_custom, blockDim, x, y, z);
//   AscendC::GmFree((void*)x);
//
// ICPU_RUN_KF(kernel, blockDim, args...) runs `kernel` on `blockDim` blocks of
// the CPU device and waits for it. It evaluates to an int: 0, or the error
// code of a failed launch (an assert in the kernel: 507015), whose message
// ("[kernel] block i of n ...") is also printed to stderr and left for
// aclGetRecentErrMsg(). The process is not aborted.
// GmAlloc(bytes) returns device (GM) memory from the device pool (64-byte
// aligned, not zeroed); it throws asc::Error(207001) when out of memory.
// GmFree(p) returns it (null is ignored; a pointer GmAlloc did not return is
// reported on stderr and ignored).
// SetKernelMode records AIV / AIC / MIX mode (the CPU device runs all kinds of
// kernels on every core; GetKernelMode() reads it back).
//
// Thread-safety: all calls may be made from any host thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "kernel_operator.h"
#include "asc/kernel/debug_launch.h"

enum class KernelMode : int {
  MIX_MODE = 0,
  AIC_MODE,
  AIV_MODE,
  MIX_AIC_1_1,
};

namespace AscendC {
using ::KernelMode;
/// Device (GM) memory for kernels launched with ICPU_RUN_KF.
void* GmAlloc(size_t size);
/// Frees GmAlloc memory.
void GmFree(void* ptr);
void SetKernelMode(KernelMode mode);
KernelMode GetKernelMode();
}  // namespace AscendC

namespace asc::detail {

/// Waits for `seq` on `stream`; reports and returns the error code (0: OK).
int icpu_finish(const char* name, runtime::Stream* stream);
/// Reports a launch that could not be enqueued; returns its code.
int icpu_failed(const char* name, const Error& e);

template <typename R, typename... P, typename... Args>
int icpu_run_kf(const char* name, R (*kernel)(P...), uint32_t block_dim, Args&&... args) {
  static_assert(sizeof...(Args) == sizeof...(P),
                "ICPU_RUN_KF: the number of arguments differs from the kernel's parameters");
  runtime::Stream* s = nullptr;
  try {
    s = runtime::resolve_stream(nullptr);
    launch(std::string(name), kernel, block_dim, s, chevron_arg<std::decay_t<P>>(std::forward<Args>(args))...);
  } catch (const Error& e) {
    return icpu_failed(name, e);
  }
  return icpu_finish(name, s);
}

}  // namespace asc::detail

#define ICPU_RUN_KF(func, blkdim, ...) ::asc::detail::icpu_run_kf(#func, func, blkdim, ##__VA_ARGS__)
