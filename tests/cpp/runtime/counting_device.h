// A fake Device for pool tests: plain aligned_alloc memory with a count of the
// bytes the pool currently holds from it, so a test can see what went back.
// Shared by the runtime gtests (one definition: test_memory_pool_limit.cc and
// test_memory_subpool.cc both need it).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "asc/runtime/device.h"

namespace asc::runtime::test_support {

class CountingDevice : public Device {
 public:
  CountingDevice() { props_.name = "counting"; }
  const DeviceProperties& properties() const override { return props_; }
  Result<void*> os_allocate(size_t bytes) override { return raw(bytes); }
  void os_free(void* ptr, size_t bytes) noexcept override { unraw(ptr, bytes); }
  Result<void*> os_allocate_host(size_t bytes) override { return raw(bytes); }
  void os_free_host(void* ptr, size_t bytes) noexcept override { unraw(ptr, bytes); }
  Status copy(void* dst, const void* src, size_t bytes, MemcpyKind) override {
    std::memcpy(dst, src, bytes);
    return Status::OK();
  }
  Status run_kernel(const KernelInvocation&) override { return Status::NotSupported("run_kernel", "fake"); }
  std::atomic<int64_t> live_bytes{0};

 private:
  Result<void*> raw(size_t bytes) {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) return Status::OutOfMemory("os_allocate", "aligned_alloc failed");
    live_bytes += static_cast<int64_t>(bytes);
    return p;
  }
  void unraw(void* p, size_t bytes) noexcept {
    live_bytes -= static_cast<int64_t>(bytes);
    std::free(p);
  }
  DeviceProperties props_;
};

}  // namespace asc::runtime::test_support
