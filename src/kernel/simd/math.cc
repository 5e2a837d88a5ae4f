// Vector math (include/asc/kernel/simd.h, "vector math"): exp/log/trig/
// hyperbolic/erf/gelu/pow... for float64 and float32, float16/bfloat16 in
// float32 lanes, for every Highway target with dynamic dispatch.
//
// Where Highway's contrib/math is accurate over the whole domain we use it and
// pin the ends NumPy defines (NaN, +-Inf, +-0, overflow). Where it is missing
// or limited we add our own kernels: exp2, log2/log10 (exponent split, so
// powers of two are exact), tan (Cody-Waite reduction by pi/2 + Cephes-style
// approximations), cbrt (Halley), erf/erfc (Chebyshev series; float32 erf a minimax
// polynomial and 1 - exp(poly); coefficients in math_erf-inl.h), sigmoid, gelu, pow/atan2/hypot/logaddexp. sin/cos/tan switch
// to the C library for the (rare) lanes beyond their reduction's accurate range
// and for non-finite inputs, so results stay accurate for every input.
//
// Some float32 functions are computed in float64 lanes (F32ViaF64IO): that is
// cheap for them and makes them almost correctly rounded (tan, cbrt, pow,
// arctan2, hypot, logaddexp/logaddexp2, gelu: the last three are
// ill-conditioned in their tails, where float32 lanes would lose ~100 ulps). Measured errors per function and dtype: docs/vector_math.md.

#include <cmath>
#include <cstdint>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel/simd/math.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "kernel/simd/exp_f32-inl.h"
#include "kernel/simd/float16-inl.h"
#include "kernel/simd/math_erf-inl.h"
#include "kernel/simd/math_table.h"
#include "kernel/simd/tables.h"

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---------------------------------------------------------------- helpers

template <class D>
HWY_INLINE hn::VFromD<D> K(D d, double c) {
  return hn::Set(d, static_cast<hn::TFromD<D>>(c));
}
template <class D>
constexpr bool kF32 = sizeof(hn::TFromD<D>) == 4;

// Recomputes the lanes selected by `bad` with the scalar function f (C library
// accuracy for arguments a vector kernel does not cover).
template <class D, class V, class M, class F>
HWY_NOINLINE V FixLanes(D d, V x, V r, M bad, F f) {
  using T = hn::TFromD<D>;
  T xs[kMaxLanes<T>], rs[kMaxLanes<T>], bs[kMaxLanes<T>];
  hn::StoreU(x, d, xs);
  hn::StoreU(r, d, rs);
  hn::StoreU(hn::VecFromMask(d, bad), d, bs);
  for (size_t i = 0; i < hn::Lanes(d); ++i) {
    hwy::MakeUnsigned<T> bits;
    std::memcpy(&bits, &bs[i], sizeof bits);
    if (bits) rs[i] = f(xs[i]);
  }
  return hn::LoadU(d, rs);
}

// v * 2^q for integral q (as T): two factors, so that neither overflows before
// the product does (a denormal or infinite result is rounded once).
// |q| <= 250 (float32) / 2040 (float64).
template <class D, class V>
HWY_INLINE V Scale2(D d, V v, V q) {
  const hn::RebindToSigned<D> di;
  constexpr int kMant = kF32<D> ? 23 : 52;
  const auto bias = hn::Set(di, kF32<D> ? 127 : 1023);
  const auto qi = hn::ConvertTo(di, q);
  const auto h = hn::ShiftRight<1>(qi);
  const V p1 = hn::BitCast(d, hn::ShiftLeft<kMant>(hn::Add(h, bias)));
  const V p2 = hn::BitCast(d, hn::ShiftLeft<kMant>(hn::Add(hn::Sub(qi, h), bias)));
  return hn::Mul(hn::Mul(v, p1), p2);
}

// Splits finite x > 0 into x = 2^e * m with m in [sqrt(1/2), sqrt(2)).
template <class D, class V>
HWY_INLINE void SplitExponent(D d, V x, V* e, V* m) {
  const hn::RebindToUnsigned<D> du;
  const hn::RebindToSigned<D> di;
  using TU = hn::TFromD<decltype(du)>;
  constexpr int kMant = kF32<D> ? 23 : 52;
  const auto den = hn::Lt(x, K(d, kF32<D> ? 1.1754943508222875e-38 : 2.2250738585072014e-308));
  x = hn::IfThenElse(den, hn::Mul(x, K(d, kF32<D> ? 16777216.0 : 18014398509481984.0)), x);
  const auto bits = hn::BitCast(du, x);
  const V ex = hn::ConvertTo(d, hn::BitCast(di, hn::ShiftRight<kMant>(bits)));
  V ee = hn::Sub(ex, K(d, kF32<D> ? 127.0 : 1023.0));
  ee = hn::Sub(ee, hn::IfThenElseZero(den, K(d, kF32<D> ? 24.0 : 54.0)));
  const TU kMantMask = (TU(1) << kMant) - 1;
  const TU kOneBits = TU(kF32<D> ? 127 : 1023) << kMant;
  V mm = hn::BitCast(d, hn::Or(hn::And(bits, hn::Set(du, kMantMask)), hn::Set(du, kOneBits)));
  const auto big = hn::Gt(mm, K(d, 1.4142135623730951));
  *m = hn::IfThenElse(big, hn::Mul(mm, K(d, 0.5)), mm);
  *e = hn::IfThenElse(big, hn::Add(ee, K(d, 1.0)), ee);
}

// The IEEE results of a logarithm at 0, < 0, +Inf and NaN.
template <class D, class V>
HWY_INLINE V LogSpecial(D d, V x, V r) {
  r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(hn::Inf(d)), r);
  r = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::NaN(d), r);
  r = hn::IfThenElse(hn::Eq(x, hn::Inf(d)), x, r);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

template <class D, class V>
HWY_INLINE V KeepZeroAndNaN(D d, V x, V r) {
  r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, r);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// Largest x with a finite exp(x).
template <class D>
HWY_INLINE hn::VFromD<D> ExpMaxArg(D d) {
  return K(d, kF32<D> ? 88.72283172607421875 : 709.782712893383973096);
}

// a * b - p exactly, for p = a * b rounded (FMA; Veltkamp/Dekker splitting on
// targets without FMA, where Highway's MulSub rounds twice). Not finite when
// a * b overflows; callers mask that.
template <class D, class V>
HWY_INLINE V ProdErr(D d, V a, V b, V p) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulSub(a, b, p);
#else
  const V split = K(d, kF32<D> ? 4097.0 : 134217729.0);
  const V ca = hn::Mul(split, a), cb = hn::Mul(split, b);
  const V ah = hn::Sub(ca, hn::Sub(ca, a)), bh = hn::Sub(cb, hn::Sub(cb, b));
  const V al = hn::Sub(a, ah), bl = hn::Sub(b, bh);
  return hn::Add(hn::Add(hn::Add(hn::Sub(hn::Mul(ah, bh), p), hn::Mul(ah, bl)), hn::Mul(al, bh)), hn::Mul(al, bl));
