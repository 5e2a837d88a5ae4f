/* acl/acl_rt.h: the ACL runtime API (devices, contexts, streams, events,
 * memory, host callbacks) with the Ascend SDK's names, types, enum values and
 * error numbers, implemented over pyasc's CPU runtime (src/runtime/acl.cc).
 *
 * Semantics on the CPU device (where they differ from, or refine, the SDK):
 *  - One device, id 0 (aclrtGetDeviceCount gives 1). Runtime calls work with or
 *    without aclInit / aclrtSetDevice; aclrtSetDevice / aclrtResetDevice are
 *    reference counted per process, and the last aclrtResetDevice (or
 *    aclFinalize) synchronizes and destroys every stream and event created by
 *    this API and frees every aclrtMalloc / aclrtMallocHost block still held.
 *  - aclrtStream is the address of an asc::runtime::Stream (ACLRT_LAUNCH_KERNEL
 *    takes it as is). A null stream is the calling thread's current stream
 *    (its default stream unless made current otherwise): unlike the SDK's
 *    per-context default stream, it is per thread.
 *  - Streams and events must come from aclrtCreateStream / aclrtCreateEvent;
 *    destroyed or unknown handles fail with ACL_ERROR_INVALID_PARAM.
 *  - Memory: aclrtMalloc blocks come from the device pool, aclrtMallocHost
 *    blocks from the pinned host pool. aclrtMemcpy / aclrtMemcpyAsync /
 *    aclrtMemset check that every device-side range lies inside one device
 *    block and that the copy kind matches where the pointers live.
 *  - A kernel or callback failure is stored by its stream and returned (with
 *    the message naming the kernel and block) by the next
 *    aclrtSynchronizeStream / aclrtSynchronizeDevice on it.
 *  - Every failing call records "[aclXxx] reason" for aclGetRecentErrMsg()
 *    (acl.h) on the calling thread. No C++ exception leaves these functions.
 *
 * Thread-safety: every function may be called from any thread.
 */
#ifndef PYASC_ACL_ACL_RT_H_
#define PYASC_ACL_ACL_RT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_EVENT_SYNC 0x00000001u
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002u
#define ACL_EVENT_TIME_LINE 0x00000008u

#define ACL_STREAM_FAST_LAUNCH 0x00000001u
#define ACL_STREAM_FAST_SYNC 0x00000002u

typedef enum aclrtRunMode {
  ACL_DEVICE,
  ACL_HOST,
} aclrtRunMode;

typedef enum aclrtEventStatus {
  ACL_EVENT_STATUS_COMPLETE = 0,
  ACL_EVENT_STATUS_NOT_READY = 1,
  ACL_EVENT_STATUS_RESERVED = 2,
} aclrtEventStatus;

typedef enum aclrtEventRecordedStatus {
  ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
  ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

typedef enum aclrtStreamStatus {
  ACL_STREAM_STATUS_COMPLETE = 0,
  ACL_STREAM_STATUS_NOT_READY = 1,
  ACL_STREAM_STATUS_RESERVED = 0xFFFF,
} aclrtStreamStatus;

typedef enum aclrtCallbackBlockType {
  ACL_CALLBACK_NO_BLOCK,
  ACL_CALLBACK_BLOCK,
} aclrtCallbackBlockType;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
  ACL_MEMCPY_DEFAULT, /* direction inferred from the pointers */
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
  ACL_MEM_MALLOC_HUGE_FIRST,
  ACL_MEM_MALLOC_HUGE_ONLY,
  ACL_MEM_MALLOC_NORMAL_ONLY,
  ACL_MEM_MALLOC_HUGE_FIRST_P2P,
  ACL_MEM_MALLOC_HUGE_ONLY_P2P,
  ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
  ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
  ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
} aclrtMemMallocPolicy;

typedef enum aclrtMemAttr {
  ACL_DDR_MEM,
  ACL_HBM_MEM,
  ACL_DDR_MEM_HUGE,
  ACL_DDR_MEM_NORMAL,
  ACL_HBM_MEM_HUGE,
  ACL_HBM_MEM_NORMAL,
  ACL_DDR_MEM_P2P_HUGE,
  ACL_DDR_MEM_P2P_NORMAL,
  ACL_HBM_MEM_P2P_HUGE,
  ACL_HBM_MEM_P2P_NORMAL,
} aclrtMemAttr;

