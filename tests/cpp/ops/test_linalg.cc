// matmul (BLAS, half, integer, bool paths; batching, broadcasting, strides)
// and the LAPACK functions against straightforward reference loops.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

#include "asc/core/tensor.h"
#include "asc/ops/linalg.h"
#include "asc/ops/registry.h"

using namespace asc;

namespace {

template <typename T>
Tensor make(const Shape& shape, std::function<T(int64_t)> f) {
  Tensor t = Tensor::empty(shape, dtype_of<T>());
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<T>()[i] = f(i);
  return t;
}

/// Element at a multi-index of any tensor, as double.
double at(const Tensor& t, std::initializer_list<int64_t> idx) {
  int64_t off = 0;
  size_t d = 0;
  for (int64_t i : idx) off += i * t.strides()[d++];
  const uint8_t* p = t.data() + off;
  return visit_dtype(t.dtype(), [&](auto z) -> double {
    using T = decltype(z);
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return static_cast<float>(v);
    else return static_cast<double>(v);
  });
}

double flat(const Tensor& t, int64_t i) {
  int64_t off = 0, rem = i;
  for (int64_t d = t.ndim() - 1; d >= 0; --d) {
    off += (rem % t.shape()[d]) * t.strides()[d];
    rem /= t.shape()[d];
  }
  const uint8_t* p = t.data() + off;
  return visit_dtype(t.dtype(), [&](auto z) -> double {
    using T = decltype(z);
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return static_cast<float>(v);
    else return static_cast<double>(v);
  });
}

/// Reference product of one (M,K) x (K,N) pair given element accessors.
void expect_product(const Tensor& c, const Tensor& a, const Tensor& b, double tol) {
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  ASSERT_EQ(c.shape(), (Shape{m, n}));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t l = 0; l < k; ++l) s += at(a, {i, l}) * at(b, {l, j});
      EXPECT_NEAR(at(c, {i, j}), s, tol * (1 + std::abs(s))) << i << "," << j;
    }
}

ErrorCode code_of(std::function<void()> f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::kSuccess;
}

}  // namespace

TEST(Matmul, Float32And64MatchReference) {
  for (int64_t n : {1, 7, 16, 33, 65}) {
    Tensor a = make<float>({n, n + 3}, [](int64_t i) { return float((i * 7) % 11) - 5.0f; });
    Tensor b = make<float>({n + 3, n + 1}, [](int64_t i) { return float((i * 5) % 13) * 0.5f - 3.0f; });
    expect_product(ops::matmul(a, b), a, b, 1e-5);
    Tensor ad = ops::cast(a, DType::kFloat64), bd = ops::cast(b, DType::kFloat64);
    Tensor cd = ops::matmul(ad, bd);
    EXPECT_EQ(cd.dtype(), DType::kFloat64);
    expect_product(cd, ad, bd, 1e-12);
  }
}

TEST(Matmul, StridedTransposedAndReversedOperands) {
  Tensor base = make<double>({9, 8}, [](int64_t i) { return double(i % 17) - 8.0; });
  Tensor a = base.slice(0, 0, 9, 2).slice(1, 1, 7, 1);      // (5, 6), row stride 16 elements
  Tensor b = base.transpose().slice(0, 0, 6, 1);           // (6, 9), column-major
  Tensor r = base.slice(1, 7, -1, -1).slice(0, 0, 6, 1);   // (6, 8), negative column stride
  expect_product(ops::matmul(a, b), a, b, 1e-12);
  expect_product(ops::matmul(a, r), a, r, 1e-12);
  Tensor a_t = a.transpose();  // (6, 5) column-major view
  expect_product(ops::matmul(a_t, a), a_t, a, 1e-12);
}

