// TPipe, TQue / TQueBind and TBuf: buffers in the running core's memories.
//
// * TPipe::InitBuffer bump-allocates (32-byte aligned) in the arena of the
//   position's memory: VECIN/VECOUT/VECCALC -> Unified Buffer, A1/B1 -> L1,
//   A2 -> L0A, B2 -> L0B, CO1 -> L0C. A TPipe starts at offset 0 of each arena
//   (one TPipe per block is the normal case; two live TPipes in one block
//   would overlap, as on the NPU). Exceeding a memory's size throws
//   asc::Error(kStorageOverLimit) naming kernel, block, position, requested and
//   remaining bytes. Calling it outside a kernel throws kInvalidParam.
// * TQue<pos, depth>: `num` buffers (InitBuffer) cycle through
//   free -> AllocTensor -> EnQue -> DeQue -> FreeTensor -> free. Misuse is an
//   asc::Error, never a hang or silent corruption: DeQue on an empty queue,
//   AllocTensor with no free buffer, EnQue beyond `depth` (depth <= 0: no limit
//   besides the buffers), EnQue/FreeTensor of a tensor that is not a buffer of
//   this queue or is in the wrong state (double free, free while enqueued).
//   All operations are O(1) and allocate nothing on the heap.
// * TBuf<pos>: one buffer without a queue; Get<T>() views it whole.
// * Copy elision (asc/kernel/elide.h) is active while a TPipe is alive on the
//   thread: the outermost TPipe's constructor and destructor start and end it.
//
// Thread-safety: a TPipe and its queues belong to one block (one thread).
#pragma once

#include <cstdint>

#include "asc/kernel/checker.h"
#include "asc/kernel/context.h"
#include "asc/kernel/elide.h"
#include "asc/kernel/tensor.h"
#include "asc/kernel/types.h"

namespace AscendC {
class TPipe;
}

namespace asc::kernel {

/// Bookkeeping of one queue (non-template part of TQueBind).
class QueueState {
 public:
  static constexpr int kMaxBuffers = 32;

  /// Called by TPipe::InitBuffer: `num` buffers of `bytes` bytes, `stride`
  /// bytes apart from `base`.
  void init(uint8_t* base, uint32_t bytes, uint32_t stride, int num, int depth, AscendC::TPosition pos);

  uint8_t* alloc() {
    if (free_mask_ == 0) fail_alloc();
    // Round-robin from the last buffer handed out, like the hardware queue.
    int i = next_;
    while (!(free_mask_ & (1u << i))) i = (i + 1 == num_) ? 0 : i + 1;
    free_mask_ &= ~(1u << i);
    state_[i] = kAllocated;
    next_ = static_cast<uint8_t>(i + 1 == num_ ? 0 : i + 1);
    return base_ + static_cast<uint64_t>(i) * stride_;
  }

  void enque(const void* addr, uint32_t bytes) {
    const int i = index_of(addr, "EnQue");
    if (state_[i] != kAllocated) fail_state("EnQue", i);
    if (depth_ > 0 && count_ >= depth_) fail_full();
    state_[i] = kQueued;
    bytes_[i] = bytes;
    ring_[(head_ + count_) % kMaxBuffers] = static_cast<uint8_t>(i);
    ++count_;
  }

  uint8_t* deque(uint32_t* bytes) {
    if (count_ == 0) fail_empty();
    const int i = ring_[head_];
    head_ = static_cast<uint8_t>((head_ + 1) % kMaxBuffers);
    --count_;
    state_[i] = kAllocated;
    *bytes = bytes_[i];
    return base_ + static_cast<uint64_t>(i) * stride_;
  }

  void free(const void* addr) {
    const int i = index_of(addr, "FreeTensor");
    if (state_[i] != kAllocated) fail_state("FreeTensor", i);
    state_[i] = kFree;
    free_mask_ |= 1u << i;
  }

  bool vacant() const { return depth_ <= 0 ? count_ < num_ : count_ < depth_; }
  int count() const { return count_; }
  bool has_idle() const { return free_mask_ != 0; }
  uint32_t buffer_bytes() const { return bytes_init_; }
  int num_buffers() const { return num_; }
  bool initialized() const { return base_ != nullptr || num_ > 0; }
  /// For the kernel checker (asc/kernel/checker.h).
  const uint8_t* base() const { return base_; }
  uint32_t stride() const { return stride_; }
  AscendC::TPosition position() const { return pos_; }
  bool buffer_free(int i) const { return state_[i] == kFree; }
  bool buffer_queued(int i) const { return state_[i] == kQueued; }

