// LoadData 3D (img2col) against a convolution-index reference (Zz and Zn
// destinations, padding, strides, dilation, k/m start points), a whole
// convolution img2col -> Mmad -> Fixpipe against a direct double-precision
// convolution, Fixpipe with NZ output, DataCopy L0C -> GM/UB
// (DataCopyCO12DstParams), InitConstValue, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;
namespace cb = asc::kernel::cube;

template <typename T>
std::vector<T> random_vals(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_integral_v<T>) {
      x = static_cast<T>(std::uniform_int_distribution<int>(-100, 100)(rng));
    } else {
      x = T(std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng));
    }
  }
  return v;
}

template <typename T>
bool same(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

struct ConvGeom {
  int c, h, w;          // channels (multiple of C0), input height / width
  int pad[4];           // left, right, top, bottom
  int sw, sh, fw, fh;   // strides, filter
  int dw, dh;           // dilation
};

// The img2col matrix by the convolution definition: row m = output position,
// column k = ((c1 * FH + kh) * FW + kw) * C0 + c0; input NC1HWC0 (one batch).
template <typename T>
T img2col_ref(const std::vector<T>& fm, const ConvGeom& g, int64_t m, int64_t k, T pad) {
  const int c0 = 32 / static_cast<int>(sizeof(T));
  const int wo = (g.w + g.pad[0] + g.pad[1] - g.dw * (g.fw - 1) - 1) / g.sw + 1;
  const int64_t oh = m / wo, ow = m % wo;
  const int64_t cc = k % c0, pos = k / c0;
  const int64_t kw = pos % g.fw, kh = (pos / g.fw) % g.fh, c1 = pos / (g.fw * g.fh);
  const int64_t y = oh * g.sh - g.pad[2] + kh * g.dh, x = ow * g.sw - g.pad[0] + kw * g.dw;
  if (y < 0 || y >= g.h || x < 0 || x >= g.w) return pad;
  return fm[((c1 * g.h + y) * g.w + x) * c0 + cc];
}

template <typename T>
void img2col_case(const ConvGeom& g, int m_start, int m_ext, int k_start, int k_ext, bool to_b2) {
  const int c0 = 32 / static_cast<int>(sizeof(T));
  const auto fm = random_vals<T>(size_t(g.c) * g.h * g.w, static_cast<uint32_t>(g.c * 31 + m_start + k_start));
  const T pad = std::is_integral_v<T> ? T(7) : T(-0.5f);
  std::vector<T> got(size_t(m_ext) * k_ext);
  kt::run_or_throw("img2col", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> l1;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    pipe.InitBuffer(l1, static_cast<uint32_t>(fm.size() * sizeof(T) + 32));
    pipe.InitBuffer(a2, static_cast<uint32_t>(got.size() * sizeof(T)));
    pipe.InitBuffer(b2, static_cast<uint32_t>(got.size() * sizeof(T)));
    auto src = l1.Get<T>();
    std::memcpy(src.data(), fm.data(), fm.size() * sizeof(T));
    auto dst = to_b2 ? b2.Get<T>() : a2.Get<T>();
    const uint8_t pads[4] = {uint8_t(g.pad[0]), uint8_t(g.pad[1]), uint8_t(g.pad[2]), uint8_t(g.pad[3])};
    AscendC::SetFmatrix(uint16_t(g.h), uint16_t(g.w), pads, AscendC::FmatrixMode::FMATRIX_LEFT);
    AscendC::SetLoadDataPaddingValue(pad);
    AscendC::LoadData(dst, src,
                      AscendC::LoadData3DParamsV2<T>(pads, uint16_t(g.h), uint16_t(g.w), uint16_t(g.c),
                                                     uint16_t(k_ext), uint16_t(m_ext), uint16_t(k_start),
                                                     uint16_t(m_start), uint8_t(g.sw), uint8_t(g.sh), uint8_t(g.fw),
                                                     uint8_t(g.fh), uint8_t(g.dw), uint8_t(g.dh), false, false, pad));
    std::memcpy(got.data(), dst.data(), got.size() * sizeof(T));
  });
  const int k1 = k_ext / c0, m1 = m_ext / 16;
  int bad = 0;
  for (int mi = 0; mi < m_ext && bad < 5; ++mi) {
    for (int ki = 0; ki < k_ext && bad < 5; ++ki) {
      // Zz: 16 x C0 fractals row-major over (m, k); Zn: over (k, m) with one
      // row of C0 k-values per m.
      const int64_t off = to_b2 ? ((int64_t(ki / c0) * m1 + mi / 16) * 16 + mi % 16) * c0 + ki % c0
                                : ((int64_t(mi / 16) * k1 + ki / c0) * 16 + mi % 16) * c0 + ki % c0;
      const T want = img2col_ref(fm, g, m_start + mi, k_start + ki, pad);
      if (!same(got[off], want)) {
        ADD_FAILURE() << "img2col esize " << sizeof(T) << (to_b2 ? " Zn" : " Zz") << " m " << m_start + mi << " k "
                      << k_start + ki;
        ++bad;
      }
    }
  }
}

