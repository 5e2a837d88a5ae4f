// include/asc/nn/softmax.h: the softmax / log_softmax kernel against a double reference.
#include "asc/nn/softmax.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "asc/core/half.h"

namespace asc::nn {
namespace {

Tensor vals(const Shape& s, DType d) {
  Tensor o = Tensor::empty(s, d);
  for (int64_t i = 0; i < o.numel(); ++i) {
    const double v = std::sin(double(i) * 1.3) * 4.0;
    switch (d) {
      case DType::kFloat64: o.data_as<double>()[i] = v; break;
      case DType::kFloat32: o.data_as<float>()[i] = float(v); break;
      case DType::kBFloat16: o.data_as<bfloat16>()[i] = bfloat16(float(v)); break;
      default: o.data_as<float16>()[i] = float16(float(v)); break;
    }
  }
  return o;
}

double at(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat64: return t.data_as<double>()[i];
    case DType::kFloat32: return t.data_as<float>()[i];
    case DType::kBFloat16: return float(t.data_as<bfloat16>()[i]);
    default: return float(t.data_as<float16>()[i]);
  }
}

/// softmax / log_softmax of x (outer, n, inner) along the middle axis, in double.
std::vector<double> reference(const Tensor& x, int64_t outer, int64_t n, int64_t inner, bool log) {
  std::vector<double> r(size_t(x.numel()));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      double m = -INFINITY, s = 0;
      for (int64_t k = 0; k < n; ++k) m = std::max(m, at(x, (o * n + k) * inner + j));
      for (int64_t k = 0; k < n; ++k) s += std::exp(at(x, (o * n + k) * inner + j) - m);
      for (int64_t k = 0; k < n; ++k) {
        const double z = at(x, (o * n + k) * inner + j) - m;
        r[size_t((o * n + k) * inner + j)] = log ? z - std::log(s) : std::exp(z) / s;
      }
    }
  }
  return r;
}

TEST(Softmax, EveryDtypeAndAxisMatchesDouble) {
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    const double tol = d == DType::kFloat64 ? 1e-13 : d == DType::kFloat32 ? 3e-6 : d == DType::kFloat16 ? 2e-3 : 1.6e-2;
    Tensor x = vals({3, 19, 5}, d);
    for (int64_t axis : {0, 1, 2}) {
      const int64_t outer = axis == 0 ? 1 : axis == 1 ? 3 : 57;
      const int64_t n = x.shape()[size_t(axis)];
      const int64_t inner = axis == 0 ? 95 : axis == 1 ? 5 : 1;
      for (bool log : {false, true}) {
        Tensor y = softmax(x, axis, log);
        ASSERT_EQ(y.dtype(), d);
        const std::vector<double> r = reference(x, outer, n, inner, log);
        for (int64_t i = 0; i < y.numel(); ++i) {
          EXPECT_NEAR(at(y, i), r[size_t(i)], tol * (1 + std::abs(r[size_t(i)]))) << "axis " << axis << " i " << i;
        }
      }
    }
  }
}

TEST(Softmax, NegateIsSoftmin) {
  Tensor x = vals({4, 33}, DType::kFloat32);
  Tensor neg = Tensor::empty({4, 33}, DType::kFloat32);
  for (int64_t i = 0; i < x.numel(); ++i) neg.data_as<float>()[i] = -x.data_as<float>()[i];
  Tensor a = softmax(x, -1, false, true), b = softmax(neg, -1);
  for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(at(a, i), at(b, i));
}

TEST(Softmax, SpecialRowsAsTorch) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float rows[4][3] = {{0.0f, -inf, 1.0f}, {-inf, -inf, -inf}, {nan, 0.0f, 1.0f}, {inf, 0.0f, 1.0f}};
  Tensor x = Tensor::empty({4, 3}, DType::kFloat32);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) x.data_as<float>()[r * 3 + c] = rows[r][c];
  Tensor y = softmax(x, 1), l = softmax(x, 1, true);
  EXPECT_EQ(at(y, 1), 0.0);
  EXPECT_EQ(at(l, 1), -INFINITY);
  EXPECT_NEAR(at(y, 2), 1.0 / (1.0 + std::exp(-1.0)), 1e-7);
  for (int i = 3; i < 12; ++i) {
    EXPECT_TRUE(std::isnan(at(y, i))) << i;
    EXPECT_TRUE(std::isnan(at(l, i))) << i;
  }
}

TEST(Softmax, EmptyAndErrors) {
  Tensor e = Tensor::empty({0, 4}, DType::kFloat32);
  EXPECT_EQ(softmax(e, 1).numel(), 0);
  EXPECT_THROW(softmax(vals({2, 3}, DType::kFloat32), 2), Error);
  EXPECT_THROW(softmax(Tensor::empty({2, 3}, DType::kInt32), 1), Error);
}

}  // namespace
}  // namespace asc::nn
