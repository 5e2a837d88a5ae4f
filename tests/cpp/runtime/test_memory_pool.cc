// Tests of the caching memory pool (include/asc/runtime/memory_pool.h).
//
// Most tests run a private MemoryPool over FakeDevice, which counts the OS
// allocations the pool makes and can be told to fail; stream-aware tests use
// real Streams whose worker is held by a task blocked on a promise.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "asc/runtime/memory_pool.h"
#include "asc/runtime/stream.h"

namespace asc::runtime {
namespace {

constexpr size_t KiB = size_t(1) << 10;
constexpr size_t MiB = size_t(1) << 20;

class FakeDevice : public Device {
 public:
  FakeDevice() { props_.name = "fake"; }
  const DeviceProperties& properties() const override { return props_; }

  Result<void*> os_allocate(size_t bytes) override { return raw_allocate(bytes, device_allocs); }
  void os_free(void* ptr, size_t bytes) noexcept override { raw_free(ptr, bytes, device_frees); }
  Result<void*> os_allocate_host(size_t bytes) override { return raw_allocate(bytes, host_allocs); }
  void os_free_host(void* ptr, size_t bytes) noexcept override { raw_free(ptr, bytes, host_frees); }

  Status copy(void* dst, const void* src, size_t bytes, MemcpyKind) override {
    std::memcpy(dst, src, bytes);
    return Status::OK();
  }
  Status run_kernel(const KernelInvocation&) override { return Status::NotSupported("run_kernel", "fake"); }

  std::atomic<int> device_allocs{0}, device_frees{0}, host_allocs{0}, host_frees{0};
  std::atomic<int64_t> live_bytes{0};
  std::atomic<bool> fail{false};  // every OS allocation fails while set

 private:
  Result<void*> raw_allocate(size_t bytes, std::atomic<int>& counter) {
    if (fail) return Status::OutOfMemory("os_allocate", "fake device is out of memory");
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) return Status::OutOfMemory("os_allocate", "aligned_alloc failed");
    ++counter;
    live_bytes += static_cast<int64_t>(bytes);
    return p;
  }
  void raw_free(void* p, size_t bytes, std::atomic<int>& counter) noexcept {
    ++counter;
    live_bytes -= static_cast<int64_t>(bytes);
    std::free(p);
  }
  DeviceProperties props_;
};

// A stream with pending work until release() is called.
class BlockedStream {
 public:
  BlockedStream() : stream(Stream::create()) {
    std::shared_future<void> f = gate_.get_future().share();
    stream->enqueue("blocker", [f] { f.wait(); });
  }
  ~BlockedStream() { release(); }
  void release() {
    if (!released_) {
      released_ = true;
      gate_.set_value();
      stream->synchronize();
    }
  }
  std::shared_ptr<Stream> stream;

 private:
  std::promise<void> gate_;
  bool released_ = false;
};

void* must_alloc(MemoryPool& pool, size_t bytes, Stream* s = nullptr) {
  Result<void*> r = pool.allocate(bytes, s);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : nullptr;
}

class MemoryPoolTest : public ::testing::Test {
 protected:
  void SetUp() override { s0 = Stream::create(); }
  FakeDevice dev;
  MemoryPool pool{dev, MemoryPool::Kind::kDevice};
  std::shared_ptr<Stream> s0;  // an idle stream
};

TEST_F(MemoryPoolTest, ReusesFreedBlock) {
  void* p = must_alloc(pool, 1000, s0.get());
  ASSERT_TRUE(pool.free(p).ok());
  void* q = must_alloc(pool, 1000, s0.get());
  EXPECT_EQ(p, q);
  // Any request with the same rounded size (512-byte classes) reuses it too.
  ASSERT_TRUE(pool.free(q).ok());
  EXPECT_EQ(must_alloc(pool, 1024, s0.get()), p);
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.os_allocations, 1u);
  EXPECT_EQ(st.cache_misses, 1u);
  EXPECT_EQ(st.cache_hits, 2u);
  EXPECT_EQ(dev.device_allocs, 1);
}

TEST_F(MemoryPoolTest, CurrentStreamIsUsedWhenNull) {
  void* p = must_alloc(pool, 4096);  // current stream of this thread
  ASSERT_TRUE(pool.free(p).ok());
  EXPECT_EQ(must_alloc(pool, 4096), p);
}

TEST_F(MemoryPoolTest, AlignmentOfManySizes) {
  const size_t sizes[] = {0,    1,        2,           7,          63,        64,      65,          100,
                          511,  512,      513,         1000,       4095,      4096,    4097,        65536,
                          123457, MiB - 1, MiB,        MiB + 1,    3 * MiB,   10 * MiB, 10 * MiB + 1, 13 * MiB + 7};
  std::vector<void*> ptrs;
  std::set<void*> unique;
  for (size_t n : sizes) {
    void* p = must_alloc(pool, n, s0.get());
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << "size " << n;
    std::memset(p, 0xAB, n);  // the memory is usable
    void* base = nullptr;
    size_t size = 0;
    ASSERT_TRUE(pool.find_allocation(p, &base, &size));
    EXPECT_EQ(base, p);
    EXPECT_GE(size, std::max<size_t>(n, 1));
    EXPECT_EQ(size % 512, 0u);
    if (n > 10 * MiB) {
      EXPECT_EQ(size % (2 * MiB), 0u) << "size " << n;
    }
    unique.insert(p);
    ptrs.push_back(p);
  }
  EXPECT_EQ(unique.size(), ptrs.size());  // size 0 and 1 give distinct valid pointers
  for (void* p : ptrs) EXPECT_TRUE(pool.free(p).ok());
  EXPECT_EQ(pool.stats().allocated_bytes, 0u);
}

