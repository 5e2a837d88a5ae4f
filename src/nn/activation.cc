// gelu kernel (include/asc/nn/activation.h), Highway dynamic dispatch.
//
// Why a kernel: asc.ops.gelu as a chain of device ops (x * 0.5 * erfc(-x / sqrt 2))
// evaluates the general float32 erfc (both branches, NaN/range handling, a graph
// per call) and measured 0.15-0.38x onnxruntime. Here one pass reads x once, keeps
// everything in float32 registers and writes y once, split over the device's cores.
//
// Exact form, float32 math, h = x / 2, z = x / sqrt 2, a = |z|, a^2 = x^2 / 2 taken
// exactly as s2hi + s2lo (x * x and its FMA remainder, halved):
//   a <  0.5: y = h + h erf(z), erf(z) = z Q(8 a^2 - 1) (6 terms); 1 + erf >= 0.48, so
//             the sum loses nothing for either sign.
//   a >= 0.5: E = erfc(a) = t exp(-a^2 + P(u)), t = 2 / (2 + a), u = A t + B (the erfc
//             series of kernel/simd/math_erf-inl.h, 12 terms, Horner), the exponential
//             taken with a^2's low part so that the tail keeps relative accuracy up to
//             a = 10.1 (erfc below float32's range past it); the scaling 2^k is applied
//             to h * t * exp(r) (so results near the denormal range round once);
//             y = S = h E for x < 0 and y = x - S for x > 0 (E <= 0.48 there).
// Tanh form: v = sqrt(2/pi) (x + 0.044715 x^3), e = exp(-2 |v|) <= 1,
//   y = x / (1 + e) for v >= 0, x e / (1 + e) for v < 0 (no overflow, relative accuracy
//   in the negative tail).
// Specials: NaN -> NaN; +inf -> +inf; -inf -> NaN (torch's -inf * 0); +-0 -> +-0.
// Measured bounds (tests/python/ops/test_gelu_kernel.py against float64 math.erf /
// math.tanh on dense points): see docs/nn.md.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/activation.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "kernel/simd/exp_f32-inl.h"
#include "kernel/simd/float16-inl.h"
#include "kernel/simd/math_erf-inl.h"
#include "kernel/simd/tables.h"

#ifndef ASC_NN_ACTIVATION_ONCE
#define ASC_NN_ACTIVATION_ONCE
namespace asc::nn::gelu_detail {
enum Code : int { kF32 = 0, kF16 = 2, kBF16 = 3 };
// The power-basis forms of math_erf-inl.h's Chebyshev series (shared with math.cc's erf).
template <size_t N>
using Poly = asc::kernel::simd::erf_coeffs::PowerPoly<N>;
constexpr const Poly<12>& kErfcPoly = asc::kernel::simd::erf_coeffs::kErfcPolyF32;
constexpr const Poly<6>& kErfSmallPoly = asc::kernel::simd::erf_coeffs::kErfSmallPolyF32;
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

template <size_t N, class D, class V>
HWY_INLINE V HornerP(D d, const gd::Poly<N>& p, V u) {
  V r = Kf(d, p.a[N - 1]);
  for (size_t k = N - 1; k >= 1; --k) r = hn::MulAdd(r, u, Kf(d, p.a[k - 1]));
  return r;
}

// 12-term polynomial by Estrin's scheme: dependent depth 5 instead of Horner's 11 (the
// erfc branch is latency-bound; |u| <= 1 and the terms decay, so rounding stays as Horner's)
template <class D, class V>
HWY_INLINE V Estrin12(D d, const gd::Poly<12>& p, V u) {
  const V u2 = hn::Mul(u, u);
  const V u4 = hn::Mul(u2, u2);
  const V u8 = hn::Mul(u4, u4);
  auto pr = [&](int k) { return hn::MulAdd(Kf(d, p.a[k + 1]), u, Kf(d, p.a[k])); };
  const V q0 = hn::MulAdd(pr(2), u2, pr(0));
  const V q1 = hn::MulAdd(pr(6), u2, pr(4));
  const V q2 = hn::MulAdd(pr(10), u2, pr(8));
  return hn::MulAdd(q2, u8, hn::MulAdd(q1, u4, q0));
}

// Exact gelu of one float32 vector (file comment).
template <class D, class V>
HWY_INLINE V GeluErf(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V h = hn::Mul(x, Kf(d, 0.5));
  const V xx = hn::Mul(x, x);
  const V s2hi = hn::Mul(xx, Kf(d, 0.5));
  const V s2lo = hn::Mul(hn::MulSub(x, x, xx), Kf(d, 0.5));
  const V z = hn::Mul(x, Kf(d, 0.70710678118654752));
  const V a = hn::Abs(z);
  const auto small = hn::Lt(a, Kf(d, 0.5));
  V ys = hn::Zero(d);
  const bool any_small = !hn::AllFalse(d, small);
  if (any_small) {
    const V w = hn::MulSub(s2hi, Kf(d, 8.0), Kf(d, 1.0));
    const V erf = hn::Mul(z, HornerP(d, gd::kErfSmallPoly, w));
    ys = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, hn::MulAdd(h, erf, h));  // keeps -0
    if (hn::AllTrue(d, small)) return ys;
  }
  // erfc(a) for a >= 0.5 (lanes with a < 0.5 compute a harmless value and are replaced)
  constexpr double kMax = 10.1;
  const V ac = hn::Min(hn::Max(a, Kf(d, 0.5)), Kf(d, kMax));
  // a division: a reciprocal estimate + two Newton steps measured 15% slower here
  const V t = hn::Div(Kf(d, 2.0), hn::Add(Kf(d, 2.0), ac));
  const V p = Estrin12(d, gd::kErfcPoly, hn::MulAdd(t, Kf(d, erf_coeffs::kErfcAF32), Kf(d, erf_coeffs::kErfcBF32)));
  const V s2c = hn::Min(s2hi, Kf(d, kMax * kMax + 1.0));  // keeps inf / huge lanes finite
  const V s2l = hn::IfThenElseZero(hn::Lt(s2hi, Kf(d, kMax * kMax)), s2lo);
  const V shifter = Kf(d, 12582912.0);  // 1.5 * 2^23: rounds to an integer
  const V kx = hn::MulAdd(hn::Sub(p, s2c), Kf(d, 1.442695040888963407359924681), shifter);
  const V k = hn::Sub(kx, shifter);
  // -s2c - k ln2_hi is exact (both multiples of 2^-17 differing by < 4): no rounding of a^2
  V r = hn::NegMulAdd(k, Kf(d, 0.693145751953125), hn::Neg(s2c));
  r = hn::Sub(hn::Add(r, p), s2l);
  r = hn::NegMulAdd(k, Kf(d, 1.428606765330187045e-6), r);
  const V r2 = hn::Mul(r, r);
  const V ht = hn::Mul(h, t);
  const V hte = hn::MulAdd(ht, hn::MulAdd(ExpPolyF32(d, r, r2), r2, r), ht);  // h t exp(r)
  // k from kx's low mantissa bits (exact for |k| < 2^22): no float -> int conversion fix-ups
  const auto ki = hn::Sub(hn::BitCast(di, kx), hn::BitCast(di, shifter));
  V sc;
  if (HWY_LIKELY(hn::AllTrue(di, hn::Gt(ki, hn::Set(di, -100))))) {
    // |h t e| < 2^24 for the lanes that matter; huge |x| have a > kMax and are replaced
    sc = hn::Mul(hte, hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(ki, hn::Set(di, 127)))));
  } else {
    const auto hk = hn::ShiftRight<1>(ki);  // two normal factors, one rounding at the end
    const V f1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hk, hn::Set(di, 127))));
    const V f2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(ki, hk), hn::Set(di, 127))));
    sc = hn::Mul(hn::Mul(hte, f1), f2);
  }
  // erfc(a) = 0 past kMax: S = h * 0 (-0 for x < 0; NaN for x = -inf, as torch)
  sc = hn::IfThenElse(hn::Gt(a, Kf(d, kMax)), hn::Mul(h, hn::Zero(d)), sc);
  const auto pos = hn::Gt(x, hn::Zero(d));
  V yl = hn::IfThenElse(pos, hn::Sub(x, sc), sc);
  yl = hn::IfThenElse(hn::Or(hn::IsNaN(x), hn::Eq(x, hn::Inf(d))), x, yl);
  return any_small ? hn::IfThenElse(small, ys, yl) : yl;
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

