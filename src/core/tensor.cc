#include "asc/core/tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

#include "asc/ops/iterator.h"
#include "asc/runtime/memory_pool.h"

// Layering note: Storage::allocate reaches up into the runtime's device pool;
// core and runtime live in one library (libasc), and the tensor is the one
// core type that owns device memory.

namespace asc {

// ------------------------------------------------------------------ Storage

std::shared_ptr<Storage> Storage::allocate(size_t nbytes) {
  auto s = std::make_shared<Storage>(Token{});  // one allocation: object + control block
  s->data_ = static_cast<uint8_t*>(runtime::device_pool().allocate_or_throw(nbytes));
  s->nbytes_ = nbytes;
  return s;
}

std::shared_ptr<Storage> Storage::external(void* data, size_t nbytes, std::shared_ptr<void> keep_alive) {
  auto s = std::make_shared<Storage>(Token{});
  s->data_ = static_cast<uint8_t*>(data);
  s->nbytes_ = nbytes;
  s->kind_ = kExternal;
  s->keep_alive_ = std::move(keep_alive);
  return s;
}

std::shared_ptr<Storage> Storage::allocate_pinned(size_t nbytes) {
  auto s = std::make_shared<Storage>(Token{});
  s->data_ = static_cast<uint8_t*>(runtime::pinned_host_pool().allocate_or_throw(nbytes));
  s->nbytes_ = nbytes;
  s->kind_ = kPinned;
  return s;
}

std::shared_ptr<Storage> Storage::inline_bytes(size_t nbytes) {
  if (nbytes > kInlineBytes) return allocate(nbytes);
  auto s = std::make_shared<Storage>(Token{});
  s->data_ = s->inline_;
  s->nbytes_ = nbytes;
  s->kind_ = kInline;
  return s;
}

std::shared_ptr<Storage> Storage::deferred(size_t nbytes) {
  auto s = std::make_shared<Storage>(Token{});
  s->nbytes_ = nbytes;
  return s;
}

void Storage::allocate_deferred() {
  if (data_ || kind_ != kPool) return;
  data_ = static_cast<uint8_t*>(runtime::device_pool().allocate_or_throw(nbytes_));
}

namespace {
std::atomic<LazyHooks*> g_lazy_hooks{nullptr};
}  // namespace

void set_lazy_hooks(LazyHooks* hooks) noexcept { g_lazy_hooks.store(hooks, std::memory_order_release); }

uint64_t Storage::next_uid() noexcept {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

void Storage::sync_lazy() const {
  if (LazyHooks* h = g_lazy_hooks.load(std::memory_order_acquire)) h->sync(*this);
}

Storage::~Storage() {
  if (kind_ == kPool && data_) (void)runtime::device_pool().free(data_);
  if (kind_ == kPinned && data_) (void)runtime::pinned_host_pool().free(data_);
}

// ------------------------------------------------------------------ helpers

std::string Tensor::shape_str(const Shape& s) {
  std::ostringstream os;
  os << '(';
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) os << ", ";
    os << s[i];
  }
  if (s.size() == 1) os << ',';
  os << ')';
  return os.str();
}

Strides contiguous_strides(const Shape& shape, int64_t itemsize) {
  Strides st(shape.size());
  int64_t acc = itemsize;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return st;
}

int64_t shape_numel(const Shape& shape, const char* op) {
  int64_t n = 1;
  bool overflow = false, zero = false;
  for (int64_t d : shape) {
    if (d < 0) throw Error(Status::Make(ErrorCode::kInvalidShape, op, "negative dimensions are not allowed"));
    if (d == 0) zero = true;
    if (overflow || zero) continue;
    if (n > std::numeric_limits<int64_t>::max() / d) overflow = true;
    else n *= d;
  }
  if (zero) return 0;
  if (overflow)
    throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                             "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
                             "possible size (shape " + Tensor::shape_str(shape) + ")"));
  return n;
}

namespace {
[[noreturn]] void too_big(const char* op, const std::string& what) {
  throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                           "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
                           "possible size (" + what + ")"));
}
}  // namespace

int64_t checked_nbytes(const Shape& shape, size_t itemsize, const char* op) {
  const int64_t n = shape_numel(shape, op);
  // NumPy's rule: the nonzero dims times the itemsize fit int64 even when a
  // zero dim makes the array empty (so every contiguous stride is representable).
  int64_t span = static_cast<int64_t>(itemsize);
  for (int64_t d : shape)
    if (__builtin_mul_overflow(span, std::max<int64_t>(d, 1), &span))
      too_big(op, "shape " + Tensor::shape_str(shape) + ", " + std::to_string(itemsize) + "-byte items");
  return n == 0 ? 0 : span;
}

