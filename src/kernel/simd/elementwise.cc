// Element-wise vector instructions (binary, with-scalar, unary, fill) for every
// Highway target, and their entry points (include/asc/kernel/simd.h).
//
// Each operation is a small functor over vectors; a loop template per arity
// applies it over n elements of a storage type through an IO policy (float16
// is loaded as float32 lanes and rounded back on store). The per-target table
// maps (op, dtype) to a loop instantiation; the op lists below are the only
// place that says which dtypes an op supports.

#include <algorithm>
#include <cstdint>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel/simd/elementwise.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/contrib/math/math-inl.h>
#include <hwy/highway.h>

#include "kernel/simd/float16-inl.h"
#include "kernel/simd/tables.h"

// Defined once, outside the per-target namespaces (this file is compiled once
// per Highway target).
#ifndef ASC_KERNEL_SIMD_SCALAR_OPERAND_TABLE
#define ASC_KERNEL_SIMD_SCALAR_OPERAND_TABLE
namespace asc::kernel::simd {
/// Loops of binary_scalar_operand() (declared in src/ops/loops.h).
struct ScalarOperandTable {
  ScalarFn fn[2][kNumBinaryOps][kDT] = {};  // [scalar_left][op][dtype]
};
}  // namespace asc::kernel::simd
#endif

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---------------------------------------------------------------- functors

template <class D>
constexpr bool kIsFloat = hwy::IsFloat<hn::TFromD<D>>();

// Max/Min return NaN when either operand is NaN (x86 max/min would return the
// second operand).
template <class D, class V>
HWY_INLINE V PropagateNaN(D, V a, V b, V r) {
  if constexpr (kIsFloat<D>) {
    r = hn::IfThenElse(hn::IsNaN(b), b, r);
    r = hn::IfThenElse(hn::IsNaN(a), a, r);
  } else {
    (void)a;
    (void)b;
  }
  return r;
}

struct AddOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Add(a, b); }
};
struct SubOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Sub(a, b); }
};
struct MulOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Mul(a, b); }
};
struct DivOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const { return hn::Div(a, b); }
};
struct MaxOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const { return PropagateNaN(d, a, b, hn::Max(a, b)); }
};
struct MinOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b) const { return PropagateNaN(d, a, b, hn::Min(a, b)); }
};

struct ExpOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    // Highway's Exp is accurate on [-FLT_MAX, 104]; pin the ends and NaN.
    V r = hn::Exp(d, x);
    r = hn::IfThenElse(hn::Gt(x, hn::Set(d, 88.72283935546875f)), hn::Inf(d), r);
    r = hn::IfThenElse(hn::Lt(x, hn::Set(d, -104.0f)), hn::Zero(d), r);
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
};
struct LnOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    // Highway's Log is accurate on (0, FLT_MAX]; IEEE results elsewhere.
    V r = hn::Log(d, x);
    r = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(hn::Inf(d)), r);
    r = hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::NaN(d), r);
    r = hn::IfThenElse(hn::Eq(x, hn::Inf(d)), x, r);
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
};
struct AbsOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const { return hn::Abs(x); }
};
struct ReluOp {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    // x < 0 is false for NaN and -0, which pass through unchanged.
    return hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x);
  }
};
struct SqrtOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const { return hn::Sqrt(x); }
};

// ---------------------------------------------------------------- loops
// Two vectors per iteration, then single vectors, then the remainder through a
// zero-padded stack buffer so that no access goes past the caller's n.

