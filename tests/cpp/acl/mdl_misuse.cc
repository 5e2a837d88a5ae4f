// Misuse of the ACL model API from a standalone C++ program (no Python in the process: libasc
// starts the interpreter): every case must return the documented ACL code with a message, never
// crash. Built and run by tests/python/models/test_acl_mdl.py through tests/cpp/acl/CMakeLists.txt.
//
//   acl_mdl_misuse model.om dynamic.om not_a_model.bin
//
// model.om: one float32 input, one float32 output, static shapes; dynamic.om: the same model built
// with --dynamic_batch_size=1,2,4. Prints one line per failed check and "checks N failed M".
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"

static int g_checks = 0, g_failed = 0;

static void expect_code(aclError got, aclError want, const char* what, int line) {
  ++g_checks;
  const std::string msg = aclGetRecentErrMsg();
  if (got != want) {
    ++g_failed;
    std::printf("FAIL line %d: %s returned %d, expected %d (%s)\n", line, what, got, want, msg.c_str());
  } else if (want != ACL_SUCCESS && msg.empty()) {
    ++g_failed;
    std::printf("FAIL line %d: %s returned %d without a message\n", line, what, got);
  }
}
#define EXPECT_CODE(call, want) expect_code((call), (want), #call, __LINE__)

static void expect(bool ok, const char* what, int line) {
  ++g_checks;
  if (!ok) {
    ++g_failed;
    std::printf("FAIL line %d: %s\n", line, what);
  }
}
#define EXPECT(cond) expect((cond), #cond, __LINE__)

