// Building blocks of the CPU kernels of src/ops: compute types, NumPy-style
// conversions and the templated inner loops (unary, binary, ternary) that the
// op families instantiate per dtype.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/kernel/simd.h"
#include "asc/ops/registry.h"

namespace asc::kernel::simd {
/// dst[i] = op(src[i], *scalar), or op(*scalar, src[i]) with `scalar_left`,
/// bit-identical to NumPy (operand order kept; Max/Min propagate NaN, the
/// first NaN winning, and give NumPy's zero for +0 vs -0: the second operand
/// for float32, the first for float16).
/// Highway-dispatched; defined in src/kernel/simd/elementwise.cc. Returns false
/// and does nothing when (op, dtype) has no SIMD loop (supported: float32,
/// float16 all BinaryOps; int16, int32 all but Div). Reentrant.
bool binary_scalar_operand(BinaryOp op, DType dtype, void* dst, const void* src, const void* scalar,
                           bool scalar_left, size_t n);
}  // namespace asc::kernel::simd

namespace asc::ops::detail {

template <typename T>
constexpr bool is_half_v = std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
template <typename T>
constexpr bool is_float_v = is_half_v<T> || std::is_floating_point_v<T>;
/// Arithmetic of 16-bit floats happens in float32 (rounded back on store).
template <typename T>
using Calc = std::conditional_t<is_half_v<T>, float, T>;

// ------------------------------------------------------------------ conversion

/// float -> integer as NumPy does on x86-64 (C casts through cvtt*: NaN and
/// out-of-range values give the "integer indefinite" value, then truncation).
template <typename D>
D float_to_int(double x) {
  if constexpr (std::is_signed_v<D> && sizeof(D) <= 4) {
    int32_t v = (std::isnan(x) || x >= 2147483648.0 || x <= -2147483649.0) ? std::numeric_limits<int32_t>::min()
                                                                            : static_cast<int32_t>(x);
    return static_cast<D>(v);
  } else if constexpr (std::is_signed_v<D>) {
    if (std::isnan(x) || x >= 9223372036854775808.0 || x < -9223372036854775808.0)
      return std::numeric_limits<int64_t>::min();
    return static_cast<D>(x);
  } else if constexpr (sizeof(D) <= 2) {
    return static_cast<D>(float_to_int<int32_t>(x));
  } else {
    constexpr double kTop = sizeof(D) == 4 ? 4294967296.0 : 18446744073709551616.0;
    constexpr double kLow = sizeof(D) == 4 ? -2147483648.0 : -9223372036854775808.0;
    constexpr D kIndef = static_cast<D>(D(1) << (sizeof(D) * 8 - 1));
    if (std::isnan(x) || x < kLow) return kIndef;
    if (x >= kTop) return 0;
    if (x < 0) return static_cast<D>(static_cast<int64_t>(x));
    return static_cast<D>(static_cast<uint64_t>(x));
  }
}

/// bfloat16 -> integer as ml_dtypes 0.7 does: the value truncated toward
/// zero when the target holds it, else 0 (NaN, ±Inf, out of range, negative
/// into unsigned: bfloat16(-3) -> uint8 0, bfloat16(128) -> int8 0).
template <typename D>
D bfloat16_to_int(float x) {
  constexpr int kBits = static_cast<int>(sizeof(D) * 8) - (std::is_signed_v<D> ? 1 : 0);
  constexpr float kTop = static_cast<float>(uint64_t(1) << (kBits - 1)) * 2.0f;  // 2^kBits, exact
  constexpr float kLow = std::is_signed_v<D> ? -kTop : 0.0f;
  const float t = std::trunc(x);
  if (!(t >= kLow && t < kTop)) return D(0);  // NaN fails both comparisons
  return static_cast<D>(t);
}

/// integer -> float16/bfloat16 rounded once from the exact value (NumPy and
/// ml_dtypes; through a nearest-even float32 first, int32 16908289 =
/// 2^24 + 2^16 + 1 would round twice and give 2^24 instead of 2^24 + 2^17).
template <typename D, typename S>
D int_to_half(S v) {
  if constexpr (sizeof(S) <= 2) {
    return D(static_cast<float>(v));
  } else if constexpr (std::is_signed_v<S>) {
    const uint64_t m = v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const float f = ::asc::detail::u64_to_f32_round_odd(m);
    return D(v < 0 ? -f : f);
  } else {
    return D(::asc::detail::u64_to_f32_round_odd(static_cast<uint64_t>(v)));
  }
}

/// One element of S converted to D with astype semantics.
template <typename D, typename S>
inline D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (std::is_same_v<D, bool>) {
    return static_cast<Calc<S>>(v) != Calc<S>(0);
  } else if constexpr (std::is_same_v<S, bool>) {
    return D(static_cast<Calc<D>>(v ? 1 : 0));
  } else if constexpr (std::is_same_v<S, bfloat16> && !is_float_v<D>) {
    return bfloat16_to_int<D>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<S, float16> && std::is_same_v<D, uint32_t>) {
    // NumPy's half -> uint32 loop (every path) goes through a 64-bit cvtt:
    // NaN and ±Inf give 0, -1 gives 4294967295 (float32's contiguous loop
    // gives 2^31 for NaN/-Inf, which float_to_int follows).
    return static_cast<D>(float_to_int<int64_t>(static_cast<double>(static_cast<float>(v))));
  } else if constexpr (is_float_v<S> && !is_float_v<D>) {
    return float_to_int<D>(static_cast<double>(static_cast<Calc<S>>(v)));
  } else if constexpr (is_half_v<D>) {
    if constexpr (std::is_same_v<S, double>) return D(v);  // rounded once (half.h)
    else if constexpr (std::is_integral_v<S>) return int_to_half<D>(v);
    else return D(static_cast<float>(static_cast<Calc<S>>(v)));
  } else {
    return static_cast<D>(static_cast<Calc<S>>(v));
  }
}

