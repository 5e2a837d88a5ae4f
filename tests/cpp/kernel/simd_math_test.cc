// Vector math (asc::kernel::simd::math) against long double references:
// maximum ULP error per function and dtype over dense samples of each domain
// plus random bit patterns, special values (NaN, +-Inf, +-0, domain edges,
// overflow/underflow), tails around the SIMD width, float16/bfloat16 rounding
// and every compiled target through ASC_SIMD_TARGET-independent checks.
// The bounds here are the ones documented in docs/vector_math.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "asc/core/half.h"
#include "asc/core/status.h"
#include "asc/kernel/simd.h"

namespace {

namespace simd = asc::kernel::simd;
using simd::MathBinaryOp;
using simd::MathOp;
using LD = long double;

// ------------------------------------------------------------------ references

LD sigmoid_ref(LD x) { return x >= 0 ? 1.0L / (1.0L + std::exp(-x)) : std::exp(x) / (1.0L + std::exp(x)); }
LD gelu_tanh_ref(LD x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0L;  // x Phi(x) -> 0 as x -> -Inf
  const LD u = 0.797884560802865355879892119869L * (x + 0.044715L * x * x * x);
  return x * sigmoid_ref(2 * u);
}
LD gelu_erf_ref(LD x) {
  if (std::isinf(x)) return x > 0 ? x : -0.0L;
  return 0.5L * x * std::erfc(-x * 0.707106781186547524400844362105L); }

LD unary_ref(MathOp op, LD x) {
  switch (op) {
    case MathOp::kExp: return std::exp(x);
    case MathOp::kExp2: return std::exp2(x);
    case MathOp::kExpm1: return std::expm1(x);
    case MathOp::kLog: return std::log(x);
    case MathOp::kLog2: return std::log2(x);
    case MathOp::kLog10: return std::log10(x);
    case MathOp::kLog1p: return std::log1p(x);
    case MathOp::kSin: return std::sin(x);
    case MathOp::kCos: return std::cos(x);
    case MathOp::kTan: return std::tan(x);
    case MathOp::kArcsin: return std::asin(x);
    case MathOp::kArccos: return std::acos(x);
    case MathOp::kArctan: return std::atan(x);
    case MathOp::kSinh: return std::sinh(x);
    case MathOp::kCosh: return std::cosh(x);
    case MathOp::kTanh: return std::tanh(x);
    case MathOp::kArcsinh: return std::asinh(x);
    case MathOp::kArccosh: return std::acosh(x);
    case MathOp::kArctanh: return std::atanh(x);
    case MathOp::kSqrt: return std::sqrt(x);
    case MathOp::kRsqrt: return 1.0L / std::sqrt(x);
    case MathOp::kCbrt: return std::cbrt(x);
    case MathOp::kSigmoid: return sigmoid_ref(x);
    case MathOp::kErf: return std::erf(x);
    case MathOp::kErfc: return std::erfc(x);
    case MathOp::kGeluTanh: return gelu_tanh_ref(x);
    case MathOp::kGeluErf: return gelu_erf_ref(x);
    case MathOp::kCount: break;
  }
  return NAN;
}

LD binary_ref(MathBinaryOp op, LD a, LD b) {
  switch (op) {
    case MathBinaryOp::kArctan2: return std::atan2(a, b);
    case MathBinaryOp::kHypot: return std::hypot(a, b);
    case MathBinaryOp::kPow: return std::pow(a, b);
    case MathBinaryOp::kLogaddexp: {
      if (a == b) return a + 0.693147180559945309417232121458L;
      const LD m = std::max(a, b);
      return m + std::log1p(std::exp(-std::fabs(a - b)));
    }
    case MathBinaryOp::kLogaddexp2: {
      if (a == b) return a + 1;
      const LD m = std::max(a, b);
      return m + std::log1p(std::exp2(-std::fabs(a - b))) * 1.44269504088896340735992468100189L;
    }
    case MathBinaryOp::kCount: break;
  }
  return NAN;
}

// ------------------------------------------------------------------ ULPs

// Error of r against the exact value ref in units of T's last place at ref
// (denormal spacing below the normal range). Non-finite values must match.
template <typename T>
double ulp_error(T r, LD ref) {
  if (std::isnan(ref)) return std::isnan(r) ? 0 : 1e30;
  if (std::isnan(r)) return 1e30;
  const LD max = std::numeric_limits<T>::max();
  if (std::isinf(ref) || std::fabs(ref) > max) {
    // Results beyond the largest finite value round to Inf (or to max when
    // within half an ulp); anything else is an error.
    if (std::isinf(r) && std::signbit(r) == std::signbit(ref)) return 0;
    if (std::isinf(ref)) return 1e30;
  }
  if (std::isinf(r)) {
    const LD ulp_max = std::ldexp(1.0L, std::numeric_limits<T>::max_exponent - std::numeric_limits<T>::digits);
    return std::fabs(ref) >= max + ulp_max / 2 ? 0 : 1e30;
  }
  int e;
  std::frexp(ref, &e);
  e = std::max(e, std::numeric_limits<T>::min_exponent);
  const LD ulp = std::ldexp(1.0L, e - std::numeric_limits<T>::digits);
  return static_cast<double>(std::fabs(static_cast<LD>(r) - ref) / ulp);
}

template <typename T>
T from_bits(std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t> u) {
  T v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

template <typename T>
constexpr asc::DType dtype_v = sizeof(T) == 4 ? asc::DType::kFloat32 : asc::DType::kFloat64;

// ------------------------------------------------------------------ domains

struct Range {
  double lo, hi;
};

template <typename T>
std::vector<T> uniform(std::mt19937_64& rng, Range r, size_t n) {
  std::uniform_real_distribution<double> u(r.lo, r.hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(u(rng));
  return v;
}

// Finite values with uniformly random bit patterns (every binade, denormals).
template <typename T>
std::vector<T> random_bits(std::mt19937_64& rng, size_t n, bool positive_only) {
  std::vector<T> v;
  while (v.size() < n) {
    T x = from_bits<T>(static_cast<std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>(rng()));
    if (!std::isfinite(x)) continue;
    if (positive_only) x = std::fabs(x);
    v.push_back(x);
  }
  return v;
}

struct UnaryCase {
  MathOp op;
  std::vector<Range> f32, f64;  // dense ranges
  bool bits;                    // plus random bit patterns
  bool positive_bits;
  double ulp32, ulp64;          // documented bounds
};

double kPi = 3.14159265358979323846;

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {MathOp::kExp, {{-104, 89}, {-1, 1}}, {{-746, 710}, {-1, 1}}, false, false, 1.5, 1.5},
      {MathOp::kExp2, {{-151, 129}, {-1, 1}}, {{-1080, 1025}, {-1, 1}}, false, false, 1.5, 1.5},
      {MathOp::kExpm1, {{-20, 89}, {-1e-3, 1e-3}, {-1, 1}}, {{-40, 710}, {-1e-3, 1e-3}, {-1, 1}}, false, false,
       4, 4},
      {MathOp::kLog, {{0, 4}}, {{0, 4}}, true, true, 4, 4},
      {MathOp::kLog2, {{0, 4}}, {{0, 4}}, true, true, 4, 4},
      {MathOp::kLog10, {{0, 4}}, {{0, 4}}, true, true, 4, 4},
      {MathOp::kLog1p, {{-1, 1}, {-1e-4, 1e-4}, {1, 1e6}}, {{-1, 1}, {-1e-4, 1e-4}, {1, 1e6}}, true, true, 4, 4},
      {MathOp::kSin, {{-10, 10}, {-39000, 39000}, {-1e7, 1e7}}, {{-10, 10}, {-1e5, 1e5}, {-1e9, 1e9}}, true, false,
       3, 3},
      {MathOp::kCos, {{-10, 10}, {-39000, 39000}, {-1e7, 1e7}}, {{-10, 10}, {-1e5, 1e5}, {-1e9, 1e9}}, true, false,
       3, 3},
      {MathOp::kTan, {{-10, 10}, {-8192, 8192}, {-1e7, 1e7}}, {{-10, 10}, {-1e6, 1e6}, {-1e9, 1e9}}, true, false,
       1, 3.5},
      {MathOp::kArcsin, {{-1, 1}}, {{-1, 1}}, false, false, 3, 3},
      {MathOp::kArccos, {{-1, 1}}, {{-1, 1}}, false, false, 3, 3},
      {MathOp::kArctan, {{-10, 10}}, {{-10, 10}}, true, false, 3, 3},
      {MathOp::kSinh, {{-90, 90}, {-1, 1}}, {{-711, 711}, {-1, 1}}, false, false, 4, 4},
      {MathOp::kCosh, {{-90, 90}, {-1, 1}}, {{-711, 711}, {-1, 1}}, false, false, 4, 4},
      {MathOp::kTanh, {{-20, 20}, {-1, 1}}, {{-20, 20}, {-1, 1}}, true, false, 4, 4},
      {MathOp::kArcsinh, {{-10, 10}}, {{-10, 10}}, true, false, 4, 4},
      {MathOp::kArccosh, {{1, 10}, {1, 1.001}}, {{1, 10}, {1, 1.001}}, true, true, 4, 4},
      {MathOp::kArctanh, {{-1, 1}, {-1e-3, 1e-3}}, {{-1, 1}, {-1e-3, 1e-3}}, false, false, 4, 4},
      {MathOp::kSqrt, {{0, 4}}, {{0, 4}}, true, true, 0.5, 0.5},
      {MathOp::kRsqrt, {{0, 4}}, {{0, 4}}, true, true, 1.5, 1.5},
      {MathOp::kCbrt, {{-8, 8}}, {{-8, 8}}, true, false, 1, 1},
      {MathOp::kSigmoid, {{-110, 90}, {-1, 1}}, {{-750, 40}, {-1, 1}}, false, false, 4, 4},
      // float32: also around the kernel's switch (0.95) and clamp (4); see math.cc ErfF32
      {MathOp::kErf, {{-6, 6}, {-0.6, 0.6}, {0.9, 1.0}, {-1.0, -0.9}, {3.5, 4.5}}, {{-7, 7}, {-0.6, 0.6}}, true,
       false, 2, 4},
      {MathOp::kErfc, {{-6, 11}, {-0.6, 0.6}}, {{-7, 28}, {-0.6, 0.6}}, false, false, 5, 6},
      // float64 gelu_tanh: x >= -20 (below that the result is denormal: see the docs)
      {MathOp::kGeluTanh, {{-10, 10}}, {{-20, 30}}, false, false, 1, 5},
      {MathOp::kGeluErf, {{-14, 10}}, {{-30, 30}}, false, false, 1, 7},
  };
  return cases;
}

template <typename T>
std::vector<T> samples_for(const UnaryCase& c, std::mt19937_64& rng, size_t per_range) {
  std::vector<T> xs;
  for (const Range& r : (sizeof(T) == 4 ? c.f32 : c.f64)) {
    auto v = uniform<T>(rng, r, per_range);
    xs.insert(xs.end(), v.begin(), v.end());
  }
  if (c.bits) {
    auto v = random_bits<T>(rng, per_range, c.positive_bits);
    xs.insert(xs.end(), v.begin(), v.end());
  }
  return xs;
}

template <typename T>
double max_unary_ulp(const UnaryCase& c, T* worst_x) {
  std::mt19937_64 rng(1234 + static_cast<int>(c.op));
  const std::vector<T> xs = samples_for<T>(c, rng, 100003);
  std::vector<T> ys(xs.size());
  simd::math(c.op, dtype_v<T>, ys.data(), xs.data(), xs.size());
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double e = ulp_error<T>(ys[i], unary_ref(c.op, xs[i]));
    if (e > worst) {
      worst = e;
      *worst_x = xs[i];
    }
  }
  return worst;
}

