// include/asc/nn/activation.h: the gelu and gelu_backward kernels (src/nn/activation.cc) against
// an independent double-precision reference (std::erfc / std::exp / std::tanh), with the bounds
// docs/nn.md states: exact forward <= 6 ulp (results below FLT_MIN: 4 denormal steps), tanh
// forward <= 4 + 4|2v| ulp; gelu_backward <= 4 ulp of S = |dy| (Phi(x) + |x| phi(x)) (tanh:
// 4 + 4|2v|). Lengths around the SIMD width and the 64-element chunk (the tails take a masked
// path), special values (+-0, +-inf, NaN, subnormals, the |x| >= 12.5 second path inside an
// otherwise ordinary vector), non-contiguous inputs, every float16 / bfloat16 bit pattern, and
// the errors. The Python tests (tests/python/ops/test_gelu_kernel.py, custom_ops/
// test_gelu_backward.py) cover the same kernels through asc.ops; these run without Python.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "asc/core/half.h"
#include "asc/core/status.h"
#include "asc/nn/activation.h"

namespace asc::nn {
namespace {

constexpr double kSqrt2 = 1.4142135623730950488, kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kC1 = 0.79788456080286535588, kC2 = 0.044715;  // sqrt(2/pi), tanh form
const float kInf = std::numeric_limits<float>::infinity(), kNaN = std::numeric_limits<float>::quiet_NaN();

uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

/// One float32 ulp at |r| (2^-149 below FLT_MIN).
double ulp(double r) {
  r = std::fabs(r);
  if (r < FLT_MIN) return std::ldexp(1.0, -149);
  return std::ldexp(1.0, std::ilogb(r) - 23);
}

double ref_gelu(double x, bool tanh_form) {
  if (!tanh_form) return 0.5 * x * std::erfc(-x / kSqrt2);
  const double v2 = 2.0 * kC1 * (x + kC2 * x * x * x);
  return x / (1.0 + std::exp(-v2));
}

/// gelu'(x) and the scale |gelu'| is bounded against (both forms).
void ref_grad(double x, bool tanh_form, double* d, double* scale) {
  if (!tanh_form) {
    const double Phi = 0.5 * std::erfc(-x / kSqrt2), phi = std::exp(-0.5 * x * x) * kInvSqrt2Pi;
    *d = Phi + x * phi;
    *scale = Phi + std::fabs(x) * phi;
    return;
  }
  const double v2 = 2.0 * kC1 * (x + kC2 * x * x * x), dv2 = 2.0 * kC1 * (1.0 + 3.0 * kC2 * x * x);
  const double s = 1.0 / (1.0 + std::exp(-v2)), ds = s * (1.0 - s);
  *d = s + x * dv2 * ds;
  *scale = s + std::fabs(x * dv2 * ds);
}

double two_v(double x) { return std::fabs(2.0 * kC1 * (x + kC2 * x * x * x)); }

/// Dense points over [-16, 16], zeros, tiny and subnormal values, the 12.5 / 14.5 edges and
/// large magnitudes (finite only).
std::vector<float> finite_points() {
  std::vector<float> v;
  for (int i = -160000; i <= 160000; ++i) v.push_back(static_cast<float>(i) * 1e-4f);
  const float sp[] = {0.0f, -0.0f, FLT_MIN, -FLT_MIN, 1e-40f, -1e-40f, 1.4e-45f, -1.4e-45f, 1e-30f, -1e-30f,
                      12.4999f, -12.4999f, 12.5f, -12.5f, 14.5f, -14.5f, 14.6f, -14.6f, 20.0f, -20.0f,
                      1e10f, -1e10f, FLT_MAX, -FLT_MAX, -0.7518f, 0.7518f};
  v.insert(v.end(), std::begin(sp), std::end(sp));
  uint32_t s = 987654321u;  // random bit patterns of moderate exponent (|x| in [2^-30, 2^5))
  for (int i = 0; i < 200000; ++i) {
    s = s * 1664525u + 1013904223u;
    const uint32_t e = 97u + (s >> 8) % 35u, m = (s * 2654435761u) & 0x7FFFFFu;
    const uint32_t b = ((s >> 31) << 31) | (e << 23) | m;
    float f;
    std::memcpy(&f, &b, sizeof f);
    v.push_back(f);
  }
  return v;
}

Tensor f32(const std::vector<float>& v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DType::kFloat32);
  if (!v.empty()) std::memcpy(t.data_as<float>(), v.data(), v.size() * sizeof(float));
  return t;
}

void check_forward(const std::vector<float>& xs, const Tensor& y, bool tanh_form, const std::string& what) {
  ASSERT_EQ(y.numel(), static_cast<int64_t>(xs.size())) << what;
  const float* yp = y.data_as<float>();
  int bad = 0;
  for (size_t i = 0; i < xs.size() && bad < 10; ++i) {
    const double x = xs[i], r = ref_gelu(x, tanh_form), got = yp[i];
    double tol;
    if (tanh_form) tol = (4.0 + 4.0 * two_v(x)) * ulp(r);
    else tol = std::fabs(r) >= FLT_MIN ? 6.0 * ulp(r) : 4.0 * std::ldexp(1.0, -149);
    if (!(std::fabs(got - r) <= tol)) {
      ADD_FAILURE() << what << (tanh_form ? " tanh" : " exact") << " gelu(" << xs[i] << ") = " << got << ", reference "
                    << r << ", error " << std::fabs(got - r) / ulp(r) << " ulp";
      ++bad;
    }
  }
}

TEST(GeluKernel, Float32MatchesDoubleBothForms) {
  const std::vector<float> xs = finite_points();
  for (bool t : {false, true}) check_forward(xs, gelu(f32(xs), t), t, "dense");
}

TEST(GeluKernel, TailsAroundTheVectorWidthAndChunk) {
  // every length up to 2 chunks + 1, each ending in a lane that takes the second path (|x| >= 12.5)
  // or a NaN: the masked tail and the full vectors must both be right
  for (int64_t n = 1; n <= 129; ++n) {
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<float> xs(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) xs[static_cast<size_t>(i)] = std::sin(0.37f * static_cast<float>(i + n)) * 6.0f;
      if (variant == 1) xs.back() = -13.25f;
      if (variant == 2) xs.back() = kNaN;
      for (bool t : {false, true}) {
        Tensor y = gelu(f32(xs), t);
        const float* yp = y.data_as<float>();
        if (variant == 2) {
          EXPECT_TRUE(std::isnan(yp[n - 1])) << n;
          xs.pop_back();
          Tensor head = Tensor::empty({n - 1}, DType::kFloat32);
          if (n > 1) std::memcpy(head.data_as<float>(), yp, static_cast<size_t>(n - 1) * sizeof(float));
          check_forward(xs, head, t, "length " + std::to_string(n) + " before a NaN");
          xs.push_back(kNaN);
        } else {
          check_forward(xs, y, t, "length " + std::to_string(n));
        }
      }
    }
  }
}

