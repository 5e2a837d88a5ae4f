// Mask/repeat forms of Cast and Gather, and PairReduceSum, against scalar
// models of the lane layout (vec_test_util.h) written from the Ascend C
// semantics; elision on and off; error reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "asc/core/half.h"
#include "vec_test_util.h"

namespace {

using namespace AscendC;
using vt::Bytes;

// Element index of lane l of repeat r of an operand with e-byte elements.
size_t cast_lane(size_t e, uint32_t r, uint32_t l, uint32_t blk, uint32_t rep) {
  const uint32_t per = static_cast<uint32_t>(32 / e);
  return (size_t{r} * rep + size_t{l / per} * blk) * per + l % per;
}

struct Layout {
  uint64_t mask[2];
  bool bits;  // pass mask as uint64_t[2] (else mask[0] is a count)
  uint8_t repeat;
  UnaryRepeatParams p;
};

template <typename D, typename S>
void cast_case(RoundMode mode, const Layout& lay) {
  constexpr size_t wide = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
  const uint32_t L = 256 / wide;
  uint64_t m[2] = {lay.mask[0], lay.mask[1]};
  if (!lay.bits) asc::kernel::simd::mask_from_count(lay.mask[0], m);
  if (L == 64) m[1] = 0;
  auto on = [&](uint32_t l) { return ((m[l / 64] >> (l % 64)) & 1u) != 0; };
  size_t ns = 1, nd = 1;
  for (uint32_t r = 0; r < lay.repeat; ++r) {
    for (uint32_t l = 0; l < L; ++l) {
      if (!on(l)) continue;
      ns = std::max(ns, cast_lane(sizeof(S), r, l, lay.p.srcBlkStride, lay.p.srcRepStride) + 1);
      nd = std::max(nd, cast_lane(sizeof(D), r, l, lay.p.dstBlkStride, lay.p.dstRepStride) + 1);
    }
  }
  const auto src = vt::random_vec<S>(ns, static_cast<uint32_t>(ns * 7 + nd), -300, 300);
  const auto init = vt::random_vec<D>(nd, 99, -5, 5, false);
  std::vector<D> want = init;
  for (uint32_t r = 0; r < lay.repeat; ++r) {
    for (uint32_t l = 0; l < L; ++l) {
      if (!on(l)) continue;
      D one;  // each lane converts as the count form converts one element
      asc::kernel::simd::cast(asc::dtype_of<D>(), asc::dtype_of<S>(), mode, &one,
                              &src[cast_lane(sizeof(S), r, l, lay.p.srcBlkStride, lay.p.srcRepStride)], 1);
      want[cast_lane(sizeof(D), r, l, lay.p.dstBlkStride, lay.p.dstRepStride)] = one;
    }
  }
  for (bool elide : vt::elision_modes()) {
    Bytes bd = vt::to_bytes(init), bs = vt::to_bytes(src);
    ASSERT_TRUE(vt::run_ub({&bd, &bs},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto d = v[0].ReinterpretCast<D>();
                             auto s = v[1].ReinterpretCast<S>();
                             d.SetSize(static_cast<uint32_t>(nd));
                             s.SetSize(static_cast<uint32_t>(ns));
                             if (lay.bits) {
                               Cast(d, s, mode, m, lay.repeat, lay.p);
                             } else {
                               Cast(d, s, mode, lay.mask[0], lay.repeat, lay.p);
                             }
                           },
                           elide)
                    .ok());
    EXPECT_TRUE(vt::same_bits(vt::from_bytes<D>(bd, nd), want))
        << asc::dtype_name(asc::dtype_of<S>()) << " -> " << asc::dtype_name(asc::dtype_of<D>()) << " mode "
        << static_cast<int>(mode) << " repeat " << int(lay.repeat);
  }
}

