// CANN's register C API of dav-3510 (c_api/reg_compute/*.h): the vector
// register types and the load / store / arithmetic functions the
// reg_vector_compute samples use, over pyasc's register API
// (asc/kernel/reg_api.h: AscendC::Reg::RegTensor / MaskReg). Included by
// c_api/asc_simd.h. A VF function runs on the block's thread: registers are
// plain values (see reg_api.h).
//
// Thread-safety: registers are values; no shared state.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include <string>
#include <type_traits>

#include "asc/kernel/context.h"
#include "asc/kernel/reg_api.h"

using vector_bool = AscendC::Reg::MaskReg;
using vector_int8_t = AscendC::Reg::RegTensor<int8_t>;
using vector_uint8_t = AscendC::Reg::RegTensor<uint8_t>;
using vector_int16_t = AscendC::Reg::RegTensor<int16_t>;
using vector_uint16_t = AscendC::Reg::RegTensor<uint16_t>;
using vector_int32_t = AscendC::Reg::RegTensor<int32_t>;
using vector_uint32_t = AscendC::Reg::RegTensor<uint32_t>;
using vector_int64_t = AscendC::Reg::RegTensor<int64_t>;
using vector_uint64_t = AscendC::Reg::RegTensor<uint64_t>;
using vector_half = AscendC::Reg::RegTensor<half>;
using vector_bfloat16_t = AscendC::Reg::RegTensor<bfloat16_t>;
using vector_float = AscendC::Reg::RegTensor<float>;

/// Bytes of one vector register.
constexpr int64_t asc_get_vf_len() { return AscendC::Reg::kVL; }

/// The first min(value, lanes) lanes of a b8 / b16 / b32 register; value -= lanes.
__simd_callee__ inline vector_bool asc_update_mask_b8(uint32_t& value) { return AscendC::Reg::UpdateMask<uint8_t>(value); }
__simd_callee__ inline vector_bool asc_update_mask_b16(uint32_t& value) {
  return AscendC::Reg::UpdateMask<uint16_t>(value);
}
__simd_callee__ inline vector_bool asc_update_mask_b32(uint32_t& value) {
  return AscendC::Reg::UpdateMask<uint32_t>(value);
}

template <typename T>
__simd_callee__ inline void asc_loadalign(AscendC::Reg::RegTensor<T>& dst, __ubuf__ T* src) {
  AscendC::Reg::LoadAlign<T>(dst, src);
}
template <typename T>
__simd_callee__ inline void asc_storealign(__ubuf__ T* dst, AscendC::Reg::RegTensor<T> src, vector_bool mask) {
  AscendC::Reg::StoreAlign<T>(dst, src, mask);
}

/// asc_load / asc_store: a whole register (CANN's unmasked forms).
template <typename T>
__simd_callee__ inline void asc_load(AscendC::Reg::RegTensor<T>& dst, __ubuf__ T* src) {
  AscendC::Reg::LoadAlign<T>(dst, src);
}
template <typename T>
__simd_callee__ inline void asc_store(__ubuf__ T* dst, AscendC::Reg::RegTensor<T> src) {
  std::memcpy(dst, src.v, sizeof(src.v));
}

namespace asc::c_api {
// dst = f(element) over the mask's active lanes, zero elsewhere (ZEROING, as
// CANN's default merge mode).
template <typename T, typename F>
inline void reg_map(AscendC::Reg::RegTensor<T>& dst, const vector_bool& mask, F f) {
  AscendC::Reg::detail::apply<AscendC::Reg::MaskMergeMode::ZEROING>(dst, mask, f);
}
template <typename T>
using calc = AscendC::Reg::detail::calc_t<T>;
}  // namespace asc::c_api

// The arithmetic functions forward to the Reg API (one semantics: the
// element expressions, the half/bfloat16 widening and the ZEROING merge of
// inactive lanes live in asc/kernel/reg_api.h only). The C API passes its
// registers by value, so the copies are the lvalues the Reg API binds.
#define ASC_C_REG_UNARY(NAME, REG)                                                                   \
  template <typename T>                                                                              \
  __simd_callee__ inline void NAME(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,  \
                                   vector_bool mask) {                                               \
    AscendC::Reg::REG(dst, src, mask);                                                               \
  }
