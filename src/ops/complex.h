// Inner loops of complex64/complex128 (src/ops/complex.cc) and the selector
// wrappers the op families use to add them to their real loops: a registry op
// keeps one declaration and its dtype rule; its LoopSelector falls through to
// the complex loop when the loop dtype is complex.
//
// Semantics are NumPy's, not C99 Annex G's: multiply is the plain
// (ar*br - ai*bi, ar*bi + ai*br); divide is Smith's algorithm with NumPy's
// branch order; power has NumPy's integer-exponent fast path; exp/log/sqrt are
// the C library's cexp/clog/csqrt (as NumPy's npy_c* use them); ordering
// comparisons and maximum/minimum are lexicographic with NumPy's NaN rules;
// sign is z/|z| (NumPy 2).
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/ops/registry.h"

namespace asc::ops::detail {

enum class CBinary : uint8_t { kAdd, kSub, kMul, kDiv, kPow, kEq, kNe, kLt, kLe, kGt, kGe, kMax, kMin, kFmax, kFmin };
enum class CUnary : uint8_t {
  kNeg, kPos, kConj, kAbs, kExp, kLog, kSqrt, kSquare, kReciprocal, kSign, kIsnan, kIsinf, kIsfinite,
  // The C library's csin..catanh (NumPy's npy_c* call them on glibc); log2,
  // log10, log1p, expm1, exp2 and rint are NumPy's own formulas (funcs.inc).
  kSin, kCos, kTan, kSinh, kCosh, kTanh, kArcsin, kArccos, kArctan, kArcsinh, kArccosh, kArctanh,
  kLog2, kLog10, kLog1p, kExpm1, kExp2, kRint
};

/// The loop of `op` for complex dtype `d` (nullptr when d is not complex).
/// Binary loops also implement the reduction convention of registry.h.
InnerLoop complex_binary(CBinary op, DType d) noexcept;
/// Unary loops; kAbs outputs the real part dtype, the predicates bool.
InnerLoop complex_unary(CUnary op, DType d) noexcept;
/// astype loops where `from` or `to` is complex (complex -> real keeps the
/// real part; complex -> bool is re != 0 || im != 0).
InnerLoop complex_cast(DType from, DType to) noexcept;
/// where(cond, x, y) for complex x/y.
InnerLoop complex_where(DType d) noexcept;
/// argmax/argmin of n complex values of dtype `d` at byte stride `stride`:
/// NumPy's lexicographic order; the first element with a NaN part wins.
int64_t complex_arg_extremum(DType d, bool is_max, const char* p, int64_t stride, int64_t n) noexcept;

template <CBinary kOp, LoopSelector kReal>
InnerLoop with_complex_binary(const LoopTypes& lt) {
  return is_complex(lt.in[0]) ? complex_binary(kOp, lt.in[0]) : kReal(lt);
}
template <CUnary kOp, LoopSelector kReal>
InnerLoop with_complex_unary(const LoopTypes& lt) {
  return is_complex(lt.in[0]) ? complex_unary(kOp, lt.in[0]) : kReal(lt);
}

/// NumPy's complex product (no Annex G infinity recovery, unlike std::complex's
/// operator*, which calls __mulsc3).
/// complex64 forms each part in double and rounds once (at least as accurate
/// as NumPy's FMA-based SIMD loop, so cancellations agree with it).
template <typename T>
inline std::complex<T> cmul(std::complex<T> a, std::complex<T> b) {
  if constexpr (std::is_same_v<T, float>) {
    const double ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    return {static_cast<float>(ar * br - ai * bi), static_cast<float>(ar * bi + ai * br)};
  } else {
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
  }
}

}  // namespace asc::ops::detail
