// Cross-block synchronisation: SyncAll (hard and soft), CrossCoreSetFlag /
// WaitFlag mode 0, IBSet / IBWait and WaitPreBlock / NotifyNextBlock, with
// more blocks than cores (the runtime makes them resident), and the launch
// errors of a wait that can never end or of a block that fails meanwhile.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <vector>

#include "asc/runtime/device.h"
#include "kernel_test_util.h"

namespace {

uint32_t cores() { return static_cast<uint32_t>(asc::runtime::cpu_device().properties().num_cores); }

// Every block writes its slot, meets the others, then reads every slot: a
// block that passed the barrier early would see a stale slot. Three rounds,
// each with new values, so the n-th SyncAll must pair with the n-th.
void check_rounds(uint32_t blocks) {
  std::vector<int64_t> slot(blocks, -1);
  std::vector<int64_t> sums(static_cast<size_t>(blocks) * 3, 0);
  int64_t* s = slot.data();
  int64_t* out = sums.data();
  kt::run_or_throw("sync_all_rounds", blocks, [=] {
    const int64_t me = AscendC::GetBlockIdx();
    const int64_t n = AscendC::GetBlockNum();
    for (int64_t r = 0; r < 3; ++r) {
      s[me] = (r + 1) * 1000 + me;
      AscendC::SyncAll();
      int64_t sum = 0;
      for (int64_t b = 0; b < n; ++b) sum += s[b];
      out[r * n + me] = sum;
      AscendC::SyncAll();  // nobody rewrites a slot before all have read it
    }
  });
  const int64_t n = blocks;
  for (int64_t r = 0; r < 3; ++r) {
    const int64_t want = (r + 1) * 1000 * n + n * (n - 1) / 2;
    for (int64_t b = 0; b < n; ++b) EXPECT_EQ(sums[r * n + b], want) << "round " << r << " block " << b;
  }
}

TEST(BlockSync, SyncAllWithMoreBlocksThanCores) {
  check_rounds(1);
  check_rounds(cores());
  check_rounds(cores() * 4 + 1);
  check_rounds(48);  // an Ascend 910B's AIV count
}

TEST(BlockSync, OrdinaryLaunchesAfterResidentOnes) {
  check_rounds(16);
  // Helper threads of the resident launch must not disturb later launches.
  std::vector<int> hit(1000, 0);
  int* h = hit.data();
  kt::run_or_throw("plain_after_sync", 1000, [=] { h[AscendC::GetBlockIdx()] += 1; });
  for (int v : hit) EXPECT_EQ(v, 1);
}

TEST(BlockSync, SyncAllSeesGmWrittenThroughDataCopy) {
  // DataCopy out before the barrier, DataCopy in after it: the copy elision
  // must have made the first block's loads real before the others write.
  constexpr uint32_t kBlocks = 6, kLen = 64;
  std::vector<float> gm(kBlocks * kLen), res(kBlocks * kLen);
  for (size_t i = 0; i < gm.size(); ++i) gm[i] = static_cast<float>(i);
  float* g = gm.data();
  float* o = res.data();
  kt::run_or_throw("sync_all_copy", kBlocks, [=] {
    const int64_t me = AscendC::GetBlockIdx();
    AscendC::TPipe pipe;
    AscendC::TBuf<> a, b;
    pipe.InitBuffer(a, kLen * 4);
    pipe.InitBuffer(b, kLen * 4);
    AscendC::GlobalTensor<float> all, outg;
    all.SetGlobalBuffer(g, kBlocks * kLen);
    outg.SetGlobalBuffer(o, kBlocks * kLen);
    auto mine = a.Get<float>();
    auto next = b.Get<float>();
    const int64_t nb = (me + 1) % kBlocks;
    AscendC::DataCopy(next, all[nb * kLen], kLen);  // the neighbour's old values
    AscendC::SyncAll();
    AscendC::DataCopy(mine, all[me * kLen], kLen);
    AscendC::Muls(mine, mine, 2.0f, kLen);
    AscendC::DataCopy(all[me * kLen], mine, kLen);  // overwrite own slice
    AscendC::SyncAll();
    AscendC::DataCopy(outg[me * kLen], next, kLen);  // must be the OLD neighbour values
  });
  for (uint32_t b = 0; b < kBlocks; ++b)
    for (uint32_t i = 0; i < kLen; ++i) {
      const uint32_t nb = (b + 1) % kBlocks;
      ASSERT_EQ(res[b * kLen + i], static_cast<float>(nb * kLen + i)) << b << " " << i;
      ASSERT_EQ(gm[b * kLen + i], 2.0f * static_cast<float>(b * kLen + i));
    }
}

TEST(BlockSync, BlockThatNeverArrivesIsADeadlockError) {
  const auto t0 = std::chrono::steady_clock::now();
  const asc::Status st = kt::run("sync_all_missing", 5, [] {
    if (AscendC::GetBlockIdx() == 3) return;  // never reaches the barrier
    AscendC::SyncAll();
  });
  ASSERT_FALSE(st.ok());
  const std::string& m = st.message();
  EXPECT_NE(m.find("[SyncAll]"), std::string::npos) << m;
  EXPECT_NE(m.find("deadlock"), std::string::npos) << m;
  EXPECT_NE(m.find("sync_all_missing"), std::string::npos) << m;
  EXPECT_NE(m.find("barrier #1"), std::string::npos) << m;
  EXPECT_NE(m.find("block 3 ended without arriving"), std::string::npos) << m;
  EXPECT_NE(m.find("blocks 0, 1, 2, 4 wait"), std::string::npos) << m;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

TEST(BlockSync, UnequalBarrierCountsAreADeadlockError) {
  // Block 0 calls SyncAll twice, the others once: the second barrier hangs on the NPU.
  const asc::Status st = kt::run("sync_all_twice", 3, [] {
    AscendC::SyncAll();
    if (AscendC::GetBlockIdx() == 0) AscendC::SyncAll();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("block 0 waits at SyncAll (barrier #2"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("blocks 1, 2 ended without arriving"), std::string::npos) << st.message();
}

TEST(BlockSync, FailingBlockEndsTheOthersWaits) {
  const asc::Status st = kt::run("sync_all_fail", 4, [] {
    if (AscendC::GetBlockIdx() == 2)
      asc::kernel::fail(asc::ErrorCode::kInvalidParam, "Test", "block two failed on purpose");
    AscendC::SyncAll();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("block two failed on purpose"), std::string::npos) << st.message();
}

TEST(BlockSync, SoftSyncAllChecksItsWorkspace) {
  constexpr uint32_t kBlocks = 4;
  std::vector<int32_t> ws(kBlocks * 8, 0);
  std::vector<int64_t> vals(kBlocks, 0), seen(kBlocks, 0);
  int32_t* w = ws.data();
  int64_t* v = vals.data();
  int64_t* sn = seen.data();
  kt::run_or_throw("soft_sync_all", kBlocks, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> ub;
    pipe.InitBuffer(ub, kBlocks * 32);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(w, kBlocks * 8);
    const int64_t me = AscendC::GetBlockIdx();
    v[me] = me + 1;
    AscendC::SyncAll(g, ub.Get<int32_t>());
    sn[me] = v[(me + 1) % kBlocks];
  });
  for (uint32_t b = 0; b < kBlocks; ++b) {
    EXPECT_EQ(seen[b], static_cast<int64_t>((b + 1) % kBlocks + 1));
    EXPECT_EQ(ws[b * 8], 1);  // each block's arrival count
  }
  // A UB workspace below GetBlockNum() * 32 bytes is refused, naming the sizes.
  asc::Status st = kt::run("soft_sync_small", kBlocks, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> ub;
    pipe.InitBuffer(ub, 32);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(w, kBlocks * 8);
    AscendC::SyncAll(g, ub.Get<int32_t>());
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("ubWorkspace"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("32"), std::string::npos) << st.message();
  // usedCores above the block count.
  st = kt::run("soft_sync_cores", 2, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> ub;
    pipe.InitBuffer(ub, 64);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(w, 16);
    AscendC::SyncAll(g, ub.Get<int32_t>(), 3);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("usedCores 3"), std::string::npos) << st.message();
}

TEST(BlockSync, SoftSyncAllOfSomeCores) {
  // usedCores = 2: blocks 0 and 1 meet; block 2 never calls SyncAll.
  std::vector<int32_t> ws(3 * 8, 0);
  std::vector<int64_t> v(3, 0), seen(2, 0);
  int32_t* w = ws.data();
  int64_t* vp = v.data();
  int64_t* sp = seen.data();
  kt::run_or_throw("soft_sync_some", 3, [=] {
    const int64_t me = AscendC::GetBlockIdx();
    vp[me] = 10 + me;
    if (me == 2) return;
    AscendC::TPipe pipe;
    AscendC::TBuf<> ub;
    pipe.InitBuffer(ub, 3 * 32);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(w, 3 * 8);
    AscendC::SyncAll(g, ub.Get<int32_t>(), 2);
    sp[me] = vp[1 - me];
  });
  EXPECT_EQ(seen[0], 11);
  EXPECT_EQ(seen[1], 10);
}

TEST(BlockSync, CrossCoreMode0IsABarrierAcrossBlocks) {
  const uint32_t blocks = cores() + 5;
  std::vector<int64_t> slot(blocks, 0), sums(blocks, 0);
  int64_t* s = slot.data();
  int64_t* out = sums.data();
  kt::run_or_throw("cross_core_mode0_all", blocks, [=] {
    const int64_t me = AscendC::GetBlockIdx();
    s[me] = me * me;
    AscendC::CrossCoreSetFlag<0x0, PIPE_MTE3>(5);
    AscendC::CrossCoreWaitFlag(5);
    int64_t sum = 0;
    for (int64_t b = 0; b < AscendC::GetBlockNum(); ++b) sum += s[b];
    out[me] = sum;
  });
  int64_t want = 0;
  for (int64_t b = 0; b < blocks; ++b) want += b * b;
  for (int64_t v : sums) EXPECT_EQ(v, want);
  // A block that never sets the flag: the waits of the others can never end.
  const asc::Status st = kt::run("cross_core_mode0_missing", 4, [] {
    if (AscendC::GetBlockIdx() == 1) return;
    AscendC::CrossCoreSetFlag<0x0, PIPE_MTE3>(2);
    AscendC::CrossCoreWaitFlag(2);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("[CrossCoreWaitFlag]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("mode-0 flag 2"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("block 1 ended without arriving"), std::string::npos) << st.message();
}

TEST(BlockSync, IBSetIBWaitChainBlocks) {
  // Block b waits for block b-1's IBSet, adds its value to the running total in
  // GM and signals block b+1: the result is the prefix sum in block order.
  constexpr uint32_t kBlocks = 7;
  std::vector<int32_t> ws(kBlocks * 8 * 1 + 8, 0);
  std::vector<int64_t> total(1, 0), order;
  std::mutex mu;
  int32_t* w = ws.data();
  int64_t* t = total.data();
  auto* ord = &order;
  auto* m = &mu;
  kt::run_or_throw("ib_chain", kBlocks, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> ub;
    pipe.InitBuffer(ub, 32);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(w, kBlocks * 8 + 8);
    const int32_t me = static_cast<int32_t>(AscendC::GetBlockIdx());
    if (me > 0) AscendC::IBWait(g, ub.Get<int32_t>(), me - 1, 0);
    *t = *t * 10 + me;
    {
      std::lock_guard<std::mutex> lock(*m);
      ord->push_back(me);
    }
    if (me + 1 < static_cast<int32_t>(kBlocks)) AscendC::IBSet(g, ub.Get<int32_t>(), me, 0);
  });
  EXPECT_EQ(total[0], 123456);  // 0,1,...,6 in order
  std::vector<int64_t> want(kBlocks);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(order, want);
  for (int32_t v : ws) EXPECT_EQ(v, 0);  // every IBSet was consumed by its IBWait
  // An IBWait nobody sets.
  const asc::Status st = kt::run("ib_missing", 2, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> ub;
    pipe.InitBuffer(ub, 32);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(w, kBlocks * 8 + 8);
    if (AscendC::GetBlockIdx() == 1) AscendC::IBWait(g, ub.Get<int32_t>(), 0, 1);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("[IBWait]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("block 0 ended without arriving"), std::string::npos) << st.message();
}

TEST(BlockSync, WaitPreBlockRunsSectionsInBlockOrder) {
  constexpr uint32_t kBlocks = 5, kRounds = 3;
  std::vector<int32_t> ws(kBlocks * 8, 7);  // need not be zeroed
  std::vector<int64_t> order;
  std::mutex mu;
  int32_t* w = ws.data();
  auto* ord = &order;
  auto* m = &mu;
  kt::run_or_throw("determine", kBlocks, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> ub;
    pipe.InitBuffer(ub, kBlocks * 32 + 32);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(w, kBlocks * 8);
    auto u = ub.Get<int32_t>();
    AscendC::InitDetermineComputeWorkspace(g, u);
    for (uint32_t r = 0; r < kRounds; ++r) {
      AscendC::WaitPreBlock(g, u);
      {
        std::lock_guard<std::mutex> lock(*m);
        ord->push_back(AscendC::GetBlockIdx());
      }
      AscendC::NotifyNextBlock(g, u);
    }
  });
  std::vector<int64_t> want;
  for (uint32_t r = 0; r < kRounds; ++r)
    for (uint32_t b = 0; b < kBlocks; ++b) want.push_back(b);
  EXPECT_EQ(order, want);
  // The UB workspace must hold GetBlockNum() * 32 + 32 bytes.
  const asc::Status st = kt::run("determine_small", 2, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> ub;
    pipe.InitBuffer(ub, 64);
    AscendC::GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(w, kBlocks * 8);
    auto u = ub.Get<int32_t>();
    AscendC::InitDetermineComputeWorkspace(g, u);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("InitDetermineComputeWorkspace"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("24"), std::string::npos) << st.message();
}

TEST(BlockSync, ConcurrentResidentLaunchesOnTwoStreams) {
  // Two streams each run a SyncAll kernel with more blocks than cores; both
  // must finish (each launch gets its own resident threads).
  auto s1 = asc::runtime::Stream::create();
  auto s2 = asc::runtime::Stream::create();
  std::atomic<int> done{0};
  std::atomic<int>* d = &done;
  auto body = [d] {
    AscendC::SyncAll();
    AscendC::SyncAll();
    d->fetch_add(1);
  };
  const uint32_t blocks = cores() * 3;
  asc::launch("two_streams_a", body, blocks, s1.get());
  asc::launch("two_streams_b", body, blocks, s2.get());
  ASSERT_TRUE(s1->synchronize().ok());
  ASSERT_TRUE(s2->synchronize().ok());
  EXPECT_EQ(done.load(), static_cast<int>(2 * blocks));
}

TEST(BlockSync, GroupBarrierWaitersSeeEveryArrival) {
  constexpr uint32_t kArrive = 2, kWait = 6, kRounds = 2;
  std::vector<uint8_t> ws(kWait * 512, 0);
  std::vector<int64_t> slot(kArrive, 0), seen(kWait * kRounds, -1);
  uint8_t* w = ws.data();
  int64_t* sl = slot.data();
  int64_t* sn = seen.data();
  kt::run_or_throw("group_barrier", kArrive + kWait, [=] {
    AscendC::GroupBarrier<AscendC::PipeMode::MTE3_MODE> bar(w, kArrive, kWait);
    const uint32_t id = static_cast<uint32_t>(AscendC::GetBlockIdx());
    for (uint32_t r = 0; r < kRounds; ++r) {
      if (id < kArrive) {
        // Round r+1 may only be written after every waiter read round r.
        if (r > 0) AscendC::SyncAll();
        sl[id] = (r + 1) * 100 + id;
        bar.Arrive(id);
      } else {
        bar.Wait(id - kArrive);
        sn[r * kWait + (id - kArrive)] = sl[0] + sl[1];
        if (r + 1 < kRounds) AscendC::SyncAll();
      }
    }
    EXPECT_EQ(bar.GetWorkspaceLen(), (kArrive + kWait) * 32u);
  });
  for (uint32_t r = 0; r < kRounds; ++r)
    for (uint32_t j = 0; j < kWait; ++j) EXPECT_EQ(seen[r * kWait + j], 2 * (r + 1) * 100 + 1) << r << " " << j;
  // Wait with an index outside the group.
  const asc::Status st = kt::run("group_barrier_bad", 1, [=] {
    AscendC::GroupBarrier<AscendC::PipeMode::MTE3_MODE> bar(w, kArrive, kWait);
    bar.Wait(kWait);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("waitIndex 6"), std::string::npos) << st.message();
}

TEST(BlockSync, PollingGmReachesAWriterThatHadNotStarted) {
  // Block 0 spins on a GM flag that the launch's last block writes; with more
  // blocks than cores that block starts only because the polling does.
  const uint32_t blocks = cores() * 3 + 1;
  std::vector<int32_t> gm(2, 0);
  std::vector<int32_t> got(1, 0);
  int32_t* g = gm.data();
  int32_t* o = got.data();
  kt::run_or_throw("poll_gm", blocks, [=] {
    const int64_t me = AscendC::GetBlockIdx();
    if (me == AscendC::GetBlockNum() - 1) {
      AscendC::WriteGmByPassDCache<int32_t>(g + 1, 42);
      AscendC::DataSyncBarrier<AscendC::MemDsbT::DDR>();
      AscendC::WriteGmByPassDCache<int32_t>(g, 1);
    } else if (me == 0) {
      while (AscendC::ReadGmByPassDCache<int32_t>(g) != 1) {
      }
      *o = AscendC::ReadGmByPassDCache<int32_t>(g + 1);
    } else {
      while (AscendC::ReadGmByPassDCache<int32_t>(g) != 1) {  // everyone else polls too
      }
    }
  });
  EXPECT_EQ(got[0], 42);
}

TEST(BlockSync, MutexPairingIsChecked) {
  kt::run_or_throw("mutex_ok", 3, [] {
    AscendC::MutexID a = AscendC::AllocMutexID();
    AscendC::MutexID b = AscendC::AllocMutexID();
    EXPECT_NE(a, b);
    for (int i = 0; i < 3; ++i) {
      AscendC::Mutex::Lock<PIPE_MTE2>(a);
      AscendC::Mutex::Unlock<PIPE_MTE2>(a);
      AscendC::Mutex::Lock<PIPE_V>(b);
      AscendC::Mutex::Unlock<PIPE_V>(b);
    }
    AscendC::ReleaseMutexID(a);
    AscendC::ReleaseMutexID(b);
  });
  asc::Status st = kt::run("mutex_double", 1, [] {
    AscendC::Mutex::Lock<PIPE_V>(0);
    AscendC::Mutex::Lock<PIPE_V>(0);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("MutexID 0 is already locked"), std::string::npos) << st.message();
  st = kt::run("mutex_pipe", 1, [] {
    AscendC::Mutex::Lock<PIPE_V>(4);
    AscendC::Mutex::Unlock<PIPE_MTE3>(4);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("the pipes must be the same"), std::string::npos) << st.message();
  st = kt::run("mutex_exhausted", 1, [] {
    for (int i = 0; i < 29; ++i) AscendC::AllocMutexID();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("all 28 MutexIDs are allocated"), std::string::npos) << st.message();
  // A lock left by an earlier block on the same thread does not leak.
  kt::run_or_throw("mutex_fresh", 1, [] {
    AscendC::Mutex::Lock<PIPE_V>(1);
  });
  kt::run_or_throw("mutex_fresh2", 1, [] {
    AscendC::Mutex::Lock<PIPE_V>(1);
    AscendC::Mutex::Unlock<PIPE_V>(1);
  });
}

TEST(BlockSync, MoreBlocksThanCanBeResidentIsAClearError) {
  // cores + 1024 helper threads at most: a barrier over more blocks fails at
  // once (naming CANN's blockDim <= cores rule), and the device stays usable.
  const uint32_t blocks = cores() + 1024 + 50;
  const asc::Status st = kt::run("too_many_resident", blocks, [] { AscendC::SyncAll(); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("must run at once"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("blockDim <= the core count"), std::string::npos) << st.message();
  check_rounds(cores() + 3);
}

}  // namespace
