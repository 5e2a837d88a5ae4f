// Vector instructions, count form: Add/Sub/Mul/Div/Max/Min, Adds/Muls/Maxs/Mins,
// Exp/Ln/Abs/Relu/Sqrt, Duplicate, Cast, ReduceSum/ReduceMax/ReduceMin.
//
// Each template checks the count against the tensors (a count larger than a
// tensor is asc::Error(kIndexOutOfRange) naming kernel and block; a negative
// count is kInvalidParam; 0 does nothing) and calls the SIMD entry point in
// asc::kernel::simd (see asc/kernel/simd.h for dtypes and NaN rules).
//
// Dtypes: float and half for all arithmetic; int16_t / int32_t for
// Add/Sub/Mul/Max/Min, Adds/Muls/Maxs/Mins, Abs/Relu, and any 1/2/4/8-byte type
// for Duplicate. Cast between float, half, bfloat16_t, int32_t, int16_t,
// int8_t, uint8_t (not integer -> integer).
//
// Copy elision (asc/kernel/elide.h): the element-wise instructions and Cast are
// validated when issued and may run later (straight into GM when their result
// is copied out); a source that is a pending DataCopy from GM is read from GM.
// Duplicate and the reductions run at once (reductions read a pending source
// from GM as well).
//
// Thread-safety: none needed (per-block data).
#pragma once

#include <cstdint>
#include <cstring>

#include "asc/core/dtype.h"
#include "asc/kernel/checker.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/int4_ops.h"
#include "asc/kernel/simd.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace asc::kernel::detail {

template <typename T>
struct NonDeduced {
  using type = T;
};
template <typename T>
using non_deduced_t = typename NonDeduced<T>::type;

template <typename T>
inline void check_count(const char* op, int32_t count, const AscendC::LocalTensor<T>& t, const char* which) {
  if (static_cast<uint32_t>(count) > t.GetSize()) fail_size(op, which, static_cast<uint64_t>(count), t.GetSize());
  // The kernel checker: alignment and freed buffers of each operand.
  if (check::active()) check::local_operand(op, which, t.raw(), uint64_t(static_cast<uint32_t>(count)) * sizeof(T));
}
inline bool count_ok(const char* op, int32_t count) {
  if (count < 0) fail_negative_count(op, count);
  return count > 0;
}

template <typename T>
inline void binary(simd::BinaryOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                   const AscendC::LocalTensor<T>& b, int32_t count) {
  const char* name = simd::op_name(op);
  if (!count_ok(name, count)) return;
  check_count(name, count, dst, "elements of dst");
  check_count(name, count, a, "elements of src0");
  check_count(name, count, b, "elements of src1");
  if (elide::State* s = elide::active_state()) {
    elide::binary(*s, elide::pack_op(static_cast<uint32_t>(op), asc::dtype_of<T>()), dst.raw(), a.raw(), b.raw(),
                  static_cast<uint32_t>(count));
  } else {
    simd::binary(op, asc::dtype_of<T>(), dst.raw(), a.raw(), b.raw(), static_cast<size_t>(count));
  }
}

template <typename T>
inline void with_scalar(simd::ScalarOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                        T scalar, int32_t count) {
  const char* name = simd::op_name(op);
  if (!count_ok(name, count)) return;
  check_count(name, count, dst, "elements of dst");
  check_count(name, count, src, "elements of src");
  if (elide::State* s = elide::active_state()) {
    static_assert(sizeof(T) <= 8, "scalar bits");
    uint64_t bits = 0;
    std::memcpy(&bits, &scalar, sizeof(T));
    elide::binary_scalar(*s, elide::pack_op(static_cast<uint32_t>(op), asc::dtype_of<T>()), dst.raw(), src.raw(),
                         bits, static_cast<uint32_t>(count));
  } else {
    simd::binary_scalar(op, asc::dtype_of<T>(), dst.raw(), src.raw(), &scalar, static_cast<size_t>(count));
  }
}

template <typename T>
inline void unary(simd::UnaryOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                  int32_t count) {
  const char* name = simd::op_name(op);
  if (!count_ok(name, count)) return;
  check_count(name, count, dst, "elements of dst");
  check_count(name, count, src, "elements of src");
  if (elide::State* s = elide::active_state()) {
    elide::unary(*s, elide::pack_op(static_cast<uint32_t>(op), asc::dtype_of<T>()), dst.raw(), src.raw(),
                 static_cast<uint32_t>(count));
  } else {
    simd::unary(op, asc::dtype_of<T>(), dst.raw(), src.raw(), static_cast<size_t>(count));
  }
}

template <typename T>
inline void reduce(simd::ReduceOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                   int32_t count, bool with_index) {
  const char* name = simd::op_name(op);
  if (count < 0) fail_negative_count(name, count);
  check_count(name, with_index ? 2 : 1, dst, "elements of dst");
  check_count(name, count, src, "elements of src");
  const void* from = elide::read_ptr(src.raw(), uint64_t(static_cast<uint32_t>(count)) * sizeof(T));
  elide::access(dst.raw(), (with_index ? 2 : 1) * sizeof(T));
  simd::reduce(op, asc::dtype_of<T>(), dst.raw(), from, static_cast<size_t>(count), with_index);
}

}  // namespace asc::kernel::detail

namespace AscendC {

// ---------------------------------------------------------------- binary

#define ASC_KERNEL_BINARY_(NAME, OP)                                                                       \
  template <typename T, bool isSetMask = true>                                                            \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local,                        \
                   const LocalTensor<T>& src1Local, const int32_t& calCount) {                             \
    ::asc::kernel::detail::binary(::asc::kernel::simd::BinaryOp::OP, dstLocal, src0Local, src1Local, calCount); \
  }
