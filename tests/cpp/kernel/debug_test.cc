// Kernel debug output (AscendC::printf, DumpTensor, assert), the CPU-debug API
// (tikicpulib.h: ICPU_RUN_KF, GmAlloc/GmFree, SetKernelMode) and the launcher
// behind the kernel<<<...>>> syntax.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "kernel_test_util.h"
#include "tikicpulib.h"

namespace {

using namespace AscendC;
namespace dbg = asc::kernel::debug;

// Collects debug output while alive (one string per call).
class Capture {
 public:
  Capture() {
    old_ = dbg::set_print_sink([this](const std::string& s) { calls_.push_back(s); });
  }
  ~Capture() { dbg::set_print_sink(old_); }
  std::vector<std::string> calls() const { return calls_; }
  std::string text() const {
    std::string t;
    for (const auto& c : calls_) t += c;
    return t;
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::istringstream in(text());
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

 private:
  dbg::PrintSink old_;
  std::vector<std::string> calls_;  // the sink runs under the output lock
};

template <typename... Args>
std::string fmt(const char* f, const Args&... args) {
  const dbg::PrintArg a[sizeof...(Args) + 1] = {dbg::make_print_arg(args)..., dbg::PrintArg{}};
  return dbg::format(f, a, sizeof...(Args));
}

// ---------------------------------------------------------------- printf

TEST(DebugPrintf, FormatsLikeCPrintf) {
  EXPECT_EQ(fmt("%d %i %u", -7, 42, 7u), "-7 42 7");
  EXPECT_EQ(fmt("%x %X %o %#x", 255, 255u, 8, 255), "ff FF 10 0xff");
  EXPECT_EQ(fmt("[%5d][%-5d][%05d][%+d]", 42, 42, 42, 42), "[   42][42   ][00042][+42]");
  EXPECT_EQ(fmt("%.2f %e %g %G", 3.14159, 1234.5f, 0.0001, 1e20), "3.14 1.234500e+03 0.0001 1E+20");
  EXPECT_EQ(fmt("%s|%10s|%-4s|%.2s", "abc", "right", "l", "xyz"), "abc|     right|l   |xy");
  EXPECT_EQ(fmt("%c%c", 'o', 'k'), "ok");
  EXPECT_EQ(fmt("100%% %d%%", 5), "100% 5%");
  // Length modifiers are accepted; the argument's own type decides.
  EXPECT_EQ(fmt("%ld %lld %lu %zu %hd", -(int64_t{1} << 40), int64_t{123}, uint64_t{1} << 63, size_t{9}, 70000),
            "-1099511627776 123 9223372036854775808 9 70000");
  EXPECT_EQ(fmt("%*d|%-*d|%.*f", 4, 1, 3, 2, 2, 1.0), "   1|2  |1.00");
  // half and bfloat16_t print as floating values.
  EXPECT_EQ(fmt("%f %.1f %g", half(1.5f), bfloat16_t(-2.0f), half(65504.0f)), "1.500000 -2.0 65504");
  // Special floating values.
  EXPECT_EQ(fmt("%f %f %f %g", std::numeric_limits<float>::infinity(), -std::numeric_limits<double>::infinity(),
                std::nan(""), -0.0f),
            "inf -inf nan -0");
  // A mismatched kind is converted, not reinterpreted.
  EXPECT_EQ(fmt("%d %f %u", 2.75f, 3, -1), "2 3.000000 18446744073709551615");
  EXPECT_EQ(fmt("%s %s", 12, 0.5), "12 0.5");
  EXPECT_EQ(fmt("%d and %d", 1), "1 and <missing>");
  EXPECT_EQ(fmt("bad %y %q end %", 1), "bad %y %q end %");
  EXPECT_EQ(fmt("%p", static_cast<void*>(nullptr)), "(nil)");
  int x = 0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", static_cast<void*>(&x));
  EXPECT_EQ(fmt("%p", &x), buf);
  EXPECT_EQ(fmt("%s", static_cast<const char*>(nullptr)), "(null)");
  EXPECT_EQ(fmt("%d %d", true, int8_t{-3}), "1 -3");
  EXPECT_EQ(fmt(""), "");
  EXPECT_EQ(fmt("no conversions\n"), "no conversions\n");
  std::string longs(2000, 'z');
  EXPECT_EQ(fmt("%s!", longs.c_str()), longs + "!");
}

TEST(DebugPrintf, EveryLineHasTheBlockPrefix) {
  Capture cap;
  kt::run_or_throw("print_kernel", 4, [] {
    AscendC::printf("block %d of %d: %.2f\n", static_cast<int>(GetBlockIdx()), static_cast<int>(GetBlockNum()),
                    1.5f);
    PRINTF("two\nlines\n");
    PRINTF("no newline %s", "here");
  });
  std::vector<std::string> lines = cap.lines();
  std::sort(lines.begin(), lines.end());
  std::vector<std::string> want;
  for (int b = 0; b < 4; ++b) {
    const std::string p = "[Block " + std::to_string(b) + "/4] ";
    want.push_back(p + "block " + std::to_string(b) + " of 4: 1.50");
    want.push_back(p + "two");
    want.push_back(p + "lines");
    want.push_back(p + "no newline here");
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(lines, want);
  // Each call is one record: its lines arrive together.
  for (const auto& c : cap.calls()) {
    if (c.find("two") != std::string::npos) {
      EXPECT_TRUE(std::regex_match(c, std::regex(R"(\[Block (\d)/4\] two\n\[Block \1/4\] lines\n)"))) << c;
    }
  }
}

TEST(DebugPrintf, OutsideAKernelTheHostPrefix) {
  Capture cap;
  AscendC::printf("x=%d\n", 3);
  PRINTF("");
  EXPECT_EQ(cap.text(), "[Host] x=3\n[Host] \n");
}

TEST(DebugPrintf, ConcurrentBlocksNeverInterleaveOnStdout) {
  constexpr int kBlocks = 8;
  constexpr int kCalls = 150;
  testing::internal::CaptureStdout();
  kt::run_or_throw("noisy", kBlocks, [] {
    const int b = static_cast<int>(GetBlockIdx());
    std::string payload(300, static_cast<char>('A' + b));
    for (int i = 0; i < kCalls; ++i) {
      AscendC::printf("%d:%s\ncont %d %d\n", i, payload.c_str(), b, i);
    }
  });
  const std::string out = testing::internal::GetCapturedStdout();
  std::istringstream in(out);
  std::vector<int> seen(kBlocks, 0);
  std::string first, second;
  int lines = 0;
  const std::regex l1(R"(\[Block (\d)/8\] (\d+):([A-H])+)");
  while (std::getline(in, first)) {
    ASSERT_TRUE(std::getline(in, second)) << "odd number of lines";
    lines += 2;
    std::smatch m;
    ASSERT_TRUE(std::regex_match(first, m, l1)) << first.substr(0, 80);
    const int b = std::stoi(m[1]);
    const int i = std::stoi(m[2]);
    ASSERT_EQ(first.size(), std::string("[Block 0/8] ").size() + std::to_string(i).size() + 1 + 300);
    ASSERT_EQ(first.find_first_not_of(static_cast<char>('A' + b), first.find(':') + 1), std::string::npos);
    EXPECT_EQ(second, "[Block " + std::to_string(b) + "/8] cont " + std::to_string(b) + " " + std::to_string(i));
    EXPECT_EQ(i, seen[b]);  // in order within a block
    ++seen[b];
  }
  EXPECT_EQ(lines, 2 * kBlocks * kCalls);
  for (int b = 0; b < kBlocks; ++b) EXPECT_EQ(seen[b], kCalls);
}

// ---------------------------------------------------------------- DumpTensor

TEST(DebugDumpTensor, LocalFloatFormat) {
  Capture cap;
  kt::run_or_throw("dump_f32", 1, [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    for (int i = 0; i < 64; ++i) t.SetValue(i, static_cast<float>(i + 1));
    t.SetValue(0, -0.0f);
    t.SetValue(1, std::numeric_limits<float>::quiet_NaN());
    t.SetValue(2, -std::numeric_limits<float>::infinity());
    t.SetValue(3, 0.1f);
    t.SetValue(4, 1.5e-45f);  // the smallest subnormal
    t.SetValue(5, 3.4028235e38f);
    DumpTensor(t, 7, 20);
    DumpTensor(t[16], 8, 0);
  });
  EXPECT_EQ(cap.text(),
            "[Block 0/1] DumpTensor: desc=7, addr=0x0, data_type=float32, position=VECCALC, dump_size=20\n"
            "[Block 0/1] [0] -0, nan, -inf, 0.1, 1e-45, 3.4028235e+38, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16\n"
            "[Block 0/1] [16] 17, 18, 19, 20\n"
            "[Block 0/1] DumpTensor: desc=8, addr=0x40, data_type=float32, position=VECCALC, dump_size=0\n");
}

TEST(DebugDumpTensor, OtherDtypesAndPositions) {
  Capture cap;
  kt::run_or_throw("dump_types", 2, [] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    TBuf<TPosition::VECOUT> hb;
    TBuf<TPosition::VECCALC> ib;
    pipe.InitBuffer(q, 1, 64);
    pipe.InitBuffer(hb, 64);
    pipe.InitBuffer(ib, 64);
    LocalTensor<int8_t> i8 = q.AllocTensor<int8_t>();
    for (int i = 0; i < 5; ++i) i8.SetValue(i, static_cast<int8_t>(-128 + 63 * i));
    LocalTensor<half> h = hb.Get<half>();
    h.SetValue(0, half(0.1f));
    h.SetValue(1, half(-65504.0f));
    h.SetValue(2, half(6e-8f));
    LocalTensor<int32_t> i32 = ib.Get<int32_t>();
    i32.SetValue(0, std::numeric_limits<int32_t>::min());
    i32.SetValue(1, 7);
    LocalTensor<uint8_t> u8 = ib.Get<uint8_t>()[8];
    u8.SetValue(0, 255);
    LocalTensor<bfloat16_t> bf = ib.Get<bfloat16_t>()[16];
    bf.SetValue(0, bfloat16_t(3.0f));
    if (GetBlockIdx() == 1) {
      DumpTensor(i8, 1, 5);
      DumpTensor(h, 2, 3);
      DumpTensor(i32, 3, 2);
      DumpTensor(u8, 4, 1);
      DumpTensor(bf, 5, 1);
    }
    q.FreeTensor(i8);
  });
  EXPECT_EQ(cap.text(),
            "[Block 1/2] DumpTensor: desc=1, addr=0x0, data_type=int8, position=VECIN, dump_size=5\n"
            "[Block 1/2] [0] -128, -65, -2, 61, 124\n"
            "[Block 1/2] DumpTensor: desc=2, addr=0x40, data_type=float16, position=VECOUT, dump_size=3\n"
            "[Block 1/2] [0] 0.099975586, -65504, 5.9604645e-08\n"
            "[Block 1/2] DumpTensor: desc=3, addr=0x80, data_type=int32, position=VECCALC, dump_size=2\n"
            "[Block 1/2] [0] -2147483648, 7\n"
            "[Block 1/2] DumpTensor: desc=4, addr=0x88, data_type=uint8, position=VECCALC, dump_size=1\n"
            "[Block 1/2] [0] 255\n"
            "[Block 1/2] DumpTensor: desc=5, addr=0xa0, data_type=bfloat16, position=VECCALC, dump_size=1\n"
            "[Block 1/2] [0] 3\n");
}

TEST(DebugDumpTensor, ClampsToTheTensorSize) {
  Capture cap;
  kt::run_or_throw("dump_clamp", 1, [] {
    TPipe pipe;
    TBuf<> b;
    pipe.InitBuffer(b, 32);
    LocalTensor<int16_t> t = b.Get<int16_t>();
    for (int i = 0; i < 16; ++i) t.SetValue(i, static_cast<int16_t>(i - 8));
    DumpTensor(t[12], 9, 100);
  });
  EXPECT_EQ(cap.text(),
            "[Block 0/1] DumpTensor: desc=9, addr=0x18, data_type=int16, position=VECCALC, dump_size=4 (clamped "
            "from 100)\n"
            "[Block 0/1] [0] 4, 5, 6, 7\n");
}

TEST(DebugDumpTensor, SeesDataCopiedFromGmAndGlobalTensors) {
  std::vector<float> in(40);
  for (int i = 0; i < 40; ++i) in[i] = 0.5f * static_cast<float>(i);
  std::vector<float> out(40, 0.0f);
  Capture cap;
  kt::run_or_throw("dump_gm", 1, [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> qin;
    TQue<TPosition::VECOUT, 1> qout;
    pipe.InitBuffer(qin, 1, 40 * 4);
    pipe.InitBuffer(qout, 1, 40 * 4);
    GlobalTensor<float> gin, gout;
    gin.SetGlobalBuffer(in.data(), 40);
    gout.SetGlobalBuffer(out.data(), 40);
    LocalTensor<float> a = qin.AllocTensor<float>();
    DataCopy(a, gin, 40);  // may be elided: DumpTensor must see the data
    qin.EnQue(a);
    LocalTensor<float> x = qin.DeQue<float>();
    DumpTensor(x, 1, 3);
    LocalTensor<float> y = qout.AllocTensor<float>();
    Adds(y, x, 1.0f, 40);
    qout.EnQue(y);
    qin.FreeTensor(x);
    LocalTensor<float> z = qout.DeQue<float>();
    DataCopy(gout, z, 40);
    qout.FreeTensor(z);
    DumpTensor(gout[36], 2, 4);  // the copy-out must have happened
    GlobalTensor<float> unknown;
    unknown.SetGlobalBuffer(in.data() + 1);
    DumpTensor(unknown, 3, 2);
  });
  char a1[32], a2[32];
  std::snprintf(a1, sizeof a1, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(&out[36])));
  std::snprintf(a2, sizeof a2, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(&in[1])));
  EXPECT_EQ(cap.text(),
            std::string("[Block 0/1] DumpTensor: desc=1, addr=0x0, data_type=float32, position=VECIN, dump_size=3\n"
                        "[Block 0/1] [0] 0, 0.5, 1\n"
                        "[Block 0/1] DumpTensor: desc=2, addr=") +
                a1 +
                ", data_type=float32, position=GM, dump_size=4\n"
                "[Block 0/1] [0] 19, 19.5, 20, 20.5\n"
                "[Block 0/1] DumpTensor: desc=3, addr=" +
                a2 +
                ", data_type=float32, position=GM, dump_size=2\n"
                "[Block 0/1] [0] 0.5, 1\n");
  for (int i = 0; i < 40; ++i) EXPECT_EQ(out[i], in[i] + 1.0f);
}