TEST(Matmul, OneDimensionalPromotion) {
  Tensor v = make<float>({4}, [](int64_t i) { return float(i + 1); });
  Tensor m = make<float>({4, 3}, [](int64_t i) { return float(i); });
  Tensor r = ops::matmul(v, m);  // (4,) @ (4,3) -> (3,)
  ASSERT_EQ(r.shape(), (Shape{3}));
  for (int64_t j = 0; j < 3; ++j) {
    double s = 0;
    for (int64_t l = 0; l < 4; ++l) s += (l + 1) * double(l * 3 + j);
    EXPECT_DOUBLE_EQ(flat(r, j), s);
  }
  Tensor d = ops::matmul(v, v);  // inner product, 0-d
  EXPECT_EQ(d.ndim(), 0);
  EXPECT_DOUBLE_EQ(flat(d, 0), 1 + 4 + 9 + 16);
  Tensor mt = m.transpose();  // (3,4) @ (4,) -> (3,)
  Tensor c = ops::matmul(mt, v);
  ASSERT_EQ(c.shape(), (Shape{3}));
  for (int64_t j = 0; j < 3; ++j) EXPECT_DOUBLE_EQ(flat(c, j), flat(r, j));
}

TEST(Matmul, BatchedBroadcasting) {
  Tensor a = make<float>({2, 1, 3, 4}, [](int64_t i) { return float(i % 9) - 4; });
  Tensor b = make<float>({5, 4, 2}, [](int64_t i) { return float(i % 7) - 3; });
  Tensor c = ops::matmul(a, b);
  ASSERT_EQ(c.shape(), (Shape{2, 5, 3, 2}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 5; ++j) expect_product(c.select(0, i).select(0, j), a.select(0, i).select(0, 0),
                                                   b.select(0, j), 1e-6);
  // Shared right operand: the whole stack is one gemm.
  Tensor w = make<float>({4, 6}, [](int64_t i) { return float(i % 5); });
  Tensor s = ops::matmul(a, w);
  ASSERT_EQ(s.shape(), (Shape{2, 1, 3, 6}));
  for (int64_t i = 0; i < 2; ++i) expect_product(s.select(0, i).select(0, 0), a.select(0, i).select(0, 0), w, 1e-6);
}

TEST(Matmul, ManySmallMatricesInParallel) {
  Tensor a = make<double>({300, 3, 3}, [](int64_t i) { return double(i % 23) - 11; });
  Tensor b = make<double>({300, 3, 2}, [](int64_t i) { return double(i % 19) - 9; });
  Tensor c = ops::matmul(a, b);
  for (int64_t i = 0; i < 300; i += 37) expect_product(c.select(0, i), a.select(0, i), b.select(0, i), 1e-12);
}

TEST(Matmul, HalfPrecisionAccumulatesInFloat) {
  // 256 products of 1 + 1/1024: a float16 accumulator would lose the small parts.
  Tensor a = make<float16>({1, 256}, [](int64_t) { return float16(1.0f + 1.0f / 1024); });
  Tensor b = make<float16>({256, 1}, [](int64_t) { return float16(1.0f); });
  Tensor c = ops::matmul(a, b);
  EXPECT_EQ(c.dtype(), DType::kFloat16);
  EXPECT_NEAR(flat(c, 0), 256.25, 0.125);
  Tensor bf = make<bfloat16>({2, 2}, [](int64_t i) { return bfloat16(float(i)); });
  Tensor cb = ops::matmul(bf, bf);
  EXPECT_EQ(cb.dtype(), DType::kFloat32);  // NumPy: bfloat16 matmul runs in float32
  expect_product(cb, bf, bf, 0);
}

TEST(Matmul, IntegersWrapAndBoolIsOrOfAnd) {
  Tensor a = make<int8_t>({2, 3}, [](int64_t i) { return int8_t(100 + i); });
  Tensor b = make<int8_t>({3, 2}, [](int64_t i) { return int8_t(i - 2); });
  Tensor c = ops::matmul(a, b);
  EXPECT_EQ(c.dtype(), DType::kInt8);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      int64_t s = 0;
      for (int64_t l = 0; l < 3; ++l) s += int64_t(100 + i * 3 + l) * int64_t(l * 2 + j - 2);
      EXPECT_EQ(static_cast<int8_t>(at(c, {i, j})), static_cast<int8_t>(s));
    }
  Tensor big = make<int64_t>({1, 2}, [](int64_t) { return std::numeric_limits<int64_t>::max(); });
  Tensor two = make<int64_t>({2, 1}, [](int64_t) { return int64_t(2); });
  Tensor w = ops::matmul(big, two);
  int64_t got;
  std::memcpy(&got, w.data(), 8);
  EXPECT_EQ(got, static_cast<int64_t>(uint64_t(std::numeric_limits<int64_t>::max()) * 4));  // wraps to -4
  Tensor p = make<bool>({2, 2}, [](int64_t i) { return i == 0 || i == 3; });
  Tensor q = make<bool>({2, 2}, [](int64_t i) { return i == 1; });
  Tensor r = ops::matmul(p, q);
  EXPECT_EQ(r.dtype(), DType::kBool);
  EXPECT_EQ(at(r, {0, 0}), 0);
  EXPECT_EQ(at(r, {0, 1}), 1);
  EXPECT_EQ(at(r, {1, 0}), 0);
  EXPECT_EQ(at(r, {1, 1}), 0);
}

