// LocalMemAllocator::Alloc<pos, T>(n): position given, count at run time (the
// form CANN's matmul samples use on L1/L0A/L0B/L0C).
#include <gtest/gtest.h>

#include <cstdint>

#include "kernel_test_util.h"

using namespace AscendC;

TEST(LocalMemAllocatorPos, RuntimeCountWithPosition) {
  kt::run_or_throw("lma_pos", 1, [] {
    LocalMemAllocator<Hardware::L1> l1;
    auto a = l1.Alloc<TPosition::A1, half>(40);  // 80 bytes -> rounded to 96
    auto b = l1.Alloc<TPosition::B1, half>(16);
    EXPECT_EQ(a.GetSize(), 40u);
    EXPECT_EQ(b.GetSize(), 16u);
    EXPECT_EQ(a.GetPosition(), static_cast<int32_t>(TPosition::A1));
    EXPECT_EQ(b.GetPosition(), static_cast<int32_t>(TPosition::B1));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.raw()) - reinterpret_cast<uintptr_t>(a.raw()), 96u);
    EXPECT_EQ(l1.GetCurAddr(), 128u);
    LocalMemAllocator<Hardware::L0C> l0c;
    auto c = l0c.Alloc<TPosition::CO1, float>(256);
    EXPECT_EQ(c.GetPosition(), static_cast<int32_t>(TPosition::CO1));
    EXPECT_EQ(l0c.GetCurAddr(), 1024u);
  });
}