// ---------------------------------------------------------------- assert

int g_assert_line = 0;

TEST(DebugAssert, FailingAssertFailsTheLaunchWithoutAborting) {
  Capture cap;
  asc::Status st = kt::run("assert_kernel", 4, [] {
    const int idx = static_cast<int>(GetBlockIdx());
    g_assert_line = __LINE__ + 1;
    assert(idx != 2, "idx=%d, limit %s\n", idx, "two");
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), asc::ErrorCode::kRtAicoreException);
  const std::string where = std::string(__FILE__) + ":" + std::to_string(g_assert_line);
  const std::string msg = st.message();
  EXPECT_NE(msg.find("[assert_kernel] block 2 of 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[assert] kernel 'assert_kernel' block 2 of 4: " + where +
                     ": Assertion `idx != 2' failed. idx=2, limit two"),
            std::string::npos)
      << msg;
  EXPECT_NE(cap.text().find("[Block 2/4] [ASSERT] " + where + ": Assertion `idx != 2' failed. idx=2, limit two\n"),
            std::string::npos)
      << cap.text();
  // The device is fine afterwards.
  std::vector<int> hit(4, 0);
  kt::run_or_throw("after_assert", 4, [&] { hit[GetBlockIdx()] = 1; });
  EXPECT_EQ(hit, std::vector<int>(4, 1));
}

