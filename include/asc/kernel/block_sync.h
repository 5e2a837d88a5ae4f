// Synchronisation across the blocks of a launch (CANN:
// kernel_operator_block_sync_intf.h, kernel_operator_determine_compute_sync_intf.h):
// SyncAll (hard and GM-workspace soft forms), IBSet / IBWait and
// InitDetermineComputeWorkspace / WaitPreBlock / NotifyNextBlock.
// CrossCoreSetFlag / WaitFlag mode 0 (asc/kernel/cross_core.h) use the same
// runtime wait.
//
// The waits are the runtime's (asc/runtime/block_sync.h): the launch's blocks
// become resident when one waits, a wait that can never end fails the launch
// with the blocks that did not arrive, and a failed block ends the others'
// waits. Before each wait the block's deferred local copies are made real
// (elide::materialise_all) so that what other blocks write to GM after the
// barrier cannot leak into this block's earlier loads.
//
// Semantics kept from CANN, implementation our own:
// * SyncAll(): every block of the launch arrives before any leaves; the n-th
//   call of each block pairs with the n-th of the others.
// * SyncAll(gmWorkspace, ubWorkspace, usedCores): the same among blocks
//   [0, usedCores) (0 = all). The workspace sizes are checked as CANN
//   documents them (>= GetBlockNum() * 32 bytes each); the barrier itself is
//   the runtime's, and block i's arrival count is written to gmWorkspace[8*i]
//   as the NPU's implementation leaves a per-core value there.
// * IBSet(gm, ub, blockIdx, eventID) waits until the int32 at
//   gm[(GetBlockNum() * eventID + blockIdx) * 8] is 0 and sets it to 1;
//   IBWait waits until it is 1 and sets it to 0 (the workspace must start
//   zeroed, as CANN requires).
// * WaitPreBlock / NotifyNextBlock run the blocks' sections in blockIdx order,
//   round after round (block 0 of round k waits for the last block of round
//   k-1). InitDetermineComputeWorkspace checks the workspace sizes.
// * GroupBarrier<mode>(workspace, arriveSize, waitSize): the k-th Wait(j)
//   returns once each of the arriveSize arrivers has called Arrive k times.
//   The counts live in the (zeroed) GM workspace, 32 bytes per arriver and
//   waiter (GetWorkspaceLen), read and written under the launch's sync lock.
// * ReadGmByPassDCache / WriteGmByPassDCache: GM accesses that other blocks
//   see at once (acquire / release); a read also tells the runtime the block
//   may be polling GM for another block, which then gets to run.
//   DataSyncBarrier<MemDsbT> is a full memory fence.
//
// Thread-safety: called from kernel blocks only; state is the launch's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/types.h"
#include "asc/kernel/tensor.h"
#include "asc/runtime/block_sync.h"

namespace AscendC {

/// Which pipes trigger and wait in a hard SyncAll (the CPU device runs every
/// instruction in order, so the pipes change nothing here).
struct SyncAllConfig {
  pipe_t triggerPipe;
  pipe_t waitPipe;
};
constexpr SyncAllConfig DEFAULT_SYNC_ALL_CONFIG = {PIPE_ALL, PIPE_ALL};

}  // namespace AscendC

namespace asc::kernel::block_sync {

// Counter keys of the launch state (runtime::block_sync::State).
enum Key : uint32_t {
  kSyncAll = 1,       // hard SyncAll arrivals per block
  kSoftSyncAll = 2,   // soft (workspace) SyncAll arrivals per block
  kSequential = 3,    // NotifyNextBlock calls per block
  kFlagSet = 0x100,   // + flagId: CrossCoreSetFlag<0> per block
  kFlagWait = 0x200,  // + flagId: CrossCoreWaitFlag of mode-0 flags per block
};

/// Arrives at barrier `key` and waits until blocks [0, n) have all arrived as
/// often as this block. Returns this block's arrival count.
uint64_t barrier(const char* op, uint32_t key, uint32_t n);
/// As barrier() among the blocks b of the launch with member(b) true (`who`
/// names them in errors: "the AIV blocks"). @asc.jit's MIX kernels use it:
/// their AIC and AIV parts are separate blocks of one launch.
uint64_t barrier_among(const char* op, uint32_t key, const std::function<bool(uint32_t)>& member,
                       const std::string& who);
/// Soft SyncAll's checks, then barrier().
void soft_sync_all(uint64_t gm_elems, int32_t* gm, uint64_t ub_elems, int32_t usedCores);
/// IBSet (set = true) / IBWait on the int32 flag at `flag`.
void ib_flag(const char* op, int32_t* flag, bool set, int32_t blockIdx, int32_t eventID);
/// The workspace checks of the determine-compute functions.
void check_determine_workspace(const char* op, uint64_t gm_elems, uint64_t ub_elems);
/// WaitPreBlock / NotifyNextBlock.
void wait_pre_block();
void notify_next_block();
/// GroupBarrier's Arrive / Wait on the counts at `ws` (int32, 8 per slot).
void group_arrive(int32_t* ws, uint32_t arrive_size, uint32_t wait_size, uint32_t index);
void group_wait(int32_t* ws, uint32_t arrive_size, uint32_t wait_size, uint32_t index);
/// A block reads GM another block may write (ReadGmByPassDCache): make the
/// launch's blocks resident if some have not started, and let others run.
void gm_poll();

}  // namespace asc::kernel::block_sync

