// SubPool: a session's own caching pool under a parent pool, and the thread
// routing (SubPool::Scope) that sends a thread's allocations to it; see
// include/asc/runtime/memory_pool.h and docs/memory.md. The parent's side of
// the registry (add/remove, frees of sub-pool blocks) is in memory_pool.cc.
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "asc/runtime/memory_pool.h"
#include "runtime/sub_pool_state.h"

namespace asc::runtime {

using detail::g_sub_scopes;
using detail::t_sub_pool;

SubPool::SubPool(std::string name, MemoryPool& parent)
    : name_(std::move(name)), parent_(parent), pool_(std::make_unique<MemoryPool>(parent.device(), parent.kind())) {}

std::shared_ptr<SubPool> SubPool::create(std::string name, size_t limit_bytes, MemoryPool& parent) {
  std::shared_ptr<SubPool> sub(new SubPool(std::move(name), parent));
  sub->pool_->set_limit(limit_bytes);
  parent.add_sub_pool(sub);
  return sub;
}

// The parent's registry holds a reference until the sub-pool drained, so this
// runs when the last handle is gone and no block is in use (or at exit).
SubPool::~SubPool() = default;

Result<void*> SubPool::allocate(size_t bytes, Stream* stream) {
  if (closed())
    return Status::OutOfMemory("allocate", "sub-pool '" + name_ + "' is closed: requested " +
                                               std::to_string(bytes) + " bytes");
  Result<void*> r = pool_->allocate(bytes, stream);
  if (r.ok() && closed()) {
    // close() ran meanwhile (another thread) and may have drained already:
    // the block must not outlive the registration.
    (void)pool_->free(r.value());
    pool_->empty_cache();
    return Status::OutOfMemory("allocate", "sub-pool '" + name_ + "' is closed: requested " +
                                               std::to_string(bytes) + " bytes");
  }
  if (r.ok() || r.status().code() != ErrorCode::kRtMemoryAllocation) return r;
  std::string msg = r.status().message();
  if (msg.rfind("[allocate] ", 0) == 0) msg.erase(0, 11);
  const size_t lim = pool_->limit();
  return Status::OutOfMemory("allocate", "sub-pool '" + name_ + "' (limit " +
                                             (lim ? std::to_string(lim) + " bytes" : std::string("none")) +
                                             "): " + msg);
}

void SubPool::close() {
  if (closed_.exchange(true, std::memory_order_acq_rel)) return;
  pool_->empty_cache();
  maybe_drain();
}

void SubPool::maybe_drain() {
  if (drained() || pool_->stats().active_blocks != 0) return;
  pool_->empty_cache();
  if (drained_.exchange(true, std::memory_order_acq_rel)) return;
  // May drop the registry's reference: keep this alive until we return.
  std::shared_ptr<SubPool> self = weak_from_this().lock();
  parent_.remove_sub_pool(this);
}

SubPool* SubPool::current() noexcept { return t_sub_pool; }

SubPool::Scope::Scope(std::shared_ptr<SubPool> sub)
    : sub_(std::move(sub)), prev_(t_sub_pool), thread_(std::this_thread::get_id()) {
  g_sub_scopes.fetch_add(1, std::memory_order_relaxed);
  t_sub_pool = sub_.get();
}

Status SubPool::Scope::end() {
  if (!active_) return Status::OK();
  if (std::this_thread::get_id() != thread_)
    return Status::Invalid("SubPool.__exit__", "sub-pool '" + sub_->name() +
                                                   "': a scope must end on the thread that entered it");
  if (t_sub_pool != sub_.get())
    return Status::Invalid("SubPool.__exit__", "sub-pool '" + sub_->name() +
                                                   "': scopes must end in reverse order of entry");
  t_sub_pool = prev_;
  active_ = false;
  g_sub_scopes.fetch_sub(1, std::memory_order_relaxed);
  return Status::OK();
}

}  // namespace asc::runtime
