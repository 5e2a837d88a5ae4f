// The caching memory pool in front of a device's allocator.
//
// * Every block is 64-byte aligned.
// * Two pools: small requests (<= 1 MiB, rounded up to 512 B) are carved from
//   2 MiB segments; large requests (rounded up to 2 MiB granules above 10 MiB,
//   512 B below) get their own segments or split cached ones.
// * Best-fit search over free blocks; a block larger than needed is split and
//   the remainder stays cached; freed neighbours in one segment coalesce.
// * Stream-aware reuse: free() remembers the stream(s) that used the block and
//   how far each had been enqueued. The same stream may reuse the block at
//   once (its work is ordered); another stream only after those stream points
//   completed (or the stream was destroyed: destruction drains it). For the
//   allocation stream the point is read lazily, when another stream first asks
//   for the block: never earlier than at free(), and free() stays free of
//   atomic operations. Streams added by record_stream() get exact points.
// * Capacity limit (set_limit, or ASC_MEMORY_LIMIT in bytes, with optional
//   K/M/G suffix, for the device pool): an allocation that would exceed it
//   first returns cached segments to the OS and retries, then fails with
//   kRtMemoryAllocation and a message stating requested, allocated, reserved
//   and limit bytes. The limit bounds reserved bytes (live + cached). Under a
//   limit the large pool does not split a cached segment for a smaller request
//   (it gets a segment of its own size), so every cached large block is a
//   whole segment that the retry can return: a large request that fits under
//   limit - allocated bytes succeeds. Cached space inside small-pool segments
//   that hold a live block (at most 2 MiB per such segment) cannot be returned
//   and still counts against the limit. set_limit() below reserved bytes
//   returns cached segments at once.
// * Statistics: see MemoryStats.
// * The pool never blocks waiting for a stream (empty_cache and the
//   out-of-memory retry skip blocks whose stream points are still pending), so
//   it may be used from stream tasks and callbacks.
//
// Errors: allocate() fails with kRtMemoryAllocation when the limit would be
// exceeded ("[allocate] out of memory: requested N bytes (M rounded), allocated A
// bytes, reserved R bytes, limit L bytes") or when the device allocator fails
// (same text, "limit none" without a limit, followed by the device's message).
// free() of a pointer not handed out (or freed twice, or nullptr) returns
// kRtMemoryFree; record_stream() of a pointer not in use returns kInvalidParam.
//
// Thread-safety: all methods may be called from any thread (one mutex per pool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <atomic>

#include "asc/core/status.h"
#include "asc/runtime/device.h"

namespace asc::runtime {

class Stream;
class SubPool;

struct MemoryStats {
  size_t allocated_bytes = 0;        // bytes handed to users now (rounded sizes)
  size_t peak_allocated_bytes = 0;
  size_t reserved_bytes = 0;         // bytes obtained from the OS now (segments)
  size_t peak_reserved_bytes = 0;
  size_t requested_bytes = 0;        // bytes users asked for now (unrounded)
  uint64_t allocation_count = 0;     // successful allocate() calls
  uint64_t free_count = 0;
  uint64_t cache_hits = 0;           // allocations served from cached blocks
  uint64_t cache_misses = 0;         // allocations that needed a new segment
  uint64_t os_allocations = 0;       // segments obtained from the device allocator
  uint64_t os_frees = 0;             // segments returned to it
  uint64_t retries = 0;              // allocations that emptied the cache and retried
  uint64_t oom_count = 0;            // allocations that failed
  size_t active_blocks = 0;
  size_t cached_blocks = 0;          // free blocks kept for reuse
  size_t segments = 0;
  size_t limit_bytes = 0;            // 0 = no limit
};

class MemoryPool {
 public:
  enum class Kind { kDevice, kPinnedHost };
  MemoryPool(Device& device, Kind kind);
  ~MemoryPool();  // returns every segment to the device
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  /// A block of at least `bytes` bytes (0 gives a valid unique pointer) for use
  /// on `stream` (current stream when null).
  Result<void*> allocate(size_t bytes, Stream* stream = nullptr);
  /// allocate() that throws asc::Error.
  void* allocate_or_throw(size_t bytes, Stream* stream = nullptr);
  /// Returns a block. A pointer the pool did not hand out (or freed twice) is an
  /// error (kRtMemoryFree) and changes nothing.
  Status free(void* ptr);
  /// Marks `ptr` as also used by `stream`: it is not reused elsewhere before the
  /// work enqueued on `stream` so far has finished.
  Status record_stream(void* ptr, Stream& stream);

