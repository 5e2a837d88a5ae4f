// oneDNN plumbing for src/nn (see onednn.h).
#include "nn/onednn.h"

#include <omp.h>

#include <cstdlib>
#include <deque>
#include <mutex>
#include <new>
#include <unordered_map>

#include "asc/runtime/device.h"

namespace asc::nn {

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& thread_stream() {
  thread_local dnnl::stream stream(cpu_engine());
  return stream;
}

void set_threads() {
  // Per calling thread (OpenMP ICVs are per thread): the device's core count,
  // read once; ASC_NUM_CORES sets it for the whole device.
  static const int cores = [] {
    int n = runtime::cpu_device().properties().num_cores;
    return n > 0 ? n : 1;
  }();
  thread_local int set = 0;
  if (set != cores) {
    omp_set_num_threads(cores);
    set = cores;
  }
}

bool dnnl_supported(DType d) noexcept {
  switch (d) {
    case DType::kFloat32: case DType::kFloat16: case DType::kBFloat16:
    case DType::kInt8: case DType::kUInt8: case DType::kInt32:
      return true;
    default:
      return false;
  }
}

dnnl::memory::data_type to_dnnl(DType d, const std::string& op) {
  using dt = dnnl::memory::data_type;
  switch (d) {
    case DType::kFloat32: return dt::f32;
    case DType::kFloat16: return dt::f16;
    case DType::kBFloat16: return dt::bf16;
    case DType::kInt8: return dt::s8;
    case DType::kUInt8: return dt::u8;
    case DType::kInt32: return dt::s32;
    default:
      throw Error(Status::TypeError(op, std::string("dtype ") + dtype_name(d) + " is not supported by the oneDNN kernel"));
  }
}

dnnl::memory::dims dims_of(const Shape& shape) { return dnnl::memory::dims(shape.begin(), shape.end()); }

dnnl::memory::desc desc_of(const Tensor& t, const std::string& op) {
  const int64_t item = static_cast<int64_t>(t.itemsize());
  dnnl::memory::dims strides;
  strides.reserve(t.shape().size());
  for (size_t i = 0; i < t.shape().size(); ++i) {
    int64_t s = t.strides()[i];
    if (s < 0 || s % item != 0) {
      throw Error(Status::Invalid(op, "internal: operand with negative or unaligned strides reached oneDNN"));
    }
    strides.push_back(t.shape()[i] == 1 ? 1 : s / item);
  }
  return dnnl::memory::desc(dims_of(t.shape()), to_dnnl(t.dtype(), op), strides);
}

void guarded(const std::string& op, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const dnnl::error& e) {
    ErrorCode code = ErrorCode::kInternal;
    if (e.status == dnnl_out_of_memory) code = ErrorCode::kRtMemoryAllocation;
    if (e.status == dnnl_unimplemented) code = ErrorCode::kApiNotSupport;
    if (e.status == dnnl_invalid_arguments) code = ErrorCode::kInvalidParam;
    throw Error(Status::Make(code, op, std::string("oneDNN: ") + e.what()));
  } catch (const std::bad_alloc&) {
    throw Error(Status::OutOfMemory(op, "host allocation failed in oneDNN"));
  }
}

struct PrimitiveCache::Impl {
  mutable std::mutex mu;
  std::unordered_map<std::string, Entry> map;
  std::deque<std::string> order;  // insertion order, for eviction
  int64_t capacity = 1024;
  int64_t hits = 0, misses = 0;
};

PrimitiveCache::PrimitiveCache() : impl_(new Impl) {
  if (const char* env = std::getenv("ASC_NN_CACHE_CAPACITY")) {
    char* end = nullptr;
    long long v = std::strtoll(env, &end, 10);
    if (end != env && *end == '\0' && v >= 1 && v <= (1LL << 30)) impl_->capacity = v;
  }
}

PrimitiveCache& PrimitiveCache::instance() {
  // Leaked on purpose: primitives may be used by threads still running at exit.
  static PrimitiveCache* cache = new PrimitiveCache();
  return *cache;
}

PrimitiveCache::Entry PrimitiveCache::get_or_make(const std::string& key, const std::function<Entry()>& make) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->map.find(key);
    if (it != impl_->map.end()) {
      ++impl_->hits;
      return it->second;
    }
    ++impl_->misses;
  }
  Entry made = make();  // planning runs unlocked
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto ins = impl_->map.emplace(key, made);
  if (!ins.second) return ins.first->second;
  impl_->order.push_back(key);
  while (static_cast<int64_t>(impl_->map.size()) > impl_->capacity) {
    impl_->map.erase(impl_->order.front());
    impl_->order.pop_front();
  }
  return made;
}

PrimitiveCache::Stats PrimitiveCache::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return Stats{impl_->hits, impl_->misses, static_cast<int64_t>(impl_->map.size())};
}

void PrimitiveCache::clear() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->map.clear();
  impl_->order.clear();
}

int64_t PrimitiveCache::capacity() const noexcept { return impl_->capacity; }

}  // namespace asc::nn
