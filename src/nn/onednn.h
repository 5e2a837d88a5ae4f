// oneDNN plumbing shared by the NN kernels of src/nn (convolution, pooling,
// normalisation, ...): one CPU engine, a per-thread stream, dtype mapping, error
// translation and a primitive cache, so that steady-state calls do no planning.
//
// oneDNN (Debian's libdnnl-dev, OpenMP runtime) picks the best ISA at run time
// (AVX-512, AVX512_BF16, AMX, Arm). Its threads are OpenMP threads of the calling
// thread; `set_threads()` limits them to the device's core count
// (ASC_NUM_CORES) so a call does not oversubscribe the cores the pyasc workers use.
//
// Thread-safety: every function may be called from any thread. Cached entries are
// immutable after insertion; oneDNN primitives may be executed concurrently from
// several threads (each with its own stream, which thread_stream() provides).
#pragma once

#include <dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "asc/core/dtype.h"
#include "asc/core/status.h"
#include "asc/core/tensor.h"

namespace asc::nn {

/// The process' oneDNN CPU engine (created on first use).
dnnl::engine& cpu_engine();

/// An in-order oneDNN stream for the calling thread (primitives run on the calling
/// thread and its OpenMP team; execution is synchronous on return of stream.wait()).
dnnl::stream& thread_stream();

/// Limits the OpenMP team of the calling thread to the device's core count.
/// Called by every NN entry point before it executes a primitive.
void set_threads();
/// The device's core count (ASC_NUM_CORES), at least 1.
int device_cores();

/// `t`'s bytes (laid out as `user`) reordered into `want` (another layout and/or
/// data type), cached process-wide per (t's storage uid, offset, user, want) and
/// valid while the storage's write generation (Storage::version) is unchanged:
/// steady-state calls with the same weights do no reorder, and any write through
/// pyasc (eager, in place, or a pending graph write) makes the next call reorder
/// again. Storages NumPy or an export may write behind pyasc's back
/// (Storage::volatile_bytes) are reordered on every call and never cached.
/// The reorder runs on the calling thread with its current OpenMP team. Bounded
/// by bytes (least recently used entries evicted past 512 MiB; ASC_NN_WEIGHT_CACHE_MB
/// overrides, 0 disables); entries of freed storages are dropped on the next miss.
/// The returned memory is shared and must only be read.
dnnl::memory reordered_const(const Tensor& t, const dnnl::memory::desc& user, const dnnl::memory::desc& want);
/// True when reordered_const(t, ...) caches t's reorders (t's storage is not
/// volatile_bytes and the cache is on): a caller may keep the returned memory while
/// t's storage version is unchanged and reorder_cache_epoch() is the same.
bool reorder_cacheable(const Tensor& t);
/// Changes on every reorder_cache_clear(): memories kept by callers are dropped then.
uint64_t reorder_cache_epoch() noexcept;
struct ReorderCacheStats {
  int64_t hits = 0, misses = 0, uncached = 0, entries = 0, bytes = 0;
};
ReorderCacheStats reorder_cache_stats();
void reorder_cache_clear();

/// True when oneDNN supports `d` for compute primitives (float32, float16,
/// bfloat16, int8, uint8, int32; float64 is not a oneDNN type).
bool dnnl_supported(DType d) noexcept;

/// oneDNN's data type for `d`; kInvalidDtype "[op] ... not supported" otherwise.
dnnl::memory::data_type to_dnnl(DType d, const std::string& op);

/// Plain dims of a tensor's shape.
dnnl::memory::dims dims_of(const Shape& shape);

/// A memory descriptor for `t` with its own strides (in elements; byte strides
/// that are not whole elements or negative are kInvalidParam: callers make such
/// views contiguous first).
dnnl::memory::desc desc_of(const Tensor& t, const std::string& op);

/// Runs `fn`, turning dnnl::error (and std::bad_alloc) into asc::Error naming
/// `op` (kRtMemoryAllocation for out-of-memory, kApiNotSupport for
/// unimplemented configurations, kInternal otherwise).
void guarded(const std::string& op, const std::function<void()>& fn);

/// Process-wide cache of planned primitives keyed by a string that describes
/// (op, shapes, strides, dtypes, layout, attributes). `make` runs on a miss
/// without the cache lock held (two threads may plan the same key once each; the
/// first insertion wins). Bounded (least recently inserted entries evicted past
/// `capacity()`); `ASC_NN_CACHE_CAPACITY` overrides the default of 1024.
class PrimitiveCache {
 public:
  using Entry = std::shared_ptr<const void>;
  static PrimitiveCache& instance();
  Entry get_or_make(const std::string& key, const std::function<Entry()>& make);
  template <class T>
  std::shared_ptr<const T> get(const std::string& key, const std::function<std::shared_ptr<const T>()>& make) {
    return std::static_pointer_cast<const T>(get_or_make(key, [&]() -> Entry { return make(); }));
  }
  struct Stats {
    int64_t hits = 0, misses = 0, size = 0;
  };
  Stats stats() const;
  void clear();
  int64_t capacity() const noexcept;

 private:
  PrimitiveCache();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace asc::nn