TEST(Matmul, LargeIntegerProductMatchesFloat) {
  // Big enough to be split over the cores; small values keep int32 exact.
  Tensor a = make<int32_t>({130, 70}, [](int64_t i) { return int32_t(i % 7) - 3; });
  Tensor b = make<int32_t>({70, 1100}, [](int64_t i) { return int32_t(i % 5) - 2; });
  Tensor c = ops::matmul(a, b);
  Tensor cf = ops::matmul(ops::cast(a, DType::kFloat64), ops::cast(b, DType::kFloat64));
  for (int64_t i = 0; i < c.numel(); i += 97) EXPECT_EQ(flat(c, i), flat(cf, i));
}

TEST(Matmul, EmptyDimensions) {
  Tensor a = Tensor::empty({3, 0}, DType::kFloat32), b = Tensor::empty({0, 4}, DType::kFloat32);
  Tensor c = ops::matmul(a, b);
  ASSERT_EQ(c.shape(), (Shape{3, 4}));
  for (int64_t i = 0; i < 12; ++i) EXPECT_EQ(flat(c, i), 0.0);
  EXPECT_EQ(ops::matmul(Tensor::empty({0, 3}, DType::kInt32), Tensor::empty({3, 2}, DType::kInt32)).shape(),
            (Shape{0, 2}));
  EXPECT_EQ(ops::matmul(Tensor::empty({0, 2, 3}, DType::kFloat64), Tensor::empty({3, 2}, DType::kFloat64)).shape(),
            (Shape{0, 2, 2}));
}

TEST(Matmul, ErrorsNameShapes) {
  Tensor a = Tensor::empty({2, 3}, DType::kFloat32), b = Tensor::empty({4, 5}, DType::kFloat32);
  try {
    ops::matmul(a, b);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidShape);
    EXPECT_EQ(e.message(), "[matmul] shapes (2, 3) and (4, 5) not aligned: 3 (dim 1) != 4 (dim 0)");
  }
  EXPECT_EQ(code_of([&] { ops::matmul(Tensor::empty({}, DType::kFloat32), a); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] {
              ops::matmul(Tensor::empty({2, 2, 3}, DType::kFloat32), Tensor::empty({3, 3, 2}, DType::kFloat32));
            }),
            ErrorCode::kInvalidShape);
  Tensor out = Tensor::empty({2, 2}, DType::kInt32);
  Tensor sq = Tensor::empty({2, 2}, DType::kFloat32);
  EXPECT_EQ(code_of([&] { ops::matmul(sq, sq, &out); }), ErrorCode::kInvalidDtype);  // float -> int
  Tensor out3 = Tensor::empty({3, 3}, DType::kFloat32);
  EXPECT_EQ(code_of([&] { ops::matmul(sq, sq, &out3); }), ErrorCode::kInvalidShape);
}