TEST_F(MemoryPoolTest, SplitSmallBlockLeavesCachedRemainder) {
  void* a = must_alloc(pool, MiB, s0.get());  // 2 MiB segment: a + 1 MiB remainder
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.segments, 1u);
  EXPECT_EQ(st.reserved_bytes, 2 * MiB);
  EXPECT_EQ(st.cached_blocks, 1u);
  void* b = must_alloc(pool, 4 * KiB, s0.get());  // carved from the cached remainder
  EXPECT_EQ(static_cast<char*>(b), static_cast<char*>(a) + MiB);
  st = pool.stats();
  EXPECT_EQ(st.os_allocations, 1u);
  EXPECT_EQ(st.cached_blocks, 1u);  // what is left of the remainder
  EXPECT_EQ(st.active_blocks, 2u);
  void* c = must_alloc(pool, MiB - 4 * KiB, s0.get());  // exactly the rest
  EXPECT_EQ(static_cast<char*>(c), static_cast<char*>(b) + 4 * KiB);
  EXPECT_EQ(pool.stats().cached_blocks, 0u);
  EXPECT_EQ(pool.stats().os_allocations, 1u);
  for (void* p : {a, b, c}) ASSERT_TRUE(pool.free(p).ok());
}

TEST_F(MemoryPoolTest, SplitLargeBlockLeavesCachedRemainder) {
  void* big = must_alloc(pool, 20 * MiB, s0.get());
  ASSERT_TRUE(pool.free(big).ok());
  void* a = must_alloc(pool, 4 * MiB, s0.get());
  EXPECT_EQ(a, big);
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.os_allocations, 1u);
  EXPECT_EQ(st.cached_blocks, 1u);  // the 16 MiB remainder
  EXPECT_EQ(st.allocated_bytes, 4 * MiB);
  void* b = must_alloc(pool, 16 * MiB, s0.get());  // (above 10 MiB sizes are 2 MiB granules)
  EXPECT_EQ(static_cast<char*>(b), static_cast<char*>(big) + 4 * MiB);
  EXPECT_EQ(pool.stats().os_allocations, 1u);
  EXPECT_EQ(pool.stats().cached_blocks, 0u);
  ASSERT_TRUE(pool.free(a).ok());
  ASSERT_TRUE(pool.free(b).ok());
}

TEST_F(MemoryPoolTest, CoalesceSmallNeighbours) {
  // Fill one 2 MiB segment exactly: a | b | c.
  void* a = must_alloc(pool, 512 * KiB, s0.get());
  void* b = must_alloc(pool, 512 * KiB, s0.get());
  void* c = must_alloc(pool, MiB, s0.get());
  EXPECT_EQ(static_cast<char*>(b), static_cast<char*>(a) + 512 * KiB);
  EXPECT_EQ(static_cast<char*>(c), static_cast<char*>(a) + MiB);
  EXPECT_EQ(pool.stats().cached_blocks, 0u);
  ASSERT_TRUE(pool.free(a).ok());
  ASSERT_TRUE(pool.free(b).ok());
  EXPECT_EQ(pool.stats().cached_blocks, 2u);
  void* ab = must_alloc(pool, MiB, s0.get());  // needs a and b merged
  EXPECT_EQ(ab, a);
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.os_allocations, 1u);
  EXPECT_EQ(st.cached_blocks, 0u);
  ASSERT_TRUE(pool.free(ab).ok());
  ASSERT_TRUE(pool.free(c).ok());
  pool.empty_cache();  // the whole segment coalesced back into one free block
  EXPECT_EQ(pool.stats().reserved_bytes, 0u);
  EXPECT_EQ(pool.stats().os_frees, 1u);
}

TEST_F(MemoryPoolTest, CoalesceLargeNeighbours) {
  void* big = must_alloc(pool, 20 * MiB, s0.get());
  ASSERT_TRUE(pool.free(big).ok());
  void* x = must_alloc(pool, 6 * MiB, s0.get());
  void* y = must_alloc(pool, 6 * MiB, s0.get());
  EXPECT_EQ(x, big);
  EXPECT_EQ(static_cast<char*>(y), static_cast<char*>(big) + 6 * MiB);
  ASSERT_TRUE(pool.free(x).ok());
  ASSERT_TRUE(pool.free(y).ok());
  // Freed blocks wait in the exact-size cache; they coalesce when a request
  // cannot be served otherwise.
  EXPECT_EQ(pool.stats().cached_blocks, 3u);
  void* whole = must_alloc(pool, 20 * MiB, s0.get());
  EXPECT_EQ(whole, big);
  EXPECT_EQ(pool.stats().os_allocations, 1u);
  EXPECT_EQ(pool.stats().cached_blocks, 0u);  // x, y and the remainder merged
  ASSERT_TRUE(pool.free(whole).ok());
}

