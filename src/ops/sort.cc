// sort and argsort (opaque registry ops) and the row sorters of sorting.h.
//
// Values: 8-bit types and bool are counting-sorted; 16/32/64-bit integers go
// to Highway's vqsort (hwy/contrib/sort, dynamic dispatch to the best SIMD
// target); floats are sorted as their order-preserving unsigned keys (vqsort's
// float path in Highway 1.0.3 does not preserve +Inf). NaNs are moved to the end (in input order)
// before the sort, and a run of zeros with both signs is rewritten with the
// input's signs in input order afterwards, so the result equals a stable sort
// even though vqsort is not one.
// argsort sorts (key, index) pairs packed into one uint64 (keys up to 32 bits)
// or a uint128 (64-bit keys): distinct pairs make the unstable vqsort stable.
// A long row is split into one chunk per core, the chunks are sorted
// concurrently and merged pairwise, each merge split over the cores at
// co-ranks (merge path), so every round uses all cores.
#include <hwy/contrib/sort/vqsort.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "asc/ops/registry.h"
#include "ops/loops.h"
#include "ops/sorting.h"

namespace asc::ops::sorting {
namespace {

hwy::Sorter& vq() {
  // A Sorter owns scratch memory: one per thread, reused across calls.
  thread_local hwy::Sorter s;
  return s;
}

template <typename K>
struct Less {
  bool operator()(const K& a, const K& b) const noexcept { return a < b; }
};
template <>
struct Less<hwy::uint128_t> {
  bool operator()(const hwy::uint128_t& a, const hwy::uint128_t& b) const noexcept {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
  }
};

template <typename K>
void local_sort(K* p, size_t n) {
  if (n < 2) return;
  vq()(p, n, hwy::SortAscending());
}

/// Number of elements of `a` among the first k of the stable merge of a and b.
template <typename K>
size_t corank(size_t k, const K* a, size_t la, const K* b, size_t lb) {
  Less<K> less;
  size_t lo = k > lb ? k - lb : 0, hi = std::min(k, la);
  while (lo < hi) {
    const size_t i = lo + (hi - lo) / 2, j = k - i;
    if (!less(b[j - 1], a[i])) lo = i + 1;
    else hi = i;
  }
  return lo;
}

/// Output positions [k0, k1) of the stable merge of a and b, written to out[k0..k1).
template <typename K>
void merge_part(const K* a, size_t la, const K* b, size_t lb, K* out, size_t k0, size_t k1) {
  Less<K> less;
  size_t i = corank(k0, a, la, b, lb), j = k0 - i;
  const size_t ie = corank(k1, a, la, b, lb), je = k1 - ie;
  K* o = out + k0;
  while (i < ie && j < je) *o++ = less(b[j], a[i]) ? b[j++] : a[i++];
  while (i < ie) *o++ = a[i++];
  while (j < je) *o++ = b[j++];
}

constexpr size_t kMinChunk = size_t(1) << 15;

/// Sorts p[0, n) with vqsort; with `parallel`, in one chunk per core plus merges.
template <typename K>
void sort_keys(K* p, size_t n, bool parallel, const std::string& name) {
  const size_t cores = parallel ? static_cast<size_t>(std::max(1, num_cores())) : 1;
  const size_t chunks = std::min(cores, n / kMinChunk);
  if (chunks <= 1) {
    local_sort(p, n);
    return;
  }
  std::vector<size_t> bounds(chunks + 1);
  for (size_t b = 0; b <= chunks; ++b) bounds[b] = n * b / chunks;
  launch(name, static_cast<int64_t>(chunks), [&](int64_t b) {
    local_sort(p + bounds[static_cast<size_t>(b)], bounds[static_cast<size_t>(b) + 1] - bounds[static_cast<size_t>(b)]);
  });
  std::unique_ptr<K[]> tmp(new K[n]);
  K* src = p;
  K* dst = tmp.get();
  struct Task {
    size_t a0, la, lb, k0, k1;
  };
  while (bounds.size() > 2) {
    std::vector<Task> tasks;
    std::vector<size_t> next;
    const size_t runs = bounds.size() - 1;
    for (size_t r = 0; r < runs; r += 2) {
      const size_t a0 = bounds[r], la = bounds[r + 1] - a0;
      const size_t lb = r + 1 < runs ? bounds[r + 2] - bounds[r + 1] : 0;
      const size_t total = la + lb;
      const size_t pieces = std::max<size_t>(1, (cores * total + n / 2) / n);
      for (size_t q = 0; q < pieces; ++q) tasks.push_back({a0, la, lb, total * q / pieces, total * (q + 1) / pieces});
      next.push_back(a0);
    }
    next.push_back(n);
    launch(name, static_cast<int64_t>(tasks.size()), [&](int64_t t) {
      const Task& k = tasks[static_cast<size_t>(t)];
      merge_part(src + k.a0, k.la, src + k.a0 + k.la, k.lb, dst + k.a0, k.k0, k.k1);
    });
    std::swap(src, dst);
    bounds.swap(next);
  }
  if (src != p) {
    launch(name, static_cast<int64_t>(cores), [&](int64_t b) {
      const size_t lo = n * static_cast<size_t>(b) / cores, hi = n * (static_cast<size_t>(b) + 1) / cores;
      std::memcpy(p + lo, src + lo, (hi - lo) * sizeof(K));
    });
  }
}

/// Ascending sort of one row in place (see the file comment).
template <typename T>
void sort_row(T* p, size_t n, bool parallel, const std::string& name) {
  using SK = SortKey<T>;
  using U = typename SK::U;
  if constexpr (sizeof(T) == 1) {
    // Counting sort: the key is a bijection of the value for bool and 8-bit ints.
    size_t count[256] = {};
    for (size_t i = 0; i < n; ++i) ++count[SK::key(p[i])];
    size_t o = 0;
    for (size_t k = 0; k < 256; ++k) {
      const T v = SK::from_bits(SK::raw_unkey(static_cast<U>(k)));
      for (size_t c = 0; c < count[k]; ++c) p[o++] = v;
    }
  } else if constexpr (!SK::kFloat) {
    sort_keys(p, n, parallel, name);
  } else {
    // NaNs out (kept in input order), zero signs recorded in input order.
    std::vector<T> nans;
    std::vector<uint8_t> zero_signs;
    bool neg_zero = false, pos_zero = false;
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
      const T v = p[i];
      if (SK::is_nan(v)) {
        nans.push_back(v);
        continue;
      }
      if (SK::is_zero(v)) {
        const bool neg = (SK::bits(v) & SK::kSign) != 0;
        zero_signs.push_back(neg);
        (neg ? neg_zero : pos_zero) = true;
      }
      p[m++] = v;
    }
    {
      // Floats are sorted as their order-preserving unsigned keys: vqsort's own
      // float path in Highway 1.0.3 turns +Inf into the largest finite value.
      U* u = reinterpret_cast<U*>(p);
      for (size_t i = 0; i < m; ++i) u[i] = SK::raw_key(u[i]);
      sort_keys(u, m, parallel, name);
      for (size_t i = 0; i < m; ++i) u[i] = SK::raw_unkey(u[i]);
    }
    if (neg_zero && pos_zero) {
      const T* z = std::lower_bound(p, p + m, T(0.0f), [](const T& a, const T& b) { return SK::key(a) < SK::key(b); });
      T* w = p + (z - p);
      const T pz = SK::from_bits(0), nz = SK::from_bits(SK::kSign);
      for (uint8_t s : zero_signs) *w++ = s ? nz : pz;
    }
    std::copy(nans.begin(), nans.end(), p + m);
  }
}

/// Stable argsort of one row (keys complemented for descending order).
template <typename T>
void argsort_row(const T* p, size_t n, int64_t* out, bool descending, bool parallel, const std::string& name) {
  using SK = SortKey<T>;
  using U = typename SK::U;
  const U flip = descending ? static_cast<U>(~U(0)) : U(0);
  if constexpr (sizeof(T) == 1) {
    size_t start[257] = {};
    for (size_t i = 0; i < n; ++i) ++start[static_cast<U>(SK::key(p[i]) ^ flip) + 1];
    for (size_t k = 0; k < 256; ++k) start[k + 1] += start[k];
    for (size_t i = 0; i < n; ++i) out[start[static_cast<U>(SK::key(p[i]) ^ flip)]++] = static_cast<int64_t>(i);
  } else if (sizeof(T) <= 4 && n <= 0xFFFFFFFFu) {
    std::unique_ptr<uint64_t[]> buf(new uint64_t[n]);
    for (size_t i = 0; i < n; ++i) buf[i] = (uint64_t(static_cast<U>(SK::key(p[i]) ^ flip)) << 32) | i;
    sort_keys(buf.get(), n, parallel, name);
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(buf[i] & 0xFFFFFFFFu);
  } else {
    std::unique_ptr<hwy::uint128_t[]> buf(new hwy::uint128_t[n]);
    for (size_t i = 0; i < n; ++i) {
      buf[i].hi = static_cast<uint64_t>(static_cast<U>(SK::key(p[i]) ^ flip));
      buf[i].lo = i;
    }
    sort_keys(buf.get(), n, parallel, name);
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(buf[i].lo);
  }
}

/// Splits R rows of n elements over the cores (rows mode) or runs each row
/// with the parallel chunk sort (few long rows). fn(row, parallel).
template <typename Fn>
void for_rows(int64_t R, int64_t n, const std::string& name, Fn&& fn) {
  const int64_t cores = std::max(1, num_cores());
  if (R >= cores || n < 2 * static_cast<int64_t>(kMinChunk)) {
    const int64_t blocks = R * n < kParallelMin ? 1 : std::min(cores, R);
    launch(name, blocks, [&](int64_t b) {
      for (int64_t r = R * b / blocks; r < R * (b + 1) / blocks; ++r) fn(r, false);
    });
    return;
  }
  for (int64_t r = 0; r < R; ++r) fn(r, true);
}

}  // namespace

