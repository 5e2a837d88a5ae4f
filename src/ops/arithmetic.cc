// Binary elementwise ops: arithmetic, maximum/minimum, comparisons, logical.
// NumPy semantics: integers wrap around; integer division by zero gives 0
// (NumPy warns, we do not); float floor_divide/remainder follow npy_divmod.
#include <cmath>
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

template <typename C>
constexpr bool is_int_v = std::is_integral_v<C> && !std::is_same_v<C, bool>;

/// Default reduction: fold apply() sequentially in the compute type.
template <typename F>
struct Fold {
  static constexpr bool kReduce = true;
  template <typename In>
  static Calc<In> reduce(Calc<In> acc, const char* p, int64_t stride, int64_t n) {
    for (int64_t i = 0; i < n; ++i, p += stride) acc = F::template apply<Calc<In>>(acc, static_cast<Calc<In>>(load<In>(p)));
    return acc;
  }
};

struct NoFold {
  static constexpr bool kReduce = false;
  template <typename In>
  static Calc<In> reduce(Calc<In> acc, const char*, int64_t, int64_t) { return acc; }
};

struct AddF {
  static constexpr int kSimd = static_cast<int>(simd::BinaryOp::kAdd);
  static constexpr bool kSimdInt = true;
  static constexpr bool kReduce = true;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_same_v<C, bool>) return a || b;
    else if constexpr (is_int_v<C>) return static_cast<C>(static_cast<Wide<C>>(a) + static_cast<Wide<C>>(b));
    else return a + b;
  }
  template <typename In>
  static Calc<In> reduce(Calc<In> acc, const char* p, int64_t stride, int64_t n) {
    if constexpr (std::is_same_v<In, float>) {
      if (stride == sizeof(float)) {
        float r = 0;
        simd::reduce(simd::ReduceOp::kSum, DType::kFloat32, &r, p, static_cast<size_t>(n));
        return acc + r;
      }
    }
    if constexpr (is_float_v<In>) {
      double s = 0;  // wider than NumPy's pairwise float sum; never less accurate
      for (int64_t i = 0; i < n; ++i, p += stride) s += static_cast<double>(static_cast<Calc<In>>(load<In>(p)));
      return static_cast<Calc<In>>(static_cast<double>(acc) + s);
    } else {
      return Fold<AddF>::template reduce<In>(acc, p, stride, n);
    }
  }
};

struct SubF : NoFold {
  static constexpr int kSimd = static_cast<int>(simd::BinaryOp::kSub);
  static constexpr bool kSimdInt = true;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_same_v<C, bool>) return a != b;  // unreachable: the dtype rule rejects bool
    else if constexpr (is_int_v<C>) return static_cast<C>(static_cast<Wide<C>>(a) - static_cast<Wide<C>>(b));
    else return a - b;
  }
};

struct MulF : Fold<MulF> {
  static constexpr int kSimd = static_cast<int>(simd::BinaryOp::kMul);
  static constexpr bool kSimdInt = true;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_same_v<C, bool>) return a && b;
    else if constexpr (is_int_v<C>) return static_cast<C>(static_cast<Wide<C>>(a) * static_cast<Wide<C>>(b));
    else return a * b;
  }
};

struct DivF : NoFold {
  static constexpr int kSimd = static_cast<int>(simd::BinaryOp::kDiv);
  static constexpr bool kSimdInt = false;
  template <typename C>
  static C apply(C a, C b) { return a / b; }  // floats only (rule_float)
};

/// npy_divmod: floor division and the matching modulus for floats.
template <typename C>
C float_divmod(C a, C b, C* mod_out) {
  C mod = std::fmod(a, b);
  if (b == 0) {
    *mod_out = mod;
    return a / b;
  }
  C div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= C(1);
    }
  } else {
    mod = std::copysign(C(0), b);
  }
  C floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > C(0.5)) floordiv += C(1);
  } else {
    floordiv = std::copysign(C(0), a / b);
  }
  *mod_out = mod;
  return floordiv;
}

struct FloorDivF : NoFold {
  static constexpr int kSimd = kNoSimd;
  static constexpr bool kSimdInt = false;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
      if (b == 0) return a / b;
      C mod;
      return float_divmod(a, b, &mod);
    } else {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return static_cast<C>(Wide<C>(0) - static_cast<Wide<C>>(a));
        C q = static_cast<C>(a / b);
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
        return q;
      } else {
        return static_cast<C>(a / b);
      }
    }
  }
};

