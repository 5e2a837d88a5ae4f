#include "asc/core/status.h"

#include <new>
#include <stdexcept>

namespace asc {

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kSuccess: return "ACL_SUCCESS";
    case ErrorCode::kInvalidParam: return "ACL_ERROR_INVALID_PARAM";
    case ErrorCode::kUninitialize: return "ACL_ERROR_UNINITIALIZE";
    case ErrorCode::kRepeatInitialize: return "ACL_ERROR_REPEAT_INITIALIZE";
    case ErrorCode::kInvalidFile: return "ACL_ERROR_INVALID_FILE";
    case ErrorCode::kInvalidDtype: return "ASC_ERROR_INVALID_DTYPE";
    case ErrorCode::kIndexOutOfRange: return "ASC_ERROR_INDEX_OUT_OF_RANGE";
    case ErrorCode::kInvalidShape: return "ASC_ERROR_INVALID_SHAPE";
    case ErrorCode::kLinAlgError: return "ASC_ERROR_LINALG";
    case ErrorCode::kOverflow: return "ASC_ERROR_OVERFLOW";
    case ErrorCode::kBadAlloc: return "ACL_ERROR_BAD_ALLOC";
    case ErrorCode::kApiNotSupport: return "ACL_ERROR_API_NOT_SUPPORT";
    case ErrorCode::kInvalidDevice: return "ACL_ERROR_INVALID_DEVICE";
    case ErrorCode::kMemoryAddressUnaligned: return "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED";
    case ErrorCode::kInvalidResourceHandle: return "ACL_ERROR_INVALID_RESOURCE_HANDLE";
    case ErrorCode::kFeatureUnsupported: return "ACL_ERROR_FEATURE_UNSUPPORTED";
    case ErrorCode::kStorageOverLimit: return "ACL_ERROR_STORAGE_OVER_LIMIT";
    case ErrorCode::kRtParamInvalid: return "ACL_ERROR_RT_PARAM_INVALID";
    case ErrorCode::kRtInvalidDeviceId: return "ACL_ERROR_RT_INVALID_DEVICEID";
    case ErrorCode::kRtFeatureNotSupport: return "ACL_ERROR_RT_FEATURE_NOT_SUPPORT";
    case ErrorCode::kRtMemoryAllocation: return "ACL_ERROR_RT_MEMORY_ALLOCATION";
    case ErrorCode::kRtMemoryFree: return "ACL_ERROR_RT_MEMORY_FREE";
    case ErrorCode::kRtInternalError: return "ACL_ERROR_RT_INTERNAL_ERROR";
    case ErrorCode::kRtAicoreException: return "ACL_ERROR_RT_AICORE_EXCEPTION";
    case ErrorCode::kInternal: return "ACL_ERROR_INTERNAL_ERROR";
    case ErrorCode::kFailure: return "ACL_ERROR_FAILURE";
  }
  return "ACL_ERROR_UNKNOWN";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(error_code_name(code_)) + " (" + std::to_string(static_cast<int>(code_)) +
         "): " + message_;
}

Status StatusFromCurrentException(const std::string& op) {
  try {
    throw;
  } catch (const Error& e) {
    return e.status();
  } catch (const std::bad_alloc&) {
    return Status::Make(ErrorCode::kBadAlloc, op, "host allocation failed (std::bad_alloc)");
  } catch (const std::exception& e) {
    return Status::Make(ErrorCode::kRtAicoreException, op, e.what());
  } catch (...) {
    return Status::Make(ErrorCode::kRtAicoreException, op, "unknown exception");
  }
}

}  // namespace asc
