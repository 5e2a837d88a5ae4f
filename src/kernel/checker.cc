// The kernel checker (include/asc/kernel/checker.h): per-launch and per-block
// state behind the runtime's launch hooks, the findings and their reports.
//
// A checked launch owns a Launch (report budget, GM writes of finished
// blocks); each block gets a BlockCheck in a thread-local pointer while it
// runs (queues of its TPipes, its GM writes, pending SetFlags, a one-entry
// cache of the last device allocation looked up). Blocks of other (unchecked)
// launches running meanwhile see a null pointer and skip every hook.
#include "asc/kernel/checker.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "asc/core/status.h"
#include "asc/kernel/atomic.h"
#include "asc/kernel/debug.h"
#include "asc/kernel/pipe.h"
#include "asc/runtime/device.h"
#include "asc/runtime/memory_pool.h"

namespace asc::kernel::check {

std::atomic<uint32_t> g_checked_launches{0};

namespace {

constexpr size_t kMaxReportsKept = 4096;
constexpr int kMaxReportsPerLaunch = 64;

std::mutex g_reports_mu;
std::deque<Report> g_reports;
std::atomic<bool> g_print{true};

// A GM byte range one block wrote, with the allocation it lies in.
struct Interval {
  uintptr_t lo = 0;
  uintptr_t hi = 0;
  uintptr_t alloc = 0;
  uint64_t alloc_bytes = 0;
  const char* op = "";
  uint32_t block = 0;
};

struct Launch {
  std::string name;
  uint32_t block_num = 1;
  std::mutex mu;  // guards everything below
  std::vector<Interval> writes;
  int reports = 0;
  int suppressed = 0;
  std::string first;
};

struct QueueEntry {
  const AscendC::TPipe* pipe;
  const QueueState* q;
  const uint8_t* base;
  uint64_t span;
  int num;
};

struct BlockCheck {
  Launch* launch = nullptr;
  uint32_t block = 0;
  const runtime::CoreArenas* arenas = nullptr;
  std::vector<QueueEntry> queues;
  std::vector<Interval> writes;
  std::set<std::pair<int, std::string>> reported;  // (finding, instruction) already reported
  std::map<std::pair<int, int>, int> flags;        // (event, id) -> SetFlags not yet waited for
  uintptr_t cache_lo = 0, cache_hi = 0;            // last allocation found: [lo, lo + usable)
  uint64_t cache_requested = 0;
};

thread_local BlockCheck* t_check = nullptr;

std::string num(uint64_t v) { return std::to_string(v); }
std::string snum(int64_t v) { return std::to_string(v); }

// Adds a report of `bc`'s block (or of block `block` when bc is null) to the
// launch and the global list. Returns the line.
std::string add_report(Launch& l, uint32_t block, Finding f, const char* op, const std::string& detail) {
  Report r;
  r.finding = f;
  r.kernel = l.name;
  r.block = block;
  r.block_num = l.block_num;
  r.instruction = op;
  r.detail = detail;
  r.text = std::string("[kernel check] ") + finding_name(f) + ": kernel '" + l.name + "' block " + num(block) + "/" +
           num(l.block_num) + ": " + op + ": " + detail;
  std::string text = r.text;
  {
    std::lock_guard<std::mutex> lock(l.mu);
    if (l.first.empty()) l.first = text;
    if (l.reports >= kMaxReportsPerLaunch) {
      ++l.suppressed;
      return text;
    }
    ++l.reports;
  }
  if (g_print.load(std::memory_order_relaxed)) {
    std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
  }
  std::lock_guard<std::mutex> lock(g_reports_mu);
  g_reports.push_back(std::move(r));
  while (g_reports.size() > kMaxReportsKept) g_reports.pop_front();
  return text;
}

// Records a finding of the running block unless the same (finding,
// instruction) was reported by it before; returns the line either way.
std::string record(BlockCheck& bc, Finding f, const char* op, const std::string& detail, bool dedupe = true) {
  if (dedupe && !bc.reported.emplace(static_cast<int>(f), op).second) {
    return std::string("[kernel check] ") + finding_name(f) + ": kernel '" + bc.launch->name + "' block " +
           num(bc.block) + "/" + num(bc.launch->block_num) + ": " + op + ": " + detail;
  }
  return add_report(*bc.launch, bc.block, f, op, detail);
}

[[noreturn]] void fatal(BlockCheck& bc, Finding f, const char* op, const std::string& detail) {
  throw Error(ErrorCode::kRtAicoreException, record(bc, f, op, detail, false));
}

// The device allocation holding p: its base and requested size.
bool find_alloc(BlockCheck& bc, uintptr_t p, uintptr_t* base, uint64_t* requested) {
  if (p >= bc.cache_lo && p < bc.cache_hi) {
    *base = bc.cache_lo;
    *requested = bc.cache_requested;
    return true;
  }
  void* b = nullptr;
  size_t size = 0, req = 0;
  if (!runtime::device_pool().find_allocation(reinterpret_cast<const void*>(p), &b, &size, &req)) return false;
  bc.cache_lo = reinterpret_cast<uintptr_t>(b);
  bc.cache_hi = bc.cache_lo + size;
  bc.cache_requested = req;
  *base = bc.cache_lo;
  *requested = req;
  return true;
}

std::string not_device_memory(uintptr_t p) {
  if (runtime::pinned_host_pool().find_allocation(reinterpret_cast<const void*>(p))) {
    return "pinned host memory (aclrtMallocHost), not device memory";
  }
  return "not device memory (no aclrtMalloc / GmAlloc / device pool allocation holds it)";
}

// Which core memory p lies in, and its offset there.
const char* local_memory(const runtime::CoreArenas* a, const void* ptr, uint64_t* offset) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  if (!a) return nullptr;
  const struct {
    const uint8_t* base;
    size_t size;
    const char* name;
  } mems[] = {{a->ub, a->ub_size, "UB"},
              {a->l1, a->l1_size, "L1"},
              {a->l0a, a->l0a_size, "L0A"},
              {a->l0b, a->l0b_size, "L0B"},
              {a->l0c, a->l0c_size, "L0C"}};
  for (const auto& m : mems) {
    const auto b = reinterpret_cast<uintptr_t>(m.base);
    if (m.base && p >= b && p < b + m.size) {
      *offset = p - b;
      return m.name;
    }
  }
  return nullptr;
}

std::string queue_desc(const BlockCheck& bc, const QueueEntry& e) {
  uint64_t off = 0;
  const char* mem = local_memory(bc.arenas, e.base, &off);
  return std::string("the ") + position_name(e.q->position()) + " queue at " + (mem ? mem : "?") + " offset " +
         num(off) + " (" + num(static_cast<uint64_t>(e.num)) + " buffers of " + num(e.q->buffer_bytes()) +
         " bytes)";
}

// The queue entry still describing its QueueState (stale ones, whose object
// was reused, are skipped).
bool entry_valid(const QueueEntry& e) { return e.q->base() == e.base && e.q->num_buffers() == e.num; }

// A freed queue buffer overlapping [p, p+bytes): its entry and index.
const QueueEntry* freed_buffer(const BlockCheck& bc, uintptr_t p, uint64_t bytes, int* index) {
  for (const QueueEntry& e : bc.queues) {
    const auto b = reinterpret_cast<uintptr_t>(e.base);
    if (p + bytes <= b || p >= b + e.span || !entry_valid(e)) continue;
    const uint32_t stride = e.q->stride();
    for (int i = 0; i < e.num; ++i) {
      const uintptr_t lo = b + uint64_t(i) * stride, hi = lo + e.q->buffer_bytes();
      if (p < hi && p + (bytes ? bytes : 1) > lo && e.q->buffer_free(i)) {
        *index = i;
        return &e;
      }
    }
  }
  return nullptr;
}

const char* const kHardEventNames[] = {
    "MTE2_MTE1", "MTE1_MTE2", "MTE1_M",   "M_MTE1",    "MTE2_V",    "V_MTE2",    "MTE3_V",   "V_MTE3",
    "M_V",       "V_M",       "V_V",      "MTE3_MTE1", "MTE1_MTE3", "MTE1_V",    "MTE2_M",   "M_MTE2",
    "V_MTE1",    "M_FIX",     "FIX_M",    "MTE3_MTE2", "MTE2_MTE3", "S_V",       "V_S",      "S_MTE2",
    "MTE2_S",    "S_MTE3",    "MTE3_S",   "MTE2_FIX",  "FIX_MTE2",  "FIX_S",     "M_S",      "FIX_MTE3",
    "MTE1_FIX",  "FIX_MTE1",  "FIX_FIX"};
static_assert(sizeof(kHardEventNames) / sizeof(kHardEventNames[0]) == static_cast<size_t>(AscendC::HardEvent::MAX),
              "one name per HardEvent");

std::string flag_call(const char* fn, int event, int id) {
  const char* name = event >= 0 && event < static_cast<int>(AscendC::HardEvent::MAX) ? kHardEventNames[event] : "?";
  return std::string(fn) + "<HardEvent::" + name + ">(" + snum(id) + ")";
}

// ---------------------------------------------------------------- launch hooks

void* hook_begin(const runtime::KernelInvocation& inv) {
  if (!debug::kernel_checks_requested()) return nullptr;
  auto* l = new Launch;
  l->name = inv.name;
  l->block_num = inv.block_dim;
  g_checked_launches.fetch_add(1, std::memory_order_relaxed);
  return l;
}

void hook_block_begin(void* launch, const runtime::BlockContext& ctx) {
  auto* bc = new BlockCheck;
  bc->launch = static_cast<Launch*>(launch);
  bc->block = ctx.block_idx;
  bc->arenas = ctx.arenas;
  t_check = bc;
}

void hook_block_end(void* launch, const runtime::BlockContext&, bool /*failed*/) {
  BlockCheck* bc = t_check;
  t_check = nullptr;
  if (!bc) return;
  auto* l = static_cast<Launch*>(launch);
  try {
    std::lock_guard<std::mutex> lock(l->mu);
    l->writes.insert(l->writes.end(), bc->writes.begin(), bc->writes.end());
  } catch (...) {
    // Out of memory while checking: the race check sees less.
  }
  delete bc;
}

// Two blocks writing the same GM bytes: sort every write by address and sweep,
// keeping the write that reaches furthest so far.
void check_races(Launch& l) {
  std::vector<Interval>& w = l.writes;
  std::sort(w.begin(), w.end(), [](const Interval& a, const Interval& b) {
    return a.lo != b.lo ? a.lo < b.lo : (a.block != b.block ? a.block < b.block : a.hi < b.hi);
  });
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  const Interval* reach = nullptr;
  for (const Interval& iv : w) {
    if (reach && iv.lo < reach->hi && iv.block != reach->block) {
      const uint32_t a = std::min(iv.block, reach->block), b = std::max(iv.block, reach->block);
      if (pairs.emplace(a, b).second) {
        const Interval& later = iv.block == b ? iv : *reach;
        const Interval& other = iv.block == b ? *reach : iv;
        const uintptr_t lo = iv.lo, hi = std::min(iv.hi, reach->hi);
        add_report(l, b, Finding::kGmWriteRace, later.op,
                   "writes GM bytes [" + num(lo - later.alloc) + ", " + num(hi - later.alloc) + ") of a " +
                       num(later.alloc_bytes) + "-byte allocation that block " + num(a) + " also writes (" +
                       other.op + "), without atomics");
      }
    }
    if (!reach || iv.hi > reach->hi) reach = &iv;
  }
}

Status hook_end(void* launch) {
  auto* l = static_cast<Launch*>(launch);
  Status st;
  try {
    check_races(*l);
    std::lock_guard<std::mutex> lock(l->mu);
    const int total = l->reports + l->suppressed;
    if (total > 0) {
      st = Status(ErrorCode::kRtAicoreException,
                  "kernel check: " + std::to_string(total) + (total == 1 ? " finding" : " findings") +
                      (l->suppressed ? " (" + std::to_string(l->suppressed) + " not reported)" : "") +
                      "; first: " + l->first);
    }
  } catch (...) {
    st = StatusFromCurrentException("kernel check");
  }
  g_checked_launches.fetch_sub(1, std::memory_order_relaxed);
  delete l;
  return st;
}

const runtime::LaunchCheckHooks g_hooks = {hook_begin, hook_block_begin, hook_block_end, hook_end};

// libasc installs the checker when it is loaded.
const bool g_installed = (runtime::set_launch_check_hooks(&g_hooks), true);

}  // namespace

