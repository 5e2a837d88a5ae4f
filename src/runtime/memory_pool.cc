// The caching memory pool (see include/asc/runtime/memory_pool.h).
//
// Layout of the bookkeeping:
//
// * Segment: one allocation from the device (2 MiB for the small pool, the
//   rounded request for the large pool). Its blocks form an address-ordered
//   doubly-linked list (prev/next) so that splitting and coalescing are O(1).
// * Free blocks live in exactly one of three places:
//     - the fast cache: intrusive LIFO lists of freed blocks by exact size
//       (an array indexed by size / 512 for the small pool, a small hash table
//       for large sizes). free() pushes, allocate() of the same rounded size
//       pops: no tree operation, no heap allocation, no coalescing on the hot
//       path. Coalescing is deferred: a pool's fast cache is flushed into its
//       tree when the tree cannot serve a request (or, in the small pool,
//       before a whole free segment would be broken up) and before segments
//       are returned to the device;
//     - a best-fit tree per pool (std::set ordered by (tag, size, address)),
//       where neighbours with the same tag are coalesced on insertion;
//     - the multi list: blocks freed while two or more streams still had
//       pending work on them (needs record_stream). Nobody may use them until
//       at most one such stream remains.
// * Stream tags. A free block's `tag` is 0 when any stream may use it, or the
//   key of the one stream whose work may still use it: that stream may reuse
//   the block at once (its work is ordered); any other stream only once the
//   stream point `tag_seq` completed or the stream is gone (an expired stream
//   has drained: its destructor synchronizes). Keeping the tag in the tree key
//   makes "best fit usable by stream S" two lower_bound calls (tag 0, tag S).
// * Lazy stream points. free() does not look at the stream at all (reading it
//   safely would need weak_ptr::lock(), two atomic read-modify-writes on the
//   hot path): it tags the block with the allocation stream and leaves
//   tag_seq = 0, "unresolved". The first time another stream considers the
//   block, the point is resolved to the stream's last enqueued task *then*
//   (or the block is clean at once if the stream is idle or gone). That point
//   is never earlier than the one at free time, so reuse is never early; it
//   may be later when the stream got more work in between. record_stream()
//   blocks take the slow path in free() and get exact points.
// * Every block (active or free) is indexed twice: by exact address in an
//   open-addressing hash table (free() and record_stream() look-ups, O(1)), and
//   in an address-ordered std::map (find_allocation(), O(log n)). Both change
//   only when blocks are split, merged, created or released - never on the
//   cached allocate/free fast path.
//
// Locking: one mutex per pool (PoolLock: std::mutex's lock+unlock pair was
// about two thirds of a cached allocate+free pair on our machines; the pool's
// critical sections are tens of nanoseconds, except a device allocation, during
// which waiters back off to sleeping). Stream references obtained by locking weak_ptrs
// while the mutex is held are released only after it is unlocked (Graveyard):
// dropping the last reference to a stream runs ~Stream, which drains the
// stream, whose tasks may call free() on this pool - a self-deadlock if it ran
// under the mutex. The pool never waits for a stream while holding the mutex.
#include "asc/runtime/memory_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "asc/core/log.h"
#include "asc/runtime/profiler.h"
#include "asc/runtime/stream.h"
#include "runtime/spin_wait.h"
#include "runtime/sub_pool_state.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace asc::runtime {
namespace detail {
// The sub-pool routing state (declared in runtime/sub_pool_state.h, used by
// sub_pool.cc). Defined here, next to its hot read in MemoryPool::allocate.
thread_local SubPool* t_sub_pool ASC_RUNTIME_INTERNAL = nullptr;
std::atomic<int> g_sub_scopes ASC_RUNTIME_INTERNAL{0};
}  // namespace detail
using detail::g_sub_scopes;
using detail::t_sub_pool;

