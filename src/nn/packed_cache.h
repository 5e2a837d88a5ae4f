// The versioned cache of weights packed for a hand-written convolution kernel
// (conv_winograd.cc's transformed filters, conv_direct.cc's packed weight rows): one
// template over the packed type instead of a copy per kernel.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "asc/core/tensor.h"
#include "nn/onednn.h"

namespace asc::nn::detail {

/// Packed weights of type P, cached per (weight storage, offset, the caller's shape
/// key) while the storage's version and the oneDNN weight cache's epoch are unchanged:
/// the rules of reordered_const (onednn.h), so a write through pyasc (eager, in place,
/// or a pending graph write) repacks on the next call, and weights NumPy may write
/// behind pyasc's back (!reorder_cacheable) are packed on every call, never cached.
/// Bounded: entries of freed storages are dropped on every miss, all entries past 256.
/// Thread-safe; `make` runs outside the lock (two threads may pack the same weights
/// once each; the last one is kept).
template <class P>
class PackedCache {
 public:
  template <class Make>
  std::shared_ptr<const P> get(const Tensor& w, const std::string& shape_key, Make&& make) {
    if (!reorder_cacheable(w)) {
      misses_.fetch_add(1, std::memory_order_relaxed);
      return make();
    }
    const std::string key = std::to_string(w.storage()->uid()) + ":" + std::to_string(w.offset()) + ":" + shape_key;
    w.storage()->read_data();  // syncs pending writes; version() read after it
    const uint64_t ver = w.storage()->version(), epoch = reorder_cache_epoch();
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = map_.find(key);
      if (it != map_.end() && it->second.version == ver && it->second.epoch == epoch &&
          it->second.st.lock() == w.storage()) {
        hits_.fetch_add(1, std::memory_order_relaxed);
        return it->second.p;
      }
    }
    misses_.fetch_add(1, std::memory_order_relaxed);
    std::shared_ptr<const P> p = make();
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = map_.begin(); it != map_.end();) it = it->second.st.expired() ? map_.erase(it) : std::next(it);
    if (map_.size() >= kCapacity) map_.clear();
    map_[key] = Entry{w.storage(), ver, epoch, p};
    return p;
  }

  /// (hits, misses) so far; uncacheable weights count as misses.
  std::pair<int64_t, int64_t> stats() const {
    return {hits_.load(std::memory_order_relaxed), misses_.load(std::memory_order_relaxed)};
  }

 private:
  static constexpr size_t kCapacity = 256;
  struct Entry {
    std::weak_ptr<Storage> st;
    uint64_t version = 0, epoch = 0;
    std::shared_ptr<const P> p;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Entry> map_;
  std::atomic<int64_t> hits_{0}, misses_{0};
};

}  // namespace asc::nn::detail
