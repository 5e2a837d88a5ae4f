// The ACL model API (include/acl/acl_mdl.h).
//
// Data buffers, datasets and descriptions are plain C++ objects here; every handle is kept in a
// registry so that NULL, foreign or destroyed handles give ACL_ERROR_INVALID_PARAM instead of a
// crash. Models run on pyasc's Python InferenceSession through the bridge library
// libasc_mdl_python.so (src/acl_mdl_python/bridge.cc), loaded on first use from the directory of
// libasc itself. When the process has no Python interpreter (a standalone C/C++ program), the
// libpython pyasc was built with (ASC_LIBPYTHON, or $PYASC_LIBPYTHON) is loaded RTLD_GLOBAL first:
// the bridge is linked without libpython, so it binds to whichever interpreter the process has
// (a second copy of libpython in a Python process would be a second, broken interpreter).
//
// Everything the model executes is checked here first (dataset sizes, dynamic batch), so the
// Python side only runs valid requests.
//
// Locking: g_mu guards the registries; it is never held while calling the bridge. A model's
// executions are counted (Model::inflight) so that aclmdlUnload waits for them.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "asc/core/status.h"
#include "asc/runtime/launch.h"
#include "acl_errors.h"
#include "asc/runtime/stream.h"
#include "runtime/acl_mdl_dynamic.h"
#include "runtime/acl_mdl_internal.h"

struct aclDataBuffer {
  void* data;
  size_t size;
};

struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;
};

struct aclmdlDesc {
  bool filled = false;
  uint32_t model_id = 0;
  asc::runtime::mdl::ModelInfo info;
};

namespace {

namespace rt = asc::runtime;
namespace mdl = asc::runtime::mdl;

using asc::runtime::acl_detail::fail;
using asc::runtime::acl_detail::guarded;


// For the entry points that return a value instead of a code: a failure while building a message
// (std::bad_alloc) gives the fallback instead of an exception crossing the C boundary.
template <typename T, typename F>
T value_or(T fallback, F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return fallback;
  }
}

// ------------------------------------------------------------------ registries

struct Model {
  uint32_t id = 0;
  uint64_t generation = 0;  // aclFinalize count at load
  mdl::ModelInfo info;
  std::mutex mu;
  std::condition_variable cv;
  int inflight = 0;
  std::vector<std::vector<int64_t>> cur_out_dims;  // latest successful execution
};

std::mutex g_mu;
std::unordered_set<const aclDataBuffer*> g_buffers;
std::unordered_set<const aclmdlDataset*> g_datasets;
std::unordered_set<const aclmdlDesc*> g_descs;
std::unordered_map<uint32_t, std::shared_ptr<Model>> g_models;
std::unordered_map<uint32_t, std::string> g_unloaded;  // id -> why (for messages)
uint32_t g_next_id = 1;
uint64_t g_seen_generation = 0;

bool known_buffer(const aclDataBuffer* b) {
  std::lock_guard<std::mutex> lock(g_mu);
  return b && g_buffers.count(b);
}
bool known_desc(const aclmdlDesc* d) {
  std::lock_guard<std::mutex> lock(g_mu);
  return d && g_descs.count(d);
}

std::string ptr_str(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

// ------------------------------------------------------------------ the bridge

std::mutex g_bridge_mu;
const mdl::Bridge* g_bridge = nullptr;

std::string libasc_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&aclmdlLoadFromFile), &info) || !info.dli_fname) return ".";
  std::string path(info.dli_fname);
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The bridge, loaded once; nullptr (with the reason) when it cannot be.
const mdl::Bridge* bridge(std::string* why) {
  std::lock_guard<std::mutex> lock(g_bridge_mu);
  if (g_bridge) return g_bridge;
  if (!dlsym(RTLD_DEFAULT, "Py_IsInitialized")) {
    // No interpreter in the process: load the one pyasc was built with, globally, so that the
    // bridge and the extension modules the interpreter imports (numpy, pyasc._C) bind to it.
    const char* lib = std::getenv("PYASC_LIBPYTHON");
#ifdef ASC_LIBPYTHON
    if (!lib || !*lib) lib = ASC_LIBPYTHON;
#endif
    if (!lib || !*lib) {
      *why = "the model API runs models on pyasc's Python executor, but this libasc was built without "
             "Python (the C++-only build) and PYASC_LIBPYTHON is not set: use the libasc of the installed "
             "pyasc package";
      return nullptr;
    }
    if (!dlopen(lib, RTLD_NOW | RTLD_GLOBAL)) {
      const char* e = dlerror();
      *why = std::string("cannot load libpython '") + lib + "' (set PYASC_LIBPYTHON): " + (e ? e : "?");
      return nullptr;
    }
  }
  const std::string path = libasc_dir() + "/libasc_mdl_python.so";
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    *why = "cannot load the model executor bridge '" + path + "': " + (e ? e : "?") +
           " (the model API needs the pyasc Python package's libasc, not the C++-only build)";
    return nullptr;
  }
  using Fn = const mdl::Bridge* (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(h, "asc_mdl_python_bridge"));
  const mdl::Bridge* b = fn ? fn() : nullptr;
  if (!b || b->abi != mdl::kBridgeAbi) {
    *why = "'" + path + "' is not this libasc's bridge (ABI mismatch: reinstall pyasc)";
    return nullptr;
  }
  g_bridge = b;
  return b;
}

// Models loaded before an aclFinalize are unloaded by it (as in the SDK). Called by every model
// entry point; returns ACL_ERROR_UNINITIALIZE while the API is finalized.
aclError check_lifecycle(const char* api) {
  bool finalized = false;
  uint64_t generation = 0;
  rt::acl_lifecycle(&finalized, &generation);
  std::vector<uint32_t> stale;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (generation != g_seen_generation) {
      g_seen_generation = generation;
      for (auto it = g_models.begin(); it != g_models.end();) {
        if (it->second->generation != generation) {
          stale.push_back(it->first);
          g_unloaded[it->first] = "was unloaded by aclFinalize";
          it = g_models.erase(it);
        } else {
          ++it;
        }
      }
    }
  }
  if (!stale.empty()) {
    std::string ignored;
    if (const mdl::Bridge* b = bridge(&ignored)) {
      for (uint32_t id : stale) b->unload(id, &ignored);  // frees the sessions' memory
    }
  }
  if (finalized) return fail(api, ACL_ERROR_UNINITIALIZE, "the runtime was finalized (aclFinalize); call aclInit first");
  return ACL_SUCCESS;
}

uint64_t current_generation() {
  bool finalized = false;
  uint64_t generation = 0;
  rt::acl_lifecycle(&finalized, &generation);
  return generation;
}

std::shared_ptr<Model> find_model(const char* api, uint32_t id, aclError* err) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = g_models.find(id);
  if (it != g_models.end()) return it->second;
  auto dead = g_unloaded.find(id);
  *err = fail(api, ACL_ERROR_INVALID_MODEL_ID,
              "model id " + std::to_string(id) +
                  (dead != g_unloaded.end() ? " " + dead->second : " was never returned by aclmdlLoadFrom*"));
  return nullptr;
}

// Counts one execution of a model for its lifetime.
struct Inflight {
  std::shared_ptr<Model> m;
  explicit Inflight(std::shared_ptr<Model> model) : m(std::move(model)) {
    std::lock_guard<std::mutex> lock(m->mu);
    ++m->inflight;
  }
  ~Inflight() {
    {
      std::lock_guard<std::mutex> lock(m->mu);
      --m->inflight;
    }
    m->cv.notify_all();
  }
  Inflight(const Inflight&) = delete;
  Inflight& operator=(const Inflight&) = delete;
};

aclError load(const char* api, const char* path, const void* data, size_t size, uint32_t* model_id) {
  if (!model_id) return fail(api, ACL_ERROR_INVALID_PARAM, "modelId is null");
  if (path) {
    if (!*path) return fail(api, ACL_ERROR_INVALID_PARAM, "modelPath is empty");
  } else {
    if (!data) return fail(api, ACL_ERROR_INVALID_PARAM, "model is null");
    if (size == 0) return fail(api, ACL_ERROR_INVALID_PARAM, "modelSize is 0");
  }
  if (aclError e = check_lifecycle(api)) return e;
  std::string why;
  const mdl::Bridge* b = bridge(&why);
  if (!b) return fail(api, ACL_ERROR_FAILURE, why);
  auto m = std::make_shared<Model>();
  {
    std::lock_guard<std::mutex> lock(g_mu);
    m->id = g_next_id++;
  }
  m->generation = current_generation();
  int code = b->load(path, data, size, m->id, &m->info, &why);
  if (code != ACL_SUCCESS) return fail(api, code, why);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_models[m->id] = m;
  }
  *model_id = m->id;
  return ACL_SUCCESS;
}