int64_t checked_add(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) too_big(op, std::to_string(a) + " + " + std::to_string(b) + " elements");
  return r;
}

int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) too_big(op, std::to_string(a) + " * " + std::to_string(b) + " elements");
  return r;
}

int64_t normalize_axis(int64_t axis, int64_t ndim, const char* op) {
  if (axis < -ndim || axis >= ndim)
    throw Error(Status::Invalid(op, "axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                                        std::to_string(ndim)));
  return axis < 0 ? axis + ndim : axis;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                               "operands could not be broadcast together with shapes " + Tensor::shape_str(a) +
                                   " " + Tensor::shape_str(b)));
    }
  }
  shape_numel(out, op);  // (2**32,1) with (1,2**32): ValueError, not a wrapped 0-element result
  return out;
}

// ------------------------------------------------------------------ Tensor

Tensor Tensor::empty(const Shape& shape, DType dtype) {
  const int64_t item = static_cast<int64_t>(dtype_size(dtype));
  const int64_t bytes = checked_nbytes(shape, static_cast<size_t>(item), "empty");
  Tensor t;
  t.storage_ = Storage::allocate(static_cast<size_t>(bytes));
  t.dtype_ = dtype;
  t.shape_ = shape;
  t.strides_ = contiguous_strides(shape, item);
  return t;
}

Tensor Tensor::constant(DType dtype) {
  Tensor t;
  t.storage_ = Storage::inline_bytes(dtype_size(dtype));
  t.dtype_ = dtype;
  return t;
}

void Tensor::set_writeable(bool w) {
  if (w && storage_ && storage_->read_only())
    throw Error(Status::Invalid("setflags", "cannot set WRITEABLE flag to True of this array"));
  readonly_ = !w;
}

void Tensor::throw_read_only(const char* op, const char* what) { throw Error(Status::Invalid(op, what)); }

Tensor Tensor::view_of(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Strides strides, int64_t offset) {
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

int64_t Tensor::numel() const noexcept {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

bool Tensor::is_contiguous() const noexcept {
  int64_t acc = static_cast<int64_t>(itemsize());
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != acc) return false;
    acc *= shape_[i];
  }
  return true;
}

bool Tensor::is_f_contiguous() const noexcept {
  int64_t acc = static_cast<int64_t>(itemsize());
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != acc) return false;
    acc *= shape_[i];
  }
  return true;
}

void Tensor::copy_from(const Tensor& src_in) const {
  check_writeable("copy");
  if (src_in.dtype() != dtype_)
    throw Error(Status::TypeError("copy", std::string("dtype mismatch: ") + dtype_name(src_in.dtype()) + " vs " +
                                              dtype_name(dtype_)));
  const Tensor src = src_in.broadcast_to(shape_);
  if (numel() == 0) return;
  const int64_t* st[2] = {strides_.data(), src.strides().data()};
  ops::StridedIter it(2, static_cast<int>(ndim()), shape_.data(), st);
  char* base[2] = {reinterpret_cast<char*>(data()), reinterpret_cast<char*>(src.data())};
  const int64_t item = static_cast<int64_t>(itemsize());
  it.for_range(base, 0, it.size(), [item](char** p, const int64_t* s, int64_t n) {
    if (s[0] == item && s[1] == item) {
      std::memmove(p[0], p[1], static_cast<size_t>(n * item));
      return;
    }
    char* d = p[0];
    const char* q = p[1];
    for (int64_t i = 0; i < n; ++i, d += s[0], q += s[1]) std::memcpy(d, q, static_cast<size_t>(item));
  });
}

Tensor Tensor::clone() const {
  Tensor out = empty(shape_, dtype_);
  out.copy_from(*this);
  return out;
}

Tensor Tensor::contiguous() const {
  // Opaque ops (conv, norms, pools, sort, ...) call this on their inputs before
  // allocating their results. A pending input is computed *first*: its graph then
  // releases what only it kept alive (relu(bn(x)) frees bn's output) before the
  // result exists, so such an op peaks at its input + output, as in eager mode,
  // instead of three activations (issue 13). The caller reads the bytes next anyway.
  if (is_pending()) (void)data();
  return is_contiguous() ? *this : clone();
}

