// LaneOp kernels (And/Or/Not, AddRelu/SubRelu, the multiply-add family,
// LeakyRelu, shifts, Axpy, Reciprocal/Rsqrt/Neg), Compare into bit masks and
// Select from bit masks, for every Highway target, and their entry points
// (include/asc/kernel/simd_lane.h).
//
// Same structure as elementwise.cc: one functor per operation, one loop
// template per operand shape, an IO policy per storage type (float16 as
// float32 lanes, rounded back once), and a per-target table.

#include <cstdint>
#include <cstring>
#include <string>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernel/simd/lane_ops.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "asc/core/status.h"
#include "kernel/simd/float16-inl.h"
#include "kernel/simd/lane_tables.h"
#include "kernel/simd/tables.h"

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---------------------------------------------------------------- functors
// operator()(d, a, b, dst): b is the second tensor or the broadcast scalar,
// dst the destination's old value (only for ops that read it).

template <class D, class V>
HWY_INLINE V Relu(D d, V x) {
  return hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x);  // NaN and -0 pass through
}

struct AndF {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b, V) const { return hn::And(a, b); }
};
struct OrF {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b, V) const { return hn::Or(a, b); }
};
struct AddReluF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b, V) const { return Relu(d, hn::Add(a, b)); }
};
struct SubReluF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b, V) const { return Relu(d, hn::Sub(a, b)); }
};
// Two roundings on purpose: hn::MulAdd is fused on AVX2/AVX3 but not on SSE4,
// and results must not depend on the target. The compiler would contract
// Mul + Add into an FMA on targets that have one (-ffp-contract=fast is GCC's
// default), so the product passes through an empty asm that it cannot see
// through.
template <class V>
HWY_INLINE V Rounded(V v) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  asm("" : "+v"(v.raw));
#endif
  return v;
}
struct MulAddDstF {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b, V dst) const { return hn::Add(Rounded(hn::Mul(a, b)), dst); }
};
struct FusedMulAddF {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V b, V dst) const { return hn::Add(Rounded(hn::Mul(a, dst)), b); }
};
struct FusedMulAddReluF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V b, V dst) const { return Relu(d, hn::Add(Rounded(hn::Mul(a, dst)), b)); }
};
struct LeakyReluF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V s, V) const {
    return hn::IfThenElse(hn::Lt(a, hn::Zero(d)), hn::Mul(a, s), a);
  }
};
struct AxpyF {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V s, V dst) const { return hn::Add(Rounded(hn::Mul(a, s)), dst); }
};
struct NotF {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V, V) const { return hn::Not(a); }
};
struct ReciprocalF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V, V) const { return hn::Div(hn::Set(d, 1.0f), a); }
};
struct RsqrtF {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V a, V, V) const { return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(a)); }
};
struct NegF {
  template <class D, class V>
  HWY_INLINE V operator()(D, V a, V, V) const { return hn::Neg(a); }
};

// ---------------------------------------------------------------- loops

enum BKind { kNoB = 0, kTensorB = 1, kScalarB = 2 };

// kB: what b is; kDst: the op reads dst. The remainder goes through
// zero-padded stack buffers so that nothing past n is read or written.
template <class IO, class Op, int kB, bool kDst>
void LaneLoop(void* dst, const void* a, const void* b, size_t n) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  const size_t N = hn::Lanes(d);
  const Op op;
  S* pd = static_cast<S*>(dst);
  const S* pa = static_cast<const S*>(a);
  const S* pb = static_cast<const S*>(b);
  auto vs = hn::Zero(d);
  if constexpr (kB == kScalarB) {
    S s;
    std::memcpy(&s, b, sizeof(S));
    vs = hn::Set(d, IO::ToCompute(s));
  }
  auto one = [&](const S* xa, const S* xb, S* xd) {
    const auto va = IO::Load(d, xa);
    auto vb = vs;
    if constexpr (kB == kTensorB) vb = IO::Load(d, xb);
    auto vd = hn::Zero(d);
    if constexpr (kDst) vd = IO::Load(d, xd);
    IO::Store(d, op(d, va, vb, vd), xd);
  };
  size_t i = 0;
  for (; i + N <= n; i += N) one(pa + i, kB == kTensorB ? pb + i : nullptr, pd + i);
  if (i < n) {
    const size_t r = n - i;
    S ta[kMaxLanes<C>] = {};
    S tb[kMaxLanes<C>] = {};
    S td[kMaxLanes<C>] = {};
    std::memcpy(ta, pa + i, r * sizeof(S));
    if constexpr (kB == kTensorB) std::memcpy(tb, pb + i, r * sizeof(S));
    if constexpr (kDst) std::memcpy(td, pd + i, r * sizeof(S));
    one(ta, tb, td);
    std::memcpy(pd + i, td, r * sizeof(S));
  }
}

