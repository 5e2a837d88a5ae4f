// Reductions: sum, prod, max, min, all, any (registry reductions folding with
// add / multiply / maximum / minimum / logical_and / logical_or), mean, var,
// std (composites of sum), argmax/argmin and cumsum/cumprod (opaque: their
// own loops over the reduced axis).
// Result dtypes follow NumPy: sum/prod of bool and small ints accumulate in
// int64 (uint64 for unsigned); max/min keep the dtype; mean of integers is
// float64 and of float16/bfloat16 is computed in float32 and rounded back.
#include <cmath>
#include <type_traits>

#include "asc/ops/iterator.h"
#include "ops/complex.h"
#include "ops/loops.h"

namespace asc::ops {
namespace {

Status rule_sum(const OpDef&, const DType* in, const Attrs& attrs, LoopTypes* t) {
  DType d = in[0];
  if (attrs.has_dtype) {
    d = attrs.dtype;
  } else if (d == DType::kBool || dtype_traits(d).kind == DTypeKind::kSignedInt) {
    d = DType::kInt64;
  } else if (dtype_traits(d).kind == DTypeKind::kUnsignedInt) {
    d = DType::kUInt64;
  }
  t->in[0] = t->out = d;
  return Status::OK();
}

Status rule_keep(const OpDef&, const DType* in, const Attrs&, LoopTypes* t) {
  t->in[0] = t->out = in[0];
  return Status::OK();
}

Tensor run_mean(const OpDef&, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor& x = inputs[0];
  DType result = attrs.has_dtype ? attrs.dtype : is_inexact(x.dtype()) ? x.dtype() : DType::kFloat64;
  DType acc = (result == DType::kFloat16 || result == DType::kBFloat16) ? DType::kFloat32 : result;
  if (!is_inexact(acc)) acc = DType::kFloat64;
  static const OpDef& sum = get_op("sum");
  static const OpDef& div = get_op("true_divide");
  // NumPy's _mean with an integer (or bool) dtype sums in that dtype (wrapping)
  // and divides into it ('unsafe': truncation); a float sum is not the same.
  if (!is_inexact(result)) acc = result;
  Attrs a = attrs;
  a.has_dtype = true;
  a.dtype = acc;
  Tensor s = call(sum, {x}, a);
  const int64_t count = s.numel() == 0 ? 0 : x.numel() / s.numel();
  const DType fdt = is_inexact(acc) ? acc : DType::kFloat64;
  Tensor q = call(div, {s, scalar_tensor(Scalar::from_float(static_cast<double>(count)), fdt)});
  return cast(q, result);
}

using detail::Calc;
using detail::load;
using detail::store;

Status rule_bool(const OpDef&, const DType*, const Attrs&, LoopTypes* t) {
  t->in[0] = t->out = DType::kBool;
  return Status::OK();
}

// ------------------------------------------------------------------ var, std

/// var/std: mean(|x - mean(x)|**2) * N / (N - ddof), computed in float64 for
/// integers and float32 for float16/bfloat16 (NumPy's result dtypes). Complex
/// input: the mean is complex, |d|**2 = real(d * conj(d)) and the result real
/// (float32 for complex64), as NumPy's _var.
/// var/std with an integer (or bool) dtype, step by step as NumPy's _var: the
/// sum, the mean (divided into the dtype, truncating), the deviations and
/// their squares all in that dtype (wrapping), the final division truncated
/// into it. std's square root goes through NumPy's same_kind out= check when
/// the result is an array (an error for an integer dtype), and is cast when
/// it is a scalar (every axis reduced, no keepdims).
Tensor int_var(const OpDef& op, const Tensor& x, const Attrs& attrs, DType result) {
  static const OpDef& sum = get_op("sum");
  static const OpDef& sub = get_op("subtract");
  static const OpDef& mul = get_op("multiply");
  static const OpDef& div = get_op("true_divide");
  static const OpDef& sqrt = get_op("sqrt");
  const Tensor xa = cast(x, result);
  Attrs a = attrs;
  a.has_dtype = true;
  a.dtype = result;
  a.keepdims = true;
  const Tensor s = call(sum, {xa}, a);
  const int64_t count = s.numel() == 0 ? 0 : x.numel() / s.numel();
  const Tensor mean = cast(call(div, {s, scalar_tensor(Scalar::from_float(static_cast<double>(count)), DType::kFloat64)}), result);
  const Tensor d = call(sub, {x, mean});  // NumPy: arr - arrmean, promoted (float input stays float)
  a.keepdims = attrs.keepdims;
  // Complex deviations square to |d|**2 (NumPy views them as pairs of reals).
  Tensor sq;
  if (is_complex(d.dtype())) {
    static const OpDef& conj = get_op("conjugate");
    sq = cast(call(mul, {d, call(conj, {d})}), complex_part_dtype(d.dtype()));
  } else {
    sq = call(mul, {d, d});
  }
  const Tensor ss = call(sum, {sq}, a);  // summed in the dtype
  const double denom = std::max(static_cast<double>(count) - attrs.ddof, 0.0);
  const Tensor q = call(div, {ss, scalar_tensor(Scalar::from_float(denom), DType::kFloat64)});
  Tensor v = cast(q, result);
  if (op.name != "std") return v;
  const Tensor r = call(sqrt, {v});
  if (v.ndim() != 0)
    throw Error(Status::TypeError(op.name, std::string("Cannot cast ufunc 'sqrt' output from dtype('") +
                                               dtype_name(r.dtype()) + "') to dtype('" + dtype_name(result) +
                                               "') with casting rule 'same_kind'"));
  return cast(r, result);
}

Tensor run_var(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const Tensor& x = inputs[0];
  const bool cplx = is_complex(x.dtype());
  const DType result = attrs.has_dtype ? attrs.dtype
                       : is_inexact(x.dtype()) ? complex_part_dtype(x.dtype())
                                               : DType::kFloat64;
  DType racc = (result == DType::kFloat16 || result == DType::kBFloat16) ? DType::kFloat32 : result;
  if (!is_floating(racc)) racc = DType::kFloat64;
  // The mean's dtype: complex of racc's precision for complex input.
  const DType acc = !cplx ? racc : racc == DType::kFloat32 ? DType::kComplex64 : DType::kComplex128;
  static const OpDef& sum = get_op("sum");
  static const OpDef& sub = get_op("subtract");
  static const OpDef& mul = get_op("multiply");
  static const OpDef& div = get_op("true_divide");
  static const OpDef& sqrt = get_op("sqrt");
  if (!is_inexact(result)) return int_var(op, x, attrs, result);
  const Tensor xa = cast(x, acc);
  Attrs a = attrs;
  a.has_dtype = true;
  a.dtype = acc;
  a.keepdims = true;
  Tensor s = call(sum, {xa}, a);
  const int64_t count = s.numel() == 0 ? 0 : x.numel() / s.numel();
  const Tensor n = scalar_tensor(Scalar::from_float(static_cast<double>(count)), acc);
  const Tensor mean = call(div, {s, n});
  const Tensor d = call(sub, {xa, mean});
  a.keepdims = attrs.keepdims;
  a.dtype = racc;
  Tensor sq;
  if (cplx) {
    static const OpDef& conj = get_op("conjugate");
    sq = cast(call(mul, {d, call(conj, {d})}), racc);  // imaginary part is exactly 0
  } else {
    sq = call(mul, {d, d});
  }
  const Tensor ss = call(sum, {sq}, a);
  const double denom = std::max(static_cast<double>(count) - attrs.ddof, 0.0);
  Tensor v = call(div, {ss, scalar_tensor(Scalar::from_float(denom), racc)});
  if (op.name == "std") v = call(sqrt, {v});
  if (is_complex(result) && denom == 0.0) {
    // NumPy divides the complex sum by N - ddof = 0 as a complex division (a + 0j) / 0:
    // the imaginary part is 0 / 0 = NaN (and stays NaN through std's complex sqrt).
    static const OpDef& add = get_op("add");
    Scalar nan_imag = Scalar::from_complex(0.0, std::nan(""));
    return call(add, {cast(v, result), scalar_tensor(nan_imag, result)});
  }
  return cast(v, result);
}

// ------------------------------------------------------------------ argmax, argmin

/// Moves axis `axis` of `x` last (a view).
Tensor axis_last(const Tensor& x, int64_t axis) {
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < x.ndim(); ++i)
    if (i != axis) perm.push_back(i);
  perm.push_back(axis);
  return x.permute(perm);
}

/// The (flattened when all_axes) input and the normalised single axis.
Tensor single_axis(const OpDef& op, const Tensor& x, const Attrs& attrs, int64_t* axis) {
  if (attrs.all_axes) {
    *axis = 0;
    return x.reshape({-1});
  }
  if (attrs.axes.size() != 1)
    throw Error(Status::TypeError(op.name, "'tuple' object cannot be interpreted as an integer (one axis only)"));
  *axis = normalize_axis(attrs.axes[0], x.ndim(), op.name.c_str());
  return x;
}

template <typename T, bool kMax>
int64_t arg_extremum(const char* p, int64_t stride, int64_t n) {
  using C = Calc<T>;
  C best = static_cast<C>(load<T>(p));
  int64_t at = 0;
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(best)) return 0;
  }
  p += stride;
  for (int64_t i = 1; i < n; ++i, p += stride) {
    const C v = static_cast<C>(load<T>(p));
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(v)) return i;  // the first NaN wins, as in NumPy
    }
    if (kMax ? v > best : v < best) {
      best = v;
      at = i;
    }
  }
  return at;
}

