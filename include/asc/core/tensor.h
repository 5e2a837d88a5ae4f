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

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "asc/core/dtype.h"
#include "asc/core/status.h"

namespace asc {

/// A vector of int64 with inline room for kInline elements: shapes and strides
/// of up to 6 dimensions need no heap memory (the per-op overhead of small
/// arrays). The subset of std::vector's interface that tensors use.
class DimVector {
 public:
  static constexpr size_t kInline = 6;
  using value_type = int64_t;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;
  using size_type = size_t;
  using reference = int64_t&;
  using const_reference = const int64_t&;

  DimVector() noexcept = default;
  explicit DimVector(size_t n, int64_t v = 0) { assign(n, v); }
  DimVector(std::initializer_list<int64_t> il) { assign(il.begin(), il.end()); }
  template <typename It, typename = decltype(*std::declval<It>())>
  DimVector(It first, It last) { assign(first, last); }
  DimVector(const std::vector<int64_t>& v) { assign(v.begin(), v.end()); }  // NOLINT: implicit on purpose
  DimVector(const DimVector& o) { assign(o.begin(), o.end()); }
  DimVector(DimVector&& o) noexcept { move_from(o); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) {
      release();
      move_from(o);
    }
    return *this;
  }
  ~DimVector() { release(); }

  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  int64_t* data() noexcept { return ptr(); }
  const int64_t* data() const noexcept { return ptr(); }
  int64_t* begin() noexcept { return ptr(); }
  int64_t* end() noexcept { return ptr() + size_; }
  const int64_t* begin() const noexcept { return ptr(); }
  const int64_t* end() const noexcept { return ptr() + size_; }
  int64_t& operator[](size_t i) noexcept { return ptr()[i]; }
  const int64_t& operator[](size_t i) const noexcept { return ptr()[i]; }
  int64_t& back() noexcept { return ptr()[size_ - 1]; }
  int64_t back() const noexcept { return ptr()[size_ - 1]; }
  int64_t front() const noexcept { return ptr()[0]; }

  void reserve(size_t n) {
    if (n <= cap_) return;
    int64_t* h = new int64_t[n];
    std::copy(begin(), end(), h);
    release();
    heap_ = h;
    cap_ = n;
  }
  void clear() noexcept { size_ = 0; }
  void resize(size_t n, int64_t v = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) ptr()[i] = v;
    size_ = n;
  }
  void assign(size_t n, int64_t v) {
    size_ = 0;
    resize(n, v);
  }
  template <typename It>
  void assign(It first, It last) {
    const size_t n = static_cast<size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    std::copy(first, last, ptr());
    size_ = n;
  }
  void push_back(int64_t v) {
    if (size_ == cap_) reserve(cap_ * 2);
    ptr()[size_++] = v;
  }
  void pop_back() noexcept { --size_; }
  int64_t* insert(const int64_t* pos, int64_t v) {
    const size_t i = static_cast<size_t>(pos - ptr());
    push_back(v);
    std::rotate(ptr() + i, ptr() + size_ - 1, ptr() + size_);
    return ptr() + i;
  }
  int64_t* erase(const int64_t* pos) {
    const size_t i = static_cast<size_t>(pos - ptr());
    std::copy(ptr() + i + 1, end(), ptr() + i);
    --size_;
    return ptr() + i;
  }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  operator std::vector<int64_t>() const { return vec(); }  // NOLINT: implicit on purpose

  friend bool operator==(const DimVector& a, const DimVector& b) noexcept {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const DimVector& a, const DimVector& b) noexcept { return !(a == b); }

 private:
  int64_t* ptr() noexcept { return heap_ ? heap_ : inline_; }
  const int64_t* ptr() const noexcept { return heap_ ? heap_ : inline_; }
  void release() noexcept {
    delete[] heap_;
    heap_ = nullptr;
    cap_ = kInline;
  }
  void move_from(DimVector& o) noexcept {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      cap_ = o.cap_;
      o.heap_ = nullptr;
      o.cap_ = kInline;
    } else {
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    }
    o.size_ = 0;
  }
  int64_t* heap_ = nullptr;
  size_t size_ = 0;
  size_t cap_ = kInline;
  int64_t inline_[kInline];
};

