// gelu kernel (include/asc/nn/activation.h), Highway dynamic dispatch.
//
// Why a kernel: asc.ops.gelu as a chain of device ops (x * 0.5 * erfc(-x / sqrt 2))
// evaluates the general float32 erfc (both branches, NaN/range handling, a graph
// per call) and measured 0.15-0.38x onnxruntime. Here one pass reads x once, keeps
// everything in float32 registers and writes y once, split over the device's cores.
//
// Exact form, float32 math, one branch-free evaluation for every lane: a = |x|,
//   Q(a) = Phi(-a) = 0.5 erfc(a / sqrt 2) = exp(-a^2 / 2) P(a) / D(a),
//   y = x Phi(x) = m - a Q(a), m = x for x >= 0 and 0 for x < 0 (one FMA: y = -a Q + m),
// which is x - x Q for x > 0 and x Q for x < 0: the negative tail keeps relative accuracy
// (no 1 + erf cancellation) and the positive side subtracts Q <= 0.5. P / D is a (4, 5)
// rational with positive coefficients (gelu_detail below); exp(-a^2 / 2) takes a^2 exactly
// as s + e (a * a and its FMA remainder) so the exponent's rounding does not grow with a^2,
// k = round(-s / 2 log2 e), r = -s/2 - k ln2 - e/2, exp(r) by math's polynomial, and 2^k
// added to the exponent field: Q = (R + R (exp(r) - 1)) 2^k with R = P / D divided beside the
// exponential. About 37 vector operations per 8 lanes, one of them a division, against the
// previous series form's ~70 with a branch on |x| < 0.7 that mixed data mispredicted (0.60x
// onnxruntime at 2^22). A vector with a lane |x| >= 12.5, inf or
// NaN takes a second path (2^k in two factors so denormal results round once).
// Tanh form: v = sqrt(2/pi) (x + 0.044715 x^3), e = exp(-2 |v|) <= 1,
//   y = x / (1 + e) for v >= 0, x e / (1 + e) for v < 0 (no overflow, relative accuracy
//   in the negative tail).
// Specials: NaN -> NaN; +inf -> +inf; -inf -> NaN (torch's -inf * 0); +-0 -> +-0.
// Measured bounds (tests/python/ops/test_gelu_kernel.py against float64 math.erf /
// math.tanh on dense points): see docs/nn.md.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/activation.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "kernel/simd/exp_f32-inl.h"
#include "kernel/simd/float16-inl.h"
#include "kernel/simd/tables.h"
#include "nn/exp_poly6.h"

#ifndef ASC_NN_ACTIVATION_ONCE
#define ASC_NN_ACTIVATION_ONCE
namespace asc::nn::gelu_detail {
enum Code : int { kF32 = 0, kF16 = 2, kBF16 = 3 };
// Q(a) = Phi(-a) = exp(-a^2 / 2) P(a) / D(a) for a = |x| in [0, kGeluMax]: the (4, 5)
// rational of the Mills-type ratio Q(a) exp(a^2 / 2) (0.5 at 0, ~1 / (a sqrt(2 pi)) for
// large a), relative-minimax fitted in float64 against math.erfc on [0, 14.5] by
// src/nn/gelu_coeffs.py, the coefficients rounded to float32 one at a time with the rest
// refitted (0.30 ulp with the float32 coefficients; rounding all at once gave 0.50).
// All coefficients are positive: Horner in a >= 0 has no cancellation.
constexpr double kGeluP[5] = {0.5, 0.43759456276893616, 0.18268966674804688, 0.040441643446683884,
                              0.004085587803274393};
constexpr double kGeluD[6] = {1.0, 1.6730740070343018, 1.200295329093933, 0.46802374720573425,
                              0.10137874633073807, 0.010240927338600159};
// Below kGeluFast every lane's 2^k (k >= -113) and Q(a) (>= 3.7e-36) are normal: one
// exponent-field add. Past kGeluMax, a Q(a) < 2^-150 rounds to 0.
constexpr double kGeluFast = 12.5;
constexpr double kGeluMax = 14.5;
}  // namespace asc::nn::gelu_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace gd = asc::nn::gelu_detail;

