// asc::Error -> pyasc.errors.AscendError subclasses.
//
// The code -> class table lives only in python/pyasc/errors.py; the translator
// asks it (pyasc.errors._from_code) for the exception instance. The translator
// is registered globally, so operator modules built with the same pybind11 also
// get their asc::Error translated.
#include <pybind11/native_enum.h>

#include <string>

#include "asc/core/status.h"
#include "bindings.h"

namespace pyasc {

namespace {

void set_python_error(const asc::Error& e) {
  try {
    py::object exc = py::module_::import("pyasc.errors")
                         .attr("_from_code")(static_cast<int>(e.code()), e.message());
    py::set_error(py::type::handle_of(exc), exc);
  } catch (py::error_already_set& err) {
    err.restore();  // the failure to build the exception (should not happen)
  }
}

}  // namespace

void init_errors(py::module_& m) {
  using asc::ErrorCode;
  py::native_enum<ErrorCode>(m, "ErrorCode", "enum.IntEnum",
                             "Error codes of pyasc (the numbers are ACL's aclError values).")
      .value("SUCCESS", ErrorCode::kSuccess)
      .value("INVALID_PARAM", ErrorCode::kInvalidParam, "ACL_ERROR_INVALID_PARAM")
      .value("UNINITIALIZE", ErrorCode::kUninitialize, "ACL_ERROR_UNINITIALIZE")
      .value("REPEAT_INITIALIZE", ErrorCode::kRepeatInitialize, "ACL_ERROR_REPEAT_INITIALIZE")
      .value("INVALID_FILE", ErrorCode::kInvalidFile, "ACL_ERROR_INVALID_FILE")
      .value("INVALID_DTYPE", ErrorCode::kInvalidDtype, "wrong dtype (TypeError)")
      .value("INDEX_OUT_OF_RANGE", ErrorCode::kIndexOutOfRange, "index outside a tensor (IndexError)")
      .value("INVALID_SHAPE", ErrorCode::kInvalidShape, "shapes that do not match (ValueError)")
      .value("LINALG_ERROR", ErrorCode::kLinAlgError, "singular or non-positive-definite matrix (LinAlgError)")
      .value("OVERFLOW", ErrorCode::kOverflow, "Python integer out of a dtype's range (OverflowError)")
      .value("BAD_ALLOC", ErrorCode::kBadAlloc, "ACL_ERROR_BAD_ALLOC")
      .value("API_NOT_SUPPORT", ErrorCode::kApiNotSupport, "ACL_ERROR_API_NOT_SUPPORT")
      .value("INVALID_DEVICE", ErrorCode::kInvalidDevice, "ACL_ERROR_INVALID_DEVICE")
      .value("MEMORY_ADDRESS_UNALIGNED", ErrorCode::kMemoryAddressUnaligned,
             "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED")
      .value("INVALID_RESOURCE_HANDLE", ErrorCode::kInvalidResourceHandle,
             "ACL_ERROR_INVALID_RESOURCE_HANDLE")
      .value("FEATURE_UNSUPPORTED", ErrorCode::kFeatureUnsupported, "ACL_ERROR_FEATURE_UNSUPPORTED")
      .value("STORAGE_OVER_LIMIT", ErrorCode::kStorageOverLimit,
             "ACL_ERROR_STORAGE_OVER_LIMIT (UB/L1/L0 budget)")
      .value("RT_PARAM_INVALID", ErrorCode::kRtParamInvalid, "ACL_ERROR_RT_PARAM_INVALID")
      .value("RT_INVALID_DEVICE_ID", ErrorCode::kRtInvalidDeviceId, "ACL_ERROR_RT_INVALID_DEVICEID")
      .value("RT_FEATURE_NOT_SUPPORT", ErrorCode::kRtFeatureNotSupport,
             "ACL_ERROR_RT_FEATURE_NOT_SUPPORT")
      .value("RT_MEMORY_ALLOCATION", ErrorCode::kRtMemoryAllocation,
             "ACL_ERROR_RT_MEMORY_ALLOCATION (device out of memory)")
      .value("RT_MEMORY_FREE", ErrorCode::kRtMemoryFree, "ACL_ERROR_RT_MEMORY_FREE")
      .value("RT_INTERNAL_ERROR", ErrorCode::kRtInternalError, "ACL_ERROR_RT_INTERNAL_ERROR")
      .value("RT_AICORE_EXCEPTION", ErrorCode::kRtAicoreException,
             "ACL_ERROR_RT_AICORE_EXCEPTION (a kernel failed)")
      .value("INTERNAL", ErrorCode::kInternal, "ACL_ERROR_INTERNAL_ERROR")
      .value("FAILURE", ErrorCode::kFailure, "ACL_ERROR_FAILURE (e.g. a host callback raised)")
      .finalize();

  m.def(
      "error_code_name",
      [](int code) { return std::string(asc::error_code_name(static_cast<ErrorCode>(code))); },
      py::arg("code"),
      "ACL-style name of an error code (\"ACL_ERROR_INVALID_PARAM\", ...); "
      "\"ACL_ERROR_UNKNOWN\" for codes pyasc does not define.");

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const asc::Error& e) {
      set_python_error(e);
    }
  });

  // Testing API (not public): raises asc::Error(code, message) from C++ so that
  // tests can check the translator for every code.
  m.def(
      "_testing_raise",
      [](int code, const std::string& message) {
        throw asc::Error(static_cast<ErrorCode>(code), message);
      },
      py::arg("code"), py::arg("message"),
      "TESTING ONLY: throws asc::Error(code, message) in C++.");
}

}  // namespace pyasc