TEST(Matmul, OutMayAliasAnOperand) {
  Tensor a = make<double>({3, 3}, [](int64_t i) { return double(i); });
  Tensor ref = ops::matmul(a, a);
  ops::matmul(a, a, &a);
  for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(flat(a, i), flat(ref, i));
}

TEST(Matmul, BlasThreadsDefaultToCores) {
  EXPECT_GE(ops::blas_num_threads(), 1);
  EXPECT_FALSE(ops::blas_config().empty());
}

// ------------------------------------------------------------------ LAPACK

TEST(Lapack, InvSolveDet) {
  Tensor a = make<double>({3, 3}, [](int64_t i) { return i % 4 == 0 ? 4.0 : double(i % 3) - 1; });
  Tensor ai = ops::inv(a);
  Tensor id = ops::matmul(a, ai);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_NEAR(at(id, {i, j}), i == j ? 1.0 : 0.0, 1e-12);
  Tensor b = make<double>({3}, [](int64_t i) { return double(i + 1); });
  Tensor x = ops::solve(a, b);
  ASSERT_EQ(x.shape(), (Shape{3}));
  Tensor ax = ops::matmul(a, x);
  for (int64_t i = 0; i < 3; ++i) EXPECT_NEAR(flat(ax, i), i + 1.0, 1e-12);
  // det by cofactors
  double m[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m[i][j] = at(a, {i, j});
  const double ref = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  EXPECT_NEAR(flat(ops::det(a), 0), ref, 1e-12);
  auto sl = ops::slogdet(a);
  EXPECT_NEAR(flat(sl[0], 0) * std::exp(flat(sl[1], 0)), ref, 1e-12);
}

TEST(Lapack, SingularAndNonSquareAreLinAlgErrors) {
  Tensor z = make<float>({2, 2}, [](int64_t) { return 1.0f; });
  try {
    ops::inv(z);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLinAlgError);
    EXPECT_NE(e.message().find("[inv] Singular matrix"), std::string::npos);
  }
  EXPECT_EQ(code_of([&] { ops::inv(Tensor::empty({2, 3}, DType::kFloat64)); }), ErrorCode::kLinAlgError);
  EXPECT_EQ(code_of([&] { ops::det(Tensor::empty({3}, DType::kFloat64)); }), ErrorCode::kLinAlgError);
  Tensor neg = make<double>({2, 2}, [](int64_t i) { return i == 0 || i == 3 ? -1.0 : 0.0; });
  EXPECT_EQ(code_of([&] { ops::cholesky(neg); }), ErrorCode::kLinAlgError);
  EXPECT_EQ(code_of([&] { ops::inv(Tensor::empty({2, 2}, DType::kFloat16)); }), ErrorCode::kInvalidDtype);
  EXPECT_EQ(flat(ops::det(z), 0), 0.0);
}

