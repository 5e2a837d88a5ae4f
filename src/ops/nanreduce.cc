// NaN-ignoring reductions: nansum, nanprod, nanmean, nanvar, nanstd, nanmax,
// nanmin, nanargmax, nanargmin, nancumsum, nancumprod (registry composites).
//
// As in NumPy they are the plain reductions for integer and bool inputs; for
// floats NaN is replaced by the reduction's neutral value (0 for sums, 1 for
// products, -Inf/+Inf for max/min) and the NaN count enters the divisor of
// mean and var. All-NaN slices give NaN for nanmax/nanmin/nanmean/nanvar and
// raise kInvalidParam "All-NaN slice encountered" for nanargmax/nanargmin.
// NumPy's RuntimeWarnings for all-NaN slices are issued by the Python layer
// (pyasc._manipulation), which sees the NaN results.
//
// Complex inputs (nansum, nanprod, nanmean, nanargmax, nanargmin, nancumsum,
// nancumprod) follow NumPy's _replace_nan: an element with a NaN in either
// part becomes the neutral value with a zero imaginary part (nanargmax:
// -inf+0j, so as in NumPy it can win against values whose real part is -inf).
// Complex nanmax/nanmin are NumPy's fmax/fmin.reduce (an all-NaN slice gives
// its first element) and nanvar/nanstd return the part dtype.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "asc/ops/registry.h"