/// x with every broadcast (stride-0, length > 1) axis cut to length 1; false
/// when it has none.
bool drop_broadcast_axes(const Tensor& x, Tensor* y) {
  bool any = false;
  *y = x;
  for (int64_t i = 0; i < x.ndim(); ++i) {
    const size_t k = static_cast<size_t>(i);
    if (x.strides()[k] == 0 && x.shape()[k] > 1) {
      *y = y->slice(i, 0, 1, 1);
      any = true;
    }
  }
  return any;
}

Tensor run_arg(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const bool is_max = op.name == "argmax";
  // A broadcast axis repeats one value: the first extremum (or NaN) lies at
  // index 0 along it. Answering from one element per broadcast axis keeps a
  // huge view (broadcast_to(x, (2**62,))) from a 2**62-step scan.
  Tensor cut;
  if (inputs[0].numel() > 0 && drop_broadcast_axes(inputs[0], &cut)) {
    const Tensor& x0 = inputs[0];
    if (attrs.all_axes) {
      Attrs a = attrs;
      a.keepdims = false;
      int64_t flat = *run_arg(op, {cut}, a).data_as<int64_t>();
      // flat indexes cut (C order); the same multi-index in x0's shape.
      int64_t idx = 0, scale = 1;
      for (int64_t i = x0.ndim() - 1; i >= 0; --i) {
        const size_t k = static_cast<size_t>(i);
        const int64_t m = cut.shape()[k];
        idx += (flat % m) * scale;
        flat /= m;
        scale *= x0.shape()[k];
      }
      Tensor r = Tensor::empty({}, DType::kInt64);
      *r.data_as<int64_t>() = idx;
      return attrs.keepdims ? r.reshape(Shape(static_cast<size_t>(x0.ndim()), 1)) : r;
    }
    if (attrs.axes.size() == 1 && x0.ndim() > 0) {
      const int64_t ax = normalize_axis(attrs.axes[0], x0.ndim(), op.name.c_str());
      if (x0.strides()[static_cast<size_t>(ax)] == 0) {
        Shape keep = x0.shape();
        keep[static_cast<size_t>(ax)] = 1;
        Tensor r = Tensor::empty(keep, DType::kInt64);  // all zeros: index 0 along the broadcast axis
        r.copy_from(scalar_constant(Scalar::from_int(0), DType::kInt64));
        return attrs.keepdims ? r : r.reshape(axis_last(r, ax).select(-1, 0).shape());
      }
    }
  }
  int64_t axis;
  const Tensor x = single_axis(op, inputs[0], attrs, &axis);
  if (x.ndim() == 0) throw Error(Status::Invalid(op.name, "axis out of bounds for a 0-d array"));
  const int64_t n = x.shape()[static_cast<size_t>(axis)];
  if (n == 0)
    throw Error(Status::Invalid(op.name, std::string("attempt to get ") + op.name + " of an empty sequence"));
  const Tensor xp = axis_last(x, axis);
  const Tensor outer = xp.select(-1, 0);  // outer positions, element 0 along the axis
  const int64_t stride = xp.strides().back();
  Tensor out = Tensor::empty(outer.shape(), DType::kInt64);
  if (out.numel() > 0) {
    const int64_t* st[2] = {out.strides().data(), outer.strides().data()};
    StridedIter it(2, static_cast<int>(out.ndim()), out.shape().data(), st);
    char* base[2] = {reinterpret_cast<char*>(out.data()), reinterpret_cast<char*>(outer.data())};
    if (is_complex(x.dtype())) {
      it.for_range(base, 0, it.size(), [&](char** p, const int64_t* s, int64_t m) {
        for (int64_t i = 0; i < m; ++i)
          store<int64_t>(p[0] + i * s[0], detail::complex_arg_extremum(x.dtype(), is_max, p[1] + i * s[1], stride, n));
      });
    } else visit_dtype(x.dtype(), [&](auto z) {
      using T = decltype(z);
      auto scan = is_max ? &arg_extremum<T, true> : &arg_extremum<T, false>;
      it.for_range(base, 0, it.size(), [&](char** p, const int64_t* s, int64_t m) {
        for (int64_t i = 0; i < m; ++i) store<int64_t>(p[0] + i * s[0], scan(p[1] + i * s[1], stride, n));
      });
    });
  }
  if (!attrs.keepdims) return out;
  Shape keep = inputs[0].shape();
  if (attrs.all_axes) keep.assign(keep.size(), 1);
  else keep[static_cast<size_t>(axis)] = 1;
  return out.reshape(keep);
}