template <typename T>
inline T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
inline void store(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

/// where(cond, x, y) for any element type T (cond is bool).
template <typename T>
void where_loop(char** p, const int64_t* s, int64_t n) {
  char* o = p[0];
  const char* c = p[1];
  const char* x = p[2];
  const char* y = p[3];
  for (int64_t i = 0; i < n; ++i, o += s[0], c += s[1], x += s[2], y += s[3])
    store<T>(o, load<bool>(c) ? load<T>(x) : load<T>(y));
}

// ------------------------------------------------------------------ loops

constexpr int kNoSimd = -1;

/// out[i] = F(in[i]); F::apply(Calc<In>) -> Calc<Out> (or Out).
/// F::kSimd: a simd::UnaryOp index usable when In == Out is float32/float16.
template <typename In, typename Out, typename F>
void unary_loop(char** p, const int64_t* s, int64_t n) {
  if constexpr (F::kSimd != kNoSimd && std::is_same_v<In, Out> &&
                (std::is_same_v<In, float> || std::is_same_v<In, float16>)) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      kernel::simd::unary(static_cast<kernel::simd::UnaryOp>(F::kSimd), dtype_of<In>(), p[0], p[1],
                          static_cast<size_t>(n));
      return;
    }
  }
  if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(F::template apply<Calc<In>>(static_cast<Calc<In>>(a[i])));
    return;
  }
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1])
    store<Out>(o, static_cast<Out>(F::template apply<Calc<In>>(static_cast<Calc<In>>(load<In>(a)))));
}

template <typename T>
constexpr bool simd_binary_dtype_v =
    std::is_same_v<T, float> || std::is_same_v<T, float16> || std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t>;