 private:
  enum State : uint8_t { kFree, kAllocated, kQueued };

  int index_of(const void* addr, const char* op) const {
    // A compare per buffer (at most kMaxBuffers, usually 1-2) beats a 64-bit
    // division on the per-tile path.
    const uint8_t* p = static_cast<const uint8_t*>(addr);
    const uint8_t* b = base_;
    for (int i = 0; i < num_; ++i, b += stride_) {
      if (b == p) return i;
    }
    fail_foreign(op, addr);
  }

  [[noreturn]] void fail_alloc() const;
  [[noreturn]] void fail_full() const;
  [[noreturn]] void fail_empty() const;
  [[noreturn]] void fail_state(const char* op, int i) const;
  [[noreturn]] void fail_foreign(const char* op, const void* addr) const;
  [[noreturn]] void fail_uninit(const char* op) const;

  uint8_t* base_ = nullptr;
  uint32_t stride_ = 0;
  uint32_t bytes_init_ = 0;
  int32_t depth_ = 0;
  uint32_t free_mask_ = 0;
  uint8_t num_ = 0;
  uint8_t head_ = 0;
  uint8_t count_ = 0;
  uint8_t next_ = 0;
  AscendC::TPosition pos_ = AscendC::TPosition::VECIN;
  State state_[kMaxBuffers] = {};
  uint8_t ring_[kMaxBuffers] = {};
  uint32_t bytes_[kMaxBuffers] = {};
};

/// The calling thread's most recently constructed live TPipe (GetTPipePtr).
AscendC::TPipe* current_pipe() noexcept;

}  // namespace asc::kernel

namespace AscendC {

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
 public:
  static constexpr TPosition kSrcPosition = src;
  static constexpr TPosition kDstPosition = dst;
  static constexpr int32_t kDepth = depth;
  /// Where the buffers live: the local end of the binding.
  static constexpr TPosition kBufferPosition = src == TPosition::GM ? dst : src;

  /// A free buffer viewed as T (size = InitBuffer's len / sizeof(T)).
  template <typename T>
  LocalTensor<T> AllocTensor() {
    uint8_t* p = q_.alloc();
    return LocalTensor<T>(reinterpret_cast<T*>(p), static_cast<uint32_t>(::asc::kernel::elems_in<T>(q_.buffer_bytes())), src);
  }
  /// Returns an allocated (or dequeued) buffer to the free list.
  /// Its contents are undefined from now on: pending elided copies into it are
  /// dropped (see asc/kernel/elide.h).
  template <typename T>
  void FreeTensor(const LocalTensor<T>& tensor) {
    q_.free(tensor.raw());
    ::asc::kernel::elide::discard(tensor.raw(), q_.buffer_bytes());
  }
  /// Appends an allocated tensor to the queue (its size is kept for DeQue).
  template <typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    q_.enque(tensor.raw(), tensor.GetLength());
    return true;
  }
  /// Removes the oldest enqueued tensor; an empty queue is an error.
  template <typename T>
  LocalTensor<T> DeQue() {
    uint32_t bytes = 0;
    uint8_t* p = q_.deque(&bytes);
    return LocalTensor<T>(reinterpret_cast<T*>(p), static_cast<uint32_t>(::asc::kernel::elems_in<T>(bytes)), dst);
  }

  /// True while another EnQue would fit.
  bool VacantInQue() const { return q_.vacant(); }
  bool HasTensorInQue() const { return q_.count() > 0; }
  int32_t GetTensorCountInQue() const { return q_.count(); }
  /// True while AllocTensor would succeed.
  bool HasIdleBuffer() const { return q_.has_idle(); }
  void FreeAllEvent() {}

  /// pyasc: the bookkeeping (TPipe fills it).
  ::asc::kernel::QueueState& queue_state() { return q_; }

 private:
  ::asc::kernel::QueueState q_;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  static constexpr TPosition kBufferPosition = pos;

  /// The whole buffer as T.
  template <typename T>
  LocalTensor<T> Get() const {
    check("TBuf::Get", 0);
    return LocalTensor<T>(reinterpret_cast<T*>(addr_), static_cast<uint32_t>(::asc::kernel::elems_in<T>(bytes_)), pos);
  }
  /// The first `len` elements.
  template <typename T>
  LocalTensor<T> Get(uint32_t len) const {
    check("TBuf::Get", ::asc::kernel::bytes_for<T>(len));
    return LocalTensor<T>(reinterpret_cast<T*>(addr_), len, pos);
  }
  /// AllocTensor / FreeTensor: CANN's TBuf derives from TQueBind, and samples
  /// call these on a TBuf (sum, softmaxflashv3). A TBuf has one buffer and no
  /// queue: AllocTensor is Get() and FreeTensor leaves the buffer to the TBuf
  /// (its contents stay, as with Get()).
  template <typename T>
  LocalTensor<T> AllocTensor() const {
    return Get<T>();
  }
  template <typename T>
  void FreeTensor(const LocalTensor<T>& tensor) const {
    (void)tensor;
  }

  /// `size` elements starting `bufOffset` bytes into the buffer.
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) const {
    check("TBuf::GetWithOffset", uint64_t{bufOffset} + ::asc::kernel::bytes_for<T>(size));
    return LocalTensor<T>(reinterpret_cast<T*>(addr_ + bufOffset), size, pos);
  }

  /// pyasc: set by TPipe::InitBuffer.
  void bind(uint8_t* addr, uint32_t bytes) {
    addr_ = addr;
    bytes_ = bytes;
    bound_ = true;
  }

 private:
  void check(const char* op, uint64_t bytes) const {
    if (!bound_) ::asc::kernel::fail(::asc::ErrorCode::kInvalidParam, op, "TBuf used before TPipe::InitBuffer");
    if (bytes > bytes_) ::asc::kernel::fail_size(op, "bytes of the TBuf", bytes, bytes_);
  }

  uint8_t* addr_ = nullptr;
  uint32_t bytes_ = 0;
  bool bound_ = false;
};

