#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "asc/runtime/launch.h"
#include "asc/runtime/memory_pool.h"
#include "asc/runtime/profiler.h"

using namespace asc::runtime;
namespace prof = asc::runtime::profiler;

namespace {
std::vector<prof::TraceEvent> of_kind(const std::vector<prof::TraceEvent>& ev, prof::EventKind k) {
  std::vector<prof::TraceEvent> out;
  for (const auto& e : ev)
    if (e.kind == k) out.push_back(e);
  return out;
}
}  // namespace

TEST(Profiler, OffRecordsNothing) {
  prof::start(16);
  prof::stop();
  auto s = Stream::create();
  asc::launch("quiet", [] {}, 4, s.get());
  ASSERT_TRUE(s->synchronize().ok());
  EXPECT_TRUE(prof::events().empty());
  EXPECT_EQ(prof::recorded(), 0u);
}

TEST(Profiler, RecordsLaunchesKernelsBlocksCopiesAllocations) {
  auto s = Stream::create();
  prof::start(10000);
  asc::launch("traced_kernel", [] {}, 6, s.get());
  std::vector<char> a(1 << 20, 1), b(1 << 20, 0);
  s->memcpy_async(b.data(), a.data(), a.size(), MemcpyKind::kHostToDevice);
  Event e;
  e.record(s.get());
  auto other = Stream::create();
  other->wait_event(e);
  other->add_callback([] {});
  void* p = device_pool().allocate_or_throw(1000, s.get());
  ASSERT_TRUE(device_pool().free(p).ok());
  ASSERT_TRUE(s->synchronize().ok());
  ASSERT_TRUE(other->synchronize().ok());
  prof::stop();
  auto ev = prof::events();

  auto launches = of_kind(ev, prof::EventKind::kLaunch);
  auto kernels = of_kind(ev, prof::EventKind::kKernel);
  auto blocks = of_kind(ev, prof::EventKind::kBlock);
  ASSERT_EQ(launches.size(), 1u);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(launches[0].name, "traced_kernel");
  EXPECT_EQ(kernels[0].name, "traced_kernel");
  EXPECT_NE(launches[0].flow_id, 0u);
  EXPECT_EQ(launches[0].flow_id, kernels[0].flow_id);
  EXPECT_EQ(kernels[0].stream_id, s->id());
  EXPECT_EQ(kernels[0].block_dim, 6u);
  EXPECT_LE(launches[0].ts_ns, kernels[0].ts_ns);
  ASSERT_EQ(blocks.size(), 6u);
  std::set<int> idx;
  for (const auto& blk : blocks) {
    idx.insert(blk.block_idx);
    EXPECT_GE(blk.core, 0);
    EXPECT_GE(blk.ts_ns, kernels[0].ts_ns);
    EXPECT_LE(blk.ts_ns + blk.dur_ns, kernels[0].ts_ns + kernels[0].dur_ns);
  }
  EXPECT_EQ(idx.size(), 6u);

  auto copies = of_kind(ev, prof::EventKind::kMemcpy);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].bytes, size_t(1) << 20);
  EXPECT_EQ(copies[0].detail, "HostToDevice");
  EXPECT_EQ(copies[0].stream_id, s->id());

  EXPECT_EQ(of_kind(ev, prof::EventKind::kEventRecord).size(), 1u);
  auto waits = of_kind(ev, prof::EventKind::kStreamWait);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].stream_id, other->id());
  EXPECT_EQ(of_kind(ev, prof::EventKind::kCallback).size(), 1u);

  auto allocs = of_kind(ev, prof::EventKind::kAlloc);
  auto frees = of_kind(ev, prof::EventKind::kFree);
  ASSERT_EQ(allocs.size(), 1u);
  ASSERT_EQ(frees.size(), 1u);
  EXPECT_EQ(allocs[0].bytes, 1000u);
  EXPECT_TRUE(allocs[0].detail.rfind("hit", 0) == 0 || allocs[0].detail.rfind("miss", 0) == 0) << allocs[0].detail;
  EXPECT_GE(frees[0].bytes, 1000u);
  EXPECT_EQ(allocs[0].value, frees[0].value + static_cast<int64_t>(frees[0].bytes));
}

TEST(Profiler, KernelErrorIsInTheTrace) {
  auto s = Stream::create();
  prof::start(1000);
  asc::launch("boom", [] { throw asc::Error(asc::ErrorCode::kInvalidParam, "[x] bad"); }, 1, s.get());
  EXPECT_FALSE(s->synchronize().ok());
  prof::stop();
  auto kernels = of_kind(prof::events(), prof::EventKind::kKernel);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_NE(kernels[0].detail.find("[x] bad"), std::string::npos);
}

TEST(Profiler, RingBufferKeepsNewestAndCountsDropped) {
  prof::start(10);
  for (int i = 0; i < 25; ++i) {
    prof::TraceEvent e;
    e.kind = prof::EventKind::kRange;
    e.name = "r" + std::to_string(i);
    e.ts_ns = prof::now_ns();
    prof::record(std::move(e));
  }
  prof::stop();
  auto ev = prof::events();
  ASSERT_EQ(ev.size(), 10u);
  EXPECT_EQ(ev.front().name, "r15");
  EXPECT_EQ(ev.back().name, "r24");
  EXPECT_EQ(prof::dropped(), 15u);
  EXPECT_EQ(prof::recorded(), 25u);
}