TEST(SimdMath, UnaryUlpFloat32) {
  for (const auto& c : unary_cases()) {
    float wx = 0;
    const double e = max_unary_ulp<float>(c, &wx);
    std::printf("  float32 %-10s max %.3f ulp (at %.9g)\n", simd::op_name(c.op), e, wx);
    EXPECT_LE(e, c.ulp32) << simd::op_name(c.op) << " float32 at x=" << wx;
  }
}

TEST(SimdMath, UnaryUlpFloat64) {
  for (const auto& c : unary_cases()) {
    double wx = 0;
    const double e = max_unary_ulp<double>(c, &wx);
    std::printf("  float64 %-10s max %.3f ulp (at %.17g)\n", simd::op_name(c.op), e, wx);
    EXPECT_LE(e, c.ulp64) << simd::op_name(c.op) << " float64 at x=" << wx;
  }
}

struct BinaryCase {
  MathBinaryOp op;
  Range a32, b32, a64, b64;
  bool bits;
  double ulp32, ulp64;
};

const std::vector<BinaryCase>& binary_cases() {
  static const std::vector<BinaryCase> cases = {
      {MathBinaryOp::kArctan2, {-10, 10}, {-10, 10}, {-10, 10}, {-10, 10}, true, 0.6, 3},
      {MathBinaryOp::kHypot, {-1e3, 1e3}, {-1e3, 1e3}, {-1e3, 1e3}, {-1e3, 1e3}, true, 0.6, 2},
      {MathBinaryOp::kPow, {0, 50}, {-20, 20}, {0, 50}, {-100, 100}, false, 0.6, 0.6},
      {MathBinaryOp::kLogaddexp, {-100, 100}, {-100, 100}, {-800, 800}, {-800, 800}, false, 0.6, 3},
      {MathBinaryOp::kLogaddexp2, {-100, 100}, {-100, 100}, {-800, 800}, {-800, 800}, false, 0.6, 3},
  };
  return cases;
}

