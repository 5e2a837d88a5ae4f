// KERNEL_LOG / ASCENDC_ASSERT (CANN's CPU-debug macros): a failed assert runs
// its behaviour and fails the kernel with the condition's text; a passing one
// does nothing.
#include <gtest/gtest.h>

#include <atomic>

#include "kernel_test_util.h"

TEST(KernelLog, AssertFailsTheKernelAfterItsBehaviour) {
  static std::atomic<int> ran{0};
  ran = 0;
  asc::Status st = kt::run("assert_ok", 2, [] {
    ASCENDC_ASSERT(AscendC::GetBlockNum() != 0, { KERNEL_LOG(KERNEL_ERROR, "block dim can not be zero!"); });
  });
  EXPECT_TRUE(st.ok()) << st.message();
  st = kt::run("assert_bad", 1, [] {
    ASCENDC_ASSERT(AscendC::GetBlockNum() == 0, {
      KERNEL_LOG(KERNEL_ERROR, "block num is %d", static_cast<int>(AscendC::GetBlockNum()));
      ++ran;
    });
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(ran.load(), 1);
  EXPECT_NE(st.message().find("ASCENDC_ASSERT"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("AscendC::GetBlockNum() == 0"), std::string::npos) << st.message();
  EXPECT_STREQ(asc::kernel::kernel_log_level(KERNEL_WARN), "WARN");
}
