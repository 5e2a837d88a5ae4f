// Sub-pools (asc::runtime::SubPool): isolation, limits, concurrent sessions,
// routing of frees from any thread, close() returning memory to the device.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "asc/runtime/memory_pool.h"
#include "asc/runtime/stream.h"
#include "counting_device.h"

namespace asc::runtime {
namespace {

constexpr size_t KiB = size_t(1) << 10;
constexpr size_t MiB = size_t(1) << 20;

using test_support::CountingDevice;

class SubPoolTest : public ::testing::Test {
 protected:
  CountingDevice dev;
  MemoryPool parent{dev, MemoryPool::Kind::kDevice};
};

TEST_F(SubPoolTest, ScopeRoutesThisThreadsAllocationsOnly) {
  auto sub = SubPool::create("s1", 0, parent);
  EXPECT_EQ(parent.sub_pool_count(), 1u);
  void* outside = parent.allocate_or_throw(4 * KiB);
  void* inside = nullptr;
  void* other_thread = nullptr;
  {
    SubPool::Scope scope(sub);
    EXPECT_EQ(SubPool::current(), sub.get());
    inside = parent.allocate_or_throw(8 * KiB);
    std::thread t([&] { other_thread = parent.allocate_or_throw(16 * KiB); });
    t.join();
  }
  EXPECT_EQ(SubPool::current(), nullptr);
  EXPECT_EQ(sub->stats().allocated_bytes, 8 * KiB);
  EXPECT_EQ(sub->stats().active_blocks, 1u);
  EXPECT_EQ(parent.stats().allocated_bytes, 4 * KiB + 16 * KiB);
  // find_allocation through the parent sees the sub-pool's block.
  void* base = nullptr;
  size_t size = 0;
  EXPECT_TRUE(parent.find_allocation(static_cast<char*>(inside) + 100, &base, &size));
  EXPECT_EQ(base, inside);
  EXPECT_EQ(size, 8 * KiB);
  // Freed through the parent (outside the scope): back to the sub-pool.
  ASSERT_TRUE(parent.free(inside).ok());
  EXPECT_EQ(sub->stats().allocated_bytes, 0u);
  EXPECT_EQ(sub->stats().free_count, 1u);
  EXPECT_EQ(parent.stats().free_count, 0u);
  // A second free is a double free, reported as such.
  Status twice = parent.free(inside);
  EXPECT_EQ(twice.code(), ErrorCode::kRtMemoryFree);
  EXPECT_NE(twice.message().find("double free"), std::string::npos) << twice.message();
  ASSERT_TRUE(parent.free(outside).ok());
  ASSERT_TRUE(parent.free(other_thread).ok());
  sub->close();
  EXPECT_TRUE(sub->drained());
  EXPECT_EQ(parent.sub_pool_count(), 0u);
}

TEST_F(SubPoolTest, NestedScopesInnermostWinsAndOrderIsChecked) {
  auto a = SubPool::create("a", 0, parent);
  auto b = SubPool::create("b", 0, parent);
  SubPool::Scope sa(a);
  void* pa = parent.allocate_or_throw(KiB);
  {
    SubPool::Scope sb(b);
    void* pb = parent.allocate_or_throw(KiB);
    EXPECT_EQ(b->stats().active_blocks, 1u);
    // Ending the outer scope first is refused and changes nothing.
    Status bad = sa.end();
    EXPECT_EQ(bad.code(), ErrorCode::kInvalidParam);
    EXPECT_NE(bad.message().find("reverse order"), std::string::npos) << bad.message();
    EXPECT_EQ(SubPool::current(), b.get());
    ASSERT_TRUE(parent.free(pb).ok());
  }
  EXPECT_EQ(SubPool::current(), a.get());
  EXPECT_EQ(a->stats().active_blocks, 1u);
  ASSERT_TRUE(parent.free(pa).ok());
  ASSERT_TRUE(sa.end().ok());
  EXPECT_TRUE(sa.end().ok());  // twice: no-op
  EXPECT_EQ(SubPool::current(), nullptr);
  a->close();
  b->close();
}

TEST_F(SubPoolTest, LimitFailsOnlyThatSessionAndNamesIt) {
  auto small = SubPool::create("session-7", 1 * MiB, parent);
  auto big = SubPool::create("session-8", 0, parent);
  std::vector<void*> held;
  {
    SubPool::Scope s(small);
    held.push_back(parent.allocate_or_throw(512 * KiB));
    Result<void*> r = parent.allocate(800 * KiB);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kRtMemoryAllocation);
    const std::string& m = r.status().message();
    EXPECT_NE(m.find("sub-pool 'session-7'"), std::string::npos) << m;
    EXPECT_NE(m.find("limit 1048576 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("requested 819200 bytes"), std::string::npos) << m;
    EXPECT_EQ(small->stats().oom_count, 1u);
    EXPECT_LE(small->stats().reserved_bytes, 1 * MiB);
  }
  {
    SubPool::Scope s(big);  // the other session still gets memory
    held.push_back(parent.allocate_or_throw(8 * MiB));
  }
  EXPECT_EQ(big->stats().allocated_bytes, 8 * MiB);
  EXPECT_EQ(parent.stats().oom_count, 0u);
  for (void* p : held) ASSERT_TRUE(parent.free(p).ok());
  small->close();
  big->close();
  EXPECT_EQ(parent.sub_pool_count(), 0u);
}

TEST_F(SubPoolTest, BlocksAreNeverSharedBetweenSessions) {
  auto a = SubPool::create("a", 0, parent);
  auto b = SubPool::create("b", 0, parent);
  void* pa = nullptr;
  {
    SubPool::Scope s(a);
    pa = parent.allocate_or_throw(64 * KiB);
  }
  ASSERT_TRUE(parent.free(pa).ok());  // cached in a
  const size_t a_cached = a->stats().cached_blocks;
  EXPECT_GE(a_cached, 1u);
  void* pb = nullptr;
  {
    SubPool::Scope s(b);
    pb = parent.allocate_or_throw(64 * KiB);  // must not reuse a's cached block
  }
  void* base = nullptr;
  EXPECT_TRUE(b->pool().find_allocation(pb, &base));
  EXPECT_FALSE(a->pool().find_allocation(pb));
  EXPECT_EQ(a->stats().cached_blocks, a_cached);
  EXPECT_EQ(a->stats().cache_hits, 0u);
  EXPECT_EQ(b->stats().cache_hits, 0u);
  ASSERT_TRUE(parent.free(pb).ok());
  a->close();
  b->close();
}

TEST_F(SubPoolTest, CloseReturnsMemoryNowAndTheRestOnLastFree) {
  const int64_t before = dev.live_bytes.load();
  auto sub = SubPool::create("s", 0, parent);
  void* keep = nullptr;
  {
    SubPool::Scope s(sub);
    void* tmp = parent.allocate_or_throw(3 * MiB);  // a large segment of its own
    keep = parent.allocate_or_throw(20 * MiB);
    ASSERT_TRUE(parent.free(tmp).ok());
  }
  EXPECT_GE(dev.live_bytes.load() - before, int64_t(23 * MiB));
  sub->close();
  // The cached 3 MiB segment went back at once; the live 20 MiB one stays.
  EXPECT_EQ(dev.live_bytes.load() - before, int64_t(20 * MiB));
  EXPECT_TRUE(sub->closed());
  EXPECT_FALSE(sub->drained());
  EXPECT_EQ(parent.sub_pool_count(), 1u);
  // Closed: no new allocations (routed or direct).
  {
    SubPool::Scope s(sub);
    Result<void*> r = parent.allocate(KiB);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("sub-pool 's' is closed"), std::string::npos) << r.status().message();
  }
  // The last free (from another thread) drains it: everything is back.
  std::thread t([&] { ASSERT_TRUE(parent.free(keep).ok()); });
  t.join();
  EXPECT_TRUE(sub->drained());
  EXPECT_EQ(parent.sub_pool_count(), 0u);
  EXPECT_EQ(dev.live_bytes.load(), before);
  sub->close();  // idempotent
}

TEST_F(SubPoolTest, NoLeakOverManySessionLifetimes) {
  const int64_t before = dev.live_bytes.load();
  for (int round = 0; round < 50; ++round) {
    auto sub = SubPool::create("r" + std::to_string(round), 4 * MiB, parent);
    std::vector<void*> ps;
    {
      SubPool::Scope s(sub);
      for (size_t n : {size_t(100), 4 * KiB, 300 * KiB, 2 * MiB}) ps.push_back(parent.allocate_or_throw(n));
    }
    for (size_t i = 0; i + 1 < ps.size(); ++i) ASSERT_TRUE(parent.free(ps[i]).ok());
    sub->close();
    ASSERT_TRUE(parent.free(ps.back()).ok());  // after close
    ASSERT_TRUE(sub->drained());
  }
  EXPECT_EQ(parent.sub_pool_count(), 0u);
  EXPECT_EQ(dev.live_bytes.load(), before);
}

TEST_F(SubPoolTest, ConcurrentSessionsKeepTheirOwnAccounts) {
  constexpr int kThreads = 4;
  constexpr int kIters = 2000;
  std::vector<std::shared_ptr<SubPool>> subs;
  for (int i = 0; i < kThreads; ++i) subs.push_back(SubPool::create("c" + std::to_string(i), 8 * MiB, parent));
  std::atomic<int> failures{0};
  std::atomic<int> ooms{0};
  std::vector<std::thread> ts;
  // Blocks are freed by the next thread (cross-thread frees), and each thread
  // allocates up to its limit at times.
  std::vector<std::vector<void*>> handoff(kThreads);
  std::vector<std::mutex> mus(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      SubPool::Scope s(subs[t]);
      for (int i = 0; i < kIters; ++i) {
        const size_t n = size_t(512) << (i % 9);  // 512 B .. 128 KiB
        Result<void*> r = parent.allocate(n);
        if (!r.ok()) {
          ++ooms;
          continue;
        }
        if (SubPool::current() != subs[t].get() || !subs[t]->pool().find_allocation(r.value())) ++failures;
        std::memset(r.value(), t, n);
        void* own_old = nullptr;
        {
          // The next thread frees our blocks; if it is behind (or done), we free
          // our oldest one ourselves, so at most 128 blocks per session are live.
          std::lock_guard<std::mutex> lk(mus[(t + 1) % kThreads]);
          auto& q = handoff[(t + 1) % kThreads];
          q.push_back(r.value());
          for (size_t j = 0; j + 1 < q.size() && q.size() > 32 * kThreads; ++j) {
            if (subs[t]->pool().find_allocation(q[j])) {
              own_old = q[j];
              q.erase(q.begin() + static_cast<std::ptrdiff_t>(j));
              break;
            }
          }
        }
        if (own_old && !parent.free(own_old).ok()) ++failures;
        std::vector<void*> mine;
        {
          std::lock_guard<std::mutex> lk(mus[t]);
          if (handoff[t].size() > 8) mine.swap(handoff[t]);
        }
        for (void* p : mine)
          if (!parent.free(p).ok()) ++failures;
      }
    });
  }
  for (auto& th : ts) th.join();
  for (int t = 0; t < kThreads; ++t)
    for (void* p : handoff[t]) ASSERT_TRUE(parent.free(p).ok());
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(ooms.load(), 0);  // bounded blocks in flight stay under each 8 MiB limit
  for (auto& s : subs) {
    MemoryStats st = s->stats();
    EXPECT_EQ(st.allocated_bytes, 0u);
    EXPECT_EQ(st.allocation_count, st.free_count);
    EXPECT_LE(st.peak_reserved_bytes, 8 * MiB);
    s->close();
    EXPECT_TRUE(s->drained());
  }
  EXPECT_EQ(parent.stats().allocation_count, 0u);
  EXPECT_EQ(parent.sub_pool_count(), 0u);
}

