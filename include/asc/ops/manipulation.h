// Manipulation functions that move data: concatenate and repeat (the other
// manipulation functions are views or compositions of these, of take and of
// copies; see python/pyasc/_manipulation.py).
//
// Errors (asc::Error, NumPy's exception classes in Python):
//   kInvalidParam  "[concatenate] zero-dimensional arrays cannot be concatenated",
//                  mismatched ndim/sizes (naming the array index, dimension and
//                  sizes), negative repeats, bad axis;
//   kInvalidDtype  a cast the 'same_kind' rule forbids (naming both dtypes);
//   kInvalidShape  `out` of the wrong shape, repeats that do not broadcast.
//
// Thread-safety: as any op (asc/ops/registry.h).
#pragma once

#include <cstdint>
#include <vector>

#include "asc/core/tensor.h"

namespace asc::ops {

/// numpy.concatenate: joins `xs` along `axis` (of the flattened arrays when
/// `flat`). The result dtype is NumPy's result_type of the inputs unless
/// `dtype` is given; inputs are cast with the 'same_kind' rule (kInvalidDtype
/// otherwise). With `out` the result is written there and `*out` returned.
Tensor concatenate(const std::vector<Tensor>& xs, int64_t axis, bool flat = false, const DType* dtype = nullptr,
                   const Tensor* out = nullptr);
/// numpy.repeat: each element of x repeated `repeats` times along `axis` (of
/// the flattened x when `flat`); `repeats` is an integer tensor, 0-d or 1-d
/// broadcastable to the axis length.
Tensor repeat(const Tensor& x, const Tensor& repeats, int64_t axis, bool flat);
/// Copies src into dst (same shape after broadcasting src; src is cast to
/// dst's dtype with astype semantics), split across all cores when large.
void copy_into(const Tensor& dst, const Tensor& src);

}  // namespace asc::ops
