// Mmad's flags as CANN documents them. kDirectionAlign ("K-direction
// alignment", float only): with
// true, each 16-row block of A in L0A holds 2*ceil(k/16) fractals of 16 x 8
// (the layout the transposing loads leave) and the padding fractal is not
// read; with false, ceil(k/8) fractals. 16-bit types ignore the flag. The
// expected C comes from a double-precision triple loop over the logical A and
// B; the padding fractals hold NaN, so reading one shows in the result.
// The initial C: cmatrixInitVal = false with cmatrixSource reads the
// BiasTable (C2) at address 0 when no bias operand is given; a bias operand in
// C2 is used whatever cmatrixSource says; cmatrixInitVal = true zeroes C;
// the deprecated isBias without a bias operand accumulates (C += A * B).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A (m x k, logical) at Zz with `lda` fractals per 16-row block; B (k x n) at
// Zn with n1 fractals per k row of fractals; C0 = 32 / sizeof(T).
template <typename T>
void run_case(int64_t m, int64_t n, int64_t k, bool align, int64_t lda) {
  const int64_t c0 = 32 / static_cast<int64_t>(sizeof(T));
  const int64_t m1 = ceil_div(m, 16), n1 = ceil_div(n, 16), kb = lda;  // B rows of fractals: as many as A's
  auto av = [](int64_t i, int64_t kk) { return static_cast<float>((i * 7 + kk * 3) % 13) - 6.0f; };
  auto bv = [](int64_t kk, int64_t j) { return static_cast<float>((kk * 5 + j * 11) % 17) * 0.25f - 2.0f; };
  std::vector<float> out(size_t(m1 * n1 * 256));
  kt::run_or_throw("mmad_kdir", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, static_cast<uint32_t>(m1 * lda * 512));
    pipe.InitBuffer(b2, static_cast<uint32_t>(kb * n1 * 512));
    pipe.InitBuffer(c1, static_cast<uint32_t>(m1 * n1 * 1024));
    auto la = a2.Get<T>();
    auto lb = b2.Get<T>();
    auto lc = c1.Get<float>();
    const T nan = T(std::numeric_limits<float>::quiet_NaN());
    for (uint32_t i = 0; i < la.GetSize(); ++i) la.data()[i] = nan;
    for (uint32_t i = 0; i < lb.GetSize(); ++i) lb.data()[i] = nan;
    for (int64_t i = 0; i < 16 * m1; ++i) {
      // The valid k of every row block (padding rows 0, so C stays finite);
      // k columns of the last used fractal beyond k are 0 as the loads leave them.
      for (int64_t kk = 0; kk < ceil_div(k, c0) * c0; ++kk) {
        const float v = (i < m && kk < k) ? av(i, kk) : 0.0f;
        la.data()[((i / 16) * lda + kk / c0) * 16 * c0 + (i % 16) * c0 + kk % c0] = T(v);
      }
    }
    for (int64_t kk = 0; kk < ceil_div(k, c0) * c0; ++kk) {
      for (int64_t j = 0; j < 16 * n1; ++j) {
        const float v = (kk < k && j < n) ? bv(kk, j) : 0.0f;
        lb.data()[((kk / c0) * n1 + j / 16) * 16 * c0 + (j % 16) * c0 + kk % c0] = T(v);
      }
    }
    AscendC::MmadParams p;
    p.m = static_cast<uint16_t>(m);
    p.n = static_cast<uint16_t>(n);
    p.k = static_cast<uint16_t>(k);
    p.kDirectionAlign = align;
    AscendC::Mmad(lc, la, lb, p);
    std::memcpy(out.data(), lc.data(), out.size() * sizeof(float));
  });
  const int64_t mpad = 16 * m1;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t kk = 0; kk < k; ++kk) want += double(float(T(av(i, kk)))) * double(float(T(bv(kk, j))));
      const float got = out[size_t((j / 16) * mpad * 16 + i * 16 + j % 16)];
      ASSERT_NEAR(got, want, 1e-3 * (1 + std::fabs(want)))
          << sizeof(T) << "-byte m=" << m << " n=" << n << " k=" << k << " align=" << align << " at " << i << ","
          << j;
    }
  }
}

TEST(MmadKDirectionAlign, FloatSkipsThePaddingFractal) {
  // k = 36: 5 fractals of 8, aligned to 48 -> 6 per row block (one skipped).
  run_case<float>(40, 24, 36, true, 6);
  run_case<float>(16, 16, 8, true, 2);   // k = 8: one valid fractal of two
  run_case<float>(33, 70, 70, true, 10); // load_data_l12l0 scenario 14's k = 70
  run_case<float>(20, 16, 44, true, 6);  // k = 44: all 6 fractals valid
}

TEST(MmadKDirectionAlign, FalseReadsCeilKOver8) {
  run_case<float>(40, 24, 36, false, 5);
  run_case<float>(33, 70, 70, false, 9);
}

TEST(MmadKDirectionAlign, SixteenBitTypesIgnoreIt) {
  run_case<half>(40, 24, 36, true, 3);  // C0 = 16: ceil(36/16) = 3 either way
  run_case<half>(17, 32, 20, false, 2);
}