typedef void (*aclrtCallback)(void *userData);

/* ---------------------------------------------------------------- devices */

/* ACL_HOST (host programs run on the host). */
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);
/* deviceId must be 0 (ACL_ERROR_RT_INVALID_DEVICEID otherwise). Makes the
 * device current for the calling thread. */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
/* Drops one aclrtSetDevice reference; the last one releases the API's
 * resources (see above). Resetting a device that is not set succeeds. */
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
/* The calling thread's device: ACL_ERROR_RT_CONTEXT_NULL when none was set. */
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
/* Waits for every stream on the device; returns the first stored error. */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/* Contexts are bookkeeping only (one device, one address space). */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);

/* ---------------------------------------------------------------- streams */

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
/* priority and flag are accepted and ignored. */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
                                                         uint32_t flag);
/* Waits for the stream's pending work, then destroys it; the handle becomes
 * invalid. Returns an error the work stored and no synchronize reported yet
 * (the stream is destroyed either way). From one of the stream's own
 * ACL_CALLBACK_BLOCK callbacks the stream is released after the callback. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
/* Waits for the stream's work (and the ACL_CALLBACK_NO_BLOCK callbacks it has
 * dispatched). Returns the first error stored by that work (e.g.
 * ACL_ERROR_RT_AICORE_EXCEPTION or the kernel API's code) and clears it; the
 * message, naming kernel and block, goes to aclGetRecentErrMsg(). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
/* Later work on `stream` waits for the work `event` recorded. */
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

/* ---------------------------------------------------------------- events */

/* Events always record timestamps. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
/* Captures the work enqueued on `stream` so far. */
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
/* Returns the event to the never-recorded state (waits already enqueued keep
 * waiting for the old record). */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
/* Host wait for the recorded work (immediate when never recorded). */
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
/* COMPLETE when the recorded work is done or the event was never recorded. */
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);
/* COMPLETE only when the event was recorded and its work is done. */
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
/* Milliseconds between two recorded, completed events. */
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);

/* ---------------------------------------------------------------- memory */

/* size must be > 0. The policy must be one of aclrtMemMallocPolicy (the
 * bandwidth bits may be or-ed in); it does not change the allocation. */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
/* Only pointers returned by aclrtMalloc (ACL_ERROR_RT_MEMORY_FREE otherwise).
 * Does not wait: the block is not reused before the work enqueued so far on
 * this API's streams and the calling thread's current stream has finished. */
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
/* Copies at once, without waiting for any stream: synchronize the stream that
 * produced the data first (or use aclrtMemcpyAsync on it).
 * count > destMax, null pointers, a kind outside aclrtMemcpyKind, a kind that
 * does not match where the pointers live, or a device range that leaves its
 * block: ACL_ERROR_INVALID_PARAM. count == 0 succeeds. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);
/* Checked like aclrtMemcpy at the call; runs in order on `stream`. */
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                              aclrtMemcpyKind kind, aclrtStream stream);
/* Sets `count` bytes to (uint8_t)value, synchronously (pending stream work is
 * not waited for). count > maxCount: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                                              aclrtStream stream);
/* free / total bytes of the device pool (total = its limit when one is set,
 * else the device's memory). */
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);

/* ---------------------------------------------------------------- callbacks */

/* Runs fn(userData) after the work enqueued on `stream` so far. ACL_CALLBACK_BLOCK:
 * the stream's later work waits for it. ACL_CALLBACK_NO_BLOCK: it does not.
 * Callbacks of a stream subscribed with aclrtSubscribeReport run on the
 * subscribed thread inside aclrtProcessReport; others run on a runtime thread
 * (BLOCK: the stream's worker; NO_BLOCK: one callback thread, in order). */
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
                                                 aclrtCallbackBlockType blockType, aclrtStream stream);
/* threadId is the pthread_t of the thread that calls aclrtProcessReport. */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);
/* Runs one callback addressed to the calling thread, waiting up to `timeout`
 * ms (-1: forever); ACL_ERROR_RT_REPORT_TIMEOUT when none arrived. */
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);

#ifdef __cplusplus
}
#endif

#endif /* PYASC_ACL_ACL_RT_H_ */
