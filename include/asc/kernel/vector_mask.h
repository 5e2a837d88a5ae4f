// Vector instructions, mask/repeat forms, and the instructions beyond the basic
// element-wise set (count and mask/repeat forms):
//   * Add/Sub/Mul/Div/Max/Min, Adds/Muls/Maxs/Mins, Exp/Ln/Abs/Relu/Sqrt with
//     (..., uint64_t mask or uint64_t mask[2], uint8_t repeatTimes,
//     BinaryRepeatParams / UnaryRepeatParams);
//   * And, Or, AddRelu, SubRelu, MulAddDst, FusedMulAdd, FusedMulAddRelu
//     (binary); LeakyRelu, ShiftLeft, ShiftRight, Axpy (with a scalar); Not,
//     Reciprocal, Rsqrt, Neg (unary) in both forms;
//   * Duplicate's mask/repeat form and CreateVecIndex;
//   * LocalTensor operators: `dst = a + b` (and - * / | &) run the
//     instruction over dst.GetSize() elements;
//   * the mask register: SetVectorMask / ResetMask; a mask/repeat call with
//     isSetMask = false ignores its mask argument (MASK_PLACEHOLDER) and uses
//     the register (normal mode only: SetMaskCount makes such calls an error).
//
// Mask/repeat semantics (asc/kernel/simd_lane.h): repeatTimes repeats of 256
// bytes, 8 blocks of 32 bytes each; block k of repeat r of an operand starts
// at (r * repStride + k * blkStride) * 32 bytes; `mask` as a count selects the
// first `mask` lanes of each repeat (at most 256 / sizeof(T)), as uint64_t[2]
// selects lane l by bit l (mask[1] covers lanes 64..127 of 16-bit types; it is
// ignored for 32-bit types). Unselected lanes of dst are not written. Only
// 16- and 32-bit element types have a mask/repeat form.
//
// Errors (asc::Error): a mask count above the lanes of a repeat is
// kInvalidParam; an operand whose last selected lane lies beyond its tensor is
// kIndexOutOfRange ("[Add] ... needs N bytes of src0 but the tensor has M");
// unsupported dtypes are kInvalidDtype.
//
// Copy elision: a full mask with unit block strides and repeat strides of 8
// blocks is the count form over repeatTimes * lanes elements and is elided like
// it; every other mask/repeat call, and the new instructions, run at once,
// first making the bytes they read (and the destination range) real.
//
// Thread-safety: none needed (per-block data).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/simd_lane.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"
#include "asc/kernel/vector.h"

namespace asc::kernel::detail {

/// The vector mask register (SetVectorMask): used instead of an
/// instruction's mask argument when it is called with isSetMask = false.
struct MaskRegister {
  uint64_t bits[2] = {~uint64_t{0}, ~uint64_t{0}};
  bool counter = false;  // SetMaskCount (counter mode) is not modelled
};
inline MaskRegister& mask_register() {
  static thread_local MaskRegister r;
  return r;
}

/// Mask given as a lane count or as two 64-bit words, or the mask register.
struct MaskArg {
  const uint64_t* bits;  // null: count
  uint64_t count;
  bool use_register = false;
};

/// Fills `l.mask` from mask argument `m` over one repeat of `lanes` lanes (the
/// mask register, explicit bits or a lane count). `types()` names the element
/// type(s) in the error of a count beyond the lanes (built only then).
template <typename Types>
inline void resolve_mask(const char* op, MaskArg m, uint32_t lanes, simd::RepeatLayout& l, Types&& types) {
  if (m.use_register) {
    const MaskRegister& r = mask_register();
    if (r.counter) {
      fail(ErrorCode::kInvalidParam, op,
           "isSetMask = false in counter mode (SetMaskCount) is not supported; call SetMaskNorm() first");
    }
    l.mask[0] = r.bits[0];
    l.mask[1] = lanes > 64 ? r.bits[1] : 0;
  } else if (m.bits) {
    l.mask[0] = m.bits[0];
    l.mask[1] = lanes > 64 ? m.bits[1] : 0;
  } else {
    if (m.count > lanes) {
      fail(ErrorCode::kInvalidParam, op,
           "mask " + std::to_string(m.count) + " exceeds the " + std::to_string(lanes) + " lanes of one repeat " +
               types());
    }
    simd::mask_from_count(m.count, l.mask);
  }
}

template <typename T>
inline simd::RepeatLayout make_layout(const char* op, MaskArg m, uint8_t repeat) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "the mask/repeat form takes 16- or 32-bit elements");
  simd::RepeatLayout l;
  resolve_mask(op, m, simd::repeat_lanes(sizeof(T)), l,
               [] { return std::string("of ") + dtype_name(asc::dtype_of<T>()); });
  l.repeat = repeat;
  return l;
}

