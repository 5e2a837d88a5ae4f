// Per-target float32 exp kernel shared by the Highway translation units (math.cc's exp/erfc,
// src/nn/softmax.cc): valid for vectors whose lanes all have |x| < 87, so 2^k and the result
// are normal. k = round(x / ln 2) by adding the 1.5 * 2^23 shifter (the low mantissa bits of
// the sum are k), r = x - k ln 2 in two parts, exp(r) = 1 + r + r^2 P(r) with the same
// minimax P as Highway's Exp, and k added to the exponent field directly: about half the
// instructions of hn::Exp plus its end pinning (general rounding, two-step scaling, range
// masks), which callers keep for vectors with a large, infinite or NaN lane.
//
// Included once per target by foreach_target.h (hence the toggle guard).

#if defined(ASC_KERNEL_SIMD_EXP_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef ASC_KERNEL_SIMD_EXP_F32_INL_H_
#undef ASC_KERNEL_SIMD_EXP_F32_INL_H_
#else
#define ASC_KERNEL_SIMD_EXP_F32_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// 1.5 * 2^23: adding it rounds |v| < 2^22 to an integer held in the low mantissa bits.
constexpr float kExpShifterF32 = 12582912.0f;

// (e^r - 1 - r) / r^2 for the reduced argument |r| <= ln2 / 2 (Highway's Exp polynomial).
template <class D, class V>
HWY_INLINE V ExpPolyF32(D d, V r, V r2) {
  const V p01 = hn::MulAdd(hn::Set(d, 0.166666671633720397949219f), r, hn::Set(d, 0.5f));
  const V p23 = hn::MulAdd(hn::Set(d, 0.00833336077630519866943359f), r, hn::Set(d, 0.0416664853692054748535156f));
  const V p45 = hn::MulAdd(hn::Set(d, 0.000198527617612853646278381f), r, hn::Set(d, 0.00139304355252534151077271f));
  return hn::MulAdd(hn::MulAdd(p45, r2, p23), r2, p01);
}

// exp(x) for lanes with |x| < 87 (see the file comment).
template <class D, class V>
HWY_INLINE V ExpF32Fast(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V shifter = hn::Set(d, kExpShifterF32);
  const V kx = hn::MulAdd(x, hn::Set(d, 1.442695040888963407359924681f), shifter);
  const V k = hn::Sub(kx, shifter);
  V r = hn::NegMulAdd(k, hn::Set(d, 0.693145751953125f), x);  // k * ln2_hi is exact (|k| <= 126)
  r = hn::NegMulAdd(k, hn::Set(d, 1.428606765330187045e-6f), r);
  const V r2 = hn::Mul(r, r);
  const V e = hn::Add(hn::MulAdd(ExpPolyF32(d, r, r2), r2, r), hn::Set(d, 1.0f));
  // (bits(kx) << 23) == k << 23: the shifter's own bits leave the word.
  const auto scale = hn::ShiftLeft<23>(hn::BitCast(di, kx));
  return hn::BitCast(d, hn::Add(hn::BitCast(di, e), scale));
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // ASC_KERNEL_SIMD_EXP_F32_INL_H_