template <typename T>
double max_binary_ulp(const BinaryCase& c, T* wa, T* wb) {
  std::mt19937_64 rng(99 + static_cast<int>(c.op));
  const size_t n = 200003;
  std::vector<T> a = uniform<T>(rng, sizeof(T) == 4 ? c.a32 : c.a64, n);
  std::vector<T> b = uniform<T>(rng, sizeof(T) == 4 ? c.b32 : c.b64, n);
  if (c.bits) {
    auto ra = random_bits<T>(rng, n, false), rb = random_bits<T>(rng, n, false);
    a.insert(a.end(), ra.begin(), ra.end());
    b.insert(b.end(), rb.begin(), rb.end());
  }
  std::vector<T> y(a.size());
  simd::math(c.op, dtype_v<T>, y.data(), a.data(), b.data(), a.size());
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double e = ulp_error<T>(y[i], binary_ref(c.op, a[i], b[i]));
    if (e > worst) {
      worst = e;
      *wa = a[i];
      *wb = b[i];
    }
  }
  return worst;
}

TEST(SimdMath, BinaryUlp) {
  for (const auto& c : binary_cases()) {
    float a32 = 0, b32 = 0;
    double a64 = 0, b64 = 0;
    const double e32 = max_binary_ulp<float>(c, &a32, &b32);
    const double e64 = max_binary_ulp<double>(c, &a64, &b64);
    std::printf("  %-10s float32 max %.3f ulp (at %.9g, %.9g)  float64 max %.3f ulp (at %.17g, %.17g)\n",
                simd::op_name(c.op), e32, a32, b32, e64, a64, b64);
    EXPECT_LE(e32, c.ulp32) << simd::op_name(c.op) << " float32";
    EXPECT_LE(e64, c.ulp64) << simd::op_name(c.op) << " float64";
  }
}