Tensor axis_last(const Tensor& x, int64_t axis) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < x.ndim(); ++i)
    if (i != axis) perm.push_back(i);
  perm.push_back(axis);
  return x.permute(perm);
}

Tensor axis_back(const Tensor& y, int64_t axis) {
  const int64_t nd = y.ndim();
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < nd; ++i) {
    if (i == axis) perm.push_back(nd - 1);
    else perm.push_back(i < axis ? i : i - 1);
  }
  return y.permute(perm);
}

void sort_rows(const Tensor& rows, bool descending, const std::string& op) {
  const int64_t R = rows.shape()[0], n = rows.shape()[1];
  if (R == 0 || n <= 1) return;
  visit_dtype(rows.dtype(), [&](auto z) {
    using T = decltype(z);
    T* base = rows.data_as<T>();
    for_rows(R, n, op, [&](int64_t r, bool parallel) {
      T* p = base + r * n;
      // Descending = reverse(stable ascending sort of the reversed row): ties and
      // NaNs keep their input order, NaNs come first.
      if (descending) std::reverse(p, p + n);
      sort_row<T>(p, static_cast<size_t>(n), parallel, op);
      if (descending) std::reverse(p, p + n);
    });
  });
}

void argsort_rows(const Tensor& rows, const Tensor& out, bool descending, const std::string& op) {
  const int64_t R = rows.shape()[0], n = rows.shape()[1];
  if (R == 0 || n == 0) return;
  visit_dtype(rows.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* base = rows.data_as<T>();
    int64_t* obase = out.data_as<int64_t>();
    for_rows(R, n, op, [&](int64_t r, bool parallel) {
      argsort_row<T>(base + r * n, static_cast<size_t>(n), obase + r * n, descending, parallel, op);
    });
  });
}

