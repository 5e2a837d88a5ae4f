// AscendQuant, SoftMax and BilinearInterpolation (asc/kernel/adv_ops.h) against
// scalar references computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::LocalTensor;

template <typename T>
LocalTensor<T> get(AscendC::TBuf<>& b) {
  return b.Get<T>();
}

TEST(AdvOps, AscendQuantHalfRoundsEachStepAndSaturates) {
  std::vector<half> x = {half(-4.0f), half(-1.2f), half(0.05f), half(1.3f), half(3.99f), half(70.0f), half(-80.0f),
                         half(0.25f)};
  std::vector<int8_t> got(x.size());
  kt::run_or_throw("quant", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s, d, tmp;
    pipe.InitBuffer(s, 64);
    pipe.InitBuffer(d, 64);
    pipe.InitBuffer(tmp, 512);
    auto src = get<half>(s);
    auto dst = get<int8_t>(d);
    std::memcpy(src.data(), x.data(), x.size() * sizeof(half));
    AscendC::AscendQuant(dst, src, get<uint8_t>(tmp), 2.0f, 0.9f, static_cast<uint32_t>(x.size()));
    std::memcpy(got.data(), dst.data(), got.size());
  });
  for (size_t i = 0; i < x.size(); ++i) {
    const half prod = half(float(x[i]) * 2.0f);
    const half sum = half(float(prod) + float(half(0.9f)));
    float want = std::nearbyint(float(sum));
    want = std::fmin(127.0f, std::fmax(-128.0f, want));
    EXPECT_EQ(got[i], static_cast<int8_t>(want)) << "element " << i;
  }
  EXPECT_EQ(got[5], 127);
  EXPECT_EQ(got[6], -128);
}

TEST(AdvOps, AscendQuantCountBeyondTensorFails) {
  const asc::Status st = kt::run("quant_bad", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s, d;
    pipe.InitBuffer(s, 64);
    pipe.InitBuffer(d, 32);
    AscendC::AscendQuant(get<int8_t>(d), get<float>(s), 1.0f, 0.0f, 40);  // 40 > 16 floats of src
  });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("AscendQuant"), std::string::npos) << st.message();
}

TEST(AdvOps, SoftMaxRowsMatchReference) {
  const uint32_t m = 4, k = 64;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-3.0f, 5.0f);
  std::vector<float> x(m * k), y(m * k), sums(m * 8), maxs(m * 8);
  for (auto& v : x) v = u(rng);
  kt::run_or_throw("softmax", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s, su, mx;
    pipe.InitBuffer(s, m * k * 4);
    pipe.InitBuffer(su, m * 32);
    pipe.InitBuffer(mx, m * 32);
    auto src = get<float>(s);
    std::memcpy(src.data(), x.data(), x.size() * 4);
    // In place (dst == src), as hicann's test does.
    AscendC::SoftMax(src, get<float>(su), get<float>(mx), src, AscendC::SoftMaxTiling{},
                     AscendC::SoftMaxShapeInfo{m, k, m, k});
    std::memcpy(y.data(), src.data(), y.size() * 4);
    std::memcpy(sums.data(), get<float>(su).data(), sums.size() * 4);
    std::memcpy(maxs.data(), get<float>(mx).data(), maxs.size() * 4);
  });
  for (uint32_t r = 0; r < m; ++r) {
    double mxr = -1e30, sum = 0;
    for (uint32_t j = 0; j < k; ++j) mxr = std::max(mxr, double(x[r * k + j]));
    for (uint32_t j = 0; j < k; ++j) sum += std::exp(double(x[r * k + j]) - mxr);
    double total = 0;
    for (uint32_t j = 0; j < k; ++j) {
      const double want = std::exp(double(x[r * k + j]) - mxr) / sum;
      EXPECT_NEAR(y[r * k + j], want, 1e-6 * want + 1e-9);
      total += y[r * k + j];
    }
    EXPECT_NEAR(total, 1.0, 1e-5);
    for (int b = 0; b < 8; ++b) {
      EXPECT_FLOAT_EQ(maxs[r * 8 + b], float(mxr));
      EXPECT_NEAR(sums[r * 8 + b], sum, 1e-5 * sum);
    }
  }
}