// pow of negative bases with integral exponents, and its special cases.
TEST(SimdMath, PowSpecialCases) {
  const double inf = INFINITY, nan = NAN;
  const std::vector<std::pair<double, double>> args = {
      {-2, 3},    {-2, 4},     {-2, -3},   {-2, 0.5},  {-0.0, -3}, {-0.0, -2}, {-0.0, 3},  {-0.0, 0.5},
      {0.0, -1},  {0.0, 0},    {nan, 0},   {1, nan},   {-1, inf},  {-1, -inf}, {0.5, inf}, {0.5, -inf},
      {2, inf},   {2, -inf},   {-inf, 3},  {-inf, 2},  {-inf, -3}, {-inf, -2}, {inf, -1},  {inf, 0.5},
      {nan, 1},   {2, nan},    {-8, 1.0 / 3}, {10, 400}, {10, -400}, {-3, 1e300}, {1e-300, 2}, {3, 2}};
  for (const auto& [x, y] : args) {
    for (int f64 = 0; f64 < 2; ++f64) {
      double r;
      if (f64) {
        simd::math(MathBinaryOp::kPow, asc::DType::kFloat64, &r, &x, &y, 1);
      } else {
        const float xf = static_cast<float>(x), yf = static_cast<float>(y);
        float rf;
        simd::math(MathBinaryOp::kPow, asc::DType::kFloat32, &rf, &xf, &yf, 1);
        r = rf;
      }
      const double want = f64 ? std::pow(x, y) : static_cast<double>(std::pow(static_cast<float>(x), static_cast<float>(y)));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(r)) << "pow(" << x << ", " << y << ") f64=" << f64;
      } else {
        EXPECT_EQ(r, want) << "pow(" << x << ", " << y << ") f64=" << f64;
        EXPECT_EQ(std::signbit(r), std::signbit(want)) << "pow(" << x << ", " << y << ") f64=" << f64;
      }
    }
  }
}

