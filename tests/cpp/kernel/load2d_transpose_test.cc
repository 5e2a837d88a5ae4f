// LoadDataWithTranspose (L1 -> L0A/L0B) for int4b_t, 8-, 16- and 32-bit
// elements against a reference that follows CANN's documented walk (the
// load_data_l12l0 sample's pseudocode, docs/zh/api LoadDataWithTranspose):
// each repeat reads one square of fractals and writes its transpose, the
// squares startIndex/srcStride apart (addrMode 1: backwards), the repeats
// dstGap and the fractals of a repeat dstFracGap apart (512-byte units).
// The reference maps every destination element to the source element index
// it must hold; the source holds distinct values, so any misplacement shows.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;

struct Params {
  int start, rep, stride, gap, frac_gap, addr_mode;
};

// dst element -> src element (-1: not written), in elements of `bits`.
std::vector<int64_t> reference(int bits, const Params& p, int64_t dst_elems) {
  std::vector<int64_t> map(dst_elems, -1);
  const int64_t frac = 512 * 8 / bits;  // elements in a 512-byte fractal
  const int64_t fracs = bits == 4 ? 4 : bits == 16 ? 1 : 2;
  const int64_t square = frac * fracs;
  for (int64_t i = 0; i < p.rep; ++i) {
    const int64_t sq = p.addr_mode ? p.start - i * p.stride : p.start + i * p.stride;
    const int64_t src0 = sq * square;
    const int64_t dst0 = (p.gap + 1) * i * frac;
    if (bits == 32) {
      // Two 16 x 8 fractals = the left and right halves of a 16 x 16 square;
      // the transposed square is split the same way (the pseudocode's four
      // 8 x 8 quarter moves).
      for (int64_t half = 0; half < 2; ++half) {          // source fractal (column half of S)
        for (int64_t quarter = 0; quarter < 2; ++quarter) {  // upper/lower 8 rows of that fractal
          for (int64_t k = 0; k < 8; ++k) {
            const int64_t s = src0 + half * frac + quarter * 64 + k;
            const int64_t d = dst0 + quarter * (p.frac_gap + 1) * frac + half * 64 + 8 * k;
            for (int64_t c = 0; c < 8; ++c) map[d + c] = s + 8 * c;
          }
        }
      }
      continue;
    }
    const int64_t side = 256 / bits;  // the square is side x side, fractals of 16 rows
    for (int64_t j = 0; j < fracs; ++j) {
      const int64_t df = dst0 + frac * (p.frac_gap + 1) * j;
      for (int64_t k = 0; k < 16; ++k) {
        const int64_t s = src0 + j * 16 + k;  // column j*16+k of the square
        for (int64_t c = 0; c < side; ++c) map[df + k * side + c] = s + c * side;
      }
    }
  }
  return map;
}

// The value source element i holds (masked to the element's bits): a hash,
// so that a misplaced element differs from the wanted one almost surely even
// for 4- and 8-bit elements.
int64_t value(int64_t i) {
  uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ULL;
  x ^= x >> 29;
  return static_cast<int64_t>((x * 0xBF58476D1CE4E5B9ULL) >> 32);
}

// Runs the load on src elements 0..n-1 (element i = value(i)) and returns
// the destination's elements (dst prefilled with `fill`).
template <typename T>
std::vector<int64_t> run_load(int bits, const Params& p, int64_t src_elems, int64_t dst_elems, int64_t fill) {
  const int64_t src_bytes = src_elems * bits / 8, dst_bytes = dst_elems * bits / 8;
  std::vector<uint8_t> in(src_bytes), out(dst_bytes);
  auto put = [&](std::vector<uint8_t>& b, int64_t i, int64_t v) {
    if (bits == 4) {
      const int sh = int(i & 1) * 4;
      b[i / 2] = uint8_t((b[i / 2] & ~(0xF << sh)) | ((v & 0xF) << sh));
    } else {
      const uint32_t u = static_cast<uint32_t>(v);
      std::memcpy(&b[i * bits / 8], &u, bits / 8);
    }
  };
  for (int64_t i = 0; i < src_elems; ++i) put(in, i, value(i));
  for (int64_t i = 0; i < dst_elems; ++i) put(out, i, fill);
  kt::run_or_throw("load2d_t", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::B2> b2;
    pipe.InitBuffer(a1, static_cast<uint32_t>(src_bytes));
    pipe.InitBuffer(b2, static_cast<uint32_t>(dst_bytes));
    auto src = a1.Get<T>();
    auto dst = b2.Get<T>();
    std::memcpy(src.raw(), in.data(), src_bytes);
    std::memcpy(dst.raw(), out.data(), dst_bytes);
    AscendC::LoadData2dTransposeParams lp;
    lp.startIndex = static_cast<uint16_t>(p.start);
    lp.repeatTimes = static_cast<uint8_t>(p.rep);
    lp.srcStride = static_cast<uint16_t>(p.stride);
    lp.dstGap = static_cast<uint16_t>(p.gap);
    lp.dstFracGap = static_cast<uint16_t>(p.frac_gap);
    lp.addrMode = static_cast<uint8_t>(p.addr_mode);
    AscendC::LoadDataWithTranspose(dst, src, lp);
    std::memcpy(out.data(), dst.raw(), dst_bytes);
  });
  std::vector<int64_t> got(dst_elems);
  for (int64_t i = 0; i < dst_elems; ++i) {
    if (bits == 4) {
      got[i] = (out[i / 2] >> ((i & 1) * 4)) & 0xF;
    } else {
      uint32_t u = 0;
      std::memcpy(&u, &out[i * bits / 8], bits / 8);
      got[i] = u;
    }
  }
  return got;
}

