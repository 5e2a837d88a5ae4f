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
// Complex rows (NumPy's order, sorting.h ComplexKey) are argsorted by a stable
// counting partition into the four NaN classes and one (key, index) pair sort
// per class; value sorts gather through that permutation.
#include <hwy/contrib/sort/vqsort.h>
#include <hwy/targets.h>

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

/// Whether vqsort may run: Highway 1.0.3's vqsort aborts on the scalar
/// targets (e.g. for 128-bit keys) once ASC_SIMD_TARGET=SCALAR disabled the
/// vector ones; std::sort then sorts the same keys (equal results: keys are
/// compared as integers either way).
bool vqsort_usable() {
  const int64_t t = hwy::SupportedTargets();
  return (t & ~static_cast<int64_t>(HWY_SCALAR | HWY_EMU128)) != 0;
}

template <typename K>
void local_sort(K* p, size_t n) {
  if (n < 2) return;
  if (vqsort_usable()) vq()(p, n, hwy::SortAscending());
  else std::sort(p, p + n, Less<K>());
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

constexpr size_t kMinChunk = size_t(1) << 15;

struct Identity {
  template <typename K>
  K operator()(K k) const noexcept {
    return k;
  }
};

/// Output positions [k0, k1) of the stable merge of a and b, post(x) written to out[k0..k1).
template <typename K, typename Post>
void merge_part_post(const K* a, size_t la, const K* b, size_t lb, K* out, size_t k0, size_t k1, Post post) {
  Less<K> less;
  size_t i = corank(k0, a, la, b, lb), j = k0 - i;
  const size_t ie = corank(k1, a, la, b, lb), je = k1 - ie;
  K* o = out + k0;
  // Branch-free: the comparison selects (cmov) and advances one side.
  while (i < ie && j < je) {
    const K x = a[i], y = b[j];
    const bool take_b = less(y, x);
    *o++ = post(take_b ? y : x);
    j += take_b;
    i += !take_b;
  }
  while (i < ie) *o++ = post(a[i++]);
  while (j < je) *o++ = post(b[j++]);
}

/// Sorts n keys into `out`. pre(dst, lo, hi) fills dst[lo, hi) with the keys
/// (pre(dst, lo, hi, chunk), chunk < the core count; concurrently; dst is `out` or a pooled scratch buffer,
/// chosen so that the last merge round writes `out`: no copy-back pass).
/// check() runs after all pre calls: false stops before sorting (dst then
/// holds the pre'd keys, returned through *keys) so the caller can take
/// another path. post(k) maps each key as it is written by the last merge
/// (or in a pass over `out` when there is one chunk). With `parallel`, one
/// chunk per core is sorted concurrently, then runs merge pairwise, each merge
/// split over all cores at co-ranks.
template <typename K, typename Pre, typename Check, typename Post>
bool sort_keys_into(K* out, size_t n, bool parallel, const std::string& name, Pre&& pre, Check&& check, Post post,
                    K** keys = nullptr) {
  const size_t cores = parallel ? static_cast<size_t>(std::max(1, num_cores())) : 1;
  const size_t chunks = std::max<size_t>(1, std::min(cores, n / kMinChunk));
  size_t rounds = 0;
  while ((size_t(1) << rounds) < chunks) ++rounds;
  Tensor scratch;
  K* start = out;
  K* other = nullptr;
  if (rounds > 0) {
    scratch = Tensor::empty({static_cast<int64_t>(n * sizeof(K))}, DType::kUInt8);
    other = reinterpret_cast<K*>(scratch.data());
    if (rounds % 2 == 1) std::swap(start, other);
  }
  std::vector<size_t> bounds(chunks + 1);
  for (size_t b = 0; b <= chunks; ++b) bounds[b] = n * b / chunks;
  if (chunks == 1) {
    pre(start, size_t{0}, n, size_t{0});
    if (!check()) {
      if (keys) *keys = start;
      return false;
    }
    local_sort(start, n);
    if constexpr (!std::is_same_v<Post, Identity>)
      for (size_t i = 0; i < n; ++i) out[i] = post(out[i]);
    return true;
  }
  launch(name, static_cast<int64_t>(chunks), [&](int64_t b) {
    pre(start, bounds[static_cast<size_t>(b)], bounds[static_cast<size_t>(b) + 1], static_cast<size_t>(b));
  });
  if (!check()) {
    if (keys) *keys = start;
    return false;
  }
  launch(name, static_cast<int64_t>(chunks), [&](int64_t b) {
    const size_t lo = bounds[static_cast<size_t>(b)], hi = bounds[static_cast<size_t>(b) + 1];
    local_sort(start + lo, hi - lo);
  });
  K* src = start;
  K* dst = other;
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
    const bool last = next.size() == 2;
    launch(name, static_cast<int64_t>(tasks.size()), [&](int64_t t) {
      const Task& k = tasks[static_cast<size_t>(t)];
      if (last) merge_part_post(src + k.a0, k.la, src + k.a0 + k.la, k.lb, dst + k.a0, k.k0, k.k1, post);
      else merge_part_post(src + k.a0, k.la, src + k.a0 + k.la, k.lb, dst + k.a0, k.k0, k.k1, Identity{});
    });
    std::swap(src, dst);
    bounds.swap(next);
  }
  return true;  // src == out: the round count fixed the parity
}