TEST_F(SubPoolTest, UnknownPointerIsStillAnError) {
  auto sub = SubPool::create("s", 0, parent);
  int x = 0;
  Status st = parent.free(&x);
  EXPECT_EQ(st.code(), ErrorCode::kRtMemoryFree);
  EXPECT_NE(st.message().find("was not allocated by this pool"), std::string::npos) << st.message();
  EXPECT_EQ(parent.free(nullptr).code(), ErrorCode::kRtMemoryFree);
  auto s0 = Stream::create();
  EXPECT_EQ(parent.record_stream(&x, *s0).code(), ErrorCode::kInvalidParam);
  sub->close();
}

TEST_F(SubPoolTest, RecordStreamReachesTheSubPool) {
  auto sub = SubPool::create("s", 0, parent);
  auto s1 = Stream::create();
  void* p = nullptr;
  {
    SubPool::Scope s(sub);
    p = parent.allocate_or_throw(KiB);
  }
  EXPECT_TRUE(parent.record_stream(p, *s1).ok());
  ASSERT_TRUE(parent.free(p).ok());
  sub->close();
  EXPECT_TRUE(sub->drained());
}

TEST_F(SubPoolTest, ScopeEndOnAnotherThreadIsRefused) {
  auto sub = SubPool::create("s", 0, parent);
  SubPool::Scope scope(sub);
  Status st;
  std::thread t([&] { st = scope.end(); });
  t.join();
  EXPECT_EQ(st.code(), ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("thread that entered it"), std::string::npos) << st.message();
  ASSERT_TRUE(scope.end().ok());
  sub->close();
}

