// The CPU device: one persistent worker thread per "AI core", each with private
// UB/L1/L0 arenas; kernel blocks are handed out to the workers through an
// atomic counter per launch, so blockDim may be any size and several launches
// (from several streams) share the cores. A launch whose blocks wait for each
// other (SyncAll, asc/runtime/block_sync.h) gets its not-yet-started blocks
// run on helper threads with their own arenas as soon as one block waits.
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "asc/core/log.h"
#include "asc/runtime/device.h"
#include "asc/runtime/block_serial.h"
#include "asc/runtime/profiler.h"
#include "runtime/launch_sync.h"
#include "runtime/spin_wait.h"

namespace asc::runtime {

namespace detail {
std::chrono::microseconds spin_budget() {
  static const std::chrono::microseconds budget = [] {
    const char* s = std::getenv("ASC_SPIN_US");
    if (s && *s) return std::chrono::microseconds(std::strtol(s, nullptr, 10));
    // With few hardware threads spinning competes with the work itself.
    return std::chrono::microseconds(std::thread::hardware_concurrency() > 2 ? 100 : 30);
  }();
  return budget;
}
}  // namespace detail

const char* memcpy_kind_name(MemcpyKind kind) noexcept {
  switch (kind) {
    case MemcpyKind::kHostToHost: return "HostToHost";
    case MemcpyKind::kHostToDevice: return "HostToDevice";
    case MemcpyKind::kDeviceToHost: return "DeviceToHost";
    case MemcpyKind::kDeviceToDevice: return "DeviceToDevice";
    case MemcpyKind::kDefault: return "Default";
  }
  return "Unknown";
}

namespace {

thread_local const BlockContext* t_block = nullptr;
thread_local uint64_t t_block_serial = 0;  // asc/runtime/block_serial.h
thread_local detail::LaunchSync* t_launch = nullptr;  // the running block's launch
std::atomic<const LaunchCheckHooks*> g_check_hooks{nullptr};  // the kernel checker's

// A positive integer environment variable. As PyTorch does for OMP_NUM_THREADS and
// friends, a bad value never stops the program: a non-integer falls back to the
// default and a value above `max` (ASC_NUM_CORES=99999999999999999999 used to reach
// vector::resize) is clamped to it, each with a warning naming the variable and the
// accepted range.
// Accepted ranges of the environment variables (README.md): each core owns
// ~1 MiB of UB/L1/L0 arenas, so 1024 cores is ~1 GiB; a UB above 16 MiB is far past any
// Ascend part (192-256 KiB).
constexpr size_t kMaxCores = 1024;
constexpr size_t kMaxUbSize = size_t{16} << 20;
// Helper threads (each with ~1 MiB of arenas) that may run blocks of waiting
// launches at once, beyond the cores. CANN requires blockDim <= the core count
// for cross-block sync, so real kernels stay far below.
constexpr uint32_t kMaxResidentHelpers = 1024;

size_t env_size(const char* name, size_t fallback, size_t max) {
  const char* s = std::getenv(name);
  if (!s || !*s) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s, &end, 10);
  const bool too_big = errno == ERANGE && v > 0;
  if (end == s || *end != '\0' || v <= 0) {
    ASC_LOG_WARNING("device", name << "='" << s << "' is not a positive integer (accepted: 1.." << max << "); using "
                                   << fallback);
    return fallback;
  }
  if (too_big || static_cast<unsigned long long>(v) > max) {
    ASC_LOG_WARNING("device", name << "='" << s << "' is out of range (accepted: 1.." << max << "); using " << max);
    return max;
  }
  return static_cast<size_t>(v);
}

constexpr size_t kAlign = 64;
size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

// One launch in flight on the core pool.
struct Job {
  const KernelInvocation* inv = nullptr;
  uint32_t block_dim = 0;
  uint64_t stream_id = 0;  // for the profiler's block spans
  std::atomic<uint64_t> gm_bytes{0};  // profiler: bytes moved by all blocks
  std::atomic<uint32_t> next{0};
  std::atomic<uint32_t> finished{0};
  std::atomic<bool> failed{false};
  std::atomic<bool> done{false};
  std::mutex mu;  // guards error and the done hand-off
  std::condition_variable cv;
  Status error;
  const LaunchCheckHooks* check_hooks = nullptr;  // with `check`: a checked launch
  void* check = nullptr;
  // Cross-block waits (block_sync.cc); `sync` is inert until a block waits.
  detail::LaunchSync sync;
  // run_kernel's own shared_ptr: alive while any block runs (run_kernel waits
  // for all of them), so a waiting block may copy it for helper threads. A
  // weak_ptr would cost every launch two atomic operations.
  const std::shared_ptr<Job>* self = nullptr;
  class CpuDevice* device = nullptr;
  std::atomic<uint32_t> helpers_pending{0};  // helper threads started that have not claimed a block yet
};

class CpuDevice final : public Device {
 public:
  CpuDevice() {
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    props_.name = "cpu";
    props_.device_id = 0;
    props_.num_cores = static_cast<int>(env_size("ASC_NUM_CORES", std::min<size_t>(hw, kMaxCores), kMaxCores));
    props_.ub_size = round_up(env_size("ASC_UB_SIZE", 192 * 1024, kMaxUbSize), 32);
    props_.l1_size = 512 * 1024;
    props_.l0a_size = 64 * 1024;
    props_.l0b_size = 64 * 1024;
    props_.l0c_size = 128 * 1024;
    long pages = ::sysconf(_SC_PHYS_PAGES);
    long page = ::sysconf(_SC_PAGESIZE);
    props_.total_memory = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;

    const size_t per_core = props_.ub_size + props_.l1_size + props_.l0a_size + props_.l0b_size + props_.l0c_size;
    arenas_.resize(static_cast<size_t>(props_.num_cores));
    arena_memory_ = static_cast<uint8_t*>(std::aligned_alloc(kAlign, per_core * arenas_.size()));
    if (!arena_memory_) throw Error(ErrorCode::kBadAlloc, "[cpu_device] cannot allocate core arenas");
    std::memset(arena_memory_, 0, per_core * arenas_.size());
    for (size_t c = 0; c < arenas_.size(); ++c) {
      uint8_t* p = arena_memory_ + c * per_core;
      CoreArenas& a = arenas_[c];
      a.ub = p;
      a.ub_size = props_.ub_size;
      p += props_.ub_size;
      a.l1 = p;
      a.l1_size = props_.l1_size;
      p += props_.l1_size;
      a.l0a = p;
      a.l0a_size = props_.l0a_size;
      p += props_.l0a_size;
      a.l0b = p;
      a.l0b_size = props_.l0b_size;
      p += props_.l0b_size;
      a.l0c = p;
      a.l0c_size = props_.l0c_size;
    }
    slot_free_ = std::vector<std::atomic<bool>>(arenas_.size());
    for (auto& f : slot_free_) f.store(true);
    for (int c = 0; c < props_.num_cores; ++c) workers_.emplace_back([this] { worker_loop(); });
    ASC_LOG_DEBUG("device", "cpu device: " << props_.num_cores << " cores, UB " << props_.ub_size << " B/core");
  }

