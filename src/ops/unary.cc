// Unary elementwise ops: negative, positive, abs, logical_not and the float
// math functions (exp, log, sqrt, sin, cos, tanh). float16/bfloat16 compute in
// float32; integer inputs of math functions compute in float_for(dtype).
#include <cmath>
#include <type_traits>

#include "ops/loops.h"

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

#define ASC_MATH_FUNCTOR(Name, fn, simd_op)   \
  struct Name {                               \
    static constexpr int kSimd = simd_op;     \
    template <typename C>                     \
    static C apply(C a) { return std::fn(a); } \
  };
ASC_MATH_FUNCTOR(ExpF, exp, static_cast<int>(simd::UnaryOp::kExp))
ASC_MATH_FUNCTOR(LogF, log, static_cast<int>(simd::UnaryOp::kLn))
ASC_MATH_FUNCTOR(SqrtF, sqrt, static_cast<int>(simd::UnaryOp::kSqrt))
ASC_MATH_FUNCTOR(SinF, sin, kNoSimd)
ASC_MATH_FUNCTOR(CosF, cos, kNoSimd)
ASC_MATH_FUNCTOR(TanhF, tanh, kNoSimd)
#undef ASC_MATH_FUNCTOR

template <typename F, bool kBoolOut>
struct UnaryTable {
  template <typename T>
  struct Make {
    static InnerLoop get() { return &unary_loop<T, std::conditional_t<kBoolOut, bool, T>, F>; }
  };
  static const LoopTable& table() {
    static LoopTable t = [] {
      LoopTable x{};
      TableBuilder<Make>::fill(x);
      return x;
    }();
    return t;
  }
  static InnerLoop select(const LoopTypes& lt) { return table()[static_cast<int>(lt.in[0])]; }
};

// Math functions have float loops only; the dtype rule casts integers first.
template <typename F>
struct FloatTable {
  template <typename T>
  static InnerLoop one() { return &unary_loop<T, T, F>; }
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

OpDef unary_def(const char* name, DTypeRule rule, LoopSelector sel) {
  OpDef d;
  d.name = name;
  d.arity = 1;
  d.fusion = FusionClass::kElementwise;
  d.dtype_rule = rule;
  d.cpu_loop = sel;
  return d;
}

const OpRegistrar kOps[] = {
    OpRegistrar(unary_def("negative", rule_negative, &UnaryTable<NegF, false>::select)),
    OpRegistrar(unary_def("positive", rule_positive, &UnaryTable<PosF, false>::select)),
    OpRegistrar(unary_def("absolute", rule_same, &UnaryTable<AbsF, false>::select)),
    OpRegistrar(unary_def("logical_not", rule_logical, &UnaryTable<NotF, true>::select)),
    OpRegistrar(unary_def("exp", rule_float, &FloatTable<ExpF>::select)),
    OpRegistrar(unary_def("log", rule_float, &FloatTable<LogF>::select)),
    OpRegistrar(unary_def("sqrt", rule_float, &FloatTable<SqrtF>::select)),
    OpRegistrar(unary_def("sin", rule_float, &FloatTable<SinF>::select)),
    OpRegistrar(unary_def("cos", rule_float, &FloatTable<CosF>::select)),
    OpRegistrar(unary_def("tanh", rule_float, &FloatTable<TanhF>::select)),
};

}  // namespace
}  // namespace asc::ops