TEST(Lapack, CholeskyQrSvdEigh) {
  // SPD: B B^T + 3 I
  Tensor bm = make<double>({3, 3}, [](int64_t i) { return double((i * 5) % 7) / 7.0; });
  Tensor spd = ops::matmul(bm, bm.transpose());
  for (int i = 0; i < 3; ++i) spd.data_as<double>()[i * 4] += 3.0;
  Tensor l = ops::cholesky(spd);
  EXPECT_EQ(at(l, {0, 1}), 0.0);
  Tensor llt = ops::matmul(l, l.transpose());
  for (int64_t i = 0; i < 9; ++i) EXPECT_NEAR(flat(llt, i), flat(spd, i), 1e-12);
  Tensor u = ops::cholesky(spd, /*upper=*/true);
  EXPECT_EQ(at(u, {1, 0}), 0.0);

  Tensor a = make<double>({4, 3}, [](int64_t i) { return double((i * 7) % 10) - 4.5; });
  auto qr = ops::qr(a, "reduced");
  ASSERT_EQ(qr[0].shape(), (Shape{4, 3}));
  ASSERT_EQ(qr[1].shape(), (Shape{3, 3}));
  Tensor qra = ops::matmul(qr[0], qr[1]);
  for (int64_t i = 0; i < 12; ++i) EXPECT_NEAR(flat(qra, i), flat(a, i), 1e-12);
  auto qc = ops::qr(a, "complete");
  Tensor qtq = ops::matmul(qc[0].transpose(), qc[0]);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 4; ++j) EXPECT_NEAR(at(qtq, {i, j}), i == j ? 1.0 : 0.0, 1e-12);

  auto usv = ops::svd(a, false, true);
  ASSERT_EQ(usv[0].shape(), (Shape{4, 3}));
  ASSERT_EQ(usv[1].shape(), (Shape{3}));
  ASSERT_EQ(usv[2].shape(), (Shape{3, 3}));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      double s = 0;
      for (int64_t k = 0; k < 3; ++k) s += at(usv[0], {i, k}) * flat(usv[1], k) * at(usv[2], {k, j});
      EXPECT_NEAR(s, at(a, {i, j}), 1e-12);
    }
  EXPECT_GE(flat(usv[1], 0), flat(usv[1], 1));

  auto eh = ops::eigh(spd);
  for (int64_t k = 0; k < 3; ++k) {  // A v = w v
    for (int64_t i = 0; i < 3; ++i) {
      double av = 0;
      for (int64_t j = 0; j < 3; ++j) av += at(spd, {i, j}) * at(eh[1], {j, k});
      EXPECT_NEAR(av, flat(eh[0], k) * at(eh[1], {i, k}), 1e-12);
    }
  }
  EXPECT_LE(flat(eh[0], 0), flat(eh[0], 1));
}

TEST(Lapack, LstsqExactForConsistentSystem) {
  Tensor a = make<double>({5, 2}, [](int64_t i) { return i % 2 == 0 ? 1.0 : double(i / 2); });  // [1, t]
  Tensor b = make<double>({5}, [](int64_t i) { return 2.0 + 3.0 * double(i); });
  auto r = ops::lstsq(a, b);
  ASSERT_EQ(r[0].shape(), (Shape{2}));
  EXPECT_NEAR(flat(r[0], 0), 2.0, 1e-12);
  EXPECT_NEAR(flat(r[0], 1), 3.0, 1e-12);
  EXPECT_NEAR(flat(r[1], 0), 0.0, 1e-18);
  EXPECT_EQ(flat(r[2], 0), 2.0);
}

namespace {

/// A diagonally dominant n x n matrix stack (well conditioned), row-major.
Tensor dominant(const Shape& shape, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const int64_t n = shape[shape.size() - 1];
  return make<double>(shape, [&](int64_t i) { return u(g) + ((i % (n * n)) % (n + 1) == 0 ? n + 2.0 : 0.0); });
}

/// max |A B - C| for 2-d tensors.
double product_error(const Tensor& a, const Tensor& b, const Tensor& c) {
  const Tensor ab = ops::matmul(a, b);
  double e = 0;
  for (int64_t i = 0; i < ab.numel(); ++i) e = std::max(e, std::abs(flat(ab, i) - flat(c, i)));
  return e;
}

}  // namespace

