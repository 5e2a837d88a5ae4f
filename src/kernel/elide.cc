// Copy elision: the per-thread table of pending UB records (see
// include/asc/kernel/elide.h for the model and its rules).
//
// Invariants (they make every materialisation order-independent):
// 1. A record's UB bytes are untouched from its creation until it is
//    materialised or dropped: every API write to local memory first drops or
//    materialises the records it overlaps, and escaped ranges get no records.
// 2. A pending Compute's UB operands overlap no record other than (for an exact
//    in-place operation) its own: creating a record over a range first
//    materialises the Computes that read that range, and operands are resolved
//    (Load -> GM address, anything else materialised) when the instruction is
//    issued.
// 3. A pending record's GM sources have not been written since it was created:
//    every API write to GM first materialises the Loads and Computes reading it.
// Hence materialising a record never requires materialising another one first,
// and never changes what any other record means.
//
// Cost model. The per-tile calls run between two memory-bound loops, when the
// core's store buffer is full of the last loop's stores: every store they make
// waits for a slot and delays the next tile's loads (about 4 ns each on the
// development machine), while loads and arithmetic are nearly free. So the hot
// paths scan compact arrays, make one pass, call nothing else, and write as
// little as possible: a new record is about eight stores.
#include "asc/kernel/elide.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "kernel/simd/tables.h"

#define ASC_ALWAYS_INLINE inline __attribute__((always_inline))
#define ASC_NOINLINE __attribute__((noinline))