namespace {

/// The input viewed with the sort axis last: flattened for all_axes, else the
/// one axis of attrs.axes (an out-of-range axis is NumPy's AxisError text).
Tensor sort_view(const OpDef& op, const Tensor& x, const Attrs& attrs, int64_t* axis) {
  if (attrs.all_axes) {
    *axis = 0;
    return x.reshape({-1});
  }
  if (attrs.axes.size() != 1)
    throw Error(Status::TypeError(op.name, "'tuple' object cannot be interpreted as an integer (one axis only)"));
  *axis = normalize_axis(attrs.axes[0], x.ndim(), op.name.c_str());
  return axis_last(x, *axis);
}

Tensor run_sort(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  int64_t axis;
  const Tensor xm = sort_view(op, inputs[0], attrs, &axis);
  Tensor rows = Tensor::empty(xm.shape(), xm.dtype());
  rows.copy_from(xm);
  if (rows.numel() == 0) return attrs.all_axes ? rows : axis_back(rows, axis).contiguous();
  const int64_t n = rows.shape().back();
  sort_rows(rows.reshape({rows.numel() / n, n}), attrs.descending, op.name);
  if (attrs.all_axes) return rows;
  const Tensor r = axis_back(rows, axis);
  return r.is_contiguous() ? r : r.contiguous();
}

Tensor run_argsort(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  int64_t axis;
  const Tensor xm = sort_view(op, inputs[0], attrs, &axis).contiguous();
  Tensor out = Tensor::empty(xm.shape(), DType::kInt64);
  if (out.numel() == 0) return attrs.all_axes ? out : axis_back(out, axis).contiguous();
  const int64_t n = xm.shape().back();
  const Shape rows_shape{xm.numel() / n, n};
  argsort_rows(xm.reshape(rows_shape), out.reshape(rows_shape), attrs.descending, op.name);
  if (attrs.all_axes) return out;
  const Tensor r = axis_back(out, axis);
  return r.is_contiguous() ? r : r.contiguous();
}

OpDef opaque(const char* name, int arity, OpaqueFn run, const char* doc) {
  OpDef d;
  d.name = name;
  d.arity = arity;
  d.fusion = FusionClass::kOpaque;
  d.run = run;
  d.doc = doc;
  return d;
}

const OpRegistrar kOps[] = {
    OpRegistrar(opaque("sort", 1, &run_sort,
                       "Sorted copy along an axis (flattened when all_axes); NaN last, stable; "
                       "Attrs.descending: largest first, NaN first.")),
    OpRegistrar(opaque("argsort", 1, &run_argsort,
                       "Indices that sort along an axis (stable; NaN last); Attrs.descending: largest first.")),
};

}  // namespace
}  // namespace asc::ops::sorting
