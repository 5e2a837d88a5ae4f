// The memory limit means what it says (reliability issue 20, item 13): live +
// cached bytes never exceed it, and a large allocation that fits under
// limit - allocated bytes succeeds once the cache is returned, even when the
// cache used to hold a split remainder sharing a segment with a live block.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "asc/runtime/memory_pool.h"
#include "asc/runtime/stream.h"
#include "counting_device.h"

namespace asc::runtime {
namespace {

constexpr size_t KiB = size_t(1) << 10;
constexpr size_t MiB = size_t(1) << 20;

using test_support::CountingDevice;

class MemoryLimitTest : public ::testing::Test {
 protected:
  void SetUp() override { s0 = Stream::create(); }
  void* must_alloc(size_t bytes) {
    Result<void*> r = pool.allocate(bytes, s0.get());
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r.value() : nullptr;
  }
  void expect_within_limit() {
    MemoryStats st = pool.stats();
    EXPECT_LE(st.reserved_bytes, pool.limit());
    EXPECT_EQ(static_cast<int64_t>(st.reserved_bytes), dev.live_bytes.load());
  }
  CountingDevice dev;
  MemoryPool pool{dev, MemoryPool::Kind::kDevice};
  std::shared_ptr<Stream> s0;
};

// The case: 64 MiB limit, 40 MiB live; the 10 MiB left of a cached
// 50 MiB segment used to stay cached beside the live block, so a 16 MiB
// request (40 + 16 <= 64) failed even after the retry emptied the cache.
TEST_F(MemoryLimitTest, LargeRequestFittingUnderLimitMinusLiveSucceeds) {
  pool.set_limit(64 * MiB);
  void* a = must_alloc(50 * MiB);
  ASSERT_TRUE(pool.free(a).ok());  // 50 MiB cached
  void* live = must_alloc(40 * MiB);
  expect_within_limit();
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.allocated_bytes, 40 * MiB);
  EXPECT_EQ(st.reserved_bytes, 40 * MiB);  // the 50 MiB segment went back: 50 + 40 > 64
  EXPECT_EQ(st.retries, 1u);
  void* b = must_alloc(16 * MiB);
  ASSERT_NE(b, nullptr);
  expect_within_limit();
  st = pool.stats();
  EXPECT_EQ(st.allocated_bytes, 56 * MiB);
  EXPECT_EQ(st.oom_count, 0u);
  // Exactly the rest of the limit still fits; one granule more does not.
  void* c = must_alloc(8 * MiB);
  EXPECT_FALSE(pool.allocate(512, s0.get()).ok());
  EXPECT_EQ(pool.stats().oom_count, 1u);
  expect_within_limit();
  for (void* p : {live, b, c}) ASSERT_TRUE(pool.free(p).ok());
  pool.empty_cache();
  EXPECT_EQ(pool.stats().reserved_bytes, 0u);
  EXPECT_EQ(dev.live_bytes.load(), 0);
}

// Without a limit the large pool still splits cached segments (reuse as before).
TEST_F(MemoryLimitTest, WithoutLimitLargeSegmentsAreStillSplit) {
  void* a = must_alloc(50 * MiB);
  ASSERT_TRUE(pool.free(a).ok());
  void* live = must_alloc(40 * MiB);
  EXPECT_EQ(live, a);
  EXPECT_EQ(pool.stats().reserved_bytes, 50 * MiB);
  EXPECT_EQ(pool.stats().os_allocations, 1u);
  ASSERT_TRUE(pool.free(live).ok());
}

// Under a limit a cached whole segment is reused whole when the rest is small
// (<= 1 MiB) and the whole block fits; otherwise the request gets its own one.
TEST_F(MemoryLimitTest, CachedSegmentReusedWholeOnlyWhenTheRestIsSmall) {
  pool.set_limit(256 * MiB);
  void* a = must_alloc(20 * MiB);
  ASSERT_TRUE(pool.free(a).ok());
  void* b = must_alloc(19 * MiB + 512 * KiB);  // rounds to 20 MiB: the same block
  EXPECT_EQ(b, a);
  EXPECT_EQ(pool.stats().allocated_bytes, 20 * MiB);
  ASSERT_TRUE(pool.free(b).ok());
  void* c = must_alloc(5 * MiB);  // 15 MiB rest: a segment of its own
  EXPECT_NE(c, a);
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.reserved_bytes, 25 * MiB);
  EXPECT_EQ(st.allocated_bytes, 5 * MiB);
  EXPECT_EQ(st.cached_blocks, 1u);  // the whole 20 MiB segment, returnable
  pool.empty_cache();
  EXPECT_EQ(pool.stats().reserved_bytes, 5 * MiB);
  ASSERT_TRUE(pool.free(c).ok());
}

// set_limit() below reserved bytes returns the cache at once.
TEST_F(MemoryLimitTest, SetLimitReturnsCacheAboveIt) {
  void* a = must_alloc(30 * MiB);
  void* b = must_alloc(12 * MiB);
  ASSERT_TRUE(pool.free(a).ok());
  EXPECT_EQ(pool.stats().reserved_bytes, 42 * MiB);
  pool.set_limit(32 * MiB);
  EXPECT_EQ(pool.stats().reserved_bytes, 12 * MiB);
  expect_within_limit();
  void* c = must_alloc(20 * MiB);
  expect_within_limit();
  for (void* p : {b, c}) ASSERT_TRUE(pool.free(p).ok());
}

// Random large requests and frees under a limit: reserved bytes never exceed
// it, and a request succeeds exactly when it fits under limit - allocated.
TEST_F(MemoryLimitTest, RandomLargeWorkloadHonoursLimitExactly) {
  const size_t limit = 96 * MiB;
  pool.set_limit(limit);
  std::mt19937_64 rng(20);
  std::vector<std::pair<void*, size_t>> live;
  size_t ok = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    if (!live.empty() && (rng() % 3 == 0)) {
      size_t k = rng() % live.size();
      ASSERT_TRUE(pool.free(live[k].first).ok());
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      // 1 MiB + 1 .. 40 MiB: all in the large pool, both rounding regimes.
      const size_t bytes = MiB + 1 + rng() % (39 * MiB);
      const size_t before = pool.stats().allocated_bytes;
      const size_t rounded = bytes <= 10 * MiB ? (bytes + 511) / 512 * 512 : (bytes + 2 * MiB - 1) / (2 * MiB) * (2 * MiB);
      Result<void*> r = pool.allocate(bytes, s0.get());
      if (before + rounded <= limit) {
        ASSERT_TRUE(r.ok()) << "step " << i << ": " << r.status().message();
        live.emplace_back(r.value(), bytes);
        ++ok;
        // A whole cached block may carry up to 1 MiB more than the rounded size.
        const size_t got = pool.stats().allocated_bytes - before;
        EXPECT_GE(got, rounded);
        EXPECT_LE(got, rounded + MiB);
      } else {
        ASSERT_FALSE(r.ok()) << "step " << i;
        EXPECT_EQ(r.status().code(), ErrorCode::kRtMemoryAllocation);
        ++refused;
      }
    }
    MemoryStats st = pool.stats();
    ASSERT_LE(st.reserved_bytes, limit) << "step " << i;
    ASSERT_GE(st.reserved_bytes, st.allocated_bytes);
  }
  EXPECT_GT(ok, 500u);
  EXPECT_GT(refused, 50u);
  for (auto& [p, n] : live) ASSERT_TRUE(pool.free(p).ok());
  pool.empty_cache();
  EXPECT_EQ(dev.live_bytes.load(), 0);
}

}  // namespace
}  // namespace asc::runtime