TEST_F(MemoryPoolTest, StatsConsistency) {
  void* a = must_alloc(pool, 1000, s0.get());      // 1024 rounded, new small segment
  void* b = must_alloc(pool, 3 * MiB + 1, s0.get());  // 3 MiB + 512, own large segment
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.allocated_bytes, 1024 + 3 * MiB + 512);
  EXPECT_EQ(st.requested_bytes, 1000 + 3 * MiB + 1);
  EXPECT_EQ(st.reserved_bytes, 2 * MiB + 3 * MiB + 512);
  EXPECT_EQ(st.peak_allocated_bytes, st.allocated_bytes);
  EXPECT_EQ(st.peak_reserved_bytes, st.reserved_bytes);
  EXPECT_EQ(st.allocation_count, 2u);
  EXPECT_EQ(st.cache_misses, 2u);
  EXPECT_EQ(st.cache_hits, 0u);
  EXPECT_EQ(st.os_allocations, 2u);
  EXPECT_EQ(st.segments, 2u);
  EXPECT_EQ(st.active_blocks, 2u);
  EXPECT_EQ(st.cached_blocks, 1u);  // the small segment's remainder
  EXPECT_EQ(st.limit_bytes, 0u);
  EXPECT_EQ(dev.device_allocs, 2);

  ASSERT_TRUE(pool.free(b).ok());
  st = pool.stats();
  EXPECT_EQ(st.allocated_bytes, 1024u);
  EXPECT_EQ(st.requested_bytes, 1000u);
  EXPECT_EQ(st.peak_allocated_bytes, 1024 + 3 * MiB + 512);
  EXPECT_EQ(st.reserved_bytes, 5 * MiB + 512);  // cached, not returned
  EXPECT_EQ(st.free_count, 1u);
  EXPECT_EQ(st.active_blocks, 1u);
  EXPECT_EQ(st.cached_blocks, 2u);

  void* c = must_alloc(pool, 3 * MiB, s0.get());  // served by b's cached block
  EXPECT_EQ(c, b);
  st = pool.stats();
  EXPECT_EQ(st.cache_hits, 1u);
  EXPECT_EQ(st.os_allocations, 2u);
  EXPECT_EQ(st.allocated_bytes, 1024 + 3 * MiB + 512);  // whole block: remainder too small to split

  pool.reset_peak_stats();
  st = pool.stats();
  EXPECT_EQ(st.allocation_count, 0u);
  EXPECT_EQ(st.cache_hits, 0u);
  EXPECT_EQ(st.os_allocations, 0u);
  EXPECT_EQ(st.peak_allocated_bytes, st.allocated_bytes);
  ASSERT_TRUE(pool.free(a).ok());
  ASSERT_TRUE(pool.free(c).ok());
  st = pool.stats();
  EXPECT_EQ(st.allocated_bytes, 0u);
  EXPECT_EQ(st.requested_bytes, 0u);
  EXPECT_EQ(st.active_blocks, 0u);
  EXPECT_EQ(st.free_count, 2u);
  EXPECT_EQ(st.peak_allocated_bytes, 1024 + 3 * MiB + 512);
}

TEST_F(MemoryPoolTest, EmptyCacheReturnsFreeSegmentsOnly) {
  void* keep = must_alloc(pool, 100, s0.get());  // pins its small segment
  void* small2 = must_alloc(pool, 2 * MiB - 512, s0.get());  // large pool (> 1 MiB)
  void* large = must_alloc(pool, 12 * MiB, s0.get());
  ASSERT_TRUE(pool.free(small2).ok());
  ASSERT_TRUE(pool.free(large).ok());
  const MemoryStats before = pool.stats();
  EXPECT_EQ(before.segments, 3u);
  pool.empty_cache();
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.segments, 1u);
  EXPECT_EQ(st.reserved_bytes, 2 * MiB);
  EXPECT_EQ(st.os_frees, 2u);
  EXPECT_EQ(dev.device_frees, 2);
  EXPECT_EQ(dev.live_bytes, static_cast<int64_t>(2 * MiB));
  EXPECT_TRUE(pool.find_allocation(keep));
  ASSERT_TRUE(pool.free(keep).ok());
  pool.empty_cache();
  EXPECT_EQ(pool.stats().reserved_bytes, 0u);
  EXPECT_EQ(pool.stats().segments, 0u);
  EXPECT_EQ(pool.stats().cached_blocks, 0u);
  EXPECT_EQ(dev.live_bytes, 0);
  // The pool still works afterwards.
  void* again = must_alloc(pool, 100, s0.get());
  EXPECT_EQ(pool.stats().os_allocations, 4u);
  ASSERT_TRUE(pool.free(again).ok());
}

