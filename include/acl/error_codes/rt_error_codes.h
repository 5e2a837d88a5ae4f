/* Runtime error codes (ACL_ERROR_RT_*) of the ACL host API, with the numbers of
 * the Ascend SDK header of the same name. Plain C; included by acl_base.h.
 * Only the codes pyasc can return, plus neighbours programs commonly test for,
 * are listed. */
#ifndef PYASC_ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define PYASC_ACL_ERROR_CODES_RT_ERROR_CODES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static const int32_t ACL_RT_SUCCESS = 0;

/* Parameter errors. */
static const int32_t ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int32_t ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int32_t ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int32_t ACL_ERROR_RT_STREAM_CONTEXT = 107003;
static const int32_t ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006;
static const int32_t ACL_ERROR_RT_ADDR_UNALIGNED = 107008;
static const int32_t ACL_ERROR_RT_STREAM_SUBSCRIBE = 107011;
static const int32_t ACL_ERROR_RT_THREAD_SUBSCRIBE = 107012;
static const int32_t ACL_ERROR_RT_STREAM_NO_CB_REG = 107015;
static const int32_t ACL_ERROR_RT_INVALID_HANDLE = 107017;

/* Resource errors. */
static const int32_t ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
static const int32_t ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int32_t ACL_ERROR_RT_MEMORY_FREE = 207002;

/* Execution errors. */
static const int32_t ACL_ERROR_RT_INTERNAL_ERROR = 507000;
static const int32_t ACL_ERROR_RT_STREAM_NOT_COMPLETE = 507004;
static const int32_t ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006;
static const int32_t ACL_ERROR_RT_REPORT_TIMEOUT = 507012;
static const int32_t ACL_ERROR_RT_AICORE_TIMEOUT = 507014;
static const int32_t ACL_ERROR_RT_AICORE_EXCEPTION = 507015;

#ifdef __cplusplus
}
#endif

#endif /* PYASC_ACL_ERROR_CODES_RT_ERROR_CODES_H_ */
