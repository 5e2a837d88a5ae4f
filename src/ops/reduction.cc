// Reductions: sum, prod, max, min (registry reductions folding with add /
// multiply / maximum / minimum) and mean (composite: sum, then divide).
// Result dtypes follow NumPy: sum/prod of bool and small ints accumulate in
// int64 (uint64 for unsigned); max/min keep the dtype; mean of integers is
// float64 and of float16/bfloat16 is computed in float32 and rounded back.
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
  DType result = attrs.has_dtype ? attrs.dtype : is_floating(x.dtype()) ? x.dtype() : DType::kFloat64;
  DType acc = (result == DType::kFloat16 || result == DType::kBFloat16) ? DType::kFloat32 : result;
  if (!is_floating(acc)) acc = DType::kFloat64;
  static const OpDef& sum = get_op("sum");
  static const OpDef& div = get_op("true_divide");
  Attrs a = attrs;
  a.has_dtype = true;
  a.dtype = acc;
  Tensor s = call(sum, {x}, a);
  const int64_t count = s.numel() == 0 ? 0 : x.numel() / s.numel();
  Tensor q = call(div, {s, scalar_tensor(Scalar::from_float(static_cast<double>(count)), acc)});
  return cast(q, result);
}

OpDef reduction(const char* name, DTypeRule rule, const char* combine, Identity identity) {
  OpDef d;
  d.name = name;
  d.arity = 1;
  d.fusion = FusionClass::kReduction;
  d.dtype_rule = rule;
  d.combine = combine;
  d.identity = identity;
  return d;
}

OpDef mean_def() {
  OpDef d = reduction("mean", rule_sum, "add", Identity::kZero);
  d.run = &run_mean;
  return d;
}

const OpRegistrar kOps[] = {
    OpRegistrar(reduction("sum", rule_sum, "add", Identity::kZero)),
    OpRegistrar(reduction("prod", rule_sum, "multiply", Identity::kOne)),
    OpRegistrar(reduction("max", rule_keep, "maximum", Identity::kLowest)),
    OpRegistrar(reduction("min", rule_keep, "minimum", Identity::kHighest)),
    OpRegistrar(mean_def()),
};

}  // namespace
}  // namespace asc::ops
