// complex64/complex128: dtype traits, promotion, loops vs hand-checked values,
// reductions, casts, matmul, and clear errors where complex is unsupported.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/ops/linalg.h"
#include "asc/ops/registry.h"

using namespace asc;
using ops::Scalar;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename C>
Tensor cvec(const std::vector<C>& v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, dtype_of<C>());
  for (size_t i = 0; i < v.size(); ++i) t.data_as<C>()[i] = v[i];
  return t;
}

template <typename C>
C get(const Tensor& t, int64_t i) {
  Tensor c = t.contiguous();
  return c.data_as<C>()[i];
}

// Bitwise-equal doubles, NaN == NaN, -0 != +0.
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace

TEST(ComplexDType, Traits) {
  EXPECT_EQ(kNumDTypes, 15);
  EXPECT_EQ(dtype_size(DType::kComplex64), 8u);
  EXPECT_EQ(dtype_size(DType::kComplex128), 16u);
  EXPECT_STREQ(dtype_name(DType::kComplex64), "complex64");
  EXPECT_EQ(dtype_traits(DType::kComplex128).numpy_char, 'c');
  EXPECT_TRUE(is_complex(DType::kComplex64));
  EXPECT_FALSE(is_floating(DType::kComplex64));
  EXPECT_TRUE(is_inexact(DType::kComplex128));
  EXPECT_EQ(complex_part_dtype(DType::kComplex64), DType::kFloat32);
  EXPECT_EQ(dtype_from_name("complex128").value(), DType::kComplex128);
  EXPECT_EQ(dtype_of<std::complex<float>>(), DType::kComplex64);
  EXPECT_EQ(visit_dtype_all(DType::kComplex128, [](auto z) { return sizeof(z); }), 16u);
  try {
    visit_dtype(DType::kComplex64, [](auto) { return 0; });
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidDtype);
    EXPECT_NE(e.message().find("complex64"), std::string::npos);
  }
}

TEST(ComplexDType, Promotion) {
  using D = DType;
  struct Case {
    D a, b, r;
  } cases[] = {
      {D::kComplex64, D::kBool, D::kComplex64},      {D::kComplex64, D::kInt8, D::kComplex64},
      {D::kComplex64, D::kUInt16, D::kComplex64},    {D::kComplex64, D::kInt32, D::kComplex128},
      {D::kComplex64, D::kUInt64, D::kComplex128},   {D::kComplex64, D::kFloat16, D::kComplex64},
      {D::kComplex64, D::kBFloat16, D::kComplex64},  {D::kComplex64, D::kFloat32, D::kComplex64},
      {D::kComplex64, D::kFloat64, D::kComplex128},  {D::kComplex64, D::kComplex128, D::kComplex128},
      {D::kFloat32, D::kComplex128, D::kComplex128}, {D::kInt64, D::kComplex64, D::kComplex128},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ops::promote_types(c.a, c.b).value(), c.r) << dtype_name(c.a) << " " << dtype_name(c.b);
    EXPECT_EQ(ops::promote_types(c.b, c.a).value(), c.r) << dtype_name(c.b) << " " << dtype_name(c.a);
  }
  // NEP 50: Python complex next to arrays; Python float next to complex arrays.
  EXPECT_EQ(ops::weak_scalar_dtype(D::kFloat32, ops::ScalarKind::kComplex), D::kComplex64);
  EXPECT_EQ(ops::weak_scalar_dtype(D::kFloat16, ops::ScalarKind::kComplex), D::kComplex64);
  EXPECT_EQ(ops::weak_scalar_dtype(D::kFloat64, ops::ScalarKind::kComplex), D::kComplex128);
  EXPECT_EQ(ops::weak_scalar_dtype(D::kInt8, ops::ScalarKind::kComplex), D::kComplex128);
  EXPECT_EQ(ops::weak_scalar_dtype(D::kBool, ops::ScalarKind::kComplex), D::kComplex128);
  EXPECT_EQ(ops::weak_scalar_dtype(D::kComplex64, ops::ScalarKind::kFloat), D::kComplex64);
  EXPECT_EQ(ops::weak_scalar_dtype(D::kComplex64, ops::ScalarKind::kComplex), D::kComplex64);
  EXPECT_EQ(ops::default_scalar_dtype(ops::ScalarKind::kComplex), D::kComplex128);
}