  // fork(): the child has only the forking thread, so the core workers are
  // gone and mu_ may be held by one of them. The child handler (pthread_atfork,
  // registered by cpu_device()) resets the scheduler state with plain stores;
  // the next launch starts a fresh set of workers (the submitter alone runs
  // every block meanwhile, so nothing waits for a dead thread).
  void after_fork_child() noexcept {
    new (&mu_) std::mutex();
    new (&cv_) std::condition_variable();
    // Jobs of the parent's launches (their submitters do not exist here) and
    // the dead workers' std::thread objects are abandoned, not destroyed.
    new (&jobs_) std::deque<std::shared_ptr<Job>>();
    new (&workers_) std::vector<std::thread>();
    pending_jobs_.store(0, std::memory_order_relaxed);
    for (auto& f : slot_free_) f.store(true, std::memory_order_relaxed);
    sleepers_ = 0;
    respawn_.store(true, std::memory_order_release);
    // Helper threads did not survive either; their arenas (mapped memory, copied
    // into the child) are abandoned with them.
    new (&spare_mu_) std::mutex();
    live_helpers_.store(0, std::memory_order_relaxed);
  }

  // The device is a process-lifetime singleton that is intentionally never
  // destroyed (see cpu_device()), so no destructor joins the workers.

  const DeviceProperties& properties() const override { return props_; }

