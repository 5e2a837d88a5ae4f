// Ascend C enums, constants and parameter structs (namespace AscendC).
//
// Names, field order and defaults follow the Ascend C API so that real kernel
// sources compile unchanged (see /work/shared/design/ASCENDC_API.md).
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <type_traits>

#include "asc/kernel/qualifiers.h"
#include "asc/kernel/simd.h"

namespace AscendC {

/// Logical buffer positions. A1/B1 = L1, A2 = L0A, B2 = L0B, CO1 = L0C,
/// VECIN/VECOUT/VECCALC = Unified Buffer; CO2 and C1/C2 live in UB/L1 on the
/// CPU device (see asc::kernel::hardware_of).
enum class TPosition : uint8_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM = VECCALC,
  SPM,
  SHM = SPM,
  TSCM,
  C2PIPE2GM,
  C2PIPE2LOCAL,
  MAX,
};
using QuePosition = TPosition;

/// Physical memories of an AI core.
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

/// Producer_consumer pipe pairs for SetFlag/WaitFlag.
enum class HardEvent : uint8_t {
  MTE2_MTE1,
  MTE1_MTE2,
  MTE1_M,
  M_MTE1,
  MTE2_V,
  V_MTE2,
  MTE3_V,
  V_MTE3,
  M_V,
  V_M,
  V_V,
  MTE3_MTE1,
  MTE1_MTE3,
  MTE1_V,
  MTE2_M,
  M_MTE2,
  V_MTE1,
  M_FIX,
  FIX_M,
  MTE3_MTE2,
  MTE2_MTE3,
  S_V,
  V_S,
  S_MTE2,
  MTE2_S,
  S_MTE3,
  MTE3_S,
  MTE2_FIX,
  FIX_MTE2,
  FIX_S,
  M_S,
  FIX_MTE3,
  MTE1_FIX,
  FIX_MTE1,
  FIX_FIX,
  MAX,
};

/// L2 cache modes of GlobalTensor::SetL2CacheHint (CANN: a performance hint;
/// the CPU device has no separately managed L2, so every mode reads and writes
/// the same memory).
enum class CacheMode : uint8_t {
  CACHE_MODE_DISABLE = 0,
  CACHE_MODE_NORMAL = 1,
  CACHE_MODE_PERSISTENT = 4,
};
/// SetL2CacheHint's read/write mode (reserved in CANN).
enum CacheRwMode { READ = 1, WRITE = 2, RW = 3 };

using TEventID = int8_t;
using RoundMode = ::asc::kernel::RoundMode;

/// CANN's type-identity trait (kernels test `IsSameType<T, int8_t>::value`).
template <typename T, typename U>
struct IsSameType : std::is_same<T, U> {};

/// ceil(num1 / num2) (CANN's scalar CeilDivision); 0 when num2 is 0 (no
/// division by zero on the CPU device).
constexpr int32_t CeilDivision(int32_t num1, int32_t num2) {
  return num2 == 0 ? 0 : (num1 + num2 - 1) / num2;
}
/// ceil(a / b) in the operands' common type (the samples' DivCeil); 0 when b is 0.
template <typename T, typename U>
constexpr auto DivCeil(T a, U b) -> std::common_type_t<T, U> {
  using C = std::common_type_t<T, U>;
  return static_cast<C>(b) == 0 ? C(0) : static_cast<C>((static_cast<C>(a) + static_cast<C>(b) - 1) / static_cast<C>(b));
}

constexpr uint32_t ONE_BLK_SIZE = 32;           // bytes in a data block
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;  // bytes one vector repeat processes
constexpr uint32_t DEFAULT_BLK_NUM = 8;         // blocks per repeat
constexpr uint8_t DEFAULT_BLK_STRIDE = 1;
constexpr uint8_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint32_t MAX_REPEAT_TIMES = 255;
constexpr uint32_t BLOCK_CUBE = 16;
constexpr uint32_t DEFAULT_C0_SIZE = 32;        // bytes in the C0 dimension of a cube fractal
constexpr uint16_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint16_t DEFAULT_DATA_COPY_STRIDE = 0;