TEST(LoadData3D, Img2colLayouts) {
  const ConvGeom g1{16, 5, 6, {1, 0, 1, 2}, 1, 2, 3, 2, 1, 2};
  img2col_case<half>(g1, 0, 32, 0, 16 * 6, false);
  img2col_case<half>(g1, 16, 16, 32, 32, true);
  img2col_case<half>(g1, 3, 16, 5, 48, false);  // start points off the fractal grid
  const ConvGeom g2{16, 7, 4, {2, 2, 0, 1}, 2, 1, 2, 3, 2, 1};
  img2col_case<float>(g2, 0, 48, 0, 8 * 12, false);
  img2col_case<float>(g2, 5, 32, 8, 40, true);
  const ConvGeom g3{64, 4, 4, {1, 1, 1, 1}, 1, 1, 3, 3, 1, 1};
  img2col_case<int8_t>(g3, 0, 16, 0, 32 * 18, false);
  img2col_case<int8_t>(g3, 2, 32, 64, 96, true);
  const ConvGeom g4{32, 3, 3, {0, 0, 0, 0}, 1, 1, 1, 1, 1, 1};  // 1x1 filter: a reshaped copy
  img2col_case<half>(g4, 0, 16, 0, 32, false);
}

// A whole convolution: NC1HWC0 input (C = 16), weights as B (k x n) in Zn,
// output 42 positions x 20 channels, against a direct convolution in double.
TEST(LoadData3D, ConvolutionThroughMmad) {
  const ConvGeom g{16, 6, 7, {1, 1, 1, 1}, 1, 1, 3, 3, 1, 1};
  const int cout = 20, ho = 6, wo = 7, m = ho * wo, k = 16 * 9, n1 = 2, mpad = 48;
  const auto fm = random_vals<half>(size_t(16) * g.h * g.w, 5);
  const auto wt = random_vals<half>(size_t(cout) * 16 * 9, 6);  // [n][c][kh][kw]
  std::vector<float> out(size_t(m) * cout, -1.0f);
  kt::run_or_throw("conv", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> l1;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(l1, static_cast<uint32_t>(fm.size() * 2));
    pipe.InitBuffer(a2, mpad * k * 2);
    pipe.InitBuffer(b2, k * 16 * n1 * 2);
    pipe.InitBuffer(c1, mpad * 16 * n1 * 4);
    auto src = l1.Get<half>();
    std::memcpy(src.data(), fm.data(), fm.size() * 2);
    auto lb = b2.Get<half>();
    half* pb = lb.data();
    for (int kk = 0; kk < k; ++kk) {
      const int c = kk % 16, pos = kk / 16, kw = pos % 3, kh = pos / 3;
      for (int j = 0; j < 16 * n1; ++j) {
        pb[cb::zn_offset(kk, j, n1, 16)] = j < cout ? wt[((size_t(j) * 16 + c) * 3 + kh) * 3 + kw] : half(0.0f);
      }
    }
    const uint8_t pads[4] = {1, 1, 1, 1};
    auto la = a2.Get<half>();
    AscendC::LoadData(la, src,
                      AscendC::LoadData3DParamsV2<half>(pads, 6, 7, 16, uint16_t(k), uint16_t(mpad), 0, 0, 1, 1, 3, 3,
                                                        1, 1, false, false, half(0.0f)));
    auto lc = c1.Get<float>();
    AscendC::Mmad(lc, la, lb, AscendC::MmadParams(uint16_t(m), uint16_t(cout), uint16_t(k), 0, false, true));
    AscendC::GlobalTensor<float> gc;
    gc.SetGlobalBuffer(out.data(), out.size());
    AscendC::Fixpipe(gc, lc, AscendC::FixpipeParamsV220(uint16_t(cout), uint16_t(m), uint16_t(mpad), cout, false));
  });
  int bad = 0;
  for (int oh = 0; oh < ho; ++oh) {
    for (int ow = 0; ow < wo; ++ow) {
      for (int co = 0; co < cout && bad < 5; ++co) {
        double ref = 0, mag = 0;
        for (int c = 0; c < 16; ++c) {
          for (int kh = 0; kh < 3; ++kh) {
            for (int kw = 0; kw < 3; ++kw) {
              const int y = oh - 1 + kh, x = ow - 1 + kw;
              if (y < 0 || y >= 6 || x < 0 || x >= 7) continue;
              const double p = double(float(fm[(size_t(y) * 7 + x) * 16 + c])) *
                               double(float(wt[((size_t(co) * 16 + c) * 3 + kh) * 3 + kw]));
              ref += p;
              mag += std::fabs(p);
            }
          }
        }
        const double got = out[size_t(oh * wo + ow) * cout + co];
        if (!(std::fabs(got - ref) <= 1e-6 * mag + 1e-12)) {
          ADD_FAILURE() << "conv (" << oh << "," << ow << "," << co << ") = " << got << ", want " << ref;
          ++bad;
        }
      }
    }
  }
}