TEST(ComplexOps, Arithmetic) {
  using C = std::complex<double>;
  Tensor a = cvec<C>({{1, 2}, {3, -4}, {0.5, 0}, {kInf, 1}});
  Tensor b = cvec<C>({{3, 4}, {-1, 0.25}, {0, 0}, {2, 0}});
  Tensor s = ops::call("add", {a, b});
  EXPECT_EQ(get<C>(s, 0), C(4, 6));
  Tensor m = ops::call("multiply", {a, b});
  EXPECT_EQ(get<C>(m, 0), C(-5, 10));
  EXPECT_EQ(get<C>(m, 1), C(-3 + 1, 0.75 + 4));
  // Plain product (no C99 Annex G recovery): (inf + 1j) * 2 = (inf, nan? no: inf*0 + 1*2) -> (inf, nan)
  const C mi = get<C>(m, 3);
  EXPECT_TRUE(std::isinf(mi.real()));
  EXPECT_TRUE(std::isnan(mi.imag()));  // inf * 0 in the imaginary part, as NumPy
  Tensor q = ops::call("true_divide", {a, b});
  EXPECT_NEAR(get<C>(q, 0).real(), 0.44, 1e-15);
  EXPECT_NEAR(get<C>(q, 0).imag(), 0.08, 1e-15);
  // Division by a complex zero: each part divided by +0.
  const C z = get<C>(q, 2);
  EXPECT_TRUE(std::isinf(z.real()) && z.real() > 0);
  EXPECT_TRUE(std::isnan(z.imag()));  // 0 / 0
  Tensor eq = ops::call("equal", {a, a});
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(get<bool>(eq, i));
  Tensor lt = ops::call("less", {a, b});
  EXPECT_TRUE(get<bool>(lt, 0));   // 1 < 3
  EXPECT_FALSE(get<bool>(lt, 1));  // 3 > -1
  EXPECT_FALSE(get<bool>(lt, 2));  // (0.5, 0) vs (0, 0)
}

TEST(ComplexOps, SignedZerosAndSpecials) {
  using C = std::complex<float>;
  Tensor a = cvec<C>({{-0.0f, 0.0f}, {0.0f, -0.0f}, {std::nanf(""), 1}, {3, 4}});
  Tensor neg = ops::call("negative", {a});
  EXPECT_TRUE(same(get<C>(neg, 0).real(), 0.0));
  EXPECT_TRUE(same(get<C>(neg, 0).imag(), -0.0));
  Tensor cj = ops::call("conjugate", {a});
  EXPECT_TRUE(same(get<C>(cj, 1).imag(), 0.0));
  Tensor ab = ops::call("absolute", {a});
  EXPECT_EQ(ab.dtype(), DType::kFloat32);
  EXPECT_EQ(get<float>(ab, 3), 5.0f);
  EXPECT_TRUE(std::isnan(get<float>(ab, 2)));
  Tensor sg = ops::call("sign", {a});
  EXPECT_FLOAT_EQ(get<C>(sg, 3).real(), 0.6f);
  EXPECT_FLOAT_EQ(get<C>(sg, 3).imag(), 0.8f);
  EXPECT_TRUE(std::isnan(get<C>(sg, 2).real()));
  Tensor nan = ops::call("isnan", {a});
  EXPECT_FALSE(get<bool>(nan, 0));
  EXPECT_TRUE(get<bool>(nan, 2));
  Tensor fin = ops::call("isfinite", {a});
  EXPECT_FALSE(get<bool>(fin, 2));
  EXPECT_TRUE(get<bool>(fin, 3));
}

TEST(ComplexOps, PowerIntegerExponents) {
  using C = std::complex<double>;
  Tensor a = cvec<C>({{1, 1}, {0, 0}, {2, -1}});
  for (int e : {0, 1, 2, 3, 5, -2}) {
    Tensor p = ops::call("power", {a, ops::scalar_tensor(Scalar::from_int(e), DType::kComplex128)});
    C ref(1, 0);
    for (int k = 0; k < std::abs(e); ++k) ref = C(ref.real() * 1 - ref.imag() * 1, ref.real() * 1 + ref.imag() * 1);
    if (e < 0) ref = C(1, 0) / ref;
    EXPECT_NEAR(get<C>(p, 0).real(), ref.real(), 1e-12) << e;
    EXPECT_NEAR(get<C>(p, 0).imag(), ref.imag(), 1e-12) << e;
  }
  Tensor z = ops::call("power", {a, ops::scalar_tensor(Scalar::from_int(0), DType::kComplex128)});
  EXPECT_EQ(get<C>(z, 1), C(1, 0));  // 0 ** 0 = 1
}

