// The op registry, dtype promotion and the (eager) executor.
#include "asc/ops/registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <unordered_map>

#include "asc/ops/iterator.h"
#include "asc/runtime/device.h"
#include "ops/loops.h"

namespace asc::ops {

// ------------------------------------------------------------------ registry

namespace {
std::unordered_map<std::string, std::unique_ptr<OpDef>>& registry() {
  static auto* r = new std::unordered_map<std::string, std::unique_ptr<OpDef>>();
  return *r;
}
}  // namespace

void register_op(OpDef def) {
  auto& r = registry();
  if (r.count(def.name)) throw Error(Status::Invalid(def.name, "operator registered twice"));
  std::string name = def.name;
  r.emplace(std::move(name), std::make_unique<OpDef>(std::move(def)));
}

const OpDef* find_op(const std::string& name) noexcept {
  auto& r = registry();
  auto it = r.find(name);
  return it == r.end() ? nullptr : it->second.get();
}

const OpDef& get_op(const std::string& name) {
  const OpDef* op = find_op(name);
  if (!op) throw Error(Status::Invalid(name, "unknown operator"));
  return *op;
}

std::vector<std::string> op_names() {
  std::vector<std::string> names;
  for (const auto& kv : registry()) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

// ------------------------------------------------------------------ promotion

namespace {
int kind_rank(DType d) {
  switch (dtype_traits(d).kind) {
    case DTypeKind::kBool: return 0;
    case DTypeKind::kSignedInt:
    case DTypeKind::kUnsignedInt: return 1;
    case DTypeKind::kFloat: return 2;
  }
  return 2;
}
DType signed_of_size(size_t bytes) {
  switch (bytes) {
    case 1: return DType::kInt8;
    case 2: return DType::kInt16;
    case 4: return DType::kInt32;
    default: return DType::kInt64;
  }
}
}  // namespace

DType float_for(DType d) {
  switch (d) {
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8: return DType::kFloat16;
    case DType::kInt16:
    case DType::kUInt16: return DType::kFloat32;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kInt64:
    case DType::kUInt64: return DType::kFloat64;
    default: return d;
  }
}

Result<DType> promote_types(DType a, DType b) {
  if (a == b) return a;
  if (kind_rank(a) > kind_rank(b)) std::swap(a, b);  // a is the "lower" kind
  const auto ka = dtype_traits(a).kind, kb = dtype_traits(b).kind;
  if (ka == DTypeKind::kBool) return b;
  if (kb == DTypeKind::kFloat) {
    // ml_dtypes' bfloat16 (its ufunc loops, which is what users see): exact with
    // bool/int8/uint8, else the operation happens in float32 or wider.
    if (b == DType::kBFloat16 || a == DType::kBFloat16) {
      const DType other = b == DType::kBFloat16 ? a : b;
      if (other == DType::kBool || other == DType::kInt8 || other == DType::kUInt8) return DType::kBFloat16;
      const DType fo = float_for(other);
      return dtype_size(fo) > 4 ? fo : DType::kFloat32;
    }
    const DType fa = float_for(a);  // a int or float
    return dtype_size(fa) >= dtype_size(b) ? fa : b;
  }
  // both integers
  const size_t sa = dtype_size(a), sb = dtype_size(b);
  if (ka == kb) return sa >= sb ? a : b;
  const DType u = ka == DTypeKind::kUnsignedInt ? a : b, s = ka == DTypeKind::kUnsignedInt ? b : a;
  if (dtype_size(s) > dtype_size(u)) return s;
  if (dtype_size(u) == 8) return DType::kFloat64;
  return signed_of_size(dtype_size(u) * 2);
}

DType promote_or_throw(DType a, DType b, const std::string& op) {
  auto r = promote_types(a, b);
  if (!r.ok())
    throw Error(Status::TypeError(op, std::string("no common dtype for ") + dtype_name(a) + " and " + dtype_name(b)));
  return r.value();
}

DType default_scalar_dtype(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::kBool: return DType::kBool;
    case ScalarKind::kInt: return DType::kInt64;
    case ScalarKind::kFloat: return DType::kFloat64;
  }
  return DType::kFloat64;
}

DType weak_scalar_dtype(DType array_dtype, ScalarKind kind) {
  const int rank = kind_rank(array_dtype);
  const int srank = kind == ScalarKind::kBool ? 0 : kind == ScalarKind::kInt ? 1 : 2;
  // ml_dtypes quirk matched on purpose: bfloat16_array * 2.5 gives float32.
  if (array_dtype == DType::kBFloat16 && kind == ScalarKind::kFloat) return DType::kFloat32;
  return srank <= rank ? array_dtype : default_scalar_dtype(kind);
}

// ------------------------------------------------------------------ dtype rules

namespace detail {

std::string dtypes_str(const DType* in, int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += dtype_name(in[i]);
  }
  return s + ")";
}

namespace {
Status promote_all(const OpDef& op, const DType* in, DType* r) {
  DType d = in[0];
  for (int i = 1; i < op.arity; ++i) {
    auto p = promote_types(d, in[i]);
    if (!p.ok())
      return Status::TypeError(op.name, "no common dtype for the operand dtypes " + dtypes_str(in, op.arity));
    d = p.value();
  }
  *r = d;
  return Status::OK();
}
}  // namespace

Status rule_promote(const OpDef& op, const DType* in, const Attrs&, LoopTypes* t) {
  DType d;
  ASC_RETURN_IF_ERROR(promote_all(op, in, &d));
  for (int i = 0; i < op.arity; ++i) t->in[i] = d;
  t->out = d;
  return Status::OK();
}

Status rule_compare(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  ASC_RETURN_IF_ERROR(rule_promote(op, in, attrs, t));
  t->out = DType::kBool;
  return Status::OK();
}

Status rule_float(const OpDef& op, const DType* in, const Attrs&, LoopTypes* t) {
  DType d;
  ASC_RETURN_IF_ERROR(promote_all(op, in, &d));
  // NumPy's true_divide has no small-int loops: any integer pair divides in float64.
  if (op.arity == 2 && !is_floating(d)) d = DType::kFloat64;
  d = float_for(d);
  for (int i = 0; i < op.arity; ++i) t->in[i] = d;
  t->out = d;
  return Status::OK();
}

Status rule_logical(const OpDef& op, const DType*, const Attrs&, LoopTypes* t) {
  for (int i = 0; i < op.arity; ++i) t->in[i] = DType::kBool;
  t->out = DType::kBool;
  return Status::OK();
}

}  // namespace detail

