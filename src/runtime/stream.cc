// Streams (in-order queues with a worker thread each) and events.
#include "asc/runtime/stream.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "asc/core/log.h"
#include "asc/runtime/profiler.h"
#include "runtime/spin_wait.h"
#include "runtime/sub_pool_state.h"

namespace asc::runtime {

namespace {

std::atomic<uint64_t> g_next_stream_id{1};

// Registry of live streams for synchronize_device().
std::mutex& registry_mu() {
  static auto* mu = new std::mutex();
  return *mu;
}
std::vector<std::weak_ptr<Stream>>& registry() {
  static auto* r = new std::vector<std::weak_ptr<Stream>>();
  return *r;
}

// Every stream's state, for the fork() child handler (guarded by registry_mu()).
std::vector<std::weak_ptr<Stream::State>>& state_registry() {
  static auto* r = new std::vector<std::weak_ptr<Stream::State>>();
  return *r;
}
void register_fork_handlers();

struct ThreadStreams {
  std::shared_ptr<Stream> default_stream;
  std::shared_ptr<Stream> current;  // null: the default stream
};
thread_local ThreadStreams t_streams;

// The stream whose worker this thread is (null on other threads): waiting on
// that stream from its own worker (synchronize() in a host callback) would
// wait for the running task itself, forever.
thread_local const void* t_worker_of = nullptr;
thread_local uint64_t t_worker_stream_id = 0;

Status self_wait_error(const char* what) {
  return Status::Make(ErrorCode::kFailure, what,
                      "called from a host callback running on stream " + std::to_string(t_worker_stream_id) +
                          "'s worker: it would wait for the callback itself and never return (synchronize "
                          "after the callback, from the host thread)");
}

}  // namespace

std::shared_ptr<Stream> Stream::create(Device* device) {
  std::shared_ptr<Stream> s(new Stream(device ? device : &current_device()));
  std::lock_guard<std::mutex> lock(registry_mu());
  auto& r = registry();
  r.erase(std::remove_if(r.begin(), r.end(), [](const std::weak_ptr<Stream>& w) { return w.expired(); }),
          r.end());
  r.push_back(s);
  return s;
}

struct Stream::State {
  uint64_t id = 0;
  std::atomic<uint64_t> enqueued{0};
  std::atomic<uint64_t> completed{0};
  std::mutex mu;
  std::condition_variable work_cv;  // the worker waits for tasks
  std::condition_variable done_cv;  // hosts wait for completion
  std::deque<std::pair<std::string, std::function<void()>>> queue;
  bool stopping = false;
  Status first_error;
  std::thread::id worker_id;
  // A fork()ed child: the worker thread did not survive; the next enqueue starts one.
  std::atomic<bool> needs_worker{false};

  void start_worker(const std::shared_ptr<State>& self) {
    std::thread worker(&State::worker_loop, self);
    worker_id = worker.get_id();
    worker.detach();  // joined logically: ~Stream waits for the queue to drain
  }

  // In the fork() child (one thread): plain re-initialisation of what the
  // parent's threads may have held; work that was queued or running in the
  // parent is not run here, and the next synchronize() says so.
  void after_fork_child() noexcept {
    new (&mu) std::mutex();
    new (&work_cv) std::condition_variable();
    new (&done_cv) std::condition_variable();
    const uint64_t e = enqueued.load(std::memory_order_relaxed), c = completed.load(std::memory_order_relaxed);
    if (e != c) {
      new (&queue) std::deque<std::pair<std::string, std::function<void()>>>();  // abandoned, not run
      completed.store(e, std::memory_order_release);
      if (first_error.ok()) {
        try {
          first_error = Status::Make(ErrorCode::kFailure, "fork",
                                     std::to_string(e - c) + " task(s) queued on stream " + std::to_string(id) +
                                         " when the process forked did not run in the child (synchronize "
                                         "before fork() to share their results)");
        } catch (...) {
        }
      }
    }
    stopping = false;
    needs_worker.store(true, std::memory_order_release);
  }

  void wait_until(uint64_t seq) {
    if (t_worker_of == this && completed.load(std::memory_order_acquire) < seq)
      throw Error(self_wait_error("stream.wait"));
    if (detail::spin_until([&] { return completed.load(std::memory_order_acquire) >= seq; },
                           detail::spin_budget()))
      return;
    std::unique_lock<std::mutex> lock(mu);
    done_cv.wait(lock, [&] { return completed.load(std::memory_order_acquire) >= seq; });
  }