aclError query_size(const char* api, const char* path, const void* data, size_t size, size_t* work,
                    size_t* weight) {
  if (!work || !weight) return fail(api, ACL_ERROR_INVALID_PARAM, !work ? "workSize is null" : "weightSize is null");
  if (path ? !*path : (!data || size == 0))
    return fail(api, ACL_ERROR_INVALID_PARAM, path ? "fileName is empty" : "model is null or modelSize is 0");
  if (aclError e = check_lifecycle(api)) return e;
  std::string why;
  const mdl::Bridge* b = bridge(&why);
  if (!b) return fail(api, ACL_ERROR_FAILURE, why);
  int code = b->query_size(path, data, size, work, weight, &why);
  return code == ACL_SUCCESS ? ACL_SUCCESS : fail(api, code, why);
}

// ------------------------------------------------------------------ execution

struct Request {
  std::shared_ptr<Model> model;
  std::vector<mdl::Buffer> inputs;   // without the dynamic-batch input
  std::vector<mdl::Buffer> outputs;
  uint64_t batch = 0;
};

size_t needed_bytes(const mdl::TensorInfo& t, uint64_t batch) {
  if (batch && t.batch_axis != SIZE_MAX) return static_cast<size_t>(batch) * t.sample_bytes;
  return t.size;
}

// Checks the datasets against the model and captures the buffers.
aclError prepare(const char* api, uint32_t model_id, const aclmdlDataset* input, const aclmdlDataset* output,
                 Request* req) {
  if (aclError e = check_lifecycle(api)) return e;
  aclError err = ACL_SUCCESS;
  req->model = find_model(api, model_id, &err);
  if (!req->model) return err;
  if (!input || !output) return fail(api, ACL_ERROR_INVALID_PARAM, !input ? "input is null" : "output is null");
  std::vector<aclDataBuffer> in, out;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (const aclmdlDataset* d : {input, output}) {
      if (!g_datasets.count(d))
        return fail(api, ACL_ERROR_INVALID_PARAM,
                    std::string(d == input ? "input" : "output") + " dataset " + ptr_str(d) +
                        " was not created by aclmdlCreateDataset (or was destroyed)");
      for (const aclDataBuffer* b : d->buffers) {
        if (!g_buffers.count(b))
          return fail(api, ACL_ERROR_INVALID_PARAM,
                      "data buffer " + ptr_str(b) + " of the " + (d == input ? "input" : "output") +
                          " dataset was destroyed");
        (d == input ? in : out).push_back(*b);
      }
    }
  }
  const mdl::ModelInfo& info = req->model->info;
  const std::string mid = "model " + std::to_string(model_id);
  if (in.size() != info.inputs.size())
    return fail(api, ACL_ERROR_MODEL_INPUT_NOT_MATCH,
                "the input dataset has " + std::to_string(in.size()) + " buffers; " + mid + " has " +
                    std::to_string(info.inputs.size()) + " inputs");
  if (out.size() != info.outputs.size())
    return fail(api, ACL_ERROR_MODEL_OUTPUT_NOT_MATCH,
                "the output dataset has " + std::to_string(out.size()) + " buffers; " + mid + " has " +
                    std::to_string(info.outputs.size()) + " outputs");
  size_t n_data = in.size();
  if (!info.batch_gears.empty()) {
    n_data -= 1;  // the last input is ACL_DYNAMIC_TENSOR_NAME
    const aclDataBuffer& dyn = in.back();
    int64_t batch = 0;
    if (!dyn.data || dyn.size < sizeof batch)
      return fail(api, ACL_ERROR_MODEL_INPUT_NOT_MATCH,
                  "input " + std::to_string(n_data) + " (" ACL_DYNAMIC_TENSOR_NAME ") needs a buffer of " +
                      std::to_string(sizeof batch) + " bytes; got " + std::to_string(dyn.size));
    std::memcpy(&batch, dyn.data, sizeof batch);
    bool ok = false;
    for (uint64_t g : info.batch_gears) ok = ok || (batch > 0 && static_cast<uint64_t>(batch) == g);
    if (!ok)
      return fail(api, ACL_ERROR_MODEL_INPUT_NOT_MATCH,
                  "the dynamic batch in input " + std::to_string(n_data) + " is " + std::to_string(batch) +
                      ", not one of the model's gears: call aclmdlSetDynamicBatchSize on the input dataset");
    req->batch = static_cast<uint64_t>(batch);
  }
  std::vector<std::vector<int64_t>> gear_in;  // dynamic HW / dims: each data input's dims at the gear
  if (info.dyn_kind != mdl::kDynNone) {
    n_data -= 1;  // the last input is ACL_DYNAMIC_TENSOR_NAME (acl_mdl_dynamic.cc)
    if (aclError e = mdl::select_gear(api, info, in.back().data, in.back().size, &gear_in)) return e;
  }
  for (size_t i = 0; i < n_data; ++i) {
    const mdl::TensorInfo& t = info.inputs[i];
    const size_t need = gear_in.empty() ? needed_bytes(t, req->batch) : mdl::gear_bytes(t, gear_in[i]);
    const bool exact = info.batch_gears.empty() && gear_in.empty();
    if (!in[i].data && need)
      return fail(api, ACL_ERROR_INVALID_PARAM, "input " + std::to_string(i) + " ('" + t.name + "'): data is null");
    if (t.size && (exact ? in[i].size != need : in[i].size < need))
      return fail(api, ACL_ERROR_MODEL_INPUT_NOT_MATCH,
                  "input " + std::to_string(i) + " ('" + t.name + "') buffer holds " + std::to_string(in[i].size) +
                      " bytes; " + mid + " expects " + (exact ? "" : "at least ") + std::to_string(need) +
                      (req->batch ? " (batch " + std::to_string(req->batch) + ")" : std::string()));
    req->inputs.push_back({in[i].data, t.size ? need : in[i].size});
  }
  if (!gear_in.empty()) req->inputs.push_back({in.back().data, in.back().size});  // the executor reads the gear
  for (size_t i = 0; i < out.size(); ++i) {
    const mdl::TensorInfo& t = info.outputs[i];
    const size_t need = needed_bytes(t, req->batch);
    if (!out[i].data && out[i].size)
      return fail(api, ACL_ERROR_INVALID_PARAM, "output " + std::to_string(i) + ": data is null");
    if (out[i].size < need)
      return fail(api, ACL_ERROR_MODEL_OUTPUT_NOT_MATCH,
                  "output " + std::to_string(i) + " ('" + t.name + "') buffer holds " + std::to_string(out[i].size) +
                      " bytes; " + mid + " writes " + std::to_string(need));
    req->outputs.push_back({out[i].data, out[i].size});
  }
  return ACL_SUCCESS;
}

// Runs a prepared request; returns the code and sets *why on failure.
int run(const Request& req, std::string* why) {
  const mdl::Bridge* b = bridge(why);
  if (!b) return ACL_ERROR_FAILURE;
  Inflight count(req.model);
  std::vector<std::vector<int64_t>> dims;
  int code = b->execute(req.model->id, req.inputs.data(), req.inputs.size(), req.outputs.data(), req.outputs.size(),
                        req.batch, &dims, why);
  if (code == ACL_SUCCESS) {
    std::lock_guard<std::mutex> lock(req.model->mu);
    req.model->cur_out_dims = std::move(dims);
  }
  return code;
}

// ------------------------------------------------------------------ descriptions

const aclmdlDesc* checked_desc(const char* api, const aclmdlDesc* d, aclError* err) {
  if (!d) {
    *err = fail(api, ACL_ERROR_INVALID_PARAM, "modelDesc is null");
    return nullptr;
  }
  if (!known_desc(d)) {
    *err = fail(api, ACL_ERROR_INVALID_PARAM,
                "modelDesc " + ptr_str(d) + " was not created by aclmdlCreateDesc (or was destroyed)");
    return nullptr;
  }
  if (!d->filled) {
    *err = fail(api, ACL_ERROR_INVALID_PARAM, "modelDesc was not filled by aclmdlGetDesc");
    return nullptr;
  }
  return d;
}

const mdl::TensorInfo* tensor(const char* api, const aclmdlDesc* d, size_t index, bool is_input, aclError* err) {
  if (!checked_desc(api, d, err)) return nullptr;
  const auto& v = is_input ? d->info.inputs : d->info.outputs;
  if (index >= v.size()) {
    *err = fail(api, ACL_ERROR_INVALID_PARAM,
                std::string(is_input ? "input" : "output") + " index " + std::to_string(index) +
                    " is out of range (the model has " + std::to_string(v.size()) + ")");
    return nullptr;
  }
  return &v[index];
}

