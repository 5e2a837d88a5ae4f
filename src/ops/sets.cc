// Set ops: unique (values and the index/inverse/counts information) and isin
// (opaque registry ops over the flattened input).
//
// Equality is NumPy's: -0.0 == +0.0 (one unique value, the first in input
// order), NaN != NaN; with equal_nan (Attrs.flags bit 0, NumPy's default) all
// NaNs form one group. Both unique ops sort first (sort.cc: stable, NaN last),
// then one pass finds the runs of equal keys.
//
// "unique_info" returns one int64 array [index (U) | counts (U) | inverse (N)]
// for the N input elements and U unique values: index = first occurrence,
// counts = run lengths, inverse = group of each input element. The Python
// layer (unique_all, unique_inverse, ...) splits it into views.
#include <algorithm>
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
  visit_dtype(s.dtype(), [&](auto z) {
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

Tensor run_unique_values(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor s = sorted_copy(inputs[0], op.name);
  if (s.numel() == 0) return s;
  return dedupe_sorted(s, (attrs.flags & kFlagEqualNan) != 0, op.name, nullptr);
}

Tensor run_unique_info(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor x = inputs[0].reshape({-1}).contiguous();
  const int64_t n = x.numel();
  const bool equal_nan = (attrs.flags & kFlagEqualNan) != 0;
  Tensor perm = Tensor::empty({n}, DType::kInt64);
  if (n > 0) argsort_rows(x.reshape({1, n}), perm.reshape({1, n}), false, op.name);
  const int64_t* pp = perm.data_as<int64_t>();
  Tensor out;
  visit_dtype(x.dtype(), [&](auto z) {
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
  visit_dtype(d, [&](auto z) {
    using T = decltype(z);
    using SK = SortKey<T>;
    const T* tp = t.data_as<T>();
    const T* ep = e.data_as<T>();
    bool* o = out.data_as<bool>();
    auto body = [&](int64_t lo_i, int64_t hi_i) {
      for (int64_t j = lo_i; j < hi_i; ++j) {
        bool found = false;
        if (!SK::is_nan(ep[j])) {  // NaN equals nothing
          const auto k = SK::key(ep[j]);
          const T* it = std::lower_bound(tp, tp + nt, ep[j],
                                         [](const T& a, const T& b) { return SK::key(a) < SK::key(b); });
          found = it != tp + nt && SK::key(*it) == k;
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
    OpRegistrar(opaque_op("unique_values", 1, &run_unique_values,
                       "Sorted unique values of the flattened input (Attrs.flags bit 0: equal_nan).")),
    OpRegistrar(opaque_op("unique_info", 1, &run_unique_info,
                       "int64 [first index (U) | counts (U) | inverse (N)] of the unique values of the "
                       "flattened input (Attrs.flags bit 0: equal_nan).")),
    OpRegistrar(opaque_op("isin", 2, &run_isin,
                       "Whether each element of the first operand occurs in the second (Attrs.flags bit 0: invert).")),
};

}  // namespace
}  // namespace asc::ops::sorting

namespace asc::ops {

std::pair<Tensor, Tensor> unique_values_counts(const Tensor& x, bool equal_nan) {
  const std::string op = "unique_counts";
  const Tensor s = sorting::sorted_copy(x, op);
  if (s.numel() == 0) return {s, Tensor::empty({0}, DType::kInt64)};
  Tensor counts;
  Tensor values = sorting::dedupe_sorted(s, equal_nan, op, &counts);
  return {values, counts};
}

}  // namespace asc::ops
