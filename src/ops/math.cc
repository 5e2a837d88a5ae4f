// Math ops beyond unary.cc's NumPy basics: sigmoid (expit), erf, erfc, rsqrt,
// gelu (erf and tanh forms), logaddexp/logaddexp2 on the SIMD vector math
// kernels (math_loops.h); deg2rad/rad2deg, spacing, nextafter, heaviside,
// fmod and ldexp as scalar loops with NumPy's exact semantics.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/loops.h"
#include "ops/math_loops.h"

namespace asc::ops {
namespace {

using namespace detail;
namespace simd = kernel::simd;

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;

template <typename T>
Bits<T> to_bits(T v) {
  Bits<T> u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}
template <typename T>
T from_bits(Bits<T> u) {
  T v{};
  std::memcpy(static_cast<void*>(&v), &u, sizeof v);
  return v;
}
template <typename T>
bool is_nan(T v) { return std::isnan(static_cast<Calc<T>>(v)); }

/// The next representable value of the storage type T after x toward y
/// (C99 nextafter, on the bits so that float16/bfloat16 step in their own ulps).
template <typename T>
T next_after(T x, T y) {
  using C = Calc<T>;
  const C cx = static_cast<C>(x), cy = static_cast<C>(y);
  if (std::isnan(cx) || std::isnan(cy)) return static_cast<T>(cx + cy);
  if (cx == cy) return y;
  constexpr Bits<T> kSign = Bits<T>(1) << (sizeof(T) * 8 - 1);
  if (cx == 0) return from_bits<T>(static_cast<Bits<T>>(Bits<T>(1) | (to_bits(y) & kSign)));
  const Bits<T> u = to_bits(x);
  const bool away = (cx < cy) == (cx > 0);  // growing magnitude
  return from_bits<T>(static_cast<Bits<T>>(away ? u + 1 : u - 1));
}

// ------------------------------------------------------------------ scalar loops

template <typename T, typename F>
void scalar_unary_loop(char** p, const int64_t* s, int64_t n) {
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) store<T>(o, F::apply(load<T>(a)));
}

template <typename T, typename F>
void scalar_binary_loop(char** p, const int64_t* s, int64_t n) {
  char* o = p[0];
  const char* a = p[1];
  const char* b = p[2];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1], b += s[2]) store<T>(o, F::apply(load<T>(a), load<T>(b)));
}

// deg2rad/rad2deg: one multiplication by NumPy's constant, formed in the
// compute type as npy_deg2rad(f) does (float32: NPY_PIf / 180.0f, float(pi)
// first; float16 via float32).
struct Deg2RadF {
  template <typename T>
  static T apply(T v) {
    using C = Calc<T>;
    const C k = static_cast<C>(3.14159265358979323846264338328) / C(180);
    return static_cast<T>(static_cast<C>(v) * k);
  }
};
struct Rad2DegF {
  template <typename T>
  static T apply(T v) {
    using C = Calc<T>;
    const C k = C(180) / static_cast<C>(3.14159265358979323846264338328);
    return static_cast<T>(static_cast<C>(v) * k);
  }
};
// spacing(x): the distance from x to the next value of larger magnitude, with
// x's sign; NaN for NaN and +-Inf. As NumPy: spacing(-0) is +denorm_min for
// float32/64; float16 follows npy_half_spacing (always positive, see below);
// bfloat16 (ml_dtypes) gives -denorm_min for -0.
struct SpacingF {
  template <typename T>
  static T apply(T v) {
    using C = Calc<T>;
    const C c = static_cast<C>(v);
    if (!std::isfinite(c)) return static_cast<T>(std::numeric_limits<C>::quiet_NaN());
    if constexpr (std::is_same_v<T, float16>) {
      // NumPy's npy_half_spacing: always positive; the ulp of |x|'s binade, except that a
      // negative power of two (and -0) takes the ulp of the binade below (-8 -> 2**-8,
      // not 2**-7); 65504 -> +inf.
      const uint16_t h = static_cast<uint16_t>(to_bits(v));
      if (h == 0x7bffu) return static_cast<T>(std::numeric_limits<float>::infinity());
      int e = (h >> 10) & 0x1f;  // biased exponent
      if ((h & 0x8000u) && (h & 0x03ffu) == 0) e -= 1;
      return static_cast<T>(std::ldexp(1.0f, std::max(e, 1) - 25));
    }
    if (c == 0 && !std::is_same_v<T, bfloat16>) return from_bits<T>(Bits<T>(1));
    const T inf = static_cast<T>(std::copysign(std::numeric_limits<C>::infinity(), c));
    const C r = static_cast<C>(next_after(v, inf)) - c;
    return static_cast<T>(std::is_same_v<T, float16> ? std::fabs(r) : r);
  }
};
struct NextafterF {
  template <typename T>
  static T apply(T a, T b) { return next_after(a, b); }
};
// heaviside(x1, x2): 0 for x1 < 0, x2 for x1 == 0, 1 for x1 > 0, NaN for NaN.
struct HeavisideF {
  template <typename T>
  static T apply(T a, T b) {
    using C = Calc<T>;
    const C x = static_cast<C>(a);
    if (std::isnan(x)) return a;
    return x < 0 ? static_cast<T>(C(0)) : x > 0 ? static_cast<T>(C(1)) : b;
  }
};
// fmod: C's remainder with the sign of the dividend; integers: x % 0 = 0 (NumPy
// warns and returns 0), and INT_MIN % -1 = 0 instead of trapping.
struct FmodF {
  template <typename T>
  static T apply(T a, T b) {
    if constexpr (is_float_v<T>) {
      return static_cast<T>(std::fmod(static_cast<Calc<T>>(a), static_cast<Calc<T>>(b)));
    } else {
      if (b == 0) return T(0);
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);
      }
      return static_cast<T>(a % b);
    }
  }
};