// Small (n <= 32: own LU, unrolled up to 8) and LAPACK-sized (transposed problem) matrices.
TEST(Lapack, InvSolveBothPathsSatisfyTheirEquations) {
  for (int64_t n : {1, 3, 8, 9, 30, 33, 50}) {
    SCOPED_TRACE(n);
    Tensor a = dominant({n, n}, static_cast<uint32_t>(n));
    Tensor id = make<double>({n, n}, [n](int64_t i) { return i % (n + 1) == 0 ? 1.0 : 0.0; });
    EXPECT_LT(product_error(a, ops::inv(a), id), 1e-12);
    for (int64_t k : {1, 4}) {
      Tensor b = make<double>({n, k}, [](int64_t i) { return double(i % 5) - 2; });
      EXPECT_LT(product_error(a, ops::solve(a, b), b), 1e-12);
    }
    Tensor v = make<double>({n}, [](int64_t i) { return double(i) + 0.5; });
    EXPECT_LT(product_error(a, ops::solve(a, v).expand_dims(1), v.expand_dims(1)), 1e-12);
    // det(A) = det(A^T) and the sign of a row swap.
    if (n >= 2) {
      const double d = flat(ops::det(a), 0);
      Tensor swapped = a.clone();
      for (int64_t j = 0; j < n; ++j) std::swap(swapped.data_as<double>()[j], swapped.data_as<double>()[n + j]);
      EXPECT_NEAR(flat(ops::det(swapped), 0), -d, 1e-10 * std::abs(d));
      EXPECT_NEAR(flat(ops::det(a.transpose()), 0), d, 1e-10 * std::abs(d));
    }
  }
}

TEST(Lapack, CholeskyUpperAndLowerBothPaths) {
  for (int64_t n : {2, 8, 9, 25, 40}) {
    SCOPED_TRACE(n);
    Tensor b = dominant({n, n}, 7);
    Tensor spd = ops::matmul(b, b.transpose());
    Tensor l = ops::cholesky(spd), u = ops::cholesky(spd, true);
    EXPECT_LT(product_error(l, l.transpose(), spd), 1e-9);
    EXPECT_LT(product_error(u.transpose(), u, spd), 1e-9);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) {
        EXPECT_EQ(at(l, {i, j}), 0.0);
        EXPECT_EQ(at(u, {j, i}), 0.0);
      }
  }
}

TEST(Lapack, QrSvdEighOfTallWideAndSquare) {
  for (const Shape& s : {Shape{20, 7}, Shape{7, 20}, Shape{12, 12}}) {
    SCOPED_TRACE(Tensor::shape_str(s));
    Tensor a = make<double>(s, [](int64_t i) { return std::sin(double(i) * 1.7) * 3; });
    auto qr = ops::qr(a, "reduced");
    EXPECT_LT(product_error(qr[0], qr[1], a), 1e-12);
    const int64_t k = std::min(s[0], s[1]);
    for (int64_t i = 1; i < k; ++i) EXPECT_EQ(at(qr[1], {i, i - 1}), 0.0);
    auto qc = ops::qr(a, "complete");
    EXPECT_EQ(qc[0].shape(), (Shape{s[0], s[0]}));
    EXPECT_LT(product_error(qc[0], qc[1], a), 1e-12);
    auto usv = ops::svd(a, true, true);
    EXPECT_EQ(usv[0].shape(), (Shape{s[0], s[0]}));
    EXPECT_EQ(usv[2].shape(), (Shape{s[1], s[1]}));
    Tensor us = usv[0].slice(1, 0, k, 1).clone();
    for (int64_t i = 0; i < s[0]; ++i)
      for (int64_t j = 0; j < k; ++j) us.data_as<double>()[i * k + j] *= flat(usv[1], j);
    EXPECT_LT(product_error(us, usv[2].slice(0, 0, k, 1), a), 1e-12);
  }
  Tensor b = make<double>({15, 15}, [](int64_t i) { return std::cos(double(i)); });
  Tensor spd = ops::matmul(b, b.transpose());
  auto eh = ops::eigh(spd);
  Tensor vw = eh[1].clone();
  for (int64_t i = 0; i < 15; ++i)
    for (int64_t j = 0; j < 15; ++j) vw.data_as<double>()[i * 15 + j] *= flat(eh[0], j);
  EXPECT_LT(product_error(spd, eh[1], vw), 1e-10);
}