TEST(MmadKDirectionAlign, TooSmallFmIsAnError) {
  // m = 32, k = 36 aligned: the second row block starts at fractal 6 and needs
  // 5 more (11 in all). A tensor of 8 fractals (less than the 32 x 36 floats
  // themselves) is refused; one that holds them may reach into the rest of
  // the core's L0A, as on the NPU (MmadOperands below).
  auto st = kt::run("mmad_kdir_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, 8 * 512);
    pipe.InitBuffer(b2, 6 * 512);
    pipe.InitBuffer(c1, 2 * 1024);
    AscendC::MmadParams p;
    p.m = 32;
    p.n = 16;
    p.k = 36;
    p.kDirectionAlign = true;
    AscendC::Mmad(c1.Get<float>(), a2.Get<float>(), b2.Get<float>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  EXPECT_NE(st.message().find("kDirectionAlign"), std::string::npos) << st.message();
}

// The load_data_l12l0 sample's scenario 13: a k = 70 float B in an L0B
// tensor of 70 x 64 floats (35 fractals) while the cube unit reads 9 x 4: the
// last fractal row reaches past the tensor into the core's L0B, as on the NPU.
TEST(MmadOperands, ElementSizedTensorsMayReachIntoTheCoreMemory) {
  auto st = kt::run("mmad_tight", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, 16 * 72 * 4);
    pipe.InitBuffer(b2, 70 * 64 * 4);
    pipe.InitBuffer(c1, 16 * 64 * 4);
    AscendC::MmadParams p;
    p.m = 16;
    p.n = 64;
    p.k = 70;
    AscendC::Mmad(c1.Get<float>(), a2.Get<float>(), b2.Get<float>(), p);
  });
  EXPECT_TRUE(st.ok()) << st.message();
  st = kt::run("mmad_short", 1, [] {  // fewer bytes than the 70 x 64 floats: an error
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, 16 * 72 * 4);
    pipe.InitBuffer(b2, 69 * 64 * 4);
    pipe.InitBuffer(c1, 16 * 64 * 4);
    AscendC::MmadParams p;
    p.m = 16;
    p.n = 64;
    p.k = 70;
    AscendC::Mmad(c1.Get<float>(), a2.Get<float>(), b2.Get<float>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  EXPECT_NE(st.message().find("filter"), std::string::npos) << st.message();
}

// The mmad sample's scenario 1: int8, n = 40 passed as 64 (the transposing
// int8 loads pad n to 32) into a C tensor sized for 48 columns: the last
// fractal column is written into the rest of the core's L0C, as on the NPU.
// Two columns short is still an error.
TEST(MmadOperands, CMayReachOneFractalColumnIntoTheCoreL0C) {
  auto run = [](uint32_t c_cols) {
    return kt::run("mmad_c_tight", 1, [c_cols] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::A2> a2;
      AscendC::TBuf<TPosition::B2> b2;
      AscendC::TBuf<TPosition::CO1> c1;
      pipe.InitBuffer(a2, 32 * 96);
      pipe.InitBuffer(b2, 96 * 64);
      pipe.InitBuffer(c1, 32 * c_cols * 4);
      AscendC::MmadParams p;
      p.m = 30;
      p.n = 64;
      p.k = 70;
      AscendC::Mmad(c1.Get<int32_t>(), a2.Get<int8_t>(), b2.Get<int8_t>(), p);
    });
  };
  auto st = run(48);
  EXPECT_TRUE(st.ok()) << st.message();
  st = run(32);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  EXPECT_NE(st.message().find("dst"), std::string::npos) << st.message();
}

enum class Init { kZeroDespiteSource, kBiasTableAt0, kBiasOperandInC2, kIsBiasAccumulates };

void run_init(Init mode) {
  const int64_t m = 16, n = 32, k = 16;  // half: one k fractal, two n fractals
  auto av = [](int64_t i, int64_t kk) { return static_cast<float>((i + 2 * kk) % 5) - 2.0f; };
  auto bv = [](int64_t kk, int64_t j) { return static_cast<float>((3 * kk + j) % 7) - 3.0f; };
  auto biasv = [](int64_t j) { return 100.0f + static_cast<float>(j); };
  std::vector<float> out(size_t(m * n));
  kt::run_or_throw("mmad_init", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, 512);
    pipe.InitBuffer(b2, 1024);
    pipe.InitBuffer(c1, 2048);
    auto la = a2.Get<half>();
    auto lb = b2.Get<half>();
    auto lc = c1.Get<float>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk) la.data()[i * 16 + kk] = half(av(i, kk));
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j) lb.data()[(j / 16) * 256 + (j % 16) * 16 + kk] = half(bv(kk, j));
    for (int64_t e = 0; e < m * n; ++e) lc.data()[e] = 1e6f;  // stale L0C: must not leak into C
    AscendC::LocalTensor<float> bt(TPosition::C2, 0, static_cast<uint32_t>(n));
    for (int64_t j = 0; j < n; ++j) bt.data()[j] = biasv(j);
    AscendC::MmadParams p;
    p.m = m;
    p.n = n;
    p.k = k;
    if (mode == Init::kZeroDespiteSource) {
      p.cmatrixInitVal = true;
      p.cmatrixSource = true;
      AscendC::Mmad(lc, la, lb, p);
    } else if (mode == Init::kBiasTableAt0) {
      p.cmatrixInitVal = false;
      p.cmatrixSource = true;
      AscendC::Mmad(lc, la, lb, p);
    } else if (mode == Init::kIsBiasAccumulates) {  // deprecated isBias: C += A * B
      p.isBias = true;
      AscendC::Mmad(lc, la, lb, p);
    } else {  // the mmad sample's scenario 3: bias operand, cmatrixSource left false
      p.cmatrixInitVal = false;
      AscendC::Mmad(lc, la, lb, bt, p);
    }
    std::memcpy(out.data(), lc.data(), out.size() * 4);
  });
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = mode == Init::kZeroDespiteSource ? 0.0 : mode == Init::kIsBiasAccumulates ? 1e6 : biasv(j);
      for (int64_t kk = 0; kk < k; ++kk) want += double(av(i, kk)) * double(bv(kk, j));
      ASSERT_EQ(out[size_t((j / 16) * 256 + i * 16 + j % 16)], float(want))
          << "mode " << int(mode) << " at " << i << "," << j;
    }
  }
}