TEST(GeluKernel, SpecialValuesAsTorch) {
  const std::vector<float> xs = {0.0f, -0.0f, kInf, -kInf, kNaN, -kNaN, 1e-45f, -1e-45f, 3e-39f, -3e-39f};
  for (bool t : {false, true}) {
    Tensor y = gelu(f32(xs), t);
    const float* p = y.data_as<float>();
    EXPECT_EQ(bits(p[0]), bits(0.0f));
    EXPECT_EQ(bits(p[1]), bits(-0.0f));  // -0 keeps its sign
    EXPECT_EQ(p[2], kInf);
    EXPECT_TRUE(std::isnan(p[3])) << "gelu(-inf) is torch's -inf * 0 = NaN";
    EXPECT_TRUE(std::isnan(p[4]));
    EXPECT_TRUE(std::isnan(p[5]));
    for (int i = 6; i < 10; ++i) {  // subnormal x: x Phi(x) = x / 2 within the denormal bound
      EXPECT_LE(std::fabs(double(p[i]) - 0.5 * double(xs[static_cast<size_t>(i)])), 4.0 * std::ldexp(1.0, -149)) << i;
      EXPECT_FALSE(std::signbit(p[i]) != std::signbit(xs[static_cast<size_t>(i)]) && p[i] != 0.0f) << i;
    }
  }
}

TEST(GeluKernel, NonContiguousInputEqualsItsCompactCopy) {
  std::vector<float> xs(4099);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = std::cos(0.011f * static_cast<float>(i)) * 9.0f;
  Tensor x = f32(xs);
  Tensor strided = x.slice(0, 1, 4099, 3);  // 1366 elements, stride 3
  ASSERT_FALSE(strided.is_contiguous());
  std::vector<float> compact;
  for (size_t i = 1; i < xs.size(); i += 3) compact.push_back(xs[i]);
  for (bool t : {false, true}) {
    Tensor a = gelu(strided, t), b = gelu(f32(compact), t);
    ASSERT_EQ(a.numel(), b.numel());
    EXPECT_TRUE(a.is_contiguous());
    for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(bits(a.data_as<float>()[i]), bits(b.data_as<float>()[i])) << i;
  }
}

template <typename H>
std::vector<H> every_half() {
  std::vector<H> v(65536);
  for (uint32_t b = 0; b < 65536; ++b) v[b] = H::from_bits(static_cast<uint16_t>(b));
  return v;
}