struct RemainderF : NoFold {
  static constexpr int kSimd = kNoSimd;
  static constexpr bool kSimdInt = false;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
      if (b == 0) return std::fmod(a, b);
      C mod;
      float_divmod(a, b, &mod);
      return mod;
    } else {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return 0;
        C r = static_cast<C>(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
        return r;
      } else {
        return static_cast<C>(a % b);
      }
    }
  }
};

/// max/min reductions: the NaN-propagating SIMD ReduceMax/ReduceMin for
/// contiguous float32/float16 runs, else a sequential fold.
template <typename F, simd::ReduceOp kOp>
struct ExtremumFold {
  static constexpr bool kReduce = true;
  template <typename In>
  static Calc<In> reduce(Calc<In> acc, const char* p, int64_t stride, int64_t n) {
    if constexpr (std::is_same_v<In, float> || std::is_same_v<In, float16>) {
      if (stride == sizeof(In) && n > 0) {
        In r;
        simd::reduce(kOp, dtype_of<In>(), &r, p, static_cast<size_t>(n));
        return F::template apply<Calc<In>>(acc, static_cast<Calc<In>>(r));
      }
    }
    return Fold<F>::template reduce<In>(acc, p, stride, n);
  }
};

// maximum/minimum propagate NaN (the first NaN operand wins). Equal operands
// (+0 vs -0) give what NumPy 2.4's loops give in every form (contiguous,
// strided, scalar operand): the second operand for float32, float64 and
// bfloat16, the first for float16 (its loop is `(a >= b || isnan(a)) ? a : b`).
// kFirstOnTie selects the float16 rule (select_tie below); the contiguous
// SIMD loops (kernel/simd/elementwise.cc ExtremumOp) follow the same rule.
template <bool kFirstOnTie>
struct MaxT : ExtremumFold<MaxT<kFirstOnTie>, simd::ReduceOp::kMax> {
  static constexpr int kSimd = static_cast<int>(simd::BinaryOp::kMax);
  static constexpr bool kSimdInt = true;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) return ((kFirstOnTie ? a >= b : a > b) || std::isnan(a)) ? a : b;
    else return a >= b ? a : b;
  }
};

template <bool kFirstOnTie>
struct MinT : ExtremumFold<MinT<kFirstOnTie>, simd::ReduceOp::kMin> {
  static constexpr int kSimd = static_cast<int>(simd::BinaryOp::kMin);
  static constexpr bool kSimdInt = true;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) return ((kFirstOnTie ? a <= b : a < b) || std::isnan(a)) ? a : b;
    else return a <= b ? a : b;
  }
};

/// NumPy power: integers by repeated squaring (wrapping), a negative integer
/// exponent is an error; floats use std::pow (float16/bfloat16 in float32).
struct PowF : NoFold {
  static constexpr int kSimd = kNoSimd;
  static constexpr bool kSimdInt = false;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>) {
      return std::pow(a, b);
    } else if constexpr (std::is_same_v<C, bool>) {
      return a || !b;  // unreachable: the dtype rule computes bool in int8
    } else {
      if constexpr (std::is_signed_v<C>) {
        if (b < 0) throw Error(Status::Invalid("power", "Integers to negative integer powers are not allowed."));
      }
      using W = Wide<C>;
      W r = 1, base = static_cast<W>(a);
      for (auto e = static_cast<std::make_unsigned_t<C>>(b); e; e >>= 1) {
        if (e & 1) r = static_cast<W>(r * base);
        base = static_cast<W>(base * base);
      }
      return static_cast<C>(r);
    }
  }
};

#define ASC_FLOAT_BINARY(Name, expr)             \
  struct Name : NoFold {                         \
    static constexpr int kSimd = kNoSimd;        \
    static constexpr bool kSimdInt = false;      \
    template <typename C>                        \
    static C apply(C a, C b) { return expr; }    \
  };

ASC_FLOAT_BINARY(CopysignF, std::copysign(a, b))
#undef ASC_FLOAT_BINARY