// ------------------------------------------------------------------ special values

// NaN -> NaN for every op; +-Inf, +-0 and domain edges as NumPy/C99 define them.
template <typename T>
void check_specials() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T specials[] = {nan, -nan, inf, -inf, T(0), -T(0), T(1), T(-1), T(2), T(-2), T(0.5), T(-0.5),
                        std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                        std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                        -std::numeric_limits<T>::max(), T(1000), T(-1000), T(1e30), T(-1e30)};
  for (int o = 0; o < static_cast<int>(MathOp::kCount); ++o) {
    const MathOp op = static_cast<MathOp>(o);
    for (T x : specials) {
      T r;
      simd::math(op, dtype_v<T>, &r, &x, 1);
      const LD ref = unary_ref(op, x);
      const std::string what = std::string(simd::op_name(op)) + "(" + std::to_string(static_cast<double>(x)) +
                               (std::signbit(x) ? " [neg]" : "") + ") = " + std::to_string(static_cast<double>(r));
      if (std::isnan(ref)) {
        EXPECT_TRUE(std::isnan(r)) << what;
        continue;
      }
      const T want = static_cast<T>(ref);
      if (std::isinf(want) || want == 0) {
        // Exact: Inf, and zero with the sign NumPy gives (sin(-0) = -0, ...).
        // (gelu's 0.5 x (...) underflows to 0 with x's sign.)
        EXPECT_EQ(r, want) << what;
        EXPECT_EQ(std::signbit(r), std::signbit(want)) << what;
      } else {
        EXPECT_LE(ulp_error<T>(r, ref), 5.0) << what;
      }
    }
  }
}

TEST(SimdMath, SpecialValuesFloat32) { check_specials<float>(); }
TEST(SimdMath, SpecialValuesFloat64) { check_specials<double>(); }

