// Between acl_mdl.cc (registries, execution) and acl_mdl_dynamic.cc (the dynamic image size /
// dynamic dims calls): the few registry accesses the latter needs, and the gear check that
// aclmdlExecute runs on the ACL_DYNAMIC_TENSOR_NAME buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "runtime/acl_mdl_internal.h"

namespace asc::runtime::mdl {

// acl_mdl.cc: the loaded model's description (checks the ACL lifecycle and the id).
aclError loaded_model_info(const char* api, uint32_t model_id, std::shared_ptr<const ModelInfo>* out);
// acl_mdl.cc: a description filled by aclmdlGetDesc (checks the handle).
aclError desc_model_info(const char* api, const aclmdlDesc* desc, const ModelInfo** out);
// acl_mdl.cc: copies `n` bytes into the data buffer at `index` of a live dataset (the dynamic
// input's buffer).
aclError write_dataset_input(const char* api, aclmdlDataset* dataset, size_t index, const void* v, size_t n);

// acl_mdl_dynamic.cc: reads the gear from the dynamic input's buffer (aclmdlExecute); on success
// (*dims)[i] holds data input i's dims at that gear.
aclError select_gear(const char* api, const ModelInfo& info, const void* data, size_t size,
                     std::vector<std::vector<int64_t>>* dims);
// bytes of a tensor of `t`'s data type with `dims`
size_t gear_bytes(const TensorInfo& t, const std::vector<int64_t>& dims);

}  // namespace asc::runtime::mdl