template <class IO, class Op>
void ScalarLoop(void* dst, const void* src, const void* scalar, size_t n) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  const size_t N = hn::Lanes(d);
  const Op op;
  S s;
  std::memcpy(&s, scalar, sizeof(S));
  const auto vs = hn::Set(d, IO::ToCompute(s));
  S* pd = static_cast<S*>(dst);
  const S* pa = static_cast<const S*>(src);
  size_t i = 0;
  if (n >= 2 * N) {
    for (; i <= n - 2 * N; i += 2 * N) {
      const auto a0 = IO::Load(d, pa + i);
      const auto a1 = IO::Load(d, pa + i + N);
      IO::Store(d, op(d, a0, vs), pd + i);
      IO::Store(d, op(d, a1, vs), pd + i + N);
    }
  }
  for (; i + N <= n; i += N) IO::Store(d, op(d, IO::Load(d, pa + i), vs), pd + i);
  if (i < n) {
    const size_t r = n - i;
    S ta[kMaxLanes<C>] = {};
    S td[kMaxLanes<C>];
    std::memcpy(ta, pa + i, r * sizeof(S));
    IO::Store(d, op(d, IO::Load(d, ta), vs), td);
    std::memcpy(pd + i, td, r * sizeof(S));
  }
}

template <typename T>
void FillLoop(void* dst, const void* scalar, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  T s;
  std::memcpy(&s, scalar, sizeof(T));
  const auto v = hn::Set(d, s);
  T* pd = static_cast<T*>(dst);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(v, d, pd + i);
  for (; i < n; ++i) std::memcpy(pd + i, &s, sizeof(T));
}

// Copies with non-temporal stores: the destination's unaligned head and tail
// with ordinary stores, whole aligned vectors with Stream.
void StreamCopy(void* dst, const void* src, size_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  const size_t N = hn::Lanes(d);
  uint8_t* pd = static_cast<uint8_t*>(dst);
  const uint8_t* ps = static_cast<const uint8_t*>(src);
  const size_t head = std::min(bytes, (N - reinterpret_cast<uintptr_t>(pd) % N) % N);
  std::memcpy(pd, ps, head);
  size_t i = head;
  for (; i + N <= bytes; i += N) hn::Stream(hn::LoadU(d, ps + i), d, pd + i);
  std::memcpy(pd + i, ps + i, bytes - i);
}

// ---------------------------------------------------------------- scalar operand
// dst[i] = op(src[i], s) or op(s, src[i]) for the array-op-scalar branches of
// the ops layer's binary loops (src/ops/loops.h). Unlike ScalarLoop above,
// these keep the operand order (Sub/Div, NaN payloads) and give NumPy's
// results bit for bit, also for Max/Min of +0/-0 on every Highway target.

// NumPy's maximum/minimum: a NaN operand wins (the first if both); equal
// operands (+0 vs -0) give the second for float32 (its SIMD loops) and the
// first for float16 (its scalar loop `(a >= b || isnan(a)) ? a : b`).
template <bool kMax, bool kFirstOnTie>
struct ExtremumOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b) const {
    if constexpr (kIsFloat<D>) {
      const auto keep_a = kMax ? (kFirstOnTie ? hn::Ge(a, b) : hn::Gt(a, b))
                               : (kFirstOnTie ? hn::Le(a, b) : hn::Lt(a, b));
      V r = hn::IfThenElse(keep_a, a, b);
      r = hn::IfThenElse(hn::IsNaN(b), b, r);
      return hn::IfThenElse(hn::IsNaN(a), a, r);
    } else {
      return kMax ? hn::IfThenElse(hn::Lt(a, b), b, a) : hn::IfThenElse(hn::Lt(b, a), b, a);
    }
  }
};

/// Op with the broadcast scalar as its first operand.
template <class Op>
struct ScalarFirst {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V s) const { return Op()(d, s, a); }
};

template <class IO, class Op>
void SetScalarOperand(ScalarOperandTable& t, BinaryOp op, DType dt) {
  t.fn[0][idx(op)][idx(dt)] = &ScalarLoop<IO, Op>;
  t.fn[1][idx(op)][idx(dt)] = &ScalarLoop<IO, ScalarFirst<Op>>;
}

template <class IO, bool kFloat, bool kFirstOnTie = false>
void AddScalarOperandOps(ScalarOperandTable& t, DType dt) {
  SetScalarOperand<IO, AddOp>(t, BinaryOp::kAdd, dt);
  SetScalarOperand<IO, SubOp>(t, BinaryOp::kSub, dt);
  SetScalarOperand<IO, MulOp>(t, BinaryOp::kMul, dt);
  if constexpr (kFloat) SetScalarOperand<IO, DivOp>(t, BinaryOp::kDiv, dt);
  SetScalarOperand<IO, ExtremumOp<true, kFirstOnTie>>(t, BinaryOp::kMax, dt);
  SetScalarOperand<IO, ExtremumOp<false, kFirstOnTie>>(t, BinaryOp::kMin, dt);
}

