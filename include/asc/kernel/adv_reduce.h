// Sum of CANN's advanced API (lib/reduce): the sum of each row's first n
// elements over an outter x inner ND tile (inner = n padded to 32 bytes):
//
//   Sum<T>(dst, src, [sharedTmpBuffer,] SumParams{outter, inner, n})
//     dst[r] = sum_{j < n} src[r * inner + j]    for r < outter
//
// T is half or float (as CANN documents); the sum is accumulated in double
// and rounded once to T (the hardware's tree of float additions can differ
// from it in the last bits). The CPU uses no scratch: sharedTmpBuffer is
// accepted and not touched. Errors: inner * sizeof(T) not a multiple of 32,
// n > inner (kInvalidParam), a tile beyond src or dst (kIndexOutOfRange).
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

struct SumParams {
  uint32_t outter = 1;
  uint32_t inner = 0;
  uint32_t n = 0;
};

template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SumParams& sumParams) {
  static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>, "Sum: T must be half or float");
  const char* op = "Sum";
  const uint64_t outter = sumParams.outter, inner = sumParams.inner, n = sumParams.n;
  if ((inner * sizeof(T)) % 32 != 0) {
    ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, op,
                        "SumParams.inner * sizeof(T) must be a multiple of 32 bytes, got inner " +
                            std::to_string(inner));
  }
  if (n > inner) {
    ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, op,
                        "SumParams.n (" + std::to_string(n) + ") exceeds inner (" + std::to_string(inner) + ")");
  }
  if (outter * inner > srcTensor.GetSize())
    ::asc::kernel::fail_size(op, "elements of src (outter x inner)", outter * inner, srcTensor.GetSize());
  if (outter > dstTensor.GetSize()) ::asc::kernel::fail_size(op, "elements of dst (outter)", outter, dstTensor.GetSize());
  if (outter == 0) return;
  ::asc::kernel::elide::read(srcTensor.raw(), outter * inner * sizeof(T));
  ::asc::kernel::elide::access(dstTensor.raw(), outter * sizeof(T));
  const T* x = srcTensor.raw();
  T* y = dstTensor.raw();
  for (uint64_t r = 0; r < outter; ++r) {
    double s = 0;
    for (uint64_t j = 0; j < n; ++j) s += static_cast<double>(static_cast<float>(x[r * inner + j]));
    y[r] = T(static_cast<float>(s));
  }
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                const LocalTensor<uint8_t>& /*sharedTmpBuffer*/, const SumParams& sumParams) {
  Sum<T, reduceDim, isReuseSource, isBasicBlock>(dstTensor, srcTensor, sumParams);
}

}  // namespace AscendC
