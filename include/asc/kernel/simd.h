// Vector instructions of the CPU device: non-template entry points in libasc.
//
// The Ascend C templates (AscendC::Add<T>, Cast<D, S>, ...) and pyasc's own
// operator kernels call these functions with a dtype tag and raw pointers. Each
// entry point looks up a function pointer in a per-target table chosen once by
// Highway's dynamic dispatch (AVX3 / AVX2 / SSE4 / scalar on x86), so a call is
// a table load plus an indirect call: no allocation, no std::function.
//
// Semantics common to every entry point:
// * `n` counts elements; n == 0 does nothing (reductions write their identity).
// * Pointers need no particular alignment. `dst` may equal a source (in place);
//   other partial overlaps give unspecified results, as on the hardware.
// * float16 is computed by promoting to float32 and rounding the result back to
//   nearest-even (correctly rounded for + - * / sqrt). bfloat16 is supported
//   by cast() (and duplicate()) only, for now.
// * NaN handling: Max/Min propagate NaN (a NaN operand gives a NaN result, as
//   numpy.maximum does); Relu(NaN) = NaN, Relu(-0) = -0; Max/Min of +0 and -0
//   may return either zero. Integer Add/Sub/Mul/Abs wrap around (two's
//   complement), they do not saturate.
// * A dtype the operation does not support throws asc::Error with
//   ErrorCode::kInvalidDtype and a message "[<Op>] ...".
//
// Adding an operation: its enumerator here (before kCount), its name in
// src/kernel/simd/common.cc, and a functor plus one table line per dtype family
// in the Highway translation unit of its family (elementwise.cc or
// convert_reduce.cc under src/kernel/simd/).
//
// Thread-safety: all functions are reentrant; the dispatch table is built once
// (thread-safe static initialisation) and then only read.
#pragma once

#include <cstddef>
#include <cstdint>

#include "asc/core/dtype.h"

