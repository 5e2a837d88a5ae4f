#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "asc/runtime/launch.h"

using namespace asc::runtime;

static std::atomic<int> g_calls{0};
// A global extern "C" kernel, as real kernels are; the test executable is
// linked with ENABLE_EXPORTS so dladdr can name it.
extern "C" void named_test_kernel(int* out) {
  const BlockContext* b = current_block();
  out[b->block_idx] = static_cast<int>(b->block_num);
  g_calls++;
}

TEST(Launch, EveryBlockIndexRunsOnce) {
  for (uint32_t dim : {1u, 2u, 3u, 7u, 64u, 1000u}) {
    std::vector<std::atomic<int>> hits(dim);
    asc::launch("count", [&] { hits[current_block()->block_idx]++; }, dim, nullptr);
    ASSERT_TRUE(current_stream()->synchronize().ok());
    for (uint32_t i = 0; i < dim; ++i) EXPECT_EQ(hits[i].load(), 1) << "dim " << dim << " block " << i;
  }
}

TEST(Launch, BlockNumAndCoreIds) {
  const int cores = current_device().properties().num_cores;
  std::mutex mu;
  std::set<int> core_ids;
  std::atomic<int> bad{0};
  asc::launch("ids",
              [&] {
                const BlockContext* b = current_block();
                if (b->block_num != 256 || b->block_idx >= 256) bad++;
                if (b->core_id < 0 || b->core_id >= cores) bad++;
                if (!b->arenas || b->arenas->ub_size != current_device().properties().ub_size) bad++;
                if (reinterpret_cast<uintptr_t>(b->arenas->ub) % 64 != 0) bad++;
                std::lock_guard<std::mutex> l(mu);
                core_ids.insert(b->core_id);
              },
              256, nullptr);
  ASSERT_TRUE(current_stream()->synchronize().ok());
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GE(core_ids.size(), 1u);
}

TEST(Launch, ArenasArePrivatePerCore) {
  // Each block fills its core's UB with its own index and checks it survives:
  // two blocks running at once on different cores must not see each other.
  std::atomic<int> bad{0};
  asc::launch("arena",
              [&] {
                const BlockContext* b = current_block();
                auto* ub = reinterpret_cast<uint32_t*>(b->arenas->ub);
                size_t n = b->arenas->ub_size / 4;
                for (size_t i = 0; i < n; ++i) ub[i] = b->block_idx;
                for (size_t i = 0; i < n; ++i)
                  if (ub[i] != b->block_idx) { bad++; break; }
              },
              64, nullptr);
  ASSERT_TRUE(current_stream()->synchronize().ok());
  EXPECT_EQ(bad.load(), 0);
}

TEST(Launch, FunctionPointerNameFromSymbol) {
  std::vector<int> out(5, 0);
  asc::launch(named_test_kernel, 5, nullptr, out.data());
  ASSERT_TRUE(current_stream()->synchronize().ok());
  for (int v : out) EXPECT_EQ(v, 5);
  EXPECT_EQ(symbol_name(reinterpret_cast<const void*>(&named_test_kernel)), "named_test_kernel");
}

extern "C" void other_named_test_kernel(int* out) { out[0] = -1; }

// symbol_name keeps the thread's last answer: alternating kernels (and an
// address with no symbol) must still get their own names.
TEST(Launch, SymbolNameAlternatingKernels) {
  const void* a = reinterpret_cast<const void*>(&named_test_kernel);
  const void* b = reinterpret_cast<const void*>(&other_named_test_kernel);
  static int not_a_function = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(symbol_name(a), "named_test_kernel");
    EXPECT_EQ(symbol_name(a), "named_test_kernel");
    EXPECT_EQ(symbol_name(b), "other_named_test_kernel");
    EXPECT_EQ(symbol_name(&not_a_function).rfind("kernel@", 0), 0u) << symbol_name(&not_a_function);
    EXPECT_EQ(symbol_name(nullptr).rfind("kernel@", 0), 0u);
  }
}

TEST(Launch, AclrtLaunchKernelMacro) {
  std::vector<int> out(3, 0);
  uint32_t rc = ACLRT_LAUNCH_KERNEL(named_test_kernel)(3, nullptr, out.data());
  EXPECT_EQ(rc, 0u);
  ASSERT_TRUE(current_stream()->synchronize().ok());
  for (int v : out) EXPECT_EQ(v, 3);
}

TEST(Launch, InvalidBlockDimThrows) {
  try {
    asc::launch("bad_dim", [] {}, 0, nullptr);
    FAIL() << "expected asc::Error";
  } catch (const asc::Error& e) {
    EXPECT_EQ(e.code(), asc::ErrorCode::kInvalidParam);
    EXPECT_NE(std::string(e.what()).find("[bad_dim] blockDim must be in [1, 65535], got 0"), std::string::npos);
  }
  EXPECT_THROW(asc::launch("too_big", [] {}, 70000, nullptr), asc::Error);
}

TEST(Launch, ConcurrentLaunchesFromManyStreams) {
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<long> total{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) asc::launch("conc", [&] { total++; }, 17, nullptr);
      EXPECT_TRUE(current_stream()->synchronize().ok());
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(total.load(), kThreads * 50L * 17);
}

TEST(Launch, ArgumentsAreCopiedAtLaunch) {
  std::vector<int> out(4, 0);
  int value = 7;
  asc::launch("copy_args", [](int* o, int v) { o[current_block()->block_idx] = v; }, 4, nullptr, out.data(), value);
  value = 99;
  ASSERT_TRUE(current_stream()->synchronize().ok());
  for (int v : out) EXPECT_EQ(v, 7);
}

TEST(Launch, AclrtLaunchKernelRejectsDeadStreamWithCode) {
  std::vector<int> out(2, 0);
  void* dead = nullptr;
  {
    auto s = Stream::create();
    dead = s.get();
    EXPECT_EQ(find_stream(dead), s);
  }
  EXPECT_EQ(find_stream(dead), nullptr);
  uint32_t rc = ACLRT_LAUNCH_KERNEL(named_test_kernel)(2, dead, out.data());
  EXPECT_EQ(rc, static_cast<uint32_t>(asc::ErrorCode::kInvalidParam));
  EXPECT_EQ(ACLRT_LAUNCH_KERNEL(named_test_kernel)(0, nullptr, out.data()),
            static_cast<uint32_t>(asc::ErrorCode::kInvalidParam));
  auto live = Stream::create();
  EXPECT_EQ(ACLRT_LAUNCH_KERNEL(named_test_kernel)(2, live.get(), out.data()), 0u);
  ASSERT_TRUE(live->synchronize().ok());
  EXPECT_EQ(out[0], 2);
}