namespace {

// Whether this thread's last allocation was served from the cache (for the
// profiler's alloc events; written on the allocating thread only).
thread_local bool t_last_alloc_hit = false;

constexpr size_t kAlignment = 64;
constexpr size_t kRound = 512;                     // rounding unit (multiple of kAlignment)
constexpr size_t kSmallSize = size_t(1) << 20;     // largest small-pool request
constexpr size_t kSmallSegment = size_t(2) << 20;  // small-pool segment size
constexpr size_t kLargeRoundLimit = size_t(10) << 20;
constexpr size_t kLargeGranule = size_t(2) << 20;
constexpr size_t kMaxRequest = size_t(1) << 60;    // keeps the rounding overflow-free
constexpr size_t kNumClasses = kSmallSize / kRound + 1;  // small fast-cache index = size / kRound
constexpr size_t kClassWords = (kNumClasses + 63) / 64;
constexpr size_t kLargeFastSlots = 64;  // power of two
constexpr size_t kLargeFastSizes = 32;  // distinct large sizes cached before a flush
constexpr int kFastScan = 4;
constexpr uint64_t kStaleAfter = 8;  // see flush_stale()  // fast-cache entries examined before falling back to the tree
constexpr uint64_t kMultiTag = std::numeric_limits<uint64_t>::max();

static_assert(kRound % kAlignment == 0, "block sizes must keep 64-byte alignment");

size_t round_size(size_t bytes) noexcept {
  if (bytes == 0) return kRound;
  if (bytes <= kLargeRoundLimit) return (bytes + kRound - 1) & ~(kRound - 1);
  return (bytes + kLargeGranule - 1) & ~(kLargeGranule - 1);
}

// Home slot of a large size (sizes above 10 MiB are multiples of 2 MiB: hash
// them, do not just mask).
inline size_t large_fast_slot(size_t size) noexcept {
  return static_cast<size_t>(((static_cast<uint64_t>(size) >> 9) * 0x9E3779B97F4A7C15ull) >> 58);
}
static_assert(kLargeFastSlots == 64, "large_fast_slot() yields 6 bits");

// 0 = no stream. Stream ids are only assumed unique, so shift them off 0.
inline uint64_t stream_key(const Stream* s) noexcept { return s ? s->id() + 1 : 0; }

std::string hex_ptr(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

enum class BlockState : uint8_t { kActive, kFreeFast, kFreeTree, kFreeMulti };

struct StreamPoint {
  uint64_t key;
  std::weak_ptr<Stream> stream;
  uint64_t seq;  // the stream's last enqueued task when the block was freed
};

struct Segment;
struct Block;

struct FreeKey {
  uint64_t tag;
  size_t size;
  uintptr_t addr;
};

// Orders free blocks by (tag, size, address): best fit for one tag is a
// lower_bound.
struct BlockLess {
  using is_transparent = void;
  static FreeKey key(const Block* b) noexcept;
  static bool less(const FreeKey& a, const FreeKey& b) noexcept {
    return std::tie(a.tag, a.size, a.addr) < std::tie(b.tag, b.size, b.addr);
  }
  bool operator()(const Block* a, const Block* b) const noexcept { return less(key(a), key(b)); }
  bool operator()(const Block* a, const FreeKey& b) const noexcept { return less(key(a), b); }
  bool operator()(const FreeKey& a, const Block* b) const noexcept { return less(a, key(b)); }
};
using FreeTree = std::set<Block*, BlockLess>;
using AddrMap = std::map<uintptr_t, Block*>;

struct Block {
  char* ptr = nullptr;
  size_t size = 0;
  Segment* seg = nullptr;
  Block* prev = nullptr;  // address neighbours inside the segment
  Block* next = nullptr;
  Block* fl_prev = nullptr;  // fast-cache links
  Block* fl_next = nullptr;
  Block* age_prev = nullptr;  // fast-cache age list (free order)
  Block* age_next = nullptr;
  uint64_t free_gen = 0;      // fast-cache entry number
  BlockState state = BlockState::kFreeTree;
  size_t requested = 0;
  // The stream of the last allocation. The weak_ptr is re-assigned only when the
  // stream changes, so same-stream reuse costs no atomic operation.
  uint64_t alloc_key = 0;
  std::weak_ptr<Stream> alloc_stream;
  // Free blocks: 0, or the one stream whose work may still use the block.
  uint64_t tag = 0;
  uint64_t tag_seq = 0;              // 0 = not resolved yet (see the file comment)
  std::weak_ptr<Stream> tag_stream;  // meaningful only when tag != alloc_key
  // Active: streams added by record_stream(). kFreeMulti: the pending points.
  std::vector<StreamPoint> points;
  // The block's own tree and address-map nodes while it is outside them
  // (extract/insert of node handles): splitting, merging and moving blocks
  // between the fast cache and the tree then allocate nothing.
  FreeTree::node_type tree_node;
  AddrMap::node_type addr_node;

  const std::weak_ptr<Stream>& tag_weak() const noexcept {
    return tag == alloc_key ? alloc_stream : tag_stream;
  }
};

inline FreeKey BlockLess::key(const Block* b) noexcept {
  return {b->tag, b->size, reinterpret_cast<uintptr_t>(b->ptr)};
}

struct Segment {
  char* base = nullptr;
  size_t size = 0;
  bool small = false;
  size_t active = 0;  // blocks in use
  Block* first = nullptr;
  Segment* prev = nullptr;
  Segment* next = nullptr;
};


// Exact-address index: linear probing, backward-shift deletion, load <= 1/2.
// nullptr marks an empty slot (the device never hands out nullptr).
class PtrMap {
 public:
  PtrMap() : slots_(64), mask_(63) {}

  Block* find(const void* p) const noexcept {
    for (size_t i = slot_of(p);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == p) return s.value;
      if (!s.key) return nullptr;
    }
  }
  void insert(const void* p, Block* b) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place(p, b);
    ++size_;
  }
  void erase(const void* p) noexcept {
    size_t i = slot_of(p);
    while (slots_[i].key != p) {
      if (!slots_[i].key) return;
      i = (i + 1) & mask_;
    }
    for (size_t j = (i + 1) & mask_; slots_[j].key; j = (j + 1) & mask_) {
      const size_t k = slot_of(slots_[j].key);
      // The entry at j may move to the hole at i unless its home k lies in (i, j].
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = Slot{};
    --size_;
  }

 private:
  struct Slot {
    const void* key = nullptr;
    Block* value = nullptr;
  };
  size_t slot_of(const void* p) const noexcept {
    // Blocks are 64-byte aligned: drop the zero bits, then Fibonacci-hash.
    const uint64_t h = (static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)) >> 6) *
                       0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h >> 32) & mask_;
  }
  void place(const void* p, Block* b) noexcept {
    size_t i = slot_of(p);
    while (slots_[i].key) i = (i + 1) & mask_;
    slots_[i] = Slot{p, b};
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& s : old)
      if (s.key) place(s.key, s.value);
  }

  std::vector<Slot> slots_;
  size_t mask_;
  size_t size_ = 0;
};

// The pool mutex. Uncontended: one atomic exchange to lock, a plain release
// store to unlock (std::mutex needs a read-modify-write for both). Contended:
// spin briefly, then yield, then sleep in short steps, so a waiter does not burn
// a core while the holder asks the device for memory.
class PoolLock {
 public:
  void lock() noexcept {
    if (!locked_.exchange(true, std::memory_order_acquire)) return;
    lock_contended();
  }
  bool try_lock() noexcept {
    return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire);
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  // Short spin: critical sections are tens of nanoseconds. Early yield: with
  // more threads than cores (stream and core workers) the holder may be
  // descheduled, and spinning then only delays it; on a 2-core machine with 4
  // threads this kept contended throughput at ~50 ns per allocate+free pair,
  // where std::mutex took ~110 ns and a 128-iteration spin ~250 ns.
  void lock_contended() noexcept {
    for (unsigned round = 0;; ++round) {
      if (try_lock()) return;
      if (round < 16)
        ASC_CPU_RELAX();
      else if (round < 32)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
  std::atomic<bool> locked_{false};
};

// Stream references taken under the pool mutex, dropped after it is released
// (see the file comment). Empty - and allocation-free - on the fast paths.
struct Graveyard {
  std::vector<std::shared_ptr<Stream>> refs;
};

// Whether a stream point has completed; resolves an unresolved point (seq 0)
// to the stream's current last task when that has not completed yet.
bool point_done(const Stream& s, uint64_t& seq) noexcept {
  if (seq == 0) {
    const uint64_t last = s.last_enqueued();
    if (s.completed() >= last) return true;
    seq = last;
    return false;
  }
  return s.completed() >= seq;
}

}  // namespace

struct MemoryPool::Impl {
  Impl(Device& d, Kind k) : device(d), kind(k) {}
  ~Impl();

  Result<void*> allocate(size_t bytes, Stream* stream);
  // `*missing` is set (and OK returned) when the pool never handed out `ptr`,
  // so that the caller can ask the sub-pools before reporting the error.
  Status free(void* ptr, bool* missing);
  Status record_stream(void* ptr, Stream& stream, bool* missing);
  void empty_cache() {
    Graveyard g;
    std::lock_guard<PoolLock> lk(mu);
    release_cached_segments(g);
  }
  bool find_allocation(const void* ptr, void** base, size_t* size, size_t* requested) const;

  // --- helpers (mutex held) ---
  Result<void*> allocate_slow(size_t bytes, size_t size, uint64_t key, Stream* stream, Graveyard& g);
  void activate(Block* b, size_t bytes, uint64_t key, Stream* stream);
  Block* find_free(FreeTree& tree, size_t size, uint64_t key) const;
  void split(Block* b, size_t size, bool exact = false);
  void insert_free(Block* b);
  Block* merge(Block* left, Block* right);
  bool consolidate(bool small, bool large, Graveyard& g);
  bool promote(Graveyard& g);
  Block** fast_head(size_t size) noexcept;
  void fast_push(Block* b, Graveyard& g);
  void fast_unlink(Block* b) noexcept;
  void flush_small_fast(Graveyard& g);
  void flush_large_fast(Graveyard& g);
  void flush_one(Block* b, Graveyard& g);
  void flush_stale(Graveyard& g);
  bool try_clean(Block* b, Graveyard& g);
  void free_recorded(Block* b, Graveyard& g);
  void release_cached_segments(Graveyard& g);
  void release_segment(Segment* seg);
  Result<void*> os_alloc(size_t bytes);
  void os_free(void* p, size_t bytes) noexcept;
  Status oom(size_t bytes, size_t size, const std::string& extra);
  FreeTree& tree_of(const Block* b) noexcept { return b->seg->small ? small_free : large_free; }
  void index_block(Block* b);
  void unindex_block(Block* b) noexcept;
  Block* new_block();
  void retire_block(Block* b) noexcept;
  static void tree_insert(FreeTree& tree, Block* b) {
    if (b->tree_node) {
      b->tree_node.value() = b;
      tree.insert(std::move(b->tree_node));
    } else {
      tree.insert(b);
    }
  }
  static void tree_erase(FreeTree& tree, Block* b) noexcept { b->tree_node = tree.extract(b); }