#endif
}

// Chebyshev series sum c[0] + sum c[k] T_k(u) (Clenshaw's recurrence).
template <size_t N, class D, class V>
HWY_INLINE V Clenshaw(D d, const double (&c)[N], V u) {
  const V u2 = hn::Add(u, u);
  V b1 = hn::Zero(d), b2 = hn::Zero(d);
  for (size_t k = N - 1; k >= 1; --k) {
    const V b0 = hn::Add(hn::MulSub(u2, b1, b2), K(d, c[k]));
    b2 = b1;
    b1 = b0;
  }
  return hn::Add(hn::MulSub(u, b1, b2), K(d, c[0]));
}

// ---------------------------------------------------------------- exp / log

// ExpF32Fast (float32 exp for |x| < 87) is in exp_f32-inl.h, shared with src/nn/softmax.cc.

struct ExpF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    if constexpr (kF32<D>) {
      if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(hn::Abs(x), K(d, 87.0))))) return ExpF32Fast(d, x);
    }
    V r = hn::Exp(d, x);  // accurate on [-max, ExpMaxArg]; 0 below the underflow point
    r = hn::IfThenElse(hn::Gt(x, ExpMaxArg(d)), hn::Inf(d), r);
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
};

struct Exp2F {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const double lim = kF32<D> ? 200.0 : 1100.0;
    const V xc = hn::Min(hn::Max(x, K(d, -lim)), K(d, lim));
    const V q = hn::Round(xc);
    const V f = hn::Sub(xc, q);  // exact, |f| <= 1/2
    const V r = Scale2(d, hn::Exp(d, hn::Mul(f, K(d, 0.693147180559945309417))), q);
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
};

struct Expm1F {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    V r = hn::Expm1(d, x);
    r = hn::IfThenElse(hn::Gt(x, ExpMaxArg(d)), hn::Inf(d), r);
    return KeepZeroAndNaN(d, x, r);
  }
};

struct LogF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const { return LogSpecial(d, x, hn::Log(d, x)); }
};

struct Log2F {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    V e, m;
    SplitExponent(d, x, &e, &m);
    return LogSpecial(d, x, hn::MulAdd(hn::Log(d, m), K(d, 1.442695040888963407359924681), e));
  }
};

struct Log10F {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    V e, m;
    SplitExponent(d, x, &e, &m);
    const V lm = hn::Mul(hn::Log(d, m), K(d, 0.434294481903251827651128918917));
    return LogSpecial(d, x, hn::MulAdd(e, K(d, 0.301029995663981195213738894724), lm));
  }
};

struct Log1pF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    // Highway's log(1+x) * x / ((1+x) - 1) is accurate on (-1, max].
    V r = hn::Log1p(d, x);
    const V m1 = K(d, -1.0);
    r = hn::IfThenElse(hn::Eq(x, m1), hn::Neg(hn::Inf(d)), r);
    r = hn::IfThenElse(hn::Lt(x, m1), hn::NaN(d), r);
    r = hn::IfThenElse(hn::Eq(x, hn::Inf(d)), x, r);
    return KeepZeroAndNaN(d, x, r);
  }
};

// ---------------------------------------------------------------- trigonometric

// Highway's Sin/Cos reduce by pi with four float constants: accurate for
// |x| <= kTrigLimit; the C library takes the other lanes (and Inf/NaN).
template <class D>
constexpr double kTrigLimit = kF32<D> ? 39000.0 : 100000.0;

// float32 sin for |x| <= kTrigLimit: Highway's reduction (q = round(|x| / pi),
// four-part pi) and polynomial, but q comes from the 1.5 * 2^23 shifter
// (its low bit is the parity of q) instead of a float -> int -> float
// round trip with overflow fix-ups: about 20% fewer instructions. The sign
// is applied after the odd polynomial, so sin(-0) = -0 without a select.
template <class D, class V>
HWY_INLINE V SinF32(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V shifter = K(d, 12582912.0);  // 1.5 * 2^23
  const V ax = hn::Abs(x);
  const V sign_x = hn::Xor(ax, x);
  const V kx = hn::MulAdd(ax, K(d, 0.31830988618379067153), shifter);
  const V q = hn::Sub(kx, shifter);
  V r = hn::MulAdd(q, K(d, -3.140625), ax);
  r = hn::MulAdd(q, K(d, -0.0009670257568359375), r);
  r = hn::MulAdd(q, K(d, -6.2771141529083251953e-7), r);
  r = hn::MulAdd(q, K(d, -1.2154201256553420762e-10), r);
  const V y = hn::Mul(r, r);
  const V p01 = hn::MulAdd(K(d, 8.33307858556509017944336e-3), y, K(d, -1.66666597127914428710938e-1));
  const V p23 = hn::MulAdd(K(d, 2.6083159809786593541503e-6), y, K(d, -1.981069071916863322258e-4));
  const V poly = hn::MulAdd(p23, hn::Mul(y, y), p01);
  const V s = hn::MulAdd(poly, hn::Mul(y, r), r);
  const V odd = hn::BitCast(d, hn::ShiftLeft<31>(hn::BitCast(di, kx)));  // (-1)^q
  return hn::Xor(s, hn::Xor(odd, sign_x));
}

struct SinF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    using T = hn::TFromD<D>;
    V r;
    if constexpr (kF32<D>) r = SinF32(d, x);
    else r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, hn::Sin(d, x));
    const auto ok = hn::Le(hn::Abs(x), K(d, kTrigLimit<D>));
    if (HWY_UNLIKELY(!hn::AllTrue(d, ok))) r = FixLanes(d, x, r, hn::Not(ok), [](T v) { return std::sin(v); });
    return r;
  }
};

