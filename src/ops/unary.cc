// Unary elementwise ops: negative, positive, abs, logical_not, rounding,
// predicates and the float math functions (exp, log, sin, ...: SIMD vector
// math kernels for every float dtype, see math_loops.h). float16/bfloat16
// compute in float32; integer inputs of math functions compute in
// float_for(dtype).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ops/complex.h"
#include "ops/loops.h"
#include "ops/math_loops.h"

namespace asc::ops {
namespace {

using namespace detail;
namespace simd = kernel::simd;

template <typename T>
using Wide = typename std::conditional_t<(sizeof(T) < 4), std::common_type<uint32_t>, std::make_unsigned<T>>::type;

struct NegF {
  static constexpr int kSimd = kNoSimd;
  template <typename C>
  static C apply(C a) {
    if constexpr (std::is_integral_v<C>) return static_cast<C>(Wide<C>(0) - static_cast<Wide<C>>(a));
    else return -a;
  }
};
struct PosF {
  static constexpr int kSimd = kNoSimd;
  template <typename C>
  static C apply(C a) { return a; }
};
struct AbsF {
  static constexpr int kSimd = static_cast<int>(simd::UnaryOp::kAbs);
  template <typename C>
  static C apply(C a) {
    if constexpr (std::is_same_v<C, bool> || std::is_unsigned_v<C>) return a;
    else if constexpr (std::is_integral_v<C>) return a < 0 ? static_cast<C>(Wide<C>(0) - static_cast<Wide<C>>(a)) : a;
    else return std::fabs(a);
  }
};
struct NotF {
  static constexpr int kSimd = kNoSimd;
  template <typename C>
  static bool apply(C a) { return !a; }
};

// Math functions: kMath is the simd::MathOp of the vector math kernel every
// float dtype uses (math_loops.h); apply() is the scalar definition, kept for
// reference (kNoSimd: no vector kernel, apply() is the loop).
#define ASC_MATH_FUNCTOR(Name, fn, math_op)   \
  struct Name {                               \
    static constexpr int kSimd = kNoSimd;     \
    static constexpr int kMath = math_op;     \
    template <typename C>                     \
    static C apply(C a) { return std::fn(a); } \
  };
#define ASC_M(op) static_cast<int>(simd::MathOp::op)
ASC_MATH_FUNCTOR(ExpF, exp, ASC_M(kExp))
ASC_MATH_FUNCTOR(LogF, log, ASC_M(kLog))
ASC_MATH_FUNCTOR(SqrtF, sqrt, ASC_M(kSqrt))
ASC_MATH_FUNCTOR(SinF, sin, ASC_M(kSin))
ASC_MATH_FUNCTOR(CosF, cos, ASC_M(kCos))
ASC_MATH_FUNCTOR(TanhF, tanh, ASC_M(kTanh))
ASC_MATH_FUNCTOR(TanF, tan, ASC_M(kTan))
ASC_MATH_FUNCTOR(ArcsinF, asin, ASC_M(kArcsin))
ASC_MATH_FUNCTOR(ArccosF, acos, ASC_M(kArccos))
ASC_MATH_FUNCTOR(ArctanF, atan, ASC_M(kArctan))
ASC_MATH_FUNCTOR(SinhF, sinh, ASC_M(kSinh))
ASC_MATH_FUNCTOR(CoshF, cosh, ASC_M(kCosh))
ASC_MATH_FUNCTOR(ArcsinhF, asinh, ASC_M(kArcsinh))
ASC_MATH_FUNCTOR(ArccoshF, acosh, ASC_M(kArccosh))
ASC_MATH_FUNCTOR(ArctanhF, atanh, ASC_M(kArctanh))
ASC_MATH_FUNCTOR(Log1pF, log1p, ASC_M(kLog1p))
ASC_MATH_FUNCTOR(Expm1F, expm1, ASC_M(kExpm1))
ASC_MATH_FUNCTOR(Log2F, log2, ASC_M(kLog2))
ASC_MATH_FUNCTOR(Log10F, log10, ASC_M(kLog10))
ASC_MATH_FUNCTOR(Exp2F, exp2, ASC_M(kExp2))
ASC_MATH_FUNCTOR(RintF, nearbyint, kNoSimd)  // round half to even (default rounding mode)
ASC_MATH_FUNCTOR(CbrtF, cbrt, ASC_M(kCbrt))
#undef ASC_M
#undef ASC_MATH_FUNCTOR

// floor/ceil/trunc: integers and bools are returned unchanged (NumPy 2).
#define ASC_ROUNDING_FUNCTOR(Name, fn)                          \
  struct Name {                                                 \
    static constexpr int kSimd = kNoSimd;                       \
    template <typename C>                                       \
    static C apply(C a) {                                       \
      if constexpr (std::is_floating_point_v<C>) return std::fn(a); \
      else return a;                                            \
    }                                                           \
  };
ASC_ROUNDING_FUNCTOR(FloorF, floor)
ASC_ROUNDING_FUNCTOR(CeilF, ceil)
ASC_ROUNDING_FUNCTOR(TruncF, trunc)
#undef ASC_ROUNDING_FUNCTOR

struct SignF {
  static constexpr int kSimd = kNoSimd;
  template <typename C>
  static C apply(C a) {
    if constexpr (std::is_unsigned_v<C>) return a > 0 ? C(1) : C(0);
    else if constexpr (std::is_floating_point_v<C>) return a > 0 ? C(1) : a < 0 ? C(-1) : a == 0 ? C(0) : a;
    else return a > 0 ? C(1) : a < 0 ? C(-1) : C(0);
  }
};
// NumPy's bfloat16 loops are ml_dtypes': its sign returns a zero (and a NaN) unchanged, so
// sign(-0.0) is -0.0 there while NumPy's float16/32/64 loops give +0.0.
struct SignKeepZeroF {
  static constexpr int kSimd = kNoSimd;
  template <typename C>
  static C apply(C a) { return a > 0 ? C(1) : a < 0 ? C(-1) : a; }
};
struct SquareF {
  static constexpr int kSimd = kNoSimd;
  template <typename C>
  static C apply(C a) {
    if constexpr (std::is_integral_v<C>) return static_cast<C>(static_cast<Wide<C>>(a) * static_cast<Wide<C>>(a));
    else return a * a;
  }
};
struct ReciprocalF {
  static constexpr int kSimd = kNoSimd;
  template <typename C>
  static C apply(C a) {
    if constexpr (std::is_integral_v<C>) {
      // What NumPy gives on x86-64 (it warns): int32/int64 the minimum; int8/int16 divide in
      // int32 and keep the low bits of INT32_MIN, 0; unsigned 0.
      if (a == 0) return sizeof(C) < 4 ? C(0) : std::numeric_limits<C>::min();
      if constexpr (std::is_signed_v<C>) {
        if (a == C(-1)) return C(-1);
      }
      return static_cast<C>(C(1) / a);
    } else {
      return C(1) / a;
    }
  }
};

#define ASC_CLASSIFY_FUNCTOR(Name, float_expr, int_value) \
  struct Name {                                           \
    static constexpr int kSimd = kNoSimd;                 \
    template <typename C>                                 \
    static bool apply(C a) {                              \
      if constexpr (std::is_floating_point_v<C>) return float_expr; \
      else return (void)a, int_value;                     \
    }                                                     \
  };
ASC_CLASSIFY_FUNCTOR(IsnanF, std::isnan(a), false)
ASC_CLASSIFY_FUNCTOR(IsinfF, std::isinf(a), false)
ASC_CLASSIFY_FUNCTOR(IsfiniteF, std::isfinite(a), true)
#undef ASC_CLASSIFY_FUNCTOR

template <typename F, bool kBoolOut>
struct UnaryTable {
  template <typename T>
  struct Make {
    static InnerLoop get() { return &unary_loop<T, std::conditional_t<kBoolOut, bool, T>, F>; }
  };
  static const LoopTable& table() { return TableBuilder<Make>::cached(); }
  static InnerLoop select(const LoopTypes& lt) { return table()[static_cast<int>(lt.in[0])]; }
};

InnerLoop sign_select(const LoopTypes& lt) {
  if (lt.in[0] == DType::kBFloat16) return &unary_loop<bfloat16, bfloat16, SignKeepZeroF>;
  return UnaryTable<SignF, false>::select(lt);
}

// Math functions have float loops only; the dtype rule casts integers first.
template <typename F>
struct FloatTable {
  template <typename T>
  static InnerLoop one() {
    if constexpr (F::kMath != kNoSimd) return &math_unary_loop<T, static_cast<simd::MathOp>(F::kMath)>;
    else return &unary_loop<T, T, F>;
  }
  static InnerLoop select(const LoopTypes& lt) {
    switch (lt.in[0]) {
      case DType::kFloat16: return one<float16>();
      case DType::kBFloat16: return one<bfloat16>();
      case DType::kFloat32: return one<float>();
      case DType::kFloat64: return one<double>();
      default: return nullptr;
    }
  }
};

Status rule_same(const OpDef&, const DType* in, const Attrs&, LoopTypes* t) {
  t->in[0] = t->out = in[0];
  return Status::OK();
}

// absolute of complex is real (|z| = hypot(re, im)).
Status rule_abs(const OpDef& op, const DType* in, const Attrs& a, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_same(op, in, a, t));
  t->out = complex_part_dtype(in[0]);
  return Status::OK();
}

Status rule_negative(const OpDef& op, const DType* in, const Attrs& a, LoopTypes* t) {
  if (in[0] == DType::kBool)
    return Status::TypeError(op.name, "The numpy boolean negative, the `-` operator, is not supported, use the `~` "
                                      "operator or the logical_not function instead.");
  return rule_same(op, in, a, t);
}

Status rule_positive(const OpDef& op, const DType* in, const Attrs& a, LoopTypes* t) {
  if (in[0] == DType::kBool)
    return Status::TypeError(op.name, "ufunc 'positive' did not contain a loop with signature matching types bool");
  return rule_same(op, in, a, t);
}

Status rule_sign(const OpDef& op, const DType* in, const Attrs& a, LoopTypes* t) {
  if (in[0] == DType::kBool)
    return Status::TypeError(op.name, "ufunc 'sign' did not contain a loop with signature matching types bool");
  return rule_same(op, in, a, t);
}

// square/reciprocal of bool compute in int8, as NumPy's loops do.
Status rule_unary_bool_as_int8(const OpDef& op, const DType* in, const Attrs& a, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_same(op, in, a, t));
  if (in[0] == DType::kBool) t->in[0] = t->out = DType::kInt8;
  return Status::OK();
}