ASC_C_REG_UNARY(asc_abs, Abs)
ASC_C_REG_UNARY(asc_neg, Neg)
ASC_C_REG_UNARY(asc_relu, Relu)
ASC_C_REG_UNARY(asc_exp, Exp)
ASC_C_REG_UNARY(asc_sqrt, Sqrt)
ASC_C_REG_UNARY(asc_ln, Ln)
#undef ASC_C_REG_UNARY

/// Floating-point elements rounded toward -Inf / +Inf, same type (Reg::Truncate).
template <typename T>
__simd_callee__ inline void asc_floor(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                      vector_bool mask) {
  AscendC::Reg::Truncate<T, AscendC::RoundMode::CAST_FLOOR>(dst, src, mask);
}
template <typename T>
__simd_callee__ inline void asc_ceil(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                     vector_bool mask) {
  AscendC::Reg::Truncate<T, AscendC::RoundMode::CAST_CEIL>(dst, src, mask);
}

#define ASC_C_REG_BINARY(NAME, REG)                                                                  \
  template <typename T>                                                                              \
  __simd_callee__ inline void NAME(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src0, \
                                   AscendC::Reg::RegTensor<T> src1, vector_bool mask) {              \
    AscendC::Reg::REG(dst, src0, src1, mask);                                                        \
  }
ASC_C_REG_BINARY(asc_add, Add)
ASC_C_REG_BINARY(asc_sub, Sub)
ASC_C_REG_BINARY(asc_mul, Mul)
ASC_C_REG_BINARY(asc_div, Div)
ASC_C_REG_BINARY(asc_max, Max)
ASC_C_REG_BINARY(asc_min, Min)
#undef ASC_C_REG_BINARY

#define ASC_C_REG_SCALAR(NAME, REG)                                                                  \
  template <typename T, typename S>                                                                  \
  __simd_callee__ inline void NAME(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,  \
                                   S value, vector_bool mask) {                                      \
    AscendC::Reg::REG(dst, src, value, mask);                                                        \
  }
ASC_C_REG_SCALAR(asc_add_scalar, Adds)
ASC_C_REG_SCALAR(asc_mul_scalar, Muls)
ASC_C_REG_SCALAR(asc_max_scalar, Maxs)
ASC_C_REG_SCALAR(asc_min_scalar, Mins)
#undef ASC_C_REG_SCALAR

/// dst = value on the active lanes (zero elsewhere).
template <typename T, typename S>
__simd_callee__ inline void asc_duplicate_scalar(AscendC::Reg::RegTensor<T>& dst, S value, vector_bool mask) {
  AscendC::Reg::Duplicate(dst, value, mask);
}

/// dst = value on every lane.
template <typename T, typename S>
__simd_callee__ inline void asc_duplicate_scalar(AscendC::Reg::RegTensor<T>& dst, S value) {
  AscendC::Reg::Duplicate(dst, value);
}

/// dst[i] = value + i.
template <typename T, typename S>
__simd_callee__ inline void asc_arange(AscendC::Reg::RegTensor<T>& dst, S value) {
  AscendC::Reg::Arange(dst, value);
}

// Mask patterns of asc_create_mask_b8/b16/b32 (CANN's pat_mode values).
enum asc_mask_pattern : int {
  PAT_ALL = 0, PAT_VL1, PAT_VL2, PAT_VL3, PAT_VL4, PAT_VL8, PAT_VL16, PAT_VL32, PAT_VL64, PAT_VL128,
  PAT_M3, PAT_M4, PAT_H, PAT_Q, PAT_ALLF = 15
};

namespace asc::c_api {
template <typename T>
inline vector_bool create_mask(int pat) {
  using AscendC::Reg::CreateMask;
  using P = AscendC::Reg::MaskPattern;
  switch (pat) {
    case PAT_ALL: return CreateMask<T, P::ALL>();
    case PAT_VL1: return CreateMask<T, P::VL1>();
    case PAT_VL2: return CreateMask<T, P::VL2>();
    case PAT_VL3: return CreateMask<T, P::VL3>();
    case PAT_VL4: return CreateMask<T, P::VL4>();
    case PAT_VL8: return CreateMask<T, P::VL8>();
    case PAT_VL16: return CreateMask<T, P::VL16>();
    case PAT_VL32: return CreateMask<T, P::VL32>();
    case PAT_VL64: return CreateMask<T, P::VL64>();
    case PAT_VL128: return CreateMask<T, P::VL128>();
    case PAT_M3: return CreateMask<T, P::M3>();
    case PAT_M4: return CreateMask<T, P::M4>();
    case PAT_H: return CreateMask<T, P::H>();
    case PAT_Q: return CreateMask<T, P::Q>();
    case PAT_ALLF: return CreateMask<T, P::ALLF>();
    default:
      ::asc::kernel::fail(ErrorCode::kInvalidParam, "asc_create_mask",
                          "pattern " + std::to_string(pat) + " is not one of PAT_ALL .. PAT_Q, PAT_ALLF");
  }
}
}  // namespace asc::c_api