namespace asc::ops {
namespace {

Status rule_same(const OpDef&, const DType* in, const Attrs& attrs, LoopTypes* t) {
  t->in[0] = t->out = attrs.has_dtype ? attrs.dtype : in[0];
  return Status::OK();
}

Tensor call1(const char* name, const Tensor& x, const Attrs& a = {}) { return call(get_op(name), {x}, a); }
Tensor call2(const char* name, const Tensor& x, const Tensor& y) { return call(get_op(name), {x, y}); }
Tensor call3(const char* name, const Tensor& x, const Tensor& y, const Tensor& z) {
  return call(get_op(name), {x, y, z});
}

Tensor constant(double v, DType d) { return scalar_constant(Scalar::from_float(v), d); }

/// x with NaN replaced by `fill`.
Tensor replace_nan(const Tensor& x, double fill) {
  return call3("where", call1("isnan", x), constant(fill, x.dtype()), x);
}

/// The first element (C order over the reduced axes) of every reduced slice
/// of x, shaped like the reduction's result `r`.
Tensor first_of_slices(const Tensor& x, const Attrs& attrs, const Tensor& r, const std::string& name) {
  const int64_t nd = x.ndim();
  std::vector<bool> reduced(static_cast<size_t>(nd), attrs.all_axes);
  if (!attrs.all_axes)
    for (int64_t a : attrs.axes) reduced[static_cast<size_t>(normalize_axis(a, nd, name.c_str()))] = true;
  Tensor v = x;
  for (int64_t d = nd - 1; d >= 0; --d)
    if (reduced[static_cast<size_t>(d)]) v = v.select(d, 0);
  return v.reshape(r.shape());
}

/// nanmax/nanmin of complex input: NumPy's fmax/fmin.reduce. The result is
/// the lexicographic extremum of the elements without a NaN part; a slice
/// whose every element has a NaN part gives its first element (fmax keeps
/// the accumulator when the other operand is NaN).
Tensor complex_nan_extremum(const OpDef& op, const Tensor& x, const Attrs& attrs) {
  const bool is_max = op.name == "nanmax";
  const OpDef& plain_op = get_op(is_max ? "max" : "min");
  if (x.numel() == 0) return call(plain_op, {x}, attrs);  // the plain op's empty-slice error or empty result
  const double inf = std::numeric_limits<double>::infinity();
  const double f = is_max ? -inf : inf;
  const Tensor nan = call1("isnan", x);
  // Replaced elements are never above (below) a non-NaN element, and equal
  // only to -inf-infj (+inf+infj) itself, which gives the same value.
  const Tensor y = call3("where", nan, scalar_constant(Scalar::from_complex(f, f), x.dtype()), x);
  const Tensor r = call(plain_op, {y}, attrs);
  if (r.numel() == 0) return r;
  Attrs aa = attrs;
  aa.has_dtype = false;
  const Tensor all_nan = call(get_op("all"), {nan}, aa);
  return call3("where", all_nan, first_of_slices(x, attrs, r, op.name), r);
}

/// The name of the plain reduction behind a nan* op ("nansum" -> "sum").
const char* plain(const OpDef& op) { return op.name.c_str() + 3; }

Tensor run_nan_fill(const OpDef& op, const std::vector<Tensor>& in, const Attrs& attrs) {
  const Tensor& x = in[0];
  const std::string& n = op.name;
  if (!is_floating(x.dtype()) && !is_complex(x.dtype())) return call(get_op(plain(op)), {x}, attrs);
  const double inf = std::numeric_limits<double>::infinity();
  const double fill = (n == "nanprod" || n == "nancumprod") ? 1.0
                      : (n == "nanmax" || n == "nanargmax") ? -inf
                      : (n == "nanmin" || n == "nanargmin") ? inf
                                                            : 0.0;
  if ((n == "nanmax" || n == "nanmin") && is_complex(x.dtype())) return complex_nan_extremum(op, x, attrs);
  const Tensor y = replace_nan(x, fill);
  const bool extremum = n == "nanmax" || n == "nanmin";
  const bool arg = n == "nanargmax" || n == "nanargmin";
  if (!extremum && !arg) return call(get_op(plain(op)), {y}, attrs);
  Attrs aa = attrs;
  aa.has_dtype = false;
  const Tensor all_nan = call(get_op("all"), {call1("isnan", x)}, aa);
  if (arg) {
    if (x.numel() > 0 && *call1("any", all_nan).data_as<bool>())
      throw Error(Status::Invalid(n, "All-NaN slice encountered"));
    return call(get_op(plain(op)), {y}, attrs);
  }
  const Tensor r = call(get_op(plain(op)), {y}, attrs);
  return call3("where", all_nan, constant(std::nan(""), r.dtype()), r);
}

/// The accumulator and result dtypes of nanmean/nanvar (NumPy's).
void mean_dtypes(const Tensor& x, const Attrs& attrs, DType* result, DType* acc) {
  *result = attrs.has_dtype ? attrs.dtype : is_floating(x.dtype()) ? x.dtype() : DType::kFloat64;
  *acc = (*result == DType::kFloat16 || *result == DType::kBFloat16) ? DType::kFloat32 : *result;
  if (!is_floating(*acc)) *acc = DType::kFloat64;
}

Tensor run_nanmean(const OpDef&, const std::vector<Tensor>& in, const Attrs& attrs) {
  const Tensor& x = in[0];
  if (is_complex(x.dtype())) {
    // NumPy: tot = sum(replace_nan(x, 0), dtype), cnt = sum(~isnan(x), intp),
    // tot / cnt computed in the promoted dtype and cast back (0/0: nan+nanj).
    const DType result = attrs.has_dtype ? attrs.dtype : x.dtype();
    Attrs a = attrs;
    a.has_dtype = true;
    a.dtype = DType::kInt64;
    const Tensor cnt = call(get_op("sum"), {call1("logical_not", call1("isnan", x))}, a);
    a.dtype = result;
    const Tensor tot = call(get_op("sum"), {replace_nan(x, 0.0)}, a);
    return cast(call2("true_divide", tot, cnt), result);
  }
  if (!is_floating(x.dtype())) return call(get_op("mean"), {x}, attrs);
  DType result, acc;
  mean_dtypes(x, attrs, &result, &acc);
  Attrs a = attrs;
  a.has_dtype = true;
  a.dtype = acc;
  const Tensor valid = call1("logical_not", call1("isnan", x));
  const Tensor cnt = call(get_op("sum"), {valid}, a);
  const Tensor tot = call(get_op("sum"), {replace_nan(cast(x, acc), 0.0)}, a);
  return cast(call2("true_divide", tot, cnt), result);
}

/// nanvar/nanstd of complex input, NumPy's steps: NaN elements (either part)
/// zeroed, avg = sum(dtype) / count in the sum's dtype, d = x - avg in x's
/// dtype (zero where NaN), var = sum(real(d * conj(d)), dtype) / (count -
/// ddof), NaN where count - ddof <= 0. The result is real (x's part dtype)
/// unless `dtype` names another.
Tensor complex_nanvar(const Tensor& x, const Attrs& attrs, bool is_std) {
  const DType avg_dt = attrs.has_dtype ? attrs.dtype : x.dtype();
  const DType part = complex_part_dtype(x.dtype());
  const Tensor nan = call1("isnan", x);
  const Tensor valid = call1("logical_not", nan);
  Attrs a = attrs;
  a.keepdims = true;
  a.has_dtype = true;
  a.dtype = DType::kInt64;
  const Tensor cnt_k = call(get_op("sum"), {valid}, a);
  a.dtype = avg_dt;
  const Tensor zero = constant(0.0, x.dtype());
  const Tensor xz = call3("where", nan, zero, x);
  const Tensor avg = cast(call2("true_divide", call(get_op("sum"), {xz}, a), cnt_k), avg_dt);
  Tensor d = cast(call2("subtract", xz, avg), x.dtype());
  d = call3("where", nan, zero, d);
  const Tensor sq = cast(call2("multiply", d, call1("conjugate", d)), part);  // imaginary part is exactly 0
  Attrs b = attrs;
  Tensor var = call(get_op("sum"), {sq}, b);
  b.has_dtype = true;
  b.dtype = DType::kInt64;
  const Tensor dof = call2("subtract", call(get_op("sum"), {valid}, b), constant(attrs.ddof, DType::kFloat64));
  var = cast(call2("true_divide", var, dof), var.dtype());
  // dof <= 0: NaN (NumPy's "Degrees of freedom <= 0 for slice").
  var = call3("where", call2("less_equal", dof, constant(0.0, DType::kFloat64)), constant(std::nan(""), var.dtype()),
              var);
  if (is_std) var = call1("sqrt", var);
  return var;
}

Tensor run_nanvar(const OpDef& op, const std::vector<Tensor>& in, const Attrs& attrs) {
  const Tensor& x = in[0];
  const bool is_std = op.name == "nanstd";
  if (is_complex(x.dtype())) return complex_nanvar(x, attrs, is_std);
  if (!is_floating(x.dtype())) return call(get_op(is_std ? "std" : "var"), {x}, attrs);
  DType result, acc;
  mean_dtypes(x, attrs, &result, &acc);
  Attrs a = attrs;
  a.has_dtype = true;
  a.dtype = acc;
  a.keepdims = true;
  const Tensor xa = cast(x, acc);
  const Tensor nan = call1("isnan", xa);
  const Tensor cnt = call(get_op("sum"), {call1("logical_not", nan)}, a);
  const Tensor xz = call3("where", nan, constant(0.0, acc), xa);
  const Tensor mean = call2("true_divide", call(get_op("sum"), {xz}, a), cnt);
  Tensor d = call2("subtract", xa, mean);
  d = call3("where", nan, constant(0.0, acc), call2("multiply", d, d));
  a.keepdims = attrs.keepdims;
  const Tensor ss = call(get_op("sum"), {d}, a);
  Tensor dof = call2("subtract", attrs.keepdims ? cnt : call(get_op("sum"), {call1("logical_not", nan)}, a),
                     constant(attrs.ddof, acc));
  // dof <= 0: NaN (NumPy's "Degrees of freedom <= 0 for slice").
  const Tensor bad = call2("less_equal", dof, constant(0.0, acc));
  Tensor v = call3("where", bad, constant(std::nan(""), acc), call2("true_divide", ss, dof));
  // A complex dtype: NumPy takes std's root of the complex variance, and the complex sqrt of
  // the NaN of a slice without degrees of freedom is NaN in both parts.
  if (is_std && is_complex(result)) return call1("sqrt", cast(v, result));
  if (is_std) v = call1("sqrt", v);
  return cast(v, result);
}

OpDef nan_op(const char* name, OpaqueFn run, const char* doc, bool complex_ok = false) {
  OpDef d;
  d.complex_ok = complex_ok;
  d.name = name;
  d.arity = 1;
  d.fusion = FusionClass::kReduction;
  d.dtype_rule = rule_same;
  d.combine = "add";
  d.identity = Identity::kZero;
  d.run = run;
  d.doc = doc;
  return d;
}

const OpRegistrar kOps[] = {
    OpRegistrar(nan_op("nansum", &run_nan_fill, "Sum over the given axes treating NaN as zero.", true)),
    OpRegistrar(nan_op("nanprod", &run_nan_fill, "Product over the given axes treating NaN as one.", true)),
    OpRegistrar(nan_op("nanmax", &run_nan_fill, "Maximum over the given axes ignoring NaN (NaN for all-NaN slices).", true)),
    OpRegistrar(nan_op("nanmin", &run_nan_fill, "Minimum over the given axes ignoring NaN (NaN for all-NaN slices).", true)),
    OpRegistrar(nan_op("nanargmax", &run_nan_fill,
                       "Index of the maximum ignoring NaN; an all-NaN slice is a ValueError.", true)),
    OpRegistrar(nan_op("nanargmin", &run_nan_fill,
                       "Index of the minimum ignoring NaN; an all-NaN slice is a ValueError.", true)),
    OpRegistrar(nan_op("nancumsum", &run_nan_fill, "Cumulative sum treating NaN as zero.", true)),
    OpRegistrar(nan_op("nancumprod", &run_nan_fill, "Cumulative product treating NaN as one.", true)),
    OpRegistrar(nan_op("nanmean", &run_nanmean, "Mean over the given axes ignoring NaN (NaN for all-NaN slices).",
                       true)),
    OpRegistrar(nan_op("nanvar", &run_nanvar,
                       "Variance ignoring NaN; the divisor is (count of non-NaN) - ddof, NaN when <= 0.", true)),
    OpRegistrar(nan_op("nanstd", &run_nanvar,
                       "Standard deviation ignoring NaN; the divisor is (count of non-NaN) - ddof, NaN when <= 0.",
                       true)),
};

}  // namespace
}  // namespace asc::ops
