// Shared pieces of the hand-written AVX2/FMA convolution kernels (conv_winograd.cc,
// conv_depthwise.cc, conv_direct.cc). The kernels are compiled with a per-function target
// attribute, not -mavx2, so one build runs on any x86-64: callers check the CPU first.
#pragma once

#include <immintrin.h>

#include "asc/nn/conv.h"

#define ASC_AVX2 __attribute__((target("avx2,fma")))

namespace asc::nn::detail {

/// The fused activations these kernels apply in their stores (the others are refused before);
/// max(0, v) returns its second operand for a NaN: NaN stays NaN, as the scalar reference.
ASC_AVX2 inline __m256 act8(__m256 v, Activation a, __m256 alpha) {
  const __m256 zero = _mm256_setzero_ps();
  switch (a) {
    case Activation::kRelu: return _mm256_max_ps(zero, v);
    case Activation::kRelu6: return _mm256_min_ps(_mm256_set1_ps(6.f), _mm256_max_ps(zero, v));
    case Activation::kLeakyRelu:
      return _mm256_blendv_ps(_mm256_mul_ps(v, alpha), v, _mm256_cmp_ps(v, zero, _CMP_GT_OQ));
    default: return v;
  }
}

}  // namespace asc::nn::detail
