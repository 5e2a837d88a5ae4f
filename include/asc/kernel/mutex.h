// Intra-core pipe mutexes (CANN: Mutex::Lock / Unlock, AllocMutexID /
// ReleaseMutexID in kernel_common.h).
//
// On the NPU a mutex orders the pipes (MTE2, V, MTE3, ...) of one core that
// touch the same buffer. The CPU device runs a block's instructions in
// program order, so a Lock never has to wait; what is kept is the contract
// CANN documents, checked per block: Lock then Unlock of the same id with the
// same pipe, no double Lock, ids from AllocMutexID in [0, 28) (28-31 are the
// system's), released once. A broken pairing, which is undefined behaviour
// on the NPU, is a kernel error naming the id and pipes here.
//
// Thread-safety: the state is per thread and reset when another block starts
// on it (asc/runtime/block_serial.h).
#pragma once

#include <cstdint>
#include <string>

#include "asc/kernel/context.h"
#include "asc/kernel/qualifiers.h"
#include "asc/runtime/block_serial.h"

namespace AscendC {
using MutexID = uint8_t;
}

namespace asc::kernel::mutex {

constexpr int kIds = 32;        // hardware ids
constexpr int kUserIds = 28;    // AllocMutexID hands out [0, 28)
constexpr int kUnlocked = -1;

struct BlockMutexes {
  bool init = false;
  uint64_t serial = 0;
  int locked_pipe[kIds];  // kUnlocked or the pipe that holds it
  bool allocated[kIds];
};

inline BlockMutexes& state() {
  thread_local BlockMutexes s{};
  const uint64_t serial = ::asc::runtime::block_serial();
  if (!s.init || s.serial != serial) {
    s.init = true;
    s.serial = serial;
    for (int i = 0; i < kIds; ++i) {
      s.locked_pipe[i] = kUnlocked;
      s.allocated[i] = false;
    }
  }
  return s;
}

inline void check_id(const char* op, unsigned id) {
  if (id >= static_cast<unsigned>(kIds))
    fail(ErrorCode::kInvalidParam, op, "MutexID " + std::to_string(id) + " is out of range [0, 32)");
}

inline void lock(unsigned id, int pipe) {
  check_id("Mutex::Lock", id);
  auto& s = state();
  if (s.locked_pipe[id] != kUnlocked)
    fail(ErrorCode::kInvalidParam, "Mutex::Lock",
         "MutexID " + std::to_string(id) + " is already locked (by pipe " + std::to_string(s.locked_pipe[id]) +
             "): Lock and Unlock must alternate");
  s.locked_pipe[id] = pipe;
}

inline void unlock(unsigned id, int pipe) {
  check_id("Mutex::Unlock", id);
  auto& s = state();
  if (s.locked_pipe[id] == kUnlocked)
    fail(ErrorCode::kInvalidParam, "Mutex::Unlock", "MutexID " + std::to_string(id) + " is not locked");
  if (s.locked_pipe[id] != pipe)
    fail(ErrorCode::kInvalidParam, "Mutex::Unlock",
         "MutexID " + std::to_string(id) + " was locked by pipe " + std::to_string(s.locked_pipe[id]) +
             " but is unlocked by pipe " + std::to_string(pipe) + " (the pipes must be the same)");
  s.locked_pipe[id] = kUnlocked;
}

inline unsigned alloc() {
  auto& s = state();
  for (int i = 0; i < kUserIds; ++i)
    if (!s.allocated[i]) {
      s.allocated[i] = true;
      return static_cast<unsigned>(i);
    }
  fail(ErrorCode::kStorageOverLimit, "AllocMutexID",
       "all " + std::to_string(kUserIds) + " MutexIDs are allocated (ReleaseMutexID the ones no longer used)");
}

inline void release(unsigned id) {
  check_id("ReleaseMutexID", id);
  auto& s = state();
  if (!s.allocated[id])
    fail(ErrorCode::kInvalidParam, "ReleaseMutexID",
         "MutexID " + std::to_string(id) + " was not allocated by AllocMutexID (or is released twice)");
  if (s.locked_pipe[id] != kUnlocked)
    fail(ErrorCode::kInvalidParam, "ReleaseMutexID", "MutexID " + std::to_string(id) + " is still locked");
  s.allocated[id] = false;
}

}  // namespace asc::kernel::mutex

namespace AscendC {

struct Mutex {
  template <pipe_t pipe>
  static inline void Lock(MutexID id) {
    ::asc::kernel::mutex::lock(id, static_cast<int>(pipe));
  }
  template <pipe_t pipe>
  static inline void Unlock(MutexID id) {
    ::asc::kernel::mutex::unlock(id, static_cast<int>(pipe));
  }
};

inline MutexID AllocMutexID() { return static_cast<MutexID>(::asc::kernel::mutex::alloc()); }
inline void ReleaseMutexID(MutexID id) { ::asc::kernel::mutex::release(id); }

}  // namespace AscendC
