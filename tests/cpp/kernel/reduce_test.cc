// ReduceSum / ReduceMax / ReduceMin (with and without index).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::LocalTensor;

enum class R { kSum, kMax, kMin };

// Runs the reduction in a kernel; returns dst[0] as float and the index bits.
template <typename T>
std::pair<float, uint32_t> reduce(R r, const std::vector<T>& x, bool with_index) {
  float value = 0;
  uint32_t index = 0;
  kt::run_or_throw("reduce_test", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> src, dst, work;
    pipe.InitBuffer(src, static_cast<uint32_t>(x.size() * sizeof(T) + 32));
    pipe.InitBuffer(dst, 32);
    pipe.InitBuffer(work, 32);
    auto s = src.Get<T>();
    auto d = dst.Get<T>();
    auto w = work.Get<T>();
    if (!x.empty()) std::memcpy(s.data(), x.data(), x.size() * sizeof(T));
    d.SetValue(1, T(0));
    const int32_t n = static_cast<int32_t>(x.size());
    switch (r) {
      case R::kSum: AscendC::ReduceSum(d, s, w, n); break;
      case R::kMax: AscendC::ReduceMax(d, s, w, n, with_index); break;
      case R::kMin: AscendC::ReduceMin(d, s, w, n, with_index); break;
    }
    value = static_cast<float>(d.GetValue(0));
    if (sizeof(T) == 4) {
      index = d.template ReinterpretCast<uint32_t>().GetValue(1);
    } else {
      index = d.template ReinterpretCast<uint16_t>().GetValue(1);
    }
  });
  return {value, index};
}

template <typename T>
std::vector<T> random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-10.0f, 10.0f);
  std::vector<T> v(n);
  for (auto& x : v) x = T(d(rng));
  return v;
}

template <typename T>
void check_all(float sum_rel_tol) {
  for (size_t n : kt::tail_lengths()) {
    const auto x = random<T>(n, static_cast<uint32_t>(n) + 5);
    double sum = 0, abs_sum = 0;
    float mx = -std::numeric_limits<float>::infinity(), mn = std::numeric_limits<float>::infinity();
    uint32_t imx = 0, imn = 0;
    for (size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(x[i]);
      sum += v;
      abs_sum += std::fabs(v);
      if (v > mx) { mx = v; imx = static_cast<uint32_t>(i); }
      if (v < mn) { mn = v; imn = static_cast<uint32_t>(i); }
    }
    const auto s = reduce(R::kSum, x, false);
    // half rounds the result once: allow its half ulp on top of the summation error.
    const double tol = sum_rel_tol * abs_sum + std::fabs(sum) * (sizeof(T) == 2 ? 1e-3 : 0) + 1e-6;
    EXPECT_NEAR(s.first, sum, tol) << "n=" << n;
    const auto a = reduce(R::kMax, x, true);
    const auto b = reduce(R::kMin, x, true);
    EXPECT_EQ(a.first, mx) << "n=" << n;
    EXPECT_EQ(b.first, mn) << "n=" << n;
    if (n > 0) {
      EXPECT_EQ(a.second, imx) << "n=" << n;
      EXPECT_EQ(b.second, imn) << "n=" << n;
    }
  }
}

TEST(Reduce, Float32) { check_all<float>(1e-6f); }
TEST(Reduce, Float16) { check_all<half>(1e-6f); }

TEST(Reduce, IndexOfFirstOccurrenceAndNaN) {
  std::vector<float> x(300, 1.0f);
  x[17] = 5.0f;
  x[250] = 5.0f;  // the first occurrence wins
  x[3] = -2.0f;
  x[299] = -2.0f;
  EXPECT_EQ(reduce(R::kMax, x, true), std::make_pair(5.0f, 17u));
  EXPECT_EQ(reduce(R::kMin, x, true), std::make_pair(-2.0f, 3u));
  x[100] = std::numeric_limits<float>::quiet_NaN();
  x[200] = std::numeric_limits<float>::quiet_NaN();
  auto m = reduce(R::kMax, x, true);
  EXPECT_TRUE(std::isnan(m.first));
  EXPECT_EQ(m.second, 100u);
  EXPECT_TRUE(std::isnan(reduce(R::kSum, x, false).first));
  std::vector<float> inf = {1.0f, std::numeric_limits<float>::infinity(), -3.0f};
  EXPECT_EQ(reduce(R::kMax, inf, true), std::make_pair(std::numeric_limits<float>::infinity(), 1u));
  // The index of the maximum in a half tensor: uint16 bits in dst[1].
  std::vector<half> h(1000, half(0.5f));
  h[777] = half(9.0f);
  EXPECT_EQ(reduce(R::kMax, h, true), std::make_pair(9.0f, 777u));
}

TEST(Reduce, EmptyAndWithoutIndex) {
  std::vector<float> none;
  EXPECT_EQ(reduce(R::kSum, none, false).first, 0.0f);
  EXPECT_EQ(reduce(R::kMax, none, false).first, -std::numeric_limits<float>::infinity());
  EXPECT_EQ(reduce(R::kMin, none, false).first, std::numeric_limits<float>::infinity());
  std::vector<float> x = {3.0f, 9.0f};
  // Without calIndex dst[1] is not written (the test set it to 0).
  EXPECT_EQ(reduce(R::kMax, x, false), std::make_pair(9.0f, 0u));
}

TEST(Reduce, LargeSumAccuracy) {
  std::vector<float> x(40000, 0.1f);
  EXPECT_NEAR(reduce(R::kSum, x, false).first, 4000.0, 0.01);
}

}  // namespace