  Result<void*> os_allocate(size_t bytes) override {
    void* p = nullptr;
    size_t n = round_up(std::max<size_t>(bytes, 1), kAlign);
    if (::posix_memalign(&p, kAlign, n) != 0 || !p) {
      return Status::OutOfMemory("os_allocate", "the CPU device allocator could not provide " +
                                                    std::to_string(bytes) + " bytes");
    }
    return p;
  }
  void os_free(void* ptr, size_t) noexcept override { std::free(ptr); }

  Result<void*> os_allocate_host(size_t bytes) override {
    // Host memory is what the CPU device computes on, so "pinned" memory is
    // page-aligned host memory from its own pool.
    void* p = nullptr;
    size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    size_t n = round_up(std::max<size_t>(bytes, 1), page);
    if (::posix_memalign(&p, page, n) != 0 || !p) {
      return Status::OutOfMemory("os_allocate_host", "could not provide " + std::to_string(bytes) +
                                                         " bytes of pinned host memory");
    }
    return p;
  }
  void os_free_host(void* ptr, size_t) noexcept override { std::free(ptr); }

  Status copy(void* dst, const void* src, size_t bytes, MemcpyKind kind) override {
    if (bytes == 0) return Status::OK();
    if (!dst || !src) {
      return Status::Invalid("memcpy", std::string("null ") + (dst ? "source" : "destination") +
                                           " pointer for a " + std::to_string(bytes) + "-byte " +
                                           memcpy_kind_name(kind) + " copy");
    }
    ASC_LOG_DEBUG("memcpy", memcpy_kind_name(kind) << " " << bytes << " B " << src << " -> " << dst);
    profiler::Span span(profiler::EventKind::kMemcpy, "memcpy");
    if (span.active()) {
      span.event().bytes = bytes;
      span.event().detail = memcpy_kind_name(kind);
    }
    std::memmove(dst, src, bytes);
    return Status::OK();
  }

  Status run_kernel(const KernelInvocation& inv) override {
    if (respawn_.load(std::memory_order_acquire)) respawn_workers();
    if (inv.block_dim == 0)
      return Status::Invalid(inv.name, "blockDim must be >= 1, got 0");
    if (!inv.body) return Status::Invalid(inv.name, "kernel has no body");
    // Shared ownership: workers may still touch the job (a failed fetch_add on
    // `next`) after its last block finished and this function returned.
    auto job_ptr = std::make_shared<Job>();
    Job& job = *job_ptr;
    job.inv = &inv;
    job.block_dim = inv.block_dim;
    job.self = &job_ptr;
    job.device = this;
    job.sync.block_dim = inv.block_dim;
    job.sync.kernel = inv.name.c_str();
    job.sync.next = &job.next;
    job.sync.finished = &job.finished;
    job.sync.failed = &job.failed;
    job.sync.make_resident = &CpuDevice::make_resident;
    job.sync.owner = &job;
    if (profiler::enabled()) job.stream_id = profiler::thread_stream();
    if (const LaunchCheckHooks* hooks = g_check_hooks.load(std::memory_order_acquire)) {
      job.check = hooks->begin(inv);
      if (job.check) job.check_hooks = hooks;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(job_ptr);
      pending_jobs_.fetch_add(1, std::memory_order_relaxed);
      // A single block is run by the submitting thread itself (below) when a
      // core is free, so waking a worker would only cost a context switch.
      // The submitter takes one block itself when a core is free.
      const uint32_t helpers = has_free_slot() ? inv.block_dim - 1 : inv.block_dim;
      if (helpers > 0) wake_workers_locked(helpers);
    }
    // The submitting thread (a stream worker) takes a core too when one is
    // free: short kernels then finish without any thread hand-off.
    int slot = try_claim_slot();
    if (slot >= 0) {
      run_blocks(job, slot, &arenas_[static_cast<size_t>(slot)]);
      release_slot(slot);
    }
    // Wait for the last block: spin briefly (short kernels), then sleep.
    if (!detail::spin_until([&] { return job.done.load(std::memory_order_acquire); }, detail::spin_budget())) {
      std::unique_lock<std::mutex> lock(job.mu);
      job.cv.wait(lock, [&] { return job.done.load(std::memory_order_acquire); });
    }
    std::lock_guard<std::mutex> lock(job.mu);
    inv.gm_bytes = job.gm_bytes.load(std::memory_order_relaxed);
    if (job.check) {
      Status checked = job.check_hooks->end(job.check);
      job.check = nullptr;
      if (job.error.ok() && !checked.ok()) job.error = Status(checked.code(), "[" + inv.name + "] " + checked.message());
    }
    return job.error;
  }

