// CANN's kernel-side tiling-data macros (kernel_tiling/kernel_tiling.h,
// brought in by kernel_operator.h):
//
//   REGISTER_TILING_DEFAULT(AddCustomTilingData);     // in the kernel body
//   GET_TILING_DATA(tilingData, tiling);               // tilingData: a copy
//   GET_TILING_DATA_WITH_STRUCT(Other, t2, tiling);    // a named struct
//   GET_TILING_DATA_MEMBER(AddCustomTilingData, tileNum, n, tiling);
//   GET_TILING_DATA_PTR_WITH_STRUCT(AddCustomTilingData, p, tiling);  // no copy
//
// The struct is the plain C struct with the host class's fields in the same
// order (register/tilingdata_base.h lays the host bytes out exactly so); the
// copy reads sizeof(struct) bytes from the tiling GM pointer, as the
// hardware's scalar loads do. REGISTER_TILING_DEFAULT names the struct for
// GET_TILING_DATA by a block-scope alias that shadows the namespace-scope
// one below, so GET_TILING_DATA without it is a compile error naming the fix.
//
// Thread-safety: each block copies into its own local; the GM bytes are read only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "asc/kernel/context.h"

namespace AscendC::detail {

/// Stands for "no REGISTER_TILING_DEFAULT in this kernel".
struct NoDefaultTilingStruct;

template <typename T>
struct tiling_default_check {
  static_assert(!std::is_same_v<T, NoDefaultTilingStruct>,
                "GET_TILING_DATA needs REGISTER_TILING_DEFAULT(StructName) earlier in the kernel "
                "(or use GET_TILING_DATA_WITH_STRUCT(StructName, var, tiling))");
  using type = T;
};

/// *dst = the first sizeof(T) bytes at `tiling` (a null pointer is a kernel error).
template <typename T>
inline void copy_tiling(T* dst, const void* tiling, const char* what) {
  static_assert(std::is_trivially_copyable_v<T>, "GET_TILING_DATA: the tiling struct must be trivially copyable");
  if (tiling == nullptr)
    ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, what, "the tiling GM pointer is null");
  std::memcpy(static_cast<void*>(dst), tiling, sizeof(T));
}

}  // namespace AscendC::detail

// Shadowed by REGISTER_TILING_DEFAULT's block-scope alias.
using AscTilingDefaultStruct = ::AscendC::detail::NoDefaultTilingStruct;

#define REGISTER_TILING_DEFAULT(tiling_struct) using AscTilingDefaultStruct = tiling_struct

/// Registers a struct for a tiling key (CANN selects by key at build time;
/// on the CPU the kernel names the struct itself with _WITH_STRUCT).
#define REGISTER_TILING_FOR_TILINGKEY(key_expr, tiling_struct) static_assert(true, "")

#define GET_TILING_DATA(tiling_data, tiling_arg)                                              \
  typename ::AscendC::detail::tiling_default_check<AscTilingDefaultStruct>::type tiling_data; \
  ::AscendC::detail::copy_tiling(&tiling_data, (tiling_arg), "GET_TILING_DATA")

#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \
  tiling_struct tiling_data;                                                \
  ::AscendC::detail::copy_tiling(&tiling_data, (tiling_arg), "GET_TILING_DATA_WITH_STRUCT")

/// var = the member `mem_name` of the struct at tiling_arg (only its bytes are read).
#define GET_TILING_DATA_MEMBER(tiling_struct, mem_name, tiling_data, tiling_arg)                              \
  std::remove_cv_t<std::remove_reference_t<decltype(std::declval<tiling_struct&>().mem_name)>> tiling_data; \
  ::AscendC::detail::copy_tiling(                                                                           \
      &tiling_data,                                                                                         \
      ((tiling_arg) == nullptr ? nullptr                                                                    \
                               : reinterpret_cast<const uint8_t*>(tiling_arg) + offsetof(tiling_struct, mem_name)), \
      "GET_TILING_DATA_MEMBER")

#ifndef __tiling_data_ptr__
#define __tiling_data_ptr__
#endif
/// dst_ptr points at the struct in GM (no copy).
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling_ptr) \
  const __tiling_data_ptr__ tiling_struct* dst_ptr = reinterpret_cast<const tiling_struct*>(tiling_ptr)