namespace {

template <class D>
HWY_INLINE hn::VFromD<D> Kf(D d, double c) {
  return hn::Set(d, static_cast<float>(c));
}

// a * Q(a) pieces shared by both paths of GeluErf: R(a) exp(r), R = P(a) / D(a), and the
// exponent k of exp(-a^2 / 2) = 2^k exp(r) (file comment).
template <class V>
struct GeluParts {
  V rexp;  // R(a) exp(r), before the 2^k scaling
  V kx;    // k in the low mantissa bits (k = kx - shifter)
  V rat;   // R(a) = P(a) / D(a) (the backward needs it apart from the exponential)
  V em1;   // exp(r) - 1
};

// The rational runs beside the exponential, not after it: the division no longer waits for
// exp(r) (measured 5-7% less time per element than dividing P exp(r) by D, same operations).
template <class D, class V>
HWY_INLINE GeluParts<V> GeluCore(D d, V a) {
  namespace nd = asc::nn::detail;
  // h = -a^2 / 2 = s + e exactly: t = -a / 2 is exact, so a * t rounds like a * a (scaled by
  // -1/2) and the FMA remainder is exact; no separate multiplies by -1/2 of s and e
  const V t = hn::Mul(a, Kf(d, -0.5));
  const V s = hn::Mul(a, t);
  const V e = hn::MulSub(a, t, s);
  const V shifter = Kf(d, 12582912.0);  // 1.5 * 2^23: rounds to an integer
  const V kx = hn::MulAdd(s, Kf(d, 1.442695040888963407359924681), shifter);
  const V k = hn::Sub(kx, shifter);
  // s - k ln2_hi is exact (both are multiples of ulp(s) or 2^-16 and |result| < 0.5);
  // the small rest e - k ln2_lo is formed beside it and added once
  const V r0 = hn::NegMulAdd(k, Kf(d, 0.693145751953125), s);
  const V lo = hn::NegMulAdd(k, Kf(d, 1.428606765330187045e-6), e);
  const V r = hn::Add(r0, lo);
  const V r2 = hn::Mul(r, r);
  // exp(r) - 1 = r + r^2 P(r), P of degree 4 (nn/exp_poly6.h, <= 0.17 ulp of exp(r))
  V pe = hn::Set(d, nd::kExpP6[4]);
  for (int j = 3; j >= 0; --j) pe = hn::MulAdd(pe, r, hn::Set(d, nd::kExpP6[j]));
  const V em1 = hn::MulAdd(pe, r2, r);
  V p = Kf(d, gd::kGeluP[4]);
  for (int j = 3; j >= 0; --j) p = hn::MulAdd(p, a, Kf(d, gd::kGeluP[j]));
  V q = Kf(d, gd::kGeluD[5]);
  for (int j = 4; j >= 0; --j) q = hn::MulAdd(q, a, Kf(d, gd::kGeluD[j]));
  const V rat = hn::Div(p, q);
  return {hn::MulAdd(rat, em1, rat), kx, rat, em1};  // R exp(r) = R + R (exp(r) - 1)
}

// Exact gelu of one float32 vector (file comment).
template <class D, class V>
HWY_INLINE V GeluErf(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V a = hn::Abs(x);
  const V m = hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x);  // x for x >= 0 (keeps -0), else 0
  if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(a, Kf(d, gd::kGeluFast))))) {
    const GeluParts<V> c = GeluCore(d, a);
    // 2^k added to the exponent field: k >= -113 here, so Q(a) = R exp(r) 2^k is normal
    const V q = hn::BitCast(d, hn::Add(hn::BitCast(di, c.rexp), hn::ShiftLeft<23>(hn::BitCast(di, c.kx))));
    return hn::NegMulAdd(a, q, m);  // m - a Q(a), one rounding
  }
  // a lane with |x| >= kGeluFast, inf or NaN: a clamped (NaN -> kGeluMax), 2^k as two normal
  // factors with the second applied last, so a result in the denormal range rounds once
  const V ac = hn::IfThenElse(hn::Lt(a, Kf(d, gd::kGeluMax)), a, Kf(d, gd::kGeluMax));
  const GeluParts<V> c = GeluCore(d, ac);
  const auto ki = hn::Sub(hn::BitCast(di, c.kx), hn::BitCast(di, Kf(d, 12582912.0)));
  const auto hk = hn::ShiftRight<1>(ki);
  const V f1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hk, hn::Set(di, 127))));
  const V f2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(ki, hk), hn::Set(di, 127))));
  const V t = hn::Mul(hn::Mul(hn::Mul(c.rexp, f1), ac), f2);  // a Q(a)
  const V y = hn::Sub(m, t);  // NaN x: m is NaN
  // past kGeluMax a Q(a) is below half the least denormal: x for x > 0, x * 0 (-0, or NaN
  // for -inf as torch) for x < 0
  const V big = hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Mul(x, hn::Zero(d)));
  return hn::IfThenElse(hn::Ge(a, Kf(d, gd::kGeluMax)), big, y);
}