TEST(ComplexOps, ReductionsAndCasts) {
  using C = std::complex<float>;
  std::vector<C> v;
  for (int i = 0; i < 1000; ++i) v.emplace_back(float(i % 7) - 3, float(i % 5) * 0.5f);
  Tensor a = cvec<C>(v);
  C sum(0, 0), prod(1, 0);
  for (const auto& x : v) sum += x;
  Tensor s = ops::call("sum", {a});
  EXPECT_EQ(s.dtype(), DType::kComplex64);
  EXPECT_EQ(get<C>(s, 0), sum);  // exact: small integers and halves
  Tensor p = ops::call("prod", {cvec<C>({{1, 1}, {1, -1}, {2, 0}})});
  EXPECT_EQ(get<C>(p, 0), C(4, 0));
  Tensor mean = ops::call("mean", {a});
  EXPECT_EQ(mean.dtype(), DType::kComplex64);
  EXPECT_NEAR(get<C>(mean, 0).real(), sum.real() / 1000, 1e-6);
  Tensor var = ops::call("var", {cvec<C>({{1, 1}, {-1, -1}})});
  EXPECT_EQ(var.dtype(), DType::kFloat32);
  EXPECT_FLOAT_EQ(get<float>(var, 0), 2.0f);  // |(1,1)|^2
  Tensor mx = ops::call("max", {cvec<C>({{1, 5}, {2, -1}, {2, 3}, {-4, 9}})});
  EXPECT_EQ(get<C>(mx, 0), C(2, 3));  // lexicographic
  // Casts: complex -> int truncates the real part, -> bool tests both parts.
  Tensor c = cvec<C>({{2.7f, 9}, {0, 1}, {0, 0}});
  Tensor i = ops::cast(c, DType::kInt32);
  EXPECT_EQ(get<int32_t>(i, 0), 2);
  Tensor b = ops::cast(c, DType::kBool);
  EXPECT_TRUE(get<bool>(b, 1));
  EXPECT_FALSE(get<bool>(b, 2));
  Tensor back = ops::cast(ops::cast(i, DType::kComplex128), DType::kComplex64);
  EXPECT_EQ(get<C>(back, 0), C(2, 0));
}

TEST(ComplexOps, Matmul) {
  using C = std::complex<double>;
  for (int64_t n : {2, 5, 40}) {
    Tensor a = Tensor::empty({n, n}, DType::kComplex128), b = Tensor::empty({n, n}, DType::kComplex128);
    for (int64_t i = 0; i < n * n; ++i) {
      a.data_as<C>()[i] = C(double(i % 3), double(i % 4) - 1);
      b.data_as<C>()[i] = C(double(i % 5) - 2, double(i % 2));
    }
    Tensor r = ops::matmul(a, b);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        C ref(0, 0);
        for (int64_t k = 0; k < n; ++k) ref += a.data_as<C>()[i * n + k] * b.data_as<C>()[k * n + j];
        EXPECT_EQ(r.data_as<C>()[i * n + j], ref) << n << " " << i << " " << j;  // small integers: exact
      }
  }
}

TEST(ComplexOps, UnsupportedAreClearErrors) {
  Tensor a = cvec<std::complex<float>>({{1, 2}});
  for (const char* op : {"cbrt", "floor", "floor_divide", "arctan2", "remainder", "signbit"}) {
    const auto& def = ops::get_op(op);
    std::vector<Tensor> in(static_cast<size_t>(def.arity), a);
    try {
      ops::call(def, in);
      FAIL() << op;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidDtype) << op;
      EXPECT_EQ(e.message().rfind(std::string("[") + op + "]", 0), 0u) << e.message();
      EXPECT_NE(e.message().find("complex64"), std::string::npos) << e.message();
    }
  }
}

TEST(ComplexOps, TranscendentalHandChecked) {
  using C = std::complex<double>;
  Tensor a = cvec<C>({{0, 1}, {0.0, -0.0}, {2, 0}, {-2, 0.0}, {-2, -0.0}});
  // sin(i) = i sinh(1); cos(i) = cosh(1)
  EXPECT_NEAR(get<C>(ops::call("sin", {a}), 0).imag(), std::sinh(1.0), 1e-15);
  EXPECT_NEAR(get<C>(ops::call("cos", {a}), 0).real(), std::cosh(1.0), 1e-15);
  // signed zeros pass through sin/tanh/arctan of (0, -0)
  EXPECT_TRUE(same(get<C>(ops::call("sin", {a}), 1).imag(), -0.0));
  EXPECT_TRUE(same(get<C>(ops::call("arctanh", {a}), 1).imag(), -0.0));
  // arcsin on its cut (real > 1): the side follows the imaginary zero's sign
  Tensor as = ops::call("arcsin", {a});
  EXPECT_NEAR(get<C>(as, 2).real(), M_PI / 2, 1e-15);
  EXPECT_NEAR(get<C>(as, 2).imag(), std::log(2 + std::sqrt(3.0)), 1e-15);
  EXPECT_NEAR(get<C>(as, 3).imag(), std::log(2 + std::sqrt(3.0)), 1e-15);
  EXPECT_NEAR(get<C>(as, 4).imag(), -std::log(2 + std::sqrt(3.0)), 1e-15);
  // log2(-2 +- 0j) = 1 +- i pi/ln 2
  Tensor l2 = ops::call("log2", {a});
  EXPECT_NEAR(get<C>(l2, 3).real(), 1.0, 1e-15);
  EXPECT_NEAR(get<C>(l2, 3).imag(), M_PI / std::log(2.0), 1e-14);
  EXPECT_NEAR(get<C>(l2, 4).imag(), -M_PI / std::log(2.0), 1e-14);
  // log1p(i) = log(sqrt 2) + i pi/4; expm1(0) = 0; exp2(2) = 4
  EXPECT_NEAR(get<C>(ops::call("log1p", {a}), 0).real(), 0.5 * std::log(2.0), 1e-15);
  EXPECT_NEAR(get<C>(ops::call("log1p", {a}), 0).imag(), M_PI / 4, 1e-15);
  EXPECT_TRUE(same(get<C>(ops::call("expm1", {a}), 1).real(), 0.0));
  EXPECT_NEAR(get<C>(ops::call("exp2", {a}), 2).real(), 4.0, 1e-14);
  EXPECT_EQ(ops::call("rint", {cvec<C>({{2.5, -1.5}})}).dtype(), DType::kComplex128);
  EXPECT_EQ(get<C>(ops::call("rint", {cvec<C>({{2.5, -1.5}})}), 0), C(2, -2));
}

