// Advanced-API activations (asc/kernel/adv_activation.h) against the formulas
// of CANN's documentation computed independently in long double, float and
// half, every calling form; and the host helpers of tiling/adv_tiling.h
// (TensorShape, the scratch-size contract).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "tiling/tiling_api.h"

namespace {

using AscendC::TPosition;
using LD = long double;

LD sigm(LD x) { return 1.0L / (1.0L + std::exp(-x)); }
LD gelu(LD x) { return x / (1.0L + std::exp(-1.5957691216057308L * (x + 0.044715L * x * x * x))); }

enum class Op { kSigmoid, kSilu, kSwish, kGelu, kFasterGelu, kSwiGLU, kGeGLU };

LD ref(Op op, LD a, LD b) {
  switch (op) {
    case Op::kSigmoid: return sigm(a);
    case Op::kSilu: return a * sigm(a);
    case Op::kSwish: return a / (1.0L + std::exp(-1.702L * a));
    case Op::kGelu:
    case Op::kFasterGelu: return gelu(a);
    case Op::kSwiGLU: return a * (b / (1.0L + std::exp(-0.75L * b)));
    case Op::kGeGLU: return a * gelu(b);
  }
  return 0;
}

template <typename T>
void check_op(Op op, int form, uint32_t n) {
  std::mt19937 rng(static_cast<uint32_t>(n * 31 + static_cast<int>(op) * 7 + form));
  std::uniform_real_distribution<float> d(-6.0f, 6.0f);
  std::vector<T> a(512), b(512);
  for (auto& v : a) v = T(d(rng));
  for (auto& v : b) v = T(d(rng));
  std::vector<T> out(512, T(-99.0f));
  kt::run_or_throw("adv_act", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> ba, bb, bo, bt;
    pipe.InitBuffer(ba, 512 * sizeof(T));
    pipe.InitBuffer(bb, 512 * sizeof(T));
    pipe.InitBuffer(bo, 512 * sizeof(T));
    pipe.InitBuffer(bt, 1024);
    auto ta = ba.Get<T>(), tb = bb.Get<T>(), to = bo.Get<T>();
    auto tmp = bt.Get<uint8_t>();
    for (uint32_t i = 0; i < 512; ++i) {
      ta.SetValue(i, a[i]);
      tb.SetValue(i, b[i]);
      to.SetValue(i, T(-99.0f));
    }
    auto tn = to[0];
    switch (op) {
      case Op::kSigmoid:
        if (form == 0) AscendC::Sigmoid(to, ta, n);
        else AscendC::Sigmoid(to, ta, tmp, n);
        break;
      case Op::kSilu: AscendC::Silu(to, ta, n); break;
      case Op::kSwish: AscendC::Swish(to, ta, n, T(1.702f)); break;
      case Op::kGelu:
        if (form == 0) AscendC::Gelu(to, ta, n);
        else AscendC::Gelu(to, ta, tmp, n);
        break;
      case Op::kFasterGelu: AscendC::FasterGelu(to, ta, n); break;
      case Op::kSwiGLU:
        if (form == 0) AscendC::SwiGLU(to, ta, tb, 0.75f, n);
        else AscendC::SwiGLU(to, ta, tb, 0.75f, tmp, n);
        break;
      case Op::kGeGLU:
        if (form == 0) AscendC::GeGLU(to, ta, tb, n);
        else AscendC::GeGLU(to, ta, tb, tmp, n);
        break;
    }
    (void)tn;
    for (uint32_t i = 0; i < 512; ++i) out[i] = to.GetValue(i);
  });
  const bool is_half = sizeof(T) == 2;
  for (uint32_t i = 0; i < 512; ++i) {
    const float got = static_cast<float>(out[i]);
    if (i >= n) {
      ASSERT_EQ(got, -99.0f) << "element " << i << " beyond the count was written";
      continue;
    }
    const LD want = ref(op, static_cast<float>(a[i]), static_cast<float>(b[i]));
    const LD tol = is_half ? std::fabs(want) * 1e-3L + 1e-4L : std::fabs(want) * 3e-7L + 1e-30L;
    ASSERT_NEAR(got, want, tol) << "op " << static_cast<int>(op) << " form " << form << " i " << i;
  }
}

