// Reductions with masks and repeats: WholeReduceSum/Max/Min, BlockReduceSum/
// Max/Min, and the mask/repeat form of ReduceSum/ReduceMax/ReduceMin.
//
// * WholeReduceSum(dst, src, mask, repeatTimes, dstRepStride, srcBlkStride,
//   srcRepStride): one result per repeat over its selected lanes, written to
//   dst[r * dstRepStride] (dstRepStride counts dst elements).
// * WholeReduceMax/Min(..., ReduceOrder order = ORDER_VALUE_INDEX): value and
//   index (lane within the repeat, first occurrence; the first NaN wins) per
//   repeat. ORDER_VALUE_INDEX / ORDER_INDEX_VALUE write a pair at
//   dst[2 * r * dstRepStride] (the index as the unsigned integer bits of T:
//   uint16_t for half, uint32_t for float); ORDER_ONLY_VALUE writes the value
//   at dst[r * dstRepStride]; ORDER_ONLY_INDEX a uint32_t index at byte
//   4 * r * dstRepStride.
// * BlockReduceSum/Max/Min(dst, src, repeat, mask, dstRepStride, srcBlkStride,
//   srcRepStride): one result per 32-byte block of each repeat: the 8 results
//   of repeat r at dst[8 * r * dstRepStride + k]. A block without selected
//   lanes gives 0 (Sum), -Inf (Max) or +Inf (Min).
// * ReduceSum/Max/Min(dst, src, workLocal, mask, repeatTimes, srcRepStride
//   [, calIndex]): one result over every selected lane of every repeat into
//   dst[0]; with calIndex, dst[1] holds the element offset (from src) of the
//   first occurrence, as integer bits like ReduceMax's count form.
// * PairReduceSum(dst, src, repeatTimes, mask, dstRepStride, srcBlkStride,
//   srcRepStride): each repeat's L lanes (64 float / 128 half) give L / 2 sums
//   of adjacent lanes 2p + 2p+1, written to dst[r * dstRepStride * L / 2 + p]
//   (dstRepStride counts one repeat's results). Unselected lanes add nothing;
//   a pair without selected lanes gives +0. Each sum is one correctly rounded
//   addition in T (half: added in float32 and rounded once, which is exact).
// Sums (other than PairReduceSum's) accumulate in double, are rounded to float32 and then to T. Dtypes:
// float and half. Src strides count 32-byte blocks; masks as in
// vector_mask.h. Errors: extents beyond a tensor (kIndexOutOfRange), a mask
// count above the lanes of a repeat (kInvalidParam), dtypes (kInvalidDtype).
// Copy elision: these run at once, reading real bytes.
//
// Thread-safety: none needed (per-block data).
#pragma once

#include <cstdint>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/simd.h"
#include "asc/kernel/simd_lane.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"
#include "asc/kernel/vector_mask.h"

namespace asc::kernel::simd {

/// AscendC::ReduceOrder's values.
enum class ReduceOrderValue : int { kValueIndex = 0, kIndexValue, kOnlyValue, kOnlyIndex };
/// Non-template cores (src/kernel/reduce_ext.cc); the source layout is operand 1
/// of `l`; sizes are checked by the templates.
void whole_reduce(ReduceOp op, DType dtype, void* dst, const void* src, const RepeatLayout& l,
                  uint32_t dst_rep_stride, ReduceOrderValue order);
void block_reduce(ReduceOp op, DType dtype, void* dst, const void* src, const RepeatLayout& l,
                  uint32_t dst_rep_stride);
void reduce_repeat(ReduceOp op, DType dtype, void* dst, const void* src, const RepeatLayout& l, bool with_index);
/// PairReduceSum core (src/kernel/simd/repeat.cc): repeat r's L / 2 pair sums
/// at dst + r * dst_rep_stride * (L / 2) elements.
void pair_reduce_sum(DType dtype, void* dst, const void* src, const RepeatLayout& l, uint32_t dst_rep_stride);

}  // namespace asc::kernel::simd

