// The lazy graph's gelu pass (src/graph/passes.cc): which subgraphs it rewrites, which it must
// leave alone, and the values of the rewritten graph. Whether it fired is read from
// graph::stats().passes_fired(_gelu); values are checked against asc::nn::gelu (the kernel the
// rewritten node runs: bit for bit), against an independent double-precision gelu (the kernel's
// <= 6 ulp, docs/nn.md) and against the composite run without the pass, within the bound of
// docs/custom_ops.md "Graph passes": |composite - gelu| <= 2^-21 |x| + 2^-22 |gelu(x)| (erf form).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "asc/core/tensor.h"
#include "asc/graph/graph.h"
#include "asc/nn/activation.h"
#include "asc/ops/registry.h"

using namespace asc;
using ops::Scalar;

namespace {

constexpr float kSqrt2 = 1.41421356237309504880f, kInvSqrt2 = 0.70710678118654752440f;
constexpr float kC1 = 0.79788456080286535588f, kC2 = 0.044715f;

Tensor call(const char* op, std::vector<Tensor> in) { return ops::call(op, in, ops::Attrs{}); }
Tensor c(float v) { return ops::scalar_tensor(Scalar::from_float(v), DType::kFloat32); }
Tensor mul(const Tensor& a, const Tensor& b) { return call("multiply", {a, b}); }
Tensor add(const Tensor& a, const Tensor& b) { return call("add", {a, b}); }
Tensor div(const Tensor& a, const Tensor& b) { return call("true_divide", {a, b}); }
Tensor gerf(const Tensor& a) { return call("erf", {a}); }
Tensor gtanh(const Tensor& a) { return call("tanh", {a}); }

/// n float32 values: a deterministic spread over [-8, 8] with zeros, tails and tiny values.
Tensor input(int64_t n) {
  Tensor t = Tensor::empty({n}, DType::kFloat32);
  float* p = t.data_as<float>();
  uint32_t s = 12345u;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * 16.0f;
  }
  const float sp[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 12.0f, -12.0f, 5.5f, -5.5f};
  for (size_t k = 0; k < sizeof sp / sizeof sp[0] && static_cast<int64_t>(k) < n; ++k) p[static_cast<int64_t>(k) * 7 % n] = sp[k];
  return t;
}

std::vector<float> values(const Tensor& t) {
  Tensor d = t.is_contiguous() ? t : t.contiguous();
  const float* p = d.data_as<float>();  // observing the data runs the pending graph
  return std::vector<float>(p, p + d.numel());
}

uint32_t bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

double gelu_ref(double x, bool tanh_form) {
  // 0.5 x (1 + tanh u) as x / (1 + exp(-2u)): no cancellation in the negative tail
  if (tanh_form) return x / (1.0 + std::exp(-2.0 * 0.7978845608028654 * (x + 0.044715 * x * x * x)));
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

/// Sets ASC_GRAPH_PASSES for one scope (the pass reads it at each flush).
struct PassesEnv {
  std::string old;
  bool had;
  explicit PassesEnv(const char* v) {
    const char* e = std::getenv("ASC_GRAPH_PASSES");
    had = e != nullptr;
    if (had) old = e;
    if (v) setenv("ASC_GRAPH_PASSES", v, 1);
    else unsetenv("ASC_GRAPH_PASSES");
  }
  ~PassesEnv() {
    if (had) setenv("ASC_GRAPH_PASSES", old.c_str(), 1);
    else unsetenv("ASC_GRAPH_PASSES");
  }
};

using Build = Tensor (*)(const Tensor&);

Tensor canonical(const Tensor& x) { return mul(mul(x, c(0.5f)), add(c(1.0f), gerf(div(x, c(kSqrt2))))); }
// 0.5 * (x * (erf(x * (1/sqrt 2)) + 1)): constant first, other association, 1 on the right
Tensor variant_mul_inv(const Tensor& x) { return mul(c(0.5f), mul(x, add(gerf(mul(x, c(kInvSqrt2))), c(1.0f)))); }
// (x / 2) * (1 + erf((1/sqrt 2) * x))
Tensor variant_half(const Tensor& x) { return mul(div(x, c(2.0f)), add(c(1.0f), gerf(mul(c(kInvSqrt2), x)))); }
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x x x)))
Tensor tanh_form(const Tensor& x) {
  Tensor cube = mul(mul(c(kC2), x), mul(x, x));
  return mul(mul(c(0.5f), x), add(c(1.0f), gtanh(mul(c(kC1), add(x, cube)))));
}