// tanh-form gelu of one float32 vector (file comment).
template <class D, class V>
HWY_INLINE V GeluTanh(D d, V x) {
  // 2v = x (2 sqrt(2/pi) + 2 sqrt(2/pi) 0.044715 x^2)
  const V v2 = hn::Mul(x, hn::MulAdd(hn::Mul(x, x), Kf(d, 0.0713548162726008), Kf(d, 1.5957691216057308)));
  const V nz = hn::Neg(hn::Abs(v2));  // <= 0 (NaN stays NaN)
  V e;
  if (HWY_LIKELY(hn::AllTrue(d, hn::Ge(nz, Kf(d, -87.0))))) {
    e = ExpF32Fast(d, nz);
  } else {
    const V zc = hn::Max(nz, Kf(d, -104.0));
    e = hn::IfThenZeroElse(hn::Le(zc, Kf(d, -104.0)), hn::Exp(d, zc));
  }
  const V den = hn::Add(Kf(d, 1.0), e);
  const V num = hn::IfThenElse(hn::Lt(v2, hn::Zero(d)), hn::Mul(x, e), x);
  V y = hn::Div(num, den);
  y = hn::IfThenElse(hn::IsNaN(v2), hn::Add(x, v2), y);  // NaN in; -inf * 0 style NaN for x = +-inf
  return hn::IfThenElse(hn::Eq(x, hn::Inf(d)), x, y);
}

