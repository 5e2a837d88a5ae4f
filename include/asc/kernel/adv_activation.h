// Activation functions of CANN's advanced API (lib/activation), elementwise
// over calCount elements (default: dst's size), each with CANN's forms with
// and without a sharedTmpBuffer (the CPU computes without scratch, so the
// buffer is accepted and not used):
//
//   Sigmoid(dst, src, ...)            dst = 1 / (1 + exp(-x))
//   Silu(dst, src, n)                 dst = x / (1 + exp(-x))
//   Swish(dst, src, n, beta)          dst = x / (1 + exp(-beta * x))
//   Gelu(dst, src, ...)               dst = x / (1 + exp(-1.5957691 * (x + 0.044715 x^3)))
//   FasterGelu(dst, src, ...)         the same tanh form (CANN's faster variant
//                                     approximates this curve; here it is exact)
//   SwiGLU(dst, src0, src1, beta, ...) dst = src0 * swish(src1, beta)
//   GeGLU(dst, src0, src1, ...)       dst = src0 * gelu(src1)
//   Exp<T, taylorExpandLevel>(dst, src, [sharedTmpBuffer,] n)  lib/math's Exp
//                                     (level 0: exp(x); else CANN's Taylor form)
//
// These are the formulas of CANN's documentation, as the official samples'
// gen_data.py compute their goldens. half / bfloat16_t inputs are computed in
// float and rounded once; float in double (correctly rounded or within 1 ulp).
// Errors: a count beyond a tensor (kIndexOutOfRange, naming the API).
//
// Thread-safety: per block, like every kernel API call.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace AscendC {
namespace detail_act {

template <typename T>
using Calc = std::conditional_t<std::is_same_v<T, float>, double, float>;

template <typename T>
inline void check(const char* op, const LocalTensor<T>& t, uint64_t n, const char* what) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float> || std::is_same_v<T, bfloat16_t>,
                "activation functions take half, bfloat16_t or float");
  if (n > t.GetSize()) ::asc::kernel::fail_size(op, what, n, t.GetSize());
}

template <typename T, typename F>
inline void unary(const char* op, const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t n, F f) {
  check(op, dst, n, "elements of dst");
  check(op, src, n, "elements of src");
  if (n == 0) return;
  ::asc::kernel::elide::read(src.raw(), n * sizeof(T));
  ::asc::kernel::elide::access(dst.raw(), n * sizeof(T));
  const T* x = src.raw();
  T* y = dst.raw();
  for (uint64_t i = 0; i < n; ++i) y[i] = T(static_cast<float>(f(static_cast<Calc<T>>(static_cast<float>(x[i])))));
}

template <typename T, typename F>
inline void binary(const char* op, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                   uint64_t n, F f) {
  check(op, dst, n, "elements of dst");
  check(op, a, n, "elements of src0");
  check(op, b, n, "elements of src1");
  if (n == 0) return;
  ::asc::kernel::elide::read(a.raw(), n * sizeof(T));
  ::asc::kernel::elide::read(b.raw(), n * sizeof(T));
  ::asc::kernel::elide::access(dst.raw(), n * sizeof(T));
  const T* x0 = a.raw();
  const T* x1 = b.raw();
  T* y = dst.raw();
  for (uint64_t i = 0; i < n; ++i) {
    using C = Calc<T>;
    y[i] = T(static_cast<float>(f(static_cast<C>(static_cast<float>(x0[i])), static_cast<C>(static_cast<float>(x1[i])))));
  }
}

template <typename C>
inline C sigmoid(C x) {
  return C(1) / (C(1) + std::exp(-x));
}
template <typename C>
inline C gelu(C x) {
  return x / (C(1) + std::exp(C(-1.5957691216057308) * (x + C(0.044715) * x * x * x)));
}

}  // namespace detail_act

