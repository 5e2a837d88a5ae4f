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
#include "asc/kernel/mix.h"
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

/// Index of the running block in [0, GetBlockNum()); 0 outside a kernel. In
/// a MIX launch (asc/kernel/mix.h): the group on an AIC, group * v + the
/// sub-block on an AIV.
inline int64_t GetBlockIdx() {
  const auto& r = ::asc::kernel::mix::current_role;
  if (r.aic + r.aiv != 0) return r.is_aic ? int64_t(r.group) * r.aic + r.sub : int64_t(r.group) * r.aiv + r.sub;
  const auto* b = ::asc::runtime::current_block();
  return b ? static_cast<int64_t>(b->block_idx) : 0;
}
/// blockDim of the running launch (numBlocks of a MIX launch); 1 outside a kernel.
inline int64_t GetBlockNum() {
  const auto& r = ::asc::kernel::mix::current_role;
  if (r.aic + r.aiv != 0) return r.groups;
  const auto* b = ::asc::runtime::current_block();
  return b ? static_cast<int64_t>(b->block_num) : 1;
}
/// The AIV's sub-block in its group in a MIX launch (0 on an AIC); 0 elsewhere
/// (the CPU device has no AIC/AIV split outside MIX launches).
inline int64_t GetSubBlockIdx() {
  const auto& r = ::asc::kernel::mix::current_role;
  return r.aic + r.aiv != 0 && r.is_aiv ? r.sub : 0;
}
/// AICs (on an AIC) or AIVs (on an AIV) per group of a MIX launch; 1 elsewhere.
inline int64_t GetSubBlockNum() {
  const auto& r = ::asc::kernel::mix::current_role;
  if (r.aic + r.aiv == 0) return 1;
  return r.is_aic ? r.aic : r.aiv;
}
/// CANN: the ratio of this core type's instances to logical cores (2 on the
/// AIVs of __mix__(1, 2)); 1 outside MIX launches.
inline int64_t GetTaskRatio() { return GetSubBlockNum(); }
/// The spelling some CANN samples use.
inline int64_t GetTaskRation() { return GetTaskRatio(); }
/// Kept for sources that call it at kernel start; nothing to initialise.
inline void InitSocState() {}

/// CANN: the UB size of the target architecture in bytes, a compile-time
/// constant (dav-3510: 248 KiB as CANN documents; dav-2201: 192 KiB). The
/// CPU device's UB arena is 192 KiB unless ASC_UB_SIZE says otherwise:
/// GetRuntimeUBSize() gives what the running core really has.
constexpr uint32_t GetUBSizeInBytes() {
#if defined(__NPU_ARCH__) && __NPU_ARCH__ == 3510
  return 248u * 1024u;
#else
  return 192u * 1024u;
#endif
}
/// CANN: the UB size of the running core in bytes (the device's arena).
inline uint32_t GetRuntimeUBSize() {
  const auto* b = ::asc::runtime::current_block();
  if (!b || !b->arenas) {
    ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "GetRuntimeUBSize", "called outside a kernel");
  }
  return static_cast<uint32_t>(b->arenas->ub_size);
}
/// CANN: the bytes of one DataBlock (32 on every architecture pyasc models).
constexpr int16_t GetDataBlockSizeInBytes() { return 32; }

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