// Shifts by a scalar: amounts outside [0, width) give 0 (left, logical right)
// or the sign (arithmetic right), instead of the CPU's modulo behaviour.
template <typename T, bool kLeft>
void ShiftLoop(void* dst, const void* a, const void* b, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  T s;
  std::memcpy(&s, b, sizeof(T));
  constexpr int kWidth = static_cast<int>(sizeof(T) * 8);
  const bool out_of_range = static_cast<int64_t>(s) < 0 || static_cast<int64_t>(s) >= kWidth;
  const int bits = out_of_range ? 0 : static_cast<int>(s);
  T* pd = static_cast<T*>(dst);
  const T* pa = static_cast<const T*>(a);
  auto apply = [&](hn::VFromD<decltype(d)> v) {
    if (out_of_range) {
      if constexpr (!kLeft && hwy::IsSigned<T>()) return hn::ShiftRightSame(v, kWidth - 1);
      return hn::Zero(d);
    }
    if constexpr (kLeft) {
      return hn::ShiftLeftSame(v, bits);
    } else {
      return hn::ShiftRightSame(v, bits);
    }
  };
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(apply(hn::LoadU(d, pa + i)), d, pd + i);
  if (i < n) {
    T ta[kMaxLanes<T>] = {};
    T td[kMaxLanes<T>];
    std::memcpy(ta, pa + i, (n - i) * sizeof(T));
    hn::StoreU(apply(hn::LoadU(d, ta)), d, td);
    std::memcpy(pd + i, td, (n - i) * sizeof(T));
  }
}

// ---------------------------------------------------------------- compare

template <int kMode, class D, class V>
HWY_INLINE auto CmpVec(D, V a, V b) {
  if constexpr (kMode == 0) return hn::Lt(a, b);
  if constexpr (kMode == 1) return hn::Gt(a, b);
  if constexpr (kMode == 2) return hn::Eq(a, b);
  // Highway 1.0.3 has Le/Ge for floats only; for integers they are !Gt / !Lt
  // (no NaN to worry about).
  if constexpr (kMode == 3) {
    if constexpr (hwy::IsFloat<hn::TFromD<D>>()) return hn::Le(a, b);
    else return hn::Not(hn::Gt(a, b));
  }
  if constexpr (kMode == 4) {
    if constexpr (hwy::IsFloat<hn::TFromD<D>>()) return hn::Ge(a, b);
    else return hn::Not(hn::Lt(a, b));
  }
  // NE is true for NaN (IEEE unordered); Highway's Ne is the ordered compare on AVX3.
  if constexpr (kMode == 5) return hn::Not(hn::Eq(a, b));
}

// Packs the comparison of each vector into a bit stream (vectors may have
// fewer than 8 lanes, so bits are accumulated in a word).
template <class IO, int kMode, bool kScalar>
void CmpLoop(uint8_t* bits, const void* a, const void* b, size_t n) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  const size_t N = hn::Lanes(d);
  static_assert(HWY_MAX_BYTES / sizeof(C) <= 56, "accumulator holds a vector's bits plus 7");
  const S* pa = static_cast<const S*>(a);
  const S* pb = static_cast<const S*>(b);
  auto vs = hn::Zero(d);
  if constexpr (kScalar) {
    S s;
    std::memcpy(&s, b, sizeof(S));
    vs = hn::Set(d, IO::ToCompute(s));
  }
  uint64_t acc = 0;
  size_t nacc = 0, out = 0;
  S ta[kMaxLanes<C>] = {};
  S tb[kMaxLanes<C>] = {};
  for (size_t i = 0; i < n; i += N) {
    const size_t valid = n - i < N ? n - i : N;
    const S* xa = pa + i;
    const S* xb = kScalar ? nullptr : pb + i;
    if (valid < N) {
      std::memcpy(ta, pa + i, valid * sizeof(S));
      xa = ta;
      if constexpr (!kScalar) {
        std::memcpy(tb, pb + i, valid * sizeof(S));
        xb = tb;
      }
    }
    const auto va = IO::Load(d, xa);
    auto vb = vs;
    if constexpr (!kScalar) vb = IO::Load(d, xb);
    uint8_t buf[8] = {};
    hn::StoreMaskBits(d, CmpVec<kMode>(d, va, vb), buf);
    uint64_t x;
    std::memcpy(&x, buf, 8);
    if (valid < 64) x &= (uint64_t{1} << valid) - 1;
    acc |= x << nacc;
    nacc += valid;
    while (nacc >= 8) {
      bits[out++] = static_cast<uint8_t>(acc);
      acc >>= 8;
      nacc -= 8;
    }
  }
  if (nacc > 0) bits[out] = static_cast<uint8_t>(acc);
}

