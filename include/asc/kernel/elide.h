// Copy elision for the kernel API on the CPU device.
//
// On an AI core, MTE2 (GM -> UB), V (vector) and MTE3 (UB -> GM) are separate
// pipes that overlap, so the canonical kernel (DataCopy in; Add; DataCopy out)
// streams at memory speed. On a CPU core every pass through the Unified Buffer
// is extra memory traffic. Instead of copying eagerly, each block keeps a small
// table of *pending records*: local (UB/L1/...) byte ranges whose contents are
// defined but not yet written there.
//
// * Load{gm}: a contiguous DataCopy GM -> local (count form, DataCopyParams
//   with one burst or no gaps, single-burst DataCopyPad that writes no
//   padding) records that [ub, ub+bytes) equals GM [gm, gm+bytes).
// * Compute{op, operands}: a count-form Add/Sub/Mul/Div/Max/Min,
//   Adds/Muls/Maxs/Mins, Exp/Ln/Abs/Relu/Sqrt or Cast is validated (dtype
//   errors are thrown at once) and recorded. Its operands are resolved when it
//   is issued: a range inside one pending Load becomes that GM address, any
//   other range is materialised and read from local memory at execution time.
//   An operand that partly overlaps the destination runs eagerly.
// * A contiguous DataCopy local -> GM (or single-burst DataCopyPad) of exactly
//   a Compute's range executes it straight from its sources into GM (one pass
//   over memory, like the NPU's overlapped pipes), and the record becomes a
//   Load of the GM just written; a Load copied out becomes a GM -> GM copy, or
//   nothing when source and destination are the same bytes. After such a
//   copy-out of 4 KiB or more the next 4 KiB of each GM source are prefetched
//   (the calls before the next tile stall on the store buffer; the prefetches
//   keep memory busy meanwhile). Once a block has written 4 MiB this way,
//   copy-outs of 4 KiB or more go through an L1 scratch and non-temporal
//   stores (fenced before the call returns): a stream that long leaves little
//   useful in the caches, and skipping the read-for-ownership saves a quarter
//   of the traffic. ASC_KERNEL_STREAM=<bytes> moves that threshold;
//   ASC_KERNEL_STREAM=0 never streams.
// * Anything else that touches a range with a record - GetValue/SetValue,
//   operator(), GetPhyAddr, data(), strided DataCopyParams, multi-burst or
//   padding DataCopyPad, reductions (which read a pending Load from GM),
//   Duplicate, UB -> UB copies (which alias a pending Load), partial or
//   differently-sized reads - first *materialises* the records involved
//   (writes the bytes eager code would have written), so results are exactly
//   those of eager execution. Before an API write to GM (DataCopy/DataCopyPad
//   out, GlobalTensor::SetValue/operator()/GetPhyAddr/data()) the records that
//   read that GM are materialised; before local bytes are overwritten, the
//   pending Computes that read them are. Materialising never changes what a
//   kernel observes, only when bytes are written. GM writes are never deferred.
// * A local address that escapes (LocalTensor::GetPhyAddr, data(), operator())
//   may be read or written behind the API's back: the range is remembered for
//   the rest of the block, and no record is created over it or reads it lazily.
// * FreeTensor drops the records of the freed buffer: its contents are
//   undefined until written again. Reading a buffer after FreeTensor is a
//   kernel bug whose result elision may change (ASC_KERNEL_ELIDE=0 keeps the
//   stale bytes, as before).
// * Records live while a TPipe is alive on the thread: the outermost TPipe's
//   constructor starts elision for the block, its destructor materialises what
//   is still pending and stops it; a TPipe reused by another block (one that
//   outlived its block) drops its stale records at InitBuffer. A kernel
//   without a TPipe runs eagerly.
//
// Limits (documented, not checked): writes to GM through raw pointers (kernel
// GM_ADDR arguments, a GlobalTensor address taken earlier) are invisible, so a
// block that DataCopies GM into UB, then writes that GM through a raw pointer,
// then reads the UB copy, sees the new GM bytes. Another block writing GM this
// block has a pending Load of is a data race in Ascend C anyway (blocks must
// not depend on each other without SyncAll / atomics); elision only moves the
// time at which the racy read happens. A cross-block sync primitive, when one
// is added, must call asc::kernel::elide::materialise_all() first.
//
// ASC_KERNEL_ELIDE=0 (read once) turns elision off: every call copies eagerly
// and local memory holds real contents (debugging, checking mode).
// asc::kernel::set_elision_enabled() changes it for blocks that start later.
//
// Thread-safety: all state is per thread (one block runs on one thread); the
// switch is a process-wide atomic read when a block's first TPipe is built.
#pragma once

#include <cstddef>
#include <cstdint>

#include "asc/core/dtype.h"
#include "asc/kernel/simd.h"

