// Multi-dimensional GM -> UB data movement (ND-DMA), as CANN documents
// DataCopy(dst, src, NdDmaParams<T, dim>) for dav-3510:
//
// * dim (1..5) nested loops, index 0 the innermost. Loop d runs over
//   loopLpSize[d] + loopSize[d] + loopRpSize[d] positions; position p of loop
//   d is destination element p * loopDstStride[d] (summed over the loops).
//   Positions lp <= p < lp + size read source element (p - lp) *
//   loopSrcStride[d] (summed); the others are padding: constantValue, or with
//   NdDmaConfig::isNearestValueMode the nearest source element of every
//   padded loop (the index clamped to [0, size)). NdDmaConfig::loopLpSize /
//   loopRpSize, when not unsetPad, replace every loop's padding sizes.
//   Strides count elements; a stride 0 repeats (broadcast), swapped strides
//   transpose, a smaller loopSize slices.
// * Errors (asc::Error): loopSize 0 or dim outside 1..5 kInvalidParam; the
//   furthest destination / source element outside the LocalTensor /
//   GlobalTensor (of known size) kIndexOutOfRange.
// * NdDmaDci() (refresh the ND-DMA cache) has nothing to refresh here.
//
// Copy elision: the destination range is made real first; GM is read as is.
// Thread-safety: none needed (per-block data).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "asc/kernel/context.h"
#include "asc/kernel/data_copy.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/tensor.h"

namespace AscendC {

struct NdDmaConfig {
  static constexpr uint16_t unsetPad = 0xffff;
  bool isNearestValueMode = false;
  uint16_t loopLpSize = unsetPad;  // all loops' left padding (< 256), or per loop
  uint16_t loopRpSize = unsetPad;  // all loops' right padding (< 256), or per loop
  bool ascOptimize = false;        // reserved
};
using MultiCopyConfig = NdDmaConfig;
constexpr NdDmaConfig kDefaultNdDmaConfig = {false, NdDmaConfig::unsetPad, NdDmaConfig::unsetPad, false};
constexpr NdDmaConfig kDefaultMultiCopyConfig = kDefaultNdDmaConfig;

template <uint8_t dim>
struct MultiCopyLoopInfo {
  static_assert(dim >= 1 && dim <= 5, "NdDmaLoopInfo: dim must be between 1 and 5");
  uint64_t loopSrcStride[dim] = {0};  // elements between source positions of each loop
  uint32_t loopDstStride[dim] = {0};  // elements between destination positions of each loop
  uint32_t loopSize[dim] = {0};       // source positions of each loop (padding excluded)
  uint8_t loopLpSize[dim] = {0};      // left padding of each loop
  uint8_t loopRpSize[dim] = {0};      // right padding of each loop
};
template <uint8_t dim>
using NdDmaLoopInfo = MultiCopyLoopInfo<dim>;

template <typename T, uint8_t dim>
struct MultiCopyParams {
  MultiCopyLoopInfo<dim> loopInfo;
  T constantValue;
};
template <typename T, uint8_t dim>
using NdDmaParams = MultiCopyParams<T, dim>;

inline void NdDmaDci() {}

template <typename T, uint8_t dim, const NdDmaConfig& config = kDefaultNdDmaConfig>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const NdDmaParams<T, dim>& params) {
  static_assert(dim >= 1 && dim <= 5, "DataCopy (ND-DMA): dim must be between 1 and 5");
  namespace ek = ::asc::kernel;
  const char* op = "DataCopy (ND-DMA)";
  const auto& li = params.loopInfo;
  uint32_t lp[dim], rp[dim], total[dim];
  uint64_t dst_last = 0, src_last = 0, count = 1;
  for (int d = 0; d < dim; ++d) {
    if (li.loopSize[d] == 0) {
      ek::fail(::asc::ErrorCode::kInvalidParam, op, "loopSize[" + std::to_string(d) + "] is 0 (must be >= 1)");
    }
    lp[d] = config.loopLpSize != NdDmaConfig::unsetPad ? config.loopLpSize : li.loopLpSize[d];
    rp[d] = config.loopRpSize != NdDmaConfig::unsetPad ? config.loopRpSize : li.loopRpSize[d];
    total[d] = lp[d] + li.loopSize[d] + rp[d];
    dst_last += uint64_t{total[d] - 1} * li.loopDstStride[d];
    src_last += uint64_t{li.loopSize[d] - 1} * li.loopSrcStride[d];
    count *= total[d];
  }
  ek::detail::check_local(op, dst, (dst_last + 1) * sizeof(T));
  ek::detail::check_global(op, src, (src_last + 1) * sizeof(T));
  if (ek::check::active()) {
    ek::check::local_operand(op, "dst", dst.raw(), (dst_last + 1) * sizeof(T));
    ek::detail::check_gm(op, src, 1, (src_last + 1) * sizeof(T), 0, false);
  }
  ek::elide::access(dst.raw(), (dst_last + 1) * sizeof(T));
  T* out = dst.raw();
  const T* in = src.raw();
  uint32_t pos[dim] = {0};
  for (uint64_t e = 0; e < count; ++e) {
    uint64_t doff = 0, soff = 0;
    bool pad = false;
    for (int d = 0; d < dim; ++d) {
      doff += uint64_t{pos[d]} * li.loopDstStride[d];
      int64_t s = int64_t{pos[d]} - int64_t{lp[d]};
      if (s < 0 || s >= int64_t{li.loopSize[d]}) {
        pad = true;
        s = s < 0 ? 0 : int64_t{li.loopSize[d]} - 1;  // the nearest source position
      }
      soff += uint64_t(s) * li.loopSrcStride[d];
    }
    if (pad && !config.isNearestValueMode) {
      std::memcpy(out + doff, &params.constantValue, sizeof(T));
    } else {
      std::memcpy(out + doff, in + soff, sizeof(T));
    }
    for (int d = 0; d < dim; ++d) {  // odometer, innermost loop first
      if (++pos[d] < total[d]) break;
      pos[d] = 0;
    }
  }
  ek::detail::count_gm_bytes(count * sizeof(T));
}

}  // namespace AscendC
