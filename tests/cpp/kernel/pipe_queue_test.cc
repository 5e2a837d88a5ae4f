// TPipe budgets, TQue / TBuf behaviour and misuse errors, tensors, block ids.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <vector>

#include "asc/runtime/device.h"
#include "kernel_test_util.h"

namespace {

using namespace AscendC;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(TPipe, UbBudgetErrorNamesEverything) {
  const size_t ub = asc::runtime::cpu_device().properties().ub_size;
  const asc::Status st = kt::run("budget_kernel", 2, [ub] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(q, 2, static_cast<uint32_t>(ub / 4));  // half of UB
    pipe.InitBuffer(b, static_cast<uint32_t>(ub / 2 + 100));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), asc::ErrorCode::kStorageOverLimit) << st.ToString();
  const std::string& m = st.message();
  EXPECT_TRUE(contains(m, "[TPipe::InitBuffer]")) << m;
  EXPECT_TRUE(contains(m, "kernel 'budget_kernel'")) << m;
  EXPECT_TRUE(contains(m, "block 0") || contains(m, "block 1")) << m;
  EXPECT_TRUE(contains(m, "VECCALC")) << m;
  EXPECT_TRUE(contains(m, "Unified Buffer")) << m;
  EXPECT_TRUE(contains(m, std::to_string(ub / 2 + 100) + " bytes")) << m;          // requested
  EXPECT_TRUE(contains(m, std::to_string(ub / 2) + " bytes remaining")) << m;      // remaining
  EXPECT_TRUE(contains(m, std::to_string(ub) + " bytes per core")) << m;
}

TEST(TPipe, ExactlyFullUbIsFine) {
  const size_t ub = asc::runtime::cpu_device().properties().ub_size;
  uint64_t used = 0;
  kt::run_or_throw("full_ub", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> a;
    TQue<TPosition::VECOUT, 1> b;
    pipe.InitBuffer(a, 2, static_cast<uint32_t>(ub / 4));
    pipe.InitBuffer(b, 2, static_cast<uint32_t>(ub / 4));
    used = pipe.used_bytes(Hardware::UB);
  });
  EXPECT_EQ(used, ub);
}

TEST(TPipe, EachBlockStartsAtArenaOffsetZero) {
  // More blocks than cores: every block's first buffer is the start of its core's UB.
  const int cores = asc::runtime::cpu_device().properties().num_cores;
  const uint32_t blocks = static_cast<uint32_t>(3 * cores + 1);
  std::vector<uint64_t> first(blocks), ub_base(blocks);
  kt::run_or_throw("arena_offset", blocks, [&] {
    TPipe pipe;
    TBuf<> b;
    pipe.InitBuffer(b, 1000);
    const auto idx = static_cast<size_t>(GetBlockIdx());
    first[idx] = b.Get<uint8_t>().GetPhyAddr();
    ub_base[idx] = reinterpret_cast<uint64_t>(asc::runtime::current_block()->arenas->ub);
  });
  for (uint32_t i = 0; i < blocks; ++i) EXPECT_EQ(first[i], ub_base[i]);
}