// A stream task inherits the sub-pool of the thread that enqueued it: its
// allocations on the stream's worker go to that pool, and the routing does not
// leak into the worker's later tasks or into tasks enqueued outside a scope.
TEST_F(SubPoolTest, StreamTaskInheritsTheEnqueuingThreadsSubPool) {
  auto sub = SubPool::create("sess", 0, parent);
  auto s = Stream::create();
  void* in_task = nullptr;
  void* after = nullptr;
  SubPool* seen_in_task = nullptr;
  SubPool* seen_after = reinterpret_cast<SubPool*>(1);
  {
    SubPool::Scope scope(sub);
    s->enqueue("alloc_in_scope", [&] {
      seen_in_task = SubPool::current();
      in_task = parent.allocate_or_throw(8 * KiB);
    });
  }
  // enqueued after the scope ended: the default path
  s->enqueue("alloc_outside", [&] {
    seen_after = SubPool::current();
    after = parent.allocate_or_throw(4 * KiB);
  });
  ASSERT_TRUE(s->synchronize().ok());
  EXPECT_EQ(seen_in_task, sub.get());
  EXPECT_EQ(seen_after, nullptr);
  EXPECT_EQ(sub->stats().allocated_bytes, 8 * KiB);
  EXPECT_EQ(parent.stats().allocated_bytes, 4 * KiB);
  ASSERT_TRUE(parent.free(in_task).ok());
  ASSERT_TRUE(parent.free(after).ok());
  EXPECT_EQ(sub->stats().allocated_bytes, 0u);
}

