// The ACL host API (acl/acl.h) over the CPU runtime: a typical host program,
// error codes for misuse, kernel errors, events, callbacks, memset and async
// copies.
#include <gtest/gtest.h>

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "asc/runtime/launch.h"

using asc::runtime::current_block;

// ---------------------------------------------------------------- kernels
// Plain C++ kernels (extern "C" and exported, so launches are named after them).

extern "C" void acl_test_vadd(const float* x, const float* y, float* z, uint32_t n) {
  const auto* b = current_block();
  const uint32_t per = (n + b->block_num - 1) / b->block_num;
  const uint32_t begin = b->block_idx * per;
  const uint32_t end = begin + per < n ? begin + per : n;
  for (uint32_t i = begin; i < end; ++i) z[i] = x[i] + y[i];
}

extern "C" void acl_test_scale(float* z, float factor, uint32_t n) {
  if (current_block()->block_idx != 0) return;
  for (uint32_t i = 0; i < n; ++i) z[i] *= factor;
}

extern "C" void acl_test_fail_block2(int* unused) {
  (void)unused;
  if (current_block()->block_idx == 2) throw std::runtime_error("lane exploded");
}

extern "C" void acl_test_index_error(int* unused) {
  (void)unused;
  throw asc::Error(asc::ErrorCode::kIndexOutOfRange, "[GetValue] index 99 out of range");
}

extern "C" void acl_test_sleep_then_set(int ms, std::atomic<int>* flag) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  if (flag) flag->store(1);
}

extern "C" void acl_test_read_flag(std::atomic<int>* flag, int* seen) { *seen = flag->load(); }

extern "C" void acl_test_push(std::vector<int>* log, std::atomic<int>* counter) {
  log->push_back(counter->fetch_add(1));
}

// ---------------------------------------------------------------- fixture

class Acl : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
    (void)aclGetRecentErrMsg();
  }
  void TearDown() override {
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS) << aclGetRecentErrMsg();
  }
  static std::string msg() { return aclGetRecentErrMsg(); }
};

#define EXPECT_ACL_ERROR(call, code, fragment)                                       \
  do {                                                                               \
    aclError _rc = (call);                                                           \
    EXPECT_EQ(_rc, (code)) << #call;                                                 \
    std::string _m = aclGetRecentErrMsg();                                           \
    EXPECT_NE(_m.find(fragment), std::string::npos) << #call << " message: " << _m; \
  } while (0)

// ---------------------------------------------------------------- host program

