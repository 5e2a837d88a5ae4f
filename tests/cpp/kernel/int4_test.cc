// AscendC::int4b_t (asc/kernel/int4.h, int4_ops.h): packed tensor views,
// element access in CANN's nibble order, Cast to/from half in the count and
// mask/repeat forms against a scalar reference, Mmad int4 x int4 -> int32
// against an integer matmul (ragged m/n/k, bias), the GM -> L1 -> L0 path of
// the official samples (Nd2Nz and LoadData in int8 units), and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::int4b_t;
using AscendC::TPosition;
using asc::kernel::RoundMode;
namespace cb = asc::kernel::cube;

// The samples' packing (gen_data.py): (x[2i+1] << 4) | (x[2i] & 0xF).
std::vector<uint8_t> pack(const std::vector<int>& v) {
  std::vector<uint8_t> out((v.size() + 1) / 2, 0);
  for (size_t i = 0; i < v.size(); ++i) out[i / 2] |= static_cast<uint8_t>((v[i] & 0xF) << (i % 2 ? 4 : 0));
  return out;
}
int unpack(const uint8_t* p, size_t i) {
  int nib = (p[i / 2] >> (i % 2 ? 4 : 0)) & 0xF;
  return nib >= 8 ? nib - 16 : nib;
}

TEST(Int4, TypeAndTraits) {
  static_assert(sizeof(int4b_t) == 1, "CANN: sizeof(int4b_t) = 1");
  static_assert(asc::kernel::bits_of<int4b_t> == 4 && asc::kernel::bits_of<half> == 16, "bits");
  static_assert(asc::kernel::bytes_for<int4b_t>(7) == 4 && asc::kernel::elems_in<int4b_t>(32) == 64, "sizes");
  static_assert(AscendC::IsSameType<int4b_t, AscendC::int4b_t>::value, "IsSameType");
  for (int v = -20; v <= 20; ++v) {
    const int want = ((v & 0xF) >= 8) ? (v & 0xF) - 16 : (v & 0xF);  // the low 4 bits, wrapped
    EXPECT_EQ(static_cast<int>(int4b_t(v)), want) << v;
  }
}

TEST(Int4, TensorViewsAndElements) {
  kt::run_or_throw("int4_views", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64);
    auto t4 = q.AllocTensor<int4b_t>();
    EXPECT_EQ(t4.GetSize(), 128u);  // 64 bytes hold 128 elements
    EXPECT_EQ(t4.GetLength(), 64u);
    auto t8 = t4.ReinterpretCast<int8_t>();
    EXPECT_EQ(t8.GetSize(), 64u);
    EXPECT_EQ(t8.ReinterpretCast<int4b_t>().GetSize(), 128u);
    EXPECT_EQ(t4.ReinterpretCast<half>().GetSize(), 32u);
    // operator[] moves by half a byte per element.
    EXPECT_EQ(t4[64].GetPhyAddr(), t4.GetPhyAddr() + 32);
    EXPECT_EQ(t4[64].GetSize(), 64u);
    std::vector<int> vals(128);
    for (int i = 0; i < 128; ++i) vals[i] = (i * 5) % 16 - 8;
    for (uint32_t i = 0; i < 128; ++i) t4.SetValue(i, vals[i]);
    const auto want = pack(vals);
    EXPECT_EQ(std::memcmp(t8.data(), want.data(), 64), 0);
    for (uint32_t i = 0; i < 128; ++i) EXPECT_EQ(static_cast<int>(t4.GetValue(i)), vals[i]) << i;
    EXPECT_EQ(static_cast<int>(t4[10].GetValue(3)), vals[13]);
    // GlobalTensor views of packed GM.
    std::vector<uint8_t> gm = want;
    AscendC::GlobalTensor<int4b_t> g;
    g.SetGlobalBuffer(reinterpret_cast<int4b_t*>(gm.data()), 128);
    EXPECT_EQ(static_cast<int>(g.GetValue(7)), vals[7]);
    EXPECT_EQ(static_cast<int>(g[100].GetValue(1)), vals[101]);
    EXPECT_EQ(g[100].GetSize(), 28u);
    g.SetValue(5, -3);
    EXPECT_EQ(unpack(gm.data(), 5), -3);
    EXPECT_EQ(unpack(gm.data(), 4), vals[4]);  // the neighbour nibble is kept
    // LocalMemAllocator counts int4b_t elements too.
    AscendC::LocalMemAllocator<AscendC::Hardware::L1> l1;
    auto a = l1.Alloc<int4b_t>(1024);
    EXPECT_EQ(a.GetLength(), 512u);
    EXPECT_EQ(l1.GetCurAddr(), 512u);
  });
}

