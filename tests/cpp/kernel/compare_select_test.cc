// Compare / CompareScalar (bit masks) and Select (SELMODE modes), count and
// mask/repeat forms, against scalar references; every supported dtype, NaN,
// tails, copy elision on and off.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "vec_test_util.h"

namespace {

using namespace AscendC;
using vt::Bytes;

template <typename T>
bool cmp(CMPMODE m, T a, T b) {
  double x, y;
  if constexpr (std::is_integral_v<T>) {
    x = double(a);
    y = double(b);
  } else {
    x = static_cast<float>(a);
    y = static_cast<float>(b);
  }
  switch (m) {
    case CMPMODE::LT: return x < y;
    case CMPMODE::GT: return x > y;
    case CMPMODE::EQ: return x == y;
    case CMPMODE::LE: return x <= y;
    case CMPMODE::GE: return x >= y;
    default: return x != y;
  }
}

constexpr CMPMODE kModes[] = {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE};

template <typename T>
std::vector<T> small_values(size_t n, uint32_t seed) {
  // Few distinct values so that EQ/LE/GE see equal pairs; NaN for floats.
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int k = static_cast<int>(rng() % 7) - 3;
    if constexpr (std::is_integral_v<T>) {
      v[i] = static_cast<T>(std::is_signed_v<T> ? k : k + 3);
    } else {
      v[i] = static_cast<T>(k == 3 && i % 5 == 0 ? NAN : float(k));
    }
  }
  if constexpr (!std::is_integral_v<T>) {
    if (n > 4) {
      v[2] = static_cast<T>(-0.0f);  // -0 == +0
      v[4] = static_cast<T>(0.0f);
    }
  }
  return v;
}

template <typename T>
void compare_count() {
  for (size_t n : kt::tail_lengths()) {
    const auto a = small_values<T>(n + 1, 3 + n), b = small_values<T>(n + 1, 4 + n);
    const T s = static_cast<T>(1);
    for (CMPMODE m : kModes) {
      std::vector<uint8_t> want((n + 7) / 8 + 2, 0xAB), want_s = want;
      for (size_t i = 0; i < (n + 7) / 8; ++i) want[i] = want_s[i] = 0;
      for (size_t i = 0; i < n; ++i) {
        if (cmp(m, a[i], b[i])) want[i / 8] |= uint8_t(1u << (i % 8));
        if (cmp(m, a[i], s)) want_s[i / 8] |= uint8_t(1u << (i % 8));
      }
      for (bool elide : vt::elision_modes()) {
        Bytes bits(want.size(), 0xAB), bits_s(want.size(), 0xAB), ba = vt::to_bytes(a), bb = vt::to_bytes(b);
        ASSERT_TRUE(vt::run_ub({&bits, &bits_s, &ba, &bb},
                               [&](std::vector<LocalTensor<uint8_t>>& v) {
                                 Compare(v[0], v[2].ReinterpretCast<T>(), v[3].ReinterpretCast<T>(), m,
                                         static_cast<uint32_t>(n));
                                 CompareScalar(v[1], v[2].ReinterpretCast<T>(), s, m, static_cast<uint32_t>(n));
                               },
                               elide)
                        .ok());
        bits.resize(want.size());
        bits_s.resize(want.size());
        EXPECT_EQ(bits, want) << asc::dtype_name(asc::dtype_of<T>()) << " n=" << n << " mode " << int(m);
        EXPECT_EQ(bits_s, want_s) << asc::dtype_name(asc::dtype_of<T>()) << " n=" << n << " mode " << int(m);
      }
    }
  }
}

TEST(Compare, CountFormFloat) { compare_count<float>(); }
TEST(Compare, CountFormHalf) { compare_count<half>(); }
TEST(Compare, CountFormInt16) { compare_count<int16_t>(); }
TEST(Compare, CountFormUInt16) { compare_count<uint16_t>(); }
TEST(Compare, CountFormInt32) { compare_count<int32_t>(); }
TEST(Compare, CountFormUInt32) { compare_count<uint32_t>(); }

