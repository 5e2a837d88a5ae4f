// LoadData with LoadData2DParamsV2 (the Ascend 950's L1 -> L0A / L0B load)
// and Mmad reading A as NZ (dav-3510), checked end to end the way CANN's
// load_data_2dv2_l12l0 sample uses them: A (m x k) or A^T (k x m) and B
// (k x n) or B^T (n x k) stored NZ in L1, loaded with and without ifTranspose,
// multiplied, and compared with a triple loop over the logical matrices
// (small integers: exact in every type). Also the NOP, size and parameter
// errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Stores a rows x cols matrix (value f(r, c), 0 outside rows_v x cols_v) NZ
// in `dst`: fractals of 16 x c0, column block c's row blocks one after the
// other (rows / 16 fractals apart).
template <typename T, typename F>
void store_nz(T* dst, int64_t rows, int64_t cols, int64_t rows_v, int64_t cols_v, F f) {
  const int64_t c0 = 32 / static_cast<int64_t>(sizeof(T));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      dst[((c / c0) * (rows / 16) + r / 16) * 16 * c0 + (r % 16) * c0 + c % c0] =
          T(r < rows_v && c < cols_v ? f(r, c) : 0.0f);
}

template <typename T, typename C>
void run_case(int64_t m, int64_t n, int64_t k, bool ta, bool tb) {
  const int64_t es = sizeof(T), c0 = 32 / es;
  const int64_t fm = es == 1 ? 2 : 1;  // b8 transpose: mStep even
  const int64_t fk = es == 4 ? 2 : 1;  // b32 transpose: kStep even
  auto av = [](int64_t i, int64_t kk) { return float((i * 3 + kk * 5) % 7) - 3.0f; };
  auto bv = [](int64_t kk, int64_t j) { return float((kk * 2 + j * 7) % 5) - 2.0f; };
  // L1 layouts and the load parameters (as the sample computes them).
  AscendC::LoadData2DParamsV2 pa, pb;
  int64_t a_rows, a_cols, b_rows, b_cols, mm, nn;
  if (!ta) {  // A: m x k
    a_rows = cdiv(m, 16) * 16, a_cols = cdiv(k, c0) * c0;
    pa = AscendC::LoadData2DParamsV2(0, 0, uint16_t(a_rows / 16), uint16_t(a_cols / c0), int32_t(a_rows / 16),
                                     uint16_t(a_rows / 16), false, 0);
    mm = m;
  } else {  // A^T: k x m
    a_rows = cdiv(k, 16 * fm) * 16 * fm, a_cols = cdiv(m, c0 * fk) * c0 * fk;
    pa = AscendC::LoadData2DParamsV2(0, 0, uint16_t(a_rows / 16), uint16_t(a_cols / c0), int32_t(a_rows / 16),
                                     uint16_t(a_cols / 16), true, 0);
    mm = a_cols;  // the transposed A has a_cols rows (the sample's m = CeilAlign(m, 32) for int8)
  }
  if (tb) {  // B^T: n x k
    b_rows = cdiv(n, 16) * 16, b_cols = cdiv(k, c0) * c0;
    pb = AscendC::LoadData2DParamsV2(0, 0, uint16_t(b_rows / 16), uint16_t(b_cols / c0), int32_t(b_rows / 16),
                                     uint16_t(b_rows / 16), false, 0);
    nn = n;
  } else {  // B: k x n, transposed into L0B's Zn
    b_rows = cdiv(k, 16 * fm) * 16 * fm, b_cols = cdiv(n, c0 * fk) * c0 * fk;
    pb = AscendC::LoadData2DParamsV2(0, 0, uint16_t(b_rows / 16), uint16_t(b_cols / c0), int32_t(b_rows / 16),
                                     uint16_t(b_cols / 16), true, 0);
    nn = b_cols;
  }
  const int64_t mpad = cdiv(mm, 16) * 16, npad = cdiv(nn, 16) * 16;
  std::vector<C> out(size_t(mpad * npad));
  kt::run_or_throw("load_data_v2", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::B1> b1;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    const uint32_t abytes = uint32_t(a_rows * a_cols * es), bbytes = uint32_t(b_rows * b_cols * es);
    pipe.InitBuffer(a1, abytes);
    pipe.InitBuffer(b1, bbytes);
    pipe.InitBuffer(a2, abytes);
    pipe.InitBuffer(b2, bbytes);
    pipe.InitBuffer(c1, uint32_t(mpad * npad * 4));
    auto la1 = a1.Get<T>(), lb1 = b1.Get<T>(), la2 = a2.Get<T>(), lb2 = b2.Get<T>();
    auto lc = c1.Get<C>();
    if (!ta) {
      store_nz(la1.data(), a_rows, a_cols, m, k, av);
    } else {
      store_nz(la1.data(), a_rows, a_cols, k, m, [&](int64_t r, int64_t c) { return av(c, r); });
    }
    if (tb) {
      store_nz(lb1.data(), b_rows, b_cols, n, k, [&](int64_t r, int64_t c) { return bv(c, r); });
    } else {
      store_nz(lb1.data(), b_rows, b_cols, k, n, bv);
    }
    AscendC::LoadData(la2, la1, pa);
    AscendC::LoadData(lb2, lb1, pb);
    AscendC::MmadParams p;
    p.m = uint16_t(mm);
    p.n = uint16_t(nn);
    p.k = uint16_t(k);
    // What Mmad does when compiled for dav-3510 (cube::kL0ANz): A read as NZ.
    namespace cb = ::asc::kernel::cube;
    cb::mmad(lc.raw(), uint64_t{lc.GetSize()} * sizeof(C), cb::cube_dtype<C>(), la2.raw(), abytes, cb::cube_dtype<T>(),
             lb2.raw(), bbytes, cb::cube_dtype<T>(), nullptr, 0, p, true);
    std::memcpy(out.data(), lc.data(), out.size() * sizeof(C));
  });
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t kk = 0; kk < k; ++kk) want += double(av(i, kk)) * double(bv(kk, j));
      ASSERT_EQ(double(out[size_t((j / 16) * mpad * 16 + i * 16 + j % 16)]), want)
          << es << "-byte ta=" << ta << " tb=" << tb << " m=" << m << " n=" << n << " k=" << k << " at " << i << ","
          << j;
    }
}

