// LoadData3DParamsV2 with enTranspose (the mmad_load3dv2 sample's use): an L1
// NZ matrix read as a 1 x W feature map (positions = rows, channels =
// columns) lands in L0B as the Zn B = X, and in L0A as the Zz A = X^T, for
// half (16 x 16 fractals) and for float (squares of two 16 x 8 fractals, the
// same orders with C0 = 8; a column count that is a multiple of 8 only is
// padded to 16 in L0B and the padding left untouched, as the mmad_load3dv2
// sample's load3d.py reference does); 8-bit types are refused.
// Expected offsets come from an independent walk of the documented orders.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;

// NZ in L1: column blocks of c0, each holding rpad rows.
int64_t nz(int64_t r, int64_t c, int64_t rpad, int64_t c0) { return (c / c0) * rpad * c0 + r * c0 + c % c0; }
// Zn (L0B, B is k x n): fractal grid (k / c0, n / 16), inside 16 rows of n with c0 k-values.
int64_t zn(int64_t kk, int64_t j, int64_t n1, int64_t c0) { return ((kk / c0) * n1 + j / 16) * 16 * c0 + (j % 16) * c0 + kk % c0; }
// Zz (L0A, A is m x k): fractal grid (m / 16, k / c0), row-major inside.
int64_t zz(int64_t i, int64_t kk, int64_t k1, int64_t c0) { return ((i / 16) * k1 + kk / c0) * 16 * c0 + (i % 16) * c0 + kk % c0; }

// tight: the L0B tensor holds rows x cols only (as CANN's samples size it);
// the padded Zn then reaches past it into the core's L0B, as on the NPU.
template <typename T>
void check(bool to_b, int64_t rows, int64_t cols, bool tight = false) {
  const int64_t c0 = 32 / sizeof(T);
  // X: rows x cols (rows = positions, a multiple of c0 and 16; cols = channels, a multiple of 16).
  const int64_t cols16 = to_b ? (cols + 15) / 16 * 16 : cols;  // L0B pads the columns to 16
  std::vector<T> l1(rows * cols), out(rows * cols16);
  auto val = [](int64_t r, int64_t c) { return static_cast<float>((r * 131 + c * 7) % 251) - 125.0f; };
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) l1[nz(r, c, rows, c0)] = T(val(r, c));
  kt::run_or_throw("load3d_t", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    const uint32_t bytes = static_cast<uint32_t>(rows * cols * sizeof(T));
    const uint32_t out_bytes = static_cast<uint32_t>(rows * cols16 * sizeof(T));
    pipe.InitBuffer(a1, bytes);
    pipe.InitBuffer(a2, out_bytes);
    pipe.InitBuffer(b2, tight ? bytes : out_bytes);
    auto src = a1.Get<T>();
    std::memcpy(src.data(), l1.data(), bytes);
    AscendC::LoadData3DParamsV2<T> p;
    p.l1H = 1;
    p.l1W = static_cast<uint16_t>(rows);
    p.channelSize = static_cast<uint16_t>(cols);
    p.kExtension = static_cast<uint16_t>(cols);
    p.mExtension = static_cast<uint16_t>(rows);
    p.strideW = p.strideH = 1;
    p.filterW = p.filterH = 1;
    p.dilationFilterW = p.dilationFilterH = 1;
    p.enTranspose = true;
    auto dst = to_b ? b2.Get<T>() : a2.Get<T>();
    for (int64_t i = 0; i < rows * cols16; ++i) dst.data()[i] = T(777.0f);  // padding keeps it
    AscendC::LoadData(dst, src, p);
    std::memcpy(out.data(), dst.data(), out_bytes);
  });
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      // L0B: B(k = r, n = c); L0A: A = X^T, A(i = c, k = r) with k1 = rows / c0.
      const int64_t off = to_b ? zn(r, c, cols16 / 16, c0) : zz(c, r, rows / c0, c0);
      ASSERT_EQ(static_cast<float>(out[off]), val(r, c))
          << (to_b ? "L0B" : "L0A") << " " << sizeof(T) << "-byte at " << r << "," << c;
    }
    for (int64_t c = cols; c < cols16; ++c) {
      ASSERT_EQ(static_cast<float>(out[zn(r, c, cols16 / 16, c0)]), 777.0f) << "padding column " << c;
    }
  }
}

TEST(LoadData3DTranspose, L0BGetsZnOfTheImg2colMatrix) {
  check<half>(true, 48, 32);
  check<half>(true, 16, 16);
  check<float>(true, 48, 32);
  check<float>(true, 16, 56);  // 56 channels: padded to 64 in L0B
  check<int32_t>(true, 32, 24);
  check<float>(true, 48, 72, /*tight=*/true);  // mmad_load3dv2 scenario 3's B: 48 x 72 in a 48 x 72 tensor
}

TEST(LoadData3DTranspose, L0AGetsZzOfItsTranspose) {
  check<half>(false, 32, 48);
  check<bfloat16_t>(false, 16, 32);
  check<float>(false, 48, 32);
  check<float>(false, 16, 16);
}

TEST(LoadData3DTranspose, Int8AndBadExtentsAreErrors) {
  auto st = kt::run("load3d_t_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::B2> b2;
    pipe.InitBuffer(a1, 2048);
    pipe.InitBuffer(b2, 2048);
    AscendC::LoadData3DParamsV2<int8_t> p;
    p.l1H = 1;
    p.l1W = 32;
    p.channelSize = 32;
    p.kExtension = 32;
    p.mExtension = 32;
    p.enTranspose = true;
    AscendC::LoadData(b2.Get<int8_t>(), a1.Get<int8_t>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kFeatureUnsupported);
  EXPECT_NE(st.message().find("enTranspose"), std::string::npos) << st.message();
  st = kt::run("load3d_t_err2", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::B2> b2;
    pipe.InitBuffer(a1, 4096);
    pipe.InitBuffer(b2, 4096);
    AscendC::LoadData3DParamsV2<half> p;
    p.l1H = 1;
    p.l1W = 16;
    p.channelSize = 16;
    p.kExtension = 16;
    p.mExtension = 8;  // not a multiple of 16
    p.enTranspose = true;
    AscendC::LoadData(b2.Get<half>(), a1.Get<half>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("mExtension"), std::string::npos) << st.message();
}

}  // namespace
