// The sub-pool routing state shared by memory_pool.cc (the hot read in
// MemoryPool::allocate), sub_pool.cc (SubPool::Scope) and stream.cc (tasks
// inherit the enqueuing thread's sub-pool). Internal to src/runtime.
#pragma once

#include <atomic>
#include <memory>

#include "asc/runtime/memory_pool.h"

namespace asc::runtime::detail {

// The thread's current sub-pool (SubPool::Scope); nullptr on the default path.
// Hidden: internal to libasc, so their accesses stay PC-relative (no GOT load
// on allocate()'s default path, local-dynamic TLS) as when they were static.
#define ASC_RUNTIME_INTERNAL __attribute__((visibility("hidden")))
extern thread_local SubPool* t_sub_pool ASC_RUNTIME_INTERNAL;
// Scopes alive in the process: while 0, allocate() and Stream::enqueue() skip
// the thread-local read (in a shared library a __tls_get_addr call) with one
// relaxed load.
extern std::atomic<int> g_sub_scopes ASC_RUNTIME_INTERNAL;

// The calling thread's sub-pool as a shared reference, for work handed to
// another thread (null on the default path, after one relaxed load). The
// thread's Scope holds a reference, so the pointer read here is alive.
inline std::shared_ptr<SubPool> inherited_sub_pool() {
  if (g_sub_scopes.load(std::memory_order_relaxed) == 0) return nullptr;
  SubPool* sp = t_sub_pool;
  return sp ? sp->shared_from_this() : nullptr;
}

}  // namespace asc::runtime::detail
