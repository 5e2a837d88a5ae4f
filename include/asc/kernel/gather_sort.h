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
// * Gatherb(dst, src, offset, repeatTime, GatherRepeatParams{dstBlkStride,
//   dstRepStride}): gathers 32-byte blocks; repeat i copies 8 blocks, block j
//   from byte offset[8 i + j] of src to block (i * dstRepStride + j *
//   dstBlkStride) of dst (dstBlkStride 0 counts as 1; the other fields of
//   GatherRepeatParams are reserved, as CANN documents). Offsets must be
//   multiples of 32 (kInvalidParam) and the block inside src
//   (kIndexOutOfRange); dst must not be src. Any element type.
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
//   reduceMode true (counter): repeatTimes repeats of `mask` elements each
//   (CANN's "configuration one", that of the A2/A3 and Ascend 950 products;
//   a repeat may reach past 256 bytes, and its pattern bits are consumed
//   continuously). Lane l of repeat r is src0 element
//   r * src0RepeatStride * 32 + (l / (32 / sizeof(T))) * src0BlockStride * 32
//   bytes in (32-byte blocks).
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
#include <cstring>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"
#include "asc/kernel/vector.h"
#include "asc/kernel/vector_mask.h"

namespace AscendC {

struct BrcbRepeatParams {
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
  BrcbRepeatParams() = default;
  BrcbRepeatParams(uint16_t blk, uint16_t rep) : dstBlkStride(blk), dstRepStride(rep) {}
};

/// Gatherb's repeat parameters: dstBlkStride / dstRepStride (32-byte blocks)
/// are used; the rest are reserved fields CANN keeps for compatibility.
struct GatherRepeatParams {
  GatherRepeatParams() = default;
  GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
      : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
  uint32_t blockNumber = 8;
  uint16_t dstRepStride = 8;
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
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
/// Gatherb's blocks (dst_bytes: a block that would not fit is kIndexOutOfRange).
void gatherb(void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes, const uint32_t* offsets,
             uint32_t repeat, uint32_t blk_stride, uint32_t rep_stride);
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
inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
                    const uint8_t repeatTime, const GatherRepeatParams& repeatParams) {
  namespace k = ::asc::kernel;
  if (repeatTime == 0) return;  // a NOP, as CANN documents for dav-2201
  k::detail::need_bytes("Gatherb", offset, uint64_t{repeatTime} * 8 * 4, "bytes of offset (8 per repeat)");
  k::elide::read(src.raw(), k::detail::bytes_of(src));
  k::elide::read(offset.raw(), uint64_t{repeatTime} * 8 * 4);
  k::elide::access(dst.raw(), k::detail::bytes_of(dst));
  k::gatherb(dst.raw(), k::detail::bytes_of(dst), src.raw(), k::detail::bytes_of(src), offset.raw(), repeatTime,
             repeatParams.dstBlkStride == 0 ? 1u : repeatParams.dstBlkStride, repeatParams.dstRepStride);
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
  const uint32_t repeat = reduceMode && mask == 0 ? 0 : p.repeatTimes;
  if (!pattern && (builtin < 1 || builtin > 7)) {
    k::fail(::asc::ErrorCode::kInvalidParam, "GatherMask",
            "src1Pattern " + std::to_string(builtin) + " is not a built-in pattern (1..7)");
  }
  rsvdCnt = 0;
  if (repeat == 0) return;
  // Source extent: the end of the last lane processed (normal mode: of the
  // last repeat's last block).
  const uint32_t last_lanes = reduceMode ? mask : lanes;
  const uint32_t lk = (last_lanes - 1) / lpb, lj = (last_lanes - 1) % lpb;
  const uint64_t src_ext =
      (uint64_t(repeat - 1) * p.src0RepeatStride + uint64_t{lk} * p.src0BlockStride) * 32 + (lj + 1) * sizeof(T);
  k::detail::need_bytes("GatherMask", src0, src_ext, "bytes of src0 (repeat extent)");
  if (pattern) {
    const uint64_t need = uint64_t(repeat - 1) * p.src1RepeatStride * 32 + (uint64_t{last_lanes} + 7) / 8;
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

// ============================================================================
// Merge sort, Concat, the mask/repeat form of Gather, the parameterised
// Transpose and TransDataTo5HD (src/kernel/gather_sort.cc).
//
// * Gather(dst, src, srcOffsetLocal, srcBaseAddr, mask, repeatTimes,
//   dstRepStride) (mask as a lane count or uint64_t[2]): repeat r covers
//   L = 256 / sizeof(T) lanes; each selected lane l gets
//   dst[r * dstRepStride * 32 / sizeof(T) + l] = the element at byte
//   srcBaseAddr + srcOffsetLocal[r * L + l] of src. Unselected lanes of dst
//   are not written and their offsets are not read. 16- and 32-bit T.
// * MrgSort(dst, MrgSortSrcList{src1, src2, src3, src4}, MrgSort4Info{
//   elementLengths[4], ifExhaustedSuspension, validBit, repeatTimes}): merges
//   2, 3 or 4 lists of 8-byte Sort records (float: [value, index]; half:
//   [value, 0, index]), each sorted descending, into dst, descending; equal
//   values keep list order (src1 first), NaN sorts first as in Sort. validBit
//   0b11 / 0b111 / 0b1111 selects src1..src2 / ..src3 / ..src4.
//   ifExhaustedSuspension stops as soon as one list is exhausted (the rest is
//   not written). repeatTimes > 1 needs validBit 0b1111 and four equal
//   lengths: repeat r merges the four lists of elementLengths[0] records that
//   follow each other from src1 + 4 r elementLengths[0] records into dst +
//   4 r elementLengths[0] records. The destination must not overlap a source.
//   GetMrgSortResult(n1, n2, n3, n4) returns how many records the last
//   MrgSort of this block took from each list (its last repeat).
// * Concat(concatLocal, srcLocal, tmpLocal, repeatTimes): the preparation
//   step of Sort; Sort of this architecture takes plain values, so it copies
//   repeatTimes * 16 elements of src into concatLocal (tmpLocal unused).
// * Transpose(dst, src, sharedTmpBuffer, TransposeParamsExt{nSize, cSize,
//   hSize, wSize, transposeType}) for 1-, 2- and 4-byte T:
//   TRANSPOSE_NCHW2NHWC: dst[n][h][w][c] = src[n][c][h][w];
//   TRANSPOSE_NHWC2NCHW: dst[n][c][h][w] = src[n][h][w][c];
//   TRANSPOSE_ND2ND_B16: the 16 x 16 transpose of Transpose(dst, src)
//   (2-byte T). Other transposeTypes are kFeatureUnsupported; dst must not
//   overlap src (kInvalidParam), sharedTmpBuffer is not needed on the CPU.
// * TransDataTo5HD(dstList[16], srcList[16], TransDataTo5HDParams{
//   dstHighHalf, srcHighHalf, repeatTimes, dstRepStride, srcRepStride}):
//   the lists name 32-byte blocks (LocalTensors, or addresses from
//   GetPhyAddr()); repeat r uses blocks srcRepStride * r (dstRepStride * r)
//   blocks after each address. 2-byte T: dst_j[i] = src_i[j] (a 16 x 16
//   transpose). 4-byte T: the 16 x 8 matrix of the sources becomes 8 rows of
//   16: dst_{2c}[t] = src_t[c], dst_{2c+1}[t] = src_{8+t}[c]. 1-byte T: the
//   16 x 16 bytes of the sources' low (srcHighHalf = false) or high 16 bytes
//   go, transposed, to the low or high (dstHighHalf) 16 bytes of each dst
//   block: dst_j[16 dh + i] = src_i[16 sh + j].
// ============================================================================

namespace AscendC {

constexpr int32_t MRG_SORT_ELEMENT_LEN = 4;
constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

template <typename T>
struct MrgSortSrcList {
  MrgSortSrcList() = default;
  MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In,
                 const LocalTensor<T>& src4In)
      : src1(src1In), src2(src2In), src3(src3In), src4(src4In) {}
  LocalTensor<T> src1;
  LocalTensor<T> src2;
  LocalTensor<T> src3;
  LocalTensor<T> src4;
};

struct MrgSort4Info {
  MrgSort4Info() = default;
  MrgSort4Info(const uint16_t elementLengthsIn[MRG_SORT_ELEMENT_LEN], const bool ifExhaustedSuspensionIn,
               const uint16_t validBitIn, const uint16_t repeatTimesIn)
      : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn) {
    for (int i = 0; i < MRG_SORT_ELEMENT_LEN; ++i) elementLengths[i] = elementLengthsIn[i];
  }
  uint16_t elementLengths[MRG_SORT_ELEMENT_LEN] = {0};
  bool ifExhaustedSuspension = false;
  uint16_t validBit = 0;
  uint16_t repeatTimes = 1;
};

enum class TransposeType : uint8_t {
  TRANSPOSE_TYPE_NONE = 0,
  TRANSPOSE_NZ2ND_0213,
  TRANSPOSE_NZ2NZ_0213,
  TRANSPOSE_NZ2NZ_012_WITH_N,
  TRANSPOSE_NZ2ND_012_WITH_N,
  TRANSPOSE_NZ2ND_012_WITHOUT_N,
  TRANSPOSE_NZ2NZ_012_WITHOUT_N,
  TRANSPOSE_ND2ND_ONLY,
  TRANSPOSE_ND_UB_GM,
  TRANSPOSE_GRAD_ND_UB_GM,
  TRANSPOSE_ND2ND_B16,
  TRANSPOSE_NCHW2NHWC,
  TRANSPOSE_NHWC2NCHW,
};

struct TransposeParamsExt {
  TransposeParamsExt() = default;
  TransposeParamsExt(const uint16_t nSizeIn, const uint16_t cSizeIn, const uint16_t hSizeIn, const uint16_t wSizeIn,
                     const TransposeType transposeTypeIn)
      : nSize(nSizeIn), cSize(cSizeIn), hSize(hSizeIn), wSize(wSizeIn), transposeType(transposeTypeIn) {}
  uint16_t nSize = 0;
  uint16_t cSize = 0;
  uint16_t hSize = 0;
  uint16_t wSize = 0;
  TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};

struct TransDataTo5HDParams {
  TransDataTo5HDParams() = default;
  TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                       const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
      : dstHighHalf(dstHighHalfIn),
        srcHighHalf(srcHighHalfIn),
        repeatTimes(repeatTimesIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
  bool dstHighHalf = false;
  bool srcHighHalf = false;
  uint8_t repeatTimes = 1;
  uint16_t dstRepStride = 0;
  uint16_t srcRepStride = 0;
};

}  // namespace AscendC

namespace asc::kernel {

/// Mask/repeat Gather core: `mask` holds the selected lanes (mask[1] unused
/// for 4-byte elements); offsets_count = elements of srcOffsetLocal.
void gather_repeat(uint32_t esize, void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes,
                   const uint32_t* offsets, uint64_t offsets_count, uint32_t base, const uint64_t mask[2],
                   uint32_t repeat, uint32_t dst_rep_stride);
/// MrgSort core. lists[i] / list_bytes[i]: the four sources (unused ones may
/// be null); records the counts GetMrgSortResult returns.
void mrg_sort(DType dtype, void* dst, uint64_t dst_bytes, const void* const lists[4], const uint64_t list_bytes[4],
              const AscendC::MrgSort4Info& info);
/// Counts of the last mrg_sort on this thread.
const uint16_t* mrg_sort_taken() noexcept;
void transpose_ext(uint32_t esize, void* dst, uint64_t dst_bytes, const void* src, uint64_t src_bytes,
                   const AscendC::TransposeParamsExt& p);
void trans_data_to_5hd(uint32_t esize, void* const dst[16], const void* const src[16],
                       const AscendC::TransDataTo5HDParams& p);

}  // namespace asc::kernel

namespace AscendC {

namespace detail {
template <typename T>
inline void gather_rep(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offsets,
                       uint32_t base, ::asc::kernel::detail::MaskArg m, uint8_t repeat, uint16_t dstRepStride) {
  namespace k = ::asc::kernel;
  const ::asc::kernel::simd::RepeatLayout l = k::detail::make_layout<T>("Gather", m, repeat);
  if (repeat == 0) return;
  // The offsets and dst are read / written per lane: the whole tensors are made real.
  k::elide::read(src.raw(), k::detail::bytes_of(src));
  k::elide::read(offsets.raw(), k::detail::bytes_of(offsets));
  k::elide::access(dst.raw(), k::detail::bytes_of(dst));
  k::gather_repeat(sizeof(T), dst.raw(), k::detail::bytes_of(dst), src.raw(), k::detail::bytes_of(src),
                   offsets.raw(), offsets.GetSize(), base, l.mask, repeat, dstRepStride);
}
}  // namespace detail

/// Mask/repeat form of Gather (see above).
template <typename T>
inline void Gather(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                   const LocalTensor<uint32_t>& srcOffsetLocal, const uint32_t srcBaseAddr, const uint64_t mask,
                   const uint8_t repeatTimes, const uint16_t dstRepStride) {
  detail::gather_rep(dstLocal, srcLocal, srcOffsetLocal, srcBaseAddr, {nullptr, mask, false}, repeatTimes,
                     dstRepStride);
}
template <typename T>
inline void Gather(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                   const LocalTensor<uint32_t>& srcOffsetLocal, const uint32_t srcBaseAddr, const uint64_t mask[],
                   const uint8_t repeatTimes, const uint16_t dstRepStride) {
  detail::gather_rep(dstLocal, srcLocal, srcOffsetLocal, srcBaseAddr, {mask, 0, false}, repeatTimes, dstRepStride);
}

/// Merges 2-4 sorted record lists (see above).
template <typename T>
inline void MrgSort(const LocalTensor<T>& dstLocal, const MrgSortSrcList<T>& sortList, const MrgSort4Info& params) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "MrgSort takes float or half records");
  namespace k = ::asc::kernel;
  const LocalTensor<T>* l[4] = {&sortList.src1, &sortList.src2, &sortList.src3, &sortList.src4};
  const void* ptr[4];
  uint64_t bytes[4];
  for (int i = 0; i < 4; ++i) {
    ptr[i] = l[i]->raw();
    bytes[i] = k::detail::bytes_of(*l[i]);
    if (ptr[i] && (params.validBit >> i) & 1u) k::elide::read(ptr[i], bytes[i]);
  }
  k::elide::access(dstLocal.raw(), k::detail::bytes_of(dstLocal));
  k::mrg_sort(::asc::dtype_of<T>(), dstLocal.raw(), k::detail::bytes_of(dstLocal), ptr, bytes, params);
}

/// Records the last MrgSort of this block took from each list.
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4) {
  const uint16_t* t = ::asc::kernel::mrg_sort_taken();
  mrgSortList1 = t[0];
  mrgSortList2 = t[1];
  mrgSortList3 = t[2];
  mrgSortList4 = t[3];
}

