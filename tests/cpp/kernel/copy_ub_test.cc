// AscendC::Copy (UB -> UB, mask/repeat form) against an element-by-element
// reference of the documented layout.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernel_test_util.h"

using namespace AscendC;

namespace {

template <typename T>
std::vector<T> reference(const std::vector<T>& src, std::vector<T> dst, const uint64_t mask[2], int repeat,
                         CopyRepeatParams p) {
  const int lanes = 256 / sizeof(T), E = 32 / sizeof(T);
  for (int r = 0; r < repeat; ++r)
    for (int i = 0; i < lanes; ++i)
      if ((mask[i / 64] >> (i % 64)) & 1u)
        dst[(r * p.dstRepeatSize + (i / E) * p.dstStride) * E + i % E] =
            src[(r * p.srcRepeatSize + (i / E) * p.srcStride) * E + i % E];
  return dst;
}

template <typename T, typename Body>
std::vector<T> run_copy(const std::vector<T>& src, size_t dst_len, Body body) {
  std::vector<T> out(dst_len, T(-1));
  const T* ps = src.data();
  T* po = out.data();
  const uint32_t ns = src.size();
  kt::run_or_throw("copy_ub", 1, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd;
    pipe.InitBuffer(bs, ns * sizeof(T));
    pipe.InitBuffer(bd, dst_len * sizeof(T));
    LocalTensor<T> s = bs.Get<T>(), d = bd.Get<T>();
    for (uint32_t i = 0; i < ns; ++i) s.SetValue(i, ps[i]);
    for (uint32_t i = 0; i < dst_len; ++i) d.SetValue(i, T(-1));
    body(d, s);
    for (uint32_t i = 0; i < dst_len; ++i) po[i] = d.GetValue(i);
  });
  return out;
}

}  // namespace

TEST(CopyUb, ContiguousCountMask) {
  std::vector<int32_t> src(512);
  for (int i = 0; i < 512; ++i) src[i] = i * 3 + 1;
  auto out = run_copy<int32_t>(src, 512, [](LocalTensor<int32_t>& d, LocalTensor<int32_t>& s) {
    Copy(d, s, 64, 8, {1, 1, 8, 8});
  });
  EXPECT_EQ(out, src);
}

TEST(CopyUb, PartialMaskAndRepeatStrides) {
  // [18, 64] -> [18, 8]: 8 lanes per repeat, src rows of 8 blocks, dst rows of 1 block.
  std::vector<int32_t> src(18 * 64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int32_t(i) - 500;
  const uint64_t mask[2] = {0xff, 0};
  auto want = reference<int32_t>(src, std::vector<int32_t>(18 * 8, -1), mask, 18, {1, 1, 1, 8});
  auto out = run_copy<int32_t>(src, 18 * 8, [](LocalTensor<int32_t>& d, LocalTensor<int32_t>& s) {
    Copy(d, s, 8, 18, {1, 1, 1, 8});
  });
  EXPECT_EQ(out, want);
  for (int r = 0; r < 18; ++r)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(out[r * 8 + j], src[r * 64 + j]);
}

TEST(CopyUb, BitMaskBlockStridesHalfAndRegisterMask) {
  std::vector<half> src(1024);
  for (int i = 0; i < 1024; ++i) src[i] = half(float(i % 301) * 0.5f);
  const uint64_t bits[2] = {0xF0F0F0F0F0F0F0F0ull, 0x00000000FFFF0001ull};
  auto want = reference<half>(src, std::vector<half>(1024, half(-1.0f)), bits, 2, {2, 1, 16, 8});
  auto out = run_copy<half>(src, 1024, [&](LocalTensor<half>& d, LocalTensor<half>& s) {
    uint64_t m[2] = {bits[0], bits[1]};
    Copy(d, s, m, 2, {2, 1, 16, 8});
  });
  for (int i = 0; i < 1024; ++i) EXPECT_EQ(float(out[i]), float(want[i])) << i;
  auto out2 = run_copy<half>(src, 1024, [&](LocalTensor<half>& d, LocalTensor<half>& s) {
    SetVectorMask<half>(bits[1], bits[0]);
    Copy<half, false>(d, s, MASK_PLACEHOLDER, 2, {2, 1, 16, 8});
    ResetMask();
  });
  for (int i = 0; i < 1024; ++i) EXPECT_EQ(float(out2[i]), float(want[i])) << i;
}

TEST(CopyUb, ExtentBeyondTheTensorFails) {
  std::vector<float> src(64);
  std::vector<float> out(64, -1.0f);
  float* po = out.data();
  const float* ps = src.data();
  asc::Status st = kt::run("copy_ub_bad", 1, [=] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd;
    pipe.InitBuffer(bs, 64 * sizeof(float));
    pipe.InitBuffer(bd, 64 * sizeof(float));
    LocalTensor<float> s = bs.Get<float>(), d = bd.Get<float>();
    (void)po;
    (void)ps;
    Copy(d, s, 64, 2, {1, 1, 8, 8});  // 2 repeats of 64 floats > 64
  });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("Copy"), std::string::npos) << st.ToString();
}
