// The compare-mask register (CMPMASK) forms of Compare, GetCmpMask /
// SetCmpMask, and Compares (CANN's newer name of CompareScalar).
//
// * Compare(src0, src1, CMPMODE, mask, BinaryRepeatParams) compares one
//   repeat (256 bytes: 256 / sizeof(T) lanes) and keeps the result bits in
//   the block's CMPMASK register (128 bits; lane i is bit i % 8 of byte
//   i / 8); the bits of lanes the mask does not select keep their value. The
//   mask is a lane count (continuous mode, 1..lanes) or two 64-bit words
//   (bit mode). The sources' block strides (src0BlkStride / src1BlkStride, in
//   32-byte blocks) apply.
// * GetCmpMask(dst) writes the register's 16 bytes to dst; SetCmpMask(src)
//   loads them (Select's VSEL_CMPMASK_SPR mode reads its bits from a tensor in
//   pyasc, see compare_select.h).
// * Compares(dst, src0, scalar, ...) is CompareScalar; the dav-3510 form
//   Compares(dst, src0, src1Local, ...) compares with src1Local's element 0.
//
// Thread-safety: the register is per thread (one block runs on one thread).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "asc/kernel/compare_select.h"
#include "asc/kernel/context.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace asc::kernel::cmpmask {

inline uint8_t* reg() {
  thread_local uint8_t bits[16] = {};
  return bits;
}

template <typename T>
inline bool cmp(AscendC::CMPMODE mode, T a, T b) {
  using C = std::conditional_t<std::is_arithmetic_v<T>, T, float>;
  const C x = static_cast<C>(a), y = static_cast<C>(b);
  switch (mode) {
    case AscendC::CMPMODE::LT: return x < y;
    case AscendC::CMPMODE::GT: return x > y;
    case AscendC::CMPMODE::EQ: return x == y;
    case AscendC::CMPMODE::LE: return x <= y;
    case AscendC::CMPMODE::GE: return x >= y;
    case AscendC::CMPMODE::NE: return x != y;
  }
  return false;
}

template <typename T>
inline void compare_one_repeat(const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1,
                               AscendC::CMPMODE mode, const uint64_t* bitmask, uint64_t count,
                               const AscendC::BinaryRepeatParams& rp) {
  constexpr uint32_t lanes = 256 / sizeof(T);
  constexpr uint32_t per_block = 32 / sizeof(T);
  if (bitmask == nullptr && (count == 0 || count > lanes))
    fail(ErrorCode::kInvalidParam, "Compare",
         "mask " + std::to_string(count) + " is not a lane count in [1, " + std::to_string(lanes) + "]");
  uint8_t* bits = reg();
  for (uint32_t i = 0; i < lanes; ++i) {
    const bool on = bitmask ? ((bitmask[i / 64] >> (i % 64)) & 1u) : i < count;
    if (!on) continue;
    const uint32_t blk = i / per_block, in = i % per_block;
    const uint64_t o0 = uint64_t{blk} * rp.src0BlkStride * per_block + in;
    const uint64_t o1 = uint64_t{blk} * rp.src1BlkStride * per_block + in;
    if (o0 >= src0.GetSize() || o1 >= src1.GetSize())
      fail_size("Compare", "one repeat", (o0 >= src0.GetSize() ? o0 : o1) + 1,
                o0 >= src0.GetSize() ? src0.GetSize() : src1.GetSize());
    const bool r = cmp<T>(mode, src0.GetValue(static_cast<uint32_t>(o0)), src1.GetValue(static_cast<uint32_t>(o1)));
    if (r) bits[i / 8] |= uint8_t(1u << (i % 8));
    else bits[i / 8] &= uint8_t(~(1u << (i % 8)));
  }
}

}  // namespace asc::kernel::cmpmask

namespace AscendC {

template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask[],
                    const BinaryRepeatParams& repeatParams) {
  ::asc::kernel::cmpmask::compare_one_repeat(src0, src1, cmpMode, mask, 0, repeatParams);
}
template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask,
                    const BinaryRepeatParams& repeatParams) {
  ::asc::kernel::cmpmask::compare_one_repeat(src0, src1, cmpMode, nullptr, mask, repeatParams);
}

/// Writes the CMPMASK register (16 bytes) to dst.
template <typename T>
inline void GetCmpMask(const LocalTensor<T>& dst) {
  if (uint64_t{dst.GetSize()} * sizeof(T) < 16) ::asc::kernel::fail_size("GetCmpMask", "16 bytes", 16, dst.GetSize() * sizeof(T));
  const uint8_t* bits = ::asc::kernel::cmpmask::reg();
  const LocalTensor<uint8_t> d = dst.template ReinterpretCast<uint8_t>();
  for (uint32_t i = 0; i < 16; ++i) d.SetValue(i, bits[i]);
}
/// Loads the CMPMASK register (16 bytes) from src.
template <typename T>
inline void SetCmpMask(const LocalTensor<T>& src) {
  if (uint64_t{src.GetSize()} * sizeof(T) < 16) ::asc::kernel::fail_size("SetCmpMask", "16 bytes", 16, src.GetSize() * sizeof(T));
  uint8_t* bits = ::asc::kernel::cmpmask::reg();
  const LocalTensor<uint8_t> s = src.template ReinterpretCast<uint8_t>();
  for (uint32_t i = 0; i < 16; ++i) bits[i] = s.GetValue(i);
}

// Compares: CANN's name of CompareScalar.
template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                     const ::asc::kernel::detail::non_deduced_t<T> src1Scalar, CMPMODE cmpMode, uint32_t count) {
  CompareScalar(dst, src0, src1Scalar, cmpMode, count);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                     const ::asc::kernel::detail::non_deduced_t<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask[],
                     uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
  CompareScalar<T, U, isSetMask>(dst, src0, src1Scalar, cmpMode, const_cast<uint64_t*>(mask), repeatTime,
                                 repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                     const ::asc::kernel::detail::non_deduced_t<T> src1Scalar, CMPMODE cmpMode, const uint64_t mask,
                     uint8_t repeatTime, const UnaryRepeatParams& repeatParams) {
  CompareScalar<T, U, isSetMask>(dst, src0, src1Scalar, cmpMode, mask, repeatTime, repeatParams);
}
/// dav-3510: the scalar is element 0 of src1Local.
template <typename T, typename U>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1Local,
                     CMPMODE cmpMode, uint32_t count) {
  if (src1Local.GetSize() == 0) ::asc::kernel::fail_size("Compares", "src1 element 0", 1, 0);
  CompareScalar(dst, src0, src1Local.GetValue(0), cmpMode, count);
}

}  // namespace AscendC
