// asc::Tensor: a refcounted storage plus dtype, shape, byte strides and a byte
// offset -- the array object of pyasc (NumPy's ndarray model).
//
// * Storage is either device memory from the caching pool (runtime::device_pool(),
//   64-byte aligned, returned to the pool when the last tensor using it dies)
//   or an external buffer (e.g. a NumPy array's memory) kept alive by a
//   keep-alive object that is released with the storage.
// * Strides are in BYTES and may be negative (reversed views) or 0 (broadcast).
// * Views (slice, transpose/permute, reshape when strides allow, broadcast_to,
//   squeeze, expand_dims, diagonal, index) share storage: writes through a view
//   are visible in the base.
//
// Errors (asc::Error): kInvalidShape for shapes that do not fit ("[reshape]
// cannot reshape array of size 6 into shape (4,)"), kIndexOutOfRange for
// indices ("[index] index 5 is out of bounds for axis 0 with size 3"),
// kInvalidParam for bad axes/arguments, kRtMemoryAllocation when the pool
// cannot allocate.
//
// Thread-safety: a Tensor is a value (copying shares storage); concurrent reads
// are safe, concurrent writes to the same elements are the caller's problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "asc/core/dtype.h"
#include "asc/core/status.h"

namespace asc {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;  // bytes

/// A flat byte buffer a tensor views.
class Storage {
 public:
  /// `nbytes` bytes from the device pool (uninitialised).
  static std::shared_ptr<Storage> allocate(size_t nbytes);
  /// Wraps external memory; `keep_alive` is released (destroyed) with the storage.
  static std::shared_ptr<Storage> external(void* data, size_t nbytes, std::shared_ptr<void> keep_alive);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  uint8_t* data() const noexcept { return data_; }
  size_t nbytes() const noexcept { return nbytes_; }
  bool is_external() const noexcept { return external_; }

 private:
  Storage() = default;
  uint8_t* data_ = nullptr;
  size_t nbytes_ = 0;
  bool external_ = false;
  std::shared_ptr<void> keep_alive_;
};

/// One basic index along an axis (NumPy semantics), for Tensor::index().
struct IndexItem {
  enum Kind : uint8_t { kInt, kSlice, kNewAxis, kEllipsis };
  Kind kind = kSlice;
  int64_t start = 0, stop = 0, step = 1;  // for kInt: start is the index
  bool has_start = false, has_stop = false;
  static IndexItem integer(int64_t i) { IndexItem it; it.kind = kInt; it.start = i; return it; }
  static IndexItem new_axis() { IndexItem it; it.kind = kNewAxis; return it; }
  static IndexItem ellipsis() { IndexItem it; it.kind = kEllipsis; return it; }
  static IndexItem full() { return IndexItem{}; }
};

class Tensor {
 public:
  Tensor() = default;
  /// A new C-contiguous tensor from the device pool (uninitialised).
  static Tensor empty(const Shape& shape, DType dtype);
  /// A view of `storage` (no checks of the extent beyond the storage size).
  static Tensor view_of(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Strides strides,
                        int64_t offset);

  bool defined() const noexcept { return storage_ != nullptr; }
  DType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  const Strides& strides() const noexcept { return strides_; }
  int64_t offset() const noexcept { return offset_; }
  int64_t ndim() const noexcept { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const noexcept;
  size_t itemsize() const noexcept { return dtype_size(dtype_); }
  size_t nbytes() const noexcept { return static_cast<size_t>(numel()) * itemsize(); }
  const std::shared_ptr<Storage>& storage() const noexcept { return storage_; }
  /// Address of element 0 (storage data + offset).
  uint8_t* data() const noexcept { return storage_ ? storage_->data() + offset_ : nullptr; }
  template <typename T> T* data_as() const noexcept { return reinterpret_cast<T*>(data()); }

  bool is_contiguous() const noexcept;    // C order, positive strides
  bool is_f_contiguous() const noexcept;  // Fortran order
  /// C-order copy when not contiguous, else *this.
  Tensor contiguous() const;
  /// Always a fresh C-contiguous copy.
  Tensor clone() const;
  /// Copies `src` (broadcast to this shape, same dtype) into this tensor's elements.
  void copy_from(const Tensor& src) const;

  // Views (share storage). `op` names the caller in error messages.
  Tensor permute(const std::vector<int64_t>& axes) const;
  Tensor transpose() const;  // reverse all axes (NumPy .T)
  Tensor swapaxes(int64_t a, int64_t b) const;
  Tensor slice(int64_t axis, int64_t start, int64_t stop, int64_t step) const;  // normalised bounds
  Tensor select(int64_t axis, int64_t index) const;  // drops the axis; negative index counts from end
  Tensor index(const std::vector<IndexItem>& items) const;  // NumPy basic indexing
  /// A view when strides allow; with `allow_copy`, a copy otherwise (else kInvalidShape).
  /// One dimension may be -1.
  Tensor reshape(Shape shape, bool allow_copy = true) const;
  Tensor broadcast_to(const Shape& shape) const;
  Tensor squeeze(const std::vector<int64_t>& axes = {}) const;  // empty: all size-1 axes
  Tensor expand_dims(int64_t axis) const;
  Tensor diagonal(int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1) const;
  /// Reinterprets as another dtype of the same size (view).
  Tensor view_as(DType dtype) const;

  /// "(2, 3)".
  static std::string shape_str(const Shape& s);

 private:
  std::shared_ptr<Storage> storage_;
  DType dtype_ = DType::kFloat32;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
};

/// C-contiguous byte strides of `shape` for elements of `itemsize` bytes.
Strides contiguous_strides(const Shape& shape, int64_t itemsize);
/// Product of the dims (1 for 0-d). Throws kInvalidShape on negative dims or overflow.
int64_t shape_numel(const Shape& shape, const char* op = "shape");
/// Normalises a possibly negative axis; kInvalidParam ("axis 3 is out of bounds
/// for array of dimension 2", NumPy's AxisError text) when outside [-ndim, ndim).
int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op);
/// The NumPy broadcast of two shapes; kInvalidShape naming both shapes when
/// they do not broadcast ("[op] operands could not be broadcast together with
/// shapes (2,3) (4,)").
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace asc