  /// Returns all cached segments (those with no block in use) to the device.
  /// Segments holding a block freed while a stream still had work pending on it
  /// are skipped, not waited for (they are returned by a later call once that
  /// work is done).
  void empty_cache();
  /// 0 removes the limit. A limit below current allocated bytes is accepted
  /// (later allocations fail until memory is freed).
  void set_limit(size_t bytes);
  size_t limit() const;

  MemoryStats stats() const;
  /// Resets peaks to current values and the counters (hits, retries...) to 0.
  void reset_peak_stats();

  /// True when `ptr` points inside a block in use; sets `*base`/`*size` to it
  /// (`*size` is the block's usable size: the request rounded up;
  /// `*requested` the size asked for, what the kernel checker allows). O(log n).
  bool find_allocation(const void* ptr, void** base = nullptr, size_t* size = nullptr,
                       size_t* requested = nullptr) const;

  Kind kind() const noexcept { return kind_; }
  Device& device() const noexcept { return device_; }

  /// fork() support (pthread_atfork handlers of the singletons): the forking
  /// thread holds the pool lock across fork(), so the child's pool is
  /// consistent and its lock is free (a core or stream worker of the parent
  /// may have held it, and that thread does not exist in the child).
  void lock_for_fork() noexcept;
  void unlock_after_fork() noexcept;

  /// Sub-pools created with this pool as parent (open, or closed with blocks
  /// still in use). See SubPool.
  size_t sub_pool_count() const noexcept;

  struct Impl;

 private:
  friend class SubPool;
  void record_pool_event(int kind, const void* ptr, size_t bytes, const std::string& detail);
  // Sub-pool registry (slow paths only; see SubPool).
  void add_sub_pool(const std::shared_ptr<SubPool>& sub);
  void remove_sub_pool(const SubPool* sub);
  std::shared_ptr<SubPool> sub_pool_owning(const void* ptr) const;
  Status free_foreign(void* ptr);

  Device& device_;
  Kind kind_;
  std::unique_ptr<Impl> impl_;
};

/// A sub-pool: a caching pool of its own (own segments, cache, limit and
/// statistics) that takes over the allocations a parent pool (the device pool)
/// receives on threads that entered it. Made for per-session isolation in a
/// server: one session's blocks are never handed to another session, its limit
/// fails only its own allocations, and closing it returns its memory to the
/// device.
///
/// * Routing: while a Scope is alive on a thread, `parent.allocate()` on that
///   thread is served by the sub-pool (scopes nest; the innermost wins).
///   Other threads are unaffected. A block is freed with `parent.free()` from
///   any thread, at any time (also after the scope ended): the parent finds the
///   owning sub-pool. `parent.find_allocation()` and `record_stream()` also
///   see sub-pool blocks.
/// * Inheritance: work a thread enqueues on a Stream while it is in a scope
///   runs in the same sub-pool on the stream's worker (the task holds a
///   reference, so the sub-pool outlives it; a task run after close() gets the
///   closed sub-pool's error). Threads started by other means do not inherit:
///   they enter the sub-pool with their own Scope (pyasc: ``with pool:``).
/// * Cost for code that uses no sub-pool: allocate() does one relaxed load of
///   a process-wide count of live scopes (and reads its thread-local pointer
///   only while some thread has a scope); free() and find_allocation() are
///   unchanged for the parent's own blocks (sub-pools are searched only when
///   the parent does not own the pointer, and only while sub-pools exist). No
///   lock is added to either path. Freeing a sub-pool block costs a failed
///   look-up in the parent plus one look-up per registered sub-pool (they are
///   few: one per live session).
/// * Limit: as MemoryPool::set_limit (bounds the sub-pool's reserved bytes).
///   Exceeding it fails with kRtMemoryAllocation, the message starting with
///   "sub-pool '<name>' (limit L bytes): out of memory: ...". The parent's limit
///   does not count sub-pool bytes (each pool bounds its own).
/// * close(): new allocations fail (kRtMemoryAllocation, "sub-pool '<name>' is
///   closed"), cached segments go back to the device at once, and the segments
///   of blocks still in use go back when the last of them is freed; then the
///   parent forgets the sub-pool. Idempotent. The parent holds a reference to
///   an open sub-pool: call close() when done with it (the Python binding
///   closes it when its handle is collected).
///
/// Thread-safety: all methods may be called from any thread; a Scope must be
/// ended on the thread that began it (its destructor does that for RAII use).
class SubPool : public std::enable_shared_from_this<SubPool> {
 public:
  /// A new open sub-pool of `parent` (limit 0 = none), registered with it.
  static std::shared_ptr<SubPool> create(std::string name, size_t limit_bytes, MemoryPool& parent);
  ~SubPool();
  SubPool(const SubPool&) = delete;
  SubPool& operator=(const SubPool&) = delete;