// ------------------------------------------------------------------ cumsum, cumprod

template <typename T>
using WideT = typename std::conditional_t<(sizeof(T) < 4), std::common_type<uint32_t>, std::make_unsigned<T>>::type;

/// Running sum/product along a run; each step is rounded to T, as NumPy's
/// accumulate does; integers wrap.
template <typename T, bool kProd>
void scan_run(char* o, int64_t so, const char* a, int64_t sa, int64_t n) {
  using C = Calc<T>;
  T acc = load<T>(a);
  store<T>(o, acc);
  for (int64_t i = 1; i < n; ++i) {
    a += sa;
    o += so;
    const T v = load<T>(a);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const auto w = kProd ? static_cast<WideT<T>>(static_cast<WideT<T>>(acc) * static_cast<WideT<T>>(v))
                           : static_cast<WideT<T>>(static_cast<WideT<T>>(acc) + static_cast<WideT<T>>(v));
      acc = static_cast<T>(w);
    } else if constexpr (std::is_same_v<T, bool>) {
      acc = kProd ? (acc && v) : (acc || v);
    } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      acc = kProd ? detail::cmul(acc, v) : acc + v;  // NumPy's plain complex product
    } else {
      acc = static_cast<T>(kProd ? static_cast<C>(acc) * static_cast<C>(v) : static_cast<C>(acc) + static_cast<C>(v));
    }
    store<T>(o, acc);
  }
}

