// CrossCoreSetFlag / CrossCoreWaitFlag: per-block counted flags in program
// order (modes 1 and 2), clear errors for a wait without a set, bad ids and
// mode 0 without a wait.
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.h"

TEST(CrossCore, SetThenWaitInEveryBlock) {
  std::vector<int> out(8, 0);
  int* p = out.data();
  kt::run_or_throw("cross_core_ok", 8, [=] {
    if ASCEND_IS_AIC {
      p[AscendC::GetBlockIdx()] = 1;
      AscendC::CrossCoreSetFlag<0x2, PIPE_FIX>(0x8);
      AscendC::CrossCoreSetFlag<0x2, PIPE_FIX>(0x8);  // two sets, two waits
    }
    if ASCEND_IS_AIV {
      AscendC::CrossCoreWaitFlag(0x8);
      AscendC::CrossCoreWaitFlag<0x2, PIPE_MTE2>(0x8);
      p[AscendC::GetBlockIdx()] += 1;
    }
  });
  for (int v : out) EXPECT_EQ(v, 2);
  // Mode 0 with one block is a barrier of one.
  kt::run_or_throw("cross_core_mode0", 1, [] {
    AscendC::CrossCoreSetFlag<0x0, PIPE_MTE3>(3);
    AscendC::CrossCoreWaitFlag<0x0>(3);
  });
}

TEST(CrossCore, WaitWithoutSetIsAnError) {
  const asc::Status st = kt::run("cross_core_bad", 2, [] {
    AscendC::CrossCoreSetFlag<0x2, PIPE_FIX>(1);
    AscendC::CrossCoreWaitFlag(1);
    AscendC::CrossCoreWaitFlag(1);  // the second wait has no set
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("CrossCoreWaitFlag"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("flag 1 was not set"), std::string::npos) << st.message();
}

TEST(CrossCore, CountsDoNotLeakIntoTheNextBlock) {
  // Even blocks set and wait; odd blocks only wait. Blocks share worker
  // threads, so a count leaking from an even block would let an odd block's
  // wait pass: the launch must fail (on an odd block).
  const asc::Status st = kt::run("cross_core_leak", 8, [] {
    if (AscendC::GetBlockIdx() % 2 == 0) AscendC::CrossCoreSetFlag<0x2, PIPE_FIX>(2);
    AscendC::CrossCoreWaitFlag(2);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("flag 2 was not set"), std::string::npos) << st.message();
}

TEST(CrossCore, BadArgumentsAndMode0AcrossBlocks) {
  asc::Status st = kt::run("cross_core_id", 1, [] { AscendC::CrossCoreSetFlag<0x2, PIPE_FIX>(16); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("flagId 16"), std::string::npos) << st.message();
  st = kt::run("cross_core_mode", 1, [] { AscendC::CrossCoreSetFlag<0x3, PIPE_FIX>(1); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("modeId 3"), std::string::npos) << st.message();
  // Mode 0 across blocks is a barrier now (block_sync_test.cc); a set that no
  // wait follows is legal.
  EXPECT_TRUE(kt::run("cross_core_mode0", 4, [] { AscendC::CrossCoreSetFlag<0x0, PIPE_FIX>(1); }).ok());
}