Tensor Tensor::permute(const std::vector<int64_t>& axes) const {
  const int64_t nd = ndim();
  if (static_cast<int64_t>(axes.size()) != nd) throw Error(Status::Invalid("transpose", "axes don't match array"));
  std::vector<bool> seen(static_cast<size_t>(nd), false);
  Tensor t = *this;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t a = normalize_axis(axes[static_cast<size_t>(i)], nd, "transpose");
    if (seen[static_cast<size_t>(a)]) throw Error(Status::Invalid("transpose", "repeated axis in transpose"));
    seen[static_cast<size_t>(a)] = true;
    t.shape_[static_cast<size_t>(i)] = shape_[static_cast<size_t>(a)];
    t.strides_[static_cast<size_t>(i)] = strides_[static_cast<size_t>(a)];
  }
  return t;
}

Tensor Tensor::transpose() const {
  Tensor t = *this;
  std::reverse(t.shape_.begin(), t.shape_.end());
  std::reverse(t.strides_.begin(), t.strides_.end());
  return t;
}

Tensor Tensor::swapaxes(int64_t a, int64_t b) const {
  a = normalize_axis(a, ndim(), "swapaxes");
  b = normalize_axis(b, ndim(), "swapaxes");
  Tensor t = *this;
  std::swap(t.shape_[static_cast<size_t>(a)], t.shape_[static_cast<size_t>(b)]);
  std::swap(t.strides_[static_cast<size_t>(a)], t.strides_[static_cast<size_t>(b)]);
  return t;
}

Tensor Tensor::slice(int64_t axis, int64_t start, int64_t stop, int64_t step) const {
  axis = normalize_axis(axis, ndim(), "slice");
  if (step == 0) throw Error(Status::Invalid("slice", "slice step cannot be zero"));
  const size_t ax = static_cast<size_t>(axis);
  int64_t len = 0;
  // 1 + (extent - 1) / |step|: no overflow for steps near 2**63 (a[::2**64] clamps the step).
  if (step > 0 && stop > start) len = 1 + (stop - start - 1) / step;
  if (step < 0 && start > stop) len = 1 + (start - stop - 1) / -step;
  Tensor t = *this;
  if (len > 0) t.offset_ += start * strides_[ax];
  t.shape_[ax] = len;
  t.strides_[ax] = len > 1 ? strides_[ax] * step : strides_[ax];  // one element: any stride
  return t;
}

Tensor Tensor::select(int64_t axis, int64_t index) const {
  axis = normalize_axis(axis, ndim(), "index");
  const size_t ax = static_cast<size_t>(axis);
  const int64_t size = shape_[ax];
  if (index < -size || index >= size)
    throw Error(Status::IndexError("index", "index " + std::to_string(index) + " is out of bounds for axis " +
                                                std::to_string(axis) + " with size " + std::to_string(size)));
  if (index < 0) index += size;
  Tensor t = *this;
  t.offset_ += index * strides_[ax];
  t.shape_.erase(t.shape_.begin() + axis);
  t.strides_.erase(t.strides_.begin() + axis);
  return t;
}

namespace {
// Python slice.indices(): clamps start/stop for a dimension of `size`.
void slice_indices(const IndexItem& it, int64_t size, int64_t* start, int64_t* stop) {
  const int64_t step = it.step;
  if (step > 0) {
    int64_t s = it.has_start ? it.start : 0, e = it.has_stop ? it.stop : size;
    if (s < 0) s = std::max<int64_t>(s + size, 0);
    if (e < 0) e = std::max<int64_t>(e + size, 0);
    *start = std::min(s, size);
    *stop = std::min(e, size);
  } else {
    int64_t s = it.has_start ? it.start : size - 1, e = it.has_stop ? it.stop : -1;
    if (it.has_start) s = s < 0 ? std::max<int64_t>(s + size, -1) : std::min(s, size - 1);
    if (it.has_stop) e = e < 0 ? std::max<int64_t>(e + size, -1) : std::min(e, size - 1);
    *start = s;
    *stop = e;
  }
}
}  // namespace

