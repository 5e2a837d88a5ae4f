// SIMD Max/Min (kernel::simd::binary) on +0/-0 ties and NaN: NumPy's rule on
// every Highway target (second operand for float32, first for float16), for
// lengths around the vector width (full vectors and the tail).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "asc/core/half.h"
#include "asc/kernel/simd.h"

namespace asc::kernel::simd {
namespace {

template <typename T>
void check_extremum(DType dt, bool first_on_tie) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float pool[] = {-0.f, 0.f, -0.f, 0.f, nan, 1.5f, -1.5f, INFINITY, -INFINITY};
  for (size_t n : {1u, 3u, 7u, 8u, 15u, 16u, 17u, 31u, 33u, 64u, 65u, 257u}) {
    std::vector<T> a(n), b(n), out(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = T(pool[(i * 7 + n) % 9]);
      b[i] = T(pool[(i * 5 + 3 * n + 1) % 9]);
    }
    for (bool is_max : {true, false}) {
      binary(is_max ? BinaryOp::kMax : BinaryOp::kMin, dt, out.data(), a.data(), b.data(), n);
      for (size_t i = 0; i < n; ++i) {
        const float x = a[i], y = b[i], r = out[i];
        float want;
        if (std::isnan(x)) want = x;
        else if (std::isnan(y)) want = y;
        else if (x == y) want = first_on_tie ? x : y;
        else want = (is_max ? x > y : x < y) ? x : y;
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(r)) << n << " " << i;
        } else {
          EXPECT_EQ(r, want) << (is_max ? "Max " : "Min ") << x << " " << y << " n=" << n;
          EXPECT_EQ(std::signbit(r), std::signbit(want)) << (is_max ? "Max " : "Min ") << x << " " << y << " n=" << n;
        }
      }
    }
  }
}

TEST(SimdExtremum, Float32TiesGiveTheSecondOperand) { check_extremum<float>(DType::kFloat32, false); }
TEST(SimdExtremum, Float16TiesGiveTheFirstOperand) { check_extremum<float16>(DType::kFloat16, true); }

}  // namespace
}  // namespace asc::kernel::simd