TEST(ComplexOps, ArgmaxArgminLexicographicNaNFirst) {
  using C = std::complex<float>;
  const float nan = std::nanf("");
  Tensor a = cvec<C>({{1, 5}, {2, -1}, {2, 3}, {-4, 9}});
  EXPECT_EQ(ops::call("argmax", {a}).data_as<int64_t>()[0], 2);
  EXPECT_EQ(ops::call("argmin", {a}).data_as<int64_t>()[0], 3);
  Tensor b = cvec<C>({{1, 0}, {0, nan}, {nan, 0}});
  EXPECT_EQ(ops::call("argmax", {b}).data_as<int64_t>()[0], 1);
  EXPECT_EQ(ops::call("argmin", {b}).data_as<int64_t>()[0], 1);
}

TEST(ComplexOps, NonzeroEitherPartNaNCounts) {
  using C = std::complex<double>;
  // -0-0j and 0+0j are zero; a NaN or nonzero in either part is nonzero.
  Tensor a = cvec<C>({{-0.0, -0.0}, {0, 1}, {0, 0}, {kNaN, 0}, {-0.0, kNaN}, {0.0, -0.0}, {kInf, 0}});
  Tensor nz = ops::call("nonzero", {a});
  ASSERT_EQ(nz.shape(), Shape({1, 4}));
  const int64_t want[] = {1, 3, 4, 6};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(nz.data_as<int64_t>()[i], want[i]);
  Tensor aw = ops::call("argwhere", {a});
  ASSERT_EQ(aw.shape(), Shape({4, 1}));
  EXPECT_EQ(aw.data_as<int64_t>()[3], 6);
  EXPECT_EQ(ops::call("count_nonzero", {a}).data_as<int64_t>()[0], 4);
}

TEST(ComplexOps, NanReductions) {
  using C = std::complex<float>;
  const float nan = std::nanf("");
  Tensor a = cvec<C>({{1, 2}, {nan, 0}, {3, -1}, {0, nan}, {-2, 5}});
  // NaN in either part: dropped from sums, 1 in products, never the arg extremum.
  EXPECT_EQ(get<C>(ops::call("nansum", {a}), 0), C(2, 6));
  EXPECT_EQ(get<C>(ops::call("nanprod", {cvec<C>({{0, 1}, {nan, nan}, {0, 1}})}), 0), C(-1, 0));
  Tensor mean = ops::call("nanmean", {a});
  EXPECT_EQ(mean.dtype(), DType::kComplex64);
  EXPECT_FLOAT_EQ(get<C>(mean, 0).real(), 2.0f / 3);
  EXPECT_FLOAT_EQ(get<C>(mean, 0).imag(), 2.0f);
  EXPECT_EQ(ops::call("nanargmax", {a}).data_as<int64_t>()[0], 2);
  EXPECT_EQ(ops::call("nanargmin", {a}).data_as<int64_t>()[0], 4);
  Tensor cs = ops::call("nancumsum", {a});
  EXPECT_EQ(get<C>(cs, 1), C(1, 2));
  EXPECT_EQ(get<C>(cs, 4), C(2, 6));
  try {
    ops::call("nanargmax", {cvec<C>({{nan, 0}, {0, nan}})});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidParam);
    EXPECT_EQ(e.message().rfind("[nanargmax]", 0), 0u) << e.message();
  }
}
