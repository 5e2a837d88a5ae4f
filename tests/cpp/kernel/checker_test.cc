// The kernel checker: one kernel per finding with the exact report it must
// produce, a clean kernel producing none, and the same bugs unchecked.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "asc/kernel/checker.h"
#include "asc/runtime/device.h"
#include "asc/runtime/memory_pool.h"
#include "checker_test_util.h"
#include "kernel_test_util.h"

namespace {

using namespace AscendC;
namespace chk = asc::kernel::check;

using ckt::kCheckCode;

using Checker = ckt::CheckerFixture<>;

// ---------------------------------------------------------------- a clean kernel

// The canonical double-buffered kernel plus every checked API used correctly.
struct CleanAdd {
  static constexpr uint32_t kTile = 256, kTiles = 4, kBlockLen = kTile * kTiles;
  TPipe pipe;
  TQue<TPosition::VECIN, 2> inX, inY;
  TQue<TPosition::VECOUT, 2> out;
  GlobalTensor<float> x, y, z;

  void Run(float* gx, float* gy, float* gz) {
    const uint32_t off = kBlockLen * static_cast<uint32_t>(GetBlockIdx());
    x.SetGlobalBuffer(gx + off, kBlockLen);
    y.SetGlobalBuffer(gy + off, kBlockLen);
    z.SetGlobalBuffer(gz + off, kBlockLen);
    pipe.InitBuffer(inX, 2, kTile * sizeof(float));
    pipe.InitBuffer(inY, 2, kTile * sizeof(float));
    pipe.InitBuffer(out, 2, kTile * sizeof(float));
    for (uint32_t i = 0; i < kTiles; ++i) {
      LocalTensor<float> a = inX.AllocTensor<float>(), b = inY.AllocTensor<float>();
      DataCopy(a, x[i * kTile], kTile);
      DataCopy(b, y[i * kTile], kTile);
      inX.EnQue(a);
      inY.EnQue(b);
      SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
      WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
      a = inX.DeQue<float>();
      b = inY.DeQue<float>();
      LocalTensor<float> c = out.AllocTensor<float>();
      Add(c, a, b, kTile);
      c.SetValue(0, c.GetValue(0) + a.GetValue(kTile - 1));
      out.EnQue(c);
      inX.FreeTensor(a);
      inY.FreeTensor(b);
      c = out.DeQue<float>();
      DataCopy(z[i * kTile], c, kTile);
      out.FreeTensor(c);
    }
    // Unaligned tail through DataCopyPad, element access at both ends.
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<float> t = buf.Get<float>();
    DataCopyPad(t, x, DataCopyExtParams(1, 5 * sizeof(float), 0, 0, 0), DataCopyPadExtParams<float>(false, 0, 0, 0.f));
    z.SetValue(kBlockLen - 1, x.GetValue(0) + x.GetValue(kBlockLen - 1));
  }
};

TEST_F(Checker, CleanKernelProducesNoReport) {
  const uint32_t blocks = 4, n = CleanAdd::kBlockLen * blocks;
  float* x = gm<float>(n * 4);
  float* y = gm<float>(n * 4);
  float* z = gm<float>(n * 4);
  for (uint32_t i = 0; i < n; ++i) x[i] = float(i), y[i] = float(2 * i);
  const asc::Status st = kt::run("clean_add", blocks, [=] {
    CleanAdd k;
    k.Run(x, y, z);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(lines().empty());
  for (uint32_t b = 0; b < blocks; ++b) {
    const uint32_t o = b * CleanAdd::kBlockLen;
    EXPECT_EQ(z[o], 3.f * o + float(o + CleanAdd::kTile - 1)) << b;
    EXPECT_EQ(z[o + 1], 3.f * (o + 1)) << b;
    EXPECT_EQ(z[o + CleanAdd::kBlockLen - 1], float(o) + float(o + CleanAdd::kBlockLen - 1)) << b;
  }
}

// ---------------------------------------------------------------- a. GM out of bounds

TEST_F(Checker, DataCopyReadPastTheAllocation) {
  float* x = gm<float>(4096);
  expect_fatal(kt::run("oob_read", 1,
                       [=] {
                         TPipe pipe;
                         TBuf<> buf;
                         pipe.InitBuffer(buf, 1024);
                         GlobalTensor<float> g;
                         g.SetGlobalBuffer(x);
                         DataCopy(buf.Get<float>(), g[1000], 64);
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'oob_read' block 0/1: DataCopy: reads GM bytes [4000, "
               "4256) of a 4096-byte allocation");
}

TEST_F(Checker, DataCopyWritePastSetGlobalBufferSize) {
  float* y = gm<float>(2048);
  expect_fatal(kt::run("oob_bound", 2,
                       [=] {
                         TPipe pipe;
                         TBuf<> buf;
                         pipe.InitBuffer(buf, 1024);
                         GlobalTensor<float> g;
                         g.SetGlobalBuffer(y + 256 * GetBlockIdx(), 256);
                         DataCopy(g[GetBlockIdx() == 1 ? 200 : 0], buf.Get<float>(), 64);
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'oob_bound' block 1/2: DataCopy: writes bytes [800, 1056) "
               "of a GlobalTensor that SetGlobalBuffer bound to 1024 bytes (at byte 1024 of a 2048-byte "
               "allocation)");
}

TEST_F(Checker, GetValueSetValueAndDataCopyPadOutOfBounds) {
  int32_t* x = gm<int32_t>(4096);
  expect_fatal(kt::run("oob_get", 1,
                       [=] {
                         GlobalTensor<int32_t> g;
                         g.SetGlobalBuffer(x, 1024);
                         (void)g.GetValue(1023);
                         (void)g.GetValue(1024);
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'oob_get' block 0/1: GlobalTensor::GetValue: reads bytes "
               "[4096, 4100) of a GlobalTensor that SetGlobalBuffer bound to 4096 bytes (at byte 0 of a 4096-byte "
               "allocation)");
  chk::clear_reports();
  expect_fatal(kt::run("oob_set", 1,
                       [=] {
                         GlobalTensor<int32_t> g;
                         g.SetGlobalBuffer(x + 1000);
                         g.SetValue(23, 1);
                         g.SetValue(24, 1);
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'oob_set' block 0/1: GlobalTensor::SetValue: writes GM "
               "bytes [4096, 4100) of a 4096-byte allocation");
  chk::clear_reports();
  // Three bursts of 40 bytes, 60 bytes apart in GM: the last ends at byte 160.
  int32_t* y = gm<int32_t>(150);
  expect_fatal(kt::run("oob_pad", 1,
                       [=] {
                         TPipe pipe;
                         TBuf<> buf;
                         pipe.InitBuffer(buf, 1024);
                         GlobalTensor<int32_t> g;
                         g.SetGlobalBuffer(y);
                         DataCopyPad(g, buf.Get<int32_t>(), DataCopyExtParams(3, 40, 0, 20, 0));
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'oob_pad' block 0/1: DataCopyPad: writes GM bytes [0, 160) "
               "of a 150-byte allocation");
}

// ---------------------------------------------------------------- b. host pointers

TEST_F(Checker, HostPointerAtSetGlobalBuffer) {
  std::vector<float> host(256);
  float* h = host.data();
  expect_fatal(kt::run("host_ptr", 1,
                       [=] {
                         GlobalTensor<float> g;
                         g.SetGlobalBuffer(h, 256);
                       }),
               "[kernel check] host-pointer: kernel 'host_ptr' block 0/1: SetGlobalBuffer: the buffer (1024 bytes) "
               "is not device memory (no aclrtMalloc / GmAlloc / device pool allocation holds it)");
  chk::clear_reports();
  void* pinned = asc::runtime::pinned_host_pool().allocate_or_throw(512);
  expect_fatal(kt::run("pinned_ptr", 1,
                       [=] {
                         GlobalTensor<uint8_t> g;
                         g.SetGlobalBuffer(static_cast<uint8_t*>(pinned));
                       }),
               "[kernel check] host-pointer: kernel 'pinned_ptr' block 0/1: SetGlobalBuffer: the buffer is pinned "
               "host memory (aclrtMallocHost), not device memory");
  ASSERT_TRUE(asc::runtime::pinned_host_pool().free(pinned).ok());
}

// ---------------------------------------------------------------- c. local memory budgets

TEST_F(Checker, LocalMemoryBudgets) {
  const auto& props = asc::runtime::cpu_device().properties();
  const uint64_t ub = props.ub_size;
  expect_fatal(kt::run("ub_overflow", 1,
                       [=] {
                         TPipe pipe;
                         TQue<TPosition::VECIN, 2> a, b;
                         pipe.InitBuffer(a, 2, static_cast<uint32_t>(ub / 4));
                         pipe.InitBuffer(b, 2, static_cast<uint32_t>(ub / 4 + 1));
                       }),
               "[kernel check] local-overflow: kernel 'ub_overflow' block 0/1: TPipe::InitBuffer: 2 x " +
                   std::to_string(ub / 4 + 1) + " bytes (" + std::to_string(ub / 2 + 64) +
                   " with 32-byte alignment) for a VECIN buffer exceed the Unified Buffer (UB): " +
                   std::to_string(ub / 2) + " of " + std::to_string(ub) +
                   " bytes already allocated by this TPipe, " + std::to_string(ub / 2) + " left");
  chk::clear_reports();
  expect_fatal(kt::run("l0c_overflow", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::CO1, 1> c;
                         pipe.InitBuffer(c, 1, 128 * 1024 + 32);
                       }),
               "[kernel check] local-overflow: kernel 'l0c_overflow' block 0/1: TPipe::InitBuffer: 1 x 131104 "
               "bytes (131104 with 32-byte alignment) for a CO1 buffer exceed the L0C buffer: 0 of 131072 bytes "
               "already allocated by this TPipe, 131072 left");
  chk::clear_reports();
  expect_fatal(kt::run("l0a_alloc", 1,
                       [] {
                         LocalMemAllocator<Hardware::L0A> l0a;
                         (void)l0a.Alloc<half, 16384>();
                         (void)l0a.Alloc<half>(16385);
                       }),
               "[kernel check] local-overflow: kernel 'l0a_alloc' block 0/1: LocalMemAllocator::Alloc: 32770 bytes "
               "requested in the L0A buffer at offset 32768, but only 32768 of 65536 bytes are left");
}

// ---------------------------------------------------------------- d. alignment and lengths

TEST_F(Checker, MisalignedUbOperands) {
  float* x = gm<float>(4096);
  expect_fatal(kt::run("misaligned_copy", 1,
                       [=] {
                         TPipe pipe;
                         TBuf<> buf;
                         pipe.InitBuffer(buf, 1024);
                         GlobalTensor<float> g;
                         g.SetGlobalBuffer(x);
                         DataCopy(buf.Get<float>()[8], g, 64);  // offset 32: fine
                         DataCopy(buf.Get<float>()[3], g, 64);
                       }),
               "[kernel check] misaligned: kernel 'misaligned_copy' block 0/1: DataCopy: dst at UB offset 12 is not "
               "32-byte aligned (UB operands must start at a multiple of 32 bytes)");
  chk::clear_reports();
  expect_fatal(kt::run("misaligned_add", 1,
                       [] {
                         TPipe pipe;
                         TBuf<> buf;
                         pipe.InitBuffer(buf, 4096);
                         LocalTensor<float> t = buf.Get<float>();
                         Add(t, t[64], t[128], 64);
                         Add(t, t[65], t[128], 32);
                       }),
               "[kernel check] misaligned: kernel 'misaligned_add' block 0/1: Add: src0 at UB offset 260 is not "
               "32-byte aligned (UB operands must start at a multiple of 32 bytes)");
}

TEST_F(Checker, DataCopyLengthRoundedDown) {
  float* x = gm<float>(4096);
  float* y = gm<float>(4096);
  for (int i = 0; i < 1024; ++i) x[i] = float(i + 1);
  const asc::Status st = kt::run("round_down", 1, [=] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 4096);
    GlobalTensor<float> gx, gy;
    gx.SetGlobalBuffer(x, 1024);
    gy.SetGlobalBuffer(y, 1024);
    for (int i = 0; i < 3; ++i) DataCopy(buf.Get<float>(), gx, 100);  // reported once
    DataCopy(gy, buf.Get<float>(), 96);
  });
  expect_reported(st, "round_down",
                  {"[kernel check] copy-round-down: kernel 'round_down' block 0/1: DataCopy: 100 elements of 4 bytes "
                   "= 400 bytes is not a multiple of 32: the hardware copies only 384 bytes (use DataCopyPad for "
                   "unaligned lengths)"});
  // The kernel ran to its end with the hardware's rounding.
  EXPECT_EQ(y[95], 96.f);
  EXPECT_EQ(y[96], 0.f);
}

// ---------------------------------------------------------------- e. queues

TEST_F(Checker, DequeOnEmptyQueue) {
  expect_fatal(kt::run("deque_empty", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::VECIN, 2> q;
                         pipe.InitBuffer(q, 2, 1024);
                         (void)q.DeQue<float>();
                       }),
               "[kernel check] deque-empty: kernel 'deque_empty' block 0/1: TQue::DeQue: DeQue on an empty queue: "
               "no tensor is enqueued in this VECIN queue (2 buffers of 1024 bytes) (on the NPU this would hang)");
}

TEST_F(Checker, AllocTensorBeyondTheBuffersAndEnQueBeyondDepth) {
  expect_fatal(kt::run("alloc_depth", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::VECOUT, 1> q;
                         pipe.InitBuffer(q, 1, 256);
                         LocalTensor<float> a = q.AllocTensor<float>();
                         q.EnQue(a);
                         (void)q.AllocTensor<float>();
                       }),
               "[kernel check] alloc-beyond-depth: kernel 'alloc_depth' block 0/1: TQue::AllocTensor: no free buffer "
               "in this VECOUT queue (1 buffers of 256 bytes): 0 allocated and 1 enqueued; FreeTensor one first (on "
               "the NPU this AllocTensor would wait forever)");
  chk::clear_reports();
  expect_fatal(kt::run("enque_depth", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::VECIN, 1> q;
                         pipe.InitBuffer(q, 2, 256);
                         q.EnQue(q.AllocTensor<float>());
                         q.EnQue(q.AllocTensor<float>());
                       }),
               "[kernel check] enque-beyond-depth: kernel 'enque_depth' block 0/1: TQue::EnQue: the queue is full: "
               "depth 1 and 1 tensors already enqueued; DeQue one first or declare the TQue with a larger depth");
}

TEST_F(Checker, DoubleFreeAndQueueMisuse) {
  expect_fatal(kt::run("double_free", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::VECIN, 2> q;
                         pipe.InitBuffer(q, 2, 1024);
                         LocalTensor<float> a = q.AllocTensor<float>();
                         q.FreeTensor(a);
                         q.FreeTensor(a);
                       }),
               "[kernel check] double-free: kernel 'double_free' block 0/1: TQue::FreeTensor: buffer 0 of this VECIN "
               "queue (2 buffers of 1024 bytes) is not allocated (FreeTensor twice?)");
  chk::clear_reports();
  expect_fatal(kt::run("free_queued", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::VECIN, 2> q;
                         pipe.InitBuffer(q, 2, 1024);
                         LocalTensor<float> a = q.AllocTensor<float>();
                         q.EnQue(a);
                         q.FreeTensor(a);
                       }),
               "[kernel check] queue-misuse: kernel 'free_queued' block 0/1: TQue::FreeTensor: buffer 0 of this "
               "VECIN queue (2 buffers of 1024 bytes) is still enqueued: DeQue it before FreeTensor");
}

TEST_F(Checker, UseOfAFreedTensor) {
  float* y = gm<float>(4096);
  expect_fatal(kt::run("use_after_free", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::VECIN, 2> q;
                         TBuf<> buf;
                         pipe.InitBuffer(q, 2, 1024);
                         pipe.InitBuffer(buf, 1024);
                         LocalTensor<float> a = q.AllocTensor<float>();
                         LocalTensor<float> b = q.AllocTensor<float>();
                         Add(buf.Get<float>(), a, b, 64);
                         q.FreeTensor(b);
                         Add(buf.Get<float>(), a, b[64], 64);
                       }),
               "[kernel check] use-after-free: kernel 'use_after_free' block 0/1: Add: src1 (UB offset 1280, 256 "
               "bytes) lies in buffer 1 of the VECIN queue at UB offset 0 (2 buffers of 1024 bytes), which "
               "FreeTensor released");
  chk::clear_reports();
  expect_fatal(kt::run("get_after_free", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::VECOUT, 1> q;
                         pipe.InitBuffer(q, 1, 512);
                         LocalTensor<int16_t> a = q.AllocTensor<int16_t>();
                         a.SetValue(3, 7);
                         q.FreeTensor(a);
                         (void)a.GetValue(3);
                       }),
               "[kernel check] use-after-free: kernel 'get_after_free' block 0/1: LocalTensor::GetValue: element "
               "(UB offset 6, 2 bytes) lies in buffer 0 of the VECOUT queue at UB offset 0 (1 buffers of 512 bytes), "
               "which FreeTensor released");
  chk::clear_reports();
  expect_fatal(kt::run("copy_after_free", 1,
                       [=] {
                         TPipe pipe;
                         TQue<TPosition::VECOUT, 2> q;
                         pipe.InitBuffer(q, 2, 512);
                         GlobalTensor<float> g;
                         g.SetGlobalBuffer(y);
                         LocalTensor<float> a = q.AllocTensor<float>();
                         q.EnQue(a);
                         a = q.DeQue<float>();
                         q.FreeTensor(a);
                         DataCopy(g, a, 128);
                       }),
               "[kernel check] use-after-free: kernel 'copy_after_free' block 0/1: DataCopy: src (UB offset 0, 512 "
               "bytes) lies in buffer 0 of the VECOUT queue at UB offset 0 (2 buffers of 512 bytes), which "
               "FreeTensor released");
  chk::clear_reports();
  expect_fatal(kt::run("enque_after_free", 1,
                       [] {
                         TPipe pipe;
                         TQue<TPosition::VECIN, 2> q;
                         pipe.InitBuffer(q, 2, 256);
                         LocalTensor<float> a = q.AllocTensor<float>();
                         q.FreeTensor(a);
                         q.EnQue(a);
                       }),
               "[kernel check] use-after-free: kernel 'enque_after_free' block 0/1: TQue::EnQue: buffer 0 of this "
               "VECIN queue (2 buffers of 256 bytes) is not allocated (EnQue after FreeTensor?)");
}

TEST_F(Checker, TensorsHeldAtKernelExit) {
  const asc::Status st = kt::run("leak", 2, [] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> in;
    TQue<TPosition::VECOUT, 2> out;
    pipe.InitBuffer(in, 2, 1024);
    pipe.InitBuffer(out, 2, 512);
    in.EnQue(in.AllocTensor<float>());
    if (GetBlockIdx() == 1) {
      (void)in.AllocTensor<float>();
      (void)out.AllocTensor<float>();
    }
    in.FreeTensor(in.DeQue<float>());  // block 0 leaks nothing
  });
  expect_reported(st, "leak",
                  {"[kernel check] tensor-leak: kernel 'leak' block 1/2: kernel exit: the VECIN queue at UB offset 0 "
                   "(2 buffers of 1024 bytes) still holds 1 allocated and 0 enqueued tensor (every AllocTensor needs "
                   "a FreeTensor, every EnQue a DeQue)",
                   "[kernel check] tensor-leak: kernel 'leak' block 1/2: kernel exit: the VECOUT queue at UB offset "
                   "2048 (2 buffers of 512 bytes) still holds 1 allocated and 0 enqueued tensor (every AllocTensor "
                   "needs a FreeTensor, every EnQue a DeQue)"});
}

// ---------------------------------------------------------------- f. flags

TEST_F(Checker, WaitFlagWithoutSetFlag) {
  expect_fatal(kt::run("wait_flag", 1,
                       [] {
                         SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
                         WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
                         SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
                         WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);
                       }),
               "[kernel check] wait-without-set: kernel 'wait_flag' block 0/1: WaitFlag: "
               "WaitFlag<HardEvent::MTE2_V>(1) has no matching SetFlag<HardEvent::MTE2_V>(1) before it (on the NPU "
               "it would wait forever)");
  chk::clear_reports();
  expect_fatal(kt::run("wait_twice", 1,
                       [] {
                         SetFlag<HardEvent::V_MTE3>(EVENT_ID2);
                         WaitFlag<HardEvent::V_MTE3>(EVENT_ID2);
                         WaitFlag<HardEvent::V_MTE3>(EVENT_ID2);
                       }),
               "[kernel check] wait-without-set: kernel 'wait_twice' block 0/1: WaitFlag: "
               "WaitFlag<HardEvent::V_MTE3>(2) has no matching SetFlag<HardEvent::V_MTE3>(2) before it (on the NPU "
               "it would wait forever)");
}

// ---------------------------------------------------------------- g. races

TEST_F(Checker, TwoBlocksWritingTheSameGmBytes) {
  float* y = gm<float>(384);
  const asc::Status st = kt::run("race", 2, [=] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 256);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(y + 32 * GetBlockIdx());  // 64 floats each: 32 shared
    Duplicate(buf.Get<float>(), float(GetBlockIdx() + 1), 64);
    DataCopy(g, buf.Get<float>(), 64);
  });
  expect_reported(st, "race",
                  {"[kernel check] gm-write-race: kernel 'race' block 1/2: DataCopy: writes GM bytes [128, 256) of a "
                   "384-byte allocation that block 0 also writes (DataCopy), without atomics"});
  chk::clear_reports();
  // SetValue and strided bursts: interleaved rows of two blocks do not race.
  float* z = gm<float>(1024);
  ASSERT_TRUE(kt::run("interleaved", 2,
                      [=] {
                        TPipe pipe;
                        TBuf<> buf;
                        pipe.InitBuffer(buf, 1024);
                        GlobalTensor<float> g;
                        g.SetGlobalBuffer(z + 8 * GetBlockIdx(), 1024 - 8);
                        DataCopy(g, buf.Get<float>(), DataCopyParams(4, 1, 0, 1));  // rows 0, 2, 4, 6 (+block)
                        g.SetValue(100 + GetBlockIdx(), 1.f);
                      })
                  .ok());
  EXPECT_TRUE(lines().empty());
  const asc::Status st2 = kt::run("set_race", 3, [=] {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(z);
    g.SetValue(5, float(GetBlockIdx()));
  });
  expect_reported(st2, "set_race",
                  {"[kernel check] gm-write-race: kernel 'set_race' block 1/3: GlobalTensor::SetValue: writes GM bytes "
                   "[20, 24) of a 1024-byte allocation that block 0 also writes (GlobalTensor::SetValue), without "
                   "atomics",
                   "[kernel check] gm-write-race: kernel 'set_race' block 2/3: GlobalTensor::SetValue: writes GM bytes "
                   "[20, 24) of a 1024-byte allocation that block 0 also writes (GlobalTensor::SetValue), without "
                   "atomics"});
}

