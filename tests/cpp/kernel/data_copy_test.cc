// DataCopy (count form, DataCopyParams with gaps) and DataCopyPad.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "kernel_test_util.h"

namespace {

using namespace AscendC;

std::vector<float> iota_f(size_t n, float start = 1.0f) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(DataCopy, CountFormRoundTrip) {
  std::vector<float> in = iota_f(4096);
  std::vector<float> out(4096, -1.0f);
  kt::run_or_throw("copy_count", 1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECIN> a;
    TBuf<TPosition::VECOUT> b;
    pipe.InitBuffer(a, 4096 * 4);
    pipe.InitBuffer(b, 4096 * 4);
    GlobalTensor<float> gin, gout;
    gin.SetGlobalBuffer(in.data(), in.size());
    gout.SetGlobalBuffer(out.data(), out.size());
    auto la = a.Get<float>();
    auto lb = b.Get<float>();
    DataCopy(la, gin, 4096);   // GM -> UB
    DataCopy(lb, la, 4096);    // UB -> UB
    DataCopy(gout, lb, 4096);  // UB -> GM
  });
  EXPECT_EQ(out, in);
}

TEST(DataCopy, CountFormRoundsDownTo32Bytes) {
  // Like the NPU's DMA: 13 floats = 52 bytes copies 32 bytes (8 floats).
  std::vector<float> in = iota_f(64);
  std::vector<float> out(64, -1.0f);
  kt::run_or_throw("copy_unaligned", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 256);
    GlobalTensor<float> gin, gout;
    gin.SetGlobalBuffer(in.data());
    gout.SetGlobalBuffer(out.data());
    auto la = a.Get<float>();
    Duplicate(la, 0.0f, 64);
    DataCopy(la, gin, 13);
    DataCopy(gout, la, 16);
  });
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], in[i]);
  for (int i = 8; i < 16; ++i) EXPECT_EQ(out[i], 0.0f);
  for (int i = 16; i < 64; ++i) EXPECT_EQ(out[i], -1.0f);
}

TEST(DataCopy, ParamsWithGaps) {
  // GM: 4 bursts of 2 blocks (16 floats) with a 1-block (8 float) gap between them.
  // UB: the same bursts 3 blocks apart (1 block gap as well but different size: dstStride=2).
  std::vector<float> in = iota_f(4 * 24);
  std::vector<float> out(4 * 32, -1.0f);
  std::vector<float> ub_image(4 * 32);
  kt::run_or_throw("copy_params", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 4 * 32 * 4);
    GlobalTensor<float> gin, gout;
    gin.SetGlobalBuffer(in.data(), in.size());
    gout.SetGlobalBuffer(out.data(), out.size());
    auto la = a.Get<float>();
    Duplicate(la, 0.0f, 4 * 32);
    DataCopy(la, gin, DataCopyParams(4, 2, 1, 2));
    std::memcpy(ub_image.data(), la.data(), ub_image.size() * 4);
    DataCopyParams back;
    back.blockCount = 4;
    back.blockLen = 2;
    back.srcStride = 2;
    back.dstStride = 2;  // out: bursts 32 floats apart
    DataCopy(gout, la, back);
  });
  for (int burst = 0; burst < 4; ++burst) {
    for (int k = 0; k < 16; ++k) {
      EXPECT_EQ(ub_image[burst * 32 + k], in[burst * 24 + k]);
      EXPECT_EQ(out[burst * 32 + k], in[burst * 24 + k]);
    }
    for (int k = 16; k < 32; ++k) {
      EXPECT_EQ(ub_image[burst * 32 + k], 0.0f);  // gap untouched in UB
      EXPECT_EQ(out[burst * 32 + k], -1.0f);      // gap untouched in GM
    }
  }
}

