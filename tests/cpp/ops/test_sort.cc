// sort/argsort/searchsorted/nonzero/unique/isin/bincount registry ops vs
// std::stable_sort references (NaN last, -0.0 == +0.0 in input order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"

using namespace asc;

namespace {

template <typename T>
Tensor from_vec(const std::vector<T>& v, Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  Tensor t = Tensor::empty(shape, dtype_of<T>());
  if (!v.empty()) std::memcpy(t.data(), v.data(), v.size() * sizeof(T));
  return t;
}

template <typename T>
std::vector<T> to_vec(const Tensor& t0) {
  const Tensor t = t0.contiguous();
  std::vector<T> v(static_cast<size_t>(t.numel()));
  if (!v.empty()) std::memcpy(v.data(), t.data(), v.size() * sizeof(T));
  return v;
}

/// NumPy's order: NaN last, -0.0 == 0.0.
bool np_less(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

std::vector<float> special_floats(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-100, 100);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float specials[] = {0.0f, -0.0f, nan, inf, -inf, 1.0f, -1.0f, -0.0f, 0.0f, nan, 3.5f, 3.5f};
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (i % 7 == 0) ? specials[(i / 7) % 12] : std::round(d(g) * 4) / 4;
  return v;
}

ops::Attrs axis_attrs(int64_t axis) {
  ops::Attrs a;
  a.all_axes = false;
  a.axes = {axis};
  return a;
}

/// Bitwise compare (distinguishes -0.0 from 0.0 and keeps NaN payload order).
template <typename T>
void expect_bits_eq(const std::vector<T>& a, const std::vector<T>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(0, std::memcmp(&a[i], &b[i], sizeof(T))) << "at " << i << ": " << double(a[i]) << " vs " << double(b[i]);
}

}  // namespace

// Lengths around the SIMD width, the parallel chunk size and the merge split.
class SortSizes : public ::testing::TestWithParam<size_t> {};

TEST_P(SortSizes, Float32StableWithSpecials) {
  const size_t n = GetParam();
  const auto v = special_floats(n, static_cast<unsigned>(n));
  auto ref = v;
  std::stable_sort(ref.begin(), ref.end(), [](float a, float b) { return np_less(a, b); });
  const Tensor s = ops::call("sort", {from_vec(v)}, axis_attrs(-1));
  expect_bits_eq(to_vec<float>(s), ref);

  std::vector<int64_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return np_less(v[a], v[b]); });
  EXPECT_EQ(to_vec<int64_t>(ops::call("argsort", {from_vec(v)}, axis_attrs(0))), idx);
}

TEST_P(SortSizes, Int64AndFloat64Argsort) {
  const size_t n = GetParam();
  std::mt19937_64 g(n);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = static_cast<int64_t>(g() % 1000) - 500;
  if (n > 2) v[1] = std::numeric_limits<int64_t>::min(), v[2] = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return v[a] < v[b]; });
  EXPECT_EQ(to_vec<int64_t>(ops::call("argsort", {from_vec(v)}, axis_attrs(0))), idx);
  auto ref = v;
  std::sort(ref.begin(), ref.end());
  EXPECT_EQ(to_vec<int64_t>(ops::call("sort", {from_vec(v)}, axis_attrs(0))), ref);

  std::vector<double> d(v.begin(), v.end());
  if (n > 4) d[3] = std::nan(""), d[4] = -0.0;
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return np_less(d[a], d[b]); });
  EXPECT_EQ(to_vec<int64_t>(ops::call("argsort", {from_vec(d)}, axis_attrs(0))), idx);
}

INSTANTIATE_TEST_SUITE_P(Lengths, SortSizes,
                         ::testing::Values(0, 1, 2, 7, 16, 17, 63, 64, 65, 1000, (1 << 16) + 3, (1 << 17) + 5,
                                           (1 << 20) + 11));