const char* finding_name(Finding f) noexcept {
  switch (f) {
    case Finding::kGmOutOfBounds: return "gm-out-of-bounds";
    case Finding::kHostPointer: return "host-pointer";
    case Finding::kLocalOverflow: return "local-overflow";
    case Finding::kMisaligned: return "misaligned";
    case Finding::kCopyRoundDown: return "copy-round-down";
    case Finding::kDequeEmpty: return "deque-empty";
    case Finding::kAllocBeyondDepth: return "alloc-beyond-depth";
    case Finding::kEnqueBeyondDepth: return "enque-beyond-depth";
    case Finding::kDoubleFree: return "double-free";
    case Finding::kUseAfterFree: return "use-after-free";
    case Finding::kQueueMisuse: return "queue-misuse";
    case Finding::kTensorLeak: return "tensor-leak";
    case Finding::kWaitWithoutSet: return "wait-without-set";
    case Finding::kGmWriteRace: return "gm-write-race";
  }
  return "?";
}

std::vector<Report> reports() {
  std::lock_guard<std::mutex> lock(g_reports_mu);
  return std::vector<Report>(g_reports.begin(), g_reports.end());
}

void clear_reports() {
  std::lock_guard<std::mutex> lock(g_reports_mu);
  g_reports.clear();
}

