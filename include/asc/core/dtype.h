// Element types of pyasc tensors and kernels.
//
// `DType` enumerates the element types; `dtype_traits(d)` gives size, name and
// category; `dtype_of<T>()` maps a C++ type to its DType at compile time.
// Names and NumPy type characters match NumPy ("float32", 'f'), so the Python
// side can exchange dtypes with NumPy/ml_dtypes by name.
//
// Thread-safety: constant data only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "asc/core/half.h"
#include "asc/core/status.h"

namespace asc {

enum class DType : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
};
constexpr int kNumDTypes = 13;

enum class DTypeKind : uint8_t { kBool, kSignedInt, kUnsignedInt, kFloat };

struct DTypeTraits {
  DType dtype;
  const char* name;      // NumPy name: "float32", "bfloat16", ...
  uint8_t size;          // bytes per element
  DTypeKind kind;
  char numpy_char;       // NumPy kind character of the buffer protocol ('f', 'i', 'u', 'b', 'V' for bf16)
};

/// Traits of `d` (always valid for a DType value).
const DTypeTraits& dtype_traits(DType d) noexcept;
inline const char* dtype_name(DType d) noexcept { return dtype_traits(d).name; }
inline size_t dtype_size(DType d) noexcept { return dtype_traits(d).size; }
inline bool is_floating(DType d) noexcept { return dtype_traits(d).kind == DTypeKind::kFloat; }
inline bool is_integer(DType d) noexcept {
  auto k = dtype_traits(d).kind;
  return k == DTypeKind::kSignedInt || k == DTypeKind::kUnsignedInt;
}
/// Parses a NumPy dtype name ("float32", "half" is not accepted: use "float16").
Result<DType> dtype_from_name(const std::string& name);

template <typename T> struct DTypeOf;
#define ASC_DTYPE_OF_(T, D) \
  template <> struct DTypeOf<T> { static constexpr DType value = DType::D; }
ASC_DTYPE_OF_(bool, kBool);
ASC_DTYPE_OF_(int8_t, kInt8);
ASC_DTYPE_OF_(int16_t, kInt16);
ASC_DTYPE_OF_(int32_t, kInt32);
ASC_DTYPE_OF_(int64_t, kInt64);
ASC_DTYPE_OF_(uint8_t, kUInt8);
ASC_DTYPE_OF_(uint16_t, kUInt16);
ASC_DTYPE_OF_(uint32_t, kUInt32);
ASC_DTYPE_OF_(uint64_t, kUInt64);
ASC_DTYPE_OF_(float16, kFloat16);
ASC_DTYPE_OF_(bfloat16, kBFloat16);
ASC_DTYPE_OF_(float, kFloat32);
ASC_DTYPE_OF_(double, kFloat64);
#undef ASC_DTYPE_OF_

template <typename T>
constexpr DType dtype_of() {
  return DTypeOf<std::remove_cv_t<T>>::value;
}

/// Calls `fn(T{})` with the C++ type of `d` (a zero value used only for its type).
template <typename Fn>
decltype(auto) visit_dtype(DType d, Fn&& fn) {
  switch (d) {
    case DType::kBool: return fn(bool{});
    case DType::kInt8: return fn(int8_t{});
    case DType::kInt16: return fn(int16_t{});
    case DType::kInt32: return fn(int32_t{});
    case DType::kInt64: return fn(int64_t{});
    case DType::kUInt8: return fn(uint8_t{});
    case DType::kUInt16: return fn(uint16_t{});
    case DType::kUInt32: return fn(uint32_t{});
    case DType::kUInt64: return fn(uint64_t{});
    case DType::kFloat16: return fn(float16{});
    case DType::kBFloat16: return fn(bfloat16{});
    case DType::kFloat32: return fn(float{});
    case DType::kFloat64: return fn(double{});
  }
  return fn(float{});
}

}  // namespace asc
