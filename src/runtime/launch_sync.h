// Internal: the cross-block wait state of one launch (asc/runtime/block_sync.h)
// and the few facts about the launch it needs from the device.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "asc/runtime/block_sync.h"

namespace asc::runtime::detail {

// The part of a launch (the device's Job) that block_sync.cc reads. The
// counters are the device's block hand-out counters. Every launch carries
// one, so it is a few plain fields; the lock, the waiters and the counters
// (`Shared`) are allocated by the launch's first cross-block call.
class LaunchSync final : public block_sync::State {
 public:
  struct Waiter {
    const std::string* what = nullptr;  // nullptr: the block is not waiting
    const char* op = "";
    const std::function<bool(block_sync::State&)>* ready = nullptr;
  };
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Waiter> waiters;  // per block (sized on first wait)
    uint32_t waiting = 0;
    std::string deadlock;  // set once: every waiter fails with it
    std::unordered_map<uint32_t, std::vector<uint64_t>> counters;
  };

  LaunchSync() = default;
  LaunchSync(const LaunchSync&) = delete;
  LaunchSync& operator=(const LaunchSync&) = delete;
  ~LaunchSync() override { delete shared_.load(std::memory_order_acquire); }

  uint32_t block_num() const override { return block_dim; }
  // Caller holds sh().mu.
  uint64_t& counter(uint32_t key, uint32_t block) override {
    auto& v = shared_.load(std::memory_order_relaxed)->counters[key];
    if (v.empty()) v.assign(block_dim, 0);
    return v[block];
  }

  /// The shared part, created on first use (any block may race to create it).
  Shared& sh() {
    Shared* p = shared_.load(std::memory_order_acquire);
    if (p) return *p;
    auto* fresh = new Shared;
    if (shared_.compare_exchange_strong(p, fresh, std::memory_order_acq_rel)) return *fresh;
    delete fresh;  // another block won: `p` holds its object
    return *p;
  }

  // Set by the device before any block runs.
  uint32_t block_dim = 0;
  const char* kernel = "";
  std::atomic<uint32_t>* next = nullptr;      // blocks handed out (may exceed block_dim)
  std::atomic<uint32_t>* finished = nullptr;  // blocks that ended (ran, failed or were skipped)
  std::atomic<bool>* failed = nullptr;        // a block failed: the launch is aborting
  // Starts threads for the blocks not handed out yet (the device's; `owner`
  // is its launch record); returns an error message when it cannot (too many
  // blocks for resident threads). A plain pointer: launches must not allocate.
  std::string (*make_resident)(void* owner) = nullptr;
  void* owner = nullptr;

  // Set (sequentially consistent) by the first wait; a block that ends after
  // it must take the lock and wake the waiters (see block_ended()).
  std::atomic<bool> used{false};

  // Called by the device after a block ended (finished counter incremented).
  void block_ended();
  // Caller holds sh().mu: sets `deadlock` (and wakes everyone) when no waiter
  // can ever be released.
  void check_deadlock_locked();

 private:
  std::atomic<Shared*> shared_{nullptr};
};

/// The launch running the calling block, or nullptr outside kernels (set by
/// the device next to current_block()).
LaunchSync* current_launch_sync() noexcept;

}  // namespace asc::runtime::detail