TEST(SimdMath, BinarySpecialValues) {
  const double inf = INFINITY, nan = NAN;
  struct C {
    MathBinaryOp op;
    double a, b, want;
  };
  const C cases[] = {
      {MathBinaryOp::kArctan2, 0.0, 0.0, 0.0},        {MathBinaryOp::kArctan2, -0.0, 0.0, -0.0},
      {MathBinaryOp::kArctan2, 0.0, -0.0, kPi},       {MathBinaryOp::kArctan2, -0.0, -0.0, -kPi},
      {MathBinaryOp::kArctan2, inf, inf, kPi / 4},    {MathBinaryOp::kArctan2, -inf, -inf, -3 * kPi / 4},
      {MathBinaryOp::kArctan2, 1, -inf, kPi},         {MathBinaryOp::kArctan2, -inf, 1, -kPi / 2},
      {MathBinaryOp::kArctan2, nan, 1, nan},          {MathBinaryOp::kArctan2, 1, nan, nan},
      {MathBinaryOp::kHypot, inf, nan, inf},          {MathBinaryOp::kHypot, nan, -inf, inf},
      {MathBinaryOp::kHypot, nan, 1, nan},            {MathBinaryOp::kHypot, 0.0, -0.0, 0.0},
      {MathBinaryOp::kHypot, 3e300, 4e300, 5e300},    {MathBinaryOp::kHypot, 3e-310, 4e-310, 5e-310},
      {MathBinaryOp::kLogaddexp, inf, inf, inf},      {MathBinaryOp::kLogaddexp, -inf, -inf, -inf},
      {MathBinaryOp::kLogaddexp, -inf, 0.0, 0.0},     {MathBinaryOp::kLogaddexp, nan, 0.0, nan},
      {MathBinaryOp::kLogaddexp, inf, -inf, inf},     {MathBinaryOp::kLogaddexp2, -inf, -inf, -inf},
      {MathBinaryOp::kLogaddexp2, 1.0, 1.0, 2.0},     {MathBinaryOp::kLogaddexp2, nan, nan, nan},
  };
  for (const C& c : cases) {
    for (int f64 = 0; f64 < 2; ++f64) {
      double r;
      if (f64) {
        simd::math(c.op, asc::DType::kFloat64, &r, &c.a, &c.b, 1);
      } else {
        const float a = static_cast<float>(c.a), b = static_cast<float>(c.b);
        float rf;
        simd::math(c.op, asc::DType::kFloat32, &rf, &a, &b, 1);
        r = rf;
      }
      const std::string what = std::string(simd::op_name(c.op)) + "(" + std::to_string(c.a) + ", " +
                               std::to_string(c.b) + ") = " + std::to_string(r) + " f64=" + std::to_string(f64);
      if (std::isnan(c.want)) {
        EXPECT_TRUE(std::isnan(r)) << what;
      } else if (std::isinf(c.want) || c.want == 0) {
        EXPECT_EQ(r, c.want) << what;
        EXPECT_EQ(std::signbit(r), std::signbit(c.want)) << what;
      } else if (!f64 && (std::fabs(c.a) > 3.4e38 || std::fabs(c.a) < 1e-38)) {
        continue;  // float32 cannot hold these arguments
      } else {
        EXPECT_NEAR(r, c.want, std::fabs(c.want) * (f64 ? 4e-16 : 2e-7)) << what;
      }
    }
  }
}

// ------------------------------------------------------------------ tails, in place, dtypes

// Every length around the vector width: results equal the element-by-element
// calls and nothing past n is written.
TEST(SimdMath, TailsAndInPlace) {
  std::mt19937_64 rng(7);
  for (int o = 0; o < static_cast<int>(MathOp::kCount); ++o) {
    const MathOp op = static_cast<MathOp>(o);
    for (size_t n = 0; n <= 70; ++n) {
      std::vector<float> x = uniform<float>(rng, {0.05, 0.95}, n);
      std::vector<float> y(n + 8, 123.0f);
      simd::math(op, asc::DType::kFloat32, y.data(), x.data(), n);
      for (size_t i = 0; i < n; ++i) {
        float one;
        simd::math(op, asc::DType::kFloat32, &one, &x[i], 1);
        ASSERT_EQ(std::memcmp(&one, &y[i], sizeof one), 0) << simd::op_name(op) << " n=" << n << " i=" << i;
      }
      for (size_t i = n; i < n + 8; ++i) ASSERT_EQ(y[i], 123.0f) << simd::op_name(op) << " wrote past n=" << n;
      std::vector<float> inplace = x;
      simd::math(op, asc::DType::kFloat32, inplace.data(), inplace.data(), n);
      // memcmp of n = 0 bytes from an empty vector's null data() is UB (UBSan).
      if (n > 0) {
        ASSERT_EQ(std::memcmp(inplace.data(), y.data(), n * sizeof(float)), 0) << simd::op_name(op) << " in place";
      }
    }
  }
  for (int o = 0; o < static_cast<int>(MathBinaryOp::kCount); ++o) {
    const MathBinaryOp op = static_cast<MathBinaryOp>(o);
    for (size_t n = 0; n <= 40; ++n) {
      std::vector<double> a = uniform<double>(rng, {0.1, 3}, n), b = uniform<double>(rng, {0.1, 3}, n);
      std::vector<double> y(n + 4, -7.0);
      simd::math(op, asc::DType::kFloat64, y.data(), a.data(), b.data(), n);
      for (size_t i = 0; i < n; ++i) {
        double one;
        simd::math(op, asc::DType::kFloat64, &one, &a[i], &b[i], 1);
        ASSERT_EQ(one, y[i]) << simd::op_name(op) << " n=" << n;
      }
      for (size_t i = n; i < n + 4; ++i) ASSERT_EQ(y[i], -7.0) << simd::op_name(op) << " wrote past n=" << n;
    }
  }
}

