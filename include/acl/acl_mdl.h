/* acl/acl_mdl.h: the ACL model API (load an offline model, describe its inputs and outputs,
 * run it on datasets of data buffers) with the Ascend SDK's names, types, constants and error
 * numbers. Included by acl/acl.h; implemented in libasc (src/runtime/acl_mdl.cc).
 *
 * Models are the `.om` files written by pyasc-atc / pyasc.save_as_om (pyasc's container: CANN's
 * .om format is not public) or ONNX files. They run on pyasc's one model executor, the Python
 * InferenceSession (its optimised graph, passes and oneDNN kernels): libasc loads
 * libasc_mdl_python.so next to itself, which uses the process's Python interpreter when there is
 * one (a C program called from Python through ctypes, a pybind11 module) and otherwise starts one
 * (a standalone C/C++ program: the Python pyasc was built with; PYASC_PYTHON names another
 * interpreter, PYASC_LIBPYTHON its libpython). docs/models.md gives the reasons.
 *
 * Semantics on the CPU device (where they differ from, or refine, the SDK):
 *  - Data buffers may hold any host memory (aclrtMalloc, aclrtMallocHost, malloc): the device is
 *    the host. Inputs are read and outputs written in place; no copy is kept after the call.
 *  - aclmdlExecute checks the dataset before running: the number of buffers (ACL_ERROR_MODEL_
 *    INPUT_NOT_MATCH / ACL_ERROR_MODEL_OUTPUT_NOT_MATCH), null buffers and sizes: an input buffer
 *    must hold exactly aclmdlGetInputSizeByIndex bytes (static models) or at least the bytes of
 *    the selected batch (dynamic batch); an output buffer at least the output's bytes.
 *  - Dynamic batch (pyasc-atc --dynamic_batch_size): the model gets one more input,
 *    ACL_DYNAMIC_TENSOR_NAME, of 8 bytes; aclmdlSetDynamicBatchSize writes the batch into that
 *    input's buffer in the dataset (the dataset, not the model, carries it: concurrent executions
 *    with different batches do not interfere). Input and output sizes are those of the largest
 *    gear; dims report -1 for the batch.
 *  - aclFinalize unloads every model: their ids then fail with ACL_ERROR_INVALID_MODEL_ID, and
 *    until the next aclInit every model call fails with ACL_ERROR_UNINITIALIZE. Programs that never
 *    call aclInit may use the API (as the runtime calls).
 *  - Every failing call records "[aclmdlXxx] reason" for aclGetRecentErrMsg() on the calling
 *    thread (Python exceptions of the executor become codes and messages there). No C++ or Python
 *    exception leaves these functions; functions returning a pointer or a size return NULL / 0 on
 *    failure and record the reason too.
 *
 * Thread-safety: every function may be called from any thread. Loading, unloading and executing
 * are serialised per process only while they take the Python interpreter's lock (the model's
 * kernels run on the device's cores without it); one model may be executed from several threads
 * at once. An aclmdlDesc, aclmdlDataset or aclDataBuffer must not be modified (Create/Add/Destroy/
 * Set/GetDesc) by one thread while another uses it, as in the SDK.
 */
#ifndef PYASC_ACL_ACL_MDL_H_
#define PYASC_ACL_ACL_MDL_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAX_DIM_CNT 128
#define ACL_MAX_TENSOR_NAME_LEN 128
#define ACL_MAX_BATCH_NUM 128
#define ACL_MAX_HW_NUM 128
#define ACL_MAX_SHAPE_COUNT 128
#define ACL_INVALID_NODE_INDEX 0xFFFFFFFF

/* The extra input of a dynamic-batch model (8 bytes: the batch, written by
 * aclmdlSetDynamicBatchSize). */
#define ACL_DYNAMIC_TENSOR_NAME "ascend_mbatch_shape_data"

/* Model errors (the SDK declares them in acl_base.h; same numbers). */
static const int ACL_ERROR_FILE_MISSING_ATTR = 100007;
static const int ACL_ERROR_FILE_ATTR_INVALID = 100008;
static const int ACL_ERROR_INVALID_MODEL_ID = 100011;
/* CANN's ge_error_codes.h: the input has no (static) AIPP configuration (aclmdlGetFirstAippInfo) */
static const int ACL_ERROR_GE_AIPP_NOT_EXIST = 145015;
static const int ACL_ERROR_DESERIALIZE_MODEL = 100012;
static const int ACL_ERROR_PARSE_MODEL = 100013;
static const int ACL_ERROR_READ_MODEL_FAILURE = 100014;
static const int ACL_ERROR_MODEL_SIZE_INVALID = 100015;
static const int ACL_ERROR_MODEL_MISSING_ATTR = 100016;
static const int ACL_ERROR_MODEL_INPUT_NOT_MATCH = 100017;
static const int ACL_ERROR_MODEL_OUTPUT_NOT_MATCH = 100018;
static const int ACL_ERROR_MODEL_NOT_DYNAMIC = 100019;

