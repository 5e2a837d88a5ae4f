// Searching: searchsorted, nonzero/argwhere, count_nonzero, bincount
// (opaque registry ops; count_nonzero is a reduction-shaped composite).
//
// searchsorted compares with NumPy's sort order (sorting.h keys: NaN last,
// -0.0 == +0.0; complex: ComplexKey's order) after promoting `a` and `v` to
// one dtype. nonzero and argwhere
// count the nonzero elements per block in parallel, then each block writes its
// coordinates at its prefix offset, so the output is in C order whatever the
// block split. Complex inputs are tested through the complex -> bool cast
// (either part nonzero; NaN is nonzero).
#include <algorithm>
#include <vector>

#include "asc/ops/registry.h"
#include "ops/loops.h"
#include "ops/sorting.h"

namespace asc::ops::sorting {
namespace {

constexpr int64_t kFlagRight = 1;  // searchsorted side='right'

Tensor run_searchsorted(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor& a0 = inputs[0];
  const Tensor& v0 = inputs[1];
  if (a0.ndim() != 1)
    throw Error(Status::Invalid(op.name, "a must be 1-dimensional, got shape " + Tensor::shape_str(a0.shape())));
  const DType d = promote_or_throw(a0.dtype(), v0.dtype(), op.name);
  const Tensor a = cast(a0, d).contiguous();
  const Tensor v = cast(v0, d).contiguous();
  const int64_t n = a.numel();
  Tensor sorter;
  if (inputs.size() == 3) {
    if (!is_integer(inputs[2].dtype()))
      throw Error(Status::TypeError(op.name, std::string("sorter must be an integer array, got ") +
                                                 dtype_name(inputs[2].dtype())));
    if (inputs[2].ndim() != 1 || inputs[2].numel() != n)
      throw Error(Status::Invalid(op.name, "sorter.size must equal a.size: sorter shape " +
                                               Tensor::shape_str(inputs[2].shape()) + ", a shape " +
                                               Tensor::shape_str(a.shape())));
    sorter = cast(inputs[2], DType::kInt64).contiguous();
    const int64_t* s = sorter.data_as<int64_t>();
    for (int64_t i = 0; i < n; ++i)
      if (s[i] < 0 || s[i] >= n)
        throw Error(Status::Invalid(op.name, "Sorter index out of range: " + std::to_string(s[i]) +
                                                 " for a of size " + std::to_string(n)));
  }
  const bool right = (attrs.flags & kFlagRight) != 0;
  Tensor out = Tensor::empty(v.shape(), DType::kInt64);
  const int64_t m = v.numel();
  if (m == 0) return out;
  visit_dtype_all(d, [&](auto z) {
    using T = decltype(z);
    const T* ap = a.data_as<T>();
    const T* vp = v.data_as<T>();
    const int64_t* sp = sorter.defined() ? sorter.data_as<int64_t>() : nullptr;
    int64_t* op_ = out.data_as<int64_t>();
    auto search = [&](int64_t lo_i, int64_t hi_i) {
      if constexpr (is_std_complex<T>::value) {
        // NumPy's complex order (ComplexKey): no single integer key.
        for (int64_t j = lo_i; j < hi_i; ++j) {
          const T x = vp[j];
          int64_t lo = 0, hi = n;
          while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            const T& am = ap[sp ? sp[mid] : mid];
            if (right ? !order_less(x, am) : order_less(am, x)) lo = mid + 1;
            else hi = mid;
          }
          op_[j] = lo;
        }
      } else {
        using SK = SortKey<T>;
        auto key_at = [&](int64_t i) { return SK::key(ap[sp ? sp[i] : i]); };
        for (int64_t j = lo_i; j < hi_i; ++j) {
          const auto kv = SK::key(vp[j]);
          int64_t lo = 0, hi = n;
          while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            const auto km = key_at(mid);
            if (right ? !(kv < km) : km < kv) lo = mid + 1;
            else hi = mid;
          }
          op_[j] = lo;
        }
      }
    };
    const int64_t blocks = m * 16 < kParallelMin ? 1 : std::min<int64_t>(num_cores(), (m + 4095) / 4096);
    launch(op.name, blocks, [&](int64_t b) { search(m * b / blocks, m * (b + 1) / blocks); });
  });
  return out;
}

// ------------------------------------------------------------------ nonzero