// float16 / bfloat16: the float32 kernel's result rounded once, within one
// ulp of the exactly rounded value, over every finite float16 input.
TEST(SimdMath, HalfPrecision) {
  std::vector<uint16_t> all;
  for (uint32_t u = 0; u < 0x10000; ++u) {
    const float f = asc::detail::f16_bits_to_f32(static_cast<uint16_t>(u));
    if (std::isfinite(f)) all.push_back(static_cast<uint16_t>(u));
  }
  std::vector<uint16_t> out(all.size());
  for (int o = 0; o < static_cast<int>(MathOp::kCount); ++o) {
    const MathOp op = static_cast<MathOp>(o);
    for (int bf = 0; bf < 2; ++bf) {
      std::vector<uint16_t> in = all;
      if (bf) {  // the same bit patterns read as bfloat16 (every exponent)
        in.clear();
        for (uint32_t u = 0; u < 0x10000; ++u)
          if (std::isfinite(asc::detail::bf16_bits_to_f32(static_cast<uint16_t>(u)))) in.push_back(static_cast<uint16_t>(u));
      }
      out.resize(in.size());
      simd::math(op, bf ? asc::DType::kBFloat16 : asc::DType::kFloat16, out.data(), in.data(), in.size());
      double worst = 0;
      float wx = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        const float x = bf ? asc::detail::bf16_bits_to_f32(in[i]) : asc::detail::f16_bits_to_f32(in[i]);
        const float r = bf ? asc::detail::bf16_bits_to_f32(out[i]) : asc::detail::f16_bits_to_f32(out[i]);
        const LD ref = unary_ref(op, x);
        // ULPs of the 16-bit format: scale the float32 measure by 2^(24-11) / 2^(24-8).
        double e = ulp_error<float>(r, ref) / (bf ? 65536.0 : 8192.0);
        // Overflow thresholds differ from float32's: a finite reference above the
        // format's largest value must give Inf.
        const double fmax = bf ? 3.3895313892515355e38 : 65504.0;
        if (std::isfinite(ref) && std::fabs(static_cast<double>(ref)) > fmax * (1 + (bf ? 1.0 / 512 : 1.0 / 4096)))
          e = std::isinf(r) ? 0 : 1e30;
        // Below the format's normal range ULPs are fixed; allow half an ulp of the
        // denormal spacing plus the rounding.
        const double fmin = bf ? 1.1754943508222875e-38 : 6.103515625e-05;
        if (std::isfinite(ref) && std::fabs(static_cast<double>(ref)) < fmin) {
          const double spacing = bf ? 9.183549615799121e-41 : 5.960464477539063e-08;
          e = std::fabs(static_cast<double>(r) - static_cast<double>(ref)) / spacing;
        }
        if (e > worst) {
          worst = e;
          wx = x;
        }
      }
      EXPECT_LE(worst, 1.0) << simd::op_name(op) << (bf ? " bfloat16" : " float16") << " at x=" << wx;
    }
  }
}

TEST(SimdMath, UnsupportedDtypeThrows) {
  int32_t x = 1, y = 0;
  try {
    simd::math(MathOp::kExp, asc::DType::kInt32, &y, &x, 1);
    FAIL() << "no exception";
  } catch (const asc::Error& e) {
    EXPECT_EQ(e.code(), asc::ErrorCode::kInvalidDtype);
    EXPECT_NE(std::string(e.what()).find("[exp]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(simd::math_supported(asc::DType::kInt64));
  EXPECT_TRUE(simd::math_supported(asc::DType::kBFloat16));
}

}  // namespace