TEST(TPipe, OtherMemoriesHaveTheirOwnBudgets) {
  asc::Status st = kt::run("l1_kernel", 1, [] {
    TPipe pipe;
    TQue<TPosition::A1, 1> a1;
    TQue<TPosition::B2, 1> b2;
    TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(ub, 150 * 1024);      // UB
    pipe.InitBuffer(a1, 2, 200 * 1024);   // L1 (512 KiB): fine although more than UB
    pipe.InitBuffer(b2, 1, 64 * 1024);    // L0B 64 KiB: exactly full
    if (pipe.used_bytes(Hardware::L1) != 400 * 1024) throw std::runtime_error("L1 accounting");
    pipe.InitBuffer(b2, 1, 32);           // L0B over budget
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kStorageOverLimit) << st.ToString();
  EXPECT_TRUE(contains(st.message(), "B2")) << st.message();
  EXPECT_TRUE(contains(st.message(), "L0B")) << st.message();
  EXPECT_TRUE(contains(st.message(), "0 bytes remaining")) << st.message();
}

TEST(TPipe, ResetAndOutsideKernel) {
  kt::run_or_throw("reset", 1, [] {
    TPipe pipe;
    TBuf<> a, b;
    pipe.InitBuffer(a, 100000);
    pipe.Reset();
    pipe.InitBuffer(b, 100000);  // would not fit without Reset
    if (a.Get<uint8_t>().GetPhyAddr() != b.Get<uint8_t>().GetPhyAddr()) throw std::runtime_error("reset");
    if (GetTPipePtr() != &pipe) throw std::runtime_error("GetTPipePtr");
  });
  TPipe outside;
  TBuf<> buf;
  try {
    outside.InitBuffer(buf, 64);
    FAIL() << "InitBuffer outside a kernel must throw";
  } catch (const asc::Error& e) {
    EXPECT_EQ(e.code(), asc::ErrorCode::kInvalidParam);
    EXPECT_TRUE(contains(e.what(), "outside a kernel")) << e.what();
  }
}

TEST(TQue, LifecycleAndQueries) {
  std::vector<std::string> log;
  kt::run_or_throw("que_life", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 100);  // 100 bytes -> 25 floats, buffers 128 bytes apart
    auto check = [&](bool cond, const char* what) {
      if (!cond) log.push_back(what);
    };
    check(q.HasIdleBuffer() && !q.HasTensorInQue() && q.VacantInQue(), "fresh");
    auto t0 = q.AllocTensor<float>();
    auto t1 = q.AllocTensor<float>();
    check(t0.GetSize() == 25 && t1.GetSize() == 25, "size");
    check(t1.GetPhyAddr() - t0.GetPhyAddr() == 128, "stride");
    check(t0.GetPosition() == static_cast<int32_t>(TPosition::VECIN), "position");
    check(!q.HasIdleBuffer(), "no idle");
    t0.SetValue(0, 1.0f);
    t1.SetValue(0, 2.0f);
    q.EnQue(t0);
    q.EnQue<float>(t1);
    check(q.GetTensorCountInQue() == 2 && !q.VacantInQue(), "two queued");
    auto d0 = q.DeQue<float>();
    auto d1 = q.DeQue<float>();
    check(d0.GetValue(0) == 1.0f && d1.GetValue(0) == 2.0f, "FIFO order");
    check(!q.HasTensorInQue(), "empty");
    q.FreeTensor(d0);
    check(q.HasIdleBuffer(), "idle after free");
    q.FreeTensor(d1);
    // Round robin: the next allocation continues after the last one handed out.
    auto t2 = q.AllocTensor<half>();
    check(t2.GetPhyAddr() == t0.GetPhyAddr() && t2.GetSize() == 50, "reuse as half");
    t2.SetSize(10);
    q.EnQue(t2);
    check(q.DeQue<half>().GetSize() == 10, "size survives the queue");
  });
  EXPECT_TRUE(log.empty()) << log.front();
}

template <typename Fn>
asc::Status misuse(Fn fn) {
  return kt::run("que_misuse", 1, [fn] {
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    TQue<TPosition::VECOUT, 1> other;
    pipe.InitBuffer(q, 2, 256);
    pipe.InitBuffer(other, 1, 256);
    fn(q, other);
  });
}

TEST(TQue, DeQueEmptyIsAnErrorNotAHang) {
  const asc::Status st = misuse([](auto& q, auto&) { q.template DeQue<float>(); });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_TRUE(contains(st.message(), "[TQue::DeQue] kernel 'que_misuse' block 0")) << st.message();
  EXPECT_TRUE(contains(st.message(), "empty")) << st.message();
}

