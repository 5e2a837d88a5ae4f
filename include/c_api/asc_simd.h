// CANN's C API of the SIMD kernel language (c_api/asc_simd.h, the samples of
// examples/02_simd_c_api): the part for dav-2201 vector kernels that the
// official "add" samples use.
//
// Names, argument orders and meanings follow CANN's c_api headers and
// docs/zh/api/SIMD-API/C-API; the implementation is pyasc's own, on the CPU:
//
// * Local buffers are the kernel's own `__ubuf__` arrays (on the thread's
//   stack here); copies are memcpy in the burst layout CANN documents:
//   n_burst bursts of len_burst 32-byte blocks, gaps (src_gap / dst_gap) of
//   32-byte blocks between bursts.
// * Vector instructions: the count form (`count` elements), the repeat form
//   (repeat x 256 bytes, block strides and repeat strides in 32-byte blocks,
//   lanes of the vector mask register: asc_set_vector_mask /
//   asc_set_mask_count and _norm share AscendC's register, so mixed code
//   agrees) and the `_sync` form (the count form; the CPU is synchronous).
// * Synchronisation (asc_sync*, asc_sync_notify / wait / pipe): a block runs
//   its instructions in program order on the CPU device, so they order
//   nothing; they are accepted with CANN's arguments.
//
// * The dav-3510 register part (vector_float & co., asc_loadalign,
//   asc_storealign, asc_update_mask_b*, unary / binary / scalar register
//   instructions): c_api/reg_compute.h. The aligned copies
//   asc_copy_gm2ub_align / asc_copy_ub2gm_align: byte counts; in the burst
//   form the UB side's stride is in 32-byte blocks and GM's in bytes (gaps
//   between bursts), as DataCopyPad's.
//
// Not here yet (issue 16): the cube C API (asc_copy_gm2l1*, asc_mmad*,
// asc_copy_l0c2gm*), padding copies, masks by pattern (asc_create_mask_*),
// compare / select / reduce / gather / cast register instructions, and the
// vector-unit unary, scalar, compare and reduce instructions. A sample using
// them fails to compile naming the function.
//
// Thread-safety: per block (one block runs on one thread).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <string>

#include "c_api/reg_compute.h"
#include "kernel_operator.h"

// ---------------------------------------------------------------- system values

inline int64_t asc_get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t asc_get_block_num() { return AscendC::GetBlockNum(); }
inline int64_t asc_get_sub_block_idx() { return AscendC::GetSubBlockIdx(); }
inline int64_t asc_get_sub_block_id() { return AscendC::GetSubBlockIdx(); }
inline int64_t asc_get_sub_block_num() { return AscendC::GetSubBlockNum(); }
inline int64_t asc_get_system_cycle() { return AscendC::GetSystemCycle(); }
inline int64_t asc_get_core_id() {
  const auto* b = ::asc::runtime::current_block();
  return b ? b->core_id : 0;
}

/// Kernel start: the vector mask register back to all lanes, normal mode.
inline void asc_init() {
  auto& m = ::asc::kernel::detail::mask_register();
  m.bits[0] = m.bits[1] = ~uint64_t{0};
  m.counter = false;
}

// ---------------------------------------------------------------- synchronisation

inline void asc_sync() {}
inline void asc_sync_vec() {}
inline void asc_sync_mte2(int /*id*/) {}
inline void asc_sync_mte3(int /*id*/) {}
namespace asc::c_api {
inline void sync_notify(int /*pipe*/, int /*tpipe*/, int /*id*/) {}
inline void sync_wait(int /*pipe*/, int /*tpipe*/, int /*id*/) {}
inline void sync_pipe(int /*pipe*/) {}
}  // namespace asc::c_api
// CANN defines these three as macros too (the pipes are pipe_t values).
#define asc_sync_notify(pipe, tpipe, id) ::asc::c_api::sync_notify((pipe), (tpipe), (id))
#define asc_sync_wait(pipe, tpipe, id) ::asc::c_api::sync_wait((pipe), (tpipe), (id))
#define asc_sync_pipe(pipe) ::asc::c_api::sync_pipe((pipe))

// ---------------------------------------------------------------- vector mask

inline void asc_set_vector_mask(uint64_t mask1, uint64_t mask0) { AscendC::SetVectorMask<float>(mask1, mask0); }
inline void asc_set_mask_count() { AscendC::SetMaskCount(); }
inline void asc_set_mask_norm() { AscendC::SetMaskNorm(); }

