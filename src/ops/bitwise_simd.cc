// Highway code of src/ops/bitwise_simd.h (compiled once per target; see that
// header for the contracts). Each kernel is a vector functor applied over the
// whole vectors of a run and the scalar reference (bitwise_ref.h) over the
// tail, so both give the same results.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/bitwise_simd.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "kernel/simd/tables.h"
#include "ops/bitwise_ref.h"
#include "ops/bitwise_simd.h"

HWY_BEFORE_NAMESPACE();
namespace asc::ops::bitwise::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int kAnd = static_cast<int>(BinOp::kAnd);
constexpr int kOr = static_cast<int>(BinOp::kOr);
constexpr int kXor = static_cast<int>(BinOp::kXor);
constexpr int kLeft = static_cast<int>(BinOp::kLeftShift);
constexpr int kRight = static_cast<int>(BinOp::kRightShift);
constexpr int kVV = static_cast<int>(Form::kVecVec);
constexpr int kVS = static_cast<int>(Form::kVecScalar);

// ---------------------------------------------------------------- vector ops

/// a op b on full-width lanes (T of 16, 32 or 64 bits for shifts).
template <int kOp, class D, class V = hn::Vec<D>>
HWY_INLINE V ApplyVec(D d, V a, V b) {
  using T = hn::TFromD<D>;
  if constexpr (kOp == kAnd) {
    return hn::And(a, b);
  } else if constexpr (kOp == kOr) {
    return hn::Or(a, b);
  } else if constexpr (kOp == kXor) {
    return hn::Xor(a, b);
  } else {
    const hn::RebindToUnsigned<D> du;
    using TU = hn::TFromD<decltype(du)>;
    constexpr TU kBits = static_cast<TU>(sizeof(T) * 8);
    const auto cu = hn::BitCast(du, b);  // negative counts are huge: shifted out
    const auto in_range = cu < hn::Set(du, kBits);
    if constexpr (kOp == kLeft) {
      const auto s = hn::BitCast(du, a) << hn::And(cu, hn::Set(du, static_cast<TU>(kBits - 1)));
      return hn::BitCast(d, hn::IfThenElseZero(in_range, s));
    } else if constexpr (std::is_signed_v<T>) {
      // Counts past the width shift by width - 1: the sign fills every bit.
      const auto amount = hn::IfThenElse(in_range, cu, hn::Set(du, static_cast<TU>(kBits - 1)));
      return a >> hn::BitCast(d, amount);
    } else {
      const auto s = a >> hn::And(cu, hn::Set(du, static_cast<TU>(kBits - 1)));
      return hn::IfThenElseZero(in_range, s);
    }
  }
}

/// Loads n-lane vectors of T from p (kScalar: the one value at p broadcast).
template <bool kScalar, class D, typename T>
HWY_INLINE hn::Vec<D> LoadOperand(D d, const T* p, size_t i) {
  if constexpr (kScalar) {
    return hn::Set(d, *p);
  } else {
    return hn::LoadU(d, p + i);
  }
}

/// The scalar reference over the elements [i, n).
template <typename T, int kOp, int kForm>
HWY_INLINE void Tail(T* dst, const T* a, const T* b, size_t i, size_t n) {
  for (; i < n; ++i) {
    const T x = kForm == static_cast<int>(Form::kScalarVec) ? a[0] : a[i];
    const T y = kForm == kVS ? b[0] : b[i];
    dst[i] = ref::binary<T>(static_cast<BinOp>(kOp), x, y);
  }
}

/// and/or/xor of any width and shifts of 16/32/64-bit T.
template <typename T, int kOp, int kForm>
void BinaryRun(T* dst, const T* a, const T* b, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  if (n >= N) {
    for (; i + N <= n; i += N) {
      const auto va = LoadOperand<kForm == static_cast<int>(Form::kScalarVec)>(d, a, i);
      const auto vb = LoadOperand<kForm == kVS>(d, b, i);
      hn::StoreU(ApplyVec<kOp>(d, va, vb), d, dst + i);
    }
  }
  Tail<T, kOp, kForm>(dst, a, b, i, n);
}

/// Logical and/or/xor of bool bytes: any nonzero byte is true; stores 0/1.
template <int kOp, int kForm>
void BoolRun(uint8_t* dst, const uint8_t* a, const uint8_t* b, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t N = hn::Lanes(d);
  const auto one = hn::Set(d, uint8_t{1});
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto va = hn::Min(LoadOperand<kForm == static_cast<int>(Form::kScalarVec)>(d, a, i), one);
    const auto vb = hn::Min(LoadOperand<kForm == kVS>(d, b, i), one);
    hn::StoreU(ApplyVec<kOp>(d, va, vb), d, dst + i);
  }
  for (; i < n; ++i) {
    const uint8_t x = kForm == static_cast<int>(Form::kScalarVec) ? a[0] : a[i];
    const uint8_t y = kForm == kVS ? b[0] : b[i];
    dst[i] = ref::bool_binary(static_cast<BinOp>(kOp), x, y);
  }
}