/// Sorts p[0, n) in place (keys already in p).
template <typename K>
void sort_keys(K* p, size_t n, bool parallel, const std::string& name) {
  sort_keys_into(
      p, n, parallel, name,
      [p](K* dst, size_t lo, size_t hi, size_t) {
        if (dst != p) std::memcpy(dst + lo, p + lo, (hi - lo) * sizeof(K));
      },
      [] { return true; }, Identity{});
}

/// The pre-pass of a float sort: per chunk, the NaN count, whether all NaNs
/// have one bit pattern, and whether both zero signs occur.
template <typename U>
struct FloatStats {
  size_t nans = 0;
  U nan_bits = 0;
  bool mixed_nans = false, neg_zero = false, pos_zero = false;
};

/// Stable-equivalent ascending float sort by the slow general path: NaNs out
/// (input order), zero signs recorded in input order (see the file comment).
template <typename T>
void sort_float_general(T* p, size_t n, bool parallel, const std::string& name) {
  using SK = SortKey<T>;
  using U = typename SK::U;
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
  U* u = reinterpret_cast<U*>(p);
  for (size_t i = 0; i < m; ++i) u[i] = SK::raw_key(u[i]);
  sort_keys(u, m, parallel, name);
  for (size_t i = 0; i < m; ++i) u[i] = SK::raw_unkey(u[i]);
  if (neg_zero && pos_zero) {
    const T* z = std::lower_bound(p, p + m, T(0.0f), [](const T& a, const T& b) { return SK::key(a) < SK::key(b); });
    T* w = p + (z - p);
    const T pz = SK::from_bits(0), nz = SK::from_bits(SK::kSign);
    for (uint8_t s : zero_signs) *w++ = s ? nz : pz;
  }
  std::copy(nans.begin(), nans.end(), p + m);
}

