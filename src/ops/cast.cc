// astype (casts between all dtypes with NumPy's semantics) and where.
#include <type_traits>

#include "ops/complex.h"
#include "ops/loops.h"

namespace asc::ops {
namespace {

using namespace detail;
namespace simd = kernel::simd;

template <typename T>
constexpr bool simd_float_v = std::is_same_v<T, float> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;

template <typename S, typename D>
void cast_loop(char** p, const int64_t* s, int64_t n) {
  if (s[0] == sizeof(D) && s[1] == sizeof(S)) {
    if constexpr (std::is_same_v<S, D>) {
      std::memmove(p[0], p[1], static_cast<size_t>(n) * sizeof(D));
      return;
    } else if constexpr (simd_float_v<S> && simd_float_v<D> &&
                         (std::is_same_v<S, float> || std::is_same_v<D, float>)) {
      // float32 <-> float16/bfloat16: CAST_NONE = exact widening, nearest-even
      // narrowing (CAST_RINT would round widened values to integers).
      simd::cast(dtype_of<D>(), dtype_of<S>(), kernel::RoundMode::CAST_NONE, p[0], p[1], static_cast<size_t>(n));
      return;
    } else {
      D* o = reinterpret_cast<D*>(p[0]);
      const S* a = reinterpret_cast<const S*>(p[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = convert<D>(a[i]);
      return;
    }
  }
  char* o = p[0];
  const char* a = p[1];
  for (int64_t i = 0; i < n; ++i, o += s[0], a += s[1]) store<D>(o, convert<D>(load<S>(a)));
}

template <typename S>
struct CastFrom {
  template <typename D>
  struct Make {
    static InnerLoop get() { return &cast_loop<S, D>; }
  };
};

using CastTable = std::array<LoopTable, kNumDTypes>;

const CastTable& cast_table() {
  static CastTable t = [] {
    CastTable x{};
    TableBuilder<CastFrom<bool>::Make>::fill(x[int(DType::kBool)]);
    TableBuilder<CastFrom<int8_t>::Make>::fill(x[int(DType::kInt8)]);
    TableBuilder<CastFrom<int16_t>::Make>::fill(x[int(DType::kInt16)]);
    TableBuilder<CastFrom<int32_t>::Make>::fill(x[int(DType::kInt32)]);
    TableBuilder<CastFrom<int64_t>::Make>::fill(x[int(DType::kInt64)]);
    TableBuilder<CastFrom<uint8_t>::Make>::fill(x[int(DType::kUInt8)]);
    TableBuilder<CastFrom<uint16_t>::Make>::fill(x[int(DType::kUInt16)]);
    TableBuilder<CastFrom<uint32_t>::Make>::fill(x[int(DType::kUInt32)]);
    TableBuilder<CastFrom<uint64_t>::Make>::fill(x[int(DType::kUInt64)]);
    TableBuilder<CastFrom<float16>::Make>::fill(x[int(DType::kFloat16)]);
    TableBuilder<CastFrom<bfloat16>::Make>::fill(x[int(DType::kBFloat16)]);
    TableBuilder<CastFrom<float>::Make>::fill(x[int(DType::kFloat32)]);
    TableBuilder<CastFrom<double>::Make>::fill(x[int(DType::kFloat64)]);
    return x;
  }();
  return t;
}

Status rule_astype(const OpDef& op, const DType* in, const Attrs& attrs, LoopTypes* t) {
  if (!attrs.has_dtype) return Status::Invalid(op.name, "missing the target dtype");
  t->in[0] = in[0];
  t->out = attrs.dtype;
  return Status::OK();
}

InnerLoop select_cast(const LoopTypes& lt) {
  if (is_complex(lt.in[0]) || is_complex(lt.out)) return complex_cast(lt.in[0], lt.out);
  return cast_table()[int(lt.in[0])][int(lt.out)];
}

template <typename T>
struct WhereMake {
  static InnerLoop get() { return &where_loop<T>; }
};

InnerLoop select_where(const LoopTypes& lt) {
  if (is_complex(lt.out)) return complex_where(lt.out);
  static LoopTable t = [] {
    LoopTable x{};
    TableBuilder<WhereMake>::fill(x);
    return x;
  }();
  return t[int(lt.out)];
}

Status rule_where(const OpDef& op, const DType* in, const Attrs&, LoopTypes* t) {
  auto r = promote_types(in[1], in[2]);
  if (!r.ok())
    return Status::TypeError(op.name, "no common dtype for the operand dtypes " + dtypes_str(in + 1, 2));
  t->in[0] = DType::kBool;
  t->in[1] = t->in[2] = t->out = r.value();
  return Status::OK();
}

const OpRegistrar kOps[] = {
    OpRegistrar(elementwise_op("astype", 1, rule_astype, &select_cast, "x converted to dtype (NumPy casting).")),
    OpRegistrar(elementwise_op("where", 3, rule_where, &select_where,
                    "Elements of x1 where condition is true, else of x2 (broadcast together).")),
};

}  // namespace
}  // namespace asc::ops
