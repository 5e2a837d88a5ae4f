// The ACL model API's dynamic image size and dynamic dims calls (include/acl/acl_mdl.h):
// aclmdlSetDynamicHWSize / aclmdlGetDynamicHW for models converted with pyasc-atc
// --dynamic_image_size, aclmdlSetInputDynamicDims / aclmdlGetInputDynamicGearCount /
// aclmdlGetInputDynamicDims for --dynamic_dims, and the gear check of aclmdlExecute.
//
// As in CANN, such a model has one more input, ACL_DYNAMIC_TENSOR_NAME (aclmdlGetInputIndexByName),
// and the Set calls write the chosen gear into that input's buffer in the dataset: the dataset, not
// the model, carries the gear, so concurrent executions at different gears do not interfere. The
// buffer holds the gear's values as int64 (h, w; or one value per -1 of --input_shape); aclmdlExecute
// checks them against the model's gears and runs every input at that gear's dims.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl_errors.h"
#include "runtime/acl_mdl_dynamic.h"

namespace mdl = asc::runtime::mdl;
using asc::runtime::acl_detail::fail;
using asc::runtime::acl_detail::guarded;

namespace {

const char* option_of(int kind) {
  return kind == mdl::kDynHW ? "pyasc-atc --dynamic_image_size" : "pyasc-atc --dynamic_dims";
}

std::string join(const std::vector<int64_t>& v, const char* sep = ",") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}

std::string gear_list(const mdl::ModelInfo& info) {
  std::string s;
  for (const auto& g : info.gears) s += (s.empty() ? "[" : "; ") + join(g);
  return s.empty() ? "[]" : s + "]";
}

// The model (by id) must have been built with `kind`; `index` must be its dynamic input.
aclError dynamic_model(const char* api, uint32_t model_id, size_t index, int kind,
                       std::shared_ptr<const mdl::ModelInfo>* info) {
  if (aclError e = mdl::loaded_model_info(api, model_id, info)) return e;
  const mdl::ModelInfo& m = **info;
  if (m.dyn_kind != kind)
    return fail(api, ACL_ERROR_MODEL_NOT_DYNAMIC,
                "model " + std::to_string(model_id) + " was not built with " +
                    (kind == mdl::kDynHW ? "dynamic image size" : "dynamic dims") + " (" + option_of(kind) + ")");
  const size_t dyn = m.inputs.size() - 1;
  if (index != dyn)
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "index " + std::to_string(index) + " is not the dynamic input: " ACL_DYNAMIC_TENSOR_NAME " is input " +
                    std::to_string(dyn) + " (aclmdlGetInputIndexByName)");
  return ACL_SUCCESS;
}

// Writes gear `g` of the model into the dataset's dynamic input.
aclError write_gear(const char* api, aclmdlDataset* dataset, size_t index, const std::vector<int64_t>& g) {
  return mdl::write_dataset_input(api, dataset, index, g.data(), g.size() * sizeof(int64_t));
}

// A description of a model built with `kind` (other models: *none = true, as the SDK reports 0
// gears); `index` is reserved: -1 (or the dynamic input's index).
aclError dynamic_desc(const char* api, const aclmdlDesc* desc, size_t index, int kind, const mdl::ModelInfo** info,
                      bool* none) {
  if (aclError e = mdl::desc_model_info(api, desc, info)) return e;
  *none = (*info)->dyn_kind != kind;
  if (index != static_cast<size_t>(-1) && (*none || index != (*info)->inputs.size() - 1))
    return fail(api, ACL_ERROR_INVALID_PARAM,
                "index " + std::to_string(index) + " is reserved: pass -1" +
                    (*none ? std::string() : " (or " + std::to_string((*info)->inputs.size() - 1) + ", the " +
                                                 ACL_DYNAMIC_TENSOR_NAME " input)"));
  return ACL_SUCCESS;
}

}  // namespace

namespace asc::runtime::mdl {

size_t gear_bytes(const TensorInfo& t, const std::vector<int64_t>& dims) {
  size_t n = aclDataTypeSize(static_cast<aclDataType>(t.dtype));
  for (int64_t d : dims) n *= d > 0 ? static_cast<size_t>(d) : 0;
  return n;
}

aclError select_gear(const char* api, const ModelInfo& info, const void* data, size_t size,
                     std::vector<std::vector<int64_t>>* dims) {
  const size_t width = info.gears.empty() ? 0 : info.gears[0].size();
  const size_t dyn = info.inputs.size() - 1;
  if (!data || size < width * sizeof(int64_t))
    return fail(api, ACL_ERROR_MODEL_INPUT_NOT_MATCH,
                "input " + std::to_string(dyn) + " (" ACL_DYNAMIC_TENSOR_NAME ") needs a buffer of " +
                    std::to_string(width * sizeof(int64_t)) + " bytes; got " + std::to_string(size));
  std::vector<int64_t> v(width);
  if (width) std::memcpy(v.data(), data, width * sizeof(int64_t));
  size_t k = 0;
  while (k < info.gears.size() && info.gears[k] != v) ++k;
  if (k == info.gears.size())
    return fail(api, ACL_ERROR_MODEL_INPUT_NOT_MATCH,
                "the gear in input " + std::to_string(dyn) + " is (" + join(v) + "), not one of the model's " +
                    gear_list(info) + ": call " +
                    (info.dyn_kind == kDynHW ? "aclmdlSetDynamicHWSize" : "aclmdlSetInputDynamicDims") +
                    " on the input dataset");
  // split the gear's concatenated dims by the data inputs' ranks
  const std::vector<int64_t>& all = info.gear_dims[k];
  size_t at = 0;
  dims->clear();
  for (size_t i = 0; i < dyn; ++i) {
    const size_t rank = info.inputs[i].dims.size();
    if (at + rank > all.size())
      return fail(api, ACL_ERROR_INTERNAL_ERROR, "the model's gear dims do not cover input " + std::to_string(i));
    dims->emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + rank));
    at += rank;
  }
  return ACL_SUCCESS;
}

}  // namespace asc::runtime::mdl