TEST(Sort, DescendingKeepsTiesInInputOrderAndNanFirst) {
  const std::vector<float> v = {1.0f, -0.0f, NAN, 0.0f, 2.0f, -1.0f};
  ops::Attrs a = axis_attrs(0);
  a.descending = true;
  const auto s = to_vec<float>(ops::call("sort", {from_vec(v)}, a));
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_EQ(s[1], 2.0f);
  EXPECT_EQ(s[2], 1.0f);
  EXPECT_TRUE(std::signbit(s[3]));   // -0.0 came first in the input
  EXPECT_FALSE(std::signbit(s[4]));
  EXPECT_EQ(s[5], -1.0f);
  EXPECT_EQ(to_vec<int64_t>(ops::call("argsort", {from_vec(v)}, a)), (std::vector<int64_t>{2, 4, 0, 1, 3, 5}));
}

TEST(Sort, AxesOfA2dArrayAndSmallTypes) {
  // 3 x 5 int8, sorted along each axis; rows mode and the axis move.
  std::vector<int8_t> v = {5, -3, 7, 0, -128, 127, 1, 1, -1, 2, 9, -9, 4, 4, 0};
  const Tensor x = from_vec(v, {3, 5});
  const auto r1 = to_vec<int8_t>(ops::call("sort", {x}, axis_attrs(1)));
  EXPECT_EQ(r1, (std::vector<int8_t>{-128, -3, 0, 5, 7, -1, 1, 1, 2, 127, -9, 0, 4, 4, 9}));
  const auto r0 = to_vec<int8_t>(ops::call("sort", {x}, axis_attrs(0)));
  EXPECT_EQ(r0, (std::vector<int8_t>{5, -9, 1, -1, -128, 9, -3, 4, 0, 0, 127, 1, 7, 4, 2}));
  const auto a0 = to_vec<int64_t>(ops::call("argsort", {x}, axis_attrs(0)));
  EXPECT_EQ(a0, (std::vector<int64_t>{0, 2, 1, 1, 0, 2, 0, 2, 0, 2, 1, 1, 0, 2, 1}));
  // Negative-stride view.
  const Tensor rev = x.slice(1, 4, -1, -1);
  const auto rr = to_vec<int8_t>(ops::call("sort", {rev}, axis_attrs(1)));
  EXPECT_EQ(rr, r1);
  // 0-d with an axis is an error naming the axis; flattening works.
  EXPECT_THROW(ops::call("sort", {Tensor::empty({}, DType::kFloat32)}, axis_attrs(-1)), Error);
}

TEST(Sort, ManyRowsSplitOverCores) {
  const int64_t R = 300, n = 700;
  std::mt19937 g(3);
  std::vector<uint16_t> v(static_cast<size_t>(R * n));
  for (auto& x : v) x = static_cast<uint16_t>(g());
  const auto s = to_vec<uint16_t>(ops::call("sort", {from_vec(v, {R, n})}, axis_attrs(-1)));
  for (int64_t r = 0; r < R; ++r) {
    std::vector<uint16_t> row(v.begin() + r * n, v.begin() + (r + 1) * n);
    std::sort(row.begin(), row.end());
    ASSERT_TRUE(std::equal(row.begin(), row.end(), s.begin() + r * n)) << "row " << r;
  }
}