// The inherited scope keeps the sub-pool alive and counts against its limit:
// a task over the session's quota fails on the stream (its error names the
// sub-pool) while the parent and other sessions are untouched.
TEST_F(SubPoolTest, StreamTaskHitsTheSessionQuotaAlone) {
  auto sub = SubPool::create("quota-sess", 64 * KiB, parent);
  auto s = Stream::create();
  std::atomic<bool> ran{false};
  {
    SubPool::Scope scope(sub);
    s->enqueue("too_big", [&] {
      ran = true;
      (void)parent.allocate_or_throw(MiB);
    });
  }
  std::weak_ptr<SubPool> weak = sub;
  sub.reset();  // the queued task still holds the pool
  Status st = s->synchronize();
  EXPECT_TRUE(ran.load());
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("quota-sess"), std::string::npos) << st.message();
  void* p = parent.allocate_or_throw(MiB);  // the parent has no quota
  ASSERT_TRUE(parent.free(p).ok());
  // the task's capture was released after it ran: nothing else holds the pool but the registry
  auto again = weak.lock();
  ASSERT_TRUE(again);
  again->close();
  EXPECT_TRUE(again->drained());
}

// Nested: a task enqueued under an inner scope uses the inner pool; a task
// that itself enqueues on another stream passes its inherited pool on.
TEST_F(SubPoolTest, InheritanceFollowsNestingAndChainsAcrossStreams) {
  auto a = SubPool::create("a", 0, parent);
  auto b = SubPool::create("b", 0, parent);
  auto s1 = Stream::create();
  auto s2 = Stream::create();
  void* pa = nullptr;
  void* pb = nullptr;
  {
    SubPool::Scope sa(a);
    {
      SubPool::Scope sb(b);
      s1->enqueue("in_b", [&] {
        pb = parent.allocate_or_throw(2 * KiB);
      });
    }
    s1->enqueue("in_a_chains", [&] {
      s2->enqueue("chained", [&] { pa = parent.allocate_or_throw(3 * KiB); });
    });
  }
  ASSERT_TRUE(s1->synchronize().ok());
  ASSERT_TRUE(s2->synchronize().ok());
  EXPECT_EQ(b->stats().allocated_bytes, 2 * KiB);
  EXPECT_EQ(a->stats().allocated_bytes, 3 * KiB);
  EXPECT_EQ(parent.stats().allocated_bytes, 0u);
  ASSERT_TRUE(parent.free(pa).ok());
  ASSERT_TRUE(parent.free(pb).ok());
  a->close();
  b->close();
  EXPECT_TRUE(a->drained());
  EXPECT_TRUE(b->drained());
}

}  // namespace
}  // namespace asc::runtime
