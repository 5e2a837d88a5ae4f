// Element types of pyasc tensors and kernels.
//
// `DType` enumerates the element types; `dtype_traits(d)` gives size, name and
// category; `dtype_of<T>()` maps a C++ type to its DType at compile time.
// Names and NumPy type characters match NumPy ("float32", 'f'), so the Python
// side can exchange dtypes with NumPy/ml_dtypes by name.
//
// Thread-safety: constant data only.
#pragma once

#include <complex>
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
  kComplex64,   // std::complex<float>: (real, imag) float32 pair, NumPy's layout
  kComplex128,  // std::complex<double>
};
constexpr int kNumDTypes = 15;

/// Complex element types (NumPy's memory layout: real part first).
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

enum class DTypeKind : uint8_t { kBool, kSignedInt, kUnsignedInt, kFloat, kComplex };

struct DTypeTraits {
  DType dtype;
  const char* name;      // NumPy name: "float32", "bfloat16", ...
  uint8_t size;          // bytes per element
  DTypeKind kind;
  char numpy_char;       // NumPy kind character ('f', 'i', 'u', 'b', 'c', 'V' for bf16)
};

/// Traits of `d` (always valid for a DType value).
const DTypeTraits& dtype_traits(DType d) noexcept;
inline const char* dtype_name(DType d) noexcept { return dtype_traits(d).name; }
inline size_t dtype_size(DType d) noexcept { return dtype_traits(d).size; }
/// Real floating point (float16, bfloat16, float32, float64); complex is not.
inline bool is_floating(DType d) noexcept { return dtype_traits(d).kind == DTypeKind::kFloat; }
inline bool is_complex(DType d) noexcept { return dtype_traits(d).kind == DTypeKind::kComplex; }
/// NumPy's "inexact": real floating or complex.
inline bool is_inexact(DType d) noexcept { return is_floating(d) || is_complex(d); }
/// complex64 <-> float32, complex128 <-> float64 (the dtype of .real/.imag/abs);
/// other dtypes are returned unchanged.
inline DType complex_part_dtype(DType d) noexcept {
  return d == DType::kComplex64 ? DType::kFloat32 : d == DType::kComplex128 ? DType::kFloat64 : d;
}
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
ASC_DTYPE_OF_(complex64, kComplex64);
ASC_DTYPE_OF_(complex128, kComplex128);
#undef ASC_DTYPE_OF_

template <typename T>
constexpr DType dtype_of() {
  return DTypeOf<std::remove_cv_t<T>>::value;
}

/// Calls `fn(T{})` with the C++ type of `d` (a zero value used only for its type).
/// Real dtypes only: generic code written for ordered scalars would compute
/// garbage with complex numbers, so a complex `d` throws kInvalidDtype
/// ("[dtype] complex64 is not supported by this operation"); code that handles
/// complex values uses visit_dtype_all().
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
    case DType::kComplex64:
    case DType::kComplex128:
      throw Error(Status::TypeError("dtype", std::string(dtype_name(d)) + " is not supported by this operation"));
  }
  throw Error(Status::TypeError("dtype", "invalid dtype code " + std::to_string(static_cast<int>(d))));
}

/// visit_dtype() that also visits complex64/complex128 (std::complex<float/double>).
template <typename Fn>
decltype(auto) visit_dtype_all(DType d, Fn&& fn) {
  if (d == DType::kComplex64) return fn(complex64{});
  if (d == DType::kComplex128) return fn(complex128{});
  return visit_dtype(d, std::forward<Fn>(fn));
}

}  // namespace asc
