// The kernel checker: finds the bugs that NPU hardware hides or turns into
// hangs, with the kernel name, block index, instruction and offsets.
//
// Enabled per launch when asc::kernel::debug::kernel_checks_requested() is true
// at launch time (ASCEND_DEBUG=1, `pyasc-cc --check`, request_kernel_checks(),
// Python asc.debug.check_kernels(True)). A checked launch records, per block:
//
//   gm-out-of-bounds   GM access (DataCopy, DataCopyPad, GlobalTensor
//                      GetValue/SetValue, the cube path: DataCopy GM -> L1
//                      with Nd2NzParams, LoadData from GM, Fixpipe and
//                      DataCopy L0C -> GM, Matmul's reads of A/B/bias and
//                      GetTensorC/IterateAll writes) outside the device allocation that
//                      holds the GlobalTensor's SetGlobalBuffer address, or
//                      outside SetGlobalBuffer's size when one was given
//   host-pointer       SetGlobalBuffer / a GM access with an address that no
//                      device allocation (aclrtMalloc, GmAlloc, pool) holds
//   local-overflow     TPipe::InitBuffer / LocalMemAllocator beyond the UB, L1,
//                      L0A, L0B or L0C budget of a core
//   misaligned         a UB operand of DataCopy/DataCopyPad or a count-form
//                      vector instruction not 32-byte aligned
//   copy-round-down    DataCopy count form whose byte length is not a multiple
//                      of 32 (the hardware silently drops the tail)
//   deque-empty        DeQue on an empty queue (the NPU waits forever)
//   alloc-beyond-depth AllocTensor with every buffer of the queue in use
//   enque-beyond-depth EnQue on a full queue
//   double-free        FreeTensor of a buffer that is already free
//   use-after-free     an instruction operand or EnQue inside a freed queue
//                      buffer
//   queue-misuse       FreeTensor of an enqueued buffer, EnQue twice, a tensor
//                      of another queue
//   tensor-leak        queue buffers still allocated or enqueued when the
//                      TPipe ends (kernel exit)
//   wait-without-set   WaitFlag<evt>(id) with no pending SetFlag<evt>(id)
//   gm-write-race      two blocks of one launch writing the same GM bytes
//
// Findings that would corrupt memory or hang (every kind except
// copy-round-down, tensor-leak and gm-write-race) stop the block at once: the
// instruction is not executed and the block throws asc::Error
// (kRtAicoreException) whose message is the report. The others are recorded
// and the launch fails when it ends. Either way the launch's status (the
// stream's next synchronize, aclrtSynchronizeStream, ICPU_RUN_KF) is
// kRtAicoreException (507015).
//
// Each report is one line, printed to stderr and kept for reports():
//   [kernel check] <finding>: kernel '<name>' block <i>/<n>: <instruction>: <detail>
// GM offsets are bytes from the start of the device allocation, local
// offsets bytes from the start of the core's memory (UB, L1, ...). A block
// reports copy-round-down once per instruction, tensor-leak once per queue,
// gm-write-race once per pair of blocks; at most 64 reports per launch.
//
// Cost when off: every hook is behind active(), one relaxed load of a global
// counter of checked launches in flight (a predictable branch); a launch
// reads the request flag once.
//
// Thread-safety: reports()/clear_reports() may be called from any thread; the
// hooks act on the calling thread's block.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace AscendC {
class TPipe;
}

namespace asc::kernel {
class QueueState;
}

namespace asc::kernel::check {

enum class Finding : uint8_t {
  kGmOutOfBounds,
  kHostPointer,
  kLocalOverflow,
  kMisaligned,
  kCopyRoundDown,
  kDequeEmpty,
  kAllocBeyondDepth,
  kEnqueBeyondDepth,
  kDoubleFree,
  kUseAfterFree,
  kQueueMisuse,
  kTensorLeak,
  kWaitWithoutSet,
  kGmWriteRace,
};
/// "gm-out-of-bounds", ... (the names in the file comment).
const char* finding_name(Finding f) noexcept;

struct Report {
  Finding finding = Finding::kGmOutOfBounds;
  std::string kernel;       // launch name
  uint32_t block = 0;       // block index
  uint32_t block_num = 0;   // blockDim
  std::string instruction;  // "DataCopy", "TQue::DeQue", ...
  std::string detail;
  std::string text;         // the whole line as printed (no newline)
};

/// Reports of all checked launches since the last clear_reports() (the most
/// recent 4096).
std::vector<Report> reports();
void clear_reports();
/// Whether reports are also written to stderr (default true).
void set_print_reports(bool on) noexcept;

// ---------------------------------------------------------------- hooks
// Called by the kernel API only when active(); each is a no-op on a thread
// that is not running a block of a checked launch.

/// Checked launches running now (the hot-path flag).
extern std::atomic<uint32_t> g_checked_launches;
inline bool active() noexcept {
  return __builtin_expect(g_checked_launches.load(std::memory_order_relaxed) != 0, 0);
}
/// True on a thread running a block of a checked launch.
bool in_checked_block() noexcept;

/// SetGlobalBuffer(p, bytes): p must be device memory.
void bind_global(const void* p, uint64_t bytes);
/// A GM access of `count` bursts of `burst` bytes, `pitch` apart, starting at
/// `p`, through a GlobalTensor bound at `bound` (bound_bytes: its
/// SetGlobalBuffer size in bytes, 0 = none). Writes are recorded for the
/// cross-block race check unless `atomic` (combining writes, e.g. Matmul
/// GetTensorC with enAtomic, may overlap other blocks').
void gm_access(const char* op, const void* bound, uint64_t bound_bytes, const void* p, uint32_t count,
               uint64_t burst, uint64_t pitch, bool write, bool atomic = false);
/// A local operand [p, p+bytes) of an instruction: alignment (UB) and freed
/// queue buffers. `which` names it ("dst", "src0", ...).
void local_operand(const char* op, const char* which, const void* p, uint64_t bytes);
/// A local operand that may sit anywhere (element access): freed buffers only.
void local_element(const char* op, const void* p, uint64_t bytes);
/// DataCopy count form: count * elem_size must be a multiple of 32.
void copy_length(const char* op, uint32_t count, uint32_t elem_size);
/// TPipe::InitBuffer made `q`'s buffers.
void queue_init(const AscendC::TPipe* pipe, const QueueState* q);
/// ~TPipe: leak check of its queues, which are then forgotten.
void pipe_end(const AscendC::TPipe* pipe);
/// TPipe::Reset: its queues are forgotten.
void pipe_reset(const AscendC::TPipe* pipe);
/// SetFlag / WaitFlag (event: HardEvent as int; id: event id).
void set_flag(int event, int id);
void wait_flag(int event, int id);
/// Records a finding of the running block (when it runs a checked launch) and
/// throws it as asc::Error(kRtAicoreException). Used by API checks that fail
/// anyway (queue misuse, budgets); returns normally when not checking.
void fatal_if_checking(Finding f, const char* op, const std::string& detail);

}  // namespace asc::kernel::check
