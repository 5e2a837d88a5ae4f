// The register ("Reg") vector API of CANN's dav-3510 (Ascend 950) on the CPU:
// `__simd_vf__` functions called with asc_vf_call<F>(args...), working on
// AscendC::Reg::RegTensor<T> (one vector register of VL = 256 bytes) under an
// AscendC::Reg::MaskReg predicate.
//
// Semantics follow CANN's Reg API reference (docs/zh/api/SIMD-API/基础API/
// Reg矢量计算):
//   - a MaskReg has VL/8 = 32 bytes = 256 bits, one per byte of a register;
//     element i of a b8/b16/b32/b64 type is active when bit i*sizeof(T) is set
//     (so a mask loaded from UB for float data sets every 4th bit);
//   - an instruction writes its active elements; the inactive ones of dst are
//     zeroed (MaskMergeMode::ZEROING, the default) or kept (MERGING);
//   - LoadAlign reads a whole VL from UB; StoreAlign writes only the active
//     elements; the PostLiteral::POST_MODE_UPDATE forms advance the UB
//     pointer by postUpdateStride elements after the access;
//   - CreateMask<T, MaskPattern>() and UpdateMask<T>(count) (count decreases
//     by VL/sizeof(T), not below 0) make masks;
//   - Reduce<SUM|MAX|MIN> puts the result in element 0 (MAX/MIN: the index of
//     the first extreme in element 1, as the bits of dst's type) and zeroes
//     the rest; inactive elements count as 0 / the type's lowest / highest.
// half and bfloat16_t elements compute in float and round once, as the
// vector unit does. A form of the API this file does not implement fails at
// compile time with a message naming it.
// A VF function runs on the calling block's thread: registers are plain
// values, so the VF's sequential semantics are exactly C++'s.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "asc/kernel/compare_select.h"
#include "asc/kernel/qualifiers.h"

#ifndef __simd_vf__
#define __simd_vf__
#endif
#ifndef __simd_callee__
#define __simd_callee__
#endif

/// Calls the VF function F with args (CANN: launches it on the vector unit).
template <auto F, typename... Args>
inline void asc_vf_call(Args&&... args) {
  F(std::forward<Args>(args)...);
}