TEST(DebugAssert, PlainAndAscendcAssertForms) {
  Capture cap;
  asc::Status st = kt::run("plain_assert", 1, [] {
    int v = 5;
    assert(v == 5);  // passes: nothing printed
    ascendc_assert(v > 0, "positive %d", v);
    assert(v < 0);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), asc::ErrorCode::kRtAicoreException);
  EXPECT_NE(st.message().find("Assertion `v < 0' failed."), std::string::npos) << st.message();
  ASSERT_EQ(cap.lines().size(), 1u) << cap.text();
  EXPECT_TRUE(std::regex_match(cap.lines()[0],
                               std::regex(R"(\[Block 0/1\] \[ASSERT\] .*debug_test\.cc:\d+: Assertion `v < 0' failed\.)")))
      << cap.lines()[0];

  st = kt::run("ascendc_assert", 1, [] {
    const float f = 2.5f;
    ascendc_assert(f < 1.0f, "f=%.1f", f);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kRtAicoreException);
  EXPECT_NE(st.message().find("Assertion `f < 1.0f' failed. f=2.5"), std::string::npos) << st.message();
}

TEST(DebugAssert, ExpressionEvaluatedOnceAndHostAssertPasses) {
  int calls = 0;
  kt::run_or_throw("assert_once", 1, [&] { assert(++calls == 1); });
  EXPECT_EQ(calls, 1);
  assert(calls == 1, "host side %d", calls);  // holds: no effect
}

TEST(DebugAssertDeathTest, HostAssertAbortsLikeTheCOne) {
#ifndef NDEBUG
  EXPECT_DEATH({ assert(1 + 1 == 3, "math %d", 2); }, "Assertion `1 \\+ 1 == 3' failed. math 2");
#else
  int evaluated = 0;
  assert(++evaluated == 100);  // NDEBUG: host asserts are not even evaluated
  EXPECT_EQ(evaluated, 0);
#endif
}

// ---------------------------------------------------------------- tikicpulib.h

extern "C" __global__ __aicore__ void debug_add_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t n) {
  const uint32_t per = n / GetBlockNum();
  GlobalTensor<float> gx, gy, gz;
  gx.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + per * GetBlockIdx(), per);
  gy.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + per * GetBlockIdx(), per);
  gz.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(z) + per * GetBlockIdx(), per);
  TPipe pipe;
  TBuf<> bx, by;
  pipe.InitBuffer(bx, per * 4);
  pipe.InitBuffer(by, per * 4);
  LocalTensor<float> lx = bx.Get<float>(), ly = by.Get<float>();
  DataCopy(lx, gx, per);
  DataCopy(ly, gy, per);
  Add(lx, lx, ly, static_cast<int32_t>(per));
  DataCopy(gz, lx, per);
}

