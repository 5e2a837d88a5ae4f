// Launching kernels from C++.
//
//   asc::launch(my_kernel, blockDim, stream, x, y, z);        // name from the symbol
//   asc::launch("my_kernel", my_kernel, blockDim, stream, x, y, z);
//   ACLRT_LAUNCH_KERNEL(my_kernel)(blockDim, stream, x, y, z);
//
// `kernel` is any callable (typically `extern "C" __global__ __aicore__ void
// f(GM_ADDR...)`); its arguments are copied into the launch. The launch is
// asynchronous on `stream` (nullptr = the calling thread's current stream);
// errors inside the kernel surface at the stream's next synchronize(), naming
// the kernel and block. blockDim must be >= 1 (an error otherwise, thrown
// immediately as asc::Error).
//
// Thread-safety: any thread may launch on any stream.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "asc/runtime/stream.h"

namespace asc {

namespace runtime {
/// Symbol name of a function address (via dladdr), or "kernel@0x...".
std::string symbol_name(const void* fn);
/// Validates and enqueues a launch; returns the stream sequence number.
uint64_t launch_invocation(KernelInvocation inv, Stream* stream);
/// Resolves a user stream handle (nullptr / 0 = current stream). A handle that
/// is not a live stream throws asc::Error (kInvalidParam).
Stream* resolve_stream(void* handle);
/// Records `message` as the calling thread's aclGetRecentErrMsg() text.
void set_recent_error_message(const std::string& message) noexcept;
}  // namespace runtime

template <typename Kernel, typename... Args>
uint64_t launch(const std::string& name, Kernel&& kernel, uint32_t block_dim, runtime::Stream* stream,
                Args&&... args) {
  runtime::KernelInvocation inv;
  inv.name = name;
  inv.block_dim = block_dim;
  inv.body = [k = std::forward<Kernel>(kernel),
              tup = std::make_tuple(std::forward<Args>(args)...)](const runtime::BlockContext&) mutable {
    std::apply(k, tup);
  };
  return runtime::launch_invocation(std::move(inv), stream);
}

template <typename R, typename... P, typename... Args>
uint64_t launch(R (*kernel)(P...), uint32_t block_dim, runtime::Stream* stream, Args&&... args) {
  return launch(runtime::symbol_name(reinterpret_cast<const void*>(kernel)), kernel, block_dim, stream,
                std::forward<Args>(args)...);
}

namespace detail {
template <typename Kernel>
struct AclrtLauncher {
  const char* name;
  Kernel* kernel;
  template <typename... Args>
  uint32_t operator()(uint32_t block_dim, void* stream, Args&&... args) const {
    // Returns like the generated aclrtlaunch_<kernel>(): 0 when enqueued, an
    // ACL error code otherwise (message in aclGetRecentErrMsg()).
    try {
      launch(name, kernel, block_dim, runtime::resolve_stream(stream), std::forward<Args>(args)...);
      return 0;
    } catch (const Error& e) {
      runtime::set_recent_error_message(e.message());
      return static_cast<uint32_t>(e.code());
    }
  }
};
}  // namespace detail

}  // namespace asc

/// Ascend C's generated launcher: ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...).
#define ACLRT_LAUNCH_KERNEL(kernel) \
  (::asc::detail::AclrtLauncher<decltype(kernel)>{#kernel, &kernel})