  const std::string& name() const noexcept { return name_; }
  MemoryPool& parent() const noexcept { return parent_; }
  /// The sub-pool's own caching pool (statistics, direct allocation).
  MemoryPool& pool() noexcept { return *pool_; }
  Result<void*> allocate(size_t bytes, Stream* stream = nullptr);
  MemoryStats stats() const { return pool_->stats(); }
  void set_limit(size_t bytes) { pool_->set_limit(bytes); }
  size_t limit() const { return pool_->limit(); }
  void empty_cache() { pool_->empty_cache(); }
  void close();
  bool closed() const noexcept { return closed_.load(std::memory_order_acquire); }
  /// True once closed and every block freed: its memory is back with the device.
  bool drained() const noexcept { return drained_.load(std::memory_order_acquire); }

  /// Routes the calling thread's allocations from the parent to `sub` until
  /// end() (or destruction); restores the previous routing then.
  class Scope {
   public:
    explicit Scope(std::shared_ptr<SubPool> sub);
    ~Scope() { end(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    /// kInvalidParam when called on another thread than the constructor's or
    /// out of nesting order; ending twice is a no-op.
    Status end();

   private:
    std::shared_ptr<SubPool> sub_;
    SubPool* prev_ = nullptr;
    std::thread::id thread_;
    bool active_ = true;
  };
  /// The calling thread's current sub-pool (nullptr: none).
  static SubPool* current() noexcept;

 private:
  SubPool(std::string name, MemoryPool& parent);
  friend class MemoryPool;
  // After a free of one of its blocks: returns the memory once closed and empty.
  void maybe_drain();

  std::string name_;
  MemoryPool& parent_;
  std::unique_ptr<MemoryPool> pool_;
  std::atomic<bool> closed_{false};
  std::atomic<bool> drained_{false};
};

/// The current device's pool (limit from ASC_MEMORY_LIMIT; an invalid value is
/// logged as a warning and ignored). Created on first use and never destroyed,
/// so blocks may be freed during static destruction.
MemoryPool& device_pool();
/// The pinned host memory pool (same lifetime as device_pool()).
MemoryPool& pinned_host_pool();

/// Parses a memory size: decimal bytes with an optional K, M or G suffix
/// (binary multiples; "KB"/"KiB" and lower case accepted, surrounding spaces
/// ignored), e.g. "1073741824", "512M", "8G". "0" means no limit. Anything else,
/// or a value that overflows, is kInvalidParam.
Result<size_t> parse_memory_limit(const std::string& text);

/// Owning handle to a pool block (moves, frees on destruction).
class PoolBuffer {
 public:
  PoolBuffer() = default;
  static Result<PoolBuffer> allocate(size_t bytes, MemoryPool& pool, Stream* stream = nullptr);
  PoolBuffer(PoolBuffer&& o) noexcept : pool_(o.pool_), ptr_(o.ptr_), size_(o.size_) {
    o.ptr_ = nullptr;
    o.size_ = 0;
  }
  PoolBuffer& operator=(PoolBuffer&& o) noexcept;
  ~PoolBuffer() { reset(); }
  void reset() noexcept;
  void* get() const noexcept { return ptr_; }
  size_t size() const noexcept { return size_; }
  template <typename T> T* as() const noexcept { return static_cast<T*>(ptr_); }
  /// Gives up ownership.
  void* release() noexcept {
    void* p = ptr_;
    ptr_ = nullptr;
    return p;
  }

 private:
  MemoryPool* pool_ = nullptr;
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace asc::runtime
