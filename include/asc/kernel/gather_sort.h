// Data rearrangement instructions: Gather, Scatter, Brcb, Transpose (16x16 of
// 2-byte elements), GatherMask (built-in and tensor patterns, rsvdCnt), Sort32,
// Sort, Extract.
//
// * Gather(dst, src, srcOffsetLocal, srcBaseAddr, count): dst[i] = the element
//   at byte srcBaseAddr + srcOffsetLocal[i] of src. Scatter(dst, src,
//   dstOffsetLocal, dstBaseAddr, count): the element at byte dstBaseAddr +
//   dstOffsetLocal[i] of dst = src[i]. Offsets must be multiples of sizeof(T)
//   and address elements inside the tensor (kInvalidParam /
//   kIndexOutOfRange naming i and the offset). Any element size 1..8.
// * Brcb(dst, src, repeatTimes, BrcbRepeatParams{dstBlkStride, dstRepStride}):
//   repeat r fills 8 dst blocks of 32 bytes, block k (at (r * dstRepStride +
//   k * dstBlkStride) * 32 bytes) with src[8 r + k]. 16- and 32-bit types.
// * Transpose(dst, src): a 16x16 matrix of 2-byte elements, dst[j][i] =
//   src[i][j]; dst and src must not overlap unless they are the same tensor.
// * GatherMask(dst, src0, pattern, reduceMode, mask, GatherMaskParams,
//   rsvdCnt): packs the src0 elements whose pattern bit is set into dst and
//   sets rsvdCnt to their number. Pattern: a built-in uint8_t 1..7 (1: even
//   lanes, 2: odd lanes, 3..6: lane % 4 == 0..3, 7: every lane) or a tensor of
//   bits (repeat r's bits at byte r * src1RepeatStride * 32; U = uint16_t for
//   2-byte and uint32_t for 4-byte T, as on the hardware). reduceMode false
//   (normal): repeatTimes repeats of 256 / sizeof(T) lanes, mask unused;
//   reduceMode true (counter): the first `mask` elements, in
//   ceil(mask / lanes) repeats (repeatTimes unused). src0 lanes follow
//   src0BlockStride / src0RepeatStride (32-byte blocks).
// * Sort32(dst, values, indices<uint32_t>, repeatTimes): each repeat sorts 32
//   (value, index) pairs by value, descending, stable (NaN first), into 32
//   8-byte records: float: [value, index]; half: [value, 0 (2 bytes), index].
//   Sort<T, isFullSort>(dst, values, indices, tmp, repeatTimes): the same
//   over all repeatTimes * 32 elements at once (isFullSort) or per 32.
//   Extract(dstValue, dstIndex, sorted, repeatTimes): records back to values
//   and indices (32 per repeat).
//
// Copy elision: all run at once on real bytes (sources materialised first).
// Thread-safety: none needed (per-block data).
#pragma once

#include <cstdint>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"
#include "asc/kernel/vector.h"

namespace AscendC {

struct BrcbRepeatParams {
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
  BrcbRepeatParams() = default;
  BrcbRepeatParams(uint16_t blk, uint16_t rep) : dstBlkStride(blk), dstRepStride(rep) {}
};

struct GatherMaskParams {
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 1;
  uint16_t src0RepeatStride = 8;
  uint8_t src1RepeatStride = 1;
  GatherMaskParams() = default;
  GatherMaskParams(uint8_t src0Blk, uint16_t repeat, uint16_t src0Rep, uint8_t src1Rep)
      : src0BlockStride(src0Blk), repeatTimes(repeat), src0RepeatStride(src0Rep), src1RepeatStride(src1Rep) {}
};

}  // namespace AscendC