inline simd::RepeatLayout& set_strides(simd::RepeatLayout& l, const AscendC::BinaryRepeatParams& p) {
  l.blk[0] = p.dstBlkStride;
  l.blk[1] = p.src0BlkStride;
  l.blk[2] = p.src1BlkStride;
  l.rep[0] = p.dstRepStride;
  l.rep[1] = p.src0RepStride;
  l.rep[2] = p.src1RepStride;
  return l;
}
inline simd::RepeatLayout& set_strides(simd::RepeatLayout& l, const AscendC::UnaryRepeatParams& p) {
  l.blk[0] = p.dstBlkStride;
  l.blk[1] = p.srcBlkStride;
  l.blk[2] = 1;
  l.rep[0] = p.dstRepStride;
  l.rep[1] = p.srcRepStride;
  l.rep[2] = 8;
  return l;
}

/// True (with the element count) when the layout is one contiguous run for
/// operands 0 .. nops-1: full mask, unit block strides, repeat strides of 8.
template <typename T>
inline bool contiguous(const simd::RepeatLayout& l, int nops, int32_t* count) {
  const uint32_t lanes = simd::repeat_lanes(sizeof(T));
  const bool full = l.mask[0] == ~uint64_t{0} && (lanes == 64 || l.mask[1] == ~uint64_t{0});
  if (!full) return false;
  for (int j = 0; j < nops; ++j) {
    if (l.blk[j] != 1 || l.rep[j] != 8) return false;
  }
  *count = static_cast<int32_t>(l.repeat * lanes);
  return true;
}

/// Checks operand `which` against its tensor and returns its extent in bytes.
template <typename T>
inline uint64_t repeat_operand(const char* op, const simd::RepeatLayout& l, int which,
                               const AscendC::LocalTensor<T>& t, const char* what) {
  const uint64_t ext = simd::repeat_extent(l, which, sizeof(T));
  const uint64_t have = uint64_t{t.GetSize()} * sizeof(T);
  if (ext > have) fail_size(op, what, ext, have);
  return ext;
}

// ---- mask/repeat forms of the basic element-wise instructions

template <typename T>
inline void binary_rep(simd::BinaryOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                       const AscendC::LocalTensor<T>& b, MaskArg m, uint8_t repeat,
                       const AscendC::BinaryRepeatParams& p) {
  const char* name = simd::op_name(op);
  simd::RepeatLayout l = make_layout<T>(name, m, repeat);
  set_strides(l, p);
  int32_t count = 0;
  if (contiguous<T>(l, 3, &count)) return binary(op, dst, a, b, count);
  const uint64_t e0 = repeat_operand(name, l, 0, dst, "bytes of dst (mask/repeat extent)");
  const uint64_t e1 = repeat_operand(name, l, 1, a, "bytes of src0 (mask/repeat extent)");
  const uint64_t e2 = repeat_operand(name, l, 2, b, "bytes of src1 (mask/repeat extent)");
  elide::read(a.raw(), e1);
  elide::read(b.raw(), e2);
  elide::access(dst.raw(), e0);
  simd::binary_repeat(op, asc::dtype_of<T>(), dst.raw(), a.raw(), b.raw(), l);
}

template <typename T>
inline void scalar_rep(simd::ScalarOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                       T scalar, MaskArg m, uint8_t repeat, const AscendC::UnaryRepeatParams& p) {
  const char* name = simd::op_name(op);
  simd::RepeatLayout l = make_layout<T>(name, m, repeat);
  set_strides(l, p);
  int32_t count = 0;
  if (contiguous<T>(l, 2, &count)) return with_scalar(op, dst, src, scalar, count);
  const uint64_t e0 = repeat_operand(name, l, 0, dst, "bytes of dst (mask/repeat extent)");
  const uint64_t e1 = repeat_operand(name, l, 1, src, "bytes of src (mask/repeat extent)");
  elide::read(src.raw(), e1);
  elide::access(dst.raw(), e0);
  simd::scalar_repeat(op, asc::dtype_of<T>(), dst.raw(), src.raw(), &scalar, l);
}

