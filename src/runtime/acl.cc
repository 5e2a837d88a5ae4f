// The ACL host API (include/acl/acl.h) over the pyasc runtime.
//
// Handles:
//  * aclrtStream is the asc::runtime::Stream* itself (so ACLRT_LAUNCH_KERNEL's
//    resolve_stream() works unchanged); the API keeps the owning shared_ptr in
//    a registry keyed by that address until aclrtDestroyStream.
//  * aclrtEvent is the address of an EventSlot holding the current
//    asc::runtime::Event (aclrtResetEvent swaps in a fresh one).
//  * aclrtContext is the address of a ContextToken (bookkeeping only).
// Destroyed handles are remembered ("tombstones") for better messages.
//
// Locking: one mutex guards all registries; it is never held while waiting for
// a stream, running a callback or calling into the memory pools.
//
// Errors: every entry point runs inside guarded(), which turns any exception
// into a code; fail() stores "[api] reason" for aclGetRecentErrMsg().
#include "acl/acl.h"

#include <pthread.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "asc/core/half.h"
#include "asc/core/log.h"
#include "asc/core/status.h"
#include "asc/runtime/device.h"
#include "asc/runtime/launch.h"
#include "asc/runtime/memory_pool.h"
#include "asc/runtime/stream.h"
#include "acl_errors.h"

namespace {

namespace rt = asc::runtime;
using asc::Status;

constexpr int32_t kDeviceCount = 1;
constexpr size_t kMaxTombstones = 1 << 16;

// ------------------------------------------------------------------ error messages

// The message recorded by the latest failing call on this thread, and the one
// handed out by the latest aclGetRecentErrMsg() (kept alive for the caller).
thread_local std::string t_pending_error;
thread_local std::string t_returned_error;

}  // namespace

namespace asc::runtime {
void set_recent_error_message(const std::string& message) noexcept {
  try {
    t_pending_error = message;
  } catch (...) {
  }
}
}  // namespace asc::runtime

namespace asc::runtime::acl_detail {
aclError fail(const char* api, aclError code, std::string_view detail) noexcept {
  try {
    t_pending_error.assign("[").append(api).append("] ").append(detail.data(), detail.size());
    ASC_LOG_DEBUG("acl", t_pending_error << " (code " << code << ")");
  } catch (...) {
    // Out of memory while recording a message: the code still goes back.
  }
  return code;
}
}  // namespace asc::runtime::acl_detail

