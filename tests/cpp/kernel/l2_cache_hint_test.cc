// GlobalTensor::SetL2CacheHint: CANN documents it as a performance hint (L2
// cache on/off per tensor); on the CPU device every mode must give the same
// data. The mode is recorded (l2_cache_mode()).
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::CacheMode;
using AscendC::TPosition;

TEST(L2CacheHint, EveryModeCopiesTheSameData) {
  for (CacheMode mode : {CacheMode::CACHE_MODE_DISABLE, CacheMode::CACHE_MODE_NORMAL,
                         CacheMode::CACHE_MODE_PERSISTENT}) {
    std::vector<float> x(256), y(256, -1.0f);
    for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i) * 0.5f - 7.0f;
    kt::run_or_throw("l2_hint", 1, [&] {
      AscendC::GlobalTensor<float> xg, yg;
      xg.SetGlobalBuffer(x.data(), 256);
      yg.SetGlobalBuffer(y.data(), 256);
      EXPECT_EQ(xg.l2_cache_mode(), CacheMode::CACHE_MODE_NORMAL);  // CANN's default
      xg.SetL2CacheHint(mode);
      yg.SetL2CacheHint<AscendC::CacheRwMode::WRITE>(mode);
      EXPECT_EQ(xg.l2_cache_mode(), mode);
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::VECCALC> b;
      pipe.InitBuffer(b, 1024);
      auto t = b.Get<float>();
      AscendC::DataCopy(t, xg, 256);
      AscendC::Adds(t, t, 1.0f, 256);
      AscendC::DataCopy(yg, t, 256);
    });
    for (int i = 0; i < 256; ++i) ASSERT_EQ(y[i], x[i] + 1.0f) << i;
  }
}

}  // namespace
