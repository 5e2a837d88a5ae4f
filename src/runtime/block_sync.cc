// Cross-block waits of one launch (asc/runtime/block_sync.h): the wait with
// its deadlock, abort and timeout ends. The device (cpu_device.cc) makes the
// launch's blocks resident when one of them first waits.
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "asc/core/status.h"
#include "asc/runtime/device.h"
#include "runtime/launch_sync.h"

namespace asc::runtime {

namespace {

std::chrono::seconds sync_timeout() {
  static const std::chrono::seconds t = [] {
    const char* s = std::getenv("ASC_SYNC_TIMEOUT_S");
    if (s && *s) {
      char* end = nullptr;
      long v = std::strtol(s, &end, 10);
      if (end != s && *end == '\0' && v >= 0) return std::chrono::seconds(v);
    }
    return std::chrono::seconds(300);
  }();
  return t;
}

std::string where_prefix(const char* op) {
  const BlockContext* b = current_block();
  std::string s = std::string("[") + op + "] ";
  if (!b) return s + "outside a kernel: ";
  return s + "kernel '" + (b->kernel_name ? b->kernel_name : "") + "' block " + std::to_string(b->block_idx) +
         " of " + std::to_string(b->block_num) + ": ";
}

// "0, 2, 5" (at most 16 listed, then "and N more").
std::string list_blocks(const std::vector<uint32_t>& blocks) {
  std::string s;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i == 16) return s + " and " + std::to_string(blocks.size() - 16) + " more";
    if (i) s += ", ";
    s += std::to_string(blocks[i]);
  }
  return s;
}

// Outside kernels (host code, unit tests of the kernel API without a launch)
// there is one "block": waits either are ready at once or can never end.
struct SoloState final : block_sync::State {
  uint32_t block_num() const override { return 1; }
  uint64_t& counter(uint32_t key, uint32_t) override { return values[key]; }
  std::unordered_map<uint32_t, uint64_t> values;
};
SoloState& solo_state() {
  thread_local SoloState s;
  return s;
}

}  // namespace

namespace detail {

void LaunchSync::block_ended() {
  // Pairs with the waiter's `used` store / `finished` load (both seq_cst):
  // either the waiter counts this block as ended, or this block sees `used`.
  if (!used.load(std::memory_order_seq_cst)) return;
  Shared& s = sh();
  std::lock_guard<std::mutex> lock(s.mu);
  check_deadlock_locked();
  s.cv.notify_all();
}

void LaunchSync::check_deadlock_locked() {
  Shared& s = sh();
  std::string& deadlock = s.deadlock;
  const auto& waiters = s.waiters;
  if (!deadlock.empty() || s.waiting == 0 || failed->load(std::memory_order_acquire)) return;
  const uint32_t claimed = std::min(next->load(std::memory_order_seq_cst), block_dim);
  if (claimed < block_dim) return;  // blocks still to start (on resident threads)
  const uint32_t ended = finished->load(std::memory_order_seq_cst);
  if (claimed - ended > s.waiting) return;  // a block still runs and may release the waiters
  for (const Waiter& w : waiters)
    if (w.what && (*w.ready)(*this)) return;  // a waiter is about to wake up
  // Every block that has not ended waits, and no wait is ready: none can end.
  std::string msg;
  std::vector<uint32_t> not_waiting;
  std::unordered_map<std::string, std::vector<uint32_t>> by_wait;
  std::vector<std::string> order;
  for (uint32_t b = 0; b < block_dim; ++b) {
    const Waiter& w = waiters[b];
    if (!w.what) {
      not_waiting.push_back(b);
      continue;
    }
    std::string key = std::string(w.op) + " (" + *w.what + ")";
    if (!by_wait.count(key)) order.push_back(key);
    by_wait[key].push_back(b);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& bl = by_wait[order[i]];
    msg += (i ? "; " : "") + std::string(bl.size() == 1 ? "block " : "blocks ") + list_blocks(bl) + " wait" +
           (bl.size() == 1 ? "s" : "") + " at " + order[i];
  }
  if (not_waiting.empty()) {
    msg += "; every block waits and none can arrive";
  } else {
    msg += "; block" + std::string(not_waiting.size() == 1 ? " " : "s ") + list_blocks(not_waiting) +
           " ended without arriving";
  }
  deadlock = "deadlock among the " + std::to_string(block_dim) + " blocks of kernel '" + kernel + "': " + msg;
  s.cv.notify_all();
}

}  // namespace detail

