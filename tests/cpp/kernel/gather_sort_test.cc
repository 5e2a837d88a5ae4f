// Gather, Scatter, Brcb, Transpose, GatherMask, Sort32/Sort/Extract against
// scalar references; copy elision on and off; error reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "vec_test_util.h"

namespace {

using namespace AscendC;
using vt::Bytes;

template <typename T>
void gather_scatter() {
  for (size_t n : {size_t(1), size_t(7), size_t(64), size_t(129)}) {
    const size_t ns = 200;
    const auto src = vt::random_vec<T>(ns, 3 + n);
    std::mt19937 rng(n);
    std::vector<uint32_t> off(n), perm(ns);
    for (auto& o : off) o = static_cast<uint32_t>((rng() % (ns - 4)) * sizeof(T));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    std::vector<uint32_t> soff(n);
    for (size_t i = 0; i < n; ++i) soff[i] = static_cast<uint32_t>(perm[i] * sizeof(T));  // distinct targets
    std::vector<T> want_g(n), want_s = vt::random_vec<T>(ns, 9);
    const auto s0 = want_s;
    for (size_t i = 0; i < n; ++i) {
      want_g[i] = src[off[i] / sizeof(T) + 4];  // base address 4 elements
      want_s[soff[i] / sizeof(T)] = src[i];
    }
    for (bool elide : vt::elision_modes()) {
      std::vector<T> g0(n, T(0));
      Bytes bg = vt::to_bytes(g0), bsrc = vt::to_bytes(src), bo = vt::to_bytes(off), bso = vt::to_bytes(soff),
            bsc = vt::to_bytes(s0);
      ASSERT_TRUE(vt::run_ub({&bg, &bsrc, &bo, &bso, &bsc},
                             [&](std::vector<LocalTensor<uint8_t>>& v) {
                               auto s = v[1].ReinterpretCast<T>();
                               s.SetSize(static_cast<uint32_t>(ns));
                               Gather(v[0].ReinterpretCast<T>(), s, v[2].ReinterpretCast<uint32_t>(),
                                      uint32_t(4 * sizeof(T)), static_cast<uint32_t>(n));
                               auto d = v[4].ReinterpretCast<T>();
                               d.SetSize(static_cast<uint32_t>(ns));
                               Scatter(d, s, v[3].ReinterpretCast<uint32_t>(), 0u, static_cast<uint32_t>(n));
                             },
                             elide)
                      .ok());
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bg, n), want_g)) << "n=" << n;
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bsc, ns), want_s)) << "n=" << n;
    }
  }
}

TEST(GatherScatter, Float) { gather_scatter<float>(); }
TEST(GatherScatter, Half) { gather_scatter<half>(); }
TEST(GatherScatter, Int8AndInt64) {
  gather_scatter<int8_t>();
  gather_scatter<int64_t>();
}

TEST(GatherScatter, BadOffsets) {
  std::vector<float> s(64);
  std::vector<uint32_t> off = {0, 4, 256};  // 256 bytes = element 64: outside
  Bytes bs = vt::to_bytes(s), bo = vt::to_bytes(off), bd(64);
  asc::Status st = vt::run_ub({&bs, &bo, &bd},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                auto src = v[0].ReinterpretCast<float>();
                                src.SetSize(64);
                                Gather(v[2].ReinterpretCast<float>(), src, v[1].ReinterpretCast<uint32_t>(), 0u, 3);
                              },
                              true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[Gather]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("srcOffsetLocal[2]"), std::string::npos) << st.message();
  off = {2};  // not a multiple of 4
  bo = vt::to_bytes(off);
  st = vt::run_ub({&bs, &bo, &bd},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    Scatter(v[0].ReinterpretCast<float>(), v[2].ReinterpretCast<float>(),
                            v[1].ReinterpretCast<uint32_t>(), 0u, 1);
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Scatter]"), std::string::npos) << st.message();
}