TEST(Compare, HandChecked) {
  // a = [1, NaN, 3, -0], b = [2, NaN, 3, +0]: LT -> 0b0001, EQ -> 0b1100, NE -> 0b0011.
  std::vector<float> a = {1, NAN, 3, -0.0f}, b = {2, NAN, 3, 0.0f};
  Bytes lt(32), eq(32), ne(32), ba = vt::to_bytes(a), bb = vt::to_bytes(b);
  ASSERT_TRUE(vt::run_ub({&lt, &eq, &ne, &ba, &bb},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           auto x = v[3].ReinterpretCast<float>(), y = v[4].ReinterpretCast<float>();
                           Compare(v[0], x, y, CMPMODE::LT, 4);
                           Compare(v[1], x, y, CMPMODE::EQ, 4);
                           Compare(v[2], x, y, CMPMODE::NE, 4);
                         },
                         true)
                  .ok());
  EXPECT_EQ(lt[0], 0b0001);
  EXPECT_EQ(eq[0], 0b1100);
  EXPECT_EQ(ne[0], 0b0011);  // NaN != NaN
}

template <typename T>
void compare_repeat() {
  std::mt19937 rng(77 + sizeof(T));
  const uint32_t lanes = 256 / sizeof(T);
  for (int iter = 0; iter < 12; ++iter) {
    uint64_t mask[2] = {(uint64_t(rng()) << 32) | rng(), (uint64_t(rng()) << 32) | rng()};
    if (iter == 0) mask[0] = mask[1] = ~0ull;
    if (sizeof(T) == 4) mask[1] = 0;
    const uint32_t repeat = 1 + rng() % 4;
    const uint32_t b0 = iter == 0 ? 1 : rng() % 3, b1 = iter == 0 ? 1 : rng() % 3;
    const uint32_t r0 = iter == 0 ? 8 : rng() % 12, r1 = iter == 0 ? 8 : rng() % 12;
    const CMPMODE m = kModes[iter % 6];
    const size_t na = vt::needed<T>(mask, repeat, b0, r0) + 1, nb = vt::needed<T>(mask, repeat, b1, r1) + 1;
    const auto a = small_values<T>(na, iter), b = small_values<T>(nb, iter + 50);
    const T s = static_cast<T>(0);
    Bytes init(repeat * lanes / 8);
    for (auto& x : init) x = static_cast<uint8_t>(rng());
    Bytes want = init, want_s = init;
    for (uint32_t r = 0; r < repeat; ++r) {
      for (uint32_t l = 0; l < lanes; ++l) {
        if (!vt::lane_on<T>(mask, l)) continue;
        const size_t bit = size_t{r} * lanes + l;
        const T x = a[vt::lane_index<T>(r, l, b0, r0)];
        const bool c = cmp(m, x, b[vt::lane_index<T>(r, l, b1, r1)]);
        const bool cs = cmp(m, x, s);
        want[bit / 8] = static_cast<uint8_t>((want[bit / 8] & ~(1u << (bit % 8))) | (c ? 1u << (bit % 8) : 0));
        want_s[bit / 8] = static_cast<uint8_t>((want_s[bit / 8] & ~(1u << (bit % 8))) | (cs ? 1u << (bit % 8) : 0));
      }
    }
    for (bool elide : vt::elision_modes()) {
      Bytes bits = init, bits_s = init, ba = vt::to_bytes(a), bb = vt::to_bytes(b);
      ASSERT_TRUE(vt::run_ub({&bits, &bits_s, &ba, &bb},
                             [&](std::vector<LocalTensor<uint8_t>>& v) {
                               auto x = v[2].ReinterpretCast<T>(), y = v[3].ReinterpretCast<T>();
                               x.SetSize(static_cast<uint32_t>(na));
                               y.SetSize(static_cast<uint32_t>(nb));
                               uint64_t mm[2] = {mask[0], mask[1]};
                               Compare(v[0], x, y, m, mm, static_cast<uint8_t>(repeat),
                                       BinaryRepeatParams(1, uint8_t(b0), uint8_t(b1), 8, uint8_t(r0), uint8_t(r1)));
                               CompareScalar(v[1], x, s, m, mm, static_cast<uint8_t>(repeat),
                                             UnaryRepeatParams(1, uint16_t(b0), 8, uint8_t(r0)));
                             },
                             elide)
                      .ok());
      bits.resize(want.size());
      bits_s.resize(want.size());
      EXPECT_EQ(bits, want) << "iter " << iter;
      EXPECT_EQ(bits_s, want_s) << "iter " << iter;
    }
  }
}

TEST(Compare, MaskRepeatFloat) { compare_repeat<float>(); }
TEST(Compare, MaskRepeatHalf) { compare_repeat<half>(); }
TEST(Compare, MaskRepeatInt16) { compare_repeat<int16_t>(); }