typedef struct aclDataBuffer aclDataBuffer;
typedef struct aclmdlDataset aclmdlDataset;
typedef struct aclmdlDesc aclmdlDesc;

typedef struct aclmdlIODims {
  char name[ACL_MAX_TENSOR_NAME_LEN]; /* tensor name (truncated to 127 bytes + NUL) */
  size_t dimCount;                    /* number of dims */
  int64_t dims[ACL_MAX_DIM_CNT];      /* -1: dynamic (batch) or symbolic */
} aclmdlIODims;

typedef struct aclmdlBatch {
  size_t batchCount;                /* number of gears (0: not a dynamic-batch model) */
  uint64_t batch[ACL_MAX_BATCH_NUM]; /* the gears, in the order pyasc-atc was given them */
} aclmdlBatch;

typedef struct aclmdlHW {
  size_t hwCount;                    /* number of image sizes (0: not a dynamic-image-size model) */
  uint64_t hw[ACL_MAX_HW_NUM][2];    /* {height, width}, in the order pyasc-atc was given them */
} aclmdlHW;

/* ---------------------------------------------------------------- data buffers */

/* A buffer descriptor over caller-owned memory (never freed by ACL). data may be NULL only with
 * size 0. NULL when out of memory or data is NULL with size > 0. */
ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
/* Destroys the descriptor only (not the memory). NULL or unknown: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
/* Points the descriptor at other memory (the old memory stays the caller's). */
ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size);
/* NULL for a NULL / unknown descriptor. */
ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
/* 0 for a NULL / unknown descriptor. */
ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);
ACL_DEPRECATED_MESSAGE("aclGetDataBufferSize is deprecated, use aclGetDataBufferSizeV2 instead")
ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer);

/* ---------------------------------------------------------------- datasets */

ACL_FUNC_VISIBILITY aclmdlDataset *aclmdlCreateDataset(void);
/* Destroys the dataset, not its buffers (destroy them with aclDestroyDataBuffer). */
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDataset(const aclmdlDataset *dataset);
/* Appends (the dataset refers to the buffer; it does not own it). */
ACL_FUNC_VISIBILITY aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset, aclDataBuffer *dataBuffer);
/* 0 for a NULL / unknown dataset. */
ACL_FUNC_VISIBILITY size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset);
/* NULL for a NULL / unknown dataset or an index out of range. */
ACL_FUNC_VISIBILITY aclDataBuffer *aclmdlGetDatasetBuffer(const aclmdlDataset *dataset, size_t index);

/* ---------------------------------------------------------------- loading */

