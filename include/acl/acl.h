/* acl/acl.h: the ACL host API (Ascend Computing Language) as the Ascend SDK
 * declares it, implemented over pyasc's CPU runtime, so that ACL host programs
 * compile and run unchanged on the CPU device. Link against libasc
 * (CMake: pyasc::asc). Plain C and C++.
 *
 * Kernels are launched with ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, ...)
 * from asc/runtime/launch.h (C++).
 *
 * Types, codes and enums: acl_base.h; runtime calls: acl_rt.h; the model API
 * (aclmdlLoadFromFile ... aclmdlExecute): acl_mdl.h.
 */
#ifndef PYASC_ACL_ACL_H_
#define PYASC_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"
#include "acl_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_PKG_VERSION_MAX_SIZE 128

/* Initializes the API. configPath may be NULL or "" (no configuration); a
 * non-empty path must name a readable file (ACL_ERROR_INVALID_FILE otherwise;
 * its contents are ignored). A second aclInit before aclFinalize returns
 * ACL_ERROR_REPEAT_INITIALIZE. aclInit may be called again after aclFinalize. */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
/* Releases everything the API still holds (as the last aclrtResetDevice does).
 * Without a matching aclInit: ACL_ERROR_REPEAT_FINALIZE after an earlier
 * aclFinalize, ACL_ERROR_UNINITIALIZE otherwise. */
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

/* The most recent error message ("[aclrtXxx] reason") recorded by an ACL call
 * on the calling thread since the previous aclGetRecentErrMsg() call on it, or
 * "" when there is none; never NULL. Reading clears it. The string is owned by
 * the calling thread and stays valid until that thread calls
 * aclGetRecentErrMsg() again or exits. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

/* pyasc's version (ACL_SUCCESS). */
ACL_FUNC_VISIBILITY aclError aclGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                           int32_t *patchVersion);

#ifdef __cplusplus
}
#endif

#endif /* PYASC_ACL_ACL_H_ */
