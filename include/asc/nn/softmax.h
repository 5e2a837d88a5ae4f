// softmax / log_softmax (and softmin through `negate`) of asc.ops, CPU device.
//
// One opaque kernel per call (src/nn/softmax.cc): per row max, then exp(x - max)
// summed, then the normalised output. The inner axis may be strided (softmax over a
// non-last axis is vectorised across the trailing axes), rows are spread over all
// device cores. float32 / float64 compute in their own precision; float16 /
// bfloat16 are read and written in place with float32 arithmetic.
//
// Special values follow torch: a row holding NaN or +inf, and a row of only -inf,
// give NaN everywhere; -inf entries of other rows give 0 (softmax) / -inf
// (log_softmax). Empty inputs return an empty result.
//
// Errors (asc::Error): kInvalidDtype for a non-floating input, kInvalidParam for an
// axis out of range. Messages start with "[softmax]" / "[log_softmax]".
//
// Thread-safety: may be called concurrently from several threads.
#pragma once

#include <cstdint>

#include "asc/core/tensor.h"

namespace asc::nn {

/// softmax (log = false) or log_softmax (log = true) of x (any strides) along `axis`
/// (negative counts from the end; a 0-d x is treated as one element); of -x when
/// `negate` (softmin). Returns a new C-contiguous tensor of x's dtype.
Tensor softmax(const Tensor& x, int64_t axis, bool log = false, bool negate = false);

}  // namespace asc::nn