/// |got - ref| within one half ulp step: got is one of the two half values around ref.
template <typename H>
bool within_one_half_ulp(H got, double ref) {
  const H near = H(ref);  // rounded once from double (half.h)
  const float g = static_cast<float>(got), n = static_cast<float>(near);
  if (bits(g) == bits(n) || g == n) return true;
  // neighbours of `near` in the half dtype: bit pattern +-1 on the same sign side
  const uint16_t nb = near.bits;
  for (int d : {-1, 1}) {
    const int b = static_cast<int>(nb & 0x7FFF) + d;
    if (b < 0 || b > 0x7FFF) continue;
    const H h = H::from_bits(static_cast<uint16_t>((nb & 0x8000) | b));
    if (static_cast<float>(h) == g) return true;
  }
  return g == 0.0f && n == 0.0f;
}

template <typename H>
void every_half_pattern(DType d, const char* name) {
  const std::vector<H> hs = every_half<H>();
  Tensor x = Tensor::empty({65536}, d);
  std::memcpy(x.data(), hs.data(), 65536 * sizeof(H));
  Tensor dy = Tensor::empty({65536}, d);
  for (int64_t i = 0; i < 65536; ++i) dy.data_as<H>()[i] = H(0.75f);
  for (bool t : {false, true}) {
    Tensor y = gelu(x, t), g = gelu_backward(dy, x, t);
    ASSERT_EQ(y.dtype(), d);
    ASSERT_EQ(g.dtype(), d);
    // the backward equals the float32 kernel's result rounded once to the half dtype
    std::vector<float> xf(65536), dyf(65536, 0.75f);
    for (size_t i = 0; i < xf.size(); ++i) xf[i] = static_cast<float>(hs[i]);
    Tensor g32 = gelu_backward(f32(dyf), f32(xf), t);
    int bad = 0;
    for (size_t i = 0; i < hs.size() && bad < 10; ++i) {
      const float xv = xf[i];
      const H yv = y.data_as<H>()[i], gv = g.data_as<H>()[i];
      if (std::isnan(xv) || xv == -kInf) {
        EXPECT_TRUE(std::isnan(static_cast<float>(yv))) << name << " gelu(" << xv << ")";
      } else if (xv == kInf) {
        EXPECT_EQ(static_cast<float>(yv), kInf) << name;
      } else if (!within_one_half_ulp(yv, ref_gelu(xv, t))) {
        ADD_FAILURE() << name << (t ? " tanh" : " exact") << " gelu(" << xv << ") = " << static_cast<float>(yv)
                      << ", reference " << ref_gelu(xv, t);
        ++bad;
      }
      const H once = H(g32.data_as<float>()[i]);
      if (!(once.bits == gv.bits || (std::isnan(static_cast<float>(once)) && std::isnan(static_cast<float>(gv))))) {
        ADD_FAILURE() << name << " gelu_backward(0.75, " << xv << ") = " << static_cast<float>(gv)
                      << ", the float32 result rounded once " << static_cast<float>(once);
        ++bad;
      }
    }
  }
}

TEST(GeluKernel, EveryFloat16AndBFloat16Pattern) {
  every_half_pattern<float16>(DType::kFloat16, "float16");
  every_half_pattern<bfloat16>(DType::kBFloat16, "bfloat16");
}

void check_backward(const std::vector<float>& dys, const std::vector<float>& xs, const Tensor& g, bool tanh_form,
                    const std::string& what) {
  ASSERT_EQ(g.numel(), static_cast<int64_t>(xs.size()));
  const float* gp = g.data_as<float>();
  int bad = 0;
  for (size_t i = 0; i < xs.size() && bad < 10; ++i) {
    const double x = xs[i], dy = dys[i];
    double d, s;
    ref_grad(x, tanh_form, &d, &s);
    const double r = dy * d, scale = std::fabs(dy) * s;
    const double k = tanh_form ? 4.0 + 4.0 * two_v(x) : 4.0;
    // plus |dy| least denormals where the result is below FLT_MIN (the tanh form: times
    // 1 + |x| (2v)' where exp(-|2v|) is itself denormal)
    const double den = std::fabs(dy) * std::ldexp(1.0, -149) *
                       (tanh_form ? 2.0 + std::fabs(x) * 2.0 * kC1 * (1.0 + 3.0 * kC2 * x * x) : 2.0);
    const double tol = k * ulp(scale) + den;
    if (!(std::fabs(gp[i] - r) <= tol)) {
      ADD_FAILURE() << what << (tanh_form ? " tanh" : " exact") << " gelu_backward(" << dys[i] << ", " << xs[i]
                    << ") = " << gp[i] << ", reference " << r << ", error " << std::fabs(gp[i] - r) / ulp(scale)
                    << " ulp(S)";
      ++bad;
    }
  }
}

TEST(GeluBackwardKernel, Float32MatchesDoubleBothForms) {
  std::vector<float> xs = finite_points();
  std::vector<float> dys(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) dys[i] = (i % 3 == 0) ? 1.0f : std::sin(static_cast<float>(i)) * 3.0f;
  for (bool t : {false, true}) check_backward(dys, xs, gelu_backward(f32(dys), f32(xs), t), t, "dense");
}