template <typename T>
inline void unary_rep(simd::UnaryOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                      MaskArg m, uint8_t repeat, const AscendC::UnaryRepeatParams& p) {
  const char* name = simd::op_name(op);
  simd::RepeatLayout l = make_layout<T>(name, m, repeat);
  set_strides(l, p);
  int32_t count = 0;
  if (contiguous<T>(l, 2, &count)) return unary(op, dst, src, count);
  const uint64_t e0 = repeat_operand(name, l, 0, dst, "bytes of dst (mask/repeat extent)");
  const uint64_t e1 = repeat_operand(name, l, 1, src, "bytes of src (mask/repeat extent)");
  elide::read(src.raw(), e1);
  elide::access(dst.raw(), e0);
  simd::unary_repeat(op, asc::dtype_of<T>(), dst.raw(), src.raw(), l);
}

// ---- the lane operations (count and mask/repeat forms)

/// Count form. `b` is the second tensor's data (binary ops), the scalar, or null.
template <typename T>
inline void lane_count(simd::LaneOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                       const AscendC::LocalTensor<T>* b, const T* scalar, int32_t count) {
  const char* name = simd::op_name(op);
  simd::check_lane(op, asc::dtype_of<T>());
  if (!count_ok(name, count)) return;
  check_count(name, count, dst, "elements of dst");
  check_count(name, count, a, simd::lane_reads_b_tensor(op) ? "elements of src0" : "elements of src");
  if (b) check_count(name, count, *b, "elements of src1");
  const uint64_t bytes = uint64_t(static_cast<uint32_t>(count)) * sizeof(T);
  elide::read(a.raw(), bytes);
  if (b) elide::read(b->raw(), bytes);
  if (simd::lane_reads_dst(op)) {
    elide::access(dst.raw(), bytes);
  } else {
    elide::write(dst.raw(), bytes);
  }
  simd::lane(op, asc::dtype_of<T>(), dst.raw(), a.raw(), b ? static_cast<const void*>(b->raw()) : scalar,
             static_cast<size_t>(count));
}

template <typename T, class Params>
inline void lane_rep(simd::LaneOp op, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& a,
                     const AscendC::LocalTensor<T>* b, const T* scalar, MaskArg m, uint8_t repeat, const Params& p) {
  const char* name = simd::op_name(op);
  simd::check_lane(op, asc::dtype_of<T>());
  simd::RepeatLayout l = make_layout<T>(name, m, repeat);
  set_strides(l, p);
  const uint64_t e0 = repeat_operand(name, l, 0, dst, "bytes of dst (mask/repeat extent)");
  const uint64_t e1 = repeat_operand(name, l, 1, a, b ? "bytes of src0 (mask/repeat extent)"
                                                        : "bytes of src (mask/repeat extent)");
  const uint64_t e2 = b ? repeat_operand(name, l, 2, *b, "bytes of src1 (mask/repeat extent)") : 0;
  elide::read(a.raw(), e1);
  if (b) elide::read(b->raw(), e2);
  elide::access(dst.raw(), e0);
  simd::lane_repeat(op, asc::dtype_of<T>(), dst.raw(), a.raw(), b ? static_cast<const void*>(b->raw()) : scalar, l);
}

// ---- LocalTensor operators: dst = a OP b

template <typename T, simd::BinaryOp kOp>
struct BinaryExpr {
  static constexpr bool kAscVecExpr = true;
  AscendC::LocalTensor<T> a, b;
  void EvalInto(const AscendC::LocalTensor<T>& dst) const {
    binary(kOp, dst, a, b, static_cast<int32_t>(dst.GetSize()));
  }
};
template <typename T, simd::LaneOp kOp>
struct LaneExpr {
  static constexpr bool kAscVecExpr = true;
  AscendC::LocalTensor<T> a, b;
  void EvalInto(const AscendC::LocalTensor<T>& dst) const {
    lane_count(kOp, dst, a, &b, static_cast<const T*>(nullptr), static_cast<int32_t>(dst.GetSize()));
  }
};

}  // namespace asc::kernel::detail

