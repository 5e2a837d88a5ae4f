// IEEE binary16 (`asc::float16`) and bfloat16 (`asc::bfloat16`) scalar types.
//
// Storage is 16 bits; arithmetic goes through float. float -> 16-bit conversion
// rounds to nearest, ties to even, keeps NaN a (quiet) NaN and overflows to
// ±Inf, as IEEE 754 and NumPy/ml_dtypes do. Vector conversions live in the SIMD
// kernels (src/kernel/simd); these are the scalar reference.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace asc {

namespace detail {
inline uint32_t float_bits(float f) noexcept {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) noexcept {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t f32_to_f16_bits(float f) noexcept {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // Inf or NaN
    if (abs == 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u);
    // Keep the top mantissa bits and force quiet so a NaN stays a NaN.
    return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x03FFu));
  }
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to >= 65520
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero) in half: value = abs_float * 2^24 ulp units.
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // < 2^-25: rounds to 0
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - exp;  // 14 .. 24 bits dropped (plus 13 of mantissa)
    const uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    uint32_t r = q + ((rem > half || (rem == half && (q & 1u))) ? 1u : 0u);
    return static_cast<uint16_t>(sign | r);
  }
  // Normal: rebias exponent (127 -> 15) and round the 13 dropped mantissa bits.
  uint32_t r = abs - 0x38000000u;
  const uint32_t lsb = (r >> 13) & 1u;
  r += 0x0FFFu + lsb;
  return static_cast<uint16_t>(sign | (r >> 13));
}

inline float f16_bits_to_f32(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  if (exp == 0x1Fu) return bits_float(sign | 0x7F800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    // Subnormal: value = mant * 2^-24 exactly representable in float.
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

inline uint16_t f32_to_bf16_bits(float f) noexcept {
  const uint32_t x = float_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);  // quiet NaN
  const uint32_t lsb = (x >> 16) & 1u;
  return static_cast<uint16_t>((x + 0x7FFFu + lsb) >> 16);
}

inline float bf16_bits_to_f32(uint16_t b) noexcept { return bits_float(static_cast<uint32_t>(b) << 16); }

/// double -> float rounded to odd (truncate, then set the last bit when
/// inexact). Rounding that result to nearest-even at 16 bits or fewer
/// significand bits equals rounding the double once (24 >= 11 + 2), so
/// double -> float16/bfloat16 go through it: NumPy and ml_dtypes round a
/// float64 once (1 + 2^-8 + 2^-40 -> bfloat16 1.0078125, not 1.0).
/// NaN stays NaN (the hardware conversion keeps the top payload bits).
inline float f64_to_f32_round_odd(double d) noexcept {
  float f = static_cast<float>(d);
  const double back = static_cast<double>(f);
  if (back != d && d == d) {
    uint32_t u = float_bits(f);
    if ((back < 0 ? -back : back) > (d < 0 ? -d : d)) --u;  // rounded away from zero: step back
    f = bits_float(u | 1u);
  }
  return f;
}

/// |integer| -> float rounded to odd (see f64_to_f32_round_odd): exact below
/// 2^24, else the top 24 bits with the dropped ones folded into the last.
inline float u64_to_f32_round_odd(uint64_t m) noexcept {
  if (m < (uint64_t(1) << 24)) return static_cast<float>(m);
  int shift = 0;
  while ((m >> shift) >= (uint64_t(1) << 24)) ++shift;
  uint64_t q = m >> shift;
  if (m & ((uint64_t(1) << shift) - 1u)) q |= 1u;
  return static_cast<float>(q) * bits_float(static_cast<uint32_t>(127 + shift) << 23);  // exact: q < 2^24
}
}  // namespace detail

struct FromBits {};

/// IEEE 754 binary16. Implicitly converts to/from float.
struct float16 {
  uint16_t bits = 0;
  float16() = default;
  constexpr float16(FromBits, uint16_t b) : bits(b) {}
  float16(float f) : bits(detail::f32_to_f16_bits(f)) {}  // NOLINT(implicit)
  float16(double d) : float16(detail::f64_to_f32_round_odd(d)) {}  // NOLINT(implicit): rounded once
  float16(int i) : float16(static_cast<float>(i)) {}        // NOLINT(implicit)
  operator float() const { return detail::f16_bits_to_f32(bits); }  // NOLINT(implicit)
  static constexpr float16 from_bits(uint16_t b) { return float16(FromBits{}, b); }
  float16& operator+=(float16 o) { return *this = float16(float(*this) + float(o)); }
  float16& operator-=(float16 o) { return *this = float16(float(*this) - float(o)); }
  float16& operator*=(float16 o) { return *this = float16(float(*this) * float(o)); }
  float16& operator/=(float16 o) { return *this = float16(float(*this) / float(o)); }
};

/// bfloat16 (the top half of a float32). Implicitly converts to/from float.
struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  constexpr bfloat16(FromBits, uint16_t b) : bits(b) {}
  bfloat16(float f) : bits(detail::f32_to_bf16_bits(f)) {}  // NOLINT(implicit)
  bfloat16(double d) : bfloat16(detail::f64_to_f32_round_odd(d)) {}  // NOLINT(implicit): rounded once
  bfloat16(int i) : bfloat16(static_cast<float>(i)) {}       // NOLINT(implicit)
  operator float() const { return detail::bf16_bits_to_f32(bits); }  // NOLINT(implicit)
  static constexpr bfloat16 from_bits(uint16_t b) { return bfloat16(FromBits{}, b); }
  bfloat16& operator+=(bfloat16 o) { return *this = bfloat16(float(*this) + float(o)); }
  bfloat16& operator-=(bfloat16 o) { return *this = bfloat16(float(*this) - float(o)); }
  bfloat16& operator*=(bfloat16 o) { return *this = bfloat16(float(*this) * float(o)); }
  bfloat16& operator/=(bfloat16 o) { return *this = bfloat16(float(*this) / float(o)); }
};

static_assert(sizeof(float16) == 2 && sizeof(bfloat16) == 2, "16-bit float types must be 2 bytes");

}  // namespace asc
