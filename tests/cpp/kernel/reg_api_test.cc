// The register ("Reg") vector API of dav-3510 against element-wise
// references: masks (CreateMask patterns, UpdateMask, masks loaded from UB),
// LoadAlign/StoreAlign incl. post-update and broadcast, merge modes,
// arithmetic, Select/Compare, Reduce, asc_vf_call.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernel_operator.h"

namespace R = AscendC::Reg;

namespace {
constexpr uint32_t kF = AscendC::GetVecLen() / sizeof(float);  // 64 floats per register

template <typename T, uint32_t kLen>
__simd_vf__ inline void AddVF(__ubuf__ T* dst, __ubuf__ T* a, __ubuf__ T* b, uint32_t count) {
  constexpr uint32_t per = AscendC::GetVecLen() / sizeof(T);
  R::RegTensor<T> ra, rb, rc;
  for (uint32_t i = 0; i < (kLen + per - 1) / per; ++i) {
    R::MaskReg m = R::UpdateMask<T>(count);
    R::LoadAlign(ra, a + i * per);
    R::LoadAlign(rb, b + i * per);
    R::Add(rc, ra, rb, m);
    R::StoreAlign(dst + i * per, rc, m);
  }
}

std::vector<float> randf(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-4.f, 4.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}
}  // namespace

TEST(RegApi, VfCallAddWithUpdateMaskTail) {
  constexpr uint32_t n = 150;  // two full registers and a tail of 22
  auto a = randf(3 * kF, 1), b = randf(3 * kF, 2);
  std::vector<float> out(3 * kF, -7.f);
  asc_vf_call<AddVF<float, n>>(out.data(), a.data(), b.data(), n);
  for (uint32_t i = 0; i < 3 * kF; ++i) {
    if (i < n) EXPECT_EQ(out[i], a[i] + b[i]) << i;
    else EXPECT_EQ(out[i], -7.f) << i;  // StoreAlign writes active elements only
  }
}

TEST(RegApi, CreateMaskPatterns) {
  auto count = [](const R::MaskReg& m, uint32_t size) {
    uint32_t c = 0;
    for (uint32_t i = 0; i < 256 / size; ++i) c += m.Bit(i * size);
    return c;
  };
  EXPECT_EQ(count(R::CreateMask<float>(), 4), 64u);
  EXPECT_EQ(count(R::CreateMask<half, R::MaskPattern::H>(), 2), 64u);
  EXPECT_EQ(count(R::CreateMask<int8_t, R::MaskPattern::Q>(), 1), 64u);
  EXPECT_EQ(count(R::CreateMask<float, R::MaskPattern::VL3>(), 4), 3u);
  EXPECT_EQ(count(R::CreateMask<int16_t, R::MaskPattern::M3>(), 2), 43u);  // 0, 3, ..., 126
  EXPECT_EQ(count(R::CreateMask<float, R::MaskPattern::ALLF>(), 4), 0u);
  // A float mask uses every 4th bit (one per element's first byte).
  R::MaskReg m = R::CreateMask<float, R::MaskPattern::VL2>();
  EXPECT_EQ(m.bits[0], 0x11);
  uint32_t left = 70;
  R::MaskReg u = R::UpdateMask<float>(left);
  EXPECT_EQ(left, 6u);
  EXPECT_EQ(count(u, 4), 64u);
  u = R::UpdateMask<float>(left);
  EXPECT_EQ(left, 0u);
  EXPECT_EQ(count(u, 4), 6u);
}

TEST(RegApi, MergeModes) {
  auto a = randf(kF, 3), b = randf(kF, 4);
  R::RegTensor<float> ra, rb, rz, rm;
  R::LoadAlign(ra, a.data());
  R::LoadAlign(rb, b.data());
  R::Duplicate(rz, 9.f);
  R::Duplicate(rm, 9.f);
  R::MaskReg m = R::CreateMask<float, R::MaskPattern::VL16>();
  R::Mul(rz, ra, rb, m);                                  // ZEROING (default)
  R::Mul<float, R::MaskMergeMode::MERGING>(rm, ra, rb, m);  // inactive kept
  for (uint32_t i = 0; i < kF; ++i) {
    EXPECT_EQ(rz.v[i], i < 16 ? a[i] * b[i] : 0.f) << i;
    EXPECT_EQ(rm.v[i], i < 16 ? a[i] * b[i] : 9.f) << i;
  }
}