Status rule_to_bool(const OpDef&, const DType* in, const Attrs&, LoopTypes* t) {
  t->in[0] = in[0];
  t->out = DType::kBool;
  return Status::OK();
}

// signbit of integers: computed on the integer itself (negative values are set).
struct SignbitIntF {
  static constexpr int kSimd = kNoSimd;
  template <typename C>
  static bool apply(C a) {
    if constexpr (std::is_same_v<C, float>) {
      uint32_t u;  // the bit itself (std::signbit here trips a GCC 12 vectorizer ICE)
      std::memcpy(&u, &a, sizeof u);
      return (u >> 31) != 0;
    } else if constexpr (std::is_same_v<C, double>) {
      uint64_t u;
      std::memcpy(&u, &a, sizeof u);
      return (u >> 63) != 0;
    } else if constexpr (std::is_signed_v<C>) {
      return a < 0;
    } else {
      return (void)a, false;
    }
  }
};

OpDef unary_def(const char* name, DTypeRule rule, LoopSelector sel, const char* doc = "") {
  return elementwise_op(name, 1, rule, sel, doc);
}

const OpRegistrar kOps[] = {
    OpRegistrar(unary_def("negative", rule_negative, &with_complex_unary<CUnary::kNeg, &UnaryTable<NegF, false>::select>, "-x, elementwise.")),
    OpRegistrar(unary_def("positive", rule_positive, &with_complex_unary<CUnary::kPos, &UnaryTable<PosF, false>::select>, "+x (a copy), elementwise.")),
    OpRegistrar(unary_def("absolute", rule_abs, &with_complex_unary<CUnary::kAbs, &UnaryTable<AbsF, false>::select>, "|x|, elementwise.")),
    OpRegistrar(unary_def("logical_not", rule_logical, &UnaryTable<NotF, true>::select, "NOT x, elementwise.")),
    OpRegistrar(unary_def("exp", rule_float, &with_complex_unary<CUnary::kExp, &FloatTable<ExpF>::select>, "e**x, elementwise.")),
    OpRegistrar(unary_def("exp2", rule_float, &with_complex_unary<CUnary::kExp2, &FloatTable<Exp2F>::select>, "2**x, elementwise.")),
    OpRegistrar(unary_def("expm1", rule_float, &with_complex_unary<CUnary::kExpm1, &FloatTable<Expm1F>::select>, "exp(x) - 1, accurate near 0.")),
    OpRegistrar(unary_def("log", rule_float, &with_complex_unary<CUnary::kLog, &FloatTable<LogF>::select>, "Natural logarithm, elementwise.")),
    OpRegistrar(unary_def("log2", rule_float, &with_complex_unary<CUnary::kLog2, &FloatTable<Log2F>::select>, "Base-2 logarithm, elementwise.")),
    OpRegistrar(unary_def("log10", rule_float, &with_complex_unary<CUnary::kLog10, &FloatTable<Log10F>::select>, "Base-10 logarithm, elementwise.")),
    OpRegistrar(unary_def("log1p", rule_float, &with_complex_unary<CUnary::kLog1p, &FloatTable<Log1pF>::select>, "log(1 + x), accurate near 0.")),
    OpRegistrar(unary_def("sqrt", rule_float, &with_complex_unary<CUnary::kSqrt, &FloatTable<SqrtF>::select>, "Square root, elementwise.")),
    OpRegistrar(unary_def("cbrt", rule_float, &FloatTable<CbrtF>::select, "Cube root, elementwise.")),
    OpRegistrar(unary_def("sin", rule_float, &with_complex_unary<CUnary::kSin, &FloatTable<SinF>::select>, "Sine (radians), elementwise.")),
    OpRegistrar(unary_def("cos", rule_float, &with_complex_unary<CUnary::kCos, &FloatTable<CosF>::select>, "Cosine (radians), elementwise.")),
    OpRegistrar(unary_def("tan", rule_float, &with_complex_unary<CUnary::kTan, &FloatTable<TanF>::select>, "Tangent (radians), elementwise.")),
    OpRegistrar(unary_def("arcsin", rule_float, &with_complex_unary<CUnary::kArcsin, &FloatTable<ArcsinF>::select>, "Inverse sine, elementwise.")),
    OpRegistrar(unary_def("arccos", rule_float, &with_complex_unary<CUnary::kArccos, &FloatTable<ArccosF>::select>, "Inverse cosine, elementwise.")),
    OpRegistrar(unary_def("arctan", rule_float, &with_complex_unary<CUnary::kArctan, &FloatTable<ArctanF>::select>, "Inverse tangent, elementwise.")),
    OpRegistrar(unary_def("sinh", rule_float, &with_complex_unary<CUnary::kSinh, &FloatTable<SinhF>::select>, "Hyperbolic sine, elementwise.")),
    OpRegistrar(unary_def("cosh", rule_float, &with_complex_unary<CUnary::kCosh, &FloatTable<CoshF>::select>, "Hyperbolic cosine, elementwise.")),
    OpRegistrar(unary_def("tanh", rule_float, &with_complex_unary<CUnary::kTanh, &FloatTable<TanhF>::select>, "Hyperbolic tangent, elementwise.")),
    OpRegistrar(unary_def("arcsinh", rule_float, &with_complex_unary<CUnary::kArcsinh, &FloatTable<ArcsinhF>::select>, "Inverse hyperbolic sine.")),
    OpRegistrar(unary_def("arccosh", rule_float, &with_complex_unary<CUnary::kArccosh, &FloatTable<ArccoshF>::select>, "Inverse hyperbolic cosine.")),
    OpRegistrar(unary_def("arctanh", rule_float, &with_complex_unary<CUnary::kArctanh, &FloatTable<ArctanhF>::select>, "Inverse hyperbolic tangent.")),
    OpRegistrar(unary_def("rint", rule_float, &with_complex_unary<CUnary::kRint, &FloatTable<RintF>::select>,
                          "Round to the nearest integer (halves to even), elementwise.")),
    OpRegistrar(unary_def("floor", rule_same, &UnaryTable<FloorF, false>::select,
                          "Largest integer <= x, elementwise (integers unchanged).")),
    OpRegistrar(unary_def("ceil", rule_same, &UnaryTable<CeilF, false>::select,
                          "Smallest integer >= x, elementwise (integers unchanged).")),
    OpRegistrar(unary_def("trunc", rule_same, &UnaryTable<TruncF, false>::select,
                          "x rounded toward zero, elementwise (integers unchanged).")),
    OpRegistrar(unary_def("sign", rule_sign, &with_complex_unary<CUnary::kSign, &sign_select>,
                          "-1, 0 or 1 by the sign of x (NaN stays NaN), elementwise.")),
    OpRegistrar(unary_def("square", rule_unary_bool_as_int8, &with_complex_unary<CUnary::kSquare, &UnaryTable<SquareF, false>::select>,
                          "x * x, elementwise.")),
    OpRegistrar(unary_def("reciprocal", rule_unary_bool_as_int8, &with_complex_unary<CUnary::kReciprocal, &UnaryTable<ReciprocalF, false>::select>,
                          "1 / x, elementwise (integer division for integers).")),
    OpRegistrar(unary_def("isnan", rule_to_bool, &with_complex_unary<CUnary::kIsnan, &UnaryTable<IsnanF, true>::select>, "x is NaN, elementwise.")),
    OpRegistrar(unary_def("isinf", rule_to_bool, &with_complex_unary<CUnary::kIsinf, &UnaryTable<IsinfF, true>::select>,
                          "x is +inf or -inf, elementwise.")),
    OpRegistrar(unary_def("isfinite", rule_to_bool, &with_complex_unary<CUnary::kIsfinite, &UnaryTable<IsfiniteF, true>::select>,
                          "x is neither infinite nor NaN, elementwise.")),
    OpRegistrar(unary_def("signbit", rule_to_bool, &UnaryTable<SignbitIntF, true>::select,
                          "The sign bit of x is set (x < 0, -0.0, -NaN), elementwise.")),
};

}  // namespace
}  // namespace asc::ops