TEST(LoadData3D, Errors) {
  auto run = [](AscendC::LoadData3DParamsV2<half> p, uint32_t l1_bytes) {
    return kt::run("img2col_err", 1, [&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::A1> l1;
      AscendC::TBuf<TPosition::A2> a2;
      pipe.InitBuffer(l1, l1_bytes);
      pipe.InitBuffer(a2, 16 * 1024);
      AscendC::LoadData(a2.Get<half>(), l1.Get<half>(), p);
    });
  };
  const uint8_t pads[4] = {0, 0, 0, 0};
  AscendC::LoadData3DParamsV2<half> p(pads, 4, 4, 16, 16, 16, 0, 0, 1, 1, 1, 1, 1, 1, false, false, half(0.0f));
  EXPECT_TRUE(run(p, 512).ok());
  asc::Status st = run(p, 256);  // 16 x 4 x 4 halves = 512 bytes
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[LoadData]"), std::string::npos) << st.message();
  auto q = p;
  q.mExtension = 20;
  st = run(q, 512);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("mExtension (20)"), std::string::npos) << st.message();
  q = p;
  q.kStartPt = 8;  // 8 + 16 > 16 columns
  st = run(q, 512);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  q = p;
  q.filterW = 6;  // wider than the 4-column input
  st = run(q, 512);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  q = p;
  q.enTranspose = true;  // 16-bit transposing img2col is implemented (load3d_transpose_test.cc has
  st = run(q, 512);      // its values and the int8 / 32-bit refusals)
  EXPECT_TRUE(st.ok()) << st.message();
}

// ---------------------------------------------------------------- Fixpipe NZ, DataCopy CO1 -> GM

struct OutCase {
  int m, n, src_stride;
};

// L0C holds C (m x npad) NZ with srcStride rows per fractal column.
std::vector<float> random_l0c(const OutCase& c, uint32_t seed) {
  auto v = random_vals<float>(size_t(c.src_stride) * 16 * ((c.n + 15) / 16), seed);
  v[3] = -0.0f;
  v[17] = std::numeric_limits<float>::infinity();
  v[40] = std::numeric_limits<float>::quiet_NaN();
  return v;
}

// Runs `body` with L0C filled from `l0c`.
template <class F>
void with_l0c(const std::vector<float>& l0c, F body) {
  kt::run_or_throw("fixpipe_nz", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> c1;
    AscendC::TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(c1, static_cast<uint32_t>(l0c.size() * 4));
    pipe.InitBuffer(ub, 64 * 1024);
    auto lc = c1.Get<float>();
    std::memcpy(lc.data(), l0c.data(), l0c.size() * 4);
    body(lc, ub);
  });
}

template <typename T>
T convert(float v, bool relu) {
  if (relu && v < 0) v = 0;  // NaN passes
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return T(v);
  }
}