template <typename T>
void select_count() {
  const uint32_t lanes = 256 / sizeof(T);
  for (size_t n : kt::tail_lengths()) {
    const auto a = vt::random_vec<T>(n + 1, 5 + n), b = vt::random_vec<T>(n + 1, 6 + n);
    std::mt19937 rng(n);
    Bytes sel(std::max<size_t>((n + 7) / 8, lanes / 8) + 1);
    for (auto& x : sel) x = static_cast<uint8_t>(rng());
    const T s = static_cast<T>(7);
    std::vector<T> want_tt(n + 2, T(0)), want_ts = want_tt, want_spr = want_tt;
    for (size_t i = 0; i < n; ++i) {
      const bool bit = (sel[i / 8] >> (i % 8)) & 1u;
      const size_t j = i % lanes;
      const bool bit0 = (sel[j / 8] >> (j % 8)) & 1u;
      want_tt[i] = bit ? a[i] : b[i];
      want_ts[i] = bit ? a[i] : s;
      want_spr[i] = bit0 ? a[i] : b[i];
    }
    for (bool elide : vt::elision_modes()) {
      std::vector<T> zero(n + 2, T(0));
      Bytes d1 = vt::to_bytes(zero), d2 = d1, d3 = d1, bs = sel, ba = vt::to_bytes(a), bb = vt::to_bytes(b);
      ASSERT_TRUE(vt::run_ub({&d1, &d2, &d3, &bs, &ba, &bb},
                             [&](std::vector<LocalTensor<uint8_t>>& v) {
                               auto x = v[4].ReinterpretCast<T>(), y = v[5].ReinterpretCast<T>();
                               const uint32_t c = static_cast<uint32_t>(n);
                               Select(v[0].ReinterpretCast<T>(), v[3], x, y, SELMODE::VSEL_TENSOR_TENSOR_MODE, c);
                               Select(v[1].ReinterpretCast<T>(), v[3], x, s, SELMODE::VSEL_TENSOR_SCALAR_MODE, c);
                               Select(v[2].ReinterpretCast<T>(), v[3], x, y, SELMODE::VSEL_CMPMASK_SPR, c);
                             },
                             elide)
                      .ok());
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(d1, n + 2), want_tt)) << "n=" << n;
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(d2, n + 2), want_ts)) << "n=" << n;
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(d3, n + 2), want_spr)) << "n=" << n;
    }
  }
}

TEST(Select, CountFormFloat) { select_count<float>(); }
TEST(Select, CountFormHalf) { select_count<half>(); }
TEST(Select, CountFormInt16) { select_count<int16_t>(); }
TEST(Select, CountFormInt32) { select_count<int32_t>(); }