/// Ascending sort of src[0, n) into p (src may equal p; see the file comment).
template <typename T>
void sort_row(T* p, const T* src, size_t n, bool parallel, const std::string& name) {
  using SK = SortKey<T>;
  using U = typename SK::U;
  if constexpr (sizeof(T) == 1) {
    // Counting sort: the key is a bijection of the value for bool and 8-bit ints.
    size_t count[256] = {};
    for (size_t i = 0; i < n; ++i) ++count[SK::key(src[i])];
    size_t o = 0;
    for (size_t k = 0; k < 256; ++k) {
      // Only keys that occur: for bool, the bytes 2..255 are no bool value
      // (loading one is undefined; UBSan, make test-sanitize-python).
      if (count[k] == 0) continue;
      const T v = SK::from_bits(SK::raw_unkey(static_cast<U>(k)));
      for (size_t c = 0; c < count[k]; ++c) p[o++] = v;
    }
  } else if constexpr (!SK::kFloat) {
    sort_keys_into(
        p, n, parallel, name,
        [src](T* dst, size_t lo, size_t hi, size_t) {
          if (dst != src) std::memcpy(dst + lo, src + lo, (hi - lo) * sizeof(T));
        },
        [] { return true; }, Identity{});
  } else {
    // Fast path: every value becomes its bijective raw key (-0.0 < +0.0, NaNs
    // by bit pattern) in one pass that also gathers the stats; when the NaNs
    // share one positive bit pattern and at most one zero sign occurs, sorting
    // the raw keys gives exactly the stable order. Otherwise (rare) the keys
    // are mapped back and the general path runs.
    U* out = reinterpret_cast<U*>(p);
    const U* in = reinterpret_cast<const U*>(src);
    const size_t cores = parallel ? static_cast<size_t>(std::max(1, num_cores())) : 1;
    std::vector<FloatStats<U>> stats(cores);
    auto pre = [&](U* dst, size_t lo, size_t hi, size_t chunk) {
      // Branch-free so that it vectorises: NaN bit patterns are tracked by an
      // OR and an AND over the NaNs (all equal iff the two agree).
      constexpr U kAbs = static_cast<U>(~SK::kSign);
      U nan_or = 0, nan_and = static_cast<U>(~U(0));
      size_t nans = 0, negz = 0, posz = 0;
      for (size_t i = lo; i < hi; ++i) {
        const U b = in[i];
        dst[i] = SK::raw_key(b);
        const U a = static_cast<U>(b & kAbs);
        const bool nan = a > SK::inf_bits();
        const bool zero = a == 0;
        const U m = static_cast<U>(U(0) - U(nan));
        nan_or = static_cast<U>(nan_or | (b & m));
        nan_and = static_cast<U>(nan_and & (b | static_cast<U>(~m)));
        nans += nan;
        negz += zero & (b != 0);
        posz += zero & (b == 0);
      }
      FloatStats<U>& s = stats[chunk];
      s.nans = nans;
      s.nan_bits = nan_or;
      s.mixed_nans = nans > 0 && nan_or != nan_and;
      s.neg_zero = negz > 0;
      s.pos_zero = posz > 0;
    };
    auto check = [&] {
      bool have_nan = false, mixed = false, neg = false, pos = false;
      U bits = 0;
      for (const auto& s : stats) {
        if (s.nans) {
          if (have_nan && s.nan_bits != bits) mixed = true;
          bits = s.nan_bits;
          have_nan = true;
          mixed = mixed || s.mixed_nans;
        }
        neg = neg || s.neg_zero;
        pos = pos || s.pos_zero;
      }
      return !mixed && !(have_nan && (bits & SK::kSign)) && !(neg && pos);
    };
    U* keys = nullptr;
    if (!sort_keys_into(out, n, parallel, name, pre, check, [](U k) { return SK::raw_unkey(k); }, &keys)) {
      for (size_t i = 0; i < n; ++i) out[i] = SK::raw_unkey(keys[i]);
      sort_float_general(p, n, parallel, name);
    }
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

/// out[0, m) = the payloads j in [0, m) ordered by key(j), ties in ascending
/// j (stable): (key, j) pairs packed into a uint64 (keys up to 32 bits) or a
/// uint128, sorted like argsort_row's.
template <typename U, typename KeyFn>
void sort_payloads(size_t m, KeyFn key, uint64_t* out, bool parallel, const std::string& name) {
  if (m == 0) return;
  if (sizeof(U) <= 4 && m <= 0xFFFFFFFFu) {
    std::unique_ptr<uint64_t[]> buf(new uint64_t[m]);
    for (size_t j = 0; j < m; ++j) buf[j] = (uint64_t(key(j)) << 32) | j;
    sort_keys(buf.get(), m, parallel, name);
    for (size_t j = 0; j < m; ++j) out[j] = buf[j] & 0xFFFFFFFFu;
  } else {
    std::unique_ptr<hwy::uint128_t[]> buf(new hwy::uint128_t[m]);
    for (size_t j = 0; j < m; ++j) {
      buf[j].hi = static_cast<uint64_t>(key(j));
      buf[j].lo = j;
    }
    sort_keys(buf.get(), m, parallel, name);
    for (size_t j = 0; j < m; ++j) out[j] = buf[j].lo;
  }
}

/// Stable argsort of one complex row in NumPy's order (sorting.h ComplexKey).
/// The indices are first partitioned by NaN class (stable, counting), then
/// each class is sorted by its own key: (real, imag) for numbers (one 64-bit
/// key for complex64; two stable passes, imag then real, for complex128), the
/// real part for R + nanj, the imag part for nan + Rj; nan + nanj stays in
/// input order. Descending = reverse(stable ascending argsort of the reversed
/// row), indices mapped back: largest first, NaNs first, ties in input order.
template <typename R>
void argsort_row_complex(const std::complex<R>* p, size_t n, int64_t* out, bool descending, bool parallel,
                         const std::string& name) {
  using CK = ComplexKey<R>;
  using SK = SortKey<R>;
  using U = typename SK::U;
  using C = std::complex<R>;
  auto at = [&](uint64_t i) -> const C& { return descending ? p[n - 1 - i] : p[i]; };
  std::vector<uint8_t> cls(n);
  size_t start[5] = {};
  for (size_t i = 0; i < n; ++i) {
    cls[i] = static_cast<uint8_t>(CK::cls(at(i)));
    ++start[cls[i] + 1];
  }
  for (int c = 0; c < 4; ++c) start[c + 1] += start[c];
  std::vector<uint64_t> idx(n), res(n), ord(n), ord2;
  {
    size_t pos[4] = {start[0], start[1], start[2], start[3]};
    for (size_t i = 0; i < n; ++i) idx[pos[cls[i]]++] = i;
  }
  // Class c occupies [start[c], start[c + 1]) of idx; res gets the sorted order.
  for (unsigned c = 0; c < 4; ++c) {
    const size_t b = start[c], m = start[c + 1] - b;
    const uint64_t* seg = idx.data() + b;
    uint64_t* o = ord.data() + b;
    if (c == 3 || m < 2) {
      std::copy(seg, seg + m, res.data() + b);
      continue;
    }
    if (c == 1) {
      sort_payloads<U>(m, [&](size_t j) { return SK::key(at(seg[j]).real()); }, o, parallel, name);
    } else if (c == 2) {
      sort_payloads<U>(m, [&](size_t j) { return SK::key(at(seg[j]).imag()); }, o, parallel, name);
    } else if constexpr (sizeof(U) <= 4) {
      sort_payloads<uint64_t>(
          m,
          [&](size_t j) {
            const C& v = at(seg[j]);
            return (uint64_t(SK::key(v.real())) << 32) | uint64_t(SK::key(v.imag()));
          },
          o, parallel, name);
    } else {
      // LSD: a stable pass by imag, then a stable pass by real over that order.
      ord2.resize(m);
      sort_payloads<U>(m, [&](size_t j) { return SK::key(at(seg[j]).imag()); }, ord2.data(), parallel, name);
      sort_payloads<U>(m, [&](size_t j) { return SK::key(at(seg[ord2[j]]).real()); }, o, parallel, name);
      for (size_t j = 0; j < m; ++j) o[j] = ord2[o[j]];
    }
    for (size_t j = 0; j < m; ++j) res[b + j] = seg[o[j]];
  }
  if (!descending) {
    for (size_t k = 0; k < n; ++k) out[k] = static_cast<int64_t>(res[k]);
  } else {
    for (size_t k = 0; k < n; ++k) out[k] = static_cast<int64_t>(n - 1 - res[n - 1 - k]);
  }
}

/// Complex value sorts. Fast path (ascending, no NaN part anywhere, and
/// neither the real nor the imaginary parts hold both zero signs): the raw
/// bijective keys (real, imag) concatenated (a uint64 for complex64, a
/// uint128 for complex128) sort in exactly NumPy's order, and equal keys are
/// equal bits, so vqsort's order is the stable one and the values come back
/// from the keys. Otherwise the stable argsort, then a gather (src may equal p).
template <typename R>
void sort_row_complex(std::complex<R>* p, const std::complex<R>* src, size_t n, bool descending, bool parallel,
                      const std::string& name) {
  using SK = SortKey<R>;
  using U = typename SK::U;
  if (!descending) {
    bool nan = false, re_neg0 = false, re_pos0 = false, im_neg0 = false, im_pos0 = false;
    for (size_t i = 0; i < n && !nan; ++i) {
      const U re = SK::bits(src[i].real()), im = SK::bits(src[i].imag());
      nan = SK::is_nan(src[i].real()) || SK::is_nan(src[i].imag());
      re_neg0 |= re == SK::kSign;
      re_pos0 |= re == 0;
      im_neg0 |= im == SK::kSign;
      im_pos0 |= im == 0;
    }
    if (!nan && !(re_neg0 && re_pos0) && !(im_neg0 && im_pos0)) {
      if constexpr (sizeof(U) == 4) {
        std::unique_ptr<uint64_t[]> buf(new uint64_t[n]);
        for (size_t i = 0; i < n; ++i)
          buf[i] = (uint64_t(SK::raw_key(SK::bits(src[i].real()))) << 32) | SK::raw_key(SK::bits(src[i].imag()));
        sort_keys(buf.get(), n, parallel, name);
        for (size_t i = 0; i < n; ++i)
          p[i] = {SK::from_bits(SK::raw_unkey(static_cast<U>(buf[i] >> 32))),
                  SK::from_bits(SK::raw_unkey(static_cast<U>(buf[i])))};
      } else {
        std::unique_ptr<hwy::uint128_t[]> buf(new hwy::uint128_t[n]);
        for (size_t i = 0; i < n; ++i) {
          buf[i].hi = SK::raw_key(SK::bits(src[i].real()));
          buf[i].lo = SK::raw_key(SK::bits(src[i].imag()));
        }
        sort_keys(buf.get(), n, parallel, name);
        for (size_t i = 0; i < n; ++i)
          p[i] = {SK::from_bits(SK::raw_unkey(buf[i].hi)), SK::from_bits(SK::raw_unkey(buf[i].lo))};
      }
      return;
    }
  }
  std::vector<int64_t> perm(n);
  argsort_row_complex<R>(src, n, perm.data(), descending, parallel, name);
  std::vector<std::complex<R>> copy;
  if (src == p) {
    copy.assign(src, src + n);
    src = copy.data();
  }
  for (size_t k = 0; k < n; ++k) p[k] = src[perm[k]];
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

void sort_rows(const Tensor& rows, bool descending, const std::string& op, const Tensor* src) {
  const int64_t R = rows.shape()[0], n = rows.shape()[1];
  if (R == 0 || n == 0) return;
  if (is_complex(rows.dtype())) {
    visit_dtype_all(rows.dtype(), [&](auto z) {
      using C = decltype(z);
      if constexpr (is_std_complex<C>::value) {
        using Rt = typename C::value_type;
        C* base = rows.data_as<C>();
        const C* sbase = src ? src->data_as<C>() : base;
        for_rows(R, n, op, [&](int64_t r, bool parallel) {
          sort_row_complex<Rt>(base + r * n, sbase + r * n, static_cast<size_t>(n), descending, parallel, op);
        });
      }
    });
    return;
  }
  visit_dtype(rows.dtype(), [&](auto z) {
    using T = decltype(z);
    T* base = rows.data_as<T>();
    const T* sbase = src ? src->data_as<T>() : base;
    for_rows(R, n, op, [&](int64_t r, bool parallel) {
      T* p = base + r * n;
      const T* q = sbase + r * n;
      if (n == 1) {
        *p = *q;
        return;
      }
      // Descending = reverse(stable ascending sort of the reversed row): ties and
      // NaNs keep their input order, NaNs come first.
      if (descending) {
        if (q == p) std::reverse(p, p + n);
        else std::reverse_copy(q, q + n, p);
        q = p;
      }
      sort_row<T>(p, q, static_cast<size_t>(n), parallel, op);
      if (descending) std::reverse(p, p + n);
    });
  });
}

void argsort_rows(const Tensor& rows, const Tensor& out, bool descending, const std::string& op) {
  const int64_t R = rows.shape()[0], n = rows.shape()[1];
  if (R == 0 || n == 0) return;
  if (is_complex(rows.dtype())) {
    visit_dtype_all(rows.dtype(), [&](auto z) {
      using C = decltype(z);
      if constexpr (is_std_complex<C>::value) {
        const C* base = rows.data_as<C>();
        int64_t* obase = out.data_as<int64_t>();
        for_rows(R, n, op, [&](int64_t r, bool parallel) {
          argsort_row_complex<typename C::value_type>(base + r * n, static_cast<size_t>(n), obase + r * n, descending,
                                                      parallel, op);
        });
      }
    });
    return;
  }
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
  if (rows.numel() == 0) return attrs.all_axes ? rows : axis_back(rows, axis).contiguous();
  const int64_t n = rows.shape().back();
  const Shape rows_shape{rows.numel() / n, n};
  // A C-contiguous input is read by the sort's first pass directly (no copy).
  if (xm.is_contiguous()) {
    const Tensor src = xm.reshape(rows_shape);
    sort_rows(rows.reshape(rows_shape), attrs.descending, op.name, &src);
  } else {
    rows.copy_from(xm);
    sort_rows(rows.reshape(rows_shape), attrs.descending, op.name);
  }
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

const OpRegistrar kOps[] = {
    OpRegistrar(with_complex(opaque_op("sort", 1, &run_sort,
                       "Sorted copy along an axis (flattened when all_axes); NaN last, stable; "
                       "Attrs.descending: largest first, NaN first."))),
    OpRegistrar(with_complex(opaque_op("argsort", 1, &run_argsort,
                       "Indices that sort along an axis (stable; NaN last); Attrs.descending: largest first."))),
};

}  // namespace
}  // namespace asc::ops::sorting
