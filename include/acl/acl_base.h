/* acl/acl_base.h: basic types, error codes and data-type helpers of the ACL host
 * API (Ascend Computing Language), as declared by the Ascend SDK, implemented by
 * pyasc's CPU runtime (libasc, src/runtime/acl.cc).
 *
 * Plain C (C99 and later) and C++. Error codes are `static const int` values with
 * the SDK's names and numbers (like the SDK, they are not macros: they are not
 * usable in C `case` labels, but are in C++).
 */
#ifndef PYASC_ACL_ACL_BASE_H_
#define PYASC_ACL_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ACL_FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

#ifdef __GNUC__
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif

/* Opaque handles. An aclrtStream is the address of the asc::runtime::Stream it
 * names (what pyasc's Stream.handle returns); nullptr means the calling
 * thread's current stream. */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef int aclError;
typedef uint16_t aclFloat16;

static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;

/* Parameter and environment errors. */
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_WRITE_FILE = 100004;
static const int ACL_ERROR_INVALID_FILE_SIZE = 100005;
static const int ACL_ERROR_PARSE_FILE = 100006;
static const int ACL_ERROR_UNSUPPORTED_DATA_TYPE = 100026;
static const int ACL_ERROR_KERNEL_NOT_FOUND = 100029;
static const int ACL_ERROR_REPEAT_SUBSCRIBE = 100033;
static const int ACL_ERROR_STREAM_NOT_SUBSCRIBE = 100034;
static const int ACL_ERROR_THREAD_NOT_SUBSCRIBE = 100035;
static const int ACL_ERROR_WAIT_CALLBACK_TIMEOUT = 100036;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;

/* Resource errors. */
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;

/* Storage over limit (Unified Buffer / L1 / L0 budget in pyasc). */
static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;

/* Internal errors. */
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;
static const int ACL_ERROR_PROFILING_FAILURE = 500005;

typedef enum {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27,
  ACL_INT4 = 29,
  ACL_UINT1 = 30,
  ACL_COMPLEX32 = 33
} aclDataType;

/* Tensor formats (CANN's aclFormat ids). NC1HWC0: C split into C1 = ceil(C / C0)
 * blocks of C0 (16 for 2/4-byte types, 32 for 1-byte), zero padded; FRACTAL_Z: the
 * convolution weight format (C1 * H * W, ceil(N / 16), 16, C0). pyasc.ops.to_format
 * converts NCHW / NHWC to and from NC1HWC0 and FRACTAL_Z. */
typedef enum {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4,
  ACL_FORMAT_NC1HWC0_C04 = 12,
  ACL_FORMAT_HWCN = 16,
  ACL_FORMAT_NDHWC = 27,
  ACL_FORMAT_FRACTAL_NZ = 29,
  ACL_FORMAT_NCDHW = 30,
  ACL_FORMAT_NDC1HWC0 = 32,
  ACL_FRACTAL_Z_3D = 33,
  ACL_FORMAT_NC = 35,
  ACL_FORMAT_NCL = 47
} aclFormat;

/* Bytes per element of `dataType`; 0 for ACL_DT_UNDEFINED, ACL_STRING, the
 * sub-byte types (ACL_INT4, ACL_UINT1) and unknown values. */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/* IEEE binary16 conversions (round to nearest even). */
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);

#ifdef __cplusplus
}
#endif

#endif /* PYASC_ACL_ACL_BASE_H_ */
