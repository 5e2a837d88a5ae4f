// GELU of asc.ops, CPU device: one opaque native kernel per call (src/nn/activation.cc).
//
// exact:  gelu(x) = 0.5 x erfc(-x / sqrt 2)   (= 0.5 x (1 + erf(x / sqrt 2)) without the
//         cancellation for x << 0: the negative tail keeps relative accuracy)
// tanh:   gelu(x) = x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3))
// float32 / float16 / bfloat16 (read and written in place, float32 arithmetic);
// float64 is refused (asc.ops.gelu keeps its float64 chain). Error bounds: docs/nn.md.
//
// Special values follow torch's formulas: NaN -> NaN, +inf -> +inf, -inf -> NaN
// (-inf * 0), +-0 -> +-0. Empty inputs return an empty result.
//
// Errors (asc::Error): kInvalidDtype for a dtype other than float32/float16/bfloat16.
// Messages start with "[gelu]". Thread-safety: may be called concurrently.
#pragma once

#include "asc/core/tensor.h"

namespace asc::nn {

/// gelu of x (any strides; the exact erfc form, or the tanh form when `tanh_approx`).
/// Returns a new C-contiguous tensor of x's dtype.
Tensor gelu(const Tensor& x, bool tanh_approx = false);

/// gelu's gradient: grad_output * gelu'(x), torch's gelu_backward (exact: Phi(x) + x phi(x);
/// tanh: the derivative of the tanh form), one native pass in float32 arithmetic rounded once
/// to the dtype. dy and x: one dtype (float32 / float16 / bfloat16) and one shape (any
/// strides). +-inf inputs give NaN as torch's formulas (inf * 0). Errors: kInvalidDtype for
/// another or a mixed dtype, kInvalidShape (ValueError) for different shapes ("[gelu_backward]").
Tensor gelu_backward(const Tensor& grad_output, const Tensor& x, bool tanh_approx = false);

}  // namespace asc::nn