// float32 cos for |x| <= kTrigLimit, the same way: n = round(|x| / pi - 1/2)
// by the shifter, r = |x| - (n + 1/2) pi (Highway's four-part pi/2), and
// cos(x) = -(-1)^n sin(r) by the polynomial of SinF32.
template <class D, class V>
HWY_INLINE V CosF32(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V shifter = K(d, 12582912.0);  // 1.5 * 2^23
  const V ax = hn::Abs(x);
  const V kx = hn::Add(hn::MulSub(ax, K(d, 0.31830988618379067153), K(d, 0.5)), shifter);
  const V q = hn::MulAdd(hn::Sub(kx, shifter), K(d, 2.0), K(d, 1.0));  // 2n + 1, exact
  V r = hn::MulAdd(q, K(d, -0.5 * 3.140625), ax);
  r = hn::MulAdd(q, K(d, -0.5 * 0.0009670257568359375), r);
  r = hn::MulAdd(q, K(d, -0.5 * 6.2771141529083251953e-7), r);
  r = hn::MulAdd(q, K(d, -0.5 * 1.2154201256553420762e-10), r);
  const V y = hn::Mul(r, r);
  const V p01 = hn::MulAdd(K(d, 8.33307858556509017944336e-3), y, K(d, -1.66666597127914428710938e-1));
  const V p23 = hn::MulAdd(K(d, 2.6083159809786593541503e-6), y, K(d, -1.981069071916863322258e-4));
  const V poly = hn::MulAdd(p23, hn::Mul(y, y), p01);
  const V s = hn::MulAdd(poly, hn::Mul(y, r), r);
  // -(-1)^n: the sign bit is set for even n.
  const V neg = hn::Xor(hn::BitCast(d, hn::ShiftLeft<31>(hn::BitCast(di, kx))), hn::Neg(hn::Zero(d)));
  return hn::Xor(s, neg);
}

struct CosF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    using T = hn::TFromD<D>;
    V r;
    if constexpr (kF32<D>) r = CosF32(d, x);
    else r = hn::Cos(d, x);
    // cos(x) rounds to exactly 1 for |x| < 2^-27 (1 - x^2/2 is within half an
    // ulp of 1); Highway's float64 Cos gives 1 - 2^-53 there, cos(+-0) included.
    r = hn::IfThenElse(hn::Lt(hn::Abs(x), K(d, 0x1p-27)), K(d, 1.0), r);
    const auto ok = hn::Le(hn::Abs(x), K(d, kTrigLimit<D>));
    if (HWY_UNLIKELY(!hn::AllTrue(d, ok))) r = FixLanes(d, x, r, hn::Not(ok), [](T v) { return std::cos(v); });
    return r;
  }
};

// tan: j = round(x * 2/pi), r = x - j pi/2 (Cody-Waite, three parts), tan(r)
// on [-pi/4, pi/4] by a rational (float64) or polynomial (float32)
// approximation of Cephes' form, and -1/tan(r) for odd j.
struct TanF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    using T = hn::TFromD<D>;
    constexpr double kLimit = kF32<D> ? 8192.0 : 1.0e6;
    const V j = hn::Round(hn::Mul(x, K(d, 0.636619772367581343075535)));
    V r;
    if constexpr (kF32<D>) {
      r = hn::NegMulAdd(j, K(d, 1.5703125), x);
      r = hn::NegMulAdd(j, K(d, 4.837512969970703125e-4), r);
      r = hn::NegMulAdd(j, K(d, 7.54978995489188216e-8), r);
    } else {
      r = hn::NegMulAdd(j, K(d, 1.57079632673412561417e+00), x);
      r = hn::NegMulAdd(j, K(d, 6.07710050630396597660e-11), r);
      r = hn::NegMulAdd(j, K(d, 2.02226624871116645580e-21), r);
    }
    const V z = hn::Mul(r, r);
    V t;
    if constexpr (kF32<D>) {
      V p = K(d, 9.38540185543e-3);
      p = hn::MulAdd(p, z, K(d, 3.11992232697e-3));
      p = hn::MulAdd(p, z, K(d, 2.44301354525e-2));
      p = hn::MulAdd(p, z, K(d, 5.34112807005e-2));
      p = hn::MulAdd(p, z, K(d, 1.33387994085e-1));
      p = hn::MulAdd(p, z, K(d, 3.33331568548e-1));
      t = hn::MulAdd(hn::Mul(p, z), r, r);
    } else {
      V p = K(d, -1.30936939181383777646e4);
      p = hn::MulAdd(p, z, K(d, 1.15351664838587416140e6));
      p = hn::MulAdd(p, z, K(d, -1.79565251976484877988e7));
      V q = hn::Add(z, K(d, 1.36812963470692954678e4));
      q = hn::MulAdd(q, z, K(d, -1.32089234440210967447e6));
      q = hn::MulAdd(q, z, K(d, 2.50083801823357915839e7));
      q = hn::MulAdd(q, z, K(d, -5.38695755929454629881e7));
      t = hn::MulAdd(hn::Mul(r, z), hn::Div(p, q), r);
    }
    const V half = hn::Mul(j, K(d, 0.5));
    const auto odd = hn::Ne(hn::Floor(half), half);
    V res = hn::IfThenElse(odd, hn::Neg(hn::Div(K(d, 1.0), t)), t);
    res = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, res);
    const auto ok = hn::Le(hn::Abs(x), K(d, kLimit));
    if (HWY_UNLIKELY(!hn::AllTrue(d, ok))) res = FixLanes(d, x, res, hn::Not(ok), [](T v) { return std::tan(v); });
    return res;
  }
};

struct ArcsinF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V r = hn::IfThenElse(hn::Gt(hn::Abs(x), K(d, 1.0)), hn::NaN(d), hn::Asin(d, x));
    return KeepZeroAndNaN(d, x, r);
  }
};

struct ArccosF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V r = hn::IfThenElse(hn::Gt(hn::Abs(x), K(d, 1.0)), hn::NaN(d), hn::Acos(d, x));
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
};

struct ArctanF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const { return KeepZeroAndNaN(d, x, hn::Atan(d, x)); }
};

// ---------------------------------------------------------------- hyperbolic

// For |x| beyond exp's range: (exp(|x|/2) / 2) * exp(|x|/2), finite where the
// result is.
template <class D, class V>
HWY_INLINE V HalfExpSquared(D d, V ax) {
  const V h = ExpF()(d, hn::Mul(ax, K(d, 0.5)));
  return hn::Mul(hn::Mul(h, K(d, 0.5)), h);
}

struct SinhF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V ax = hn::Abs(x);
    V r = hn::Sinh(d, x);
    const auto big = hn::Gt(ax, K(d, kF32<D> ? 88.0 : 709.0));
    if (HWY_UNLIKELY(!hn::AllFalse(d, big))) r = hn::IfThenElse(big, hn::CopySign(HalfExpSquared(d, ax), x), r);
    // sinh(x) = x to working precision below 2^-13 / 2^-27 (Highway's y/2
    // would lose denormal inputs).
    r = hn::IfThenElse(hn::Lt(ax, K(d, kF32<D> ? 1.220703125e-4 : 7.450580596923828e-9)), x, r);
    return KeepZeroAndNaN(d, x, r);
  }
};

