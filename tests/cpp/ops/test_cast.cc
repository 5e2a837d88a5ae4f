// Casts into and out of the 16-bit floats against independent references:
// bfloat16 -> integer (ml_dtypes 0.7: the truncated value when the target
// holds it, else 0), float16 -> uint32 (NumPy's 64-bit cvtt), and double /
// wide integers -> float16/bfloat16 rounded once to nearest-even (no double
// rounding through float32). The Python suite compares the same casts with
// NumPy/ml_dtypes themselves (tests/python/array/test_cast_rules.py).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "asc/core/tensor.h"
#include "asc/ops/registry.h"
#include "ops/loops.h"

using namespace asc;
using ops::detail::convert;

namespace {

template <typename H>
float half_value(uint16_t b) {
  return static_cast<float>(H::from_bits(b));
}

/// The nearest-even 16-bit value of the exact number `x` (long double holds
/// every double and every 64-bit integer): binary search over the ordered
/// positive bit patterns, then the midpoint decides (exact in long double).
template <typename H>
uint16_t ref_round(long double x) {
  const bool neg = std::signbit(x);
  const long double a = neg ? -x : x;
  const uint16_t inf = std::is_same_v<H, float16> ? 0x7C00 : 0x7F80;
  const uint16_t sign = neg ? 0x8000 : 0;
  uint16_t lo = 0, hi = inf;  // value(lo) <= a < value(hi) unless a >= the largest finite value
  if (a >= static_cast<long double>(half_value<H>(inf - 1))) {
    lo = inf - 1;
  } else {
    while (hi - lo > 1) {
      const uint16_t m = static_cast<uint16_t>((lo + hi) / 2);
      if (static_cast<long double>(half_value<H>(m)) <= a) lo = m;
      else hi = m;
    }
  }
  if (lo == inf - 1) {
    // Past the largest finite value: the next step would be 2^(emax+1) ("inf").
    const long double top = static_cast<long double>(half_value<H>(inf - 1));
    const long double step = top - static_cast<long double>(half_value<H>(inf - 2));
    const long double mid = top + step / 2;
    return static_cast<uint16_t>(sign | (a < mid ? lo : inf));
  }
  const long double vlo = half_value<H>(lo), vhi = half_value<H>(static_cast<uint16_t>(lo + 1));
  const long double mid = (vlo + vhi) / 2;
  uint16_t r = lo;
  if (a > mid || (a == mid && (lo & 1))) r = static_cast<uint16_t>(lo + 1);
  return static_cast<uint16_t>(sign | r);
}

template <typename D>
D ref_bf16_to_int(float x) {
  if (!std::isfinite(x)) return D(0);
  const long double t = std::trunc(static_cast<long double>(x));
  if (t < static_cast<long double>(std::numeric_limits<D>::min()) ||
      t > static_cast<long double>(std::numeric_limits<D>::max()))
    return D(0);
  return static_cast<D>(t);
}

template <typename D>
void check_bf16_to(const char* name) {
  Tensor t = Tensor::empty({65536}, DType::kBFloat16);
  for (uint32_t b = 0; b < 65536; ++b) t.data_as<bfloat16>()[b] = bfloat16::from_bits(static_cast<uint16_t>(b));
  const Tensor c = ops::cast(t, dtype_of<D>());
  const Tensor s = ops::cast(t.slice(0, 65535, -1, -3), dtype_of<D>());  // strided, reversed
  for (uint32_t b = 0; b < 65536; ++b) {
    const float x = half_value<bfloat16>(static_cast<uint16_t>(b));
    ASSERT_EQ(convert<D>(bfloat16::from_bits(static_cast<uint16_t>(b))), ref_bf16_to_int<D>(x)) << name << " " << x;
    ASSERT_EQ(c.data_as<D>()[b], ref_bf16_to_int<D>(x)) << name << " " << x;
  }
  for (int64_t i = 0; i < s.numel(); ++i) {
    const float x = half_value<bfloat16>(static_cast<uint16_t>(65535 - 3 * i));
    ASSERT_EQ(s.data_as<D>()[i], ref_bf16_to_int<D>(x)) << name << " " << x;
  }
}

}  // namespace