namespace AscendC {

// ---------------------------------------------------------------- the mask register

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
/// Placeholder mask argument for calls with isSetMask = false.
constexpr uint64_t MASK_PLACEHOLDER = 0;

/// Sets the mask register (lanes 64..127 from maskHigh, 0..63 from maskLow)
/// that instructions called with isSetMask = false use. Per thread (= block).
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  static_assert(mode == MaskMode::NORMAL, "counter mode (MaskMode::COUNTER) is not supported");
  auto& r = ::asc::kernel::detail::mask_register();
  r.bits[0] = maskLow;
  r.bits[1] = maskHigh;
}
/// Sets the mask register to the first `len` lanes.
template <typename T, MaskMode mode = MaskMode::NORMAL>
inline void SetVectorMask(int32_t len) {
  static_assert(mode == MaskMode::NORMAL, "counter mode (MaskMode::COUNTER) is not supported");
  if (len < 0) ::asc::kernel::fail_negative_count("SetVectorMask", len);
  ::asc::kernel::simd::mask_from_count(static_cast<uint64_t>(len), ::asc::kernel::detail::mask_register().bits);
}
/// All lanes.
inline void ResetMask() { SetVectorMask<uint16_t>(~uint64_t{0}, ~uint64_t{0}); }
/// Counter mode: recorded so that isSetMask = false calls report it as unsupported.
inline void SetMaskCount() { ::asc::kernel::detail::mask_register().counter = true; }
inline void SetMaskNorm() { ::asc::kernel::detail::mask_register().counter = false; }

// ---------------------------------------------------------------- mask/repeat forms

#define ASC_KERNEL_BINARY_REP_(NAME, OP)                                                                        \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, \
                   uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {       \
    ::asc::kernel::detail::binary_rep(::asc::kernel::simd::BinaryOp::OP, dstLocal, src0Local, src1Local,        \
                                      {mask, 0, !isSetMask}, repeatTimes, repeatParams);                                   \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, \
                   uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {         \
    ::asc::kernel::detail::binary_rep(::asc::kernel::simd::BinaryOp::OP, dstLocal, src0Local, src1Local,        \
                                      {nullptr, mask, !isSetMask}, repeatTimes, repeatParams);                             \
  }
ASC_KERNEL_BINARY_REP_(Add, kAdd)
ASC_KERNEL_BINARY_REP_(Sub, kSub)
ASC_KERNEL_BINARY_REP_(Mul, kMul)
ASC_KERNEL_BINARY_REP_(Div, kDiv)
ASC_KERNEL_BINARY_REP_(Max, kMax)
ASC_KERNEL_BINARY_REP_(Min, kMin)
#undef ASC_KERNEL_BINARY_REP_

#define ASC_KERNEL_SCALAR_REP_(NAME, OP)                                                                         \
  template <typename T, bool isSetMask = true>                                                                  \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                               \
                   const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, uint64_t mask[],                 \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                          \
    ::asc::kernel::detail::scalar_rep(::asc::kernel::simd::ScalarOp::OP, dstLocal, srcLocal,                     \
                                      static_cast<T>(scalarValue), {mask, 0, !isSetMask}, repeatTimes, repeatParams);       \
  }                                                                                                             \
  template <typename T, bool isSetMask = true>                                                                  \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                               \
                   const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, uint64_t mask,                   \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                          \
    ::asc::kernel::detail::scalar_rep(::asc::kernel::simd::ScalarOp::OP, dstLocal, srcLocal,                     \
                                      static_cast<T>(scalarValue), {nullptr, mask, !isSetMask}, repeatTimes, repeatParams); \
  }
ASC_KERNEL_SCALAR_REP_(Adds, kAdds)
ASC_KERNEL_SCALAR_REP_(Muls, kMuls)
ASC_KERNEL_SCALAR_REP_(Maxs, kMaxs)
ASC_KERNEL_SCALAR_REP_(Mins, kMins)
#undef ASC_KERNEL_SCALAR_REP_

