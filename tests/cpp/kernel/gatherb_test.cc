// Gatherb (32-byte block gather) against CANN's documented pseudo-code: repeat
// i, block j comes from byte offset[8 i + j] of src and lands at block
// (i * dstRepStride + j * dstBlkStride) of dst (dstBlkStride 0 = 1). The
// documented example (uint16_t 0..127, offsets 224, 192, ..., 0) and strided
// forms are checked element by element; bad offsets are errors that leave dst
// untouched.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;

// Runs Gatherb on src_n elements of T with the given offsets; dst (dst_n
// elements) starts as `fill`.
template <typename T>
asc::Status gatherb(const std::vector<T>& src, const std::vector<uint32_t>& offsets, uint8_t repeat,
                    AscendC::GatherRepeatParams rp, std::vector<T>& dst, bool same = false) {
  return kt::run("gatherb", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> bs, bd, bo;
    pipe.InitBuffer(bs, static_cast<uint32_t>(src.size() * sizeof(T)));
    pipe.InitBuffer(bd, static_cast<uint32_t>(dst.size() * sizeof(T)));
    pipe.InitBuffer(bo, static_cast<uint32_t>((offsets.size() * 4 + 31) / 32 * 32));
    auto ls = bs.Get<T>();
    auto ld = bd.Get<T>();
    auto lo = bo.Get<uint32_t>();
    std::memcpy(ls.data(), src.data(), src.size() * sizeof(T));
    std::memcpy(ld.data(), dst.data(), dst.size() * sizeof(T));
    std::memcpy(lo.data(), offsets.data(), offsets.size() * 4);
    AscendC::Gatherb<T>(same ? ls : ld, ls, lo, repeat, rp);
    std::memcpy(dst.data(), ld.data(), dst.size() * sizeof(T));
  });
}

template <typename T>
void check_strided(uint8_t repeat, uint8_t blk, uint8_t rep) {
  const uint32_t per_block = 32 / sizeof(T);
  const uint32_t src_blocks = 40;
  std::vector<T> src(src_blocks * per_block);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<T>(i * 3 + 1);
  std::vector<uint32_t> off(size_t(repeat) * 8);
  for (size_t i = 0; i < off.size(); ++i) off[i] = static_cast<uint32_t>(((i * 7 + 5) % src_blocks) * 32);
  const uint32_t eff_blk = blk == 0 ? 1 : blk;
  const size_t dst_blocks = size_t(repeat - 1) * rep + 7 * eff_blk + 1;
  const T fill = static_cast<T>(-7);
  std::vector<T> dst(dst_blocks * per_block, fill), want = dst;
  for (uint32_t i = 0; i < repeat; ++i)
    for (uint32_t j = 0; j < 8; ++j)
      for (uint32_t e = 0; e < per_block; ++e)
        want[(size_t(i) * rep + size_t(j) * eff_blk) * per_block + e] = src[off[i * 8 + j] / sizeof(T) + e];
  gatherb<T>(src, off, repeat, AscendC::GatherRepeatParams(blk, rep), dst).ThrowIfError();
  for (size_t e = 0; e < dst.size(); ++e) {
    ASSERT_EQ(dst[e], want[e]) << sizeof(T) << "-byte repeat=" << int(repeat) << " blk=" << int(blk)
                               << " rep=" << int(rep) << " at " << e;
  }
}

TEST(Gatherb, DocumentedExample) {
  std::vector<uint16_t> src(128), dst(128, 0);
  for (uint16_t i = 0; i < 128; ++i) src[i] = i;
  std::vector<uint32_t> off = {224, 192, 160, 128, 96, 64, 32, 0};
  gatherb<uint16_t>(src, off, 1, AscendC::GatherRepeatParams{1, 8}, dst).ThrowIfError();
  for (uint32_t b = 0; b < 8; ++b)
    for (uint32_t e = 0; e < 16; ++e) ASSERT_EQ(dst[b * 16 + e], (7 - b) * 16 + e) << b << "," << e;
}

TEST(Gatherb, StridesAndTypes) {
  check_strided<uint16_t>(3, 1, 8);
  check_strided<uint32_t>(2, 2, 16);
  check_strided<uint32_t>(4, 0, 8);   // dstBlkStride 0 counts as 1
  check_strided<uint16_t>(2, 1, 3);   // repeats overlap: later blocks win, as the loop order does
  check_strided<int8_t>(1, 1, 8);
}

TEST(Gatherb, ZeroRepeatIsANop) {
  std::vector<uint32_t> src(64, 5), dst(64, 9);
  gatherb<uint32_t>(src, std::vector<uint32_t>(8, 0), 0, {}, dst).ThrowIfError();
  for (uint32_t v : dst) ASSERT_EQ(v, 9u);
}

TEST(Gatherb, BadOffsetsAreErrorsAndLeaveDst) {
  std::vector<uint16_t> src(128, 1), dst(128, 9);
  std::vector<uint32_t> off = {0, 32, 64, 96, 128, 160, 192, 17};
  auto st = gatherb<uint16_t>(src, off, 1, {}, dst);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam) << st.message();
  EXPECT_NE(st.message().find("offset[7] = 17"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("Gatherb"), std::string::npos) << st.message();
  for (uint16_t v : dst) ASSERT_EQ(v, 9);
  off[7] = 256;  // src has 256 bytes: the block would start at its end
  st = gatherb<uint16_t>(src, off, 1, {}, dst);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  std::vector<uint16_t> small(64, 0);  // 4 blocks, 8 needed
  off[7] = 0;
  st = gatherb<uint16_t>(src, off, 1, {}, small);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  st = gatherb<uint16_t>(src, off, 1, {}, dst, /*same=*/true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam) << st.message();
}

}  // namespace
