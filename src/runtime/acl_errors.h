// The error path shared by the ACL runtime API (acl.cc) and the ACL model API (acl_mdl.cc): one
// place records "[api] detail" as the calling thread's aclGetRecentErrMsg() text, and one wrapper
// keeps every C++ exception from crossing the C boundary (the ACL calls are noexcept C functions).
#pragma once

#include <exception>
#include <new>
#include <string_view>

#include "acl/acl.h"
#include "asc/core/status.h"

namespace asc::runtime::acl_detail {

// Records "[api] detail" for aclGetRecentErrMsg() on the calling thread (logged at debug level)
// and returns code. Never throws: out of memory while building the message still returns code.
// Defined in acl.cc.
aclError fail(const char* api, aclError code, std::string_view detail) noexcept;

// Runs body() and turns what it throws into an ACL error code plus message: asc::Error keeps its
// code, std::bad_alloc is ACL_ERROR_BAD_ALLOC, anything else ACL_ERROR_INTERNAL_ERROR.
template <typename F>
aclError guarded(const char* api, F&& body) noexcept {
  try {
    return body();
  } catch (const asc::Error& e) {
    return fail(api, static_cast<aclError>(e.code()), e.message());
  } catch (const std::bad_alloc&) {
    return fail(api, ACL_ERROR_BAD_ALLOC, "host allocation failed (std::bad_alloc)");
  } catch (const std::exception& e) {
    return fail(api, ACL_ERROR_INTERNAL_ERROR, e.what());
  } catch (...) {
    return fail(api, ACL_ERROR_INTERNAL_ERROR, "unknown exception");
  }
}

}  // namespace asc::runtime::acl_detail