/// Sort's preparation step: a copy of repeatTimes * 16 elements here.
template <typename T>
inline void Concat(LocalTensor<T>& concatLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& tmpLocal,
                   const int32_t repeatTimes) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Concat takes float or half");
  (void)tmpLocal;
  namespace k = ::asc::kernel;
  if (repeatTimes < 0) k::fail_negative_count("Concat", repeatTimes);
  const uint64_t bytes = uint64_t(repeatTimes) * 16 * sizeof(T);
  if (bytes == 0) return;
  k::detail::need_bytes("Concat", concatLocal, bytes, "bytes of concatLocal");
  k::detail::need_bytes("Concat", srcLocal, bytes, "bytes of srcLocal");
  k::elide::read(srcLocal.raw(), bytes);
  k::elide::write(concatLocal.raw(), bytes);
  std::memmove(concatLocal.raw(), srcLocal.raw(), bytes);
}

/// The parameterised Transpose (see above).
template <typename T>
inline void Transpose(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                      const LocalTensor<uint8_t>& sharedTmpBuffer, const TransposeParamsExt& transposeParams) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "Transpose takes 1-, 2- or 4-byte elements");
  (void)sharedTmpBuffer;
  namespace k = ::asc::kernel;
  k::elide::read(srcLocal.raw(), k::detail::bytes_of(srcLocal));
  k::elide::access(dstLocal.raw(), k::detail::bytes_of(dstLocal));
  k::transpose_ext(sizeof(T), dstLocal.raw(), k::detail::bytes_of(dstLocal), srcLocal.raw(),
                   k::detail::bytes_of(srcLocal), transposeParams);
}

