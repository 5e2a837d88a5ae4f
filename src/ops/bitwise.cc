// Bitwise elementwise ops: bitwise_and/or/xor, left_shift/right_shift, invert
// and bitwise_count, with NumPy 2.4's loops and type rules:
//
// * and/or/xor/invert take bool (logical, bool result) and every integer
//   dtype; shifts and bitwise_count compute bool in int8 (NumPy's first
//   loop bool casts to safely); bitwise_count returns uint8.
// * Float and complex operands -- also int64 with uint64, which promotes to
//   float64 -- are TypeErrors with NumPy's message.
// * Shift counts at or past the width, and negative counts, shift every bit
//   out (left 0; right -1 for negative signed values, else 0).
//
// Contiguous runs (and runs with one operand a single value) go to the
// Highway kernels of bitwise_simd.cc; other strides use the scalar
// definitions of bitwise_ref.h. The fused tile programs call these loops
// like every other elementwise op.
#include <cstring>
#include <string>
#include <type_traits>

#include "ops/bitwise_ref.h"
#include "ops/bitwise_simd.h"
#include "ops/loops.h"

namespace asc::ops {
namespace {

using namespace detail;
using bitwise::BinOp;
using bitwise::Form;

/// Storage type of a loop element (bool bytes are read as uint8).
template <typename T>
using Store = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

template <typename T, BinOp kOp>
void binary_bitwise_loop(char** p, const int64_t* s, int64_t n) {
  constexpr int64_t w = sizeof(T);
  if (s[0] == w) {
    const bool b_scalar = s[2] == 0, a_scalar = s[1] == 0;
    if (s[1] == w && (s[2] == w || b_scalar)) {
      if (bitwise::binary(kOp, dtype_of<T>(), b_scalar ? Form::kVecScalar : Form::kVecVec, p[0], p[1], p[2],
                          static_cast<size_t>(n)))
        return;
    } else if (a_scalar && s[2] == w) {
      if (bitwise::binary(kOp, dtype_of<T>(), Form::kScalarVec, p[0], p[1], p[2], static_cast<size_t>(n))) return;
    }
  }
  // Any strides (also the reduction form: ptrs[0] == ptrs[1] with stride 0
  // folds sequentially, each step reading the value the previous one stored).
  using S = Store<T>;
  char* o = p[0];
  const char* a = p[1];
  const char* b = p[2];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1], b += s[2]) {
    const S x = load<S>(a), y = load<S>(b);
    if constexpr (std::is_same_v<T, bool>) store<S>(o, bitwise::ref::bool_binary(kOp, x, y));
    else store<S>(o, bitwise::ref::binary<S>(kOp, x, y));
  }
}

template <typename T>
void invert_loop(char** p, const int64_t* s, int64_t n) {
  if (s[0] == sizeof(T) && s[1] == sizeof(T) && bitwise::invert(dtype_of<T>(), p[0], p[1], static_cast<size_t>(n)))
    return;
  using S = Store<T>;
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) {
    const S x = load<S>(a);
    if constexpr (std::is_same_v<T, bool>) store<S>(o, x == 0 ? 1 : 0);
    else store<S>(o, static_cast<S>(~x));
  }
}

template <typename T>
void count_loop(char** p, const int64_t* s, int64_t n) {
  if (s[0] == 1 && s[1] == sizeof(T) &&
      bitwise::count(dtype_of<T>(), reinterpret_cast<uint8_t*>(p[0]), p[1], static_cast<size_t>(n)))
    return;
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) store<uint8_t>(o, bitwise::ref::count<T>(load<T>(a)));
}

/// The loop of `Loop<T>` for an integer dtype (and bool with `with_bool`).
template <template <typename> class Loop, bool kWithBool>
InnerLoop by_dtype(DType d) {
  switch (d) {
    case DType::kBool:
      if constexpr (kWithBool) return &Loop<bool>::run;
      return nullptr;
    case DType::kInt8: return &Loop<int8_t>::run;
    case DType::kInt16: return &Loop<int16_t>::run;
    case DType::kInt32: return &Loop<int32_t>::run;
    case DType::kInt64: return &Loop<int64_t>::run;
    case DType::kUInt8: return &Loop<uint8_t>::run;
    case DType::kUInt16: return &Loop<uint16_t>::run;
    case DType::kUInt32: return &Loop<uint32_t>::run;
    case DType::kUInt64: return &Loop<uint64_t>::run;
    default: return nullptr;
  }
}

