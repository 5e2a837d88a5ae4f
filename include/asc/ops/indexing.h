// Advanced indexing (NumPy semantics) and the gather/scatter functions built
// on it: x[index], x[index] = value, take, take_along_axis, put_along_axis, put.
//
// An index is a list of items: basic ones (int, slice, newaxis, ellipsis;
// asc::IndexItem) and arrays (integer tensors of any integer dtype, boolean
// tensors including 0-d ones). With no array item the result is a view
// (Tensor::index). Otherwise, as in NumPy: integers become 0-d index arrays,
// a boolean array of k dims stands for the k integer arrays of its nonzero()
// positions, all index arrays broadcast to one shape B, and B replaces the
// indexed axes in place when those are adjacent, else it goes first. The
// result of an advanced index is always a new array (a gather); assignment is
// a scatter (with repeated indices the last write wins, as in NumPy).
//
// Large gathers and scatters are split across all cores (a scatter only along
// the copied sub-blocks, never across index positions, so repeated indices
// stay deterministic).
//
// Errors (asc::Error, messages start with "[getitem]"/"[setitem]"/"[take]"...):
//   kIndexOutOfRange  "index 5 is out of bounds for axis 0 with size 3",
//                     too many indices, several ellipses, non-integer index
//                     arrays, boolean shape mismatch, index arrays that do not
//                     broadcast (NumPy raises IndexError for all of these);
//   kInvalidShape     a value that does not broadcast to the indexed shape;
//   kInvalidParam     bad axis.
//
// Thread-safety: the functions may run concurrently on different tensors;
// concurrent writes to the same elements are the caller's problem.
#pragma once

#include <cstdint>
#include <vector>

#include "asc/core/tensor.h"

namespace asc::ops {

/// One item of a NumPy index: a basic item or an index array.
struct Index {
  enum Kind : uint8_t { kBasic, kArray };
  Kind kind = kBasic;
  IndexItem basic;  // kBasic
  Tensor array;     // kArray: integer or bool dtype, any ndim (0-d bool included)
  static Index from_basic(const IndexItem& it) {
    Index i;
    i.basic = it;
    return i;
  }
  static Index from_array(Tensor t) {
    Index i;
    i.kind = kArray;
    i.array = std::move(t);
    return i;
  }
};

/// x[index]. A view for basic indices, a new array otherwise.
Tensor getitem(const Tensor& x, const std::vector<Index>& index);
/// x[index] = value: `value` broadcasts to the shape of x[index] and is cast to
/// x's dtype with astype (unsafe) semantics. A value that shares memory with x
/// is read before anything is written.
void setitem(const Tensor& x, const std::vector<Index>& index, const Tensor& value);

/// How take/put treat indices outside [-n, n): raise, wrap around, clip.
enum class IndexMode : uint8_t { kRaise, kWrap, kClip };

/// numpy.take: elements of `x` along `axis` (of the flattened x when `flat`)
/// at `indices` (integer tensor of any shape). With kRaise, negative indices
/// count from the end; kClip clips negative indices to 0 as NumPy does.
Tensor take(const Tensor& x, const Tensor& indices, int64_t axis, bool flat, IndexMode mode = IndexMode::kRaise);
/// numpy.take_along_axis: `indices` has x's ndim and broadcasts with x on
/// every axis but `axis` (of the flattened x when `flat`).
Tensor take_along_axis(const Tensor& x, const Tensor& indices, int64_t axis, bool flat = false);
/// numpy.put_along_axis: x[..., indices, ...] = values along `axis`, values
/// broadcast to the shape of indices (broadcast with x), cast to x's dtype.
void put_along_axis(const Tensor& x, const Tensor& indices, const Tensor& values, int64_t axis, bool flat = false);
/// numpy.put: the flattened (C order) x at `indices` gets `values`, repeated
/// cyclically when shorter than indices.
void put(const Tensor& x, const Tensor& indices, const Tensor& values, IndexMode mode = IndexMode::kRaise);
/// The positions of the nonzero elements, one int64 array per axis (C order);
/// a 0-d x is treated as 1-d.
std::vector<Tensor> nonzero_positions(const Tensor& x);

}  // namespace asc::ops