TEST(Search, SearchsortedSidesAndSorter) {
  const std::vector<double> a = {-1.0, 0.0, 0.0, 2.0, NAN};
  const std::vector<double> v = {-2.0, -0.0, 0.0, 2.0, 3.0, NAN};
  ops::Attrs left;
  EXPECT_EQ(to_vec<int64_t>(ops::call("searchsorted", {from_vec(a), from_vec(v)}, left)),
            (std::vector<int64_t>{0, 1, 1, 3, 4, 4}));
  ops::Attrs right;
  right.flags = 1;
  EXPECT_EQ(to_vec<int64_t>(ops::call("searchsorted", {from_vec(a), from_vec(v)}, right)),
            (std::vector<int64_t>{0, 3, 3, 4, 4, 5}));
  const std::vector<double> perm_a = {2.0, -1.0, 0.0};
  const std::vector<int64_t> sorter = {1, 2, 0};
  EXPECT_EQ(to_vec<int64_t>(ops::call("searchsorted_sorter", {from_vec(perm_a), from_vec(v), from_vec(sorter)}, left)),
            (std::vector<int64_t>{0, 1, 1, 2, 3, 3}));
  const std::vector<int64_t> bad = {0, 5, 1};
  EXPECT_THROW(ops::call("searchsorted_sorter", {from_vec(perm_a), from_vec(v), from_vec(bad)}, left), Error);
}

TEST(Search, NonzeroArgwhereCount) {
  std::vector<float> v(2 * 3 * 70000, 0.0f);
  std::vector<int64_t> expect;
  for (size_t i = 0; i < v.size(); i += 977) {
    v[i] = (i % 2) ? NAN : 1.5f;
    expect.push_back(static_cast<int64_t>(i));
  }
  v[5] = -0.0f;  // zero
  const Tensor x = from_vec(v, {2, 3, 70000});
  const Tensor nz = ops::call("nonzero", {x});
  ASSERT_EQ(nz.shape(), (Shape{3, static_cast<int64_t>(expect.size())}));
  const auto c = to_vec<int64_t>(nz);
  const int64_t m = static_cast<int64_t>(expect.size());
  for (int64_t k = 0; k < m; ++k) {
    const int64_t i = expect[static_cast<size_t>(k)];
    ASSERT_EQ(c[k], i / 210000);
    ASSERT_EQ(c[m + k], (i / 70000) % 3);
    ASSERT_EQ(c[2 * m + k], i % 70000);
  }
  const Tensor aw = ops::call("argwhere", {x});
  EXPECT_EQ(aw.shape(), (Shape{m, 3}));
  const Tensor cnt = ops::call("count_nonzero", {x});
  EXPECT_EQ(*cnt.data_as<int64_t>(), m);
  EXPECT_THROW(ops::call("nonzero", {Tensor::empty({}, DType::kFloat32)}), Error);
}

TEST(Sets, UniqueValuesAndInfo) {
  const std::vector<float> v = {3.0f, NAN, -0.0f, 1.0f, 0.0f, NAN, 3.0f};
  ops::Attrs eq;
  eq.flags = 1;
  const auto u = to_vec<float>(ops::call("unique_values", {from_vec(v)}, eq));
  ASSERT_EQ(u.size(), 4u);
  EXPECT_TRUE(std::signbit(u[0]));  // the first zero in input order
  EXPECT_EQ(u[1], 1.0f);
  EXPECT_EQ(u[2], 3.0f);
  EXPECT_TRUE(std::isnan(u[3]));
  const auto info = to_vec<int64_t>(ops::call("unique_info", {from_vec(v)}, ops::Attrs{}));
  // NaNs distinct: values -0, 1, 3, nan, nan -> index | counts | inverse.
  EXPECT_EQ(info, (std::vector<int64_t>{2, 3, 0, 1, 5, 2, 1, 2, 1, 1, 2, 3, 0, 1, 0, 4, 2}));
}

