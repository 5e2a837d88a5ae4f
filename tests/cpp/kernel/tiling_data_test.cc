// CANN's tiling-data macros: the host class of BEGIN_TILING_DATA_DEF
// (set_/get_, arrays, nested classes, GetDataSize, SaveToBuffer, the
// registry) against a plain C struct with the same members, and the kernel
// side (REGISTER_TILING_DEFAULT + GET_TILING_DATA, _WITH_STRUCT, _MEMBER,
// _PTR_WITH_STRUCT) reading the saved bytes back in launched blocks.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_operator.h"
#include "kernel_test_util.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MmPart)
TILING_DATA_FIELD_DEF(uint16_t, mmVar);
TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, mmArr);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MmPartOp, MmPart)

// Mixed widths so that the layout needs padding: u8 then u32 (3 bytes), i64
// after a u16 array, a nested class, float last (tail padding to 8).
BEGIN_TILING_DATA_DEF(TestTilingData)
TILING_DATA_FIELD_DEF(uint8_t, flag);
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, arr);
TILING_DATA_FIELD_DEF(int64_t, offset);
TILING_DATA_FIELD_DEF_STRUCT(MmPart, mm);
TILING_DATA_FIELD_DEF(int8_t, sign);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(TestOp, TestTilingData);  // with a ';' too
}  // namespace optiling

// The kernel-side structs, as a sample's kernel header writes them.
struct KMmPart {
  uint16_t mmVar;
  uint16_t mmArr[3];
};
struct KTestTilingData {
  uint8_t flag;
  uint32_t totalLength;
  uint16_t arr[3];
  int64_t offset;
  KMmPart mm;
  int8_t sign;
  float scale;
};

namespace {

optiling::TestTilingData filled() {
  optiling::TestTilingData t;
  t.set_flag(7);
  t.set_totalLength(0x12345678u);
  const uint16_t a[] = {10, 2, 8, 99, 99};  // only the first 3 are taken
  t.set_arr(a);
  t.set_offset(-(int64_t(1) << 40));
  t.mm.set_mmVar(513);
  t.mm.set_mmArr(a + 1);
  t.set_sign(-3);
  t.set_scale(0.625f);
  return t;
}

TEST(TilingData, AccessorsArraysAndNestedClasses) {
  const optiling::TestTilingData t = filled();
  EXPECT_EQ(t.get_flag(), 7);
  EXPECT_EQ(t.get_totalLength(), 0x12345678u);
  EXPECT_EQ(t.get_arr()[0], 10);
  EXPECT_EQ(t.get_arr()[2], 8);
  EXPECT_EQ(t.get_offset(), -(int64_t(1) << 40));
  EXPECT_EQ(t.get_mm().get_mmVar(), 513);
  EXPECT_EQ(t.mm.get_mmArr()[0], 2);
  EXPECT_EQ(t.mm.get_mmArr()[2], 99);
  EXPECT_EQ(t.get_sign(), -3);
  EXPECT_EQ(t.get_scale(), 0.625f);
  optiling::TestTilingData zero;  // fields start at 0
  EXPECT_EQ(zero.get_totalLength(), 0u);
  EXPECT_EQ(zero.get_arr()[1], 0);
  EXPECT_EQ(zero.mm.get_mmVar(), 0);
}

TEST(TilingData, SavedBytesAreTheKernelStructs) {
  const optiling::TestTilingData t = filled();
  ASSERT_EQ(t.GetDataSize(), sizeof(KTestTilingData));
  ASSERT_EQ(offsetof(optiling::TestTilingData, totalLength), offsetof(KTestTilingData, totalLength));
  ASSERT_EQ(offsetof(optiling::TestTilingData, mm), offsetof(KTestTilingData, mm));
  // Each field at a multiple of its size (CANN's alignment rule).
  EXPECT_EQ(offsetof(optiling::TestTilingData, totalLength) % 4, 0u);
  EXPECT_EQ(offsetof(optiling::TestTilingData, offset) % 8, 0u);
  std::vector<uint8_t> buf(t.GetDataSize() + 8, 0xAB);
  t.SaveToBuffer(buf.data(), buf.size());
  KTestTilingData k;
  std::memcpy(&k, buf.data(), sizeof(k));
  EXPECT_EQ(k.flag, 7);
  EXPECT_EQ(k.totalLength, 0x12345678u);
  EXPECT_EQ(k.arr[0], 10);
  EXPECT_EQ(k.arr[1], 2);
  EXPECT_EQ(k.arr[2], 8);
  EXPECT_EQ(k.offset, -(int64_t(1) << 40));
  EXPECT_EQ(k.mm.mmVar, 513);
  EXPECT_EQ(k.mm.mmArr[1], 8);
  EXPECT_EQ(k.sign, -3);
  EXPECT_EQ(k.scale, 0.625f);
  EXPECT_EQ(buf[t.GetDataSize()], 0xAB);  // nothing past the data
  // Too small a capacity (or a null buffer): nothing written.
  std::vector<uint8_t> small(t.GetDataSize() - 1, 0xCD);
  t.SaveToBuffer(small.data(), small.size());
  for (uint8_t b : small) ASSERT_EQ(b, 0xCD);
  t.SaveToBuffer(nullptr, 1024);
}

TEST(TilingData, RegistryKnowsTheOperators) {
  const auto* info = optiling::GetRegisteredTilingClass("TestOp");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->class_name, "TestTilingData");
  EXPECT_EQ(info->data_size, sizeof(KTestTilingData));
  ASSERT_NE(optiling::GetRegisteredTilingClass("MmPartOp"), nullptr);
  EXPECT_EQ(optiling::GetRegisteredTilingClass("NoSuchOp"), nullptr);
}

