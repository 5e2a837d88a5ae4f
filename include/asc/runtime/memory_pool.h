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

#include "asc/core/status.h"
#include "asc/runtime/device.h"

namespace asc::runtime {

class Stream;

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

  struct Impl;

 private:
  void record_pool_event(int kind, const void* ptr, size_t bytes, const std::string& detail);

  Device& device_;
  Kind kind_;
  std::unique_ptr<Impl> impl_;
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