class TPipe {
 public:
  TPipe();
  ~TPipe();
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  /// `num` buffers of `len` bytes (each rounded up to 32 bytes) for a queue.
  template <class Que>
  bool InitBuffer(Que& que, uint8_t num, uint32_t len) {
    const uint32_t stride = align32(len);
    uint8_t* base = allocate(Que::kBufferPosition, num, len, stride);
    que.queue_state().init(base, len, stride, num, Que::kDepth, Que::kBufferPosition);
    if (::asc::kernel::check::active()) ::asc::kernel::check::queue_init(this, &que.queue_state());
    return true;
  }
  /// One buffer of `len` bytes (rounded up to 32) for a TBuf.
  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len) {
    buf.bind(allocate(pos, 1, len, align32(len)), len);
    return true;
  }

  /// Forgets every allocation (buffers handed out before become invalid).
  void Reset();
  void Destroy() { Reset(); }

  /// Event ids rotate through EVENT_ID0..7 (synchronisation is a no-op on the
  /// CPU device, so any id is fine).
  template <HardEvent evt>
  TEventID AllocEventID() {
    return next_event(evt);
  }
  template <HardEvent evt>
  void ReleaseEventID(TEventID) {}
  TEventID FetchEventID(HardEvent evt) { return next_event(evt); }
  template <HardEvent evt>
  TEventID FetchEventID() {
    return next_event(evt);
  }

  /// pyasc: bytes allocated so far in memory `hw` and its capacity.
  uint64_t used_bytes(Hardware hw) const { return used_[static_cast<int>(hw)]; }
  uint64_t capacity_bytes(Hardware hw) const;

 private:
  static uint32_t align32(uint32_t len) { return (len + 31u) & ~31u; }
  uint8_t* allocate(TPosition pos, uint32_t num, uint32_t len, uint32_t stride);
  TEventID next_event(HardEvent evt) {
    uint8_t& c = events_[static_cast<int>(evt)];
    const TEventID id = static_cast<TEventID>(c);
    c = static_cast<uint8_t>((c + 1) & 7);
    return id;
  }

  const ::asc::runtime::CoreArenas* arenas_ = nullptr;
  uint32_t block_idx_ = 0;
  uint64_t used_[static_cast<int>(Hardware::MAX)] = {};
  uint8_t events_[static_cast<int>(HardEvent::MAX)] = {};
  TPipe* previous_ = nullptr;
  void* elide_token_ = nullptr;  // asc::kernel::elide::pipe_enter()
};

/// The TPipe constructed last on this thread (nullptr if none is alive).
inline TPipe* GetTPipePtr() { return ::asc::kernel::current_pipe(); }

}  // namespace AscendC