TEST(Cast, BFloat16ToIntegerEveryValue) {
  check_bf16_to<int8_t>("int8");
  check_bf16_to<int16_t>("int16");
  check_bf16_to<int32_t>("int32");
  check_bf16_to<int64_t>("int64");
  check_bf16_to<uint8_t>("uint8");
  check_bf16_to<uint16_t>("uint16");
  check_bf16_to<uint32_t>("uint32");
  check_bf16_to<uint64_t>("uint64");
  // The rule's corners stated directly.
  EXPECT_EQ(convert<uint8_t>(bfloat16(-1.0f)), 0);
  EXPECT_EQ(convert<uint8_t>(bfloat16(-0.5f)), 0);
  EXPECT_EQ(convert<int8_t>(bfloat16(128.0f)), 0);
  EXPECT_EQ(convert<int8_t>(bfloat16(-128.0f)), -128);
  EXPECT_EQ(convert<int64_t>(bfloat16(9.223372036854775808e18f)), 0);  // 2^63 does not fit
  EXPECT_EQ(convert<int64_t>(bfloat16(-9.223372036854775808e18f)), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(convert<uint64_t>(bfloat16(std::nanf(""))), 0u);
}

TEST(Cast, Float16ToUInt32ThroughInt64) {
  EXPECT_EQ(convert<uint32_t>(float16(std::nanf(""))), 0u);
  EXPECT_EQ(convert<uint32_t>(float16(INFINITY)), 0u);
  EXPECT_EQ(convert<uint32_t>(float16(-INFINITY)), 0u);
  EXPECT_EQ(convert<uint32_t>(float16(-1.0f)), 4294967295u);
  EXPECT_EQ(convert<uint32_t>(float16(65504.0f)), 65504u);
  EXPECT_EQ(convert<uint32_t>(float16(-2.5f)), 4294967294u);
}

TEST(Cast, DoubleToHalfRoundsOnce) {
  EXPECT_EQ(bfloat16(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)).bits, 0x3F81);  // via float: 0x3F80
  EXPECT_EQ(bfloat16(1.0 + std::ldexp(1.0, -8)).bits, 0x3F80);                          // a tie: even
  EXPECT_EQ(bfloat16(-(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40))).bits, 0xBF81);
  EXPECT_EQ(float16(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)).bits, 0x3C01);  // via float: 0x3C00
  EXPECT_EQ(float16(65520.0).bits, 0x7C00);
  EXPECT_EQ(float16(65519.99).bits, 0x7BFF);
  EXPECT_EQ(bfloat16(1e300).bits, 0x7F80);
  EXPECT_EQ(bfloat16(-1e300).bits, 0xFF80);
  EXPECT_EQ(bfloat16(5e-324).bits, 0x0000);
  EXPECT_EQ(bfloat16(-5e-324).bits, 0x8000);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(std::nan("")))));
  EXPECT_TRUE(std::isnan(static_cast<float>(float16(std::nan("")))));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    // Random doubles near 16-bit ties: a 12-bit significand + 1/2 ulp, nudged by a random low part.
    const double m = static_cast<double>((rng() % 4096) | 256) + 0.5;
    const int e = static_cast<int>(rng() % 80) - 40;
    const double nudge = static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000) * 1e-15;
    double d = std::ldexp(m * (1.0 + nudge), e);
    if (rng() & 1) d = -d;
    if (i % 3 == 0) {  // and arbitrary bit patterns
      uint64_t u = rng();
      std::memcpy(&d, &u, 8);
      if (std::isnan(d)) continue;
    }
    ASSERT_EQ(bfloat16(d).bits, ref_round<bfloat16>(d)) << d;
    ASSERT_EQ(float16(d).bits, ref_round<float16>(d)) << d;
  }
}

TEST(Cast, IntegerToHalfRoundsOnce) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const int k = static_cast<int>(rng() % 63);
    const int64_t v = static_cast<int64_t>(rng() >> (63 - k)) * ((rng() & 1) ? -1 : 1);
    const uint64_t u = rng() >> (rng() % 64);
    ASSERT_EQ(convert<bfloat16>(v).bits, ref_round<bfloat16>(static_cast<long double>(v))) << v;
    ASSERT_EQ(convert<float16>(v).bits, ref_round<float16>(static_cast<long double>(v))) << v;
    ASSERT_EQ(convert<bfloat16>(u).bits, ref_round<bfloat16>(static_cast<long double>(u))) << u;
    const int32_t w = static_cast<int32_t>(v);
    ASSERT_EQ(convert<bfloat16>(w).bits, ref_round<bfloat16>(static_cast<long double>(w))) << w;
    ASSERT_EQ(convert<bfloat16>(static_cast<uint32_t>(u)).bits,
              ref_round<bfloat16>(static_cast<long double>(static_cast<uint32_t>(u))));
  }
  // 2^24 + 2^16 + 1: through a nearest-even float32 (2^24) it would tie and round down.
  EXPECT_EQ(static_cast<float>(convert<bfloat16>(int32_t((1 << 24) + (1 << 16) + 1))), 16908288.0f);
  EXPECT_EQ(convert<bfloat16>(std::numeric_limits<int64_t>::min()).bits, 0xDF00);  // -2^63 exactly
  EXPECT_EQ(convert<bfloat16>(std::numeric_limits<uint64_t>::max()).bits, 0x5F80);  // rounds up to 2^64
}