TEST(Int4, OddViewOffsetIsAnError) {
  auto st = kt::run("int4_odd", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 64);
    auto t = b.Get<int4b_t>();
    (void)t[3];
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kMemoryAddressUnaligned);
  EXPECT_NE(st.message().find("LocalTensor::operator[]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("offset 3"), std::string::npos) << st.message();
}

int ref_round(float v, RoundMode m) {
  double r;
  switch (m) {
    case RoundMode::CAST_FLOOR: r = std::floor(v); break;
    case RoundMode::CAST_CEIL: r = std::ceil(v); break;
    case RoundMode::CAST_ROUND: r = std::round(v); break;  // ties away from zero
    case RoundMode::CAST_TRUNC: r = std::trunc(v); break;
    default: {  // nearest, ties to even
      r = std::floor(v);
      const double f = v - r;
      if (f > 0.5 || (f == 0.5 && std::fmod(r, 2.0) != 0)) r += 1;
    }
  }
  return r < -8 ? -8 : (r > 7 ? 7 : static_cast<int>(r));
}

TEST(Int4, CastCountFormAgainstReference) {
  const RoundMode modes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR,
                             RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
  std::vector<float> src;
  for (float v = -10.0f; v <= 10.0f; v += 0.25f) src.push_back(v);  // ties, saturation
  src.push_back(NAN);
  src.push_back(INFINITY);
  src.push_back(-INFINITY);
  src.push_back(-0.0f);
  if (src.size() % 2) src.push_back(0.75f);
  const uint32_t n = static_cast<uint32_t>(src.size());
  for (RoundMode m : modes) {
    std::vector<uint8_t> out(n / 2);
    std::vector<float> back(n);
    kt::run_or_throw("int4_cast", 1, [&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::VECCALC> bh, b4, bh2;
      pipe.InitBuffer(bh, 1024);
      pipe.InitBuffer(b4, 256);
      pipe.InitBuffer(bh2, 1024);
      auto h = bh.Get<half>();
      for (uint32_t i = 0; i < n; ++i) h.SetValue(i, half(src[i]));
      auto i4 = b4.Get<int8_t>().ReinterpretCast<int4b_t>();
      AscendC::Cast(i4, h, m, n);
      std::memcpy(out.data(), b4.Get<int8_t>().data(), n / 2);
      auto h2 = bh2.Get<half>();
      AscendC::Cast(h2, i4, RoundMode::CAST_NONE, n);
      for (uint32_t i = 0; i < n; ++i) back[i] = static_cast<float>(h2.GetValue(i));
    });
    for (uint32_t i = 0; i < n; ++i) {
      const int want = std::isnan(src[i]) ? 0 : ref_round(src[i], m);
      EXPECT_EQ(unpack(out.data(), i), want) << "mode " << static_cast<int>(m) << " value " << src[i];
      EXPECT_EQ(back[i], static_cast<float>(want)) << i;
    }
  }
}

TEST(Int4, CastMaskRepeatFormAsTheSample) {
  // cast.asc scenario 0: Cast<int4b_t, half>(dst, src, CAST_CEIL, mask, 4, {1, 1, 2, 8}).
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-9.0f, 8.0f);
  std::vector<float> src(512);
  for (auto& v : src) v = static_cast<float>(half(dist(rng)));
  for (uint64_t mask : {uint64_t{128}, uint64_t{64}, uint64_t{32}}) {
    std::vector<uint8_t> out(256);
    kt::run_or_throw("int4_cast_rep", 1, [&] {
      AscendC::TPipe pipe;
      AscendC::TBuf<TPosition::VECCALC> bh, b8;
      pipe.InitBuffer(bh, 1024);
      pipe.InitBuffer(b8, 256);
      auto h = bh.Get<half>();
      for (uint32_t i = 0; i < 512; ++i) h.SetValue(i, half(src[i]));
      auto y = b8.Get<int8_t>();
      AscendC::Duplicate(y, int8_t(0x55), 256);
      auto y4 = y.ReinterpretCast<int4b_t>();
      AscendC::Cast<int4b_t, half>(y4, h, RoundMode::CAST_CEIL, mask, 4, {1, 1, 2, 8});
      std::memcpy(out.data(), y.data(), 256);
    });
    for (size_t i = 0; i < 512; ++i) {
      const bool selected = (i % 128) < mask;
      const int want = selected ? ref_round(src[i], RoundMode::CAST_CEIL) : 5;  // 0x55: untouched
      EXPECT_EQ(unpack(out.data(), i), want) << "mask " << mask << " element " << i;
    }
  }
}