  struct LargeFastSlot {
    size_t size = 0;  // 0 = empty slot
    Block* head = nullptr;
  };

  Device& device;
  const Kind kind;
  mutable PoolLock mu;
  // Fast cache, small pool: list heads by size / kRound, bitmap of non-empty lists.
  Block* small_fast[kNumClasses] = {};
  uint64_t small_fast_bits[kClassWords] = {};
  size_t small_fast_count = 0;
  // Fast cache, large pool: open addressing by size; slots are only cleared by
  // a flush, which happens when kLargeFastSizes sizes are in use.
  LargeFastSlot large_fast[kLargeFastSlots];
  size_t large_fast_sizes = 0;
  size_t large_fast_count = 0;
  // All fast-cache blocks in free order, for flush_stale().
  Block* age_head = nullptr;
  Block* age_tail = nullptr;
  uint64_t fast_gen = 0;  // fast-cache entries so far
  uint64_t flush_key = 0;          // flush_one()'s last stream looked up
  Stream* flush_stream = nullptr;  // (kept alive by the flush's Graveyard)
  FreeTree small_free;
  FreeTree large_free;
  std::vector<Block*> multi;
  PtrMap by_ptr;
  AddrMap by_addr;
  Block* spare = nullptr;  // retired blocks (linked by `next`), with their nodes
  Segment* segments = nullptr;
  size_t limit = 0;
  MemoryStats st;
  // Sub-pool registry: an immutable snapshot replaced under subs_mu (readers
  // copy the shared_ptr and search without holding any lock: a sub-pool free
  // may end in a stream destructor whose tasks free more sub-pool blocks).
  // nsubs lets the parent's paths skip the registry entirely when empty.
  using SubList = std::vector<std::shared_ptr<SubPool>>;
  mutable std::mutex subs_mu;
  std::shared_ptr<const SubList> subs;
  std::atomic<size_t> nsubs{0};
  std::shared_ptr<const SubList> fork_subs;  // held from lock_for_fork to unlock_after_fork
  std::shared_ptr<const SubList> sub_snapshot() const {
    std::lock_guard<std::mutex> lk(subs_mu);
    return subs;
  }
};

MemoryPool::Impl::~Impl() {
  if (st.active_blocks != 0)
    ASC_LOG_DEBUG("memory_pool", "pool destroyed with " << st.active_blocks << " blocks ("
                                                        << st.allocated_bytes << " bytes) still in use");
  while (segments) {
    Segment* seg = segments;
    segments = seg->next;
    for (Block* b = seg->first; b;) {
      Block* n = b->next;
      delete b;
      b = n;
    }
    os_free(seg->base, seg->size);
    delete seg;
  }
  while (spare) {
    Block* n = spare->next;
    delete spare;
    spare = n;
  }
}

// ------------------------------------------------------------------ allocate

Result<void*> MemoryPool::Impl::allocate(size_t bytes, Stream* stream) {
  if (bytes > kMaxRequest) {
    std::lock_guard<PoolLock> lk(mu);
    ++st.oom_count;
    return Status::OutOfMemory("allocate", "out of memory: requested " + std::to_string(bytes) +
                                               " bytes, more than the largest supported allocation (" +
                                               std::to_string(kMaxRequest) + " bytes)");
  }
  const size_t size = round_size(bytes);
  const uint64_t key = stream_key(stream);
  Graveyard g;  // declared before the lock: released after it
  std::lock_guard<PoolLock> lk(mu);
  if (limit == 0 || st.allocated_bytes + size <= limit) {
    Block** head = fast_head(size);
    Block* const first = head ? *head : nullptr;
    Block* found = nullptr;
    // A block of this stream or a clean one; only then one guarded by another
    // stream (that needs weak_ptr::lock()).
    int i = 0;
    for (Block* c = first; c && i < kFastScan; ++i, c = c->fl_next) {
      if (c->tag == 0 || c->tag == key) {
        found = c;
        break;
      }
    }
    if (!found && first) {
      i = 0;
      for (Block* c = first; c && i < kFastScan; ++i, c = c->fl_next) {
        if (try_clean(c, g)) {
          found = c;
          break;
        }
      }
    }
    if (found) {
      Block* b = found;
      fast_unlink(b);
      ++st.cache_hits;
    t_last_alloc_hit = true;
      t_last_alloc_hit = true;
      activate(b, bytes, key, stream);
      return static_cast<void*>(b->ptr);
    }
  }
  return allocate_slow(bytes, size, key, stream, g);
}

Result<void*> MemoryPool::Impl::allocate_slow(size_t bytes, size_t size, uint64_t key, Stream* stream,
                                              Graveyard& g) {
  // Cached blocks cannot help here: allocated bytes alone would exceed the limit.
  if (limit != 0 && st.allocated_bytes + size > limit) return oom(bytes, size, "");

  const bool small = size <= kSmallSize;
  FreeTree& tree = small ? small_free : large_free;
  flush_stale(g);
  Block* b = find_free(tree, size, key);
  // Small pool: before breaking into a whole free segment (or a new one),
  // coalesce the fast cache: freed neighbours may form a fitting block inside a
  // used segment. Packing used segments keeps whole ones free for large-ish
  // requests (it cut the segments a repeated mixed workload adds after warm-up
  // by about 3x in our measurements) and returnable by empty_cache().
  // Exact-size reuse and partial-block fits never pay for it. Large segments
  // are made to measure, so a whole-segment fit is the normal case there.
  if (!b || (small && small_fast_count != 0 && b->size == b->seg->size)) {
    if (consolidate(small, !small, g)) b = find_free(tree, size, key);
  }
  // Under a limit a large block that is a whole segment is not split: a cached
  // remainder next to a live block could not be returned to the device, and
  // the limit (live + cached bytes) would then refuse requests that fit under
  // limit - live even after emptying the cache. Such a request gets a segment
  // of its own size instead (after returning cached segments if need be). The
  // block is used whole when the rest is too small to be worth a block
  // (<= 1 MiB, as without a limit) and the whole block fits under the limit.
  // Blocks that already share a segment (split before the limit was set) are
  // still used, split exactly: that only shrinks the cache in live segments.
  if (b && limit != 0 && !small && b->size == b->seg->size &&
      (b->size - size > kSmallSize || st.allocated_bytes + b->size > limit))
    b = nullptr;
  if (b) {
    tree_erase(tree, b);
    ++st.cache_hits;
    // Under a limit the whole (unsplit) block must fit, too.
    split(b, size, limit != 0 && st.allocated_bytes + b->size > limit);
    activate(b, bytes, key, stream);
    return static_cast<void*>(b->ptr);
  }

  // A new segment.
  bool retried = false;
  size_t seg_size = small ? kSmallSegment : size;
  auto fits_limit = [&](size_t n) { return limit == 0 || st.reserved_bytes + n <= limit; };
  auto shrink_small_to_limit = [&] {
    // Under a tight limit a small request still succeeds with a shorter segment.
    if (!small || fits_limit(seg_size) || limit <= st.reserved_bytes) return;
    const size_t room = (limit - st.reserved_bytes) & ~(kRound - 1);
    if (room >= size) seg_size = std::min(seg_size, room);
  };
  if (!fits_limit(seg_size)) {
    release_cached_segments(g);
    ++st.retries;
    retried = true;
    shrink_small_to_limit();
    if (!fits_limit(seg_size)) return oom(bytes, size, "");
  }
  Result<void*> mem = os_alloc(seg_size);
  if (!mem.ok()) {
    if (!retried) {
      release_cached_segments(g);
      ++st.retries;
      retried = true;
      mem = os_alloc(seg_size);
    }
    if (!mem.ok() && seg_size > size) {
      seg_size = size;
      mem = os_alloc(seg_size);
    }
    if (!mem.ok())
      return oom(bytes, size,
                 "; the device allocator could not provide " + std::to_string(seg_size) +
                     " bytes: " + mem.status().message());
  }

  auto* seg = new Segment;
  seg->base = static_cast<char*>(mem.value());
  seg->size = seg_size;
  seg->small = small;
  seg->next = segments;
  if (segments) segments->prev = seg;
  segments = seg;
  b = new_block();
  b->ptr = seg->base;
  b->size = seg_size;
  b->seg = seg;
  seg->first = b;
  index_block(b);
  ++st.cached_blocks;
  ++st.segments;
  ++st.os_allocations;
  ++st.cache_misses;
  t_last_alloc_hit = false;
  st.reserved_bytes += seg_size;
  st.peak_reserved_bytes = std::max(st.peak_reserved_bytes, st.reserved_bytes);
  ASC_LOG_DEBUG("memory_pool", "new " << (small ? "small" : "large") << " segment of " << seg_size
                                      << " bytes at " << static_cast<void*>(seg->base) << " (reserved "
                                      << st.reserved_bytes << ")");
  split(b, size);
  activate(b, bytes, key, stream);
  return static_cast<void*>(b->ptr);
}

void MemoryPool::Impl::activate(Block* b, size_t bytes, uint64_t key, Stream* stream) {
  b->state = BlockState::kActive;
  b->requested = bytes;
  if (b->alloc_key != key) {
    b->alloc_key = key;
    b->alloc_stream = stream ? stream->weak_from_this() : std::weak_ptr<Stream>();
  }
  b->tag = 0;
  ++b->seg->active;
  st.allocated_bytes += b->size;
  st.peak_allocated_bytes = std::max(st.peak_allocated_bytes, st.allocated_bytes);
  st.requested_bytes += bytes;
  ++st.allocation_count;
  ++st.active_blocks;
  --st.cached_blocks;
}

Block* MemoryPool::Impl::find_free(FreeTree& tree, size_t size, uint64_t key) const {
  Block* best = nullptr;
  auto it = tree.lower_bound(FreeKey{0, size, 0});
  if (it != tree.end() && (*it)->tag == 0) best = *it;
  if (key != 0) {
    auto mine = tree.lower_bound(FreeKey{key, size, 0});
    // On a tie the stream takes its own guarded block and leaves the clean one
    // to streams that cannot use the guarded one yet.
    if (mine != tree.end() && (*mine)->tag == key && (!best || (*mine)->size <= best->size)) best = *mine;
  }
  return best;
}

// `b` is out of every free structure and about to be handed out; keeps `size`
// bytes of it and caches the rest (`exact`: any remainder).
void MemoryPool::Impl::split(Block* b, size_t size, bool exact) {
  b->state = BlockState::kActive;  // so that the remainder does not coalesce back into it
  const size_t rest = b->size - size;
  // Large-pool remainders of a small-pool size stay with the block: the large
  // pool never serves small requests, so they would only fragment it.
  if (rest < kRound || (!exact && !b->seg->small && rest <= kSmallSize)) return;
  Block* r = new_block();
  r->ptr = b->ptr + size;
  r->size = rest;
  r->seg = b->seg;
  r->tag = b->tag;
  r->tag_seq = b->tag_seq;
  if (r->tag != 0) r->tag_stream = b->tag_weak();
  index_block(r);  // may throw: nothing is linked yet
  r->prev = b;
  r->next = b->next;
  if (b->next) b->next->prev = r;
  b->next = r;
  b->size = size;
  ++st.cached_blocks;
  insert_free(r);
}

// `b` is free and out of every structure; coalesces it with tree neighbours of
// the same tag and inserts the result.
void MemoryPool::Impl::insert_free(Block* b) {
  FreeTree& tree = tree_of(b);
  if (b->prev && b->prev->state == BlockState::kFreeTree && b->prev->tag == b->tag) {
    tree_erase(tree, b->prev);
    b = merge(b->prev, b);
  }
  if (b->next && b->next->state == BlockState::kFreeTree && b->next->tag == b->tag) {
    tree_erase(tree, b->next);
    b = merge(b, b->next);
  }
  b->state = BlockState::kFreeTree;
  tree_insert(tree, b);
}

// Both free, out of the trees, same tag, adjacent. Keeps `left`.
Block* MemoryPool::Impl::merge(Block* left, Block* right) {
  left->size += right->size;
  left->next = right->next;
  if (right->next) right->next->prev = left;
  // An unresolved point (0) stands for "whatever the stream has enqueued when
  // asked", which covers any resolved one.
  left->tag_seq = (left->tag_seq == 0 || right->tag_seq == 0) ? 0 : std::max(left->tag_seq, right->tag_seq);
  unindex_block(right);
  retire_block(right);
  --st.cached_blocks;
  return left;
}

// --------------------------------------------------------------- fast cache

// The list head for blocks of exactly `size` bytes, or nullptr when the large
// table has no list for it.
Block** MemoryPool::Impl::fast_head(size_t size) noexcept {
  if (size <= kSmallSize) return &small_fast[size / kRound];
  for (size_t i = large_fast_slot(size);; i = (i + 1) & (kLargeFastSlots - 1)) {
    LargeFastSlot& s = large_fast[i];
    if (s.size == size) return &s.head;
    if (s.size == 0) return nullptr;
  }
}

void MemoryPool::Impl::fast_push(Block* b, Graveyard& g) {
  Block** head = fast_head(b->size);
  if (!head) {
    if (large_fast_sizes >= kLargeFastSizes) flush_large_fast(g);
    size_t i = large_fast_slot(b->size);
    while (large_fast[i].size != 0) i = (i + 1) & (kLargeFastSlots - 1);
    large_fast[i].size = b->size;
    ++large_fast_sizes;
    head = &large_fast[i].head;
  }
  b->state = BlockState::kFreeFast;
  b->fl_prev = nullptr;
  b->fl_next = *head;
  if (*head) (*head)->fl_prev = b;
  *head = b;
  b->free_gen = ++fast_gen;
  b->age_next = nullptr;
  b->age_prev = age_tail;
  if (age_tail)
    age_tail->age_next = b;
  else
    age_head = b;
  age_tail = b;
  if (b->size <= kSmallSize) {
    const size_t c = b->size / kRound;
    small_fast_bits[c / 64] |= uint64_t(1) << (c % 64);
    ++small_fast_count;
  } else {
    ++large_fast_count;
  }
}

void MemoryPool::Impl::fast_unlink(Block* b) noexcept {
  if (b->fl_prev) {
    b->fl_prev->fl_next = b->fl_next;
  } else {
    Block** head = fast_head(b->size);
    *head = b->fl_next;
    if (!*head && b->size <= kSmallSize) {
      const size_t c = b->size / kRound;
      small_fast_bits[c / 64] &= ~(uint64_t(1) << (c % 64));
    }
  }
  if (b->fl_next) b->fl_next->fl_prev = b->fl_prev;
  b->fl_prev = b->fl_next = nullptr;
  if (b->age_prev)
    b->age_prev->age_next = b->age_next;
  else
    age_head = b->age_next;
  if (b->age_next)
    b->age_next->age_prev = b->age_prev;
  else
    age_tail = b->age_prev;
  if (b->size <= kSmallSize)
    --small_fast_count;
  else
    --large_fast_count;
}

// Moves a fast-cache block into its tree. Its lazy stream point is checked
// first: a block whose stream is idle (or gone) enters the tree clean and so
// coalesces with clean neighbours. Blocks mostly come from a few streams, so
// the last stream looked up is remembered for the flush.
void MemoryPool::Impl::flush_one(Block* b, Graveyard& g) {
  fast_unlink(b);
  if (b->tag != 0) {
    if (b->tag != flush_key) {
      flush_key = b->tag;
      std::shared_ptr<Stream> s = b->tag_weak().lock();
      flush_stream = s.get();
      if (s) g.refs.push_back(std::move(s));
    }
    if (!flush_stream || point_done(*flush_stream, b->tag_seq)) b->tag = 0;
  }
  insert_free(b);
}

// Slow path: blocks that waited in the fast cache while kStaleAfter later
// blocks were cached are not being reused soon at their size. Coalescing them
// lets best fit place the next requests into holes of used segments instead of
// reusing exact slots, which keeps large holes free: a repeated 8-live-block
// mixed workload needed a new segment after warm-up 3x less often than with no
// such flush (4 was better still, 7x, but a rotation of 5+ sizes with one live
// block would then never hit the fast path: 8 keeps rotations of up to 8 sizes
// at fast-path cost). Recently freed blocks stay.
void MemoryPool::Impl::flush_stale(Graveyard& g) {
  flush_key = 0;
  while (age_head && age_head->free_gen + kStaleAfter <= fast_gen) flush_one(age_head, g);
}

void MemoryPool::Impl::flush_small_fast(Graveyard& g) {
  flush_key = 0;
  for (size_t w = 0; w < kClassWords && small_fast_count != 0; ++w) {
    while (small_fast_bits[w] != 0) {
      const size_t c = w * 64 + static_cast<size_t>(__builtin_ctzll(small_fast_bits[w]));
      while (Block* b = small_fast[c]) flush_one(b, g);
    }
  }
}

void MemoryPool::Impl::flush_large_fast(Graveyard& g) {
  flush_key = 0;
  // Empty every list first: clearing a slot early would cut the probe chains
  // that fast_unlink() still follows for lists in later slots.
  for (LargeFastSlot& s : large_fast)
    while (Block* b = s.head) flush_one(b, g);
  for (LargeFastSlot& s : large_fast) s = LargeFastSlot{};
  large_fast_sizes = 0;
}

// A fast-cache block tagged with another stream: usable once that stream's
// point completed (or the stream is gone).
bool MemoryPool::Impl::try_clean(Block* b, Graveyard& g) {
  std::shared_ptr<Stream> s = b->tag_weak().lock();
  const bool done = !s || point_done(*s, b->tag_seq);
  if (s) g.refs.push_back(std::move(s));
  if (done) b->tag = 0;
  return done;
}

// ------------------------------------------------------- deferred upkeep

// Flushes the chosen pools' fast caches and promotes blocks whose stream points
// completed. Returns whether the free structures changed.
bool MemoryPool::Impl::consolidate(bool small, bool large, Graveyard& g) {
  bool changed = false;
  if (small && small_fast_count != 0) {
    flush_small_fast(g);
    changed = true;
  }
  if (large && large_fast_count != 0) {
    flush_large_fast(g);
    changed = true;
  }
  return promote(g) || changed;
}

bool MemoryPool::Impl::promote(Graveyard& g) {
  std::vector<Block*> done;
  for (FreeTree* tree : {&small_free, &large_free}) {
    // Tagged blocks sit after the tag-0 range, grouped by tag.
    uint64_t cur_tag = 0;
    Stream* s = nullptr;
    for (auto it = tree->lower_bound(FreeKey{1, 0, 0}); it != tree->end(); ++it) {
      Block* b = *it;
      if (b->tag != cur_tag) {
        cur_tag = b->tag;
        std::shared_ptr<Stream> sp = b->tag_weak().lock();
        s = sp.get();
        if (sp) g.refs.push_back(std::move(sp));
      }
      // tag_seq is not part of the tree key: resolving it in place is fine.
      if (!s || point_done(*s, b->tag_seq)) done.push_back(b);
    }
  }
  for (Block* b : done) {
    tree_erase(tree_of(b), b);
    b->tag = 0;
    insert_free(b);
  }
  bool changed = !done.empty();
  for (size_t i = 0; i < multi.size();) {
    Block* b = multi[i];
    auto& pts = b->points;
    pts.erase(std::remove_if(pts.begin(), pts.end(),
                             [&](StreamPoint& p) {
                               std::shared_ptr<Stream> sp = p.stream.lock();
                               const bool fin = !sp || point_done(*sp, p.seq);
                               if (sp) g.refs.push_back(std::move(sp));
                               return fin;
                             }),
              pts.end());
    if (pts.size() > 1) {
      ++i;
      continue;
    }
    multi[i] = multi.back();
    multi.pop_back();
    if (pts.empty()) {
      b->tag = 0;
    } else {
      b->tag = pts[0].key;
      b->tag_seq = pts[0].seq;
      if (b->tag != b->alloc_key) b->tag_stream = pts[0].stream;
    }
    pts.clear();
    insert_free(b);
    changed = true;
  }
  return changed;
}

void MemoryPool::Impl::release_cached_segments(Graveyard& g) {
  consolidate(true, true, g);
  for (Segment* seg = segments; seg;) {
    Segment* next = seg->next;
    Block* b = seg->first;
    if (seg->active == 0 && b->size == seg->size && b->state == BlockState::kFreeTree && b->tag == 0)
      release_segment(seg);
    seg = next;
  }
}

void MemoryPool::Impl::release_segment(Segment* seg) {
  Block* b = seg->first;
  tree_erase(tree_of(b), b);
  unindex_block(b);
  retire_block(b);
  --st.cached_blocks;
  if (seg->prev)
    seg->prev->next = seg->next;
  else
    segments = seg->next;
  if (seg->next) seg->next->prev = seg->prev;
  os_free(seg->base, seg->size);
  st.reserved_bytes -= seg->size;
  --st.segments;
  ++st.os_frees;
  ASC_LOG_DEBUG("memory_pool", "returned segment of " << seg->size << " bytes at "
                                                      << static_cast<void*>(seg->base));
  delete seg;
}

// --------------------------------------------------------------------- free

Status MemoryPool::Impl::free(void* ptr, bool* missing) {
  Graveyard g;  // declared before the lock: released after it
  std::unique_lock<PoolLock> lk(mu);
  Block* b = ptr ? by_ptr.find(ptr) : nullptr;
  if (!b || b->state != BlockState::kActive) {
    const bool twice = b != nullptr;
    lk.unlock();
    if (ptr && !twice && missing) {
      *missing = true;
      return Status::OK();
    }
    if (!ptr) return Status::Make(ErrorCode::kRtMemoryFree, "free", "null pointer");
    return Status::Make(ErrorCode::kRtMemoryFree, "free",
                        "pointer " + hex_ptr(ptr) +
                            (twice ? " was already freed (double free)"
                                   : " was not allocated by this pool (or was already freed)"));
  }
  --b->seg->active;
  st.allocated_bytes -= b->size;
  st.requested_bytes -= b->requested;
  ++st.free_count;
  --st.active_blocks;
  ++st.cached_blocks;
  b->tag = b->alloc_key;  // lazy stream point (see the file comment)
  b->tag_seq = 0;
  if (!b->points.empty()) {
    free_recorded(b, g);
    if (b->state == BlockState::kFreeMulti) return Status::OK();
  }
  fast_push(b, g);
  return Status::OK();
}

// free() of a block with record_stream() streams: exact points for every stream
// with pending work now.
void MemoryPool::Impl::free_recorded(Block* b, Graveyard& g) {
  std::vector<StreamPoint> pending;
  auto consider = [&](uint64_t key, const std::weak_ptr<Stream>& w) {
    std::shared_ptr<Stream> s = w.lock();
    if (!s) return;
    const uint64_t last = s->last_enqueued();
    if (last > s->completed()) pending.push_back({key, w, last});
    g.refs.push_back(std::move(s));
  };
  if (b->alloc_key != 0) consider(b->alloc_key, b->alloc_stream);
  for (const StreamPoint& p : b->points) consider(p.key, p.stream);
  b->points.clear();
  if (pending.size() > 1) {
    b->points = std::move(pending);
    b->tag = kMultiTag;
    b->state = BlockState::kFreeMulti;
    multi.push_back(b);
    return;
  }
  b->tag = pending.empty() ? 0 : pending[0].key;
  b->tag_seq = pending.empty() ? 0 : pending[0].seq;
  if (b->tag != 0 && b->tag != b->alloc_key) b->tag_stream = pending[0].stream;
}

Status MemoryPool::Impl::record_stream(void* ptr, Stream& stream, bool* missing) {
  const uint64_t key = stream_key(&stream);
  std::weak_ptr<Stream> w = stream.weak_from_this();  // outside the lock: atomics only
  std::lock_guard<PoolLock> lk(mu);
  Block* b = ptr ? by_ptr.find(ptr) : nullptr;
  if (!b && ptr && missing) {
    *missing = true;
    return Status::OK();
  }
  if (!b || b->state != BlockState::kActive)
    return Status::Invalid("record_stream", "pointer " + hex_ptr(ptr) + " is not a block in use of this pool");
  if (key == b->alloc_key) return Status::OK();
  for (const StreamPoint& p : b->points)
    if (p.key == key) return Status::OK();
  b->points.push_back({key, std::move(w), 0});
  return Status::OK();
}

bool MemoryPool::Impl::find_allocation(const void* ptr, void** base, size_t* size, size_t* requested) const {
  const auto addr = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<PoolLock> lk(mu);
  auto it = by_addr.upper_bound(addr);
  if (it == by_addr.begin()) return false;
  const Block* b = std::prev(it)->second;
  if (b->state != BlockState::kActive || addr >= reinterpret_cast<uintptr_t>(b->ptr) + b->size) return false;
  if (base) *base = b->ptr;
  if (size) *size = b->size;
  if (requested) *requested = b->requested;
  return true;
}

// ------------------------------------------------------------ OS and errors

// Large segments are first touched by the kernels writing them: with
// transparent huge pages in "madvise" mode, asking for 2 MiB pages on the
// segment's 2 MiB-aligned interior makes that one fault (and one 2 MiB clear)
// per 2 MiB instead of per 4 KiB. Advice only: failures are ignored, memory
// semantics are unchanged. ASC_POOL_HUGEPAGES=0 turns it off (A/B timing).
static void advise_huge_pages(void* p, size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr size_t kHuge = size_t(2) << 20;
  static const bool enabled = [] {
    const char* e = std::getenv("ASC_POOL_HUGEPAGES");
    return !(e && e[0] == '0');
  }();
  if (!enabled || bytes < 2 * kHuge) return;
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (hi > lo) (void)::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

Result<void*> MemoryPool::Impl::os_alloc(size_t bytes) {
  const char* op = kind == Kind::kDevice ? "os_allocate" : "os_allocate_host";
  try {
    Result<void*> r = kind == Kind::kDevice ? device.os_allocate(bytes) : device.os_allocate_host(bytes);
    if (!r.ok()) return r;
    void* p = r.value();
    if (!p) return Status::OutOfMemory(op, "the device returned a null pointer for " + std::to_string(bytes) + " bytes");
    if (reinterpret_cast<uintptr_t>(p) % kAlignment != 0) {
      os_free(p, bytes);
      return Status::Internal(op, "the device returned " + hex_ptr(p) + ", which is not 64-byte aligned");
    }
    advise_huge_pages(p, bytes);
    return p;
  } catch (...) {
    return StatusFromCurrentException(op);
  }
}

void MemoryPool::Impl::os_free(void* p, size_t bytes) noexcept {
  if (kind == Kind::kDevice)
    device.os_free(p, bytes);
  else
    device.os_free_host(p, bytes);
}

Status MemoryPool::Impl::oom(size_t bytes, size_t size, const std::string& extra) {
  ++st.oom_count;
  std::string msg = "out of memory: requested " + std::to_string(bytes) + " bytes (" + std::to_string(size) +
                    " rounded), allocated " + std::to_string(st.allocated_bytes) + " bytes, reserved " +
                    std::to_string(st.reserved_bytes) + " bytes, limit " +
                    (limit ? std::to_string(limit) + " bytes" : std::string("none")) + extra;
  ASC_LOG_DEBUG("memory_pool", msg);
  return Status::OutOfMemory("allocate", msg);
}

void MemoryPool::Impl::index_block(Block* b) {
  const auto addr = reinterpret_cast<uintptr_t>(b->ptr);
  if (b->addr_node) {
    b->addr_node.key() = addr;
    b->addr_node.mapped() = b;
    by_addr.insert(std::move(b->addr_node));
  } else {
    by_addr.emplace(addr, b);
  }
  try {
    by_ptr.insert(b->ptr, b);
  } catch (...) {
    b->addr_node = by_addr.extract(addr);
    throw;
  }
}

void MemoryPool::Impl::unindex_block(Block* b) noexcept {
  b->addr_node = by_addr.extract(reinterpret_cast<uintptr_t>(b->ptr));
  by_ptr.erase(b->ptr);
}

Block* MemoryPool::Impl::new_block() {
  if (!spare) return new Block;
  Block* b = spare;
  spare = b->next;
  b->next = nullptr;
  return b;
}

// Keeps the Block (and the nodes it owns) for the next split.
void MemoryPool::Impl::retire_block(Block* b) noexcept {
  b->ptr = nullptr;
  b->size = 0;
  b->seg = nullptr;
  b->prev = nullptr;
  b->fl_prev = b->fl_next = nullptr;
  b->age_prev = b->age_next = nullptr;
  b->free_gen = 0;
  b->state = BlockState::kFreeTree;
  b->requested = 0;
  b->alloc_key = 0;
  b->alloc_stream.reset();
  b->tag = 0;
  b->tag_seq = 0;
  b->tag_stream.reset();
  b->points.clear();
  b->next = spare;
  spare = b;
}

// --------------------------------------------------------------- MemoryPool

MemoryPool::MemoryPool(Device& device, Kind kind)
    : device_(device), kind_(kind), impl_(std::make_unique<Impl>(device, kind)) {}

MemoryPool::~MemoryPool() = default;

Result<void*> MemoryPool::allocate(size_t bytes, Stream* stream) {
  // Sub-pool routing: one thread-local read on the default path.
  if (g_sub_scopes.load(std::memory_order_relaxed) != 0) {
    // A scope on another thread makes this thread read its own (usually null) slot;
    // a scope on this thread was counted by this thread, so the load sees it.
    if (SubPool* sp = t_sub_pool; sp != nullptr && &sp->parent_ == this) return sp->allocate(bytes, stream);
  }
  try {
    // The thread's current stream stays alive for the whole call.
    Result<void*> r = impl_->allocate(bytes, stream ? stream : current_stream_ptr());
    if (profiler::enabled()) record_pool_event(static_cast<int>(profiler::EventKind::kAlloc), r.ok() ? r.value() : nullptr, bytes,
                                               r.ok() ? (t_last_alloc_hit ? "hit" : "miss") : r.status().message());
    return r;
  } catch (const std::bad_alloc&) {
    // Host memory for the bookkeeping ran out (never the device memory itself).
    return Status::OutOfMemory("allocate", "out of memory: requested " + std::to_string(bytes) +
                                               " bytes; host memory for the pool's bookkeeping ran out");
  } catch (...) {
    return StatusFromCurrentException("allocate");
  }
}

void* MemoryPool::allocate_or_throw(size_t bytes, Stream* stream) {
  return allocate(bytes, stream).ValueOrThrow();
}

void MemoryPool::record_pool_event(int kind, const void* ptr, size_t bytes, const std::string& detail) {
  profiler::TraceEvent e;
  e.kind = static_cast<profiler::EventKind>(kind);
  e.name = kind_ == Kind::kDevice ? "device_pool" : "pinned_host_pool";
  e.ts_ns = profiler::now_ns();
  e.bytes = bytes;
  e.value = static_cast<int64_t>(stats().allocated_bytes);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", ptr);
  e.detail = detail.empty() ? std::string(buf) : detail + " " + buf;
  profiler::record(std::move(e));
}

Status MemoryPool::free(void* ptr) {
  try {
    if (profiler::enabled()) {
      size_t size = 0;
      find_allocation(ptr, nullptr, &size);
      bool missing = false;
      Status st = impl_->free(ptr, &missing);
      if (missing) st = free_foreign(ptr);
      record_pool_event(static_cast<int>(profiler::EventKind::kFree), ptr, size, st.ok() ? "" : st.message());
      return st;
    }
    bool missing = false;
    Status st = impl_->free(ptr, &missing);
    return missing ? free_foreign(ptr) : st;
  } catch (...) {
    return StatusFromCurrentException("free");
  }
}

// A pointer this pool did not hand out: one of its sub-pools' blocks, or an error.
Status MemoryPool::free_foreign(void* ptr) {
  if (impl_->nsubs.load(std::memory_order_acquire) != 0) {
    std::shared_ptr<const Impl::SubList> subs = impl_->sub_snapshot();
    if (subs) {
      for (const std::shared_ptr<SubPool>& sub : *subs) {
        bool missing = false;
        Status st = sub->pool_->impl_->free(ptr, &missing);
        if (missing) continue;
        if (st.ok() && sub->closed()) sub->maybe_drain();
        return st;
      }
    }
  }
  return Status::Make(ErrorCode::kRtMemoryFree, "free",
                      "pointer " + hex_ptr(ptr) + " was not allocated by this pool (or was already freed)");
}

Status MemoryPool::record_stream(void* ptr, Stream& stream) {
  try {
    bool missing = false;
    Status st = impl_->record_stream(ptr, stream, &missing);
    if (!missing) return st;
    if (std::shared_ptr<SubPool> sub = sub_pool_owning(ptr)) return sub->pool_->record_stream(ptr, stream);
    return Status::Invalid("record_stream", "pointer " + hex_ptr(ptr) + " is not a block in use of this pool");
  } catch (...) {
    return StatusFromCurrentException("record_stream");
  }
}

void MemoryPool::empty_cache() { impl_->empty_cache(); }

void MemoryPool::set_limit(size_t bytes) {
  Graveyard g;  // declared before the lock: released after it
  std::lock_guard<PoolLock> lk(impl_->mu);
  impl_->limit = bytes;
  // Live + cached bytes should not exceed the new limit: return what the cache can.
  if (bytes != 0 && impl_->st.reserved_bytes > bytes) impl_->release_cached_segments(g);
}

size_t MemoryPool::limit() const {
  std::lock_guard<PoolLock> lk(impl_->mu);
  return impl_->limit;
}

MemoryStats MemoryPool::stats() const {
  std::lock_guard<PoolLock> lk(impl_->mu);
  MemoryStats s = impl_->st;
  s.limit_bytes = impl_->limit;
  return s;
}

void MemoryPool::reset_peak_stats() {
  std::lock_guard<PoolLock> lk(impl_->mu);
  MemoryStats& s = impl_->st;
  s.peak_allocated_bytes = s.allocated_bytes;
  s.peak_reserved_bytes = s.reserved_bytes;
  s.allocation_count = s.free_count = 0;
  s.cache_hits = s.cache_misses = 0;
  s.os_allocations = s.os_frees = 0;
  s.retries = s.oom_count = 0;
}

bool MemoryPool::find_allocation(const void* ptr, void** base, size_t* size, size_t* requested) const {
  if (impl_->find_allocation(ptr, base, size, requested)) return true;
  if (impl_->nsubs.load(std::memory_order_acquire) == 0) return false;
  std::shared_ptr<const Impl::SubList> subs = impl_->sub_snapshot();
  if (subs)
    for (const std::shared_ptr<SubPool>& sub : *subs)
      if (sub->pool_->impl_->find_allocation(ptr, base, size, requested)) return true;
  return false;
}

// ---------------------------------------------------------------- sub-pools

size_t MemoryPool::sub_pool_count() const noexcept { return impl_->nsubs.load(std::memory_order_acquire); }

void MemoryPool::add_sub_pool(const std::shared_ptr<SubPool>& sub) {
  std::lock_guard<std::mutex> lk(impl_->subs_mu);
  auto next = std::make_shared<Impl::SubList>();
  if (impl_->subs) *next = *impl_->subs;
  next->push_back(sub);
  impl_->subs = std::move(next);
  impl_->nsubs.store(impl_->subs->size(), std::memory_order_release);
}

void MemoryPool::remove_sub_pool(const SubPool* sub) {
  std::shared_ptr<const Impl::SubList> old;  // dropped after the lock (may destroy the sub-pool)
  std::lock_guard<std::mutex> lk(impl_->subs_mu);
  if (!impl_->subs) return;
  auto next = std::make_shared<Impl::SubList>();
  for (const auto& s : *impl_->subs)
    if (s.get() != sub) next->push_back(s);
  if (next->size() == impl_->subs->size()) return;
  old = std::move(impl_->subs);
  impl_->nsubs.store(next->size(), std::memory_order_release);
  impl_->subs = std::move(next);
}

std::shared_ptr<SubPool> MemoryPool::sub_pool_owning(const void* ptr) const {
  if (impl_->nsubs.load(std::memory_order_acquire) == 0) return nullptr;
  std::shared_ptr<const Impl::SubList> subs = impl_->sub_snapshot();
  if (subs)
    for (const std::shared_ptr<SubPool>& sub : *subs)
      if (sub->pool_->impl_->find_allocation(ptr, nullptr, nullptr, nullptr)) return sub;
  return nullptr;
}

// ------------------------------------------------------------------ limits

Result<size_t> parse_memory_limit(const std::string& text) {
  auto invalid = [&] {
    return Status::Invalid("parse_memory_limit",
                           "invalid memory limit '" + text +
                               "': expected a byte count with an optional K, M or G suffix (e.g. 8G)");
  };
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
  size_t i = b;
  uint64_t value = 0;
  for (; i < e && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - d) / 10) return invalid();
    value = value * 10 + d;
  }
  if (i == b) return invalid();
  std::string suffix;
  for (; i < e; ++i) suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  unsigned shift = 0;
  if (suffix.empty() || suffix == "b") {
    shift = 0;
  } else if (suffix == "k" || suffix == "kb" || suffix == "kib") {
    shift = 10;
  } else if (suffix == "m" || suffix == "mb" || suffix == "mib") {
    shift = 20;
  } else if (suffix == "g" || suffix == "gb" || suffix == "gib") {
    shift = 30;
  } else {
    return invalid();
  }
  if (shift && value > (std::numeric_limits<uint64_t>::max() >> shift)) return invalid();
  value <<= shift;
  if (value > std::numeric_limits<size_t>::max()) return invalid();
  return static_cast<size_t>(value);
}