TEST(AdvOps, BilinearInterpolationGathersScalesAndSums) {
  // hRepeat 2, vRepeat 2, half: 4 repeats of 8 blocks of 16 elements; offsets pick blocks in reverse order.
  const int h = 2, v = 2, reps = h * v;
  std::vector<half> src0(reps * 128), src1(reps * 8), dst(v * 128 + 128);
  std::vector<uint32_t> off(reps * 8);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-10.0f, 10.0f);
  for (auto& x : src0) x = half(u(rng));
  for (auto& x : src1) x = half(u(rng));
  for (int i = 0; i < reps * 8; ++i) off[i] = static_cast<uint32_t>((reps * 8 - 1 - i) * 32);
  for (bool mode : {false, true}) {
    kt::run_or_throw("bilinear", 1, [&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<> a, o, w, d, t;
      pipe.InitBuffer(a, src0.size() * 2);
      pipe.InitBuffer(o, off.size() * 4);
      pipe.InitBuffer(w, src1.size() * 2);
      pipe.InitBuffer(d, dst.size() * 2);
      pipe.InitBuffer(t, 256);
      std::memcpy(get<half>(a).data(), src0.data(), src0.size() * 2);
      std::memcpy(get<uint32_t>(o).data(), off.data(), off.size() * 4);
      std::memcpy(get<half>(w).data(), src1.data(), src1.size() * 2);
      auto out = get<half>(d);
      for (size_t i = 0; i < dst.size(); ++i) out.SetValue(static_cast<uint32_t>(i), half(-1.0f));
      AscendC::BilinearInterpolation(out, get<half>(a), get<uint32_t>(o), get<half>(w), 128, h, mode, 1, 128, v,
                                     get<uint8_t>(t));
      std::memcpy(dst.data(), out.data(), dst.size() * 2);
    });
    for (int vv = 0; vv < v; ++vv) {
      for (int lane = 0; lane < 128; ++lane) {
        const int b = lane / 16, e = lane % 16;
        half acc = half(0.0f);
        for (int hh = 0; hh < h; ++hh) {
          const int r = vv * h + hh;
          const half g = src0[off[r * 8 + b] / 2 + e];
          const half wgt = src1[mode ? r * 8 + b : r];
          const half p = half(float(g) * float(wgt));
          acc = hh == 0 ? p : half(float(acc) + float(p));
        }
        EXPECT_EQ(float(dst[vv * 128 + lane]), float(acc)) << "mode " << mode << " v " << vv << " lane " << lane;
      }
    }
    for (int i = v * 128; i < v * 128 + 128; ++i) EXPECT_EQ(float(dst[i]), -1.0f);  // untouched
  }
}

TEST(AdvOps, BilinearInterpolationOffsetOutsideSrcFails) {
  const asc::Status st = kt::run("bilinear_bad", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> a, o, w, d, t;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(o, 32);
    pipe.InitBuffer(w, 32);
    pipe.InitBuffer(d, 256);
    pipe.InitBuffer(t, 32);
    auto offs = get<uint32_t>(o);
    for (uint32_t i = 0; i < 8; ++i) offs.SetValue(i, 4096u);
    AscendC::BilinearInterpolation(get<half>(d), get<half>(a), offs, get<half>(w), 128, 1, false, 1, 128, 1,
                                   get<uint8_t>(t));
  });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("BilinearInterpolation"), std::string::npos) << st.message();
}

// -- lib/math, Power/Xor, RmsNorm -------------------------------------------------------------------

template <typename F>
std::vector<float> run_unary(const char* name, const std::vector<float>& x, F call) {
  std::vector<float> got(x.size());
  kt::run_or_throw(name, 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s, d, t;
    pipe.InitBuffer(s, 256);
    pipe.InitBuffer(d, 256);
    pipe.InitBuffer(t, 256);
    auto src = get<float>(s);
    auto dst = get<float>(d);
    std::memcpy(src.data(), x.data(), x.size() * sizeof(float));
    call(dst, src, get<uint8_t>(t), static_cast<uint32_t>(x.size()));
    std::memcpy(got.data(), dst.data(), got.size() * sizeof(float));
  });
  return got;
}

double digamma_ref(double x) {  // the series of d/dx lgamma by central differences of lgamma_r
  int s = 0;
  const double h = 1e-5;
  return (::lgamma_r(x + h, &s) - ::lgamma_r(x - h, &s)) / (2 * h);
}