Tensor Tensor::index(const std::vector<IndexItem>& items) const {
  int64_t consumed = 0, ellipses = 0;
  for (const auto& it : items) {
    if (it.kind == IndexItem::kInt || it.kind == IndexItem::kSlice) ++consumed;
    if (it.kind == IndexItem::kEllipsis) ++ellipses;
  }
  if (ellipses > 1) throw Error(Status::IndexError("index", "an index can only have a single ellipsis ('...')"));
  if (consumed > ndim())
    throw Error(Status::IndexError("index", "too many indices for array: array is " + std::to_string(ndim()) +
                                                "-dimensional, but " + std::to_string(consumed) + " were indexed"));
  Tensor t;
  t.storage_ = storage_;
  t.dtype_ = dtype_;
  t.offset_ = offset_;
  t.readonly_ = readonly_;
  size_t src = 0;
  auto take_full = [&](int64_t count) {
    for (int64_t i = 0; i < count; ++i, ++src) {
      t.shape_.push_back(shape_[src]);
      t.strides_.push_back(strides_[src]);
    }
  };
  for (const auto& it : items) {
    switch (it.kind) {
      case IndexItem::kEllipsis: take_full(ndim() - consumed); break;
      case IndexItem::kNewAxis:
        t.shape_.push_back(1);
        t.strides_.push_back(0);
        break;
      case IndexItem::kInt: {
        const int64_t size = shape_[src];
        int64_t i = it.start;
        if (i < -size || i >= size)
          throw Error(Status::IndexError("index", "index " + std::to_string(i) + " is out of bounds for axis " +
                                                      std::to_string(src) + " with size " + std::to_string(size)));
        if (i < 0) i += size;
        t.offset_ += i * strides_[src];
        ++src;
        break;
      }
      case IndexItem::kSlice: {
        if (it.step == 0) throw Error(Status::Invalid("index", "slice step cannot be zero"));
        int64_t start, stop;
        slice_indices(it, shape_[src], &start, &stop);
        int64_t len = 0;
        if (it.step > 0 && stop > start) len = 1 + (stop - start - 1) / it.step;  // no overflow near 2**63
        if (it.step < 0 && start > stop) len = 1 + (start - stop - 1) / -it.step;
        if (len > 0) t.offset_ += start * strides_[src];
        t.shape_.push_back(len);
        t.strides_.push_back(len > 1 ? strides_[src] * it.step : strides_[src]);  // one element: any stride
        ++src;
        break;
      }
    }
  }
  take_full(ndim() - static_cast<int64_t>(src));
  return t;
}

Tensor Tensor::reshape(Shape shape, bool allow_copy) const {
  const int64_t n = numel();
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (unknown >= 0) throw Error(Status::Invalid("reshape", "can only specify one unknown dimension"));
      unknown = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw Error(Status::Make(ErrorCode::kInvalidShape, "reshape", "negative dimensions are not allowed"));
    } else {
      known *= shape[i];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || n % known != 0)
      throw Error(Status::Make(ErrorCode::kInvalidShape, "reshape",
                               "cannot reshape array of size " + std::to_string(n) + " into shape " + shape_str(shape)));
    shape[static_cast<size_t>(unknown)] = n / known;
  }
  if (shape_numel(shape, "reshape") != n)
    throw Error(Status::Make(ErrorCode::kInvalidShape, "reshape",
                             "cannot reshape array of size " + std::to_string(n) + " into shape " + shape_str(shape)));
  const int64_t item = static_cast<int64_t>(itemsize());
  checked_nbytes(shape, itemsize(), "reshape");  // (2**62, 2**62, 0): strides must be representable
  if (is_contiguous()) {
    Tensor v = view_of(storage_, dtype_, shape, contiguous_strides(shape, item), offset_);
    v.readonly_ = readonly_;
    return v;
  }
  // NumPy's _attempt_nocopy_reshape: match groups of old and new axes whose
  // products agree; each old group must be contiguous within itself.
  Shape os;
  Strides ost;
  for (size_t i = 0; i < shape_.size(); ++i)
    if (shape_[i] != 1) {
      os.push_back(shape_[i]);
      ost.push_back(strides_[i]);
    }
  Strides nst(shape.size(), 0);
  size_t oi = 0, oj = 1, ni = 0, nj = 1;
  bool ok = n != 0;
  while (ok && ni < shape.size() && oi < os.size()) {
    int64_t np = shape[ni], op = os[oi];
    while (np != op) {
      if (np < op) np *= shape[nj++];
      else op *= os[oj++];
    }
    for (size_t k = oi; k + 1 < oj; ++k)
      if (ost[k] != os[k + 1] * ost[k + 1]) ok = false;
    if (!ok) break;
    nst[nj - 1] = ost[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) nst[k - 1] = nst[k] * shape[k];
    ni = nj++;
    oi = oj++;
  }
  if (ok) {
    for (size_t k = ni; k < shape.size(); ++k) nst[k] = item;  // trailing ones
    Tensor v = view_of(storage_, dtype_, shape, nst, offset_);
    v.readonly_ = readonly_;
    return v;
  }
  if (!allow_copy)
    throw Error(Status::Make(ErrorCode::kInvalidShape, "reshape", "cannot reshape a non-contiguous array of shape " +
                                                                       shape_str(shape_) + " into shape " +
                                                                       shape_str(shape) + " without copying"));
  Tensor c = clone();
  return view_of(c.storage_, dtype_, shape, contiguous_strides(shape, item), 0);
}