TEST_F(Acl, TypicalHostProgram) {
  // (aclInit and aclrtSetDevice ran in SetUp, as a program's main would.)
  uint32_t count = 0;
  ASSERT_EQ(aclrtGetDeviceCount(&count), ACL_SUCCESS);
  EXPECT_EQ(count, 1u);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ASSERT_NE(stream, nullptr);

  constexpr uint32_t n = 4099;
  const size_t bytes = n * sizeof(float);
  void *x = nullptr, *y = nullptr, *z = nullptr, *host = nullptr;
  ASSERT_EQ(aclrtMalloc(&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&y, bytes, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&z, bytes, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  ASSERT_EQ(aclrtMallocHost(&host, bytes), ACL_SUCCESS);
  auto* h = static_cast<float*>(host);

  for (uint32_t i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  ASSERT_EQ(aclrtMemcpy(x, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << msg();
  for (uint32_t i = 0; i < n; ++i) h[i] = 0.5f * static_cast<float>(i);
  ASSERT_EQ(aclrtMemcpy(y, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << msg();

  EXPECT_EQ(ACLRT_LAUNCH_KERNEL(acl_test_vadd)(8, stream, static_cast<const float*>(x),
                                               static_cast<const float*>(y), static_cast<float*>(z), n),
            0u);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS) << msg();

  std::memset(host, 0, bytes);
  ASSERT_EQ(aclrtMemcpy(host, bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS) << msg();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(h[i], 1.5f * static_cast<float>(i)) << i;

  EXPECT_EQ(aclrtFree(x), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(y), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(z), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  EXPECT_EQ(msg(), "");  // no call failed
}

TEST_F(Acl, NullStreamIsTheThreadsCurrentStream) {
  std::vector<float> out(64, 1.0f);
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(d, 256, out.data(), 256, ACL_MEMCPY_HOST_TO_DEVICE, nullptr), ACL_SUCCESS);
  ACLRT_LAUNCH_KERNEL(acl_test_scale)(1, nullptr, static_cast<float*>(d), 3.0f, 64u);
  ASSERT_EQ(aclrtMemcpyAsync(out.data(), 256, d, 256, ACL_MEMCPY_DEVICE_TO_HOST, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << msg();
  for (float v : out) EXPECT_EQ(v, 3.0f);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
}

// ---------------------------------------------------------------- init / device

TEST(AclInit, InitFinalizeCodes) {
  (void)aclFinalize();  // whatever the state was, the API is now not initialized
  (void)aclGetRecentErrMsg();
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_ACL_ERROR(aclInit(nullptr), ACL_ERROR_REPEAT_INITIALIZE, "[aclInit] already initialized");
  EXPECT_ACL_ERROR(aclInit(""), ACL_ERROR_REPEAT_INITIALIZE, "[aclInit]");
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE, "[aclFinalize] already finalized");

  EXPECT_ACL_ERROR(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE, "/nonexistent/acl.json");
  char path[] = "/tmp/pyasc_acl_cfg_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "{}", 2), 2);
  close(fd);
  EXPECT_EQ(aclInit(path), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  std::remove(path);

  int32_t major = -1, minor = -1, patch = -1;
  EXPECT_EQ(aclGetVersion(&major, &minor, &patch), ACL_SUCCESS);
  EXPECT_GE(major, 0);
  EXPECT_ACL_ERROR(aclGetVersion(nullptr, &minor, &patch), ACL_ERROR_INVALID_PARAM, "[aclGetVersion]");
}

TEST_F(Acl, DevicesAndContexts) {
  EXPECT_ACL_ERROR(aclrtSetDevice(1), ACL_ERROR_RT_INVALID_DEVICEID, "[aclrtSetDevice] device id 1");
  EXPECT_ACL_ERROR(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID, "device id -1");
  EXPECT_ACL_ERROR(aclrtResetDevice(7), ACL_ERROR_RT_INVALID_DEVICEID, "[aclrtResetDevice]");
  int32_t dev = -1;
  EXPECT_EQ(aclrtGetDevice(&dev), ACL_SUCCESS);
  EXPECT_EQ(dev, 0);
  aclrtRunMode mode = ACL_DEVICE;
  EXPECT_EQ(aclrtGetRunMode(&mode), ACL_SUCCESS);
  EXPECT_EQ(mode, ACL_HOST);

  aclrtContext def = nullptr, ctx = nullptr, cur = nullptr;
  EXPECT_EQ(aclrtGetCurrentContext(&def), ACL_SUCCESS);
  EXPECT_NE(def, nullptr);
  EXPECT_EQ(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetCurrentContext(&cur), ACL_SUCCESS);
  EXPECT_EQ(cur, ctx);  // a new context becomes current
  EXPECT_EQ(aclrtSetCurrentContext(def), ACL_SUCCESS);
  EXPECT_EQ(aclrtGetCurrentContext(&cur), ACL_SUCCESS);
  EXPECT_EQ(cur, def);
  EXPECT_ACL_ERROR(aclrtCreateContext(&ctx, 3), ACL_ERROR_RT_INVALID_DEVICEID, "[aclrtCreateContext]");
  EXPECT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtDestroyContext(ctx), ACL_ERROR_INVALID_PARAM, "[aclrtDestroyContext]");
  EXPECT_ACL_ERROR(aclrtSetCurrentContext(ctx), ACL_ERROR_INVALID_PARAM, "[aclrtSetCurrentContext]");
  EXPECT_ACL_ERROR(aclrtDestroyContext(def), ACL_ERROR_INVALID_PARAM, "default context");

  // Another thread has no device until it sets one.
  std::thread([] {
    int32_t d = -1;
    EXPECT_ACL_ERROR(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL, "[aclrtGetDevice]");
    aclrtContext c = nullptr;
    EXPECT_ACL_ERROR(aclrtGetCurrentContext(&c), ACL_ERROR_RT_CONTEXT_NULL, "[aclrtGetCurrentContext]");
  }).join();

  size_t free_bytes = 0, total = 0;
  EXPECT_EQ(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total), ACL_SUCCESS);
  EXPECT_GT(total, 0u);
  EXPECT_LE(free_bytes, total);
  EXPECT_ACL_ERROR(aclrtGetMemInfo(static_cast<aclrtMemAttr>(99), &free_bytes, &total), ACL_ERROR_INVALID_PARAM,
                   "invalid aclrtMemAttr 99");
}

// ---------------------------------------------------------------- misuse

TEST_F(Acl, NullOutPointers) {
  EXPECT_ACL_ERROR(aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM,
                   "[aclrtMalloc] devPtr is null");
  EXPECT_ACL_ERROR(aclrtMallocHost(nullptr, 64), ACL_ERROR_INVALID_PARAM, "[aclrtMallocHost] hostPtr is null");
  EXPECT_ACL_ERROR(aclrtCreateStream(nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtCreateStream] stream is null");
  EXPECT_ACL_ERROR(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtCreateEvent] event is null");
  EXPECT_ACL_ERROR(aclrtGetDeviceCount(nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtGetDeviceCount]");
  EXPECT_ACL_ERROR(aclrtGetDevice(nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtGetDevice]");
  EXPECT_ACL_ERROR(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtGetRunMode]");
  EXPECT_ACL_ERROR(aclrtCreateContext(nullptr, 0), ACL_ERROR_INVALID_PARAM, "[aclrtCreateContext]");
  EXPECT_ACL_ERROR(aclrtGetMemInfo(ACL_HBM_MEM, nullptr, nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtGetMemInfo]");
  aclrtEvent e = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(nullptr, e, e), ACL_ERROR_INVALID_PARAM, "[aclrtEventElapsedTime] ms");
  EXPECT_ACL_ERROR(aclrtQueryEventStatus(e, nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtQueryEventStatus]");
  EXPECT_ACL_ERROR(aclrtStreamQuery(nullptr, nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtStreamQuery]");
  EXPECT_ACL_ERROR(aclrtRecordEvent(nullptr, nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtRecordEvent] event is null");
  EXPECT_ACL_ERROR(aclrtDestroyStream(nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtDestroyStream]");
  EXPECT_ACL_ERROR(aclrtLaunchCallback(nullptr, nullptr, ACL_CALLBACK_BLOCK, nullptr), ACL_ERROR_INVALID_PARAM,
                   "[aclrtLaunchCallback] fn is null");
  EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
}

TEST_F(Acl, MallocErrors) {
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_ACL_ERROR(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM, "size must be");
  EXPECT_EQ(p, nullptr);
  EXPECT_ACL_ERROR(aclrtMalloc(&p, 64, static_cast<aclrtMemMallocPolicy>(42)), ACL_ERROR_INVALID_PARAM,
                   "invalid aclrtMemMallocPolicy 42");
  EXPECT_ACL_ERROR(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM, "[aclrtMallocHost] size");
  // Bandwidth bits may be or-ed into the policy.
  ASSERT_EQ(aclrtMalloc(&p, 64,
                        static_cast<aclrtMemMallocPolicy>(ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH)),
            ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
}

TEST_F(Acl, FreeErrors) {
  EXPECT_ACL_ERROR(aclrtFree(nullptr), ACL_ERROR_INVALID_PARAM, "[aclrtFree] devPtr is null");
  int local = 0;
  EXPECT_ACL_ERROR(aclrtFree(&local), ACL_ERROR_RT_MEMORY_FREE, "not allocated by aclrtMalloc");
  void *d = nullptr, *h = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMallocHost(&h, 128), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtFree(h), ACL_ERROR_RT_MEMORY_FREE, "free it with aclrtFreeHost");
  EXPECT_ACL_ERROR(aclrtFreeHost(d), ACL_ERROR_RT_MEMORY_FREE, "free it with aclrtFree");
  EXPECT_ACL_ERROR(aclrtFree(static_cast<char*>(d) + 8), ACL_ERROR_RT_MEMORY_FREE, "[aclrtFree]");
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtFree(d), ACL_ERROR_RT_MEMORY_FREE, "already freed");
  EXPECT_EQ(aclrtFreeHost(h), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtFreeHost(h), ACL_ERROR_RT_MEMORY_FREE, "[aclrtFreeHost]");
}

TEST_F(Acl, MemcpyErrors) {
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<char> host(512, 7);

  EXPECT_ACL_ERROR(aclrtMemcpy(d, 128, host.data(), 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
                   "count (256 bytes) exceeds destMax (128 bytes)");
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 256, host.data(), 16, static_cast<aclrtMemcpyKind>(9)), ACL_ERROR_INVALID_PARAM,
                   "invalid aclrtMemcpyKind 9");
  EXPECT_ACL_ERROR(aclrtMemcpy(nullptr, 256, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
                   "dst is null");
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 256, nullptr, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
                   "src is null");
  // The kind must match where the memory lives.
  EXPECT_ACL_ERROR(aclrtMemcpy(host.data(), 512, d, 16, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_INVALID_PARAM,
                   "is not device memory");
  EXPECT_ACL_ERROR(aclrtMemcpy(d, 256, host.data(), 16, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_INVALID_PARAM,
                   "is device memory but ACL_MEMCPY_DEVICE_TO_HOST needs a host dst");
  // A device range may not leave its block.
  EXPECT_ACL_ERROR(aclrtMemcpy(static_cast<char*>(d) + 200, 512, host.data(), 100, ACL_MEMCPY_HOST_TO_DEVICE),
                   ACL_ERROR_INVALID_PARAM, "runs past the end of the 256-byte device block");
  // The async form checks the same at the call.
  EXPECT_ACL_ERROR(aclrtMemcpyAsync(d, 8, host.data(), 16, ACL_MEMCPY_HOST_TO_DEVICE, nullptr),
                   ACL_ERROR_INVALID_PARAM, "[aclrtMemcpyAsync] count (16 bytes) exceeds destMax (8 bytes)");

  // Valid: H2D, D2D inside the block, DEFAULT inferred, H2H, zero bytes.
  EXPECT_EQ(aclrtMemcpy(d, 256, host.data(), 128, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS) << msg();
  EXPECT_EQ(aclrtMemcpy(static_cast<char*>(d) + 128, 128, d, 128, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS)
      << msg();
  std::vector<char> back(256, 0);
  EXPECT_EQ(aclrtMemcpy(back.data(), 256, d, 256, ACL_MEMCPY_DEFAULT), ACL_SUCCESS) << msg();
  for (char c : back) EXPECT_EQ(c, 7);
  EXPECT_EQ(aclrtMemcpy(back.data(), 256, host.data(), 0, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
}

TEST_F(Acl, DestroyedAndUnknownStreams) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM, "destroyed by aclrtDestroyStream");
  EXPECT_ACL_ERROR(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM, "already destroyed");
  std::vector<char> a(16), b(16);
  EXPECT_ACL_ERROR(aclrtMemcpyAsync(a.data(), 16, b.data(), 16, ACL_MEMCPY_HOST_TO_HOST, s),
                   ACL_ERROR_INVALID_PARAM, "[aclrtMemcpyAsync] stream");
  aclrtEvent e = nullptr;
  ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtRecordEvent(e, s), ACL_ERROR_INVALID_PARAM, "[aclrtRecordEvent]");
  EXPECT_ACL_ERROR(aclrtStreamWaitEvent(s, e), ACL_ERROR_INVALID_PARAM, "[aclrtStreamWaitEvent]");
  EXPECT_ACL_ERROR(aclrtLaunchCallback([](void*) {}, nullptr, ACL_CALLBACK_BLOCK, s), ACL_ERROR_INVALID_PARAM,
                   "[aclrtLaunchCallback]");
  int not_a_stream = 0;
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(&not_a_stream), ACL_ERROR_INVALID_PARAM, "not created by aclrtCreateStream");
  EXPECT_ACL_ERROR(aclrtDestroyStream(&not_a_stream), ACL_ERROR_INVALID_PARAM, "not created by aclrtCreateStream");

  EXPECT_EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtDestroyEvent(e), ACL_ERROR_INVALID_PARAM, "destroyed by aclrtDestroyEvent");
  EXPECT_ACL_ERROR(aclrtSynchronizeEvent(e), ACL_ERROR_INVALID_PARAM, "[aclrtSynchronizeEvent]");
  EXPECT_ACL_ERROR(aclrtSynchronizeEvent(&not_a_stream), ACL_ERROR_INVALID_PARAM, "not created by aclrtCreateEvent");
}

TEST_F(Acl, ResetDeviceReleasesWhatTheProgramLeft) {
  aclrtStream s = nullptr;
  void *d = nullptr, *h = nullptr;
  aclrtEvent e = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&d, 1024, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMallocHost(&h, 1024), ACL_SUCCESS);
  std::atomic<int> flag{0};
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, s, 20, &flag);
  // A second reference keeps the device; the last reset releases.
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(flag.load(), 1);  // pending work finished first
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM, "destroyed");
  EXPECT_ACL_ERROR(aclrtSynchronizeEvent(e), ACL_ERROR_INVALID_PARAM, "destroyed");
  EXPECT_ACL_ERROR(aclrtFree(d), ACL_ERROR_RT_MEMORY_FREE, "[aclrtFree]");
  EXPECT_ACL_ERROR(aclrtFreeHost(h), ACL_ERROR_RT_MEMORY_FREE, "[aclrtFreeHost]");
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);  // for TearDown
}

// ---------------------------------------------------------------- kernel errors

TEST_F(Acl, KernelErrorSurfacesAtSynchronizeStream) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ACLRT_LAUNCH_KERNEL(acl_test_fail_block2)(8, s, nullptr);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION);
  std::string m = aclGetRecentErrMsg();
  EXPECT_EQ(m.rfind("[aclrtSynchronizeStream] ", 0), 0u) << m;
  EXPECT_NE(m.find("[acl_test_fail_block2] block 2 of 8"), std::string::npos) << m;
  EXPECT_NE(m.find("lane exploded"), std::string::npos) << m;
  EXPECT_STREQ(aclGetRecentErrMsg(), "");  // reading cleared it

  // The stream stays usable and the error was reported once.
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  // A kernel API error keeps its own code.
  ACLRT_LAUNCH_KERNEL(acl_test_index_error)(1, s, nullptr);
  EXPECT_EQ(aclrtSynchronizeStream(s), static_cast<aclError>(asc::ErrorCode::kIndexOutOfRange));
  EXPECT_NE(msg().find("[GetValue] index 99"), std::string::npos);
  // An error pending at aclrtDestroyStream is returned by it.
  ACLRT_LAUNCH_KERNEL(acl_test_fail_block2)(4, s, nullptr);
  EXPECT_ACL_ERROR(aclrtDestroyStream(s), ACL_ERROR_RT_AICORE_EXCEPTION, "[aclrtDestroyStream] [acl_test_fail_block2]");
  // The stream is gone regardless.
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
}

TEST_F(Acl, ErrorMessagesArePerThread) {
  EXPECT_NE(aclrtFree(nullptr), ACL_SUCCESS);
  std::string other;
  std::thread([&] {
    other = aclGetRecentErrMsg();
    EXPECT_NE(aclrtMallocHost(nullptr, 1), ACL_SUCCESS);
    EXPECT_NE(std::string(aclGetRecentErrMsg()).find("[aclrtMallocHost]"), std::string::npos);
  }).join();
  EXPECT_EQ(other, "");
  const char* mine = aclGetRecentErrMsg();
  EXPECT_NE(std::string(mine).find("[aclrtFree]"), std::string::npos);
  // The pointer stays valid across further failing calls until the next read.
  EXPECT_NE(aclrtMallocHost(nullptr, 1), ACL_SUCCESS);
  EXPECT_NE(std::string(mine).find("[aclrtFree]"), std::string::npos);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("[aclrtMallocHost]"), std::string::npos);
}

// ---------------------------------------------------------------- events

TEST_F(Acl, EventElapsedTimeAndStatus) {
  aclrtStream s = nullptr;
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&start), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE), ACL_SUCCESS);

  float ms = -1.0f;
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_INVALID_PARAM, "never recorded");
  aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  EXPECT_EQ(aclrtQueryEventStatus(start, &rs), ACL_SUCCESS);
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
  EXPECT_EQ(aclrtSynchronizeEvent(start), ACL_SUCCESS);  // never recorded: returns at once

  ASSERT_EQ(aclrtRecordEvent(start, s), ACL_SUCCESS);
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, s, 30, nullptr);
  ASSERT_EQ(aclrtRecordEvent(end, s), ACL_SUCCESS);
  aclrtEventStatus es = ACL_EVENT_STATUS_COMPLETE;
  EXPECT_EQ(aclrtQueryEvent(end, &es), ACL_SUCCESS);
  EXPECT_EQ(es, ACL_EVENT_STATUS_NOT_READY);
  aclrtStreamStatus ss = ACL_STREAM_STATUS_COMPLETE;
  EXPECT_EQ(aclrtStreamQuery(s, &ss), ACL_SUCCESS);
  EXPECT_EQ(ss, ACL_STREAM_STATUS_NOT_READY);
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_INVALID_PARAM, "not completed");

  ASSERT_EQ(aclrtSynchronizeEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtQueryEvent(end, &es), ACL_SUCCESS);
  EXPECT_EQ(es, ACL_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(aclrtQueryEventStatus(end, &rs), ACL_SUCCESS);
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_COMPLETE);
  ASSERT_EQ(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS) << msg();
  EXPECT_GE(ms, 25.0f);
  EXPECT_LT(ms, 5000.0f);
  EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtStreamQuery(s, &ss), ACL_SUCCESS);
  EXPECT_EQ(ss, ACL_STREAM_STATUS_COMPLETE);

  // Reset returns the event to "never recorded".
  ASSERT_EQ(aclrtResetEvent(end, s), ACL_SUCCESS);
  EXPECT_EQ(aclrtQueryEventStatus(end, &rs), ACL_SUCCESS);
  EXPECT_EQ(rs, ACL_EVENT_RECORDED_STATUS_NOT_READY);
  EXPECT_ACL_ERROR(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_INVALID_PARAM, "end event was never recorded");

  EXPECT_EQ(aclrtDestroyEvent(start), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyEvent(end), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(Acl, CrossStreamWait) {
  aclrtStream producer = nullptr, consumer = nullptr;
  aclrtEvent ready = nullptr;
  ASSERT_EQ(aclrtCreateStream(&producer), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&consumer), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateEvent(&ready), ACL_SUCCESS);
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> flag{0};
    int seen = -1;
    ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, producer, 40, &flag);
    ASSERT_EQ(aclrtRecordEvent(ready, producer), ACL_SUCCESS);
    ASSERT_EQ(aclrtStreamWaitEvent(consumer, ready), ACL_SUCCESS);
    ACLRT_LAUNCH_KERNEL(acl_test_read_flag)(1, consumer, &flag, &seen);
    ASSERT_EQ(aclrtSynchronizeStream(consumer), ACL_SUCCESS);
    EXPECT_EQ(seen, 1) << "round " << round;  // the consumer waited for the producer
    ASSERT_EQ(aclrtSynchronizeStream(producer), ACL_SUCCESS);
  }
  EXPECT_EQ(aclrtDestroyEvent(ready), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(producer), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(consumer), ACL_SUCCESS);
}