/// dst[i] = src0[i] + src1[i] (and likewise below).
ASC_KERNEL_BINARY_(Add, kAdd)
ASC_KERNEL_BINARY_(Sub, kSub)
ASC_KERNEL_BINARY_(Mul, kMul)
ASC_KERNEL_BINARY_(Div, kDiv)
ASC_KERNEL_BINARY_(Max, kMax)
ASC_KERNEL_BINARY_(Min, kMin)
#undef ASC_KERNEL_BINARY_

// ---------------------------------------------------------------- with a scalar

#define ASC_KERNEL_SCALAR_(NAME, OP)                                                                   \
  template <typename T, bool isSetMask = true>                                                        \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                     \
                   const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, const int32_t& calCount) { \
    ::asc::kernel::detail::with_scalar(::asc::kernel::simd::ScalarOp::OP, dstLocal, srcLocal,          \
                                       static_cast<T>(scalarValue), calCount);                         \
  }
/// dst[i] = src[i] + scalar (and likewise below).
ASC_KERNEL_SCALAR_(Adds, kAdds)
ASC_KERNEL_SCALAR_(Muls, kMuls)
ASC_KERNEL_SCALAR_(Maxs, kMaxs)
ASC_KERNEL_SCALAR_(Mins, kMins)
#undef ASC_KERNEL_SCALAR_

// ---------------------------------------------------------------- unary

#define ASC_KERNEL_UNARY_(NAME, OP)                                                                        \
  template <typename T, bool isSetMask = true>                                                            \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t& calCount) { \
    ::asc::kernel::detail::unary(::asc::kernel::simd::UnaryOp::OP, dstLocal, srcLocal, calCount);          \
  }
ASC_KERNEL_UNARY_(Exp, kExp)
ASC_KERNEL_UNARY_(Ln, kLn)
ASC_KERNEL_UNARY_(Abs, kAbs)
ASC_KERNEL_UNARY_(Relu, kRelu)
ASC_KERNEL_UNARY_(Sqrt, kSqrt)
#undef ASC_KERNEL_UNARY_

// ---------------------------------------------------------------- Duplicate

/// dst[i] = scalarValue for i < calCount.
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dstLocal, const ::asc::kernel::detail::non_deduced_t<T>& scalarValue,
                      const int32_t& calCount) {
  if (!::asc::kernel::detail::count_ok("Duplicate", calCount)) return;
  ::asc::kernel::detail::check_count("Duplicate", calCount, dstLocal, "elements of dst");
  const T v = static_cast<T>(scalarValue);
  ::asc::kernel::elide::write(dstLocal.raw(), uint64_t(static_cast<uint32_t>(calCount)) * sizeof(T));
  ::asc::kernel::simd::duplicate(::asc::dtype_of<T>(), dstLocal.raw(), &v, static_cast<size_t>(calCount));
}

// ---------------------------------------------------------------- Cast

/// dst[i] = convert(src[i]) with `round_mode` (see asc::kernel::simd::cast).
template <typename T1, typename T2>
inline void Cast(const LocalTensor<T1>& dstLocal, const LocalTensor<T2>& srcLocal, const RoundMode& round_mode,
                 const uint32_t calCount) {
  if constexpr (::asc::kernel::is_int4_v<T1> || ::asc::kernel::is_int4_v<T2>) {
    ::asc::kernel::detail::cast_int4(dstLocal, srcLocal, round_mode, calCount);  // asc/kernel/int4_ops.h
  } else {
    const int32_t count = static_cast<int32_t>(calCount);
    if (!::asc::kernel::detail::count_ok("Cast", count)) return;
    ::asc::kernel::detail::check_count("Cast", count, dstLocal, "elements of dst");
    ::asc::kernel::detail::check_count("Cast", count, srcLocal, "elements of src");
    ::asc::kernel::elide::State* s = ::asc::kernel::elide::active_state();
    if (s && static_cast<uint32_t>(round_mode) <= 0xFF) {  // (an invalid mode is reported by simd::cast)
      ::asc::kernel::elide::cast(*s,
                                 ::asc::kernel::elide::pack_op(0, ::asc::dtype_of<T1>(), ::asc::dtype_of<T2>(),
                                                               static_cast<uint32_t>(round_mode)),
                                 dstLocal.raw(), srcLocal.raw(), calCount);
    } else {
      ::asc::kernel::simd::cast(::asc::dtype_of<T1>(), ::asc::dtype_of<T2>(), round_mode, dstLocal.raw(),
                                srcLocal.raw(), calCount);
    }
  }
}

// ---------------------------------------------------------------- reductions

/// dst[0] = sum of src[0 .. count). workLocal is not needed on the CPU device.
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal,
                      const int32_t count) {
  (void)workLocal;
  ::asc::kernel::detail::reduce(::asc::kernel::simd::ReduceOp::kSum, dstLocal, srcLocal, count, false);
}
/// dst[0] = max of src[0 .. count); with calIndex, dst[1] holds the index of
/// its first occurrence as the integer bits of a T (uint32_t for float,
/// uint16_t for half): read it with ReinterpretCast / reinterpret_cast.
template <typename T, bool isSetMask = true>
inline void ReduceMax(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal,
                      const int32_t count, bool calIndex = false) {
  (void)workLocal;
  ::asc::kernel::detail::reduce(::asc::kernel::simd::ReduceOp::kMax, dstLocal, srcLocal, count, calIndex);
}
/// As ReduceMax, for the minimum.
template <typename T, bool isSetMask = true>
inline void ReduceMin(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal,
                      const int32_t count, bool calIndex = false) {
  (void)workLocal;
  ::asc::kernel::detail::reduce(::asc::kernel::simd::ReduceOp::kMin, dstLocal, srcLocal, count, calIndex);
}

}  // namespace AscendC