extern "C" {

aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset* dataset, size_t index, uint64_t height,
                                uint64_t width) {
  static const char* kApi = "aclmdlSetDynamicHWSize";
  return guarded(kApi, [&]() -> aclError {
    std::shared_ptr<const mdl::ModelInfo> info;
    if (aclError e = dynamic_model(kApi, modelId, index, mdl::kDynHW, &info)) return e;
    const std::vector<int64_t> g = {static_cast<int64_t>(height), static_cast<int64_t>(width)};
    for (const auto& have : info->gears)
      if (have == g) return write_gear(kApi, dataset, index, g);
    return fail(kApi, ACL_ERROR_INVALID_PARAM,
                "height, width " + join(g) + " is not one of the model's image sizes " + gear_list(*info));
  });
}

aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset* dataset, size_t index, const aclmdlIODims* dims) {
  static const char* kApi = "aclmdlSetInputDynamicDims";
  return guarded(kApi, [&]() -> aclError {
    std::shared_ptr<const mdl::ModelInfo> info;
    if (aclError e = dynamic_model(kApi, modelId, index, mdl::kDynDims, &info)) return e;
    if (!dims) return fail(kApi, ACL_ERROR_INVALID_PARAM, "dims is null");
    if (dims->dimCount > ACL_MAX_DIM_CNT)
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "dimCount " + std::to_string(dims->dimCount) + " exceeds ACL_MAX_DIM_CNT (128)");
    // As aclmdlGetInputDynamicDims reports them: every data input's dims, concatenated (name unused).
    const std::vector<int64_t> want(dims->dims, dims->dims + dims->dimCount);
    std::string have;
    for (size_t k = 0; k < info->gears.size(); ++k) {
      if (info->gear_dims[k] == want) return write_gear(kApi, dataset, index, info->gears[k]);
      have += (have.empty() ? "" : "; ") + join(info->gear_dims[k]);
    }
    return fail(kApi, ACL_ERROR_INVALID_PARAM,
                "dims (" + join(want) + ") are not one of the model's gears (every input's dims concatenated: " +
                    have + ")");
  });
}

aclError aclmdlGetDynamicHW(const aclmdlDesc* modelDesc, size_t index, aclmdlHW* dynamicHW) {
  static const char* kApi = "aclmdlGetDynamicHW";
  return guarded(kApi, [&]() -> aclError {
    const mdl::ModelInfo* info = nullptr;
    bool none = false;
    if (aclError e = dynamic_desc(kApi, modelDesc, index, mdl::kDynHW, &info, &none)) return e;
    if (!dynamicHW) return fail(kApi, ACL_ERROR_INVALID_PARAM, "dynamicHW is null");
    const size_t n = none ? 0 : info->gears.size();
    if (n > ACL_MAX_HW_NUM) return fail(kApi, ACL_ERROR_INVALID_PARAM, "more than ACL_MAX_HW_NUM image sizes");
    dynamicHW->hwCount = n;
    for (size_t i = 0; i < n; ++i) {
      dynamicHW->hw[i][0] = static_cast<uint64_t>(info->gears[i][0]);
      dynamicHW->hw[i][1] = static_cast<uint64_t>(info->gears[i][1]);
    }
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc* modelDesc, size_t index, size_t* gearCount) {
  static const char* kApi = "aclmdlGetInputDynamicGearCount";
  return guarded(kApi, [&]() -> aclError {
    const mdl::ModelInfo* info = nullptr;
    bool none = false;
    if (aclError e = dynamic_desc(kApi, modelDesc, index, mdl::kDynDims, &info, &none)) return e;
    if (!gearCount) return fail(kApi, ACL_ERROR_INVALID_PARAM, "gearCount is null");
    *gearCount = none ? 0 : info->gears.size();
    return ACL_SUCCESS;
  });
}

aclError aclmdlGetInputDynamicDims(const aclmdlDesc* modelDesc, size_t index, aclmdlIODims* dims, size_t gearCount) {
  static const char* kApi = "aclmdlGetInputDynamicDims";
  return guarded(kApi, [&]() -> aclError {
    const mdl::ModelInfo* info = nullptr;
    bool none = false;
    if (aclError e = dynamic_desc(kApi, modelDesc, index, mdl::kDynDims, &info, &none)) return e;
    if (none)
      return fail(kApi, ACL_ERROR_MODEL_NOT_DYNAMIC,
                  "the model was not built with dynamic dims (pyasc-atc --dynamic_dims)");
    if (!dims) return fail(kApi, ACL_ERROR_INVALID_PARAM, "dims is null");
    if (gearCount != info->gears.size())
      return fail(kApi, ACL_ERROR_INVALID_PARAM,
                  "gearCount is " + std::to_string(gearCount) + "; the model has " + std::to_string(info->gears.size()) +
                      " gears (aclmdlGetInputDynamicGearCount)");
    for (size_t k = 0; k < gearCount; ++k) {
      const auto& all = info->gear_dims[k];
      if (all.size() > ACL_MAX_DIM_CNT)
        return fail(kApi, ACL_ERROR_INVALID_PARAM, "the inputs have more than ACL_MAX_DIM_CNT dims together");
      std::memset(dims[k].name, 0, sizeof dims[k].name);  // reserved in the SDK
      dims[k].dimCount = all.size();
      for (size_t i = 0; i < all.size(); ++i) dims[k].dims[i] = all[i];
    }
    return ACL_SUCCESS;
  });
}

}  // extern "C"