/// DataCopy in 32-byte blocks: `blockCount` bursts of `blockLen` blocks; the
/// strides are the gaps (in blocks) between the end of one burst and the start
/// of the next, on the source and the destination side.
struct DataCopyParams {
  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint16_t blockLen = 0;
  // CANN's newer names srcGap / dstGap share the storage (as in its header).
  union {
    uint16_t srcStride = DEFAULT_DATA_COPY_STRIDE;
    uint16_t srcGap;
  };
  union {
    uint16_t dstStride = DEFAULT_DATA_COPY_STRIDE;
    uint16_t dstGap;
  };

  DataCopyParams() = default;
  DataCopyParams(uint16_t count, uint16_t len, uint16_t srcStrideIn, uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
};

/// DataCopyPad: `blockLen` in bytes; strides are gaps in bytes on the GM side
/// and in 32-byte blocks on the local (UB) side.
struct DataCopyExtParams {
  uint16_t blockCount = DEFAULT_DATA_COPY_NBURST;
  uint32_t blockLen = 0;
  uint32_t srcStride = DEFAULT_DATA_COPY_STRIDE;
  uint32_t dstStride = DEFAULT_DATA_COPY_STRIDE;
  uint32_t rsv = 0;

  DataCopyExtParams() = default;
  DataCopyExtParams(uint16_t count, uint32_t len, uint32_t srcStrideIn, uint32_t dstStrideIn, uint32_t rsvIn = 0)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
};

/// Padding of each burst copied into UB: `leftPadding` / `rightPadding`
/// elements around the data, filled with `paddingValue` when `isPad`.
template <typename T>
struct DataCopyPadExtParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  T paddingValue = T(0);

  DataCopyPadExtParams() = default;
  DataCopyPadExtParams(bool isPadValue, uint8_t leftPadValue, uint8_t rightPadValue, T padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

/// Older padding parameters (paddingValue holds the element's bits).
struct DataCopyPadParams {
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;

  DataCopyPadParams() = default;
  DataCopyPadParams(bool isPadValue, uint8_t leftPadValue, uint8_t rightPadValue, uint64_t padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
};

/// Strides of the mask/repeat form of binary vector instructions (blocks of
/// 32 bytes within a repeat, and between repeats).
struct BinaryRepeatParams {
  uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
  uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
  uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
  uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;

  BinaryRepeatParams() = default;
  BinaryRepeatParams(uint8_t dstBlkStrideIn, uint8_t src0BlkStrideIn, uint8_t src1BlkStrideIn,
                     uint8_t dstRepStrideIn, uint8_t src0RepStrideIn, uint8_t src1RepStrideIn)
      : dstBlkStride(dstBlkStrideIn),
        src0BlkStride(src0BlkStrideIn),
        src1BlkStride(src1BlkStrideIn),
        dstRepStride(dstRepStrideIn),
        src0RepStride(src0RepStrideIn),
        src1RepStride(src1RepStrideIn) {}
};

/// Strides of the mask/repeat form of unary vector instructions.
struct UnaryRepeatParams {
  uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
  uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
  uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
  bool halfBlock = false;

  UnaryRepeatParams() = default;
  UnaryRepeatParams(uint16_t dstBlkStrideIn, uint16_t srcBlkStrideIn, uint8_t dstRepStrideIn,
                    uint8_t srcRepStrideIn)
      : dstBlkStride(dstBlkStrideIn),
        srcBlkStride(srcBlkStrideIn),
        dstRepStride(dstRepStrideIn),
        srcRepStride(srcRepStrideIn) {}
};

}  // namespace AscendC

namespace asc::kernel {

/// The memory a position lives in on the CPU device (GM for TPosition::GM).
constexpr AscendC::Hardware hardware_of(AscendC::TPosition pos) {
  using AscendC::Hardware;
  using AscendC::TPosition;
  switch (pos) {
    case TPosition::GM: return Hardware::GM;
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
    case TPosition::TSCM: return Hardware::L1;
    case TPosition::A2: return Hardware::L0A;
    case TPosition::B2: return Hardware::L0B;
    case TPosition::CO1: return Hardware::L0C;
    default: return Hardware::UB;  // VECIN/VECOUT/VECCALC, CO2, C2, SPM, ...
  }
}

const char* position_name(AscendC::TPosition pos) noexcept;  // "VECIN", ...
const char* hardware_name(AscendC::Hardware hw) noexcept;     // "Unified Buffer (UB)", ...

}  // namespace asc::kernel