namespace AscendC {

enum class ReduceOrder : int { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

}  // namespace AscendC

namespace asc::kernel::detail {

template <typename T>
inline simd::RepeatLayout reduce_layout(const char* op, MaskArg m, int32_t repeat, int32_t src_blk, int32_t src_rep) {
  if (repeat < 0 || repeat > 255 || src_blk < 0 || src_rep < 0) {
    fail(ErrorCode::kInvalidParam, op,
         "repeatTimes " + std::to_string(repeat) + " (0..255), srcBlkStride " + std::to_string(src_blk) +
             " and srcRepStride " + std::to_string(src_rep) + " must not be negative");
  }
  simd::RepeatLayout l = make_layout<T>(op, m, static_cast<uint8_t>(repeat));
  l.blk[1] = static_cast<uint32_t>(src_blk);
  l.rep[1] = static_cast<uint32_t>(src_rep);
  return l;
}

template <typename T>
inline void check_dst_elems(const char* op, const AscendC::LocalTensor<T>& dst, uint64_t bytes) {
  const uint64_t have = uint64_t{dst.GetSize()} * sizeof(T);
  if (bytes > have) fail_size(op, "bytes of dst", bytes, have);
}

template <typename T>
inline void whole_reduce(simd::ReduceOp op, const char* name, const AscendC::LocalTensor<T>& dst,
                         const AscendC::LocalTensor<T>& src, MaskArg m, int32_t repeat, int32_t dst_rep,
                         int32_t src_blk, int32_t src_rep, AscendC::ReduceOrder order) {
  simd::RepeatLayout l = reduce_layout<T>(name, m, repeat, src_blk, src_rep);
  if (dst_rep < 0) fail(ErrorCode::kInvalidParam, name, "dstRepStride " + std::to_string(dst_rep) + " is negative");
  if (repeat == 0) return;
  const uint64_t last = uint64_t(repeat - 1) * uint64_t(dst_rep);
  uint64_t dst_bytes = (last + 1) * sizeof(T);
  if (op != simd::ReduceOp::kSum) {
    if (order == AscendC::ReduceOrder::ORDER_VALUE_INDEX || order == AscendC::ReduceOrder::ORDER_INDEX_VALUE) {
      dst_bytes = (2 * last + 2) * sizeof(T);
    } else if (order == AscendC::ReduceOrder::ORDER_ONLY_INDEX) {
      dst_bytes = (last + 1) * 4;
    }
  }
  check_dst_elems(name, dst, dst_bytes);
  const uint64_t e1 = repeat_operand(name, l, 1, src, "bytes of src (mask/repeat extent)");
  elide::read(src.raw(), e1);
  elide::access(dst.raw(), dst_bytes);
  simd::whole_reduce(op, asc::dtype_of<T>(), dst.raw(), src.raw(), l, static_cast<uint32_t>(dst_rep),
                     static_cast<simd::ReduceOrderValue>(order));
}

template <typename T>
inline void block_reduce(simd::ReduceOp op, const char* name, const AscendC::LocalTensor<T>& dst,
                         const AscendC::LocalTensor<T>& src, int32_t repeat, MaskArg m, int32_t dst_rep,
                         int32_t src_blk, int32_t src_rep) {
  simd::RepeatLayout l = reduce_layout<T>(name, m, repeat, src_blk, src_rep);
  if (dst_rep < 0) fail(ErrorCode::kInvalidParam, name, "dstRepStride " + std::to_string(dst_rep) + " is negative");
  if (repeat == 0) return;
  const uint64_t dst_bytes = (uint64_t(repeat - 1) * uint64_t(dst_rep) * 8 + 8) * sizeof(T);
  check_dst_elems(name, dst, dst_bytes);
  const uint64_t e1 = repeat_operand(name, l, 1, src, "bytes of src (mask/repeat extent)");
  elide::read(src.raw(), e1);
  elide::access(dst.raw(), dst_bytes);
  simd::block_reduce(op, asc::dtype_of<T>(), dst.raw(), src.raw(), l, static_cast<uint32_t>(dst_rep));
}

template <typename T>
inline void reduce_rep(simd::ReduceOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                       MaskArg m, int32_t repeat, int32_t src_rep, bool with_index) {
  const char* name = simd::op_name(op);
  simd::RepeatLayout l = reduce_layout<T>(name, m, repeat, 1, src_rep);
  const uint64_t dst_bytes = (with_index ? 2 : 1) * sizeof(T);
  check_dst_elems(name, dst, dst_bytes);
  const uint64_t e1 = repeat_operand(name, l, 1, src, "bytes of src (mask/repeat extent)");
  elide::read(src.raw(), e1);
  elide::access(dst.raw(), dst_bytes);
  simd::reduce_repeat(op, asc::dtype_of<T>(), dst.raw(), src.raw(), l, with_index);
}

}  // namespace asc::kernel::detail

namespace AscendC {

// ---------------------------------------------------------------- WholeReduce

#define ASC_KERNEL_WHOLE_(NAME, OP, ORDER_ARG, ORDER)                                                          \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint64_t mask[],       \
                   const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                   const int32_t srcRepStride ORDER_ARG) {                                                     \
    ::asc::kernel::detail::whole_reduce(::asc::kernel::simd::ReduceOp::OP, #NAME, dstLocal, srcLocal, {mask, 0, !isSetMask}, \
                                        repeatTimes, dstRepStride, srcBlkStride, srcRepStride, ORDER);         \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t mask,           \
                   const int32_t repeatTimes, const int32_t dstRepStride, const int32_t srcBlkStride,          \
                   const int32_t srcRepStride ORDER_ARG) {                                                     \
    if (mask < 0) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, #NAME, "mask is negative");            \
    ::asc::kernel::detail::whole_reduce(::asc::kernel::simd::ReduceOp::OP, #NAME, dstLocal, srcLocal,          \
                                        {nullptr, static_cast<uint64_t>(mask), !isSetMask}, repeatTimes, dstRepStride,     \
                                        srcBlkStride, srcRepStride, ORDER);                                    \
  }
#define ASC_KERNEL_ORDER_ARG_ , ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX
ASC_KERNEL_WHOLE_(WholeReduceSum, kSum, , ReduceOrder::ORDER_ONLY_VALUE)
ASC_KERNEL_WHOLE_(WholeReduceMax, kMax, ASC_KERNEL_ORDER_ARG_, order)
ASC_KERNEL_WHOLE_(WholeReduceMin, kMin, ASC_KERNEL_ORDER_ARG_, order)
#undef ASC_KERNEL_ORDER_ARG_
#undef ASC_KERNEL_WHOLE_

// ---------------------------------------------------------------- BlockReduce

#define ASC_KERNEL_BLOCK_(NAME, OP)                                                                             \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes,   \
                   const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,              \
                   const int32_t srcRepStride) {                                                               \
    ::asc::kernel::detail::block_reduce(::asc::kernel::simd::ReduceOp::OP, #NAME, dstLocal, srcLocal, repeatTimes, \
                                        {mask, 0, !isSetMask}, dstRepStride, srcBlkStride, srcRepStride);                  \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes,   \
                   const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                 \
                   const int32_t srcRepStride) {                                                               \
    if (mask < 0) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, #NAME, "mask is negative");            \
    ::asc::kernel::detail::block_reduce(::asc::kernel::simd::ReduceOp::OP, #NAME, dstLocal, srcLocal, repeatTimes, \
                                        {nullptr, static_cast<uint64_t>(mask), !isSetMask}, dstRepStride, srcBlkStride,    \
                                        srcRepStride);                                                         \
  }