struct CoshF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V ax = hn::Abs(x);
    const V e = ExpF()(d, ax);
    V r = hn::MulAdd(e, K(d, 0.5), hn::Div(K(d, 0.5), e));
    const auto big = hn::Gt(ax, K(d, kF32<D> ? 88.0 : 709.0));
    if (HWY_UNLIKELY(!hn::AllFalse(d, big))) r = hn::IfThenElse(big, HalfExpSquared(d, ax), r);
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
};

struct TanhF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const { return hn::IfThenElse(hn::IsNaN(x), x, hn::Tanh(d, x)); }
};

struct ArcsinhF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V r = hn::IfThenElse(hn::IsInf(x), x, hn::Asinh(d, x));
    return KeepZeroAndNaN(d, x, r);
  }
};

struct ArccoshF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    V r = hn::Acosh(d, x);
    r = hn::IfThenElse(hn::Lt(x, K(d, 1.0)), hn::NaN(d), r);
    r = hn::IfThenElse(hn::Eq(x, hn::Inf(d)), x, r);
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
};

struct ArctanhF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V ax = hn::Abs(x);
    V r = hn::Atanh(d, x);
    r = hn::IfThenElse(hn::Eq(ax, K(d, 1.0)), hn::CopySign(hn::Inf(d), x), r);
    r = hn::IfThenElse(hn::Gt(ax, K(d, 1.0)), hn::NaN(d), r);
    return KeepZeroAndNaN(d, x, r);
  }
};

// ---------------------------------------------------------------- roots

struct SqrtF {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const { return hn::Sqrt(x); }
};

struct RsqrtF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const { return hn::Div(K(d, 1.0), hn::Sqrt(x)); }
};

// cbrt: |x| = 2^(3q + rem) m, m in [1, 2); a quadratic start for cbrt(m 2^rem)
// refined by Halley's iteration (cubic convergence: once for float32, twice
// for float64), then scaled by 2^q.
struct CbrtF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const hn::RebindToUnsigned<D> du;
    const hn::RebindToSigned<D> di;
    using TU = hn::TFromD<decltype(du)>;
    constexpr int kMant = kF32<D> ? 23 : 52;
    V ax = hn::Abs(x);
    const auto den = hn::Lt(ax, K(d, kF32<D> ? 1.1754943508222875e-38 : 2.2250738585072014e-308));
    ax = hn::IfThenElse(den, hn::Mul(ax, K(d, kF32<D> ? 16777216.0 : 18014398509481984.0)), ax);  // 2^24 / 2^54
    const auto bits = hn::BitCast(du, ax);
    const V e = hn::Sub(hn::ConvertTo(d, hn::BitCast(di, hn::ShiftRight<kMant>(bits))),
                        K(d, kF32<D> ? 127.0 : 1023.0));
    const TU kMantMask = (TU(1) << kMant) - 1;
    const TU kOneBits = TU(kF32<D> ? 127 : 1023) << kMant;
    const V m = hn::BitCast(d, hn::Or(hn::And(bits, hn::Set(du, kMantMask)), hn::Set(du, kOneBits)));
    const V q = hn::Sub(hn::Floor(hn::Mul(hn::Add(e, K(d, 1200.5)), K(d, 1.0 / 3.0))), K(d, 400.0));
    const V rem = hn::NegMulAdd(q, K(d, 3.0), e);  // 0, 1 or 2
    const V t = hn::Mul(m, hn::IfThenElse(hn::Eq(rem, hn::Zero(d)), K(d, 1.0),
                                          hn::IfThenElse(hn::Eq(rem, K(d, 1.0)), K(d, 2.0), K(d, 4.0))));
    V y = hn::MulAdd(hn::MulAdd(m, K(d, -0.05864003), K(d, 0.43357731)), m, K(d, 0.62634222));
    y = hn::Mul(y, hn::IfThenElse(hn::Eq(rem, hn::Zero(d)), K(d, 1.0),
                                  hn::IfThenElse(hn::Eq(rem, K(d, 1.0)), K(d, 1.2599210498948731648),
                                                 K(d, 1.5874010519681994748))));
    const int iters = kF32<D> ? 1 : 2;
    for (int i = 0; i < iters; ++i) {
      const V y3 = hn::Mul(hn::Mul(y, y), y);
      y = hn::Mul(y, hn::Div(hn::MulAdd(t, K(d, 2.0), y3), hn::MulAdd(y3, K(d, 2.0), t)));
    }
    // Newton's step on the rounded value: y -= (y^3 - t) / (3 y^2).
    const V y2 = hn::Mul(y, y);
    y = hn::Sub(y, hn::Div(hn::MulSub(y2, y, t), hn::Mul(y2, K(d, 3.0))));
    const V qq = hn::Sub(q, hn::IfThenElseZero(den, K(d, kF32<D> ? 8.0 : 18.0)));
    const V r = hn::CopySign(Scale2(d, y, qq), x);
    return hn::IfThenElse(hn::Or(hn::Eq(x, hn::Zero(d)), hn::Not(hn::IsFinite(x))), x, r);
  }
};

// ---------------------------------------------------------------- sigmoid, erf, gelu

struct SigmoidF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    // exp(-|x|) never overflows; x < 0 uses e / (1 + e) so tiny results keep
    // their precision.
    const V e = ExpF()(d, hn::Neg(hn::Abs(x)));
    const V den = hn::Add(K(d, 1.0), e);
    return hn::Div(hn::IfThenElse(hn::Lt(x, hn::Zero(d)), e, K(d, 1.0)), den);
  }
};

// The power-basis forms of math_erf-inl.h's Chebyshev series (ChebToPower there).
using erf_coeffs::kErfcPolyF32;
using erf_coeffs::kErfSmallPolyF32;
using erf_coeffs::PowerPoly;

template <size_t N, class D, class V>
HWY_INLINE V Horner(D d, const PowerPoly<N>& p, V u) {
  V r = K(d, p.a[N - 1]);
  for (size_t k = N - 1; k >= 1; --k) r = hn::MulAdd(r, u, K(d, p.a[k - 1]));
  return r;
}

// erf(x) for |x| < 0.5: x * Q(8 x^2 - 1).
template <class D, class V>
HWY_INLINE V ErfSmall(D d, V x) {
  const V w = hn::MulSub(hn::Mul(x, x), K(d, 8.0), K(d, 1.0));
  if constexpr (kF32<D>) return hn::Mul(x, Horner(d, kErfSmallPolyF32, w));
  else return hn::Mul(x, Clenshaw(d, erf_coeffs::kErfSmallChebF64, w));
}