// ---------------------------------------------------------------- data movement

namespace asc::c_api {

constexpr uint32_t kBlock = 32;  // bytes of one data block

inline void check_ptrs(const char* op, const void* dst, const void* src) {
  if (!dst || !src)
    ::asc::kernel::fail(ErrorCode::kInvalidParam, op, std::string("null ") + (dst ? "source" : "destination"));
}

inline void copy_bytes(const char* op, void* dst, const void* src, uint32_t size) {
  if (size == 0) return;
  check_ptrs(op, dst, src);
  std::memmove(dst, src, size);
}

// n_burst bursts of len_burst blocks; gaps between bursts in blocks.
inline void copy_bursts(const char* op, void* dst, const void* src, uint32_t n_burst, uint32_t len_burst,
                        uint32_t src_gap, uint32_t dst_gap) {
  if (n_burst == 0 || len_burst == 0) return;
  check_ptrs(op, dst, src);
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  const uint64_t len = uint64_t{len_burst} * kBlock;
  for (uint32_t i = 0; i < n_burst; ++i) {
    std::memmove(d, s, len);
    d += len + uint64_t{dst_gap} * kBlock;
    s += len + uint64_t{src_gap} * kBlock;
  }
}

}  // namespace asc::c_api

inline void asc_copy_gm2ub(__ubuf__ void* dst, __gm__ void* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_gm2ub", dst, src, size);
}
inline void asc_copy_gm2ub_sync(__ubuf__ void* dst, __gm__ void* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_gm2ub_sync", dst, src, size);
}
inline void asc_copy_gm2ub(__ubuf__ void* dst, __gm__ void* src, uint16_t n_burst, uint16_t len_burst,
                           uint16_t src_gap, uint16_t dst_gap) {
  ::asc::c_api::copy_bursts("asc_copy_gm2ub", dst, src, n_burst, len_burst, src_gap, dst_gap);
}
inline void asc_copy_ub2gm(__gm__ void* dst, __ubuf__ void* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_ub2gm", dst, src, size);
}
inline void asc_copy_ub2gm_sync(__gm__ void* dst, __ubuf__ void* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_ub2gm_sync", dst, src, size);
}
inline void asc_copy_ub2gm(__gm__ void* dst, __ubuf__ void* src, uint16_t n_burst, uint16_t len_burst,
                           uint16_t src_gap, uint16_t dst_gap) {
  ::asc::c_api::copy_bursts("asc_copy_ub2gm", dst, src, n_burst, len_burst, src_gap, dst_gap);
}
inline void asc_copy_ub2ub(__ubuf__ void* dst, __ubuf__ void* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_ub2ub", dst, src, size);
}
inline void asc_copy_ub2ub_sync(__ubuf__ void* dst, __ubuf__ void* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_ub2ub_sync", dst, src, size);
}
inline void asc_copy_ub2ub(__ubuf__ void* dst, __ubuf__ void* src, uint16_t n_burst, uint16_t len_burst,
                           uint16_t src_gap, uint16_t dst_gap) {
  ::asc::c_api::copy_bursts("asc_copy_ub2ub", dst, src, n_burst, len_burst, src_gap, dst_gap);
}

enum class asc_load_l2_cache_mode : uint8_t {
  NORMAL_FIRST_VICTIM = 0,
  NORMAL_LAST_VICTIM = 1,
  NORMAL_PERSISTENT = 2,
  NOTALLOC_KEEP = 4,
  NOTALLOC_CLEAN = 5,
  NOTALLOC_DROP = 6
};
enum class asc_store_l2_cache_mode : uint8_t {
  NORMAL_FIRST_VICTIM = 0,
  NORMAL_LAST_VICTIM = 1,
  NORMAL_PERSISTENT = 2,
  NOTALLOC_CLEAN = 4
};

