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

}  // namespace
