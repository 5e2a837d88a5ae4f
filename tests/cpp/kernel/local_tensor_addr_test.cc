// LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize): CANN's view at
// a byte address of a core memory; two views of one address alias, views
// of L1 and UB are distinct memories, bad addresses fail clearly.
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.h"

TEST(LocalTensorAddr, ViewsAtAddressesAliasAndCopy) {
  std::vector<int32_t> in(64), out(64, -1);
  for (int i = 0; i < 64; ++i) in[i] = i * 3 - 7;
  int32_t* pi = in.data();
  int32_t* po = out.data();
  kt::run_or_throw("local_addr", 1, [=] {
    AscendC::GlobalTensor<int32_t> gi, go;
    gi.SetGlobalBuffer(pi, 64);
    go.SetGlobalBuffer(po, 64);
    AscendC::LocalTensor<int32_t> a(AscendC::TPosition::VECIN, 0, 64);
    AscendC::LocalTensor<int32_t> b(AscendC::TPosition::VECOUT, 256, 64);
    AscendC::LocalTensor<int32_t> a2(AscendC::TPosition::VECCALC, 128, 32);  // the second half of a
    AscendC::DataCopy(a, gi, 64);
    AscendC::PipeBarrier<PIPE_ALL>();
    EXPECT_EQ(a2.GetValue(0), pi[32]);
    EXPECT_EQ(a.GetSize(), 64u);
    EXPECT_EQ(a.GetPosition(), static_cast<int32_t>(AscendC::TPosition::VECIN));
    AscendC::Adds(b, a, int32_t(10), 64);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(go, b, 64);
  });
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], in[i] + 10) << i;
}

TEST(LocalTensorAddr, BadAddressesFail) {
  asc::Status st = kt::run("local_addr_align", 1, [] { AscendC::LocalTensor<float> t(AscendC::TPosition::A1, 16, 8);
    (void)t;
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("not 32-byte aligned"), std::string::npos) << st.message();
  st = kt::run("local_addr_size", 1, [] {
    AscendC::LocalTensor<float> t(AscendC::TPosition::CO1, 0, 1u << 20);  // 4 MiB > L0C
    (void)t;
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("exceeds"), std::string::npos) << st.message();
  st = kt::run("local_addr_gm", 1, [] { AscendC::LocalTensor<float> t(AscendC::TPosition::GM, 0, 8);
    (void)t;
  });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("not a local memory"), std::string::npos) << st.message();
}