ASC_KERNEL_BLOCK_(BlockReduceSum, kSum)
ASC_KERNEL_BLOCK_(BlockReduceMax, kMax)
ASC_KERNEL_BLOCK_(BlockReduceMin, kMin)
#undef ASC_KERNEL_BLOCK_

// ---------------------------------------------------------------- Reduce*, mask/repeat form

template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal,
                      const int32_t mask, const int32_t repeatTimes, const int32_t srcRepStride) {
  (void)workLocal;
  if (mask < 0) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "ReduceSum", "mask is negative");
  ::asc::kernel::detail::reduce_rep(::asc::kernel::simd::ReduceOp::kSum, dstLocal, srcLocal,
                                    {nullptr, static_cast<uint64_t>(mask), !isSetMask}, repeatTimes, srcRepStride, false);
}
template <typename T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal,
                      const uint64_t mask[], const int32_t repeatTimes, const int32_t srcRepStride) {
  (void)workLocal;
  ::asc::kernel::detail::reduce_rep(::asc::kernel::simd::ReduceOp::kSum, dstLocal, srcLocal, {mask, 0, !isSetMask}, repeatTimes,
                                    srcRepStride, false);
}
#define ASC_KERNEL_REDUCE_REP_(NAME, OP)                                                                        \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal, \
                   const int32_t mask, const int32_t repeatTimes, const int32_t srcRepStride,                  \
                   bool calIndex = false) {                                                                    \
    (void)workLocal;                                                                                           \
    if (mask < 0) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, #NAME, "mask is negative");            \
    ::asc::kernel::detail::reduce_rep(::asc::kernel::simd::ReduceOp::OP, dstLocal, srcLocal,                    \
                                      {nullptr, static_cast<uint64_t>(mask), !isSetMask}, repeatTimes, srcRepStride, calIndex); \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& workLocal, \
                   const uint64_t mask[], const int32_t repeatTimes, const int32_t srcRepStride,               \
                   bool calIndex = false) {                                                                    \
    (void)workLocal;                                                                                           \
    ::asc::kernel::detail::reduce_rep(::asc::kernel::simd::ReduceOp::OP, dstLocal, srcLocal, {mask, 0, !isSetMask},         \
                                      repeatTimes, srcRepStride, calIndex);                                    \
  }
