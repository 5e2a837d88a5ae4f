// SoftMax's host tiling (optiling::SoftMaxTiling + SoftMaxTilingFunc) as a
// tiling-data field whose saved bytes are the kernel-side ::SoftMaxTiling,
// and AdjustSoftMaxRes (CANN's row-wise post-processing of SoftMax results).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernel_test_util.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftmaxTestTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxTilingData);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace {

struct KernelSide {  // what a kernel declares (CANN's kernel_tiling.h struct at global scope)
  uint32_t rows;
  SoftMaxTiling softmaxTilingData;
};

using AscendC::TPosition;

TEST(SoftMaxTiling, HostTilingIsTheKernelStruct) {
  optiling::SoftmaxTestTilingData t;
  t.set_rows(6);
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({2, 3, 40}), sizeof(float), 1024, t.softmaxTilingData);
  std::vector<uint8_t> buf(t.GetDataSize());
  t.SaveToBuffer(buf.data(), buf.size());
  ASSERT_EQ(buf.size(), sizeof(KernelSide));
  KernelSide k;
  std::memcpy(&k, buf.data(), sizeof(k));
  EXPECT_EQ(k.rows, 6u);
  EXPECT_EQ(k.softmaxTilingData.srcM, 6u);  // 2 x 3 rows
  EXPECT_EQ(k.softmaxTilingData.srcK, 40u);
  EXPECT_EQ(k.softmaxTilingData.srcSize, 240u);
  EXPECT_EQ(k.softmaxTilingData.outMaxK, 8u);  // one 32-byte block of float per row
  EXPECT_EQ(k.softmaxTilingData.outMaxSize, 48u);
  EXPECT_EQ(k.softmaxTilingData.rangeM, 1u);
  AscendC::SoftMaxTilingFunc(AscendC::TensorShape({4, 32}), 2, 0, t.softmaxTilingData);
  EXPECT_EQ(t.softmaxTilingData.get_reduceK(), 16u);  // half
}

TEST(SoftMaxTiling, AdjustSoftMaxResReplacesRowsWhoseMaxMatches) {
  const uint32_t m = 4, k = 16;
  std::vector<float> res(m * k);
  bool any = false, none = true;
  kt::run_or_throw("adjust_softmax", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> bx, bs, bm;
    pipe.InitBuffer(bx, m * k * 4);
    pipe.InitBuffer(bs, m * 32);
    pipe.InitBuffer(bm, m * 32);
    auto x = bx.Get<float>(), sum = bs.Get<float>(), mx = bm.Get<float>();
    for (uint32_t i = 0; i < m * k; ++i) x.SetValue(i, static_cast<float>(i % 7) - 3.0f);
    for (uint32_t j = 0; j < k; ++j) x.SetValue(2 * k + j, -3.4028234663852886e38f);  // row 2: all -FLT_MAX
    AscendC::SoftMaxTiling tiling;
    AscendC::SoftMaxShapeInfo shape = {m, k, m, k};
    AscendC::SoftMax<float>(x, sum, mx, x, tiling, shape);
    any = AscendC::AdjustSoftMaxRes<float, float>(x, mx, 0xFF7FFFFF, 0.0f, shape);  // -FLT_MAX's bits
    none = AscendC::AdjustSoftMaxRes<float, float>(x, mx, 0x3F800000, 5.0f, shape);  // 1.0: no row max is 1
    for (uint32_t i = 0; i < m * k; ++i) res[i] = x.GetValue(i);
  });
  EXPECT_TRUE(any);
  EXPECT_FALSE(none);
  for (uint32_t r = 0; r < m; ++r) {
    float s = 0;
    for (uint32_t j = 0; j < k; ++j) s += res[r * k + j];
    if (r == 2) {
      EXPECT_EQ(s, 0.0f);  // adjusted to 0
    } else {
      EXPECT_NEAR(s, 1.0f, 1e-5f) << r;
    }
  }
}

}  // namespace
