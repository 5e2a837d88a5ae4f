// The mask/repeat form of Cast:
//
//   Cast(dst<T1>, src<T2>, RoundMode, uint64_t mask[2] or uint64_t mask,
//        uint8_t repeatTimes, UnaryRepeatParams{dstBlkStride, srcBlkStride,
//        dstRepStride, srcRepStride})
//
// One repeat converts L = 256 / max(sizeof(T1), sizeof(T2)) lanes (64 when a
// 32-bit type is involved, 128 between 16- and 8-bit types): the wider operand
// spans 8 blocks of 32 bytes per repeat, the narrower fewer. Lane l of an
// operand with e-byte elements lies in its block l / (32 / e), element
// l % (32 / e); block k of repeat r starts at (r * repStride + k * blkStride)
// * 32 bytes, as in every mask/repeat instruction. The mask selects lanes (a
// count of leading lanes <= L, or bits: lanes 64..127 from mask[1]);
// unselected destination lanes are not written and unselected source lanes are
// not converted. Each selected lane is converted exactly as the count form
// converts it (asc::kernel::simd::cast, every RoundMode). isSetMask = false
// takes the mask from the mask register (SetVectorMask).
//
// Errors: unsupported dtype pairs or 1-byte to 1-byte casts (kInvalidDtype),
// a mask count above L (kInvalidParam), an operand's last selected lane beyond
// its tensor (kIndexOutOfRange).
// Copy elision: runs at once on real bytes (sources materialised first); a
// full mask with unit block strides and contiguous repeats is the count form.
// Thread-safety: none needed (per-block data).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/int4_ops.h"
#include "asc/kernel/simd.h"
#include "asc/kernel/simd_lane.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"
#include "asc/kernel/vector.h"
#include "asc/kernel/vector_mask.h"

namespace asc::kernel::simd {

/// Mask/repeat Cast core (src/kernel/simd/repeat.cc). Operand 0 = dst,
/// 1 = src in `l` (blk/rep), lanes as described above.
void cast_repeat(DType dst_dtype, DType src_dtype, RoundMode mode, void* dst, const void* src,
                 const RepeatLayout& l);
/// Bytes from operand `which`'s base (0 = dst with e_dst-byte elements, 1 =
/// src) to the end of its last selected lane.
uint64_t cast_repeat_extent(size_t e_dst, size_t e_src, const RepeatLayout& l, int which);

}  // namespace asc::kernel::simd

namespace asc::kernel::detail {

template <typename T1, typename T2>
inline void cast_rep(const AscendC::LocalTensor<T1>& dst, const AscendC::LocalTensor<T2>& src, RoundMode mode,
                     MaskArg m, uint8_t repeat, const AscendC::UnaryRepeatParams& p) {
  static_assert(sizeof(T1) <= 4 && sizeof(T2) <= 4, "Cast's mask/repeat form takes 8-, 16- and 32-bit types");
  const char* op = "Cast";
  if constexpr (is_int4_v<T1> || is_int4_v<T2>) {  // asc/kernel/int4_ops.h
    int4_cast_check<T1, T2>(op, mode);
    constexpr size_t wide_bytes = is_int4_v<T1> ? sizeof(T2) : sizeof(T1);
    const uint32_t lanes4 = static_cast<uint32_t>(256 / wide_bytes);
    simd::RepeatLayout l4;
    resolve_mask(op, m, lanes4, l4, [] {
      return std::string("(") + int4_peer_name<T2>() + " to " + int4_peer_name<T1>() + ")";
    });
    l4.repeat = repeat;
    l4.blk[0] = p.dstBlkStride;
    l4.blk[1] = p.srcBlkStride;
    l4.rep[0] = p.dstRepStride;
    l4.rep[1] = p.srcRepStride;
    cast_int4_repeat(dst, src, mode, l4, lanes4);
  } else {
    constexpr size_t wide = sizeof(T1) > sizeof(T2) ? sizeof(T1) : sizeof(T2);
    if (wide == 1) {
      fail(ErrorCode::kInvalidDtype, op,
           std::string("the mask/repeat form has no 1-byte to 1-byte cast (") + dtype_name(asc::dtype_of<T2>()) +
               " to " + dtype_name(asc::dtype_of<T1>()) + ")");
    }
    const uint32_t lanes = static_cast<uint32_t>(256 / wide);
    simd::RepeatLayout l;
    resolve_mask(op, m, lanes, l, [] {
      return std::string("(") + dtype_name(asc::dtype_of<T2>()) + " to " + dtype_name(asc::dtype_of<T1>()) + ")";
    });
    l.repeat = repeat;
    l.blk[0] = p.dstBlkStride;
    l.blk[1] = p.srcBlkStride;
    l.rep[0] = p.dstRepStride;
    l.rep[1] = p.srcRepStride;
    const bool full = l.mask[0] == ~uint64_t{0} && (lanes == 64 || l.mask[1] == ~uint64_t{0});
    if (full && l.blk[0] == 1 && l.blk[1] == 1 && l.rep[0] * 32 == lanes * sizeof(T1) &&
        l.rep[1] * 32 == lanes * sizeof(T2)) {
      return AscendC::Cast(dst, src, mode, uint32_t{repeat} * lanes);  // one contiguous run: the count form
    }
    // Validate the dtype pair and mode before touching memory.
    simd::cast(asc::dtype_of<T1>(), asc::dtype_of<T2>(), mode, nullptr, nullptr, 0);
    const uint64_t e0 = simd::cast_repeat_extent(sizeof(T1), sizeof(T2), l, 0);
    const uint64_t e1 = simd::cast_repeat_extent(sizeof(T1), sizeof(T2), l, 1);
    const uint64_t h0 = uint64_t{dst.GetSize()} * sizeof(T1), h1 = uint64_t{src.GetSize()} * sizeof(T2);
    if (e0 > h0) fail_size(op, "bytes of dst (mask/repeat extent)", e0, h0);
    if (e1 > h1) fail_size(op, "bytes of src (mask/repeat extent)", e1, h1);
    if (e0 == 0) return;
    elide::read(src.raw(), e1);
    elide::access(dst.raw(), e0);
    simd::cast_repeat(asc::dtype_of<T1>(), asc::dtype_of<T2>(), mode, dst.raw(), src.raw(), l);
  }
}

}  // namespace asc::kernel::detail

namespace AscendC {

template <typename T1, typename T2, bool isSetMask = true>
inline void Cast(const LocalTensor<T1>& dstLocal, const LocalTensor<T2>& srcLocal, const RoundMode& round_mode,
                 const uint64_t mask[], const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
  ::asc::kernel::detail::cast_rep(dstLocal, srcLocal, round_mode, {mask, 0, !isSetMask}, repeatTimes, repeatParams);
}
template <typename T1, typename T2, bool isSetMask = true>
inline void Cast(const LocalTensor<T1>& dstLocal, const LocalTensor<T2>& srcLocal, const RoundMode& round_mode,
                 const uint64_t mask, const uint8_t repeatTimes, const UnaryRepeatParams& repeatParams) {
  ::asc::kernel::detail::cast_rep(dstLocal, srcLocal, round_mode, {nullptr, mask, !isSetMask}, repeatTimes,
                                  repeatParams);
}

}  // namespace AscendC