namespace AscendC {

template <bool isAIVOnly = true, const SyncAllConfig& config = DEFAULT_SYNC_ALL_CONFIG>
inline void SyncAll() {
  if (::asc::kernel::mix::active()) {
    // A MIX launch (asc/kernel/mix.h): the AIV instances, or every instance.
    const auto me = ::asc::kernel::mix::current_role;
    ::asc::kernel::block_sync::barrier_among(
        "SyncAll", ::asc::kernel::block_sync::kSyncAll,
        [me](uint32_t b) { return !isAIVOnly || ::asc::kernel::mix::role_of(me.aic, me.aiv, b, me.groups).is_aiv; },
        isAIVOnly ? "the AIV instances (SyncAll<true>)" : "the AIC and AIV instances (SyncAll<false>)");
    return;
  }
  ::asc::kernel::block_sync::barrier("SyncAll", ::asc::kernel::block_sync::kSyncAll,
                                     static_cast<uint32_t>(GetBlockNum()));
}

template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                    const int32_t usedCores = 0) {
  ::asc::kernel::block_sync::soft_sync_all(gmWorkspace.GetSize(), gmWorkspace.GetPhyAddr(), ubWorkspace.GetSize(),
                                           usedCores);
}

template <bool isAIVOnly = true>
inline void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& /*ubWorkspace*/,
                  int32_t blockIdx, int32_t eventID) {
  const int64_t cores = GetBlockNum() * (isAIVOnly ? 1 : 2);
  const int64_t off = (cores * eventID + blockIdx) * 8;
  if (gmWorkspace.GetSize() != 0 && (off < 0 || static_cast<uint64_t>(off) >= gmWorkspace.GetSize()))
    ::asc::kernel::fail_size("IBSet", "gmWorkspace elements (int32, 8 per core and event)",
                             static_cast<uint64_t>(off < 0 ? 0 : off) + 1, gmWorkspace.GetSize());
  ::asc::kernel::block_sync::ib_flag("IBSet", gmWorkspace.GetPhyAddr() + off, true, blockIdx, eventID);
}

template <bool isAIVOnly = true>
inline void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& /*ubWorkspace*/,
                   int32_t blockIdx, int32_t eventID) {
  const int64_t cores = GetBlockNum() * (isAIVOnly ? 1 : 2);
  const int64_t off = (cores * eventID + blockIdx) * 8;
  if (gmWorkspace.GetSize() != 0 && (off < 0 || static_cast<uint64_t>(off) >= gmWorkspace.GetSize()))
    ::asc::kernel::fail_size("IBWait", "gmWorkspace elements (int32, 8 per core and event)",
                             static_cast<uint64_t>(off < 0 ? 0 : off) + 1, gmWorkspace.GetSize());
  ::asc::kernel::block_sync::ib_flag("IBWait", gmWorkspace.GetPhyAddr() + off, false, blockIdx, eventID);
}

