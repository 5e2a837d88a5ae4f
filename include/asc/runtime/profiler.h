// Runtime event recording for the profiler (pyasc.profiler).
//
// Layers record events only while the profiler is on: every hook is guarded by
// `profiler::enabled()` (one relaxed atomic load and a branch), so with the
// profiler off nothing is allocated or timed. While on, events go into one
// bounded ring buffer (capacity set at start); when it is full the oldest
// events are overwritten and counted in `dropped()`, so a long run keeps its
// most recent history and the trace says how much was lost.
//
// Recorded kinds: host-side launches (with a flow id that links them to the
// kernel execution), kernel executions per stream, block executions per core,
// memory copies (kind, bytes), pool allocations and frees (hit or miss, pool
// usage), stream waits, event records, host callbacks, user ranges and op
// calls recorded from Python.
//
// Thread-safety: all functions may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace asc::runtime::profiler {

enum class EventKind : uint8_t {
  kLaunch,       // host thread: a kernel was enqueued (flow start)
  kKernel,       // stream: a kernel executed (flow end)
  kBlock,        // core: one block of a kernel
  kMemcpy,       // stream or host thread: a copy
  kAlloc,        // host thread: pool allocation (value = pool allocated bytes after)
  kFree,         // host thread: pool free (value = pool allocated bytes after)
  kStreamWait,   // stream: waiting for another stream's event
  kEventRecord,  // stream: an event was recorded
  kCallback,     // stream: a host callback ran
  kRange,        // host thread: user range (record_function) or any Python-recorded span
  kOpCall,       // host thread: a Python-level operator call
  kSync,         // host thread: waiting in synchronize()
  kGraph,        // host thread: a lazy graph materialised (name: group ops; detail: group and node ids)
};
const char* event_kind_name(EventKind k) noexcept;

struct TraceEvent {
  EventKind kind = EventKind::kRange;
  std::string name;
  int64_t ts_ns = 0;        // start, nanoseconds since the profiler epoch
  int64_t dur_ns = 0;       // 0 for instant events
  uint64_t stream_id = 0;   // 0: not on a stream
  int32_t core = -1;        // core slot for kBlock
  uint64_t thread_id = 0;   // OS thread id of the recording thread
  uint64_t bytes = 0;       // bytes moved or allocated
  uint64_t flow_id = 0;     // links kLaunch -> kKernel
  uint32_t block_dim = 0;   // kernels and blocks
  int32_t block_idx = -1;   // kBlock
  int64_t value = 0;        // counters (e.g. pool bytes allocated after an alloc/free)
  std::string detail;       // short free text: copy kind, "hit"/"miss", input shapes, errors
};

namespace detail {
extern std::atomic<bool> g_enabled;
}

/// True while recording. The hooks' guard.
inline bool enabled() noexcept { return detail::g_enabled.load(std::memory_order_relaxed); }

/// Starts recording into a fresh buffer of `capacity` events (> 0).
void start(size_t capacity = 1 << 20);
/// Stops recording (events stay available until the next start()).
void stop();
/// Copies out the recorded events, oldest first.
std::vector<TraceEvent> events();
/// Events overwritten because the buffer was full.
uint64_t dropped() noexcept;
/// Total events recorded since start() (including dropped ones).
uint64_t recorded() noexcept;

/// Nanoseconds since the profiler epoch (steady clock).
int64_t now_ns() noexcept;
/// OS id of the calling thread (cached).
uint64_t this_thread_id() noexcept;
/// A new flow id (never 0).
uint64_t next_flow_id() noexcept;

/// Marks the calling thread as the worker of stream `id` (0: none): events it
/// records without a stream id are attributed to that stream.
void set_thread_stream(uint64_t id) noexcept;
/// The stream id set by set_thread_stream on this thread (0: none).
uint64_t thread_stream() noexcept;

/// Adds an event (no-op when not enabled).
void record(TraceEvent&& e);

/// RAII span: takes the start time at construction, records at destruction.
class Span {
 public:
  Span(EventKind kind, std::string name) : active_(enabled()) {
    if (active_) {
      e_.kind = kind;
      e_.name = std::move(name);
      e_.ts_ns = now_ns();
    }
  }
  ~Span() {
    if (active_) {
      e_.dur_ns = now_ns() - e_.ts_ns;
      record(std::move(e_));
    }
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  bool active() const noexcept { return active_; }
  TraceEvent& event() noexcept { return e_; }

 private:
  bool active_;
  TraceEvent e_;
};

}  // namespace asc::runtime::profiler