#define ASC_KERNEL_UNARY_REP_(NAME, OP)                                                                     \
  template <typename T, bool isSetMask = true>                                                             \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint64_t mask[],         \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                     \
    ::asc::kernel::detail::unary_rep(::asc::kernel::simd::UnaryOp::OP, dstLocal, srcLocal, {mask, 0, !isSetMask},       \
                                     repeatTimes, repeatParams);                                           \
  }                                                                                                        \
  template <typename T, bool isSetMask = true>                                                             \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint64_t mask,           \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                     \
    ::asc::kernel::detail::unary_rep(::asc::kernel::simd::UnaryOp::OP, dstLocal, srcLocal, {nullptr, mask, !isSetMask}, \
                                     repeatTimes, repeatParams);                                           \
  }
ASC_KERNEL_UNARY_REP_(Exp, kExp)
ASC_KERNEL_UNARY_REP_(Ln, kLn)
ASC_KERNEL_UNARY_REP_(Abs, kAbs)
ASC_KERNEL_UNARY_REP_(Relu, kRelu)
ASC_KERNEL_UNARY_REP_(Sqrt, kSqrt)
#undef ASC_KERNEL_UNARY_REP_

// ---------------------------------------------------------------- lane ops

#define ASC_KERNEL_LANE_BINARY_(NAME, OP)                                                                        \
  template <typename T, bool isSetMask = true>                                                                  \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, \
                   const int32_t& calCount) {                                                                   \
    ::asc::kernel::detail::lane_count(::asc::kernel::simd::LaneOp::OP, dstLocal, src0Local, &src1Local,          \
                                      static_cast<const T*>(nullptr), calCount);                                \
  }                                                                                                             \
  template <typename T, bool isSetMask = true>                                                                  \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, \
                   uint64_t mask[], const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {        \
    ::asc::kernel::detail::lane_rep(::asc::kernel::simd::LaneOp::OP, dstLocal, src0Local, &src1Local,            \
                                    static_cast<const T*>(nullptr), {mask, 0, !isSetMask}, repeatTimes, repeatParams);      \
  }                                                                                                             \
  template <typename T, bool isSetMask = true>                                                                  \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const LocalTensor<T>& src1Local, \
                   uint64_t mask, const uint8_t repeatTimes, const BinaryRepeatParams& repeatParams) {          \
    ::asc::kernel::detail::lane_rep(::asc::kernel::simd::LaneOp::OP, dstLocal, src0Local, &src1Local,            \
                                    static_cast<const T*>(nullptr), {nullptr, mask, !isSetMask}, repeatTimes, repeatParams); \
  }
/// dst = src0 & src1, src0 | src1, relu(src0 + src1), relu(src0 - src1),
/// src0 * src1 + dst, src0 * dst + src1, relu(src0 * dst + src1).
ASC_KERNEL_LANE_BINARY_(And, kAnd)
ASC_KERNEL_LANE_BINARY_(Or, kOr)
ASC_KERNEL_LANE_BINARY_(AddRelu, kAddRelu)
ASC_KERNEL_LANE_BINARY_(SubRelu, kSubRelu)
ASC_KERNEL_LANE_BINARY_(MulAddDst, kMulAddDst)
ASC_KERNEL_LANE_BINARY_(FusedMulAdd, kFusedMulAdd)
ASC_KERNEL_LANE_BINARY_(FusedMulAddRelu, kFusedMulAddRelu)
#undef ASC_KERNEL_LANE_BINARY_

#define ASC_KERNEL_LANE_SCALAR_(NAME, OP)                                                                       \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                              \
                   const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, const int32_t& calCount) {      \
    const T s = static_cast<T>(scalarValue);                                                                   \
    ::asc::kernel::detail::lane_count(::asc::kernel::simd::LaneOp::OP, dstLocal, srcLocal,                      \
                                      static_cast<const LocalTensor<T>*>(nullptr), &s, calCount);              \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                              \
                   const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, uint64_t mask[],                \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                         \
    const T s = static_cast<T>(scalarValue);                                                                   \
    ::asc::kernel::detail::lane_rep(::asc::kernel::simd::LaneOp::OP, dstLocal, srcLocal,                        \
                                    static_cast<const LocalTensor<T>*>(nullptr), &s, {mask, 0, !isSetMask}, repeatTimes,   \
                                    repeatParams);                                                             \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,                              \
                   const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, uint64_t mask,                  \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                         \
    const T s = static_cast<T>(scalarValue);                                                                   \
    ::asc::kernel::detail::lane_rep(::asc::kernel::simd::LaneOp::OP, dstLocal, srcLocal,                        \
                                    static_cast<const LocalTensor<T>*>(nullptr), &s, {nullptr, mask, !isSetMask},          \
                                    repeatTimes, repeatParams);                                                \
  }