TEST(Lapack, StackOfSmallMatricesNamesFirstSingular) {
  Tensor a = dominant({5000, 3, 3}, 3);
  for (int64_t m : {4100, 2222})
    for (int64_t j = 0; j < 9; ++j) a.data_as<double>()[m * 9 + j] = 0;
  try {
    ops::inv(a);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kLinAlgError);
    EXPECT_NE(e.message().find("matrix 2222 of the stack"), std::string::npos) << e.message();
  }
  Tensor d = ops::det(a);
  EXPECT_EQ(flat(d, 2222), 0.0);
  EXPECT_NE(flat(d, 0), 0.0);
}

TEST(Einsum, MatchesReferenceContractions) {
  Tensor a = make<double>({3, 4}, [](int64_t i) { return double(i) - 5; });
  Tensor b = make<double>({4, 2}, [](int64_t i) { return double(i % 3) + 1; });
  Tensor c = ops::einsum("ij,jk->ik", {a, b});
  expect_product(c, a, b, 1e-15);
  Tensor ct = ops::einsum("ij,jk->ki", {a, b});
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t k = 0; k < 2; ++k) EXPECT_EQ(at(ct, {k, i}), at(c, {i, k}));
  Tensor sq = make<int32_t>({3, 3}, [](int64_t i) { return int32_t(i); });
  Tensor tr = ops::einsum("ii", {sq});
  EXPECT_EQ(tr.ndim(), 0);
  EXPECT_EQ(tr.dtype(), DType::kInt32);
  EXPECT_EQ(flat(tr, 0), 0 + 4 + 8);
  Tensor diag = ops::einsum("ii->i", {sq});
  EXPECT_EQ(flat(diag, 2), 8);
  Tensor outer = ops::einsum("i,j", {b.select(1, 0), a.select(1, 1)});
  EXPECT_EQ(outer.shape(), (Shape{4, 3}));
  EXPECT_EQ(at(outer, {2, 1}), at(b, {2, 0}) * at(a, {1, 1}));
  Tensor chain = ops::einsum("ij,jk,kl->il", {a, b, b.transpose()});
  Tensor ref = ops::matmul(ops::matmul(a, b), b.transpose());
  for (int64_t i = 0; i < ref.numel(); ++i) EXPECT_NEAR(flat(chain, i), flat(ref, i), 1e-12);
  Tensor ell = ops::einsum("...j,j->...", {make<double>({2, 3, 4}, [](int64_t i) { return double(i); }),
                                           make<double>({4}, [](int64_t) { return 1.0; })});
  EXPECT_EQ(ell.shape(), (Shape{2, 3}));
  EXPECT_EQ(flat(ell, 5), 20.0 + 21 + 22 + 23);
}

TEST(Einsum, ErrorsNameTheProblem) {
  Tensor a = Tensor::empty({2, 3}, DType::kFloat32);
  EXPECT_EQ(code_of([&] { ops::einsum("ij,jk", {a}); }), ErrorCode::kInvalidParam);
  EXPECT_EQ(code_of([&] { ops::einsum("ijk", {a}); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { ops::einsum("ii", {a}); }), ErrorCode::kInvalidShape);
  EXPECT_EQ(code_of([&] { ops::einsum("ij->q", {a}); }), ErrorCode::kInvalidParam);
  EXPECT_EQ(code_of([&] { ops::einsum("i1", {a}); }), ErrorCode::kInvalidParam);
  EXPECT_EQ(code_of([&] { ops::einsum("ij,ij", {a, Tensor::empty({3, 3}, DType::kFloat32)}); }),
            ErrorCode::kInvalidShape);
  try {
    ops::einsum("ij,jk", {a, Tensor::empty({4, 2}, DType::kFloat32)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("[einsum]"), std::string::npos);
    EXPECT_NE(e.message().find("'j'"), std::string::npos) << e.message();
  }
}
