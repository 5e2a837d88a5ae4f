// Compare, CompareScalar and Select (count and mask/repeat forms).
//
// * Compare(dst, src0, src1, CMPMODE, calCount): bit i of the byte stream dst
//   (bit i % 8 of byte i / 8) is src0[i] <cmp> src1[i]; ceil(calCount / 8)
//   bytes are written, unused high bits of the last byte as 0. dst is any
//   LocalTensor (normally uint8_t); its size in bytes is checked. NaN compares
//   false except with NE. CompareScalar compares with one scalar.
//   Dtypes: float, half, int16_t, uint16_t, int32_t, uint32_t.
// * Mask/repeat form (..., uint64_t mask / mask[2], repeatTimes,
//   BinaryRepeatParams / UnaryRepeatParams): the source strides apply; the bits
//   of repeat r go to dst bytes [r * lanes / 8, (r + 1) * lanes / 8) (the
//   destination strides are not used, as on the hardware); the bits of
//   unselected lanes keep their value.
// * Select(dst, selMask, src0, src1, SELMODE, calCount): dst[i] = bit i of
//   selMask ? src0[i] : src1[i]. VSEL_TENSOR_TENSOR_MODE reads one bit per
//   element; VSEL_CMPMASK_SPR uses the first repeat's bits (256 / sizeof(T)
//   bits) for every repeat; VSEL_TENSOR_SCALAR_MODE (the overload taking a
//   scalar src1) selects src0[i] or the scalar. Any 16- or 32-bit element type.
//   Mask/repeat form with BinaryRepeatParams: selection bits of repeat r start
//   at byte r * lanes / 8 (VSEL_CMPMASK_SPR: byte 0); unselected lanes of dst
//   are untouched.
//
// Errors: sizes (kIndexOutOfRange), dtypes (kInvalidDtype), a mode that does
// not match the overload (kInvalidParam). Copy elision: these run at once and
// make the bytes they touch real first.
//
// Thread-safety: none needed (per-block data).
#pragma once

#include <cstdint>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/simd_lane.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"
#include "asc/kernel/vector.h"
#include "asc/kernel/vector_mask.h"

namespace AscendC {

enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

}  // namespace AscendC