/* Loads a .om (or ONNX) file; *modelId receives a new id (never reused in the process).
 * Missing / unreadable file: ACL_ERROR_READ_MODEL_FAILURE; malformed, truncated or corrupted
 * file, unsupported operator: ACL_ERROR_PARSE_MODEL (the reason in aclGetRecentErrMsg). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFile(const char *modelPath, uint32_t *modelId);
/* The same from the model's bytes (copied: the memory may be freed after the call). */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMem(const void *model, size_t modelSize, uint32_t *modelId);
/* Like aclmdlLoadFromFile. workPtr/weightPtr may be NULL (then the sizes are ignored); non-NULL
 * regions must be at least aclmdlQuerySize's sizes (ACL_ERROR_INVALID_PARAM otherwise). The
 * executor keeps its working memory and weights in its own pool, so the regions stay unused. */
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromFileWithMem(const char *modelPath, uint32_t *modelId, void *workPtr,
                                                       size_t workSize, void *weightPtr, size_t weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlLoadFromMemWithMem(const void *model, size_t modelSize, uint32_t *modelId,
                                                      void *workPtr, size_t workSize, void *weightPtr,
                                                      size_t weightSize);
/* Weight bytes (the model's constants) and working bytes (its static memory plan's peak for the
 * largest gear) of a model file / image. */
ACL_FUNC_VISIBILITY aclError aclmdlQuerySize(const char *fileName, size_t *workSize, size_t *weightSize);
ACL_FUNC_VISIBILITY aclError aclmdlQuerySizeFromMem(const void *model, size_t modelSize, size_t *workSize,
                                                    size_t *weightSize);
/* Unknown or already unloaded id: ACL_ERROR_INVALID_MODEL_ID. Waits for executions of the model
 * still running on other threads or streams. */
ACL_FUNC_VISIBILITY aclError aclmdlUnload(uint32_t modelId);

/* ---------------------------------------------------------------- descriptions */

ACL_FUNC_VISIBILITY aclmdlDesc *aclmdlCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyDesc(aclmdlDesc *modelDesc);
/* Fills the description of a loaded model (a snapshot: it stays valid after aclmdlUnload). */
ACL_FUNC_VISIBILITY aclError aclmdlGetDesc(aclmdlDesc *modelDesc, uint32_t modelId);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumInputs(aclmdlDesc *modelDesc);
ACL_FUNC_VISIBILITY size_t aclmdlGetNumOutputs(aclmdlDesc *modelDesc);
/* Bytes of input / output `index` (largest gear for dynamic models); 0 on error. */
ACL_FUNC_VISIBILITY size_t aclmdlGetInputSizeByIndex(aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *modelDesc, size_t index);
/* Owned by the description (valid until it is destroyed or refilled); NULL on error. */
ACL_FUNC_VISIBILITY const char *aclmdlGetInputNameByIndex(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY const char *aclmdlGetOutputNameByIndex(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputIndexByName(const aclmdlDesc *modelDesc, const char *name, size_t *index);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputIndexByName(const aclmdlDesc *modelDesc, const char *name,
                                                        size_t *index);
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
/* Without static AIPP the same as aclmdlGetInputDims; with it, the raw image's dims too (the
 * AIPP stage is part of the model here). */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDimsV2(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
ACL_FUNC_VISIBILITY aclError aclmdlGetOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
/* The output's dims of the latest successful execution of the model (on any thread) when the
 * model is dynamic, the largest gear's before one; the static dims otherwise. */
ACL_FUNC_VISIBILITY aclError aclmdlGetCurOutputDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims);
/* ACL_DT_UNDEFINED / ACL_FORMAT_UNDEFINED on error. */
ACL_FUNC_VISIBILITY aclDataType aclmdlGetInputDataType(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclDataType aclmdlGetOutputDataType(const aclmdlDesc *modelDesc, size_t index);
/* The format pyasc-atc recorded (--input_format; NCHW for 4-D inputs, ND otherwise). */
ACL_FUNC_VISIBILITY aclFormat aclmdlGetInputFormat(const aclmdlDesc *modelDesc, size_t index);
ACL_FUNC_VISIBILITY aclFormat aclmdlGetOutputFormat(const aclmdlDesc *modelDesc, size_t index);
/* The gears of a dynamic-batch model (batchCount 0 for other models, as the SDK). */
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicBatch(const aclmdlDesc *modelDesc, aclmdlBatch *batch);

/* ---------------------------------------------------------------- execution */

/* Runs the model on `input` into `output` and returns when the outputs are written. */
ACL_FUNC_VISIBILITY aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output);
/* Checks like aclmdlExecute at the call, then runs after the work enqueued on `stream` so far;
 * later work on `stream` waits for it. The datasets (the buffer addresses) are captured at the
 * call; the memory must stay valid until the stream is synchronized. A failure while running is
 * stored by the stream and returned, with its message, by aclrtSynchronizeStream. */
ACL_FUNC_VISIBILITY aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                                                aclrtStream stream);
/* Writes batchSize into the ACL_DYNAMIC_TENSOR_NAME input buffer at `index` of `dataset`.
 * A model without dynamic batch: ACL_ERROR_MODEL_NOT_DYNAMIC; a batch that is not one of
 * the gears, or `index` not the dynamic input: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicBatchSize(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       uint64_t batchSize);

/* ---------------------------------------------------------------- dynamic image size / dims
 *
 * A model converted with pyasc-atc --dynamic_image_size or --dynamic_dims (with -1 in
 * --input_shape) has one more input, ACL_DYNAMIC_TENSOR_NAME, last (aclmdlGetInputIndexByName):
 * the Set calls write the chosen gear into that input's buffer in the dataset (allocate
 * aclmdlGetInputSizeByIndex bytes for it), and aclmdlExecute runs every input at that gear's dims
 * (input buffers hold at least the gear's bytes; sizes are those of the largest gear; dims report
 * -1 where the gears differ; aclmdlGetCurOutputDims gives the outputs' dims of the last run).
 * A dataset whose dynamic input holds no gear of the model: ACL_ERROR_MODEL_INPUT_NOT_MATCH. */

/* Writes (height, width) into the ACL_DYNAMIC_TENSOR_NAME buffer at `index` of `dataset`.
 * A model without dynamic image size: ACL_ERROR_MODEL_NOT_DYNAMIC; a size that is not one of the
 * gears, or `index` not the dynamic input: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclmdlSetDynamicHWSize(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                    uint64_t height, uint64_t width);
/* Selects the gear whose dims (every data input's dims concatenated, as aclmdlGetInputDynamicDims
 * reports them; dims->name is unused) equal `dims`. Errors as aclmdlSetDynamicHWSize. */
ACL_FUNC_VISIBILITY aclError aclmdlSetInputDynamicDims(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       const aclmdlIODims *dims);
/* The image sizes of a dynamic-image-size model (hwCount 0 for other models). index is reserved:
 * -1 (the dynamic input's index is accepted too; anything else: ACL_ERROR_INVALID_PARAM). */
ACL_FUNC_VISIBILITY aclError aclmdlGetDynamicHW(const aclmdlDesc *modelDesc, size_t index, aclmdlHW *dynamicHW);
/* The number of gears of a dynamic-dims model (0 for other models); index as aclmdlGetDynamicHW. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicGearCount(const aclmdlDesc *modelDesc, size_t index,
                                                            size_t *gearCount);
/* Fills dims[0..gearCount): per gear, every data input's dims concatenated (dimCount: their ranks'
 * sum; name reserved, empty). gearCount must be aclmdlGetInputDynamicGearCount's value
 * (ACL_ERROR_INVALID_PARAM); a model without dynamic dims: ACL_ERROR_MODEL_NOT_DYNAMIC. */
ACL_FUNC_VISIBILITY aclError aclmdlGetInputDynamicDims(const aclmdlDesc *modelDesc, size_t index, aclmdlIODims *dims,
                                                       size_t gearCount);

/* ---------------------------------------------------------------- dynamic AIPP
 *
 * A model converted with an insert_op_conf block `aipp_mode : dynamic` (`max_src_image_size`
 * bytes, `related_input_rank`) takes its image input as uint8 [N, max_src_image_size] and has one
 * more input, ACL_DYNAMIC_AIPP_NAME, directly after it: the per-run parameters. The application
 * creates a parameter set for the model's batch N (aclmdlCreateAIPP), sets it with the
 * aclmdlSetAIPP* calls, and writes it into that input's buffer with aclmdlSetInputAIPP (index: the
 * ACL_DYNAMIC_AIPP_NAME input) or aclmdlSetAIPPByInputIndex (index: the image input) before
 * aclmdlExecute. The stage computes, per batch entry, what static AIPP computes: crop, R/B or U/V
 * swap, the integer colour-space conversion with the CSC matrix and biases, then
 * (x - mean - min) * var_reci per channel, then zero padding; crop plus padding must give the
 * model input's H x W (checked at execution). The buffer's layout is pyasc's (CANN's is internal).
 * Supported: ACL_YUV420SP_U8 and ACL_RGB888_U8 input, csc, rbuv swap, crop, padding, mean/min/
 * var_reci. Refused with ACL_ERROR_FEATURE_UNSUPPORTED: other input formats, axSwapSwitch 1 (for
 * ARGB/XRGB formats), scfSwitch 1 (resize). Bad values (switches other than 0/1, sizes <= 0,
 * crop start outside [0, 4095] or size outside [1, 4096], padding outside [0, 32], non-finite
 * min/var_reci, batchIndex >= the set's batch, a NULL or destroyed set):
 * ACL_ERROR_INVALID_PARAM with a message naming the call and the value (aclGetRecentErrMsg). */
#define ACL_DYNAMIC_AIPP_NAME "ascend_dynamic_aipp_data"

typedef struct aclmdlAIPP aclmdlAIPP;

typedef enum {
  ACL_YUV420SP_U8 = 1,
  ACL_XRGB8888_U8,
  ACL_RGB888_U8,
  ACL_YUV400_U8,
  ACL_NC1HWC0DI_FP16,
  ACL_NC1HWC0DI_S8,
  ACL_ARGB8888_U8,
  ACL_YUYV_U8,
  ACL_YUV422SP_U8,
  ACL_AYUV444_U8,
  ACL_RAW10,
  ACL_RAW12,
  ACL_RAW16,
  ACL_RAW24,
  ACL_AIPP_RESERVED = 0xffff,
} aclAippInputFormat;

typedef enum {
  ACL_DATA_WITHOUT_AIPP = 0,
  ACL_DATA_WITH_STATIC_AIPP,
  ACL_DATA_WITH_DYNAMIC_AIPP,
  ACL_DYNAMIC_AIPP_NODE
} aclmdlInputAippType;

/* A parameter set for `batchSize` images (0: NULL). Defaults: no csc, swaps, crop, padding;
 * mean 0, min 0.0, var_reci 1.0; the input format and source size must be set. */
ACL_FUNC_VISIBILITY aclmdlAIPP *aclmdlCreateAIPP(uint64_t batchSize);
ACL_FUNC_VISIBILITY aclError aclmdlDestroyAIPP(const aclmdlAIPP *aippParmsSet);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPSrcImageSize(aclmdlAIPP *aippParmsSet, int32_t srcImageSizeW,
                                                       int32_t srcImageSizeH);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPInputFormat(aclmdlAIPP *aippParmsSet, aclAippInputFormat inputFormat);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCscParams(aclmdlAIPP *aippParmsSet, int8_t cscSwitch,
                                                    int16_t cscMatrixR0C0, int16_t cscMatrixR0C1,
                                                    int16_t cscMatrixR0C2, int16_t cscMatrixR1C0,
                                                    int16_t cscMatrixR1C1, int16_t cscMatrixR1C2,
                                                    int16_t cscMatrixR2C0, int16_t cscMatrixR2C1,
                                                    int16_t cscMatrixR2C2, uint8_t cscOutputBiasR0,
                                                    uint8_t cscOutputBiasR1, uint8_t cscOutputBiasR2,
                                                    uint8_t cscInputBiasR0, uint8_t cscInputBiasR1,
                                                    uint8_t cscInputBiasR2);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPRbuvSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t rbuvSwapSwitch);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPAxSwapSwitch(aclmdlAIPP *aippParmsSet, int8_t axSwapSwitch);
/* Per batch entry (batchIndex < the set's batch). */
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPScfParams(aclmdlAIPP *aippParmsSet, int8_t scfSwitch, int32_t scfInputSizeW,
                                                    int32_t scfInputSizeH, int32_t scfOutputSizeW,
                                                    int32_t scfOutputSizeH, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPCropParams(aclmdlAIPP *aippParmsSet, int8_t cropSwitch, int32_t cropStartPosW,
                                                     int32_t cropStartPosH, int32_t cropSizeW, int32_t cropSizeH,
                                                     uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPPaddingParams(aclmdlAIPP *aippParmsSet, int8_t paddingSwitch,
                                                        int32_t paddingSizeTop, int32_t paddingSizeBottom,
                                                        int32_t paddingSizeLeft, int32_t paddingSizeRight,
                                                        uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMean(aclmdlAIPP *aippParmsSet, int16_t dtcPixelMeanChn0,
                                                       int16_t dtcPixelMeanChn1, int16_t dtcPixelMeanChn2,
                                                       int16_t dtcPixelMeanChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPDtcPixelMin(aclmdlAIPP *aippParmsSet, float dtcPixelMinChn0,
                                                      float dtcPixelMinChn1, float dtcPixelMinChn2,
                                                      float dtcPixelMinChn3, uint64_t batchIndex);
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPPixelVarReci(aclmdlAIPP *aippParmsSet, float dtcPixelVarReciChn0,
                                                       float dtcPixelVarReciChn1, float dtcPixelVarReciChn2,
                                                       float dtcPixelVarReciChn3, uint64_t batchIndex);
/* Writes the set into the buffer of input `index` (the ACL_DYNAMIC_AIPP_NAME input) of `dataset`.
 * The model has no dynamic AIPP, `index` is another input, the set's batch is not the model's,
 * the format or source size is unset, the image is larger than max_src_image_size, a crop window
 * leaves the source image, or the buffer is too small: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclmdlSetInputAIPP(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                const aclmdlAIPP *aippParmsSet);
/* The same, `index` naming the image input the dynamic AIPP stage reads. */
ACL_FUNC_VISIBILITY aclError aclmdlSetAIPPByInputIndex(uint32_t modelId, aclmdlDataset *dataset, size_t index,
                                                       const aclmdlAIPP *aippParmsSet);
/* ACL_DATA_WITH_STATIC_AIPP (an input pyasc-atc gave a static aipp_op), ACL_DATA_WITH_DYNAMIC_AIPP
 * (dynamicAttachedDataIndex: its parameter input), ACL_DYNAMIC_AIPP_NODE (the parameter input
 * itself) or ACL_DATA_WITHOUT_AIPP; dynamicAttachedDataIndex is SIZE_MAX but for the dynamic image. */
ACL_FUNC_VISIBILITY aclError aclmdlGetAippType(uint32_t modelId, size_t index, aclmdlInputAippType *type,
                                               size_t *dynamicAttachedDataIndex);

/* The bytes of the ACL_DYNAMIC_AIPP_NAME input for a batch of `batchSize` images (pyasc's layout:
 * a 96-byte header and 112 bytes per batch entry); batchSize 0 or a null size: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclmdlGetAippDataSize(uint64_t batchSize, size_t *size);

typedef struct aclAippDims {
  aclmdlIODims srcDims;     /* the input as the application feeds it (the raw image) */
  size_t srcSize;           /* its bytes */
  aclmdlIODims aippOutdims; /* the AIPP stage's output (N, C, H, W) */
  size_t aippOutSize;       /* its bytes */
} aclAippDims;

typedef struct aclAippExtendInfo aclAippExtendInfo; /* reserved (CANN: callers pass a null pointer) */

typedef struct aclAippInfo {
  aclAippInputFormat inputFormat;
  int32_t srcImageSizeW;
  int32_t srcImageSizeH;
  int8_t cropSwitch;
  int32_t loadStartPosW;
  int32_t loadStartPosH;
  int32_t cropSizeW;
  int32_t cropSizeH;
  int8_t resizeSwitch;
  int32_t resizeOutputW;
  int32_t resizeOutputH;
  int8_t paddingSwitch;
  int32_t leftPaddingSize;
  int32_t rightPaddingSize;
  int32_t topPaddingSize;
  int32_t bottomPaddingSize;
  int8_t cscSwitch;
  int8_t rbuvSwapSwitch;
  int8_t axSwapSwitch;
  int8_t singleLineMode;
  int32_t matrixR0C0;
  int32_t matrixR0C1;
  int32_t matrixR0C2;
  int32_t matrixR1C0;
  int32_t matrixR1C1;
  int32_t matrixR1C2;
  int32_t matrixR2C0;
  int32_t matrixR2C1;
  int32_t matrixR2C2;
  int32_t outputBias0;
  int32_t outputBias1;
  int32_t outputBias2;
  int32_t inputBias0;
  int32_t inputBias1;
  int32_t inputBias2;
  int32_t meanChn0;
  int32_t meanChn1;
  int32_t meanChn2;
  int32_t meanChn3;
  float minChn0;
  float minChn1;
  float minChn2;
  float minChn3;
  float varReciChn0;
  float varReciChn1;
  float varReciChn2;
  float varReciChn3;
  aclFormat srcFormat;      /* the model input's format before AIPP (NCHW) */
  aclDataType srcDatatype;  /* ... and its data type (the stage's output type) */
  size_t srcDimNum;         /* ... and its rank (4) */
  size_t shapeCount;        /* dynamic-batch gears (1 for a static batch); outDims[i] per gear */
  aclAippDims outDims[ACL_MAX_SHAPE_COUNT];
  aclAippExtendInfo *aippExtend; /* null */
} aclAippInfo;

/* The static AIPP configuration of input `index` as pyasc-atc built it (resize and padding
 * switches 0: the static stage has neither). An input without static AIPP (none, or dynamic AIPP
 * whose parameters come per run): ACL_ERROR_GE_AIPP_NOT_EXIST; an unknown model id:
 * ACL_ERROR_INVALID_MODEL_ID; an index out of range or a null aippInfo: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclmdlGetFirstAippInfo(uint32_t modelId, size_t index, aclAippInfo *aippInfo);

#ifdef __cplusplus
}
#endif

#endif /* PYASC_ACL_ACL_MDL_H_ */