TEST(DataCopy, OutOfRangeIsAnError) {
  std::vector<float> in(64);
  asc::Status st = kt::run("copy_oob", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 128);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(in.data(), 64);
    DataCopy(a.Get<float>(), g, 64);  // 256 bytes into a 128-byte buffer
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[DataCopy] kernel 'copy_oob' block 0"), std::string::npos) << st.message();
  st = kt::run("copy_oob_gm", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 1024);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(in.data(), 64);
    DataCopy(a.Get<float>(), g[32], 64);  // only 32 elements left in the GlobalTensor view
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
}

TEST(DataCopyPad, UnalignedTailWithPadding) {
  // 3 rows of 13 halves (26 bytes) in GM, 5 halves apart -> UB rows padded to 32 bytes.
  std::vector<half> in(3 * 18);
  for (size_t i = 0; i < in.size(); ++i) in[i] = half(static_cast<float>(i));
  std::vector<half> ub(3 * 16 + 16);
  std::vector<half> out(3 * 20, half(-1.0f));
  kt::run_or_throw("copy_pad", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 512);
    GlobalTensor<half> gin, gout;
    gin.SetGlobalBuffer(in.data(), in.size());
    gout.SetGlobalBuffer(out.data(), out.size());
    auto la = a.Get<half>();
    Duplicate(la, half(7.0f), 256);
    DataCopyExtParams p(3, 13 * sizeof(half), 5 * sizeof(half), 0, 0);
    DataCopyPadExtParams<half> pad(true, 0, 3, half(-9.0f));
    DataCopyPad(la, gin, p, pad);
    std::memcpy(ub.data(), la.data(), ub.size() * 2);
    // Back to GM: rows of 13 halves, 7 halves apart (dstStride in bytes).
    DataCopyPad(gout, la, DataCopyExtParams(3, 13 * sizeof(half), 0, 7 * sizeof(half), 0));
  });
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 13; ++k) EXPECT_EQ(static_cast<float>(ub[r * 16 + k]), static_cast<float>(in[r * 18 + k]));
    for (int k = 13; k < 16; ++k) EXPECT_EQ(static_cast<float>(ub[r * 16 + k]), -9.0f) << "right padding";
    for (int k = 0; k < 13; ++k) EXPECT_EQ(static_cast<float>(out[r * 20 + k]), static_cast<float>(in[r * 18 + k]));
    if (r < 2) {
      for (int k = 13; k < 20; ++k) EXPECT_EQ(static_cast<float>(out[r * 20 + k]), -1.0f) << "GM gap";
    }
  }
  EXPECT_EQ(static_cast<float>(ub[48]), 7.0f);  // nothing beyond the third row
}