TEST_F(MemoryPoolTest, LimitRetriesThenFailsWithExactMessage) {
  pool.set_limit(6 * MiB);
  EXPECT_EQ(pool.limit(), 6 * MiB);
  EXPECT_EQ(pool.stats().limit_bytes, 6 * MiB);
  void* a = must_alloc(pool, 3 * MiB, s0.get());
  ASSERT_TRUE(pool.free(a).ok());  // cached: reserved stays 3 MiB
  // 3 MiB cached + 4 MiB new > 6 MiB: the cache is returned, then it fits.
  void* b = must_alloc(pool, 4 * MiB, s0.get());
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.retries, 1u);
  EXPECT_EQ(st.os_frees, 1u);
  EXPECT_EQ(st.reserved_bytes, 4 * MiB);
  EXPECT_EQ(st.oom_count, 0u);

  Result<void*> r = pool.allocate(3 * MiB + 100, s0.get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kRtMemoryAllocation);
  EXPECT_EQ(r.status().message(),
            "[allocate] out of memory: requested 3145828 bytes (3146240 rounded), allocated 4194304 bytes, "
            "reserved 4194304 bytes, limit 6291456 bytes");
  st = pool.stats();
  EXPECT_EQ(st.oom_count, 1u);
  EXPECT_EQ(st.allocation_count, 2u);
  EXPECT_EQ(st.allocated_bytes, 4 * MiB);

  try {
    pool.allocate_or_throw(5 * MiB, s0.get());
    ADD_FAILURE() << "expected asc::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kRtMemoryAllocation);
    EXPECT_NE(std::string(e.what()).find("limit 6291456 bytes"), std::string::npos);
  }

  // Limit below what is allocated: accepted; allocations fail until memory is freed.
  pool.set_limit(MiB);
  EXPECT_FALSE(pool.allocate(512, s0.get()).ok());
  ASSERT_TRUE(pool.free(b).ok());
  void* small = must_alloc(pool, 512, s0.get());  // a short segment that fits the limit
  EXPECT_LE(pool.stats().reserved_bytes, MiB);
  ASSERT_TRUE(pool.free(small).ok());
  pool.set_limit(0);
  void* big = must_alloc(pool, 64 * MiB, s0.get());
  ASSERT_TRUE(pool.free(big).ok());
}

TEST_F(MemoryPoolTest, LimitBoundsAllocatedBytesOfReusedBlocks) {
  void* a = must_alloc(pool, 4 * MiB, s0.get());
  ASSERT_TRUE(pool.free(a).ok());
  // A limit below reserved bytes returns the cached 4 MiB segment at once (live
  // + cached bytes stay under it); the 3.5 MiB request then gets a segment of
  // its size, not the whole 4 MiB block (normally used whole: the rest is too
  // small to be worth a block) nor a split one with an unreturnable remainder.
  pool.set_limit(4 * MiB - 256 * KiB);
  EXPECT_EQ(pool.stats().reserved_bytes, 0u);
  EXPECT_EQ(pool.stats().os_frees, 1u);
  void* b = must_alloc(pool, 3 * MiB + 512 * KiB, s0.get());
  EXPECT_EQ(pool.stats().allocated_bytes, 3 * MiB + 512 * KiB);
  EXPECT_EQ(pool.stats().reserved_bytes, 3 * MiB + 512 * KiB);
  EXPECT_LE(pool.stats().allocated_bytes, pool.limit());
  ASSERT_TRUE(pool.free(b).ok());
}

TEST_F(MemoryPoolTest, RetryCountsWhenCachedSegmentsMakeRoom) {
  pool.set_limit(4 * MiB);
  void* a = must_alloc(pool, 1000, s0.get());  // small segment: 2 MiB reserved
  ASSERT_TRUE(pool.free(a).ok());
  void* b = must_alloc(pool, 3 * MiB, s0.get());  // 2 + 3 > 4: release the small segment
  EXPECT_EQ(pool.stats().retries, 1u);
  EXPECT_EQ(pool.stats().reserved_bytes, 3 * MiB);
  Result<void*> r = pool.allocate(2 * MiB, s0.get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "[allocate] out of memory: requested 2097152 bytes (2097152 rounded), allocated 3145728 bytes, "
            "reserved 3145728 bytes, limit 4194304 bytes");
  EXPECT_EQ(pool.stats().oom_count, 1u);
  ASSERT_TRUE(pool.free(b).ok());
}

TEST_F(MemoryPoolTest, OsAllocationFailureIsAnError) {
  dev.fail = true;
  Result<void*> r = pool.allocate(4096, s0.get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kRtMemoryAllocation);
  const std::string& m = r.status().message();
  EXPECT_EQ(m.rfind("[allocate] out of memory: requested 4096 bytes (4096 rounded)", 0), 0u) << m;
  EXPECT_NE(m.find("limit none"), std::string::npos) << m;
  EXPECT_NE(m.find("fake device is out of memory"), std::string::npos) << m;
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.oom_count, 1u);
  EXPECT_EQ(st.retries, 1u);
  EXPECT_EQ(st.reserved_bytes, 0u);
  dev.fail = false;
  void* p = must_alloc(pool, 4096, s0.get());
  ASSERT_TRUE(pool.free(p).ok());

  Result<void*> huge = pool.allocate(std::numeric_limits<size_t>::max(), s0.get());
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), ErrorCode::kRtMemoryAllocation);
  EXPECT_NE(huge.status().message().find("out of memory"), std::string::npos);
}

