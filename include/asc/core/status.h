// Error handling for the pyasc core.
//
// Inside the core, fallible functions return `Status` or `Result<T>` (errors are
// values). At API boundaries (the C++ user API, kernel API calls, bindings) a
// non-OK status is thrown as `asc::Error`; the Python bindings translate it in
// exactly one place (python/pyasc/errors.py) to `pyasc.AscendError` subclasses.
//
// Codes follow ACL's numbering (acl/acl_base.h) so that `aclError` values and our
// codes are the same numbers. Codes pyasc adds (type, index, ...) sit in ACL's
// "parameter" range at values ACL does not use.
//
// Thread-safety: all types here are values; no shared state.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>

namespace asc {

enum class ErrorCode : int32_t {
  kSuccess = 0,
  // ACL parameter / environment errors.
  kInvalidParam = 100000,        // ACL_ERROR_INVALID_PARAM
  kUninitialize = 100001,        // ACL_ERROR_UNINITIALIZE
  kRepeatInitialize = 100002,    // ACL_ERROR_REPEAT_INITIALIZE
  kInvalidFile = 100003,         // ACL_ERROR_INVALID_FILE
  // pyasc additions in the parameter range.
  kInvalidDtype = 100090,        // wrong dtype (Python: TypeError)
  kIndexOutOfRange = 100091,     // index/offset outside a tensor (Python: IndexError)
  kInvalidShape = 100092,        // shapes that do not match (Python: ValueError)
  kLinAlgError = 100093,         // singular / not positive definite / non-square (numpy.linalg.LinAlgError)
  kOverflow = 100094,            // a Python int out of a dtype's range (Python: OverflowError)
  // ACL resource errors.
  kBadAlloc = 200000,            // ACL_ERROR_BAD_ALLOC (host allocation)
  kApiNotSupport = 200001,       // ACL_ERROR_API_NOT_SUPPORT
  kInvalidDevice = 200002,       // ACL_ERROR_INVALID_DEVICE
  kMemoryAddressUnaligned = 200003,  // ACL_ERROR_MEMORY_ADDRESS_UNALIGNED
  kInvalidResourceHandle = 200005,   // ACL_ERROR_INVALID_RESOURCE_HANDLE
  kFeatureUnsupported = 200006,  // ACL_ERROR_FEATURE_UNSUPPORTED
  kStorageOverLimit = 300000,    // ACL_ERROR_STORAGE_OVER_LIMIT (UB/L1/L0 budget)
  // Runtime errors.
  kRtParamInvalid = 107000,      // ACL_ERROR_RT_PARAM_INVALID
  kRtInvalidDeviceId = 107001,   // ACL_ERROR_RT_INVALID_DEVICEID
  kRtFeatureNotSupport = 207000, // ACL_ERROR_RT_FEATURE_NOT_SUPPORT
  kRtMemoryAllocation = 207001,  // ACL_ERROR_RT_MEMORY_ALLOCATION
  kRtMemoryFree = 207002,        // ACL_ERROR_RT_MEMORY_FREE
  kRtInternalError = 507000,     // ACL_ERROR_RT_INTERNAL_ERROR
  kRtAicoreException = 507015,   // ACL_ERROR_RT_AICORE_EXCEPTION (a kernel failed)
  kInternal = 500000,            // ACL_ERROR_INTERNAL_ERROR
  kFailure = 500001,             // ACL_ERROR_FAILURE (also: a host callback failed)
};

/// Name of a code ("ACL_ERROR_INVALID_PARAM", ...), never null.
const char* error_code_name(ErrorCode code) noexcept;

/// A success or an error code plus a message "[op] detail".
class Status {
 public:
  Status() noexcept = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() noexcept { return Status(); }
  /// Builds "[op] detail" for the given code.
  static Status Make(ErrorCode code, const std::string& op, const std::string& detail) {
    return Status(code, "[" + op + "] " + detail);
  }
  static Status Invalid(const std::string& op, const std::string& detail) {
    return Make(ErrorCode::kInvalidParam, op, detail);
  }
  static Status TypeError(const std::string& op, const std::string& detail) {
    return Make(ErrorCode::kInvalidDtype, op, detail);
  }
  static Status IndexError(const std::string& op, const std::string& detail) {
    return Make(ErrorCode::kIndexOutOfRange, op, detail);
  }
  static Status OutOfMemory(const std::string& op, const std::string& detail) {
    return Make(ErrorCode::kRtMemoryAllocation, op, detail);
  }
  static Status NotSupported(const std::string& op, const std::string& detail) {
    return Make(ErrorCode::kApiNotSupport, op, detail);
  }
  static Status Internal(const std::string& op, const std::string& detail) {
    return Make(ErrorCode::kInternal, op, detail);
  }

  bool ok() const noexcept { return code_ == ErrorCode::kSuccess; }
  ErrorCode code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  std::string ToString() const;

  /// Throws asc::Error when not OK.
  void ThrowIfError() const;

 private:
  ErrorCode code_ = ErrorCode::kSuccess;
  std::string message_;
};

/// The exception thrown at API boundaries. `what()` is the message, which starts
/// with "[op_name]".
class Error : public std::exception {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  explicit Error(const Status& s) : code_(s.code()), message_(s.message()) {}
  ErrorCode code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  const char* what() const noexcept override { return message_.c_str(); }
  Status status() const { return Status(code_, message_); }

 private:
  ErrorCode code_;
  std::string message_;
};

inline void Status::ThrowIfError() const {
  if (!ok()) throw Error(*this);
}

/// A value or an error status.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(implicit)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(implicit)

  bool ok() const noexcept { return v_.index() == 0; }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<1>(v_);
  }
  T& value() & {
    if (!ok()) throw Error(std::get<1>(v_));
    return std::get<0>(v_);
  }
  T&& value() && {
    if (!ok()) throw Error(std::get<1>(v_));
    return std::move(std::get<0>(v_));
  }
  /// Throws asc::Error on failure, otherwise returns the value.
  T ValueOrThrow() && { return std::move(*this).value(); }

 private:
  std::variant<T, Status> v_;
};

/// Converts any exception into a Status (for catch sites in workers).
Status StatusFromCurrentException(const std::string& op);

}  // namespace asc

#define ASC_RETURN_IF_ERROR(expr)             \
  do {                                        \
    ::asc::Status _asc_st = (expr);           \
    if (!_asc_st.ok()) return _asc_st;        \
  } while (0)

#define ASC_CONCAT_INNER_(a, b) a##b
#define ASC_CONCAT_(a, b) ASC_CONCAT_INNER_(a, b)
#define ASC_ASSIGN_OR_RETURN(lhs, rexpr)                              \
  auto ASC_CONCAT_(_asc_res_, __LINE__) = (rexpr);                    \
  if (!ASC_CONCAT_(_asc_res_, __LINE__).ok())                         \
    return ASC_CONCAT_(_asc_res_, __LINE__).status();                 \
  lhs = std::move(ASC_CONCAT_(_asc_res_, __LINE__)).value()