// float32 erfc(a) for a >= 0.5 given a^2 = s2hi + s2lo: t exp(-a^2 + P(u)),
// t = 2 / (2 + a), in one exponential whose argument keeps a^2's low part:
// k = round((P - s2hi) / ln 2), r = ((-s2hi - k ln2_hi) + P) - s2lo - k ln2_lo.
// -s2hi - k ln2_hi is exact (s2hi < 103 and k ln2_hi are multiples of 2^-17 whose
// difference is below 4), so r carries no rounding of the large a^2 and the
// result keeps erfc's relative accuracy for large a with one exp instead of two.
// The result t e 2^k is scaled by adding k to the exponent, or in two factors when it
// is (near) denormal.
template <class D, class V>
HWY_INLINE V ErfcLargeF32(D d, V a, V s2hi, V s2lo) {
  const hn::RebindToSigned<D> di;
  constexpr double xmax = 10.1;
  const V ac = hn::Min(a, K(d, xmax));
  const V q = hn::Add(K(d, 2.0), ac);
  // a correctly rounded t: a reciprocal estimate + Newton steps measured 1.2 ulp worse
  // near a = 0.5 (where P's Horner sum is at the end of its interval)
  const V t = hn::Div(K(d, 2.0), q);
  const V p = Horner(d, kErfcPolyF32, hn::MulAdd(t, K(d, erf_coeffs::kErfcAF32), K(d, erf_coeffs::kErfcBF32)));
  const V shifter = K(d, 12582912.0);  // 1.5 * 2^23: round to integer
  const V kx = hn::MulAdd(hn::Sub(p, s2hi), K(d, 1.442695040888963407359924681), shifter);
  const V k = hn::Sub(kx, shifter);
  V r = hn::NegMulAdd(k, K(d, 0.693145751953125), hn::Neg(s2hi));
  r = hn::Sub(hn::Add(r, p), s2lo);
  r = hn::NegMulAdd(k, K(d, 1.428606765330187045e-6), r);
  const V r2 = hn::Mul(r, r);
  const V poly = ExpPolyF32(d, r, r2);
  const V te = hn::MulAdd(t, hn::MulAdd(poly, r2, r), t);  // t exp(r) in [0.1, 1.2], one rounding
  const auto ki = hn::ConvertTo(di, k);
  V res;
  if (HWY_LIKELY(hn::AllTrue(di, hn::Gt(ki, hn::Set(di, -121))))) {
    res = hn::BitCast(d, hn::Add(hn::BitCast(di, te), hn::ShiftLeft<23>(ki)));
  } else {
    const auto h = hn::ShiftRight<1>(ki);  // both factors normal, one rounding
    const V f1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(h, hn::Set(di, 127))));
    const V f2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(ki, h), hn::Set(di, 127))));
    res = hn::Mul(hn::Mul(te, f1), f2);
  }
  return hn::IfThenZeroElse(hn::Gt(a, K(d, xmax)), res);
}

// erfc(a) for a >= 0.5 given a^2 = s2hi + s2lo: t exp(-a^2 + P(u)),
// t = 2 / (2 + a). float32: ErfcLargeF32. float64: kAccurate keeps erfc's
// relative accuracy for large a (the rounding of -a^2 + P would cost up to a^2
// ulps): two exponentials.
template <bool kAccurate, class D, class V>
HWY_INLINE V ErfcLarge(D d, V a, V s2hi, V s2lo) {
  if constexpr (kF32<D>) {
    return ErfcLargeF32(d, a, s2hi, s2lo);
  } else {
    const double xmax = 27.3;
    const V ac = hn::Min(a, K(d, xmax));
    const V t = hn::Div(K(d, 2.0), hn::Add(K(d, 2.0), ac));
    const V p = Clenshaw(d, erf_coeffs::kErfcChebF64,
                         hn::MulAdd(t, K(d, erf_coeffs::kErfcAF64), K(d, erf_coeffs::kErfcBF64)));
    V r;
    if constexpr (kAccurate) {
      r = hn::Mul(hn::Mul(t, hn::Exp(d, hn::Neg(s2hi))), hn::Exp(d, hn::Sub(p, s2lo)));
    } else {
      r = hn::Mul(t, hn::Exp(d, hn::Sub(hn::Sub(p, s2lo), s2hi)));
    }
    return hn::IfThenZeroElse(hn::Gt(a, K(d, xmax)), r);
  }
}

// float32 erf in ~36 vector operations (the erfc-based form below takes ~115, one dependent
// chain through a division, a 12-term series and a split exponential): erf does not need
// erfc's relative accuracy in the tail, only an absolute error below erf's ulp, so
//   |x| <  0.95: x + x R(x^2)                  (R: degree 5 in x^2, last step one FMA)
//   |x| >= 0.95: sign(x) (1 - exp(P(|x|)))     (P ~ log erfc: degree 6, Estrin; |x| clamped
//                                               to 4, where 1 - erfc rounds to 1)
// with weighted minimax coefficients (math_erf_coeffs.py). exp's argument lies in
// [-16.6, -0.6], so the fast exponential needs no range handling; erfc(0.95) = 0.18 scales
// its ~1 ulp and P's rounding down to a fraction of erf's ulp. Max error 1.3 ulp (docs).
// Specials fall out: +-0 -> +-0 (x + x R), +-Inf -> +-1 (clamp), NaN -> NaN (the compare
// is false, the small branch propagates it).
template <class D, class V>
HWY_INLINE V ErfF32(D d, V x) {
  namespace ec = erf_coeffs;
  const V ax = hn::Abs(x);
  const V s = hn::Mul(x, x);
  V r = hn::Set(d, ec::kErfSmallF32[5]);
  for (int k = 4; k >= 0; --k) r = hn::MulAdd(r, s, hn::Set(d, ec::kErfSmallF32[k]));
  const V rs = hn::MulAdd(r, x, x);
  // Estrin: three independent pairs instead of a 6-deep chain (measured ~5% faster than Horner)
  const V t = hn::Min(ax, hn::Set(d, ec::kErfClampF32));
  const V t2 = hn::Mul(t, t);
  const V q01 = hn::MulAdd(hn::Set(d, ec::kErfLargeF32[1]), t, hn::Set(d, ec::kErfLargeF32[0]));
  const V q23 = hn::MulAdd(hn::Set(d, ec::kErfLargeF32[3]), t, hn::Set(d, ec::kErfLargeF32[2]));
  const V q45 = hn::MulAdd(hn::Set(d, ec::kErfLargeF32[5]), t, hn::Set(d, ec::kErfLargeF32[4]));
  const V q46 = hn::MulAdd(hn::Set(d, ec::kErfLargeF32[6]), t2, q45);
  const V p = hn::MulAdd(q46, hn::Mul(t2, t2), hn::MulAdd(q23, t2, q01));
  const V rl = hn::CopySign(hn::Sub(hn::Set(d, 1.0f), ExpF32Fast(d, p)), x);
  return hn::IfThenElse(hn::Ge(ax, hn::Set(d, ec::kErfSplitF32)), rl, rs);
}