extern "C" __global__ __aicore__ void debug_assert_kernel(GM_ADDR x, uint32_t limit) {
  const uint32_t v = reinterpret_cast<uint32_t*>(x)[GetBlockIdx()];
  assert(v < limit, "value %u at block %d", v, static_cast<int>(GetBlockIdx()));
}

TEST(CpuDebug, IcpuRunKfWithGmAlloc) {
  const uint32_t n = 8 * 64;
  auto* x = static_cast<uint8_t*>(AscendC::GmAlloc(n * 4));
  auto* y = static_cast<uint8_t*>(AscendC::GmAlloc(n * 4));
  auto* z = static_cast<uint8_t*>(AscendC::GmAlloc(n * 4));
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(x) % 64, 0u);
  for (uint32_t i = 0; i < n; ++i) {
    reinterpret_cast<float*>(x)[i] = static_cast<float>(i);
    reinterpret_cast<float*>(y)[i] = 0.25f;
  }
  AscendC::SetKernelMode(KernelMode::AIV_MODE);
  EXPECT_EQ(AscendC::GetKernelMode(), KernelMode::AIV_MODE);
  EXPECT_EQ(ICPU_RUN_KF(debug_add_kernel, 8, x, y, z, n), 0);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(reinterpret_cast<float*>(z)[i], static_cast<float>(i) + 0.25f) << i;
  AscendC::SetKernelMode(KernelMode::MIX_MODE);
  AscendC::GmFree(x);
  AscendC::GmFree(y);
  AscendC::GmFree(z);
  AscendC::GmFree(nullptr);
}