using Shape = DimVector;
using Strides = DimVector;  // bytes

class Storage;

/// Lazy evaluation without core depending on the graph layer (asc::graph
/// implements this interface and registers it once). A storage may be the
/// output of pending work (its bytes are not computed yet; a deferred storage
/// has no memory yet either) and/or pending work may read it. Every access to
/// the bytes through Storage::data() / Tensor::data() first calls sync(), so
/// nothing can read stale (or not yet computed) bytes, and a write through the
/// returned pointer cannot overtake pending readers.
class LazyHooks {
 public:
  virtual ~LazyHooks() = default;
  /// Runs the pending work that produces `s` and the pending work that reads
  /// `s`; afterwards s.lazy_flags() == 0 and s.raw_data() is valid. Throws
  /// asc::Error when that work failed (e.g. the pool could not allocate).
  virtual void sync(const Storage& s) = 0;
};
/// Registers the hooks (the graph layer, at static initialisation).
void set_lazy_hooks(LazyHooks* hooks) noexcept;

/// A flat byte buffer a tensor views.
class Storage {
 public:
  /// `nbytes` bytes from the device pool (uninitialised).
  static std::shared_ptr<Storage> allocate(size_t nbytes);
  /// Wraps external memory; `keep_alive` is released (destroyed) with the storage.
  static std::shared_ptr<Storage> external(void* data, size_t nbytes, std::shared_ptr<void> keep_alive);
  /// Room for one element (<= kInlineBytes) inside the storage object itself:
  /// 0-d constants such as Python scalars, passed to kernels by value (one
  /// small allocation, no pool round trip).
  static constexpr size_t kInlineBytes = 16;
  static std::shared_ptr<Storage> inline_bytes(size_t nbytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  /// The bytes, made final first when lazy work is pending (see LazyHooks):
  /// safe to read and to write. May throw the error of failed pending work.
  /// Every call counts as a possible write (see version()).
  uint8_t* data() const {
    if (lazy_flags_.load(std::memory_order_acquire) != 0) sync_lazy();
    version_.fetch_add(1, std::memory_order_acq_rel);
    return data_;
  }
  /// data() for a caller that only reads the bytes: the same synchronisation,
  /// but version() is left unchanged.
  const uint8_t* read_data() const {
    if (lazy_flags_.load(std::memory_order_acquire) != 0) sync_lazy();
    return data_;
  }
  /// Identity of this storage that is never reused in the process (addresses
  /// are, after a free), for caches of data derived from the bytes.
  uint64_t uid() const noexcept { return uid_; }
  /// Write generation: changes whenever the bytes may have changed through
  /// pyasc: on every data() call (any mutable pointer handed out) and when
  /// pending lazy work writing the storage completes (set_lazy_flags clearing
  /// kPendingWrite). A cache keyed by (uid(), version()) read right after
  /// read_data() is stale-proof for storages that are not volatile_bytes()
  /// (memory NumPy or an export can write is invisible to it). Used by the
  /// reordered-weight cache of src/nn/conv.cc.
  uint64_t version() const noexcept { return version_.load(std::memory_order_acquire); }
  size_t nbytes() const noexcept { return nbytes_; }
  bool is_external() const noexcept { return kind_ == kExternal; }
  bool is_inline() const noexcept { return kind_ == kInline; }
  /// Pinned host memory (runtime::pinned_host_pool()), from allocate_pinned().
  bool is_pinned() const noexcept { return kind_ == kPinned; }
  /// `nbytes` bytes from the pinned host pool (uninitialised).
  static std::shared_ptr<Storage> allocate_pinned(size_t nbytes);

  // ---- who may change the bytes ----
  /// kReadOnly: writes through pyasc are refused (external memory NumPy
  /// marks read-only: np.load(mmap_mode='r'), np.frombuffer(bytes), DLPack
  /// read-only imports). kImmutable: nothing can change the bytes while this
  /// storage lives (a Python bytes object's memory): lazy nodes may read
  /// them whenever they run. kPrivate: external memory only pyasc holds (a
  /// NumPy temporary made by the conversion itself). Set at creation; the one
  /// exception is asc.torch's call window (_C._private_window, python/src/interop.cc),
  /// which marks a fresh DLPack import kPrivate while our op runs and clears it
  /// only after every pending node touching it has run. A plain byte, not atomic:
  /// safe because that storage is created inside the call and flushed before the
  /// flag is cleared, so no other thread reads it meanwhile.
  enum AccessFlag : uint8_t { kReadOnly = 1, kImmutable = 2, kPrivate = 4 };
  uint8_t access() const noexcept { return access_; }
  void set_access(uint8_t a) noexcept { access_ = a; }
  bool read_only() const noexcept { return (access_ & kReadOnly) != 0; }
  /// Raw pointers to the bytes held outside pyasc (NumPy views, PEP 3118
  /// buffers, DLPack capsules, __array_interface__): while any is alive,
  /// code pyasc does not see may write the bytes. add_export()/release_export()
  /// pair up around a holder's lifetime; a holder whose end is unknown adds
  /// one for good.
  void add_export() const noexcept { exports_.fetch_add(1, std::memory_order_relaxed); }
  void release_export() const noexcept { exports_.fetch_sub(1, std::memory_order_relaxed); }
  int32_t exports() const noexcept { return exports_.load(std::memory_order_relaxed); }
  /// Whether the bytes may change without pyasc knowing (writable external
  /// memory that is not private, or any live export): a lazy node must not
  /// read them later than its recording call.
  bool volatile_bytes() const noexcept {
    return (kind_ == kExternal && (access_ & (kImmutable | kPrivate)) == 0) ||
           exports_.load(std::memory_order_relaxed) > 0;
  }

  // ---- lazy evaluation (used by asc::graph; guarded by the graph's lock) ----
  /// kUnexposed: the bytes were written by the graph and no raw pointer to
  /// them was handed out since (data() clears it through LazyHooks::sync:
  /// NumPy views, the buffer protocol, DLPack, eager kernels all go through
  /// data()). Only such storages may get deferred (recorded) writes: nobody
  /// outside the graph can be reading the old bytes through a pointer.
  enum LazyFlag : uint8_t { kPendingWrite = 1, kPendingRead = 2, kUnexposed = 4 };
  /// `nbytes` of pool memory allocated later by allocate_deferred() (the
  /// output of a pending graph node: no memory until it is materialised).
  static std::shared_ptr<Storage> deferred(size_t nbytes);
  /// Allocates the memory of a deferred storage (no-op when it has memory).
  void allocate_deferred();
  /// The address without synchronisation (the graph executor; may be null
  /// while deferred).
  uint8_t* raw_data() const noexcept { return data_; }
  uint8_t lazy_flags() const noexcept { return lazy_flags_.load(std::memory_order_acquire); }
  void set_lazy_flags(uint8_t f) const noexcept {
    const uint8_t was = lazy_flags_.exchange(f, std::memory_order_acq_rel);
    if ((was & kPendingWrite) != 0 && (f & kPendingWrite) == 0) version_.fetch_add(1, std::memory_order_acq_rel);
  }
  /// The pending work producing this storage (opaque to core), or null.
  const std::shared_ptr<void>& producer() const noexcept { return producer_; }
  void set_producer(std::shared_ptr<void> p) const noexcept { producer_ = std::move(p); }

 private:
  void sync_lazy() const;
  struct Token {};

 public:
  explicit Storage(Token) noexcept {}  // for make_shared only

 private:
  enum Kind : uint8_t { kPool, kExternal, kInline, kPinned };
  uint8_t* data_ = nullptr;
  size_t nbytes_ = 0;
  Kind kind_ = kPool;
  uint8_t access_ = 0;
  mutable std::atomic<int32_t> exports_{0};
  std::shared_ptr<void> keep_alive_;
  mutable std::atomic<uint8_t> lazy_flags_{0};
  mutable std::shared_ptr<void> producer_;
  const uint64_t uid_ = next_uid();
  mutable std::atomic<uint64_t> version_{0};
  static uint64_t next_uid() noexcept;
  alignas(16) uint8_t inline_[kInlineBytes] = {};
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
  /// A 0-d tensor whose element lives inside its storage object (Storage::inline_bytes):
  /// the value of a Python scalar or another constant (uninitialised).
  static Tensor constant(DType dtype);
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
  /// Address of element 0 (storage data + offset). Materialises pending lazy
  /// work on this storage first (LazyHooks), so the bytes may be read and
  /// written; throws the error of failed pending work.
  uint8_t* data() const { return storage_ ? storage_->data() + offset_ : nullptr; }
  template <typename T> T* data_as() const { return reinterpret_cast<T*>(data()); }
  /// True while the bytes are produced by pending lazy work (not computed yet).
  bool is_pending() const noexcept {
    return storage_ && (storage_->lazy_flags() & Storage::kPendingWrite) != 0;
  }
  /// NumPy's WRITEABLE flag: false for views marked read-only (set_writeable,
  /// broadcast_to from Python) and for storages that are read-only. Views
  /// taken from this tensor inherit it.
  bool writeable() const noexcept { return !readonly_ && !(storage_ && storage_->read_only()); }
  /// Clears or sets the flag; setting it on a read-only storage is
  /// kInvalidParam ("cannot set WRITEABLE flag to True of this array"), as NumPy.
  void set_writeable(bool w);
  /// kInvalidParam "[op] <what>" (NumPy's "assignment destination is
  /// read-only" / "output array is read-only") unless writeable().
  void check_writeable(const char* op, const char* what = "assignment destination is read-only") const {
    if (!writeable()) throw_read_only(op, what);
  }

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
  [[noreturn]] static void throw_read_only(const char* op, const char* what);
  std::shared_ptr<Storage> storage_;
  DType dtype_ = DType::kFloat32;
  Shape shape_;
  Strides strides_;
  int64_t offset_ = 0;
  bool readonly_ = false;
};

/// C-contiguous byte strides of `shape` for elements of `itemsize` bytes.
Strides contiguous_strides(const Shape& shape, int64_t itemsize);
/// Product of the dims (1 for 0-d). Throws kInvalidShape on negative dims or overflow.
int64_t shape_numel(const Shape& shape, const char* op = "shape");
/// numel * itemsize of `shape`, checked: kInvalidShape (ValueError, NumPy's
/// "array is too big; `arr.size * arr.dtype.itemsize` is larger than the
/// maximum possible size.") when it does not fit int64, kInvalidShape on
/// negative dims. Every new array or view of a new shape goes through it.
int64_t checked_nbytes(const Shape& shape, size_t itemsize, const char* op);
/// a + b and a * b of sizes/extents, kInvalidShape ("array is too big") on
/// int64 overflow instead of wrapping (repeat, concatenate, pad, tile totals).
int64_t checked_add(int64_t a, int64_t b, const char* op);
int64_t checked_mul(int64_t a, int64_t b, const char* op);
/// Normalises a possibly negative axis; kInvalidParam ("axis 3 is out of bounds
/// for array of dimension 2", NumPy's AxisError text) when outside [-ndim, ndim).
int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op);
/// The NumPy broadcast of two shapes; kInvalidShape naming both shapes when
/// they do not broadcast ("[op] operands could not be broadcast together with
/// shapes (2,3) (4,)").
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace asc