Tensor run_cumulative(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs) {
  const bool prod = op.name == "cumprod";
  LoopTypes lt;
  DType in = inputs[0].dtype();
  op.dtype_rule(op, &in, attrs, &lt).ThrowIfError();
  int64_t axis;
  Tensor x = single_axis(op, inputs[0], attrs, &axis);
  if (x.ndim() == 0) x = x.reshape({1});
  x = cast(x, lt.out);
  Tensor out = Tensor::empty(x.shape(), lt.out);
  const int64_t n = x.shape()[static_cast<size_t>(axis)];
  if (out.numel() == 0) return out;
  const Tensor xo = x.select(axis, 0), oo = out.select(axis, 0);
  const int64_t sx = x.strides()[static_cast<size_t>(axis)], so = out.strides()[static_cast<size_t>(axis)];
  const int64_t* st[2] = {oo.strides().data(), xo.strides().data()};
  StridedIter it(2, static_cast<int>(oo.ndim()), oo.shape().data(), st);
  char* base[2] = {reinterpret_cast<char*>(oo.data()), reinterpret_cast<char*>(xo.data())};
  visit_dtype_all(lt.out, [&](auto z) {
    using T = decltype(z);
    auto scan = prod ? &scan_run<T, true> : &scan_run<T, false>;
    it.for_range(base, 0, it.size(), [&](char** p, const int64_t* s, int64_t m) {
      for (int64_t i = 0; i < m; ++i) scan(p[0] + i * s[0], so, p[1] + i * s[1], sx, n);
    });
  });
  return out;
}

