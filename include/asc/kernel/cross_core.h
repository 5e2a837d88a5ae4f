// Cross-core flags of mixed (cube + vector) kernels: CrossCoreSetFlag /
// CrossCoreWaitFlag (CANN: kernel_operator_block_sync_intf.h).
//
// CANN's modes: 0 synchronises all cores of the launch (the wait ends when
// every core has set the flag), 1 the two AIVs of one AI core, 2 the AIC and
// its AIVs (a set by one side ends the wait of the other).
//
// Outside MIX launches one block runs its AIC and AIV parts on one thread in
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
// In a MIX launch (a `__mix__(c, v)` kernel, asc/kernel/mix.h) the AIC and
// AIV instances are separate blocks on their own threads and the flags are
// CANN's, between them: each instance has a count per flag that its waits
// consume (a wait blocks until the count is above the waits it has done);
//   - mode 0: a flag the instances of one type (all AICs, or all AIVs) have
//     all set n times counts n on each of them;
//   - mode 1: a flag both AIVs of a group have set n times counts n on each;
//   - mode 2: an AIC's set counts one on each AIV of its group; a flag every
//     AIV of the group has set n times counts n on the AIC.
// A wait that can never end fails the launch (the resident-blocks runtime's
// deadlock check), naming the flag.
//
// Thread-safety: the counters are per thread (one block runs on one thread)
// and reset when another block (index, context or kernel name) starts on that
// thread. Two launches of one kernel may reuse all three on a thread; a set
// left over from the earlier launch then only hides the diagnostic of a
// wait without a set, never changes a result.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "asc/kernel/block_sync.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/mix.h"
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

// ---- MIX launches: counters per physical block of the launch (keys of
// block_sync.h's range 0x400..0x7ff, one per mode and flag).
namespace mixf {
namespace rbs = ::asc::runtime::block_sync;
enum : uint32_t { kSet0 = 0x400, kSet1 = 0x500, kSet2 = 0x600, kWait = 0x700 };

inline uint32_t physical() { return ::asc::runtime::current_block()->block_idx; }

/// Count of flag `f` received by physical block `p` of the launch `me`
/// belongs to (a copy: the deadlock check calls this on other threads).
inline uint64_t received(rbs::State& s, const ::asc::kernel::mix::Role& me, uint32_t p, uint16_t f) {
  using ::asc::kernel::mix::role_of;
  const uint32_t per = static_cast<uint32_t>(me.aic) + me.aiv;
  const auto r = role_of(me.aic, me.aiv, p, me.groups);
  const uint32_t first = r.group * per;  // the group's first physical block
  uint64_t all = UINT64_MAX, aivs = UINT64_MAX, aic_sets = 0;
  for (uint32_t b = 0; b < s.block_num(); ++b)
    if (role_of(me.aic, me.aiv, b, me.groups).is_aic == r.is_aic) all = std::min(all, s.counter(kSet0 + f, b));
  for (uint32_t b = first + me.aic; b < first + per; ++b) aivs = std::min(aivs, s.counter(r.is_aic ? kSet2 + f : kSet1 + f, b));
  for (uint32_t b = first; b < first + me.aic; ++b) aic_sets += s.counter(kSet2 + f, b);
  if (all == UINT64_MAX) all = 0;
  if (aivs == UINT64_MAX) aivs = 0;
  return r.is_aic ? all + aivs : all + aivs + aic_sets;
}

inline void set(uint8_t mode, uint16_t f) {
  const auto& me = ::asc::kernel::mix::current_role;
  if (mode == 1 && !me.is_aiv)
    fail(::asc::ErrorCode::kInvalidParam, "CrossCoreSetFlag",
         "mode 1 synchronises the AIVs of a group; this is an AIC instance of the __mix__ kernel");
  ::asc::kernel::elide::materialise_all();  // the other side may read GM right after its wait
  const uint32_t p = physical();
  const uint32_t key = (mode == 0 ? kSet0 : mode == 1 ? kSet1 : kSet2) + f;
  rbs::update([&](rbs::State& s) { ++s.counter(key, p); });
}

inline void wait(uint16_t f) {
  ::asc::kernel::elide::materialise_all();
  const uint32_t p = physical();
  uint64_t round = 0;
  rbs::update([&](rbs::State& s) { round = s.counter(kWait + f, p) + 1; });
  const auto me = ::asc::kernel::mix::current_role;
  rbs::wait("CrossCoreWaitFlag",
            "flag " + std::to_string(f) + " wait #" + std::to_string(round) + " of the " +
                (me.is_aic ? "AIC" : "AIV " + std::to_string(me.sub)) + " of group " + std::to_string(me.group),
            [&, me](rbs::State& s) { return received(s, me, p, f) >= round; },
            [&](rbs::State& s) { ++s.counter(kWait + f, p); });
}
}  // namespace mixf

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
  if (::asc::kernel::mix::active()) {
    if (flagId < ::asc::kernel::cross_core::kFlags) ::asc::kernel::cross_core::mixf::set(modeId, flagId);
    return;
  }
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
  if (::asc::kernel::mix::active()) {
    ::asc::kernel::cross_core::mixf::wait(flagId);
    return;
  }
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