// ---------------------------------------------------------------- off / output

TEST_F(Checker, OffByDefaultTheBugsAreNotReported) {
  asc::kernel::debug::request_kernel_checks(false);
  float* x = gm<float>(4096);
  ASSERT_TRUE(kt::run("unchecked", 2,
                      [=] {
                        TPipe pipe;
                        TBuf<> buf;
                        pipe.InitBuffer(buf, 1024);
                        GlobalTensor<float> g;
                        g.SetGlobalBuffer(x);
                        DataCopy(buf.Get<float>(), g, 100);   // rounded down silently
                        DataCopy(g, buf.Get<float>(), 64);    // both blocks: a race
                        WaitFlag<HardEvent::MTE2_V>(EVENT_ID3);
                      })
                  .ok());
  EXPECT_TRUE(lines().empty());
  // Queue misuse is still an error, with its own code and message.
  const asc::Status st = kt::run("unchecked_deque", 1, [] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 1024);
    (void)q.DeQue<float>();
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[TQue::DeQue] kernel 'unchecked_deque' block 0 of 1: DeQue on an empty queue"),
            std::string::npos)
      << st.message();
  EXPECT_TRUE(lines().empty());
}

TEST_F(Checker, ReportsGoToStderrAndNameEveryField) {
  chk::set_print_reports(true);
  testing::internal::CaptureStderr();
  const asc::Status st = kt::run("stderr_kernel", 1, [] { WaitFlag<HardEvent::V_V>(EVENT_ID7); });
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string line =
      "[kernel check] wait-without-set: kernel 'stderr_kernel' block 0/1: WaitFlag: WaitFlag<HardEvent::V_V>(7) has "
      "no matching SetFlag<HardEvent::V_V>(7) before it (on the NPU it would wait forever)";
  // The report line, then the runtime's one "kernel failed" error line
  // (logged by default since the kernel failure log, stream.cc).
  EXPECT_EQ(err.substr(0, line.size() + 1), line + "\n") << err;
  const std::string rest = err.substr(std::min(err.size(), line.size() + 1));
  EXPECT_TRUE(rest.empty() || (rest.find("kernel failed: [stderr_kernel]") != std::string::npos &&
                               rest.find('\n') == rest.size() - 1))
      << rest;
  expect_fatal(st, line);
  const std::vector<chk::Report> r = chk::reports();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].finding, chk::Finding::kWaitWithoutSet);
  EXPECT_STREQ(chk::finding_name(r[0].finding), "wait-without-set");
  EXPECT_EQ(r[0].kernel, "stderr_kernel");
  EXPECT_EQ(r[0].block, 0u);
  EXPECT_EQ(r[0].block_num, 1u);
  EXPECT_EQ(r[0].instruction, "WaitFlag");
  EXPECT_EQ(r[0].text, line);
}

}  // namespace