// Sub-pools are locked too (after the parent: no path holds a sub-pool's lock while taking
// its parent's), with the registry held so the set cannot change across fork().
void MemoryPool::lock_for_fork() noexcept {
  impl_->mu.lock();
  impl_->subs_mu.lock();
  impl_->fork_subs = impl_->subs;
  if (impl_->fork_subs)
    for (const std::shared_ptr<SubPool>& sub : *impl_->fork_subs) sub->pool_->impl_->mu.lock();
}
void MemoryPool::unlock_after_fork() noexcept {
  if (impl_->fork_subs)
    for (auto it = impl_->fork_subs->rbegin(); it != impl_->fork_subs->rend(); ++it) (*it)->pool_->impl_->mu.unlock();
  impl_->fork_subs.reset();
  impl_->subs_mu.unlock();
  impl_->mu.unlock();
}

// --------------------------------------------------------------- singletons

namespace {
// The pools' pthread_atfork handlers (see MemoryPool::lock_for_fork).
std::atomic<MemoryPool*> g_fork_pools[2] = {{nullptr}, {nullptr}};
void pools_fork_prepare() noexcept {
  for (auto& p : g_fork_pools)
    if (MemoryPool* pool = p.load(std::memory_order_acquire)) pool->lock_for_fork();
}
void pools_fork_release() noexcept {
  for (auto& p : g_fork_pools)
    if (MemoryPool* pool = p.load(std::memory_order_acquire)) pool->unlock_after_fork();
}
void register_pool_for_fork(MemoryPool* pool, int i) {
  static const int registered = ::pthread_atfork(&pools_fork_prepare, &pools_fork_release, &pools_fork_release);
  (void)registered;
  g_fork_pools[i].store(pool, std::memory_order_release);
}
}  // namespace