template <typename T>
void brcb() {
  const uint32_t per = 32 / sizeof(T);
  for (uint32_t repeat : {1u, 3u}) {
    for (uint16_t blk : {uint16_t(1), uint16_t(2)}) {
      const uint16_t rep = static_cast<uint16_t>(8 * blk + 1);
      const auto src = vt::random_vec<T>(repeat * 8, repeat + blk);
      const size_t nd = ((repeat - 1) * rep + 7 * blk + 1) * per + 3;
      const auto d0 = vt::random_vec<T>(nd, 5);
      std::vector<T> want = d0;
      for (uint32_t r = 0; r < repeat; ++r) {
        for (uint32_t k = 0; k < 8; ++k) {
          for (uint32_t j = 0; j < per; ++j) want[(size_t(r) * rep + k * blk) * per + j] = src[r * 8 + k];
        }
      }
      for (bool elide : vt::elision_modes()) {
        Bytes bd = vt::to_bytes(d0), bs = vt::to_bytes(src);
        ASSERT_TRUE(vt::run_ub({&bd, &bs},
                               [&](std::vector<LocalTensor<uint8_t>>& v) {
                                 auto d = v[0].ReinterpretCast<T>();
                                 d.SetSize(static_cast<uint32_t>(nd));
                                 Brcb(d, v[1].ReinterpretCast<T>(), uint8_t(repeat), BrcbRepeatParams(blk, rep));
                               },
                               elide)
                        .ok());
        EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, nd), want)) << repeat << " " << blk;
      }
    }
  }
}

TEST(Brcb, FloatAndHalf) {
  brcb<float>();
  brcb<half>();
  brcb<int16_t>();
}

TEST(Transpose, SixteenBySixteen) {
  for (bool elide : vt::elision_modes()) {
    std::vector<uint16_t> s(256), d(256, 0);
    for (int i = 0; i < 256; ++i) s[i] = static_cast<uint16_t>(i * 3 + 1);
    Bytes bs = vt::to_bytes(s), bd = vt::to_bytes(d), bi = vt::to_bytes(s);
    ASSERT_TRUE(vt::run_ub({&bs, &bd, &bi},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             Transpose(v[1].ReinterpretCast<uint16_t>(), v[0].ReinterpretCast<uint16_t>());
                             auto in_place = v[2].ReinterpretCast<half>();
                             Transpose(in_place, in_place);
                           },
                           elide)
                    .ok());
    auto got = vt::from_bytes<uint16_t>(bd, 256), got2 = vt::from_bytes<uint16_t>(bi, 256);
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) {
        EXPECT_EQ(got[j * 16 + i], s[i * 16 + j]);
        EXPECT_EQ(got2[j * 16 + i], s[i * 16 + j]);
      }
    }
  }
}

template <typename T>
void gather_mask() {
  const uint32_t lanes = 256 / sizeof(T), lpb = 32 / sizeof(T);
  for (uint8_t pat = 1; pat <= 7; ++pat) {
    for (bool counter : {false, true}) {
      const uint16_t repeat = 3;
      const uint32_t mask = counter ? lanes + 5 : 0;
      GatherMaskParams p(2, repeat, 20, 1);
      // Counter mode (CANN's configuration one): every repeat takes `mask`
      // lanes, here past the 256 bytes of a normal repeat (block 8).
      const size_t ns = ((repeat - 1) * 20 + 8 * 2 + 1) * lpb + 1;
      const auto src = vt::random_vec<T>(ns, pat);
      // Tensor pattern: random bits; repeat r's bits at r * 32 bytes.
      std::mt19937 rng(pat);
      Bytes bits(repeat * 32);
      for (auto& b : bits) b = static_cast<uint8_t>(rng());
      auto builtin = [pat](uint32_t l) {
        switch (pat) {
          case 1: return l % 2 == 0;
          case 2: return l % 2 == 1;
          case 3: return l % 4 == 0;
          case 4: return l % 4 == 1;
          case 5: return l % 4 == 2;
          case 6: return l % 4 == 3;
          default: return true;
        }
      };
      std::vector<T> want_b, want_t;
      for (uint32_t r = 0; r < repeat; ++r) {
        const uint32_t n = counter ? mask : lanes;
        for (uint32_t l = 0; l < n; ++l) {
          const T x = src[vt::lane_index<T>(r, l, 2, 20)];
          if (builtin(l)) want_b.push_back(x);
          if ((bits[r * 32 + l / 8] >> (l % 8)) & 1u) want_t.push_back(x);
        }
      }
      for (bool elide : vt::elision_modes()) {
        std::vector<T> z(repeat * (lanes + 5) + 1, T(0));
        Bytes db = vt::to_bytes(z), dt = vt::to_bytes(z), bs = vt::to_bytes(src), bp = bits;
        uint64_t cnt_b = 99, cnt_t = 99;
        ASSERT_TRUE(vt::run_ub({&db, &dt, &bs, &bp},
                               [&](std::vector<LocalTensor<uint8_t>>& v) {
                                 auto s = v[2].ReinterpretCast<T>();
                                 s.SetSize(static_cast<uint32_t>(ns));
                                 using U = std::conditional_t<sizeof(T) == 2, uint16_t, uint32_t>;
                                 GatherMask(v[0].ReinterpretCast<T>(), s, pat, counter, mask, p, cnt_b);
                                 GatherMask(v[1].ReinterpretCast<T>(), s, v[3].ReinterpretCast<U>(), counter, mask, p,
                                            cnt_t);
                               },
                               elide)
                        .ok());
        ASSERT_EQ(cnt_b, want_b.size()) << int(pat) << " " << counter;
        ASSERT_EQ(cnt_t, want_t.size()) << int(pat) << " " << counter;
        EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(db, want_b.size()), want_b)) << int(pat);
        EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(dt, want_t.size()), want_t)) << int(pat);
      }
    }
  }
}