// A kernel as CANN's op_kernel sources write it.
__global__ __aicore__ void tiling_kernel(GM_ADDR out, GM_ADDR tiling) {
  REGISTER_TILING_DEFAULT(KTestTilingData);
  GET_TILING_DATA(tilingData, tiling);
  GET_TILING_DATA_WITH_STRUCT(KTestTilingData, second, tiling);
  GET_TILING_DATA_MEMBER(KTestTilingData, offset, off, tiling);
  GET_TILING_DATA_PTR_WITH_STRUCT(KTestTilingData, ptr, tiling);
  auto* o = reinterpret_cast<__gm__ int64_t*>(out) + 6 * AscendC::GetBlockIdx();
  o[0] = tilingData.totalLength + AscendC::GetBlockIdx();
  o[1] = second.arr[2];
  o[2] = off;
  o[3] = ptr->mm.mmVar;
  o[4] = static_cast<int64_t>(tilingData.scale * 1000.0f);
  o[5] = tilingData.sign;
}

TEST(TilingData, KernelReadsTheSavedBytes) {
  const optiling::TestTilingData t = filled();
  std::vector<uint8_t> gm(t.GetDataSize());
  t.SaveToBuffer(gm.data(), gm.size());
  std::vector<int64_t> out(6 * 3, 0);
  int64_t* op = out.data();
  uint8_t* tp = gm.data();
  kt::run_or_throw("tiling_kernel", 3, [=] { tiling_kernel(reinterpret_cast<GM_ADDR>(op), tp); });
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(out[6 * b + 0], 0x12345678 + b);
    EXPECT_EQ(out[6 * b + 1], 8);
    EXPECT_EQ(out[6 * b + 2], -(int64_t(1) << 40));
    EXPECT_EQ(out[6 * b + 3], 513);
    EXPECT_EQ(out[6 * b + 4], 625);
    EXPECT_EQ(out[6 * b + 5], -3);
  }
  // A null tiling pointer is a kernel error naming the macro.
  const asc::Status st = kt::run("tiling_null", 1, [=] { tiling_kernel(reinterpret_cast<GM_ADDR>(op), nullptr); });
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("GET_TILING_DATA"), std::string::npos) << st.message();
}

}  // namespace