template <BinOp kOp>
struct BinaryLoops {
  template <typename T>
  struct L {
    static void run(char** p, const int64_t* s, int64_t n) { binary_bitwise_loop<T, kOp>(p, s, n); }
  };
  static InnerLoop select(const LoopTypes& lt) {
    constexpr bool kLogic = kOp == BinOp::kAnd || kOp == BinOp::kOr || kOp == BinOp::kXor;
    return by_dtype<L, kLogic>(lt.in[0]);
  }
};

template <typename T>
struct InvertL {
  static void run(char** p, const int64_t* s, int64_t n) { invert_loop<T>(p, s, n); }
};
template <typename T>
struct CountL {
  static void run(char** p, const int64_t* s, int64_t n) { count_loop<T>(p, s, n); }
};
InnerLoop select_invert(const LoopTypes& lt) { return by_dtype<InvertL, true>(lt.in[0]); }
InnerLoop select_count(const LoopTypes& lt) { return by_dtype<CountL, false>(lt.in[0]); }

// ------------------------------------------------------------------ dtype rules

bool bitwise_dtype(DType d) { return d == DType::kBool || is_integer(d); }

/// NumPy's message when no loop takes the operands (float, complex, or
/// int64 with uint64, whose common dtype float64 has no bitwise loop).
Status unsupported(const OpDef& op, const DType* in) {
  return Status::TypeError(op.name, "ufunc '" + op.name +
                                        "' not supported for the input types, and the inputs could not be safely "
                                        "coerced to any supported types according to the casting rule ''safe'' "
                                        "(operand dtypes " + dtypes_str(in, op.arity) + ")");
}

// and/or/xor and invert: the promoted dtype itself (bool stays bool).
Status rule_bitwise(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  for (int i = 0; i < op.arity; ++i)
    if (!bitwise_dtype(in[i])) return unsupported(op, in);
  ASC_RETURN_IF_ERROR(rule_promote(op, in, attrs, t));
  if (!bitwise_dtype(t->out)) return unsupported(op, in);
  return Status::OK();
}

// Shifts and bitwise_count have no bool loop: bool computes in int8.
Status rule_bitwise_int(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_bitwise(op, in, attrs, t));
  if (t->out == DType::kBool) {
    for (int i = 0; i < op.arity; ++i) t->in[i] = DType::kInt8;
    t->out = DType::kInt8;
  }
  return Status::OK();
}

Status rule_count(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_bitwise_int(op, in, attrs, t));
  t->out = DType::kUInt8;
  return Status::OK();
}

const OpRegistrar kOps[] = {
    OpRegistrar(elementwise_op("bitwise_and", 2, rule_bitwise, &BinaryLoops<BinOp::kAnd>::select,
                               "x1 & x2: bitwise AND of integers, logical AND of bools, elementwise.")),
    OpRegistrar(elementwise_op("bitwise_or", 2, rule_bitwise, &BinaryLoops<BinOp::kOr>::select,
                               "x1 | x2: bitwise OR of integers, logical OR of bools, elementwise.")),
    OpRegistrar(elementwise_op("bitwise_xor", 2, rule_bitwise, &BinaryLoops<BinOp::kXor>::select,
                               "x1 ^ x2: bitwise XOR of integers, logical XOR of bools, elementwise.")),
    OpRegistrar(elementwise_op("left_shift", 2, rule_bitwise_int, &BinaryLoops<BinOp::kLeftShift>::select,
                               "x1 << x2: the bits of x1 shifted left by x2, elementwise (bools compute in int8; "
                               "counts >= the bit width or negative give 0).")),
    OpRegistrar(elementwise_op("right_shift", 2, rule_bitwise_int, &BinaryLoops<BinOp::kRightShift>::select,
                               "x1 >> x2: the bits of x1 shifted right by x2 (arithmetic for signed types), "
                               "elementwise (counts >= the bit width or negative give -1 for negative x1, else 0).")),
    OpRegistrar(elementwise_op("invert", 1, rule_bitwise, &select_invert,
                               "~x: bitwise NOT of integers, logical NOT of bools, elementwise.")),
    OpRegistrar(elementwise_op("bitwise_count", 1, rule_count, &select_count,
                               "The number of 1-bits in the absolute value of x, elementwise (uint8 result).")),
};

}  // namespace
}  // namespace asc::ops