__simd_callee__ inline vector_bool asc_create_mask_b8(int pat) { return ::asc::c_api::create_mask<uint8_t>(pat); }
__simd_callee__ inline vector_bool asc_create_mask_b16(int pat) { return ::asc::c_api::create_mask<uint16_t>(pat); }
__simd_callee__ inline vector_bool asc_create_mask_b32(int pat) { return ::asc::c_api::create_mask<uint32_t>(pat); }

// ---- compare / select / reduce / merge-copy / post-update loads

#define ASC_C_REG_CMP(NAME, MODE)                                                                     \
  template <typename T>                                                                               \
  __simd_callee__ inline void NAME(vector_bool& dst, AscendC::Reg::RegTensor<T> src0,                 \
                                   AscendC::Reg::RegTensor<T> src1, vector_bool mask) {               \
    AscendC::Reg::Compare<T, AscendC::CMPMODE::MODE>(dst, src0, src1, mask);                          \
  }                                                                                                   \
  template <typename T, typename S>                                                                   \
  __simd_callee__ inline void NAME##_scalar(vector_bool& dst, AscendC::Reg::RegTensor<T> src, S value, \
                                            vector_bool mask) {                                       \
    AscendC::Reg::Compares<T, AscendC::CMPMODE::MODE>(dst, src, value, mask);                         \
  }
ASC_C_REG_CMP(asc_gt, GT)
ASC_C_REG_CMP(asc_ge, GE)
ASC_C_REG_CMP(asc_lt, LT)
ASC_C_REG_CMP(asc_le, LE)
ASC_C_REG_CMP(asc_eq, EQ)
ASC_C_REG_CMP(asc_ne, NE)
#undef ASC_C_REG_CMP

/// dst[i] = mask(i) ? src0[i] : src1[i].
template <typename T>
__simd_callee__ inline void asc_select(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src0,
                                       AscendC::Reg::RegTensor<T> src1, vector_bool mask) {
  AscendC::Reg::Select(dst, src0, src1, mask);
}

/// Element 0 = the sum of the active elements (pairwise, as reg_api's Reduce); the rest 0.
template <typename T>
__simd_callee__ inline void asc_reduce_sum(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                           vector_bool mask) {
  AscendC::Reg::Reduce<AscendC::Reg::ReduceType::SUM>(dst, src, mask);
}
template <typename T>
__simd_callee__ inline void asc_reduce_max(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                           vector_bool mask) {
  AscendC::Reg::Reduce<AscendC::Reg::ReduceType::MAX>(dst, src, mask);
}
template <typename T>
__simd_callee__ inline void asc_reduce_min(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                           vector_bool mask) {
  AscendC::Reg::Reduce<AscendC::Reg::ReduceType::MIN>(dst, src, mask);
}

/// The active elements of src; the inactive ones of dst are kept (merging).
template <typename T>
__simd_callee__ inline void asc_copy(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                     vector_bool mask) {
  for (uint32_t i = 0; i < AscendC::Reg::RegTensor<T>::kLanes; ++i)
    if (AscendC::Reg::detail::active<T>(mask, i)) dst.v[i] = src.v[i];
}

/// Load, then src += offset elements; for a mask register (32 bytes of
/// predicate bits) the offset counts bytes, whatever src's type (as the
/// select sample steps a uint32_t pointer by VL / 8).
template <typename R, typename T>
__simd_callee__ inline void asc_loadalign_postupdate(R& dst, __ubuf__ T*& src, int32_t offset) {
  AscendC::Reg::LoadAlign<T>(dst, src);
  if constexpr (std::is_same_v<R, vector_bool>) {
    src = reinterpret_cast<T*>(reinterpret_cast<uint8_t*>(src) + offset);
  } else {
    src += offset;
  }
}
template <typename T>
__simd_callee__ inline void asc_storealign_postupdate(__ubuf__ T*& dst, AscendC::Reg::RegTensor<T> src,
                                                      int32_t offset, vector_bool mask) {
  AscendC::Reg::StoreAlign<T>(dst, src, mask);
  dst += offset;
}