const ScalarOperandTable* GetScalarOperandTable() {
  static const ScalarOperandTable table = [] {
    ScalarOperandTable t;
    AddScalarOperandOps<NativeIO<float>, true>(t, DType::kFloat32);
    AddScalarOperandOps<F16IO, true, true>(t, DType::kFloat16);
    AddScalarOperandOps<NativeIO<int16_t>, false>(t, DType::kInt16);
    AddScalarOperandOps<NativeIO<int32_t>, false>(t, DType::kInt32);
    return t;
  }();
  return &table;
}

// ---------------------------------------------------------------- tables
// Which ops exist for which dtype family. Adding an op: one X(...) line here.

#define ASC_FLOAT_BINARY_OPS(X) X(kAdd, AddOp) X(kSub, SubOp) X(kMul, MulOp) X(kDiv, DivOp)
#define ASC_INT_BINARY_OPS(X) X(kAdd, AddOp) X(kSub, SubOp) X(kMul, MulOp) X(kMax, MaxOp) X(kMin, MinOp)
#define ASC_SCALAR_OPS(X) X(kAdds, AddOp) X(kMuls, MulOp) X(kMaxs, MaxOp) X(kMins, MinOp)
#define ASC_FLOAT_UNARY_OPS(X) X(kExp, ExpOp) X(kLn, LnOp) X(kAbs, AbsOp) X(kRelu, ReluOp) X(kSqrt, SqrtOp)
#define ASC_INT_UNARY_OPS(X) X(kAbs, AbsOp) X(kRelu, ReluOp)

// Float Max/Min take NumPy's ±0 tie rule (ExtremumOp: second operand, first
// for float16) rather than hn::Max/Min, whose choice is the target's.
template <class IO, bool kFirstOnTie = false>
void AddFloatOps(ElementwiseTable& t, DType dt) {
#define ASC_X(OP, F) t.binary[idx(BinaryOp::OP)][idx(dt)] = &BinaryLoop<IO, F>;
  ASC_FLOAT_BINARY_OPS(ASC_X)
#undef ASC_X
  t.binary[idx(BinaryOp::kMax)][idx(dt)] = &BinaryLoop<IO, ExtremumOp<true, kFirstOnTie>>;
  t.binary[idx(BinaryOp::kMin)][idx(dt)] = &BinaryLoop<IO, ExtremumOp<false, kFirstOnTie>>;
#define ASC_X(OP, F) t.scalar[idx(ScalarOp::OP)][idx(dt)] = &ScalarLoop<IO, F>;
  ASC_SCALAR_OPS(ASC_X)
#undef ASC_X
#define ASC_X(OP, F) t.unary[idx(UnaryOp::OP)][idx(dt)] = &UnaryLoop<IO, F>;
  ASC_FLOAT_UNARY_OPS(ASC_X)
#undef ASC_X
}

template <class IO>
void AddIntOps(ElementwiseTable& t, DType dt) {
#define ASC_X(OP, F) t.binary[idx(BinaryOp::OP)][idx(dt)] = &BinaryLoop<IO, F>;
  ASC_INT_BINARY_OPS(ASC_X)
#undef ASC_X
#define ASC_X(OP, F) t.scalar[idx(ScalarOp::OP)][idx(dt)] = &ScalarLoop<IO, F>;
  ASC_SCALAR_OPS(ASC_X)
#undef ASC_X
#define ASC_X(OP, F) t.unary[idx(UnaryOp::OP)][idx(dt)] = &UnaryLoop<IO, F>;
  ASC_INT_UNARY_OPS(ASC_X)
#undef ASC_X
}

