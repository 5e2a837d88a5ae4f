// MIX launches of `__mix__(c, v)` kernels (asc/kernel/mix.h): numBlocks
// groups of c AIC and v AIV instances, each seeing its own ASCEND_IS_AIC/AIV,
// GetBlockIdx, GetSubBlockIdx, GetSubBlockNum, GetTaskRatio; cross-core flags
// of modes 0/1/2 and SyncAll between them; a wait that can never end fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "asc/kernel/debug_launch.h"
#include "asc/runtime/stream.h"
#include "kernel_operator.h"

namespace {

asc::Status sync_current() { return asc::runtime::current_stream()->synchronize(); }

// Row r of `out` (8 int64): AIC g -> row g, AIV i -> row n + i.
__global__ __mix__(1, 2) __aicore__ void mix_ids(GM_ADDR out) {
  auto* o = reinterpret_cast<__gm__ int64_t*>(out);
  const int64_t n = AscendC::GetBlockNum();
  const int64_t row = ASCEND_IS_AIC ? AscendC::GetBlockIdx() : n + AscendC::GetBlockIdx();
  o[row * 8 + 0] = ASCEND_IS_AIC ? 1 : 0;
  o[row * 8 + 1] = ASCEND_IS_AIV ? 1 : 0;
  o[row * 8 + 2] = AscendC::GetBlockIdx();
  o[row * 8 + 3] = n;
  o[row * 8 + 4] = AscendC::GetSubBlockIdx();
  o[row * 8 + 5] = AscendC::GetSubBlockNum();
  o[row * 8 + 6] = AscendC::GetTaskRatio();
  o[row * 8 + 7] += 1;  // each row written once
}

TEST(MixLaunch, RolesAndIndicesAsCannDocuments) {
  for (uint32_t n : {1u, 3u, 8u}) {
    std::vector<int64_t> out(3 * n * 8, 0);
    ::asc::detail::chevron_launch("mix_ids", mix_ids, n, nullptr, nullptr)(reinterpret_cast<uint8_t*>(out.data()));
    ASSERT_TRUE(sync_current().ok());
    for (uint32_t g = 0; g < n; ++g) {  // AICs
      const int64_t* r = &out[g * 8];
      EXPECT_EQ(r[0], 1) << g;
      EXPECT_EQ(r[1], 0) << g;
      EXPECT_EQ(r[2], g);
      EXPECT_EQ(r[3], n);
      EXPECT_EQ(r[4], 0);
      EXPECT_EQ(r[5], 1);
      EXPECT_EQ(r[6], 1);
      EXPECT_EQ(r[7], 1) << "AIC " << g << " ran once";
    }
    for (uint32_t i = 0; i < 2 * n; ++i) {  // AIVs: [0, 2n)
      const int64_t* r = &out[(n + i) * 8];
      EXPECT_EQ(r[0], 0) << i;
      EXPECT_EQ(r[1], 1) << i;
      EXPECT_EQ(r[2], i);
      EXPECT_EQ(r[3], n);
      EXPECT_EQ(r[4], i % 2);
      EXPECT_EQ(r[5], 2);
      EXPECT_EQ(r[6], 2);
      EXPECT_EQ(r[7], 1) << "AIV " << i << " ran once";
    }
  }
}

// An ordinary kernel: one block runs both parts (both tests true), one sub-block.
__global__ __aicore__ void plain_ids(GM_ADDR out) {
  auto* o = reinterpret_cast<__gm__ int64_t*>(out) + 4 * AscendC::GetBlockIdx();
  o[0] = (ASCEND_IS_AIC ? 1 : 0) + (ASCEND_IS_AIV ? 2 : 0);
  o[1] = AscendC::GetSubBlockNum();
  o[2] = AscendC::GetTaskRatio();
  o[3] = AscendC::GetBlockNum();
}

TEST(MixLaunch, OrdinaryKernelsAreUnchanged) {
  std::vector<int64_t> out(4 * 3, 0);
  ::asc::detail::chevron_launch("plain_ids", plain_ids, 3, nullptr, nullptr)(reinterpret_cast<uint8_t*>(out.data()));
  ASSERT_TRUE(sync_current().ok());
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(out[4 * b + 0], 3);
    EXPECT_EQ(out[4 * b + 1], 1);
    EXPECT_EQ(out[4 * b + 2], 1);
    EXPECT_EQ(out[4 * b + 3], 3);
  }
}

// Mode 2 both ways, 3 rounds: the AIC publishes x = round * 100 + group, each
// AIV reads it after its wait and writes x * (sub + 2); the AIC's wait ends
// only when both AIVs have set, then it adds their results.
constexpr int kRounds = 3;
__global__ __mix__(1, 2) __aicore__ void mix_handshake(GM_ADDR buf, GM_ADDR out) {
  auto* b = reinterpret_cast<__gm__ int64_t*>(buf);  // per group: x, aiv0, aiv1
  auto* o = reinterpret_cast<__gm__ int64_t*>(out);
  if ASCEND_IS_AIC {
    const int64_t g = AscendC::GetBlockIdx();
    for (int r = 0; r < kRounds; ++r) {
      b[3 * g] = r * 100 + g;
      AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(5);
      AscendC::CrossCoreWaitFlag(6);
      o[kRounds * g + r] = b[3 * g + 1] + b[3 * g + 2];
    }
  }
  if ASCEND_IS_AIV {
    const int64_t g = AscendC::GetBlockIdx() / 2, sub = AscendC::GetSubBlockIdx();
    for (int r = 0; r < kRounds; ++r) {
      AscendC::CrossCoreWaitFlag(5);
      b[3 * g + 1 + sub] = b[3 * g] * (sub + 2);
      AscendC::CrossCoreSetFlag<2, PIPE_MTE3>(6);
    }
  }
}

