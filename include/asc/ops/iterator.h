// N-d strided iteration over several operands (NumPy's nditer, minimal).
//
// An operation over tensors of one broadcast shape is described by the shape
// and, per operand, byte strides (0 on broadcast axes). `StridedIter` drops
// size-1 axes, optionally reorders axes, and merges axes that are contiguous
// for every operand, so that the inner loop -- a function over 1-d strided
// runs `fn(char** ptrs, const int64_t* inner_strides, int64_t n)` -- gets runs
// as long as possible (a fully contiguous tensor is a single run).
// `for_range(begin, end)` visits a sub-range of the linear iteration space, so
// work can be split across cores.
//
// Thread-safety: a StridedIter is immutable after construction; for_range may
// be called concurrently on disjoint ranges.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "asc/core/status.h"

namespace asc::ops {

constexpr int kMaxIterOperands = 4;
constexpr int kMaxDims = 64;

class StridedIter {
 public:
  /// `strides[k]` are the byte strides of operand k (ndim entries each).
  /// `order_by` >= 0 sorts axes by decreasing |stride| of that operand (the
  /// fastest-moving axis innermost, for reductions); -1 keeps C order.
  StridedIter(int nops, int ndim, const int64_t* shape, const int64_t* const* strides, int order_by = -1)
      : nops_(nops) {
    if (ndim > kMaxDims) throw Error(ErrorCode::kInvalidShape, "[iter] too many dimensions");
    int perm[kMaxDims];
    int nd = 0;
    total_ = 1;
    for (int d = 0; d < ndim; ++d) {
      total_ *= shape[d];
      if (shape[d] != 1) perm[nd++] = d;
    }
    if (order_by >= 0) {
      const int64_t* s = strides[order_by];
      std::stable_sort(perm, perm + nd, [&](int x, int y) { return std::llabs(s[x]) > std::llabs(s[y]); });
    }
    // Merge axis perm[i] into the running inner axis when contiguous for all operands.
    ndim_ = 0;
    for (int i = 0; i < nd; ++i) {
      const int d = perm[i];
      if (ndim_ > 0) {
        bool mergeable = true;
        for (int k = 0; k < nops; ++k)
          if (strides_[k][ndim_ - 1] != strides[k][d] * shape[d]) { mergeable = false; break; }
        if (mergeable) {
          shape_[ndim_ - 1] *= shape[d];
          for (int k = 0; k < nops; ++k) strides_[k][ndim_ - 1] = strides[k][d];
          continue;
        }
      }
      shape_[ndim_] = shape[d];
      for (int k = 0; k < nops; ++k) strides_[k][ndim_] = strides[k][d];
      ++ndim_;
    }
    if (ndim_ == 0) {  // 0-d or all ones: one element
      shape_[0] = 1;
      for (int k = 0; k < nops; ++k) strides_[k][0] = 0;
      ndim_ = 1;
    }
  }

  int64_t size() const noexcept { return total_; }
  int ndim() const noexcept { return ndim_; }
  int64_t inner_size() const noexcept { return shape_[ndim_ - 1]; }
  /// Operand k's byte stride along the inner (merged) axis.
  int64_t inner_stride(int k) const noexcept { return strides_[k][ndim_ - 1]; }

  /// Calls fn(ptrs, inner_strides, n) for the elements [begin, end) of the
  /// iteration space; `base[k]` is operand k's element-0 address.
  template <typename Fn>
  void for_range(char* const* base, int64_t begin, int64_t end, Fn&& fn) const {
    if (begin >= end) return;
    int64_t idx[kMaxDims];
    char* ptrs[kMaxIterOperands];
    int64_t inner[kMaxIterOperands];
    const int last = ndim_ - 1;
    int64_t rem = begin;
    for (int d = last; d >= 0; --d) {
      idx[d] = rem % shape_[d];
      rem /= shape_[d];
    }
    for (int k = 0; k < nops_; ++k) {
      char* p = base[k];
      for (int d = 0; d <= last; ++d) p += idx[d] * strides_[k][d];
      ptrs[k] = p;
      inner[k] = strides_[k][last];
    }
    int64_t pos = begin;
    while (pos < end) {
      const int64_t n = std::min(shape_[last] - idx[last], end - pos);
      char* run[kMaxIterOperands];
      for (int k = 0; k < nops_; ++k) run[k] = ptrs[k];
      fn(run, inner, n);
      pos += n;
      if (pos >= end) break;
      // Advance: the inner axis wrapped (n reached its end); carry outward.
      for (int k = 0; k < nops_; ++k) ptrs[k] -= idx[last] * strides_[k][last];
      idx[last] = 0;
      int d = last - 1;
      for (; d >= 0; --d) {
        for (int k = 0; k < nops_; ++k) ptrs[k] += strides_[k][d];
        if (++idx[d] < shape_[d]) break;
        for (int k = 0; k < nops_; ++k) ptrs[k] -= shape_[d] * strides_[k][d];
        idx[d] = 0;
      }
      if (d < 0) break;
    }
  }

 private:
  int nops_;
  int ndim_ = 0;
  int64_t total_ = 1;
  int64_t shape_[kMaxDims];
  int64_t strides_[kMaxIterOperands][kMaxDims];
};

}  // namespace asc::ops