TEST(GatherMask, Float) { gather_mask<float>(); }
TEST(GatherMask, Half) { gather_mask<half>(); }
TEST(GatherMask, HandCheckedAndErrors) {
  std::vector<float> s(64);
  for (int i = 0; i < 64; ++i) s[i] = float(i);
  std::vector<float> d(64, -1.0f);
  Bytes bs = vt::to_bytes(s), bd = vt::to_bytes(d);
  uint64_t cnt = 0;
  ASSERT_TRUE(vt::run_ub({&bs, &bd},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           GatherMask(v[1].ReinterpretCast<float>(), v[0].ReinterpretCast<float>(), uint8_t(2), false,
                                      0u, GatherMaskParams(), cnt);
                         },
                         true)
                  .ok());
  EXPECT_EQ(cnt, 32u);
  auto got = vt::from_bytes<float>(bd, 64);
  EXPECT_EQ(got[0], 1.0f);
  EXPECT_EQ(got[31], 63.0f);
  EXPECT_EQ(got[32], -1.0f);
  asc::Status st = vt::run_ub({&bs, &bd},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                GatherMask(v[1].ReinterpretCast<float>(), v[0].ReinterpretCast<float>(), uint8_t(9),
                                           false, 0u, GatherMaskParams(), cnt);
                              },
                              true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  st = vt::run_ub({&bs, &bd},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto small = v[1].ReinterpretCast<float>();
                    small.SetSize(10);  // 64 elements are gathered
                    GatherMask(small, v[0].ReinterpretCast<float>(), uint8_t(7), false, 0u, GatherMaskParams(), cnt);
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[GatherMask]"), std::string::npos) << st.message();
}

// The gather sample's scenario 2 (CANN's GatherMask figure): counter mode,
// mask 70 > the 64 lanes of a uint32 repeat, 2 repeats 4 blocks apart, the
// pattern 0x7E7C00A5 read from bit 0 again in each repeat (src1RepeatStride
// 0). Each repeat keeps the elements of src0[32 r .. 32 r + 70) whose bit is
// set, packed one after the other (the sample's gen_data.py golden).
TEST(GatherMask, CounterModeMaskPastOneRepeat) {
  std::vector<uint32_t> s(256), pat(32, 0x7E7C00A5u), d(256, 0u);
  for (int i = 0; i < 256; ++i) s[i] = 1000u + uint32_t(i);
  std::vector<uint32_t> want;
  for (int r = 0; r < 2; ++r) {
    for (int l = 0; l < 70; ++l) {
      if ((pat[l / 32] >> (l % 32)) & 1u) want.push_back(s[r * 32 + l]);
    }
  }
  for (bool elide : vt::elision_modes()) {
    Bytes bs = vt::to_bytes(s), bp = vt::to_bytes(pat), bd = vt::to_bytes(d);
    uint64_t cnt = 0;
    ASSERT_TRUE(vt::run_ub({&bs, &bp, &bd},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             GatherMask(v[2].ReinterpretCast<uint32_t>(), v[0].ReinterpretCast<uint32_t>(),
                                        v[1].ReinterpretCast<uint32_t>(), true, 70u, GatherMaskParams(1, 2, 4, 0), cnt);
                           },
                           elide)
                    .ok());
    ASSERT_EQ(cnt, want.size());
    auto got = vt::from_bytes<uint32_t>(bd, 256);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]) << i;
    for (size_t i = want.size(); i < 256; ++i) EXPECT_EQ(got[i], 0u) << i;
  }
  // mask 0 in counter mode gathers nothing.
  Bytes bs = vt::to_bytes(s), bp = vt::to_bytes(pat), bd = vt::to_bytes(d);
  uint64_t cnt = 7;
  ASSERT_TRUE(vt::run_ub({&bs, &bp, &bd},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           GatherMask(v[2].ReinterpretCast<uint32_t>(), v[0].ReinterpretCast<uint32_t>(), uint8_t(7),
                                      true, 0u, GatherMaskParams(1, 2, 4, 0), cnt);
                         },
                         true)
                  .ok());
  EXPECT_EQ(cnt, 0u);
}

