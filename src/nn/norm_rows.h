// The SIMD row kernels of layer_norm and rms_norm (src/nn/norm_rows.cc), for norm.cc.
#pragma once

#include <cstdint>

#include "asc/core/dtype.h"

namespace asc::nn::detail {

enum NormRowFlags : int {
  kNormRms = 1,     // rms_norm: y = x * rsqrt(mean(x^2) + eps) [* w]; no mean, no bias
  kNormStream = 2,  // float32 / float64 outputs written with streaming stores
};

/// Normalises rows [r0, r1) of x (contiguous rows of n elements, dtype dt: float32,
/// float64, float16 or bfloat16) into y: layer_norm's (x - mean) * rstd [* w] [+ b],
/// or rms_norm's form with kNormRms. w / b (null when absent) hold n values of the
/// compute type: double for float64, float otherwise. Statistics: sums of float lanes
/// over blocks of 1024 elements, added into double per block (float64: double lanes);
/// the variance is the second pass's mean square of x - mean around the first pass's
/// mean (and its residual), read from cache when the row fits in it.
/// Thread-safe: concurrent calls on disjoint rows.
void norm_rows(DType dt, const void* x, void* y, int64_t r0, int64_t r1, int64_t n, const void* w, const void* b,
               double eps, int flags);

}  // namespace asc::nn::detail