void set_print_reports(bool on) noexcept { g_print.store(on, std::memory_order_relaxed); }

bool in_checked_block() noexcept { return t_check != nullptr; }

// ---------------------------------------------------------------- GM

void bind_global(const void* p, uint64_t bytes) {
  BlockCheck* bc = t_check;
  if (!bc || !p) return;
  uintptr_t base = 0;
  uint64_t req = 0;
  const auto addr = reinterpret_cast<uintptr_t>(p);
  if (!find_alloc(*bc, addr, &base, &req)) {
    fatal(*bc, Finding::kHostPointer, "SetGlobalBuffer",
          "the buffer" + (bytes ? " (" + num(bytes) + " bytes)" : std::string()) + " is " + not_device_memory(addr));
  }
}

void gm_access(const char* op, const void* bound, uint64_t bound_bytes, const void* p, uint32_t count,
               uint64_t burst, uint64_t pitch, bool write, bool atomic) {
  BlockCheck* bc = t_check;
  if (!bc || count == 0 || burst == 0) return;
  const uint64_t extent = uint64_t(count - 1) * pitch + burst;
  const auto start = reinterpret_cast<uintptr_t>(p);
  const uintptr_t end = start + extent;
  const uintptr_t b = bound ? reinterpret_cast<uintptr_t>(bound) : start;
  const std::string verb = write ? "writes" : "reads";
  uintptr_t base = 0;
  uint64_t req = 0;
  if (!find_alloc(*bc, b, &base, &req)) {
    fatal(*bc, Finding::kHostPointer, op,
          verb + " " + num(extent) + " bytes through a GlobalTensor whose address is " + not_device_memory(b));
  }
  if (bound_bytes && (start < b || end > b + bound_bytes)) {
    fatal(*bc, Finding::kGmOutOfBounds, op,
          verb + " bytes [" + snum(int64_t(start - b)) + ", " + snum(int64_t(end - b)) +
              ") of a GlobalTensor that SetGlobalBuffer bound to " + num(bound_bytes) + " bytes (at byte " +
              num(b - base) + " of a " + num(req) + "-byte allocation)");
  }
  if (start < base || end > base + req) {
    fatal(*bc, Finding::kGmOutOfBounds, op,
          verb + " GM bytes [" + snum(int64_t(start - base)) + ", " + snum(int64_t(end - base)) + ") of a " +
              num(req) + "-byte allocation");
  }
  if (!write || atomic) return;
  // DataCopy / DataCopyPad under SetAtomicAdd/Max/Min combine into GM: several
  // blocks may write the same bytes (SetValue is never atomic).
  if (std::strncmp(op, "DataCopy", 8) == 0 && atomic::current().op != atomic::Op::kNone) return;
  auto add = [&](uintptr_t lo, uintptr_t hi) {
    // Consecutive tiles of one block extend the last interval.
    if (!bc->writes.empty()) {
      Interval& last = bc->writes.back();
      if (last.alloc == base && lo <= last.hi && hi >= last.lo && std::strcmp(last.op, op) == 0) {
        last.lo = std::min(last.lo, lo);
        last.hi = std::max(last.hi, hi);
        return;
      }
    }
    bc->writes.push_back(Interval{lo, hi, base, req, op, bc->block});
  };
  if (count == 1 || pitch == burst) {
    add(start, end);
  } else {
    for (uint32_t i = 0; i < count; ++i) add(start + i * pitch, start + i * pitch + burst);
  }
}

