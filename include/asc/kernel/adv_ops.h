// Ascend C APIs that hicann/pyasc's kernel tests use and the rest of the
// kernel API lacked: AscendQuant (lib/quantization), SoftMax
// (lib/activation) and the BilinearInterpolation vector instruction.
//
//   AscendQuant(dst_int8, src, [sharedTmpBuffer,] scale, offset, calCount)
//     dst[i] = saturate_int8(rint(src[i] * scale + offset)), computed in T
//     (half inputs: each step rounded to half, as the hardware's half
//     Muls / Adds / Cast with CAST_RINT; scale and offset converted to T).
//   SoftMax(dst, sumTensor, maxTensor, src, tiling, SoftMaxShapeInfo{m, k, ...})
//     row-wise over an m x k ND tile: max = rowmax, dst = exp(src - max) / sum
//     with sum = rowsum(exp(src - max)); sum and max are written once per row,
//     repeated over one 32-byte block (8 floats / 16 halves) as the hardware's
//     reduce layout. Arithmetic in float (half inputs are widened). dst may be src.
//   BilinearInterpolation(dst, src0, src0Offset, src1, mask, hRepeat, repeatMode,
//                         dstBlkStride, vROffset, vRepeat, sharedTmpBuffer)
//     for each vertical repeat v and horizontal repeat h, the 8 32-byte blocks
//     of repeat r = v * hRepeat + h are gathered from src0 at the byte offsets
//     src0Offset[r * 8 + b], multiplied by src1[r] (repeatMode false) or
//     src1[r * 8 + b] (true), and summed over h (in T, in order h = 0, 1, ...)
//     into dst at v * vROffset elements, block b at b * dstBlkStride blocks;
//     the first `mask` lanes of each repeat are written.
//
// Errors: asc::Error naming the API and the kernel/block (context.h) for
// counts beyond a tensor, a non-int8 quant destination, a shape that does not
// fit the tensors, offsets outside src0.
//
// Thread-safety: like every kernel API call, per block.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "asc/kernel/context.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace AscendC {

/// The logical m x k shape SoftMax works on (srcM rows of srcK elements).
struct SoftMaxShapeInfo {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
};

/// SoftMax's host tiling (accepted; the CPU implementation needs none of it).
struct SoftMaxTiling {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t srcSize = 0;
  uint32_t outMaxM = 0;
  uint32_t outMaxK = 0;
  uint32_t outMaxSize = 0;
  uint32_t splitM = 0;
  uint32_t splitK = 0;
  uint32_t splitSize = 0;
  uint32_t reduceM = 0;
  uint32_t reduceK = 0;
  uint32_t reduceSize = 0;
  uint32_t rangeM = 0;
  uint32_t tailM = 0;
  uint32_t tailSplitSize = 0;
  uint32_t tailReduceSize = 0;
};

namespace detail_adv {
template <typename T>
inline void need(const char* op, const LocalTensor<T>& t, uint64_t n, const char* what) {
  if (n > t.GetSize()) ::asc::kernel::fail_size(op, what, n, t.GetSize());
}
}  // namespace detail_adv

template <typename T, bool isReuseSource = false>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor, const float scale,
                        const float offset, const uint32_t calCount) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "AscendQuant: src must be half or float");
  detail_adv::need("AscendQuant", dstTensor, calCount, "elements of dst");
  detail_adv::need("AscendQuant", srcTensor, calCount, "elements of src");
  const T s = T(scale), o = T(offset);
  int8_t* d = dstTensor.data();
  const T* x = srcTensor.data();
  for (uint32_t i = 0; i < calCount; ++i) {
    const T v = T(float(T(float(x[i]) * float(s))) + float(o));  // each step rounded to T
    const float r = std::nearbyint(float(v));                    // ties to even (CAST_RINT)
    d[i] = static_cast<int8_t>(std::isnan(r) ? 0.0f : std::min(127.0f, std::max(-128.0f, r)));
  }
}

template <typename T, bool isReuseSource = false>
inline void AscendQuant(const LocalTensor<int8_t>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const float scale, const float offset,
                        const uint32_t calCount) {
  AscendQuant<T, isReuseSource>(dstTensor, srcTensor, scale, offset, calCount);
}

