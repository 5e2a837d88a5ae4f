// Source-compatibility macros of mixed cube/vector kernels.
#include <gtest/gtest.h>

#include <atomic>

#include "vec_test_util.h"

namespace {

using namespace AscendC;

std::atomic<int> g_vector_parts{0}, g_cube_parts{0};

// Shaped like a mixed kernel: the vector and the cube part both run on a CPU
// core (it executes every instruction of its block).
extern "C" __global__ __aicore__ void mixed_kernel() {
  KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
  if ASCEND_IS_AIV {
    g_vector_parts.fetch_add(1);
  }
  if ASCEND_IS_AIC {
    g_cube_parts.fetch_add(1);
  }
}

TEST(Qualifiers, MixedKernelRunsBothPartsOnEveryBlock) {
  g_vector_parts = 0;
  g_cube_parts = 0;
  kt::run_or_throw("mixed", 3, [] { mixed_kernel(); });
  EXPECT_EQ(g_vector_parts.load(), 3);
  EXPECT_EQ(g_cube_parts.load(), 3);
}

TEST(Qualifiers, FractalConstants) {
  static_assert(DEFAULT_C0_SIZE == 32, "C0 is 32 bytes");
  EXPECT_EQ(DEFAULT_C0_SIZE / sizeof(half), 16u);  // 16 halves per C0 row
  EXPECT_EQ(DEFAULT_C0_SIZE / sizeof(float), 8u);
}

}  // namespace