// ---------------------------------------------------------------- local memory

namespace {
// Instruction operands must be 32-byte aligned in the UB; element access not.
void check_local(const char* op, const char* which, const void* p, uint64_t bytes, bool aligned) {
  BlockCheck* bc = t_check;
  if (!bc) return;
  if (std::strncmp(which, "elements of ", 12) == 0) which += 12;  // vector.h's check_count names
  uint64_t off = 0;
  const char* mem = local_memory(bc->arenas, p, &off);
  if (aligned && mem && std::strcmp(mem, "UB") == 0 && off % 32 != 0) {
    fatal(*bc, Finding::kMisaligned, op,
          std::string(which) + " at UB offset " + num(off) +
              " is not 32-byte aligned (UB operands must start at a multiple of 32 bytes)");
  }
  int index = 0;
  if (const QueueEntry* e = freed_buffer(*bc, reinterpret_cast<uintptr_t>(p), bytes, &index)) {
    fatal(*bc, Finding::kUseAfterFree, op,
          std::string(which) + " (" + (mem ? mem : "?") + " offset " + num(off) + ", " + num(bytes) +
              " bytes) lies in buffer " + num(index) + " of " + queue_desc(*bc, *e) + ", which FreeTensor released");
  }
}

}  // namespace

void local_operand(const char* op, const char* which, const void* p, uint64_t bytes) {
  check_local(op, which, p, bytes, true);
}