  static void worker_loop(std::shared_ptr<State> st) {
    profiler::set_thread_stream(st->id);
    t_worker_of = st.get();
    t_worker_stream_id = st->id;
    for (;;) {
      std::pair<std::string, std::function<void()>> task;
      {
        std::unique_lock<std::mutex> lock(st->mu);
        if (st->queue.empty() && !st->stopping) {
          // Back-to-back work (the common case in a launch loop) arrives within
          // microseconds; spin before paying for a sleep/wake.
          lock.unlock();
          detail::spin_until(
              [&] {
                return st->enqueued.load(std::memory_order_acquire) !=
                       st->completed.load(std::memory_order_relaxed);
              },
              detail::spin_budget());
          lock.lock();
          st->work_cv.wait(lock, [&] { return !st->queue.empty() || st->stopping; });
        }
        if (st->queue.empty()) return;  // stopping and drained
        task = std::move(st->queue.front());
        st->queue.pop_front();
      }
      try {
        task.second();
      } catch (...) {
        Status err = StatusFromCurrentException(task.first);
        ASC_LOG_DEBUG("stream", "stream " << st->id << " task '" << task.first << "' failed: " << err.message());
        std::lock_guard<std::mutex> lock(st->mu);
        if (st->first_error.ok()) st->first_error = err;
      }
      task.second = nullptr;  // release captures before signalling completion
      {
        std::lock_guard<std::mutex> lock(st->mu);
        st->completed.fetch_add(1, std::memory_order_acq_rel);
      }
      st->done_cv.notify_all();
    }
  }
};

Stream::Stream(Device* device)
    : id_(g_next_stream_id.fetch_add(1)), device_(device), state_(std::make_shared<State>()) {
  state_->id = id_;
  state_->start_worker(state_);
  {
    std::lock_guard<std::mutex> lock(registry_mu());
    auto& r = state_registry();
    r.erase(std::remove_if(r.begin(), r.end(), [](const std::weak_ptr<State>& w) { return w.expired(); }),
            r.end());
    r.push_back(state_);
  }
  register_fork_handlers();
  ASC_LOG_DEBUG("stream", "created stream " << id_);
}

Stream::~Stream() {
  const bool on_own_worker = std::this_thread::get_id() == state_->worker_id;
  if (!on_own_worker) {
    Status st = drain();
    if (!st.ok())
      ASC_LOG_WARNING("stream", "stream " << id_ << " destroyed with an unreported error: " << st.message());
  }
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopping = true;  // the worker exits once the queue is empty
  }
  state_->work_cv.notify_all();
}

uint64_t Stream::last_enqueued() const noexcept { return state_->enqueued.load(std::memory_order_acquire); }
uint64_t Stream::completed() const noexcept { return state_->completed.load(std::memory_order_acquire); }

uint64_t Stream::enqueue(std::string name, std::function<void()> task) {
  // A task inherits the enqueuing thread's sub-pool (SubPool::Scope): what it
  // allocates on the worker goes to the same pool (a serving session's quota).
  // The default path pays one relaxed load here.
  if (std::shared_ptr<SubPool> sub = detail::inherited_sub_pool()) {
    task = [sub = std::move(sub), inner = std::move(task)] {
      SubPool::Scope scope(sub);
      inner();
    };
  }
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->needs_worker.load(std::memory_order_acquire)) {  // first work in a fork()ed child
      state_->start_worker(state_);
      state_->needs_worker.store(false, std::memory_order_release);
    }
    state_->queue.emplace_back(std::move(name), std::move(task));
    seq = state_->enqueued.fetch_add(1, std::memory_order_acq_rel) + 1;
  }
  state_->work_cv.notify_one();
  return seq;
}

namespace {
// CANN's runtime logs a failed kernel whether or not the caller checks
// aclrtSynchronizeStream's return (the official samples do not), so a kernel
// error is seen without ASC_LOG_LEVEL=debug. One error line per failure (the
// message names the instruction, the kernel and the block); a kernel that
// fails the same way on every launch of a loop is logged once per worker.
void log_kernel_failure(const Status& st) {
  thread_local std::string last;  // the stream worker's last logged failure
  if (st.message() == last) return;
  last = st.message();
  ASC_LOG_ERROR("launch", "kernel failed: " << st.message());
}
}  // namespace