TEST(AdvActivation, AgainstFormulasFloatAndHalf) {
  for (Op op : {Op::kSigmoid, Op::kSilu, Op::kSwish, Op::kGelu, Op::kFasterGelu, Op::kSwiGLU, Op::kGeGLU}) {
    for (int form : {0, 1}) {
      for (uint32_t n : {0u, 1u, 32u, 255u, 512u}) {
        check_op<float>(op, form, n);
        check_op<half>(op, form, n);
      }
    }
  }
}

TEST(AdvActivation, WholeTensorFormsAndEdgeValues) {
  std::vector<float> x = {0.0f, -0.0f, 88.0f, -88.0f, 1e30f, -1e30f, INFINITY, -INFINITY};
  std::vector<float> sig(8), gl(8);
  kt::run_or_throw("adv_act_edge", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> ba, bo, bg;
    pipe.InitBuffer(ba, 32);
    pipe.InitBuffer(bo, 32);
    pipe.InitBuffer(bg, 32);
    auto ta = ba.Get<float>(), to = bo.Get<float>(), tg = bg.Get<float>();
    for (uint32_t i = 0; i < 8; ++i) ta.SetValue(i, x[i]);
    AscendC::Sigmoid(to, ta);  // the whole tensor
    AscendC::GeGLU(tg, ta, ta);
    for (uint32_t i = 0; i < 8; ++i) {
      sig[i] = to.GetValue(i);
      gl[i] = tg.GetValue(i);
    }
  });
  EXPECT_EQ(sig[0], 0.5f);
  EXPECT_EQ(sig[2], 1.0f);
  EXPECT_NEAR(sig[3], 6.05e-39f, 1e-40f);
  EXPECT_EQ(sig[6], 1.0f);
  EXPECT_EQ(sig[7], 0.0f);
  EXPECT_EQ(gl[4], 1e30f * 1e30f);  // x * x * sigmoid(huge) overflows to +inf in float
}

TEST(AdvActivation, CountBeyondTensorIsAnError) {
  auto st = kt::run("adv_act_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> ba, bo;
    pipe.InitBuffer(ba, 64);
    pipe.InitBuffer(bo, 32);
    AscendC::Gelu(bo.Get<float>(), ba.Get<float>(), 16);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[Gelu]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("dst"), std::string::npos) << st.message();
}

TEST(AdvReduce, SumOfEachRowsFirstNElements) {
  // outter x inner with inner = n padded to 32 bytes; the padding holds garbage.
  for (uint32_t n : {1u, 7u, 8u, 30u}) {
    const uint32_t outter = 3, inner = (n * 4 + 31) / 32 * 8;
    std::vector<float> x(outter * inner);
    for (uint32_t i = 0; i < x.size(); ++i) x[i] = (i % inner) < n ? static_cast<float>(int(i * 37 % 201) - 100) : 1e30f;
    std::vector<float> got(8, -1.0f);
    std::vector<half> goth(8);
    kt::run_or_throw("adv_sum", 1, [&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::VECCALC> bx, by, bxh, byh, bt;
      pipe.InitBuffer(bx, static_cast<uint32_t>(x.size() * 4));
      pipe.InitBuffer(by, 32);
      pipe.InitBuffer(bxh, static_cast<uint32_t>(outter * 16 * ((n + 15) / 16) * 2));
      pipe.InitBuffer(byh, 32);
      pipe.InitBuffer(bt, 64);
      auto tx = bx.Get<float>(), ty = by.Get<float>();
      for (uint32_t i = 0; i < x.size(); ++i) tx.SetValue(i, x[i]);
      for (uint32_t i = 0; i < 8; ++i) ty.SetValue(i, -1.0f);
      AscendC::Sum(ty, tx, bt.Get<uint8_t>(), AscendC::SumParams{outter, inner, n});
      for (uint32_t i = 0; i < 8; ++i) got[i] = ty.GetValue(i);
      const uint32_t inner_h = 16 * ((n + 15) / 16);
      auto txh = bxh.Get<half>(), tyh = byh.Get<half>();
      for (uint32_t r = 0; r < outter; ++r)
        for (uint32_t j = 0; j < inner_h; ++j) txh.SetValue(r * inner_h + j, half(j < n ? x[r * inner + j] : 7.0f));
      AscendC::Sum(tyh, txh, AscendC::SumParams{outter, inner_h, n});
      for (uint32_t i = 0; i < outter; ++i) goth[i] = tyh.GetValue(i);
    });
    for (uint32_t r = 0; r < outter; ++r) {
      float want = 0;
      for (uint32_t j = 0; j < n; ++j) want += x[r * inner + j];  // integers: exact
      EXPECT_EQ(got[r], want) << "n " << n << " row " << r;
      EXPECT_EQ(static_cast<float>(goth[r]), static_cast<float>(half(want))) << "half n " << n << " row " << r;
    }
    EXPECT_EQ(got[outter], -1.0f);  // beyond outter: untouched
  }
  auto st = kt::run("adv_sum_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> bx, by;
    pipe.InitBuffer(bx, 256);
    pipe.InitBuffer(by, 32);
    AscendC::Sum(by.Get<float>(), bx.Get<float>(), AscendC::SumParams{2, 12, 10});  // 48 bytes per row
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Sum]"), std::string::npos) << st.message();
  uint32_t mx = 0, mn = 0;
  AscendC::GetSumMaxMinTmpSize(100, 4, false, mx, mn);
  EXPECT_EQ(mn, 416u);
}