TEST_F(MemoryPoolTest, RealDeviceAllocationFailureIsAnError) {
  MemoryPool real(current_device(), MemoryPool::Kind::kDevice);
  Result<void*> r = real.allocate(size_t(1) << 59, s0.get());  // 512 PiB
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kRtMemoryAllocation);
  EXPECT_EQ(r.status().message().rfind("[allocate] out of memory: requested", 0), 0u);
}

TEST_F(MemoryPoolTest, FreeOfUnknownOrFreedPointerIsAnError) {
  void* p = must_alloc(pool, 256, s0.get());
  void* q = must_alloc(pool, 256, s0.get());
  ASSERT_TRUE(pool.free(p).ok());
  const MemoryStats before = pool.stats();

  Status twice = pool.free(p);
  EXPECT_EQ(twice.code(), ErrorCode::kRtMemoryFree);
  EXPECT_NE(twice.message().find("[free]"), std::string::npos);
  int local = 0;
  EXPECT_EQ(pool.free(&local).code(), ErrorCode::kRtMemoryFree);
  EXPECT_EQ(pool.free(static_cast<char*>(q) + 64).code(), ErrorCode::kRtMemoryFree);  // interior
  EXPECT_EQ(pool.free(nullptr).code(), ErrorCode::kRtMemoryFree);

  const MemoryStats after = pool.stats();
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.free_count, before.free_count);
  EXPECT_EQ(after.active_blocks, before.active_blocks);
  EXPECT_EQ(after.cached_blocks, before.cached_blocks);
  EXPECT_TRUE(pool.find_allocation(q));
  // The freed block is handed out exactly once more.
  EXPECT_EQ(must_alloc(pool, 256, s0.get()), p);
  EXPECT_NE(must_alloc(pool, 256, s0.get()), p);
}

TEST_F(MemoryPoolTest, FindAllocation) {
  void* a = must_alloc(pool, 1000, s0.get());
  void* b = must_alloc(pool, 5 * MiB, s0.get());
  void* base = nullptr;
  size_t size = 0;
  ASSERT_TRUE(pool.find_allocation(static_cast<char*>(a) + 999, &base, &size));
  EXPECT_EQ(base, a);
  EXPECT_EQ(size, 1024u);
  ASSERT_TRUE(pool.find_allocation(static_cast<char*>(b) + 5 * MiB - 1, &base, &size));
  EXPECT_EQ(base, b);
  EXPECT_EQ(size, 5 * MiB);
  EXPECT_FALSE(pool.find_allocation(static_cast<char*>(b) + 5 * MiB));  // one past the end
  EXPECT_FALSE(pool.find_allocation(static_cast<char*>(a) + 1024));      // cached remainder
  int local = 0;
  EXPECT_FALSE(pool.find_allocation(&local));
  EXPECT_FALSE(pool.find_allocation(nullptr));
  ASSERT_TRUE(pool.free(a).ok());
  EXPECT_FALSE(pool.find_allocation(a));
  ASSERT_TRUE(pool.free(b).ok());
  EXPECT_FALSE(pool.find_allocation(b));
}

TEST_F(MemoryPoolTest, StreamAwareReuseInFastCache) {
  BlockedStream busy;
  auto other = Stream::create();
  void* p = must_alloc(pool, 4096, busy.stream.get());
  ASSERT_TRUE(pool.free(p).ok());  // freed while `busy` still has pending work

  void* q = must_alloc(pool, 4096, other.get());
  EXPECT_NE(q, p) << "another stream got a block its previous stream may still use";
  void* r = must_alloc(pool, 4096, busy.stream.get());
  EXPECT_EQ(r, p) << "the same stream may reuse its block at once";
  ASSERT_TRUE(pool.free(q).ok());  // idle stream: clean at once
  ASSERT_TRUE(pool.free(r).ok());  // still pending on `busy`: head of the cache
  void* q2 = must_alloc(pool, 4096, other.get());
  EXPECT_EQ(q2, q);
  ASSERT_TRUE(pool.free(q2).ok());

  busy.release();  // the work that used p is done
  void* t = must_alloc(pool, 4096, other.get());
  void* u = must_alloc(pool, 4096, other.get());
  EXPECT_TRUE(t == p || u == p) << "p should be reusable by any stream now";
  ASSERT_TRUE(pool.free(t).ok());
  ASSERT_TRUE(pool.free(u).ok());
  EXPECT_EQ(pool.stats().os_allocations, 1u);
}