/// Shifts of 8-bit T: lanes widened to 16 bits (sign- or zero-extended),
/// shifted with the counts compared as uint8, truncated back.
template <typename T, int kOp, int kForm>
void Shift8Run(T* dst, const T* a, const T* b, size_t n) {
  using W = std::conditional_t<std::is_signed_v<T>, int16_t, uint16_t>;
  const hn::ScalableTag<W> dw;
  const hn::RebindToUnsigned<decltype(dw)> duw;
  const hn::Rebind<T, decltype(dw)> d8;
  const hn::Rebind<uint8_t, decltype(dw)> du8;
  const size_t N = hn::Lanes(dw);
  const auto bits = hn::Set(duw, uint16_t{8});
  const auto seven = hn::Set(duw, uint16_t{7});
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto va = hn::PromoteTo(dw, LoadOperand<kForm == static_cast<int>(Form::kScalarVec)>(d8, a, i));
    const auto cu = hn::PromoteTo(duw, hn::BitCast(du8, LoadOperand<kForm == kVS>(d8, b, i)));
    const auto in_range = cu < bits;
    hn::Vec<decltype(duw)> r;
    if constexpr (kOp == kLeft) {
      r = hn::IfThenElseZero(in_range, hn::BitCast(duw, va) << hn::And(cu, seven));
    } else if constexpr (std::is_signed_v<T>) {
      r = hn::BitCast(duw, va >> hn::BitCast(dw, hn::IfThenElse(in_range, cu, seven)));
    } else {
      r = hn::IfThenElseZero(in_range, va >> hn::And(cu, seven));
    }
    hn::StoreU(hn::BitCast(d8, hn::TruncateTo(du8, r)), d8, dst + i);
  }
  Tail<T, kOp, kForm>(dst, a, b, i, n);
}

template <typename T, int kForm>
bool BinaryTyped(int op, void* dst, const void* a, const void* b, size_t n) {
  auto* o = static_cast<T*>(dst);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  using U = std::make_unsigned_t<T>;  // and/or/xor only depend on the width
  auto* ou = reinterpret_cast<U*>(o);
  const auto* xu = reinterpret_cast<const U*>(x);
  const auto* yu = reinterpret_cast<const U*>(y);
  switch (op) {
    case kAnd: BinaryRun<U, kAnd, kForm>(ou, xu, yu, n); return true;
    case kOr: BinaryRun<U, kOr, kForm>(ou, xu, yu, n); return true;
    case kXor: BinaryRun<U, kXor, kForm>(ou, xu, yu, n); return true;
    case kLeft:
      if constexpr (sizeof(T) == 1) Shift8Run<T, kLeft, kForm>(o, x, y, n);
      else BinaryRun<T, kLeft, kForm>(o, x, y, n);
      return true;
    case kRight:
      if constexpr (sizeof(T) == 1) Shift8Run<T, kRight, kForm>(o, x, y, n);
      else BinaryRun<T, kRight, kForm>(o, x, y, n);
      return true;
    default: return false;
  }
}

template <int kForm>
bool BinaryForm(int op, int dtype, void* dst, const void* a, const void* b, size_t n) {
  switch (static_cast<DType>(dtype)) {
    case DType::kBool: {
      auto* o = static_cast<uint8_t*>(dst);
      const auto* x = static_cast<const uint8_t*>(a);
      const auto* y = static_cast<const uint8_t*>(b);
      switch (op) {
        case kAnd: BoolRun<kAnd, kForm>(o, x, y, n); return true;
        case kOr: BoolRun<kOr, kForm>(o, x, y, n); return true;
        case kXor: BoolRun<kXor, kForm>(o, x, y, n); return true;
        default: return false;  // shifts of bool compute in int8 (the dtype rule)
      }
    }
    case DType::kInt8: return BinaryTyped<int8_t, kForm>(op, dst, a, b, n);
    case DType::kInt16: return BinaryTyped<int16_t, kForm>(op, dst, a, b, n);
    case DType::kInt32: return BinaryTyped<int32_t, kForm>(op, dst, a, b, n);
    case DType::kInt64: return BinaryTyped<int64_t, kForm>(op, dst, a, b, n);
    case DType::kUInt8: return BinaryTyped<uint8_t, kForm>(op, dst, a, b, n);
    case DType::kUInt16: return BinaryTyped<uint16_t, kForm>(op, dst, a, b, n);
    case DType::kUInt32: return BinaryTyped<uint32_t, kForm>(op, dst, a, b, n);
    case DType::kUInt64: return BinaryTyped<uint64_t, kForm>(op, dst, a, b, n);
    default: return false;
  }
}

