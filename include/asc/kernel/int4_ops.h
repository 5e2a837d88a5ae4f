// Cast to and from AscendC::int4b_t (asc/kernel/int4.h), the count and the
// mask/repeat forms, as CANN's Cast documents them:
//
// * half / bfloat16_t / int16_t -> int4b_t: rounded with the RoundMode
//   (CAST_NONE = CAST_RINT), saturated to [-8, 7], NaN -> 0; packed two per
//   byte (element 2i in the low nibble).
// * int4b_t -> half / bfloat16_t / int16_t: exact.
// * The count must be even ("an int4b_t takes half a byte": CANN requires an
//   even count / continuous mask with int4b_t); other pairs are kInvalidDtype.
// * Mask/repeat form: one repeat converts 256 / sizeof(wider type) lanes (128
//   for half); lane l of an operand with e-byte elements lies in block
//   l / (32 / e), element l % (32 / e), and of the int4b_t operand in block
//   l / 64, element l % 64. Block k of repeat r starts at (r * repStride +
//   k * blkStride) * 32 bytes, as in every mask/repeat instruction.
//   Unselected lanes are not written.
//
// The conversions are scalar loops: int4 tensors are small quantised tiles in
// the samples, and the packed layout has no SIMD path here.
//
// Thread-safety: none needed (per-block data).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "asc/core/dtype.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/int4.h"
#include "asc/kernel/simd.h"
#include "asc/kernel/simd_lane.h"
#include "asc/kernel/tensor.h"