namespace AscendC {

/// The vector register width in bytes (VL) of dav-3510.
constexpr uint32_t GetVecLen() { return 256; }

enum class ReduceType { SUM = 0, MAX, MIN };

namespace Reg {

constexpr uint32_t kVL = 256;

enum class RegLayout { UNKNOWN = -1, ZERO, ONE, TWO, THREE };
enum class SatMode { UNKNOWN = -1, NO_SAT, SAT };
enum class IndexOrder { INCREASE_ORDER, DECREASE_ORDER };
enum class MaskMergeMode { UNKNOWN, MERGING, ZEROING };
enum class HighLowPart { LOWEST, HIGHEST };
enum class PostLiteral { POST_MODE_NORMAL, POST_MODE_UPDATE };
enum class MaskPattern { ALL, VL1, VL2, VL3, VL4, VL8, VL16, VL32, VL64, VL128, M3, M4, H, Q, ALLF = 15 };
enum class LoadDist {
  DIST_NORM, DIST_BRC_B8, DIST_BRC_B16, DIST_BRC_B32, DIST_US_B8 = 6, DIST_US_B16, DIST_DS_B8, DIST_DS_B16,
  DIST_BDINTLV, DIST_DINTLV_B8, DIST_DINTLV_B16, DIST_UNPACK_B8, DIST_UNPACK_B16, DIST_BLK, DIST_E2B_B16,
  DIST_E2B_B32, DIST_UNPACK_B32, DIST_DINTLV_B32, DIST_UNPACK4_B8, DIST_SPLT4CHN_B8, DIST_SPLT2CHN_B8,
  DIST_SPLT2CHN_B16,
};
enum class StoreDist {
  DIST_NORM_B8, DIST_NORM_B16, DIST_NORM_B32, DIST_FIRST_ELEMENT_B8, DIST_FIRST_ELEMENT_B16,
  DIST_FIRST_ELEMENT_B32, DIST_PACK_B16, DIST_PACK_B32, DIST_INTLV_B8, DIST_INTLV_B16, DIST_PACK_B64,
  DIST_INTLV_B32, DIST_PACK4_B32, DIST_MRG4CHN_B8, DIST_MRG2CHN_B8, DIST_MRG2CHN_B16, DIST_NORM
};
enum class MemType { VEC_STORE, VEC_LOAD, SCALAR_STORE, SCALAR_LOAD, VEC_ALL, SCALAR_ALL };
enum class DataCopyMode { DATA_BLOCK_COPY };
using ReduceType = ::AscendC::ReduceType;
struct DefaultType {};

struct RegTrait {
  int REG_NUM = 1;
};
constexpr RegTrait RegTraitNumOne = {1};
constexpr RegTrait RegTraitNumTwo = {2};

struct DivSpecificMode {
  MaskMergeMode mrgMode = MaskMergeMode::ZEROING;
  bool precisionMode = false;
};
struct ExpSpecificMode {
  MaskMergeMode mrgMode = MaskMergeMode::ZEROING;
};

/// One vector register of T (VL / sizeof(T) elements; RegTraitNumTwo: two).
template <typename T, const RegTrait& regTrait = RegTraitNumOne>
struct RegTensor {
  using ActualT = T;
  static constexpr RegTrait trait = regTrait;
  static constexpr int REG_NUM = regTrait.REG_NUM;
  static constexpr uint32_t kLanes = kVL / sizeof(T) * static_cast<uint32_t>(regTrait.REG_NUM);
  T v[kLanes] = {};
};

/// The predicate register: one bit per byte of a vector register.
struct MaskReg {
  uint8_t bits[kVL / 8] = {};
  bool Bit(uint32_t i) const { return (bits[i >> 3] >> (i & 7)) & 1u; }
  void SetBit(uint32_t i, bool on) {
    if (on) bits[i >> 3] |= uint8_t(1u << (i & 7));
    else bits[i >> 3] &= uint8_t(~(1u << (i & 7)));
  }
};

namespace detail {
template <typename T>
using calc_t = std::conditional_t<std::is_arithmetic_v<T>, T, float>;  // half/bfloat16 compute in float

template <typename U>
struct elem_of {
  using type = typename U::ActualT;
};

/// Element i of a T register is active: bit i*sizeof(T) (lanes beyond one
/// register of a RegTraitNumTwo tensor reuse the mask of the low half).
template <typename T>
inline bool active(const MaskReg& m, uint32_t i) {
  const uint32_t per = kVL / sizeof(T);
  return m.Bit((i % per) * sizeof(T));
}

template <typename T>
inline MaskReg first_n(uint32_t n) {
  MaskReg m;
  const uint32_t per = kVL / sizeof(T);
  for (uint32_t i = 0; i < per && i < n; ++i) m.SetBit(i * sizeof(T), true);
  return m;
}

template <auto mode>
constexpr MaskMergeMode merge_of() {
  if constexpr (std::is_same_v<std::decay_t<decltype(mode)>, MaskMergeMode>) {
    return mode == MaskMergeMode::MERGING ? MaskMergeMode::MERGING : MaskMergeMode::ZEROING;
  } else if constexpr (std::is_pointer_v<std::decay_t<decltype(mode)>>) {
    return mode->mrgMode == MaskMergeMode::MERGING ? MaskMergeMode::MERGING : MaskMergeMode::ZEROING;
  } else {
    return MaskMergeMode::ZEROING;
  }
}

/// dst[i] = f(i) for the active elements; the others zeroed or kept.
template <MaskMergeMode mode, typename R, typename F>
inline void apply(R& dst, const MaskReg& mask, F f) {
  using T = typename R::ActualT;
  T out[R::kLanes];
  for (uint32_t i = 0; i < R::kLanes; ++i) {
    if (active<T>(mask, i)) out[i] = static_cast<T>(f(i));
    else out[i] = mode == MaskMergeMode::MERGING ? dst.v[i] : T(0);
  }
  std::memcpy(dst.v, out, sizeof(out));
}

template <typename T>
inline calc_t<T> c(T x) {
  return static_cast<calc_t<T>>(x);
}
template <typename>
inline constexpr bool always_false = false;
}  // namespace detail

// ------------------------------------------------------------------ masks
template <typename T, MaskPattern mode = MaskPattern::ALL, const RegTrait& regTrait = RegTraitNumOne>
__simd_callee__ inline MaskReg CreateMask() {
  const uint32_t per = kVL / sizeof(T);
  switch (mode) {
    case MaskPattern::ALL: return detail::first_n<T>(per);
    case MaskPattern::VL1: return detail::first_n<T>(1);
    case MaskPattern::VL2: return detail::first_n<T>(2);
    case MaskPattern::VL3: return detail::first_n<T>(3);
    case MaskPattern::VL4: return detail::first_n<T>(4);
    case MaskPattern::VL8: return detail::first_n<T>(8);
    case MaskPattern::VL16: return detail::first_n<T>(16);
    case MaskPattern::VL32: return detail::first_n<T>(32);
    case MaskPattern::VL64: return detail::first_n<T>(64);
    case MaskPattern::VL128: return detail::first_n<T>(128);
    case MaskPattern::H: return detail::first_n<T>(per / 2);
    case MaskPattern::Q: return detail::first_n<T>(per / 4);
    case MaskPattern::M3:
    case MaskPattern::M4: {
      MaskReg m;
      const uint32_t k = mode == MaskPattern::M3 ? 3 : 4;
      for (uint32_t i = 0; i < per; i += k) m.SetBit(i * sizeof(T), true);
      return m;
    }
    case MaskPattern::ALLF: return MaskReg{};
  }
  return MaskReg{};
}

/// The first min(count, VL/sizeof(T)) elements; count -= VL/sizeof(T) (not below 0).
template <typename T, const RegTrait& regTrait = RegTraitNumOne>
__simd_callee__ inline MaskReg UpdateMask(uint32_t& scalarValue) {
  const uint32_t per = kVL / sizeof(T) * static_cast<uint32_t>(regTrait.REG_NUM);
  MaskReg m = detail::first_n<T>(scalarValue);
  scalarValue = scalarValue > per ? scalarValue - per : 0;
  return m;
}

__simd_callee__ inline void Not(MaskReg& dst, MaskReg& src, MaskReg& mask) {
  for (uint32_t i = 0; i < kVL / 8; ++i) dst.bits[i] = uint8_t(~src.bits[i] & mask.bits[i]);
}
__simd_callee__ inline void And(MaskReg& dst, MaskReg& a, MaskReg& b, MaskReg& mask) {
  for (uint32_t i = 0; i < kVL / 8; ++i) dst.bits[i] = uint8_t(a.bits[i] & b.bits[i] & mask.bits[i]);
}
__simd_callee__ inline void Or(MaskReg& dst, MaskReg& a, MaskReg& b, MaskReg& mask) {
  for (uint32_t i = 0; i < kVL / 8; ++i) dst.bits[i] = uint8_t((a.bits[i] | b.bits[i]) & mask.bits[i]);
}
__simd_callee__ inline void Xor(MaskReg& dst, MaskReg& a, MaskReg& b, MaskReg& mask) {
  for (uint32_t i = 0; i < kVL / 8; ++i) dst.bits[i] = uint8_t((a.bits[i] ^ b.bits[i]) & mask.bits[i]);
}
__simd_callee__ inline void Move(MaskReg& dst, MaskReg& src) { dst = src; }

// ------------------------------------------------------------------ UB <-> registers
/// A whole VL from UB (DIST_NORM), or one element broadcast (DIST_BRC_*).
template <typename T = DefaultType, LoadDist dist = LoadDist::DIST_NORM, typename U>
__simd_callee__ inline void LoadAlign(U& dstReg, __ubuf__ T* srcAddr) {
  if constexpr (std::is_same_v<std::decay_t<U>, MaskReg>) {
    static_assert(dist == LoadDist::DIST_NORM, "pyasc: Reg::LoadAlign of a MaskReg supports DIST_NORM only");
    std::memcpy(dstReg.bits, srcAddr, sizeof(dstReg.bits));
  } else {
    using E = typename U::ActualT;
    if constexpr (dist == LoadDist::DIST_NORM) {
      std::memcpy(dstReg.v, srcAddr, sizeof(dstReg.v));
    } else if constexpr (dist == LoadDist::DIST_BRC_B8 || dist == LoadDist::DIST_BRC_B16 ||
                         dist == LoadDist::DIST_BRC_B32) {
      E x;
      std::memcpy(&x, srcAddr, sizeof(E));
      for (auto& e : dstReg.v) e = x;
    } else {
      static_assert(detail::always_false<U>, "pyasc: this Reg::LoadAlign LoadDist is not implemented");
    }
  }
}

/// As LoadAlign, then srcAddr += postUpdateStride elements (POST_MODE_UPDATE).
template <typename T = DefaultType, PostLiteral postMode, LoadDist dist = LoadDist::DIST_NORM, typename U>
__simd_callee__ inline void LoadAlign(U& dstReg, __ubuf__ T*& srcAddr, int32_t postUpdateStride) {
  LoadAlign<T, dist>(dstReg, srcAddr);
  if constexpr (postMode == PostLiteral::POST_MODE_UPDATE) srcAddr += postUpdateStride;
}

/// Writes the active elements (DIST_NORM*), or element 0 (DIST_FIRST_ELEMENT_*).
template <typename T = DefaultType, StoreDist dist = StoreDist::DIST_NORM, typename U>
__simd_callee__ inline void StoreAlign(__ubuf__ T* dstAddr, U& srcReg, MaskReg& mask) {
  if constexpr (std::is_same_v<std::decay_t<U>, MaskReg>) {
    std::memcpy(dstAddr, srcReg.bits, sizeof(srcReg.bits));
  } else {
    using E = typename U::ActualT;
    E* out = reinterpret_cast<E*>(dstAddr);
    if constexpr (dist == StoreDist::DIST_NORM || dist == StoreDist::DIST_NORM_B8 ||
                  dist == StoreDist::DIST_NORM_B16 || dist == StoreDist::DIST_NORM_B32) {
      for (uint32_t i = 0; i < U::kLanes; ++i)
        if (detail::active<E>(mask, i)) out[i] = srcReg.v[i];
    } else if constexpr (dist == StoreDist::DIST_FIRST_ELEMENT_B8 || dist == StoreDist::DIST_FIRST_ELEMENT_B16 ||
                         dist == StoreDist::DIST_FIRST_ELEMENT_B32) {
      out[0] = srcReg.v[0];
    } else {
      static_assert(detail::always_false<U>, "pyasc: this Reg::StoreAlign StoreDist is not implemented");
    }
  }
}

template <typename T = DefaultType, PostLiteral postMode, StoreDist dist = StoreDist::DIST_NORM, typename U>
__simd_callee__ inline void StoreAlign(__ubuf__ T*& dstAddr, U& srcReg, int32_t postUpdateStride, MaskReg& mask) {
  StoreAlign<T, dist>(dstAddr, srcReg, mask);
  if constexpr (postMode == PostLiteral::POST_MODE_UPDATE) dstAddr += postUpdateStride;
}

/// Vector loads/stores and scalar accesses of one block are in program order
/// on the CPU: the barrier has nothing to order.
template <MemType src, MemType dst>
__simd_callee__ inline void LocalMemBar() {}

// ------------------------------------------------------------------ arithmetic
#define ASC_REG_BINARY(NAME, EXPR)                                                                 \
  template <typename T = DefaultType, auto mode = MaskMergeMode::ZEROING, typename U>             \
  __simd_callee__ inline void NAME(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask) {           \
    using E = typename U::ActualT;                                                               \
    detail::apply<detail::merge_of<mode>()>(dstReg, mask, [&](uint32_t i) {                       \
      const auto a = detail::c<E>(srcReg0.v[i]);                                                 \
      const auto b = detail::c<E>(srcReg1.v[i]);                                                 \
      return EXPR;                                                                               \
    });                                                                                          \
  }
ASC_REG_BINARY(Add, a + b)
ASC_REG_BINARY(Sub, a - b)
ASC_REG_BINARY(Mul, a * b)
ASC_REG_BINARY(Div, a / b)
ASC_REG_BINARY(Max, (a < b ? b : a))
ASC_REG_BINARY(Min, (b < a ? b : a))
ASC_REG_BINARY(AbsSub, (a < b ? b - a : a - b))
#undef ASC_REG_BINARY

/// dst = src0 * src1 + dst (MulAddDst) / dst = src0 * dst + src1 (MulDstAdd).
template <typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, typename U>
__simd_callee__ inline void MulAddDst(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask) {
  using E = typename U::ActualT;
  detail::apply<mode>(dstReg, mask, [&](uint32_t i) {
    return detail::c<E>(srcReg0.v[i]) * detail::c<E>(srcReg1.v[i]) + detail::c<E>(dstReg.v[i]);
  });
}

#define ASC_REG_SCALAR(NAME, EXPR)                                                                       \
  template <typename T = DefaultType, typename U, MaskMergeMode mode = MaskMergeMode::ZEROING, typename S> \
  __simd_callee__ inline void NAME(S& dstReg, S& srcReg, U scalarValue, MaskReg& mask) {                  \
    using E = typename S::ActualT;                                                                        \
    const auto b = detail::c<E>(static_cast<E>(scalarValue));                                             \
    detail::apply<mode>(dstReg, mask, [&](uint32_t i) {                                                   \
      const auto a = detail::c<E>(srcReg.v[i]);                                                           \
      return EXPR;                                                                                        \
    });                                                                                                   \
  }
ASC_REG_SCALAR(Adds, a + b)
ASC_REG_SCALAR(Muls, a * b)
ASC_REG_SCALAR(Maxs, (a < b ? b : a))
ASC_REG_SCALAR(Mins, (b < a ? b : a))
ASC_REG_SCALAR(LeakyRelu, (a < decltype(a)(0) ? a * b : a))
#undef ASC_REG_SCALAR

#define ASC_REG_UNARY(NAME, EXPR)                                                     \
  template <typename T = DefaultType, auto mode = MaskMergeMode::ZEROING, typename U> \
  __simd_callee__ inline void NAME(U& dstReg, U& srcReg, MaskReg& mask) {             \
    using E = typename U::ActualT;                                                    \
    detail::apply<detail::merge_of<mode>()>(dstReg, mask, [&](uint32_t i) {           \
      const auto a = detail::c<E>(srcReg.v[i]);                                       \
      return EXPR;                                                                    \
    });                                                                               \
  }
ASC_REG_UNARY(Abs, (a < decltype(a)(0) ? -a : a))
ASC_REG_UNARY(Neg, -a)
ASC_REG_UNARY(Relu, (a > decltype(a)(0) ? a : decltype(a)(0)))
ASC_REG_UNARY(Exp, std::exp(a))
ASC_REG_UNARY(Sqrt, std::sqrt(a))
ASC_REG_UNARY(Ln, std::log(a))
ASC_REG_UNARY(Log, std::log(a))
ASC_REG_UNARY(Log2, std::log2(a))
ASC_REG_UNARY(Log10, std::log10(a))
#undef ASC_REG_UNARY

/// Rounds each active floating-point element to an integral value of the
/// same type (RINT / CAST_NONE: nearest, ties to even; ROUND: ties away from
/// zero; FLOOR; CEIL; TRUNC). MERGING is not supported by the hardware.
template <typename T = DefaultType, RoundMode roundMode = RoundMode::CAST_NONE,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S>
__simd_callee__ inline void Truncate(S& dstReg, S& srcReg, MaskReg& mask) {
  using E = typename S::ActualT;
  static_assert(!std::is_integral_v<E>, "pyasc: Reg::Truncate takes floating-point registers (half/bfloat16/float)");
  static_assert(mode == MaskMergeMode::ZEROING, "pyasc: Reg::Truncate supports MaskMergeMode::ZEROING only (as CANN)");
  static_assert(roundMode != RoundMode::CAST_ODD, "pyasc: Reg::Truncate has no CAST_ODD mode");
  detail::apply<mode>(dstReg, mask, [&](uint32_t i) {
    const auto a = detail::c<E>(srcReg.v[i]);
    if constexpr (roundMode == RoundMode::CAST_FLOOR) return std::floor(a);
    else if constexpr (roundMode == RoundMode::CAST_CEIL) return std::ceil(a);
    else if constexpr (roundMode == RoundMode::CAST_TRUNC) return std::trunc(a);
    else if constexpr (roundMode == RoundMode::CAST_ROUND) return std::round(a);
    else return std::nearbyint(a);  // the default FE_TONEAREST: ties to even
  });
}

/// dst = exp(src0 - src1), computed in float (half inputs widen first).
template <typename T = DefaultType, typename U = DefaultType, RegLayout layout = RegLayout::ZERO,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S, typename V>
__simd_callee__ inline void ExpSub(S& dstReg, V& srcReg0, V& srcReg1, MaskReg& mask) {
  static_assert(std::is_same_v<typename S::ActualT, typename V::ActualT>,
                "pyasc: Reg::ExpSub with a wider dst (RegLayout) is not implemented");
  detail::apply<mode>(dstReg, mask, [&](uint32_t i) {
    return std::exp(static_cast<float>(srcReg0.v[i]) - static_cast<float>(srcReg1.v[i]));
  });
}

// ------------------------------------------------------------------ fill, select, compare
template <typename T = DefaultType, typename U, typename S>
__simd_callee__ inline void Duplicate(S& dstReg, U scalarValue) {
  using E = typename S::ActualT;
  for (auto& e : dstReg.v) e = static_cast<E>(scalarValue);
}
template <typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, typename U, typename S,
          std::enable_if_t<!std::is_same_v<std::decay_t<U>, S>, int> = 0>
__simd_callee__ inline void Duplicate(S& dstReg, U scalarValue, MaskReg& mask) {
  using E = typename S::ActualT;
  const E x = static_cast<E>(scalarValue);
  detail::apply<mode>(dstReg, mask, [&](uint32_t) { return x; });
}
/// Broadcasts element 0 (LOWEST) or the last element (HIGHEST) of srcReg.
template <typename T = DefaultType, HighLowPart pos = HighLowPart::LOWEST, MaskMergeMode mode = MaskMergeMode::ZEROING,
          typename S>
__simd_callee__ inline void Duplicate(S& dstReg, S& srcReg, MaskReg& mask) {
  const auto x = srcReg.v[pos == HighLowPart::LOWEST ? 0 : S::kLanes - 1];
  detail::apply<mode>(dstReg, mask, [&](uint32_t) { return x; });
}

/// dst[i] = mask(i) ? src0[i] : src1[i] for every element.
template <typename T = DefaultType, typename U>
__simd_callee__ inline void Select(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask) {
  using E = typename U::ActualT;
  for (uint32_t i = 0; i < U::kLanes; ++i) dstReg.v[i] = detail::active<E>(mask, i) ? srcReg0.v[i] : srcReg1.v[i];
}

namespace detail {
template <CMPMODE mode, typename A, typename B>
inline bool cmp(A a, B b) {
  switch (mode) {
    case CMPMODE::LT: return a < b;
    case CMPMODE::GT: return a > b;
    case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b;
    case CMPMODE::GE: return a >= b;
    case CMPMODE::NE: return a != b;
  }
  return false;
}
}  // namespace detail

/// dst's bit of element i = mask(i) && (src0[i] <mode> src1[i]).
template <typename T = DefaultType, CMPMODE mode = CMPMODE::EQ, typename U>
__simd_callee__ inline void Compare(MaskReg& dst, U& srcReg0, U& srcReg1, MaskReg& mask) {
  using E = typename U::ActualT;
  MaskReg out;
  for (uint32_t i = 0; i < U::kLanes; ++i)
    out.SetBit(i * sizeof(E), detail::active<E>(mask, i) &&
                                  detail::cmp<mode>(detail::c<E>(srcReg0.v[i]), detail::c<E>(srcReg1.v[i])));
  dst = out;
}
template <typename T = DefaultType, CMPMODE mode = CMPMODE::EQ, typename U, typename S>
__simd_callee__ inline void Compares(MaskReg& dst, U& srcReg, S scalarValue, MaskReg& mask) {
  using E = typename U::ActualT;
  const auto b = detail::c<E>(static_cast<E>(scalarValue));
  MaskReg out;
  for (uint32_t i = 0; i < U::kLanes; ++i)
    out.SetBit(i * sizeof(E), detail::active<E>(mask, i) && detail::cmp<mode>(detail::c<E>(srcReg.v[i]), b));
  dst = out;
}

/// dst[i] = scalar + i (INCREASE_ORDER) or scalar - i (DECREASE_ORDER).
template <typename T = DefaultType, IndexOrder order = IndexOrder::INCREASE_ORDER, typename U, typename S>
__simd_callee__ inline void Arange(S& dstReg, U scalarValue) {
  using E = typename S::ActualT;
  for (uint32_t i = 0; i < S::kLanes; ++i) {
    const auto base = detail::c<E>(static_cast<E>(scalarValue));
    dstReg.v[i] = static_cast<E>(order == IndexOrder::INCREASE_ORDER ? base + decltype(base)(i)
                                                                     : base - decltype(base)(i));
  }
}

// ------------------------------------------------------------------ reductions
/// Element 0 = the reduction of the active elements (a pairwise tree, as the
/// hardware adds); MAX/MIN: element 1 = the first extreme's index, stored as
/// the bits of dst's type. Every other element is 0.
template <ReduceType type = ReduceType::SUM, typename T = DefaultType, typename U = DefaultType,
          MaskMergeMode mode = MaskMergeMode::ZEROING, typename S, typename V>
__simd_callee__ inline void Reduce(S& dstReg, V srcReg, MaskReg mask) {
  using D = typename S::ActualT;
  using E = typename V::ActualT;
  using C = detail::calc_t<D>;
  S out;
  if constexpr (type == ReduceType::SUM) {
    C acc[V::kLanes];
    for (uint32_t i = 0; i < V::kLanes; ++i)
      acc[i] = detail::active<E>(mask, i) ? static_cast<C>(detail::c<E>(srcReg.v[i])) : C(0);
    for (uint32_t n = V::kLanes; n > 1; n /= 2)
      for (uint32_t i = 0; i < n / 2; ++i) acc[i] = acc[2 * i] + acc[2 * i + 1];
    out.v[0] = static_cast<D>(acc[0]);
  } else {
    using CE = detail::calc_t<E>;
    CE best = type == ReduceType::MAX ? std::numeric_limits<CE>::lowest() : std::numeric_limits<CE>::max();
    if constexpr (std::is_floating_point_v<CE>) {
      if (type == ReduceType::MAX) best = -std::numeric_limits<CE>::infinity();
      else best = std::numeric_limits<CE>::infinity();
    }
    uint32_t at = 0;
    bool any = false;
    for (uint32_t i = 0; i < V::kLanes; ++i) {
      if (!detail::active<E>(mask, i)) continue;
      const CE x = detail::c<E>(srcReg.v[i]);
      const bool better = type == ReduceType::MAX ? (x > best) : (x < best);
      if (!any || better) {
        best = x;
        at = i;
        any = true;
      }
    }
    out.v[0] = static_cast<D>(best);
    if constexpr (sizeof(D) == 4) {
      const uint32_t idx = at;
      std::memcpy(&out.v[1], &idx, sizeof(D));
    } else if constexpr (sizeof(D) == 2) {
      const uint16_t idx = static_cast<uint16_t>(at);
      std::memcpy(&out.v[1], &idx, sizeof(D));
    } else {
      out.v[1] = static_cast<D>(at);
    }
  }
  dstReg = out;
}

// ------------------------------------------------------------------ data-block / pair reductions
enum class PairReduce { SUM };

/// dst[k] = the reduction of 32-byte block k of src (active elements; SUM
/// as a pairwise tree, inactive count as 0; MAX/MIN over the active ones,
/// the type's lowest/highest when none) for the register's 8 blocks; the
/// other elements 0.
template <ReduceType type = ReduceType::SUM, typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING,
          typename U>
__simd_callee__ inline void ReduceDataBlock(U& dstReg, U srcReg, MaskReg mask) {
  using E = typename U::ActualT;
  using C = detail::calc_t<E>;
  constexpr uint32_t per = 32 / sizeof(E);
  U out{};
  for (uint32_t k = 0; k < 8; ++k) {
    C acc[per];
    for (uint32_t e = 0; e < per; ++e) {
      const uint32_t i = k * per + e;
      const bool on = detail::active<E>(mask, i);
      const C x = static_cast<C>(detail::c<E>(srcReg.v[i]));
      if constexpr (type == ReduceType::SUM) acc[e] = on ? x : C(0);
      else if constexpr (type == ReduceType::MAX) acc[e] = on ? x : std::numeric_limits<C>::lowest();
      else acc[e] = on ? x : std::numeric_limits<C>::max();
    }
    for (uint32_t n = per; n > 1; n /= 2)
      for (uint32_t e = 0; e < n / 2; ++e) {
        if constexpr (type == ReduceType::SUM) acc[e] = acc[2 * e] + acc[2 * e + 1];
        else if constexpr (type == ReduceType::MAX) acc[e] = acc[2 * e] < acc[2 * e + 1] ? acc[2 * e + 1] : acc[2 * e];
        else acc[e] = acc[2 * e + 1] < acc[2 * e] ? acc[2 * e + 1] : acc[2 * e];
      }
    out.v[k] = static_cast<E>(acc[0]);
  }
  dstReg = out;
}

/// dst[j] = src[2j] + src[2j+1] (inactive elements count as 0) for the low
/// half of the elements; the high half 0.
template <PairReduce type = PairReduce::SUM, typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING,
          typename U>
__simd_callee__ inline void PairReduceElem(U& dstReg, U srcReg, MaskReg mask) {
  using E = typename U::ActualT;
  using C = detail::calc_t<E>;
  U out{};
  for (uint32_t j = 0; j < U::kLanes / 2; ++j) {
    const C a = detail::active<E>(mask, 2 * j) ? static_cast<C>(detail::c<E>(srcReg.v[2 * j])) : C(0);
    const C b = detail::active<E>(mask, 2 * j + 1) ? static_cast<C>(detail::c<E>(srcReg.v[2 * j + 1])) : C(0);
    out.v[j] = static_cast<E>(a + b);
  }
  dstReg = out;
}

}  // namespace Reg
}  // namespace AscendC