TEST(RegApi, PostUpdateLoadStoreAndBroadcast) {
  auto a = randf(2 * kF, 5);
  std::vector<float> out(2 * kF, 0.f);
  float* src = a.data();
  float* dst = out.data();
  R::RegTensor<float> r;
  R::MaskReg all = R::CreateMask<float>();
  for (int k = 0; k < 2; ++k) {
    R::LoadAlign<float, R::PostLiteral::POST_MODE_UPDATE>(r, src, kF);
    R::Muls(r, r, 2.f, all);
    R::StoreAlign<float, R::PostLiteral::POST_MODE_UPDATE>(dst, r, kF, all);
  }
  EXPECT_EQ(src, a.data() + 2 * kF);
  EXPECT_EQ(dst, out.data() + 2 * kF);
  for (uint32_t i = 0; i < 2 * kF; ++i) EXPECT_EQ(out[i], 2.f * a[i]);
  R::LoadAlign<float, R::LoadDist::DIST_BRC_B32>(r, a.data() + 5);
  for (uint32_t i = 0; i < kF; ++i) EXPECT_EQ(r.v[i], a[5]);
  float first = 0.f;
  R::StoreAlign<float, R::StoreDist::DIST_FIRST_ELEMENT_B32>(&first, r, all);
  EXPECT_EQ(first, a[5]);
}

TEST(RegApi, SelectWithAMaskFromUbAndCompare) {
  auto a = randf(kF, 6), b = randf(kF, 7);
  uint8_t bits[32] = {};
  for (uint32_t i = 0; i < kF; i += 3) bits[(i * 4) / 8] |= uint8_t(1u << ((i * 4) % 8));
  R::RegTensor<float> ra, rb, rz;
  R::MaskReg m;
  R::LoadAlign(ra, a.data());
  R::LoadAlign(rb, b.data());
  R::LoadAlign(m, bits);
  R::Select(rz, ra, rb, m);
  for (uint32_t i = 0; i < kF; ++i) EXPECT_EQ(rz.v[i], i % 3 == 0 ? a[i] : b[i]) << i;
  R::MaskReg lt, all = R::CreateMask<float>();
  R::Compare<float, AscendC::CMPMODE::LT>(lt, ra, rb, all);
  R::Compares<float, AscendC::CMPMODE::GE>(m, ra, 0.5f, all);
  for (uint32_t i = 0; i < kF; ++i) {
    EXPECT_EQ(lt.Bit(i * 4), a[i] < b[i]) << i;
    EXPECT_EQ(m.Bit(i * 4), a[i] >= 0.5f) << i;
  }
}

TEST(RegApi, ReduceSumMaxMin) {
  auto a = randf(kF, 8);
  R::RegTensor<float> ra, rs, rx;
  R::LoadAlign(ra, a.data());
  R::MaskReg m = R::CreateMask<float, R::MaskPattern::VL32>();
  R::Reduce<R::ReduceType::SUM>(rs, ra, m);
  double ref = 0;
  for (uint32_t i = 0; i < 32; ++i) ref += a[i];
  EXPECT_NEAR(rs.v[0], ref, 1e-5);
  for (uint32_t i = 1; i < kF; ++i) EXPECT_EQ(rs.v[i], 0.f);
  R::Reduce<R::ReduceType::MAX>(rx, ra, m);
  uint32_t at = 0;
  for (uint32_t i = 1; i < 32; ++i)
    if (a[i] > a[at]) at = i;
  EXPECT_EQ(rx.v[0], a[at]);
  uint32_t idx;
  std::memcpy(&idx, &rx.v[1], 4);
  EXPECT_EQ(idx, at);
  R::Reduce<R::ReduceType::MIN>(rx, ra, R::CreateMask<float>());
  float mn = a[0];
  for (float x : a) mn = std::min(mn, x);
  EXPECT_EQ(rx.v[0], mn);
}

TEST(RegApi, HalfExpSubAbsAndIntegers) {
  constexpr uint32_t kH = 128;
  std::vector<half> x(kH), y(kH);
  auto f = randf(2 * kH, 9);
  for (uint32_t i = 0; i < kH; ++i) {
    x[i] = half(f[i] / 4);
    y[i] = half(f[kH + i] / 4);
  }
  R::RegTensor<half> rx, ry, re, rab;
  R::LoadAlign(rx, x.data());
  R::LoadAlign(ry, y.data());
  R::MaskReg all = R::CreateMask<half>();
  R::ExpSub(re, rx, ry, all);
  R::Abs(rab, rx, all);
  for (uint32_t i = 0; i < kH; ++i) {
    EXPECT_EQ(float(re.v[i]), float(half(std::exp(float(x[i]) - float(y[i]))))) << i;
    EXPECT_EQ(float(rab.v[i]), std::fabs(float(x[i])));
  }
  R::RegTensor<int32_t> ia, ib, ic;
  R::Arange(ia, int32_t(-10));
  R::Duplicate(ib, int32_t(3));
  R::MaskReg mi = R::CreateMask<int32_t>();
  R::Max(ic, ia, ib, mi);
  for (uint32_t i = 0; i < kF; ++i) EXPECT_EQ(ic.v[i], std::max<int32_t>(int32_t(i) - 10, 3));
  R::Adds(ic, ia, int32_t(5), mi);
  for (uint32_t i = 0; i < kF; ++i) EXPECT_EQ(ic.v[i], int32_t(i) - 5);
}