template <typename T, typename C>
void all_cases() {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      run_case<T, C>(40, 24, 70, ta, tb);  // the sample's shape
      run_case<T, C>(16, 48, 32, ta, tb);
    }
}

TEST(LoadData2DV2, HalfEveryTransposeCombination) { all_cases<half, float>(); }
TEST(LoadData2DV2, Int8EveryTransposeCombination) { all_cases<int8_t, int32_t>(); }
TEST(LoadData2DV2, FloatEveryTransposeCombination) { all_cases<float, float>(); }

TEST(LoadData2DV2, StartPositionsAndStridesPickTheFractals) {
  // Half, no transpose: mStart 1, kStart 2, mStep 2, kStep 2 of a source with
  // srcStride 4 fractals per column block; dstStride 3 in the destination.
  std::vector<uint16_t> got(6 * 256, 0xFFFF);
  kt::run_or_throw("load_data_v2_pos", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, 16 * 512);
    pipe.InitBuffer(a2, 6 * 512);
    auto s = a1.Get<uint16_t>();
    auto d = a2.Get<uint16_t>();
    for (uint32_t i = 0; i < 16 * 256; ++i) s.data()[i] = uint16_t(i / 256);  // each fractal holds its index
    for (uint32_t i = 0; i < 6 * 256; ++i) d.data()[i] = 0xFFFF;
    AscendC::LoadData(d, s, AscendC::LoadData2DParamsV2(1, 2, 2, 2, 4, 3, false, 0));
    std::memcpy(got.data(), d.data(), got.size() * 2);
  });
  // Column 0: source fractals 9, 10 -> dst 0, 1; column 1: 13, 14 -> dst 3, 4.
  const int want[6] = {9, 10, 0xFFFF, 13, 14, 0xFFFF};
  for (int f = 0; f < 6; ++f)
    for (int e = 0; e < 256; ++e) ASSERT_EQ(got[size_t(f * 256 + e)], want[f]) << f << "," << e;
}