aclError fill_dims(const char* api, const mdl::TensorInfo& t, const std::vector<int64_t>& dims, aclmdlIODims* out) {
  if (!out) return fail(api, ACL_ERROR_INVALID_PARAM, "dims is null");
  if (dims.size() > ACL_MAX_DIM_CNT)
    return fail(api, ACL_ERROR_INVALID_PARAM, "'" + t.name + "' has more than ACL_MAX_DIM_CNT dims");
  std::memset(out->name, 0, sizeof out->name);
  std::strncpy(out->name, t.name.c_str(), sizeof out->name - 1);
  out->dimCount = dims.size();
  for (size_t i = 0; i < dims.size(); ++i) out->dims[i] = dims[i];
  return ACL_SUCCESS;
}

aclError get_dims(const char* api, const aclmdlDesc* d, size_t index, aclmdlIODims* dims, bool is_input) {
  return guarded(api, [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor(api, d, index, is_input, &err);
    return t ? fill_dims(api, *t, t->dims, dims) : err;
  });
}

aclError index_by_name(const char* api, const aclmdlDesc* d, const char* name, size_t* index, bool is_input) {
  return guarded(api, [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    if (!checked_desc(api, d, &err)) return err;
    if (!name || !index) return fail(api, ACL_ERROR_INVALID_PARAM, !name ? "name is null" : "index is null");
    const auto& v = is_input ? d->info.inputs : d->info.outputs;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i].name == name) {
        *index = i;
        return ACL_SUCCESS;
      }
    }
    std::string names;
    for (const auto& t : v) names += (names.empty() ? "'" : ", '") + t.name + "'";
    return fail(api, ACL_ERROR_INVALID_PARAM,
                std::string("no ") + (is_input ? "input" : "output") + " named '" + name + "' (the model's: " + names +
                    ")");
  });
}

}  // namespace

extern "C" {

// ================================================================== data buffers

aclDataBuffer* aclCreateDataBuffer(void* data, size_t size) {
  aclDataBuffer* out = nullptr;
  guarded("aclCreateDataBuffer", [&]() -> aclError {
    if (!data && size) return fail("aclCreateDataBuffer", ACL_ERROR_INVALID_PARAM, "data is null with size > 0");
    auto b = std::make_unique<aclDataBuffer>(aclDataBuffer{data, size});
    std::lock_guard<std::mutex> lock(g_mu);
    g_buffers.insert(b.get());
    out = b.release();
    return ACL_SUCCESS;
  });
  return out;
}

aclError aclDestroyDataBuffer(const aclDataBuffer* dataBuffer) {
  return guarded("aclDestroyDataBuffer", [&]() -> aclError {
    {
      std::lock_guard<std::mutex> lock(g_mu);
      if (!dataBuffer || !g_buffers.erase(dataBuffer))
        return fail("aclDestroyDataBuffer", ACL_ERROR_INVALID_PARAM,
                    dataBuffer ? "data buffer " + ptr_str(dataBuffer) + " is unknown or already destroyed"
                               : std::string("dataBuffer is null"));
    }
    delete dataBuffer;
    return ACL_SUCCESS;
  });
}

aclError aclUpdateDataBuffer(aclDataBuffer* dataBuffer, void* data, size_t size) {
  return guarded("aclUpdateDataBuffer", [&]() -> aclError {
    if (!known_buffer(dataBuffer))
      return fail("aclUpdateDataBuffer", ACL_ERROR_INVALID_PARAM, "dataBuffer is null, unknown or destroyed");
    if (!data && size) return fail("aclUpdateDataBuffer", ACL_ERROR_INVALID_PARAM, "data is null with size > 0");
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
  });
}

void* aclGetDataBufferAddr(const aclDataBuffer* dataBuffer) {
  return value_or<void*>(static_cast<void*>(nullptr), [&]() -> void* {
    if (!known_buffer(dataBuffer)) {
      fail("aclGetDataBufferAddr", ACL_ERROR_INVALID_PARAM, "dataBuffer is null, unknown or destroyed");
      return nullptr;
    }
    return dataBuffer->data;
  });
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer* dataBuffer) {
  return value_or<size_t>(static_cast<size_t>(0), [&]() -> size_t {
    if (!known_buffer(dataBuffer)) {
      fail("aclGetDataBufferSizeV2", ACL_ERROR_INVALID_PARAM, "dataBuffer is null, unknown or destroyed");
      return 0;
    }
    return dataBuffer->size;
  });
}

uint32_t aclGetDataBufferSize(const aclDataBuffer* dataBuffer) {
  const size_t s = aclGetDataBufferSizeV2(dataBuffer);
  return s > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(s);
}

// ================================================================== datasets

aclmdlDataset* aclmdlCreateDataset(void) {
  aclmdlDataset* out = nullptr;
  guarded("aclmdlCreateDataset", [&]() -> aclError {
    auto d = std::make_unique<aclmdlDataset>();
    std::lock_guard<std::mutex> lock(g_mu);
    g_datasets.insert(d.get());
    out = d.release();
    return ACL_SUCCESS;
  });
  return out;
}

aclError aclmdlDestroyDataset(const aclmdlDataset* dataset) {
  return guarded("aclmdlDestroyDataset", [&]() -> aclError {
    {
      std::lock_guard<std::mutex> lock(g_mu);
      if (!dataset || !g_datasets.erase(dataset))
        return fail("aclmdlDestroyDataset", ACL_ERROR_INVALID_PARAM,
                    dataset ? "dataset " + ptr_str(dataset) + " is unknown or already destroyed"
                            : std::string("dataset is null"));
    }
    delete dataset;
    return ACL_SUCCESS;
  });
}

aclError aclmdlAddDatasetBuffer(aclmdlDataset* dataset, aclDataBuffer* dataBuffer) {
  return guarded("aclmdlAddDatasetBuffer", [&]() -> aclError {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!dataset || !g_datasets.count(dataset))
      return fail("aclmdlAddDatasetBuffer", ACL_ERROR_INVALID_PARAM, "dataset is null, unknown or destroyed");
    if (!dataBuffer || !g_buffers.count(dataBuffer))
      return fail("aclmdlAddDatasetBuffer", ACL_ERROR_INVALID_PARAM, "dataBuffer is null, unknown or destroyed");
    dataset->buffers.push_back(dataBuffer);
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset* dataset) {
  return value_or<size_t>(static_cast<size_t>(0), [&]() -> size_t {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!dataset || !g_datasets.count(dataset)) {
      fail("aclmdlGetDatasetNumBuffers", ACL_ERROR_INVALID_PARAM, "dataset is null, unknown or destroyed");
      return 0;
    }
    return dataset->buffers.size();
  });
}

aclDataBuffer* aclmdlGetDatasetBuffer(const aclmdlDataset* dataset, size_t index) {
  return value_or<aclDataBuffer*>(static_cast<aclDataBuffer*>(nullptr), [&]() -> aclDataBuffer* {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!dataset || !g_datasets.count(dataset)) {
      fail("aclmdlGetDatasetBuffer", ACL_ERROR_INVALID_PARAM, "dataset is null, unknown or destroyed");
      return nullptr;
    }
    if (index >= dataset->buffers.size()) {
      fail("aclmdlGetDatasetBuffer", ACL_ERROR_INVALID_PARAM,
           "index " + std::to_string(index) + " is out of range (" + std::to_string(dataset->buffers.size()) +
               " buffers)");
      return nullptr;
    }
    return dataset->buffers[index];
  });
}

// ================================================================== loading

aclError aclmdlLoadFromFile(const char* modelPath, uint32_t* modelId) {
  return guarded("aclmdlLoadFromFile", [&]() -> aclError {
    if (!modelPath) return fail("aclmdlLoadFromFile", ACL_ERROR_INVALID_PARAM, "modelPath is null");
    return load("aclmdlLoadFromFile", modelPath, nullptr, 0, modelId);
  });
}

aclError aclmdlLoadFromMem(const void* model, size_t modelSize, uint32_t* modelId) {
  return guarded("aclmdlLoadFromMem",
                 [&]() -> aclError { return load("aclmdlLoadFromMem", nullptr, model, modelSize, modelId); });
}

static aclError check_with_mem(const char* api, const char* path, const void* model, size_t model_size,
                               void* workPtr, size_t workSize, void* weightPtr, size_t weightSize) {
  if (!workPtr && !weightPtr) return ACL_SUCCESS;
  size_t work = 0, weight = 0;
  if (aclError e = query_size(api, path, model, model_size, &work, &weight)) return e;
  if (workPtr && workSize < work)
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "workSize " + std::to_string(workSize) + " is below the model's " + std::to_string(work) +
                    " (aclmdlQuerySize)");
  if (weightPtr && weightSize < weight)
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "weightSize " + std::to_string(weightSize) + " is below the model's " + std::to_string(weight) +
                    " (aclmdlQuerySize)");
  return ACL_SUCCESS;
}