TEST(ScalarHelpers, CeilDivisionAndDivCeil) {
  static_assert(AscendC::CeilDivision(7, 2) == 4 && AscendC::CeilDivision(8, 2) == 4, "CeilDivision");
  static_assert(AscendC::CeilDivision(5, 0) == 0, "no division by zero");
  static_assert(AscendC::DivCeil(33u, 32u) == 2u && AscendC::DivCeil(uint64_t{64}, 32) == 2, "DivCeil");
  static_assert(std::is_same_v<decltype(AscendC::DivCeil(uint16_t{3}, uint32_t{2})), uint32_t>, "common type");
  volatile uint32_t a = 1000, b = 256;
  EXPECT_EQ(AscendC::DivCeil(a, b), 4u);
  EXPECT_EQ(AscendC::CeilDivision(static_cast<int32_t>(a), 1000), 1);
  kt::run_or_throw("assert_upper", 1, [] { ASSERT(AscendC::GetBlockNum() != 0 && "block dim can not be zero!"); });
}

TEST(TBufCompat, AllocTensorIsGetAndFreeTensorKeepsTheBuffer) {
  kt::run_or_throw("tbuf_alloc", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 256);
    auto t = b.AllocTensor<float>();
    EXPECT_EQ(t.GetSize(), 64u);
    EXPECT_EQ(t.GetPhyAddr(), b.Get<float>().GetPhyAddr());
    t.SetValue(3, 2.5f);
    b.FreeTensor(t);
    EXPECT_EQ(b.Get<float>().GetValue(3), 2.5f);
    EXPECT_EQ(b.AllocTensor<half>().GetSize(), 128u);
  });
}

TEST(AdvTiling, TensorShapeAndScratchSizes) {
  AscendC::TensorShape s(std::vector<int64_t>{4, 33});
  EXPECT_EQ(s.GetDimNum(), 2u);
  EXPECT_EQ(s.GetDim(1), 33);
  EXPECT_EQ(s.GetDim(5), 0);
  EXPECT_EQ(s.GetShapeSize(), 132);
  AscendC::TensorShape braces({8, 16});
  EXPECT_EQ(braces.GetShapeSize(), 128);
  EXPECT_EQ(AscendC::TensorShape().GetShapeSize(), 0);
  uint32_t mx = 0, mn = 0;
  AscendC::GetSigmoidMaxMinTmpSize(s, 4, false, mx, mn);
  EXPECT_EQ(mn, 544u);  // 132 * 4 = 528 -> 544 (32-byte multiple)
  EXPECT_EQ(mx, 544u);
  AscendC::GetSwiGLUMaxMinTmpSize(AscendC::TensorShape({1}), 2, mx, mn, false);
  EXPECT_EQ(mn, 32u);  // never 0: a host allocates a TBuf of min bytes
  EXPECT_LE(mn, mx);
  EXPECT_EQ(AscendC::GetGeluMinTmpSize(braces, 2), 256u);
  EXPECT_EQ(AscendC::GetSoftMaxMinTmpSize(braces, 4, false) % 32, 0u);
  AscendC::GetCeilMaxMinTmpSize(braces, 2, false, mx, mn);  // lib/math's common signature
  EXPECT_EQ(mn, 256u);
  AscendC::GetAcoshMaxMinTmpSize(s, 4, true, mx, mn);
  EXPECT_EQ(mx, 544u);
}

}  // namespace
