#include "asc/runtime/launch.h"

#include <dlfcn.h>

#include <cstdio>
#include <mutex>
#include <unordered_map>

namespace asc::runtime {

// Ascend's limit on blockDim (a launch can address at most 65535 blocks).
constexpr uint32_t kMaxBlockDim = 65535;

std::string symbol_name(const void* fn) {
  // A launch loop asks for the same kernel again and again: the thread's last
  // answer skips the shared cache's lock and hash lookup.
  thread_local const void* last_fn = nullptr;
  thread_local std::string last_name;
  if (fn == last_fn && fn) return last_name;
  // dladdr walks symbol tables (microseconds); kernels are launched by the same
  // few addresses over and over, so remember the answers.
  static std::mutex mu;
  static std::unordered_map<const void*, std::string> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(fn);
    if (it != cache.end()) {
      last_name = it->second;
      last_fn = fn;
      return last_name;
    }
  }
  std::string name;
  Dl_info info{};
  if (fn && ::dladdr(fn, &info) && info.dli_sname && info.dli_saddr == fn) {
    name = info.dli_sname;
  } else {
    char buf[40];
    std::snprintf(buf, sizeof buf, "kernel@%p", fn);
    name = buf;
  }
  std::lock_guard<std::mutex> lock(mu);
  last_name = cache.emplace(fn, std::move(name)).first->second;
  last_fn = fn;
  return last_name;
}

uint64_t launch_invocation(KernelInvocation inv, Stream* stream) {
  if (inv.block_dim == 0 || inv.block_dim > kMaxBlockDim) {
    throw Error(ErrorCode::kInvalidParam, "[" + inv.name + "] blockDim must be in [1, 65535], got " +
                                              std::to_string(inv.block_dim));
  }
  if (!stream) stream = current_stream_ptr();
  return stream->launch(std::move(inv));
}

Stream* resolve_stream(void* handle) {
  if (!handle) return current_stream_ptr();
  // The owner (ACL registry, pyasc.Stream, the caller's shared_ptr) keeps it alive.
  if (!find_stream(handle)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%p", handle);
    throw Error(ErrorCode::kInvalidParam,
                std::string("[launch] stream ") + buf + " is not a live stream (destroyed, or not a stream)");
  }
  return static_cast<Stream*>(handle);
}

}  // namespace asc::runtime