TEST(CpuDebug, IcpuRunKfReportsAFailedAssert) {
  auto* v = static_cast<uint8_t*>(AscendC::GmAlloc(4 * 4));
  for (uint32_t i = 0; i < 4; ++i) reinterpret_cast<uint32_t*>(v)[i] = i * 10;
  Capture cap;
  testing::internal::CaptureStderr();
  const int rc = ICPU_RUN_KF(debug_assert_kernel, 4, v, 25u);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_NE(err.find("[ICPU_RUN_KF] debug_assert_kernel: [debug_assert_kernel] block 3 of 4"), std::string::npos)
      << err;
  EXPECT_NE(err.find("Assertion `v < limit' failed. value 30 at block 3"), std::string::npos) << err;
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("value 30 at block 3"), std::string::npos);
  EXPECT_NE(cap.text().find("[Block 3/4] [ASSERT]"), std::string::npos);
  EXPECT_EQ(ICPU_RUN_KF(debug_assert_kernel, 4, v, 100u), 0);
  // blockDim 0 cannot be launched: reported, not thrown.
  testing::internal::CaptureStderr();
  EXPECT_EQ(ICPU_RUN_KF(debug_assert_kernel, 0, v, 100u), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("blockDim must be in [1, 65535], got 0"), std::string::npos);
  AscendC::GmFree(v);
}