// ------------------------------------------------------------------ executor

namespace {

// Below this many elements an op runs on the calling thread: a launch costs
// more than the work.
constexpr int64_t kParallelMinElements = 1 << 16;
constexpr int64_t kElementsPerBlock = 1 << 15;

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.storage() != b.storage()) return false;
  return !(a.offset() == b.offset() && a.strides() == b.strides() && a.shape() == b.shape());
}

/// Runs `loop` over out and the inputs (all already of the loop dtypes),
/// inputs broadcast to out's shape.
void run_loop(InnerLoop loop, const Tensor& out, const std::vector<Tensor>& inputs, const std::string& name,
              int order_by = -1, bool parallel_ok = true) {
  const int nops = static_cast<int>(inputs.size()) + 1;
  const int64_t* strides[kMaxIterOperands];
  char* base[kMaxIterOperands];
  strides[0] = out.strides().data();
  base[0] = reinterpret_cast<char*>(out.data());
  for (size_t i = 0; i < inputs.size(); ++i) {
    strides[i + 1] = inputs[i].strides().data();
    base[i + 1] = reinterpret_cast<char*>(inputs[i].data());
  }
  StridedIter it(nops, static_cast<int>(out.ndim()), out.shape().data(), strides, order_by);
  const int64_t total = it.size();
  if (total == 0) return;
  auto& dev = runtime::current_device();
  const int cores = dev.properties().num_cores;
  if (!parallel_ok || total < kParallelMinElements || cores <= 1) {
    it.for_range(base, 0, total, loop);
    return;
  }
  const int64_t blocks = std::min<int64_t>(cores, (total + kElementsPerBlock - 1) / kElementsPerBlock);
  const int64_t chunk = (total + blocks - 1) / blocks;
  runtime::KernelInvocation inv;
  inv.name = name;
  inv.block_dim = static_cast<uint32_t>(blocks);
  inv.body = [&it, base, chunk, total, loop](const runtime::BlockContext& ctx) {
    const int64_t b = static_cast<int64_t>(ctx.block_idx) * chunk;
    it.for_range(base, b, std::min(total, b + chunk), loop);
  };
  dev.run_kernel(inv).ThrowIfError();
}

