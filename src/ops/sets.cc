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
#include "ops/loops.h"
#include "ops/sorting.h"

namespace asc::ops::sorting {
namespace {

constexpr int64_t kFlagEqualNan = 1;  // unique: all NaNs are one value
constexpr int64_t kFlagInvert = 1;    // isin: invert the result

Tensor run_unique_values(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor& x = inputs[0];
  const int64_t n = x.numel();
  Tensor s = Tensor::empty({n}, x.dtype());
  s.copy_from(x.reshape({-1}));
  if (n == 0) return s;
  sort_rows(s.reshape({1, n}), false, op.name);
  const bool equal_nan = (attrs.flags & kFlagEqualNan) != 0;
  int64_t u = 0;
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    using SK = SortKey<T>;
    T* p = s.data_as<T>();
    u = 1;
    for (int64_t i = 1; i < n; ++i) {
      if (SK::key(p[i]) != SK::key(p[u - 1]) || (!equal_nan && SK::is_nan(p[i]))) p[u++] = p[i];
    }
  });
  return s.slice(0, 0, u, 1).clone();
}

Tensor run_unique_info(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor x = inputs[0].reshape({-1}).contiguous();
  const int64_t n = x.numel();
  const bool equal_nan = (attrs.flags & kFlagEqualNan) != 0;
  Tensor perm = Tensor::empty({n}, DType::kInt64);
  if (n > 0) argsort_rows(x.reshape({1, n}), perm.reshape({1, n}), false, op.name);
  const int64_t* pp = perm.data_as<int64_t>();
  std::vector<int64_t> first, counts;
  std::vector<int64_t> inverse(static_cast<size_t>(n));
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    using SK = SortKey<T>;
    const T* p = x.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      const T v = p[pp[i]];
      const bool same = i > 0 && SK::key(v) == SK::key(p[pp[i - 1]]) && (equal_nan || !SK::is_nan(v));
      if (!same) {
        first.push_back(pp[i]);
        counts.push_back(0);
      }
      ++counts.back();
      inverse[static_cast<size_t>(pp[i])] = static_cast<int64_t>(first.size()) - 1;
    }
  });
  const int64_t u = static_cast<int64_t>(first.size());
  Tensor out = Tensor::empty({2 * u + n}, DType::kInt64);
  int64_t* o = out.data_as<int64_t>();
  std::copy(first.begin(), first.end(), o);
  std::copy(counts.begin(), counts.end(), o + u);
  std::copy(inverse.begin(), inverse.end(), o + 2 * u);
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
    OpRegistrar(opaque("unique_values", 1, &run_unique_values,
                       "Sorted unique values of the flattened input (Attrs.flags bit 0: equal_nan).")),
    OpRegistrar(opaque("unique_info", 1, &run_unique_info,
                       "int64 [first index (U) | counts (U) | inverse (N)] of the unique values of the "
                       "flattened input (Attrs.flags bit 0: equal_nan).")),
    OpRegistrar(opaque("isin", 2, &run_isin,
                       "Whether each element of the first operand occurs in the second (Attrs.flags bit 0: invert).")),
};

}  // namespace
}  // namespace asc::ops::sorting