namespace asc::kernel {

/// Whether blocks that start now use copy elision (ASC_KERNEL_ELIDE, default on).
bool elision_enabled() noexcept;
/// Process-wide switch for blocks whose outermost TPipe is built afterwards.
void set_elision_enabled(bool on) noexcept;
/// Net bytes of GM <-> UB copying the calling thread avoided so far (loads
/// never materialised plus copy-outs executed straight into GM). Cumulative;
/// read it inside a block before and after the work to measure that work.
int64_t elided_bytes() noexcept;

namespace elide {

/// The calling thread's table of pending records (src/kernel/elide.cc).
struct State;
/// Hot-path view of it: `live` is non-zero while records are pending, `active`
/// while elision is on for the running block; `state` is set once a TPipe was
/// built on the thread. One TLS access per API call.
struct Fast {
  uint32_t live;
  uint32_t active;
  State* state;
};
extern thread_local Fast t_fast;

/// The table when elision is on for the running block, else null.
inline State* active_state() noexcept {
  const Fast& f = t_fast;
  return f.active ? f.state : nullptr;
}
/// The table when records are pending, else null.
inline State* pending_state() noexcept {
  const Fast& f = t_fast;
  return f.live ? f.state : nullptr;
}
inline bool active() noexcept { return t_fast.active != 0; }
inline bool pending() noexcept { return t_fast.live != 0; }

// ---- slow paths (src/kernel/elide.cc)
void do_read(State& s, const void* p, uint64_t bytes);
void do_access(State& s, const void* p, uint64_t bytes);
void do_write(State& s, const void* p, uint64_t bytes);
void do_gm_write(State& s, const void* p, uint64_t bytes);
const void* do_read_ptr(State& s, const void* p, uint64_t bytes);
void do_escape(State& s, const void* p, uint64_t bytes);
void do_discard(State& s, const void* p, uint64_t bytes);

/// [p, p+bytes) of local memory is about to be read by code that does not model
/// elision: materialise what lies there.
inline void read(const void* p, uint64_t bytes) {
  if (State* s = pending_state()) do_read(*s, p, bytes);
}
/// ... read and/or partly written (unknown access).
inline void access(const void* p, uint64_t bytes) {
  if (State* s = pending_state()) do_access(*s, p, bytes);
}
/// ... entirely overwritten without being read.
inline void write(const void* p, uint64_t bytes) {
  if (State* s = pending_state()) do_write(*s, p, bytes);
}
/// GM [p, p+bytes) is about to be written (bytes = UINT64_MAX: unknown extent).
inline void gm_write(const void* p, uint64_t bytes) {
  if (State* s = pending_state()) do_gm_write(*s, p, bytes);
}
/// Where to read [p, p+bytes) of local memory from right now: the GM bytes of a
/// pending Load when one holds the whole range, else p (materialised).
inline const void* read_ptr(const void* p, uint64_t bytes) {
  State* s = pending_state();
  return s ? do_read_ptr(*s, p, bytes) : p;
}
/// The address of [p, p+bytes) leaves the API's control (raw pointer or reference).
inline void escape(const void* p, uint64_t bytes) {
  if (State* s = active_state()) do_escape(*s, p, bytes);
}
/// FreeTensor of the buffer [p, p+bytes): its records may be dropped.
inline void discard(const void* p, uint64_t bytes) {
  if (State* s = pending_state()) do_discard(*s, p, bytes);
}

// ---- modelled instructions; `s` from active_state() (store: pending_state())
/// DataCopy GM -> local of exactly `bytes` contiguous bytes.
void load(State& s, void* ub, const void* gm, uint64_t bytes);
/// DataCopy local -> GM of exactly `bytes` contiguous bytes.
void store(State& s, void* gm, const void* ub, uint64_t bytes);
/// DataCopy local -> local (memmove semantics).
void copy_local(State& s, void* dst, const void* src, uint64_t bytes);
/// Element-wise instructions over n elements; `op` packs the operation and the
/// dtype(s) (pack_op), scalar_bits holds the scalar's bytes (at most 8). Few
/// arguments: all of them travel in registers.
constexpr uint32_t pack_op(uint32_t op, DType dtype, DType src_dtype = DType::kBool, uint32_t mode = 0) {
  return op | uint32_t(static_cast<uint8_t>(dtype)) << 8 | uint32_t(static_cast<uint8_t>(src_dtype)) << 16 |
         mode << 24;
}
void binary(State& s, uint32_t op, void* dst, const void* a, const void* b, uint32_t n);
void binary_scalar(State& s, uint32_t op, void* dst, const void* src, uint64_t scalar_bits, uint32_t n);
void unary(State& s, uint32_t op, void* dst, const void* src, uint32_t n);
/// op = pack_op(0, dst dtype, src dtype, round mode).
void cast(State& s, uint32_t op, void* dst, const void* src, uint32_t n);

// ---- block lifetime
/// TPipe construction / destruction. enter() returns a token for leave().
void* pipe_enter() noexcept;
void pipe_leave(void* token) noexcept;
/// A TPipe that outlived its block is used by another block: drop the records.
void block_changed() noexcept;
/// Writes every pending record of the calling thread to local memory (for
/// cross-block synchronisation).
void materialise_all();

}  // namespace elide
}  // namespace asc::kernel