Tensor run_elementwise(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs, const Tensor* out) {
  DType in_dtypes[3];
  for (int i = 0; i < op.arity; ++i) in_dtypes[i] = inputs[static_cast<size_t>(i)].dtype();
  LoopTypes lt;
  op.dtype_rule(op, in_dtypes, attrs, &lt).ThrowIfError();
  InnerLoop loop = op.cpu_loop(lt);
  if (!loop)
    throw Error(Status::TypeError(op.name, "no kernel for the operand dtypes " +
                                               detail::dtypes_str(in_dtypes, op.arity)));
  Shape shape = inputs[0].shape();
  for (size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].shape() == shape) continue;
    try {
      shape = broadcast_shapes(shape, inputs[i].shape(), op.name.c_str());
    } catch (const Error&) {  // name every operand's shape, NumPy-style
      std::string shapes;
      for (const auto& t : inputs) shapes += " " + Tensor::shape_str(t.shape());
      throw Error(Status::Make(ErrorCode::kInvalidShape, op.name,
                               "operands could not be broadcast together with shapes" + shapes));
    }
  }
  Tensor result;
  if (out) {
    if (out->shape() != shape)
      throw Error(Status::Make(ErrorCode::kInvalidShape, op.name,
                               "non-broadcastable output operand with shape " + Tensor::shape_str(out->shape()) +
                                   " doesn't match the broadcast shape " + Tensor::shape_str(shape)));
    // NumPy's default casting for outputs is 'same_kind': no float -> int, no int -> bool.
    if (kind_rank(lt.out) > kind_rank(out->dtype()))
      throw Error(Status::TypeError(op.name, std::string("Cannot cast ufunc '") + op.name + "' output from dtype " +
                                                 dtype_name(lt.out) + " to " + dtype_name(out->dtype()) +
                                                 " with casting rule 'same_kind'"));
    result = out->dtype() == lt.out ? *out : Tensor::empty(shape, lt.out);
  } else {
    result = Tensor::empty(shape, lt.out);
  }
  std::vector<Tensor> ins;
  ins.reserve(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    Tensor t = inputs[i].dtype() == lt.in[i] ? inputs[i] : cast(inputs[i], lt.in[i]);
    if (may_overlap(result, t)) t = t.clone();  // a += a.T must read the old values
    ins.push_back(t.shape() == shape ? t : t.broadcast_to(shape));
  }
  run_loop(loop, result, ins, op.name);
  if (out && out->dtype() != lt.out) {
    out->copy_from(cast(result, out->dtype()));
    return *out;
  }
  return result;
}

std::vector<bool> reduced_axes(const Tensor& x, const Attrs& attrs, const std::string& name) {
  const int64_t nd = x.ndim();
  std::vector<bool> red(static_cast<size_t>(nd), attrs.all_axes);
  if (!attrs.all_axes) {
    for (int64_t a : attrs.axes) {
      const size_t ax = static_cast<size_t>(normalize_axis(a, nd, name.c_str()));
      if (red[ax]) throw Error(Status::Invalid(name, "duplicate value in 'axis'"));
      red[ax] = true;
    }
  }
  return red;
}

Tensor run_reduction(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs, const Tensor* out) {
  const Tensor& x = inputs[0];
  LoopTypes lt;
  DType in_dtype = x.dtype();
  op.dtype_rule(op, &in_dtype, attrs, &lt).ThrowIfError();
  const OpDef& combine = get_op(op.combine);
  LoopTypes clt;
  clt.in[0] = clt.in[1] = clt.out = lt.out;
  InnerLoop loop = combine.cpu_loop(clt);
  if (!loop) throw Error(Status::TypeError(op.name, std::string("no kernel for dtype ") + dtype_name(lt.out)));
  const std::vector<bool> red = reduced_axes(x, attrs, op.name);
  Shape kept, keep_shape;
  Strides acc_strides;
  int64_t reduced_count = 1;
  for (size_t i = 0; i < red.size(); ++i) {
    if (red[i]) {
      reduced_count *= x.shape()[i];
      keep_shape.push_back(1);
    } else {
      kept.push_back(x.shape()[i]);
      keep_shape.push_back(x.shape()[i]);
    }
  }
  Tensor acc = Tensor::empty(kept, lt.out);
  if (reduced_count == 0 && (op.identity == Identity::kLowest || op.identity == Identity::kHighest))
    throw Error(Status::Invalid(op.name, "zero-size array to reduction operation " + combine.name +
                                             " which has no identity"));
  // Identity as the accumulator's initial value.
  switch (op.identity) {
    case Identity::kOne: fill(acc, Scalar::from_int(1)); break;
    case Identity::kLowest:
      if (is_floating(lt.out)) fill(acc, Scalar::from_float(-std::numeric_limits<double>::infinity()));
      else if (dtype_traits(lt.out).kind == DTypeKind::kSignedInt)
        fill(acc, Scalar::from_int(-(int64_t(1) << (dtype_size(lt.out) * 8 - 1))));
      else fill(acc, Scalar::from_int(0));
      break;
    case Identity::kHighest:
      if (is_floating(lt.out)) fill(acc, Scalar::from_float(std::numeric_limits<double>::infinity()));
      else if (lt.out == DType::kBool) fill(acc, Scalar::from_bool(true));
      else if (dtype_traits(lt.out).kind == DTypeKind::kSignedInt)
        fill(acc, Scalar::from_int(static_cast<int64_t>((uint64_t(1) << (dtype_size(lt.out) * 8 - 1)) - 1)));
      else fill(acc, Scalar::from_int(-1));  // all ones after the wrap-around cast
      break;
    default: fill(acc, Scalar::from_int(0)); break;
  }
  if (x.numel() > 0) {
    Tensor xin = x.dtype() == lt.in[0] ? x : cast(x, lt.in[0]);
    // The accumulator viewed with x's shape: stride 0 along reduced axes.
    Strides st(red.size(), 0);
    for (size_t i = 0, k = 0; i < red.size(); ++i)
      if (!red[i]) st[i] = acc.strides()[k++];
    Tensor accv = Tensor::view_of(acc.storage(), acc.dtype(), x.shape(), st, acc.offset());
    // Several blocks would fold into the same accumulator element: one thread.
    run_loop(loop, accv, {accv, xin}, op.name, /*order_by=*/2, /*parallel_ok=*/false);
  }
  Tensor result = attrs.keepdims ? acc.reshape(keep_shape) : acc;
  if (out) {
    out->copy_from(result.dtype() == out->dtype() ? result : cast(result, out->dtype()));
    return *out;
  }
  return result;
}

}  // namespace