// fmax/fmin: NaN is ignored unless both are NaN; integers as maximum/minimum.
// +0 vs -0 ties as maximum/minimum (NumPy's float16 and bfloat16 loops and its
// strided float32/float64 loops do so; its contiguous float32/float64 fmax
// calls libm or SIMD code whose ±0 choice varies with length and alignment).
template <bool kFirstOnTie>
struct FmaxT : NoFold {
  static constexpr int kSimd = kNoSimd;
  static constexpr bool kSimdInt = false;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>)
      return std::isnan(b) ? a : std::isnan(a) ? b : ((kFirstOnTie ? a >= b : a > b) ? a : b);
    else return a >= b ? a : b;
  }
};
template <bool kFirstOnTie>
struct FminT : NoFold {
  static constexpr int kSimd = kNoSimd;
  static constexpr bool kSimdInt = false;
  template <typename C>
  static C apply(C a, C b) {
    if constexpr (std::is_floating_point_v<C>)
      return std::isnan(b) ? a : std::isnan(a) ? b : ((kFirstOnTie ? a <= b : a < b) ? a : b);
    else return a <= b ? a : b;
  }
};

#define ASC_CMP_FUNCTOR(Name, expr)                     \
  struct Name : NoFold {                                \
    static constexpr int kSimd = kNoSimd;               \
    static constexpr bool kSimdInt = false;             \
    template <typename C>                               \
    static bool apply(C a, C b) { return expr; }        \
  };
ASC_CMP_FUNCTOR(EqF, a == b)
ASC_CMP_FUNCTOR(NeF, a != b)
ASC_CMP_FUNCTOR(LtF, a < b)
ASC_CMP_FUNCTOR(LeF, a <= b)
ASC_CMP_FUNCTOR(GtF, a > b)
ASC_CMP_FUNCTOR(GeF, a >= b)
ASC_CMP_FUNCTOR(AndF, a && b)
ASC_CMP_FUNCTOR(OrF, a || b)
ASC_CMP_FUNCTOR(XorF, a != b)
#undef ASC_CMP_FUNCTOR

// ------------------------------------------------------------------ tables

template <typename F, bool kBoolOut>
struct BinaryTable {
  template <typename T>
  struct Make {
    static InnerLoop get() { return &binary_loop<T, std::conditional_t<kBoolOut, bool, T>, F>; }
  };
  static const LoopTable& table() { return TableBuilder<Make>::cached(); }
  static InnerLoop select(const LoopTypes& lt) { return table()[static_cast<int>(lt.in[0])]; }
};

// maximum/minimum/fmax/fmin: float16 loops keep the first operand on a ±0 tie,
// every other dtype the second (see MaxT).
template <template <bool> class F>
InnerLoop select_tie(const LoopTypes& lt) {
  return lt.in[0] == DType::kFloat16 ? BinaryTable<F<true>, false>::select(lt) : BinaryTable<F<false>, false>::select(lt);
}

// Float-only loops (true_divide): integer entries stay empty.
template <typename F>
InnerLoop select_float(const LoopTypes& lt) {
  return is_floating(lt.in[0]) ? BinaryTable<F, false>::select(lt) : nullptr;
}

Status rule_no_bool(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_promote(op, in, attrs, t));
  if (t->out == DType::kBool)
    return Status::TypeError(op.name, "numpy boolean subtract, the `-` operator, is not supported, use the "
                                      "bitwise_xor, the `^` operator, or the logical_xor function instead.");
  return Status::OK();
}

// floor_divide/remainder of bools compute in int8, as NumPy's loops do.
Status rule_bool_as_int8(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_promote(op, in, attrs, t));
  if (t->out == DType::kBool) t->in[0] = t->in[1] = t->out = DType::kInt8;
  return Status::OK();
}