template <typename T>
inline bool nonzero_value(T v) {
  return !SortKey<T>::is_zero(v);  // NaN is nonzero, -0.0 is zero
}

/// Complex values are nonzero when either part is (a NaN part counts, -0-0j
/// does not): the complex -> bool cast is exactly that test, so the loops
/// below only ever see real dtypes.
Tensor real_or_bool(const Tensor& x) { return is_complex(x.dtype()) ? cast(x, DType::kBool) : x; }

/// Coordinates of the nonzero elements of x in C order: (nnz, ndim) or, with
/// `by_axis`, (ndim, nnz) (one contiguous row per axis, for nonzero()).
Tensor coords(const Tensor& x0, bool by_axis, const std::string& name) {
  const Tensor x = real_or_bool(x0).contiguous();
  const int64_t N = x.numel(), nd = x.ndim();
  const int64_t blocks = N < kParallelMin ? 1 : std::min<int64_t>(num_cores(), N / (int64_t(1) << 15));
  std::vector<int64_t> counts(static_cast<size_t>(std::max<int64_t>(blocks, 1)) + 1, 0);
  Tensor out;
  visit_dtype(x.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* p = x.data_as<T>();
    launch(name, blocks, [&](int64_t b) {
      int64_t c = 0;
      for (int64_t i = N * b / blocks; i < N * (b + 1) / blocks; ++i) c += nonzero_value(p[i]);
      counts[static_cast<size_t>(b) + 1] = c;
    });
    for (size_t b = 1; b < counts.size(); ++b) counts[b] += counts[b - 1];
    const int64_t nnz = counts.back();
    out = by_axis ? Tensor::empty({nd, nnz}, DType::kInt64) : Tensor::empty({nnz, nd}, DType::kInt64);
    if (nnz == 0 || nd == 0) return;
    int64_t* o = out.data_as<int64_t>();
    const Shape& shape = x.shape();
    launch(name, blocks, [&](int64_t b) {
      const int64_t lo = N * b / blocks, hi = N * (b + 1) / blocks;
      int64_t k = counts[static_cast<size_t>(b)];
      std::vector<int64_t> idx(static_cast<size_t>(nd));
      int64_t rem = lo;
      for (int64_t d = nd - 1; d >= 0; --d) {
        idx[static_cast<size_t>(d)] = rem % shape[static_cast<size_t>(d)];
        rem /= shape[static_cast<size_t>(d)];
      }
      for (int64_t i = lo; i < hi; ++i) {
        if (nonzero_value(p[i])) {
          for (int64_t d = 0; d < nd; ++d) {
            if (by_axis) o[d * nnz + k] = idx[static_cast<size_t>(d)];
            else o[k * nd + d] = idx[static_cast<size_t>(d)];
          }
          ++k;
        }
        for (int64_t d = nd - 1; d >= 0; --d) {  // advance the C-order index
          if (++idx[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
          idx[static_cast<size_t>(d)] = 0;
        }
      }
    });
  });
  return out;
}

Tensor run_nonzero(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs&) {
  if (inputs[0].ndim() == 0)
    throw Error(Status::Invalid(op.name, "Calling nonzero on 0d arrays is not allowed. "
                                         "Use np.atleast_1d(scalar).nonzero() instead."));
  return coords(inputs[0], true, op.name);
}

Tensor run_argwhere(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs&) {
  return coords(inputs[0], false, op.name);
}

Tensor run_count_nonzero(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor& x = inputs[0];
  if (!attrs.all_axes || attrs.keepdims) {
    static const OpDef& sum = get_op("sum");
    Attrs a = attrs;
    a.has_dtype = true;
    a.dtype = DType::kInt64;
    return call(sum, {cast(x, DType::kBool)}, a);
  }
  const Tensor xc = real_or_bool(x).contiguous();
  const int64_t N = xc.numel();
  const int64_t blocks = N < kParallelMin ? 1 : std::min<int64_t>(num_cores(), N / (int64_t(1) << 15));
  std::vector<int64_t> counts(static_cast<size_t>(std::max<int64_t>(blocks, 1)), 0);
  visit_dtype(xc.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* p = xc.data_as<T>();
    launch(op.name, blocks, [&](int64_t b) {
      int64_t c = 0;
      for (int64_t i = N * b / blocks; i < N * (b + 1) / blocks; ++i) c += nonzero_value(p[i]);
      counts[static_cast<size_t>(b)] = c;
    });
  });
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  Tensor out = Tensor::empty({}, DType::kInt64);
  *out.data_as<int64_t>() = total;
  return out;
}