template <typename F>
InnerLoop select_float_unary(const LoopTypes& lt) {
  switch (lt.in[0]) {
    case DType::kFloat16: return &scalar_unary_loop<float16, F>;
    case DType::kBFloat16: return &scalar_unary_loop<bfloat16, F>;
    case DType::kFloat32: return &scalar_unary_loop<float, F>;
    case DType::kFloat64: return &scalar_unary_loop<double, F>;
    default: return nullptr;
  }
}

template <typename F>
InnerLoop select_float_binary(const LoopTypes& lt) {
  switch (lt.in[0]) {
    case DType::kFloat16: return &scalar_binary_loop<float16, F>;
    case DType::kBFloat16: return &scalar_binary_loop<bfloat16, F>;
    case DType::kFloat32: return &scalar_binary_loop<float, F>;
    case DType::kFloat64: return &scalar_binary_loop<double, F>;
    default: return nullptr;
  }
}

InnerLoop select_fmod(const LoopTypes& lt) {
  switch (lt.in[0]) {
    case DType::kInt8: return &scalar_binary_loop<int8_t, FmodF>;
    case DType::kInt16: return &scalar_binary_loop<int16_t, FmodF>;
    case DType::kInt32: return &scalar_binary_loop<int32_t, FmodF>;
    case DType::kInt64: return &scalar_binary_loop<int64_t, FmodF>;
    case DType::kUInt8: return &scalar_binary_loop<uint8_t, FmodF>;
    case DType::kUInt16: return &scalar_binary_loop<uint16_t, FmodF>;
    case DType::kUInt32: return &scalar_binary_loop<uint32_t, FmodF>;
    case DType::kUInt64: return &scalar_binary_loop<uint64_t, FmodF>;
    default: return select_float_binary<FmodF>(lt);
  }
}

// ldexp(x1, x2): x1 * 2**x2 with an integer exponent (int64 loop operand).
template <typename T>
void ldexp_loop(char** p, const int64_t* s, int64_t n) {
  char* o = p[0];
  const char* a = p[1];
  const char* b = p[2];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1], b += s[2]) {
    const int64_t e64 = load<int64_t>(b);
    const int e = static_cast<int>(std::max<int64_t>(std::min<int64_t>(e64, 1 << 20), -(1 << 20)));
    store<T>(o, static_cast<T>(std::ldexp(static_cast<Calc<T>>(load<T>(a)), e)));
  }
}

InnerLoop select_ldexp(const LoopTypes& lt) {
  switch (lt.in[0]) {
    case DType::kFloat16: return &ldexp_loop<float16>;
    case DType::kBFloat16: return &ldexp_loop<bfloat16>;
    case DType::kFloat32: return &ldexp_loop<float>;
    case DType::kFloat64: return &ldexp_loop<double>;
    default: return nullptr;
  }
}

// ------------------------------------------------------------------ dtype rules