aclError aclmdlLoadFromFileWithMem(const char* modelPath, uint32_t* modelId, void* workPtr, size_t workSize,
                                   void* weightPtr, size_t weightSize) {
  static const char* kApi = "aclmdlLoadFromFileWithMem";
  return guarded(kApi, [&]() -> aclError {
    if (!modelPath) return fail(kApi, ACL_ERROR_INVALID_PARAM, "modelPath is null");
    if (aclError e = check_with_mem(kApi, modelPath, nullptr, 0, workPtr, workSize, weightPtr, weightSize)) return e;
    return load(kApi, modelPath, nullptr, 0, modelId);
  });
}

aclError aclmdlLoadFromMemWithMem(const void* model, size_t modelSize, uint32_t* modelId, void* workPtr,
                                  size_t workSize, void* weightPtr, size_t weightSize) {
  static const char* kApi = "aclmdlLoadFromMemWithMem";
  return guarded(kApi, [&]() -> aclError {
    if (!model || !modelSize) return fail(kApi, ACL_ERROR_INVALID_PARAM, "model is null or modelSize is 0");
    if (aclError e = check_with_mem(kApi, nullptr, model, modelSize, workPtr, workSize, weightPtr, weightSize))
      return e;
    return load(kApi, nullptr, model, modelSize, modelId);
  });
}

aclError aclmdlQuerySize(const char* fileName, size_t* workSize, size_t* weightSize) {
  return guarded("aclmdlQuerySize", [&]() -> aclError {
    if (!fileName) return fail("aclmdlQuerySize", ACL_ERROR_INVALID_PARAM, "fileName is null");
    return query_size("aclmdlQuerySize", fileName, nullptr, 0, workSize, weightSize);
  });
}

aclError aclmdlQuerySizeFromMem(const void* model, size_t modelSize, size_t* workSize, size_t* weightSize) {
  return guarded("aclmdlQuerySizeFromMem", [&]() -> aclError {
    return query_size("aclmdlQuerySizeFromMem", nullptr, model, modelSize, workSize, weightSize);
  });
}

aclError aclmdlUnload(uint32_t modelId) {
  static const char* kApi = "aclmdlUnload";
  return guarded(kApi, [&]() -> aclError {
    if (aclError e = check_lifecycle(kApi)) return e;
    std::shared_ptr<Model> m;
    {
      std::lock_guard<std::mutex> lock(g_mu);
      auto it = g_models.find(modelId);
      if (it == g_models.end()) {
        auto dead = g_unloaded.find(modelId);
        return fail(kApi, ACL_ERROR_INVALID_MODEL_ID,
                    "model id " + std::to_string(modelId) +
                        (dead != g_unloaded.end() ? " " + dead->second : " was never returned by aclmdlLoadFrom*"));
      }
      m = it->second;
      g_models.erase(it);
      g_unloaded[modelId] = "was already unloaded (aclmdlUnload)";
    }
    {
      std::unique_lock<std::mutex> lock(m->mu);
      m->cv.wait(lock, [&] { return m->inflight == 0; });
    }
    std::string why;
    const mdl::Bridge* b = bridge(&why);
    if (!b) return fail(kApi, ACL_ERROR_FAILURE, why);
    int code = b->unload(modelId, &why);
    return code == ACL_SUCCESS ? ACL_SUCCESS : fail(kApi, code, why);
  });
}

// ================================================================== descriptions

aclmdlDesc* aclmdlCreateDesc(void) {
  aclmdlDesc* out = nullptr;
  guarded("aclmdlCreateDesc", [&]() -> aclError {
    auto d = std::make_unique<aclmdlDesc>();
    std::lock_guard<std::mutex> lock(g_mu);
    g_descs.insert(d.get());
    out = d.release();
    return ACL_SUCCESS;
  });
  return out;
}

aclError aclmdlDestroyDesc(aclmdlDesc* modelDesc) {
  return guarded("aclmdlDestroyDesc", [&]() -> aclError {
    {
      std::lock_guard<std::mutex> lock(g_mu);
      if (!modelDesc || !g_descs.erase(modelDesc))
        return fail("aclmdlDestroyDesc", ACL_ERROR_INVALID_PARAM,
                    modelDesc ? "modelDesc " + ptr_str(modelDesc) + " is unknown or already destroyed"
                              : std::string("modelDesc is null"));
    }
    delete modelDesc;
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetDesc(aclmdlDesc* modelDesc, uint32_t modelId) {
  static const char* kApi = "aclmdlGetDesc";
  return guarded(kApi, [&]() -> aclError {
    if (!known_desc(modelDesc))
      return fail(kApi, ACL_ERROR_INVALID_PARAM, "modelDesc is null, unknown or destroyed (aclmdlCreateDesc)");
    if (aclError e = check_lifecycle(kApi)) return e;
    aclError err = ACL_SUCCESS;
    auto m = find_model(kApi, modelId, &err);
    if (!m) return err;
    modelDesc->info = m->info;
    modelDesc->model_id = modelId;
    modelDesc->filled = true;
    return ACL_SUCCESS;
  });
}

size_t aclmdlGetNumInputs(aclmdlDesc* modelDesc) {
  return value_or<size_t>(static_cast<size_t>(0), [&]() -> size_t {
    aclError err = ACL_SUCCESS;
    return checked_desc("aclmdlGetNumInputs", modelDesc, &err) ? modelDesc->info.inputs.size() : 0;
  });
}

size_t aclmdlGetNumOutputs(aclmdlDesc* modelDesc) {
  return value_or<size_t>(static_cast<size_t>(0), [&]() -> size_t {
    aclError err = ACL_SUCCESS;
    return checked_desc("aclmdlGetNumOutputs", modelDesc, &err) ? modelDesc->info.outputs.size() : 0;
  });
}

size_t aclmdlGetInputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return value_or<size_t>(static_cast<size_t>(0), [&]() -> size_t {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor("aclmdlGetInputSizeByIndex", modelDesc, index, true, &err);
    return t ? t->size : 0;
  });
}

size_t aclmdlGetOutputSizeByIndex(aclmdlDesc* modelDesc, size_t index) {
  return value_or<size_t>(static_cast<size_t>(0), [&]() -> size_t {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor("aclmdlGetOutputSizeByIndex", modelDesc, index, false, &err);
    return t ? t->size : 0;
  });
}

const char* aclmdlGetInputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  return value_or<const char*>(static_cast<const char*>(nullptr), [&]() -> const char* {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor("aclmdlGetInputNameByIndex", modelDesc, index, true, &err);
    return t ? t->name.c_str() : nullptr;
  });
}

const char* aclmdlGetOutputNameByIndex(const aclmdlDesc* modelDesc, size_t index) {
  return value_or<const char*>(static_cast<const char*>(nullptr), [&]() -> const char* {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor("aclmdlGetOutputNameByIndex", modelDesc, index, false, &err);
    return t ? t->name.c_str() : nullptr;
  });
}

aclError aclmdlGetInputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  return index_by_name("aclmdlGetInputIndexByName", modelDesc, name, index, true);
}

aclError aclmdlGetOutputIndexByName(const aclmdlDesc* modelDesc, const char* name, size_t* index) {
  return index_by_name("aclmdlGetOutputIndexByName", modelDesc, name, index, false);
}

aclError aclmdlGetInputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return get_dims("aclmdlGetInputDims", modelDesc, index, dims, true);
}

aclError aclmdlGetInputDimsV2(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return get_dims("aclmdlGetInputDimsV2", modelDesc, index, dims, true);
}

aclError aclmdlGetOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  return get_dims("aclmdlGetOutputDims", modelDesc, index, dims, false);
}

aclError aclmdlGetCurOutputDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims) {
  static const char* kApi = "aclmdlGetCurOutputDims";
  return guarded(kApi, [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor(kApi, modelDesc, index, false, &err);
    if (!t) return err;
    std::vector<int64_t> cur;
    std::shared_ptr<Model> m;
    {
      std::lock_guard<std::mutex> lock(g_mu);
      auto it = g_models.find(modelDesc->model_id);
      if (it != g_models.end()) m = it->second;
    }
    if (m) {
      std::lock_guard<std::mutex> lock(m->mu);
      if (index < m->cur_out_dims.size()) cur = m->cur_out_dims[index];
    }
    if (cur.empty()) {  // not run yet: the static dims, the largest gear's batch for dynamic models
      cur = t->dims;
      if (t->batch_axis < cur.size() && !modelDesc->info.batch_gears.empty()) {
        uint64_t most = 0;
        for (uint64_t g : modelDesc->info.batch_gears) most = g > most ? g : most;
        cur[t->batch_axis] = static_cast<int64_t>(most);
      }
    }
    return fill_dims(kApi, *t, cur, dims);
  });
}