// ---------------------------------------------------------------- select

// Bit patterns are selected as they are: float16 and float32 lanes need no
// conversion. Whole vectors when a vector's mask bits start on a byte.
template <typename T, bool kScalar>
void SelLoop(void* dst, const uint8_t* bits, const void* a, const void* b, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  T* pd = static_cast<T*>(dst);
  const T* pa = static_cast<const T*>(a);
  const T* pb = static_cast<const T*>(b);
  T s{};
  if constexpr (kScalar) std::memcpy(&s, b, sizeof(T));
  size_t i = 0;
  if (N % 8 == 0) {
    const auto vs = hn::Set(d, s);
    for (; i + N <= n; i += N) {
      const auto m = hn::LoadMaskBits(d, bits + i / 8);
      auto vb = vs;
      if constexpr (!kScalar) vb = hn::LoadU(d, pb + i);
      hn::StoreU(hn::IfThenElse(m, hn::LoadU(d, pa + i), vb), d, pd + i);
    }
  }
  for (; i < n; ++i) {
    const bool take_a = (bits[i / 8] >> (i % 8)) & 1u;
    pd[i] = take_a ? pa[i] : (kScalar ? s : pb[i]);
  }
}

// ---------------------------------------------------------------- tables

template <class IO, class Op, int kB, bool kDst>
void Set(LaneTable& t, LaneOp op, DType dt) {
  t.lane[static_cast<size_t>(op)][idx(dt)] = &LaneLoop<IO, Op, kB, kDst>;
}

template <class IO>
void AddCompare(LaneTable& t, DType dt) {
#define ASC_CMP(M)                                             \
  t.cmp[M][idx(dt)][0] = &CmpLoop<IO, M, false>;                \
  t.cmp[M][idx(dt)][1] = &CmpLoop<IO, M, true>;
  ASC_CMP(0) ASC_CMP(1) ASC_CMP(2) ASC_CMP(3) ASC_CMP(4) ASC_CMP(5)
#undef ASC_CMP
}

template <typename T>
void AddIntLanes(LaneTable& t, DType dt) {
  using IO = NativeIO<T>;
  Set<IO, AndF, kTensorB, false>(t, LaneOp::kAnd, dt);
  Set<IO, OrF, kTensorB, false>(t, LaneOp::kOr, dt);
  Set<IO, NotF, kNoB, false>(t, LaneOp::kNot, dt);
  t.lane[static_cast<size_t>(LaneOp::kShiftLeft)][idx(dt)] = &ShiftLoop<T, true>;
  t.lane[static_cast<size_t>(LaneOp::kShiftRight)][idx(dt)] = &ShiftLoop<T, false>;
  AddCompare<IO>(t, dt);
}

template <class IO>
void AddFloatLanes(LaneTable& t, DType dt) {
  Set<IO, AddReluF, kTensorB, false>(t, LaneOp::kAddRelu, dt);
  Set<IO, SubReluF, kTensorB, false>(t, LaneOp::kSubRelu, dt);
  Set<IO, MulAddDstF, kTensorB, true>(t, LaneOp::kMulAddDst, dt);
  Set<IO, FusedMulAddF, kTensorB, true>(t, LaneOp::kFusedMulAdd, dt);
  Set<IO, FusedMulAddReluF, kTensorB, true>(t, LaneOp::kFusedMulAddRelu, dt);
  Set<IO, LeakyReluF, kScalarB, false>(t, LaneOp::kLeakyRelu, dt);
  Set<IO, AxpyF, kScalarB, true>(t, LaneOp::kAxpy, dt);
  Set<IO, ReciprocalF, kNoB, false>(t, LaneOp::kReciprocal, dt);
  Set<IO, RsqrtF, kNoB, false>(t, LaneOp::kRsqrt, dt);
  Set<IO, NegF, kNoB, false>(t, LaneOp::kNeg, dt);
  AddCompare<IO>(t, dt);
}