// ---------------------------------------------------------------- callbacks

namespace {
struct CallbackLog {
  std::vector<int>* log;
  std::atomic<int>* counter;
};
void log_callback(void* data) {
  auto* c = static_cast<CallbackLog*>(data);
  c->log->push_back(c->counter->fetch_add(1) + 1000);
}
}  // namespace

TEST_F(Acl, BlockingCallbacksRunInStreamOrder) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  std::vector<int> log;
  std::atomic<int> counter{0};
  CallbackLog data{&log, &counter};
  for (int i = 0; i < 3; ++i) {
    ACLRT_LAUNCH_KERNEL(acl_test_push)(1, s, &log, &counter);
    ASSERT_EQ(aclrtLaunchCallback(log_callback, &data, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
  }
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS) << msg();
  EXPECT_EQ(log, (std::vector<int>{0, 1001, 2, 1003, 4, 1005}));

  // The stream's later work waits for a blocking callback.
  std::atomic<int> flag{0};
  int seen = -1;
  ASSERT_EQ(aclrtLaunchCallback(
                [](void* f) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(30));
                  static_cast<std::atomic<int>*>(f)->store(1);
                },
                &flag, ACL_CALLBACK_BLOCK, s),
            ACL_SUCCESS);
  ACLRT_LAUNCH_KERNEL(acl_test_read_flag)(1, s, &flag, &seen);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(seen, 1);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(Acl, NonBlockingCallbacksDoNotHoldTheStream) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  struct Shared {
    std::atomic<int> kernel_done{0};
    std::atomic<int> saw_kernel{-1};
    std::atomic<int> order{0};
    int first = -1, second = -1;
  } sh;
  // The callback waits for a kernel enqueued after it: this only finishes if
  // the stream does not wait for the callback.
  ASSERT_EQ(aclrtLaunchCallback(
                [](void* p) {
                  auto* s = static_cast<Shared*>(p);
                  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                  while (!s->kernel_done.load() && std::chrono::steady_clock::now() < deadline)
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                  s->saw_kernel.store(s->kernel_done.load());
                  s->first = s->order.fetch_add(1);
                },
                &sh, ACL_CALLBACK_NO_BLOCK, s),
            ACL_SUCCESS);
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, s, 5, &sh.kernel_done);
  // NO_BLOCK callbacks still run in order with each other.
  ASSERT_EQ(aclrtLaunchCallback([](void* p) { static_cast<Shared*>(p)->second = static_cast<Shared*>(p)->order.fetch_add(1); },
                                &sh, ACL_CALLBACK_NO_BLOCK, s),
            ACL_SUCCESS);
  // aclrtSynchronizeStream also waits for the callbacks the stream dispatched.
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS) << msg();
  EXPECT_EQ(sh.saw_kernel.load(), 1);
  EXPECT_EQ(sh.first, 0);
  EXPECT_EQ(sh.second, 1);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(Acl, CallbackMisuse) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtLaunchCallback([](void*) {}, nullptr, static_cast<aclrtCallbackBlockType>(5), s),
                   ACL_ERROR_INVALID_PARAM, "invalid aclrtCallbackBlockType 5");
  // Synchronizing a stream from its own blocking callback is refused, not a deadlock.
  struct Ctx {
    aclrtStream s = nullptr;
    aclError rc = -1;
    std::string m;
  } ctx;
  ctx.s = s;
  ASSERT_EQ(aclrtLaunchCallback(
                [](void* p) {
                  auto* c = static_cast<Ctx*>(p);
                  c->rc = aclrtSynchronizeStream(c->s);
                  c->m = aclGetRecentErrMsg();
                },
                &ctx, ACL_CALLBACK_BLOCK, s),
            ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  EXPECT_EQ(ctx.rc, ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(ctx.m.find("would deadlock"), std::string::npos) << ctx.m;
  // A C++ callback that throws becomes the stream's error, not a crash.
  ASSERT_EQ(aclrtLaunchCallback([](void*) { throw std::runtime_error("callback failed"); }, nullptr,
                                ACL_CALLBACK_BLOCK, s),
            ACL_SUCCESS);
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_RT_AICORE_EXCEPTION, "callback failed");
  // A stream may be destroyed from its own blocking callback.
  ASSERT_EQ(aclrtLaunchCallback([](void* p) { EXPECT_EQ(aclrtDestroyStream(p), ACL_SUCCESS); }, s,
                                ACL_CALLBACK_BLOCK, s),
            ACL_SUCCESS);
  for (int i = 0; i < 2000; ++i) {
    aclrtStreamStatus st;
    if (aclrtStreamQuery(s, &st) != ACL_SUCCESS) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_ACL_ERROR(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM, "destroyed");
}

TEST_F(Acl, SubscribedThreadRunsCallbacks) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  std::atomic<bool> stop{false};
  pthread_t report_tid{};
  std::atomic<bool> started{false};
  std::thread reporter([&] {
    report_tid = pthread_self();
    started = true;
    while (!stop.load()) {
      aclError rc = aclrtProcessReport(20);
      if (rc != ACL_ERROR_RT_REPORT_TIMEOUT) {
        EXPECT_EQ(rc, ACL_SUCCESS);
      }
    }
  });
  while (!started.load()) std::this_thread::yield();
  const uint64_t tid = static_cast<uint64_t>(report_tid);
  ASSERT_EQ(aclrtSubscribeReport(tid, s), ACL_SUCCESS) << msg();
  EXPECT_ACL_ERROR(aclrtSubscribeReport(tid, s), ACL_ERROR_REPEAT_SUBSCRIBE, "already subscribed");

  struct Seen {
    pthread_t thread{};
    std::atomic<int> calls{0};
  } seen;
  std::atomic<int> flag{0};
  int read = -1;
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, s, 10, &flag);
  ASSERT_EQ(aclrtLaunchCallback(
                [](void* p) {
                  auto* v = static_cast<Seen*>(p);
                  v->thread = pthread_self();
                  std::this_thread::sleep_for(std::chrono::milliseconds(10));
                  v->calls++;
                },
                &seen, ACL_CALLBACK_BLOCK, s),
            ACL_SUCCESS);
  ACLRT_LAUNCH_KERNEL(acl_test_read_flag)(1, s, &flag, &read);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS) << msg();
  EXPECT_EQ(seen.calls.load(), 1);  // BLOCK: done before the stream finished
  EXPECT_TRUE(pthread_equal(seen.thread, report_tid));
  EXPECT_EQ(read, 1);

  EXPECT_ACL_ERROR(aclrtUnSubscribeReport(tid + 1, s), ACL_ERROR_STREAM_NOT_SUBSCRIBE, "not subscribed");
  EXPECT_EQ(aclrtUnSubscribeReport(tid, s), ACL_SUCCESS);
  stop = true;
  reporter.join();
  // Nothing is addressed to this thread: the wait times out.
  EXPECT_ACL_ERROR(aclrtProcessReport(1), ACL_ERROR_RT_REPORT_TIMEOUT, "[aclrtProcessReport] no callback");
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