aclDataType aclmdlGetInputDataType(const aclmdlDesc* modelDesc, size_t index) {
  return value_or<aclDataType>(ACL_DT_UNDEFINED, [&]() -> aclDataType {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor("aclmdlGetInputDataType", modelDesc, index, true, &err);
    return t ? static_cast<aclDataType>(t->dtype) : ACL_DT_UNDEFINED;
  });
}

aclDataType aclmdlGetOutputDataType(const aclmdlDesc* modelDesc, size_t index) {
  return value_or<aclDataType>(ACL_DT_UNDEFINED, [&]() -> aclDataType {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor("aclmdlGetOutputDataType", modelDesc, index, false, &err);
    return t ? static_cast<aclDataType>(t->dtype) : ACL_DT_UNDEFINED;
  });
}

aclFormat aclmdlGetInputFormat(const aclmdlDesc* modelDesc, size_t index) {
  return value_or<aclFormat>(ACL_FORMAT_UNDEFINED, [&]() -> aclFormat {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor("aclmdlGetInputFormat", modelDesc, index, true, &err);
    return t ? static_cast<aclFormat>(t->format) : ACL_FORMAT_UNDEFINED;
  });
}

aclFormat aclmdlGetOutputFormat(const aclmdlDesc* modelDesc, size_t index) {
  return value_or<aclFormat>(ACL_FORMAT_UNDEFINED, [&]() -> aclFormat {
    aclError err = ACL_SUCCESS;
    const mdl::TensorInfo* t = tensor("aclmdlGetOutputFormat", modelDesc, index, false, &err);
    return t ? static_cast<aclFormat>(t->format) : ACL_FORMAT_UNDEFINED;
  });
}

aclError aclmdlGetDynamicBatch(const aclmdlDesc* modelDesc, aclmdlBatch* batch) {
  static const char* kApi = "aclmdlGetDynamicBatch";
  return guarded(kApi, [&]() -> aclError {
    aclError err = ACL_SUCCESS;
    if (!checked_desc(kApi, modelDesc, &err)) return err;
    if (!batch) return fail(kApi, ACL_ERROR_INVALID_PARAM, "batch is null");
    const auto& g = modelDesc->info.batch_gears;
    if (g.size() > ACL_MAX_BATCH_NUM) return fail(kApi, ACL_ERROR_INVALID_PARAM, "more than ACL_MAX_BATCH_NUM gears");
    batch->batchCount = g.size();
    for (size_t i = 0; i < g.size(); ++i) batch->batch[i] = g[i];
    return ACL_SUCCESS;
  });
}

// ================================================================== execution

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output) {
  static const char* kApi = "aclmdlExecute";
  return guarded(kApi, [&]() -> aclError {
    Request req;
    if (aclError e = prepare(kApi, modelId, input, output, &req)) return e;
    std::string why;
    int code = run(req, &why);
    return code == ACL_SUCCESS ? ACL_SUCCESS : fail(kApi, code, why);
  });
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset* input, aclmdlDataset* output,
                            aclrtStream stream) {
  static const char* kApi = "aclmdlExecuteAsync";
  return guarded(kApi, [&]() -> aclError {
    std::shared_ptr<rt::Stream> s = stream ? rt::find_stream(stream) : rt::current_stream();
    if (!s)
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "stream " + ptr_str(stream) + " is not a live stream (aclrtCreateStream)");
    auto req = std::make_shared<Request>();
    if (aclError e = prepare(kApi, modelId, input, output, req.get())) return e;
    // Counted from now, so that aclmdlUnload waits for the queued execution too.
    auto pending = std::make_shared<Inflight>(req->model);
    s->enqueue("aclmdlExecuteAsync(model " + std::to_string(modelId) + ")", [req, pending]() {
      // The executor runs pyasc code, which must not run on a stream worker (it synchronizes its
      // own streams): a helper thread with a private current stream runs it while this task
      // holds the stream's later work back.
      int code = ACL_SUCCESS;
      std::string why;
      std::thread worker([&] {
        try {
          rt::set_current_stream(rt::Stream::create());
          code = run(*req, &why);
          rt::set_current_stream(nullptr);
        } catch (const std::exception& e) {
          code = ACL_ERROR_INTERNAL_ERROR;
          why = e.what();
        } catch (...) {
          code = ACL_ERROR_INTERNAL_ERROR;
          why = "unknown exception";
        }
      });
      worker.join();
      if (code != ACL_SUCCESS)
        throw asc::Error(static_cast<asc::ErrorCode>(code), "[aclmdlExecuteAsync] " + why);
    });
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset* dataset, size_t index, uint64_t batchSize) {
  static const char* kApi = "aclmdlSetDynamicBatchSize";
  return guarded(kApi, [&]() -> aclError {
    if (aclError e = check_lifecycle(kApi)) return e;
    aclError err = ACL_SUCCESS;
    auto m = find_model(kApi, modelId, &err);
    if (!m) return err;
    const mdl::ModelInfo& info = m->info;
    if (info.batch_gears.empty())
      return fail(kApi, ACL_ERROR_MODEL_NOT_DYNAMIC,
                  "model " + std::to_string(modelId) + " was not built with dynamic batch (pyasc-atc --dynamic_batch_size)");
    const size_t dyn = info.inputs.size() - 1;
    if (index != dyn)
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "index " + std::to_string(index) + " is not the dynamic input: " ACL_DYNAMIC_TENSOR_NAME " is input " +
                      std::to_string(dyn) + " (aclmdlGetInputIndexByName)");
    bool ok = false;
    std::string gears;
    for (uint64_t g : info.batch_gears) {
      ok = ok || g == batchSize;
      gears += (gears.empty() ? "" : ", ") + std::to_string(g);
    }
    if (!ok)
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "batch size " + std::to_string(batchSize) + " is not one of the model's gears [" + gears + "]");
    const int64_t v = static_cast<int64_t>(batchSize);
    return mdl::write_dataset_input(kApi, dataset, index, &v, sizeof v);
  });
}

}  // extern "C"

namespace asc::runtime::mdl {  // ------------------------------------ for acl_mdl_dynamic.cc

aclError loaded_model_info(const char* api, uint32_t model_id, std::shared_ptr<const ModelInfo>* out) {
  if (aclError e = check_lifecycle(api)) return e;
  aclError err = ACL_SUCCESS;
  auto m = find_model(api, model_id, &err);
  if (!m) return err;
  *out = std::shared_ptr<const ModelInfo>(m, &m->info);  // keeps the model alive, as the caller reads it
  return ACL_SUCCESS;
}

aclError desc_model_info(const char* api, const aclmdlDesc* desc, const ModelInfo** out) {
  aclError err = ACL_SUCCESS;
  return checked_desc(api, desc, &err) ? (*out = &desc->info, ACL_SUCCESS) : err;
}

aclError write_dataset_input(const char* api, aclmdlDataset* dataset, size_t index, const void* v, size_t n) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!dataset || !g_datasets.count(dataset))
    return fail(api, ACL_ERROR_INVALID_PARAM, "dataset is null, unknown or destroyed");
  if (index >= dataset->buffers.size())
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "the dataset has " + std::to_string(dataset->buffers.size()) + " buffers; add the " +
                    ACL_DYNAMIC_TENSOR_NAME " input's buffer (aclmdlGetInputSizeByIndex bytes) first");
  aclDataBuffer* b = dataset->buffers[index];
  if (!g_buffers.count(b)) return fail(api, ACL_ERROR_INVALID_PARAM, "the dynamic input's buffer was destroyed");
  if (!b->data || b->size < n)
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "the dynamic input's buffer holds " + std::to_string(b->size) + " bytes; it needs " + std::to_string(n));
  std::memcpy(b->data, v, n);
  return ACL_SUCCESS;
}

}  // namespace asc::runtime::mdl

// ------------------------------------------------------------------ dynamic AIPP
//
// The parameter set is kept as the exact bytes the model's Aipp node reads (layout mirrored by
// python/pyasc/models/_aipp.py DYN_HEADER / DYN_BATCH): aclmdlSetInputAIPP is then one check and
// one memcpy, and the Python side decodes it without a second description of the fields.

namespace {

struct AippHeader {
  char magic[4];
  uint32_t batch;
  int32_t input_format, src_w, src_h, csc, rbuv_swap, ax_swap;
  int32_t matrix[9], output_bias[3], input_bias[3];
  int32_t reserved;
};
struct AippBatch {
  int32_t crop, crop_x, crop_y, crop_w, crop_h;
  int32_t scf, scf_in_w, scf_in_h, scf_out_w, scf_out_h;
  int32_t pad, pad_top, pad_bottom, pad_left, pad_right;
  int32_t mean[4];
  float min[4], var_reci[4];
  int32_t reserved;
};
static_assert(sizeof(AippHeader) == 96, "mirrors _aipp.DYN_HEADER");
static_assert(sizeof(AippBatch) == 112, "mirrors _aipp.DYN_BATCH");
constexpr uint64_t kMaxAippBatch = 65536;  // aclmdlCreateAIPP's and aclmdlGetAippDataSize's upper bound
// numbers in a static-AIPP record (python/pyasc/models/_acl_mdl.static_aipp_record)
constexpr size_t kAippRecordLen = 40;

}  // namespace

