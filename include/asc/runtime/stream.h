// Streams and events.
//
// A Stream is an in-order asynchronous queue with its own worker thread: work
// (kernel launches, copies, host callbacks, event records and waits) runs in
// enqueue order. Every task gets a sequence number; `completed()` says how far
// the stream got, which is what the memory pool uses for stream-aware reuse.
//
// Errors: a task that fails (a kernel error, a throwing callback) stores its
// Status; later tasks still run; the next `synchronize()` returns the first
// stored error (naming the kernel) and clears it, so the stream stays usable.
//
// Each thread has its own default stream (created on first use, destroyed and
// drained when the thread exits) and a "current" stream (the default unless
// set with set_current_stream / StreamGuard).
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "asc/core/status.h"
#include "asc/runtime/device.h"

namespace asc::runtime {

class Event;

class Stream : public std::enable_shared_from_this<Stream> {
 public:
  /// Creates a stream on `device` (current device if null).
  static std::shared_ptr<Stream> create(Device* device = nullptr);
  /// Drains pending work, then stops the worker. When the last reference is
  /// dropped by one of the stream's own tasks, the worker finishes the queue
  /// by itself instead (it cannot wait for itself).
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  uint64_t id() const noexcept { return id_; }
  Device& device() const noexcept { return *device_; }

  /// Enqueues `task` (named for error messages); returns its sequence number
  /// (1, 2, ...). Never blocks on the stream's work.
  uint64_t enqueue(std::string name, std::function<void()> task);
  /// Enqueues a kernel launch.
  uint64_t launch(KernelInvocation inv);
  /// Asynchronous copy (ordered with the stream's other work).
  uint64_t memcpy_async(void* dst, const void* src, size_t bytes, MemcpyKind kind);
  /// Host callback run by the stream's worker in order.
  uint64_t add_callback(std::function<void()> fn);
  /// The stream's later work waits until `e`'s recorded work is done.
  void wait_event(const Event& e);

  /// Waits for all enqueued work; returns (and clears) the first stored error.
  Status synchronize();
  /// synchronize() that throws asc::Error.
  /// Waits for the queued tasks like synchronize(), without running the
  /// synchronize hook (lazy graphs are not materialised).
  Status drain();
  void synchronize_or_throw() { synchronize().ThrowIfError(); }
  /// True when all enqueued work has finished.
  bool query() const noexcept { return completed() >= last_enqueued(); }

  uint64_t last_enqueued() const noexcept;
  uint64_t completed() const noexcept;
  bool is_complete(uint64_t seq) const noexcept { return completed() >= seq; }
  /// Blocks the calling thread until task `seq` has finished.
  void wait_until(uint64_t seq);

  struct State;  // queue, counters and error; shared with the worker thread

 private:
  explicit Stream(Device* device);

  const uint64_t id_;
  Device* device_;
  // The worker co-owns the state, so the last Stream reference may even be
  // dropped by one of the stream's own tasks.
  std::shared_ptr<State> state_;
};

/// A marker in a stream. `record(s)` captures the work enqueued on `s` so far.
class Event {
 public:
  explicit Event(bool enable_timing = true);
  /// Records on `stream` (current stream if null).
  void record(Stream* stream = nullptr);
  /// Host wait for the recorded work; OK if never recorded.
  Status synchronize() const;
  /// True when the recorded work is done (or the event was never recorded).
  bool query() const noexcept;
  /// Milliseconds between this event and `end` (both recorded and complete).
  Result<float> elapsed_time(const Event& end) const;
  bool timing_enabled() const noexcept { return enable_timing_; }

  struct State;  // shared with the marker task

 private:
  friend class Stream;
  bool enable_timing_;
  std::shared_ptr<State> state_;
};

/// The calling thread's current stream (its default stream unless set).
std::shared_ptr<Stream> current_stream();
/// current_stream() without the reference count: valid while the thread's
/// current stream stays current (at least until the thread changes it).
Stream* current_stream_ptr();
/// The calling thread's default stream.
std::shared_ptr<Stream> default_stream();
/// Makes `s` current for the calling thread (nullptr restores the default).
void set_current_stream(std::shared_ptr<Stream> s);
/// The live stream whose address is `handle` (an aclrtStream or a
/// pyasc.Stream.handle), or null when no live stream has that address.
std::shared_ptr<Stream> find_stream(const void* handle);
/// Waits for every live stream; returns the first error found.
Status synchronize_device();

/// A function every Stream::synchronize() (with that stream) and
/// synchronize_device() (with null) calls first: the lazy graph layer
/// registers one that materialises the pending graphs of that stream (of all
/// streams), so stream synchronisation also materialises them. It must not throw.
void set_synchronize_hook(void (*hook)(Stream* stream)) noexcept;

/// RAII: makes a stream current for a scope.
class StreamGuard {
 public:
  explicit StreamGuard(std::shared_ptr<Stream> s);
  ~StreamGuard();
 private:
  std::shared_ptr<Stream> previous_;
};

}  // namespace asc::runtime