// d/dx of the exact gelu, Phi(x) + x phi(x), with E = exp(-a^2 / 2) = (1 + (exp(r) - 1)) 2^k
// shared by both terms (GeluCore): Q(a) = R E and phi(x) = E / sqrt(2 pi), so
//   x >= 0: 1 - Q + a phi = 1 + E (x c - R),   x < 0: Q - a phi = E (x c + R),   c = 1/sqrt(2 pi),
// i.e. d = m + E (x c -+ R) with m = 1 / 0: one FMA at the end. No cancellation worse than the
// function's own (its zero near x = -0.7518 makes relative error meaningless there: the tests
// bound the error by ulps of Phi + |x| phi). The same vector with a lane |x| >= kGeluFast, inf or
// NaN takes GeluForward's second path (2^k in two factors, the second applied last).
// +-inf -> NaN as torch's cdf + x * pdf gives (inf * 0); past kGeluMax: 1 / -0.
template <class D, class V>
HWY_INLINE V GeluErfGrad(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V a = hn::Abs(x);
  const auto neg = hn::Lt(x, hn::Zero(d));
  const V m = hn::IfThenZeroElse(neg, Kf(d, 1.0));
  const V c = Kf(d, 0.3989422804014327);  // 1 / sqrt(2 pi)
  if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(a, Kf(d, gd::kGeluFast))))) {
    const GeluParts<V> p = GeluCore(d, a);
    const V sr = hn::IfThenElse(neg, hn::Neg(p.rat), p.rat);
    const V term = hn::MulSub(x, c, sr);
    // k >= -113 here: E = exp(r) 2^k is normal, 2^k added to the exponent field
    const V e1 = hn::Add(p.em1, Kf(d, 1.0));
    const V e = hn::BitCast(d, hn::Add(hn::BitCast(di, e1), hn::ShiftLeft<23>(hn::BitCast(di, p.kx))));
    return hn::MulAdd(e, term, m);
  }
  const V ac = hn::IfThenElse(hn::Lt(a, Kf(d, gd::kGeluMax)), a, Kf(d, gd::kGeluMax));
  const GeluParts<V> p = GeluCore(d, ac);
  const V sr = hn::IfThenElse(neg, hn::Neg(p.rat), p.rat);
  const V xc = hn::IfThenElse(neg, hn::Neg(ac), ac);  // x clamped with its sign (finite for inf/NaN)
  const V term = hn::MulSub(xc, c, sr);
  const auto ki = hn::Sub(hn::BitCast(di, p.kx), hn::BitCast(di, Kf(d, 12582912.0)));
  const auto hk = hn::ShiftRight<1>(ki);
  const V f1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hk, hn::Set(di, 127))));
  const V f2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(ki, hk), hn::Set(di, 127))));
  const V t = hn::Mul(hn::Mul(hn::Mul(hn::Add(p.em1, Kf(d, 1.0)), f1), term), f2);  // E (x c -+ R)
  const V y = hn::Add(m, t);
  // past kGeluMax E (x c -+ R) is below half the least denormal: 1 for x > 0, -0 for x < 0;
  // x * 0 adds NaN for +-inf and NaN (torch's inf * 0) and +-0 otherwise
  const V big = hn::Add(hn::IfThenElse(hn::Gt(x, hn::Zero(d)), Kf(d, 1.0), Kf(d, -0.0)), hn::Mul(x, hn::Zero(d)));
  return hn::IfThenElse(hn::Lt(a, Kf(d, gd::kGeluMax)), y, big);
}

// d/dx of the tanh form: with s = sigmoid(2v) (GeluTanh's e = exp(-2|v|), 1 / (1 + e) or
// e / (1 + e)) and s (1 - s) = e / (1 + e)^2,
//   d = s + x (2v)' s (1 - s),   (2v)' = 2 sqrt(2/pi) (1 + 3 * 0.044715 x^2),
// which is torch's 0.5 (1 + tanh) + 0.5 x (1 - tanh^2) v' with 1 - tanh^2 = 4 s (1 - s) and
// no cancellation in 1 - tanh^2. Where e underflows to 0 the second term is 0 even if
// (2v)' overflows (x ~ 1e19: 1 or 0, not inf * 0); +-inf -> NaN as torch's formula gives.
template <class D, class V>
HWY_INLINE V GeluTanhGrad(D d, V x) {
  const V x2 = hn::Mul(x, x);
  const V v2 = hn::Mul(x, hn::MulAdd(x2, Kf(d, 0.0713548162726008), Kf(d, 1.5957691216057308)));
  const V nz = hn::Neg(hn::Abs(v2));
  V e;
  if (HWY_LIKELY(hn::AllTrue(d, hn::Ge(nz, Kf(d, -87.0))))) {
    e = ExpF32Fast(d, nz);
  } else {
    const V zc = hn::Max(nz, Kf(d, -104.0));
    e = hn::IfThenZeroElse(hn::Le(zc, Kf(d, -104.0)), hn::Exp(d, zc));
  }
  const V inv = hn::Div(Kf(d, 1.0), hn::Add(Kf(d, 1.0), e));
  const V s = hn::IfThenElse(hn::Lt(v2, hn::Zero(d)), hn::Mul(e, inv), inv);
  const V w = hn::MulAdd(x2, Kf(d, 0.2140644488178024), Kf(d, 1.5957691216057308));
  V t = hn::Mul(hn::Mul(hn::Mul(x, e), hn::Mul(inv, inv)), w);
  t = hn::IfThenZeroElse(hn::Eq(e, hn::Zero(d)), t);
  return hn::Add(hn::Add(s, t), hn::Mul(x, hn::Zero(d)));  // NaN stays NaN (v2 NaN), +-inf -> NaN
}

