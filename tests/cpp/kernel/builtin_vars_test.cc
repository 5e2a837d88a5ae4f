// block_idx / block_num / get_block_idx() / get_block_num(): the built-in
// variables of CANN's Ascend C read the running block's values.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "kernel_test_util.h"

// CANN's type trait the cube samples branch on.
static_assert(AscendC::IsSameType<int8_t, int8_t>::value && !AscendC::IsSameType<int8_t, uint8_t>::value &&
              !AscendC::IsSameType<half, float>::value);

TEST(BuiltinVars, BlockIdxInArithmeticPerBlock) {
  constexpr uint32_t kBlocks = 7;
  constexpr uint32_t kLen = 5;
  std::vector<int64_t> out(kBlocks * kLen, -1);
  std::vector<int64_t> nums(kBlocks, -1);
  int64_t* base = out.data();
  int64_t* pn = nums.data();
  kt::run_or_throw("builtin_vars", kBlocks, [=] {
    // The samples' forms: pointer offset, comparison, cast.
    int64_t* mine = base + block_idx * kLen;
    for (uint32_t i = 0; i < kLen; ++i) mine[i] = static_cast<int64_t>(static_cast<float>(block_idx * kLen + i));
    if (block_idx >= 0 && block_idx < block_num) pn[get_block_idx()] = get_block_num();
  });
  for (uint32_t b = 0; b < kBlocks; ++b) {
    EXPECT_EQ(nums[b], kBlocks) << b;
    for (uint32_t i = 0; i < kLen; ++i) EXPECT_EQ(out[b * kLen + i], int64_t(b * kLen + i));
  }
}

TEST(BuiltinVars, OutsideAKernel) {
  EXPECT_EQ(static_cast<int64_t>(block_idx), 0);
  EXPECT_EQ(static_cast<int64_t>(block_num), 1);
  int64_t block_idx = 42;  // a local shadows the built-in, as any global
  EXPECT_EQ(block_idx, 42);
}