struct ErfF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    if constexpr (kF32<D>) {
      return ErfF32(d, x);
    } else {
      const V ax = hn::Abs(x);
      const auto small = hn::Lt(ax, K(d, 0.5));
      const V rs = ErfSmall(d, x);
      if (hn::AllTrue(d, small)) return rs;
      const V e = ErfcLarge<false>(d, ax, hn::Mul(ax, ax), hn::Zero(d));
      const V rl = hn::CopySign(hn::Sub(K(d, 1.0), e), x);
      return hn::IfThenElse(hn::IsNaN(x), x, hn::IfThenElse(small, rs, rl));
    }
  }
};

// erfc(yh + yl) for a value given with an extra low part (gelu's x / sqrt(2)).
template <class D, class V>
HWY_INLINE V Erfc2(D d, V yh, V yl) {
  const V ay = hn::Abs(yh);
  const auto small = hn::Lt(ay, K(d, 0.5));
  const V rs = hn::Sub(K(d, 1.0), ErfSmall(d, hn::Add(yh, yl)));
  if (hn::AllTrue(d, small)) return rs;
  const V s2hi = hn::Mul(yh, yh);
  V s2lo = hn::MulAdd(hn::Add(yh, yh), yl, ProdErr(d, yh, yh, s2hi));
  if constexpr (kF32<D>) s2lo = hn::IfThenElseZero(hn::IsFinite(s2lo), s2lo);  // |y| so large that y^2 overflows
  const V e = ErfcLarge<true>(d, ay, s2hi, s2lo);
  const V rl = hn::IfThenElse(hn::Lt(yh, hn::Zero(d)), hn::Sub(K(d, 2.0), e), e);
  return hn::IfThenElse(small, rs, rl);
}

struct ErfcF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const { return hn::IfThenElse(hn::IsNaN(x), x, Erfc2(d, x, hn::Zero(d))); }
};

// gelu(-Inf) = -0 (x Phi(x) -> 0), where the formulas would give -Inf * 0.
template <class D, class V>
HWY_INLINE V GeluSpecial(D d, V x, V r) {
  r = hn::IfThenElse(hn::Eq(x, hn::Neg(hn::Inf(d))), K(d, -0.0), r);
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}

// gelu_tanh: 0.5 x (1 + tanh(u)) = x sigmoid(v), v = 2u (no cancellation for
// x < 0). The result's relative sensitivity to v is |v| (~1000 in the tail),
// so v = 2 sqrt(2/pi) (x + 0.044715 x^3) is carried as vh + vl (products
// split with FMA) and exp(-|v|) = exp(-|vh|) (1 -+ vl).
struct GeluTanhF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    using T = hn::TFromD<D>;
    constexpr double kK = 0.044715, kC2 = 1.595769121605730711759784238738;  // 2 sqrt(2/pi)
    const double k_hi = static_cast<double>(static_cast<T>(kK)), c_hi = static_cast<double>(static_cast<T>(kC2));
    const double k_lo = kF32<D> ? kK - k_hi : 2.1960211427085595e-18;  // 0.044715 - double(0.044715)
    const double c_lo = kF32<D> ? kC2 - c_hi : -9.96930880911092e-17;
    const V x2h = hn::Mul(x, x);
    const V x2l = ProdErr(d, x, x, x2h);
    const V x3h = hn::Mul(x2h, x);
    const V x3l = hn::MulAdd(x2l, x, ProdErr(d, x2h, x, x3h));
    const V th = hn::Mul(K(d, k_hi), x3h);
    const V tl = hn::MulAdd(K(d, k_lo), x3h, hn::MulAdd(K(d, k_hi), x3l, ProdErr(d, K(d, k_hi), x3h, th)));
    const V sh = hn::Add(x, th);  // two-sum
    const V bb = hn::Sub(sh, x);
    const V sl = hn::Add(hn::Add(hn::Sub(x, hn::Sub(sh, bb)), hn::Sub(th, bb)), tl);
    const V vh = hn::Mul(K(d, c_hi), sh);
    const V vl = hn::MulAdd(K(d, c_lo), sh, hn::MulAdd(K(d, c_hi), sl, ProdErr(d, K(d, c_hi), sh, vh)));
    const auto neg = hn::Lt(vh, hn::Zero(d));
    // exp(-|v|): -|vh| - sign(vh) vl
    const V corr = hn::IfThenElseZero(hn::IsFinite(vl), hn::IfThenElse(neg, vl, hn::Neg(vl)));
    V e = ExpF()(d, hn::Neg(hn::Abs(vh)));
    e = hn::MulAdd(e, corr, e);
    const V sig = hn::Div(hn::IfThenElse(neg, e, K(d, 1.0)), hn::Add(K(d, 1.0), e));
    // |x| so large that x^3 overflows: v = +-Inf, sigmoid 1 or 0.
    const V r = hn::IfThenElse(hn::IsInf(vh), hn::IfThenElseZero(hn::Gt(vh, hn::Zero(d)), x), hn::Mul(x, sig));
    return GeluSpecial(d, x, hn::IfThenElse(hn::And(hn::IsInf(vh), neg), hn::CopySign(hn::Zero(d), x), r));
  }
};

struct GeluErfF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    // 0.5 x erfc(-x / sqrt(2)), with -x/sqrt(2) carried as hi + lo so the tail
    // (x << 0) keeps its relative accuracy.
    constexpr double kC = -0.707106781186547524400844362105;
    const double c_hi = static_cast<double>(static_cast<hn::TFromD<D>>(kC));
    const double c_lo = kF32<D> ? kC - c_hi : 4.833646656726457e-17;
    const V yh = hn::Mul(x, K(d, c_hi));
    V yl = hn::MulAdd(x, K(d, c_lo), ProdErr(d, x, K(d, c_hi), yh));
    yl = hn::IfThenElseZero(hn::IsFinite(yl), yl);
    return GeluSpecial(d, x, hn::Mul(hn::Mul(x, K(d, 0.5)), Erfc2(d, yh, yl)));
  }
};

// ---------------------------------------------------------------- binary