namespace detail {
template <typename T>
inline void trans_5hd_check(const LocalTensor<T>& t, const TransDataTo5HDParams& p, uint16_t rep_stride,
                            const char* what) {
  namespace k = ::asc::kernel;
  if (p.repeatTimes == 0) return;
  const uint64_t need = (uint64_t(p.repeatTimes) - 1) * rep_stride * 32 + 32;
  k::detail::need_bytes("TransDataTo5HD", t, need, what);
}
}  // namespace detail

/// TransDataTo5HD over LocalTensor lists (see above).
template <typename T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstLocalList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const LocalTensor<T> (&srcLocalList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "TransDataTo5HD takes 1-, 2- or 4-byte elements");
  namespace k = ::asc::kernel;
  void* d[16];
  const void* s[16];
  const uint64_t src_ext = nchwconvParams.repeatTimes == 0
                               ? 0
                               : (uint64_t(nchwconvParams.repeatTimes) - 1) * nchwconvParams.srcRepStride * 32 + 32;
  const uint64_t dst_ext = nchwconvParams.repeatTimes == 0
                               ? 0
                               : (uint64_t(nchwconvParams.repeatTimes) - 1) * nchwconvParams.dstRepStride * 32 + 32;
  for (int i = 0; i < 16; ++i) {
    detail::trans_5hd_check(srcLocalList[i], nchwconvParams, nchwconvParams.srcRepStride, "bytes of a source block");
    detail::trans_5hd_check(dstLocalList[i], nchwconvParams, nchwconvParams.dstRepStride,
                            "bytes of a destination block");
    s[i] = srcLocalList[i].raw();
    d[i] = dstLocalList[i].raw();
    k::elide::read(s[i], src_ext);
  }
  for (int i = 0; i < 16; ++i) k::elide::access(d[i], dst_ext);
  k::trans_data_to_5hd(sizeof(T), d, s, nchwconvParams);
}
/// TransDataTo5HD over address lists (GetPhyAddr() values; not bounds-checked).
template <typename T>
inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "TransDataTo5HD takes 1-, 2- or 4-byte elements");
  void* d[16];
  const void* s[16];
  for (int i = 0; i < 16; ++i) {
    d[i] = reinterpret_cast<void*>(dstList[i]);
    s[i] = reinterpret_cast<const void*>(srcList[i]);
  }
  ::asc::kernel::trans_data_to_5hd(sizeof(T), d, s, nchwconvParams);
}

}  // namespace AscendC
