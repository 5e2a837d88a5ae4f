// Set functions with more than one result (src/ops/sets.cc). The single-result
// set ops (unique_values, unique_info, isin) are registry ops.
//
// Thread-safety: may be called from any thread concurrently; the work runs on
// the current device's cores.
#pragma once

#include <utility>

#include "asc/core/tensor.h"

namespace asc::ops {

/// The sorted unique values of the flattened `x` and how often each occurs
/// (int64): NumPy's unique(return_counts=True) without index/inverse. Few
/// distinct values (at most min(2^18, n/16)) are counted in per-core hash
/// tables; otherwise one sort and two parallel passes (no argsort). NumPy's equality:
/// -0.0 == +0.0 (the value kept is the first of the stable sort), NaN != NaN
/// unless `equal_nan` (then all NaNs are one value, counted together;
/// complex: every value with a NaN part). Complex values are in NumPy's
/// order (lexicographic, NaN classes last).
std::pair<Tensor, Tensor> unique_values_counts(const Tensor& x, bool equal_nan);

}  // namespace asc::ops