// ---------------------------------------------------------------- memset and async copies

TEST_F(Acl, Memset) {
  void* d = nullptr;
  ASSERT_EQ(aclrtMalloc(&d, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemset(d, 100, 0x1AB, 100), ACL_SUCCESS) << msg();  // low byte 0xAB
  std::vector<unsigned char> h(100, 0);
  ASSERT_EQ(aclrtMemcpy(h.data(), 100, d, 100, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (unsigned char c : h) EXPECT_EQ(c, 0xAB);
  EXPECT_ACL_ERROR(aclrtMemset(d, 50, 0, 60), ACL_ERROR_INVALID_PARAM, "count (60 bytes) exceeds maxCount (50 bytes)");
  EXPECT_ACL_ERROR(aclrtMemset(static_cast<char*>(d) + 90, 200, 0, 20), ACL_ERROR_INVALID_PARAM,
                   "runs past the end of the 100-byte device block");
  EXPECT_ACL_ERROR(aclrtMemset(nullptr, 10, 0, 10), ACL_ERROR_INVALID_PARAM, "[aclrtMemset] devPtr is null");

  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  std::atomic<int> flag{0};
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, s, 10, &flag);
  ASSERT_EQ(aclrtMemsetAsync(d, 100, 3, 40, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(h.data(), 100, d, 100, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(h[i], i < 40 ? 3 : 0xAB) << i;
  EXPECT_ACL_ERROR(aclrtMemsetAsync(d, 10, 0, 20, s), ACL_ERROR_INVALID_PARAM, "[aclrtMemsetAsync]");
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
}

TEST_F(Acl, AsyncCopiesAreOrderedWithKernels) {
  aclrtStream s = nullptr;
  ASSERT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
  constexpr uint32_t n = 1 << 16;
  const size_t bytes = n * sizeof(float);
  void *hin = nullptr, *hout = nullptr, *d0 = nullptr, *d1 = nullptr;
  ASSERT_EQ(aclrtMallocHost(&hin, bytes), ACL_SUCCESS);
  ASSERT_EQ(aclrtMallocHost(&hout, bytes), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&d0, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMalloc(&d1, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  auto* in = static_cast<float*>(hin);
  auto* out = static_cast<float*>(hout);
  for (uint32_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 1000);
  std::memset(out, 0, bytes);

  // H2D, a slow kernel, D2D, scale, D2H: each step must see the previous one.
  std::atomic<int> flag{0};
  ASSERT_EQ(aclrtMemcpyAsync(d0, bytes, hin, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, s, 50, &flag);
  ASSERT_EQ(aclrtMemcpyAsync(d1, bytes, d0, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
  ACLRT_LAUNCH_KERNEL(acl_test_scale)(1, s, static_cast<float*>(d1), 2.0f, n);
  ASSERT_EQ(aclrtMemcpyAsync(hout, bytes, d1, bytes, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
  // The host buffer is not written before the stream gets there.
  EXPECT_EQ(out[1], 0.0f);
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS) << msg();
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * static_cast<float>(i % 1000)) << i;

  // Free right after enqueueing work that uses the block: the block is not
  // handed out again before that work is done.
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, s, 20, nullptr);
  ASSERT_EQ(aclrtMemcpyAsync(hout, bytes, d1, bytes, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(d1), ACL_SUCCESS);
  void* again = nullptr;
  ASSERT_EQ(aclrtMalloc(&again, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  if (again == d1) {
    aclrtStreamStatus st;
    ASSERT_EQ(aclrtStreamQuery(s, &st), ACL_SUCCESS);
    EXPECT_EQ(st, ACL_STREAM_STATUS_COMPLETE) << "block reused while the stream still used it";
  }
  ASSERT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 2.0f * static_cast<float>(i % 1000)) << i;

  EXPECT_EQ(aclrtFree(again), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(d0), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(hin), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(hout), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
}

TEST_F(Acl, SynchronizeDeviceWaitsForAllStreams) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateStream(&a), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStreamWithConfig(&b, 0, ACL_STREAM_FAST_LAUNCH), ACL_SUCCESS);
  std::atomic<int> fa{0}, fb{0};
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, a, 20, &fa);
  ACLRT_LAUNCH_KERNEL(acl_test_sleep_then_set)(1, b, 30, &fb);
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS) << msg();
  EXPECT_EQ(fa.load(), 1);
  EXPECT_EQ(fb.load(), 1);
  ACLRT_LAUNCH_KERNEL(acl_test_fail_block2)(3, b, nullptr);
  EXPECT_ACL_ERROR(aclrtSynchronizeDevice(), ACL_ERROR_RT_AICORE_EXCEPTION, "[aclrtSynchronizeDevice] [acl_test_fail_block2]");
  EXPECT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(b), ACL_SUCCESS);
}

// ---------------------------------------------------------------- acl_base.h helpers

// Issue 20.12: aclrtMalloc/aclrtMallocHost succeeded after aclFinalize. CANN's
// code for an uninitialised runtime is ACL_ERROR_UNINITIALIZE (100001); the next
// aclInit makes allocation work again.
TEST(AclInit, MallocAfterFinalizeIsUninitialize) {
  (void)aclFinalize();
  (void)aclGetRecentErrMsg();
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS) << aclGetRecentErrMsg();
  void* d = reinterpret_cast<void*>(0x1);
  EXPECT_ACL_ERROR(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE, "[aclrtMalloc]");
  EXPECT_EQ(d, nullptr);
  void* h = reinterpret_cast<void*>(0x1);
  EXPECT_ACL_ERROR(aclrtMallocHost(&h, 64), ACL_ERROR_UNINITIALIZE, "aclInit");
  EXPECT_EQ(h, nullptr);
  EXPECT_EQ(ACL_ERROR_UNINITIALIZE, 100001);
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << aclGetRecentErrMsg();
  EXPECT_NE(d, nullptr);
  EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(AclBase, Float16AndDataTypeSize) {
  EXPECT_EQ(aclFloatToFloat16(1.0f), 0x3C00);
  EXPECT_EQ(aclFloatToFloat16(-2.0f), 0xC000);
  EXPECT_EQ(aclFloat16ToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(aclFloat16ToFloat(aclFloatToFloat16(65504.0f)), 65504.0f);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT8), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX128), 16u);
  EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0u);
  EXPECT_EQ(aclDataTypeSize(ACL_DT_UNDEFINED), 0u);
}

TEST(AclBase, CodesMatchTheRuntime) {
  EXPECT_EQ(ACL_SUCCESS, 0);
  EXPECT_EQ(ACL_ERROR_INVALID_PARAM, static_cast<int>(asc::ErrorCode::kInvalidParam));
  EXPECT_EQ(ACL_ERROR_UNINITIALIZE, static_cast<int>(asc::ErrorCode::kUninitialize));
  EXPECT_EQ(ACL_ERROR_REPEAT_INITIALIZE, static_cast<int>(asc::ErrorCode::kRepeatInitialize));
  EXPECT_EQ(ACL_ERROR_BAD_ALLOC, static_cast<int>(asc::ErrorCode::kBadAlloc));
  EXPECT_EQ(ACL_ERROR_STORAGE_OVER_LIMIT, static_cast<int>(asc::ErrorCode::kStorageOverLimit));
  EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, static_cast<int>(asc::ErrorCode::kRtMemoryAllocation));
  EXPECT_EQ(ACL_ERROR_RT_MEMORY_FREE, static_cast<int>(asc::ErrorCode::kRtMemoryFree));
  EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, static_cast<int>(asc::ErrorCode::kRtAicoreException));
  EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, static_cast<int>(asc::ErrorCode::kRtInvalidDeviceId));
  EXPECT_EQ(ACL_MEMCPY_DEVICE_TO_DEVICE, static_cast<int>(asc::runtime::MemcpyKind::kDeviceToDevice));
  EXPECT_EQ(ACL_MEMCPY_DEFAULT, static_cast<int>(asc::runtime::MemcpyKind::kDefault));
}

TEST_F(Acl, AcceptsStreamsCreatedOutsideAcl) {
  // A pyasc.Stream.handle / C++ Stream::create() stream is a valid aclrtStream.
  auto s = asc::runtime::Stream::create();
  int hits = 0;
  s->add_callback([&] { ++hits; });
  EXPECT_EQ(aclrtSynchronizeStream(s.get()), ACL_SUCCESS);
  EXPECT_EQ(hits, 1);
  void* dead = nullptr;
  {
    auto t = asc::runtime::Stream::create();
    dead = t.get();
  }
  EXPECT_EQ(aclrtSynchronizeStream(dead), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("aclrtSynchronizeStream"), std::string::npos);
}