/// dst = src >= 0 ? src : src * scalar; src << scalar; dst = src * scalar + dst.
ASC_KERNEL_LANE_SCALAR_(LeakyRelu, kLeakyRelu)
ASC_KERNEL_LANE_SCALAR_(ShiftLeft, kShiftLeft)
ASC_KERNEL_LANE_SCALAR_(Axpy, kAxpy)
#undef ASC_KERNEL_LANE_SCALAR_

/// dst = src >> scalar (arithmetic for signed types). roundEn (round the
/// shifted-out bits to nearest) is not supported: true is kInvalidParam.
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                       const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, const int32_t& calCount) {
  const T s = static_cast<T>(scalarValue);
  ::asc::kernel::detail::lane_count(::asc::kernel::simd::LaneOp::kShiftRight, dstLocal, srcLocal,
                                    static_cast<const LocalTensor<T>*>(nullptr), &s, calCount);
}
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                       const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, uint64_t mask[],
                       const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams, bool roundEn = false) {
  if (roundEn) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "ShiftRight", "roundEn = true is not supported");
  const T s = static_cast<T>(scalarValue);
  ::asc::kernel::detail::lane_rep(::asc::kernel::simd::LaneOp::kShiftRight, dstLocal, srcLocal,
                                  static_cast<const LocalTensor<T>*>(nullptr), &s, {mask, 0, !isSetMask}, repeatTimes,
                                  repeatParams);
}
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                       const ::asc::kernel::detail::non_deduced_t<T>& scalarValue, uint64_t mask,
                       const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams, bool roundEn = false) {
  if (roundEn) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "ShiftRight", "roundEn = true is not supported");
  const T s = static_cast<T>(scalarValue);
  ::asc::kernel::detail::lane_rep(::asc::kernel::simd::LaneOp::kShiftRight, dstLocal, srcLocal,
                                  static_cast<const LocalTensor<T>*>(nullptr), &s, {nullptr, mask, !isSetMask}, repeatTimes,
                                  repeatParams);
}