namespace asc::kernel::detail {

template <typename T>
inline constexpr bool int4_cast_peer_v =
    std::is_same_v<T, ::asc::float16> || std::is_same_v<T, ::asc::bfloat16> || std::is_same_v<T, int16_t>;

template <typename T>
inline const char* int4_peer_name() {
  if constexpr (is_int4_v<T>) {
    return "int4b_t";
  } else {
    return dtype_name(::asc::dtype_of<T>());
  }
}

/// `v` rounded with `mode`, saturated to [-8, 7] (NaN -> 0).
inline int int4_from_float(float v, RoundMode mode) {
  if (std::isnan(v)) return 0;
  float r;
  switch (mode) {
    case RoundMode::CAST_FLOOR: r = std::floor(v); break;
    case RoundMode::CAST_CEIL: r = std::ceil(v); break;
    case RoundMode::CAST_ROUND: r = std::round(v); break;
    case RoundMode::CAST_TRUNC: r = std::trunc(v); break;
    default: r = std::nearbyint(v); break;  // CAST_NONE / CAST_RINT: nearest, ties to even
  }
  return r < -8.0f ? -8 : (r > 7.0f ? 7 : static_cast<int>(r));
}

template <typename T1, typename T2>
inline void int4_cast_check(const char* op, RoundMode mode) {
  static_assert(is_int4_v<T1> || is_int4_v<T2>, "int4 Cast needs an int4b_t operand");
  constexpr bool ok = (is_int4_v<T1> && int4_cast_peer_v<T2>) || (is_int4_v<T2> && int4_cast_peer_v<T1>);
  if (!ok) {
    fail(ErrorCode::kInvalidDtype, op,
         std::string("unsupported types: ") + int4_peer_name<T2>() + " to " + int4_peer_name<T1>() +
             " (int4b_t converts to and from half, bfloat16_t and int16_t)");
  }
  if (mode == RoundMode::CAST_ODD) {
    fail(ErrorCode::kInvalidParam, op, std::string("CAST_ODD is not a rounding mode of ") + int4_peer_name<T2>() +
                                           " to " + int4_peer_name<T1>());
  }
}

/// Count form: dst[i] = convert(src[i]) for i < count.
template <typename T1, typename T2>
inline void cast_int4(const AscendC::LocalTensor<T1>& dst, const AscendC::LocalTensor<T2>& src, RoundMode mode,
                      uint32_t count) {
  const char* op = "Cast";
  int4_cast_check<T1, T2>(op, mode);
  if (count == 0) return;
  if (count % 2 != 0) {
    fail(ErrorCode::kInvalidParam, op,
         "the count must be even with int4b_t (two elements per byte), got " + std::to_string(count));
  }
  if (count > dst.GetSize()) fail_size(op, "elements of dst", count, dst.GetSize());
  if (count > src.GetSize()) fail_size(op, "elements of src", count, src.GetSize());
  elide::read(src.raw(), bytes_for<T2>(count));
  elide::write(dst.raw(), bytes_for<T1>(count));
  if constexpr (is_int4_v<T1>) {
    const T2* s = src.raw();
    for (uint32_t i = 0; i < count; ++i) int4_set(dst.raw(), i, int4_from_float(static_cast<float>(s[i]), mode));
  } else {
    T1* d = dst.raw();
    for (uint32_t i = 0; i < count; ++i) d[i] = static_cast<T1>(static_cast<int>(int4_get(src.raw(), i)));
  }
}

/// Mask/repeat form (see the header comment); `l.mask` holds the selected lanes.
template <typename T1, typename T2>
inline void cast_int4_repeat(const AscendC::LocalTensor<T1>& dst, const AscendC::LocalTensor<T2>& src,
                             RoundMode mode, simd::RepeatLayout& l, uint32_t lanes) {
  const char* op = "Cast";
  // Lanes per 32-byte block of each operand.
  const uint32_t per_blk[2] = {static_cast<uint32_t>(256 / bits_of<T1>), static_cast<uint32_t>(256 / bits_of<T2>)};
  // Extents: the end of the last selected lane of each operand.
  uint64_t end[2] = {0, 0};
  for (uint32_t r = 0; r < l.repeat; ++r) {
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      if (!((l.mask[lane / 64] >> (lane % 64)) & 1)) continue;
      for (int w = 0; w < 2; ++w) {
        const uint64_t e = (uint64_t{r} * l.rep[w] + uint64_t{lane / per_blk[w]} * l.blk[w]) * 32 * 8 +
                           uint64_t{lane % per_blk[w] + 1} * (w == 0 ? bits_of<T1> : bits_of<T2>);
        end[w] = e > end[w] ? e : end[w];
      }
    }
  }
  const uint64_t e0 = (end[0] + 7) / 8, e1 = (end[1] + 7) / 8;
  if (e0 > dst.GetLength()) fail_size(op, "bytes of dst (mask/repeat extent)", e0, dst.GetLength());
  if (e1 > src.GetLength()) fail_size(op, "bytes of src (mask/repeat extent)", e1, src.GetLength());
  if (e0 == 0) return;
  elide::read(src.raw(), e1);
  elide::access(dst.raw(), e0);
  auto* db = reinterpret_cast<uint8_t*>(dst.raw());
  const auto* sb = reinterpret_cast<const uint8_t*>(src.raw());
  for (uint32_t r = 0; r < l.repeat; ++r) {
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      if (!((l.mask[lane / 64] >> (lane % 64)) & 1)) continue;
      const uint64_t dblk = (uint64_t{r} * l.rep[0] + uint64_t{lane / per_blk[0]} * l.blk[0]) * 32;
      const uint64_t sblk = (uint64_t{r} * l.rep[1] + uint64_t{lane / per_blk[1]} * l.blk[1]) * 32;
      const uint32_t di = lane % per_blk[0], si = lane % per_blk[1];
      if constexpr (is_int4_v<T1>) {
        const T2 v = reinterpret_cast<const T2*>(sb + sblk)[si];
        int4_set(db + dblk, di, int4_from_float(static_cast<float>(v), mode));
      } else {
        reinterpret_cast<T1*>(db + dblk)[di] = static_cast<T1>(static_cast<int>(int4_get(sb + sblk, si)));
      }
    }
  }
}

}  // namespace asc::kernel::detail