TEST(GeluBackwardKernel, TailsAroundTheVectorWidthAndChunk) {
  for (int64_t n = 1; n <= 129; ++n) {
    std::vector<float> xs(static_cast<size_t>(n)), dys(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      xs[static_cast<size_t>(i)] = std::sin(0.53f * static_cast<float>(i + n)) * 5.0f;
      dys[static_cast<size_t>(i)] = 1.0f + 0.125f * static_cast<float>(i % 5);
    }
    xs.back() = (n % 2) ? -13.5f : 13.5f;  // the second path in the last (masked) vector
    for (bool t : {false, true})
      check_backward(dys, xs, gelu_backward(f32(dys), f32(xs), t), t, "length " + std::to_string(n));
  }
}

TEST(GeluBackwardKernel, SpecialValuesAsTorch) {
  const std::vector<float> xs = {0.0f, -0.0f, kInf, -kInf, kNaN, 20.0f, -20.0f, 1e-45f, 5.0f};
  const std::vector<float> dys = {2.0f, 2.0f, 1.0f, 1.0f, 1.0f, 3.0f, 3.0f, 2.0f, kNaN};
  for (bool t : {false, true}) {
    Tensor g = gelu_backward(f32(dys), f32(xs), t);
    const float* p = g.data_as<float>();
    EXPECT_EQ(p[0], 1.0f);  // gelu'(+-0) = 0.5
    EXPECT_EQ(p[1], 1.0f);
    EXPECT_TRUE(std::isnan(p[2])) << "inf * 0 in torch's formula";
    EXPECT_TRUE(std::isnan(p[3]));
    EXPECT_TRUE(std::isnan(p[4]));
    EXPECT_EQ(p[5], 3.0f);                  // past 14.5: gelu' = 1
    EXPECT_EQ(p[6], 0.0f);                  // and 0 on the negative side (torch: 3 (0 + -20 * 0) = +0)
    EXPECT_FLOAT_EQ(p[7], 1.0f);            // subnormal x: 0.5 dy
    EXPECT_TRUE(std::isnan(p[8]));          // NaN grad_output
  }
}

TEST(GeluBackwardKernel, NonContiguousOperandsEqualCompactCopies) {
  std::vector<float> xs(3001), dys(3001);
  for (size_t i = 0; i < xs.size(); ++i) {
    xs[i] = std::cos(0.017f * static_cast<float>(i)) * 7.0f;
    dys[i] = std::sin(0.003f * static_cast<float>(i)) + 1.5f;
  }
  Tensor xv = f32(xs).slice(0, 0, 3001, 2), dv = f32(dys).slice(0, 1, 3001, 2);
  ASSERT_EQ(xv.numel(), dv.numel() + 1);
  xv = f32(xs).slice(0, 0, 3000, 2);
  std::vector<float> xc, dc;
  for (size_t i = 0; i < 3000; i += 2) xc.push_back(xs[i]);
  for (size_t i = 1; i < 3001; i += 2) dc.push_back(dys[i]);
  for (bool t : {false, true}) {
    Tensor a = gelu_backward(dv, xv, t), b = gelu_backward(f32(dc), f32(xc), t);
    ASSERT_EQ(a.numel(), b.numel());
    for (int64_t i = 0; i < a.numel(); ++i) EXPECT_EQ(bits(a.data_as<float>()[i]), bits(b.data_as<float>()[i])) << i;
  }
}

TEST(GeluKernel, EmptyInputsAndErrors) {
  Tensor e = Tensor::empty({0, 3}, DType::kFloat32);
  EXPECT_EQ(gelu(e).numel(), 0);
  EXPECT_EQ(gelu(e).shape(), (Shape{0, 3}));
  EXPECT_EQ(gelu_backward(e, e).numel(), 0);
  EXPECT_THROW(gelu(Tensor::empty({4}, DType::kInt32)), Error);
  EXPECT_THROW(gelu(Tensor::empty({4}, DType::kFloat64)), Error);  // asc.ops keeps float64 as a chain
  const Tensor a = Tensor::empty({4}, DType::kFloat32);
  EXPECT_THROW(gelu_backward(a, Tensor::empty({5}, DType::kFloat32)), Error);   // shapes differ
  EXPECT_THROW(gelu_backward(a, Tensor::empty({4}, DType::kFloat16)), Error);   // dtypes differ
  EXPECT_THROW(gelu_backward(Tensor::empty({4}, DType::kInt64), Tensor::empty({4}, DType::kInt64)), Error);
  try {
    gelu_backward(a, Tensor::empty({5}, DType::kFloat32));
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("gelu_backward"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace asc::nn