Tensor Tensor::broadcast_to(const Shape& shape) const {
  const size_t n = shape.size(), m = shape_.size();
  auto fail = [&] {
    throw Error(Status::Make(ErrorCode::kInvalidShape, "broadcast_to",
                             "operands could not be broadcast together with shapes " + shape_str(shape_) + " " +
                                 shape_str(shape)));
  };
  if (m > n) fail();
  checked_nbytes(shape, itemsize(), "broadcast_to");  // negative dims, 2**64 elements: ValueError, not a wrapped size
  Tensor t = *this;
  t.shape_ = shape;
  t.strides_.assign(n, 0);
  for (size_t i = 0; i < m; ++i) {
    const int64_t d = shape_[i], target = shape[n - m + i];
    if (d == target) t.strides_[n - m + i] = strides_[i];
    else if (d != 1) fail();
  }
  return t;
}

Tensor Tensor::squeeze(const std::vector<int64_t>& axes) const {
  std::vector<bool> drop(shape_.size(), false);
  if (axes.empty()) {
    for (size_t i = 0; i < shape_.size(); ++i) drop[i] = shape_[i] == 1;
  } else {
    for (int64_t a : axes) {
      const size_t ax = static_cast<size_t>(normalize_axis(a, ndim(), "squeeze"));
      if (shape_[ax] != 1)
        throw Error(Status::Invalid("squeeze", "cannot select an axis to squeeze out which has size not equal to one"));
      drop[ax] = true;
    }
  }
  Tensor t = *this;
  t.shape_.clear();
  t.strides_.clear();
  for (size_t i = 0; i < shape_.size(); ++i)
    if (!drop[i]) {
      t.shape_.push_back(shape_[i]);
      t.strides_.push_back(strides_[i]);
    }
  return t;
}

Tensor Tensor::expand_dims(int64_t axis) const {
  axis = normalize_axis(axis, ndim() + 1, "expand_dims");
  Tensor t = *this;
  t.shape_.insert(t.shape_.begin() + axis, 1);
  t.strides_.insert(t.strides_.begin() + axis, 0);
  return t;
}

Tensor Tensor::diagonal(int64_t offset, int64_t axis1, int64_t axis2) const {
  if (ndim() < 2) throw Error(Status::Invalid("diagonal", "diag requires an array of at least two dimensions"));
  axis1 = normalize_axis(axis1, ndim(), "diagonal");
  axis2 = normalize_axis(axis2, ndim(), "diagonal");
  if (axis1 == axis2) throw Error(Status::Invalid("diagonal", "axis1 and axis2 cannot be the same"));
  const size_t a1 = static_cast<size_t>(axis1), a2 = static_cast<size_t>(axis2);
  int64_t n1 = shape_[a1], n2 = shape_[a2];
  int64_t off = offset_;
  if (offset >= 0) {
    n2 = std::max<int64_t>(n2 - offset, 0);
    if (n2 > 0) off += offset * strides_[a2];
  } else {
    n1 = std::max<int64_t>(n1 + offset, 0);
    if (n1 > 0) off += -offset * strides_[a1];
  }
  const int64_t len = std::min(n1, n2);
  Tensor t = *this;
  t.shape_.clear();
  t.strides_.clear();
  for (size_t i = 0; i < shape_.size(); ++i)
    if (i != a1 && i != a2) {
      t.shape_.push_back(shape_[i]);
      t.strides_.push_back(strides_[i]);
    }
  t.shape_.push_back(len);
  t.strides_.push_back(strides_[a1] + strides_[a2]);
  t.offset_ = len > 0 ? off : offset_;
  return t;
}

Tensor Tensor::view_as(DType dtype) const {
  if (dtype_size(dtype) != itemsize())
    throw Error(Status::TypeError("view", std::string("cannot view ") + dtype_name(dtype_) + " as " + dtype_name(dtype)));
  Tensor t = *this;
  t.dtype_ = dtype;
  return t;
}

}  // namespace asc