TEST(Sets, IsinAndBincount) {
  const std::vector<int32_t> e = {1, 5, -3, 7, 0};
  const std::vector<int64_t> t = {7, 0, 1, 1};
  const auto r = to_vec<uint8_t>(ops::call("isin", {from_vec(e), from_vec(t)}, ops::Attrs{}));
  EXPECT_EQ(r, (std::vector<uint8_t>{1, 0, 0, 1, 1}));
  const std::vector<double> fe = {NAN, -0.0, 2.0};
  const std::vector<double> ft = {NAN, 0.0};
  ops::Attrs inv;
  inv.flags = 1;
  EXPECT_EQ(to_vec<uint8_t>(ops::call("isin", {from_vec(fe), from_vec(ft)}, inv)), (std::vector<uint8_t>{1, 0, 1}));
  const std::vector<uint8_t> b = {1, 3, 3, 0};
  ops::Attrs ml;
  ml.flags = 6;
  EXPECT_EQ(to_vec<int64_t>(ops::call("bincount", {from_vec(b)}, ml)), (std::vector<int64_t>{1, 1, 0, 2, 0, 0}));
  const std::vector<int64_t> neg = {1, -1};
  EXPECT_THROW(ops::call("bincount", {from_vec(neg)}, ops::Attrs{}), Error);
  const std::vector<float> fl = {1.0f};
  try {
    ops::call("bincount", {from_vec(fl)}, ops::Attrs{});
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(err.code(), ErrorCode::kInvalidDtype);
    EXPECT_NE(err.message().find("[bincount]"), std::string::npos);
  }
}

// The raw-key float fast path and its fallbacks: values whose NaNs share one
// positive bit pattern and that hold one zero sign sort as raw keys; NaN
// payloads, a negative NaN or both zero signs take the general path. Each
// case at sizes with one chunk and several chunks (merge rounds).
TEST(Sort, Float32FastPathAndFallbacksBitExact) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto with_bits = [](uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  for (size_t n : {size_t(100), size_t(70001), size_t(200003)}) {
    for (int variant = 0; variant < 5; ++variant) {
      std::mt19937 g(static_cast<unsigned>(n + variant));
      std::uniform_real_distribution<float> d(-1000, 1000);
      std::vector<float> v(n);
      for (auto& x : v) x = d(g);
      for (size_t i = 0; i < n; i += 97) v[i] = (variant == 2) ? with_bits(0x7FC00000u | (i & 7)) : nan;
      for (size_t i = 5; i < n; i += 89) v[i] = (i & 1) ? inf : -inf;
      if (variant == 1) for (size_t i = 3; i < n; i += 101) v[i] = -0.0f;
      if (variant == 3) for (size_t i = 3; i < n; i += 101) v[i] = (i % 3 == 0) ? -0.0f : 0.0f;
      if (variant == 4) for (size_t i = 0; i < n; i += 97) v[i] = with_bits(0xFFC00000u);  // negative NaN
      auto ref = v;
      std::stable_sort(ref.begin(), ref.end(), [](float a, float b) { return np_less(a, b); });
      const Tensor in = from_vec(v);
      expect_bits_eq(to_vec<float>(ops::call("sort", {in}, axis_attrs(0))), ref);
      expect_bits_eq(to_vec<float>(in), v);  // the fused copy leaves the input alone
    }
  }
}