// dx = dy * gelu'(x) over [lo, hi); dy and x of one dtype S, dx of S.
template <class IO, bool kTanh>
void GeluBackwardT(const void* dyv, const void* xv, void* dxv, int64_t lo, int64_t hi, bool stream) {
  using S = typename IO::S;
  const hn::ScalableTag<float> d;
  using V = hn::VFromD<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const S* dy = static_cast<const S*>(dyv);
  const S* x = static_cast<const S*>(xv);
  S* dx = static_cast<S*>(dxv);
  auto f = [&](V g, V v) { return hn::Mul(g, kTanh ? GeluTanhGrad(d, v) : GeluErfGrad(d, v)); };
  size_t i = static_cast<size_t>(lo);
  const size_t end = static_cast<size_t>(hi);
  bool nt = false;
  if constexpr (std::is_same_v<S, float>) {
    nt = stream && reinterpret_cast<uintptr_t>(dx + i) % (N * sizeof(float)) == 0;
  }
  auto put = [&](V v, S* p) {
    if constexpr (std::is_same_v<S, float>) {
      if (nt) {
        hn::Stream(v, d, p);
        return;
      }
    }
    IO::Store(d, v, p);
  };
  for (; i + 2 * N <= end; i += 2 * N) {
    const V v0 = f(IO::Load(d, dy + i), IO::Load(d, x + i));
    const V v1 = f(IO::Load(d, dy + i + N), IO::Load(d, x + i + N));
    put(v0, dx + i);
    put(v1, dx + i + N);
  }
  for (; i + N <= end; i += N) put(f(IO::Load(d, dy + i), IO::Load(d, x + i)), dx + i);
  if (i < end) {
    const size_t r = end - i;
    S g[kMaxLanes<float>] = {}, in[kMaxLanes<float>] = {}, out[kMaxLanes<float>];
    std::memcpy(g, dy + i, r * sizeof(S));
    std::memcpy(in, x + i, r * sizeof(S));
    IO::Store(d, f(IO::Load(d, g), IO::Load(d, in)), out);
    std::memcpy(dx + i, out, r * sizeof(S));
  }
  if (nt) hwy::FlushStream();
}

template <class IO, bool kTanh>
void GeluT(const void* xv, void* yv, int64_t lo, int64_t hi, bool stream) {
  using S = typename IO::S;
  const hn::ScalableTag<float> d;
  using V = hn::VFromD<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const S* x = static_cast<const S*>(xv);
  S* y = static_cast<S*>(yv);
  auto f = [&](V v) { return kTanh ? GeluTanh(d, v) : GeluErf(d, v); };
  size_t i = static_cast<size_t>(lo);
  const size_t end = static_cast<size_t>(hi);
  // float32 outputs: streaming stores when asked (large outputs) and vector aligned, so an
  // output line costs one write instead of a read-for-ownership plus a write
  bool nt = false;
  if constexpr (std::is_same_v<S, float>) {
    nt = stream && reinterpret_cast<uintptr_t>(y + i) % (N * sizeof(float)) == 0;
  }
  auto put = [&](V v, S* p) {
    if constexpr (std::is_same_v<S, float>) {
      if (nt) {
        hn::Stream(v, d, p);
        return;
      }
    }
    IO::Store(d, v, p);
  };
  // two independent vectors per step: more independent work for the FMA pipes
  for (; i + 2 * N <= end; i += 2 * N) {
    const V v0 = f(IO::Load(d, x + i));
    const V v1 = f(IO::Load(d, x + i + N));
    put(v0, y + i);
    put(v1, y + i + N);
  }
  for (; i + N <= end; i += N) put(f(IO::Load(d, x + i)), y + i);
  if (i < end) {
    const size_t r = end - i;
    S in[kMaxLanes<float>] = {}, out[kMaxLanes<float>];
    std::memcpy(in, x + i, r * sizeof(S));
    IO::Store(d, f(IO::Load(d, in)), out);
    std::memcpy(y + i, out, r * sizeof(S));
  }
  if (nt) hwy::FlushStream();  // streamed lines visible before the block reports done
}

}  // namespace