TEST_F(MemoryPoolTest, StreamAwareReuseInBestFitTree) {
  BlockedStream busy;
  auto other = Stream::create();
  void* p = must_alloc(pool, 3 * MiB, busy.stream.get());  // large pool
  ASSERT_TRUE(pool.free(p).ok());
  void* q = must_alloc(pool, 3 * MiB, other.get());
  EXPECT_NE(q, p);
  EXPECT_EQ(pool.stats().os_allocations, 2u);
  void* r = must_alloc(pool, 3 * MiB, busy.stream.get());
  EXPECT_EQ(r, p);
  ASSERT_TRUE(pool.free(r).ok());
  ASSERT_TRUE(pool.free(q).ok());
  // A pending segment is not returned by empty_cache (skipped, not waited for).
  pool.empty_cache();
  EXPECT_EQ(pool.stats().segments, 1u);
  EXPECT_EQ(pool.stats().os_frees, 1u);
  busy.release();
  void* t = must_alloc(pool, 3 * MiB, other.get());
  EXPECT_EQ(t, p);
  ASSERT_TRUE(pool.free(t).ok());
  pool.empty_cache();
  EXPECT_EQ(pool.stats().segments, 0u);
}

TEST_F(MemoryPoolTest, SplitRemainderKeepsStreamGuard) {
  BlockedStream busy;
  auto other = Stream::create();
  void* big = must_alloc(pool, 20 * MiB, busy.stream.get());
  ASSERT_TRUE(pool.free(big).ok());
  void* a = must_alloc(pool, 4 * MiB, busy.stream.get());  // same stream: split
  EXPECT_EQ(a, big);
  void* b = must_alloc(pool, 4 * MiB, other.get());  // must not come from the guarded remainder
  EXPECT_FALSE(static_cast<char*>(b) >= static_cast<char*>(big) &&
               static_cast<char*>(b) < static_cast<char*>(big) + 20 * MiB);
  ASSERT_TRUE(pool.free(a).ok());
  ASSERT_TRUE(pool.free(b).ok());
}

TEST_F(MemoryPoolTest, RecordStreamGuardsReuse) {
  BlockedStream user;  // a second stream that uses the block
  auto owner = Stream::create();
  void* p = must_alloc(pool, 8192, owner.get());
  ASSERT_TRUE(pool.record_stream(p, *user.stream).ok());
  ASSERT_TRUE(pool.free(p).ok());  // owner idle, but `user` has pending work
  void* q = must_alloc(pool, 8192, owner.get());
  EXPECT_NE(q, p);
  void* r = must_alloc(pool, 8192, user.stream.get());
  EXPECT_EQ(r, p);
  ASSERT_TRUE(pool.free(r).ok());
  ASSERT_TRUE(pool.free(q).ok());
  user.release();
  void* t = must_alloc(pool, 8192, owner.get());
  void* u = must_alloc(pool, 8192, owner.get());
  EXPECT_TRUE(t == p || u == p);
  ASSERT_TRUE(pool.free(t).ok());
  ASSERT_TRUE(pool.free(u).ok());

  int local = 0;
  EXPECT_EQ(pool.record_stream(&local, *owner).code(), ErrorCode::kInvalidParam);
}

TEST_F(MemoryPoolTest, TwoPendingStreamsBlockEveryone) {
  BlockedStream s1, s2;
  void* p = must_alloc(pool, 3 * MiB, s1.stream.get());
  ASSERT_TRUE(pool.record_stream(p, *s2.stream).ok());
  ASSERT_TRUE(pool.free(p).ok());
  void* a = must_alloc(pool, 3 * MiB, s1.stream.get());
  void* b = must_alloc(pool, 3 * MiB, s2.stream.get());
  EXPECT_NE(a, p);
  EXPECT_NE(b, p);
  ASSERT_TRUE(pool.free(a).ok());
  ASSERT_TRUE(pool.free(b).ok());
  s2.release();  // only s1 is left: s1 may use it
  void* c = must_alloc(pool, 3 * MiB, s1.stream.get());
  void* c2 = must_alloc(pool, 3 * MiB, s1.stream.get());
  void* c3 = must_alloc(pool, 3 * MiB, s1.stream.get());
  EXPECT_TRUE(c == p || c2 == p || c3 == p);
  for (void* x : {c, c2, c3}) ASSERT_TRUE(pool.free(x).ok());
  s1.release();
  EXPECT_EQ(pool.stats().os_allocations, 3u);
  pool.empty_cache();
  EXPECT_EQ(pool.stats().reserved_bytes, 0u);
}

TEST_F(MemoryPoolTest, ExpiredStreamReleasesItsBlocks) {
  auto other = Stream::create();
  void* p = nullptr;
  {
    BlockedStream gone;
    p = must_alloc(pool, 4096, gone.stream.get());
    ASSERT_TRUE(pool.free(p).ok());
    EXPECT_NE(must_alloc(pool, 4096, other.get()), p);
    gone.release();
    gone.stream.reset();  // destroyed: its work has drained
  }
  void* q = must_alloc(pool, 4096, other.get());
  EXPECT_EQ(q, p);
}