inline void InitDetermineComputeWorkspace(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
  ::asc::kernel::block_sync::check_determine_workspace("InitDetermineComputeWorkspace", gmWorkspace.GetSize(),
                                                       ubWorkspace.GetSize());
}
inline void WaitPreBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
  ::asc::kernel::block_sync::check_determine_workspace("WaitPreBlock", gmWorkspace.GetSize(), ubWorkspace.GetSize());
  ::asc::kernel::block_sync::wait_pre_block();
}
inline void NotifyNextBlock(GlobalTensor<int32_t>& gmWorkspace, LocalTensor<int32_t>& ubWorkspace) {
  ::asc::kernel::block_sync::check_determine_workspace("NotifyNextBlock", gmWorkspace.GetSize(),
                                                       ubWorkspace.GetSize());
  ::asc::kernel::block_sync::notify_next_block();
}

enum class MemDsbT : uint8_t { ALL = 0, DDR = 1, UB = 2, SEQ = 3 };

/// Waits for the block's earlier memory accesses: a full fence on the CPU.
template <MemDsbT arg0>
inline void DataSyncBarrier() {
  ::asc::kernel::elide::materialise_all();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

template <typename T>
inline T ReadGmByPassDCache(__gm__ T* addr) {
  ::asc::kernel::block_sync::gm_poll();
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  T v;
  // A byte copy through a volatile source: never hoisted out of a polling loop.
  auto* src = reinterpret_cast<const volatile unsigned char*>(addr);
  auto* dst = reinterpret_cast<unsigned char*>(&v);
  for (size_t i = 0; i < sizeof(T); ++i) dst[i] = src[i];
  return v;
}

template <typename T>
inline void WriteGmByPassDCache(__gm__ T* addr, T value) {
  ::asc::kernel::elide::gm_write(addr, sizeof(T));
  __atomic_thread_fence(__ATOMIC_RELEASE);
  auto* dst = reinterpret_cast<volatile unsigned char*>(addr);
  const auto* src = reinterpret_cast<const unsigned char*>(&value);
  for (size_t i = 0; i < sizeof(T); ++i) dst[i] = src[i];
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

enum class PipeMode : uint8_t { SCALAR_MODE = 0, MTE3_MODE = 1, MAX };

/// A barrier between a group of arriving blocks and a group of waiting ones.
template <PipeMode pipeMode>
class GroupBarrier {
 public:
  GroupBarrier(GM_ADDR groupWorkspace, uint32_t arriveSizeIn, uint32_t waitSizeIn)
      : ws_(reinterpret_cast<int32_t*>(groupWorkspace)), arrive_(arriveSizeIn), wait_(waitSizeIn) {
    if (!groupWorkspace) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "GroupBarrier", "null workspace");
    if (arriveSizeIn == 0 || waitSizeIn == 0)
      ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "GroupBarrier",
                          "arriveSize " + std::to_string(arriveSizeIn) + " and waitSize " +
                              std::to_string(waitSizeIn) + " must both be positive");
  }
  void Arrive(uint32_t arriveIndex) { ::asc::kernel::block_sync::group_arrive(ws_, arrive_, wait_, arriveIndex); }
  void Wait(uint32_t waitIndex) { ::asc::kernel::block_sync::group_wait(ws_, arrive_, wait_, waitIndex); }
  /// Bytes of GM the barrier uses: 32 per arriver and per waiter.
  uint64_t GetWorkspaceLen() { return (static_cast<uint64_t>(arrive_) + wait_) * 32; }

 private:
  int32_t* ws_;
  uint32_t arrive_, wait_;
};

/// SuperKernel early start (CANN: kernel_operator_common_intf.h): lets the
/// instructions after / before the call overlap the next / previous kernel.
/// A stream of the CPU device runs its kernels one after another, so there is
/// nothing to overlap: both keep the order, as an NPU without SuperKernel does.
template <pipe_t AIV_PIPE = PIPE_MTE3, pipe_t AIC_PIPE = PIPE_FIX, bool FORCE = false>
inline void SetNextTaskStart() {}
template <bool FORCE = false>
inline void WaitPreTaskEnd() {}

/// Deprecated CANN name of Fill: sets `size` elements of GM to `value`.
template <typename T>
inline void InitOutput(GlobalTensor<T> gmWorkspaceAddr, uint32_t size, T value) {
  if (gmWorkspaceAddr.GetSize() != 0 && size > gmWorkspaceAddr.GetSize())
    ::asc::kernel::fail_size("InitOutput", "GM elements", size, gmWorkspaceAddr.GetSize());
  __gm__ T* p = gmWorkspaceAddr.GetPhyAddr();
  for (uint32_t i = 0; i < size; ++i) p[i] = value;
}

}  // namespace AscendC
