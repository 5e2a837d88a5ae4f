// Cross-block synchronisation of the kernel API (asc/kernel/block_sync.h) on
// the runtime's launch-wide wait (asc/runtime/block_sync.h).
#include "asc/kernel/block_sync.h"

#include "asc/kernel/cross_core.h"

#include <string>

namespace asc::kernel::block_sync {

namespace rbs = ::asc::runtime::block_sync;

namespace {
// The launch's block (its counters' index): in a MIX launch GetBlockIdx() is
// the logical core index, which an AIC and an AIV share.
uint32_t self() {
  const auto* b = ::asc::runtime::current_block();
  return b ? b->block_idx : 0;
}
}  // namespace

uint64_t barrier(const char* op, uint32_t key, uint32_t n) {
  // Other blocks may write GM right after the barrier: loads this block has
  // deferred must read GM as it is now.
  elide::materialise_all();
  const uint32_t me = self();
  uint64_t round = 0;
  rbs::update([&](rbs::State& s) { round = ++s.counter(key, me); });
  rbs::wait(op, "barrier #" + std::to_string(round) + " of blocks [0, " + std::to_string(n) + ")",
            [&](rbs::State& s) { return s.min_counter(key, n) >= round; });
  return round;
}

uint64_t barrier_among(const char* op, uint32_t key, const std::function<bool(uint32_t)>& member,
                       const std::string& who) {
  elide::materialise_all();
  const uint32_t me = self();
  if (!member(me)) fail(ErrorCode::kInvalidParam, op, "this block is not one of " + who + " that the barrier joins");
  uint64_t round = 0;
  rbs::update([&](rbs::State& s) { round = ++s.counter(key, me); });
  rbs::wait(op, "barrier #" + std::to_string(round) + " of " + who, [&](rbs::State& s) {
    for (uint32_t b = 0; b < s.block_num(); ++b)
      if (member(b) && s.counter(key, b) < round) return false;
    return true;
  });
  return round;
}

void soft_sync_all(uint64_t gm_elems, int32_t* gm, uint64_t ub_elems, int32_t usedCores) {
  const int64_t blocks = ::AscendC::GetBlockNum();
  const uint64_t need = static_cast<uint64_t>(blocks) * 8;  // 32 bytes of int32 per core
  if (usedCores < 0 || usedCores > blocks)
    fail(ErrorCode::kInvalidParam, "SyncAll",
         "usedCores " + std::to_string(usedCores) + " is outside [0, GetBlockNum() = " + std::to_string(blocks) + "]");
  if (gm_elems != 0 && gm_elems < need) fail_size("SyncAll", "gmWorkspace int32 elements (32 bytes per core)", need, gm_elems);
  if (ub_elems < need) fail_size("SyncAll", "ubWorkspace int32 elements (32 bytes per core)", need, ub_elems);
  const uint32_t n = usedCores == 0 ? static_cast<uint32_t>(blocks) : static_cast<uint32_t>(usedCores);
  const uint64_t round = barrier("SyncAll", kSoftSyncAll, n);
  if (gm) gm[self() * 8] = static_cast<int32_t>(round);
}

void ib_flag(const char* op, int32_t* flag, bool set, int32_t blockIdx, int32_t eventID) {
  const int64_t blocks = ::AscendC::GetBlockNum();
  if (blockIdx < 0 || blockIdx >= blocks)
    fail(ErrorCode::kInvalidParam, op,
         "blockIdx " + std::to_string(blockIdx) + " is outside [0, " + std::to_string(blocks) + ")");
  if (eventID < 0) fail(ErrorCode::kInvalidParam, op, "eventID " + std::to_string(eventID) + " is negative");
  elide::materialise_all();
  // The GM flag is read and written under the launch's sync lock, so a set
  // and a wait on it never race; the value stays in GM as on the NPU.
  const int32_t want = set ? 0 : 1;
  rbs::wait(op,
            std::string(set ? "IBSet" : "IBWait") + " flag of block " + std::to_string(blockIdx) + " event " +
                std::to_string(eventID) + (set ? " (still set: waiting for its IBWait)" : " (waiting for its IBSet)"),
            [&](rbs::State&) { return *flag == want; }, [&](rbs::State&) { *flag = 1 - want; });
}

void check_determine_workspace(const char* op, uint64_t gm_elems, uint64_t ub_elems) {
  const uint64_t blocks = static_cast<uint64_t>(::AscendC::GetBlockNum());
  if (gm_elems != 0 && gm_elems < blocks * 8)
    fail_size(op, "gmWorkspace int32 elements (32 bytes per core)", blocks * 8, gm_elems);
  if (ub_elems < blocks * 8 + 8) fail_size(op, "ubWorkspace int32 elements (32 bytes per core + 32)", blocks * 8 + 8, ub_elems);
}

void wait_pre_block() {
  elide::materialise_all();
  const uint32_t me = self();
  const uint32_t n = static_cast<uint32_t>(::AscendC::GetBlockNum());
  uint64_t round = 0;  // this block's completed sections so far
  rbs::update([&](rbs::State& s) { round = s.counter(kSequential, me); });
  // Block i's section k follows block i-1's section k; block 0's follows the
  // last block's section k-1.
  const uint32_t prev = me == 0 ? n - 1 : me - 1;
  const uint64_t need = me == 0 ? round : round + 1;
  if (n == 1 || need == 0) return;
  rbs::wait("WaitPreBlock",
            "section " + std::to_string(round + 1) + " (waiting for block " + std::to_string(prev) +
                "'s NotifyNextBlock #" + std::to_string(need) + ")",
            [&](rbs::State& s) { return s.counter(kSequential, prev) >= need; });
}

void notify_next_block() {
  const uint32_t me = self();
  rbs::update([&](rbs::State& s) { ++s.counter(kSequential, me); });
}

void group_arrive(int32_t* ws, uint32_t arrive_size, uint32_t wait_size, uint32_t index) {
  (void)wait_size;
  if (index >= arrive_size)
    fail(ErrorCode::kInvalidParam, "GroupBarrier::Arrive",
         "arriveIndex " + std::to_string(index) + " is outside [0, arriveSize = " + std::to_string(arrive_size) + ")");
  elide::materialise_all();
  rbs::update([&](rbs::State&) { ++ws[index * 8]; });
}

void group_wait(int32_t* ws, uint32_t arrive_size, uint32_t wait_size, uint32_t index) {
  if (index >= wait_size)
    fail(ErrorCode::kInvalidParam, "GroupBarrier::Wait",
         "waitIndex " + std::to_string(index) + " is outside [0, waitSize = " + std::to_string(wait_size) + ")");
  elide::materialise_all();
  int32_t round = 0;
  rbs::update([&](rbs::State&) { round = ++ws[(arrive_size + index) * 8]; });
  rbs::wait("GroupBarrier::Wait",
            "wait #" + std::to_string(round) + " of waiter " + std::to_string(index) + " (for all " +
                std::to_string(arrive_size) + " arrivers' Arrive #" + std::to_string(round) + ")",
            [&](rbs::State&) {
              for (uint32_t a = 0; a < arrive_size; ++a)
                if (ws[a * 8] < round) return false;
              return true;
            });
}

void gm_poll() { rbs::polling(); }

}  // namespace asc::kernel::block_sync