template <typename D, typename S>
void cast_layouts(RoundMode mode) {
  constexpr size_t wide = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
  const uint32_t L = 256 / wide;
  // Contiguous full repeats (the count form), a count mask, bit masks with
  // gaps, block and repeat strides, a repeat stride of 0.
  const uint32_t rd = static_cast<uint32_t>(L * sizeof(D) / 32), rs = static_cast<uint32_t>(L * sizeof(S) / 32);
  const std::vector<Layout> lays = {
      {{L, 0}, false, 3, UnaryRepeatParams(1, 1, static_cast<uint8_t>(rd), static_cast<uint8_t>(rs))},
      {{L - 5, 0}, false, 2, UnaryRepeatParams(1, 1, static_cast<uint8_t>(rd), static_cast<uint8_t>(rs))},
      {{0xF0F0F0F00FF0F00Full, 0x8000000000000001ull}, true, 3, UnaryRepeatParams(2, 1, 17, 9)},
      {{~0ull, ~0ull}, true, 2, UnaryRepeatParams(1, 3, 8, 24)},
      {{0x5555555555555555ull, 0xAAAAAAAAAAAAAAAAull}, true, 4, UnaryRepeatParams(1, 2, 0, 16)},
      {{17, 0}, false, 0, UnaryRepeatParams()},
  };
  for (const auto& lay : lays) cast_case<D, S>(mode, lay);
}

TEST(CastRepeat, FloatHalf) {
  for (RoundMode m : {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                      RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD}) {
    cast_layouts<half, float>(m);
  }
  cast_layouts<float, half>(RoundMode::CAST_NONE);
}
TEST(CastRepeat, FloatInt) {
  for (RoundMode m : {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL, RoundMode::CAST_ROUND,
                      RoundMode::CAST_TRUNC}) {
    cast_layouts<int32_t, float>(m);
    cast_layouts<int16_t, half>(m);
  }
  cast_layouts<float, int32_t>(RoundMode::CAST_NONE);
}
TEST(CastRepeat, EightBit) {
  cast_layouts<half, int8_t>(RoundMode::CAST_NONE);
  cast_layouts<int8_t, half>(RoundMode::CAST_TRUNC);
  cast_layouts<half, uint8_t>(RoundMode::CAST_NONE);
}

TEST(CastRepeat, Errors) {
  Bytes bd(256), bs(256);
  asc::Status st = vt::run_ub({&bd, &bs},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                Cast(v[0].ReinterpretCast<half>(), v[1].ReinterpretCast<float>(),
                                     RoundMode::CAST_RINT, uint64_t(65), 1, UnaryRepeatParams(1, 1, 4, 8));
                              },
                              true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Cast]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("mask 65 exceeds the 64 lanes"), std::string::npos) << st.message();
  st = vt::run_ub({&bd, &bs},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {  // two repeats of float need 512 bytes of src
                    Cast(v[0].ReinterpretCast<half>(), v[1].ReinterpretCast<float>(), RoundMode::CAST_RINT,
                         uint64_t(64), 2, UnaryRepeatParams(1, 1, 4, 8));
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("of src"), std::string::npos) << st.message();
  st = vt::run_ub({&bd, &bs},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    Cast(v[0].ReinterpretCast<int32_t>(), v[1].ReinterpretCast<float>(), RoundMode::CAST_ODD,
                         uint64_t(3), 1, UnaryRepeatParams(2, 2, 8, 8));
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("CAST_ODD"), std::string::npos) << st.message();
}

// ---------------------------------------------------------------- Gather

template <typename T>
void gather_rep_case(const uint64_t mask_in[2], bool bits, uint8_t repeat, uint16_t dst_rep) {
  const uint32_t L = 256 / sizeof(T);
  uint64_t m[2] = {mask_in[0], mask_in[1]};
  if (!bits) asc::kernel::simd::mask_from_count(mask_in[0], m);
  if (L == 64) m[1] = 0;
  const size_t ns = 300, nd = size_t{repeat} * dst_rep * (32 / sizeof(T)) + L;
  const auto src = vt::random_vec<T>(ns, 5);
  std::mt19937 rng(repeat + dst_rep);
  std::vector<uint32_t> off(size_t{repeat} * L);
  for (auto& o : off) o = static_cast<uint32_t>((rng() % (ns - 3)) * sizeof(T));
  const auto init = vt::random_vec<T>(nd, 6);
  std::vector<T> want = init;
  for (uint32_t r = 0; r < repeat; ++r) {
    for (uint32_t l = 0; l < L; ++l) {
      if ((m[l / 64] >> (l % 64)) & 1u) {
        want[size_t{r} * dst_rep * (32 / sizeof(T)) + l] = src[off[size_t{r} * L + l] / sizeof(T) + 3];
      }
    }
  }
  for (bool elide : vt::elision_modes()) {
    Bytes bd = vt::to_bytes(init), bs = vt::to_bytes(src), bo = vt::to_bytes(off);
    ASSERT_TRUE(vt::run_ub({&bd, &bs, &bo},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto s = v[1].ReinterpretCast<T>();
                             s.SetSize(static_cast<uint32_t>(ns));
                             auto o = v[2].ReinterpretCast<uint32_t>();
                             o.SetSize(static_cast<uint32_t>(off.size()));
                             if (bits) {
                               Gather(v[0].ReinterpretCast<T>(), s, o, uint32_t(3 * sizeof(T)), m, repeat, dst_rep);
                             } else {
                               Gather(v[0].ReinterpretCast<T>(), s, o, uint32_t(3 * sizeof(T)), mask_in[0], repeat,
                                      dst_rep);
                             }
                           },
                           elide)
                    .ok());
    EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, nd), want)) << "repeat " << int(repeat) << " dstRep " << dst_rep;
  }
}