// ------------------------------------------------------------------ bincount

Tensor run_bincount(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor& x0 = inputs[0];
  if (x0.ndim() != 1)
    throw Error(Status::Invalid(op.name, "object of shape " + Tensor::shape_str(x0.shape()) +
                                             " is not 1-dimensional"));
  const DType dt = x0.dtype();
  // NumPy casts to intp with 'same_kind': any integer (uint64 >= 2^63 turns
  // negative and is rejected below), no floats.
  if (dt != DType::kBool && !is_integer(dt))
    throw Error(Status::TypeError(op.name, std::string("Cannot cast array data from dtype('") + dtype_name(dt) +
                                               "') to dtype('int64') according to the rule 'safe'"));
  const int64_t minlength = attrs.flags;
  if (minlength < 0) throw Error(Status::Invalid(op.name, "'minlength' must not be negative"));
  const Tensor x = cast(x0, DType::kInt64).contiguous();
  const int64_t n = x.numel();
  const int64_t* p = x.data_as<int64_t>();
  int64_t mx = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] < 0)
      throw Error(Status::Invalid(op.name, "'list' argument must have no negative elements (found " +
                                               std::to_string(p[i]) + ")"));
    mx = std::max(mx, p[i]);
  }
  const int64_t len = std::max(mx + 1, minlength);
  if (inputs.size() == 1) {
    Tensor out = full({len}, Scalar::from_int(0), DType::kInt64);
    int64_t* o = out.data_as<int64_t>();
    for (int64_t i = 0; i < n; ++i) ++o[p[i]];
    return out;
  }
  const Tensor& w0 = inputs[1];
  if (w0.ndim() != 1 || w0.numel() != n)
    throw Error(Status::Invalid(op.name, "The weights and list don't have the same length: weights shape " +
                                             Tensor::shape_str(w0.shape()) + ", list shape " +
                                             Tensor::shape_str(x0.shape())));
  const Tensor w = cast(w0, DType::kFloat64).contiguous();
  const double* wp = w.data_as<double>();
  Tensor out = full({len}, Scalar::from_int(0), DType::kFloat64);
  double* o = out.data_as<double>();
  for (int64_t i = 0; i < n; ++i) o[p[i]] += wp[i];  // sequential: NumPy's summation order
  return out;
}

OpDef count_nonzero_def() {
  OpDef d = opaque_op("count_nonzero", 1, &run_count_nonzero,
                   "Number of nonzero (true) elements over the given axes, as int64.");
  // Reduction-shaped (axis, keepdims): bound like the other reductions.
  d.fusion = FusionClass::kReduction;
  d.combine = "add";
  d.identity = Identity::kZero;
  d.complex_ok = true;
  return d;
}

OpDef complex_ok(OpDef d) {
  d.complex_ok = true;
  return d;
}

const OpRegistrar kOps[] = {
    OpRegistrar(complex_ok(opaque_op("searchsorted", 2, &run_searchsorted,
                       "Indices where v would be inserted into the sorted 1-d a (Attrs.flags bit 0: side='right')."))),
    OpRegistrar(complex_ok(opaque_op("searchsorted_sorter", 3, &run_searchsorted,
                       "searchsorted(a, v) with a given by the permutation sorter (a[sorter] is sorted)."))),
    OpRegistrar(complex_ok(opaque_op("nonzero", 1, &run_nonzero,
                                  "Coordinates of the nonzero elements as an (ndim, nnz) int64 array, C order."))),
    OpRegistrar(complex_ok(opaque_op("argwhere", 1, &run_argwhere,
                                  "Coordinates of the nonzero elements as an (nnz, ndim) int64 array, C order."))),
    OpRegistrar(count_nonzero_def()),
    OpRegistrar(opaque_op("bincount", 1, &run_bincount,
                       "Occurrences of each value of a 1-d non-negative integer array (Attrs.flags: minlength).")),
    OpRegistrar(opaque_op("bincount_weighted", 2, &run_bincount,
                       "bincount with weights: the float64 sum of the weights of each value.")),
};

}  // namespace
}  // namespace asc::ops::sorting