namespace {

using asc::runtime::acl_detail::fail;
using asc::runtime::acl_detail::guarded;

aclError fail_status(const char* api, const Status& st) noexcept {
  return fail(api, static_cast<aclError>(st.code()), st.message());
}


// The int value of an enum parameter without a typed load: C callers may pass
// any int, which in C++ may lie outside the enum's range.
template <typename E>
int raw_enum(const E& e) noexcept {
  static_assert(sizeof(E) == sizeof(int), "ACL enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

std::string ptr_str(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

// ------------------------------------------------------------------ state

struct EventSlot {
  std::shared_ptr<rt::Event> event;
  bool recorded = false;  // since creation / the last aclrtResetEvent
};

struct ContextToken {
  int32_t device = 0;
};

struct ReportQueue;

struct State {
  std::mutex mu;
  bool initialized = false;
  bool finalized_once = false;
  uint64_t finalize_count = 0;
  int device_refs = 0;
  std::unordered_map<void*, std::shared_ptr<rt::Stream>> streams;
  std::unordered_set<const void*> dead_streams;
  std::unordered_map<void*, std::shared_ptr<EventSlot>> events;
  std::unordered_set<const void*> dead_events;
  std::unordered_map<void*, std::unique_ptr<ContextToken>> contexts;
  std::unordered_map<void*, size_t> device_blocks;  // aclrtMalloc: base -> requested bytes
  std::unordered_map<void*, size_t> host_blocks;    // aclrtMallocHost
  std::unordered_map<const rt::Stream*, uint64_t> subscriptions;  // stream -> report thread
  std::unordered_map<uint64_t, std::shared_ptr<ReportQueue>> report_queues;
};

// Never destroyed: ACL calls stay valid during static destruction.
State& state() {
  static State* s = new State();
  return *s;
}

ContextToken g_default_context{0};

thread_local int32_t t_device = -1;               // aclrtSetDevice / context of this thread
thread_local void* t_context = nullptr;           // set by aclrtCreateContext / SetCurrentContext
// The stream whose worker is waiting for the ACL_CALLBACK_BLOCK callback that
// runs on this thread (synchronizing it from the callback would deadlock).
thread_local const rt::Stream* t_blocking_callback_stream = nullptr;
thread_local bool t_on_callback_thread = false;   // the NO_BLOCK dispatcher
// Streams destroyed from inside one of their own callbacks: released once the
// callback has returned.
thread_local std::vector<std::shared_ptr<rt::Stream>> t_deferred_release;

template <typename Set>
void add_tombstone(Set& set, const void* p) {
  if (set.size() >= kMaxTombstones) set.clear();
  set.insert(p);
}

// The stream named by `handle` (null: the calling thread's current stream), or
// null after recording an error in *err.
std::shared_ptr<rt::Stream> find_stream(const char* api, aclrtStream handle, aclError* err) {
  if (!handle) return rt::current_stream();
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  auto it = st.streams.find(handle);
  if (it != st.streams.end()) return it->second;
  // Streams made elsewhere (pyasc.Stream.handle, C++ Stream::create) are valid too.
  if (auto s = rt::find_stream(handle)) return s;
  *err = fail(api, ACL_ERROR_INVALID_PARAM,
              "stream " + ptr_str(handle) +
                  (st.dead_streams.count(handle) ? " was destroyed by aclrtDestroyStream"
                                                 : " was not created by aclrtCreateStream"));
  return nullptr;
}

std::shared_ptr<EventSlot> find_event_slot_locked(State& st, const char* api, aclrtEvent handle,
                                                  aclError* err) {
  if (!handle) {
    *err = fail(api, ACL_ERROR_INVALID_PARAM, "event is null");
    return nullptr;
  }
  auto it = st.events.find(handle);
  if (it != st.events.end()) return it->second;
  *err = fail(api, ACL_ERROR_INVALID_PARAM,
              "event " + ptr_str(handle) +
                  (st.dead_events.count(handle) ? " was destroyed by aclrtDestroyEvent"
                                                : " was not created by aclrtCreateEvent"));
  return nullptr;
}

// The event's current runtime Event (copied under the lock).
std::shared_ptr<rt::Event> find_event(const char* api, aclrtEvent handle, aclError* err,
                                      bool* recorded = nullptr) {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  auto slot = find_event_slot_locked(st, api, handle, err);
  if (!slot) return nullptr;
  if (recorded) *recorded = slot->recorded;
  return slot->event;
}

// ------------------------------------------------------------------ callbacks

struct CallbackItem {
  aclrtCallback fn = nullptr;
  void* user_data = nullptr;
  const rt::Stream* stream = nullptr;
  bool block = false;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::exception_ptr error;

  void finish(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(mu);
      error = std::move(e);
      done = true;
    }
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
  }
};

// Runs the user function on the calling thread; returns its exception, if any.
std::exception_ptr run_callback(CallbackItem& item) noexcept {
  std::exception_ptr error;
  const rt::Stream* previous = t_blocking_callback_stream;
  if (item.block) t_blocking_callback_stream = item.stream;
  try {
    item.fn(item.user_data);
  } catch (...) {
    error = std::current_exception();
  }
  t_blocking_callback_stream = previous;
  return error;
}

void log_callback_error(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    ASC_LOG_WARNING("acl", "aclrtLaunchCallback: ACL_CALLBACK_NO_BLOCK callback threw: " << ex.what());
  } catch (...) {
    ASC_LOG_WARNING("acl", "aclrtLaunchCallback: ACL_CALLBACK_NO_BLOCK callback threw");
  }
}

// Where ACL_CALLBACK_NO_BLOCK callbacks of unsubscribed streams run: one thread,
// in dispatch order. Never destroyed (its detached thread may outlive main).
struct Dispatcher {
  std::mutex mu;
  std::condition_variable work_cv;
  std::condition_variable done_cv;
  std::deque<std::shared_ptr<CallbackItem>> queue;
  uint64_t submitted = 0;
  uint64_t finished = 0;
  bool started = false;

  void push(std::shared_ptr<CallbackItem> item) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!started) {
        std::thread(&Dispatcher::loop, this).detach();
        started = true;
      }
      queue.push_back(std::move(item));
      ++submitted;
    }
    work_cv.notify_one();
  }

  void loop() {
    t_on_callback_thread = true;
    for (;;) {
      std::shared_ptr<CallbackItem> item;
      {
        std::unique_lock<std::mutex> lock(mu);
        work_cv.wait(lock, [&] { return !queue.empty(); });
        item = std::move(queue.front());
        queue.pop_front();
      }
      std::exception_ptr e = run_callback(*item);
      if (e) log_callback_error(e);
      t_deferred_release.clear();
      item->finish(e);
      {
        std::lock_guard<std::mutex> lock(mu);
        ++finished;
      }
      done_cv.notify_all();
    }
  }

  // Waits for every callback dispatched so far (not from the dispatcher itself).
  void wait_dispatched() {
    if (t_on_callback_thread) return;
    std::unique_lock<std::mutex> lock(mu);
    const uint64_t target = submitted;
    done_cv.wait(lock, [&] { return finished >= target; });
  }
};

Dispatcher& dispatcher() {
  static Dispatcher* d = new Dispatcher();
  return *d;
}

// Callbacks addressed to a thread subscribed with aclrtSubscribeReport.
struct ReportQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::shared_ptr<CallbackItem>> items;

  void push(std::shared_ptr<CallbackItem> item) {
    {
      std::lock_guard<std::mutex> lock(mu);
      items.push_back(std::move(item));
    }
    cv.notify_one();
  }
};

std::shared_ptr<ReportQueue> report_queue_locked(State& st, uint64_t thread_id) {
  auto& q = st.report_queues[thread_id];
  if (!q) q = std::make_shared<ReportQueue>();
  return q;
}

// ------------------------------------------------------------------ release