// 10,000 operations of mixed sizes (both pools, 0 and 1 byte, > 10 MiB): a
// FIFO window of 8 live blocks, every 4th allocation freed at once.
void mixed_loop(MemoryPool& pool, Stream* s, unsigned seed) {
  static const size_t kSizes[] = {0,      1,         100,     1000, 4096,    10000,       65536,
                                  100000, 256 * KiB, 1000000, MiB,  3 * MiB, 12 * MiB + 5};
  std::mt19937 rng(seed);
  void* live[8] = {};
  for (int i = 0; i < 10000; ++i) {
    void*& slot = live[i % 8];
    if (slot) {
      ASSERT_TRUE(pool.free(slot).ok());
    }
    slot = must_alloc(pool, kSizes[rng() % (sizeof(kSizes) / sizeof(kSizes[0]))], s);
    if (i % 4 == 3) {
      ASSERT_TRUE(pool.free(slot).ok());
      slot = nullptr;
    }
  }
  for (void*& p : live) {
    if (p) {
      ASSERT_TRUE(pool.free(p).ok());
    }
  }
}

TEST_F(MemoryPoolTest, MixedLoopMakesNoNewOsAllocationAfterWarmup) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    FakeDevice d;
    MemoryPool p(d, MemoryPool::Kind::kDevice);
    mixed_loop(p, s0.get(), seed);  // warm-up
    const uint64_t warm = p.stats().os_allocations;
    const int warm_dev = d.device_allocs;
    mixed_loop(p, s0.get(), seed);
    EXPECT_EQ(p.stats().os_allocations, warm) << "seed " << seed;
    EXPECT_EQ(d.device_allocs, warm_dev) << "seed " << seed;
    EXPECT_EQ(p.stats().os_frees, 0u);
    EXPECT_EQ(p.stats().allocated_bytes, 0u);
    EXPECT_EQ(p.stats().allocation_count, 20000u);
  }
}

TEST_F(MemoryPoolTest, MultiThreadedStress) {
  constexpr int kThreads = 4;
  constexpr int kOps = 20000;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      std::vector<std::pair<void*, size_t>> live(32, {nullptr, 0});
      for (int i = 0; i < kOps; ++i) {
        auto& slot = live[rng() % live.size()];
        if (slot.first) {
          // Our bytes are intact: nobody else was handed this block meanwhile.
          if (*static_cast<unsigned char*>(slot.first) != static_cast<unsigned char>(t)) ++failures;
          if (!pool.free(slot.first).ok()) ++failures;
        }
        const size_t n = rng() % 8 == 0 ? MiB + rng() % (2 * MiB) : 1 + rng() % (32 * KiB);
        Result<void*> r = pool.allocate(n);  // this thread's current stream
        if (!r.ok()) {
          ++failures;
          slot = {nullptr, 0};
          continue;
        }
        std::memset(r.value(), t, std::min<size_t>(n, 64));
        slot = {r.value(), n};
      }
      for (auto& s : live)
        if (s.first && !pool.free(s.first).ok()) ++failures;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, 0);
  MemoryStats st = pool.stats();
  EXPECT_EQ(st.allocated_bytes, 0u);
  EXPECT_EQ(st.requested_bytes, 0u);
  EXPECT_EQ(st.active_blocks, 0u);
  EXPECT_EQ(st.allocation_count, uint64_t(kThreads) * kOps);
  EXPECT_EQ(st.free_count, st.allocation_count);
  EXPECT_EQ(st.cache_hits + st.cache_misses, st.allocation_count);
  EXPECT_EQ(st.os_allocations, static_cast<uint64_t>(dev.device_allocs.load()));
  EXPECT_EQ(static_cast<int64_t>(st.reserved_bytes), dev.live_bytes.load());
  EXPECT_LE(st.peak_allocated_bytes, st.peak_reserved_bytes);
  pool.empty_cache();  // the threads' default streams are gone: everything is clean
  EXPECT_EQ(pool.stats().reserved_bytes, 0u);
  EXPECT_EQ(dev.live_bytes, 0);
}

TEST_F(MemoryPoolTest, DestructorReturnsEverySegment) {
  {
    MemoryPool p(dev, MemoryPool::Kind::kDevice);
    must_alloc(p, 100, s0.get());  // left in use on purpose
    void* b = must_alloc(p, 30 * MiB, s0.get());
    ASSERT_TRUE(p.free(b).ok());
  }
  EXPECT_EQ(dev.live_bytes, 0);
  EXPECT_EQ(dev.device_allocs, dev.device_frees);
}

TEST_F(MemoryPoolTest, PinnedPoolIsIndependent) {
  MemoryPool pinned(dev, MemoryPool::Kind::kPinnedHost);
  EXPECT_EQ(pinned.kind(), MemoryPool::Kind::kPinnedHost);
  void* h = must_alloc(pinned, 4096, s0.get());
  EXPECT_EQ(dev.host_allocs, 1);
  EXPECT_EQ(dev.device_allocs, 0);
  void* d = must_alloc(pool, 4096, s0.get());
  EXPECT_EQ(dev.device_allocs, 1);
  EXPECT_FALSE(pool.find_allocation(h));
  EXPECT_FALSE(pinned.find_allocation(d));
  EXPECT_EQ(pool.free(h).code(), ErrorCode::kRtMemoryFree);
  ASSERT_TRUE(pinned.free(h).ok());
  ASSERT_TRUE(pool.free(d).ok());
  pinned.empty_cache();
  EXPECT_EQ(dev.host_frees, 1);
  EXPECT_EQ(dev.device_frees, 0);
  EXPECT_EQ(pool.stats().reserved_bytes, 2 * MiB);
}

