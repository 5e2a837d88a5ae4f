// Host-side helpers of CANN's advanced API (tiling/tiling_api.h brings them
// in): AscendC::TensorShape (CANN's alias of ge::Shape) and the
// Get<Api>MaxMinTmpSize / Get<Api>TmpBufferFactorSize functions that tell a
// host how much scratch ("sharedTmpBuffer") the kernel-side API needs.
//
// The CPU device's implementations of these APIs use no scratch: they accept
// a sharedTmpBuffer and never touch it. The sizes returned are therefore a
// choice, not a hardware fact; they keep CANN's documented contract (min <=
// max, both multiples of 32 bytes, min > 0 so that a host may allocate a
// TBuf of min bytes): min = max = one 32-byte-aligned copy of the input
// (shape size x typeSize). The factor-size functions report maxLiveNodeCount
// = 1 and extraBuf = 0 (one input-sized buffer, nothing extra), consistent
// with those sizes.
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "register/tilingdata_base.h"

namespace AscendC {

/// A tensor shape (ge::Shape's interface: dims, their count and product).
class TensorShape {
 public:
  TensorShape() = default;
  explicit TensorShape(const std::vector<int64_t>& dims) : dims_(dims) {}
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}

  size_t GetDimNum() const { return dims_.size(); }
  /// Dimension `idx` (0 beyond the rank, as ge::Shape).
  int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
  /// Sets dimension `idx` (ignored beyond the rank, as ge::Shape).
  void SetDim(size_t idx, int64_t value) {
    if (idx < dims_.size()) dims_[idx] = value;
  }
  std::vector<int64_t> GetDims() const { return dims_; }
  /// Product of the dims (0 for a shape with no dims, as ge::Shape).
  int64_t GetShapeSize() const {
    if (dims_.empty()) return 0;
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return n;
  }

 private:
  std::vector<int64_t> dims_;
};

namespace detail_tiling {
/// One 32-byte-aligned copy of `elems` elements of `typeSize` bytes (>= 32).
inline uint32_t scratch(int64_t elems, uint32_t typeSize) {
  const uint64_t bytes = (elems > 0 ? static_cast<uint64_t>(elems) : 0) * typeSize;
  const uint64_t aligned = (bytes + 31) / 32 * 32;
  return static_cast<uint32_t>(aligned < 32 ? 32 : (aligned > UINT32_MAX ? UINT32_MAX / 32 * 32 : aligned));
}
inline void both(const TensorShape& s, uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
  maxValue = minValue = scratch(s.GetShapeSize(), typeSize);
}
inline void factor(uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
  maxLiveNodeCount = 1;
  extraBuf = 0;
}
}  // namespace detail_tiling

// ---- activation
inline uint32_t GetGeluMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize) {
  return detail_tiling::scratch(srcShape.GetShapeSize(), typeSize);
}
inline uint32_t GetGeluMaxTmpSize(const TensorShape& srcShape, const uint32_t typeSize) {
  return detail_tiling::scratch(srcShape.GetShapeSize(), typeSize);
}
inline void GetGeluMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                 uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetSiluTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool /*isReuseSource*/,
                           uint32_t& maxValue, uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetSwishTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool /*isReuseSource*/,
                            uint32_t& maxValue, uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetSigmoidMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, bool /*isReuseSource*/,
                                    uint32_t& maxValue, uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetSwiGLUMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                   uint32_t& minValue, const bool /*isReuseSource*/) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetSwiGLUTmpBufferFactorSize(const uint32_t /*typeSize*/, uint32_t& maxLiveNodeCount,
                                         uint32_t& extraBuffer) {
  detail_tiling::factor(maxLiveNodeCount, extraBuffer);
}
inline void GetGeGLUMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool /*isReuseSource*/,
                                  uint32_t& maxValue, uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetGeGLUTmpBufferFactorSize(const uint32_t /*typeSize*/, uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
  detail_tiling::factor(maxLiveNodeCount, extraBuf);
}
inline uint32_t GetSoftMaxMaxTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                     const bool /*isReuseSource*/) {
  return detail_tiling::scratch(srcShape.GetShapeSize(), dataTypeSize);
}
inline uint32_t GetSoftMaxMinTmpSize(const TensorShape& srcShape, const uint32_t dataTypeSize,
                                     const bool /*isReuseSource*/) {
  return detail_tiling::scratch(srcShape.GetShapeSize(), dataTypeSize);
}

}  // namespace AscendC

