// Arange of CANN's advanced API (lib/index): an arithmetic progression,
//
//   Arange<T>(dst, firstValue, diffValue, count)
//     dst[i] = firstValue + i * diffValue    for i < count
//
// built the way CANN documents its algorithm, so that the roundings of half
// and float match it: the first 8 values are set one by one (firstValue +
// i * diffValue, computed in float for half), then each further block of 8
// (up to 64) is the first block plus a scalar (Adds of 8j * diffValue), then
// each further block of 64 is the first 64 plus 64m * diffValue. T is
// int16_t, half, int32_t or float (int64_t on dav-3510), as CANN lists.
// Errors: count <= 0 or diffValue < 0 (CANN requires both), a dst shorter
// than count (kIndexOutOfRange).
//
// Thread-safety: per block, like every kernel API call.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace AscendC {

template <typename T>
inline void Arange(const LocalTensor<T>& dst, const T firstValue, const T diffValue, const int32_t count) {
  static_assert(std::is_same_v<T, int16_t> || std::is_same_v<T, half> || std::is_same_v<T, int32_t> ||
                    std::is_same_v<T, float> || std::is_same_v<T, int64_t>,
                "Arange: T must be int16_t, half, int32_t, float or int64_t");
  const char* op = "Arange";
  // The scalar type the steps compute in (CANN's scalar unit has no half arithmetic).
  using S = std::conditional_t<std::is_same_v<T, half>, float, T>;
  const S first = static_cast<S>(firstValue), diff = static_cast<S>(diffValue);
  if (count <= 0) {
    ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, op, "count must be > 0, got " + std::to_string(count));
  }
  if (diff < S(0)) {
    ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, op,
                        "diffValue must be >= 0, got " + std::to_string(static_cast<double>(diff)));
  }
  if (static_cast<uint64_t>(count) > dst.GetSize()) ::asc::kernel::fail_size(op, "dst", count, dst.GetSize());
  T* d = dst.raw();
  ::asc::kernel::elide::access(d, static_cast<uint64_t>(count) * sizeof(T));
  const int32_t n8 = count < 8 ? count : 8;
  for (int32_t i = 0; i < n8; ++i) d[i] = static_cast<T>(static_cast<S>(first + static_cast<S>(i) * diff));
  // Adds of a scalar (of type T, as the vector instruction takes it) to the
  // first 8 (blocks 1..7), then to the first 64.
  auto adds = [&](int32_t i, int32_t block) {
    const S add = static_cast<S>(static_cast<T>(static_cast<S>(static_cast<S>(i / block * block) * diff)));
    d[i] = static_cast<T>(static_cast<S>(static_cast<S>(d[i % block]) + add));
  };
  for (int32_t i = 8; i < count && i < 64; ++i) adds(i, 8);
  for (int32_t i = 64; i < count; ++i) adds(i, 64);
}

}  // namespace AscendC