template <typename T>
void gather_rep_all() {
  const uint64_t full[2] = {~0ull, ~0ull}, holes[2] = {0x00FF00F0F00F0F01ull, 0x8000000000000003ull},
                 cnt[2] = {37, 0}, cnt_full[2] = {256 / sizeof(T), 0};
  gather_rep_case<T>(full, true, 1, 8);
  gather_rep_case<T>(full, true, 3, 12);
  gather_rep_case<T>(holes, true, 2, 8);
  gather_rep_case<T>(cnt, false, 4, 9);
  gather_rep_case<T>(cnt_full, false, 2, 8);
  gather_rep_case<T>(cnt, false, 0, 8);
}

TEST(GatherRepeat, Float) { gather_rep_all<float>(); }
TEST(GatherRepeat, Half) { gather_rep_all<half>(); }
TEST(GatherRepeat, Int32AndUint16) {
  gather_rep_all<int32_t>();
  gather_rep_all<uint16_t>();
}

TEST(GatherRepeat, Errors) {
  std::vector<float> s(64, 1.0f);
  std::vector<uint32_t> off(64, 0);
  off[10] = 256;  // element 64: outside src
  Bytes bs = vt::to_bytes(s), bo = vt::to_bytes(off), bd(256);
  auto run = [&](uint64_t mask, uint8_t repeat, uint16_t dst_rep) {
    return vt::run_ub({&bd, &bs, &bo},
                      [&](std::vector<LocalTensor<uint8_t>>& v) {
                        auto src = v[1].ReinterpretCast<float>();
                        auto o = v[2].ReinterpretCast<uint32_t>();
                        Gather(v[0].ReinterpretCast<float>(), src, o, 0u, mask, repeat, dst_rep);
                      },
                      true);
  };
  asc::Status st = run(11, 1, 8);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[Gather]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("srcOffsetLocal[10]"), std::string::npos) << st.message();
  EXPECT_TRUE(run(10, 1, 8).ok());  // lane 10 unselected: its offset is not used
  st = run(10, 2, 8);               // repeat 1 needs offsets 64.. and dst bytes 256..
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  st = run(65, 1, 8);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
}

// ---------------------------------------------------------------- PairReduceSum

template <typename T>
T round_to(float f) {
  if constexpr (sizeof(T) == 4) {
    return f;
  } else {
    return T(f);
  }
}

