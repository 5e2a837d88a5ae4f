// The device interface and the CPU device.
//
// A Device owns memory (through the OS; the caching pool sits in front), copies
// synchronously (streams make copies asynchronous) and runs kernels: a kernel
// launch of `block_dim` blocks hands block indices to the device's cores; each
// core has private Unified Buffer / L1 / L0A / L0B / L0C arenas.
//
// The CPU device: one persistent worker thread per core (`ASC_NUM_CORES`
// overrides the hardware count), UB 192 KiB (`ASC_UB_SIZE` overrides, bytes),
// L1 512 KiB, L0A/L0B 64 KiB, L0C 128 KiB, all 64-byte aligned.
//
// Thread-safety: every Device method may be called from any thread; several
// kernels from several streams may run at once (their blocks share the cores).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "asc/core/status.h"

namespace asc::runtime {

struct DeviceProperties {
  std::string name;          // "cpu"
  int device_id = 0;
  int num_cores = 1;         // AI cores = worker threads
  size_t ub_size = 0;        // Unified Buffer bytes per core
  size_t l1_size = 0;
  size_t l0a_size = 0;
  size_t l0b_size = 0;
  size_t l0c_size = 0;
  size_t total_memory = 0;   // physical memory the device may use (bytes)
};

enum class MemcpyKind : int {
  kHostToHost = 0,      // ACL_MEMCPY_HOST_TO_HOST
  kHostToDevice = 1,    // ACL_MEMCPY_HOST_TO_DEVICE
  kDeviceToHost = 2,    // ACL_MEMCPY_DEVICE_TO_HOST
  kDeviceToDevice = 3,  // ACL_MEMCPY_DEVICE_TO_DEVICE
  kDefault = 4,
};
const char* memcpy_kind_name(MemcpyKind kind) noexcept;

/// Private memories of one core, valid while a block runs on it.
struct CoreArenas {
  uint8_t* ub = nullptr;
  size_t ub_size = 0;
  uint8_t* l1 = nullptr;
  size_t l1_size = 0;
  uint8_t* l0a = nullptr;
  size_t l0a_size = 0;
  uint8_t* l0b = nullptr;
  size_t l0b_size = 0;
  uint8_t* l0c = nullptr;
  size_t l0c_size = 0;
};

/// What a running block sees (GetBlockIdx() and friends read it).
struct BlockContext {
  uint32_t block_idx = 0;
  uint32_t block_num = 1;
  int core_id = 0;
  const CoreArenas* arenas = nullptr;
  const char* kernel_name = "";
  /// GM bytes the block's data-movement instructions moved (counted only while
  /// the profiler records).
  mutable uint64_t gm_bytes = 0;
};

/// The context of the block running on this thread, or nullptr outside kernels.
const BlockContext* current_block() noexcept;

/// One kernel launch as the device sees it. `body` runs once per block index;
/// it may throw (asc::Error or any exception): the launch then fails with the
/// first error, prefixed by the kernel name and block index.
struct KernelInvocation {
  std::string name;
  uint32_t block_dim = 1;
  std::function<void(const BlockContext&)> body;
  /// Set by Device::run_kernel: GM bytes moved by all blocks (profiler only).
  mutable uint64_t gm_bytes = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceProperties& properties() const = 0;

  /// Raw memory for the caching pool (never call directly: use MemoryPool).
  /// 64-byte aligned. Fails with kRtMemoryAllocation.
  virtual Result<void*> os_allocate(size_t bytes) = 0;
  virtual void os_free(void* ptr, size_t bytes) noexcept = 0;
  /// Page-locked host memory (for the pinned pool).
  virtual Result<void*> os_allocate_host(size_t bytes) = 0;
  virtual void os_free_host(void* ptr, size_t bytes) noexcept = 0;

  /// Synchronous copy of `bytes` bytes.
  virtual Status copy(void* dst, const void* src, size_t bytes, MemcpyKind kind) = 0;

  /// Runs all blocks of `inv` on the cores and returns when they finished.
  /// block_dim == 0 is an error; block_dim may exceed the core count.
  virtual Status run_kernel(const KernelInvocation& inv) = 0;
};

/// Hooks of the kernel checker (asc/kernel/checker.h, in the kernel layer,
/// which installs them at load time). `begin` runs once per launch before any
/// block and returns null when the launch is not checked; the other hooks run
/// only for a non-null handle: around each block (on the core's thread;
/// `failed`: the block threw) and once after the last block, where a non-OK
/// status fails a launch that did not fail otherwise.
struct LaunchCheckHooks {
  void* (*begin)(const KernelInvocation& inv) = nullptr;
  void (*block_begin)(void* launch, const BlockContext& ctx) = nullptr;
  void (*block_end)(void* launch, const BlockContext& ctx, bool failed) = nullptr;
  Status (*end)(void* launch) = nullptr;
};
/// Installs (or with nullptr removes) the hooks; `hooks` must stay valid.
void set_launch_check_hooks(const LaunchCheckHooks* hooks) noexcept;

/// The process-wide CPU device (created on first use).
Device& cpu_device();
/// The device new work goes to (the CPU device for now).
Device& current_device();

}  // namespace asc::runtime
