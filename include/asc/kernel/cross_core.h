// Cross-core flags of mixed (cube + vector) kernels: CrossCoreSetFlag /
// CrossCoreWaitFlag (CANN: kernel_operator_block_sync_intf.h).
//
// CANN's modes: 0 synchronises all cores of the launch (the wait ends when
// every core has set the flag), 1 the two AIVs of one AI core, 2 the AIC and
// its AIVs (a set by one side ends the wait of the other).
//
// On pyasc's CPU device one block runs its AIC and AIV parts on one thread in
// program order (ASCEND_IS_AIC / ASCEND_IS_AIV are both true, one sub-block),
// so for modes 1 and 2 the data a set publishes is already there when the
// wait runs. The flags are counted per block (a set adds one, a wait takes
// one) so that a wait no set precedes, which would never end on the NPU, is an
// error naming the flag instead of a silent pass.
//
// Mode 0 is a barrier across blocks (asc/kernel/block_sync.h): a block's
// n-th CrossCoreWaitFlag on a flag it set in mode 0 ends when every block of
// the launch has set that flag n times. The runtime makes the launch's blocks
// resident when one waits, and a wait that can never end (a block that never
// sets the flag) fails the launch naming the blocks that did not arrive.
//
// Thread-safety: the counters are per thread (one block runs on one thread)
// and reset when another block (index, context or kernel name) starts on that
// thread. Two launches of one kernel may reuse all three on a thread; a set
// left over from the earlier launch then only hides the diagnostic of a
// wait without a set, never changes a result.
#pragma once

#include <cstdint>
#include <string>

#include "asc/kernel/block_sync.h"
#include "asc/kernel/context.h"
#include "asc/kernel/qualifiers.h"

namespace asc::kernel::cross_core {

constexpr uint16_t kFlags = 16;  // CANN: flag ids 0..15

struct BlockFlags {
  const void* block = nullptr;  // identity of the block the counts belong to
  uint32_t block_idx = 0;
  const char* kernel = nullptr;
  uint32_t count[kFlags] = {};
};

inline BlockFlags& flags() {
  thread_local BlockFlags f;
  const auto* b = ::asc::runtime::current_block();
  const char* k = b ? b->kernel_name : nullptr;
  const uint32_t idx = b ? b->block_idx : 0;
  if (f.block != b || f.block_idx != idx || f.kernel != k) {
    f = BlockFlags{};
    f.block = b;
    f.block_idx = idx;
    f.kernel = k;
  }
  return f;
}

// The wait's modeId does not select anything (CANN's samples wait with the
// default 0 on flags set in mode 2): a wait consumes a set of modes 1/2 by
// this block if there is one, else it is the barrier of a mode-0 set.
inline void check_args(const char* op, uint8_t mode, uint16_t flagId) {
  if (flagId >= kFlags)
    fail(::asc::ErrorCode::kInvalidParam, op, "flagId " + std::to_string(flagId) + " is out of range [0, 16)");
  if (mode > 2 && mode != 4)
    fail(::asc::ErrorCode::kInvalidParam, op, "modeId " + std::to_string(mode) + " is not 0, 1, 2 or 4");
}

/// A mode-0 set: counted in the launch (all blocks see it).
void set_all_cores(uint16_t flagId);
/// Whether this block has mode-0 sets of `flagId` not yet waited for; if so,
/// waits until every block has set it as often and returns true.
bool wait_all_cores(uint16_t flagId);

}  // namespace asc::kernel::cross_core

namespace AscendC {

template <uint8_t modeId, pipe_t pipe>
inline void CrossCoreSetFlag(uint16_t flagId) {
  ::asc::kernel::cross_core::check_args("CrossCoreSetFlag", modeId, flagId);
  if constexpr (modeId == 0) {
    ::asc::kernel::cross_core::set_all_cores(flagId);
    return;
  }
  // check_args has refused flagId >= kFlags (it does not return then); the bound is repeated for
  // GCC 12 at -O3, which inlines a constant bad id past the [[noreturn]] call and warns (-Warray-bounds).
  if (flagId < ::asc::kernel::cross_core::kFlags) ++::asc::kernel::cross_core::flags().count[flagId];
}

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
inline void CrossCoreWaitFlag(uint16_t flagId) {
  ::asc::kernel::cross_core::check_args("CrossCoreWaitFlag", modeId, flagId);
  if (flagId >= ::asc::kernel::cross_core::kFlags) return;  // refused by check_args (see CrossCoreSetFlag)
  auto& f = ::asc::kernel::cross_core::flags();
  if (f.count[flagId] == 0 && ::asc::kernel::cross_core::wait_all_cores(flagId)) return;
  if (f.count[flagId] == 0)
    ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "CrossCoreWaitFlag",
                        "flag " + std::to_string(flagId) +
                            " was not set before this wait in the block's program order (pyasc runs the AIC and "
                            "AIV parts of a block in program order; on the NPU this wait would never end)");
  --f.count[flagId];
}

}  // namespace AscendC
