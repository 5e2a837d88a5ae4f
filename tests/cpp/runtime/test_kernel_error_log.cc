// A failed kernel is logged on stderr at the default log level (CANN's
// runtime logs it whether or not the caller checks aclrtSynchronizeStream's
// return, as the official samples do not): one error line naming the kernel
// and the failed check; the same failure repeated in a launch loop is logged
// once, a different one again. The status still reaches synchronize().
#include <gtest/gtest.h>

#include <string>

#include "asc/core/log.h"
#include "asc/core/status.h"
#include "asc/runtime/launch.h"
#include "asc/runtime/stream.h"

using namespace asc::runtime;

namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(KernelErrorLog, FailedKernelIsLoggedOnceAtTheDefaultLevel) {
  const asc::LogLevel saved = asc::log_level();
  asc::set_log_level(asc::LogLevel::kWarning);  // the default (no ASC_LOG_LEVEL)
  auto stream = Stream::create();
  testing::internal::CaptureStderr();
  for (int i = 0; i < 3; ++i) {
    asc::launch("failing_kernel_a", [] { throw asc::Error(asc::ErrorCode::kIndexOutOfRange, "[DataCopy] check A failed"); },
                1, stream.get());
    asc::Status st = stream->synchronize();
    EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange) << st.message();
  }
  asc::launch("failing_kernel_b", [] { throw asc::Error(asc::ErrorCode::kInvalidParam, "[Mmad] check B failed"); }, 1,
              stream.get());
  EXPECT_FALSE(stream->synchronize().ok());
  asc::launch("fine_kernel", [] {}, 1, stream.get());
  EXPECT_TRUE(stream->synchronize().ok());
  const std::string err = testing::internal::GetCapturedStderr();
  asc::set_log_level(saved);
  EXPECT_EQ(count_of(err, "check A failed"), 1u) << err;
  EXPECT_EQ(count_of(err, "check B failed"), 1u) << err;
  EXPECT_NE(err.find("failing_kernel_a"), std::string::npos) << err;
  EXPECT_NE(err.find("failing_kernel_b"), std::string::npos) << err;
  EXPECT_EQ(err.find("fine_kernel"), std::string::npos) << err;
}

TEST(KernelErrorLog, OffLevelSilencesIt) {
  const asc::LogLevel saved = asc::log_level();
  asc::set_log_level(asc::LogLevel::kOff);
  auto stream = Stream::create();
  testing::internal::CaptureStderr();
  asc::launch("failing_kernel_c", [] { throw asc::Error(asc::ErrorCode::kInvalidParam, "[Op] check C failed"); }, 1,
              stream.get());
  EXPECT_FALSE(stream->synchronize().ok());
  const std::string err = testing::internal::GetCapturedStderr();
  asc::set_log_level(saved);
  EXPECT_EQ(err.find("check C failed"), std::string::npos) << err;
}

}  // namespace