TEST(AdvOps, MathLibraryMatchesTheCLibrary) {
  const std::vector<float> x = {-0.9f, -0.5f, -0.25f, 0.0f, 0.1f, 0.5f, 0.75f, 0.95f};
  const std::vector<float> pos = {1.0f, 1.5f, 2.5f, 3.0f, 4.25f, 7.0f, 10.5f, 0.3f};
  const std::vector<float> frac = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f, -3.2f};
  auto check = [](const char* what, const std::vector<float>& got, const std::vector<float>& in, auto ref,
                  double tol) {
    for (size_t i = 0; i < in.size(); ++i) {
      const float want = static_cast<float>(ref(static_cast<double>(in[i])));
      if (std::isnan(want)) {  // outside the domain (acosh(0.3)): NaN as the C library
        EXPECT_TRUE(std::isnan(got[i])) << what << "(" << in[i] << ") = " << got[i];
        continue;
      }
      EXPECT_NEAR(got[i], want, tol * std::max(1.0, std::fabs(double(want)))) << what << "(" << in[i] << ")";
    }
  };
  using L = LocalTensor<float>;
  using B = LocalTensor<uint8_t>;
  check("Acos", run_unary("acos", x, [](L d, L s, B t, uint32_t n) { AscendC::Acos(d, s, t, n); }), x,
        [](double v) { return std::acos(v); }, 1e-7);
  check("Asinh", run_unary("asinh", x, [](L d, L s, B, uint32_t n) { AscendC::Asinh(d, s, n); }), x,
        [](double v) { return std::asinh(v); }, 1e-7);
  check("Atanh", run_unary("atanh", x, [](L d, L s, B, uint32_t) { AscendC::Atanh(d, s); }), x,
        [](double v) { return std::atanh(v); }, 1e-7);
  check("Acosh", run_unary("acosh", pos, [](L d, L s, B, uint32_t n) { AscendC::Acosh(d, s, n); }), pos,
        [](double v) { return std::acosh(v); }, 1e-7);
  check("Erfc", run_unary("erfc", x, [](L d, L s, B, uint32_t n) { AscendC::Erfc(d, s, n); }), x,
        [](double v) { return std::erfc(v); }, 1e-7);
  check("Tan", run_unary("tan", x, [](L d, L s, B, uint32_t n) { AscendC::Tan(d, s, n); }), x,
        [](double v) { return std::tan(v); }, 1e-7);
  check("Lgamma", run_unary("lgamma", pos, [](L d, L s, B, uint32_t n) { AscendC::Lgamma(d, s, n); }), pos,
        [](double v) { int sg = 0; return ::lgamma_r(v, &sg); }, 1e-6);
  check("Digamma", run_unary("digamma", pos, [](L d, L s, B, uint32_t n) { AscendC::Digamma(d, s, n); }), pos,
        digamma_ref, 1e-5);
  check("Frac", run_unary("frac", frac, [](L d, L s, B, uint32_t n) { AscendC::Frac(d, s, n); }), frac,
        [](double v) { return v - std::trunc(v); }, 0);
  check("Round", run_unary("round", frac, [](L d, L s, B, uint32_t n) { AscendC::Round(d, s, n); }), frac,
        [](double v) { return std::nearbyint(v); }, 0);  // ties to even: -2.5 -> -2, 0.5 -> 0, 2.5 -> 2
  check("Sign", run_unary("sign", x, [](L d, L s, B, uint32_t n) { AscendC::Sign(d, s, n); }), x,
        [](double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }, 0);
  // digamma at a pole is NaN; only the counted elements are written
  const auto pole = run_unary("digamma0", {0.0f, -2.0f, 1.0f}, [](L d, L s, B, uint32_t) {
    d.SetValue(2, 7.0f);
    AscendC::Digamma(d, s, 2u);
  });
  EXPECT_TRUE(std::isnan(pole[0]) && std::isnan(pole[1]));
  EXPECT_EQ(pole[2], 7.0f);
}