// Aligned copies (byte counts; the L2 cache mode is a hint the CPU ignores).
template <typename T>
inline void asc_copy_gm2ub_align(__ubuf__ T* dst, __gm__ T* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_gm2ub_align", dst, src, size);
}
template <typename T>
inline void asc_copy_gm2ub_align_sync(__ubuf__ T* dst, __gm__ T* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_gm2ub_align_sync", dst, src, size);
}
template <typename T>
inline void asc_copy_ub2gm_align(__gm__ T* dst, __ubuf__ T* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_ub2gm_align", dst, src, size);
}
template <typename T>
inline void asc_copy_ub2gm_align_sync(__gm__ T* dst, __ubuf__ T* src, uint32_t size) {
  ::asc::c_api::copy_bytes("asc_copy_ub2gm_align_sync", dst, src, size);
}
namespace asc::c_api {
// n_burst bursts of len_burst bytes; gaps after each: GM side in bytes, UB
// side in 32-byte blocks (the UB side of a burst starts 32-byte aligned).
inline void copy_align(const char* op, uint8_t* dst, const uint8_t* src, uint32_t n_burst, uint32_t len_burst,
                       uint64_t dst_gap, uint64_t src_gap, bool to_gm) {
  if (n_burst == 0 || len_burst == 0) return;
  check_ptrs(op, dst, src);
  const uint64_t ub_len = (uint64_t{len_burst} + kBlock - 1) / kBlock * kBlock;
  for (uint32_t i = 0; i < n_burst; ++i) {
    std::memmove(dst, src, len_burst);
    if (to_gm) {
      dst += len_burst + dst_gap;
      src += ub_len + src_gap * kBlock;
    } else {
      dst += ub_len + dst_gap * kBlock;
      src += len_burst + src_gap;
    }
  }
}
}  // namespace asc::c_api
// The burst form GM -> UB: each UB burst holds left_padding_num elements,
// the len_burst bytes, right_padding_num elements (the pads zeroed when
// enable_constant_pad), rounded up to 32 bytes.
template <typename T, typename Mode>
inline void asc_copy_gm2ub_align(__ubuf__ T* dst, __gm__ T* src, uint16_t n_burst, uint32_t len_burst,
                                 uint8_t left_padding_num, uint8_t right_padding_num, bool enable_constant_pad, Mode,
                                 uint64_t src_stride, uint32_t dst_stride) {
  if (n_burst == 0 || len_burst == 0) return;
  ::asc::c_api::check_ptrs("asc_copy_gm2ub_align", dst, src);
  auto* d = reinterpret_cast<uint8_t*>(dst);
  const auto* s = reinterpret_cast<const uint8_t*>(src);
  const uint64_t left = uint64_t{left_padding_num} * sizeof(T), right = uint64_t{right_padding_num} * sizeof(T);
  const uint64_t ub_len = (left + len_burst + right + 31) / 32 * 32;
  for (uint32_t i = 0; i < n_burst; ++i) {
    if (enable_constant_pad && left) std::memset(d, 0, left);
    std::memmove(d + left, s, len_burst);
    if (enable_constant_pad && right) std::memset(d + left + len_burst, 0, right);
    d += ub_len + uint64_t{dst_stride} * 32;
    s += len_burst + src_stride;
  }
}

template <typename T, typename Mode>
inline void asc_copy_ub2gm_align(__gm__ T* dst, __ubuf__ T* src, uint16_t n_burst, uint32_t len_burst, Mode,
                                 uint64_t dst_stride, uint32_t src_stride) {
  ::asc::c_api::copy_align("asc_copy_ub2gm_align", reinterpret_cast<uint8_t*>(dst),
                           reinterpret_cast<const uint8_t*>(src), n_burst, len_burst, dst_stride, src_stride, true);
}

// Pipe mutexes (CANN: asc_lock / asc_unlock): AscendC::Mutex's per-block
// pairing checks (asc/kernel/mutex.h).
inline void asc_lock(pipe_t pipe, uint8_t id) { ::asc::kernel::mutex::lock(id, static_cast<int>(pipe)); }
inline void asc_unlock(pipe_t pipe, uint8_t id) { ::asc::kernel::mutex::unlock(id, static_cast<int>(pipe)); }

// ---------------------------------------------------------------- binary vector instructions

namespace asc::c_api {

template <typename T>
float to_f(T v) {
  return static_cast<float>(v);
}

// One element of each operation, computed as the vector unit does for T
// (half: in float, rounded once to half).
template <typename T, typename Op>
inline T apply(Op op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return op(a, b);
  } else {
    return static_cast<T>(op(static_cast<float>(a), static_cast<float>(b)));
  }
}