struct aclmdlAIPP {
  AippHeader head{};
  std::vector<AippBatch> batches;
};

namespace {

std::unordered_set<const aclmdlAIPP*> g_aipps;  // guarded by g_mu

// Setters run under g_mu so that a concurrent aclmdlDestroyAIPP cannot free the set mid-write.
template <typename F>
aclError with_aipp(const char* api, const aclmdlAIPP* set, F&& body) {
  return guarded(api, [&]() -> aclError {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!set || !g_aipps.count(set))
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  set ? "aippParmsSet " + ptr_str(set) + " is unknown or destroyed" : std::string("aippParmsSet is null"));
    return body(const_cast<aclmdlAIPP*>(set));
  });
}

aclError check_switch(const char* api, const char* what, int8_t v) {
  if (v == 0 || v == 1) return ACL_SUCCESS;
  return fail(api, ACL_ERROR_INVALID_PARAM, std::string(what) + " " + std::to_string(v) + " must be 0 or 1");
}

aclError check_batch(const char* api, const aclmdlAIPP* set, uint64_t index) {
  if (index < set->batches.size()) return ACL_SUCCESS;
  return fail(api, ACL_ERROR_INVALID_PARAM,
              "batchIndex " + std::to_string(index) + " is out of range: the set was created for batch " +
                  std::to_string(set->batches.size()));
}

// Which inputs of a model form the dynamic AIPP pair: the image input and, directly after it, the
// parameter input (pyasc-atc puts it there). SIZE_MAX when the model has none.
size_t aipp_param_input(const mdl::ModelInfo& info) {
  for (size_t i = 1; i < info.inputs.size(); ++i)
    if (info.inputs[i].name == ACL_DYNAMIC_AIPP_NAME) return i;
  return SIZE_MAX;
}

aclError set_input_aipp(const char* api, uint32_t model_id, aclmdlDataset* dataset, size_t index, bool by_image,
                        const aclmdlAIPP* set) {
  return guarded(api, [&]() -> aclError {
    if (aclError e = check_lifecycle(api)) return e;
    aclError err = ACL_SUCCESS;
    auto m = find_model(api, model_id, &err);
    if (!m) return err;
    const mdl::ModelInfo& info = m->info;
    const size_t p = aipp_param_input(info);
    if (p == SIZE_MAX)
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  "model " + std::to_string(model_id) +
                      " has no dynamic AIPP input (pyasc-atc --insert_op_conf with aipp_mode : dynamic)");
    const size_t want = by_image ? p - 1 : p;
    if (index != want)
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  "index " + std::to_string(index) + " is not the model's " +
                      (by_image ? "dynamic AIPP image input: that is input " : ACL_DYNAMIC_AIPP_NAME " input: that is input ") +
                      std::to_string(want));
    const mdl::TensorInfo& img = info.inputs[p - 1];
    const int64_t model_batch = img.dims.size() == 2 ? img.dims[0] : -1;
    const int64_t cap = img.dims.size() == 2 ? img.dims[1] : -1;
    std::lock_guard<std::mutex> lock(g_mu);
    if (!set || !g_aipps.count(set))
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  set ? "aippParmsSet " + ptr_str(set) + " is unknown or destroyed" : std::string("aippParmsSet is null"));
    const AippHeader& h = set->head;
    if (static_cast<int64_t>(set->batches.size()) != model_batch)
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  "the set was created for batch " + std::to_string(set->batches.size()) + "; the model's batch is " +
                      std::to_string(model_batch));
    if (h.input_format == 0)
      return fail(api, ACL_ERROR_INVALID_PARAM, "the input format is not set (aclmdlSetAIPPInputFormat)");
    if (h.src_w <= 0 || h.src_h <= 0)
      return fail(api, ACL_ERROR_INVALID_PARAM, "the source image size is not set (aclmdlSetAIPPSrcImageSize)");
    const bool yuv = h.input_format == ACL_YUV420SP_U8;
    const int64_t bytes = yuv ? int64_t{h.src_w} * h.src_h * 3 / 2 : int64_t{h.src_w} * h.src_h * 3;
    if (yuv && (h.src_w % 2 || h.src_h % 2))
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  "ACL_YUV420SP_U8 needs an even source size, got " + std::to_string(h.src_w) + "x" +
                      std::to_string(h.src_h));
    if (bytes > cap)
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  "a " + std::to_string(h.src_w) + "x" + std::to_string(h.src_h) + " image is " +
                      std::to_string(bytes) + " bytes, more than the model's max_src_image_size " + std::to_string(cap));
    for (size_t i = 0; i < set->batches.size(); ++i) {
      const AippBatch& b = set->batches[i];
      if (!b.crop) continue;
      if (int64_t{b.crop_x} + b.crop_w > h.src_w || int64_t{b.crop_y} + b.crop_h > h.src_h)
        return fail(api, ACL_ERROR_INVALID_PARAM,
                    "batch " + std::to_string(i) + ": the crop window x " + std::to_string(b.crop_x) + ".." +
                        std::to_string(b.crop_x + b.crop_w) + ", y " + std::to_string(b.crop_y) + ".." +
                        std::to_string(b.crop_y + b.crop_h) + " is not inside the " + std::to_string(h.src_w) +
                        "x" + std::to_string(h.src_h) + " source image");
      if (yuv && (b.crop_x % 2 || b.crop_y % 2))
        return fail(api, ACL_ERROR_INVALID_PARAM,
                    "batch " + std::to_string(i) + ": ACL_YUV420SP_U8 crops start at even positions, got (" +
                        std::to_string(b.crop_x) + ", " + std::to_string(b.crop_y) + ")");
    }
    if (!dataset || !g_datasets.count(dataset))
      return fail(api, ACL_ERROR_INVALID_PARAM, "dataset is null, unknown or destroyed");
    if (p >= dataset->buffers.size())
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  "the dataset has " + std::to_string(dataset->buffers.size()) + " buffers; add the " +
                      ACL_DYNAMIC_AIPP_NAME " input's buffer (aclmdlGetInputSizeByIndex bytes) first");
    aclDataBuffer* buf = dataset->buffers[p];
    if (!g_buffers.count(buf)) return fail(api, ACL_ERROR_INVALID_PARAM, "the dynamic AIPP input's buffer was destroyed");
    const size_t need = sizeof(AippHeader) + set->batches.size() * sizeof(AippBatch);
    if (!buf->data || buf->size < need)
      return fail(api, ACL_ERROR_INVALID_PARAM,
                  "the " ACL_DYNAMIC_AIPP_NAME " buffer holds " + std::to_string(buf->size) + " bytes; it needs " +
                      std::to_string(need));
    auto* out = static_cast<unsigned char*>(buf->data);
    std::memcpy(out, &h, sizeof h);
    std::memcpy(out + sizeof h, set->batches.data(), set->batches.size() * sizeof(AippBatch));
    return ACL_SUCCESS;
  });
}

}  // namespace

extern "C" {

aclmdlAIPP* aclmdlCreateAIPP(uint64_t batchSize) {
  return value_or<aclmdlAIPP*>(nullptr, [&]() -> aclmdlAIPP* {
    if (batchSize == 0 || batchSize > kMaxAippBatch) {
      fail("aclmdlCreateAIPP", ACL_ERROR_INVALID_PARAM,
           "batchSize " + std::to_string(batchSize) + " must be in 1..65536");
      return nullptr;
    }
    auto set = std::make_unique<aclmdlAIPP>();
    std::memcpy(set->head.magic, "AIPP", 4);
    set->head.batch = static_cast<uint32_t>(batchSize);
    AippBatch b{};
    for (float& v : b.var_reci) v = 1.0f;
    set->batches.assign(batchSize, b);
    std::lock_guard<std::mutex> lock(g_mu);
    g_aipps.insert(set.get());
    return set.release();
  });
}

aclError aclmdlDestroyAIPP(const aclmdlAIPP* aippParmsSet) {
  return with_aipp("aclmdlDestroyAIPP", aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    g_aipps.erase(set);
    delete set;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP* aippParmsSet, int32_t srcImageSizeW, int32_t srcImageSizeH) {
  static const char* kApi = "aclmdlSetAIPPSrcImageSize";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (srcImageSizeW <= 0 || srcImageSizeH <= 0)
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "srcImageSizeW " + std::to_string(srcImageSizeW) + ", srcImageSizeH " + std::to_string(srcImageSizeH) +
                      ": both must be > 0");
    set->head.src_w = srcImageSizeW;
    set->head.src_h = srcImageSizeH;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPInputFormat(aclmdlAIPP* aippParmsSet, aclAippInputFormat inputFormat) {
  static const char* kApi = "aclmdlSetAIPPInputFormat";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    const int f = static_cast<int>(inputFormat);
    if (f == ACL_YUV420SP_U8 || f == ACL_RGB888_U8) {
      set->head.input_format = f;
      return ACL_SUCCESS;
    }
    if (f >= ACL_YUV420SP_U8 && f <= ACL_RAW24)
      return fail(kApi, ACL_ERROR_FEATURE_UNSUPPORTED,
                  "inputFormat " + std::to_string(f) + " is not supported: ACL_YUV420SP_U8 (1) and ACL_RGB888_U8 (3) are");
    return fail(kApi, ACL_ERROR_INVALID_PARAM, "inputFormat " + std::to_string(f) + " is not an aclAippInputFormat");
  });
}