namespace asc::kernel::detail {

inline simd::CmpMode cmp_mode(AscendC::CMPMODE m) { return static_cast<simd::CmpMode>(m); }

template <typename U>
inline void check_bits_dst(const char* op, const AscendC::LocalTensor<U>& dst, uint64_t bytes) {
  const uint64_t have = uint64_t{dst.GetSize()} * sizeof(U);
  if (bytes > have) fail_size(op, "bytes of the mask dst", bytes, have);
}

template <typename T, typename U>
inline void compare_count(const char* op, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& a,
                          const AscendC::LocalTensor<T>* b, const T* scalar, AscendC::CMPMODE mode,
                          uint32_t count) {
  simd::check_compare(cmp_mode(mode), asc::dtype_of<T>(), b == nullptr);
  if (count == 0) return;
  const uint64_t bytes = (uint64_t{count} + 7) / 8;
  check_bits_dst(op, dst, bytes);
  check_count(op, static_cast<int32_t>(count), a, "elements of src0");
  if (b) check_count(op, static_cast<int32_t>(count), *b, "elements of src1");
  elide::read(a.raw(), uint64_t{count} * sizeof(T));
  if (b) elide::read(b->raw(), uint64_t{count} * sizeof(T));
  elide::write(dst.raw(), bytes);
  simd::compare(cmp_mode(mode), asc::dtype_of<T>(), reinterpret_cast<uint8_t*>(dst.raw()), a.raw(),
                b ? static_cast<const void*>(b->raw()) : scalar, count, b == nullptr);
}

template <typename T, typename U, class Params>
inline void compare_rep(const char* op, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& a,
                        const AscendC::LocalTensor<T>* b, const T* scalar, AscendC::CMPMODE mode, MaskArg m,
                        uint8_t repeat, const Params& p) {
  simd::check_compare(cmp_mode(mode), asc::dtype_of<T>(), b == nullptr);
  simd::RepeatLayout l = make_layout<T>(op, m, repeat);
  set_strides(l, p);
  const uint64_t bytes = uint64_t{repeat} * simd::repeat_lanes(sizeof(T)) / 8;
  check_bits_dst(op, dst, bytes);
  const uint64_t e1 = repeat_operand(op, l, 1, a, "bytes of src0 (mask/repeat extent)");
  const uint64_t e2 = b ? repeat_operand(op, l, 2, *b, "bytes of src1 (mask/repeat extent)") : 0;
  elide::read(a.raw(), e1);
  if (b) elide::read(b->raw(), e2);
  elide::access(dst.raw(), bytes);
  simd::compare_repeat(cmp_mode(mode), asc::dtype_of<T>(), reinterpret_cast<uint8_t*>(dst.raw()), a.raw(),
                       b ? static_cast<const void*>(b->raw()) : scalar, b == nullptr, l);
}

inline void check_sel_mode(AscendC::SELMODE mode, bool scalar) {
  const bool ok = scalar ? mode == AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE
                         : (mode == AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE ||
                            mode == AscendC::SELMODE::VSEL_CMPMASK_SPR);
  if (!ok) {
    fail(ErrorCode::kInvalidParam, "Select",
         std::string("SELMODE ") + std::to_string(static_cast<int>(mode)) +
             (scalar ? " with a scalar src1 (use VSEL_TENSOR_SCALAR_MODE)"
                     : " with a tensor src1 (use VSEL_TENSOR_TENSOR_MODE or VSEL_CMPMASK_SPR)"));
  }
}

template <typename T, typename U>
inline void select_count(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& sel,
                         const AscendC::LocalTensor<T>& a, const AscendC::LocalTensor<T>* b, const T* scalar,
                         AscendC::SELMODE mode, uint32_t count) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Select takes 16- or 32-bit elements");
  check_sel_mode(mode, b == nullptr);
  if (count == 0) return;
  const uint32_t lanes = simd::repeat_lanes(sizeof(T));
  const bool same = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
  const uint64_t bits_bytes = same ? lanes / 8 : (uint64_t{count} + 7) / 8;
  check_bits_dst("Select", sel, bits_bytes);
  check_count("Select", static_cast<int32_t>(count), dst, "elements of dst");
  check_count("Select", static_cast<int32_t>(count), a, "elements of src0");
  if (b) check_count("Select", static_cast<int32_t>(count), *b, "elements of src1");
  const uint64_t bytes = uint64_t{count} * sizeof(T);
  elide::read(sel.raw(), bits_bytes);
  elide::read(a.raw(), bytes);
  if (b) elide::read(b->raw(), bytes);
  elide::write(dst.raw(), bytes);
  const uint8_t* bits = reinterpret_cast<const uint8_t*>(sel.raw());
  const void* y = b ? static_cast<const void*>(b->raw()) : scalar;
  if (!same) {
    simd::select(asc::dtype_of<T>(), dst.raw(), bits, a.raw(), y, count, b == nullptr);
    return;
  }
  for (uint32_t i = 0; i < count; i += lanes) {
    const uint32_t n = count - i < lanes ? count - i : lanes;
    simd::select(asc::dtype_of<T>(), dst.raw() + i, bits, a.raw() + i, b ? static_cast<const void*>(b->raw() + i) : y,
                 n, b == nullptr);
  }
}

template <typename T, typename U>
inline void select_rep(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& sel,
                       const AscendC::LocalTensor<T>& a, const AscendC::LocalTensor<T>* b, const T* scalar,
                       AscendC::SELMODE mode, MaskArg m, uint8_t repeat, const AscendC::BinaryRepeatParams& p) {
  check_sel_mode(mode, b == nullptr);
  simd::RepeatLayout l = make_layout<T>("Select", m, repeat);
  set_strides(l, p);
  const uint32_t lanes = simd::repeat_lanes(sizeof(T));
  const bool same = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
  const uint64_t bits_bytes = same ? lanes / 8 : uint64_t{repeat} * lanes / 8;
  check_bits_dst("Select", sel, bits_bytes);
  const uint64_t e0 = repeat_operand("Select", l, 0, dst, "bytes of dst (mask/repeat extent)");
  const uint64_t e1 = repeat_operand("Select", l, 1, a, "bytes of src0 (mask/repeat extent)");
  const uint64_t e2 = b ? repeat_operand("Select", l, 2, *b, "bytes of src1 (mask/repeat extent)") : 0;
  elide::read(sel.raw(), bits_bytes);
  elide::read(a.raw(), e1);
  if (b) elide::read(b->raw(), e2);
  elide::access(dst.raw(), e0);
  simd::select_repeat(asc::dtype_of<T>(), dst.raw(), reinterpret_cast<const uint8_t*>(sel.raw()), a.raw(),
                      b ? static_cast<const void*>(b->raw()) : scalar, b == nullptr, same, l);
}

}  // namespace asc::kernel::detail