template <typename T>
void nz_case(const OutCase& c, uint32_t dst_stride, bool relu, bool split) {
  const auto l0c = random_l0c(c, static_cast<uint32_t>(c.m * 3 + dst_stride));
  const int cc = split ? 8 : 16, per_unit = 32 / static_cast<int>(sizeof(T));
  const size_t dst_elems = size_t(c.n / cc) * dst_stride * per_unit + 64;
  const T sentinel = T(123.0f);
  std::vector<T> want(dst_elems, sentinel);
  for (int i = 0; i < c.m; ++i) {
    for (int j = 0; j < c.n; ++j) {
      const float v = l0c[size_t(j / 16) * c.src_stride * 16 + size_t(i) * 16 + j % 16];
      want[size_t(j / cc) * dst_stride * per_unit + size_t(i) * cc + j % cc] = convert<T>(v, relu);
    }
  }
  AscendC::FixpipeParamsV220 p(uint16_t(c.n), uint16_t(c.m), uint16_t(c.src_stride), dst_stride, relu);
  p.quantPre = std::is_same_v<T, half> ? AscendC::QuantMode_t::F322F16 : AscendC::QuantMode_t::NoQuant;
  p.isChannelSplit = split;
  std::vector<T> gm(dst_elems, sentinel), ub_out(dst_elems, sentinel), dc(dst_elems, sentinel);
  with_l0c(l0c, [&](AscendC::LocalTensor<float>& lc, AscendC::TBuf<TPosition::VECCALC>& ub) {
    AscendC::GlobalTensor<T> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    AscendC::Fixpipe<T, float, AscendC::CFG_NZ>(g, lc, p);
    auto lu = ub.Get<T>();
    std::memcpy(lu.data(), ub_out.data(), dst_elems * sizeof(T));
    AscendC::Fixpipe<T, float, AscendC::CFG_NZ>(lu, lc, p);
    std::memcpy(ub_out.data(), lu.data(), dst_elems * sizeof(T));
    AscendC::GlobalTensor<T> g2;
    g2.SetGlobalBuffer(dc.data(), dc.size());
    AscendC::DataCopy(g2, lc,
                      AscendC::DataCopyCO12DstParams(uint16_t(c.n), uint16_t(c.m), dst_stride, uint16_t(c.src_stride),
                                                     p.quantPre, relu ? 1 : 0, split, false));
  });
  for (size_t i = 0; i < dst_elems; ++i) {
    ASSERT_TRUE(same(gm[i], want[i])) << "GM element " << i << " esize " << sizeof(T);
    ASSERT_TRUE(same(ub_out[i], want[i])) << "UB element " << i;
    ASSERT_TRUE(same(dc[i], want[i])) << "DataCopy element " << i;
  }
}

TEST(FixpipeNz, FloatAndHalf) {
  nz_case<float>({35, 48, 48}, 80, false, false);   // gaps between fractal columns
  nz_case<float>({16, 16, 16}, 32, true, false);
  nz_case<half>({33, 32, 48}, 40, true, false);
  nz_case<half>({7, 64, 16}, 7, false, false);      // rows packed exactly
  nz_case<float>({20, 24, 32}, 20, false, true);    // channel split: 8 columns per fractal
}

TEST(DataCopyCo1, NdMatchesFixpipe) {
  const OutCase c{29, 40, 32};
  const auto l0c = random_l0c(c, 9);
  std::vector<float> a(size_t(c.m) * 45, 5.0f), b = a;
  std::vector<half> h(size_t(c.m) * 40, half(5.0f)), hu = h;
  with_l0c(l0c, [&](AscendC::LocalTensor<float>& lc, AscendC::TBuf<TPosition::VECCALC>& ub) {
    AscendC::GlobalTensor<float> ga, gb;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    AscendC::Fixpipe(ga, lc, AscendC::FixpipeParamsV220(40, 29, 32, 45, true));
    AscendC::DataCopy(gb, lc, AscendC::DataCopyCO12DstParams(40, 29, 45, 32, AscendC::QuantMode_t::NoQuant, 1, false,
                                                             true));
    AscendC::GlobalTensor<half> gh;
    gh.SetGlobalBuffer(h.data(), h.size());
    AscendC::DataCopy(gh, lc, AscendC::DataCopyCO12DstParams(40, 29, 40, 32, AscendC::QuantMode_t::F322F16, 0, false,
                                                             true));
    auto lu = ub.Get<half>();
    AscendC::DataCopy(lu, lc, AscendC::DataCopyCO12DstParams(40, 29, 40, 32, AscendC::QuantMode_t::F322F16, 0, false,
                                                             true));
    std::memcpy(hu.data(), lu.data(), hu.size() * 2);
  });
  for (int i = 0; i < c.m; ++i) {
    for (int j = 0; j < 45; ++j) {
      const size_t o = size_t(i) * 45 + j;
      const float want = j < 40 ? convert<float>(l0c[size_t(j / 16) * 32 * 16 + i * 16 + j % 16], true) : 5.0f;
      ASSERT_TRUE(same(a[o], want)) << i << "," << j;
      ASSERT_TRUE(same(b[o], want)) << i << "," << j;
    }
    for (int j = 0; j < 40; ++j) {
      const half want = half(l0c[size_t(j / 16) * 32 * 16 + i * 16 + j % 16]);
      ASSERT_TRUE(same(h[size_t(i) * 40 + j], want)) << i << "," << j;
      ASSERT_TRUE(same(hu[size_t(i) * 40 + j], want)) << i << "," << j;
    }
  }
}