template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const SoftMaxTiling& /*tiling*/,
                    const SoftMaxShapeInfo& shape) {
  const uint64_t m = shape.srcM, k = shape.srcK;
  const uint64_t per_block = 32 / sizeof(T);
  detail_adv::need("SoftMax", srcTensor, m * k, "elements of src (srcM x srcK)");
  detail_adv::need("SoftMax", dstTensor, m * k, "elements of dst (srcM x srcK)");
  detail_adv::need("SoftMax", sumTensor, m * per_block, "elements of sum (one 32-byte block per row)");
  detail_adv::need("SoftMax", maxTensor, m * per_block, "elements of max (one 32-byte block per row)");
  const T* x = srcTensor.data();
  T* y = dstTensor.data();
  for (uint64_t r = 0; r < m; ++r) {
    const T* row = x + r * k;
    float mx = -INFINITY;
    for (uint64_t j = 0; j < k; ++j) mx = std::max(mx, float(row[j]));
    float sum = 0.0f;
    for (uint64_t j = 0; j < k; ++j) sum += std::exp(float(row[j]) - mx);
    const float inv = 1.0f / sum;
    T* out = y + r * k;
    for (uint64_t j = 0; j < k; ++j) out[j] = T(std::exp(float(row[j]) - mx) * inv);
    for (uint64_t b = 0; b < per_block; ++b) {
      sumTensor.data()[r * per_block + b] = T(sum);
      maxTensor.data()[r * per_block + b] = T(mx);
    }
  }
}

template <typename T, bool isReuseSource = false, bool isBasicBlock = false>
inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/,
                    const SoftMaxTiling& tiling, const SoftMaxShapeInfo& shape) {
  SoftMax<T, isReuseSource, isBasicBlock>(dstTensor, sumTensor, maxTensor, srcTensor, tiling, shape);
}

template <typename T>
inline void BilinearInterpolation(const LocalTensor<T>& dstLocal, const LocalTensor<T>& src0Local,
                                  const LocalTensor<uint32_t>& src0OffsetLocal, const LocalTensor<T>& src1Local,
                                  uint64_t mask, uint8_t hRepeat, bool repeatMode, uint16_t dstBlkStride,
                                  uint16_t vROffset, uint8_t vRepeat,
                                  const LocalTensor<uint8_t>& /*sharedTmpBuffer*/) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                "BilinearInterpolation: T must be half or float");
  constexpr uint64_t kBlock = 32 / sizeof(T);   // elements per block
  constexpr uint64_t kRepeat = 8 * kBlock;      // elements per repeat
  const uint64_t lanes = std::min<uint64_t>(mask, kRepeat);
  const uint64_t repeats = uint64_t{hRepeat} * vRepeat;
  detail_adv::need("BilinearInterpolation", src0OffsetLocal, repeats * 8, "offsets (8 per repeat)");
  detail_adv::need("BilinearInterpolation", src1Local, repeatMode ? repeats * 8 : repeats, "elements of src1");
  const uint64_t src0_bytes = uint64_t{src0Local.GetSize()} * sizeof(T);
  const uint32_t* off = src0OffsetLocal.data();
  for (uint64_t v = 0; v < vRepeat; ++v) {
    for (uint64_t lane = 0; lane < lanes; ++lane) {
      const uint64_t b = lane / kBlock, e = lane % kBlock;
      T acc = T(0.0f);
      for (uint64_t h = 0; h < hRepeat; ++h) {
        const uint64_t r = v * hRepeat + h;
        const uint64_t byte = off[r * 8 + b];
        if (byte % 32 != 0 || byte + 32 > src0_bytes) {
          ::asc::kernel::fail(::asc::ErrorCode::kIndexOutOfRange, "BilinearInterpolation",
                              "src0 offset " + std::to_string(byte) + " (repeat " + std::to_string(r) + ", block " +
                                  std::to_string(b) + ") is not a 32-byte block inside src0's " +
                                  std::to_string(src0_bytes) + " bytes");
        }
        const T g = src0Local.data()[byte / sizeof(T) + e];
        const T w = src1Local.data()[repeatMode ? r * 8 + b : r];
        const T p = T(float(g) * float(w));
        acc = h == 0 ? p : T(float(acc) + float(p));
      }
      const uint64_t at = v * vROffset + b * dstBlkStride * kBlock + e;
      detail_adv::need("BilinearInterpolation", dstLocal, at + 1, "elements of dst");
      dstLocal.data()[at] = acc;
    }
  }
}

}  // namespace AscendC