uint64_t Stream::launch(KernelInvocation inv) {
  ASC_LOG_DEBUG("launch", "kernel " << inv.name << " blockDim=" << inv.block_dim << " stream=" << id_);
  std::string name = inv.name;
  Device* dev = device_;
  uint64_t flow = 0;
  if (profiler::enabled()) {
    flow = profiler::next_flow_id();
    profiler::TraceEvent e;
    e.kind = profiler::EventKind::kLaunch;
    e.name = inv.name;
    e.ts_ns = profiler::now_ns();
    e.stream_id = id_;
    e.flow_id = flow;
    e.block_dim = inv.block_dim;
    profiler::record(std::move(e));
  }
  return enqueue(std::move(name), [dev, flow, inv = std::move(inv)] {
    profiler::Span span(profiler::EventKind::kKernel, inv.name);
    Status st = dev->run_kernel(inv);
    if (span.active()) {
      span.event().flow_id = flow;
      span.event().block_dim = inv.block_dim;
      span.event().bytes = inv.gm_bytes;
      if (!st.ok()) span.event().detail = st.message();
    }
    if (!st.ok()) log_kernel_failure(st);
    st.ThrowIfError();
  });
}

uint64_t Stream::memcpy_async(void* dst, const void* src, size_t bytes, MemcpyKind kind) {
  ASC_LOG_DEBUG("memcpy", memcpy_kind_name(kind) << " " << bytes << " B async on stream " << id_);
  Device* dev = device_;
  return enqueue(std::string("memcpy_async(") + memcpy_kind_name(kind) + ")",
                 [dev, dst, src, bytes, kind] { dev->copy(dst, src, bytes, kind).ThrowIfError(); });
}

void Stream::wait_until(uint64_t seq) { state_->wait_until(seq); }

uint64_t Stream::add_callback(std::function<void()> fn) {
  return enqueue("host_callback", [fn = std::move(fn)] {
    profiler::Span span(profiler::EventKind::kCallback, "host_callback");
    fn();
  });
}

namespace {
std::atomic<void (*)(Stream*)> g_sync_hook{nullptr};
void run_sync_hook(Stream* s) {
  if (auto h = g_sync_hook.load(std::memory_order_acquire)) h(s);
}
}  // namespace

void set_synchronize_hook(void (*hook)(Stream*)) noexcept { g_sync_hook.store(hook, std::memory_order_release); }

Status Stream::synchronize() {
  if (t_worker_of == state_.get()) return self_wait_error("stream.synchronize");
  run_sync_hook(this);
  return drain();
}

// Waits for the queued tasks without the synchronize hook: the destructor
// uses it, since a thread's default stream dies at thread exit, when running
// lazy graphs (the hook) would use that thread's already-destroyed state.
Status Stream::drain() {
  if (t_worker_of == state_.get() && !query()) return self_wait_error("stream.synchronize");
  if (profiler::enabled() && !query()) {
    profiler::Span span(profiler::EventKind::kSync, "stream.synchronize");
    span.event().stream_id = id_;
    state_->wait_until(last_enqueued());
  } else {
    state_->wait_until(last_enqueued());
  }
  std::lock_guard<std::mutex> lock(state_->mu);
  Status st = std::move(state_->first_error);
  state_->first_error = Status::OK();
  return st;
}

// ------------------------------------------------------------------ fork()

namespace {
// pthread_atfork handlers. prepare: the forking thread holds the registry lock
// across fork(), so the child's registries are consistent; child: the
// registry lock is re-created and every stream is reset (Stream::State::
// after_fork_child); its worker restarts with the next enqueued work. Work
// that was running on the parent's workers at fork() is not run in the child
// (POSIX: only the forking thread survives); its stream reports that at the
// next synchronize() instead of waiting forever.
void fork_prepare() noexcept { registry_mu().lock(); }
void fork_parent() noexcept { registry_mu().unlock(); }
void fork_child() noexcept {
  new (&registry_mu()) std::mutex();
  for (auto& w : state_registry())
    if (auto st = w.lock()) st->after_fork_child();
}
void register_fork_handlers() {
  static const int registered = ::pthread_atfork(&fork_prepare, &fork_parent, &fork_child);
  (void)registered;
}
}  // namespace

// ------------------------------------------------------------------ events

struct Event::State {
  std::mutex mu;
  std::weak_ptr<Stream> stream;
  uint64_t seq = 0;
  uint64_t generation = 0;
  bool recorded = false;
  bool has_time = false;
  std::chrono::steady_clock::time_point time;
};

Event::Event(bool enable_timing) : enable_timing_(enable_timing), state_(std::make_shared<State>()) {}

