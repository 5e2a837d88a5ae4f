// Inner loops of the float math ops over the SIMD vector math kernels
// (asc/kernel/simd.h, MathOp/MathBinaryOp). They have the InnerLoop signature,
// so the eager executor and the fused tile programs call them alike, on runs
// of any length. Contiguous runs go straight to the kernel; strided and
// broadcast (stride 0) operands are gathered into a stack tile first, so a
// result never depends on the memory layout.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "asc/core/dtype.h"
#include "asc/kernel/simd.h"
#include "asc/ops/registry.h"

namespace asc::ops::detail {

constexpr int64_t kMathTile = 256;  // elements gathered per step for strided operands

template <typename T>
inline const char* math_gather(T* buf, const char* p, int64_t stride, int64_t m) {
  if (stride == static_cast<int64_t>(sizeof(T))) return p;
  for (int64_t j = 0; j < m; ++j) std::memcpy(&buf[j], p + j * stride, sizeof(T));
  return reinterpret_cast<const char*>(buf);
}

template <typename T>
inline void math_scatter(char* p, int64_t stride, const T* buf, int64_t m) {
  for (int64_t j = 0; j < m; ++j) std::memcpy(p + j * stride, &buf[j], sizeof(T));
}

/// out = op(in) for T in float16, bfloat16, float32, float64.
template <typename T, kernel::simd::MathOp kOp>
void math_unary_loop(char** p, const int64_t* s, int64_t n) {
  static const kernel::simd::MathUnaryFn fn = kernel::simd::math_fn(kOp, dtype_of<T>());
  constexpr int64_t kSize = sizeof(T);
  if (s[0] == kSize && s[1] == kSize) {
    fn(p[0], p[1], static_cast<size_t>(n));
    return;
  }
  T in[kMathTile], out[kMathTile];
  for (int64_t i = 0; i < n; i += kMathTile) {
    const int64_t m = std::min(kMathTile, n - i);
    const char* a = math_gather(in, p[1] + i * s[1], s[1], m);
    if (s[0] == kSize) {
      fn(p[0] + i * kSize, a, static_cast<size_t>(m));
    } else {
      fn(out, a, static_cast<size_t>(m));
      math_scatter(p[0] + i * s[0], s[0], out, m);
    }
  }
}

/// out = op(a, b) for T in float16, bfloat16, float32, float64.
template <typename T, kernel::simd::MathBinaryOp kOp>
void math_binary_loop(char** p, const int64_t* s, int64_t n) {
  static const kernel::simd::MathBinaryFn fn = kernel::simd::math_fn(kOp, dtype_of<T>());
  constexpr int64_t kSize = sizeof(T);
  if (s[0] == kSize && s[1] == kSize && s[2] == kSize) {
    fn(p[0], p[1], p[2], static_cast<size_t>(n));
    return;
  }
  T ta[kMathTile], tb[kMathTile], out[kMathTile];
  for (int64_t i = 0; i < n; i += kMathTile) {
    const int64_t m = std::min(kMathTile, n - i);
    const char* a = math_gather(ta, p[1] + i * s[1], s[1], m);
    const char* b = math_gather(tb, p[2] + i * s[2], s[2], m);
    if (s[0] == kSize) {
      fn(p[0] + i * kSize, a, b, static_cast<size_t>(m));
    } else {
      fn(out, a, b, static_cast<size_t>(m));
      math_scatter(p[0] + i * s[0], s[0], out, m);
    }
  }
}

/// LoopSelectors: the loop for lt.in[0] when it is a float dtype, else nullptr
/// (the dtype rules of these ops only produce float loop types).
template <kernel::simd::MathOp kOp>
InnerLoop select_math_unary(const LoopTypes& lt) {
  switch (lt.in[0]) {
    case DType::kFloat16: return &math_unary_loop<float16, kOp>;
    case DType::kBFloat16: return &math_unary_loop<bfloat16, kOp>;
    case DType::kFloat32: return &math_unary_loop<float, kOp>;
    case DType::kFloat64: return &math_unary_loop<double, kOp>;
    default: return nullptr;
  }
}

template <kernel::simd::MathBinaryOp kOp>
InnerLoop select_math_binary(const LoopTypes& lt) {
  switch (lt.in[0]) {
    case DType::kFloat16: return &math_binary_loop<float16, kOp>;
    case DType::kBFloat16: return &math_binary_loop<bfloat16, kOp>;
    case DType::kFloat32: return &math_binary_loop<float, kOp>;
    case DType::kFloat64: return &math_binary_loop<double, kOp>;
    default: return nullptr;
  }
}

}  // namespace asc::ops::detail