TEST(MixLaunch, Mode2HandshakeBetweenTheAicAndItsAivs) {
  constexpr uint32_t n = 4;
  std::vector<int64_t> buf(3 * n, -1), out(kRounds * n, -1);
  ::asc::detail::chevron_launch("mix_handshake", mix_handshake, n, nullptr, nullptr)(
      reinterpret_cast<uint8_t*>(buf.data()), reinterpret_cast<uint8_t*>(out.data()));
  const asc::Status st = sync_current();
  ASSERT_TRUE(st.ok()) << st.message();
  for (uint32_t g = 0; g < n; ++g)
    for (int r = 0; r < kRounds; ++r) EXPECT_EQ(out[kRounds * g + r], (r * 100 + g) * 5) << g << " " << r;
}

// Mode 0 among all AIVs (the cross_core_set_wait_flag sample's scenario 0)
// and mode 1 between the two AIVs of a group; SyncAll<true> over the AIVs.
__global__ __mix__(1, 2) __aicore__ void mix_vector_barriers(GM_ADDR vals, GM_ADDR out) {
  if ASCEND_IS_AIV {
    auto* v = reinterpret_cast<__gm__ int64_t*>(vals);
    auto* o = reinterpret_cast<__gm__ int64_t*>(out);
    const int64_t i = AscendC::GetBlockIdx(), n = 2 * AscendC::GetBlockNum();
    v[i] = (i + 1) * 10;
    AscendC::CrossCoreSetFlag<0, PIPE_MTE3>(0);
    AscendC::CrossCoreWaitFlag(0);
    int64_t sum = 0;
    for (int64_t k = 0; k < n; ++k) sum += v[k];
    o[3 * i] = sum;
    v[n + i] = i * i;  // partner exchange within the group
    AscendC::CrossCoreSetFlag<1, PIPE_MTE3>(1);
    AscendC::CrossCoreWaitFlag(1);
    o[3 * i + 1] = v[n + (i ^ 1)];
    v[2 * n + i] = -i;
    AscendC::SyncAll();  // isAIVOnly: the AIC instances do not join
    o[3 * i + 2] = v[2 * n + (n - 1 - i)];
  }
}

TEST(MixLaunch, Mode0Mode1AndSyncAllAmongTheAivs) {
  constexpr uint32_t groups = 8, n = 2 * groups;
  std::vector<int64_t> vals(3 * n, 0), out(3 * n, -7);
  ::asc::detail::chevron_launch("mix_vector_barriers", mix_vector_barriers, groups, nullptr, nullptr)(
      reinterpret_cast<uint8_t*>(vals.data()), reinterpret_cast<uint8_t*>(out.data()));
  const asc::Status st = sync_current();
  ASSERT_TRUE(st.ok()) << st.message();
  int64_t want = 0;
  for (int64_t k = 0; k < n; ++k) want += (k + 1) * 10;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(out[3 * i], want) << i;
    EXPECT_EQ(out[3 * i + 1], (i ^ 1) * (i ^ 1)) << i;
    EXPECT_EQ(out[3 * i + 2], -(int64_t(n) - 1 - i)) << i;
  }
}

// The AIC waits for a flag no AIV sets: a launch error, not a hang.
__global__ __mix__(1, 2) __aicore__ void mix_never_set(GM_ADDR) {
  if ASCEND_IS_AIC { AscendC::CrossCoreWaitFlag(3); }
}

TEST(MixLaunch, AWaitNoSetCanEndFailsTheLaunch) {
  int64_t dummy = 0;
  ::asc::detail::chevron_launch("mix_never_set", mix_never_set, 2, nullptr, nullptr)(
      reinterpret_cast<uint8_t*>(&dummy));
  const asc::Status st = sync_current();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("CrossCoreWaitFlag"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("flag 3"), std::string::npos) << st.message();
}

// __mix__(1, 1): one AIV per group, indices [0, n) on both sides.
__global__ __mix__(1, 1) __aicore__ void mix_one_one(GM_ADDR out) {
  auto* o = reinterpret_cast<__gm__ int64_t*>(out);
  const int64_t row = (ASCEND_IS_AIC ? 0 : AscendC::GetBlockNum()) + AscendC::GetBlockIdx();
  o[row] = 100 * AscendC::GetTaskRatio() + AscendC::GetSubBlockIdx();
}

TEST(MixLaunch, OneToOneAndTheBlockLimit) {
  std::vector<int64_t> out(10, -1);
  ::asc::detail::chevron_launch("mix_one_one", mix_one_one, 5, nullptr, nullptr)(
      reinterpret_cast<uint8_t*>(out.data()));
  ASSERT_TRUE(sync_current().ok());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(out[i], 100) << i;
  // 30000 groups of 3 cores is more than the 65535 a launch may start.
  testing::internal::CaptureStderr();
  ::asc::detail::chevron_launch("mix_ids", mix_ids, 30000, nullptr, nullptr)(reinterpret_cast<uint8_t*>(out.data()));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("__mix__(1, 2) kernel starts 90000 cores"), std::string::npos) << err;
  (void)sync_current();
}

}  // namespace
