// The SIMD row kernels of layer_norm and rms_norm and the SIMD span statistics / scale-shift of
// the channel norms (src/nn/norm_rows.cc), for norm.cc.
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

/// The output pass of norm_rows over n elements of one row (a span of it: x, y, w and b
/// pointing at the span's first element) given the row's mean (ignored with kNormRms) and
/// variance (rms_norm: mean(x^2)); the same arithmetic as norm_rows.
void norm_row_out(DType dt, const void* x, void* y, int64_t n, const void* w, const void* b, double mean, double var,
                  double eps, int flags);

/// Sum of the n elements at x (dtype dt) with norm_rows' block sums.
double norm_span_sum(DType dt, const void* x, int64_t n);

/// Adds to s1 the sum of u = x - m and to s2 the sum of u^2 over the n elements at x, with m rounded to the compute
/// type first (the caller's two-pass statistics: mean = round(m) + s1 / n, var = s2 / n - (s1 / n)^2).
/// Note the rounding: s1 and s2 are taken around the compute-type m, not the double.
void norm_span_dev(DType dt, const void* x, int64_t n, double m, double& s1, double& s2);

/// y[i] = (x[i] - mu[j]) * sc[j] + sh[j] for i in [lo, hi), j = i / s (planes of s elements;
/// sc / sh / mu of the compute type: double for float64, float otherwise): a subtraction and an
/// FMA per element, exact centring for x near mu; float32 / float64 outputs with streaming stores
/// when `stream` (flushed before returning).
void norm_affine_span(DType dt, const void* x, void* y, int64_t lo, int64_t hi, int64_t s, const void* sc,
                      const void* sh, const void* mu, bool stream);

}  // namespace asc::nn::detail