template <class IO, bool kTanh>
void GeluT(const void* xv, void* yv, int64_t lo, int64_t hi) {
  using S = typename IO::S;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const S* x = static_cast<const S*>(xv);
  S* y = static_cast<S*>(yv);
  auto f = [&](hn::VFromD<decltype(d)> v) { return kTanh ? GeluTanh(d, v) : GeluErf(d, v); };
  size_t i = static_cast<size_t>(lo);
  const size_t end = static_cast<size_t>(hi);
  // two independent vectors per step: the erfc branch is one long dependent chain
  for (; i + 2 * N <= end; i += 2 * N) {
    const auto v0 = f(IO::Load(d, x + i));
    const auto v1 = f(IO::Load(d, x + i + N));
    IO::Store(d, v0, y + i);
    IO::Store(d, v1, y + i + N);
  }
  for (; i + N <= end; i += N) IO::Store(d, f(IO::Load(d, x + i)), y + i);
  if (i < end) {
    const size_t r = end - i;
    S in[kMaxLanes<float>] = {}, out[kMaxLanes<float>];
    std::memcpy(in, x + i, r * sizeof(S));
    IO::Store(d, f(IO::Load(d, in)), out);
    std::memcpy(y + i, out, r * sizeof(S));
  }
}

}  // namespace

void GeluRange(int code, bool tanh_form, const void* x, void* y, int64_t lo, int64_t hi) {
  switch (code) {
    case gd::kF32: tanh_form ? GeluT<NativeIO<float>, true>(x, y, lo, hi) : GeluT<NativeIO<float>, false>(x, y, lo, hi); break;
    case gd::kF16: tanh_form ? GeluT<F16IO, true>(x, y, lo, hi) : GeluT<F16IO, false>(x, y, lo, hi); break;
    default: tanh_form ? GeluT<BF16IO, true>(x, y, lo, hi) : GeluT<BF16IO, false>(x, y, lo, hi); break;
  }
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "asc/nn/activation.h"
#include "asc/runtime/device.h"
#include "nn/nn_util.h"
#include "runtime/parallel_for.h"

namespace asc::kernel::simd {
HWY_EXPORT(GeluRange);
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
  runtime::parallel_for("gelu", blocks, total * 8, int64_t(1) << 14, [&](int64_t lo, int64_t hi) {
    HWY_DYNAMIC_DISPATCH(kernel::simd::GeluRange)(code, tanh_approx, xp, yp, lo * 64, std::min(total, hi * 64));
  });
  return y;
}

}  // namespace asc::nn
#endif  // HWY_ONCE