namespace asc::kernel {

/// Non-template cores (src/kernel/gather_sort.cc). Byte sizes of the tensors
/// are passed for the per-element bounds checks.
void gather_bytes(const char* op, uint32_t esize, void* dst, const void* src, uint64_t src_bytes,
                  const uint32_t* offsets, uint32_t base, uint32_t n);
void scatter_bytes(const char* op, uint32_t esize, void* dst, uint64_t dst_bytes, const void* src,
                   const uint32_t* offsets, uint32_t base, uint32_t n);
void brcb(uint32_t esize, void* dst, const void* src, uint32_t repeat, uint32_t blk_stride, uint32_t rep_stride);
void transpose16(void* dst, const void* src);
/// Returns rsvdCnt. `pattern` is null for a built-in pattern `builtin`.
/// dst_bytes: a gathered element that would not fit is kIndexOutOfRange.
uint64_t gather_mask(uint32_t esize, void* dst, uint64_t dst_bytes, const void* src0, const uint8_t* pattern, uint8_t builtin,
                     bool counter_mode, uint32_t mask, const AscendC::GatherMaskParams& p);
/// Sorted records of n (value, index) pairs; `chunk` = 32 (per repeat) or n.
void sort_records(DType dtype, void* dst, const void* values, const uint32_t* indices, uint32_t n, uint32_t chunk);
void extract_records(DType dtype, void* values, uint32_t* indices, const void* records, uint32_t n);

namespace detail {
template <typename T>
inline uint64_t bytes_of(const AscendC::LocalTensor<T>& t) {
  return uint64_t{t.GetSize()} * sizeof(T);
}
template <typename T>
inline void need_bytes(const char* op, const AscendC::LocalTensor<T>& t, uint64_t bytes, const char* what) {
  if (bytes > bytes_of(t)) fail_size(op, what, bytes, bytes_of(t));
}
}  // namespace detail

}  // namespace asc::kernel

namespace AscendC {

template <typename T>
inline void Gather(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                   const LocalTensor<uint32_t>& srcOffsetLocal, const uint32_t srcBaseAddr, const uint32_t count) {
  namespace k = ::asc::kernel;
  k::detail::need_bytes("Gather", dstLocal, uint64_t{count} * sizeof(T), "bytes of dst");
  k::detail::need_bytes("Gather", srcOffsetLocal, uint64_t{count} * 4, "bytes of srcOffsetLocal");
  k::elide::read(srcLocal.raw(), k::detail::bytes_of(srcLocal));
  k::elide::read(srcOffsetLocal.raw(), uint64_t{count} * 4);
  k::elide::write(dstLocal.raw(), uint64_t{count} * sizeof(T));
  k::gather_bytes("Gather", sizeof(T), dstLocal.raw(), srcLocal.raw(), k::detail::bytes_of(srcLocal),
                  srcOffsetLocal.raw(), srcBaseAddr, count);
}

template <typename T>
inline void Scatter(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                    const LocalTensor<uint32_t>& dstOffsetLocal, const uint32_t dstBaseAddr, const uint32_t count) {
  namespace k = ::asc::kernel;
  k::detail::need_bytes("Scatter", srcLocal, uint64_t{count} * sizeof(T), "bytes of src");
  k::detail::need_bytes("Scatter", dstOffsetLocal, uint64_t{count} * 4, "bytes of dstOffsetLocal");
  k::elide::read(srcLocal.raw(), uint64_t{count} * sizeof(T));
  k::elide::read(dstOffsetLocal.raw(), uint64_t{count} * 4);
  k::elide::access(dstLocal.raw(), k::detail::bytes_of(dstLocal));
  k::scatter_bytes("Scatter", sizeof(T), dstLocal.raw(), k::detail::bytes_of(dstLocal), srcLocal.raw(),
                   dstOffsetLocal.raw(), dstBaseAddr, count);
}

template <typename T>
inline void Brcb(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const uint8_t repeatTimes,
                 const BrcbRepeatParams& repeatParams) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "Brcb takes 16- or 32-bit elements");
  namespace k = ::asc::kernel;
  if (repeatTimes == 0) return;
  const uint64_t dst_ext =
      (uint64_t(repeatTimes - 1) * repeatParams.dstRepStride + 7ull * repeatParams.dstBlkStride) * 32 + 32;
  k::detail::need_bytes("Brcb", dstLocal, dst_ext, "bytes of dst (repeat extent)");
  k::detail::need_bytes("Brcb", src0Local, uint64_t{repeatTimes} * 8 * sizeof(T), "bytes of src0");
  k::elide::read(src0Local.raw(), uint64_t{repeatTimes} * 8 * sizeof(T));
  k::elide::access(dstLocal.raw(), dst_ext);
  k::brcb(sizeof(T), dstLocal.raw(), src0Local.raw(), repeatTimes, repeatParams.dstBlkStride,
          repeatParams.dstRepStride);
}

