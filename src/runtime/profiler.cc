#include "asc/runtime/profiler.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <new>

namespace asc::runtime::profiler {

namespace detail {
std::atomic<bool> g_enabled{false};
}

namespace {

struct Ring {
  std::mutex mu;
  size_t cap = 0;
  std::vector<TraceEvent> buf;
  size_t head = 0;  // next slot to write
  uint64_t total = 0;
};
Ring& ring();
// fork(): the forking thread holds the ring lock across fork() (a leaf lock),
// so the child's ring is consistent and its lock is re-created unlocked.
void ring_fork_prepare() noexcept { ring().mu.lock(); }
void ring_fork_parent() noexcept { ring().mu.unlock(); }
void ring_fork_child() noexcept { new (&ring().mu) std::mutex(); }

Ring& ring() {
  static auto* r = [] {
    auto* p = new Ring();  // leaked: hooks may run during shutdown
    ::pthread_atfork(&ring_fork_prepare, &ring_fork_parent, &ring_fork_child);
    return p;
  }();
  return *r;
}

const std::chrono::steady_clock::time_point g_epoch = std::chrono::steady_clock::now();
std::atomic<uint64_t> g_next_flow{1};
thread_local uint64_t t_stream_id = 0;

}  // namespace

const char* event_kind_name(EventKind k) noexcept {
  switch (k) {
    case EventKind::kLaunch: return "launch";
    case EventKind::kKernel: return "kernel";
    case EventKind::kBlock: return "block";
    case EventKind::kMemcpy: return "memcpy";
    case EventKind::kAlloc: return "alloc";
    case EventKind::kFree: return "free";
    case EventKind::kStreamWait: return "stream_wait";
    case EventKind::kEventRecord: return "event_record";
    case EventKind::kCallback: return "callback";
    case EventKind::kRange: return "range";
    case EventKind::kOpCall: return "op";
    case EventKind::kSync: return "synchronize";
    case EventKind::kGraph: return "graph";
  }
  return "unknown";
}

int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - g_epoch).count();
}

uint64_t this_thread_id() noexcept {
  thread_local uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
  return tid;
}

uint64_t next_flow_id() noexcept { return g_next_flow.fetch_add(1, std::memory_order_relaxed); }

void set_thread_stream(uint64_t stream_id) noexcept { t_stream_id = stream_id; }
uint64_t thread_stream() noexcept { return t_stream_id; }

void start(size_t capacity) {
  if (capacity == 0) capacity = 1;
  Ring& r = ring();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    r.buf.clear();
    r.buf.shrink_to_fit();
    r.buf.reserve(capacity);
    r.cap = capacity;
    r.head = 0;
    r.total = 0;
  }
  detail::g_enabled.store(true, std::memory_order_release);
}

void stop() { detail::g_enabled.store(false, std::memory_order_release); }

void record(TraceEvent&& e) {
  if (!enabled()) return;
  if (e.thread_id == 0) e.thread_id = this_thread_id();
  if (e.stream_id == 0) e.stream_id = t_stream_id;
  Ring& r = ring();
  std::lock_guard<std::mutex> lock(r.mu);
  const size_t cap = r.cap;
  if (r.buf.size() < cap) {
    r.buf.push_back(std::move(e));
  } else {
    r.buf[r.head] = std::move(e);
    r.head = (r.head + 1) % cap;
  }
  ++r.total;
}

std::vector<TraceEvent> events() {
  Ring& r = ring();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<TraceEvent> out;
  out.reserve(r.buf.size());
  if (r.buf.size() < r.cap) {
    out = r.buf;
  } else {
    for (size_t i = 0; i < r.buf.size(); ++i) out.push_back(r.buf[(r.head + i) % r.buf.size()]);
  }
  return out;
}

uint64_t dropped() noexcept {
  Ring& r = ring();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.total > r.buf.size() ? r.total - r.buf.size() : 0;
}

uint64_t recorded() noexcept {
  Ring& r = ring();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.total;
}

}  // namespace asc::runtime::profiler