// ---- gathers

/// Register form: dst[i] = src[index[i]] (an index beyond the register's
/// lanes is a kernel error naming it).
template <typename T, typename I>
__simd_callee__ inline void asc_gather(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                       AscendC::Reg::RegTensor<I> index) {
  constexpr uint32_t lanes = AscendC::Reg::RegTensor<T>::kLanes;
  for (uint32_t i = 0; i < lanes && i < AscendC::Reg::RegTensor<I>::kLanes; ++i) {
    const auto k = static_cast<uint64_t>(index.v[i]);
    if (k >= lanes)
      ::asc::kernel::fail(::asc::ErrorCode::kIndexOutOfRange, "asc_gather",
                          "index " + std::to_string(k) + " at lane " + std::to_string(i) + " is outside the " +
                              std::to_string(lanes) + " lanes of the source register");
    dst.v[i] = src.v[k];
  }
}

/// UB form: dst[i] = src[index[i]] (elements of src's type, converted to
/// dst's) on the active lanes, 0 elsewhere.
template <typename D, typename S, typename I>
__simd_callee__ inline void asc_gather(AscendC::Reg::RegTensor<D>& dst, __ubuf__ S* src,
                                       AscendC::Reg::RegTensor<I> index, vector_bool mask) {
  ::asc::c_api::reg_map(dst, mask, [&](uint32_t i) { return static_cast<D>(src[index.v[i]]); });
}

/// The active elements of src, in order, packed to the front of dst; the
/// remaining lanes 0.
template <typename T>
__simd_callee__ inline void asc_squeeze(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                        vector_bool mask) {
  AscendC::Reg::RegTensor<T> out{};
  uint32_t n = 0;
  for (uint32_t i = 0; i < AscendC::Reg::RegTensor<T>::kLanes; ++i)
    if (AscendC::Reg::detail::active<T>(mask, i)) out.v[n++] = src.v[i];
  dst = out;
}

/// dst[j] = src[2j] + src[2j+1] (inactive elements count as 0) for the first
/// half of the lanes; the second half 0 (Reg::PairReduceElem).
template <typename T>
__simd_callee__ inline void asc_pair_reduce_sum(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                                vector_bool mask) {
  AscendC::Reg::PairReduceElem<AscendC::Reg::PairReduce::SUM>(dst, src, mask);
}

/// dst[k] = the sum of 32-byte block k of src (a pairwise tree) for the 8
/// blocks of the register; the other lanes 0 (Reg::ReduceDataBlock).
template <typename T>
__simd_callee__ inline void asc_reduce_sum_datablock(AscendC::Reg::RegTensor<T>& dst, AscendC::Reg::RegTensor<T> src,
                                                     vector_bool mask) {
  AscendC::Reg::ReduceDataBlock<AscendC::Reg::ReduceType::SUM>(dst, src, mask);
}

/// Histogram of uint8 values, accumulated into 16-bit counters: bin0 counts
/// the values 0..127 (dst lane v), bin1 the values 128..255 (lane v - 128),
/// over src's active lanes; counts wrap at 2^16 as the 16-bit lanes do.
namespace asc::c_api {
inline void histogram(vector_uint16_t& dst, const vector_uint8_t& src, const vector_bool& mask, uint32_t base) {
  for (uint32_t i = 0; i < vector_uint8_t::kLanes; ++i) {
    if (!AscendC::Reg::detail::active<uint8_t>(mask, i)) continue;
    const uint32_t v = src.v[i];
    if (v >= base && v < base + vector_uint16_t::kLanes) dst.v[v - base] = static_cast<uint16_t>(dst.v[v - base] + 1);
  }
}
}  // namespace asc::c_api
__simd_callee__ inline void asc_frequency_histogram_bin0(vector_uint16_t& dst, vector_uint8_t src, vector_bool mask) {
  ::asc::c_api::histogram(dst, src, mask, 0);
}
__simd_callee__ inline void asc_frequency_histogram_bin1(vector_uint16_t& dst, vector_uint8_t src, vector_bool mask) {
  ::asc::c_api::histogram(dst, src, mask, 128);
}
