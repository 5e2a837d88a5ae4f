// Transpose with TransposeParamsExt (NCHW <-> NHWC, ND2ND_B16) and
// TransDataTo5HD (16-, 32- and 8-bit, repeats, LocalTensor and address lists)
// against index-by-index references; errors.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "vec_test_util.h"

namespace {

using namespace AscendC;
using vt::Bytes;

template <typename T>
void nchw_case(uint16_t n, uint16_t c, uint16_t h, uint16_t w) {
  const size_t total = size_t{n} * c * h * w;
  const auto src = vt::random_vec<T>(total, static_cast<uint32_t>(total));
  std::vector<T> to_nhwc(total), to_nchw(total);
  for (size_t b = 0; b < n; ++b) {
    for (size_t ci = 0; ci < c; ++ci) {
      for (size_t y = 0; y < h; ++y) {
        for (size_t x = 0; x < w; ++x) {
          const size_t nchw = ((b * c + ci) * h + y) * w + x, nhwc = ((b * h + y) * w + x) * c + ci;
          to_nhwc[nhwc] = src[nchw];  // src read as NCHW
          to_nchw[nchw] = src[nhwc];  // src read as NHWC
        }
      }
    }
  }
  for (bool elide : vt::elision_modes()) {
    Bytes bs = vt::to_bytes(src), b1(total * sizeof(T)), b2(total * sizeof(T)), tmp(32);
    ASSERT_TRUE(vt::run_ub({&bs, &b1, &b2, &tmp},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto s = v[0].ReinterpretCast<T>();
                             Transpose(v[1].ReinterpretCast<T>(), s, v[3],
                                       TransposeParamsExt(n, c, h, w, TransposeType::TRANSPOSE_NCHW2NHWC));
                             Transpose(v[2].ReinterpretCast<T>(), s, v[3],
                                       TransposeParamsExt(n, c, h, w, TransposeType::TRANSPOSE_NHWC2NCHW));
                           },
                           elide)
                    .ok());
    EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(b1, total), to_nhwc)) << n << "x" << c << "x" << h << "x" << w;
    EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(b2, total), to_nchw)) << n << "x" << c << "x" << h << "x" << w;
  }
}

TEST(TransposeExt, NchwNhwc) {
  nchw_case<float>(2, 3, 4, 5);
  nchw_case<half>(1, 16, 2, 8);
  nchw_case<int8_t>(3, 5, 1, 7);
  nchw_case<uint16_t>(1, 1, 16, 16);
  nchw_case<float>(1, 0, 4, 4);  // empty
}