ASC_KERNEL_REDUCE_REP_(ReduceMax, kMax)
ASC_KERNEL_REDUCE_REP_(ReduceMin, kMin)
#undef ASC_KERNEL_REDUCE_REP_

// ---------------------------------------------------------------- PairReduceSum

namespace detail {
template <typename T>
inline void pair_reduce(const LocalTensor<T>& dst, const LocalTensor<T>& src, int32_t repeat,
                        ::asc::kernel::detail::MaskArg m, int32_t dst_rep, int32_t src_blk, int32_t src_rep) {
  namespace k = ::asc::kernel;
  const char* name = "PairReduceSum";
  k::simd::RepeatLayout l = k::detail::reduce_layout<T>(name, m, repeat, src_blk, src_rep);
  if (dst_rep < 0) k::fail(::asc::ErrorCode::kInvalidParam, name, "dstRepStride " + std::to_string(dst_rep) + " is negative");
  if (repeat == 0) return;
  const uint64_t half_lanes = 128 / sizeof(T);
  const uint64_t dst_bytes = (uint64_t(repeat - 1) * uint64_t(dst_rep) * half_lanes + half_lanes) * sizeof(T);
  k::detail::check_dst_elems(name, dst, dst_bytes);
  const uint64_t e1 = k::detail::repeat_operand(name, l, 1, src, "bytes of src (mask/repeat extent)");
  k::elide::read(src.raw(), e1);
  k::elide::access(dst.raw(), dst_bytes);
  k::simd::pair_reduce_sum(::asc::dtype_of<T>(), dst.raw(), src.raw(), l, static_cast<uint32_t>(dst_rep));
}
}  // namespace detail

template <typename T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes,
                          const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,
                          const int32_t srcRepStride) {
  detail::pair_reduce(dstLocal, srcLocal, repeatTimes, {mask, 0, !isSetMask}, dstRepStride, srcBlkStride,
                      srcRepStride);
}
template <typename T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t repeatTimes,
                          const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,
                          const int32_t srcRepStride) {
  if (mask < 0) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "PairReduceSum", "mask is negative");
  detail::pair_reduce(dstLocal, srcLocal, repeatTimes, {nullptr, static_cast<uint64_t>(mask), !isSetMask},
                      dstRepStride, srcBlkStride, srcRepStride);
}

}  // namespace AscendC