TEST(AdvOps, PowerXorAndHalfMath) {
  std::vector<float> gotp(4);
  std::vector<int32_t> gotx(4);
  std::vector<half> goth(4);
  kt::run_or_throw("power_xor", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> a, b, c, i0, i1, i2, h0, h1;
    for (auto* t : {&a, &b, &c, &i0, &i1, &i2, &h0, &h1}) pipe.InitBuffer(*t, 64);
    auto fa = get<float>(a), fb = get<float>(b), fc = get<float>(c);
    auto xa = get<int32_t>(i0), xb = get<int32_t>(i1), xc = get<int32_t>(i2);
    auto ha = get<half>(h0), hb = get<half>(h1);
    const float base[4] = {2.0f, 9.0f, 0.5f, 3.0f}, ex[4] = {10.0f, 0.5f, -2.0f, 0.0f};
    const int32_t p[4] = {0x0f0f, -1, 12345, 0}, q[4] = {0x00ff, 0x7fffffff, 12345, -7};
    for (int i = 0; i < 4; ++i) {
      fa.SetValue(i, base[i]);
      fb.SetValue(i, ex[i]);
      xa.SetValue(i, p[i]);
      xb.SetValue(i, q[i]);
      ha.SetValue(i, half(0.25f * float(i + 1)));
    }
    AscendC::Power(fc, fa, fb, 4u);
    AscendC::Xor(xc, xa, xb, 4u);
    AscendC::Sin(hb, ha, 4u);
    for (int i = 0; i < 4; ++i) {
      gotp[i] = fc.GetValue(i);
      gotx[i] = xc.GetValue(i);
      goth[i] = hb.GetValue(i);
    }
  });
  EXPECT_EQ(gotp, (std::vector<float>{1024.0f, 3.0f, 4.0f, 1.0f}));
  EXPECT_EQ(gotx, (std::vector<int32_t>{0x0ff0, static_cast<int32_t>(0x80000000u), 0, -7}));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(float(goth[i]), float(half(std::sin(0.25f * float(i + 1))))) << i;
}

TEST(AdvOps, RmsNormRowsWithPaddedH) {
  // 2 x 3 rows of originalHLength 5 padded to hLength 8
  const uint32_t rows = 6, h = 8, oh = 5;
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> x(rows * h), g(h), got(rows * h);
  for (auto& v : x) v = u(gen);
  for (auto& v : g) v = u(gen);
  kt::run_or_throw("rmsnorm", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s, d, gm, t;
    pipe.InitBuffer(s, rows * h * 4);
    pipe.InitBuffer(d, rows * h * 4);
    pipe.InitBuffer(gm, h * 4);
    pipe.InitBuffer(t, 256);
    auto src = get<float>(s), dst = get<float>(d), gamma = get<float>(gm);
    std::memcpy(src.data(), x.data(), x.size() * 4);
    std::memcpy(gamma.data(), g.data(), g.size() * 4);
    AscendC::RmsNormTiling tiling;
    tiling.bLength = 2;
    tiling.sLength = 3;
    tiling.hLength = h;
    tiling.originalHLength = oh;
    AscendC::RmsNorm(dst, src, gamma, get<uint8_t>(t), 1e-3f, tiling);
    std::memcpy(got.data(), dst.data(), got.size() * 4);
  });
  for (uint32_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (uint32_t j = 0; j < oh; ++j) ss += double(x[r * h + j]) * x[r * h + j];
    const double inv = 1.0 / std::sqrt(ss / oh + 1e-3);
    for (uint32_t j = 0; j < oh; ++j) EXPECT_NEAR(got[r * h + j], x[r * h + j] * inv * g[j], 2e-6) << r << "," << j;
    for (uint32_t j = oh; j < h; ++j) EXPECT_EQ(got[r * h + j], 0.0f);
  }
}

TEST(AdvOps, RmsNormAndMathRefuseShortTensors) {
  const asc::Status st = kt::run("rmsnorm_bad", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s, d, g;
    pipe.InitBuffer(s, 64);
    pipe.InitBuffer(d, 64);
    pipe.InitBuffer(g, 64);
    AscendC::RmsNormTiling tiling;
    tiling.bLength = 4;
    tiling.sLength = 1;
    tiling.hLength = 8;
    AscendC::RmsNorm(get<float>(d), get<float>(s), get<float>(g), 1e-5f, tiling);
  });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("RmsNorm"), std::string::npos) << st.message();
  const asc::Status st2 = kt::run("acos_bad", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s, d;
    pipe.InitBuffer(s, 32);
    pipe.InitBuffer(d, 32);
    AscendC::Acos(get<float>(d), get<float>(s), 100u);
  });
  EXPECT_FALSE(st2.ok());
  EXPECT_NE(st2.message().find("Acos"), std::string::npos) << st2.message();
}

}  // namespace