// ---------------------------------------------------------------- Exp (lib/math)
/// CANN's library Exp<T, taylorExpandLevel>: level 0 is exp(x); level n > 0 is
/// exp(floor(x)) * sum_{i=0..n} f^i / i! with f = x - floor(x), the Taylor
/// polynomial evaluated in float as the documented formula (term_i =
/// term_{i-1} * f / i), so a small level gives CANN's truncation error rather
/// than the exact value. half is computed in float and rounded once.
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t calCount) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "Exp (lib/math): T must be half or float");
  detail_act::check("Exp", dstLocal, calCount, "elements of dst");
  detail_act::check("Exp", srcLocal, calCount, "elements of src");
  if (calCount == 0) return;
  ::asc::kernel::elide::read(srcLocal.raw(), uint64_t{calCount} * sizeof(T));
  ::asc::kernel::elide::access(dstLocal.raw(), uint64_t{calCount} * sizeof(T));
  const T* x = srcLocal.raw();
  T* y = dstLocal.raw();
  for (uint32_t i = 0; i < calCount; ++i) {
    const float v = static_cast<float>(x[i]);
    if constexpr (taylorExpandLevel == 0) {
      y[i] = T(std::exp(v));
    } else {
      const float a = std::floor(v), f = v - a;
      float term = 1.0f, sum = 1.0f;
      for (uint32_t t = 0; t < taylorExpandLevel; ++t) {
        term *= f / static_cast<float>(t + 1);
        sum += term;
      }
      y[i] = T(std::exp(a) * sum);
    }
  }
}
template <typename T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t calCount) {
  Exp<T, taylorExpandLevel, isReuseSource>(dstLocal, srcLocal, calCount);
}

// ---------------------------------------------------------------- Sigmoid
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount) {
  detail_act::unary("Sigmoid", dstTensor, srcTensor, calCount, [](auto x) { return detail_act::sigmoid(x); });
}
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor) {
  Sigmoid<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t calCount) {
  Sigmoid<T, isReuseSource>(dstTensor, srcTensor, calCount);
}
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& /*sharedTmpBuffer*/) {
  Sigmoid<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());
}

// ---------------------------------------------------------------- Silu / Swish
template <typename T, bool isReuseSource = false>
inline void Silu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize) {
  detail_act::unary("Silu", dstLocal, srcLocal, dataSize, [](auto x) { return x * detail_act::sigmoid(x); });
}
template <typename T, bool isReuseSource = false>
inline void Swish(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, uint32_t dataSize,
                  const T scalarValue) {
  using C = detail_act::Calc<T>;
  const C beta = static_cast<C>(static_cast<float>(scalarValue));
  detail_act::unary("Swish", dstLocal, srcLocal, dataSize, [beta](auto x) { return x / (C(1) + std::exp(-beta * x)); });
}

// ---------------------------------------------------------------- Gelu
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dataSize) {
  detail_act::unary("Gelu", dstLocal, srcLocal, dataSize, [](auto x) { return detail_act::gelu(x); });
}
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                 const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t dataSize) {
  Gelu<T, highPrecision, highPerformance>(dstLocal, srcLocal, dataSize);
}
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void FasterGelu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dataSize) {
  detail_act::unary("FasterGelu", dstLocal, srcLocal, dataSize, [](auto x) { return detail_act::gelu(x); });
}
template <typename T, bool highPrecision = false, bool highPerformance = false>
inline void FasterGelu(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                       const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t dataSize) {
  FasterGelu<T, highPrecision, highPerformance>(dstLocal, srcLocal, dataSize);
}

// ---------------------------------------------------------------- SwiGLU / GeGLU
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                   const float& scalarValue, const uint32_t calCount) {
  using C = detail_act::Calc<T>;
  const C beta = static_cast<C>(scalarValue);
  detail_act::binary("SwiGLU", dstTensor, srcTensor0, srcTensor1, calCount,
                     [beta](auto a, auto b) { return a * (b / (C(1) + std::exp(-beta * b))); });
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                   const float& scalarValue) {
  SwiGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, scalarValue, srcTensor0.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                   const float& scalarValue, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const uint32_t calCount) {
  SwiGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, scalarValue, calCount);
}
template <typename T, bool isReuseSource = false>
inline void SwiGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                   const float& scalarValue, const LocalTensor<uint8_t>& /*sharedTmpBuffer*/) {
  SwiGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, scalarValue, srcTensor0.GetSize());
}

template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                  uint32_t calCount) {
  detail_act::binary("GeGLU", dstTensor, srcTensor0, srcTensor1, calCount,
                     [](auto a, auto b) { return a * detail_act::gelu(b); });
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1) {
  GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, srcTensor0.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                  const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, uint32_t calCount) {
  GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, calCount);
}
template <typename T, bool isReuseSource = false>
inline void GeGLU(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor0, const LocalTensor<T>& srcTensor1,
                  const LocalTensor<uint8_t>& /*sharedTmpBuffer*/) {
  GeGLU<T, isReuseSource>(dstTensor, srcTensor0, srcTensor1, srcTensor0.GetSize());
}

}  // namespace AscendC