template <typename T>
void sort_extract() {
  for (int repeat : {1, 2, 5}) {
    const uint32_t n = repeat * 32;
    auto vals = vt::random_vec<T>(n, repeat, -10, 10, true);
    for (uint32_t i = 10; i < n; i += 9) vals[i] = vals[i - 1];  // ties
    std::vector<uint32_t> idx(n);
    for (uint32_t i = 0; i < n; ++i) idx[i] = 1000 + i;
    auto order_of = [&](uint32_t chunk) {
      std::vector<uint32_t> o(n);
      std::iota(o.begin(), o.end(), 0);
      for (uint32_t s = 0; s < n; s += chunk) {
        std::stable_sort(o.begin() + s, o.begin() + std::min(n, s + chunk), [&](uint32_t a, uint32_t b) {
          const float x = static_cast<float>(vals[a]), y = static_cast<float>(vals[b]);
          if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && !std::isnan(y);
          return x > y;
        });
      }
      return o;
    };
    for (bool full : {false, true}) {
      const auto o = order_of(full ? n : 32);
      Bytes want(n * 8, 0);
      for (uint32_t i = 0; i < n; ++i) {
        std::memcpy(&want[i * 8], &vals[o[i]], sizeof(T));
        std::memcpy(&want[i * 8 + 4], &idx[o[i]], 4);
      }
      for (bool elide : vt::elision_modes()) {
        Bytes bd(n * 8, 0xEE), bv = vt::to_bytes(vals), bi = vt::to_bytes(idx), bt(n * 8), bev(n * sizeof(T)),
            bei(n * 4);
        ASSERT_TRUE(vt::run_ub({&bd, &bv, &bi, &bt, &bev, &bei},
                               [&](std::vector<LocalTensor<uint8_t>>& v) {
                                 auto d = v[0].ReinterpretCast<T>();
                                 auto tmp = v[3].ReinterpretCast<T>();
                                 if (full) {
                                   Sort<T, true>(d, v[1].ReinterpretCast<T>(), v[2].ReinterpretCast<uint32_t>(), tmp,
                                                 repeat);
                                 } else {
                                   Sort32(d, v[1].ReinterpretCast<T>(), v[2].ReinterpretCast<uint32_t>(), repeat);
                                 }
                                 Extract(v[4].ReinterpretCast<T>(), v[5].ReinterpretCast<uint32_t>(), d, repeat);
                               },
                               elide)
                        .ok());
        bd.resize(n * 8);
        EXPECT_EQ(bd, want) << "repeat " << repeat << " full " << full;
        auto ev = vt::from_bytes<T>(bev, n);
        auto ei = vt::from_bytes<uint32_t>(bei, n);
        for (uint32_t i = 0; i < n; ++i) {
          EXPECT_EQ(std::memcmp(&ev[i], &vals[o[i]], sizeof(T)), 0) << i;
          EXPECT_EQ(ei[i], idx[o[i]]) << i;
        }
      }
    }
  }
}

TEST(Sort, Float) { sort_extract<float>(); }
TEST(Sort, Half) { sort_extract<half>(); }

}  // namespace
