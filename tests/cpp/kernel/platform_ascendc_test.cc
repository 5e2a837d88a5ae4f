// platform_ascendc::PlatformAscendCManager / PlatformAscendC (CANN's host-side
// platform information) answer with the CPU device's cores and arenas capped
// by the chosen product's sizes.
#include <gtest/gtest.h>

#include <cstdlib>

#include "asc/runtime/device.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

using platform_ascendc::CoreMemType;
using platform_ascendc::PlatformAscendC;
using platform_ascendc::PlatformAscendCManager;
using platform_ascendc::ReservedSize;
using platform_ascendc::SocVersion;

namespace {
const asc::runtime::DeviceProperties& props() { return asc::runtime::current_device().properties(); }
uint64_t mem(const PlatformAscendC& p, CoreMemType t) {
  uint64_t v = 12345;
  p.GetCoreMemSize(t, v);
  return v;
}
uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }
}  // namespace

TEST(PlatformAscendC, ManagerIsASingletonOfTheDefaultSoc) {
  // This test file is compiled without __NPU_ARCH__: the default is dav-2201.
  PlatformAscendC* p = PlatformAscendCManager::GetInstance();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->GetSocVersion(), SocVersion::ASCEND910B);
  EXPECT_EQ(p->GetCurNpuArch(), NpuArch::DAV_2201);
  EXPECT_EQ(p->GetSocName(), "Ascend910B1");
  // CANN: only the first call's customSocVersion counts.
  EXPECT_EQ(PlatformAscendCManager::GetInstance("Ascend950PR_9589"), p);
  EXPECT_EQ(p->GetSocVersion(), SocVersion::ASCEND910B);
}

TEST(PlatformAscendC, CoreCountsAreTheDevicesCores) {
  PlatformAscendC* p = PlatformAscendCManager::GetInstance();
  ASSERT_NE(p, nullptr);
  const uint32_t n = static_cast<uint32_t>(props().num_cores);
  ASSERT_GE(n, 1u);
  EXPECT_EQ(p->GetCoreNum(), n);
  EXPECT_EQ(p->GetCoreNumAic(), n);
  EXPECT_EQ(p->GetCoreNumAiv(), n);
  EXPECT_EQ(p->GetCoreNumVector(), 0u);
}

TEST(PlatformAscendC, Dav2201MemorySizes) {
  fe::PlatFormInfos info;
  ASSERT_TRUE(fe::PlatFormInfos::ForSoc("Ascend910B3", info));
  PlatformAscendC p(&info);
  EXPECT_EQ(p.GetSocVersion(), SocVersion::ASCEND910B);
  EXPECT_EQ(mem(p, CoreMemType::UB), min64(192 * 1024, props().ub_size));
  EXPECT_EQ(mem(p, CoreMemType::L1), 512u * 1024);
  EXPECT_EQ(mem(p, CoreMemType::L0_A), 64u * 1024);
  EXPECT_EQ(mem(p, CoreMemType::L0_B), 64u * 1024);
  EXPECT_EQ(mem(p, CoreMemType::L0_C), 128u * 1024);
  EXPECT_EQ(mem(p, CoreMemType::BT), 1024u);
  EXPECT_EQ(mem(p, CoreMemType::HBM), props().total_memory);
  EXPECT_EQ(mem(p, CoreMemType::RESERVED), 0u);
  EXPECT_EQ(p.GetVecRegLen(), 0u);
  // Each size fits the arena a kernel of this device really gets.
  EXPECT_LE(mem(p, CoreMemType::UB), props().ub_size);
  EXPECT_LE(mem(p, CoreMemType::L0_C), props().l0c_size);
}

TEST(PlatformAscendC, Dav3510IsCappedByTheDevice) {
  fe::PlatFormInfos info;
  ASSERT_TRUE(fe::PlatFormInfos::ForSoc("Ascend950PR_9589", info));
  PlatformAscendC p(&info);
  EXPECT_EQ(p.GetSocVersion(), SocVersion::ASCEND950);
  EXPECT_EQ(p.GetSocVersion(), SocVersion::ASCEND910_95);  // CANN's deprecated alias
  EXPECT_EQ(p.GetCurNpuArch(), NpuArch::DAV_3510);
  EXPECT_EQ(p.GetVecRegLen(), 256u);
  EXPECT_EQ(mem(p, CoreMemType::UB), min64(248 * 1024, props().ub_size));
  EXPECT_EQ(mem(p, CoreMemType::L0_C), min64(256 * 1024, props().l0c_size));
  EXPECT_EQ(mem(p, CoreMemType::BT), 4096u);
  EXPECT_EQ(mem(p, CoreMemType::FB), 4096u);
}

TEST(PlatformAscendC, ReserveLocalMemoryLastCallWins) {
  fe::PlatFormInfos info;
  ASSERT_TRUE(fe::PlatFormInfos::ForSoc("Ascend910_9391", info));  // A3 reports as ASCEND910B
  EXPECT_EQ(info.soc_version, SocVersion::ASCEND910B);
  PlatformAscendC p(&info);
  const uint64_t ub = mem(p, CoreMemType::UB);
  p.ReserveLocalMemory(ReservedSize::RESERVED_SIZE_32K);
  EXPECT_EQ(mem(p, CoreMemType::UB), ub - 32 * 1024);
  p.ReserveLocalMemory(ReservedSize::RESERVED_SIZE_8K);
  EXPECT_EQ(mem(p, CoreMemType::UB), ub - 8 * 1024);
  EXPECT_EQ(mem(p, CoreMemType::L1), 512u * 1024);  // only UB is reserved from
}

TEST(PlatformAscendC, CalcTschNumBlocksGroupsVectorSlices) {
  fe::PlatFormInfos info;
  ASSERT_TRUE(fe::PlatFormInfos::ForSoc("Ascend910B1", info));
  PlatformAscendC p(&info);
  EXPECT_EQ(p.CalcTschNumBlocks(40, 20, 40), 20u);  // the doc's 40 AIV + 20 AIC
  EXPECT_EQ(p.CalcTschNumBlocks(7, 24, 48), 4u);    // ceil(7 / 2)
  EXPECT_EQ(p.CalcTschNumBlocks(7, 0, 48), 7u);     // vector only
  EXPECT_EQ(p.CalcTschNumBlocks(7, 24, 0), 7u);     // cube only
  EXPECT_EQ(p.CalcTschBlockDim(9, 8, 8), 9u);       // this device: 1:1
  EXPECT_EQ(p.GetLibApiWorkSpaceSize(), 16u * 1024 * 1024);
}

TEST(PlatformAscendC, UnknownSocsAreRefused) {
  fe::PlatFormInfos info;
  EXPECT_FALSE(fe::PlatFormInfos::ForSoc("Ascend310P3", info));
  EXPECT_FALSE(fe::PlatFormInfos::ForSoc("", info));
  EXPECT_FALSE(fe::PlatFormInfos::ForSoc(nullptr, info));
  // The manager's first call decides; in a fresh process an unknown SoC gives
  // nullptr and names the SoC.
  testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(std::exit(PlatformAscendCManager::GetInstance("Ascend310P3") == nullptr ? 3 : 4),
              testing::ExitedWithCode(3), "SoC version 'Ascend310P3' is not supported");
}

TEST(PlatformAscendC, FeedsTheMatmulTiling) {
  PlatformAscendC* p = PlatformAscendCManager::GetInstance();
  ASSERT_NE(p, nullptr);
  matmul_tiling::MultiCoreMatmulTiling tiling(*p);  // the samples' form
  tiling.SetDim(static_cast<int32_t>(p->GetCoreNumAic()));
  SUCCEED();
}
