// include/asc/nn/pool.h: C++ API of max / average / adaptive pooling.
#include "asc/nn/pool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace asc::nn {
namespace {

Tensor iota(const Shape& s) {
  Tensor t = Tensor::empty(s, DType::kFloat32);
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(i);
  return t;
}

TEST(Pool, MaxPool2dValuesAndTorchIndices) {
  Tensor x = iota({1, 1, 4, 4});  // increasing: the max of a window is its bottom-right element
  PoolAttrs a;
  a.kernel = {2, 2};
  a.padding = {1, 1};
  a.return_indices = true;
  PoolResult r = pool(x, a);
  ASSERT_EQ(r.out.shape(), (Shape{1, 1, 3, 3}));
  ASSERT_EQ(r.indices.dtype(), DType::kInt64);
  const float* y = r.out.data_as<float>();
  const int64_t* ix = r.indices.data_as<int64_t>();
  const int64_t want[9] = {0, 2, 3, 8, 10, 11, 12, 14, 15};
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(ix[i], want[i]) << i;
    EXPECT_EQ(y[i], static_cast<float>(want[i])) << i;
  }
}

TEST(Pool, NanPropagatesAndCeilMode) {
  Tensor x = iota({1, 1, 5});
  x.data_as<float>()[1] = std::numeric_limits<float>::quiet_NaN();
  PoolAttrs a;
  a.spatial_ndim = 1;
  a.kernel = {2};
  a.ceil_mode = true;
  a.op = "max_pool1d";
  PoolResult r = pool(x, a);
  ASSERT_EQ(r.out.shape(), (Shape{1, 1, 3}));
  EXPECT_TRUE(std::isnan(r.out.data_as<float>()[0]));
  EXPECT_EQ(r.out.data_as<float>()[2], 4.0f);  // the ceil-mode window holds one element
}

TEST(Pool, AvgCountIncludePadAndDivisor) {
  Tensor x = Tensor::empty({1, 1, 2, 2}, DType::kFloat64);
  for (int i = 0; i < 4; ++i) x.data_as<double>()[i] = 1.0;
  PoolAttrs a;
  a.kind = PoolKind::kAvg;
  a.kernel = {2, 2};
  a.padding = {1, 1};
  a.op = "avg_pool2d";
  EXPECT_DOUBLE_EQ(pool(x, a).out.data_as<double>()[0], 0.25);
  a.count_include_pad = false;
  EXPECT_DOUBLE_EQ(pool(x, a).out.data_as<double>()[0], 1.0);
  a.divisor_override = 2;
  EXPECT_DOUBLE_EQ(pool(x, a).out.data_as<double>()[0], 0.5);
}

TEST(Pool, AdaptiveBins) {
  Tensor x = iota({2, 5});  // unbatched (C, L)
  PoolResult r = adaptive_pool(x, PoolKind::kAvg, {3}, false, "adaptive_avg_pool1d");
  ASSERT_EQ(r.out.shape(), (Shape{2, 3}));
  // bins [0,2) [1,4) [3,5)
  EXPECT_FLOAT_EQ(r.out.data_as<float>()[0], 0.5f);
  EXPECT_FLOAT_EQ(r.out.data_as<float>()[1], 2.0f);
  EXPECT_FLOAT_EQ(r.out.data_as<float>()[2], 3.5f);
  PoolResult m = adaptive_pool(x, PoolKind::kMax, {3}, true, "adaptive_max_pool1d");
  EXPECT_EQ(m.indices.data_as<int64_t>()[4], 3);
}

TEST(Pool, ErrorsNameOpAndValues) {
  Tensor x = iota({1, 1, 4, 4});
  PoolAttrs a;
  a.kernel = {2, 2};
  a.padding = {2, 2};
  try {
    pool(x, a);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidParam);
    EXPECT_NE(e.message().find("[max_pool2d]"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("(2, 2)"), std::string::npos) << e.message();
  }
  a.padding = {};
  try {
    pool(Tensor::empty({4, 4}, DType::kFloat32), a);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidShape);
  }
  try {
    pool(Tensor::empty({1, 1, 4, 4}, DType::kInt32), a);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidDtype);
  }
}

}  // namespace
}  // namespace asc::nn
