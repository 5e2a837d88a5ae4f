// oneDNN plumbing for src/nn (see onednn.h).
#include "nn/onednn.h"

#include <omp.h>

#include <cstdlib>
#include <deque>
#include <list>
#include <atomic>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>

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

int device_cores() {
  static const int cores = [] {
    int n = runtime::cpu_device().properties().num_cores;
    return n > 0 ? n : 1;
  }();
  return cores;
}

void set_threads() {
  // Per calling thread (OpenMP ICVs are per thread): the device's core count,
  // read once; ASC_NUM_CORES sets it for the whole device.
  const int cores = device_cores();
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

// ---- reordered constants (weights, bias) ----------------------------------------
namespace {

// A stable text form of a memory descriptor (dims, type and blocking), for keys.
std::string desc_key(const dnnl::memory::desc& d) {
  const dnnl_memory_desc_t& m = d.data;
  std::string k = std::to_string(m.ndims) + ":" + std::to_string(int(m.data_type)) + ":" +
                  std::to_string(int(m.format_kind)) + ":" + std::to_string(m.offset0);
  for (int i = 0; i < m.ndims; ++i) k += "," + std::to_string(m.dims[i]) + "/" + std::to_string(m.padded_dims[i]);
  if (m.format_kind == dnnl_blocked) {
    const auto& b = m.format_desc.blocking;
    for (int i = 0; i < m.ndims; ++i) k += ";" + std::to_string(b.strides[i]);
    for (int i = 0; i < b.inner_nblks; ++i) k += "|" + std::to_string(b.inner_blks[i]) + "@" + std::to_string(b.inner_idxs[i]);
  }
  k += "#" + std::to_string(m.extra.flags);
  return k;
}

struct ReorderCache {
  struct Entry {
    std::weak_ptr<Storage> owner;  // expired: the storage is gone, the entry can never hit
    uint64_t version = 0;
    dnnl::memory mem;
    int64_t bytes = 0;
    std::list<std::string>::iterator lru;
  };
  std::mutex mu;
  std::unordered_map<std::string, Entry> map;
  std::list<std::string> lru;  // front: most recently used
  int64_t bytes = 0, capacity = int64_t(512) << 20;
  int64_t hits = 0, misses = 0, uncached = 0;

  ReorderCache() {
    if (const char* env = std::getenv("ASC_NN_WEIGHT_CACHE_MB")) {
      char* end = nullptr;
      long long v = std::strtoll(env, &end, 10);
      if (end != env && *end == '\0' && v >= 0 && v <= (1LL << 30)) capacity = v << 20;
    }
  }
  void erase(std::unordered_map<std::string, Entry>::iterator it) {
    bytes -= it->second.bytes;
    lru.erase(it->second.lru);
    map.erase(it);
  }
};

ReorderCache& reorder_cache() {
  static ReorderCache* c = new ReorderCache();  // leaked like PrimitiveCache
  return *c;
}

dnnl::memory reorder_now(const uint8_t* src, const dnnl::memory::desc& user, const dnnl::memory::desc& want) {
  auto& eng = cpu_engine();
  dnnl::memory from(user, eng, const_cast<uint8_t*>(src));  // a reorder only reads its source
  dnnl::memory to(want, eng);
  auto& s = thread_stream();
  dnnl::reorder(dnnl::reorder::primitive_desc(eng, user, eng, want)).execute(s, from, to);
  s.wait();
  return to;
}

}  // namespace

dnnl::memory reordered_const(const Tensor& t, const dnnl::memory::desc& user, const dnnl::memory::desc& want) {
  auto& c = reorder_cache();
  const std::shared_ptr<Storage>& st = t.storage();
  const uint8_t* base = st->read_data();  // syncs pending writes; leaves the version alone
  const uint8_t* src = base + t.offset();
  if (st->volatile_bytes() || c.capacity == 0) {
    {
      std::lock_guard<std::mutex> lock(c.mu);
      ++c.uncached;
    }
    return reorder_now(src, user, want);
  }
  // Read after the sync: a write that starts later bumps it past this value.
  const uint64_t version = st->version();
  const std::string key = std::to_string(st->uid()) + "+" + std::to_string(t.offset()) + "|" + desc_key(user) +
                          "|" + desc_key(want);
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.map.find(key);
    if (it != c.map.end()) {
      if (it->second.version == version) {
        ++c.hits;
        c.lru.splice(c.lru.begin(), c.lru, it->second.lru);
        return it->second.mem;
      }
      c.erase(it);  // written since: stale
    }
    ++c.misses;
  }
  dnnl::memory mem = reorder_now(src, user, want);  // unlocked: may be large
  const int64_t nbytes = static_cast<int64_t>(want.get_size());
  std::lock_guard<std::mutex> lock(c.mu);
  // Entries of storages that died can never hit again.
  for (auto it = c.map.begin(); it != c.map.end();) {
    auto next = std::next(it);
    if (it->second.owner.expired()) c.erase(it);
    it = next;
  }
  if (nbytes > c.capacity) return mem;
  auto it = c.map.find(key);
  if (it != c.map.end()) {
    if (it->second.version >= version) return it->second.mem;  // another thread cached it meanwhile
    c.erase(it);
  }
  while (c.bytes + nbytes > c.capacity && !c.lru.empty()) c.erase(c.map.find(c.lru.back()));
  c.lru.push_front(key);
  ReorderCache::Entry e;
  e.owner = st;
  e.version = version;
  e.mem = mem;
  e.bytes = nbytes;
  e.lru = c.lru.begin();
  c.map.emplace(key, std::move(e));
  c.bytes += nbytes;
  return mem;
}

ReorderCacheStats reorder_cache_stats() {
  auto& c = reorder_cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return ReorderCacheStats{c.hits, c.misses, c.uncached, static_cast<int64_t>(c.map.size()), c.bytes};
}

std::atomic<uint64_t> g_reorder_epoch{0};

bool reorder_cacheable(const Tensor& t) { return !t.storage()->volatile_bytes() && reorder_cache().capacity > 0; }

uint64_t reorder_cache_epoch() noexcept { return g_reorder_epoch.load(std::memory_order_acquire); }

void reorder_cache_clear() {
  auto& c = reorder_cache();
  g_reorder_epoch.fetch_add(1, std::memory_order_acq_rel);
  std::lock_guard<std::mutex> lock(c.mu);
  c.map.clear();
  c.lru.clear();
  c.bytes = 0;
}

}  // namespace asc::nn
