// Pipe synchronisation: SetFlag/WaitFlag, PipeBarrier and the CCE intrinsics.
//
// On the CPU device a block runs on one thread and every instruction completes
// before the next starts, so these order nothing and cost nothing. The kernel
// checker (asc/kernel/checker.h) verifies that each WaitFlag has a matching
// SetFlag (wait-without-set: on the NPU the wait would never end).
//
// Thread-safety: no state.
#pragma once

#include <cstdint>

#include "asc/kernel/checker.h"
#include "asc/kernel/qualifiers.h"
#include "asc/kernel/types.h"

namespace AscendC {

template <HardEvent event>
inline void SetFlag(int32_t eventID) {
  if (::asc::kernel::check::active()) ::asc::kernel::check::set_flag(static_cast<int>(event), eventID);
}
template <HardEvent event>
inline void WaitFlag(int32_t eventID) {
  if (::asc::kernel::check::active()) ::asc::kernel::check::wait_flag(static_cast<int>(event), eventID);
}
template <pipe_t pipe = PIPE_ALL>
inline void PipeBarrier() {}

}  // namespace AscendC

// CCE intrinsics some sources call directly.
inline void pipe_barrier(pipe_t /*pipe*/) {}
inline void set_flag(pipe_t /*src*/, pipe_t /*dst*/, event_t /*id*/) {}
inline void wait_flag(pipe_t /*src*/, pipe_t /*dst*/, event_t /*id*/) {}
