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
//   The math library (lib/math): Acos Acosh Asin Asinh Atan Atanh Ceil Cos Cosh
//     Digamma Erf Erfc Floor Frac Lgamma Log Round Sign Sin Sinh Tan Tanh Trunc
//     (dst, src, [sharedTmpBuffer,] [calCount]) and Power / Xor (dst, src0,
//     src1, ...): elementwise over calCount elements (default: dst's size), in
//     float for half inputs (one rounding to half at the end), double for
//     float (so float results are correctly rounded or within 1 ulp of the
//     C library's). Round is round-half-to-even (the default IEEE mode, like
//     CAST_RINT); Frac = x - trunc(x); Sign gives -1/0/+1 and keeps NaN.
//   RmsNorm(dst, src, gamma, [sharedTmpBuffer,] epsilon, RmsNormTiling)
//     over a [bLength * sLength, hLength] tile: for each row, dst = src /
//     sqrt(mean(src^2) + epsilon) * gamma, the mean over the first
//     originalHLength elements (hLength may be padded for alignment; the
//     padding of dst is written 0), accumulated in float.
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
#include <cstring>
#include <limits>
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

/// Rows of softMaxRes (srcM x srcK, ND) whose max equals the float bits `from`
/// are set to `to` (CANN's AdjustSoftMaxRes). stepSizeMode 0: the max of row r
/// is the first element of its 32-byte block (SoftMax's layout); otherwise
/// element r. Returns whether any row matched.
template <typename T1, typename T2, bool isDataFormatNZ = false, uint8_t stepSizeMode = 0>
inline bool AdjustSoftMaxRes(const LocalTensor<T1>& softMaxRes, const LocalTensor<T2>& maxTensor, const uint32_t from,
                             const T1 to, const SoftMaxShapeInfo& softmaxShapeInfo) {
  static_assert(!isDataFormatNZ, "AdjustSoftMaxRes: only the ND format is supported (as CANN documents)");
  static_assert(std::is_same_v<T2, float> || std::is_same_v<T2, half>, "AdjustSoftMaxRes: max is half or float");
  const uint64_t m = softmaxShapeInfo.srcM, k = softmaxShapeInfo.srcK;
  const uint64_t step = stepSizeMode == 0 ? 32 / sizeof(T2) : 1;
  detail_adv::need("AdjustSoftMaxRes", softMaxRes, m * k, "elements of softMaxRes (srcM x srcK)");
  if (m > 0) detail_adv::need("AdjustSoftMaxRes", maxTensor, (m - 1) * step + 1, "elements of maxTensor");
  bool any = false;
  for (uint64_t r = 0; r < m; ++r) {
    const T2 v = maxTensor.GetValue(static_cast<uint32_t>(r * step));
    uint32_t bits = 0;
    if constexpr (std::is_same_v<T2, float>) {
      std::memcpy(&bits, &v, 4);
    } else {
      bits = v.bits;  // half: compared as its 16-bit pattern
    }
    if (bits != from) continue;
    any = true;
    for (uint64_t j = 0; j < k; ++j) softMaxRes.SetValue(static_cast<uint32_t>(r * k + j), to);
  }
  return any;
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

// ---------------------------------------------------------------- lib/math

namespace detail_adv {
template <typename T>
using MathCalc = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>, double, float>;

inline double digamma(double x) {
  // reflection for x < 0.5, recurrence up to x >= 6, then the asymptotic series
  if (std::isnan(x)) return x;
  if (x <= 0 && x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
  constexpr double kPi = 3.14159265358979323846;  // M_PI is not standard C++
  double r = 0.0;
  if (x < 0.5) {
    r = -kPi / std::tan(kPi * x);
    x = 1.0 - x;
  }
  while (x < 6.0) {
    r -= 1.0 / x;
    x += 1.0;
  }
  const double f = 1.0 / (x * x);
  const double t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132)))));
  return r + std::log(x) - 0.5 / x + t;
}