TEST(LoadData2DV2, ErrorsAndNop) {
  auto run = [](AscendC::LoadData2DParamsV2 p, uint32_t src_frac, bool int8) {
    return kt::run("load_data_v2_err", 1, [=] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::B1> b1;
      AscendC::TBuf<TPosition::B2> b2;
      pipe.InitBuffer(b1, src_frac * 512);
      pipe.InitBuffer(b2, 4 * 512);
      if (int8) {
        AscendC::LoadData(b2.Get<int8_t>(), b1.Get<int8_t>(), p);
      } else {
        AscendC::LoadData(b2.Get<half>(), b1.Get<half>(), p);
      }
    });
  };
  EXPECT_TRUE(run(AscendC::LoadData2DParamsV2(0, 0, 0, 3, 1, 1, false, 0), 1, false).ok());  // mStep 0: NOP
  auto st = run(AscendC::LoadData2DParamsV2(0, 0, 2, 2, 2, 2, false, 0), 3, false);        // needs 4 fractals
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  EXPECT_NE(st.message().find("source"), std::string::npos) << st.message();
  st = run(AscendC::LoadData2DParamsV2(0, 0, 1, 1, 1, 1, true, 0), 4, true);  // b8 transpose, odd mStep
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam) << st.message();
  EXPECT_NE(st.message().find("even mStep"), std::string::npos) << st.message();
  // The destination may reach past its tensor into the rest of the core's
  // L0B (as on the NPU), not past the L0B itself.
  EXPECT_TRUE(run(AscendC::LoadData2DParamsV2(0, 0, 1, 4, 1, 8, false, 0), 4, false).ok());
  st = run(AscendC::LoadData2DParamsV2(0, 0, 1, 4, 1, 40000, false, 0), 4, false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  EXPECT_NE(st.message().find("destination"), std::string::npos) << st.message();
}

// LoadDataWithStride (the load_data_with_stride sample's 2D use of img2col:
// l1H 1, filter 1 x 1, stride 1): X(i, j) is position i, channel j of the
// [C1][1][W][C0] source. Into L0A: X written NZ (column block j / C0 at
// j / C0 * dstStride fractals), or X^T with enTranspose; into L0B always the
// Zn of X (the NZ of X^T), whatever enTranspose says.
template <typename T>
void stride_case(bool to_b2, bool transpose, uint16_t W, uint16_t K, uint16_t ds) {
  const int64_t c0 = 32 / int64_t(sizeof(T));
  const size_t total = 64 * 1024 / sizeof(T);
  std::vector<T> got(total);
  std::vector<T> src(size_t(W) * K);
  for (size_t i = 0; i < src.size(); ++i) src[i] = T(float(int(i % 119) - 59));
  kt::run_or_throw("load_data_stride", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    pipe.InitBuffer(a1, uint32_t(src.size() * sizeof(T)));
    pipe.InitBuffer(a2, uint32_t(total * sizeof(T)));
    pipe.InitBuffer(b2, uint32_t(total * sizeof(T)));
    auto l1 = a1.Get<T>();
    std::memcpy(l1.data(), src.data(), src.size() * sizeof(T));
    auto dst = to_b2 ? b2.Get<T>() : a2.Get<T>();
    for (size_t i = 0; i < total; ++i) dst.data()[i] = T(99.0f);
    AscendC::LoadData3DParamsV2<T> p;
    p.l1H = 1;
    p.l1W = W;
    p.channelSize = K;
    p.kExtension = K;
    p.mExtension = W;
    p.enTranspose = transpose;
    AscendC::LoadDataRepeatParamWithStride rp;
    rp.dstStride = ds;
    AscendC::SetLoadDataRepeatWithStride(rp);
    AscendC::LoadDataWithStride(dst, l1, p);
    std::memcpy(got.data(), dst.data(), total * sizeof(T));
  });
  std::vector<T> want(total, T(99.0f));
  for (int64_t i = 0; i < W; ++i)
    for (int64_t j = 0; j < K; ++j) {
      const T x = src[size_t(((j / c0) * W + i) * c0 + j % c0)];
      const bool tr = to_b2 || transpose;
      const int64_t r = tr ? j : i, c = tr ? i : j;  // row, column of the written matrix
      want[size_t(((c / c0) * ds + r / 16) * 16 * c0 + (r % 16) * c0 + c % c0)] = x;
    }
  for (size_t i = 0; i < total; ++i)
    ASSERT_EQ(float(got[i]), float(want[i])) << sizeof(T) << "-byte b2=" << to_b2 << " tr=" << transpose << " @" << i;
}

