#include "asc/core/dtype.h"

namespace asc {

namespace {
constexpr DTypeTraits kTraits[kNumDTypes] = {
    {DType::kBool, "bool", 1, DTypeKind::kBool, 'b'},
    {DType::kInt8, "int8", 1, DTypeKind::kSignedInt, 'i'},
    {DType::kInt16, "int16", 2, DTypeKind::kSignedInt, 'i'},
    {DType::kInt32, "int32", 4, DTypeKind::kSignedInt, 'i'},
    {DType::kInt64, "int64", 8, DTypeKind::kSignedInt, 'i'},
    {DType::kUInt8, "uint8", 1, DTypeKind::kUnsignedInt, 'u'},
    {DType::kUInt16, "uint16", 2, DTypeKind::kUnsignedInt, 'u'},
    {DType::kUInt32, "uint32", 4, DTypeKind::kUnsignedInt, 'u'},
    {DType::kUInt64, "uint64", 8, DTypeKind::kUnsignedInt, 'u'},
    {DType::kFloat16, "float16", 2, DTypeKind::kFloat, 'f'},
    {DType::kBFloat16, "bfloat16", 2, DTypeKind::kFloat, 'V'},
    {DType::kFloat32, "float32", 4, DTypeKind::kFloat, 'f'},
    {DType::kFloat64, "float64", 8, DTypeKind::kFloat, 'f'},
    {DType::kComplex64, "complex64", 8, DTypeKind::kComplex, 'c'},
    {DType::kComplex128, "complex128", 16, DTypeKind::kComplex, 'c'},
};
}  // namespace

const DTypeTraits& dtype_traits(DType d) noexcept {
  auto i = static_cast<unsigned>(d);
  return kTraits[i < static_cast<unsigned>(kNumDTypes) ? i : static_cast<unsigned>(DType::kFloat32)];
}

Result<DType> dtype_from_name(const std::string& name) {
  for (const auto& t : kTraits)
    if (name == t.name) return t.dtype;
  return Status::TypeError("dtype", "unknown dtype name '" + name + "'");
}

}  // namespace asc
