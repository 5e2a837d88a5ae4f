// Arange (advanced API, asc/kernel/adv_index.h) against first + i * diff
// (exact for the integer types, within the documented block-wise rounding
// for half and float), its errors, and the system values GetUBSizeInBytes /
// GetRuntimeUBSize / GetDataBlockSizeInBytes (asc/kernel/context.h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "lib/matmul_intf.h"

namespace {

using AscendC::TPosition;

template <typename T>
std::vector<double> arange(T first, T diff, int32_t count, int32_t capacity) {
  std::vector<double> out(capacity);
  kt::run_or_throw("arange", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, static_cast<uint32_t>((capacity * sizeof(T) + 31) / 32 * 32));
    auto t = b.Get<T>();
    for (int32_t i = 0; i < capacity; ++i) t.SetValue(i, T(-1.0f));
    AscendC::Arange<T>(t, first, diff, count);
    for (int32_t i = 0; i < capacity; ++i) out[i] = static_cast<double>(static_cast<float>(t.GetValue(i)));
  });
  return out;
}

}  // namespace

TEST(AdvArange, IntegersAreExact) {
  for (int32_t count : {1, 7, 8, 9, 63, 64, 65, 200}) {
    const auto v = arange<int32_t>(-5, 3, count, count + 8);
    for (int32_t i = 0; i < count; ++i) ASSERT_EQ(v[i], -5.0 + 3.0 * i) << count << " " << i;
    for (int32_t i = count; i < count + 8; ++i) ASSERT_EQ(v[i], -1.0) << "past count " << i;  // untouched
    const auto w = arange<int16_t>(7, 2, count, count);
    for (int32_t i = 0; i < count; ++i) ASSERT_EQ(w[i], 7.0 + 2.0 * i);
  }
}

TEST(AdvArange, FloatAndHalfFollowTheProgression) {
  // The arange sample: first 1.234, diff 5.678, 104 values, checked to 1e-5 relative.
  const auto f = arange<float>(1.234f, 5.678f, 104, 104);
  for (int32_t i = 0; i < 104; ++i) {
    const double want = 1.234 + 5.678 * i;
    ASSERT_LE(std::fabs(f[i] - want), 1e-5 * std::fabs(want) + 1e-6) << i;
  }
  const auto h = arange<half>(half(0.5f), half(0.25f), 100, 100);
  for (int32_t i = 0; i < 100; ++i) ASSERT_EQ(h[i], 0.5 + 0.25 * i) << i;  // exact in half up to 25.25
  EXPECT_EQ(arange<float>(2.0f, 0.0f, 70, 70)[69], 2.0);  // diff 0 is allowed
}

TEST(AdvArange, Errors) {
  auto expect = [](const char* name, auto fn, const char* what) {
    auto st = kt::run(name, 1, fn);
    ASSERT_FALSE(st.ok()) << name;
    EXPECT_NE(st.message().find("Arange"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
  };
  expect("arange_count", [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 64);
    AscendC::Arange<float>(b.Get<float>(), 0.0f, 1.0f, 0);
  }, "count");
  expect("arange_diff", [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 64);
    AscendC::Arange<float>(b.Get<float>(), 0.0f, -1.0f, 4);
  }, "diffValue");
  expect("arange_size", [] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::VECCALC> b;
    pipe.InitBuffer(b, 64);
    AscendC::Arange<int32_t>(b.Get<int32_t>(), 0, 1, 17);  // 16 fit
  }, "17");
}

TEST(SystemValues, UbSizes) {
  static_assert(AscendC::GetUBSizeInBytes() == 192u * 1024u, "dav-2201 (no __NPU_ARCH__ 3510): 192 KiB");
  static_assert(AscendC::GetDataBlockSizeInBytes() == 32, "a DataBlock is 32 bytes");
  uint32_t runtime = 0;
  kt::run_or_throw("ub_size", 1, [&] { runtime = AscendC::GetRuntimeUBSize(); });
  EXPECT_EQ(runtime, asc::runtime::cpu_device().properties().ub_size);  // the arena (192 KiB or ASC_UB_SIZE)
  EXPECT_GT(runtime, 0u);
}

TEST(MatmulConfigBuilders, TakeCannsSwitches) {
  // CANN's GetMDLConfig(intrinsicsLimit, batchLoop, doMTE2Preload, ...) as the matmul_preload sample calls it.
  constexpr MatmulConfig mdl = GetMDLConfig(false, false, 2);
  constexpr MatmulConfig norm = GetNormalConfig(false, false, true);
  EXPECT_EQ(mdl.doMultiDataLoad, AscendC::CFG_MDL.doMultiDataLoad);
  EXPECT_EQ(norm.doNorm, AscendC::CFG_NORM.doNorm);
}