TEST(Int4, CastErrors) {
  auto st = kt::run("int4_cast_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 256);
    AscendC::Cast(b.Get<int4b_t>(), a.Get<half>(), RoundMode::CAST_RINT, 7);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("even"), std::string::npos) << st.message();
  st = kt::run("int4_cast_err2", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 256);
    AscendC::Cast(b.Get<int4b_t>(), a.Get<float>(), RoundMode::CAST_RINT, 8);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
  EXPECT_NE(st.message().find("float32 to int4b_t"), std::string::npos) << st.message();
  st = kt::run("int4_cast_err3", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 64);
    AscendC::Cast(b.Get<int4b_t>(), a.Get<half>(), RoundMode::CAST_RINT, 128 + 2);  // 64 bytes = 128 elements
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
}

// Mmad int4 x int4 -> int32: operands placed with the documented Zz / Zn
// orders for C0 = 64 (16 x 64 nibbles = 512 bytes per fractal).
void check_mmad(int64_t m, int64_t n, int64_t k, bool with_bias, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-8, 7);
  std::vector<int> a(m * k), b(k * n), bias(n);
  for (auto& v : a) v = d(rng);
  for (auto& v : b) v = d(rng);
  for (auto& v : bias) v = d(rng) * 1000;
  const int64_t m1 = (m + 15) / 16, n1 = (n + 15) / 16, k1 = (k + 63) / 64;
  std::vector<int> za(m1 * k1 * 1024, 0), zb(k1 * n1 * 1024, 0);
  // Zz: fractal (i/16, kk/64), row-major inside; Zn: fractal (kk/64, j/16), one row of 64 k per j.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk)
      za[((i / 16) * k1 + kk / 64) * 1024 + (i % 16) * 64 + kk % 64] = a[i * k + kk];
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) zb[((kk / 64) * n1 + j / 16) * 1024 + (j % 16) * 64 + kk % 64] = b[kk * n + j];
  const auto pa = pack(za), pb = pack(zb);
  std::vector<int32_t> c(m1 * n1 * 256);
  kt::run_or_throw("int4_mmad", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    AscendC::TBuf<TPosition::C2> bt;
    pipe.InitBuffer(a2, static_cast<uint32_t>(pa.size()));
    pipe.InitBuffer(b2, static_cast<uint32_t>(pb.size()));
    pipe.InitBuffer(c1, static_cast<uint32_t>(c.size() * 4));
    pipe.InitBuffer(bt, static_cast<uint32_t>(std::max<int64_t>(n, 8) * 4));
    auto la = a2.Get<int4b_t>();
    auto lb = b2.Get<int4b_t>();
    std::memcpy(la.ReinterpretCast<uint8_t>().data(), pa.data(), pa.size());
    std::memcpy(lb.ReinterpretCast<uint8_t>().data(), pb.data(), pb.size());
    auto lc = c1.Get<int32_t>();
    AscendC::MmadParams p;
    p.m = static_cast<uint16_t>(m);
    p.n = static_cast<uint16_t>(n);
    p.k = static_cast<uint16_t>(k);
    if (with_bias) {
      auto lbias = bt.Get<int32_t>();
      for (int64_t j = 0; j < n; ++j) lbias.SetValue(static_cast<uint32_t>(j), bias[j]);
      p.cmatrixSource = true;
      AscendC::Mmad(lc, la, lb, lbias, p);
    } else {
      AscendC::Mmad(lc, la, lb, p);
    }
    std::memcpy(c.data(), lc.data(), c.size() * 4);
  });
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      int32_t want = with_bias ? bias[j] : 0;
      for (int64_t kk = 0; kk < k; ++kk) want += a[i * k + kk] * b[kk * n + j];
      ASSERT_EQ(c[(j / 16) * m1 * 256 + i * 16 + j % 16], want) << m << "x" << n << "x" << k << " at " << i << "," << j;
    }
  }
}