template <typename T>
void select_repeat() {
  std::mt19937 rng(31 + sizeof(T));
  const uint32_t lanes = 256 / sizeof(T);
  for (int iter = 0; iter < 10; ++iter) {
    uint64_t mask[2] = {(uint64_t(rng()) << 32) | rng(), (uint64_t(rng()) << 32) | rng()};
    if (iter == 0) mask[0] = mask[1] = ~0ull;
    if (sizeof(T) == 4) mask[1] = 0;
    const uint32_t repeat = 1 + rng() % 3;
    uint32_t blk[3] = {1, 1, 1}, rep[3] = {8, 8, 8};
    if (iter > 1) {
      for (int j = 0; j < 3; ++j) {
        blk[j] = 1 + rng() % 2;
        rep[j] = 16 + rng() % 4;
      }
    }
    const bool scalar = iter % 3 == 2;
    const bool spr = iter % 3 == 1;
    const size_t nd = vt::needed<T>(mask, repeat, blk[0], rep[0]) + 2;
    const size_t na = vt::needed<T>(mask, repeat, blk[1], rep[1]) + 2;
    const size_t nb = vt::needed<T>(mask, repeat, blk[2], rep[2]) + 2;
    const auto d0 = vt::random_vec<T>(nd, iter), a = vt::random_vec<T>(na, iter + 1), b = vt::random_vec<T>(nb, iter + 2);
    Bytes sel(repeat * lanes / 8);
    for (auto& x : sel) x = static_cast<uint8_t>(rng());
    const T s = static_cast<T>(-5);
    std::vector<T> want = d0;
    for (uint32_t r = 0; r < repeat; ++r) {
      for (uint32_t l = 0; l < lanes; ++l) {
        if (!vt::lane_on<T>(mask, l)) continue;
        const size_t bit = spr ? l : size_t{r} * lanes + l;
        const bool on = (sel[bit / 8] >> (bit % 8)) & 1u;
        want[vt::lane_index<T>(r, l, blk[0], rep[0])] =
            on ? a[vt::lane_index<T>(r, l, blk[1], rep[1])] : scalar ? s : b[vt::lane_index<T>(r, l, blk[2], rep[2])];
      }
    }
    for (bool elide : vt::elision_modes()) {
      Bytes bd = vt::to_bytes(d0), bs = sel, ba = vt::to_bytes(a), bb = vt::to_bytes(b);
      ASSERT_TRUE(vt::run_ub({&bd, &bs, &ba, &bb},
                             [&](std::vector<LocalTensor<uint8_t>>& v) {
                               auto d = v[0].ReinterpretCast<T>(), x = v[2].ReinterpretCast<T>(),
                                    y = v[3].ReinterpretCast<T>();
                               d.SetSize(static_cast<uint32_t>(nd));
                               x.SetSize(static_cast<uint32_t>(na));
                               y.SetSize(static_cast<uint32_t>(nb));
                               uint64_t mm[2] = {mask[0], mask[1]};
                               const BinaryRepeatParams p{static_cast<uint8_t>(blk[0]), static_cast<uint8_t>(blk[1]),
                                                          static_cast<uint8_t>(blk[2]), static_cast<uint8_t>(rep[0]),
                                                          static_cast<uint8_t>(rep[1]), static_cast<uint8_t>(rep[2])};
                               if (scalar) {
                                 Select(d, v[1], x, s, SELMODE::VSEL_TENSOR_SCALAR_MODE, mm, uint8_t(repeat), p);
                               } else {
                                 Select(d, v[1], x, y,
                                        spr ? SELMODE::VSEL_CMPMASK_SPR : SELMODE::VSEL_TENSOR_TENSOR_MODE, mm,
                                        uint8_t(repeat), p);
                               }
                             },
                             elide)
                      .ok());
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, nd), want)) << "iter " << iter;
    }
  }
}

TEST(Select, MaskRepeatFloat) { select_repeat<float>(); }
TEST(Select, MaskRepeatHalf) { select_repeat<half>(); }

TEST(CompareSelect, CompareThenSelectPipeline) {
  // relu via Compare + Select: the classic use.
  for (bool elide : vt::elision_modes()) {
    auto a = vt::random_vec<float>(256, 9);
    std::vector<float> z(256, 0.0f), out(256);
    Bytes bits(32), ba = vt::to_bytes(a), bz = vt::to_bytes(z), bo = vt::to_bytes(out);
    ASSERT_TRUE(vt::run_ub({&bits, &ba, &bz, &bo},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto x = v[1].ReinterpretCast<float>();
                             CompareScalar(v[0], x, 0.0f, CMPMODE::GT, 256);
                             Select(v[3].ReinterpretCast<float>(), v[0], x, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE,
                                    256);
                           },
                           elide)
                    .ok());
    out = vt::from_bytes<float>(bo, 256);
    for (int i = 0; i < 256; ++i) {
      const float want = a[i] > 0.0f ? a[i] : 0.0f;
      EXPECT_TRUE(out[i] == want) << i << " " << a[i] << " " << out[i];
    }
  }
}

TEST(CompareSelect, Errors) {
  std::vector<float> a(64);
  Bytes bits(8), ba = vt::to_bytes(a);
  // 64 bits need 8 bytes: 65 elements need 9.
  asc::Status st = vt::run_ub({&bits, &ba},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                auto t = v[1].ReinterpretCast<float>();
                                t.SetSize(80);
                                auto d = v[0];
                                d.SetSize(8);
                                Compare(d, t, t, CMPMODE::EQ, 65);
                              },
                              false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[Compare]"), std::string::npos) << st.message();
  st = vt::run_ub({&bits, &ba},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[1].ReinterpretCast<float>();
                    Select(t, v[0], t, t, SELMODE::VSEL_TENSOR_SCALAR_MODE, 8);
                  },
                  false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Select]"), std::string::npos) << st.message();
  st = vt::run_ub({&bits, &ba},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[1].ReinterpretCast<uint8_t>();
                    Compare(v[0], t, t, CMPMODE::EQ, 8);  // 8-bit compare is not supported
                  },
                  false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
  st = vt::run_ub({&bits, &ba},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[1].ReinterpretCast<float>();
                    Compare(v[0], t, t, static_cast<CMPMODE>(9), 8);
                  },
                  false);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
}

}  // namespace