template <typename T>
void check(int bits, const Params& p) {
  const int64_t frac = 512 * 8 / bits;
  const int64_t fracs = bits == 4 ? 4 : bits == 16 ? 1 : 2;
  const int64_t lo = p.addr_mode ? p.start - (p.rep - 1) * p.stride : p.start;
  const int64_t src_elems = (lo + (p.rep - 1) * p.stride + 1 + 1) * frac * fracs;  // one spare square
  const int64_t dst_elems = ((p.rep - 1) * (p.gap + 1) + (fracs - 1) * (p.frac_gap + 1) + 2) * frac;
  const int64_t mask = bits == 32 ? 0xFFFFFFFFLL : (1LL << bits) - 1;
  const int64_t fill = 0x5A5A5A5A & mask;  // the gaps keep it
  const auto map = reference(bits, p, dst_elems);
  const auto got = run_load<T>(bits, p, src_elems, dst_elems, fill);
  int bad = 0;
  for (int64_t i = 0; i < dst_elems && bad < 5; ++i) {
    const int64_t want = map[i] >= 0 ? value(map[i]) & mask : fill;
    if (got[i] != want) {
      ++bad;
      ADD_FAILURE() << bits << "-bit start=" << p.start << " rep=" << p.rep << " stride=" << p.stride
                    << " gap=" << p.gap << " fracGap=" << p.frac_gap << " addrMode=" << p.addr_mode << ": dst[" << i
                    << "] = " << got[i] << ", want " << want << " (src " << map[i] << ")";
    }
  }
}

const Params kCases[] = {
    {0, 1, 0, 0, 0, 0},  // one square, fractals adjacent
    {0, 3, 1, 1, 0, 0},  // the doc's first example: dstGap 1 leaves room for the second fractal
    {0, 3, 1, 0, 2, 0},  // the doc's second example: dstFracGap 2
    {1, 2, 1, 1, 0, 0},  // startIndex 1 skips a square
    {0, 2, 2, 2, 1, 0},  // non-contiguous: srcStride 2, dstGap 2, dstFracGap 1
    {2, 3, 1, 1, 0, 1},  // addrMode 1: squares 2, 1, 0
};

}  // namespace

TEST(LoadDataWithTranspose, Int8Squares32x32) {
  for (const auto& p : kCases) check<int8_t>(8, p);
}
TEST(LoadDataWithTranspose, Uint8) { check<uint8_t>(8, {0, 2, 1, 1, 0, 0}); }
TEST(LoadDataWithTranspose, Half16x16) {
  for (const auto& p : kCases) check<half>(16, p);
}
TEST(LoadDataWithTranspose, Float16x16FromTwo16x8) {
  for (const auto& p : kCases) check<float>(32, p);
}
TEST(LoadDataWithTranspose, Int32AndUint32) {
  check<int32_t>(32, {0, 3, 1, 1, 0, 0});
  check<uint32_t>(32, {0, 3, 1, 0, 2, 0});
}
TEST(LoadDataWithTranspose, Int4Squares64x64) {
  for (const auto& p : kCases) check<AscendC::int4b_t>(4, p);
}

TEST(LoadDataWithTranspose, RepeatZeroIsANop) {
  // CANN: repeatTimes = 0 is a NOP; the destination keeps its bytes.
  const auto got = run_load<int8_t>(8, {0, 0, 1, 0, 0, 0}, 2048, 1024, 0x33);
  for (auto v : got) ASSERT_EQ(v, 0x33);
}

TEST(LoadDataWithTranspose, Errors) {
  // Source too short for the walk.
  auto st = kt::run("load2d_t_err", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, 1024);
    pipe.InitBuffer(a2, 4096);
    AscendC::LoadData2dTransposeParams lp(0, 2, 1, 1, 0);
    AscendC::LoadDataWithTranspose(a2.Get<int8_t>(), a1.Get<int8_t>(), lp);  // 2 squares of 1024 B
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("LoadDataWithTranspose"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("source"), std::string::npos) << st.message();
  // addrMode 1 past the start of the source.
  st = kt::run("load2d_t_err2", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, 8192);
    pipe.InitBuffer(a2, 8192);
    AscendC::LoadData2dTransposeParams lp(1, 3, 1, 1, 0, 1);
    AscendC::LoadDataWithTranspose(a2.Get<float>(), a1.Get<float>(), lp);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("addrMode"), std::string::npos) << st.message();
  // Destination too short for dstFracGap.
  st = kt::run("load2d_t_err3", 1, [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, 8192);
    pipe.InitBuffer(a2, 1024);
    AscendC::LoadData2dTransposeParams lp(0, 1, 1, 0, 3);
    AscendC::LoadDataWithTranspose(a2.Get<int8_t>(), a1.Get<int8_t>(), lp);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("destination"), std::string::npos) << st.message();
}