aclError aclmdlSetAIPPCscParams(aclmdlAIPP* aippParmsSet, int8_t cscSwitch, int16_t cscMatrixR0C0,
                                int16_t cscMatrixR0C1, int16_t cscMatrixR0C2, int16_t cscMatrixR1C0,
                                int16_t cscMatrixR1C1, int16_t cscMatrixR1C2, int16_t cscMatrixR2C0,
                                int16_t cscMatrixR2C1, int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0,
                                uint8_t cscOutputBiasR1, uint8_t cscOutputBiasR2, uint8_t cscInputBiasR0,
                                uint8_t cscInputBiasR1, uint8_t cscInputBiasR2) {
  static const char* kApi = "aclmdlSetAIPPCscParams";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (aclError e = check_switch(kApi, "cscSwitch", cscSwitch)) return e;
    const int16_t m[9] = {cscMatrixR0C0, cscMatrixR0C1, cscMatrixR0C2, cscMatrixR1C0, cscMatrixR1C1,
                          cscMatrixR1C2, cscMatrixR2C0, cscMatrixR2C1, cscMatrixR2C2};
    AippHeader& h = set->head;
    h.csc = cscSwitch;
    for (int i = 0; i < 9; ++i) h.matrix[i] = m[i];
    h.output_bias[0] = cscOutputBiasR0;
    h.output_bias[1] = cscOutputBiasR1;
    h.output_bias[2] = cscOutputBiasR2;
    h.input_bias[0] = cscInputBiasR0;
    h.input_bias[1] = cscInputBiasR1;
    h.input_bias[2] = cscInputBiasR2;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP* aippParmsSet, int8_t rbuvSwapSwitch) {
  static const char* kApi = "aclmdlSetAIPPRbuvSwapSwitch";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (aclError e = check_switch(kApi, "rbuvSwapSwitch", rbuvSwapSwitch)) return e;
    set->head.rbuv_swap = rbuvSwapSwitch;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP* aippParmsSet, int8_t axSwapSwitch) {
  static const char* kApi = "aclmdlSetAIPPAxSwapSwitch";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (aclError e = check_switch(kApi, "axSwapSwitch", axSwapSwitch)) return e;
    if (axSwapSwitch)
      return fail(kApi, ACL_ERROR_FEATURE_UNSUPPORTED,
                  "axSwapSwitch 1 (the ARGB/XRGB alpha swap) is not supported: the supported formats have no alpha");
    set->head.ax_swap = 0;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPScfParams(aclmdlAIPP* aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW,
                                int32_t scfInputSizeH, int32_t scfOutputSizeW, int32_t scfOutputSizeH,
                                uint64_t batchIndex) {
  static const char* kApi = "aclmdlSetAIPPScfParams";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (aclError e = check_switch(kApi, "scfSwitch", scfSwitch)) return e;
    if (aclError e = check_batch(kApi, set, batchIndex)) return e;
    if (scfSwitch)
      return fail(kApi, ACL_ERROR_FEATURE_UNSUPPORTED,
                  "scfSwitch 1 (resize " + std::to_string(scfInputSizeW) + "x" + std::to_string(scfInputSizeH) +
                      " -> " + std::to_string(scfOutputSizeW) + "x" + std::to_string(scfOutputSizeH) +
                      ") is not supported");
    AippBatch& b = set->batches[batchIndex];
    b.scf = 0;
    b.scf_in_w = scfInputSizeW;
    b.scf_in_h = scfInputSizeH;
    b.scf_out_w = scfOutputSizeW;
    b.scf_out_h = scfOutputSizeH;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPCropParams(aclmdlAIPP* aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW,
                                 int32_t cropStartPosH, int32_t cropSizeW, int32_t cropSizeH, uint64_t batchIndex) {
  static const char* kApi = "aclmdlSetAIPPCropParams";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (aclError e = check_switch(kApi, "cropSwitch", cropSwitch)) return e;
    if (aclError e = check_batch(kApi, set, batchIndex)) return e;
    // CANN's documented ranges: start [0, 4095], size [1, 4096]
    if (cropSwitch && (cropStartPosW < 0 || cropStartPosH < 0 || cropStartPosW > 4095 || cropStartPosH > 4095 ||
                       cropSizeW < 1 || cropSizeH < 1 || cropSizeW > 4096 || cropSizeH > 4096))
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "crop start (" + std::to_string(cropStartPosW) + ", " + std::to_string(cropStartPosH) + ") size " +
                      std::to_string(cropSizeW) + "x" + std::to_string(cropSizeH) +
                      ": the start must be in [0, 4095] and the size in [1, 4096]");
    // the window against the source image is checked by aclmdlSetInputAIPP (the size may be set later)
    AippBatch& b = set->batches[batchIndex];
    b.crop = cropSwitch;
    b.crop_x = cropStartPosW;
    b.crop_y = cropStartPosH;
    b.crop_w = cropSizeW;
    b.crop_h = cropSizeH;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPPaddingParams(aclmdlAIPP* aippParmsSet, int8_t paddingSwitch, int32_t paddingSizeTop,
                                    int32_t paddingSizeBottom, int32_t paddingSizeLeft, int32_t paddingSizeRight,
                                    uint64_t batchIndex) {
  static const char* kApi = "aclmdlSetAIPPPaddingParams";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (aclError e = check_switch(kApi, "paddingSwitch", paddingSwitch)) return e;
    if (aclError e = check_batch(kApi, set, batchIndex)) return e;
    auto bad = [](int32_t v) { return v < 0 || v > 32; };  // CANN's documented range [0, 32]
    if (paddingSwitch && (bad(paddingSizeTop) || bad(paddingSizeBottom) || bad(paddingSizeLeft) || bad(paddingSizeRight)))
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "padding top " + std::to_string(paddingSizeTop) + ", bottom " + std::to_string(paddingSizeBottom) +
                      ", left " + std::to_string(paddingSizeLeft) + ", right " + std::to_string(paddingSizeRight) +
                      ": each must be in [0, 32]");
    AippBatch& b = set->batches[batchIndex];
    b.pad = paddingSwitch;
    b.pad_top = paddingSizeTop;
    b.pad_bottom = paddingSizeBottom;
    b.pad_left = paddingSizeLeft;
    b.pad_right = paddingSizeRight;
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP* aippParmsSet, int16_t dtcPixelMeanChn0, int16_t dtcPixelMeanChn1,
                                   int16_t dtcPixelMeanChn2, int16_t dtcPixelMeanChn3, uint64_t batchIndex) {
  static const char* kApi = "aclmdlSetAIPPDtcPixelMean";
  return with_aipp(kApi, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (aclError e = check_batch(kApi, set, batchIndex)) return e;
    AippBatch& b = set->batches[batchIndex];
    b.mean[0] = dtcPixelMeanChn0;
    b.mean[1] = dtcPixelMeanChn1;
    b.mean[2] = dtcPixelMeanChn2;
    b.mean[3] = dtcPixelMeanChn3;
    return ACL_SUCCESS;
  });
}

static aclError set_floats(const char* api, aclmdlAIPP* aippParmsSet, float* (*field)(AippBatch&), const float v[4],
                           uint64_t batchIndex) {
  return with_aipp(api, aippParmsSet, [&](aclmdlAIPP* set) -> aclError {
    if (aclError e = check_batch(api, set, batchIndex)) return e;
    for (int i = 0; i < 4; ++i)
      if (!std::isfinite(v[i]))
        return fail(api, ACL_ERROR_INVALID_PARAM, "channel " + std::to_string(i) + " value is not finite");
    std::memcpy(field(set->batches[batchIndex]), v, 4 * sizeof(float));
    return ACL_SUCCESS;
  });
}

aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP* aippParmsSet, float dtcPixelMinChn0, float dtcPixelMinChn1,
                                  float dtcPixelMinChn2, float dtcPixelMinChn3, uint64_t batchIndex) {
  const float v[4] = {dtcPixelMinChn0, dtcPixelMinChn1, dtcPixelMinChn2, dtcPixelMinChn3};
  return set_floats("aclmdlSetAIPPDtcPixelMin", aippParmsSet, [](AippBatch& b) -> float* { return b.min; }, v,
                    batchIndex);
}

aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP* aippParmsSet, float dtcPixelVarReciChn0, float dtcPixelVarReciChn1,
                                   float dtcPixelVarReciChn2, float dtcPixelVarReciChn3, uint64_t batchIndex) {
  const float v[4] = {dtcPixelVarReciChn0, dtcPixelVarReciChn1, dtcPixelVarReciChn2, dtcPixelVarReciChn3};
  return set_floats("aclmdlSetAIPPPixelVarReci", aippParmsSet, [](AippBatch& b) -> float* { return b.var_reci; }, v,
                    batchIndex);
}

aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset* dataset, size_t index, const aclmdlAIPP* aippParmsSet) {
  return set_input_aipp("aclmdlSetInputAIPP", modelId, dataset, index, false, aippParmsSet);
}

aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset* dataset, size_t index,
                                   const aclmdlAIPP* aippParmsSet) {
  return set_input_aipp("aclmdlSetAIPPByInputIndex", modelId, dataset, index, true, aippParmsSet);
}

aclError aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType* type,
                           size_t* dynamicAttachedDataIndex) {
  static const char* kApi = "aclmdlGetAippType";
  return guarded(kApi, [&]() -> aclError {
    if (!type || !dynamicAttachedDataIndex)
      return fail(kApi, ACL_ERROR_INVALID_PARAM, "type or dynamicAttachedDataIndex is null");
    aclError err = ACL_SUCCESS;
    auto m = find_model(kApi, modelId, &err);
    if (!m) return err;
    const mdl::ModelInfo& info = m->info;
    if (index >= info.inputs.size())
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "index " + std::to_string(index) + " is out of range: the model has " +
                      std::to_string(info.inputs.size()) + " inputs");
    const size_t p = aipp_param_input(info);
    *dynamicAttachedDataIndex = SIZE_MAX;
    *type = ACL_DATA_WITHOUT_AIPP;
    if (!info.inputs[index].static_aipp.empty()) {
      *type = ACL_DATA_WITH_STATIC_AIPP;
    } else if (p != SIZE_MAX && index == p) {
      *type = ACL_DYNAMIC_AIPP_NODE;
    } else if (p != SIZE_MAX && index + 1 == p) {
      *type = ACL_DATA_WITH_DYNAMIC_AIPP;
      *dynamicAttachedDataIndex = p;
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetAippDataSize(uint64_t batchSize, size_t* size) {
  static const char* kApi = "aclmdlGetAippDataSize";
  return guarded(kApi, [&]() -> aclError {
    if (!size) return fail(kApi, ACL_ERROR_INVALID_PARAM, "size is null");
    if (batchSize == 0 || batchSize > kMaxAippBatch)
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "batchSize " + std::to_string(batchSize) + " must be in [1, " + std::to_string(kMaxAippBatch) + "]");
    *size = sizeof(AippHeader) + static_cast<size_t>(batchSize) * sizeof(AippBatch);
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo* aippInfo) {
  static const char* kApi = "aclmdlGetFirstAippInfo";
  return guarded(kApi, [&]() -> aclError {
    if (!aippInfo) return fail(kApi, ACL_ERROR_INVALID_PARAM, "aippInfo is null");
    aclError err = ACL_SUCCESS;
    auto m = find_model(kApi, modelId, &err);
    if (!m) return err;
    const mdl::ModelInfo& info = m->info;
    if (index >= info.inputs.size())
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "index " + std::to_string(index) + " is out of range: the model has " +
                      std::to_string(info.inputs.size()) + " inputs");
    const mdl::TensorInfo& t = info.inputs[index];
    const std::vector<double>& r = t.static_aipp;
    if (r.size() != kAippRecordLen)
      return fail(kApi, ACL_ERROR_GE_AIPP_NOT_EXIST,
                  "input " + std::to_string(index) + " ('" + t.name + "') has no static AIPP" +
                      (aipp_param_input(info) == index + 1 ? " (its AIPP is dynamic: parameters come per run)" : ""));
    aclAippInfo a;
    std::memset(&a, 0, sizeof a);
    auto i32 = [&](size_t k) { return static_cast<int32_t>(r[k]); };
    auto i8 = [&](size_t k) { return static_cast<int8_t>(r[k]); };
    a.inputFormat = static_cast<aclAippInputFormat>(i32(0));
    a.srcImageSizeW = i32(1);
    a.srcImageSizeH = i32(2);
    a.cropSwitch = i8(3);
    a.loadStartPosW = i32(4);
    a.loadStartPosH = i32(5);
    a.cropSizeW = i32(6);
    a.cropSizeH = i32(7);
    a.cscSwitch = i8(8);
    a.rbuvSwapSwitch = i8(9);
    a.axSwapSwitch = i8(10);
    a.singleLineMode = i8(11);
    int32_t* matrix[9] = {&a.matrixR0C0, &a.matrixR0C1, &a.matrixR0C2, &a.matrixR1C0, &a.matrixR1C1,
                          &a.matrixR1C2, &a.matrixR2C0, &a.matrixR2C1, &a.matrixR2C2};
    for (size_t k = 0; k < 9; ++k) *matrix[k] = i32(12 + k);
    int32_t* bias[6] = {&a.outputBias0, &a.outputBias1, &a.outputBias2, &a.inputBias0, &a.inputBias1, &a.inputBias2};
    for (size_t k = 0; k < 6; ++k) *bias[k] = i32(21 + k);
    int32_t* mean[4] = {&a.meanChn0, &a.meanChn1, &a.meanChn2, &a.meanChn3};
    float* mn[4] = {&a.minChn0, &a.minChn1, &a.minChn2, &a.minChn3};
    float* var[4] = {&a.varReciChn0, &a.varReciChn1, &a.varReciChn2, &a.varReciChn3};
    for (size_t k = 0; k < 4; ++k) {
      *mean[k] = i32(27 + k);
      *mn[k] = static_cast<float>(r[31 + k]);
      *var[k] = static_cast<float>(r[35 + k]);
    }
    a.srcFormat = ACL_FORMAT_NCHW;
    a.srcDatatype = static_cast<aclDataType>(i32(39));
    a.srcDimNum = 4;
    // one entry per dynamic-batch gear (the batch axis is 0 for an AIPP input), else the model's batch
    std::vector<int64_t> batches;
    if (!info.batch_gears.empty() && t.batch_axis == 0) {
      for (uint64_t g : info.batch_gears) batches.push_back(static_cast<int64_t>(g));
    } else {
      batches.push_back(t.dims.empty() ? -1 : t.dims[0]);
    }
    const size_t out_item = a.srcDatatype == ACL_FLOAT16 ? 2 : 4;
    a.shapeCount = std::min<size_t>(batches.size(), ACL_MAX_SHAPE_COUNT);
    for (size_t g = 0; g < a.shapeCount; ++g) {
      aclAippDims& d = a.outDims[g];
      const int64_t n = batches[g];
      std::snprintf(d.srcDims.name, sizeof d.srcDims.name, "%s", t.name.c_str());
      d.srcDims.dimCount = std::min<size_t>(t.dims.size(), ACL_MAX_DIM_CNT);
      int64_t src_elems = 1;
      for (size_t k = 0; k < d.srcDims.dimCount; ++k) {
        d.srcDims.dims[k] = k == 0 ? n : t.dims[k];
        src_elems *= d.srcDims.dims[k];
      }
      d.srcSize = n > 0 && src_elems > 0 ? static_cast<size_t>(src_elems) : 0;  // uint8 image bytes
      std::snprintf(d.aippOutdims.name, sizeof d.aippOutdims.name, "%s", t.name.c_str());
      d.aippOutdims.dimCount = 4;
      d.aippOutdims.dims[0] = n;
      d.aippOutdims.dims[1] = 3;
      d.aippOutdims.dims[2] = a.cropSizeH;
      d.aippOutdims.dims[3] = a.cropSizeW;
      d.aippOutSize = n > 0 ? static_cast<size_t>(n) * 3 * a.cropSizeH * a.cropSizeW * out_item : 0;
    }
    a.aippExtend = nullptr;
    *aippInfo = a;
    return ACL_SUCCESS;
  });
}

}  // extern "C"