template <typename T>
void pair_case(const uint64_t mask_in[2], bool bits, int repeat, int dst_rep, int src_blk, int src_rep) {
  const uint32_t L = 256 / sizeof(T);
  uint64_t m[2] = {mask_in[0], mask_in[1]};
  if (!bits) asc::kernel::simd::mask_from_count(mask_in[0], m);
  const size_t ns = std::max<size_t>(1, vt::needed<T>(m, repeat, src_blk, src_rep));
  const size_t nd = size_t(std::max(0, repeat - 1)) * dst_rep * (L / 2) + L / 2;
  const auto src = vt::random_vec<T>(ns, static_cast<uint32_t>(ns + repeat));
  const auto init = vt::random_vec<T>(nd, 4);
  std::vector<T> want = init;
  for (int r = 0; r < repeat; ++r) {
    for (uint32_t p = 0; p < L / 2; ++p) {
      float acc = 0.0f;
      int used = 0;
      for (uint32_t l = 2 * p; l < 2 * p + 2; ++l) {
        if (!vt::lane_on<T>(m, l)) continue;
        const float x = static_cast<float>(src[vt::lane_index<T>(r, l, src_blk, src_rep)]);
        acc = used ? acc + x : x;  // a lone lane keeps its sign (-0)
        ++used;
      }
      want[size_t(r) * dst_rep * (L / 2) + p] = round_to<T>(acc);
    }
  }
  for (bool elide : vt::elision_modes()) {
    Bytes bd = vt::to_bytes(init), bs = vt::to_bytes(src);
    ASSERT_TRUE(vt::run_ub({&bd, &bs},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto d = v[0].ReinterpretCast<T>();
                             d.SetSize(static_cast<uint32_t>(nd));
                             auto s = v[1].ReinterpretCast<T>();
                             s.SetSize(static_cast<uint32_t>(ns));
                             if (bits) {
                               PairReduceSum(d, s, repeat, m, dst_rep, src_blk, src_rep);
                             } else {
                               PairReduceSum(d, s, repeat, static_cast<int32_t>(mask_in[0]), dst_rep, src_blk,
                                             src_rep);
                             }
                           },
                           elide)
                    .ok());
    EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, nd), want))
        << "repeat " << repeat << " dstRep " << dst_rep << " blk " << src_blk << " rep " << src_rep;
  }
}

template <typename T>
void pair_all() {
  const uint32_t L = 256 / sizeof(T);
  const uint64_t full[2] = {~0ull, ~0ull}, holes[2] = {0x0F0F0F0F12345679ull, 0xF000000000000001ull},
                 cnt[2] = {L - 3, 0};
  pair_case<T>(full, true, 1, 1, 1, 8);
  pair_case<T>(full, true, 4, 1, 1, 8);
  pair_case<T>(full, true, 3, 2, 2, 16);
  pair_case<T>(holes, true, 3, 1, 1, 8);
  pair_case<T>(cnt, false, 2, 3, 1, 9);
  pair_case<T>(cnt, false, 0, 1, 1, 8);
}

TEST(PairReduceSum, Float) { pair_all<float>(); }
TEST(PairReduceSum, Half) { pair_all<half>(); }

TEST(PairReduceSum, HandValues) {
  // half: 1 + 2^-11 is a tie (even: 1), 2048 + 1 ties to 2048, 2050 + 1 ties to 2052;
  // Inf + -Inf = NaN; -0 + -0 = -0; 65504 + 32 overflows to Inf.
  std::vector<half> s(128, half(0.0f));
  const float in[][2] = {{1.0f, 0.00048828125f}, {2048.0f, 1.0f}, {2050.0f, 1.0f},
                         {INFINITY, -INFINITY},   {-0.0f, -0.0f}, {65504.0f, 32.0f}};
  for (int i = 0; i < 6; ++i) {
    s[2 * i] = half(in[i][0]);
    s[2 * i + 1] = half(in[i][1]);
  }
  Bytes bs = vt::to_bytes(s), bd(128);
  ASSERT_TRUE(vt::run_ub({&bd, &bs},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           PairReduceSum(v[0].ReinterpretCast<half>(), v[1].ReinterpretCast<half>(), 1, 12, 1, 1, 8);
                         },
                         true)
                  .ok());
  const auto got = vt::from_bytes<half>(bd, 6);
  EXPECT_EQ(static_cast<float>(got[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(got[1]), 2048.0f);
  EXPECT_EQ(static_cast<float>(got[2]), 2052.0f);
  EXPECT_TRUE(std::isnan(static_cast<float>(got[3])));
  EXPECT_EQ(kt::f32_bits(static_cast<float>(got[4])), 0x80000000u);
  EXPECT_TRUE(std::isinf(static_cast<float>(got[5])));
}

TEST(PairReduceSum, Errors) {
  Bytes bd(128), bs(256);
  asc::Status st = vt::run_ub({&bd, &bs},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                PairReduceSum(v[0].ReinterpretCast<float>(), v[1].ReinterpretCast<float>(), 2, 64, 1,
                                              1, 8);
                              },
                              true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[PairReduceSum]"), std::string::npos) << st.message();
  st = vt::run_ub({&bd, &bs},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    PairReduceSum(v[0].ReinterpretCast<float>(), v[1].ReinterpretCast<float>(), 1, 65, 1, 1, 8);
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
}

}  // namespace