OpDef reduction(const char* name, DTypeRule rule, const char* combine, Identity identity, const char* doc = "") {
  OpDef d;
  d.doc = doc;
  d.name = name;
  d.arity = 1;
  d.fusion = FusionClass::kReduction;
  d.dtype_rule = rule;
  d.combine = combine;
  d.identity = identity;
  return d;
}

OpDef composite(const char* name, DTypeRule rule, OpaqueFn run, const char* doc, bool complex_ok = false) {
  OpDef d = reduction(name, rule, "add", Identity::kZero, doc);
  d.run = run;
  d.complex_ok = complex_ok;
  return d;
}

const OpRegistrar kOps[] = {
    OpRegistrar(reduction("sum", rule_sum, "add", Identity::kZero,
                          "Sum of the elements over the given axes (small integers accumulate in int64).")),
    OpRegistrar(reduction("prod", rule_sum, "multiply", Identity::kOne, "Product of the elements over the given axes.")),
    OpRegistrar(reduction("max", rule_keep, "maximum", Identity::kLowest,
                          "Maximum over the given axes; NaN propagates; empty input is an error.")),
    OpRegistrar(reduction("min", rule_keep, "minimum", Identity::kHighest,
                          "Minimum over the given axes; NaN propagates; empty input is an error.")),
    OpRegistrar(reduction("all", rule_bool, "logical_and", Identity::kOne,
                          "Whether every element over the given axes is true (nonzero).")),
    OpRegistrar(reduction("any", rule_bool, "logical_or", Identity::kZero,
                          "Whether any element over the given axes is true (nonzero).")),
    OpRegistrar(composite("mean", rule_sum, &run_mean, "Arithmetic mean over the given axes.", true)),
    OpRegistrar(composite("var", rule_sum, &run_var,
                          "Variance over the given axes; the divisor is N - ddof (`correction`).", true)),
    OpRegistrar(composite("std", rule_sum, &run_var,
                          "Standard deviation over the given axes; the divisor is N - ddof (`correction`).", true)),
    OpRegistrar(composite("argmax", rule_keep, &run_arg,
                          "Index of the maximum along an axis (of the flattened array without axis); "
                          "the first NaN wins.", true)),
    OpRegistrar(composite("argmin", rule_keep, &run_arg,
                          "Index of the minimum along an axis (of the flattened array without axis); "
                          "the first NaN wins.", true)),
    OpRegistrar(composite("cumsum", rule_sum, &run_cumulative,
                          "Cumulative sum along an axis (of the flattened array without axis).", true)),
    OpRegistrar(composite("cumprod", rule_sum, &run_cumulative,
                          "Cumulative product along an axis (of the flattened array without axis).", true)),
};

}  // namespace
}  // namespace asc::ops
