// Waits across the blocks of one launch: the runtime piece under SyncAll,
// CrossCoreSetFlag/WaitFlag mode 0, IBSet/IBWait and WaitPreBlock /
// NotifyNextBlock (asc/kernel/block_sync.h).
//
// The CPU device runs a launch's blocks on its core workers, one block after
// another per core, so blockDim may exceed the core count. A block that waits
// for others would then hold a core the others need. The device does not
// know beforehand which kernels wait (a kernel's first SyncAll is too late to
// choose a launch mode), so it decides at the wait: when a block starts
// waiting and blocks of its launch have not started yet, the device starts
// them on helper threads with their own UB/L1/L0 arenas, so every block of
// such a launch becomes resident, as CANN requires of SyncAll kernels.
// Ordinary launches never reach this code and pay nothing for it.
//
// A wait that can never end is a launch error, not a hang: when every block
// of the launch that has started is waiting and none is left to start (and
// no wait is ready), the launch fails with a message naming the kernel, what
// each waiting block waits for and which blocks ended without arriving. A
// block's failure ends the others' waits with an error, and a wait longer
// than ASC_SYNC_TIMEOUT_S seconds (default 300; 0 = none) fails too, for the
// waits the runtime cannot see (a block spinning on GM in its own code).
//
// Thread-safety: all functions are called from inside a kernel block; the
// state they share is guarded by the launch's sync lock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace asc::runtime::block_sync {

/// Per-launch counters, one value per block and key, all zero at launch start.
/// Only valid inside `update` / `wait` callbacks (the sync lock is held).
class State {
 public:
  virtual ~State() = default;
  virtual uint32_t block_num() const = 0;
  /// Block `block`'s counter `key` (keys are the kernel API's, see block_sync.h).
  virtual uint64_t& counter(uint32_t key, uint32_t block) = 0;
  /// Minimum of counter `key` over blocks [0, n).
  uint64_t min_counter(uint32_t key, uint32_t n) {
    uint64_t m = UINT64_MAX;
    for (uint32_t b = 0; b < n; ++b) m = counter(key, b) < m ? counter(key, b) : m;
    return n ? m : 0;
  }
};

/// Runs `fn` under the calling launch's sync lock, then wakes its waiting
/// blocks. Outside a kernel `fn` runs on a private single-block state.
void update(const std::function<void(State&)>& fn);

/// Blocks until `ready(state)` returns true, then runs `on_ready(state)` (if
/// given) and wakes the other waiters. Both run under the sync lock; `ready`
/// must not change the state (the deadlock check asks every waiter's `ready`),
/// `on_ready` may (consume a flag). `op` and `what` name the wait in errors
/// ("SyncAll", "barrier #2"). Throws asc::Error when the wait can never end
/// (deadlock), when another block of the launch failed, or on timeout.
void wait(const char* op, const std::string& what, const std::function<bool(State&)>& ready,
          const std::function<void(State&)>& on_ready = nullptr);

/// The calling block polls memory another block writes (a spin loop in the
/// kernel's own code, e.g. over ReadGmByPassDCache): makes the launch's
/// blocks resident if some have not started, so the writer gets to run, and
/// yields the CPU now and then. Cheap when called in a tight loop.
void polling();

}  // namespace asc::runtime::block_sync