TEST(RegApi, ReduceDataBlockAndPairReduceElem) {
  R::RegTensor<float> a, d;
  for (uint32_t i = 0; i < 64; ++i) a.v[i] = static_cast<float>((i * 37) % 64) - 20.0f;
  R::MaskReg all = R::CreateMask<float>();
  R::ReduceDataBlock<R::ReduceType::SUM>(d, a, all);
  for (uint32_t k = 0; k < 64; ++k) {
    float want = 0.0f;
    if (k < 8)
      for (uint32_t e = 0; e < 8; ++e) want += a.v[8 * k + e];  // small integers: exact in any order
    EXPECT_EQ(d.v[k], want) << k;
  }
  R::ReduceDataBlock<R::ReduceType::MAX>(d, a, all);
  for (uint32_t k = 0; k < 8; ++k) EXPECT_EQ(d.v[k], *std::max_element(a.v + 8 * k, a.v + 8 * k + 8)) << k;
  R::ReduceDataBlock<R::ReduceType::MIN>(d, a, all);
  for (uint32_t k = 0; k < 8; ++k) EXPECT_EQ(d.v[k], *std::min_element(a.v + 8 * k, a.v + 8 * k + 8)) << k;
  // Pairs, with the last 4 elements masked off (count 60): they add as 0.
  uint32_t n = 60;
  R::MaskReg m = R::UpdateMask<float>(n);
  R::PairReduceElem<R::PairReduce::SUM>(d, a, m);
  for (uint32_t j = 0; j < 64; ++j) {
    const float want = j < 30 ? a.v[2 * j] + a.v[2 * j + 1] : 0.0f;
    EXPECT_EQ(d.v[j], want) << j;
  }
}

TEST(RegApi, TruncateRoundsEachModeAndZeroesInactiveLanes) {
  R::RegTensor<float> a, d;
  const float ties[] = {2.5f, -2.5f, 3.5f, -0.5f, 0.5f, 1.49f, -1.51f, 7.0f, -0.0f, 1e30f};
  for (uint32_t i = 0; i < kF; ++i) a.v[i] = i < 10 ? ties[i] : static_cast<float>(i) * 0.37f - 11.0f;
  uint32_t n = 60;  // lanes 60..63 inactive: zeroed
  R::MaskReg m = R::UpdateMask<float>(n);
  auto check = [&](auto ref, const char* what) {
    for (uint32_t i = 0; i < kF; ++i) EXPECT_EQ(d.v[i], i < 60 ? ref(a.v[i]) : 0.0f) << what << " lane " << i;
  };
  R::Truncate<float, AscendC::RoundMode::CAST_FLOOR>(d, a, m);
  check([](float x) { return std::floor(x); }, "floor");
  R::Truncate<float, AscendC::RoundMode::CAST_CEIL>(d, a, m);
  check([](float x) { return std::ceil(x); }, "ceil");
  R::Truncate<float, AscendC::RoundMode::CAST_TRUNC>(d, a, m);
  check([](float x) { return std::trunc(x); }, "trunc");
  R::Truncate<float, AscendC::RoundMode::CAST_ROUND>(d, a, m);
  check([](float x) { return std::round(x); }, "round");
  R::Truncate<float, AscendC::RoundMode::CAST_RINT>(d, a, m);
  check([](float x) { return std::nearbyint(x); }, "rint");
  EXPECT_EQ(d.v[0], 2.0f);  // ties to even, independent of the reference above
  EXPECT_EQ(d.v[2], 4.0f);
  // half: rounded in float, stored as half (integral halves are exact).
  R::RegTensor<half> h, hd;
  for (uint32_t i = 0; i < 128; ++i) h.v[i] = half(static_cast<float>(i) * 0.75f - 40.0f);
  R::MaskReg hall = R::CreateMask<half>();
  R::Truncate<half, AscendC::RoundMode::CAST_CEIL>(hd, h, hall);
  for (uint32_t i = 0; i < 128; ++i)
    EXPECT_EQ(static_cast<float>(hd.v[i]), std::ceil(static_cast<float>(h.v[i]))) << i;
}