struct Arctan2F {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V y, V x) const {
    const V ax = hn::Abs(x), ay = hn::Abs(y);
    const V mx = hn::Max(ax, ay), mn = hn::Min(ax, ay);
    V a = hn::Div(mn, mx);
    a = hn::IfThenElse(hn::Eq(mx, hn::Zero(d)), hn::Zero(d), a);                  // (0, 0)
    a = hn::IfThenElse(hn::And(hn::IsInf(ax), hn::IsInf(ay)), K(d, 1.0), a);     // (Inf, Inf)
    V t = hn::Atan(d, a);
    const double pi = 3.14159265358979323846264338328;
    const double pi_hi = static_cast<double>(static_cast<hn::TFromD<D>>(pi));
    const V pi_lo = K(d, pi - pi_hi);
    t = hn::IfThenElse(hn::Gt(ay, ax), hn::Add(hn::Sub(K(d, pi_hi * 0.5), t), hn::Mul(pi_lo, K(d, 0.5))), t);
    const hn::RebindToSigned<D> di;
    const auto xneg = hn::RebindMask(d, hn::Lt(hn::BitCast(di, x), hn::Zero(di)));  // sign bit, so -0 counts
    t = hn::IfThenElse(xneg, hn::Add(hn::Sub(K(d, pi_hi), t), pi_lo), t);
    const V r = hn::CopySign(t, y);
    return hn::IfThenElse(hn::Or(hn::IsNaN(x), hn::IsNaN(y)), hn::Add(x, y), r);
  }
};

struct HypotF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    const V aa = hn::Abs(a), ab = hn::Abs(b);
    const V mx = hn::Max(aa, ab), mn = hn::Min(aa, ab);
    const V q = hn::Div(mn, mx);
    V r = hn::Mul(mx, hn::Sqrt(hn::MulAdd(q, q, K(d, 1.0))));
    r = hn::IfThenElse(hn::Eq(mx, hn::Zero(d)), hn::Zero(d), r);
    r = hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::NaN(d), r);
    return hn::IfThenElse(hn::Or(hn::IsInf(a), hn::IsInf(b)), hn::Inf(d), r);  // Inf wins over NaN
  }
};

// pow = exp(y log|x|) with C99's special cases. Used in float64 lanes for
// float32 (so y log|x| carries ample extra precision) and in float32 lanes for
// float16/bfloat16; float64 itself uses the C library (see MakeMathTable).
struct PowF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x, V y) const {
    const V one = K(d, 1.0);
    const V ax = hn::Abs(x);
    V l = hn::Log(d, ax);
    l = hn::IfThenElse(hn::Eq(ax, hn::Zero(d)), hn::Neg(hn::Inf(d)), l);
    l = hn::IfThenElse(hn::Eq(ax, hn::Inf(d)), ax, l);
    V r = ExpF()(d, hn::Mul(y, l));
    const auto yint = hn::Eq(hn::Floor(y), y);
    const V h = hn::Mul(y, K(d, 0.5));
    const auto yodd = hn::And(yint, hn::Ne(hn::Floor(h), h));
    const hn::RebindToSigned<D> di;
    const auto xsign = hn::RebindMask(d, hn::Lt(hn::BitCast(di, x), hn::Zero(di)));
    r = hn::IfThenElse(hn::And(xsign, yodd), hn::Neg(r), r);
    r = hn::IfThenElse(hn::And(hn::Lt(x, hn::Zero(d)), hn::AndNot(yint, hn::IsFinite(x))), hn::NaN(d), r);
    r = hn::IfThenElse(hn::Or(hn::IsNaN(x), hn::IsNaN(y)), hn::Add(x, y), r);
    r = hn::IfThenElse(hn::And(hn::Eq(ax, one), hn::IsInf(y)), one, r);
    return hn::IfThenElse(hn::Or(hn::Eq(y, hn::Zero(d)), hn::Eq(x, one)), one, r);
  }
};

// logaddexp: max + log1p(exp(-|a - b|)); equal arguments (including equal
// infinities) give a + log(2), as NumPy.
struct LogaddexpF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    const V m = hn::Max(a, b);
    const V e = ExpF()(d, hn::Neg(hn::Abs(hn::Sub(a, b))));
    V r = hn::Add(m, Log1pF()(d, e));
    r = hn::IfThenElse(hn::Eq(a, b), hn::Add(a, K(d, 0.693147180559945309417)), r);
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::Add(a, b), r);
  }
};

struct Logaddexp2F {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const {
    const V m = hn::Max(a, b);
    const V e = Exp2F()(d, hn::Neg(hn::Abs(hn::Sub(a, b))));
    V r = hn::MulAdd(Log1pF()(d, e), K(d, 1.442695040888963407359924681), m);
    r = hn::IfThenElse(hn::Eq(a, b), hn::Add(a, K(d, 1.0)), r);
    return hn::IfThenElse(hn::Or(hn::IsNaN(a), hn::IsNaN(b)), hn::Add(a, b), r);
  }
};

// ---------------------------------------------------------------- IO, loops

// float32 in memory, float64 lanes.
struct F32ViaF64IO {
  using S = float;
  using C = double;
  template <class D>
  static HWY_INLINE hn::VFromD<D> Load(D d, const S* p) {
    return hn::PromoteTo(d, hn::LoadU(hn::Rebind<float, D>(), p));
  }
  template <class D>
  static HWY_INLINE void Store(D, hn::VFromD<D> v, S* p) {
    const hn::Rebind<float, D> df;
    auto f = hn::DemoteTo(df, v);
    // Highway's scalar DemoteTo saturates at +-FLT_MAX; IEEE rounds to Inf.
    const D d;
    const auto big = hn::Ge(hn::Abs(v), hn::Set(d, 3.4028235677973366e+38));  // rounds to Inf
    const auto inf = hn::Gt(hn::DemoteTo(df, hn::IfThenElseZero(big, hn::Set(d, 1.0))), hn::Zero(df));
    f = hn::IfThenElse(inf, hn::CopySign(hn::Inf(df), f), f);
    hn::StoreU(f, df, p);
  }
};

// float64 pow: exp(y log x) in float64 lanes would lose up to |y log x| ulps;
// the C library's pow is correctly rounded in practice.
void PowF64Loop(void* dst, const void* a, const void* b, size_t n) {
  double* pd = static_cast<double*>(dst);
  const double* pa = static_cast<const double*>(a);
  const double* pb = static_cast<const double*>(b);
  for (size_t i = 0; i < n; ++i) pd[i] = std::pow(pa[i], pb[i]);
}

