// Count forms of And/Or/Not, AddRelu/SubRelu, MulAddDst/FusedMulAdd/
// FusedMulAddRelu, LeakyRelu, ShiftLeft/ShiftRight, Axpy, Reciprocal/Rsqrt/Neg,
// CreateVecIndex and the LocalTensor operators, against scalar formulas, for
// every supported dtype, tail lengths around the SIMD width, special values,
// and copy elision on and off.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "vec_test_util.h"

namespace {

using namespace AscendC;
using vt::Bytes;

// Runs api(dst, a, b, n) for each tail length, elision on/off; `f(a, b, d)`
// gives the expected element from src0, src1 and dst's old value.
template <typename T, class Api, class F>
void check_count(const char* name, Api api, F f, double lo = -50, double hi = 50) {
  for (size_t n : kt::tail_lengths()) {
    const auto a = vt::random_vec<T>(n + 1, 11 + n, lo, hi);
    const auto b = vt::random_vec<T>(n + 1, 12 + n, lo, hi);
    const auto d0 = vt::random_vec<T>(n + 3, 13 + n, lo, hi);
    std::vector<T> want = d0;
    for (size_t i = 0; i < n; ++i) want[i] = f(a[i], b[i], d0[i]);
    for (bool elide : vt::elision_modes()) {
      Bytes bd = vt::to_bytes(d0), ba = vt::to_bytes(a), bb = vt::to_bytes(b);
      const asc::Status st = vt::run_ub(
          {&bd, &ba, &bb},
          [&](std::vector<LocalTensor<uint8_t>>& v) {
            api(v[0].ReinterpretCast<T>(), v[1].ReinterpretCast<T>(), v[2].ReinterpretCast<T>(),
                static_cast<int32_t>(n));
          },
          elide);
      ASSERT_TRUE(st.ok()) << name << " n=" << n << ": " << st.ToString();
      EXPECT_TRUE(vt::same_bits(vt::from_bytes<T>(bd, n + 3), want))
          << name << " " << asc::dtype_name(asc::dtype_of<T>()) << " n=" << n << (elide ? " elide" : "");
    }
  }
}

template <typename T>
T relu(T x) {
  if constexpr (std::is_integral_v<T>) return x < 0 ? T(0) : x;
  else return static_cast<float>(x) < 0.0f ? T(0.0f) : x;  // NaN and -0 pass
}
template <typename T>
T F(float x) {
  return static_cast<T>(x);
}

template <typename T>
void float_family() {
  auto fl = [](T x) { return static_cast<float>(x); };
  check_count<T>("AddRelu", [](auto d, auto a, auto b, int32_t n) { AddRelu(d, a, b, n); },
                 [&](T a, T b, T) { return relu(F<T>(fl(a) + fl(b))); });
  check_count<T>("SubRelu", [](auto d, auto a, auto b, int32_t n) { SubRelu(d, a, b, n); },
                 [&](T a, T b, T) { return relu(F<T>(fl(a) - fl(b))); });
  check_count<T>("MulAddDst", [](auto d, auto a, auto b, int32_t n) { MulAddDst(d, a, b, n); },
                 [&](T a, T b, T d) { return F<T>(fl(a) * fl(b) + fl(d)); });
  check_count<T>("FusedMulAdd", [](auto d, auto a, auto b, int32_t n) { FusedMulAdd(d, a, b, n); },
                 [&](T a, T b, T d) { return F<T>(fl(a) * fl(d) + fl(b)); });
  check_count<T>("FusedMulAddRelu", [](auto d, auto a, auto b, int32_t n) { FusedMulAddRelu(d, a, b, n); },
                 [&](T a, T b, T d) { return relu(F<T>(fl(a) * fl(d) + fl(b))); });
  const T s = F<T>(0.125f);
  check_count<T>("LeakyRelu", [&](auto d, auto a, auto, int32_t n) { LeakyRelu(d, a, s, n); },
                 [&](T a, T, T) { return fl(a) < 0.0f ? F<T>(fl(a) * fl(s)) : a; });
  check_count<T>("Axpy", [&](auto d, auto a, auto, int32_t n) { Axpy(d, a, s, n); },
                 [&](T a, T, T d) { return F<T>(fl(a) * fl(s) + fl(d)); });
  check_count<T>("Reciprocal", [](auto d, auto a, auto, int32_t n) { Reciprocal(d, a, n); },
                 [&](T a, T, T) { return F<T>(1.0f / fl(a)); });
  check_count<T>("Rsqrt", [](auto d, auto a, auto, int32_t n) { Rsqrt(d, a, n); },
                 [&](T a, T, T) { return F<T>(1.0f / std::sqrt(fl(a))); }, 0.001, 1000);
  check_count<T>("Neg", [](auto d, auto a, auto, int32_t n) { Neg(d, a, n); }, [&](T a, T, T) { return F<T>(-fl(a)); });
}

TEST(LaneOps, FloatFamily) { float_family<float>(); }
TEST(LaneOps, HalfFamily) { float_family<half>(); }

template <typename T>
void int_family() {
  using U = std::make_unsigned_t<T>;
  check_count<T>("And", [](auto d, auto a, auto b, int32_t n) { And(d, a, b, n); },
                 [](T a, T b, T) { return static_cast<T>(a & b); });
  check_count<T>("Or", [](auto d, auto a, auto b, int32_t n) { Or(d, a, b, n); },
                 [](T a, T b, T) { return static_cast<T>(a | b); });
  check_count<T>("Not", [](auto d, auto a, auto, int32_t n) { Not(d, a, n); },
                 [](T a, T, T) { return static_cast<T>(~a); });
  constexpr int W = sizeof(T) * 8;
  for (int sh : {0, 1, 5, W - 1, W, W + 3}) {
    const T s = static_cast<T>(sh);
    check_count<T>("ShiftLeft", [&](auto d, auto a, auto, int32_t n) { ShiftLeft(d, a, s, n); },
                   [&](T a, T, T) { return sh >= W ? T(0) : static_cast<T>(static_cast<U>(a) << sh); });
    check_count<T>("ShiftRight", [&](auto d, auto a, auto, int32_t n) { ShiftRight(d, a, s, n); },
                   [&](T a, T, T) {
                     if (sh >= W) return std::is_signed_v<T> ? static_cast<T>(a < 0 ? -1 : 0) : T(0);
                     return static_cast<T>(a >> sh);  // arithmetic for signed (C++20 / GCC)
                   });
  }
}

TEST(LaneOps, Int16) {
  int_family<int16_t>();
  check_count<int16_t>("AddRelu", [](auto d, auto a, auto b, int32_t n) { AddRelu(d, a, b, n); },
                       [](int16_t a, int16_t b, int16_t) {
                         return relu(static_cast<int16_t>(static_cast<uint16_t>(a) + static_cast<uint16_t>(b)));
                       });
  check_count<int16_t>("Neg", [](auto d, auto a, auto, int32_t n) { Neg(d, a, n); },
                       [](int16_t a, int16_t, int16_t) { return static_cast<int16_t>(-static_cast<uint16_t>(a)); });
}
TEST(LaneOps, UInt16) { int_family<uint16_t>(); }
TEST(LaneOps, Int32) { int_family<int32_t>(); }
TEST(LaneOps, UInt32) { int_family<uint32_t>(); }

TEST(LaneOps, HandCheckedSpecials) {
  // Reciprocal(+-0) = +-Inf, Rsqrt(-1) = NaN, Rsqrt(Inf) = 0, Neg(0) = -0,
  // LeakyRelu(-0) = -0 (x < 0 is false for -0), LeakyRelu(NaN) = NaN.
  std::vector<float> a = {0.0f, -0.0f, -1.0f, INFINITY, 4.0f, -0.0f, NAN, -2.0f};
  std::vector<float> r(8), q(8), n(8), l(8);
  Bytes ba = vt::to_bytes(a), br = vt::to_bytes(r), bq = vt::to_bytes(q), bn = vt::to_bytes(n), bl = vt::to_bytes(l);
  ASSERT_TRUE(vt::run_ub({&ba, &br, &bq, &bn, &bl},
                         [&](std::vector<LocalTensor<uint8_t>>& v) {
                           auto t = v[0].ReinterpretCast<float>();
                           Reciprocal(v[1].ReinterpretCast<float>(), t, 8);
                           Rsqrt(v[2].ReinterpretCast<float>(), t, 8);
                           Neg(v[3].ReinterpretCast<float>(), t, 8);
                           LeakyRelu(v[4].ReinterpretCast<float>(), t, 0.5f, 8);
                         },
                         true)
                  .ok());
  r = vt::from_bytes<float>(br, 8);
  q = vt::from_bytes<float>(bq, 8);
  n = vt::from_bytes<float>(bn, 8);
  l = vt::from_bytes<float>(bl, 8);
  EXPECT_EQ(r[0], INFINITY);
  EXPECT_EQ(r[1], -INFINITY);
  EXPECT_EQ(r[4], 0.25f);
  EXPECT_TRUE(std::isnan(q[2]));
  EXPECT_EQ(q[3], 0.0f);
  EXPECT_EQ(q[4], 0.5f);
  EXPECT_TRUE(std::signbit(n[0]));
  EXPECT_FALSE(std::signbit(n[1]));
  EXPECT_TRUE(std::signbit(l[5]) && l[5] == 0.0f);
  EXPECT_TRUE(std::isnan(l[6]));
  EXPECT_EQ(l[7], -1.0f);
}

TEST(LaneOps, UnsupportedDtypesAndSizes) {
  std::vector<float> a(64);
  Bytes ba = vt::to_bytes(a);
  asc::Status st = vt::run_ub({&ba},
                              [&](std::vector<LocalTensor<uint8_t>>& v) {
                                auto t = v[0].ReinterpretCast<int32_t>();
                                Reciprocal(t, t, 8);  // integer Reciprocal does not exist
                              },
                              true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
  EXPECT_NE(st.message().find("[Reciprocal]"), std::string::npos) << st.message();
  st = vt::run_ub({&ba},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[0].ReinterpretCast<float>();
                    Neg(t, t, 65);  // 64 elements only
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("[Neg]"), std::string::npos) << st.message();
  st = vt::run_ub({&ba},
                  [&](std::vector<LocalTensor<uint8_t>>& v) {
                    auto t = v[0].ReinterpretCast<int16_t>();
                    And(t, t, t, -1);
                  },
                  true);
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
}

TEST(LaneOps, CreateVecIndexAndOperators) {
  for (bool elide : vt::elision_modes()) {
    std::vector<float> f(100), a(100), b(100), s(100), p(100);
    std::vector<int16_t> i16(40), x(40), y(40), o(40);
    std::vector<half> h(300);
    for (int k = 0; k < 100; ++k) {
      a[k] = float(k) * 0.5f;
      b[k] = float(k % 7) + 1.0f;
    }
    for (int k = 0; k < 40; ++k) {
      x[k] = int16_t(k * 37);
      y[k] = int16_t(0x0F0F);
    }
    Bytes bf = vt::to_bytes(f), ba = vt::to_bytes(a), bb = vt::to_bytes(b), bs = vt::to_bytes(s),
          bp = vt::to_bytes(p), bi = vt::to_bytes(i16), bx = vt::to_bytes(x), by = vt::to_bytes(y),
          bo = vt::to_bytes(o), bh = vt::to_bytes(h);
    ASSERT_TRUE(vt::run_ub({&bf, &ba, &bb, &bs, &bp, &bi, &bx, &by, &bo, &bh},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             CreateVecIndex(v[0].ReinterpretCast<float>(), -3.0f, 100);
                             CreateVecIndex(v[5].ReinterpretCast<int16_t>(), int16_t(32760), 40);
                             CreateVecIndex(v[9].ReinterpretCast<half>(), half(2040.0f), 300);
                             auto fa = v[1].ReinterpretCast<float>(), fb = v[2].ReinterpretCast<float>();
                             auto fs = v[3].ReinterpretCast<float>(), fp = v[4].ReinterpretCast<float>();
                             fs.SetSize(100);
                             fp.SetSize(100);
                             fs = fa + fb;
                             fp = fa / fb;
                             auto io = v[8].ReinterpretCast<int16_t>();
                             io.SetSize(40);
                             io = v[6].ReinterpretCast<int16_t>() & v[7].ReinterpretCast<int16_t>();
                           },
                           elide)
                    .ok());
    f = vt::from_bytes<float>(bf, 100);
    s = vt::from_bytes<float>(bs, 100);
    p = vt::from_bytes<float>(bp, 100);
    i16 = vt::from_bytes<int16_t>(bi, 40);
    o = vt::from_bytes<int16_t>(bo, 40);
    h = vt::from_bytes<half>(bh, 300);
    for (int k = 0; k < 100; ++k) {
      EXPECT_EQ(f[k], float(k) - 3.0f);
      EXPECT_EQ(s[k], a[k] + b[k]);
      EXPECT_EQ(p[k], a[k] / b[k]);
    }
    for (int k = 0; k < 40; ++k) {
      EXPECT_EQ(i16[k], static_cast<int16_t>(static_cast<uint16_t>(32760 + k)));  // wraps past 32767
      EXPECT_EQ(o[k], static_cast<int16_t>(x[k] & 0x0F0F));
    }
    // half: 2040 + 299 = 2339 rounds to a multiple of 2 above 2048 (nearest even).
    EXPECT_EQ(float(h[8]), 2048.0f);
    EXPECT_EQ(float(h[299]), float(half(2339.0f)));
  }
}

}  // namespace