inline double lgamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);  // the reentrant form: std::lgamma writes the global signgam
}

inline double sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); }  // keeps NaN and signed 0

template <typename T, typename F>
inline void unary(const char* op, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t n, F f) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, bfloat16_t>,
                "lib math: T must be half, bfloat16_t or float");
  need(op, dst, n, "elements of dst");
  need(op, src, n, "elements of src");
  using C = MathCalc<T>;
  const T* x = src.data();
  T* y = dst.data();
  for (uint64_t i = 0; i < n; ++i) y[i] = T(static_cast<float>(f(static_cast<C>(float(x[i])))));
}
}  // namespace detail_adv

#define ASC_ADV_UNARY_(NAME, EXPR)                                                                            \
  template <typename T, bool isReuseSource = false>                                                          \
  inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount) { \
    detail_adv::unary(#NAME, dstTensor, srcTensor, calCount, [](auto v) { return EXPR; });                   \
  }                                                                                                          \
  template <typename T, bool isReuseSource = false>                                                          \
  inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {                        \
    NAME<T, isReuseSource>(dstTensor, srcTensor, static_cast<uint32_t>(dstTensor.GetSize()));                \
  }                                                                                                          \
  template <typename T, bool isReuseSource = false>                                                          \
  inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                          \
                   const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t calCount) {                \
    NAME<T, isReuseSource>(dstTensor, srcTensor, calCount);                                                  \
  }                                                                                                          \
  template <typename T, bool isReuseSource = false>                                                          \
  inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                          \
                   const LocalTensor<uint8_t>& /*sharedTmpBuffer*/) {                                         \
    NAME<T, isReuseSource>(dstTensor, srcTensor, static_cast<uint32_t>(dstTensor.GetSize()));                \
  }

ASC_ADV_UNARY_(Acos, std::acos(v))
ASC_ADV_UNARY_(Acosh, std::acosh(v))
ASC_ADV_UNARY_(Asin, std::asin(v))
ASC_ADV_UNARY_(Asinh, std::asinh(v))
ASC_ADV_UNARY_(Atan, std::atan(v))
ASC_ADV_UNARY_(Atanh, std::atanh(v))
ASC_ADV_UNARY_(Ceil, std::ceil(v))
ASC_ADV_UNARY_(Cos, std::cos(v))
ASC_ADV_UNARY_(Cosh, std::cosh(v))
ASC_ADV_UNARY_(Digamma, static_cast<decltype(v)>(detail_adv::digamma(v)))
ASC_ADV_UNARY_(Erf, std::erf(v))
ASC_ADV_UNARY_(Erfc, std::erfc(v))
ASC_ADV_UNARY_(Floor, std::floor(v))
ASC_ADV_UNARY_(Frac, v - std::trunc(v))
ASC_ADV_UNARY_(Lgamma, static_cast<decltype(v)>(detail_adv::lgamma(v)))
ASC_ADV_UNARY_(Log, std::log(v))
ASC_ADV_UNARY_(Round, std::nearbyint(v))
ASC_ADV_UNARY_(Sign, static_cast<decltype(v)>(detail_adv::sign(v)))
ASC_ADV_UNARY_(Sin, std::sin(v))
ASC_ADV_UNARY_(Sinh, std::sinh(v))
ASC_ADV_UNARY_(Tan, std::tan(v))
ASC_ADV_UNARY_(Tanh, std::tanh(v))
ASC_ADV_UNARY_(Trunc, std::trunc(v))
#undef ASC_ADV_UNARY_