TEST(MmadInitialC, InitValTrueZeroesDespiteCmatrixSource) { run_init(Init::kZeroDespiteSource); }
TEST(MmadInitialC, CmatrixSourceReadsTheBiasTableAtAddress0) { run_init(Init::kBiasTableAt0); }
TEST(MmadInitialC, BiasOperandInC2IsUsedWithoutCmatrixSource) { run_init(Init::kBiasOperandInC2); }
TEST(MmadInitialC, IsBiasWithoutOperandAccumulates) { run_init(Init::kIsBiasAccumulates); }

// GEMV (CANN: "when M = 1 ... Mmad reads L0A in ND format, not as ZZ/NZ"):
// A is the 1 x k vector stored contiguously; disableGemv = true (Ascend 950)
// reads the Zz fractal layout again. C keeps its 16-row fractals (row 0
// valid). Cases: the mmad_gemv sample's half 1 x 256 x 32, int8 and float
// with k not a multiple of C0.
template <typename T, typename C>
void run_gemv(int64_t n, int64_t k, bool disable) {
  const int64_t c0 = 32 / static_cast<int64_t>(sizeof(T));
  const int64_t n1 = ceil_div(n, 16), k1 = ceil_div(k, c0);
  auto av = [](int64_t kk) { return static_cast<float>((kk * 7) % 11) - 5.0f; };
  auto bv = [](int64_t kk, int64_t j) { return static_cast<float>((kk * 5 + j * 3) % 9) - 4.0f; };
  std::vector<C> out(size_t(n1 * 256));
  kt::run_or_throw("mmad_gemv", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, static_cast<uint32_t>(k1 * 512));
    pipe.InitBuffer(b2, static_cast<uint32_t>(k1 * n1 * 512));
    pipe.InitBuffer(c1, static_cast<uint32_t>(n1 * 1024));
    auto la = a2.Get<T>();
    auto lb = b2.Get<T>();
    auto lc = c1.Get<C>();
    // Fill A with a value that would show if the other layout were read.
    for (uint32_t i = 0; i < la.GetSize(); ++i) la.data()[i] = T(3.0f);
    for (int64_t kk = 0; kk < k; ++kk) {
      const size_t at = disable ? size_t((kk / c0) * 16 * c0 + kk % c0) : size_t(kk);  // Zz row 0 / ND
      la.data()[at] = T(av(kk));
    }
    for (uint32_t i = 0; i < lb.GetSize(); ++i) lb.data()[i] = T(0.0f);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j) lb.data()[((kk / c0) * n1 + j / 16) * 16 * c0 + (j % 16) * c0 + kk % c0] = T(bv(kk, j));
    AscendC::MmadParams p;
    p.m = 1;
    p.n = static_cast<uint16_t>(n);
    p.k = static_cast<uint16_t>(k);
    p.disableGemv = disable;
    AscendC::Mmad(lc, la, lb, p);
    std::memcpy(out.data(), lc.data(), out.size() * sizeof(C));
  });
  for (int64_t j = 0; j < n; ++j) {
    double want = 0;
    for (int64_t kk = 0; kk < k; ++kk) want += double(av(kk)) * double(bv(kk, j));
    ASSERT_EQ(double(out[size_t((j / 16) * 256 + j % 16)]), want) << sizeof(T) << "-byte n=" << n << " k=" << k
                                                                   << " disable=" << disable << " at " << j;
  }
}

TEST(MmadGemv, MEqualsOneReadsAnNdVector) {
  run_gemv<half, float>(32, 256, false);  // the mmad_gemv sample
  run_gemv<int8_t, int32_t>(40, 70, false);
  run_gemv<float, float>(24, 20, false);
}

TEST(MmadGemv, DisableGemvReadsZzFractals) {
  run_gemv<half, float>(32, 256, true);
  run_gemv<int8_t, int32_t>(40, 70, true);
}

}  // namespace