namespace asc::kernel {

/// Rounding modes of Cast (values as Ascend C's AscendC::RoundMode).
enum class RoundMode : int {
  CAST_NONE = 0,  // no rounding where exact; round to nearest even where not
  CAST_RINT,      // round to nearest, ties to even
  CAST_FLOOR,     // toward -Inf
  CAST_CEIL,      // toward +Inf
  CAST_ROUND,     // to nearest, ties away from zero
  CAST_TRUNC,     // toward zero
  CAST_ODD,       // von Neumann rounding (truncate, then set the last bit if inexact)
};
const char* round_mode_name(RoundMode m) noexcept;

namespace simd {

/// dst[i] = a[i] op b[i].
enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin, kCount };
/// dst[i] = src[i] op scalar.
enum class ScalarOp : uint8_t { kAdds, kMuls, kMaxs, kMins, kCount };
/// dst[i] = op(src[i]).
enum class UnaryOp : uint8_t { kExp, kLn, kAbs, kRelu, kSqrt, kCount };
/// Whole-vector reductions.
enum class ReduceOp : uint8_t { kSum, kMax, kMin, kCount };

const char* op_name(BinaryOp op) noexcept;  // "Add", ...
const char* op_name(ScalarOp op) noexcept;  // "Adds", ...
const char* op_name(UnaryOp op) noexcept;   // "Exp", ...
const char* op_name(ReduceOp op) noexcept;  // "ReduceSum", ...

/// Supported dtypes: float32, float16 (all ops); int16, int32 (all but Div).
/// Float Max/Min propagate NaN (the first NaN operand wins) and give NumPy's
/// zero for +0 vs -0 on every target: the second operand for float32, the
/// first for float16.
void binary(BinaryOp op, DType dtype, void* dst, const void* a, const void* b, size_t n);
/// `scalar` points to one element of `dtype`. Same dtypes as binary().
void binary_scalar(ScalarOp op, DType dtype, void* dst, const void* src, const void* scalar, size_t n);
/// Exp, Ln, Sqrt: float32, float16. Abs, Relu: float32, float16, int16, int32.
/// Exp(x > 88.72) = +Inf, Ln(0) = -Inf, Ln(x < 0) = NaN, Sqrt(x < 0) = NaN.
void unary(UnaryOp op, DType dtype, void* dst, const void* src, size_t n);
/// dst[i] = *scalar for any dtype of 1, 2, 4 or 8 bytes.
void duplicate(DType dtype, void* dst, const void* scalar, size_t n);

// ---------------------------------------------------------------- vector math
// src/kernel/simd/math.cc. Supported dtypes: float64 and float32 (all ops),
// float16 and bfloat16 (computed in float32 lanes, rounded back to nearest
// even). Special values follow NumPy: NaN in gives NaN, domain errors give NaN,
// overflow gives +-Inf, underflow gives denormals/0, and the sign of zero is
// kept where the function is odd (sin(-0) = -0, expm1(-0) = -0, ...). The
// maximum error of each function per dtype, in ULPs, is in docs/vector_math.md
// (tested by tests/cpp/kernel/simd_math_test.cc). Any n (tails are handled
// without reading or writing past n); dst may equal a source.

/// dst[i] = op(src[i]).
enum class MathOp : uint8_t {
  kExp, kExp2, kExpm1, kLog, kLog2, kLog10, kLog1p,
  kSin, kCos, kTan, kArcsin, kArccos, kArctan,
  kSinh, kCosh, kTanh, kArcsinh, kArccosh, kArctanh,
  kSqrt, kRsqrt, kCbrt,
  kSigmoid,   // 1 / (1 + exp(-x)), scipy.special.expit
  kErf, kErfc,
  kGeluTanh,  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  kGeluErf,   // 0.5 x (1 + erf(x / sqrt(2)))
  kCount
};
/// dst[i] = op(a[i], b[i]).
enum class MathBinaryOp : uint8_t { kArctan2, kHypot, kPow, kLogaddexp, kLogaddexp2, kCount };

const char* op_name(MathOp op) noexcept;        // "exp", ... (NumPy's names)
const char* op_name(MathBinaryOp op) noexcept;  // "arctan2", ...

using MathUnaryFn = void (*)(void* dst, const void* src, size_t n);
using MathBinaryFn = void (*)(void* dst, const void* a, const void* b, size_t n);
/// The running target's loop for (op, dtype): usable directly on contiguous
/// runs of any length (the ops layer caches it). Throws kInvalidDtype
/// ("[exp] dtype int32 is not supported ...") for other dtypes.
MathUnaryFn math_fn(MathOp op, DType dtype);
MathBinaryFn math_fn(MathBinaryOp op, DType dtype);
/// True when math_fn(op, dtype) would succeed.
bool math_supported(DType dtype) noexcept;
void math(MathOp op, DType dtype, void* dst, const void* src, size_t n);
void math(MathBinaryOp op, DType dtype, void* dst, const void* a, const void* b, size_t n);

/// Converts n elements. Supported: between float32, float16, bfloat16, int32,
/// int16, int8, uint8 except integer -> integer; float32 -> float32 rounds to
/// an integral value with `mode` (CAST_NONE copies). Float -> integer rounds
/// with `mode` (CAST_NONE = CAST_RINT), saturates to the integer range and maps
/// NaN to 0. Narrowing float conversions honour every mode including CAST_ODD
/// (CAST_NONE = CAST_RINT); CAST_ODD with an integer destination is an error
/// (kInvalidParam). Widening conversions are exact (any mode accepted).
void cast(DType dst_dtype, DType src_dtype, RoundMode mode, void* dst, const void* src, size_t n);
/// True when cast(dst_dtype, src_dtype, ...) is supported.
bool cast_supported(DType dst_dtype, DType src_dtype) noexcept;

/// float32 / float16. Writes the result to dst[0] (dtype `dtype`). Sum adds
/// in float32 vector lanes, folded into a double every 64 vectors (order
/// unspecified; error about that of a pairwise sum). Max/Min propagate NaN (the first
/// NaN wins). With `with_index`, dst[1] receives the index of the first element
/// equal to the result, stored as the unsigned integer bits of dst's element
/// (uint32 for float32, uint16 for float16): read it back with
/// reinterpret_cast / ReinterpretCast. n == 0 writes 0 (Sum), -Inf (Max) or +Inf
/// (Min) and index 0.
void reduce(ReduceOp op, DType dtype, void* dst, const void* src, size_t n, bool with_index = false);

/// The Highway target the tables were chosen for ("AVX3", "AVX2", ...).
/// ASC_SIMD_TARGET=AVX2|SSE4|SCALAR (read once, at first use) caps the choice,
/// to exercise the fallback paths on a machine with a better target.
const char* target_name() noexcept;
/// The Highway targets compiled into libasc, best first, space-separated
/// ("AVX3 AVX2 SSE4 SCALAR" on x86-64 builds).
const char* compiled_targets() noexcept;

}  // namespace simd
}  // namespace asc::kernel