namespace asc::kernel::cross_core {

namespace bs = ::asc::kernel::block_sync;
namespace rbs = ::asc::runtime::block_sync;

void set_all_cores(uint16_t flagId) {
  elide::materialise_all();
  const auto me = bs::self();
  rbs::update([&](rbs::State& s) { ++s.counter(bs::kFlagSet + flagId, me); });
}

bool wait_all_cores(uint16_t flagId) {
  const auto me = bs::self();
  const uint32_t set_key = bs::kFlagSet + flagId, wait_key = bs::kFlagWait + flagId;
  uint64_t round = 0;
  bool mine = false;
  rbs::update([&](rbs::State& s) {
    round = s.counter(wait_key, me) + 1;
    mine = s.counter(set_key, me) >= round;
  });
  if (!mine) return false;
  const auto n = static_cast<uint32_t>(::AscendC::GetBlockNum());
  rbs::wait("CrossCoreWaitFlag",
            "mode-0 flag " + std::to_string(flagId) + " round " + std::to_string(round) + " (all " +
                std::to_string(n) + " blocks must CrossCoreSetFlag<0> it)",
            [&](rbs::State& s) { return s.min_counter(set_key, n) >= round; },
            [&](rbs::State& s) { ++s.counter(wait_key, me); });
  return true;
}

}  // namespace asc::kernel::cross_core
