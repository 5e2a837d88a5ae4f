// include/asc/nn/conv.h: C++ API of convolution (oneDNN, reference and Ascend C paths) and its cache.
#include "asc/nn/conv.h"

#include <gtest/gtest.h>

#include <cmath>

namespace asc::nn {
namespace {

Tensor filled(const Shape& s, DType d, int seed) {
  Tensor t = Tensor::empty(s, DType::kFloat32);
  float* p = t.data_as<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(((i * 7 + seed * 13) % 11) - 5) / 4.f;
  if (d == DType::kFloat32) return t;
  Tensor o = Tensor::empty(s, d);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (d == DType::kFloat64) o.data_as<double>()[i] = p[i];
  }
  return o;
}

ConvAttrs attrs2d(int64_t s, int64_t pad, int64_t g) {
  ConvAttrs a;
  a.stride = {s, s};
  a.pad_l = a.pad_r = {pad, pad};
  a.dilation = {1, 1};
  a.output_padding = {0, 0};
  a.groups = g;
  return a;
}

TEST(Conv, OneDnnMatchesFloat64ReferenceWithFusedEpilogue) {
  const Tensor x = filled({2, 4, 7, 7}, DType::kFloat32, 1), w = filled({6, 2, 3, 3}, DType::kFloat32, 2);
  const Tensor b = filled({6}, DType::kFloat32, 3), r = filled({2, 6, 4, 4}, DType::kFloat32, 4);
  const Tensor xd = filled({2, 4, 7, 7}, DType::kFloat64, 1), wd = filled({6, 2, 3, 3}, DType::kFloat64, 2);
  const Tensor bd = filled({6}, DType::kFloat64, 3), rd = filled({2, 6, 4, 4}, DType::kFloat64, 4);
  ConvAttrs a = attrs2d(2, 1, 2);
  a.act = Activation::kRelu;
  const Tensor y = conv(x, w, &b, &r, a);   // oneDNN
  const Tensor yd = conv(xd, wd, &bd, &rd, a);  // direct reference
  a.engine = ConvEngine::kAscendC;
  const Tensor ya = conv(x, w, &b, &r, a);  // img2col + Mmad
  ASSERT_EQ(y.shape(), (Shape{2, 6, 4, 4}));
  int positives = 0;
  for (int64_t i = 0; i < y.numel(); ++i) {
    const double want = yd.data_as<double>()[i];
    EXPECT_NEAR(y.data_as<float>()[i], want, 1e-4) << i;
    EXPECT_NEAR(ya.data_as<float>()[i], want, 1e-4) << i;
    EXPECT_GE(want, 0.0);
    positives += want > 0;
  }
  EXPECT_GT(positives, 10);
}

TEST(Conv, SteadyStateCallsHitTheCache) {
  const Tensor x = filled({1, 8, 9, 9}, DType::kFloat32, 1), w = filled({8, 8, 3, 3}, DType::kFloat32, 2);
  const ConvAttrs a = attrs2d(1, 1, 1);
  (void)conv(x, w, nullptr, nullptr, a);
  const auto before = conv_cache_stats();
  for (int i = 0; i < 4; ++i) (void)conv(x, w, nullptr, nullptr, a);
  const auto after = conv_cache_stats();
  EXPECT_EQ(after.second, before.second);  // no new plans
  EXPECT_GE(after.first - before.first, 4);
}

TEST(Conv, StorageVersionTracksWrites) {
  // The write generation the weight cache keys on (include/asc/core/tensor.h).
  const Tensor t = Tensor::empty({4}, DType::kFloat32), u = Tensor::empty({4}, DType::kFloat32);
  EXPECT_NE(t.storage()->uid(), u.storage()->uid());
  const uint64_t v0 = t.storage()->version();
  (void)t.storage()->read_data();
  EXPECT_EQ(t.storage()->version(), v0);  // a read leaves it
  (void)t.data();
  EXPECT_NE(t.storage()->version(), v0);  // any mutable pointer may write
  const uint64_t v1 = t.storage()->version();
  t.storage()->set_lazy_flags(Storage::kPendingWrite);  // as the graph does around a deferred write
  t.storage()->set_lazy_flags(0);                       // ... when that write completed
  EXPECT_NE(t.storage()->version(), v1);
}

TEST(Conv, ReorderedWeightsCachedUntilWritten) {
  const Tensor x = filled({2, 8, 9, 9}, DType::kFloat32, 1), w = filled({16, 8, 3, 3}, DType::kFloat32, 2);
  const Tensor xd = filled({2, 8, 9, 9}, DType::kFloat64, 1);
  const ConvAttrs a = attrs2d(1, 1, 1);
  (void)conv(x, w, nullptr, nullptr, a);
  const auto s0 = conv_weight_cache_stats();
  for (int i = 0; i < 3; ++i) (void)conv(x, w, nullptr, nullptr, a);
  const auto s1 = conv_weight_cache_stats();
  EXPECT_EQ(s1.second, s0.second);  // no reorder in the steady state
  EXPECT_GE(s1.first - s0.first, 3);
  // A write through data() (what eager kernels and in-place ops do) invalidates.
  w.data_as<float>()[0] += 2.f;
  const Tensor y = conv(x, w, nullptr, nullptr, a);
  EXPECT_EQ(conv_weight_cache_stats().second, s1.second + 1);
  Tensor wd = Tensor::empty(w.shape(), DType::kFloat64);
  for (int64_t i = 0; i < w.numel(); ++i) wd.data_as<double>()[i] = w.data_as<float>()[i];
  const Tensor yd = conv(xd, wd, nullptr, nullptr, a);
  for (int64_t i = 0; i < y.numel(); ++i) EXPECT_NEAR(y.data_as<float>()[i], yd.data_as<double>()[i], 1e-4) << i;
}

// NC1HWC0 in/out (the model executor's layout between convolutions) equals the plain path:
// element (n, c, h, w) of the plain output is element (n, c / 8, h, w, c % 8) of the blocked one.
TEST(Conv, BlockedLayoutsMatchPlain) {
  const Tensor x = filled({1, 16, 6, 6}, DType::kFloat32, 1), w = filled({32, 16, 3, 3}, DType::kFloat32, 2);
  const Tensor b = filled({32}, DType::kFloat32, 3);
  ConvAttrs a = attrs2d(1, 1, 1);
  a.act = Activation::kRelu;
  const Tensor y = conv(x, w, &b, nullptr, a);
  Tensor xb = Tensor::empty({1, 2, 6, 6, 8}, DType::kFloat32);
  for (int64_t c = 0; c < 16; ++c)
    for (int64_t i = 0; i < 36; ++i) xb.data_as<float>()[((c / 8) * 36 + i) * 8 + c % 8] = x.data_as<float>()[c * 36 + i];
  a.src_block = a.dst_block = 8;
  const Tensor yb = conv(xb, w, &b, nullptr, a);
  ASSERT_EQ(yb.shape(), (Shape{1, 4, 6, 6, 8}));
  for (int64_t c = 0; c < 32; ++c)
    for (int64_t i = 0; i < 36; ++i) {
      EXPECT_NEAR(yb.data_as<float>()[((c / 8) * 36 + i) * 8 + c % 8], y.data_as<float>()[c * 36 + i], 1e-5);
    }
  a.dst_block = 16;  // 32 output channels: also divisible by 16 (another C0 reorders but is exact)
  const Tensor y16 = conv(xb, w, &b, nullptr, a);
  ASSERT_EQ(y16.shape(), (Shape{1, 2, 6, 6, 16}));
  EXPECT_NEAR(y16.data_as<float>()[(1 * 36 + 7) * 16 + 3], y.data_as<float>()[19 * 36 + 7], 1e-5);
  a.dst_block = 8;
  a.transposed = true;
  EXPECT_THROW((void)conv(xb, w, &b, nullptr, a), Error);
}

TEST(Conv, ErrorsNameTheOpAndShapes) {
  const Tensor x = filled({1, 4, 5, 5}, DType::kFloat32, 1);
  ConvAttrs a = attrs2d(1, 0, 1);
  try {
    (void)conv(x, filled({4, 3, 3, 3}, DType::kFloat32, 2), nullptr, nullptr, a);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status().code(), ErrorCode::kInvalidShape);
    EXPECT_NE(std::string(e.what()).find("conv2d"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("(4, 3, 3, 3)"), std::string::npos);
  }
  a.stride = {0, 1};
  EXPECT_THROW((void)conv(x, filled({4, 4, 3, 3}, DType::kFloat32, 2), nullptr, nullptr, a), Error);
  a = attrs2d(1, 0, 1);
  EXPECT_THROW((void)conv(x, filled({4, 4, 3, 3}, DType::kFloat64, 2), nullptr, nullptr, a), Error);
  EXPECT_THROW((void)activation_of("swishy", "conv2d"), Error);
}

}  // namespace
}  // namespace asc::nn
