// Set ops: unique (values and the index/inverse/counts information) and isin
// (opaque registry ops over the flattened input).
//
// Equality is NumPy's: -0.0 == +0.0 (one unique value, the first in input
// order), NaN != NaN; with equal_nan (Attrs.flags bit 0, NumPy's default) all
// NaNs form one group (complex: every value with a NaN part; sorting.h
// ComplexKey gives the order). unique_values (and unique_values_counts) of
// real dtypes of 16+ bits first try hashing (NumPy 2.4's method there; few
// distinct values); otherwise both unique ops sort (sort.cc: stable, NaN
// last), then one pass finds the runs of equal keys.
//
// "unique_info" returns one int64 array [index (U) | counts (U) | inverse (N)]
// for the N input elements and U unique values: index = first occurrence,
// counts = run lengths, inverse = group of each input element. The Python
// layer (unique_all, unique_inverse, ...) splits it into views.
#include <algorithm>
#include <atomic>
#include <vector>

#include "asc/ops/registry.h"
#include "asc/ops/sets.h"
#include "ops/loops.h"
#include "ops/sorting.h"

namespace asc::ops::sorting {
namespace {

constexpr int64_t kFlagEqualNan = 1;  // unique: all NaNs are one value
constexpr int64_t kFlagInvert = 1;    // isin: invert the result

/// Splits [0, n) into `blocks` chunks (all cores for large n).
int64_t set_blocks(int64_t n) { return n < kParallelMin ? 1 : std::min<int64_t>(num_cores(), n / 4096); }

/// Whether sorted position i starts a new group: p[i] differs from p[i - 1]
/// under NumPy's equality (-0.0 == +0.0; NaN != NaN unless equal_nan).
template <typename T>
inline bool starts_group(const T& prev, const T& cur, bool equal_nan) {
  using SK = SortKey<T>;
  return SK::key(cur) != SK::key(prev) || (!equal_nan && SK::is_nan(cur));
}
/// Complex: NumPy's == (either part NaN: unequal to everything); with
/// equal_nan every value with a NaN part is one group (NumPy's unique:
/// "for complex all NaNs are considered equivalent"). NaNs sort last, so a
/// NaN `cur` after a number starts the NaN group.
template <typename R>
inline bool starts_group(const std::complex<R>& prev, const std::complex<R>& cur, bool equal_nan) {
  using CK = ComplexKey<R>;
  if (CK::has_nan(cur)) return !equal_nan || !CK::has_nan(prev);
  return !CK::equal(prev, cur);
}

/// The flattened x sorted (stable order, NaN last) into a new 1-d tensor.
Tensor sorted_copy(const Tensor& x0, const std::string& op) {
  const Tensor x = x0.reshape({-1});
  const int64_t n = x.numel();
  Tensor s = Tensor::empty({n}, x.dtype());
  if (n == 0) return s;
  if (x.is_contiguous()) {
    const Tensor src = x.reshape({1, n});
    sort_rows(s.reshape({1, n}), false, op, &src);
  } else {
    s.copy_from(x);
    sort_rows(s.reshape({1, n}), false, op);
  }
  return s;
}

/// Unique values of the sorted 1-d `s` and, with `counts`, their counts:
/// per-chunk counts of group starts, a prefix, then each chunk writes its
/// starts (values, and the start positions that become the counts).
Tensor dedupe_sorted(const Tensor& s, bool equal_nan, const std::string& op, Tensor* counts) {
  const int64_t n = s.numel();
  Tensor out;
  visit_dtype_all(s.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* p = s.data_as<T>();
    const int64_t blocks = set_blocks(n);
    std::vector<int64_t> cnt(static_cast<size_t>(blocks) + 1, 0);
    launch(op, blocks, [&](int64_t b) {
      const int64_t lo = n * b / blocks, hi = n * (b + 1) / blocks;
      int64_t c = 0;
      for (int64_t i = std::max<int64_t>(lo, 1); i < hi; ++i) c += starts_group(p[i - 1], p[i], equal_nan);
      if (lo == 0 && hi > 0) ++c;
      cnt[static_cast<size_t>(b) + 1] = c;
    });
    for (int64_t b = 0; b < blocks; ++b) cnt[static_cast<size_t>(b) + 1] += cnt[static_cast<size_t>(b)];
    const int64_t u = cnt.back();
    out = Tensor::empty({u}, s.dtype());
    T* o = out.data_as<T>();
    int64_t* pos = nullptr;
    if (counts) {
      *counts = Tensor::empty({u}, DType::kInt64);
      pos = counts->data_as<int64_t>();
    }
    launch(op, blocks, [&](int64_t b) {
      const int64_t lo = n * b / blocks, hi = n * (b + 1) / blocks;
      int64_t w = cnt[static_cast<size_t>(b)];
      for (int64_t i = lo; i < hi; ++i) {
        if (i == 0 || starts_group(p[i - 1], p[i], equal_nan)) {
          o[w] = p[i];
          if (pos) pos[w] = i;
          ++w;
        }
      }
    });
    if (pos)
      for (int64_t g = 0; g < u; ++g) pos[g] = (g + 1 < u ? pos[g + 1] : n) - pos[g];
  });
  return out;
}

// ------------------------------------------------------------------ hashing

/// An open-addressing table of distinct keys and their counts (8 bytes a
/// slot for keys up to 32 bits, so that 2^17 groups stay in L2). Key 0 marks
/// an empty slot; the key 0 itself is counted apart.
template <typename U>
class KeyTable {
 public:
  struct Slot {
    U key;
    uint32_t count;
  };
  KeyTable() { resize(1024); }
  size_t size() const { return size_ + (zero_ != 0); }
  void add(U k, uint32_t count) {
    if (k == 0) {
      zero_ += count;
      return;
    }
    size_t i = hash(k);
    while (slots_[i].key != 0) {
      if (slots_[i].key == k) {
        slots_[i].count += count;
        return;
      }
      i = (i + 1) & mask_;
    }
    slots_[i] = {k, count};
    if (++size_ * 2 > slots_.size()) grow();
  }
  /// fn(key, count) for every key (int64 counts: merged tables may pass 2^32).
  template <typename Fn>
  void for_each(Fn&& fn) const {
    if (zero_) fn(U(0), zero_);
    for (const Slot& s : slots_)
      if (s.key != 0) fn(s.key, int64_t(s.count));
  }

