// ND-DMA DataCopy (NdDmaParams) with the five 2-D uses of CANN's
// documentation (constant padding, nearest-value padding, transpose,
// broadcast, slice), each against the expected image written out here from
// the documented meaning (dst[r][c] of the padded box = src at (r - top,
// c - left) or the padding), plus a 3-D case and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;

template <const AscendC::NdDmaConfig& cfg = AscendC::kDefaultNdDmaConfig, uint8_t dim>
asc::Status nd_copy(const std::vector<float>& src, std::vector<float>& dst, const AscendC::NdDmaLoopInfo<dim>& li,
                    float constant) {
  return kt::run("nd_dma", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECIN> b;
    pipe.InitBuffer(b, static_cast<uint32_t>(dst.size() * 4));
    auto l = b.Get<float>();
    std::memcpy(l.data(), dst.data(), dst.size() * 4);
    AscendC::GlobalTensor<float> g;
    g.SetGlobalBuffer(const_cast<float*>(src.data()), src.size());
    AscendC::NdDmaParams<float, dim> p{li, constant};
    AscendC::NdDmaDci();
    AscendC::DataCopy<float, dim, cfg>(l, g, p);
    std::memcpy(dst.data(), l.data(), dst.size() * 4);
  });
}

std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i) + 1.0f;
  return v;
}

constexpr AscendC::NdDmaConfig kNearest = {true};

TEST(NdDma, ConstantPadding2D) {
  // GM [16, 32] read whole; left 15, right 17, top 13, bottom 3 -> [32, 64].
  auto src = iota(16 * 32);
  std::vector<float> dst(32 * 64, -1.0f);
  nd_copy(src, dst, AscendC::NdDmaLoopInfo<2>{{1, 32}, {1, 64}, {32, 16}, {15, 13}, {17, 3}}, 0.5f).ThrowIfError();
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c) {
      const int sr = r - 13, sc = c - 15;
      const float want = (sr >= 0 && sr < 16 && sc >= 0 && sc < 32) ? src[sr * 32 + sc] : 0.5f;
      ASSERT_EQ(dst[r * 64 + c], want) << r << "," << c;
    }
}

TEST(NdDma, NearestValuePadding2D) {
  // GM [28, 15]; left 11, right 6, top 3, bottom 1 -> 32 x 32 rows of 32.
  auto src = iota(28 * 15);
  std::vector<float> dst(32 * 32, -1.0f);
  nd_copy<kNearest>(src, dst, AscendC::NdDmaLoopInfo<2>{{1, 15}, {1, 32}, {15, 28}, {11, 3}, {6, 1}}, 0.0f)
      .ThrowIfError();
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) {
      const int sr = std::clamp(r - 3, 0, 27), sc = std::clamp(c - 11, 0, 14);
      ASSERT_EQ(dst[r * 32 + c], src[sr * 15 + sc]) << r << "," << c;
    }
}

TEST(NdDma, TransposeBroadcastSlice) {
  auto src = iota(16 * 64);
  std::vector<float> t(64 * 16, -1.0f);
  nd_copy(src, t, AscendC::NdDmaLoopInfo<2>{{1, 64}, {16, 1}, {64, 16}, {0, 0}, {0, 0}}, 0.0f).ThrowIfError();
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 64; ++j) ASSERT_EQ(t[j * 16 + i], src[i * 64 + j]) << i << "," << j;

  auto row = iota(16);
  std::vector<float> b(3 * 16, -1.0f);
  nd_copy(row, b, AscendC::NdDmaLoopInfo<2>{{1, 0}, {1, 16}, {16, 3}, {0, 0}, {0, 0}}, 0.0f).ThrowIfError();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 16; ++c) ASSERT_EQ(b[r * 16 + c], row[c]) << r << "," << c;

  auto big = iota(32 * 64);
  std::vector<float> s(16 * 16, -1.0f);
  nd_copy(big, s, AscendC::NdDmaLoopInfo<2>{{1, 64}, {1, 16}, {5, 7}, {0, 0}, {0, 0}}, 0.0f).ThrowIfError();
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) ASSERT_EQ(s[r * 16 + c], (r < 7 && c < 5) ? big[r * 64 + c] : -1.0f) << r << "," << c;
}

TEST(NdDma, ThreeDimensionsWithUniformPadding) {
  // [2][3][4] source, every loop padded by 1 on both sides through the config.
  static constexpr AscendC::NdDmaConfig kPad1 = {false, 1, 1, false};
  auto src = iota(2 * 3 * 4);
  std::vector<float> dst(4 * 5 * 6, -1.0f);
  nd_copy<kPad1>(src, dst, AscendC::NdDmaLoopInfo<3>{{1, 4, 12}, {1, 6, 30}, {4, 3, 2}, {9, 9, 9}, {9, 9, 9}}, 7.0f)
      .ThrowIfError();
  for (int a = 0; a < 4; ++a)
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 6; ++c) {
        const int sa = a - 1, sr = r - 1, sc = c - 1;
        const bool in = sa >= 0 && sa < 2 && sr >= 0 && sr < 3 && sc >= 0 && sc < 4;
        ASSERT_EQ(dst[a * 30 + r * 6 + c], in ? src[sa * 12 + sr * 4 + sc] : 7.0f) << a << "," << r << "," << c;
      }
}

TEST(NdDma, Errors) {
  auto src = iota(64);
  std::vector<float> small(16, 0.0f);
  auto st = nd_copy(src, small, AscendC::NdDmaLoopInfo<2>{{1, 8}, {1, 8}, {8, 8}, {0, 0}, {0, 0}}, 0.0f);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  EXPECT_NE(st.message().find("ND-DMA"), std::string::npos) << st.message();
  std::vector<float> dst(64, 0.0f);
  st = nd_copy(src, dst, AscendC::NdDmaLoopInfo<2>{{1, 8}, {1, 8}, {8, 9}, {0, 0}, {0, 0}}, 0.0f);  // reads row 8
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  st = nd_copy(src, dst, AscendC::NdDmaLoopInfo<2>{{1, 8}, {1, 8}, {0, 8}, {0, 0}, {0, 0}}, 0.0f);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam) << st.message();
}

}  // namespace