template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  const uint32_t calCount) {
  detail_adv::need("Power", dstTensor, calCount, "elements of dst");
  detail_adv::need("Power", src0Tensor, calCount, "elements of src0");
  detail_adv::need("Power", src1Tensor, calCount, "elements of src1");
  using C = std::conditional_t<std::is_integral_v<T>, double, detail_adv::MathCalc<T>>;
  for (uint32_t i = 0; i < calCount; ++i) {
    const C r = std::pow(static_cast<C>(float(src0Tensor.data()[i])), static_cast<C>(float(src1Tensor.data()[i])));
    if constexpr (std::is_integral_v<T>) dstTensor.data()[i] = static_cast<T>(r);
    else dstTensor.data()[i] = T(static_cast<float>(r));
  }
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor) {
  Power<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, static_cast<uint32_t>(dstTensor.GetSize()));
}
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                  const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t calCount) {
  Power<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, calCount);
}

template <typename T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                const uint32_t calCount) {
  static_assert(std::is_integral_v<T>, "Xor: T must be an integer type");
  detail_adv::need("Xor", dstTensor, calCount, "elements of dst");
  detail_adv::need("Xor", src0Tensor, calCount, "elements of src0");
  detail_adv::need("Xor", src1Tensor, calCount, "elements of src1");
  for (uint32_t i = 0; i < calCount; ++i)
    dstTensor.data()[i] = static_cast<T>(src0Tensor.data()[i] ^ src1Tensor.data()[i]);
}
template <typename T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor) {
  Xor<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, static_cast<uint32_t>(dstTensor.GetSize()));
}
template <typename T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const LocalTensor<T>& src1Tensor,
                const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t calCount) {
  Xor<T, isReuseSource>(dstTensor, src0Tensor, src1Tensor, calCount);
}

// ---------------------------------------------------------------- lib/normalization: RmsNorm

/// RmsNorm's tiling (the fields of CANN's RmsNormTiling; the CPU kernel reads the lengths).
struct RmsNormTiling {
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  float reciprocalOfHLength = 0.0f;
  uint32_t mainBshLength = 0;
  uint32_t mainBsLength = 0;
  uint32_t mainBsLengthAlign = 0;
  uint32_t loopRound = 0;
  uint32_t inputTailPos = 0;
  uint32_t tailBshLength = 0;
  uint32_t tailBsLength = 0;
};

template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
                    const T epsilon, const RmsNormTiling& tiling) {
  const uint64_t rows = uint64_t{tiling.bLength} * tiling.sLength, h = tiling.hLength;
  const uint64_t oh = tiling.originalHLength ? tiling.originalHLength : h;
  if (oh > h) {
    ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, "RmsNorm",
                        "originalHLength " + std::to_string(oh) + " exceeds hLength " + std::to_string(h));
  }
  detail_adv::need("RmsNorm", srcLocal, rows * h, "elements of src (bLength x sLength x hLength)");
  detail_adv::need("RmsNorm", dstLocal, rows * h, "elements of dst (bLength x sLength x hLength)");
  detail_adv::need("RmsNorm", gammaLocal, oh, "elements of gamma (originalHLength)");
  const float eps = float(epsilon);
  for (uint64_t r = 0; r < rows; ++r) {
    const T* x = srcLocal.data() + r * h;
    T* y = dstLocal.data() + r * h;
    float ss = 0.0f;
    for (uint64_t j = 0; j < oh; ++j) ss += float(x[j]) * float(x[j]);
    const float inv = 1.0f / std::sqrt(ss / float(oh) + eps);
    for (uint64_t j = 0; j < oh; ++j) y[j] = T(float(x[j]) * inv * float(gammaLocal.data()[j]));
    for (uint64_t j = oh; j < h; ++j) y[j] = T(0.0f);
  }
}

template <typename T, bool isBasicBlock = false>
inline void RmsNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const LocalTensor<T>& gammaLocal,
                    const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const T epsilon, const RmsNormTiling& tiling) {
  RmsNorm<T, isBasicBlock>(dstLocal, srcLocal, gammaLocal, epsilon, tiling);
}

}  // namespace AscendC

// CANN's kernel-side tiling structs live at global scope (kernel_tiling.h).
using SoftMaxTiling = ::AscendC::SoftMaxTiling;
