// Atomic GM writes: SetAtomicAdd<T>() / SetAtomicMax<T>() / SetAtomicMin<T>() /
// SetAtomicNone() / SetAtomicType<T>().
//
// As on the NPU, the atomic mode is a per-core register: while it is set, the
// block's copies from local memory to GM (DataCopy in every form, DataCopyPad)
// combine each element into GM (gm = gm + x, max(gm, x), min(gm, x)) instead
// of overwriting it, so several blocks may accumulate into the same GM bytes in
// one launch. SetAtomicNone() restores plain copies; a block starts with no
// mode (it does not leak from the previous block run on the same core).
//
// * T (the element type the mode combines as): float, half, bfloat16_t,
//   int8_t, int16_t, int32_t (others do not compile). The copy's bytes are
//   read as T whatever the copy's own element type is, as the hardware does;
//   a copy whose GM address or length is not a multiple of sizeof(T) throws
//   asc::Error(kInvalidParam). SetAtomicType<T>() changes T, keeping the
//   operation.
// * Each element is combined with a compare-and-swap on the aligned 32-bit
//   word that holds it (so 8/16-bit elements sharing a word with another
//   block's elements are safe too): correct when any number of blocks combine
//   into the same bytes concurrently. The order in which blocks land is not
//   specified, so float sums may differ in the last bits between runs;
//   integer results are exact.
// * Floating add rounds once to T (computed in float, which is exact enough
//   for half and bfloat16 to round correctly). Integer add wraps around (two's
//   complement), it does not saturate.
// * Max/Min propagate NaN: if GM or the incoming value is NaN the result is
//   NaN (GM's NaN is kept when both are). max(+0, -0) = +0 and min(+0, -0) = -0
//   in either order.
// * Copy elision (asc/kernel/elide.h) does not apply to atomic copies: the
//   local source is materialised and the copy always runs for real.
// * The kernel checker does not report atomic copies as gm-write-race (they
//   are still bounds-checked); GlobalTensor::SetValue is never atomic.
// * Fixpipe and DataCopy L0C->GM combine under the mode too (they convert into
//   a scratch laid out like the destination, then combine it); the high-level
//   Matmul combines when its `enAtomic` is set or the block's mode is.
//
// Thread-safety: the mode is per thread (one block runs on one thread); the
// combining is safe against concurrent atomic copies of other blocks. Plain
// writes of other blocks to the same bytes race, as on the NPU.
#pragma once

#include <cstdint>
#include <type_traits>

#include "asc/core/half.h"
#include "asc/runtime/block_serial.h"

namespace asc::kernel::atomic {

enum class Op : uint8_t { kNone = 0, kAdd, kMax, kMin };
enum class Type : uint8_t { kNone = 0, kFloat, kHalf, kBFloat16, kInt8, kInt16, kInt32 };

struct Mode {
  Op op = Op::kNone;
  Type type = Type::kNone;
  uint64_t serial = 0;  // runtime::block_serial() when set: a later block ignores it
};
/// The calling thread's mode (src/kernel/atomic.cc).
extern thread_local Mode t_mode;

template <typename T>
constexpr Type type_of() {
  if constexpr (std::is_same_v<T, float>) {
    return Type::kFloat;
  } else if constexpr (std::is_same_v<T, ::asc::float16>) {
    return Type::kHalf;
  } else if constexpr (std::is_same_v<T, ::asc::bfloat16>) {
    return Type::kBFloat16;
  } else if constexpr (std::is_same_v<T, int8_t>) {
    return Type::kInt8;
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return Type::kInt16;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return Type::kInt32;
  } else {
    static_assert(sizeof(T) == 0, "SetAtomic*<T>: T must be float, half, bfloat16_t, int8_t, int16_t or int32_t");
    return Type::kNone;
  }
}

/// Sets the calling block's mode (op kNone: plain copies).
void set(Op op, Type type) noexcept;
/// Changes the element type, keeping the operation.
void set_type(Type type) noexcept;
/// The mode in effect for the running block (op kNone when none was set in it).
Mode current() noexcept;
/// Cheap pre-test for the copy paths: false when certainly no mode is set.
inline bool maybe_active() noexcept { return __builtin_expect(t_mode.op != Op::kNone, 0); }
/// "add", "max", "min", "none"; "float", "half", ...
const char* op_name(Op op) noexcept;
const char* type_name(Type type) noexcept;

/// A copy local -> GM of `count` bursts of `burst` bytes (burst i from
/// src + i * src_pitch to dst + i * dst_pitch) under the running block's
/// mode. Returns false, doing nothing, when no mode is in effect; otherwise
/// materialises elided local/GM state, combines, and returns true. Throws
/// asc::Error(kInvalidParam) naming `op` for a misaligned address or length.
bool store(const char* op, void* dst, const void* src, uint32_t count, uint64_t burst, uint64_t src_pitch,
           uint64_t dst_pitch);

}  // namespace asc::kernel::atomic

namespace AscendC {

/// Following local -> GM copies of this block add into GM as T.
template <typename T>
inline void SetAtomicAdd() {
  ::asc::kernel::atomic::set(::asc::kernel::atomic::Op::kAdd, ::asc::kernel::atomic::type_of<T>());
}
/// ... store max(GM, value) as T (NaN propagates).
template <typename T>
inline void SetAtomicMax() {
  ::asc::kernel::atomic::set(::asc::kernel::atomic::Op::kMax, ::asc::kernel::atomic::type_of<T>());
}
/// ... store min(GM, value) as T (NaN propagates).
template <typename T>
inline void SetAtomicMin() {
  ::asc::kernel::atomic::set(::asc::kernel::atomic::Op::kMin, ::asc::kernel::atomic::type_of<T>());
}
/// Back to plain copies.
inline void SetAtomicNone() { ::asc::kernel::atomic::set(::asc::kernel::atomic::Op::kNone, ::asc::kernel::atomic::Type::kNone); }
/// Changes the element type of the current mode.
template <typename T>
inline void SetAtomicType() {
  ::asc::kernel::atomic::set_type(::asc::kernel::atomic::type_of<T>());
}

}  // namespace AscendC

namespace AscendC {

/// CANN's name for ending the atomic mode of DMA copies (SetAtomicNone).
inline void DisableDmaAtomic() { SetAtomicNone(); }

}  // namespace AscendC