TEST(Int4, MmadAgainstIntegerMatmul) {
  check_mmad(16, 16, 64, false, 1);
  check_mmad(40, 50, 70, false, 2);  // the sample's ragged shape
  check_mmad(33, 17, 130, true, 3);
  check_mmad(1, 1, 2, false, 4);
}

TEST(Int4, GmToL0PathInInt8Units) {
  // As load_data_l12l0 scenario 1: ND -> NZ with dValue in bytes (k / 2), then
  // LoadData2D fractals of 512 bytes; compare the L0A Zz contents.
  const int64_t m = 20, k = 128;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> d(-8, 7);
  std::vector<int> a(m * k);
  for (auto& v : a) v = d(rng);
  auto ga = pack(a);
  const int64_t mpad = 32, k1 = 2;
  std::vector<uint8_t> l0a(mpad * k / 2);
  kt::run_or_throw("int4_path", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, static_cast<uint32_t>(mpad * k / 2));
    pipe.InitBuffer(a2, static_cast<uint32_t>(mpad * k / 2));
    AscendC::GlobalTensor<int4b_t> g;
    g.SetGlobalBuffer(reinterpret_cast<int4b_t*>(ga.data()), static_cast<uint64_t>(m * k));
    auto l1 = a1.Get<int4b_t>();
    auto l2 = a2.Get<int4b_t>();
    AscendC::Duplicate(a1.Get<int16_t>(), int16_t(0), static_cast<int32_t>(mpad * k / 4));
    AscendC::Nd2NzParams p;
    p.ndNum = 1;
    p.nValue = static_cast<uint16_t>(m);
    p.dValue = static_cast<uint16_t>(k / 2);
    p.srcDValue = static_cast<uint16_t>(k / 2);
    p.dstNzC0Stride = static_cast<uint16_t>(mpad);
    p.dstNzNStride = 1;
    AscendC::DataCopy(l1, g, p);
    const uint32_t fractal = 16 * 64;  // elements
    AscendC::LoadData2DParams lp;
    lp.repeatTimes = static_cast<uint8_t>(k1);
    lp.srcStride = static_cast<uint16_t>(mpad / 16);
    for (int i = 0; i < mpad / 16; ++i) AscendC::LoadData(l2[i * k1 * fractal], l1[i * fractal], lp);
    std::memcpy(l0a.data(), l2.ReinterpretCast<uint8_t>().data(), l0a.size());
  });
  for (int64_t i = 0; i < mpad; ++i) {
    for (int64_t kk = 0; kk < k; ++kk) {
      const int want = i < m ? a[i * k + kk] : 0;
      ASSERT_EQ(unpack(l0a.data(), static_cast<size_t>(cb::zz_offset(i, kk, k1, 64))), want) << i << "," << kk;
    }
  }
}

// The transposing int4 load was refused until 00cd53c implemented it as CANN documents;
// load2d_transpose_test.cc (Int4Squares64x64) checks its values. Here: it runs.
TEST(Int4, TransposingLoadRuns) {
  auto st = kt::run("int4_tr", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::B2> b2;
    pipe.InitBuffer(a1, 2048);
    pipe.InitBuffer(b2, 2048);
    AscendC::LoadData2dTransposeParams p;
    p.repeatTimes = 1;
    AscendC::LoadDataWithTranspose(b2.Get<int4b_t>(), a1.Get<int4b_t>(), p);
  });
  EXPECT_TRUE(st.ok()) << st.message();
}

}  // namespace