 private:
  size_t hash(U k) const {
    return static_cast<size_t>((static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void resize(size_t cap) {
    slots_.assign(cap, Slot{U(0), 0u});
    mask_ = cap - 1;
    int bits = 0;
    while ((size_t(1) << bits) < cap) ++bits;
    shift_ = 64 - bits;
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    resize(old.size() * 2);
    size_ = 0;
    for (const Slot& s : old)
      if (s.key != 0) add(s.key, s.count);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  int64_t zero_ = 0;
  int shift_ = 0;
};

/// NumPy 2.4 dedupes unique() without index/inverse by hashing; so does this:
/// one table per core over its block, merged in block order (a group's value
/// is its first occurrence in input order, as NumPy's), then only the
/// distinct keys are sorted. Without equal_nan every NaN is its own group
/// (kept apart, in input order, after the numbers). Hashing loses to sorting
/// when most values are distinct: past kMaxDistinct (or n / 16) distinct keys
/// every core stops and this returns false, and the caller sorts.
template <typename T>
bool hash_unique(const T* p, int64_t n, bool equal_nan, const std::string& op, Tensor* values, Tensor* counts) {
  using SK = SortKey<T>;
  using U = typename SK::U;
  constexpr size_t kMaxDistinct = size_t(1) << 18;
  const size_t max_distinct = std::min<size_t>(kMaxDistinct, static_cast<size_t>(n) / 16);
  const int64_t blocks = set_blocks(n);
  if (n / blocks >= (int64_t(1) << 32)) return false;  // per-block counts are 32-bit
  std::vector<KeyTable<U>> tables(static_cast<size_t>(blocks));
  // A group's value is its key's value except for the zeros (-0.0 and +0.0
  // share a key) and the NaNs: their first occurrence per block is kept.
  struct Firsts {
    bool zero = false, nan = false;
    T zero_v{}, nan_v{};
    std::vector<T> nans;  // !equal_nan: every NaN, in input order
  };
  std::vector<Firsts> firsts(static_cast<size_t>(blocks));
  std::atomic<bool> give_up{false};
  launch(op, blocks, [&](int64_t b) {
    KeyTable<U>& t = tables[static_cast<size_t>(b)];
    Firsts& f = firsts[static_cast<size_t>(b)];
    const int64_t lo = n * b / blocks, hi = n * (b + 1) / blocks;
    for (int64_t i0 = lo; i0 < hi; i0 += 4096) {
      if (give_up.load(std::memory_order_relaxed)) return;
      for (int64_t i = i0; i < std::min(hi, i0 + 4096); ++i) {
        const T v = p[i];
        if constexpr (SK::kFloat) {
          if (SK::is_nan(v)) {
            if (!f.nan) f.nan_v = v;
            f.nan = true;
            if (!equal_nan) {
              f.nans.push_back(v);
              continue;
            }
          } else if (SK::is_zero(v)) {
            if (!f.zero) f.zero_v = v;
            f.zero = true;
          }
        }
        t.add(SK::key(v), 1);
      }
      if (t.size() > max_distinct) give_up = true;
    }
  });
  if (give_up) return false;
  // Merge: per key the total count; the zero and NaN values of the first block that has them.
  std::vector<std::pair<U, int64_t>> order;
  if (tables.size() == 1) {
    tables[0].for_each([&](U k, int64_t c) { order.push_back({k, c}); });
  } else {
    std::vector<std::pair<U, int64_t>> parts;
    for (const auto& t : tables) t.for_each([&](U k, int64_t c) { parts.push_back({k, c}); });
    std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& e : parts) {
      if (!order.empty() && order.back().first == e.first) order.back().second += e.second;
      else order.push_back(e);
    }
  }
  if (tables.size() == 1)
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const T* zero_v = nullptr;
  const T* nan_v = nullptr;
  size_t extra = 0;
  for (const Firsts& f : firsts) {
    if (f.zero && !zero_v) zero_v = &f.zero_v;
    if (f.nan && !nan_v) nan_v = &f.nan_v;
    extra += f.nans.size();
  }
  const int64_t u = static_cast<int64_t>(order.size() + extra);
  *values = Tensor::empty({u}, dtype_of<T>());
  T* vo = values->data_as<T>();
  int64_t* co = nullptr;
  if (counts) {
    *counts = Tensor::empty({u}, DType::kInt64);
    co = counts->data_as<int64_t>();
  }
  const U zero_key = SK::key(T(0.0f));
  int64_t w = 0;
  for (const auto& e : order) {
    T v = SK::from_bits(SK::raw_unkey(e.first));
    if constexpr (SK::kFloat) {
      if (e.first == zero_key && zero_v) v = *zero_v;
      else if (e.first == static_cast<U>(~U(0)) && nan_v) v = *nan_v;  // the NaN group (equal_nan)
    }
    vo[w] = v;
    if (co) co[w] = e.second;
    ++w;
  }
  for (const Firsts& f : firsts)
    for (const T& x : f.nans) {
      vo[w] = x;
      if (co) co[w] = 1;
      ++w;
    }
  return true;
}

/// hash_unique for the real dtypes it serves (16 bits and wider; 8-bit types
/// and bool sort by counting, which is as fast); false: sort instead.
bool try_hash_unique(const Tensor& x0, bool equal_nan, const std::string& op, Tensor* values, Tensor* counts) {
  if (is_complex(x0.dtype()) || dtype_size(x0.dtype()) < 2 || x0.numel() < 4096) return false;
  const Tensor x = x0.reshape({-1}).contiguous();
  bool done = false;
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    if constexpr (sizeof(T) >= 2) done = hash_unique<T>(x.data_as<T>(), x.numel(), equal_nan, op, values, counts);
  });
  return done;
}

Tensor run_unique_values(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  {
    Tensor values;
    if (try_hash_unique(inputs[0], (attrs.flags & kFlagEqualNan) != 0, op.name, &values, nullptr)) return values;
  }
  const Tensor s = sorted_copy(inputs[0], op.name);
  if (s.numel() == 0) return s;
  const bool equal_nan = (attrs.flags & kFlagEqualNan) != 0;
  Tensor u = dedupe_sorted(s, equal_nan, op.name, nullptr);
  if (equal_nan && is_complex(u.dtype())) {
    // NumPy's unique() without extra outputs dedupes by hashing and keeps the
    // first occurrence in input order; for the one complex NaN group that is
    // the first input element with a NaN part, not the smallest NaN class.
    visit_dtype_all(u.dtype(), [&](auto z) {
      using C = decltype(z);
      if constexpr (is_std_complex<C>::value) {
        C* up = u.data_as<C>();
        const int64_t nu = u.numel();
        if (!value_has_nan(up[nu - 1])) return;
        const Tensor x = inputs[0].reshape({-1}).contiguous();
        const C* xp = x.data_as<C>();
        for (int64_t i = 0; i < x.numel(); ++i) {
          if (value_has_nan(xp[i])) {
            up[nu - 1] = xp[i];
            break;
          }
        }
      }
    });
  }
  return u;
}

Tensor run_unique_info(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor x = inputs[0].reshape({-1}).contiguous();
  const int64_t n = x.numel();
  const bool equal_nan = (attrs.flags & kFlagEqualNan) != 0;
  Tensor perm = Tensor::empty({n}, DType::kInt64);
  if (n > 0) argsort_rows(x.reshape({1, n}), perm.reshape({1, n}), false, op.name);
  const int64_t* pp = perm.data_as<int64_t>();
  Tensor out;
  visit_dtype_all(x.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* p = x.data_as<T>();
    // Pass 1 counts the group starts of each chunk of the sorted order; pass 2
    // writes, for group g starting at sorted position i, first[g] = perm[i]
    // (the stable argsort puts the first occurrence first) and start[g] = i
    // (in the counts slot), and inverse[perm[i]] for every element.
    const int64_t blocks = set_blocks(n);
    std::vector<int64_t> cnt(static_cast<size_t>(blocks) + 1, 0);
    launch(op.name, blocks, [&](int64_t b) {
      const int64_t lo = n * b / blocks, hi = n * (b + 1) / blocks;
      int64_t c = 0;
      if (lo < hi) {
        T prev = p[pp[lo > 0 ? lo - 1 : 0]];
        if (lo == 0) ++c;
        for (int64_t i = std::max<int64_t>(lo, 1); i < hi; ++i) {
          const T cur = p[pp[i]];
          c += starts_group(prev, cur, equal_nan);
          prev = cur;
        }
      }
      cnt[static_cast<size_t>(b) + 1] = c;
    });
    for (int64_t b = 0; b < blocks; ++b) cnt[static_cast<size_t>(b) + 1] += cnt[static_cast<size_t>(b)];
    const int64_t u = cnt.back();
    out = Tensor::empty({2 * u + n}, DType::kInt64);
    int64_t* first = out.data_as<int64_t>();
    int64_t* counts = first + u;
    int64_t* inverse = counts + u;
    launch(op.name, blocks, [&](int64_t b) {
      const int64_t lo = n * b / blocks, hi = n * (b + 1) / blocks;
      if (lo >= hi) return;
      int64_t g = cnt[static_cast<size_t>(b)] - 1;
      T prev = p[pp[lo > 0 ? lo - 1 : 0]];
      for (int64_t i = lo; i < hi; ++i) {
        const T cur = p[pp[i]];
        if (i == 0 || starts_group(prev, cur, equal_nan)) {
          ++g;
          first[g] = pp[i];
          counts[g] = i;
        }
        inverse[pp[i]] = g;
        prev = cur;
      }
    });
    for (int64_t g = 0; g < u; ++g) counts[g] = (g + 1 < u ? counts[g + 1] : n) - counts[g];
  });
  if (n == 0) out = Tensor::empty({0}, DType::kInt64);
  return out;
}

Tensor run_isin(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const DType d = promote_or_throw(inputs[0].dtype(), inputs[1].dtype(), op.name);
  const Tensor e = cast(inputs[0], d).contiguous();
  const Tensor t0 = cast(inputs[1], d);
  const int64_t nt = t0.numel();
  Tensor t = Tensor::empty({nt}, d);
  t.copy_from(t0.reshape({-1}));
  if (nt > 0) sort_rows(t.reshape({1, nt}), false, op.name);
  const bool invert = (attrs.flags & kFlagInvert) != 0;
  Tensor out = Tensor::empty(e.shape(), DType::kBool);
  const int64_t m = e.numel();
  if (m == 0) return out;
  visit_dtype_all(d, [&](auto z) {
    using T = decltype(z);
    const T* tp = t.data_as<T>();
    const T* ep = e.data_as<T>();
    bool* o = out.data_as<bool>();
    auto body = [&](int64_t lo_i, int64_t hi_i) {
      for (int64_t j = lo_i; j < hi_i; ++j) {
        bool found = false;
        // NaN (in either part, for complex) equals nothing; otherwise equal
        // in the sort order is NumPy's == (-0.0 == +0.0).
        if (!value_has_nan(ep[j])) {
          const T* it = std::lower_bound(tp, tp + nt, ep[j], [](const T& a, const T& b) { return order_less(a, b); });
          found = it != tp + nt && !order_less(ep[j], *it);
        }
        o[j] = found != invert;
      }
    };
    const int64_t blocks = m * 16 < kParallelMin ? 1 : std::min<int64_t>(num_cores(), (m + 4095) / 4096);
    launch(op.name, blocks, [&](int64_t b) { body(m * b / blocks, m * (b + 1) / blocks); });
  });
  return out;
}

const OpRegistrar kOps[] = {
    OpRegistrar(with_complex(opaque_op("unique_values", 1, &run_unique_values,
                       "Sorted unique values of the flattened input (Attrs.flags bit 0: equal_nan)."))),
    OpRegistrar(with_complex(opaque_op("unique_info", 1, &run_unique_info,
                       "int64 [first index (U) | counts (U) | inverse (N)] of the unique values of the "
                       "flattened input (Attrs.flags bit 0: equal_nan)."))),
    OpRegistrar(with_complex(opaque_op("isin", 2, &run_isin,
                       "Whether each element of the first operand occurs in the second (Attrs.flags bit 0: invert)."))),
};

}  // namespace
}  // namespace asc::ops::sorting

namespace asc::ops {

std::pair<Tensor, Tensor> unique_values_counts(const Tensor& x, bool equal_nan) {
  const std::string op = "unique_counts";
  {
    Tensor values, counts;
    if (sorting::try_hash_unique(x, equal_nan, op, &values, &counts)) return {values, counts};
  }
  const Tensor s = sorting::sorted_copy(x, op);
  if (s.numel() == 0) return {s, Tensor::empty({0}, DType::kInt64)};
  Tensor counts;
  Tensor values = sorting::dedupe_sorted(s, equal_nan, op, &counts);
  return {values, counts};
}

}  // namespace asc::ops