// ---------------------------------------------------------------- table
// X(op, functor, float32 IO). NativeIO<float>: float32 lanes; F32ViaF64IO:
// float64 lanes. float16/bfloat16 always use float32 lanes, float64 its own.

#define ASC_MATH_UNARY_OPS(X)                                                                    \
  X(kExp, ExpF, NativeIO<float>) X(kExp2, Exp2F, NativeIO<float>) X(kExpm1, Expm1F, NativeIO<float>) \
  X(kLog, LogF, NativeIO<float>) X(kLog2, Log2F, NativeIO<float>) X(kLog10, Log10F, NativeIO<float>) \
  X(kLog1p, Log1pF, NativeIO<float>) X(kSin, SinF, NativeIO<float>) X(kCos, CosF, NativeIO<float>)   \
  X(kTan, TanF, F32ViaF64IO) X(kArcsin, ArcsinF, NativeIO<float>) X(kArccos, ArccosF, NativeIO<float>) \
  X(kArctan, ArctanF, NativeIO<float>) X(kSinh, SinhF, NativeIO<float>) X(kCosh, CoshF, NativeIO<float>) \
  X(kTanh, TanhF, NativeIO<float>) X(kArcsinh, ArcsinhF, NativeIO<float>)                          \
  X(kArccosh, ArccoshF, NativeIO<float>) X(kArctanh, ArctanhF, NativeIO<float>)                    \
  X(kSqrt, SqrtF, NativeIO<float>) X(kRsqrt, RsqrtF, NativeIO<float>) X(kCbrt, CbrtF, F32ViaF64IO)  \
  X(kSigmoid, SigmoidF, NativeIO<float>) X(kErf, ErfF, NativeIO<float>) X(kErfc, ErfcF, NativeIO<float>) \
  X(kGeluTanh, GeluTanhF, F32ViaF64IO) X(kGeluErf, GeluErfF, F32ViaF64IO)

#define ASC_MATH_BINARY_OPS(X)                                                                         \
  X(kArctan2, Arctan2F, F32ViaF64IO) X(kHypot, HypotF, F32ViaF64IO) X(kPow, PowF, F32ViaF64IO)       \
  X(kLogaddexp, LogaddexpF, F32ViaF64IO) X(kLogaddexp2, Logaddexp2F, F32ViaF64IO)

MathTable MakeMathTable() {
  MathTable t;
#define ASC_X(OP, F, IO32)                                                                    \
  t.unary[idx(MathOp::OP)][idx(DType::kFloat64)] = &UnaryLoop<NativeIO<double>, F>;     \
  t.unary[idx(MathOp::OP)][idx(DType::kFloat32)] = &UnaryLoop<IO32, F>;                 \
  t.unary[idx(MathOp::OP)][idx(DType::kFloat16)] = &UnaryLoop<F16IO, F>;                \
  t.unary[idx(MathOp::OP)][idx(DType::kBFloat16)] = &UnaryLoop<BF16IO, F>;
  ASC_MATH_UNARY_OPS(ASC_X)
#undef ASC_X
#define ASC_X(OP, F, IO32)                                                                    \
  t.binary[idx(MathBinaryOp::OP)][idx(DType::kFloat64)] = &BinaryLoop<NativeIO<double>, F>; \
  t.binary[idx(MathBinaryOp::OP)][idx(DType::kFloat32)] = &BinaryLoop<IO32, F>;         \
  t.binary[idx(MathBinaryOp::OP)][idx(DType::kFloat16)] = &BinaryLoop<F16IO, F>;        \
  t.binary[idx(MathBinaryOp::OP)][idx(DType::kBFloat16)] = &BinaryLoop<BF16IO, F>;
  ASC_MATH_BINARY_OPS(ASC_X)
#undef ASC_X
  t.binary[idx(MathBinaryOp::kPow)][idx(DType::kFloat64)] = &PowF64Loop;
  return t;
}

const MathTable* GetMathTable() {
  static const MathTable table = MakeMathTable();
  return &table;
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

// Fused programs' elementwise chains: compiled here, per target, so that their
// math instructions are the functors above (bit-identical to the table's loops).
#include "kernel/simd/chain-inl.h"

#if HWY_ONCE
namespace asc::kernel::simd {

HWY_EXPORT(GetMathTable);

namespace {
const MathTable& math_table() {
  static const MathTable* const t = (apply_target_override(), HWY_DYNAMIC_DISPATCH(GetMathTable)());
  return *t;
}
}  // namespace

const char* op_name(MathOp op) noexcept {
  static const char* const kNames[] = {
      "exp",     "exp2",    "expm1",  "log",     "log2",   "log10",   "log1p", "sin",  "cos",  "tan",
      "arcsin",  "arccos",  "arctan", "sinh",    "cosh",   "tanh",    "arcsinh", "arccosh", "arctanh",
      "sqrt",    "rsqrt",   "cbrt",   "sigmoid", "erf",    "erfc",    "gelu_tanh", "gelu"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumMathOps, "one name per MathOp");
  return idx(op) < kNumMathOps ? kNames[idx(op)] : "MathOp?";
}

const char* op_name(MathBinaryOp op) noexcept {
  static const char* const kNames[] = {"arctan2", "hypot", "power", "logaddexp", "logaddexp2"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumMathBinaryOps, "one name per MathBinaryOp");
  return idx(op) < kNumMathBinaryOps ? kNames[idx(op)] : "MathBinaryOp?";
}

bool math_supported(DType dtype) noexcept {
  return dtype == DType::kFloat64 || dtype == DType::kFloat32 || dtype == DType::kFloat16 ||
         dtype == DType::kBFloat16;
}

MathUnaryFn math_fn(MathOp op, DType dtype) {
  const MathUnaryFn fn = idx(op) < kNumMathOps ? math_table().unary[idx(op)][idx(dtype)] : nullptr;
  if (HWY_UNLIKELY(!fn)) throw_unsupported(op_name(op), dtype);
  return fn;
}

MathBinaryFn math_fn(MathBinaryOp op, DType dtype) {
  const MathBinaryFn fn = idx(op) < kNumMathBinaryOps ? math_table().binary[idx(op)][idx(dtype)] : nullptr;
  if (HWY_UNLIKELY(!fn)) throw_unsupported(op_name(op), dtype);
  return fn;
}

void math(MathOp op, DType dtype, void* dst, const void* src, size_t n) { math_fn(op, dtype)(dst, src, n); }

void math(MathBinaryOp op, DType dtype, void* dst, const void* a, const void* b, size_t n) {
  math_fn(op, dtype)(dst, a, b, n);
}

}  // namespace asc::kernel::simd
#endif  // HWY_ONCE
