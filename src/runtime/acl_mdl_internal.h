// The interface between the ACL model API in libasc (acl_mdl.cc) and its Python bridge
// (src/acl_mdl_python/bridge.cc -> libasc_mdl_python.so), which runs models on pyasc's Python
// InferenceSession. Both sides are built from this tree by the same compiler, so C++ types
// cross it; kBridgeAbi changes whenever this file does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace asc::runtime {

// Defined in acl.cc: aclFinalize called and no aclInit since; aclFinalize calls so far.
void acl_lifecycle(bool* finalized, uint64_t* finalize_count) noexcept;

namespace mdl {

constexpr int kBridgeAbi = 2;

enum DynKind { kDynNone = 0, kDynHW = 1, kDynDims = 2 };

struct TensorInfo {
  std::string name;
  std::vector<int64_t> dims;  // -1: dynamic batch / symbolic
  int dtype = -1;             // aclDataType
  int format = -1;            // aclFormat
  size_t size = 0;            // bytes (largest gear)
  size_t batch_axis = SIZE_MAX;  // the dynamic-batch axis (SIZE_MAX: none)
  size_t sample_bytes = 0;    // bytes per batch entry when batch_axis is set
  // a static-AIPP input: its configuration as python/pyasc/models/_acl_mdl.static_aipp_record
  // lays it out (acl_mdl.cc kAipp* indices); empty for every other tensor
  std::vector<double> static_aipp;
};

struct ModelInfo {
  std::vector<TensorInfo> inputs;    // for dynamic batch, the last is ACL_DYNAMIC_TENSOR_NAME
  std::vector<TensorInfo> outputs;
  std::vector<uint64_t> batch_gears; // empty: not a dynamic-batch model
  // Dynamic image size (pyasc-atc --dynamic_image_size) or dims (--dynamic_dims): the last input is
  // ACL_DYNAMIC_TENSOR_NAME, holding the chosen gear's values as int64 (HW: h, w; dims: one value
  // per -1 of --input_shape), written by aclmdlSetDynamicHWSize / aclmdlSetInputDynamicDims.
  int dyn_kind = kDynNone;
  std::vector<std::vector<int64_t>> gears;      // in the order pyasc-atc was given them
  std::vector<std::vector<int64_t>> gear_dims;  // per gear: every data input's dims, concatenated
  size_t work_size = 0;
  size_t weight_size = 0;
};

struct Buffer {
  void* data = nullptr;
  size_t size = 0;
};

// Every function returns an aclError; on failure *err holds the reason. They take the Python
// interpreter's lock themselves and may be called from any thread.
struct Bridge {
  int abi;
  // path or (data, size); id is the model id libasc chose.
  int (*load)(const char* path, const void* data, size_t size, uint32_t id, ModelInfo* info, std::string* err);
  int (*query_size)(const char* path, const void* data, size_t size, size_t* work, size_t* weight,
                    std::string* err);
  // inputs exclude the dynamic-batch input; batch 0 = static. out_dims receives the outputs' dims.
  int (*execute)(uint32_t id, const Buffer* inputs, size_t n_inputs, const Buffer* outputs, size_t n_outputs,
                 uint64_t batch, std::vector<std::vector<int64_t>>* out_dims, std::string* err);
  int (*unload)(uint32_t id, std::string* err);
};

}  // namespace mdl
}  // namespace asc::runtime

// Exported by libasc_mdl_python.so.
extern "C" const asc::runtime::mdl::Bridge* asc_mdl_python_bridge(void);