// Synchronizes and drops every stream and event of the API and frees its
// memory (the last aclrtResetDevice, aclFinalize).
void release_all(const char* api) {
  State& st = state();
  std::unordered_map<void*, std::shared_ptr<rt::Stream>> streams;
  std::unordered_map<void*, std::shared_ptr<EventSlot>> events;
  std::unordered_map<void*, size_t> device_blocks;
  std::unordered_map<void*, size_t> host_blocks;
  std::unordered_map<void*, std::unique_ptr<ContextToken>> contexts;
  {
    std::lock_guard<std::mutex> lock(st.mu);
    streams.swap(st.streams);
    events.swap(st.events);
    device_blocks.swap(st.device_blocks);
    host_blocks.swap(st.host_blocks);
    contexts.swap(st.contexts);
    st.subscriptions.clear();
    for (auto& kv : streams) add_tombstone(st.dead_streams, kv.first);
    for (auto& kv : events) add_tombstone(st.dead_events, kv.first);
  }
  for (auto it = streams.begin(); it != streams.end();) {
    if (it->second.get() == t_blocking_callback_stream) {
      // Called from a blocking callback of this stream: release it afterwards.
      t_deferred_release.push_back(std::move(it->second));
      it = streams.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& kv : streams) {
    Status s = kv.second->synchronize();
    if (!s.ok()) ASC_LOG_WARNING("acl", api << ": stream " << kv.first << " had an unreported error: " << s.message());
  }
  dispatcher().wait_dispatched();
  if (!streams.empty() || !events.empty() || !device_blocks.empty() || !host_blocks.empty()) {
    ASC_LOG_INFO("acl", api << " released " << streams.size() << " stream(s), " << events.size() << " event(s), "
                            << device_blocks.size() << " aclrtMalloc block(s) and " << host_blocks.size()
                            << " aclrtMallocHost block(s) the program still held");
  }
  streams.clear();  // drains (already synchronized) and stops the workers
  for (auto& kv : device_blocks) (void)rt::device_pool().free(kv.first);
  for (auto& kv : host_blocks) (void)rt::pinned_host_pool().free(kv.first);
}

// ------------------------------------------------------------------ memory helpers

struct Location {
  bool device = false;  // inside a device-pool block
  bool pinned = false;  // inside a pinned-host-pool block
  char* base = nullptr;
  size_t size = 0;      // requested bytes for API blocks, usable bytes otherwise
};

Location locate(const void* p) {
  Location loc;
  void* base = nullptr;
  size_t size = 0;
  if (rt::device_pool().find_allocation(p, &base, &size)) {
    loc.device = true;
  } else if (rt::pinned_host_pool().find_allocation(p, &base, &size)) {
    loc.pinned = true;
  } else {
    return loc;
  }
  loc.base = static_cast<char*>(base);
  loc.size = size;
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  auto& blocks = loc.device ? st.device_blocks : st.host_blocks;
  auto it = blocks.find(base);
  if (it != blocks.end()) loc.size = it->second;
  return loc;
}

// `bytes` bytes at `p` must stay inside p's block (if it has one).
aclError check_range(const char* api, const char* what, const void* p, const Location& loc, size_t bytes) {
  if (!loc.device && !loc.pinned) return ACL_SUCCESS;
  const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - loc.base);
  if (offset <= loc.size && bytes <= loc.size - offset) return ACL_SUCCESS;
  return fail(api, ACL_ERROR_INVALID_PARAM,
              std::string(what) + " range of " + std::to_string(bytes) + " bytes at offset " +
                  std::to_string(offset) + " runs past the end of the " + std::to_string(loc.size) + "-byte " +
                  (loc.device ? "device" : "host") + " block at " + ptr_str(loc.base) + " by " +
                  std::to_string(offset + bytes - loc.size) + " bytes");
}

const char* kind_name(int kind) {
  switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT: return "ACL_MEMCPY_DEFAULT";
    default: return "?";
  }
}

// One side of a copy must be device memory (want_device) or host memory.
aclError check_side(const char* api, const char* what, const void* p, const Location& loc, bool want_device,
                    int kind, size_t bytes) {
  if (want_device && !loc.device) {
    return fail(api, ACL_ERROR_INVALID_PARAM,
                std::string(what) + " " + ptr_str(p) + " is not device memory (allocate it with aclrtMalloc) but " +
                    kind_name(kind) + " needs a device " + what);
  }
  if (!want_device && loc.device) {
    return fail(api, ACL_ERROR_INVALID_PARAM,
                std::string(what) + " " + ptr_str(p) + " is device memory but " + kind_name(kind) +
                    " needs a host " + what);
  }
  return check_range(api, what, p, loc, bytes);
}

// Validates a copy; sets *rt_kind to the direction it will use.
aclError check_memcpy(const char* api, void* dst, size_t dest_max, const void* src, size_t count, int kind,
                      rt::MemcpyKind* rt_kind) {
  if (!dst || !src) {
    return fail(api, ACL_ERROR_INVALID_PARAM,
                std::string(!dst ? "dst" : "src") + " is null (count " + std::to_string(count) + " bytes)");
  }
  if (count > dest_max) {
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "count (" + std::to_string(count) + " bytes) exceeds destMax (" + std::to_string(dest_max) +
                    " bytes)");
  }
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEFAULT) {
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "invalid aclrtMemcpyKind " + std::to_string(kind) +
                    " (expected ACL_MEMCPY_HOST_TO_HOST .. ACL_MEMCPY_DEVICE_TO_DEVICE or ACL_MEMCPY_DEFAULT)");
  }
  const Location dl = locate(dst);
  const Location sl = locate(src);
  bool dst_device, src_device;
  if (kind == ACL_MEMCPY_DEFAULT) {
    dst_device = dl.device;
    src_device = sl.device;
  } else {
    dst_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
    src_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  }
  if (aclError e = check_side(api, "dst", dst, dl, dst_device, kind, count)) return e;
  if (aclError e = check_side(api, "src", src, sl, src_device, kind, count)) return e;
  *rt_kind = static_cast<rt::MemcpyKind>(src_device ? (dst_device ? ACL_MEMCPY_DEVICE_TO_DEVICE
                                                                   : ACL_MEMCPY_DEVICE_TO_HOST)
                                                    : (dst_device ? ACL_MEMCPY_HOST_TO_DEVICE
                                                                  : ACL_MEMCPY_HOST_TO_HOST));
  return ACL_SUCCESS;
}

aclError check_memset(const char* api, void* dev_ptr, size_t max_count, size_t count) {
  if (!dev_ptr) return fail(api, ACL_ERROR_INVALID_PARAM, "devPtr is null");
  if (count > max_count) {
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "count (" + std::to_string(count) + " bytes) exceeds maxCount (" + std::to_string(max_count) +
                    " bytes)");
  }
  return check_range(api, "devPtr", dev_ptr, locate(dev_ptr), count);
}

