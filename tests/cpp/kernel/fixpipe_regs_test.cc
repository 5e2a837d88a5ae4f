// The Fixpipe configuration registers read by DataCopy L0C -> GM
// (DataCopyCO12DstParams), as the data_copy_l0c2gm sample uses them:
// SetFixpipePreQuantFlag (scalar DEQF16 / REQ8), SetFixPipeConfig (a
// per-column table in the Fixpipe Buffer, filled from L1 by DataCopy with
// blockLen in 128-byte units), SetFixpipeNz2ndFlag; and DataCopy L1 -> C2
// (BiasTable) counting blockLen in 64-byte units (dav-2201), as CANN
// documents. Expected values are computed here from the L0C contents.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;

uint64_t scale_bits(float s) {
  uint32_t b;
  std::memcpy(&b, &s, 4);
  return b;
}

// m x n int32 L0C (NZ, srcStride = m rows) -> half GM through DataCopy with
// DEQF16 (scalar) or VDEQF16 (table); nz2ndEn = ND output.
std::vector<half> run(uint16_t m, uint16_t n, const std::vector<int32_t>& l0c, bool vector_quant,
                      const std::vector<float>& scales) {
  std::vector<half> out(size_t(m) * n, half(-1.0f));
  kt::run_or_throw("fixpipe_regs", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> c1;
    AscendC::TBuf<TPosition::C1> l1;
    pipe.InitBuffer(c1, static_cast<uint32_t>(l0c.size() * 4));
    pipe.InitBuffer(l1, 4096);
    auto lc = c1.Get<int32_t>();
    std::memcpy(lc.data(), l0c.data(), l0c.size() * 4);
    AscendC::DataCopyCO12DstParams p;
    p.nSize = n;
    p.mSize = m;
    p.srcStride = m;
    p.dstStride = n;
    p.nz2ndEn = true;
    if (vector_quant) {
      p.quantPre = QuantMode_t::VDEQF16;
      auto table = l1.Get<uint64_t>();
      for (uint16_t j = 0; j < n; ++j) table.data()[j] = scale_bits(scales[j]);
      AscendC::LocalTensor<uint64_t> fb(TPosition::C2PIPE2GM, 0, n);
      std::memset(fb.data(), 0, n * 8);
      // 128-byte units: ceil(n * 8 / 128) of them carry all n entries.
      AscendC::DataCopy(fb, table, AscendC::DataCopyParams(1, static_cast<uint16_t>((n * 8 + 127) / 128), 0, 0));
      AscendC::SetFixPipeConfig(fb);
    } else {
      p.quantPre = QuantMode_t::DEQF16;
      AscendC::SetFixpipePreQuantFlag(scale_bits(scales[0]));
    }
    AscendC::SetFixpipeNz2ndFlag(1, 0, 0);
    AscendC::GlobalTensor<half> g;
    g.SetGlobalBuffer(out.data(), out.size());
    AscendC::DataCopy(g, lc, p);
  });
  return out;
}

std::vector<int32_t> make_l0c(uint16_t m, uint16_t n) {
  std::vector<int32_t> v(size_t((n + 15) / 16) * m * 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i % 97) - 48;
  return v;
}

TEST(FixpipeRegs, ScalarDeqf16FromSetFixpipePreQuantFlag) {
  const uint16_t m = 16, n = 32;
  auto l0c = make_l0c(m, n);
  auto out = run(m, n, l0c, false, {0.5f});
  for (uint16_t i = 0; i < m; ++i)
    for (uint16_t j = 0; j < n; ++j) {
      const float want = float(half(float(l0c[size_t(j / 16) * m * 16 + i * 16 + j % 16]) * 0.5f));
      ASSERT_EQ(float(out[size_t(i) * n + j]), want) << i << "," << j;
    }
}

TEST(FixpipeRegs, VectorDeqf16FromTheFixpipeBuffer) {
  const uint16_t m = 32, n = 48;  // 48 x 8 bytes = 3 units of 128 bytes
  auto l0c = make_l0c(m, n);
  std::vector<float> scales(n);
  for (uint16_t j = 0; j < n; ++j) scales[j] = 0.25f * float(j % 7 + 1);
  auto out = run(m, n, l0c, true, scales);
  for (uint16_t i = 0; i < m; ++i)
    for (uint16_t j = 0; j < n; ++j) {
      const float want = float(half(float(l0c[size_t(j / 16) * m * 16 + i * 16 + j % 16]) * scales[j]));
      ASSERT_EQ(float(out[size_t(i) * n + j]), want) << i << "," << j;
    }
}

