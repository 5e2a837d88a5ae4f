// Compare into the CMPMASK register, GetCmpMask / SetCmpMask, and Compares
// (CompareScalar's CANN name, incl. the tensor-element scalar form), against
// element-wise references.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernel_test_util.h"

namespace {
template <typename T>
AscendC::LocalTensor<T> get(AscendC::TBuf<>& b) { return b.Get<T>(); }
}  // namespace

TEST(CompareMask, RegisterRoundTripAndPartialMask) {
  std::vector<float> a(64), b(64);
  for (int i = 0; i < 64; ++i) { a[i] = float(i % 7) - 3.f; b[i] = float(i % 5) - 2.f; }
  std::vector<uint8_t> full(16, 0xEE), part(16, 0xEE);
  float* pa = a.data();
  float* pb = b.data();
  uint8_t* pf = full.data();
  uint8_t* pp = part.data();
  kt::run_or_throw("cmpmask", 1, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s0, s1, d;
    pipe.InitBuffer(s0, 256);
    pipe.InitBuffer(s1, 256);
    pipe.InitBuffer(d, 64);
    auto x = get<float>(s0), y = get<float>(s1);
    auto out = get<uint8_t>(d);
    for (uint32_t i = 0; i < 64; ++i) { x.SetValue(i, pa[i]); y.SetValue(i, pb[i]); }
    AscendC::BinaryRepeatParams rp;
    AscendC::Compare(x, y, AscendC::CMPMODE::LT, uint64_t(64), rp);
    AscendC::GetCmpMask(out);
    for (uint32_t i = 0; i < 16; ++i) pf[i] = out.GetValue(i);
    // Only lanes 0..9 recomputed with GE; the rest keep the LT bits.
    AscendC::Compare(x, y, AscendC::CMPMODE::GE, uint64_t(10), rp);
    AscendC::GetCmpMask(out[32]);
    for (uint32_t i = 0; i < 16; ++i) pp[i] = out.GetValue(32 + i);
    // SetCmpMask then GetCmpMask returns the bytes.
    for (uint32_t i = 0; i < 16; ++i) out.SetValue(i, uint8_t(i * 17));
    AscendC::SetCmpMask(out);
    AscendC::GetCmpMask(out[16]);
    for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(out.GetValue(16 + i), uint8_t(i * 17));
  });
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ((full[i / 8] >> (i % 8)) & 1, a[i] < b[i] ? 1 : 0) << i;
    const bool want = i < 10 ? a[i] >= b[i] : a[i] < b[i];
    EXPECT_EQ((part[i / 8] >> (i % 8)) & 1, want ? 1 : 0) << i;
  }
  for (int i = 8; i < 16; ++i) EXPECT_EQ(full[i], 0) << "float lanes use 8 bytes of the register";
}

TEST(CompareMask, ComparesScalarAndTensorElement) {
  std::vector<uint8_t> r1(32, 0), r2(32, 0);
  uint8_t* p1 = r1.data();
  uint8_t* p2 = r2.data();
  kt::run_or_throw("compares", 1, [=] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s0, s1, d;
    pipe.InitBuffer(s0, 256 * sizeof(half));
    pipe.InitBuffer(s1, 32);
    pipe.InitBuffer(d, 64);
    auto x = get<half>(s0), y = get<half>(s1);
    auto out = get<uint8_t>(d);
    for (uint32_t i = 0; i < 256; ++i) x.SetValue(i, half(float(int(i % 11) - 5)));
    y.SetValue(0, half(1.0f));
    AscendC::Compares(out, x, half(1.0f), AscendC::CMPMODE::GT, 256);
    for (uint32_t i = 0; i < 32; ++i) p1[i] = out.GetValue(i);
    AscendC::Compares(out, x, y, AscendC::CMPMODE::GT, 256);
    for (uint32_t i = 0; i < 32; ++i) p2[i] = out.GetValue(i);
  });
  for (int i = 0; i < 256; ++i) {
    const int want = (i % 11) - 5 > 1 ? 1 : 0;
    EXPECT_EQ((r1[i / 8] >> (i % 8)) & 1, want) << i;
    EXPECT_EQ((r2[i / 8] >> (i % 8)) & 1, want) << i;
  }
}

TEST(CompareMask, BadMaskAndSmallTensorFail) {
  asc::Status st = kt::run("cmpmask_bad", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> s0, d;
    pipe.InitBuffer(s0, 256);
    pipe.InitBuffer(d, 32);
    auto x = get<float>(s0);
    AscendC::BinaryRepeatParams rp;
    AscendC::Compare(x, x, AscendC::CMPMODE::EQ, uint64_t(65), rp);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("mask 65"), std::string::npos) << st.message();
  st = kt::run("cmpmask_small", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<> d;
    pipe.InitBuffer(d, 32);
    AscendC::GetCmpMask(get<uint8_t>(d)[24]);  // 8 bytes left
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("GetCmpMask"), std::string::npos) << st.message();
}