TEST(TQue, AllocBeyondBuffers) {
  const asc::Status st = misuse([](auto& q, auto&) {
    q.template AllocTensor<float>();
    q.template AllocTensor<float>();
    q.template AllocTensor<float>();
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_TRUE(contains(st.message(), "[TQue::AllocTensor]")) << st.message();
  EXPECT_TRUE(contains(st.message(), "no free buffer")) << st.message();
}

TEST(TQue, DoubleFree) {
  const asc::Status st = misuse([](auto& q, auto&) {
    auto t = q.template AllocTensor<float>();
    q.FreeTensor(t);
    q.FreeTensor(t);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_TRUE(contains(st.message(), "[TQue::FreeTensor]")) << st.message();
  EXPECT_TRUE(contains(st.message(), "twice")) << st.message();
}

TEST(TQue, FreeForeignOrEnqueuedTensor) {
  asc::Status st = misuse([](auto& q, auto& other) {
    auto t = other.template AllocTensor<float>();
    q.FreeTensor(t);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_TRUE(contains(st.message(), "not a buffer of this VECIN queue")) << st.message();
  st = misuse([](auto& q, auto&) {
    auto t = q.template AllocTensor<float>();
    q.FreeTensor(t[8]);  // a view, not the buffer
  });
  EXPECT_TRUE(contains(st.message(), "not a buffer")) << st.message();
  st = misuse([](auto& q, auto&) {
    auto t = q.template AllocTensor<float>();
    q.EnQue(t);
    q.FreeTensor(t);
  });
  EXPECT_TRUE(contains(st.message(), "still enqueued")) << st.message();
  st = misuse([](auto& q, auto&) {
    auto t = q.template AllocTensor<float>();
    q.EnQue(t);
    q.EnQue(t);
  });
  EXPECT_TRUE(contains(st.message(), "[TQue::EnQue]")) << st.message();
}

TEST(TQue, DepthIsEnforced) {
  const asc::Status full = kt::run("depth", 1, [] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 2, 64);
    q.EnQue(q.AllocTensor<float>());
    q.EnQue(q.AllocTensor<float>());  // depth 1
  });
  EXPECT_EQ(full.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_TRUE(contains(full.message(), "full")) << full.message();
  const asc::Status uninit = kt::run("uninit", 1, [] {
    TQue<TPosition::VECIN, 1> q;
    q.AllocTensor<float>();
  });
  EXPECT_TRUE(contains(uninit.message(), "InitBuffer")) << uninit.message();
}

TEST(TQueBind, VecinToVecout) {
  float v = 0;
  kt::run_or_throw("bind", 1, [&] {
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> q;
    pipe.InitBuffer(q, 1, 64);
    auto t = q.AllocTensor<float>();
    t.SetValue(3, 4.5f);
    q.EnQue(t);
    auto d = q.DeQue<float>();
    if (d.GetPosition() != static_cast<int32_t>(TPosition::VECOUT)) throw std::runtime_error("dst position");
    v = d.GetValue(3);
    q.FreeTensor(d);
  });
  EXPECT_EQ(v, 4.5f);
}

TEST(TBuf, GetVariants) {
  asc::Status st = kt::run("tbuf", 1, [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 1000);
    auto all = b.Get<float>();
    if (all.GetSize() != 250) throw std::runtime_error("Get size");
    auto part = b.Get<half>(100);
    if (part.GetSize() != 100 || part.GetPhyAddr() != all.GetPhyAddr()) throw std::runtime_error("Get(len)");
    auto off = b.GetWithOffset<int32_t>(10, 64);
    if (off.GetPhyAddr() != all.GetPhyAddr() + 64) throw std::runtime_error("GetWithOffset");
    b.Get<float>(251);  // too long
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_TRUE(contains(st.message(), "[TBuf::Get]")) << st.message();
}

TEST(Tensors, ViewsAndReinterpret) {
  std::vector<float> gm(100);
  for (int i = 0; i < 100; ++i) gm[i] = static_cast<float>(i);
  std::vector<std::string> errors;
  kt::run_or_throw("tensors", 1, [&] {
    auto expect = [&](bool c, const char* what) {
      if (!c) errors.push_back(what);
    };
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), 100);
    expect(g.GetSize() == 100, "global size");
    expect(g[10].GetValue(5) == 15.0f && g[10].GetSize() == 90, "global view");
    expect(g.GetPhyAddr(3) == gm.data() + 3, "global phy addr");
    g.SetValue(99, -1.0f);
    expect(g(99) == -1.0f, "global operator()");

    TPipe pipe;
    TBuf<> b;
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = b.Get<float>();
    for (uint32_t i = 0; i < 64; ++i) t.SetValue(i, static_cast<float>(i));
    LocalTensor<float> v = t[16];
    expect(v.GetSize() == 48 && v.GetValue(0) == 16.0f, "local view");
    expect(v.GetPhyAddr() == t.GetPhyAddr(16), "local phy addr");
    auto u = t.ReinterpretCast<uint32_t>();
    expect(u.GetSize() == 64 && u.GetValue(1) == 0x3F800000u, "reinterpret float->u32");
    auto h = t.ReinterpretCast<half>();
    expect(h.GetSize() == 128, "reinterpret float->half");
    expect(t.GetLength() == 256, "length");
    t(2) = 7.0f;
    expect(t.GetValue(2) == 7.0f, "local operator()");
    expect(t.GetPosition() == static_cast<int32_t>(TPosition::VECCALC), "position");
  });
  for (const auto& e : errors) ADD_FAILURE() << e;
  EXPECT_EQ(gm[99], -1.0f);
}

TEST(System, BlockIdxAndNumWithMoreBlocksThanCores) {
  const int cores = asc::runtime::cpu_device().properties().num_cores;
  const uint32_t blocks = static_cast<uint32_t>(4 * cores + 3);
  std::vector<int64_t> idx(blocks, -1), num(blocks, -1);
  std::atomic<int> calls{0};
  kt::run_or_throw("block_ids", blocks, [&] {
    const int64_t i = GetBlockIdx();
    idx[static_cast<size_t>(i)] = i;
    num[static_cast<size_t>(i)] = GetBlockNum();
    calls.fetch_add(1);
  });
  EXPECT_EQ(calls.load(), static_cast<int>(blocks));
  for (uint32_t i = 0; i < blocks; ++i) {
    EXPECT_EQ(idx[i], static_cast<int64_t>(i));
    EXPECT_EQ(num[i], static_cast<int64_t>(blocks));
  }
  EXPECT_EQ(GetBlockIdx(), 0);  // outside a kernel
  EXPECT_EQ(GetBlockNum(), 1);
}

TEST(Sync, FlagsAndBarriersCompile) {
  kt::run_or_throw("sync", 1, [] {
    TPipe pipe;
    event_t id = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
    SetFlag<HardEvent::V_MTE3>(id);
    WaitFlag<HardEvent::V_MTE3>(id);
    TEventID e = pipe.AllocEventID<HardEvent::MTE2_V>();
    SetFlag<HardEvent::MTE2_V>(e);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID7);
    pipe.ReleaseEventID<HardEvent::MTE2_V>(e);
    PipeBarrier<PIPE_V>();
    PipeBarrier<PIPE_ALL>();
    pipe_barrier(PIPE_MTE2);
  });
}

}  // namespace