// ---------------------------------------------------------------- <<<>>> launcher

TEST(ChevronLaunch, LaunchesOnTheGivenStream) {
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  std::vector<float> x(256), y(256, 1.0f), z(256, 0.0f);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(-i);
  uint8_t* px = reinterpret_cast<uint8_t*>(x.data());
  uint8_t* py = reinterpret_cast<uint8_t*>(y.data());
  uint8_t* pz = reinterpret_cast<uint8_t*>(z.data());
  // What pyasc-cc makes of debug_add_kernel<<<4, nullptr, stream>>>(px, py, pz, 256).
  ::asc::detail::chevron_launch("debug_add_kernel", debug_add_kernel, 4, nullptr, stream)(px, py, pz, 256);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(z[i], 1.0f - static_cast<float>(i));
  // l2ctrl 0, stream 0 (the current stream).
  std::fill(z.begin(), z.end(), 0.0f);
  ::asc::detail::chevron_launch("debug_add_kernel", debug_add_kernel, 2, 0, 0)(px, py, pz, 256u);
  ASSERT_TRUE(asc::runtime::current_stream()->synchronize().ok());
  EXPECT_EQ(z[255], -254.0f);
  // A failing kernel fails the stream's synchronize with the assert's code.
  uint32_t vals[2] = {1, 99};
  Capture cap;
  ::asc::detail::chevron_launch("debug_assert_kernel", debug_assert_kernel, 2, nullptr, stream)(
      reinterpret_cast<uint8_t*>(vals), 50u);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_AICORE_EXCEPTION);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("value 99 at block 1"), std::string::npos);
  // blockDim 0: reported on stderr and by the stream's next synchronize.
  testing::internal::CaptureStderr();
  ::asc::detail::chevron_launch("debug_assert_kernel", debug_assert_kernel, 0, nullptr, stream)(
      reinterpret_cast<uint8_t*>(vals), 50u);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("[pyasc] debug_assert_kernel<<<...>>>: [debug_assert_kernel] blockDim must be in [1, 65535]"),
            std::string::npos)
      << err;
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  // A handle that is not a stream: reported, nothing runs, nothing crashes.
  int not_a_stream = 0;
  testing::internal::CaptureStderr();
  ::asc::detail::chevron_launch("debug_assert_kernel", debug_assert_kernel, 1, nullptr,
                                static_cast<void*>(&not_a_stream))(reinterpret_cast<uint8_t*>(vals), 0u);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("[pyasc] debug_assert_kernel<<<...>>>"), std::string::npos);
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST(KernelChecks, RequestFlag) {
  const bool before = dbg::kernel_checks_requested();
  dbg::request_kernel_checks(true);
  EXPECT_TRUE(dbg::kernel_checks_requested());
  dbg::request_kernel_checks(false);
  EXPECT_FALSE(dbg::kernel_checks_requested());
  dbg::request_kernel_checks(before);
}

}  // namespace