TEST(DataCopyPad, SetPadValueFillsThePaddingWhenIsPadIsFalse) {
  // One row of 20 halves padded by 12 to 32 (CANN's data_copy_pad scenario 1),
  // then two rows of 3 floats: the register's value (isPad false), the
  // params' value (isPad true), and a register of another width (ignored).
  std::vector<half> in(20);
  for (int i = 0; i < 20; ++i) in[i] = half(static_cast<float>(i + 2));
  std::vector<float> fin = {1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f};
  std::vector<half> ub(32);
  std::vector<float> fa(16), fb(16), fc(16);
  kt::run_or_throw("set_pad_value", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 1024);
    GlobalTensor<half> gin;
    gin.SetGlobalBuffer(in.data(), in.size());
    GlobalTensor<float> gf;
    gf.SetGlobalBuffer(fin.data(), fin.size());
    auto la = a.Get<half>();
    Duplicate(la, half(7.0f), 32);
    SetPadValue(half(1.0f));
    DataCopyPad(la, gin, DataCopyExtParams(1, 20 * sizeof(half), 0, 0, 0),
                DataCopyPadExtParams<half>(false, 0, 12, half(-3.0f)));
    std::memcpy(ub.data(), la.data(), ub.size() * 2);
    auto lf = a.Get<float>()[64];
    Duplicate(lf, 9.0f, 16);
    SetPadValue(-1.0f);  // float register
    DataCopyPad(lf, gf, DataCopyExtParams(2, 3 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 5, 0.0f));
    std::memcpy(fa.data(), lf.data(), 64);
    Duplicate(lf, 9.0f, 16);
    DataCopyPad(lf, gf, DataCopyExtParams(2, 3 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(true, 0, 5, 8.0f));
    std::memcpy(fb.data(), lf.data(), 64);
    Duplicate(lf, 9.0f, 16);
    SetPadValue(int16_t(4));  // a 2-byte register does not pad float data
    DataCopyPad(lf, gf, DataCopyExtParams(2, 3 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 5, 0.0f));
    std::memcpy(fc.data(), lf.data(), 64);
  });
  for (int k = 0; k < 20; ++k) EXPECT_EQ(static_cast<float>(ub[k]), static_cast<float>(k + 2)) << k;
  for (int k = 20; k < 32; ++k) EXPECT_EQ(static_cast<float>(ub[k]), 1.0f) << "padding " << k;
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 8; ++k) {
      const float data = k < 3 ? fin[3 * r + k] : 0.0f;
      EXPECT_EQ(fa[8 * r + k], k < 3 ? data : -1.0f) << r << " " << k;
      EXPECT_EQ(fb[8 * r + k], k < 3 ? data : 8.0f) << r << " " << k;
      EXPECT_EQ(fc[8 * r + k], k < 3 ? data : 9.0f) << r << " " << k;
    }
  // The register belongs to the block: a later launch pads nothing.
  std::vector<half> again(32, half(0.0f));
  kt::run_or_throw("set_pad_value_next", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 256);
    GlobalTensor<half> gin;
    gin.SetGlobalBuffer(in.data(), in.size());
    auto la = a.Get<half>();
    Duplicate(la, half(7.0f), 32);
    DataCopyPad(la, gin, DataCopyExtParams(1, 20 * sizeof(half), 0, 0, 0),
                DataCopyPadExtParams<half>(false, 0, 12, half(0.0f)));
    std::memcpy(again.data(), la.data(), again.size() * 2);
  });
  for (int k = 20; k < 32; ++k) EXPECT_EQ(static_cast<float>(again[k]), 7.0f) << "untouched " << k;
}

TEST(DataCopyPad, LeftPaddingAndDstStride) {
  std::vector<float> in = iota_f(10);
  std::vector<float> ub(48);
  kt::run_or_throw("copy_pad_left", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 256);
    GlobalTensor<float> gin;
    gin.SetGlobalBuffer(in.data(), in.size());
    auto la = a.Get<float>();
    Duplicate(la, 0.5f, 64);
    // 2 rows of 5 floats with 2 floats of left padding and 1 right: 32-byte rows + 1 block gap.
    DataCopyPad(la, gin, DataCopyExtParams(2, 5 * 4, 0, 1, 0), DataCopyPadExtParams<float>(true, 2, 1, -1.0f));
    std::memcpy(ub.data(), la.data(), ub.size() * 4);
  });
  const float row0[] = {-1, -1, 1, 2, 3, 4, 5, -1};
  const float row1[] = {-1, -1, 6, 7, 8, 9, 10, -1};
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(ub[k], row0[k]) << k;
    EXPECT_EQ(ub[8 + k], 0.5f) << "dst gap";
    EXPECT_EQ(ub[16 + k], row1[k]) << k;
  }
}

TEST(DataCopyPad, WithoutPadLeavesPaddingAlone) {
  std::vector<float> in = iota_f(3);
  std::vector<float> ub(8);
  kt::run_or_throw("copy_pad_nopad", 1, [&] {
    TPipe pipe;
    TBuf<> a;
    pipe.InitBuffer(a, 64);
    GlobalTensor<float> gin;
    gin.SetGlobalBuffer(in.data(), in.size());
    auto la = a.Get<float>();
    Duplicate(la, 0.25f, 16);
    DataCopyPad(la, gin, DataCopyExtParams(1, 12, 0, 0, 0), DataCopyPadExtParams<float>());
    std::memcpy(ub.data(), la.data(), 32);
  });
  EXPECT_EQ(ub, (std::vector<float>{1, 2, 3, 0.25f, 0.25f, 0.25f, 0.25f, 0.25f}));
}

}  // namespace