void local_element(const char* op, const void* p, uint64_t bytes) { check_local(op, "element", p, bytes, false); }

void copy_length(const char* op, uint32_t count, uint32_t elem_size) {
  BlockCheck* bc = t_check;
  const uint64_t bytes = uint64_t(count) * elem_size;
  if (!bc || bytes % 32 == 0) return;
  record(*bc, Finding::kCopyRoundDown, op,
         num(count) + " elements of " + num(elem_size) + " bytes = " + num(bytes) +
             " bytes is not a multiple of 32: the hardware copies only " + num(bytes & ~uint64_t(31)) +
             " bytes (use DataCopyPad for unaligned lengths)");
}

void queue_init(const AscendC::TPipe* pipe, const QueueState* q) {
  BlockCheck* bc = t_check;
  if (!bc) return;
  auto& v = bc->queues;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const QueueEntry& e) { return e.q == q; }), v.end());
  v.push_back(QueueEntry{pipe, q, q->base(), uint64_t(q->num_buffers()) * q->stride(), q->num_buffers()});
}

void pipe_end(const AscendC::TPipe* pipe) {
  BlockCheck* bc = t_check;
  if (!bc) return;
  // While unwinding from an error the queues are in whatever state it left.
  if (std::uncaught_exceptions() == 0) {
    for (const QueueEntry& e : bc->queues) {
      if (e.pipe != pipe || !entry_valid(e)) continue;
      int allocated = 0, queued = 0;
      for (int i = 0; i < e.num; ++i) {
        if (e.q->buffer_queued(i)) {
          ++queued;
        } else if (!e.q->buffer_free(i)) {
          ++allocated;
        }
      }
      if (allocated + queued == 0) continue;
      record(*bc, Finding::kTensorLeak, "kernel exit",
             queue_desc(*bc, e) + " still holds " + num(allocated) + " allocated and " + num(queued) +
                 " enqueued tensor" + (allocated + queued == 1 ? "" : "s") +
                 " (every AllocTensor needs a FreeTensor, every EnQue a DeQue)",
             false);
    }
  }
  pipe_reset(pipe);
}

void pipe_reset(const AscendC::TPipe* pipe) {
  BlockCheck* bc = t_check;
  if (!bc) return;
  auto& v = bc->queues;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const QueueEntry& e) { return e.pipe == pipe; }), v.end());
}

// ---------------------------------------------------------------- flags

void set_flag(int event, int id) {
  BlockCheck* bc = t_check;
  if (!bc) return;
  ++bc->flags[{event, id}];
}

void wait_flag(int event, int id) {
  BlockCheck* bc = t_check;
  if (!bc) return;
  auto it = bc->flags.find({event, id});
  if (it == bc->flags.end() || it->second == 0) {
    const std::string call = flag_call("WaitFlag", event, id);
    fatal(*bc, Finding::kWaitWithoutSet, "WaitFlag",
          call + " has no matching " + flag_call("SetFlag", event, id) +
              " before it (on the NPU it would wait forever)");
  }
  --it->second;
}

void fatal_if_checking(Finding f, const char* op, const std::string& detail) {
  if (BlockCheck* bc = t_check) fatal(*bc, f, op, detail);
}

}  // namespace asc::kernel::check