Tensor call(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs, const Tensor* out) {
  if (static_cast<int>(inputs.size()) != op.arity)
    throw Error(Status::Invalid(op.name, "expected " + std::to_string(op.arity) + " operands, got " +
                                             std::to_string(inputs.size())));
  for (const auto& t : inputs)
    if (!t.defined()) throw Error(Status::Invalid(op.name, "undefined tensor operand"));
  if (op.run) return op.run(op, inputs, attrs);
  if (op.fusion == FusionClass::kReduction) return run_reduction(op, inputs, attrs, out);
  return run_elementwise(op, inputs, attrs, out);
}

Tensor call(const std::string& name, const std::vector<Tensor>& inputs, const Attrs& attrs, const Tensor* out) {
  return call(get_op(name), inputs, attrs, out);
}

Tensor cast(const Tensor& t, DType dtype, bool copy) {
  if (t.dtype() == dtype) return copy ? t.clone() : t;
  static const OpDef& astype = get_op("astype");
  Attrs a;
  a.has_dtype = true;
  a.dtype = dtype;
  return call(astype, {t}, a);
}

// ------------------------------------------------------------------ scalars

Tensor scalar_tensor(const Scalar& s, DType dtype, const std::string& op) {
  Tensor src;
  switch (s.kind) {
    case ScalarKind::kBool:
      src = Tensor::empty({}, DType::kBool);
      *src.data_as<bool>() = s.i != 0;
      break;
    case ScalarKind::kInt: {
      if (is_integer(dtype)) {
        const bool is_signed = dtype_traits(dtype).kind == DTypeKind::kSignedInt;
        const int bits = static_cast<int>(dtype_size(dtype)) * 8;
        bool ok;
        if (is_signed) {
          ok = bits == 64 || (s.i >= -(int64_t(1) << (bits - 1)) && s.i < (int64_t(1) << (bits - 1)));
        } else {
          ok = s.i >= 0 && (bits == 64 || s.i < (int64_t(1) << bits));
        }
        if (!ok)
          throw Error(Status::Invalid(op, "Python integer " + std::to_string(s.i) + " out of bounds for " +
                                              dtype_name(dtype)));
      }
      src = Tensor::empty({}, DType::kInt64);
      *src.data_as<int64_t>() = s.i;
      break;
    }
    case ScalarKind::kFloat:
      src = Tensor::empty({}, DType::kFloat64);
      *src.data_as<double>() = s.f;
      break;
  }
  return cast(src, dtype);
}

void fill(const Tensor& t, const Scalar& s) {
  if (t.numel() == 0) return;
  Tensor v = s.kind == ScalarKind::kInt && is_integer(t.dtype()) && s.i < 0 &&
                     dtype_traits(t.dtype()).kind == DTypeKind::kUnsignedInt
                 ? cast(scalar_tensor(s, DType::kInt64), t.dtype())  // wrap-around, for identities
                 : scalar_tensor(s, t.dtype(), "full");
  t.copy_from(v);
}

Tensor full(const Shape& shape, const Scalar& s, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  fill(t, s);
  return t;
}

}  // namespace asc::ops