/// 16x16 transpose of 2-byte elements.
template <typename T>
inline void Transpose(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal) {
  static_assert(sizeof(T) == 2, "Transpose (16x16) takes 2-byte elements");
  namespace k = ::asc::kernel;
  k::detail::need_bytes("Transpose", dstLocal, 512, "bytes of dst (16x16)");
  k::detail::need_bytes("Transpose", srcLocal, 512, "bytes of src (16x16)");
  k::elide::read(srcLocal.raw(), 512);
  k::elide::write(dstLocal.raw(), 512);
  k::transpose16(dstLocal.raw(), srcLocal.raw());
}

namespace detail {
template <typename T>
inline void gather_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t* pattern,
                        uint64_t pattern_bytes, uint8_t builtin, bool reduceMode, uint32_t mask,
                        const GatherMaskParams& p, uint64_t& rsvdCnt) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "GatherMask takes 16- or 32-bit elements");
  namespace k = ::asc::kernel;
  const uint32_t lanes = 256 / sizeof(T), lpb = 32 / sizeof(T);
  const uint32_t repeat = reduceMode ? (mask + lanes - 1) / lanes : p.repeatTimes;
  if (!pattern && (builtin < 1 || builtin > 7)) {
    k::fail(::asc::ErrorCode::kInvalidParam, "GatherMask",
            "src1Pattern " + std::to_string(builtin) + " is not a built-in pattern (1..7)");
  }
  rsvdCnt = 0;
  if (repeat == 0) return;
  // Source extent: the end of the last lane processed (normal mode: of the
  // last repeat's last block).
  const uint32_t last_lanes = reduceMode ? mask - (repeat - 1) * lanes : lanes;
  const uint32_t lk = (last_lanes - 1) / lpb, lj = (last_lanes - 1) % lpb;
  const uint64_t src_ext =
      (uint64_t(repeat - 1) * p.src0RepeatStride + uint64_t{lk} * p.src0BlockStride) * 32 + (lj + 1) * sizeof(T);
  k::detail::need_bytes("GatherMask", src0, src_ext, "bytes of src0 (repeat extent)");
  if (pattern) {
    const uint64_t need = uint64_t(repeat - 1) * p.src1RepeatStride * 32 + lanes / 8;
    if (need > pattern_bytes) k::fail_size("GatherMask", "bytes of src1Pattern", need, pattern_bytes);
    k::elide::read(pattern, need);
  }
  k::elide::read(src0.raw(), src_ext);
  // The output size is data-dependent: dst may be written anywhere in it.
  k::elide::access(dst.raw(), k::detail::bytes_of(dst));
  rsvdCnt = k::gather_mask(sizeof(T), dst.raw(), k::detail::bytes_of(dst), src0.raw(), pattern, builtin, reduceMode,
                           mask, p);
}
}  // namespace detail