LaneTable MakeLaneTable() {
  LaneTable t;
  AddFloatLanes<NativeIO<float>>(t, DType::kFloat32);
  AddFloatLanes<F16IO>(t, DType::kFloat16);
  AddIntLanes<int16_t>(t, DType::kInt16);
  AddIntLanes<uint16_t>(t, DType::kUInt16);
  AddIntLanes<int32_t>(t, DType::kInt32);
  AddIntLanes<uint32_t>(t, DType::kUInt32);
  Set<NativeIO<int16_t>, AddReluF, kTensorB, false>(t, LaneOp::kAddRelu, DType::kInt16);
  Set<NativeIO<int16_t>, SubReluF, kTensorB, false>(t, LaneOp::kSubRelu, DType::kInt16);
  Set<NativeIO<int16_t>, NegF, kNoB, false>(t, LaneOp::kNeg, DType::kInt16);
  Set<NativeIO<int32_t>, NegF, kNoB, false>(t, LaneOp::kNeg, DType::kInt32);
  t.sel[0][0] = &SelLoop<uint16_t, false>;
  t.sel[0][1] = &SelLoop<uint16_t, true>;
  t.sel[1][0] = &SelLoop<uint32_t, false>;
  t.sel[1][1] = &SelLoop<uint32_t, true>;
  return t;
}

const LaneTable* GetLaneTable() {
  static const LaneTable table = MakeLaneTable();
  return &table;
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::kernel::simd {

HWY_EXPORT(GetLaneTable);

const LaneTable& lane_table() {
  static const LaneTable* const t = (apply_target_override(), HWY_DYNAMIC_DISPATCH(GetLaneTable)());
  return *t;
}

const char* op_name(LaneOp op) noexcept {
  static const char* const kNames[] = {"And",        "Or",          "AddRelu", "SubRelu",   "MulAddDst",
                                       "FusedMulAdd", "FusedMulAddRelu", "LeakyRelu", "ShiftLeft", "ShiftRight",
                                       "Axpy",       "Not",         "Reciprocal", "Rsqrt",   "Neg"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumLaneOps, "one name per LaneOp");
  return static_cast<size_t>(op) < kNumLaneOps ? kNames[static_cast<size_t>(op)] : "LaneOp?";
}

bool lane_reads_b_tensor(LaneOp op) noexcept {
  return op <= LaneOp::kFusedMulAddRelu;
}
bool lane_has_scalar(LaneOp op) noexcept { return op >= LaneOp::kLeakyRelu && op <= LaneOp::kAxpy; }
bool lane_reads_dst(LaneOp op) noexcept {
  return op == LaneOp::kMulAddDst || op == LaneOp::kFusedMulAdd || op == LaneOp::kFusedMulAddRelu ||
         op == LaneOp::kAxpy;
}

LaneFn lane_fn(LaneOp op, DType dtype) {
  const size_t o = static_cast<size_t>(op);
  const LaneFn fn = o < kNumLaneOps && idx(dtype) < kDT ? lane_table().lane[o][idx(dtype)] : nullptr;
  if (HWY_UNLIKELY(!fn)) throw_unsupported(op_name(op), dtype);
  return fn;
}

void check_lane(LaneOp op, DType dtype) { (void)lane_fn(op, dtype); }

void lane(LaneOp op, DType dtype, void* dst, const void* a, const void* b, size_t n) {
  lane_fn(op, dtype)(dst, a, b, n);
}

const char* cmp_mode_name(CmpMode m) noexcept {
  static const char* const kNames[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
  return static_cast<size_t>(m) < kNumCmpModes ? kNames[static_cast<size_t>(m)] : "CMPMODE?";
}

CmpFn cmp_fn(CmpMode mode, DType dtype, bool b_scalar) {
  const size_t m = static_cast<size_t>(mode);
  if (m >= kNumCmpModes) {
    throw Error(ErrorCode::kInvalidParam, "[Compare] invalid CMPMODE " + std::to_string(m) + " (LT..NE are 0..5)");
  }
  const CmpFn fn = idx(dtype) < kDT ? lane_table().cmp[m][idx(dtype)][b_scalar ? 1 : 0] : nullptr;
  if (HWY_UNLIKELY(!fn)) throw_unsupported(b_scalar ? "CompareScalar" : "Compare", dtype);
  return fn;
}

SelFn sel_fn(DType dtype, bool b_scalar) {
  const size_t es = dtype_size(dtype);
  if (es != 2 && es != 4) throw_unsupported("Select", dtype);
  return lane_table().sel[es == 2 ? 0 : 1][b_scalar ? 1 : 0];
}

void check_compare(CmpMode mode, DType dtype, bool b_scalar) { (void)cmp_fn(mode, dtype, b_scalar); }

void compare(CmpMode mode, DType dtype, uint8_t* bits, const void* a, const void* b, size_t n, bool b_scalar) {
  const CmpFn fn = cmp_fn(mode, dtype, b_scalar);
  if (n) fn(bits, a, b, n);
}

void select(DType dtype, void* dst, const uint8_t* bits, const void* a, const void* b, size_t n, bool b_scalar) {
  const SelFn fn = sel_fn(dtype, b_scalar);
  if (n) fn(dst, bits, a, b, n);
}

}  // namespace asc::kernel::simd
#endif  // HWY_ONCE