TEST(Sort, UniqueParallelPassesMatchReference) {
  for (size_t n : {size_t(0), size_t(1), size_t(4097), size_t(200003)}) {
    std::mt19937 g(static_cast<unsigned>(n));
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(g() % 1000) - 500.0f;
    for (size_t i = 0; i < n; i += 1001) v[i] = std::nanf("");
    for (size_t i = 7; i < n; i += 503) v[i] = -0.0f;
    std::vector<float> ref = v;
    std::stable_sort(ref.begin(), ref.end(), [](float a, float b) { return np_less(a, b); });
    std::vector<float> uniq;
    for (float x : ref)
      if (uniq.empty() || std::isnan(x) || !(x == uniq.back())) {
        if (!uniq.empty() && std::isnan(x) && std::isnan(uniq.back())) continue;  // equal_nan
        uniq.push_back(x);
      }
    ops::Attrs a;
    a.flags = 1;
    const auto got = to_vec<float>(ops::call("unique_values", {from_vec(v)}, a));
    ASSERT_EQ(got.size(), uniq.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_TRUE(got[i] == uniq[i] || (std::isnan(got[i]) && std::isnan(uniq[i]))) << i;
    // unique_info: counts sum to n, inverse maps every element to its value.
    const auto info = to_vec<int64_t>(ops::call("unique_info", {from_vec(v)}, a));
    const size_t u = uniq.size();
    ASSERT_EQ(info.size(), 2 * u + n);
    int64_t total = 0;
    for (size_t k = 0; k < u; ++k) {
      total += info[u + k];
      const float first = v[static_cast<size_t>(info[k])];
      ASSERT_TRUE(first == uniq[k] || (std::isnan(first) && std::isnan(uniq[k])));
    }
    EXPECT_EQ(total, static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) {
      const float w = uniq[static_cast<size_t>(info[2 * u + i])];
      ASSERT_TRUE(w == v[i] || (std::isnan(w) && std::isnan(v[i]))) << i;
    }
  }
}

// Complex values in NumPy's order: lexicographic (real, imag) with -0.0 ==
// 0.0, then R + nanj (by real), nan + Rj (by imag), nan + nanj; stable.
TEST(Sort, ComplexNumpyOrderHandChecked) {
  using C = std::complex<float>;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<C> v = {{nan, nan}, {nan, 2}, {3, nan}, {nan, -1}, {1, nan},
                            {5, 1},     {-0.0f, 0}, {0, -0.0f}, {5, -2}, {-1, 7}};
  // Stable order of the indices, worked out by hand.
  const std::vector<int64_t> order = {9, 6, 7, 8, 5, 4, 2, 3, 1, 0};
  ops::Attrs all;
  EXPECT_EQ(to_vec<int64_t>(ops::call("argsort", {from_vec(v)}, all)), order);
  const auto s = to_vec<C>(ops::call("sort", {from_vec(v)}, all));
  for (size_t k = 0; k < v.size(); ++k)
    EXPECT_EQ(0, std::memcmp(&s[k], &v[static_cast<size_t>(order[k])], sizeof(C))) << k;
  ops::Attrs desc;
  desc.descending = true;  // NaN classes first (reversed), ties (the zeros) in input order
  EXPECT_EQ(to_vec<int64_t>(ops::call("argsort", {from_vec(v)}, desc)),
            (std::vector<int64_t>{0, 1, 3, 2, 4, 5, 8, 6, 7, 9}));
  // complex128 takes the two-pass (imag, then real) path for the numbers.
  std::vector<std::complex<double>> w(v.begin(), v.end());
  EXPECT_EQ(to_vec<int64_t>(ops::call("argsort", {from_vec(w)}, all)), order);
  // searchsorted into the sorted values; 0j finds the zeros, nan+0j lands among nan + Rj.
  const std::vector<C> q = {{0, 0}, {nan, 0}, {4, nan}, {nan, nan}};
  ops::Attrs right;
  right.flags = 1;
  const Tensor sorted = from_vec(s);
  EXPECT_EQ(to_vec<int64_t>(ops::call("searchsorted", {sorted, from_vec(q)}, ops::Attrs{})),
            (std::vector<int64_t>{1, 8, 7, 9}));
  EXPECT_EQ(to_vec<int64_t>(ops::call("searchsorted", {sorted, from_vec(q)}, right)),
            (std::vector<int64_t>{3, 8, 7, 10}));
}

TEST(Sets, ComplexUniqueAndIsin) {
  using C = std::complex<double>;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<C> v = {{nan, 1}, {2, 0}, {-0.0, 0}, {1, nan}, {0, -0.0}, {2, 0}};
  ops::Attrs eq;
  eq.flags = 1;
  // equal_nan: one NaN group whose value is the first NaN in input order (NumPy's hashing unique).
  const auto u = to_vec<C>(ops::call("unique_values", {from_vec(v)}, eq));
  ASSERT_EQ(u.size(), 3u);
  EXPECT_TRUE(std::signbit(u[0].real()) && u[0].imag() == 0.0);
  EXPECT_EQ(u[1], C(2, 0));
  EXPECT_TRUE(std::isnan(u[2].real()) && u[2].imag() == 1.0);
  // NaNs distinct: values -0, 2, 1+nanj, nan+1j -> index | counts | inverse.
  EXPECT_EQ(to_vec<int64_t>(ops::call("unique_info", {from_vec(v)}, ops::Attrs{})),
            (std::vector<int64_t>{2, 1, 3, 0, 2, 2, 1, 1, 3, 1, 0, 2, 0, 1}));
  const std::vector<C> t = {{0, 0}, {nan, 1}, {1, nan}, {2, 0}};
  EXPECT_EQ(to_vec<uint8_t>(ops::call("isin", {from_vec(v), from_vec(t)}, ops::Attrs{})),
            (std::vector<uint8_t>{0, 1, 1, 0, 1, 1}));
}

// Long value sorts of every key width, signed and unsigned, narrow and wide
// value ranges, one row (chunks + merges) and two rows (one core each),
// against std::sort / the NaN-last stable reference.
template <typename T>
void check_long_sort(size_t n, uint64_t range, unsigned seed) {
  std::mt19937_64 g(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) x = static_cast<T>(static_cast<int64_t>(g() % range) - int64_t(range / 2)) / 4;
    else if constexpr (std::is_signed_v<T>) x = static_cast<T>(static_cast<int64_t>(g() % range) - int64_t(range / 2));
    else x = static_cast<T>(g() % range);
  }
  if (range > 2 && n > 10) {
    v[3] = std::numeric_limits<T>::max();
    v[7] = std::numeric_limits<T>::lowest();
  }
  auto ref = v;
  if constexpr (std::is_floating_point_v<T>) {
    for (size_t i = 11; i < n; i += 1009) v[i] = ref[i] = std::numeric_limits<T>::quiet_NaN();
    std::stable_sort(ref.begin(), ref.end(), [](T a, T b) { return np_less(a, b); });
  } else {
    std::sort(ref.begin(), ref.end());
  }
  const Tensor in = from_vec(v);
  expect_bits_eq(to_vec<T>(ops::call("sort", {in}, axis_attrs(0))), ref);
  // Two rows of n / 2: the rows mode sorts each on one core.
  if (n % 2 == 0 && n >= (size_t(1) << 17)) {
    const auto got = to_vec<T>(ops::call("sort", {from_vec(v, {2, static_cast<int64_t>(n / 2)})}, axis_attrs(1)));
    for (size_t r = 0; r < 2; ++r) {
      std::vector<T> row(v.begin() + r * n / 2, v.begin() + (r + 1) * n / 2);
      if constexpr (std::is_floating_point_v<T>) std::stable_sort(row.begin(), row.end(), [](T a, T b) { return np_less(a, b); });
      else std::sort(row.begin(), row.end());
      expect_bits_eq(std::vector<T>(got.begin() + r * n / 2, got.begin() + (r + 1) * n / 2), row);
    }
  }
}

TEST(Sort, LongRowsAllKeyWidths) {
  for (size_t n : {(size_t(1) << 16) + 3, (size_t(1) << 18)}) {
    for (uint64_t range : {uint64_t(1), uint64_t(200), uint64_t(70000), uint64_t(1) << 40}) {
      const unsigned seed = static_cast<unsigned>(n + range);
      check_long_sort<int16_t>(n, range, seed);
      check_long_sort<uint16_t>(n, range, seed);
      check_long_sort<int32_t>(n, range, seed);
      check_long_sort<uint32_t>(n, range, seed);
      check_long_sort<int64_t>(n, range, seed);
      check_long_sort<uint64_t>(n, range, seed);
      check_long_sort<float>(n, range, seed);
      check_long_sort<double>(n, range, seed);
    }
  }
}
