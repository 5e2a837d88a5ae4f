// The CPU-debug API (tikicpulib.h) and the reporting side of the <<<>>> launch.
#include <atomic>
#include <cstdio>

#include "asc/runtime/memory_pool.h"
#include "asc/runtime/stream.h"
#include "tikicpulib.h"

namespace {
std::atomic<int> g_kernel_mode{static_cast<int>(KernelMode::MIX_MODE)};
}

namespace AscendC {

void* GmAlloc(size_t size) { return ::asc::runtime::device_pool().allocate_or_throw(size ? size : 1); }

void GmFree(void* ptr) {
  if (!ptr) return;
  ::asc::Status st = ::asc::runtime::device_pool().free(ptr);
  if (!st.ok()) std::fprintf(stderr, "[GmFree] %s\n", st.message().c_str());
}

void SetKernelMode(KernelMode mode) { g_kernel_mode.store(static_cast<int>(mode), std::memory_order_relaxed); }
KernelMode GetKernelMode() { return static_cast<KernelMode>(g_kernel_mode.load(std::memory_order_relaxed)); }

}  // namespace AscendC

namespace asc::detail {

void chevron_launch_failed(const char* name, void* stream, const Error& e) noexcept {
  try {
    runtime::set_recent_error_message(e.message());
    std::fprintf(stderr, "[pyasc] %s<<<...>>>: %s\n", name, e.message().c_str());
    std::fflush(stderr);
    // A valid stream carries the failure to its next synchronize, so programs
    // that only check aclrtSynchronizeStream still see it.
    std::shared_ptr<runtime::Stream> s = stream ? runtime::find_stream(stream) : runtime::current_stream();
    if (s) s->enqueue(name, [e]() { throw e; });
  } catch (...) {
    // Reporting must not throw out of a launch expression.
  }
}

int icpu_failed(const char* name, const Error& e) {
  runtime::set_recent_error_message(e.message());
  std::fprintf(stderr, "[ICPU_RUN_KF] %s: %s\n", name, e.message().c_str());
  std::fflush(stderr);
  return static_cast<int>(e.code());
}

int icpu_finish(const char* name, runtime::Stream* stream) {
  Status st = stream->synchronize();
  if (st.ok()) return 0;
  return icpu_failed(name, Error(st));
}

}  // namespace asc::detail
