// max/min of signed integers at the edges of their range: the reduction
// identity (the dtype's lowest / highest value) is built without signed
// overflow (issue 20, item 14: UBSan found `-(int64_t(1) << 63)` in
// identity_value under make test-sanitize-python), and equals the value a
// scalar loop gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"

using namespace asc;

namespace {

template <typename T>
Tensor from(const Shape& shape, const std::vector<T>& v) {
  Tensor t = Tensor::empty(shape, dtype_of<T>());
  std::memcpy(t.data(), v.data(), v.size() * sizeof(T));
  return t;
}

template <typename T>
T get(const Tensor& t, int64_t i) {
  T v;
  std::memcpy(&v, t.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void check_extremes() {
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  // 3 rows x 4 columns: an all-lowest column, an all-highest column and mixed ones.
  const std::vector<T> v = {lo, hi, T(0), lo, lo, hi, T(-1), T(1), lo, hi, hi, T(7)};
  const Tensor a = from<T>({3, 4}, v);
  for (const char* op : {"max", "min"}) {
    const bool is_max = std::string(op) == "max";
    ops::Attrs ax;
    ax.all_axes = false;
    ax.axes = {0};
    const Tensor r = ops::call(op, {a}, ax);  // along rows: uses the identity per column
    ASSERT_EQ(r.shape(), (Shape{4}));
    ASSERT_EQ(r.dtype(), dtype_of<T>());
    for (int64_t c = 0; c < 4; ++c) {
      T want = v[size_t(c)];
      for (int64_t row = 1; row < 3; ++row) {
        const T x = v[size_t(row * 4 + c)];
        want = is_max ? std::max(want, x) : std::min(want, x);
      }
      EXPECT_EQ(get<T>(r, c), want) << op << " column " << c << " dtype " << dtype_name(dtype_of<T>());
    }
    // The whole of the all-lowest column (max) / all-highest column (min): the
    // result is the identity's own value.
    const Tensor col = from<T>({3}, std::vector<T>(3, is_max ? lo : hi));
    EXPECT_EQ(get<T>(ops::call(op, {col}), 0), is_max ? lo : hi) << op;
  }
}

}  // namespace

TEST(ReduceIdentity, SignedIntegerExtremesInt8) { check_extremes<int8_t>(); }
TEST(ReduceIdentity, SignedIntegerExtremesInt16) { check_extremes<int16_t>(); }
TEST(ReduceIdentity, SignedIntegerExtremesInt32) { check_extremes<int32_t>(); }
TEST(ReduceIdentity, SignedIntegerExtremesInt64) { check_extremes<int64_t>(); }
TEST(ReduceIdentity, UnsignedIntegerExtremes) {
  const std::vector<uint64_t> v = {0, ~uint64_t(0), 5, ~uint64_t(0), 0, 3};
  const Tensor a = from<uint64_t>({2, 3}, v);
  ops::Attrs ax;
  ax.all_axes = false;
  ax.axes = {0};
  const Tensor mx = ops::call("max", {a}, ax), mn = ops::call("min", {a}, ax);
  for (int64_t c = 0; c < 3; ++c) {
    EXPECT_EQ(get<uint64_t>(mx, c), std::max(v[size_t(c)], v[size_t(c + 3)]));
    EXPECT_EQ(get<uint64_t>(mn, c), std::min(v[size_t(c)], v[size_t(c + 3)]));
  }
}