template <typename T, typename U>
inline void GatherMask(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local,
                       const LocalTensor<U>& src1Pattern, const bool reduceMode, const uint32_t mask,
                       const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt) {
  static_assert(sizeof(U) == sizeof(T), "the pattern tensor has T's width (uint16_t / uint32_t)");
  detail::gather_mask(dstLocal, src0Local, reinterpret_cast<const uint8_t*>(src1Pattern.raw()),
                      ::asc::kernel::detail::bytes_of(src1Pattern), 0, reduceMode, mask, gatherMaskParams, rsvdCnt);
}
template <typename T>
inline void GatherMask(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt) {
  detail::gather_mask(dstLocal, src0Local, nullptr, 0, src1Pattern, reduceMode, mask, gatherMaskParams, rsvdCnt);
}

namespace detail {
template <typename T>
inline void sort_impl(const char* op, const LocalTensor<T>& dst, const LocalTensor<T>& values,
                      const LocalTensor<uint32_t>& indices, uint32_t n, uint32_t chunk) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Sort takes float or half");
  namespace k = ::asc::kernel;
  if (n == 0) return;
  k::detail::need_bytes(op, dst, uint64_t{n} * 8, "bytes of dst (8 per record)");
  k::detail::need_bytes(op, values, uint64_t{n} * sizeof(T), "bytes of the values");
  k::detail::need_bytes(op, indices, uint64_t{n} * 4, "bytes of the indices");
  k::elide::read(values.raw(), uint64_t{n} * sizeof(T));
  k::elide::read(indices.raw(), uint64_t{n} * 4);
  k::elide::write(dst.raw(), uint64_t{n} * 8);
  k::sort_records(::asc::dtype_of<T>(), dst.raw(), values.raw(), indices.raw(), n, chunk);
}
}  // namespace detail

template <typename T>
inline void Sort32(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local,
                   const LocalTensor<uint32_t>& src1Local, const int32_t repeatTimes) {
  if (repeatTimes < 0) ::asc::kernel::fail_negative_count("Sort32", repeatTimes);
  detail::sort_impl("Sort32", dstLocal, src0Local, src1Local, uint32_t(repeatTimes) * 32, 32);
}

template <typename T, bool isFullSort>
inline void Sort(const LocalTensor<T>& dstLocal, const LocalTensor<T>& concatLocal,
                 const LocalTensor<uint32_t>& indexLocal, LocalTensor<T>& tmpLocal, const int32_t repeatTimes) {
  (void)tmpLocal;
  if (repeatTimes < 0) ::asc::kernel::fail_negative_count("Sort", repeatTimes);
  const uint32_t n = uint32_t(repeatTimes) * 32;
  detail::sort_impl("Sort", dstLocal, concatLocal, indexLocal, n, isFullSort ? n : 32);
}

template <typename T>
inline void Extract(const LocalTensor<T>& dstValueLocal, const LocalTensor<uint32_t>& dstIndexLocal,
                    const LocalTensor<T>& sortedLocal, const int32_t repeatTimes) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Extract takes float or half");
  namespace k = ::asc::kernel;
  if (repeatTimes < 0) k::fail_negative_count("Extract", repeatTimes);
  const uint32_t n = uint32_t(repeatTimes) * 32;
  if (n == 0) return;
  k::detail::need_bytes("Extract", sortedLocal, uint64_t{n} * 8, "bytes of the sorted records");
  k::detail::need_bytes("Extract", dstValueLocal, uint64_t{n} * sizeof(T), "bytes of dstValue");
  k::detail::need_bytes("Extract", dstIndexLocal, uint64_t{n} * 4, "bytes of dstIndex");
  k::elide::read(sortedLocal.raw(), uint64_t{n} * 8);
  k::elide::write(dstValueLocal.raw(), uint64_t{n} * sizeof(T));
  k::elide::write(dstIndexLocal.raw(), uint64_t{n} * 4);
  k::extract_records(::asc::dtype_of<T>(), dstValueLocal.raw(), dstIndexLocal.raw(), sortedLocal.raw(), n);
}

}  // namespace AscendC