TEST(FixpipeNz, Errors) {
  const OutCase c{16, 32, 16};
  const auto l0c = random_l0c(c, 1);
  std::vector<float> out(4096);
  std::vector<int8_t> out8(4096);
  auto run = [&](auto fn) {
    return kt::run("fixpipe_nz_err", 1, [&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::CO1> c1;
      pipe.InitBuffer(c1, static_cast<uint32_t>(l0c.size() * 4));
      auto lc = c1.Get<float>();
      AscendC::GlobalTensor<float> g;
      g.SetGlobalBuffer(out.data(), out.size());
      AscendC::GlobalTensor<int8_t> g8;
      g8.SetGlobalBuffer(out8.data(), out8.size());
      fn(lc, g, g8);
    });
  };
  asc::Status st = run([](auto& lc, auto& g, auto&) {
    AscendC::Fixpipe<float, float, AscendC::CFG_NZ>(g, lc, AscendC::FixpipeParamsV220(24, 16, 16, 32, false));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Fixpipe]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("nSize (24)"), std::string::npos) << st.message();
  st = run([](auto& lc, auto& g, auto&) {  // 16 rows of 64 bytes need 32 units
    AscendC::Fixpipe<float, float, AscendC::CFG_NZ>(g, lc, AscendC::FixpipeParamsV220(32, 16, 16, 31, false));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("dstStride (31"), std::string::npos) << st.message();
  // int8 NZ merges channels into 16 x 32 fractal columns (fixpipe_regs_test
  // checks the values); nSize must still be a multiple of 16.
  st = run([](auto& lc, auto&, auto& g8) {
    AscendC::Fixpipe<int8_t, float, AscendC::CFG_NZ>(
        g8, lc, AscendC::FixpipeParamsV220(24, 16, 16, 32, false, AscendC::QuantMode_t::QF322B8_PRE, 0));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("multiple of 16"), std::string::npos) << st.message();
  st = run([](auto& lc, auto& g, auto&) {
    AscendC::DataCopy(g, lc, AscendC::DataCopyCO12DstParams(32, 16, 32, 16, AscendC::QuantMode_t::NoQuant, 2, false,
                                                            true));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("reluPre 2"), std::string::npos) << st.message();
}

// ---------------------------------------------------------------- InitConstValue

TEST(InitConstValue, BlocksAndGaps) {
  std::vector<half> got(256 * 12);
  kt::run_or_throw("init_const", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> l1;
    pipe.InitBuffer(l1, static_cast<uint32_t>(got.size() * 2));
    auto t = l1.Get<half>();
    for (uint32_t i = 0; i < t.GetSize(); ++i) t.SetValue(i, half(-1.0f));
    AscendC::InitConstValue(t, AscendC::InitConstValueParams<half>(3, 2, 1, half(2.5f)));
    std::memcpy(got.data(), t.data(), got.size() * 2);
  });
  for (size_t i = 0; i < got.size(); ++i) {
    const size_t block = i / 256;  // 512-byte blocks
    const bool filled = block < 8 && block % 3 != 2;
    ASSERT_EQ(static_cast<float>(got[i]), filled ? 2.5f : -1.0f) << "element " << i;
  }
  asc::Status st = kt::run("init_const_err", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> l1;
    pipe.InitBuffer(l1, 2048);
    AscendC::InitConstValue(l1.Get<float>(), AscendC::InitConstValueParams<float>(2, 2, 1, 1.0f));  // 5 blocks
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[InitConstValue]"), std::string::npos) << st.message();
}

}  // namespace