#define ASC_KERNEL_LANE_UNARY_(NAME, OP)                                                                        \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const int32_t& calCount) {   \
    ::asc::kernel::detail::lane_count(::asc::kernel::simd::LaneOp::OP, dstLocal, srcLocal,                      \
                                      static_cast<const LocalTensor<T>*>(nullptr), static_cast<const T*>(nullptr), \
                                      calCount);                                                               \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint64_t mask[],             \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                         \
    ::asc::kernel::detail::lane_rep(::asc::kernel::simd::LaneOp::OP, dstLocal, srcLocal,                        \
                                    static_cast<const LocalTensor<T>*>(nullptr), static_cast<const T*>(nullptr), \
                                    {mask, 0, !isSetMask}, repeatTimes, repeatParams);                                     \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  inline void NAME(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint64_t mask,               \
                   const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {                         \
    ::asc::kernel::detail::lane_rep(::asc::kernel::simd::LaneOp::OP, dstLocal, srcLocal,                        \
                                    static_cast<const LocalTensor<T>*>(nullptr), static_cast<const T*>(nullptr), \
                                    {nullptr, mask, !isSetMask}, repeatTimes, repeatParams);                               \
  }
/// dst = ~src, 1 / src, 1 / sqrt(src), -src.
ASC_KERNEL_LANE_UNARY_(Not, kNot)
ASC_KERNEL_LANE_UNARY_(Reciprocal, kReciprocal)
ASC_KERNEL_LANE_UNARY_(Rsqrt, kRsqrt)
ASC_KERNEL_LANE_UNARY_(Neg, kNeg)
#undef ASC_KERNEL_LANE_UNARY_

// ---------------------------------------------------------------- Duplicate / CreateVecIndex

/// Mask/repeat form: the selected lanes of each repeat (dst block and repeat
/// strides in 32-byte blocks) get scalarValue.
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dstLocal, const ::asc::kernel::detail::non_deduced_t<T>& scalarValue,
                      uint64_t mask[], const uint8_t repeatTimes, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride) {
  namespace d = ::asc::kernel::detail;
  auto l = d::make_layout<T>("Duplicate", {mask, 0, !isSetMask}, repeatTimes);
  l.blk[0] = dstBlockStride;
  l.rep[0] = dstRepeatStride;
  const T v = static_cast<T>(scalarValue);
  const uint64_t e0 = d::repeat_operand("Duplicate", l, 0, dstLocal, "bytes of dst (mask/repeat extent)");
  ::asc::kernel::elide::access(dstLocal.raw(), e0);
  ::asc::kernel::simd::duplicate_repeat(::asc::dtype_of<T>(), dstLocal.raw(), &v, l);
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dstLocal, const ::asc::kernel::detail::non_deduced_t<T>& scalarValue,
                      uint64_t mask, const uint8_t repeatTimes, const uint16_t dstBlockStride,
                      const uint8_t dstRepeatStride) {
  namespace d = ::asc::kernel::detail;
  auto l = d::make_layout<T>("Duplicate", {nullptr, mask, !isSetMask}, repeatTimes);
  l.blk[0] = dstBlockStride;
  l.rep[0] = dstRepeatStride;
  const T v = static_cast<T>(scalarValue);
  const uint64_t e0 = d::repeat_operand("Duplicate", l, 0, dstLocal, "bytes of dst (mask/repeat extent)");
  ::asc::kernel::elide::access(dstLocal.raw(), e0);
  ::asc::kernel::simd::duplicate_repeat(::asc::dtype_of<T>(), dstLocal.raw(), &v, l);
}

/// dst[i] = firstValue + i for i < calCount (half, float, int16_t, int32_t).
/// float16 values are rounded to nearest even; integers wrap.
template <typename T>
inline void CreateVecIndex(const LocalTensor<T>& dstLocal, const T& firstValue, uint32_t calCount) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, int16_t> ||
                    std::is_same_v<T, int32_t>,
                "CreateVecIndex supports half, float, int16_t and int32_t");
  namespace d = ::asc::kernel::detail;
  const int32_t count = static_cast<int32_t>(calCount);
  if (!d::count_ok("CreateVecIndex", count)) return;
  d::check_count("CreateVecIndex", count, dstLocal, "elements of dst");
  ::asc::kernel::elide::write(dstLocal.raw(), uint64_t{calCount} * sizeof(T));
  T* p = dstLocal.raw();
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    for (uint32_t i = 0; i < calCount; ++i) p[i] = static_cast<T>(static_cast<U>(static_cast<U>(firstValue) + U(i)));
  } else {
    const float first = static_cast<float>(firstValue);
    for (uint32_t i = 0; i < calCount; ++i) p[i] = static_cast<T>(first + static_cast<float>(i));
  }
}

// ---------------------------------------------------------------- LocalTensor operators

#define ASC_KERNEL_EXPR_(SYM, EXPR, OP)                                                                    \
  template <typename T>                                                                                   \
  inline ::asc::kernel::detail::EXPR<T, OP> operator SYM(const LocalTensor<T>& a, const LocalTensor<T>& b) { \
    return {a, b};                                                                                        \
  }
ASC_KERNEL_EXPR_(+, BinaryExpr, ::asc::kernel::simd::BinaryOp::kAdd)
ASC_KERNEL_EXPR_(-, BinaryExpr, ::asc::kernel::simd::BinaryOp::kSub)
ASC_KERNEL_EXPR_(*, BinaryExpr, ::asc::kernel::simd::BinaryOp::kMul)
ASC_KERNEL_EXPR_(/, BinaryExpr, ::asc::kernel::simd::BinaryOp::kDiv)
ASC_KERNEL_EXPR_(&, LaneExpr, ::asc::kernel::simd::LaneOp::kAnd)
ASC_KERNEL_EXPR_(|, LaneExpr, ::asc::kernel::simd::LaneOp::kOr)
#undef ASC_KERNEL_EXPR_

}  // namespace AscendC