// The singletons are leaked on purpose: blocks may be freed from static
// destructors of other translation units (or from stream workers still running
// at exit) after a function-local static pool would already have been
// destroyed. The OS reclaims the memory at exit.
MemoryPool& device_pool() {
  static MemoryPool* pool = [] {
    auto* p = new MemoryPool(current_device(), MemoryPool::Kind::kDevice);
    const char* env = std::getenv("ASC_MEMORY_LIMIT");
    if (env && *env) {
      Result<size_t> r = parse_memory_limit(env);
      if (r.ok()) {
        p->set_limit(r.value());
        ASC_LOG_DEBUG("memory_pool", "device pool limit " << r.value() << " bytes (ASC_MEMORY_LIMIT)");
      } else {
        ASC_LOG_WARNING("memory_pool", "ignoring ASC_MEMORY_LIMIT: " << r.status().message());
      }
    }
    register_pool_for_fork(p, 0);
    return p;
  }();
  return *pool;
}

MemoryPool& pinned_host_pool() {
  static MemoryPool* pool = [] {
    auto* p = new MemoryPool(current_device(), MemoryPool::Kind::kPinnedHost);
    register_pool_for_fork(p, 1);
    return p;
  }();
  return *pool;
}

// --------------------------------------------------------------- PoolBuffer

Result<PoolBuffer> PoolBuffer::allocate(size_t bytes, MemoryPool& pool, Stream* stream) {
  Result<void*> r = pool.allocate(bytes, stream);
  if (!r.ok()) return r.status();
  PoolBuffer buf;
  buf.pool_ = &pool;
  buf.ptr_ = r.value();
  buf.size_ = bytes;
  return Result<PoolBuffer>(std::move(buf));
}

PoolBuffer& PoolBuffer::operator=(PoolBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    pool_ = o.pool_;
    ptr_ = o.ptr_;
    size_ = o.size_;
    o.ptr_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

void PoolBuffer::reset() noexcept {
  if (ptr_ && pool_) {
    try {
      Status s = pool_->free(ptr_);
      if (!s.ok()) ASC_LOG_WARNING("memory_pool", "PoolBuffer: " << s.message());
    } catch (...) {
      // Logging itself failed (host out of memory); nothing more to do.
    }
  }
  ptr_ = nullptr;
  size_ = 0;
}

}  // namespace asc::runtime
