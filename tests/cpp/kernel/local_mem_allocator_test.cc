// LocalMemAllocator, TBuf::GetWithOffset, TQueBind, LocalTensor views and
// GetSystemCycle.
#include <gtest/gtest.h>

#include <vector>

#include "vec_test_util.h"

namespace {

using namespace AscendC;

TEST(LocalMemAllocator, BumpAllocatesAlignedBuffersInUB) {
  std::vector<float> x(1024), y(1024);
  for (int i = 0; i < 1024; ++i) x[i] = float(i) * 0.25f;
  kt::run_or_throw("lma", 2, [&] {
    LocalMemAllocator<Hardware::UB> ub;
    EXPECT_EQ(ub.GetCurAddr(), 0u);
    auto a = ub.Alloc<float, 1000>();
    EXPECT_EQ(ub.GetCurAddr(), 4000u);  // 4000 is a multiple of 32
    auto b = ub.Alloc<TPosition::VECIN, half, 3>();
    EXPECT_EQ(ub.GetCurAddr(), 4032u);  // 6 bytes rounded up to 32
    auto c = ub.Alloc<float>(1000);
    EXPECT_EQ(a.GetSize(), 1000u);
    EXPECT_EQ(b.GetSize(), 3u);
    EXPECT_EQ(b.GetPosition(), static_cast<int32_t>(TPosition::VECIN));
    EXPECT_EQ(a.GetPosition(), static_cast<int32_t>(TPosition::VECCALC));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(c.raw()) - reinterpret_cast<uintptr_t>(a.raw()), 4032u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.raw()) % 32, 0u);
    const auto* blk = asc::runtime::current_block();
    EXPECT_EQ(reinterpret_cast<uint8_t*>(a.raw()), blk->arenas->ub);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer(x.data(), 1024);
    gy.SetGlobalBuffer(y.data(), 1024);
    // Each block handles half (512 floats: whole 32-byte blocks).
    const uint32_t off = static_cast<uint32_t>(GetBlockIdx()) * 512;
    DataCopy(a, gx[off], 512);
    Muls(c, a, 2.0f, 512);
    DataCopy(gy[off], c, 512);
  });
  for (int i = 0; i < 1024; ++i) EXPECT_EQ(y[i], x[i] * 2.0f) << i;
}

TEST(LocalMemAllocator, OtherMemoriesAndErrors) {
  kt::run_or_throw("lma_l1", 1, [&] {
    LocalMemAllocator<Hardware::L1> l1;
    auto t = l1.Alloc<half, 1024>();
    EXPECT_EQ(t.GetPosition(), static_cast<int32_t>(TPosition::A1));
    EXPECT_EQ(reinterpret_cast<uint8_t*>(t.raw()), asc::runtime::current_block()->arenas->l1);
    LocalMemAllocator<Hardware::L0C> l0c;
    EXPECT_EQ(l0c.Alloc<float>(16).GetPosition(), static_cast<int32_t>(TPosition::CO1));
  });
  asc::Status st = kt::run("lma_over", 1, [&] {
    LocalMemAllocator<Hardware::UB> ub;
    (void)ub.Alloc<float>(40000);
    (void)ub.Alloc<float>(10000);  // 200000 bytes > 192 KiB
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kStorageOverLimit);
  EXPECT_NE(st.message().find("[LocalMemAllocator::Alloc]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("40000 bytes requested"), std::string::npos) << st.message();
  LocalMemAllocator<Hardware::UB> outside;
  EXPECT_THROW((void)outside.Alloc<float>(8), asc::Error);
}

TEST(LocalTensorApi, ViewsValuesSizesAndCasts) {
  for (bool elide : vt::elision_modes()) {
    std::vector<float> x(64);
    for (int i = 0; i < 64; ++i) x[i] = float(i);
    vt::Bytes bx = vt::to_bytes(x);
    ASSERT_TRUE(vt::run_ub({&bx},
                           [&](std::vector<LocalTensor<uint8_t>>& v) {
                             auto t = v[0].ReinterpretCast<float>();
                             EXPECT_EQ(t.GetSize(), 64u);
                             EXPECT_EQ(t.GetLength(), 256u);
                             auto tail = t[60];
                             EXPECT_EQ(tail.GetSize(), 4u);
                             EXPECT_EQ(tail.GetValue(1), 61.0f);  // a pending DataCopy is made real
                             tail.SetValue(0, 600);
                             EXPECT_EQ(t.GetValue(60), 600.0f);
                             auto h = t.ReinterpretCast<half>();
                             EXPECT_EQ(h.GetSize(), 128u);
                             t.SetSize(10);
                             EXPECT_EQ(t.GetSize(), 10u);
                             // operator[] views work with the vector instructions.
                             Adds(t[2], t[2], 1.0f, 2);
                           },
                           elide)
                    .ok());
    auto got = vt::from_bytes<float>(bx, 64);
    EXPECT_EQ(got[60], 600.0f);
    EXPECT_EQ(got[2], 3.0f);
    EXPECT_EQ(got[3], 4.0f);
    EXPECT_EQ(got[4], 4.0f);
  }
}

TEST(LocalTensorApi, TBufGetWithOffsetAndTQueBind) {
  std::vector<int32_t> x(16), y(16, 0);
  for (int i = 0; i < 16; ++i) x[i] = i * 5;
  kt::run_or_throw("tbuf", 1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    auto lo = buf.GetWithOffset<int32_t>(16, 0);
    auto hi = buf.GetWithOffset<int32_t>(16, 128);
    EXPECT_EQ(reinterpret_cast<uint8_t*>(hi.raw()) - reinterpret_cast<uint8_t*>(lo.raw()), 128);
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> bind;
    pipe.InitBuffer(bind, 1, 64);
    GlobalTensor<int32_t> gx, gy;
    gx.SetGlobalBuffer(x.data(), 16);
    gy.SetGlobalBuffer(y.data(), 16);
    auto t = bind.AllocTensor<int32_t>();
    DataCopy(t, gx, 16);
    bind.EnQue(t);
    auto u = bind.DeQue<int32_t>();
    EXPECT_EQ(u.GetPosition(), static_cast<int32_t>(TPosition::VECOUT));
    DataCopy(hi, u, 16);
    Adds(lo, hi, 1, 16);
    DataCopy(gy, lo, 16);
    bind.FreeTensor(u);
  });
  for (int i = 0; i < 16; ++i) EXPECT_EQ(y[i], i * 5 + 1);
  // GetWithOffset past the buffer is an error.
  asc::Status st = kt::run("tbuf_over", 1, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    (void)buf.GetWithOffset<float>(16, 224);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
}

TEST(System, GetSystemCycleIsMonotonicAndInitSocStateIsHarmless) {
  InitSocState();
  const int64_t a = GetSystemCycle();
  volatile double s = 0;
  for (int i = 0; i < 100000; ++i) s = s + i;
  const int64_t b = GetSystemCycle();
  EXPECT_GT(b, a);
  int64_t inside = 0;
  kt::run_or_throw("cycle", 1, [&] { inside = GetSystemCycle(); });
  EXPECT_GT(inside, 0);
  PipeBarrier<PIPE_ALL>();
  SetFlag<HardEvent::MTE2_V>(0);
  WaitFlag<HardEvent::MTE2_V>(0);
}

}  // namespace
