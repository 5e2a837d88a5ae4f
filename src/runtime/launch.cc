#include "asc/runtime/launch.h"

#include <dlfcn.h>

#include <cstdio>

namespace asc::runtime {

// Ascend's limit on blockDim (a launch can address at most 65535 blocks).
constexpr uint32_t kMaxBlockDim = 65535;

std::string symbol_name(const void* fn) {
  Dl_info info{};
  if (fn && ::dladdr(fn, &info) && info.dli_sname && info.dli_saddr == fn) return info.dli_sname;
  char buf[40];
  std::snprintf(buf, sizeof buf, "kernel@%p", fn);
  return buf;
}

uint64_t launch_invocation(KernelInvocation inv, Stream* stream) {
  if (inv.block_dim == 0 || inv.block_dim > kMaxBlockDim) {
    throw Error(ErrorCode::kInvalidParam, "[" + inv.name + "] blockDim must be in [1, 65535], got " +
                                              std::to_string(inv.block_dim));
  }
  if (!stream) stream = current_stream().get();
  return stream->launch(std::move(inv));
}

Stream* resolve_stream(void* handle) {
  return handle ? static_cast<Stream*>(handle) : current_stream().get();
}

}  // namespace asc::runtime