namespace AscendC {

// ---------------------------------------------------------------- Compare

template <typename T, typename U>
inline void Compare(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local,
                    CMPMODE cmpMode, uint32_t calCount) {
  ::asc::kernel::detail::compare_count("Compare", dstLocal, src0Local, &src1Local, static_cast<const T*>(nullptr),
                                       cmpMode, calCount);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local,
                    CMPMODE cmpMode, uint64_t mask[], uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {
  ::asc::kernel::detail::compare_rep("Compare", dstLocal, src0Local, &src1Local, static_cast<const T*>(nullptr),
                                     cmpMode, {mask, 0, !isSetMask}, repeatTimes, repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local,
                    CMPMODE cmpMode, uint64_t mask, uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {
  ::asc::kernel::detail::compare_rep("Compare", dstLocal, src0Local, &src1Local, static_cast<const T*>(nullptr),
                                     cmpMode, {nullptr, mask, !isSetMask}, repeatTimes, repeatParams);
}

template <typename T, typename U>
inline void CompareScalar(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local,
                          const ::asc::kernel::detail::non_deduced_t<T> src1Scalar, CMPMODE cmpMode,
                          uint32_t calCount) {
  const T s = static_cast<T>(src1Scalar);
  ::asc::kernel::detail::compare_count("CompareScalar", dstLocal, src0Local,
                                       static_cast<const LocalTensor<T>*>(nullptr), &s, cmpMode, calCount);
}
template <typename T, typename U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local,
                          const ::asc::kernel::detail::non_deduced_t<T> src1Scalar, CMPMODE cmpMode, uint64_t mask[],
                          uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
  const T s = static_cast<T>(src1Scalar);
  ::asc::kernel::detail::compare_rep("CompareScalar", dstLocal, src0Local,
                                     static_cast<const LocalTensor<T>*>(nullptr), &s, cmpMode, {mask, 0, !isSetMask},
                                     repeatTimes, repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dstLocal, const LocalTensor<T>& src0Local,
                          const ::asc::kernel::detail::non_deduced_t<T> src1Scalar, CMPMODE cmpMode, uint64_t mask,
                          uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
  const T s = static_cast<T>(src1Scalar);
  ::asc::kernel::detail::compare_rep("CompareScalar", dstLocal, src0Local,
                                     static_cast<const LocalTensor<T>*>(nullptr), &s, cmpMode, {nullptr, mask, !isSetMask},
                                     repeatTimes, repeatParams);
}

// ---------------------------------------------------------------- Select

template <typename T, typename U>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local,
                   const LocalTensor<T>& src1Local, SELMODE selMode, uint32_t calCount) {
  ::asc::kernel::detail::select_count(dstLocal, selMask, src0Local, &src1Local, static_cast<const T*>(nullptr),
                                      selMode, calCount);
}
template <typename T, typename U>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local,
                   ::asc::kernel::detail::non_deduced_t<T> src1Local, SELMODE selMode, uint32_t calCount) {
  const T s = static_cast<T>(src1Local);
  ::asc::kernel::detail::select_count(dstLocal, selMask, src0Local, static_cast<const LocalTensor<T>*>(nullptr), &s,
                                      selMode, calCount);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local,
                   const LocalTensor<T>& src1Local, SELMODE selMode, uint64_t mask[], uint8_t repeatTimes,
                   const BinaryRepeatParams& repeatParams) {
  ::asc::kernel::detail::select_rep(dstLocal, selMask, src0Local, &src1Local, static_cast<const T*>(nullptr), selMode,
                                    {mask, 0, !isSetMask}, repeatTimes, repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local,
                   const LocalTensor<T>& src1Local, SELMODE selMode, uint64_t mask, uint8_t repeatTimes,
                   const BinaryRepeatParams& repeatParams) {
  ::asc::kernel::detail::select_rep(dstLocal, selMask, src0Local, &src1Local, static_cast<const T*>(nullptr), selMode,
                                    {nullptr, mask, !isSetMask}, repeatTimes, repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local,
                   ::asc::kernel::detail::non_deduced_t<T> src1Local, SELMODE selMode, uint64_t mask[],
                   uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {
  const T s = static_cast<T>(src1Local);
  ::asc::kernel::detail::select_rep(dstLocal, selMask, src0Local, static_cast<const LocalTensor<T>*>(nullptr), &s,
                                    selMode, {mask, 0, !isSetMask}, repeatTimes, repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dstLocal, const LocalTensor<U>& selMask, const LocalTensor<T>& src0Local,
                   ::asc::kernel::detail::non_deduced_t<T> src1Local, SELMODE selMode, uint64_t mask,
                   uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {
  const T s = static_cast<T>(src1Local);
  ::asc::kernel::detail::select_rep(dstLocal, selMask, src0Local, static_cast<const LocalTensor<T>*>(nullptr), &s,
                                    selMode, {nullptr, mask, !isSetMask}, repeatTimes, repeatParams);
}

}  // namespace AscendC