namespace optiling {
/// Host-side SoftMax tiling (the tiling-data class whose bytes are the
/// kernel-side ::SoftMaxTiling struct; used as TILING_DATA_FIELD_DEF_STRUCT).
BEGIN_TILING_DATA_DEF(SoftMaxTiling)
TILING_DATA_FIELD_DEF(uint32_t, srcM);
TILING_DATA_FIELD_DEF(uint32_t, srcK);
TILING_DATA_FIELD_DEF(uint32_t, srcSize);
TILING_DATA_FIELD_DEF(uint32_t, outMaxM);
TILING_DATA_FIELD_DEF(uint32_t, outMaxK);
TILING_DATA_FIELD_DEF(uint32_t, outMaxSize);
TILING_DATA_FIELD_DEF(uint32_t, splitM);
TILING_DATA_FIELD_DEF(uint32_t, splitK);
TILING_DATA_FIELD_DEF(uint32_t, splitSize);
TILING_DATA_FIELD_DEF(uint32_t, reduceM);
TILING_DATA_FIELD_DEF(uint32_t, reduceK);
TILING_DATA_FIELD_DEF(uint32_t, reduceSize);
TILING_DATA_FIELD_DEF(uint32_t, rangeM);
TILING_DATA_FIELD_DEF(uint32_t, tailM);
TILING_DATA_FIELD_DEF(uint32_t, tailSplitSize);
TILING_DATA_FIELD_DEF(uint32_t, tailReduceSize);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace AscendC {

/// Fills SoftMax's tiling for an ND source of srcShape (the last dim is srcK,
/// the product of the others srcM). The CPU kernel reads only the shape
/// (SoftMaxShapeInfo) and needs no scratch, so the plan is one split over all
/// rows: split = the whole tile, reduce = one 32-byte block per row (the
/// sum/max layout), rangeM = 1, no tail.
inline void SoftMaxTilingFunc(const TensorShape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t /*localWorkSpaceSize*/, optiling::SoftMaxTiling& softmaxTiling) {
  const size_t rank = srcShape.GetDimNum();
  const uint32_t k = rank ? static_cast<uint32_t>(srcShape.GetDim(rank - 1)) : 0;
  uint32_t m = rank ? 1 : 0;
  for (size_t i = 0; i + 1 < rank; ++i) m *= static_cast<uint32_t>(srcShape.GetDim(i));
  const uint32_t block = dataTypeSize ? 32 / dataTypeSize : 0;
  softmaxTiling.set_srcM(m);
  softmaxTiling.set_srcK(k);
  softmaxTiling.set_srcSize(m * k);
  softmaxTiling.set_outMaxM(m);
  softmaxTiling.set_outMaxK(block);
  softmaxTiling.set_outMaxSize(m * block);
  softmaxTiling.set_splitM(m);
  softmaxTiling.set_splitK(k);
  softmaxTiling.set_splitSize(m * k);
  softmaxTiling.set_reduceM(m);
  softmaxTiling.set_reduceK(block);
  softmaxTiling.set_reduceSize(m * block);
  softmaxTiling.set_rangeM(1);
  softmaxTiling.set_tailM(0);
  softmaxTiling.set_tailSplitSize(0);
  softmaxTiling.set_tailReduceSize(0);
}

// ---- math
// The lib/math functions with CANN's common signature (srcShape, typeSize,
// isReuseSource, maxValue, minValue).
#define ASC_MATH_TMP_SIZE_(NAME)                                                                           \
  inline void Get##NAME##MaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize,              \
                                       const bool /*isReuseSource*/, uint32_t& maxValue, uint32_t& minValue) { \
    detail_tiling::both(srcShape, typeSize, maxValue, minValue);                                          \
  }
ASC_MATH_TMP_SIZE_(Acos)
ASC_MATH_TMP_SIZE_(Acosh)
ASC_MATH_TMP_SIZE_(Asin)
ASC_MATH_TMP_SIZE_(Asinh)
ASC_MATH_TMP_SIZE_(Atan)
ASC_MATH_TMP_SIZE_(Atanh)
ASC_MATH_TMP_SIZE_(Ceil)
ASC_MATH_TMP_SIZE_(Cos)
ASC_MATH_TMP_SIZE_(Cosh)
ASC_MATH_TMP_SIZE_(Digamma)
ASC_MATH_TMP_SIZE_(Erf)
ASC_MATH_TMP_SIZE_(Erfc)
ASC_MATH_TMP_SIZE_(Floor)
ASC_MATH_TMP_SIZE_(Lgamma)
ASC_MATH_TMP_SIZE_(Log)
ASC_MATH_TMP_SIZE_(Sign)
ASC_MATH_TMP_SIZE_(Sin)
ASC_MATH_TMP_SIZE_(Sinh)
ASC_MATH_TMP_SIZE_(Tan)
ASC_MATH_TMP_SIZE_(Tanh)
ASC_MATH_TMP_SIZE_(Trunc)
#undef ASC_MATH_TMP_SIZE_
inline bool GetExpMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool /*isReuseSource*/,
                                uint32_t& maxValue, uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
  return true;
}
inline void GetExpTmpBufferFactorSize(const uint32_t /*typeSize*/, uint32_t& maxLiveNodeCount, uint32_t& extraBuffer) {
  detail_tiling::factor(maxLiveNodeCount, extraBuffer);
}
inline void GetFracMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool /*isReuseSource*/,
                                 uint32_t& maxValue, uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetXorMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, const bool /*isReuseSource*/,
                                uint32_t& maxValue, uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetPowerMaxMinTmpSize(const TensorShape& srcShape1, const TensorShape& srcShape2, const bool /*typeIsInt*/,
                                  const uint32_t typeSize, const bool /*isReuseSource*/, uint32_t& maxValue,
                                  uint32_t& minValue) {
  const int64_t n1 = srcShape1.GetShapeSize(), n2 = srcShape2.GetShapeSize();
  maxValue = minValue = detail_tiling::scratch(n1 > n2 ? n1 : n2, typeSize);
}

// ---- reduce
/// Sum's scratch for rows of n elements of typeSize bytes.
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool /*isReuseSource*/,
                                uint32_t& maxSize, uint32_t& minSize) {
  maxSize = minSize = detail_tiling::scratch(n, typeSize);
}

// ---- quantization
inline void GetAscendQuantMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                        uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetAscendQuantTmpBufferFactorSize(uint32_t& maxLiveNodeCount, uint32_t& extraBuf) {
  detail_tiling::factor(maxLiveNodeCount, extraBuf);
}
inline void GetQuantizeMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                     uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetAscendDequantMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                          uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}
inline void GetDequantizeMaxMinTmpSize(const TensorShape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                       uint32_t& minValue) {
  detail_tiling::both(srcShape, typeSize, maxValue, minValue);
}

}  // namespace AscendC