namespace block_sync {

void update(const std::function<void(State&)>& fn) {
  detail::LaunchSync* ls = detail::current_launch_sync();
  if (!ls) {
    fn(solo_state());
    return;
  }
  auto& sh = ls->sh();
  std::lock_guard<std::mutex> lock(sh.mu);
  fn(*ls);
  if (sh.waiting) sh.cv.notify_all();
}

void wait(const char* op, const std::string& what, const std::function<bool(State&)>& ready,
          const std::function<void(State&)>& on_ready) {
  detail::LaunchSync* ls = detail::current_launch_sync();
  const BlockContext* b = current_block();
  if (!ls || !b) {
    State& s = solo_state();
    if (!ready(s))
      throw Error(ErrorCode::kInvalidParam,
                  where_prefix(op) + what + " can never be reached: there is no other block to arrive");
    if (on_ready) on_ready(s);
    return;
  }
  const uint32_t me = b->block_idx;
  auto& sh = ls->sh();
  std::unique_lock<std::mutex> lock(sh.mu);
  if (ready(*ls)) {  // the common case of a late arrival: no wait, no thread start
    if (on_ready) on_ready(*ls);
    if (sh.waiting) sh.cv.notify_all();
    return;
  }
  ls->used.store(true, std::memory_order_seq_cst);
  if (sh.waiters.empty()) sh.waiters.resize(ls->block_dim);
  // The blocks that would release this one may not have started: give each
  // its own thread now (no-op when all have been handed out).
  if (std::min(ls->next->load(std::memory_order_seq_cst), ls->block_dim) < ls->block_dim) {
    lock.unlock();
    std::string err = ls->make_resident(ls->owner);
    if (!err.empty()) throw Error(ErrorCode::kRtFeatureNotSupport, where_prefix(op) + what + ": " + err);
    lock.lock();
  }
  auto& self = sh.waiters[me];
  self.what = &what;
  self.op = op;
  self.ready = &ready;
  ++sh.waiting;
  struct Leave {  // leaves the waiter list on every way out
    detail::LaunchSync::Shared* sh;
    detail::LaunchSync::Waiter* w;
    ~Leave() {
      w->what = nullptr;
      w->ready = nullptr;
      --sh->waiting;
    }
  } leave{&sh, &self};
  ls->check_deadlock_locked();
  const auto limit = sync_timeout();
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (!sh.deadlock.empty()) throw Error(ErrorCode::kRtAicoreException, where_prefix(op) + sh.deadlock);
    if (ready(*ls)) break;
    if (ls->failed->load(std::memory_order_acquire))
      throw Error(ErrorCode::kRtAicoreException,
                  where_prefix(op) + "aborted while waiting at " + what + ": another block of the launch failed");
    if (limit.count() == 0) {
      sh.cv.wait(lock);
    } else if (sh.cv.wait_until(lock, deadline) == std::cv_status::timeout && !ready(*ls)) {
      throw Error(ErrorCode::kRtAicoreException,
                  where_prefix(op) + "waited " + std::to_string(limit.count()) + " s at " + what +
                      " (ASC_SYNC_TIMEOUT_S); the other blocks are still running without arriving");
    }
  }
  if (on_ready) on_ready(*ls);
  sh.cv.notify_all();
}

void polling() {
  detail::LaunchSync* ls = detail::current_launch_sync();
  if (!ls) return;
  thread_local uint32_t polls = 0;
  if ((++polls & 63) != 0) return;  // a tight loop: act every 64th read
  if (std::min(ls->next->load(std::memory_order_relaxed), ls->block_dim) < ls->block_dim) {
    std::string err = ls->make_resident(ls->owner);
    if (!err.empty()) throw Error(ErrorCode::kRtFeatureNotSupport, where_prefix("ReadGmByPassDCache") + err);
  }
  std::this_thread::yield();  // the writer may need this very CPU
}

}  // namespace block_sync
}  // namespace asc::runtime