// Binary float functions: promote, then integers compute in float_for (NumPy's
// logaddexp(int8, int8) is float16, heaviside(int64, int64) float64).
Status rule_float_binary(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_promote(op, in, attrs, t));
  // NumPy takes the first float loop every input casts to safely: per input, not
  // float_for of the promoted integer (arctan2(uint8, int8) is float16, not float32).
  if (!is_inexact(t->out)) {
    Result<DType> d = promote_types(float_for(in[0]), float_for(in[1]));
    t->out = d.ok() ? d.value() : float_for(t->out);
  }
  t->in[0] = t->in[1] = t->out = float_for(t->out);
  return Status::OK();
}

// fmod: promote; bool computes in int8 as NumPy's loops do.
Status rule_fmod(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_promote(op, in, attrs, t));
  if (t->out == DType::kBool) t->in[0] = t->in[1] = t->out = DType::kInt8;
  return Status::OK();
}

// ldexp: x1 in float_for(x1), x2 must be an integer (or bool): NumPy has no
// loop for a float exponent, none for complex, and uint64 does not cast
// safely to its int32/int64 exponents.
Status rule_ldexp(const OpDef& op, const DType* in, const Attrs&, LoopTypes* t) {
  if (is_floating(in[1]) || is_complex(in[1]) || is_complex(in[0]) || in[1] == DType::kUInt64)
    return Status::TypeError(op.name, "ufunc 'ldexp' not supported for the input types " + dtypes_str(in, 2) +
                                          " (the exponent x2 must be an integer)");
  t->in[0] = t->out = float_for(in[0]);
  t->in[1] = DType::kInt64;
  return Status::OK();
}

using simd::MathBinaryOp;
using simd::MathOp;

const OpRegistrar kOps[] = {
    OpRegistrar(elementwise_op("sigmoid", 1, rule_float, &select_math_unary<MathOp::kSigmoid>,
                         "Logistic sigmoid 1 / (1 + exp(-x)) (scipy.special.expit), elementwise.")),
    OpRegistrar(elementwise_op("erf", 1, rule_float, &select_math_unary<MathOp::kErf>,
                         "Error function (as math.erf / scipy.special.erf), elementwise.")),
    OpRegistrar(elementwise_op("erfc", 1, rule_float, &select_math_unary<MathOp::kErfc>,
                         "Complementary error function 1 - erf(x), accurate for large x, elementwise.")),
    OpRegistrar(elementwise_op("rsqrt", 1, rule_float, &select_math_unary<MathOp::kRsqrt>,
                         "Reciprocal square root 1 / sqrt(x), elementwise.")),
    OpRegistrar(elementwise_op("gelu", 1, rule_float, &select_math_unary<MathOp::kGeluErf>,
                         "GELU 0.5 x (1 + erf(x / sqrt(2))), elementwise.")),
    OpRegistrar(elementwise_op("gelu_tanh", 1, rule_float, &select_math_unary<MathOp::kGeluTanh>,
                         "GELU, tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).")),
    OpRegistrar(elementwise_op("deg2rad", 1, rule_float, &select_float_unary<Deg2RadF>,
                         "Degrees to radians, elementwise.")),
    OpRegistrar(elementwise_op("rad2deg", 1, rule_float, &select_float_unary<Rad2DegF>,
                         "Radians to degrees, elementwise.")),
    OpRegistrar(elementwise_op("spacing", 1, rule_float, &select_float_unary<SpacingF>,
                         "Distance between x and the nearest adjacent number of larger magnitude.")),
    OpRegistrar(elementwise_op("logaddexp", 2, rule_float_binary, &select_math_binary<MathBinaryOp::kLogaddexp>,
                         "log(exp(x1) + exp(x2)) without overflow, elementwise.")),
    OpRegistrar(elementwise_op("logaddexp2", 2, rule_float_binary, &select_math_binary<MathBinaryOp::kLogaddexp2>,
                         "log2(2**x1 + 2**x2) without overflow, elementwise.")),
    OpRegistrar(elementwise_op("nextafter", 2, rule_float_binary, &select_float_binary<NextafterF>,
                         "The next floating-point value after x1 towards x2, elementwise.")),
    OpRegistrar(elementwise_op("heaviside", 2, rule_float_binary, &select_float_binary<HeavisideF>,
                         "Heaviside step: 0 if x1 < 0, x2 if x1 == 0, 1 if x1 > 0, elementwise.")),
    OpRegistrar(elementwise_op("fmod", 2, rule_fmod, &select_fmod,
                         "Remainder of division with the sign of the dividend x1 (C fmod), elementwise.")),
    OpRegistrar(elementwise_op("ldexp", 2, rule_ldexp, &select_ldexp, "x1 * 2**x2 (x2 an integer), elementwise.")),
};

}  // namespace
}  // namespace asc::ops