bool Binary(int op, int dtype, int form, void* dst, const void* a, const void* b, size_t n) {
  switch (form) {
    case kVV: return BinaryForm<kVV>(op, dtype, dst, a, b, n);
    case kVS: return BinaryForm<kVS>(op, dtype, dst, a, b, n);
    default: return BinaryForm<static_cast<int>(Form::kScalarVec)>(op, dtype, dst, a, b, n);
  }
}

// ---------------------------------------------------------------- invert

template <typename U>
void InvertRun(U* dst, const U* src, size_t n) {
  const hn::ScalableTag<U> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Not(hn::LoadU(d, src + i)), d, dst + i);
  for (; i < n; ++i) dst[i] = static_cast<U>(~src[i]);
}

void InvertBool(uint8_t* dst, const uint8_t* src, size_t n) {
  const hn::ScalableTag<uint8_t> d;
  const size_t N = hn::Lanes(d);
  const auto one = hn::Set(d, uint8_t{1});
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Xor(hn::Min(hn::LoadU(d, src + i), one), one), d, dst + i);
  for (; i < n; ++i) dst[i] = src[i] == 0 ? 1 : 0;
}

bool Invert(int dtype, void* dst, const void* src, size_t n) {
  switch (static_cast<DType>(dtype)) {
    case DType::kBool: InvertBool(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n); return true;
    case DType::kInt8:
    case DType::kUInt8: InvertRun(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n); return true;
    case DType::kInt16:
    case DType::kUInt16: InvertRun(static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src), n); return true;
    case DType::kInt32:
    case DType::kUInt32: InvertRun(static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src), n); return true;
    case DType::kInt64:
    case DType::kUInt64: InvertRun(static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src), n); return true;
    default: return false;
  }
}

// ---------------------------------------------------------------- bitwise_count

template <typename T>
void CountRun(uint8_t* dst, const T* src, size_t n) {
  const hn::ScalableTag<T> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto v = hn::LoadU(d, src + i);
    if constexpr (std::is_signed_v<T>) {
      v = hn::IfThenElse(v < hn::Zero(d), hn::Sub(hn::Zero(d), v), v);  // |min| wraps to min: same bits
    }
    const auto c = hn::PopulationCount(hn::BitCast(du, v));
    if constexpr (sizeof(T) == 1) {
      hn::StoreU(c, d8, dst + i);
    } else {
      hn::StoreU(hn::TruncateTo(d8, c), d8, dst + i);
    }
  }
  for (; i < n; ++i) dst[i] = ref::count<T>(src[i]);
}

bool Count(int dtype, uint8_t* dst, const void* src, size_t n) {
  switch (static_cast<DType>(dtype)) {
    case DType::kInt8: CountRun(dst, static_cast<const int8_t*>(src), n); return true;
    case DType::kInt16: CountRun(dst, static_cast<const int16_t*>(src), n); return true;
    case DType::kInt32: CountRun(dst, static_cast<const int32_t*>(src), n); return true;
    case DType::kInt64: CountRun(dst, static_cast<const int64_t*>(src), n); return true;
    case DType::kUInt8: CountRun(dst, static_cast<const uint8_t*>(src), n); return true;
    case DType::kUInt16: CountRun(dst, static_cast<const uint16_t*>(src), n); return true;
    case DType::kUInt32: CountRun(dst, static_cast<const uint32_t*>(src), n); return true;
    case DType::kUInt64: CountRun(dst, static_cast<const uint64_t*>(src), n); return true;
    default: return false;
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace asc::ops::bitwise::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace asc::ops::bitwise {

HWY_EXPORT(Binary);
HWY_EXPORT(Invert);
HWY_EXPORT(Count);
HWY_EXPORT(TargetName);

namespace {
// Highway's per-function dispatch tables: one indirect call per run (a tile
// or sub-tile of the fused programs), so no table of our own.
inline void init() { kernel::simd::apply_target_override(); }
}  // namespace

bool binary(BinOp op, DType dtype, Form form, void* dst, const void* a, const void* b, size_t n) {
  init();
  return HWY_DYNAMIC_DISPATCH(Binary)(static_cast<int>(op), static_cast<int>(dtype), static_cast<int>(form), dst, a,
                                      b, n);
}
bool invert(DType dtype, void* dst, const void* src, size_t n) {
  init();
  return HWY_DYNAMIC_DISPATCH(Invert)(static_cast<int>(dtype), dst, src, n);
}
bool count(DType dtype, uint8_t* dst, const void* src, size_t n) {
  init();
  return HWY_DYNAMIC_DISPATCH(Count)(static_cast<int>(dtype), dst, src, n);
}
const char* target_name() {
  init();
  return HWY_DYNAMIC_DISPATCH(TargetName)();
}

}  // namespace asc::ops::bitwise
#endif  // HWY_ONCE