// Float-only binary functions (arctan2, hypot, copysign): integers compute in float_for.
Status rule_float_fn(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
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

// Float powers use the SIMD math kernels; integer powers keep the exact loop.
InnerLoop select_power(const LoopTypes& lt) {
  if (is_floating(lt.in[0])) return select_math_binary<simd::MathBinaryOp::kPow>(lt);
  return BinaryTable<PowF, false>::select(lt);
}

OpDef binary_def(const char* name, DTypeRule rule, LoopSelector sel, const char* doc = "") {
  return elementwise_op(name, 2, rule, sel, doc);
}

const OpRegistrar kOps[] = {
    OpRegistrar(binary_def("add", rule_promote, &with_complex_binary<CBinary::kAdd, &BinaryTable<AddF, false>::select>, "x1 + x2, elementwise.")),
    OpRegistrar(binary_def("subtract", rule_no_bool, &with_complex_binary<CBinary::kSub, &BinaryTable<SubF, false>::select>, "x1 - x2, elementwise.")),
    OpRegistrar(binary_def("multiply", rule_promote, &with_complex_binary<CBinary::kMul, &BinaryTable<MulF, false>::select>, "x1 * x2, elementwise.")),
    OpRegistrar(binary_def("true_divide", rule_float, &with_complex_binary<CBinary::kDiv, &select_float<DivF>>, "x1 / x2, elementwise (float result).")),
    OpRegistrar(binary_def("floor_divide", rule_bool_as_int8, &BinaryTable<FloorDivF, false>::select,
                           "x1 // x2, elementwise (rounds toward -inf; integer division by 0 gives 0).")),
    OpRegistrar(binary_def("remainder", rule_bool_as_int8, &BinaryTable<RemainderF, false>::select,
                           "x1 % x2, elementwise, with the sign of x2 (Python's modulus).")),
    OpRegistrar([] {
      OpDef d = binary_def("power", rule_bool_as_int8, &with_complex_binary<CBinary::kPow, &select_power>,
                           "x1 ** x2, elementwise (negative integer powers of integers are an error).");
      d.value_errors = true;  // the lazy graph runs integer powers eagerly: the error raises at the call
      return d;
    }()),
    OpRegistrar(binary_def("maximum", rule_promote, &with_complex_binary<CBinary::kMax, &select_tie<MaxT>>,
                           "Elementwise maximum; NaN propagates.")),
    OpRegistrar(binary_def("minimum", rule_promote, &with_complex_binary<CBinary::kMin, &select_tie<MinT>>,
                           "Elementwise minimum; NaN propagates.")),
    OpRegistrar(binary_def("fmax", rule_promote, &with_complex_binary<CBinary::kFmax, &select_tie<FmaxT>>,
                           "Elementwise maximum ignoring NaN (NaN only when both are NaN).")),
    OpRegistrar(binary_def("fmin", rule_promote, &with_complex_binary<CBinary::kFmin, &select_tie<FminT>>,
                           "Elementwise minimum ignoring NaN (NaN only when both are NaN).")),
    OpRegistrar(binary_def("arctan2", rule_float_fn, &select_math_binary<simd::MathBinaryOp::kArctan2>,
                           "Elementwise arc tangent of x1/x2 choosing the quadrant (radians).")),
    OpRegistrar(binary_def("hypot", rule_float_fn, &select_math_binary<simd::MathBinaryOp::kHypot>, "sqrt(x1**2 + x2**2), elementwise.")),
    OpRegistrar(binary_def("copysign", rule_float_fn, &select_float<CopysignF>,
                           "x1 with the sign of x2, elementwise.")),
    OpRegistrar(binary_def("equal", rule_compare, &with_complex_binary<CBinary::kEq, &BinaryTable<EqF, true>::select>, "x1 == x2, elementwise.")),
    OpRegistrar(binary_def("not_equal", rule_compare, &with_complex_binary<CBinary::kNe, &BinaryTable<NeF, true>::select>, "x1 != x2, elementwise.")),
    OpRegistrar(binary_def("less", rule_compare, &with_complex_binary<CBinary::kLt, &BinaryTable<LtF, true>::select>, "x1 < x2, elementwise.")),
    OpRegistrar(binary_def("less_equal", rule_compare, &with_complex_binary<CBinary::kLe, &BinaryTable<LeF, true>::select>, "x1 <= x2, elementwise.")),
    OpRegistrar(binary_def("greater", rule_compare, &with_complex_binary<CBinary::kGt, &BinaryTable<GtF, true>::select>, "x1 > x2, elementwise.")),
    OpRegistrar(binary_def("greater_equal", rule_compare, &with_complex_binary<CBinary::kGe, &BinaryTable<GeF, true>::select>,
                           "x1 >= x2, elementwise.")),
    OpRegistrar(binary_def("logical_and", rule_logical, &BinaryTable<AndF, true>::select,
                           "Truth value of x1 AND x2, elementwise.")),
    OpRegistrar(binary_def("logical_or", rule_logical, &BinaryTable<OrF, true>::select,
                           "Truth value of x1 OR x2, elementwise.")),
    OpRegistrar(binary_def("logical_xor", rule_logical, &BinaryTable<XorF, true>::select,
                           "Truth value of x1 XOR x2, elementwise.")),
};

}  // namespace
}  // namespace asc::ops
