// System values of the running block (GetBlockIdx, GetBlockNum, ...) and the
// error helpers every kernel API call uses.
//
// Errors raised by kernel API calls are asc::Error with a message
// "[<Api>] kernel '<name>' block <i>: <detail>"; thrown on a core's worker,
// the launch fails and the stream's next synchronize() reports it.
//
// Thread-safety: the system values read the calling thread's block context.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "asc/core/status.h"
#include "asc/runtime/device.h"

namespace asc::kernel {

/// "kernel 'name' block i of n" for the calling thread, or "outside a kernel".
std::string where();
/// Throws asc::Error(code, "[op] <where()>: detail").
[[noreturn]] void fail(ErrorCode code, const char* op, const std::string& detail);
/// Throws kIndexOutOfRange: "`what` needs `needed` elements but the tensor has `size`".
[[noreturn]] void fail_size(const char* op, const char* what, uint64_t needed, uint64_t size);
/// Throws kInvalidParam for a negative element count.
[[noreturn]] void fail_negative_count(const char* op, int64_t count);

}  // namespace asc::kernel

namespace AscendC {

/// Index of the running block in [0, GetBlockNum()); 0 outside a kernel.
inline int64_t GetBlockIdx() {
  const auto* b = ::asc::runtime::current_block();
  return b ? static_cast<int64_t>(b->block_idx) : 0;
}
/// blockDim of the running launch; 1 outside a kernel.
inline int64_t GetBlockNum() {
  const auto* b = ::asc::runtime::current_block();
  return b ? static_cast<int64_t>(b->block_num) : 1;
}
/// The CPU device has no AIC/AIV split: one sub-block per block.
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetSubBlockNum() { return 1; }
inline int64_t GetTaskRatio() { return 1; }
/// Kept for sources that call it at kernel start; nothing to initialise.
inline void InitSocState() {}

/// A cycle counter for timing inside kernels: the time-stamp counter on x86-64
/// (constant rate on current CPUs, not the core clock), else nanoseconds of a
/// steady clock. Only differences are meaningful.
inline int64_t GetSystemCycle() {
#if defined(__x86_64__) || defined(__i386__)
  return static_cast<int64_t>(__builtin_ia32_rdtsc());
#else
  return static_cast<int64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
#endif
}

}  // namespace AscendC