TEST(LoadDataWithStride, NzIntoL0AAndZnIntoL0B) {
  stride_case<half>(false, false, 48, 32, 3);   // NZ of X, dstStride = W / 16
  stride_case<half>(false, false, 32, 48, 5);   // room between column blocks
  stride_case<half>(false, true, 32, 48, 3);    // X^T: 48 rows = 3 fractals per column block
  stride_case<half>(true, false, 32, 48, 3);    // L0B: Zn of X
  stride_case<float>(false, false, 32, 16, 2);
  stride_case<float>(true, true, 16, 32, 2);
  stride_case<int8_t>(true, true, 64, 64, 4);   // the int8 B path (mExtension a multiple of 32)
  stride_case<float>(true, false, 16, 72, 5);   // 72 channels -> 80 rows of the Zn (padding not written)
  stride_case<float>(false, true, 16, 40, 3);
}

TEST(LoadDataWithStride, Errors) {
  auto st = kt::run("load_data_stride_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, 32 * 32 * 2);
    pipe.InitBuffer(a2, 4 * 512);
    AscendC::LoadData3DParamsV2<half> p;
    p.l1H = 1;
    p.l1W = 32;
    p.channelSize = 32;
    p.kExtension = 32;
    p.mExtension = 32;
    AscendC::SetLoadDataRepeatWithStride(AscendC::LoadDataRepeatParamWithStride(0, 1, 0, 1));  // < 2 row blocks
    AscendC::LoadDataWithStride(a2.Get<half>(), a1.Get<half>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam) << st.message();
  EXPECT_NE(st.message().find("dstStride 1"), std::string::npos) << st.message();
}

// FixpipeParamsArch3510 goes through the FixpipeParamsV220 data path: the
// same bytes for ND (with Nz2NdParams) and NZ, ReLU from preReluMode; the
// modes the CPU device does not model are refused.
TEST(FixpipeArch3510, SameAsV220) {
  const uint16_t m = 32, n = 48;
  std::vector<float> l0c(size_t(3) * m * 16);
  for (size_t i = 0; i < l0c.size(); ++i) l0c[i] = float(int(i % 23) - 11);
  std::vector<float> a(m * n, -7.0f), b(m * n, -7.0f), c(4096, -7.0f), d(4096, -7.0f);
  kt::run_or_throw("fixpipe3510", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(c1, uint32_t(l0c.size() * 4));
    auto lc = c1.Get<float>();
    std::memcpy(lc.data(), l0c.data(), l0c.size() * 4);
    AscendC::GlobalTensor<float> ga, gb, gc, gd;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    gd.SetGlobalBuffer(d.data(), d.size());
    AscendC::FixpipeParamsArch3510<AscendC::CO2Layout::ROW_MAJOR> p(n, m, m, n);
    p.preReluMode = AscendC::ReluMode::NORMAL_RELU;
    AscendC::Fixpipe(ga, lc, p);
    AscendC::Fixpipe(gb, lc, AscendC::FixpipeParamsV220(n, m, m, n, true));
    AscendC::FixpipeParamsArch3510<AscendC::CO2Layout::NZ> q(n, m, m, 2 * m);
    AscendC::Fixpipe<float, float, AscendC::CFG_NZ>(gc, lc, q);
    AscendC::Fixpipe<float, float, AscendC::CFG_NZ>(gd, lc, AscendC::FixpipeParamsV220(n, m, m, 2 * m, false));
  });
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i], b[i]) << i;
    ASSERT_GE(a[i], 0.0f) << i;  // ReLU
  }
  for (size_t i = 0; i < c.size(); ++i) ASSERT_EQ(c[i], d[i]) << i;
  auto st = kt::run("fixpipe3510_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(c1, 16 * 16 * 4);
    std::vector<float> out(256);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(out.data(), out.size());
    AscendC::FixpipeParamsArch3510<AscendC::CO2Layout::ROW_MAJOR> p(16, 16, 16, 16);
    p.preReluMode = AscendC::ReluMode::VECTOR_RELU;
    AscendC::Fixpipe(g, c1.Get<float>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kFeatureUnsupported) << st.message();
}

}  // namespace