struct GeluPass : ::testing::Test {
  void SetUp() override {
    graph::set_eager(false);
    graph::flush_all();
  }
  void TearDown() override { graph::flush_all(); }

  /// Runs `build` over x lazily; the values and how many gelu rewrites fired.
  static std::vector<float> run(Build build, const Tensor& x, int64_t* fired) {
    graph::flush_all();
    const graph::Stats before = graph::stats();
    std::vector<float> v = values(build(x));
    graph::flush_all();
    const graph::Stats after = graph::stats();
    EXPECT_EQ(after.passes_fired - before.passes_fired, after.passes_fired_gelu - before.passes_fired_gelu);
    *fired = after.passes_fired_gelu - before.passes_fired_gelu;
    return v;
  }
};

void expect_rewritten(Build build, bool tanh_form, int64_t n) {
  Tensor x = input(n);
  int64_t fired = -1, fired_off = -1;
  const std::vector<float> got = GeluPass::run(build, x, &fired);
  EXPECT_EQ(fired, 1);
  std::vector<float> composite;
  {
    PassesEnv off("0");
    composite = GeluPass::run(build, x, &fired_off);
  }
  EXPECT_EQ(fired_off, 0);
  const std::vector<float> kernel = values(nn::gelu(x, tanh_form));
  const float* xp = x.data_as<float>();
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double xi = xp[i], g = gelu_ref(xi, tanh_form);
    // the rewritten node runs the built-in kernel: its bits (1-D, tiles from 0: no neighbour caveat)
    ASSERT_EQ(bits(got[static_cast<size_t>(i)]), bits(kernel[static_cast<size_t>(i)])) << "x=" << xi;
    // the kernel's bound against the exact function (docs/nn.md): erf form 6 ulp of gelu(x), tanh
    // form 4 + 4 |2v| ulp, v = sqrt(2/pi) (x + 0.044715 x^3); below FLT_MIN 4 denormal steps
    const double ulp = std::ldexp(1.0, std::max(std::ilogb(std::max(std::fabs(g), 1e-38)), -126) - 23);
    const double v = 0.7978845608028654 * (xi + 0.044715 * xi * xi * xi);
    const double kernel_ulps = tanh_form ? 4 + 8 * std::fabs(v) : 6;
    ASSERT_LE(std::fabs(got[static_cast<size_t>(i)] - g), kernel_ulps * ulp + 4 * 0x1p-149) << "x=" << xi;
    // and the composite's own error bound: the pass moves the result by at most that much plus the
    // kernel's (tanh form: 2^-20 |x| in place of 2^-21 |x|)
    const double bound =
        (tanh_form ? 0x1p-20 : 0x1p-21) * std::fabs(xi) + 0x1p-22 * std::fabs(g) + kernel_ulps * ulp + 4 * 0x1p-149;
    ASSERT_LE(std::fabs(static_cast<double>(got[static_cast<size_t>(i)]) - composite[static_cast<size_t>(i)]), bound)
        << "x=" << xi << " composite=" << composite[static_cast<size_t>(i)];
  }
}

TEST_F(GeluPass, FiresOnTheCanonicalErfForm) { expect_rewritten(&canonical, false, 4099); }
TEST_F(GeluPass, FiresOnTheInverseSqrtTwoVariant) { expect_rewritten(&variant_mul_inv, false, 1000); }
TEST_F(GeluPass, FiresOnTheHalfDivisionVariant) { expect_rewritten(&variant_half, false, 517); }
TEST_F(GeluPass, FiresOnTheTanhForm) { expect_rewritten(&tanh_form, true, 2048); }