// Streams whose enqueued work may still use a block being freed.
std::vector<std::shared_ptr<rt::Stream>> streams_for_free() {
  std::vector<std::shared_ptr<rt::Stream>> out;
  out.push_back(rt::current_stream());
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  out.reserve(st.streams.size() + 1);
  for (auto& kv : st.streams) out.push_back(kv.second);
  return out;
}

aclError free_block(const char* api, void* p, bool host) {
  if (!p) return fail(api, ACL_ERROR_INVALID_PARAM, host ? "hostPtr is null" : "devPtr is null");
  State& st = state();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    auto& mine = host ? st.host_blocks : st.device_blocks;
    auto& other = host ? st.device_blocks : st.host_blocks;
    if (!mine.erase(p)) {
      std::string why;
      if (other.count(p)) {
        why = host ? " was allocated by aclrtMalloc: free it with aclrtFree"
                   : " was allocated by aclrtMallocHost: free it with aclrtFreeHost";
      } else {
        why = host ? " was not allocated by aclrtMallocHost (or was already freed)"
                   : " was not allocated by aclrtMalloc (or was already freed)";
      }
      return fail(api, ACL_ERROR_RT_MEMORY_FREE, ptr_str(p) + why);
    }
  }
  rt::MemoryPool& pool = host ? rt::pinned_host_pool() : rt::device_pool();
  for (auto& s : streams_for_free()) (void)pool.record_stream(p, *s);
  Status s = pool.free(p);
  if (!s.ok()) return fail_status(api, s);
  return ACL_SUCCESS;
}

aclError malloc_block(const char* api, void** out, size_t size, bool host) {
  if (!out) return fail(api, ACL_ERROR_INVALID_PARAM, host ? "hostPtr is null" : "devPtr is null");
  *out = nullptr;
  if (size == 0) return fail(api, ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
  {
    // After aclFinalize the runtime is uninitialised (CANN: ACL_ERROR_UNINITIALIZE until the
    // next aclInit). Programs that never call aclInit keep working, as the CPU device
    // initialises lazily.
    State& st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    if (!st.initialized && st.finalized_once)
      return fail(api, ACL_ERROR_UNINITIALIZE, "the runtime was finalized (aclFinalize); call aclInit first");
  }
  rt::MemoryPool& pool = host ? rt::pinned_host_pool() : rt::device_pool();
  asc::Result<void*> r = pool.allocate(size);
  if (!r.ok()) return fail_status(api, r.status());
  void* p = r.value();
  State& st = state();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    (host ? st.host_blocks : st.device_blocks)[p] = size;
  }
  *out = p;
  return ACL_SUCCESS;
}

aclError sync_stream(const char* api, rt::Stream& s) {
  if (t_blocking_callback_stream == &s) {
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "called from an ACL_CALLBACK_BLOCK callback of the same stream, which waits for the callback "
                "(this would deadlock)");
  }
  Status st = s.synchronize();
  dispatcher().wait_dispatched();
  if (!st.ok()) return fail_status(api, st);
  return ACL_SUCCESS;
}

aclError check_device_id(const char* api, int32_t id) {
  if (id < 0 || id >= kDeviceCount) {
    return fail(api, ACL_ERROR_RT_INVALID_DEVICEID,
                "device id " + std::to_string(id) + " is out of range (" + std::to_string(kDeviceCount) +
                    " device(s): valid ids are 0.." + std::to_string(kDeviceCount - 1) + ")");
  }
  return ACL_SUCCESS;
}

}  // namespace

extern "C" {

// ================================================================== acl.h

aclError aclInit(const char* configPath) {
  return guarded("aclInit", [&]() -> aclError {
    State& st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    if (st.initialized) {
      return fail("aclInit", ACL_ERROR_REPEAT_INITIALIZE, "already initialized (call aclFinalize first)");
    }
    if (configPath && *configPath) {
      std::FILE* f = std::fopen(configPath, "rb");
      if (!f) {
        return fail("aclInit", ACL_ERROR_INVALID_FILE,
                    std::string("cannot open config file '") + configPath + "': " + std::strerror(errno));
      }
      std::fclose(f);
    }
    st.initialized = true;
    ASC_LOG_DEBUG("acl", "aclInit(" << (configPath ? configPath : "nullptr") << ")");
    return ACL_SUCCESS;
  });
}

aclError aclFinalize(void) {
  return guarded("aclFinalize", [&]() -> aclError {
    State& st = state();
    {
      std::lock_guard<std::mutex> lock(st.mu);
      if (!st.initialized) {
        return st.finalized_once
                   ? fail("aclFinalize", ACL_ERROR_REPEAT_FINALIZE, "already finalized")
                   : fail("aclFinalize", ACL_ERROR_UNINITIALIZE, "aclInit was not called");
      }
      st.initialized = false;
      st.finalized_once = true;
      ++st.finalize_count;
      st.device_refs = 0;
    }
    t_device = -1;
    t_context = nullptr;
    release_all("aclFinalize");
    return ACL_SUCCESS;
  });
}

}  // extern "C"

namespace asc::runtime {
// For the model API (acl_mdl.cc, declared in acl_mdl_internal.h): whether aclFinalize was called
// with no aclInit since, and how many times aclFinalize has run (models loaded before a
// finalize are unloaded by it).
void acl_lifecycle(bool* finalized, uint64_t* finalize_count) noexcept {
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  *finalized = !st.initialized && st.finalized_once;
  *finalize_count = st.finalize_count;
}
}  // namespace asc::runtime