TEST(FixpipeRegs, VectorModeWithoutATableIsAnError) {
  // A new block starts with no table: VDEQF16 names the missing parameters.
  auto st = kt::run("fixpipe_regs_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(c1, 16 * 16 * 4);
    AscendC::DataCopyCO12DstParams p(16, 16, 16, 16, QuantMode_t::VDEQF16, 0, false, true);
    std::vector<half> out(256);
    AscendC::GlobalTensor<half> g;
    g.SetGlobalBuffer(out.data(), out.size());
    AscendC::DataCopy(g, c1.Get<int32_t>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam) << st.message();
  EXPECT_NE(st.message().find("VDEQF16"), std::string::npos) << st.message();
}

// int8 output in NZ (CANN's "Int8 Channel Merge", always on): two adjacent
// 16-column L0C fractals become one 16 x 32 fractal column of the destination,
// dstStride 32-byte units apart; with an odd number of fractals the last 16
// columns stay a 16-wide column. REQ8 (int32 -> int8, scalar scale, bit 46 =
// signed) with and without ReLU, as the data_copy_l0c2gm sample's scenarios
// 3 and 6 use it; expected values from the L0C contents here.
std::vector<int8_t> run_int8_nz(uint16_t m, uint16_t n, uint32_t dst_stride, const std::vector<int32_t>& l0c,
                                float scale, bool relu, size_t out_size) {
  std::vector<int8_t> out(out_size, int8_t(-99));
  kt::run_or_throw("fixpipe_int8_nz", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(c1, static_cast<uint32_t>(l0c.size() * 4));
    auto lc = c1.Get<int32_t>();
    std::memcpy(lc.data(), l0c.data(), l0c.size() * 4);
    AscendC::DataCopyCO12DstParams p;
    p.nSize = n;
    p.mSize = m;
    p.srcStride = m;
    p.dstStride = dst_stride;
    p.quantPre = QuantMode_t::REQ8;
    p.reluPre = relu ? 1 : 0;
    AscendC::SetFixpipePreQuantFlag(scale_bits(scale) | (uint64_t{1} << 46));
    AscendC::GlobalTensor<int8_t> g;
    g.SetGlobalBuffer(out.data(), out.size());
    AscendC::DataCopy(g, lc, p);
  });
  return out;
}

int8_t req8(int32_t v, float scale, bool relu) {
  float f = float(relu && v < 0 ? 0 : v) * scale;
  f = std::nearbyint(f);
  return static_cast<int8_t>(std::min(127.0f, std::max(-128.0f, f)));
}

TEST(FixpipeInt8Nz, ChannelMergeEvenAndOddFractalCounts) {
  for (uint16_t n : {64, 48, 16}) {
    for (bool relu : {false, true}) {
      const uint16_t m = 32;
      const uint32_t stride = m + 8;  // 32-byte units = int8 elements / 32; some room between columns
      auto l0c = make_l0c(m, n);
      for (auto& v : l0c) v *= 5;  // reach past the int8 range after scaling
      const size_t groups = (n + 31) / 32;
      const size_t size = (groups - 1) * stride * 32 + size_t(m) * 32 + 64;
      auto out = run_int8_nz(m, n, stride, l0c, 0.75f, relu, size);
      std::vector<int8_t> want(size, int8_t(-99));
      for (uint16_t i = 0; i < m; ++i)
        for (uint16_t j = 0; j < n; ++j) {
          const size_t g = j / 32, w = (g + 1 == groups && n % 32) ? 16 : 32;
          want[g * stride * 32 + i * w + j % 32] = req8(l0c[size_t(j / 16) * m * 16 + i * 16 + j % 16], 0.75f, relu);
        }
      for (size_t k = 0; k < size; ++k) ASSERT_EQ(int(out[k]), int(want[k])) << "n=" << n << " relu=" << relu << " @" << k;
    }
  }
}

TEST(FixpipeInt8Nz, NSizeMustBeAMultipleOfSixteen) {
  auto st = kt::run("fixpipe_int8_nz_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(c1, 32 * 16 * 4);
    AscendC::DataCopyCO12DstParams p(24, 16, 16, 16, QuantMode_t::REQ8, 0, false, false);
    std::vector<int8_t> out(4096);
    AscendC::GlobalTensor<int8_t> g;
    g.SetGlobalBuffer(out.data(), out.size());
    AscendC::DataCopy(g, c1.Get<int32_t>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam) << st.message();
  EXPECT_NE(st.message().find("multiple of 16"), std::string::npos) << st.message();
}

TEST(BiasTableCopy, L1ToC2CountsSixtyFourByteUnits) {
  std::vector<float> got(64, -1.0f);
  kt::run_or_throw("l1_to_bt", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::C1> l1;
    AscendC::TBuf<TPosition::C2> bt;
    pipe.InitBuffer(l1, 256);
    pipe.InitBuffer(bt, 256);
    auto src = l1.Get<float>();
    auto dst = bt.Get<float>();
    for (int i = 0; i < 64; ++i) {
      src.data()[i] = float(i) + 0.5f;
      dst.data()[i] = -1.0f;
    }
    // 3 units of 64 bytes = 48 floats.
    AscendC::DataCopy(dst, src, AscendC::DataCopyParams(1, 3, 0, 0));
    std::memcpy(got.data(), dst.data(), 256);
  });
  for (int i = 0; i < 64; ++i) ASSERT_EQ(got[i], i < 48 ? float(i) + 0.5f : -1.0f) << i;
}

}  // namespace
