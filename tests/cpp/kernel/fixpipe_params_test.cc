// FixpipeParamsV220's 11-value form (CANN's matmul samples) sets every field in order.
#include <gtest/gtest.h>

#include "kernel_operator.h"

TEST(FixpipeParamsV220, ElevenValueForm) {
  AscendC::FixpipeParamsV220 p{32, 16, 16, 64, true, QuantMode_t::F322F16, 7, 1, 3, 5, 2};
  EXPECT_EQ(p.nSize, 32);
  EXPECT_EQ(p.mSize, 16);
  EXPECT_EQ(p.srcStride, 16);
  EXPECT_EQ(p.dstStride, 64u);
  EXPECT_TRUE(p.reluEn);
  EXPECT_EQ(p.quantPre, AscendC::QuantMode_t::F322F16);
  EXPECT_EQ(p.deqScalar, 7u);
  EXPECT_EQ(p.ndNum, 1);
  EXPECT_EQ(p.srcNdStride, 3);
  EXPECT_EQ(p.dstNdStride, 5);
  EXPECT_EQ(p.unitFlag, 2);
  EXPECT_FALSE(p.isChannelSplit);
}