void GeluBackwardRange(int code, bool tanh_form, const void* dy, const void* x, void* dx, int64_t lo, int64_t hi,
                       bool stream) {
  switch (code) {
    case gd::kF32:
      tanh_form ? GeluBackwardT<NativeIO<float>, true>(dy, x, dx, lo, hi, stream)
                : GeluBackwardT<NativeIO<float>, false>(dy, x, dx, lo, hi, stream);
      break;
    case gd::kF16:
      tanh_form ? GeluBackwardT<F16IO, true>(dy, x, dx, lo, hi, false) : GeluBackwardT<F16IO, false>(dy, x, dx, lo, hi, false);
      break;
    default:
      tanh_form ? GeluBackwardT<BF16IO, true>(dy, x, dx, lo, hi, false)
                : GeluBackwardT<BF16IO, false>(dy, x, dx, lo, hi, false);
      break;
  }
}

void GeluRange(int code, bool tanh_form, const void* x, void* y, int64_t lo, int64_t hi, bool stream) {
  switch (code) {
    case gd::kF32:
      tanh_form ? GeluT<NativeIO<float>, true>(x, y, lo, hi, stream) : GeluT<NativeIO<float>, false>(x, y, lo, hi, stream);
      break;
    case gd::kF16: tanh_form ? GeluT<F16IO, true>(x, y, lo, hi, false) : GeluT<F16IO, false>(x, y, lo, hi, false); break;
    default: tanh_form ? GeluT<BF16IO, true>(x, y, lo, hi, false) : GeluT<BF16IO, false>(x, y, lo, hi, false); break;
  }
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "asc/nn/activation.h"
#include "kernel/simd/gelu_loop.h"
#include "asc/runtime/device.h"
#include "nn/nn_util.h"
#include "runtime/parallel_for.h"

namespace asc::kernel::simd {
HWY_EXPORT(GeluRange);
HWY_EXPORT(GeluBackwardRange);

namespace {
// The lazy graph's gelu pass runs this kernel (kernel/simd/gelu_loop.h): the nn
// layer registers it downwards when libasc loads, so the kernel layer names no
// nn symbol. The entry applies ASC's target override first, as nn::gelu does,
// so a graph node and asc.ops.gelu run the same target's vectors.
void GeluRangeDispatch(int code, bool tanh_form, const void* x, void* y, int64_t lo, int64_t hi, bool stream) {
  static const bool once = (apply_target_override(), true);
  (void)once;
  HWY_DYNAMIC_DISPATCH(GeluRange)(code, tanh_form, x, y, lo, hi, stream);
}
[[maybe_unused]] const bool g_gelu_registered = (register_gelu_range(&GeluRangeDispatch), true);
}  // namespace
}  // namespace asc::kernel::simd

namespace asc::nn {

Tensor gelu(const Tensor& x_in, bool tanh_approx) {
  int code;
  switch (x_in.dtype()) {
    case DType::kFloat32: code = gelu_detail::kF32; break;
    case DType::kFloat16: code = gelu_detail::kF16; break;
    case DType::kBFloat16: code = gelu_detail::kBF16; break;
    default:
      throw Error(Status::TypeError("gelu", std::string("input must be float32, float16 or bfloat16 for the native "
                                                        "kernel, got ") + dtype_name(x_in.dtype())));
  }
  static const bool once = (kernel::simd::apply_target_override(), true);
  (void)once;
  const Tensor x = x_in.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  const int64_t total = x.numel();
  if (total == 0) return y;
  const uint8_t* xp = x.data();
  uint8_t* yp = y.data();
  // chunks of whole vectors (64 elements) so no chunk boundary splits one
  const int64_t blocks = (total + 63) / 64;
  // float32 outputs of >= 4 MiB are streamed (they would evict the cache anyway; a smaller
  // result is likely read from cache next); ASC_NN_GELU_STREAM=0 turns it off (benchmarks)
  static const bool stream_ok = [] {
    const char* e = std::getenv("ASC_NN_GELU_STREAM");
    return !(e && e[0] == '0');
  }();
  const bool stream = stream_ok && code == gelu_detail::kF32 && total * 4 >= (int64_t(4) << 20);
  runtime::parallel_for("gelu", blocks, total * 8, int64_t(1) << 14, [&](int64_t lo, int64_t hi) {
    HWY_DYNAMIC_DISPATCH(kernel::simd::GeluRange)(code, tanh_approx, xp, yp, lo * 64, std::min(total, hi * 64), stream);
  });
  return y;
}

Tensor gelu_backward(const Tensor& dy_in, const Tensor& x_in, bool tanh_approx) {
  int code;
  switch (x_in.dtype()) {
    case DType::kFloat32: code = gelu_detail::kF32; break;
    case DType::kFloat16: code = gelu_detail::kF16; break;
    case DType::kBFloat16: code = gelu_detail::kBF16; break;
    default:
      throw Error(Status::TypeError("gelu_backward", std::string("input must be float32, float16 or bfloat16 for the "
                                                                 "native kernel, got ") + dtype_name(x_in.dtype())));
  }
  if (dy_in.dtype() != x_in.dtype()) {
    throw Error(Status::TypeError("gelu_backward", std::string("grad_output and input must have one dtype, got ") +
                                                       dtype_name(dy_in.dtype()) + " and " + dtype_name(x_in.dtype())));
  }
  if (dy_in.shape() != x_in.shape()) {
    throw Error(Status::Make(ErrorCode::kInvalidShape, "gelu_backward", "grad_output and input must have one shape, got " +
                                                     Tensor::shape_str(dy_in.shape()) + " and " +
                                                     Tensor::shape_str(x_in.shape())));
  }
  static const bool once = (kernel::simd::apply_target_override(), true);
  (void)once;
  const Tensor dy = dy_in.contiguous();
  const Tensor x = x_in.contiguous();
  Tensor dx = Tensor::empty(x.shape(), x.dtype());
  const int64_t total = x.numel();
  if (total == 0) return dx;
  const uint8_t* dyp = dy.data();
  const uint8_t* xp = x.data();
  uint8_t* dxp = dx.data();
  const int64_t blocks = (total + 63) / 64;
  static const bool stream_ok = [] {
    const char* e = std::getenv("ASC_NN_GELU_STREAM");
    return !(e && e[0] == '0');
  }();
  const bool stream = stream_ok && code == gelu_detail::kF32 && total * 4 >= (int64_t(4) << 20);
  runtime::parallel_for("gelu_backward", blocks, total * 10, int64_t(1) << 14, [&](int64_t lo, int64_t hi) {
    HWY_DYNAMIC_DISPATCH(kernel::simd::GeluBackwardRange)(code, tanh_approx, dyp, xp, dxp, lo * 64,
                                                          std::min(total, hi * 64), stream);
  });
  return dx;
}

}  // namespace asc::nn
#endif  // HWY_ONCE