ElementwiseTable MakeElementwiseTable() {
  ElementwiseTable t;
  AddFloatOps<NativeIO<float>>(t, DType::kFloat32);
  AddFloatOps<F16IO, true>(t, DType::kFloat16);
  AddIntOps<NativeIO<int16_t>>(t, DType::kInt16);
  AddIntOps<NativeIO<int32_t>>(t, DType::kInt32);
  t.fill[0] = &FillLoop<uint8_t>;
  t.fill[1] = &FillLoop<uint16_t>;
  t.fill[2] = &FillLoop<uint32_t>;
  t.fill[3] = &FillLoop<uint64_t>;
  t.stream_copy = &StreamCopy;
  t.target = hwy::TargetName(HWY_TARGET);
  return t;
}

const ElementwiseTable* GetElementwiseTable() {
  static const ElementwiseTable table = MakeElementwiseTable();
  return &table;
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::kernel::simd {

HWY_EXPORT(GetElementwiseTable);
HWY_EXPORT(GetScalarOperandTable);

namespace {
// Chosen once (first use); every call afterwards is a load and an indirect call.
const ElementwiseTable& table() {
  static const ElementwiseTable* const t = (apply_target_override(), HWY_DYNAMIC_DISPATCH(GetElementwiseTable)());
  return *t;
}
}  // namespace

const ElementwiseTable& elementwise_table() { return table(); }

BinaryFn binary_fn(BinaryOp op, DType dtype) {
  const BinaryFn fn = idx(op) < kNumBinaryOps ? table().binary[idx(op)][idx(dtype)] : nullptr;
  if (HWY_UNLIKELY(!fn)) throw_unsupported(op_name(op), dtype);
  return fn;
}

ScalarFn scalar_fn(ScalarOp op, DType dtype) {
  const ScalarFn fn = idx(op) < kNumScalarOps ? table().scalar[idx(op)][idx(dtype)] : nullptr;
  if (HWY_UNLIKELY(!fn)) throw_unsupported(op_name(op), dtype);
  return fn;
}

UnaryFn unary_fn(UnaryOp op, DType dtype) {
  const UnaryFn fn = idx(op) < kNumUnaryOps ? table().unary[idx(op)][idx(dtype)] : nullptr;
  if (HWY_UNLIKELY(!fn)) throw_unsupported(op_name(op), dtype);
  return fn;
}

void binary(BinaryOp op, DType dtype, void* dst, const void* a, const void* b, size_t n) {
  binary_fn(op, dtype)(dst, a, b, n);
}

void binary_scalar(ScalarOp op, DType dtype, void* dst, const void* src, const void* scalar, size_t n) {
  scalar_fn(op, dtype)(dst, src, scalar, n);
}

bool binary_scalar_operand(BinaryOp op, DType dtype, void* dst, const void* src, const void* scalar,
                           bool scalar_left, size_t n) {
  static const ScalarOperandTable* const t =
      (apply_target_override(), HWY_DYNAMIC_DISPATCH(GetScalarOperandTable)());
  if (HWY_UNLIKELY(idx(op) >= kNumBinaryOps || idx(dtype) >= kDT)) return false;
  const ScalarFn fn = t->fn[scalar_left ? 1 : 0][idx(op)][idx(dtype)];
  if (!fn) return false;
  fn(dst, src, scalar, n);
  return true;
}

void unary(UnaryOp op, DType dtype, void* dst, const void* src, size_t n) {
  unary_fn(op, dtype)(dst, src, n);
}

void duplicate(DType dtype, void* dst, const void* scalar, size_t n) {
  FillFn fn = nullptr;
  switch (dtype_size(dtype)) {
    case 1: fn = table().fill[0]; break;
    case 2: fn = table().fill[1]; break;
    case 4: fn = table().fill[2]; break;
    case 8: fn = table().fill[3]; break;
    default: break;
  }
  if (HWY_UNLIKELY(!fn)) throw_unsupported("Duplicate", dtype);
  fn(dst, scalar, n);
}

void stream_copy(void* dst, const void* src, size_t bytes) { table().stream_copy(dst, src, bytes); }

void stream_fence() { hwy::FlushStream(); }

const char* target_name() noexcept { return table().target; }

}  // namespace asc::kernel::simd
#endif  // HWY_ONCE
