// ResNet-50 (or any one-input classification model) with the ACL model API, CANN's classic
// sample flow: aclInit -> aclrtSetDevice -> context/stream -> aclmdlLoadFromFile(.om from
// pyasc-atc) -> datasets sized by the model description -> aclmdlExecute -> read the logits ->
// top-5 -> teardown. The input is a preprocessed tensor in a raw .bin file (float32 NCHW, exactly
// the model's input size), as CANN's samples read it.
//
//   resnet50_acl model.om input.bin [--top K] [--output logits.bin]
//
// Prints "top <i>: index[<class>] value[<logit>]" lines; --output writes the first output's raw
// bytes. Exit status 0 on success, 1 with the ACL error code and aclGetRecentErrMsg() otherwise.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "acl/acl.h"

#define CHECK_ACL(call)                                                                           \
  do {                                                                                            \
    aclError err_ = (call);                                                                       \
    if (err_ != ACL_SUCCESS) {                                                                    \
      std::fprintf(stderr, "%s failed: error %d: %s\n", #call, err_, aclGetRecentErrMsg());       \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

static bool read_file(const char* path, std::vector<char>* out) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  std::fseek(f, 0, SEEK_END);
  long n = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  out->resize(n > 0 ? static_cast<size_t>(n) : 0);
  bool ok = n >= 0 && std::fread(out->data(), 1, out->size(), f) == out->size();
  std::fclose(f);
  return ok;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s model.om input.bin [--top K] [--output logits.bin]\n", argv[0]);
    return 2;
  }
  const char* model_path = argv[1];
  const char* input_path = argv[2];
  size_t top = 5;
  const char* output_path = nullptr;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--top")) top = static_cast<size_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--output")) output_path = argv[i + 1];
  }

  // ---- resources
  CHECK_ACL(aclInit(nullptr));
  CHECK_ACL(aclrtSetDevice(0));
  aclrtContext context = nullptr;
  CHECK_ACL(aclrtCreateContext(&context, 0));
  aclrtStream stream = nullptr;
  CHECK_ACL(aclrtCreateStream(&stream));
  aclrtRunMode mode;
  CHECK_ACL(aclrtGetRunMode(&mode));
  const bool host = mode == ACL_HOST;

  // ---- model
  uint32_t model_id = 0;
  CHECK_ACL(aclmdlLoadFromFile(model_path, &model_id));
  aclmdlDesc* desc = aclmdlCreateDesc();
  if (!desc) return 1;
  CHECK_ACL(aclmdlGetDesc(desc, model_id));
  if (aclmdlGetNumInputs(desc) != 1) {
    std::fprintf(stderr, "this sample feeds one input; the model has %zu\n", aclmdlGetNumInputs(desc));
    return 1;
  }
  aclmdlIODims in_dims;
  CHECK_ACL(aclmdlGetInputDims(desc, 0, &in_dims));
  std::printf("model %u: input '%s' [", model_id, aclmdlGetInputNameByIndex(desc, 0));
  for (size_t i = 0; i < in_dims.dimCount; ++i) std::printf("%s%lld", i ? "," : "", (long long)in_dims.dims[i]);
  std::printf("], %zu output(s)\n", aclmdlGetNumOutputs(desc));

  // ---- input: the preprocessed tensor, copied into device memory
  std::vector<char> input;
  if (!read_file(input_path, &input)) {
    std::fprintf(stderr, "cannot read %s\n", input_path);
    return 1;
  }
  const size_t in_size = aclmdlGetInputSizeByIndex(desc, 0);
  if (input.size() != in_size) {
    std::fprintf(stderr, "%s holds %zu bytes; the model's input needs %zu\n", input_path, input.size(), in_size);
    return 1;
  }
  void* in_dev = nullptr;
  CHECK_ACL(aclrtMalloc(&in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK_ACL(aclrtMemcpy(in_dev, in_size, input.data(), in_size, host ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_DEVICE));
  aclmdlDataset* in_set = aclmdlCreateDataset();
  aclDataBuffer* in_buf = aclCreateDataBuffer(in_dev, in_size);
  CHECK_ACL(aclmdlAddDatasetBuffer(in_set, in_buf));

  // ---- outputs: one device buffer per output, sized by the description
  aclmdlDataset* out_set = aclmdlCreateDataset();
  std::vector<void*> out_dev;
  for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
    const size_t n = aclmdlGetOutputSizeByIndex(desc, i);
    void* p = nullptr;
    CHECK_ACL(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
    out_dev.push_back(p);
    CHECK_ACL(aclmdlAddDatasetBuffer(out_set, aclCreateDataBuffer(p, n)));
  }

  // ---- inference
  CHECK_ACL(aclmdlExecute(model_id, in_set, out_set));

  // ---- the first output's logits back to the host, top-K
  aclDataBuffer* logits_buf = aclmdlGetDatasetBuffer(out_set, 0);
  const size_t out_size = aclGetDataBufferSizeV2(logits_buf);
  if (aclmdlGetOutputDataType(desc, 0) != ACL_FLOAT) {
    std::fprintf(stderr, "output 0 is not float32\n");
    return 1;
  }
  void* out_host = nullptr;
  CHECK_ACL(aclrtMallocHost(&out_host, out_size));
  CHECK_ACL(aclrtMemcpy(out_host, out_size, aclGetDataBufferAddr(logits_buf), out_size,
                        host ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_DEVICE_TO_DEVICE));
  const float* logits = static_cast<const float*>(out_host);
  const size_t classes = out_size / sizeof(float);
  std::vector<size_t> order(classes);
  std::iota(order.begin(), order.end(), 0);
  top = std::min(top, classes);
  std::partial_sort(order.begin(), order.begin() + top, order.end(),
                    [&](size_t a, size_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
  std::printf("%zu classes\n", classes);
  for (size_t i = 0; i < top; ++i) std::printf("top %zu: index[%zu] value[%.6f]\n", i + 1, order[i], logits[order[i]]);
  if (output_path) {
    std::FILE* f = std::fopen(output_path, "wb");
    if (!f || std::fwrite(out_host, 1, out_size, f) != out_size) {
      std::fprintf(stderr, "cannot write %s\n", output_path);
      if (f) std::fclose(f);
      return 1;
    }
    std::fclose(f);
  }

  // ---- teardown, in the reverse order
  CHECK_ACL(aclrtFreeHost(out_host));
  for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(out_set); ++i)
    CHECK_ACL(aclDestroyDataBuffer(aclmdlGetDatasetBuffer(out_set, i)));
  CHECK_ACL(aclmdlDestroyDataset(out_set));
  for (void* p : out_dev) CHECK_ACL(aclrtFree(p));
  CHECK_ACL(aclDestroyDataBuffer(in_buf));
  CHECK_ACL(aclmdlDestroyDataset(in_set));
  CHECK_ACL(aclrtFree(in_dev));
  CHECK_ACL(aclmdlDestroyDesc(desc));
  CHECK_ACL(aclmdlUnload(model_id));
  CHECK_ACL(aclrtDestroyStream(stream));
  CHECK_ACL(aclrtDestroyContext(context));
  CHECK_ACL(aclrtResetDevice(0));
  CHECK_ACL(aclFinalize());
  return 0;
}