/// out[i] = F(a[i], b[i]). F::kSimd: a simd::BinaryOp index (or kNoSimd);
/// F::kSimdInt: whether the SIMD op also serves int16/int32. F::kReduce: the
/// op is a reduction combiner (called with ptrs[0] == ptrs[1], strides 0).
/// An in-place update of a one-element array (x += y, size 1) reaches the
/// loop the same way with n == 1: that is the elementwise apply below (the
/// combiner's +0 start would turn -0 + -0 into +0).
template <typename In, typename Out, typename F>
void binary_loop(char** p, const int64_t* s, int64_t n) {
  using C = Calc<In>;
  if constexpr (F::kReduce && std::is_same_v<In, Out>) {
    if (n > 1 && s[0] == 0 && s[1] == 0 && p[0] == p[1]) {
      Out* acc = reinterpret_cast<Out*>(p[0]);
      *acc = static_cast<Out>(F::template reduce<In>(static_cast<C>(*acc), p[2], s[2], n));
      return;
    }
  }
  if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == sizeof(In)) {
    if constexpr (F::kSimd != kNoSimd && std::is_same_v<In, Out> && simd_binary_dtype_v<In>) {
      if (is_float_v<In> || F::kSimdInt) {
        kernel::simd::binary(static_cast<kernel::simd::BinaryOp>(F::kSimd), dtype_of<In>(), p[0], p[1], p[2],
                             static_cast<size_t>(n));
        return;
      }
    }
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    const In* b = reinterpret_cast<const In*>(p[2]);
    for (int64_t i = 0; i < n; ++i)
      o[i] = static_cast<Out>(F::template apply<C>(static_cast<C>(a[i]), static_cast<C>(b[i])));
    return;
  }
  if (s[0] == sizeof(Out) && s[1] == sizeof(In) && s[2] == 0) {
    if constexpr (F::kSimd != kNoSimd && std::is_same_v<In, Out> && simd_binary_dtype_v<In>) {
      if ((is_float_v<In> || F::kSimdInt) &&
          kernel::simd::binary_scalar_operand(static_cast<kernel::simd::BinaryOp>(F::kSimd), dtype_of<In>(), p[0],
                                              p[1], p[2], false, static_cast<size_t>(n)))
        return;
    }
    Out* o = reinterpret_cast<Out*>(p[0]);
    const In* a = reinterpret_cast<const In*>(p[1]);
    const C b = static_cast<C>(load<In>(p[2]));
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(F::template apply<C>(static_cast<C>(a[i]), b));
    return;
  }
  if (s[0] == sizeof(Out) && s[1] == 0 && s[2] == sizeof(In)) {
    if constexpr (F::kSimd != kNoSimd && std::is_same_v<In, Out> && simd_binary_dtype_v<In>) {
      if ((is_float_v<In> || F::kSimdInt) &&
          kernel::simd::binary_scalar_operand(static_cast<kernel::simd::BinaryOp>(F::kSimd), dtype_of<In>(), p[0],
                                              p[2], p[1], true, static_cast<size_t>(n)))
        return;
    }
    Out* o = reinterpret_cast<Out*>(p[0]);
    const C a = static_cast<C>(load<In>(p[1]));
    const In* b = reinterpret_cast<const In*>(p[2]);
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(F::template apply<C>(a, static_cast<C>(b[i])));
    return;
  }
  char* o = p[0];
  const char* a = p[1];
  const char* b = p[2];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1], b += s[2])
    store<Out>(o, static_cast<Out>(F::template apply<C>(static_cast<C>(load<In>(a)), static_cast<C>(load<In>(b)))));
}

/// Table of loops indexed by DType, for ops whose loop is chosen by one dtype.
using LoopTable = std::array<InnerLoop, kNumDTypes>;

template <template <typename> class Make>
struct TableBuilder {
  static void fill(LoopTable& t) {
    t[int(DType::kBool)] = Make<bool>::get();
    t[int(DType::kInt8)] = Make<int8_t>::get();
    t[int(DType::kInt16)] = Make<int16_t>::get();
    t[int(DType::kInt32)] = Make<int32_t>::get();
    t[int(DType::kInt64)] = Make<int64_t>::get();
    t[int(DType::kUInt8)] = Make<uint8_t>::get();
    t[int(DType::kUInt16)] = Make<uint16_t>::get();
    t[int(DType::kUInt32)] = Make<uint32_t>::get();
    t[int(DType::kUInt64)] = Make<uint64_t>::get();
    t[int(DType::kFloat16)] = Make<float16>::get();
    t[int(DType::kBFloat16)] = Make<bfloat16>::get();
    t[int(DType::kFloat32)] = Make<float>::get();
    t[int(DType::kFloat64)] = Make<double>::get();
  }
  /// The table filled once (thread-safe static initialisation).
  static const LoopTable& cached() {
    static const LoopTable t = [] {
      LoopTable x{};
      fill(x);
      return x;
    }();
    return t;
  }
};

// ------------------------------------------------------------------ dtype rules

/// Promotes all inputs; inputs are cast to the result, output = result.
Status rule_promote(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t);
/// Promotes; output bool (comparisons).
Status rule_compare(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t);
/// Promotes then to float_for (true_divide, exp, log, ...).
Status rule_float(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t);
/// All inputs -> bool, output bool (logical_*).
Status rule_logical(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t);

/// Message fragment "for dtypes (int8, bfloat16)".
std::string dtypes_str(const DType* in, int n);

}  // namespace asc::ops::detail