 private:
  void respawn_workers() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!respawn_.load(std::memory_order_relaxed)) return;
    for (int c = 0; c < props_.num_cores; ++c) workers_.emplace_back([this] { worker_loop(); });
    respawn_.store(false, std::memory_order_release);
    ASC_LOG_DEBUG("device", "cpu device: " << props_.num_cores << " core workers restarted after fork()");
  }

  // ---- core slots: a thread must own slot c (core c's arenas) to run a block.
  bool has_free_slot() const {
    for (const auto& f : slot_free_)
      if (f.load(std::memory_order_relaxed)) return true;
    return false;
  }
  int try_claim_slot() {
    for (size_t c = 0; c < slot_free_.size(); ++c) {
      if (slot_free_[c].load(std::memory_order_relaxed) &&
          slot_free_[c].exchange(false, std::memory_order_acquire))
        return static_cast<int>(c);
    }
    return -1;
  }
  void release_slot(int c) {
    slot_free_[static_cast<size_t>(c)].store(true, std::memory_order_release);
    // A worker that found no free core may be sleeping while blocks remain.
    if (pending_jobs_.load(std::memory_order_acquire) > 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (acquire_job()) wake_workers_locked(1);
    }
  }
  // Wakes up to `n` sleeping workers (spinning ones see the generation change).
  void wake_workers_locked(uint32_t n) {
    generation_.fetch_add(1, std::memory_order_release);
    for (uint32_t i = 0; i < n && i < static_cast<uint32_t>(sleepers_); ++i) cv_.notify_one();
  }

  std::shared_ptr<Job> acquire_job() {
    // Caller holds mu_. Drop exhausted jobs from the front; take the first one
    // that still has blocks to hand out.
    while (!jobs_.empty()) {
      const std::shared_ptr<Job>& j = jobs_.front();
      if (j->next.load(std::memory_order_relaxed) < j->block_dim) return j;
      jobs_.pop_front();
      pending_jobs_.fetch_sub(1, std::memory_order_relaxed);
    }
    return nullptr;
  }

  void worker_loop() {
    uint64_t seen = generation_.load(std::memory_order_acquire);
    for (;;) {
      // Work while there are jobs and a free core.
      int slot = -1;
      for (;;) {
        std::shared_ptr<Job> job;
        {
          std::lock_guard<std::mutex> lock(mu_);
          seen = generation_.load(std::memory_order_acquire);
          job = acquire_job();
        }
        if (!job) break;
        if (slot < 0 && (slot = try_claim_slot()) < 0) break;  // all cores busy
        run_blocks(*job, slot, &arenas_[static_cast<size_t>(slot)]);
      }
      if (slot >= 0) release_slot(slot);
      // Idle: more launches usually follow (a launch loop), so spin briefly
      // before sleeping; the spin yields the CPU (spin_wait.h), so it costs
      // little when other threads need it.
      bool more = detail::spin_until(
                                [&] { return generation_.load(std::memory_order_acquire) != seen; },
                                detail::spin_budget());
      if (!more) {
        std::unique_lock<std::mutex> lock(mu_);
        ++sleepers_;
        cv_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        --sleepers_;
      }
    }
  }

  // Runs blocks of `job` on the calling thread until none is left to hand
  // out. `pending`, for a helper thread: decremented once its first claim is
  // made (make_resident counts helpers that have not claimed yet).
  void run_blocks(Job& job, int core_id, const CoreArenas* arenas, std::atomic<uint32_t>* pending = nullptr) {
    BlockContext ctx;
    ctx.core_id = core_id;
    ctx.arenas = arenas;
    ctx.block_num = job.block_dim;
    for (;;) {
      // seq_cst: the deadlock check (block_sync.cc) reads `next` to know
      // whether blocks are still to start.
      uint32_t b = job.next.fetch_add(1, std::memory_order_seq_cst);
      if (pending) {
        pending->fetch_sub(1, std::memory_order_seq_cst);
        pending = nullptr;
      }
      if (b >= job.block_dim) return;
      // Only a successful claim guarantees the launch (and `inv`) is alive.
      const KernelInvocation& inv = *job.inv;
      ctx.kernel_name = inv.name.c_str();
      if (!job.failed.load(std::memory_order_relaxed)) {
        ctx.block_idx = b;
        t_block = &ctx;
        t_launch = &job.sync;
        ++t_block_serial;
        profiler::Span span(profiler::EventKind::kBlock, inv.name);
        if (span.active()) {
          span.event().core = ctx.core_id;
          span.event().block_idx = static_cast<int32_t>(b);
          span.event().block_dim = job.block_dim;
          span.event().stream_id = job.stream_id;
        }
        ctx.gm_bytes = 0;
        if (job.check) job.check_hooks->block_begin(job.check, ctx);
        bool block_failed = false;
        try {
          inv.body(ctx);
        } catch (...) {
          block_failed = true;
          Status st = StatusFromCurrentException(inv.name);
          ErrorCode code = st.code();
          std::lock_guard<std::mutex> lock(job.mu);
          if (job.error.ok()) {
            job.error = Status(code, "[" + inv.name + "] block " + std::to_string(b) + " of " +
                                         std::to_string(job.block_dim) + " (core " +
                                         std::to_string(ctx.core_id) + "): " + st.message());
          }
          // Like a device abort: blocks not yet started are skipped.
          job.failed.store(true, std::memory_order_relaxed);
        }
        if (job.check) job.check_hooks->block_end(job.check, ctx, block_failed);
        if (span.active()) {
          span.event().bytes = ctx.gm_bytes;
          job.gm_bytes.fetch_add(ctx.gm_bytes, std::memory_order_relaxed);
        }
        t_block = nullptr;
        t_launch = nullptr;
      }
      // seq_cst pairs with LaunchSync::used (see LaunchSync::block_ended).
      const uint32_t ended = job.finished.fetch_add(1, std::memory_order_seq_cst) + 1;
      job.sync.block_ended();
      if (ended == job.block_dim) {
        std::lock_guard<std::mutex> lock(job.mu);
        job.done.store(true, std::memory_order_release);
        job.cv.notify_all();
        return;
      }
    }
  }

  // ---- resident blocks: helper threads for launches whose blocks wait.
  // LaunchSync::make_resident: starts one helper thread per block of the
  // launch not handed out yet (minus helpers already starting).
  static std::string make_resident(void* owner) {
    Job& job = *static_cast<Job*>(owner);
    std::shared_ptr<Job> keep = *job.self;  // the caller is a running block: run_kernel still waits
    CpuDevice& dev = *job.device;
    std::lock_guard<std::mutex> lock(job.mu);  // one caller computes the shortfall at a time
    const uint32_t claimed = std::min(job.next.load(std::memory_order_seq_cst), job.block_dim);
    const uint32_t pending = job.helpers_pending.load(std::memory_order_seq_cst);
    const uint32_t unclaimed = job.block_dim - claimed;
    if (unclaimed <= pending) return {};
    for (uint32_t i = 0; i < unclaimed - pending; ++i) {
      std::string err = dev.start_helper(keep);
      if (!err.empty()) return err;
    }
    return {};
  }

  std::string start_helper(const std::shared_ptr<Job>& job) {
    const uint32_t live = live_helpers_.fetch_add(1, std::memory_order_acq_rel);
    if (live >= kMaxResidentHelpers) {
      live_helpers_.fetch_sub(1, std::memory_order_acq_rel);
      return "all " + std::to_string(job->block_dim) +
             " blocks must run at once for this wait, but the CPU device runs at most " +
             std::to_string(props_.num_cores + kMaxResidentHelpers) + " (" + std::to_string(props_.num_cores) +
             " cores + " + std::to_string(kMaxResidentHelpers) +
             " resident threads); CANN requires blockDim <= the core count for cross-block synchronisation";
    }
    CoreArenas* a = take_spare_arenas();
    if (!a) {
      live_helpers_.fetch_sub(1, std::memory_order_acq_rel);
      return "cannot allocate the local memory (UB/L1/L0) of a resident block";
    }
    const int core_id = props_.num_cores + static_cast<int>(live);
    job->helpers_pending.fetch_add(1, std::memory_order_seq_cst);
    try {
      std::thread([this, job, a, core_id] {
        run_blocks(*job, core_id, a, &job->helpers_pending);
        give_back_spare_arenas(a);
        live_helpers_.fetch_sub(1, std::memory_order_acq_rel);
      }).detach();
    } catch (const std::exception& e) {
      job->helpers_pending.fetch_sub(1, std::memory_order_seq_cst);
      give_back_spare_arenas(a);
      live_helpers_.fetch_sub(1, std::memory_order_acq_rel);
      return std::string("cannot start a thread for a resident block: ") + e.what();
    }
    return {};
  }

  // Arenas of helper threads: mapped on first need (pages appear on touch)
  // and kept for reuse, as the cores' arenas are.
  CoreArenas* take_spare_arenas() {
    {
      std::lock_guard<std::mutex> lock(spare_mu_);
      if (!spare_.empty()) {
        CoreArenas* a = spare_.back();
        spare_.pop_back();
        return a;
      }
    }
    const size_t per_core = props_.ub_size + props_.l1_size + props_.l0a_size + props_.l0b_size + props_.l0c_size;
    void* m = ::mmap(nullptr, per_core, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    auto* a = new (std::nothrow) CoreArenas;
    if (!a) {
      ::munmap(m, per_core);
      return nullptr;
    }
    auto* p = static_cast<uint8_t*>(m);
    a->ub = p;
    a->ub_size = props_.ub_size;
    p += props_.ub_size;
    a->l1 = p;
    a->l1_size = props_.l1_size;
    p += props_.l1_size;
    a->l0a = p;
    a->l0a_size = props_.l0a_size;
    p += props_.l0a_size;
    a->l0b = p;
    a->l0b_size = props_.l0b_size;
    p += props_.l0b_size;
    a->l0c = p;
    a->l0c_size = props_.l0c_size;
    return a;
  }
  void give_back_spare_arenas(CoreArenas* a) {
    std::lock_guard<std::mutex> lock(spare_mu_);
    spare_.push_back(a);
  }

  DeviceProperties props_;
  std::vector<CoreArenas> arenas_;
  uint8_t* arena_memory_ = nullptr;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> jobs_;
  std::atomic<int> pending_jobs_{0};
  std::vector<std::atomic<bool>> slot_free_;  // core c's arenas are unowned
  std::atomic<uint64_t> generation_{0};
  int sleepers_ = 0;
  std::atomic<bool> respawn_{false};  // a fork()ed child: start the core workers again
  std::mutex spare_mu_;
  std::vector<CoreArenas*> spare_;  // arenas of finished helper threads
  std::atomic<uint32_t> live_helpers_{0};
};

CpuDevice* g_device = nullptr;
void device_after_fork_child() noexcept {
  if (g_device) g_device->after_fork_child();
}

}  // namespace

const BlockContext* current_block() noexcept { return t_block; }

namespace detail {
LaunchSync* current_launch_sync() noexcept { return t_launch; }
}  // namespace detail

uint64_t block_serial() noexcept { return t_block_serial; }

void set_launch_check_hooks(const LaunchCheckHooks* hooks) noexcept {
  g_check_hooks.store(hooks, std::memory_order_release);
}

Device& cpu_device() {
  // Leaked on purpose: core workers must outlive every stream, pool and
  // thread_local default stream, whose destructors may still run kernels
  // during process shutdown.
  static CpuDevice* device = [] {
    auto* d = new CpuDevice();
    g_device = d;
    ::pthread_atfork(nullptr, nullptr, &device_after_fork_child);
    return d;
  }();
  return *device;
}

Device& current_device() { return cpu_device(); }

}  // namespace asc::runtime
