// Copy: UB -> UB copy of the vector unit, mask/repeat form (CANN's
// AscendC::Copy with CopyRepeatParams):
//
//   Copy(dst, src, mask, repeatTime, {dstStride, srcStride, dstRepeatSize, srcRepeatSize});
//   Copy(dst, src, maskBits /*uint64_t[2]*/, repeatTime, params);
//   Copy<T, false>(dst, src, MASK_PLACEHOLDER, repeatTime, params);  // mask register (SetVectorMask)
//
// Each repeat covers 256 bytes of lanes (128 16-bit or 64 32-bit elements) in
// 32-byte blocks; a selected lane i of repeat r moves
//   src[(r * srcRepeatSize + i / E * srcStride) * E + i % E]
//   -> dst[(r * dstRepeatSize + i / E * dstStride) * E + i % E]     (E = 32 / sizeof(T))
// with strides counted in 32-byte blocks. Lanes the mask leaves out keep
// dst's values. The operands' extents are checked against the tensors.
#pragma once

#include <cstdint>
#include <cstring>

#include "asc/kernel/vector_mask.h"

namespace AscendC {

struct CopyRepeatParams {
  CopyRepeatParams() = default;
  CopyRepeatParams(uint16_t dstStrideIn, uint16_t srcStrideIn, uint16_t dstRepeatSizeIn, uint16_t srcRepeatSizeIn)
      : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
        srcRepeatSize(srcRepeatSizeIn) {}
  uint16_t dstStride = 1;
  uint16_t srcStride = 1;
  uint16_t dstRepeatSize = 8;
  uint16_t srcRepeatSize = 8;
};

}  // namespace AscendC

namespace asc::kernel::detail {

template <typename T>
inline void copy_rep(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, MaskArg m,
                     uint8_t repeat, const AscendC::CopyRepeatParams& p) {
  simd::RepeatLayout l = make_layout<T>("Copy", m, repeat);
  l.blk[0] = p.dstStride;
  l.blk[1] = p.srcStride;
  l.rep[0] = p.dstRepeatSize;
  l.rep[1] = p.srcRepeatSize;
  const uint64_t e0 = repeat_operand("Copy", l, 0, dst, "bytes of dst (mask/repeat extent)");
  const uint64_t e1 = repeat_operand("Copy", l, 1, src, "bytes of src (mask/repeat extent)");
  elide::read(src.raw(), e1);
  elide::access(dst.raw(), e0);
  const uint32_t lanes = simd::repeat_lanes(sizeof(T));
  const uint32_t per_block = 32 / sizeof(T);
  T* d = dst.raw();
  const T* s = src.raw();
  for (uint32_t r = 0; r < l.repeat; ++r) {
    for (uint32_t i = 0; i < lanes; ++i) {
      if (!((l.mask[i / 64] >> (i % 64)) & 1u)) continue;
      const uint64_t blk = i / per_block, j = i % per_block;
      const uint64_t di = (uint64_t{r} * l.rep[0] + blk * l.blk[0]) * per_block + j;
      const uint64_t si = (uint64_t{r} * l.rep[1] + blk * l.blk[1]) * per_block + j;
      std::memcpy(d + di, s + si, sizeof(T));
    }
  }
}

}  // namespace asc::kernel::detail

namespace AscendC {

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint64_t mask, uint8_t repeatTime,
                 const CopyRepeatParams& repeatParams) {
  ::asc::kernel::detail::MaskArg m{nullptr, mask, !isSetMask};
  ::asc::kernel::detail::copy_rep(dstLocal, srcLocal, m, repeatTime, repeatParams);
}

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint64_t mask[],
                 uint8_t repeatTime, const CopyRepeatParams& repeatParams) {
  ::asc::kernel::detail::MaskArg m{mask, 0, !isSetMask};
  ::asc::kernel::detail::copy_rep(dstLocal, srcLocal, m, repeatTime, repeatParams);
}

}  // namespace AscendC