TEST(TransposeExt, B16AndErrors) {
  std::vector<half> s(256);
  for (int i = 0; i < 256; ++i) s[i] = half(static_cast<float>(i));
  Bytes bs = vt::to_bytes(s), bd(512), tmp(32);
  ASSERT_TRUE(vt::run_ub({&bs, &bd, &tmp},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           Transpose(v[1].ReinterpretCast<half>(), v[0].ReinterpretCast<half>(), v[2],
                                     TransposeParamsExt(1, 1, 16, 16, TransposeType::TRANSPOSE_ND2ND_B16));
                         },
                         true)
                  .ok());
  const auto got = vt::from_bytes<half>(bd, 256);
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) ASSERT_EQ(static_cast<float>(got[j * 16 + i]), static_cast<float>(i * 16 + j));
  }
  auto run = [&](auto fn) {
    return vt::run_ub({&bs, &bd, &tmp}, [&](std::vector<LocalTensor<uint8_t>>& v) { fn(v); }, true);
  };
  asc::Status st = run([&](std::vector<LocalTensor<uint8_t>>& v) {
    Transpose(v[1].ReinterpretCast<float>(), v[0].ReinterpretCast<float>(), v[2],
              TransposeParamsExt(1, 1, 16, 16, TransposeType::TRANSPOSE_ND2ND_B16));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
  EXPECT_NE(st.message().find("[Transpose]"), std::string::npos) << st.message();
  st = run([&](std::vector<LocalTensor<uint8_t>>& v) {
    Transpose(v[1].ReinterpretCast<half>(), v[0].ReinterpretCast<half>(), v[2],
              TransposeParamsExt(1, 2, 16, 16, TransposeType::TRANSPOSE_NCHW2NHWC));  // 1 KiB > 512 bytes
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  st = run([&](std::vector<LocalTensor<uint8_t>>& v) {
    Transpose(v[0].ReinterpretCast<half>(), v[0].ReinterpretCast<half>(), v[2],
              TransposeParamsExt(1, 2, 8, 8, TransposeType::TRANSPOSE_NCHW2NHWC));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("overlaps"), std::string::npos) << st.message();
  st = run([&](std::vector<LocalTensor<uint8_t>>& v) {
    Transpose(v[1].ReinterpretCast<half>(), v[0].ReinterpretCast<half>(), v[2],
              TransposeParamsExt(1, 1, 16, 16, TransposeType::TRANSPOSE_NZ2ND_0213));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kFeatureUnsupported);
}

// TransDataTo5HD: 16 source and 16 destination blocks per repeat, placed at
// scattered block indices of two buffers.
template <typename T>
void five_hd_case(uint8_t repeat, uint16_t dst_rep, uint16_t src_rep, bool dh, bool sh, bool addresses) {
  const size_t blocks = 16 * 3 + size_t{repeat} * std::max(dst_rep, src_rep) + 1;
  const size_t per = 32 / sizeof(T);
  std::vector<uint8_t> src(blocks * 32);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + 7);
  const std::vector<uint8_t> init(blocks * 32, 0xEE);
  size_t sb[16], db[16];
  for (int i = 0; i < 16; ++i) {
    sb[i] = static_cast<size_t>((i * 7) % 16) * 3;  // distinct, out of order
    db[i] = static_cast<size_t>(i) * 3 + 1;
  }
  std::vector<uint8_t> want = init;
  for (uint32_t r = 0; r < repeat; ++r) {
    auto S = [&](int i, size_t e) { return &src[(sb[i] + size_t{r} * src_rep) * 32 + e * sizeof(T)]; };
    auto D = [&](int j, size_t e) { return &want[(db[j] + size_t{r} * dst_rep) * 32 + e * sizeof(T)]; };
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        if (sizeof(T) == 2) std::memcpy(D(j, i), S(i, j), 2);
        if (sizeof(T) == 1) *D(j, (dh ? 16 : 0) + i) = *S(i, (sh ? 16 : 0) + j);
      }
    }
    if (sizeof(T) == 4) {  // 16 x 8 -> 8 x 16: row c is dst blocks 2c, 2c+1
      for (size_t c = 0; c < per; ++c) {
        for (int t = 0; t < 8; ++t) {
          std::memcpy(D(static_cast<int>(2 * c), t), S(t, c), 4);
          std::memcpy(D(static_cast<int>(2 * c + 1), t), S(8 + t, c), 4);
        }
      }
    }
  }
  for (bool elide : vt::elision_modes()) {
    Bytes bs = src, bd = init;
    ASSERT_TRUE(vt::run_ub({&bd, &bs},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto d = v[0].ReinterpretCast<T>();
                             auto s = v[1].ReinterpretCast<T>();
                             TransDataTo5HDParams p(dh, sh, repeat, dst_rep, src_rep);
                             if (addresses) {
                               uint64_t dl[16], sl[16];
                               for (int i = 0; i < 16; ++i) {
                                 dl[i] = d[static_cast<uint32_t>(db[i] * per)].GetPhyAddr();
                                 sl[i] = s[static_cast<uint32_t>(sb[i] * per)].GetPhyAddr();
                               }
                               TransDataTo5HD<T>(dl, sl, p);
                             } else {
                               LocalTensor<T> dl[16], sl[16];
                               for (int i = 0; i < 16; ++i) {
                                 dl[i] = d[static_cast<uint32_t>(db[i] * per)];
                                 sl[i] = s[static_cast<uint32_t>(sb[i] * per)];
                               }
                               TransDataTo5HD(dl, sl, p);
                             }
                           },
                           elide)
                    .ok());
    EXPECT_EQ(bd, want) << "esize " << sizeof(T) << " repeat " << int(repeat) << " addresses " << addresses;
  }
}

TEST(TransDataTo5HD, SixteenBit) {
  five_hd_case<half>(1, 0, 0, false, false, false);
  five_hd_case<half>(3, 48, 50, false, false, false);
  five_hd_case<int16_t>(2, 49, 48, false, false, true);
}
TEST(TransDataTo5HD, ThirtyTwoBit) {
  five_hd_case<float>(1, 0, 0, false, false, false);
  five_hd_case<int32_t>(2, 50, 48, false, false, true);
}
TEST(TransDataTo5HD, EightBitHalves) {
  for (bool dh : {false, true}) {
    for (bool sh : {false, true}) five_hd_case<int8_t>(2, 48, 49, dh, sh, false);
  }
  five_hd_case<uint8_t>(1, 0, 0, true, false, true);
}

TEST(TransDataTo5HD, BoundsError) {
  Bytes bd(16 * 32), bs(16 * 32);
  asc::Status st = vt::run_ub({&bd, &bs},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                LocalTensor<half> dl[16], sl[16];
                                for (int i = 0; i < 16; ++i) {
                                  dl[i] = v[0].ReinterpretCast<half>()[i * 16];
                                  sl[i] = v[1].ReinterpretCast<half>()[i * 16];
                                }
                                TransDataTo5HD(dl, sl, TransDataTo5HDParams(false, false, 2, 1, 1));
                              },
                              true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[TransDataTo5HD]"), std::string::npos) << st.message();
}

}  // namespace