TEST(MemoryPoolGlobal, DeviceAndPinnedPoolsAreDistinctSingletons) {
  MemoryPool& d = device_pool();
  MemoryPool& h = pinned_host_pool();
  EXPECT_EQ(&d, &device_pool());
  EXPECT_EQ(&h, &pinned_host_pool());
  EXPECT_NE(&d, &h);
  EXPECT_EQ(d.kind(), MemoryPool::Kind::kDevice);
  EXPECT_EQ(h.kind(), MemoryPool::Kind::kPinnedHost);
  const uint64_t dev_os = d.stats().os_allocations;
  void* p = h.allocate_or_throw(12345);
  EXPECT_TRUE(h.find_allocation(p));
  EXPECT_FALSE(d.find_allocation(p));
  EXPECT_EQ(d.stats().os_allocations, dev_os);
  ASSERT_TRUE(h.free(p).ok());
  void* q = d.allocate_or_throw(777);
  EXPECT_TRUE(d.find_allocation(q));
  ASSERT_TRUE(d.free(q).ok());
}

TEST(MemoryPoolBuffer, OwnsAndMoves) {
  FakeDevice dev;
  MemoryPool pool(dev, MemoryPool::Kind::kDevice);
  auto s = Stream::create();
  {
    Result<PoolBuffer> r = PoolBuffer::allocate(1000, pool, s.get());
    ASSERT_TRUE(r.ok());
    PoolBuffer a = std::move(r).value();
    EXPECT_NE(a.get(), nullptr);
    EXPECT_EQ(a.size(), 1000u);
    EXPECT_EQ(a.as<float>(), static_cast<float*>(a.get()));
    EXPECT_EQ(pool.stats().active_blocks, 1u);
    PoolBuffer b(std::move(a));
    EXPECT_EQ(a.get(), nullptr);
    EXPECT_EQ(pool.stats().active_blocks, 1u);
    PoolBuffer c = PoolBuffer::allocate(10, pool, s.get()).ValueOrThrow();
    EXPECT_EQ(pool.stats().active_blocks, 2u);
    c = std::move(b);  // frees c's old block
    EXPECT_EQ(pool.stats().active_blocks, 1u);
    EXPECT_EQ(c.size(), 1000u);
  }
  EXPECT_EQ(pool.stats().active_blocks, 0u);
  EXPECT_EQ(pool.stats().free_count, 2u);

  PoolBuffer d = PoolBuffer::allocate(64, pool, s.get()).ValueOrThrow();
  void* raw = d.release();
  d.reset();
  EXPECT_EQ(pool.stats().active_blocks, 1u);
  ASSERT_TRUE(pool.free(raw).ok());

  pool.set_limit(MiB);
  Result<PoolBuffer> fail = PoolBuffer::allocate(2 * MiB, pool, s.get());
  ASSERT_FALSE(fail.ok());
  EXPECT_EQ(fail.status().code(), ErrorCode::kRtMemoryAllocation);
}

TEST(MemoryLimitParse, AcceptsBytesAndSuffixes) {
  auto ok = [](const std::string& s) {
    Result<size_t> r = parse_memory_limit(s);
    EXPECT_TRUE(r.ok()) << s;
    return r.ok() ? r.value() : size_t(-1);
  };
  EXPECT_EQ(ok("0"), 0u);
  EXPECT_EQ(ok("1234"), 1234u);
  EXPECT_EQ(ok("512K"), 512 * KiB);
  EXPECT_EQ(ok("512k"), 512 * KiB);
  EXPECT_EQ(ok("64M"), 64 * MiB);
  EXPECT_EQ(ok("2G"), size_t(2) << 30);
  EXPECT_EQ(ok("3g"), size_t(3) << 30);
  EXPECT_EQ(ok("8GB"), size_t(8) << 30);
  EXPECT_EQ(ok("16MiB"), 16 * MiB);
  EXPECT_EQ(ok(" 1M "), MiB);
  EXPECT_EQ(ok("100B"), 100u);
  for (const char* bad : {"", " ", "abc", "-1", "1.5G", "12X", "G", "1 2", "0x10", "1KK",
                          "99999999999999999999", "17179869184G"}) {
    Result<size_t> r = parse_memory_limit(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), ErrorCode::kInvalidParam);
      EXPECT_NE(r.status().message().find("invalid memory limit"), std::string::npos);
    }
  }
}

// device_pool() reads ASC_MEMORY_LIMIT once, at first use: check it in a fresh
// process ("threadsafe" death tests re-execute the binary for the child).
TEST(MemoryLimitEnv, DevicePoolReadsAscMemoryLimit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("ASC_MEMORY_LIMIT", "3M", 1);
        MemoryPool& p = device_pool();
        const bool limited = p.limit() == 3 * MiB;
        const bool fails = !p.allocate(4 * MiB).ok();
        std::exit(limited && fails ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        setenv("ASC_MEMORY_LIMIT", "lots", 1);
        std::exit(device_pool().limit() == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "ignoring ASC_MEMORY_LIMIT");
}

}  // namespace
}  // namespace asc::runtime