void Event::record(Stream* stream) {
  std::shared_ptr<Stream> s = stream ? stream->shared_from_this() : current_stream();
  uint64_t gen;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    gen = ++state_->generation;
    state_->has_time = false;
    state_->recorded = true;
    state_->stream = s;
    state_->seq = s->last_enqueued() + 1;  // the marker's own sequence number (see below)
  }
  std::weak_ptr<State> weak = state_;
  uint64_t seq = s->enqueue("event_record", [weak, gen] {
    if (profiler::enabled()) {
      profiler::TraceEvent e;
      e.kind = profiler::EventKind::kEventRecord;
      e.name = "event_record";
      e.ts_ns = profiler::now_ns();
      profiler::record(std::move(e));
    }
    if (auto st = weak.lock()) {
      auto now = std::chrono::steady_clock::now();
      std::lock_guard<std::mutex> lock(st->mu);
      if (st->generation == gen) {
        st->time = now;
        st->has_time = true;
      }
    }
  });
  // Another thread may have enqueued between our estimate and the marker.
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->generation == gen) state_->seq = seq;
}

Status Event::synchronize() const {
  std::shared_ptr<Stream> s;
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->recorded) return Status::OK();
    s = state_->stream.lock();
    seq = state_->seq;
  }
  if (s) {
    if (t_worker_of && t_worker_stream_id == s->id() && !s->is_complete(seq))
      return self_wait_error("Event.synchronize");
    s->wait_until(seq);
  }
  return Status::OK();
}

bool Event::query() const noexcept {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (!state_->recorded) return true;
  auto s = state_->stream.lock();
  return !s || s->is_complete(state_->seq);
}

Result<float> Event::elapsed_time(const Event& end) const {
  if (!enable_timing_ || !end.enable_timing_)
    return Status::Invalid("Event.elapsed_time", "both events must be created with enable_timing=True");
  if (!query() || !end.query())
    return Status::Invalid("Event.elapsed_time", "both events must be recorded and complete (call synchronize() first)");
  std::chrono::steady_clock::time_point t0, t1;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->has_time) return Status::Invalid("Event.elapsed_time", "the start event was never recorded");
    t0 = state_->time;
  }
  {
    std::lock_guard<std::mutex> lock(end.state_->mu);
    if (!end.state_->has_time) return Status::Invalid("Event.elapsed_time", "the end event was never recorded");
    t1 = end.state_->time;
  }
  return std::chrono::duration<float, std::milli>(t1 - t0).count();
}

void Stream::wait_event(const Event& e) {
  std::shared_ptr<Stream> other;
  uint64_t seq = 0;
  {
    std::lock_guard<std::mutex> lock(e.state_->mu);
    if (e.state_->recorded) {
      other = e.state_->stream.lock();
      seq = e.state_->seq;
    }
  }
  if (!other || other.get() == this) return;  // nothing to wait for / already ordered
  std::weak_ptr<Stream> weak = other;
  enqueue("stream_wait_event", [weak, seq] {
    profiler::Span span(profiler::EventKind::kStreamWait, "stream_wait_event");
    if (auto s = weak.lock()) {
      if (span.active()) span.event().detail = "waits for stream " + std::to_string(s->id());
      s->wait_until(seq);
    }
  });
}

// ------------------------------------------------------------------ per-thread streams

std::shared_ptr<Stream> default_stream() {
  if (!t_streams.default_stream) t_streams.default_stream = Stream::create();
  return t_streams.default_stream;
}

std::shared_ptr<Stream> current_stream() {
  if (t_streams.current) return t_streams.current;
  return default_stream();
}

Stream* current_stream_ptr() {
  if (t_streams.current) return t_streams.current.get();
  if (!t_streams.default_stream) t_streams.default_stream = Stream::create();
  return t_streams.default_stream.get();
}

void set_current_stream(std::shared_ptr<Stream> s) { t_streams.current = std::move(s); }

std::shared_ptr<Stream> find_stream(const void* handle) {
  if (!handle) return nullptr;
  std::lock_guard<std::mutex> lock(registry_mu());
  for (auto& w : registry()) {
    if (auto s = w.lock(); s && s.get() == handle) return s;
  }
  return nullptr;
}

Status synchronize_device() {
  if (t_worker_of) return self_wait_error("synchronize");  // the device includes the callback's own stream
  run_sync_hook(nullptr);
  std::vector<std::shared_ptr<Stream>> live;
  {
    std::lock_guard<std::mutex> lock(registry_mu());
    for (auto& w : registry())
      if (auto s = w.lock()) live.push_back(std::move(s));
  }
  Status first;
  for (auto& s : live) {
    Status st = s->synchronize();
    if (first.ok() && !st.ok()) first = st;
  }
  return first;
}

StreamGuard::StreamGuard(std::shared_ptr<Stream> s) : previous_(t_streams.current) {
  t_streams.current = std::move(s);
}
StreamGuard::~StreamGuard() { t_streams.current = std::move(previous_); }

}  // namespace asc::runtime