namespace asc::kernel {

namespace {

std::atomic<int> g_enabled{-1};  // -1: ASC_KERNEL_ELIDE not read yet

int read_env() {
  const char* e = std::getenv("ASC_KERNEL_ELIDE");
  if (!e || !*e) return 1;
  return (std::strcmp(e, "0") == 0 || strcasecmp(e, "off") == 0 || strcasecmp(e, "false") == 0 ||
          strcasecmp(e, "no") == 0)
             ? 0
             : 1;
}

}  // namespace

bool elision_enabled() noexcept {
  int v = g_enabled.load(std::memory_order_relaxed);
  if (v < 0) {
    int expected = -1;
    g_enabled.compare_exchange_strong(expected, read_env(), std::memory_order_relaxed);
    v = g_enabled.load(std::memory_order_relaxed);
  }
  return v != 0;
}

void set_elision_enabled(bool on) noexcept { g_enabled.store(on ? 1 : 0, std::memory_order_relaxed); }

namespace elide {

thread_local Fast t_fast = {0, 0, nullptr};

namespace {

constexpr int kMaxRecords = 32;  // a bit per record in Fast::live
constexpr int kMaxEscapes = 8;
// Copy-outs of at least kStreamMin bytes run straight into GM with
// non-temporal stores once a block has written kStreamAfter bytes that way:
// twice a core's private L2 on the development machine, so the output of
// smaller kernels stays cached for whoever reads it next, while long streams
// skip the read-for-ownership. (Multi-pass kernels over outputs that would fit
// in a large shared L3 pay for this; ASC_KERNEL_STREAM, read once, sets the
// threshold in bytes, 0 or off never streams.) kChunk: the L1 scratch the
// operation writes before the bytes stream out.
constexpr uint64_t kStreamAfter = uint64_t{4} << 20;
constexpr uint64_t kStreamMin = 4096;
constexpr uint64_t kChunk = 4096;
// After a copy-out straight into GM, prefetch this many bytes past each GM
// source (tuned on the development machine: 1 KiB gains half as much).
constexpr uint64_t kPrefetch = 4096;

uint64_t read_stream_after() {
  const char* e = std::getenv("ASC_KERNEL_STREAM");
  if (!e || !*e) return kStreamAfter;
  if (strcasecmp(e, "off") == 0 || strcasecmp(e, "false") == 0 || strcasecmp(e, "no") == 0) return UINT64_MAX;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(e, &end, 10);
  if (end == e || *end != '\0') return kStreamAfter;
  return v == 0 ? UINT64_MAX : static_cast<uint64_t>(v);
}

enum class Kind : uint8_t { kLoad, kBinary, kScalar, kUnary, kCast };

// The small fields of a record, written with one store.
struct Tag {
  Kind kind;
  uint8_t nops;
  uint8_t gm_ops;    // bit k: operand k is GM (a Load's source), else local memory
  uint8_t src_size;  // bytes per operand element
  DType dtype;       // of the result
  DType src_dtype;   // kCast: of the operand
  uint8_t mode;      // kCast: the RoundMode
  uint8_t unused;
};
static_assert(sizeof(Tag) == 8, "one store");

// What local [lo[i], hi[i]) holds: GM src0 (kLoad), or fn over n elements of
// src0 (and src1); operands span n * tag.src_size bytes.
union Fn {
  simd::BinaryFn binary;
  simd::ScalarFn scalar;
  simd::UnaryFn unary;
};

struct Record {
  const uint8_t* src0;
  const uint8_t* src1;
  Fn fn;            // unused for kLoad and kCast
  uint64_t scalar;  // kScalar: the scalar's bytes
  Tag tag;
  uint32_t n;
  uint32_t unused;
};
static_assert(sizeof(Record) == 48, "compact record");

struct Range {
  uintptr_t lo;
  uintptr_t hi;
};

}  // namespace

// Zero-initialised POD: no TLS constructor.
struct State {
  uintptr_t lo[kMaxRecords];  // record i covers local [lo[i], hi[i])
  uintptr_t hi[kMaxRecords];
  Record rec[kMaxRecords];
  Fast* f;  // this thread's t_fast; f->live has bit i set while record i is pending
  int nesc;
  int depth;  // live TPipes on this thread
  int64_t elided;
  uint64_t direct;        // bytes this block's copy-outs wrote straight into GM
  uint64_t stream_after;  // kStreamAfter or ASC_KERNEL_STREAM
  const simd::ElementwiseTable* tab;  // the SIMD loops (set by pipe_enter)
  Range esc[kMaxEscapes];
  alignas(64) uint8_t scratch[kChunk];
};

namespace {

thread_local State t_state;

ASC_ALWAYS_INLINE uintptr_t U(const void* p) { return reinterpret_cast<uintptr_t>(p); }
// Ends of ranges: unknown GM extents are clamped (do_gm_write) so that p + bytes
// never wraps.
ASC_ALWAYS_INLINE uintptr_t end_of(const void* p, uint64_t bytes) { return U(p) + static_cast<uintptr_t>(bytes); }
ASC_ALWAYS_INLINE bool overlap(const void* a, uint64_t an, const void* b, uint64_t bn) {
  return U(a) < U(b) + bn && U(b) < U(a) + an && an != 0 && bn != 0;
}
ASC_ALWAYS_INLINE bool is_load(const Record& r) { return r.tag.kind == Kind::kLoad; }
ASC_ALWAYS_INLINE uint64_t op_bytes(const Record& r) { return uint64_t{r.n} * r.tag.src_size; }
ASC_ALWAYS_INLINE const uint8_t* op(const Record& r, int k) { return k == 0 ? r.src0 : r.src1; }
ASC_ALWAYS_INLINE uint8_t* ub_of(const State& s, int i) { return reinterpret_cast<uint8_t*>(s.lo[i]); }
ASC_ALWAYS_INLINE uint64_t bytes_of(const State& s, int i) { return s.hi[i] - s.lo[i]; }

ASC_ALWAYS_INLINE uint32_t& live(State& s) { return s.f->live; }
// Record i overlaps [lo, hi) / lies within it.
ASC_ALWAYS_INLINE bool hits(const State& s, int i, uintptr_t lo, uintptr_t hi) { return s.lo[i] < hi && lo < s.hi[i]; }
ASC_ALWAYS_INLINE bool inside(const State& s, int i, uintptr_t lo, uintptr_t hi) {
  return lo <= s.lo[i] && s.hi[i] <= hi;
}

template <typename Fn>
ASC_ALWAYS_INLINE void for_live(State& s, Fn fn) {
  for (uint32_t m = live(s); m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (live(s) & (1u << i)) fn(i);
  }
}

// Runs record r's operation writing to `dst` (its UB range, or GM in store()).
void execute(const Record& r, void* dst, uint64_t bytes) {
  switch (r.tag.kind) {
    case Kind::kLoad: std::memcpy(dst, r.src0, bytes); break;
    case Kind::kBinary: r.fn.binary(dst, r.src0, r.src1, r.n); break;
    case Kind::kScalar: r.fn.scalar(dst, r.src0, &r.scalar, r.n); break;
    case Kind::kUnary: r.fn.unary(dst, r.src0, r.n); break;
    case Kind::kCast:
      simd::cast(r.tag.dtype, r.tag.src_dtype, static_cast<RoundMode>(r.tag.mode), dst, r.src0, r.n);
      break;
  }
}

// As execute() into GM `dst`, through the L1 scratch and non-temporal stores.
void execute_streamed(State& s, const Record& r, uint8_t* dst, uint64_t bytes) {
  if (r.tag.kind == Kind::kLoad) {
    simd::stream_copy(dst, r.src0, bytes);
  } else {
    const uint64_t esize = bytes / r.n;  // bytes per result element
    const uint32_t step = static_cast<uint32_t>(kChunk / esize);
    Record part = r;
    for (uint32_t off = 0; off < r.n; off += step) {
      part.n = r.n - off < step ? r.n - off : step;
      part.src0 = r.src0 + uint64_t{off} * r.tag.src_size;
      if (r.tag.nops > 1) part.src1 = r.src1 + uint64_t{off} * r.tag.src_size;
      execute(part, s.scratch, part.n * esize);
      simd::stream_copy(dst + off * esize, s.scratch, part.n * esize);
    }
  }
  simd::stream_fence();
}

// Writes record r's contents to GM (streaming for long outputs).
void write_out(State& s, const Record& r, void* gm, uint64_t bytes) {
  if (s.direct >= s.stream_after && bytes >= kStreamMin && (r.tag.kind == Kind::kLoad || bytes / r.n <= kChunk)) {
    execute_streamed(s, r, static_cast<uint8_t*>(gm), bytes);
  } else {
    execute(r, gm, bytes);
  }
  if (bytes >= kStreamMin) {
    // Tiles usually walk their GM sources in order, and the calls between two
    // tiles stall on the store buffer these stores just filled: have the next
    // lines of each GM source in flight meanwhile (prefetches need no store
    // buffer entries, and these are issued before any further store).
    const uint64_t ob = is_load(r) ? bytes : op_bytes(r);
    const uint8_t* n0 = (is_load(r) || (r.tag.gm_ops & 1u)) ? r.src0 + ob : nullptr;
    const uint8_t* n1 = (r.tag.gm_ops & 2u) ? r.src1 + ob : nullptr;
    for (uint64_t k = 0; k < kPrefetch; k += 64) {
      if (n0) __builtin_prefetch(n0 + k);
      if (n1) __builtin_prefetch(n1 + k);
    }
  }
  s.direct += bytes;
}

ASC_ALWAYS_INLINE void remove(State& s, int i) { live(s) &= ~(1u << i); }

ASC_NOINLINE void materialise(State& s, int i) {
  const Record r = s.rec[i];
  uint8_t* ub = ub_of(s, i);
  const uint64_t bytes = bytes_of(s, i);
  remove(s, i);
  if (is_load(r)) s.elided -= static_cast<int64_t>(bytes);
  execute(r, ub, bytes);
}

void drop_all(State& s) {
  live(s) = 0;
  s.nesc = 0;
}

bool escaped(const State& s, const void* p, uint64_t bytes) {
  if (s.nesc == 0 || bytes == 0) return false;
  const uintptr_t lo = U(p), hi = end_of(p, bytes);
  for (int k = 0; k < s.nesc; ++k) {
    if (lo < s.esc[k].hi && s.esc[k].lo < hi) return true;
  }
  return false;
}

ASC_ALWAYS_INLINE bool reads_ub(const Record& r, const void* p, uint64_t bytes) {
  if (r.tag.nops == 0) return false;
  if (!(r.tag.gm_ops & 1u) && overlap(r.src0, op_bytes(r), p, bytes)) return true;
  return r.tag.nops > 1 && !(r.tag.gm_ops & 2u) && overlap(r.src1, op_bytes(r), p, bytes);
}

ASC_ALWAYS_INLINE bool reads_gm(const State& s, int i, const void* p, uint64_t bytes) {
  const Record& r = s.rec[i];
  if (is_load(r)) return overlap(r.src0, bytes_of(s, i), p, bytes);
  if ((r.tag.gm_ops & 1u) && overlap(r.src0, op_bytes(r), p, bytes)) return true;
  return (r.tag.gm_ops & 2u) && overlap(r.src1, op_bytes(r), p, bytes);
}

// The range's current contents must be in UB.
void prep_read(State& s, const void* p, uint64_t bytes) {
  if (bytes == 0) return;
  const uintptr_t lo = U(p), hi = end_of(p, bytes);
  for_live(s, [&](int i) {
    if (hits(s, i, lo, hi)) materialise(s, i);
  });
}

// Pending Computes that read the range from UB must run before it changes.
void prep_readers(State& s, const void* p, uint64_t bytes) {
  for_live(s, [&](int i) {
    if (reads_ub(s.rec[i], p, bytes)) materialise(s, i);
  });
}

// The range is about to be overwritten entirely.
void prep_write(State& s, const void* p, uint64_t bytes) {
  if (bytes == 0) return;
  const uintptr_t lo = U(p), hi = end_of(p, bytes);
  for_live(s, [&](int i) {
    if (reads_ub(s.rec[i], p, bytes)) {
      materialise(s, i);
    } else if (hits(s, i, lo, hi)) {
      if (inside(s, i, lo, hi)) {
        remove(s, i);  // every byte it describes is about to be replaced
      } else {
        materialise(s, i);
      }
    }
  });
}

void prep_gm_write(State& s, const void* p, uint64_t bytes, int skip) {
  for_live(s, [&](int i) {
    if (i != skip && reads_gm(s, i, p, bytes)) materialise(s, i);
  });
}

// A free slot (materialising one record when the table is full: any choice
// is correct).
ASC_ALWAYS_INLINE int new_slot(State& s) {
  if (__builtin_expect(live(s) == ~0u, 0)) materialise(s, 0);
  return __builtin_ctz(~live(s));
}

ASC_ALWAYS_INLINE void commit(State& s, int i, const void* ub, uint64_t bytes) {
  s.lo[i] = U(ub);
  s.hi[i] = end_of(ub, bytes);
  live(s) |= 1u << i;
}

// Where to read local [p, p+bytes) from now: GM when one Load holds it all
// (sets *gm), else p after materialising what lies there.
const uint8_t* resolve(State& s, const void* p, uint64_t bytes, bool* gm) {
  *gm = false;
  const uint8_t* at = static_cast<const uint8_t*>(p);
  if (bytes == 0) return at;
  const uintptr_t lo = U(p), hi = end_of(p, bytes);
  uint32_t hit = 0;
  for (uint32_t m = live(s); m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (hits(s, i, lo, hi)) hit |= 1u << i;
  }
  if (hit == 0) return at;
  const int i = __builtin_ctz(hit);
  if ((hit & (hit - 1)) == 0 && is_load(s.rec[i]) && s.lo[i] <= lo && hi <= s.hi[i]) {
    *gm = true;
    return s.rec[i].src0 + (lo - s.lo[i]);
  }
  prep_read(s, p, bytes);
  return at;
}

constexpr Tag kLoadTag = {Kind::kLoad, 0, 0, 0, DType::kUInt8, DType::kUInt8, 0, 0};

ASC_ALWAYS_INLINE void add_load(State& s, void* ub, const void* gm, uint64_t bytes) {
  const int i = new_slot(s);
  Record& r = s.rec[i];
  r.src0 = static_cast<const uint8_t*>(gm);
  r.tag = kLoadTag;
  s.elided += static_cast<int64_t>(bytes);
  commit(s, i, ub, bytes);
}

// Where operand [p, p + bytes) is read from, if the fast path can tell: no
// record over it (local memory) or inside one Load (its GM). False when it
// partly overlaps dst or anything else lies over it.
ASC_ALWAYS_INLINE bool fast_operand(const State& s, uint32_t all, const void* p, uint64_t bytes, uintptr_t dlo,
                                    uintptr_t dhi, const uint8_t** at, bool* gm) {
  const uintptr_t lo = U(p), hi = lo + bytes;
  if (lo < dhi && dlo < hi && !(lo == dlo && hi == dhi)) return false;
  uint32_t h = 0;
  for (uint32_t m = all; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (hits(s, i, lo, hi)) h |= 1u << i;
  }
  *at = static_cast<const uint8_t*>(p);
  *gm = false;
  if (h == 0) return true;
  const int j = __builtin_ctz(h);
  if ((h & (h - 1)) != 0 || !is_load(s.rec[j]) || lo < s.lo[j] || s.hi[j] < hi) return false;
  *at = s.rec[j].src0 + (lo - s.lo[j]);
  *gm = true;
  return true;
}

// The whole of issue() for the common case, without calls: nothing escaped,
// each operand as fast_operand() wants it, no pending Compute reads dst, the
// records over dst lie inside it. Returns false (having changed nothing)
// otherwise.
ASC_ALWAYS_INLINE bool fast_issue(State& s, Tag tag, Fn fn, uint64_t scalar, uint32_t n, void* dst,
                                  uint64_t dst_bytes, const void* a, const void* b) {
  if (s.nesc != 0) return false;
  const uint32_t all = live(s);
  const uintptr_t dlo = U(dst), dhi = dlo + dst_bytes;
  uint32_t hd = 0;
  for (uint32_t m = all; m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (hits(s, i, dlo, dhi)) {
      if (!inside(s, i, dlo, dhi)) return false;
      hd |= 1u << i;
    } else if (reads_ub(s.rec[i], dst, dst_bytes)) {
      return false;
    }
  }
  const uint64_t sb = uint64_t{n} * tag.src_size;
  const uint8_t* pa;
  const uint8_t* pb = nullptr;
  bool ga, gb = false;
  if (!fast_operand(s, all, a, sb, dlo, dhi, &pa, &ga)) return false;
  if (b && !fast_operand(s, all, b, sb, dlo, dhi, &pb, &gb)) return false;
  const uint32_t left = all & ~hd;  // the records over dst are replaced entirely
  if (left == ~0u) return false;    // full table: the slow path evicts
  live(s) = left;
  const int i = __builtin_ctz(~left);
  Record& r = s.rec[i];
  r.src0 = pa;
  r.src1 = pb;
  r.fn = fn;
  if (tag.kind == Kind::kScalar) r.scalar = scalar;
  r.n = n;
  tag.gm_ops = static_cast<uint8_t>((ga ? 1u : 0u) | (gb ? 2u : 0u));
  uint64_t tag_bits;
  std::memcpy(&tag_bits, &tag, sizeof tag_bits);
  std::memcpy(&r.tag, &tag_bits, sizeof tag_bits);  // one store
  commit(s, i, dst, dst_bytes);
  return true;
}

// Issues a Compute: `proto` has the operation, n, nops and src_size; the
// operands are local ranges of n * src_size bytes.
ASC_NOINLINE void issue(State& s, Record& proto, void* dst, uint64_t dst_bytes, const void* a, const void* b) {
  const int nops = proto.tag.nops;
  const uint64_t sb = op_bytes(proto);
  const void* src[2] = {a, b};
  // A source that partly overlaps dst makes the result depend on the order the
  // loop reads and writes in: run it now, on the real UB bytes, as eager code.
  bool partial = false;
  for (int k = 0; k < nops; ++k) {
    if (overlap(src[k], sb, dst, dst_bytes) && !(src[k] == dst && sb == dst_bytes)) partial = true;
  }
  if (partial) {
    for (int k = 0; k < nops; ++k) prep_read(s, src[k], sb);
    prep_write(s, dst, dst_bytes);
    proto.src0 = static_cast<const uint8_t*>(a);
    proto.src1 = static_cast<const uint8_t*>(b);
    execute(proto, dst, dst_bytes);
    return;
  }
  bool eager = escaped(s, dst, dst_bytes);
  proto.tag.gm_ops = 0;
  for (int k = 0; k < nops; ++k) {
    bool gm = false;
    const uint8_t* at = resolve(s, src[k], sb, &gm);
    if (gm) {
      proto.tag.gm_ops |= static_cast<uint8_t>(1u << k);
    } else if (escaped(s, src[k], sb)) {
      eager = true;  // may change behind our back
    }
    (k == 0 ? proto.src0 : proto.src1) = at;
  }
  prep_write(s, dst, dst_bytes);
  if (eager) {
    execute(proto, dst, dst_bytes);
    return;
  }
  const int i = new_slot(s);
  s.rec[i] = proto;
  commit(s, i, dst, dst_bytes);
}

}  // namespace

// ---------------------------------------------------------------- hooks

void do_read(State& s, const void* p, uint64_t bytes) { prep_read(s, p, bytes); }

void do_access(State& s, const void* p, uint64_t bytes) {
  prep_readers(s, p, bytes);
  prep_read(s, p, bytes);
}

void do_write(State& s, const void* p, uint64_t bytes) { prep_write(s, p, bytes); }

void do_gm_write(State& s, const void* p, uint64_t bytes) {
  if (bytes > UINTPTR_MAX - U(p)) bytes = UINTPTR_MAX - U(p);  // unknown extent: to the end of memory
  prep_gm_write(s, p, bytes, -1);
}

const void* do_read_ptr(State& s, const void* p, uint64_t bytes) {
  bool gm = false;
  return resolve(s, p, bytes, &gm);
}

void do_escape(State& s, const void* p, uint64_t bytes) {
  if (bytes == 0) return;
  prep_readers(s, p, bytes);
  prep_read(s, p, bytes);
  Range r{U(p), end_of(p, bytes)};
  // Merge with every range it touches; when the list is full, keep the hull.
  int k = 0;
  while (k < s.nesc) {
    if (r.lo <= s.esc[k].hi && s.esc[k].lo <= r.hi) {
      r.lo = r.lo < s.esc[k].lo ? r.lo : s.esc[k].lo;
      r.hi = r.hi > s.esc[k].hi ? r.hi : s.esc[k].hi;
      s.esc[k] = s.esc[--s.nesc];
    } else {
      ++k;
    }
  }
  if (s.nesc == kMaxEscapes) {
    for (k = 0; k < s.nesc; ++k) {
      r.lo = r.lo < s.esc[k].lo ? r.lo : s.esc[k].lo;
      r.hi = r.hi > s.esc[k].hi ? r.hi : s.esc[k].hi;
    }
    s.nesc = 0;
  }
  s.esc[s.nesc++] = r;
}

void do_discard(State& s, const void* p, uint64_t bytes) {
  const uintptr_t lo = U(p), hi = end_of(p, bytes);
  uint32_t drop = 0;
  for (uint32_t m = live(s); m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (inside(s, i, lo, hi)) drop |= 1u << i;
  }
  if (drop) live(s) &= ~drop;
}

// ---------------------------------------------------------------- modelled instructions

namespace {

ASC_NOINLINE void load_slow(State& s, void* ub, const void* gm, uint64_t bytes) {
  prep_write(s, ub, bytes);
  if (escaped(s, ub, bytes)) {
    std::memcpy(ub, gm, bytes);
    return;
  }
  add_load(s, ub, gm, bytes);
}

}  // namespace

void load(State& s, void* ub, const void* gm, uint64_t bytes) {
  // Common case in one scan, without calls: nothing escaped, the records over
  // ub lie inside it, no Compute reads it.
  if (bytes == 0) return;
  if (s.nesc != 0) return load_slow(s, ub, gm, bytes);
  const uintptr_t lo = U(ub), hi = end_of(ub, bytes);
  uint32_t drop = 0;
  for (uint32_t m = live(s); m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (hits(s, i, lo, hi)) {
      if (!inside(s, i, lo, hi)) return load_slow(s, ub, gm, bytes);
      drop |= 1u << i;
    } else if (reads_ub(s.rec[i], ub, bytes)) {
      return load_slow(s, ub, gm, bytes);
    }
  }
  if (drop) live(s) &= ~drop;
  if (__builtin_expect(live(s) == ~0u, 0)) return load_slow(s, ub, gm, bytes);
  add_load(s, ub, gm, bytes);
}

void store(State& s, void* gm, const void* ub, uint64_t bytes) {
  if (bytes == 0) return;
  const uintptr_t lo = U(ub), hi = end_of(ub, bytes);
  int hit = -1;
  bool other = false;
  uint32_t readers = 0;  // records that read the GM about to be written
  for (uint32_t m = live(s); m; m &= m - 1) {
    const int i = __builtin_ctz(m);
    if (reads_gm(s, i, gm, bytes)) readers |= 1u << i;
    if (!hits(s, i, lo, hi)) continue;
    if (hit < 0 && ((s.lo[i] == lo && s.hi[i] == hi) || (is_load(s.rec[i]) && s.lo[i] <= lo && hi <= s.hi[i]))) {
      hit = i;
    } else {
      other = true;
    }
  }
  if (hit >= 0 && !other) {
    Record& r = s.rec[hit];
    const uint32_t others = readers & ~(1u << hit);
    if (is_load(r)) {
      const uint8_t* src = r.src0 + (lo - s.lo[hit]);
      if (src == gm) {  // GM already holds exactly these bytes
        s.elided += static_cast<int64_t>(bytes);
        return;
      }
      if (!(readers & (1u << hit))) {
        if (others) prep_gm_write(s, gm, bytes, hit);
        Record copy;
        copy.src0 = src;
        copy.tag = kLoadTag;
        write_out(s, copy, gm, bytes);
        s.elided += static_cast<int64_t>(bytes);
        return;
      }
    } else {
      // One pass from the sources into GM, unless a GM source partly overlaps
      // the destination (an identical one is fine: element i is read before
      // it is written).
      bool direct = true;
      if (readers & (1u << hit)) {
        for (int k = 0; k < r.tag.nops; ++k) {
          const uint8_t* o = op(r, k);
          if ((r.tag.gm_ops & (1u << k)) && overlap(o, op_bytes(r), gm, bytes) &&
              !(o == gm && op_bytes(r) == bytes)) {
            direct = false;
          }
        }
      }
      if (direct) {
        if (others) prep_gm_write(s, gm, bytes, hit);
        write_out(s, r, gm, bytes);
        // The range now equals the GM just written.
        r.src0 = static_cast<const uint8_t*>(gm);
        r.tag = kLoadTag;
        s.elided += static_cast<int64_t>(bytes);
        return;
      }
    }
  }
  prep_read(s, ub, bytes);
  prep_gm_write(s, gm, bytes, -1);
  std::memcpy(gm, ub, bytes);
}

void copy_local(State& s, void* dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  bool gm = false;
  const uint8_t* at = resolve(s, src, bytes, &gm);
  if (gm && !escaped(s, dst, bytes)) {
    prep_write(s, dst, bytes);
    add_load(s, dst, at, bytes);
    return;
  }
  prep_read(s, src, bytes);  // gm with an escaped dst
  prep_write(s, dst, bytes);
  std::memmove(dst, src, bytes);
}

namespace {

ASC_NOINLINE void issue_slow(State& s, Tag tag, Fn fn, uint64_t scalar, uint32_t n, void* dst, uint64_t dst_bytes,
                             const void* a, const void* b) {
  Record r;
  r.src0 = nullptr;
  r.src1 = nullptr;
  r.fn = fn;
  r.scalar = scalar;
  r.n = n;
  r.unused = 0;
  r.tag = tag;
  issue(s, r, dst, dst_bytes, a, b);
}

// Bytes per element (asc::dtype_size without the call).
ASC_ALWAYS_INLINE uint8_t esize(DType d) {
  static_assert(kNumDTypes == 15 && static_cast<int>(DType::kComplex128) == 14, "one size per DType");
  static constexpr uint8_t kSize[kNumDTypes] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return kSize[static_cast<int>(d)];
}

// Fields of pack_op().
ASC_ALWAYS_INLINE uint32_t op_of(uint32_t op) { return op & 0xFFu; }
ASC_ALWAYS_INLINE DType op_dtype(uint32_t op) { return static_cast<DType>((op >> 8) & 0xFFu); }
ASC_ALWAYS_INLINE DType op_src_dtype(uint32_t op) { return static_cast<DType>((op >> 16) & 0xFFu); }
ASC_ALWAYS_INLINE bool valid(DType d) { return static_cast<int>(d) < kNumDTypes; }

}  // namespace

// The instructions: look the loop up in the table, then the fast path. Every
// other case (unsupported dtype: throws; the general path) is a tail call, so
// the fast path needs no stack frame.
ASC_NOINLINE void binary_slow(State& s, uint32_t op, void* dst, const void* a, const void* b, uint32_t n) {
  const DType dt = op_dtype(op);
  Fn fn;
  fn.binary = simd::binary_fn(static_cast<simd::BinaryOp>(op_of(op)), dt);
  issue_slow(s, Tag{Kind::kBinary, 2, 0, esize(dt), dt, dt, 0, 0}, fn, 0, n, dst, uint64_t{n} * esize(dt), a, b);
}

void binary(State& s, uint32_t op, void* dst, const void* a, const void* b, uint32_t n) {
  const uint32_t o = op_of(op);
  const DType dt = op_dtype(op);
  Fn fn;
  fn.binary = o < simd::kNumBinaryOps && valid(dt) ? s.tab->binary[o][static_cast<int>(dt)] : nullptr;
  if (!fn.binary || !fast_issue(s, Tag{Kind::kBinary, 2, 0, esize(dt), dt, dt, 0, 0}, fn, 0, n, dst,
                                uint64_t{n} * esize(dt), a, b)) {
    return binary_slow(s, op, dst, a, b, n);
  }
}

ASC_NOINLINE void scalar_slow(State& s, uint32_t op, void* dst, const void* src, uint64_t scalar_bits, uint32_t n) {
  const DType dt = op_dtype(op);
  Fn fn;
  fn.scalar = simd::scalar_fn(static_cast<simd::ScalarOp>(op_of(op)), dt);
  issue_slow(s, Tag{Kind::kScalar, 1, 0, esize(dt), dt, dt, 0, 0}, fn, scalar_bits, n, dst, uint64_t{n} * esize(dt),
             src, nullptr);
}

void binary_scalar(State& s, uint32_t op, void* dst, const void* src, uint64_t scalar_bits, uint32_t n) {
  const uint32_t o = op_of(op);
  const DType dt = op_dtype(op);
  Fn fn;
  fn.scalar = o < simd::kNumScalarOps && valid(dt) ? s.tab->scalar[o][static_cast<int>(dt)] : nullptr;
  if (!fn.scalar || !fast_issue(s, Tag{Kind::kScalar, 1, 0, esize(dt), dt, dt, 0, 0}, fn, scalar_bits, n, dst,
                                uint64_t{n} * esize(dt), src, nullptr)) {
    return scalar_slow(s, op, dst, src, scalar_bits, n);
  }
}

ASC_NOINLINE void unary_slow(State& s, uint32_t op, void* dst, const void* src, uint32_t n) {
  const DType dt = op_dtype(op);
  Fn fn;
  fn.unary = simd::unary_fn(static_cast<simd::UnaryOp>(op_of(op)), dt);
  issue_slow(s, Tag{Kind::kUnary, 1, 0, esize(dt), dt, dt, 0, 0}, fn, 0, n, dst, uint64_t{n} * esize(dt), src,
             nullptr);
}

void unary(State& s, uint32_t op, void* dst, const void* src, uint32_t n) {
  const uint32_t o = op_of(op);
  const DType dt = op_dtype(op);
  Fn fn;
  fn.unary = o < simd::kNumUnaryOps && valid(dt) ? s.tab->unary[o][static_cast<int>(dt)] : nullptr;
  if (!fn.unary || !fast_issue(s, Tag{Kind::kUnary, 1, 0, esize(dt), dt, dt, 0, 0}, fn, 0, n, dst,
                               uint64_t{n} * esize(dt), src, nullptr)) {
    return unary_slow(s, op, dst, src, n);
  }
}

void cast(State& s, uint32_t op, void* dst, const void* src, uint32_t n) {
  const DType dt = op_dtype(op), st = op_src_dtype(op);
  const uint8_t mode = static_cast<uint8_t>(op >> 24);
  if (!valid(dt) || !valid(st)) simd::throw_unsupported("Cast", valid(dt) ? st : dt);
  simd::check_cast(dt, st, static_cast<RoundMode>(mode));
  Fn fn;
  fn.binary = nullptr;
  const Tag tag{Kind::kCast, 1, 0, esize(st), dt, st, mode, 0};
  if (fast_issue(s, tag, fn, 0, n, dst, uint64_t{n} * esize(dt), src, nullptr)) return;
  issue_slow(s, tag, fn, 0, n, dst, uint64_t{n} * esize(dt), src, nullptr);
}

// ---------------------------------------------------------------- lifetime

void* pipe_enter() noexcept {
  State& s = t_state;
  if (!s.f) {
    s.f = &t_fast;
    t_fast.state = &s;
  }
  if (s.depth == 0) {
    drop_all(s);
    s.direct = 0;
    static const uint64_t stream_after = read_stream_after();
    s.stream_after = stream_after;
    s.tab = &simd::elementwise_table();
    s.f->active = elision_enabled() ? 1u : 0u;
  }
  ++s.depth;
  return &s;
}

void pipe_leave(void* token) noexcept {
  State& s = t_state;
  if (token != &s || s.depth <= 0) return;  // built on another thread
  if (--s.depth == 0) {
    // The kernel's last TPipe is gone (normally: the block ends). Every GM
    // write has happened already; what is still pending in local memory is
    // written there too, so that a kernel that goes on using those bytes (or
    // builds another TPipe) sees exactly what eager execution leaves. A
    // canonical kernel has nothing pending here (FreeTensor drops records).
    for_live(s, [&](int i) { materialise(s, i); });
    drop_all(s);
    s.f->active = 0;
  }
}

void block_changed() noexcept {
  State& s = t_state;
  if (!s.f) return;
  drop_all(s);  // stale: they describe another block's local memory
  s.direct = 0;
}

void materialise_all() {
  State& s = t_state;
  if (!s.f) return;
  for_live(s, [&](int i) { materialise(s, i); });
}

}  // namespace elide

int64_t elided_bytes() noexcept { return elide::t_state.elided; }

}  // namespace asc::kernel