extern "C" {

const char* aclGetRecentErrMsg(void) {
  try {
    t_returned_error.swap(t_pending_error);
    t_pending_error.clear();
    return t_returned_error.c_str();
  } catch (...) {
    return "";
  }
}

aclError aclGetVersion(int32_t* majorVersion, int32_t* minorVersion, int32_t* patchVersion) {
  return guarded("aclGetVersion", [&]() -> aclError {
    if (!majorVersion || !minorVersion || !patchVersion)
      return fail("aclGetVersion", ACL_ERROR_INVALID_PARAM, "an output pointer is null");
    int major = 0, minor = 0, patch = 0;
#ifdef ASC_VERSION_STRING
    std::sscanf(ASC_VERSION_STRING, "%d.%d.%d", &major, &minor, &patch);
#endif
    *majorVersion = major;
    *minorVersion = minor;
    *patchVersion = patch;
    return ACL_SUCCESS;
  });
}

// ================================================================== acl_base.h

size_t aclDataTypeSize(aclDataType dataType) {
  switch (raw_enum(dataType)) {
    case ACL_BOOL:
    case ACL_INT8:
    case ACL_UINT8: return 1;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16: return 2;
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_COMPLEX32: return 4;
    case ACL_INT64:
    case ACL_UINT64:
    case ACL_DOUBLE:
    case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
  }
}

aclFloat16 aclFloatToFloat16(float value) { return asc::float16(value).bits; }

float aclFloat16ToFloat(aclFloat16 value) { return static_cast<float>(asc::float16::from_bits(value)); }

// ================================================================== devices and contexts

aclError aclrtGetRunMode(aclrtRunMode* runMode) {
  return guarded("aclrtGetRunMode", [&]() -> aclError {
    if (!runMode) return fail("aclrtGetRunMode", ACL_ERROR_INVALID_PARAM, "runMode is null");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
  });
}

aclError aclrtSetDevice(int32_t deviceId) {
  return guarded("aclrtSetDevice", [&]() -> aclError {
    if (aclError e = check_device_id("aclrtSetDevice", deviceId)) return e;
    State& st = state();
    {
      std::lock_guard<std::mutex> lock(st.mu);
      ++st.device_refs;
    }
    t_device = deviceId;
    t_context = nullptr;
    return ACL_SUCCESS;
  });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return guarded("aclrtResetDevice", [&]() -> aclError {
    if (aclError e = check_device_id("aclrtResetDevice", deviceId)) return e;
    State& st = state();
    bool last = false;
    {
      std::lock_guard<std::mutex> lock(st.mu);
      if (st.device_refs > 0) last = --st.device_refs == 0;
    }
    if (t_device == deviceId) {
      t_device = -1;
      t_context = nullptr;
    }
    if (last) release_all("aclrtResetDevice");
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return guarded("aclrtGetDevice", [&]() -> aclError {
    if (!deviceId) return fail("aclrtGetDevice", ACL_ERROR_INVALID_PARAM, "deviceId is null");
    if (t_device < 0) {
      return fail("aclrtGetDevice", ACL_ERROR_RT_CONTEXT_NULL,
                  "no device is set on this thread (call aclrtSetDevice or aclrtSetCurrentContext)");
    }
    *deviceId = t_device;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  return guarded("aclrtGetDeviceCount", [&]() -> aclError {
    if (!count) return fail("aclrtGetDeviceCount", ACL_ERROR_INVALID_PARAM, "count is null");
    *count = static_cast<uint32_t>(kDeviceCount);
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeDevice(void) {
  return guarded("aclrtSynchronizeDevice", [&]() -> aclError {
    if (t_blocking_callback_stream) {
      return fail("aclrtSynchronizeDevice", ACL_ERROR_INVALID_PARAM,
                  "called from an ACL_CALLBACK_BLOCK callback, whose stream waits for it (this would deadlock)");
    }
    Status st = rt::synchronize_device();
    dispatcher().wait_dispatched();
    if (!st.ok()) return fail_status("aclrtSynchronizeDevice", st);
    return ACL_SUCCESS;
  });
}

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  return guarded("aclrtCreateContext", [&]() -> aclError {
    if (!context) return fail("aclrtCreateContext", ACL_ERROR_INVALID_PARAM, "context is null");
    if (aclError e = check_device_id("aclrtCreateContext", deviceId)) return e;
    auto token = std::make_unique<ContextToken>();
    token->device = deviceId;
    void* handle = token.get();
    State& st = state();
    {
      std::lock_guard<std::mutex> lock(st.mu);
      st.contexts.emplace(handle, std::move(token));
    }
    t_context = handle;
    t_device = deviceId;
    *context = handle;
    return ACL_SUCCESS;
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  return guarded("aclrtDestroyContext", [&]() -> aclError {
    if (!context) return fail("aclrtDestroyContext", ACL_ERROR_INVALID_PARAM, "context is null");
    if (context == &g_default_context) {
      return fail("aclrtDestroyContext", ACL_ERROR_INVALID_PARAM,
                  "the device's default context cannot be destroyed (use aclrtResetDevice)");
    }
    State& st = state();
    {
      std::lock_guard<std::mutex> lock(st.mu);
      if (!st.contexts.erase(context)) {
        return fail("aclrtDestroyContext", ACL_ERROR_INVALID_PARAM,
                    "context " + ptr_str(context) + " was not created by aclrtCreateContext (or was destroyed)");
      }
    }
    if (t_context == context) t_context = nullptr;
    return ACL_SUCCESS;
  });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  return guarded("aclrtSetCurrentContext", [&]() -> aclError {
    if (!context) return fail("aclrtSetCurrentContext", ACL_ERROR_INVALID_PARAM, "context is null");
    int32_t device = 0;
    if (context != &g_default_context) {
      State& st = state();
      std::lock_guard<std::mutex> lock(st.mu);
      auto it = st.contexts.find(context);
      if (it == st.contexts.end()) {
        return fail("aclrtSetCurrentContext", ACL_ERROR_INVALID_PARAM,
                    "context " + ptr_str(context) + " was not created by aclrtCreateContext (or was destroyed)");
      }
      device = it->second->device;
    }
    t_context = context;
    t_device = device;
    return ACL_SUCCESS;
  });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  return guarded("aclrtGetCurrentContext", [&]() -> aclError {
    if (!context) return fail("aclrtGetCurrentContext", ACL_ERROR_INVALID_PARAM, "context is null");
    if (t_context) {
      *context = t_context;
    } else if (t_device >= 0) {
      *context = &g_default_context;
    } else {
      return fail("aclrtGetCurrentContext", ACL_ERROR_RT_CONTEXT_NULL,
                  "no context is current on this thread (call aclrtSetDevice or aclrtCreateContext)");
    }
    return ACL_SUCCESS;
  });
}

// ================================================================== streams

aclError aclrtCreateStream(aclrtStream* stream) {
  return guarded("aclrtCreateStream", [&]() -> aclError {
    if (!stream) return fail("aclrtCreateStream", ACL_ERROR_INVALID_PARAM, "stream is null");
    std::shared_ptr<rt::Stream> s = rt::Stream::create();
    void* handle = s.get();
    State& st = state();
    {
      std::lock_guard<std::mutex> lock(st.mu);
      st.dead_streams.erase(handle);
      st.streams.emplace(handle, std::move(s));
    }
    *stream = handle;
    return ACL_SUCCESS;
  });
}

aclError aclrtCreateStreamWithConfig(aclrtStream* stream, uint32_t priority, uint32_t flag) {
  (void)priority;
  (void)flag;
  return aclrtCreateStream(stream);
}

aclError aclrtDestroyStream(aclrtStream stream) {
  return guarded("aclrtDestroyStream", [&]() -> aclError {
    if (!stream) {
      return fail("aclrtDestroyStream", ACL_ERROR_INVALID_PARAM,
                  "stream is null (the default stream cannot be destroyed)");
    }
    std::shared_ptr<rt::Stream> s;
    State& st = state();
    {
      std::lock_guard<std::mutex> lock(st.mu);
      auto it = st.streams.find(stream);
      if (it == st.streams.end()) {
        return fail("aclrtDestroyStream", ACL_ERROR_INVALID_PARAM,
                    "stream " + ptr_str(stream) +
                        (st.dead_streams.count(stream) ? " was already destroyed"
                                                       : " was not created by aclrtCreateStream"));
      }
      s = std::move(it->second);
      st.streams.erase(it);
      st.subscriptions.erase(s.get());
      add_tombstone(st.dead_streams, stream);
    }
    if (t_blocking_callback_stream == s.get()) {
      // Its worker waits for this callback: release the stream after it returns.
      t_deferred_release.push_back(std::move(s));
      return ACL_SUCCESS;
    }
    Status result = s->synchronize();
    s.reset();  // drains and stops the worker (unless other references remain)
    if (!result.ok()) return fail_status("aclrtDestroyStream", result);
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  return guarded("aclrtSynchronizeStream", [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    auto s = find_stream("aclrtSynchronizeStream", stream, &err);
    if (!s) return err;
    return sync_stream("aclrtSynchronizeStream", *s);
  });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status) {
  return guarded("aclrtStreamQuery", [&]() -> aclError {
    if (!status) return fail("aclrtStreamQuery", ACL_ERROR_INVALID_PARAM, "status is null");
    aclError err = ACL_SUCCESS;
    auto s = find_stream("aclrtStreamQuery", stream, &err);
    if (!s) return err;
    *status = s->query() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
  return guarded("aclrtStreamWaitEvent", [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    auto e = find_event("aclrtStreamWaitEvent", event, &err);
    if (!e) return err;
    auto s = find_stream("aclrtStreamWaitEvent", stream, &err);
    if (!s) return err;
    s->wait_event(*e);
    return ACL_SUCCESS;
  });
}

// ================================================================== events

aclError aclrtCreateEvent(aclrtEvent* event) {
  return guarded("aclrtCreateEvent", [&]() -> aclError {
    if (!event) return fail("aclrtCreateEvent", ACL_ERROR_INVALID_PARAM, "event is null");
    auto slot = std::make_shared<EventSlot>();
    slot->event = std::make_shared<rt::Event>(true);
    void* handle = slot.get();
    State& st = state();
    {
      std::lock_guard<std::mutex> lock(st.mu);
      st.dead_events.erase(handle);
      st.events.emplace(handle, std::move(slot));
    }
    *event = handle;
    return ACL_SUCCESS;
  });
}

aclError aclrtCreateEventWithFlag(aclrtEvent* event, uint32_t flag) {
  (void)flag;
  return aclrtCreateEvent(event);
}

aclError aclrtDestroyEvent(aclrtEvent event) {
  return guarded("aclrtDestroyEvent", [&]() -> aclError {
    std::shared_ptr<EventSlot> slot;  // released outside the lock
    State& st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    aclError err = ACL_SUCCESS;
    slot = find_event_slot_locked(st, "aclrtDestroyEvent", event, &err);
    if (!slot) return err;
    st.events.erase(event);
    add_tombstone(st.dead_events, event);
    return ACL_SUCCESS;
  });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
  return guarded("aclrtRecordEvent", [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    auto s = find_stream("aclrtRecordEvent", stream, &err);
    if (!s) return err;
    std::shared_ptr<rt::Event> e;
    {
      State& st = state();
      std::lock_guard<std::mutex> lock(st.mu);
      auto slot = find_event_slot_locked(st, "aclrtRecordEvent", event, &err);
      if (!slot) return err;
      slot->recorded = true;
      e = slot->event;
    }
    e->record(s.get());
    return ACL_SUCCESS;
  });
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
  return guarded("aclrtResetEvent", [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    auto s = find_stream("aclrtResetEvent", stream, &err);
    if (!s) return err;
    auto fresh = std::make_shared<rt::Event>(true);
    std::shared_ptr<rt::Event> old;  // released outside the lock
    State& st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    auto slot = find_event_slot_locked(st, "aclrtResetEvent", event, &err);
    if (!slot) return err;
    old = std::move(slot->event);
    slot->event = std::move(fresh);
    slot->recorded = false;
    return ACL_SUCCESS;
  });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
  return guarded("aclrtSynchronizeEvent", [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    auto e = find_event("aclrtSynchronizeEvent", event, &err);
    if (!e) return err;
    Status st = e->synchronize();
    if (!st.ok()) return fail_status("aclrtSynchronizeEvent", st);
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status) {
  return guarded("aclrtQueryEvent", [&]() -> aclError {
    if (!status) return fail("aclrtQueryEvent", ACL_ERROR_INVALID_PARAM, "status is null");
    aclError err = ACL_SUCCESS;
    auto e = find_event("aclrtQueryEvent", event, &err);
    if (!e) return err;
    *status = e->query() ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status) {
  return guarded("aclrtQueryEventStatus", [&]() -> aclError {
    if (!status) return fail("aclrtQueryEventStatus", ACL_ERROR_INVALID_PARAM, "status is null");
    aclError err = ACL_SUCCESS;
    bool recorded = false;
    auto e = find_event("aclrtQueryEventStatus", event, &err, &recorded);
    if (!e) return err;
    *status = recorded && e->query() ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
  });
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent) {
  static const char* kApi = "aclrtEventElapsedTime";
  return guarded(kApi, [&]() -> aclError {
    if (!ms) return fail(kApi, ACL_ERROR_INVALID_PARAM, "ms is null");
    aclError err = ACL_SUCCESS;
    bool start_recorded = false, end_recorded = false;
    auto start = find_event(kApi, startEvent, &err, &start_recorded);
    if (!start) return err;
    auto end = find_event(kApi, endEvent, &err, &end_recorded);
    if (!end) return err;
    if (!start_recorded || !end_recorded) {
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  std::string("the ") + (!start_recorded ? "start" : "end") +
                      " event was never recorded (call aclrtRecordEvent)");
    }
    if (!start->query() || !end->query()) {
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "the events' work has not completed (call aclrtSynchronizeEvent on the end event first)");
    }
    asc::Result<float> r = start->elapsed_time(*end);
    if (!r.ok()) return fail_status(kApi, r.status());
    *ms = r.value();
    return ACL_SUCCESS;
  });
}

// ================================================================== memory

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  return guarded("aclrtMalloc", [&]() -> aclError {
    const unsigned p = static_cast<unsigned>(raw_enum(policy));
    const unsigned base = p & ~static_cast<unsigned>(ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH);
    if (base > static_cast<unsigned>(ACL_MEM_MALLOC_NORMAL_ONLY_P2P)) {
      if (devPtr) *devPtr = nullptr;
      return fail("aclrtMalloc", ACL_ERROR_INVALID_PARAM,
                  "invalid aclrtMemMallocPolicy " + std::to_string(p) +
                      " (expected ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, "
                      "ACL_MEM_MALLOC_NORMAL_ONLY, ...)");
    }
    return malloc_block("aclrtMalloc", devPtr, size, false);
  });
}

aclError aclrtFree(void* devPtr) {
  return guarded("aclrtFree", [&]() -> aclError { return free_block("aclrtFree", devPtr, false); });
}

aclError aclrtMallocHost(void** hostPtr, size_t size) {
  return guarded("aclrtMallocHost", [&]() -> aclError { return malloc_block("aclrtMallocHost", hostPtr, size, true); });
}

aclError aclrtFreeHost(void* hostPtr) {
  return guarded("aclrtFreeHost", [&]() -> aclError { return free_block("aclrtFreeHost", hostPtr, true); });
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
  return guarded("aclrtMemcpy", [&]() -> aclError {
    rt::MemcpyKind k{};
    if (aclError e = check_memcpy("aclrtMemcpy", dst, destMax, src, count, raw_enum(kind), &k)) return e;
    if (count == 0) return ACL_SUCCESS;
    Status st = rt::current_device().copy(dst, src, count, k);
    if (!st.ok()) return fail_status("aclrtMemcpy", st);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
  return guarded("aclrtMemcpyAsync", [&]() -> aclError {
    rt::MemcpyKind k{};
    if (aclError e = check_memcpy("aclrtMemcpyAsync", dst, destMax, src, count, raw_enum(kind), &k))
      return e;
    aclError err = ACL_SUCCESS;
    auto s = find_stream("aclrtMemcpyAsync", stream, &err);
    if (!s) return err;
    if (count == 0) return ACL_SUCCESS;
    s->memcpy_async(dst, src, count, k);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  return guarded("aclrtMemset", [&]() -> aclError {
    if (aclError e = check_memset("aclrtMemset", devPtr, maxCount, count)) return e;
    std::memset(devPtr, static_cast<unsigned char>(value), count);
    return ACL_SUCCESS;
  });
}

aclError aclrtMemsetAsync(void* devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
  return guarded("aclrtMemsetAsync", [&]() -> aclError {
    if (aclError e = check_memset("aclrtMemsetAsync", devPtr, maxCount, count)) return e;
    aclError err = ACL_SUCCESS;
    auto s = find_stream("aclrtMemsetAsync", stream, &err);
    if (!s) return err;
    const unsigned char byte = static_cast<unsigned char>(value);
    s->enqueue("aclrtMemsetAsync", [devPtr, byte, count] { std::memset(devPtr, byte, count); });
    return ACL_SUCCESS;
  });
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t* free, size_t* total) {
  return guarded("aclrtGetMemInfo", [&]() -> aclError {
    if (!free || !total) return fail("aclrtGetMemInfo", ACL_ERROR_INVALID_PARAM, "free or total is null");
    const int a = raw_enum(attr);
    if (a < ACL_DDR_MEM || a > ACL_HBM_MEM_P2P_NORMAL) {
      return fail("aclrtGetMemInfo", ACL_ERROR_INVALID_PARAM,
                  "invalid aclrtMemAttr " + std::to_string(a));
    }
    rt::MemoryPool& pool = rt::device_pool();
    const size_t limit = pool.limit();
    const size_t all = limit ? limit : pool.device().properties().total_memory;
    const size_t used = pool.stats().allocated_bytes;
    *total = all;
    *free = all > used ? all - used : 0;
    return ACL_SUCCESS;
  });
}

// ================================================================== callbacks

aclError aclrtLaunchCallback(aclrtCallback fn, void* userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
  static const char* kApi = "aclrtLaunchCallback";
  return guarded(kApi, [&]() -> aclError {
    if (!fn) return fail(kApi, ACL_ERROR_INVALID_PARAM, "fn is null");
    const int block_type = raw_enum(blockType);
    if (block_type != ACL_CALLBACK_NO_BLOCK && block_type != ACL_CALLBACK_BLOCK) {
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "invalid aclrtCallbackBlockType " + std::to_string(block_type) +
                      " (expected ACL_CALLBACK_NO_BLOCK or ACL_CALLBACK_BLOCK)");
    }
    aclError err = ACL_SUCCESS;
    auto s = find_stream(kApi, stream, &err);
    if (!s) return err;
    std::shared_ptr<ReportQueue> report;
    {
      State& st = state();
      std::lock_guard<std::mutex> lock(st.mu);
      auto it = st.subscriptions.find(s.get());
      if (it != st.subscriptions.end()) report = report_queue_locked(st, it->second);
    }
    auto item = std::make_shared<CallbackItem>();
    item->fn = fn;
    item->user_data = userData;
    item->stream = s.get();
    item->block = block_type == ACL_CALLBACK_BLOCK;
    s->enqueue(kApi, [item, report] {
      if (report) {  // the subscribed thread runs it in aclrtProcessReport
        report->push(item);
        if (!item->block) return;
        item->wait();
        if (item->error) std::rethrow_exception(item->error);
      } else if (item->block) {
        std::exception_ptr e = run_callback(*item);
        t_deferred_release.clear();
        if (e) std::rethrow_exception(e);
      } else {
        dispatcher().push(item);
      }
    });
    return ACL_SUCCESS;
  });
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return guarded("aclrtSubscribeReport", [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    auto s = find_stream("aclrtSubscribeReport", stream, &err);
    if (!s) return err;
    State& st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    auto it = st.subscriptions.find(s.get());
    if (it != st.subscriptions.end()) {
      return fail("aclrtSubscribeReport", ACL_ERROR_REPEAT_SUBSCRIBE,
                  "stream " + ptr_str(s.get()) + " is already subscribed by thread " + std::to_string(it->second));
    }
    st.subscriptions.emplace(s.get(), threadId);
    report_queue_locked(st, threadId);
    return ACL_SUCCESS;
  });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
  return guarded("aclrtUnSubscribeReport", [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    auto s = find_stream("aclrtUnSubscribeReport", stream, &err);
    if (!s) return err;
    State& st = state();
    std::lock_guard<std::mutex> lock(st.mu);
    auto it = st.subscriptions.find(s.get());
    if (it == st.subscriptions.end() || it->second != threadId) {
      return fail("aclrtUnSubscribeReport", ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                  "stream " + ptr_str(s.get()) + " is not subscribed by thread " + std::to_string(threadId));
    }
    st.subscriptions.erase(it);
    return ACL_SUCCESS;
  });
}

aclError aclrtProcessReport(int32_t timeout) {
  return guarded("aclrtProcessReport", [&]() -> aclError {
    const uint64_t self = static_cast<uint64_t>(pthread_self());
    std::shared_ptr<ReportQueue> q;
    {
      State& st = state();
      std::lock_guard<std::mutex> lock(st.mu);
      q = report_queue_locked(st, self);
    }
    std::shared_ptr<CallbackItem> item;
    {
      std::unique_lock<std::mutex> lock(q->mu);
      auto ready = [&] { return !q->items.empty(); };
      if (timeout < 0) {
        q->cv.wait(lock, ready);
      } else if (!q->cv.wait_for(lock, std::chrono::milliseconds(timeout), ready)) {
        return fail("aclrtProcessReport", ACL_ERROR_RT_REPORT_TIMEOUT,
                    "no callback arrived within " + std::to_string(timeout) + " ms");
      }
      item = std::move(q->items.front());
      q->items.pop_front();
    }
    std::exception_ptr e = run_callback(*item);
    if (e && !item->block) log_callback_error(e);
    item->finish(e);  // a BLOCK callback's stream continues (and stores e)
    t_deferred_release.clear();
    return ACL_SUCCESS;
  });
}

}  // extern "C"