template <typename T, typename Op>
inline void binary_count(const char* name, T* dst, const T* a, const T* b, uint32_t count, Op op) {
  if (count == 0) return;
  if (!dst || !a || !b) ::asc::kernel::fail(ErrorCode::kInvalidParam, name, "null operand");
  for (uint32_t i = 0; i < count; ++i) dst[i] = apply<T>(op, a[i], b[i]);
}

// repeat x (8 blocks of 32 bytes), lanes of the mask register.
template <typename T, typename Op>
inline void binary_repeat(const char* name, T* dst, const T* a, const T* b, uint8_t repeat, uint8_t dst_blk,
                          uint8_t a_blk, uint8_t b_blk, uint8_t dst_rep, uint8_t a_rep, uint8_t b_rep, Op op) {
  if (repeat == 0) return;
  if (!dst || !a || !b) ::asc::kernel::fail(ErrorCode::kInvalidParam, name, "null operand");
  constexpr uint32_t per_block = kBlock / sizeof(T);
  constexpr uint32_t lanes = 8 * per_block;
  const auto& m = ::asc::kernel::detail::mask_register();
  for (uint32_t r = 0; r < repeat; ++r) {
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      if (!((m.bits[lane / 64] >> (lane % 64)) & 1)) continue;
      const uint32_t blk = lane / per_block, e = lane % per_block;
      const uint64_t od = (uint64_t{r} * dst_rep + uint64_t{blk} * dst_blk) * per_block + e;
      const uint64_t oa = (uint64_t{r} * a_rep + uint64_t{blk} * a_blk) * per_block + e;
      const uint64_t ob = (uint64_t{r} * b_rep + uint64_t{blk} * b_blk) * per_block + e;
      dst[od] = apply<T>(op, a[oa], b[ob]);
    }
  }
}

struct AddOp {
  template <typename U>
  U operator()(U x, U y) const { return x + y; }
};
struct SubOp {
  template <typename U>
  U operator()(U x, U y) const { return x - y; }
};
struct MulOp {
  template <typename U>
  U operator()(U x, U y) const { return x * y; }
};
struct DivOp {
  template <typename U>
  U operator()(U x, U y) const { return x / y; }
};
struct MaxOp {
  template <typename U>
  U operator()(U x, U y) const { return x > y ? x : y; }
};
struct MinOp {
  template <typename U>
  U operator()(U x, U y) const { return x < y ? x : y; }
};

}  // namespace asc::c_api

#define ASC_C_API_BINARY(NAME, OP, T)                                                                              \
  inline void NAME(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint32_t count) {                         \
    ::asc::c_api::binary_count<T>(#NAME, dst, src0, src1, count, ::asc::c_api::OP{});                             \
  }                                                                                                                \
  inline void NAME##_sync(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint32_t count) {                  \
    ::asc::c_api::binary_count<T>(#NAME "_sync", dst, src0, src1, count, ::asc::c_api::OP{});                     \
  }                                                                                                                \
  inline void NAME(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint8_t repeat, uint8_t dst_block_stride, \
                   uint8_t src0_block_stride, uint8_t src1_block_stride, uint8_t dst_repeat_stride,               \
                   uint8_t src0_repeat_stride, uint8_t src1_repeat_stride) {                                      \
    ::asc::c_api::binary_repeat<T>(#NAME, dst, src0, src1, repeat, dst_block_stride, src0_block_stride,           \
                                   src1_block_stride, dst_repeat_stride, src0_repeat_stride, src1_repeat_stride,  \
                                   ::asc::c_api::OP{});                                                           \
  }

#define ASC_C_API_BINARY_TYPES(NAME, OP) \
  ASC_C_API_BINARY(NAME, OP, half)       \
  ASC_C_API_BINARY(NAME, OP, float)      \
  ASC_C_API_BINARY(NAME, OP, int16_t)    \
  ASC_C_API_BINARY(NAME, OP, int32_t)

ASC_C_API_BINARY_TYPES(asc_add, AddOp)
ASC_C_API_BINARY_TYPES(asc_sub, SubOp)
ASC_C_API_BINARY_TYPES(asc_mul, MulOp)
ASC_C_API_BINARY(asc_div, DivOp, half)
ASC_C_API_BINARY(asc_div, DivOp, float)
ASC_C_API_BINARY_TYPES(asc_max, MaxOp)
ASC_C_API_BINARY_TYPES(asc_min, MinOp)

#undef ASC_C_API_BINARY_TYPES
#undef ASC_C_API_BINARY