struct Sets {
  aclmdlDataset* in = nullptr;
  aclmdlDataset* out = nullptr;
  std::vector<aclDataBuffer*> bufs;
  std::vector<std::vector<char>> mem;
  aclDataBuffer* add(aclmdlDataset* d, size_t n) {
    mem.emplace_back(n);
    aclDataBuffer* b = aclCreateDataBuffer(mem.back().data(), n);
    bufs.push_back(b);
    aclmdlAddDatasetBuffer(d, b);
    return b;
  }
  void destroy() {
    for (auto* b : bufs) aclDestroyDataBuffer(b);
    aclmdlDestroyDataset(in);
    aclmdlDestroyDataset(out);
    bufs.clear();
  }
};

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s model.om dynamic.om not_a_model.bin\n", argv[0]);
    return 2;
  }
  const char* model = argv[1];
  const char* dynamic = argv[2];
  const char* garbage = argv[3];
  EXPECT_CODE(aclInit(nullptr), ACL_SUCCESS);

  // ---- loading
  uint32_t id = 0;
  EXPECT_CODE(aclmdlLoadFromFile(nullptr, &id), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlLoadFromFile(model, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlLoadFromFile("/nonexistent/model.om", &id), ACL_ERROR_READ_MODEL_FAILURE);
  EXPECT_CODE(aclmdlLoadFromFile(garbage, &id), ACL_ERROR_PARSE_MODEL);
  EXPECT_CODE(aclmdlLoadFromMem(nullptr, 10, &id), ACL_ERROR_INVALID_PARAM);
  const char junk[16] = "not a model....";
  EXPECT_CODE(aclmdlLoadFromMem(junk, sizeof junk, &id), ACL_ERROR_PARSE_MODEL);
  size_t work = 0, weight = 0;
  EXPECT_CODE(aclmdlQuerySize(model, &work, &weight), ACL_SUCCESS);
  EXPECT(weight > 0);
  EXPECT(work > 0);
  EXPECT_CODE(aclmdlQuerySize(model, nullptr, &weight), ACL_ERROR_INVALID_PARAM);
  std::vector<char> small(16);
  EXPECT_CODE(aclmdlLoadFromFileWithMem(model, &id, small.data(), small.size(), nullptr, 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlLoadFromFile(model, &id), ACL_SUCCESS);

  // ---- descriptions
  aclmdlDesc* desc = aclmdlCreateDesc();
  EXPECT(aclmdlGetNumInputs(desc) == 0);  // not filled yet
  EXPECT_CODE(aclmdlGetDesc(desc, 987654), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_CODE(aclmdlGetDesc(nullptr, id), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  EXPECT(aclmdlGetNumInputs(desc) == 1);
  EXPECT(aclmdlGetNumOutputs(desc) == 1);
  EXPECT(aclmdlGetNumInputs(nullptr) == 0);
  EXPECT(aclmdlGetInputSizeByIndex(desc, 5) == 0);
  EXPECT(aclmdlGetInputNameByIndex(desc, 5) == nullptr);
  EXPECT(aclmdlGetInputNameByIndex(nullptr, 0) == nullptr);
  EXPECT(aclmdlGetInputDataType(desc, 0) == ACL_FLOAT);
  EXPECT(aclmdlGetInputDataType(desc, 9) == ACL_DT_UNDEFINED);
  EXPECT(aclmdlGetInputFormat(desc, 0) == ACL_FORMAT_NCHW);
  size_t index = 99;
  EXPECT_CODE(aclmdlGetInputIndexByName(desc, aclmdlGetInputNameByIndex(desc, 0), &index), ACL_SUCCESS);
  EXPECT(index == 0);
  EXPECT_CODE(aclmdlGetInputIndexByName(desc, "no_such_input", &index), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlGetInputIndexByName(desc, nullptr, &index), ACL_ERROR_INVALID_PARAM);
  aclmdlIODims dims;
  EXPECT_CODE(aclmdlGetInputDims(desc, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlGetOutputDims(desc, 3, &dims), ACL_ERROR_INVALID_PARAM);
  aclmdlBatch batch;
  EXPECT_CODE(aclmdlGetDynamicBatch(desc, &batch), ACL_SUCCESS);
  EXPECT(batch.batchCount == 0);
  const size_t in_size = aclmdlGetInputSizeByIndex(desc, 0);
  const size_t out_size = aclmdlGetOutputSizeByIndex(desc, 0);
  EXPECT(in_size > 0 && out_size > 0);

  // ---- buffers and datasets
  EXPECT(aclCreateDataBuffer(nullptr, 8) == nullptr);
  aclDataBuffer* empty = aclCreateDataBuffer(nullptr, 0);
  EXPECT(empty != nullptr);
  EXPECT_CODE(aclDestroyDataBuffer(empty), ACL_SUCCESS);
  EXPECT_CODE(aclDestroyDataBuffer(empty), ACL_ERROR_INVALID_PARAM);  // twice
  EXPECT_CODE(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclGetDataBufferAddr(nullptr) == nullptr);
  EXPECT(aclGetDataBufferSizeV2(nullptr) == 0);
  aclmdlDataset* d = aclmdlCreateDataset();
  EXPECT_CODE(aclmdlAddDatasetBuffer(d, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT(aclmdlGetDatasetBuffer(d, 0) == nullptr);
  EXPECT_CODE(aclmdlDestroyDataset(d), ACL_SUCCESS);
  EXPECT_CODE(aclmdlDestroyDataset(d), ACL_ERROR_INVALID_PARAM);  // twice
  EXPECT(aclmdlGetDatasetNumBuffers(nullptr) == 0);

  // ---- execution
  Sets s;
  s.in = aclmdlCreateDataset();
  s.out = aclmdlCreateDataset();
  EXPECT_CODE(aclmdlExecute(id, s.in, s.out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);  // no buffers
  aclDataBuffer* in_buf = s.add(s.in, in_size - 4);
  s.add(s.out, out_size);
  EXPECT_CODE(aclmdlExecute(id, s.in, s.out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);  // short input
  s.mem.emplace_back(in_size, 0);
  EXPECT_CODE(aclUpdateDataBuffer(in_buf, s.mem.back().data(), in_size), ACL_SUCCESS);
  EXPECT_CODE(aclmdlExecute(id, s.in, s.out), ACL_SUCCESS);
  EXPECT_CODE(aclmdlExecute(987654, s.in, s.out), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_CODE(aclmdlExecute(id, nullptr, s.out), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlExecute(id, s.in, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlExecute(id, s.out, s.in), ACL_ERROR_MODEL_INPUT_NOT_MATCH);  // swapped: sizes differ
  aclDataBuffer* extra = s.add(s.out, 4);
  EXPECT_CODE(aclmdlExecute(id, s.in, s.out), ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);  // two output buffers
  Sets t;
  t.in = aclmdlCreateDataset();
  t.out = aclmdlCreateDataset();
  t.add(t.in, in_size);
  t.add(t.out, out_size / 2);
  EXPECT_CODE(aclmdlExecute(id, t.in, t.out), ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);  // output too small
  EXPECT_CODE(aclmdlSetDynamicBatchSize(id, t.in, 0, 2), ACL_ERROR_MODEL_NOT_DYNAMIC);
  (void)extra;

  // asynchronous: checked at the call, run on the stream
  aclrtStream stream = nullptr;
  EXPECT_CODE(aclrtCreateStream(&stream), ACL_SUCCESS);
  Sets a;
  a.in = aclmdlCreateDataset();
  a.out = aclmdlCreateDataset();
  a.add(a.in, in_size);
  a.add(a.out, out_size);
  for (size_t i = 0; i < in_size / sizeof(float); ++i) reinterpret_cast<float*>(a.mem[0].data())[i] = 0.01f * (i % 7);
  Sets b;
  b.in = aclmdlCreateDataset();
  b.out = aclmdlCreateDataset();
  b.add(b.in, in_size);
  b.add(b.out, out_size);
  std::memcpy(b.mem[0].data(), a.mem[0].data(), in_size);
  EXPECT_CODE(aclmdlExecuteAsync(id, a.in, a.out, stream), ACL_SUCCESS);
  EXPECT_CODE(aclmdlExecuteAsync(id, t.in, t.out, stream), ACL_ERROR_MODEL_OUTPUT_NOT_MATCH);
  EXPECT_CODE(aclmdlExecuteAsync(id, a.in, a.out, reinterpret_cast<aclrtStream>(0x1234)), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  EXPECT_CODE(aclmdlExecute(id, b.in, b.out), ACL_SUCCESS);
  EXPECT(std::memcmp(a.mem[1].data(), b.mem[1].data(), out_size) == 0);  // async == sync
  EXPECT_CODE(aclrtDestroyStream(stream), ACL_SUCCESS);

  // ---- dynamic batch
  uint32_t dyn = 0;
  EXPECT_CODE(aclmdlLoadFromFile(dynamic, &dyn), ACL_SUCCESS);
  aclmdlDesc* ddesc = aclmdlCreateDesc();
  EXPECT_CODE(aclmdlGetDesc(ddesc, dyn), ACL_SUCCESS);
  EXPECT(aclmdlGetNumInputs(ddesc) == 2);
  EXPECT_CODE(aclmdlGetDynamicBatch(ddesc, &batch), ACL_SUCCESS);
  EXPECT(batch.batchCount == 3 && batch.batch[0] == 1 && batch.batch[2] == 4);
  size_t dyn_index = 0;
  EXPECT_CODE(aclmdlGetInputIndexByName(ddesc, ACL_DYNAMIC_TENSOR_NAME, &dyn_index), ACL_SUCCESS);
  EXPECT(dyn_index == 1);
  EXPECT(aclmdlGetInputSizeByIndex(ddesc, 0) == 4 * in_size);  // the largest gear
  Sets g;
  g.in = aclmdlCreateDataset();
  g.out = aclmdlCreateDataset();
  g.add(g.in, aclmdlGetInputSizeByIndex(ddesc, 0));
  g.add(g.in, aclmdlGetInputSizeByIndex(ddesc, 1));
  g.add(g.out, aclmdlGetOutputSizeByIndex(ddesc, 0));
  std::memcpy(g.mem[0].data(), a.mem[0].data(), in_size);  // sample 0 = the static run's input
  EXPECT_CODE(aclmdlExecute(dyn, g.in, g.out), ACL_ERROR_MODEL_INPUT_NOT_MATCH);  // batch not set
  EXPECT_CODE(aclmdlSetDynamicBatchSize(dyn, g.in, dyn_index, 3), ACL_ERROR_INVALID_PARAM);  // not a gear
  EXPECT_CODE(aclmdlSetDynamicBatchSize(dyn, g.in, 0, 2), ACL_ERROR_INVALID_PARAM);          // wrong index
  EXPECT_CODE(aclmdlSetDynamicBatchSize(dyn, g.in, dyn_index, 2), ACL_SUCCESS);
  EXPECT_CODE(aclmdlExecute(dyn, g.in, g.out), ACL_SUCCESS);
  EXPECT(std::memcmp(g.mem[2].data(), a.mem[1].data(), out_size) == 0);  // sample 0 as the static model
  EXPECT_CODE(aclmdlGetCurOutputDims(ddesc, 0, &dims), ACL_SUCCESS);
  EXPECT(dims.dimCount >= 1 && dims.dims[0] == 2);
  EXPECT_CODE(aclmdlGetOutputDims(ddesc, 0, &dims), ACL_SUCCESS);
  EXPECT(dims.dims[0] == -1);

  // ---- unload
  EXPECT_CODE(aclmdlUnload(id), ACL_SUCCESS);
  EXPECT_CODE(aclmdlUnload(id), ACL_ERROR_INVALID_MODEL_ID);  // twice
  EXPECT_CODE(aclmdlExecute(id, b.in, b.out), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT(aclmdlGetNumInputs(desc) == 1);  // the description is a snapshot

  // ---- after aclFinalize
  EXPECT_CODE(aclFinalize(), ACL_SUCCESS);
  EXPECT_CODE(aclmdlExecute(dyn, g.in, g.out), ACL_ERROR_UNINITIALIZE);
  EXPECT_CODE(aclmdlLoadFromFile(model, &id), ACL_ERROR_UNINITIALIZE);
  EXPECT_CODE(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_CODE(aclmdlExecute(dyn, g.in, g.out), ACL_ERROR_INVALID_MODEL_ID);  // unloaded by aclFinalize
  EXPECT_CODE(aclmdlUnload(dyn), ACL_ERROR_INVALID_MODEL_ID);
  EXPECT_CODE(aclmdlLoadFromFile(model, &id), ACL_SUCCESS);
  EXPECT_CODE(aclmdlExecute(id, b.in, b.out), ACL_SUCCESS);
  EXPECT_CODE(aclmdlUnload(id), ACL_SUCCESS);

  s.destroy();
  t.destroy();
  a.destroy();
  b.destroy();
  g.destroy();
  EXPECT_CODE(aclmdlDestroyDesc(desc), ACL_SUCCESS);
  EXPECT_CODE(aclmdlDestroyDesc(desc), ACL_ERROR_INVALID_PARAM);
  EXPECT_CODE(aclmdlDestroyDesc(ddesc), ACL_SUCCESS);
  EXPECT_CODE(aclFinalize(), ACL_SUCCESS);
  std::printf("checks %d failed %d\n", g_checks, g_failed);
  return g_failed ? 1 : 0;
}