/// Not rewritten: the values are the composite's without the pass, bit for bit.
void expect_untouched(Build build, int64_t n = 777) {
  Tensor x = input(n);
  int64_t fired = -1, fired_off = -1;
  const std::vector<float> got = GeluPass::run(build, x, &fired);
  EXPECT_EQ(fired, 0);
  std::vector<float> composite;
  {
    PassesEnv off("0");
    composite = GeluPass::run(build, x, &fired_off);
  }
  EXPECT_EQ(fired_off, 0);
  ASSERT_EQ(got.size(), composite.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(bits(got[i]), bits(composite[i])) << i;
}

float up(float v) { return std::nextafter(v, 10.0f); }
float down(float v) { return std::nextafter(v, -10.0f); }

TEST_F(GeluPass, ConstantsOneUlpOffDoNotFire) {
  expect_untouched(+[](const Tensor& x) { return mul(mul(x, c(up(0.5f))), add(c(1.0f), gerf(div(x, c(kSqrt2))))); });
  expect_untouched(+[](const Tensor& x) { return mul(mul(x, c(0.5f)), add(c(down(1.0f)), gerf(div(x, c(kSqrt2))))); });
  expect_untouched(+[](const Tensor& x) { return mul(mul(x, c(0.5f)), add(c(1.0f), gerf(div(x, c(up(kSqrt2)))))); });
  expect_untouched(+[](const Tensor& x) { return mul(c(0.5f), mul(x, add(gerf(mul(x, c(down(kInvSqrt2)))), c(1.0f)))); });
  expect_untouched(+[](const Tensor& x) { return mul(div(x, c(up(2.0f))), add(c(1.0f), gerf(mul(c(kInvSqrt2), x)))); });
  expect_untouched(+[](const Tensor& x) {
    Tensor cube = mul(mul(c(up(kC2)), x), mul(x, x));
    return mul(mul(c(0.5f), x), add(c(1.0f), gtanh(mul(c(kC1), add(x, cube)))));
  });
}

TEST_F(GeluPass, IntermediateWithAnotherUserDoesNotFire) {
  // erf(x / sqrt 2) is also read by a second result: it must be computed as written
  Tensor x = input(600);
  int64_t fired = -1;
  std::vector<float> g, e2;
  {
    const graph::Stats before = graph::stats();
    Tensor e = gerf(div(x, c(kSqrt2)));
    Tensor y = mul(mul(x, c(0.5f)), add(c(1.0f), e));
    Tensor z = mul(e, c(2.0f));
    graph::eval({y, z});
    fired = graph::stats().passes_fired_gelu - before.passes_fired_gelu;
    g = values(y);
    e2 = values(z);
  }
  EXPECT_EQ(fired, 0);
  std::vector<float> g_off, e2_off;
  {
    PassesEnv off("0");
    Tensor e = gerf(div(x, c(kSqrt2)));
    Tensor y = mul(mul(x, c(0.5f)), add(c(1.0f), e));
    Tensor z = mul(e, c(2.0f));
    graph::eval({y, z});
    g_off = values(y);
    e2_off = values(z);
  }
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_EQ(bits(g[i]), bits(g_off[i])) << i;
    ASSERT_EQ(bits(e2[i]), bits(e2_off[i])) << i;
  }
  // the same for a product held by a tensor (x * 0.5 kept alive by the caller)
  const graph::Stats before = graph::stats();
  Tensor h = mul(x, c(0.5f));
  Tensor y = mul(h, add(c(1.0f), gerf(div(x, c(kSqrt2)))));
  const std::vector<float> yv = values(y);
  EXPECT_EQ(graph::stats().passes_fired_gelu - before.passes_fired_gelu, 0);
  const std::vector<float> hv = values(h);
  const float* xp = x.data_as<float>();
  for (size_t i = 0; i < hv.size(); ++i) ASSERT_EQ(hv[i], xp[i] * 0.5f) << i;
}

TEST_F(GeluPass, SwitchedOffOrDroppedDoesNotFire) {
  {
    PassesEnv drop("-gelu");
    expect_untouched(&canonical);
  }
  {
    PassesEnv none("none");
    expect_untouched(&tanh_form);
  }
  PassesEnv only("gelu");
  Tensor x = input(300);
  int64_t fired = -1;
  (void)run(&canonical, x, &fired);
  EXPECT_EQ(fired, 1);
}

TEST_F(GeluPass, CountsEverySubgraphOfOneFlush) {
  Tensor a = input(256), b = input(300);
  const graph::Stats before = graph::stats();
  Tensor ya = canonical(a), yb = tanh_form(b), yc = variant_half(a);
  graph::eval({ya, yb, yc});
  const graph::Stats after = graph::stats();
  EXPECT_EQ(after.passes_fired_gelu - before.passes_fired_gelu, 3);
  EXPECT_EQ(after.passes_fired - before.passes_fired, 3);
}

}  // namespace
