// The kernel checker on the cube path: GM reads of DataCopy GM -> L1
// (Nd2NzParams) and LoadData from GM, GM writes of Fixpipe and DataCopy
// L0C -> GM, the high-level Matmul's reads and writes: one buggy kernel per
// check with the exact report, clean Mmad / Matmul kernels with none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "asc/kernel/checker.h"
#include "asc/runtime/device.h"
#include "asc/runtime/memory_pool.h"
#include "checker_test_util.h"
#include "kernel_test_util.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"

namespace {

using namespace AscendC;
namespace chk = asc::kernel::check;

using ckt::kCheckCode;

using CheckerCube = ckt::CheckerFixture<>;

// One 32 x 32 x 32 half -> float product per block: GM -> L1 (Nd2Nz) -> L0A /
// L0B (LoadData, B transposed) -> Mmad -> Fixpipe -> GM. Block b multiplies
// rows [32b, 32b + 32) of A (ld 32) by B and writes the same rows of C.
void mmad_block(half* a, half* b, float* c, bool bound) {
  constexpr int kM = 32, kN = 32, kK = 32;
  const uint32_t blk = static_cast<uint32_t>(GetBlockIdx());
  TPipe pipe;
  TQue<TPosition::A1, 1> qa1;
  TQue<TPosition::B1, 1> qb1;
  TQue<TPosition::A2, 1> qa2;
  TQue<TPosition::B2, 1> qb2;
  TQue<TPosition::CO1, 1> qc;
  pipe.InitBuffer(qa1, 1, kM * kK * 2);
  pipe.InitBuffer(qb1, 1, kK * kN * 2);
  pipe.InitBuffer(qa2, 1, kM * kK * 2);
  pipe.InitBuffer(qb2, 1, kK * kN * 2);
  pipe.InitBuffer(qc, 1, kM * kN * 4);
  GlobalTensor<half> ga, gb;
  GlobalTensor<float> gc;
  ga.SetGlobalBuffer(a + blk * kM * kK, bound ? kM * kK : 0);
  gb.SetGlobalBuffer(b, bound ? kK * kN : 0);
  gc.SetGlobalBuffer(c + blk * kM * kN, bound ? kM * kN : 0);
  auto a1 = qa1.AllocTensor<half>();
  auto b1 = qb1.AllocTensor<half>();
  DataCopy(a1, ga, Nd2NzParams(1, kM, kK, 0, kK, kM, 1, 0));
  DataCopy(b1, gb, Nd2NzParams(1, kK, kN, 0, kN, kK, 1, 0));
  qa1.EnQue(a1);
  qb1.EnQue(b1);
  a1 = qa1.DeQue<half>();
  b1 = qb1.DeQue<half>();
  auto a2 = qa2.AllocTensor<half>();
  auto b2 = qb2.AllocTensor<half>();
  for (int i = 0; i < kM / 16; ++i) LoadData(a2[i * kK * 16], a1[i * 256], LoadData2DParams(0, kK / 16, kM / 16, 0, 0, false, 0));
  for (int i = 0; i < kK / 16; ++i) {
    LoadData(b2[i * kN * 16], b1, LoadData2DParams(static_cast<uint16_t>(i), kN / 16, kK / 16, 0, 0, true, 0));
  }
  qa1.FreeTensor(a1);
  qb1.FreeTensor(b1);
  qa2.EnQue(a2);
  qb2.EnQue(b2);
  a2 = qa2.DeQue<half>();
  b2 = qb2.DeQue<half>();
  auto c1 = qc.AllocTensor<float>();
  Mmad(c1, a2, b2, MmadParams(kM, kN, kK, 0, false, true));
  qa2.FreeTensor(a2);
  qb2.FreeTensor(b2);
  qc.EnQue(c1);
  c1 = qc.DeQue<float>();
  Fixpipe(gc, c1, FixpipeParamsV220(kN, kM, kM, kN, false));
  qc.FreeTensor(c1);
}

// m x n x k half -> float tiling for `dim` cores (the host side of the SDK sample).
TCubeTiling make_tiling(int m, int n, int k, int dim) {
  matmul_tiling::MultiCoreMatmulTiling tiling;
  tiling.SetDim(dim);
  tiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  tiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  tiling.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  tiling.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  tiling.SetShape(m, n, k);
  tiling.SetOrgShape(m, n, k);
  tiling.SetBias(false);
  tiling.SetBufferSpace(-1, -1, -1);
  optiling::TCubeTiling data;
  EXPECT_EQ(tiling.GetTiling(data), 0);
  std::vector<uint8_t> buf(data.GetDataSize());
  data.SaveToBuffer(buf.data(), buf.size());
  TCubeTiling t;
  std::memcpy(&t, buf.data(), sizeof(t));
  return t;
}

using MmA = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using MmC = MatmulType<TPosition::GM, CubeFormat::ND, float>;

// ---------------------------------------------------------------- clean kernels

TEST_F(CheckerCube, CleanMmadAndMatmulKernelsProduceNoReport) {
  half* a = gm<half>(64 * 32 * 2);
  half* b = gm<half>(32 * 32 * 2);
  float* c = gm<float>(64 * 32 * 4);
  for (int i = 0; i < 64 * 32; ++i) a[i] = half(float(i % 3));       // rows differ
  for (int i = 0; i < 32 * 32; ++i) b[i] = half(float(i % 32 == 5));  // column 5 of B is 1
  for (bool bound : {false, true}) {
    std::fill(c, c + 64 * 32, -1.f);
    const asc::Status st = kt::run("clean_mmad", 2, [=] { mmad_block(a, b, c, bound); });
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(lines().empty());
    // C[i][j] = sum_k A[i][k] * B[k][j]: B's column 5 is all ones, the others zero.
    for (int i = 0; i < 64; ++i) {
      float row = 0;
      for (int k = 0; k < 32; ++k) row += float((i * 32 + k) % 3);
      for (int j = 0; j < 32; ++j) ASSERT_EQ(c[i * 32 + j], j == 5 ? row : 0.f) << i << " " << j;
    }
  }
  // The high-level Matmul over two cores, each writing its piece of C.
  const TCubeTiling t = make_tiling(64, 32, 32, 2);
  std::fill(c, c + 64 * 32, -1.f);
  const asc::Status st = kt::run("clean_matmul", static_cast<uint32_t>(t.usedCoreNum), [=] {
    TPipe pipe;
    matmul::Matmul<MmA, MmA, MmC, MmC> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    const int32_t blk = static_cast<int32_t>(GetBlockIdx());
    const int32_t m_blocks = (t.M + t.singleCoreM - 1) / t.singleCoreM;
    const int32_t mi = blk % m_blocks, ni = blk / m_blocks;
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a, 64 * 32);
    gb.SetGlobalBuffer(b, 32 * 32);
    gc.SetGlobalBuffer(c, 64 * 32);
    const int32_t tail_m = std::min(t.M - mi * t.singleCoreM, t.singleCoreM);
    const int32_t tail_n = std::min(t.N - ni * t.singleCoreN, t.singleCoreN);
    if (tail_m < t.singleCoreM || tail_n < t.singleCoreN) mm.SetTail(tail_m, tail_n);
    mm.SetTensorA(ga[int64_t{mi} * t.Ka * t.singleCoreM]);
    mm.SetTensorB(gb[int64_t{ni} * t.singleCoreN]);
    mm.IterateAll(gc[int64_t{mi} * t.N * t.singleCoreM + int64_t{ni} * t.singleCoreN]);
    mm.End();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(lines().empty());
  for (int i = 0; i < 64; ++i) {
    float row = 0;
    for (int k = 0; k < 32; ++k) row += float((i * 32 + k) % 3);
    for (int j = 0; j < 32; ++j) ASSERT_EQ(c[i * 32 + j], j == 5 ? row : 0.f) << i << " " << j;
  }
}

// ---------------------------------------------------------------- GM reads

TEST_F(CheckerCube, Nd2NzReadPastTheAllocation) {
  half* a = gm<half>(32 * 32 * 2);
  expect_fatal(kt::run("nd2nz_oob", 1,
                       [=] {
                         TPipe pipe;
                         TQue<TPosition::A1, 1> q;
                         pipe.InitBuffer(q, 1, 48 * 32 * 2);
                         GlobalTensor<half> g;
                         g.SetGlobalBuffer(a);
                         auto l1 = q.AllocTensor<half>();
                         // 33 rows of a 32-row matrix.
                         DataCopy(l1, g, Nd2NzParams(1, 33, 32, 0, 32, 48, 1, 0));
                         q.FreeTensor(l1);
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'nd2nz_oob' block 0/1: DataCopy: reads GM bytes [0, 2112) "
               "of a 2048-byte allocation");
  chk::clear_reports();
  // The second of two ND matrices (srcNdMatrixStride 512) passes SetGlobalBuffer's size.
  expect_fatal(kt::run("nd2nz_bound", 1,
                       [=] {
                         TPipe pipe;
                         TQue<TPosition::B1, 1> q;
                         pipe.InitBuffer(q, 1, 2 * 16 * 16 * 2);
                         GlobalTensor<half> g;
                         g.SetGlobalBuffer(a + 16, 600);
                         auto l1 = q.AllocTensor<half>();
                         DataCopy(l1, g, Nd2NzParams(2, 16, 16, 512, 32, 16, 1, 256));
                         q.FreeTensor(l1);
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'nd2nz_bound' block 0/1: DataCopy: reads bytes [1024, "
               "2016) of a GlobalTensor that SetGlobalBuffer bound to 1200 bytes (at byte 32 of a 2048-byte "
               "allocation)");
}

TEST_F(CheckerCube, LoadDataFromGmPastTheAllocation) {
  half* a = gm<half>(2048);  // four fractals
  expect_fatal(kt::run("load_oob", 1,
                       [=] {
                         TPipe pipe;
                         TQue<TPosition::A2, 1> q;
                         pipe.InitBuffer(q, 1, 8 * 512);
                         GlobalTensor<half> g;
                         g.SetGlobalBuffer(a);
                         auto l0a = q.AllocTensor<half>();
                         LoadData(l0a, g, LoadData2DParams(1, 2, 2, 0, 0, false, 0));  // fractals 1 and 3: fine
                         LoadData(l0a, g, LoadData2DParams(1, 3, 1, 0, 0, false, 0));  // fractals 1, 2, 3
                         LoadData(l0a, g, LoadData2DParams(2, 3, 1, 0, 0, false, 0));  // 2, 3 and 4 (past the end)
                         q.FreeTensor(l0a);
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'load_oob' block 0/1: LoadData: reads GM bytes [1024, 2560) "
               "of a 2048-byte allocation");
}

TEST_F(CheckerCube, MatmulReadsPastSetGlobalBufferSize) {
  half* a = gm<half>(32 * 32 * 2);
  half* b = gm<half>(32 * 32 * 2);
  float* c = gm<float>(32 * 32 * 4);
  const TCubeTiling t = make_tiling(32, 32, 32, 1);
  const int64_t mb = std::min(t.baseM, 32), nb = std::min(t.baseN, 32);
  auto kernel = [=](bool short_a) {
    return [=] {
      TPipe pipe;
      matmul::Matmul<MmA, MmA, MmC, MmC> mm;
      REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
      GlobalTensor<half> ga, gb;
      GlobalTensor<float> gc;
      ga.SetGlobalBuffer(a, short_a ? 8 : 32 * 32);
      gb.SetGlobalBuffer(b, short_a ? 32 * 32 : 8);
      gc.SetGlobalBuffer(c, 32 * 32);
      mm.SetTensorA(ga);
      mm.SetTensorB(gb);
      mm.IterateAll(gc);
      mm.End();
    };
  };
  // A: the first piece's mb rows of 32 halves; B: its 32 rows of nb halves, 64 bytes apart.
  expect_fatal(kt::run("mm_oob_a", 1, kernel(true)),
               "[kernel check] gm-out-of-bounds: kernel 'mm_oob_a' block 0/1: Matmul::Iterate: reads bytes [0, " +
                   std::to_string(mb * 64) +
                   ") of a GlobalTensor that SetGlobalBuffer bound to 16 bytes (at byte 0 of a 2048-byte allocation)");
  chk::clear_reports();
  expect_fatal(kt::run("mm_oob_b", 1, kernel(false)),
               "[kernel check] gm-out-of-bounds: kernel 'mm_oob_b' block 0/1: Matmul::Iterate: reads bytes [0, " +
                   std::to_string(31 * 64 + nb * 2) +
                   ") of a GlobalTensor that SetGlobalBuffer bound to 16 bytes (at byte 0 of a 2048-byte allocation)");
}

// ---------------------------------------------------------------- local operands

TEST_F(CheckerCube, MmadAndLoadDataOnAFreedBuffer) {
  auto kernel = [](bool mmad) {
    return [=] {
      TPipe pipe;
      TQue<TPosition::A1, 1> qa1;
      TQue<TPosition::A2, 1> qa2;
      TQue<TPosition::B2, 1> qb2;
      TQue<TPosition::CO1, 1> qc;
      pipe.InitBuffer(qa1, 1, 2048);
      pipe.InitBuffer(qa2, 1, 2048);
      pipe.InitBuffer(qb2, 1, 2048);
      pipe.InitBuffer(qc, 1, 4096);
      auto a1 = qa1.AllocTensor<half>();
      auto a2 = qa2.AllocTensor<half>();
      auto b2 = qb2.AllocTensor<half>();
      auto c1 = qc.AllocTensor<float>();
      if (mmad) {
        qa2.FreeTensor(a2);
        Mmad(c1, a2, b2, MmadParams(32, 32, 32, 0, false, true));  // fm was released
      } else {
        qa1.FreeTensor(a1);
        LoadData(a2, a1, LoadData2DParams(0, 4, 1, 0, 0, false, 0));  // src was released
      }
    };
  };
  expect_fatal(kt::run("mmad_uaf", 1, kernel(true)),
               "[kernel check] use-after-free: kernel 'mmad_uaf' block 0/1: Mmad: fm (L0A offset 0, 2048 bytes) lies "
               "in buffer 0 of the A2 queue at L0A offset 0 (1 buffers of 2048 bytes), which FreeTensor released");
  chk::clear_reports();
  // 2 x 2 fractals of 512 bytes from the start of the released L1 buffer.
  expect_fatal(kt::run("load_uaf", 1, kernel(false)),
               "[kernel check] use-after-free: kernel 'load_uaf' block 0/1: LoadData: src (L1 offset 0, 2048 bytes) "
               "lies in buffer 0 of the A1 queue at L1 offset 0 (1 buffers of 2048 bytes), which FreeTensor "
               "released");
}

// ---------------------------------------------------------------- GM writes

TEST_F(CheckerCube, FixpipeAndDataCopyCo1WritePastTheBounds) {
  float* c = gm<float>(32 * 32 * 4);
  auto kernel = [=](int which) {
    return [=] {
      TPipe pipe;
      TQue<TPosition::CO1, 1> q;
      pipe.InitBuffer(q, 1, 32 * 32 * 4);
      GlobalTensor<float> g;
      auto c1 = q.AllocTensor<float>();
      if (which == 0) {  // ND rows: 32 rows of 32 floats into a 512-float GlobalTensor
        g.SetGlobalBuffer(c, 512);
        Fixpipe(g, c1, FixpipeParamsV220(32, 32, 32, 32, false));
      } else if (which == 1) {  // NZ: two fractal columns of 32 x 16 floats, 4096 bytes apart
        g.SetGlobalBuffer(c);
        Fixpipe<float, float, CFG_NZ>(g, c1, FixpipeParamsV220(32, 32, 32, 128, false));
      } else {  // DataCopy L0C -> GM, ND, starting at row 16
        g.SetGlobalBuffer(c);
        DataCopy(g[16 * 32], c1, DataCopyCO12DstParams(32, 32, 32, 32, QuantMode_t::NoQuant, 0, false, true));
      }
      q.FreeTensor(c1);
    };
  };
  expect_fatal(kt::run("fix_oob", 1, kernel(0)),
               "[kernel check] gm-out-of-bounds: kernel 'fix_oob' block 0/1: Fixpipe: writes bytes [0, 4096) of a "
               "GlobalTensor that SetGlobalBuffer bound to 2048 bytes (at byte 0 of a 4096-byte allocation)");
  chk::clear_reports();
  expect_fatal(kt::run("fix_nz_oob", 1, kernel(1)),
               "[kernel check] gm-out-of-bounds: kernel 'fix_nz_oob' block 0/1: Fixpipe: writes GM bytes [0, 6144) "
               "of a 4096-byte allocation");
  chk::clear_reports();
  expect_fatal(kt::run("co1_oob", 1, kernel(2)),
               "[kernel check] gm-out-of-bounds: kernel 'co1_oob' block 0/1: DataCopy: writes GM bytes [2048, 6144) "
               "of a 4096-byte allocation");
}

TEST_F(CheckerCube, MatmulWritesPastSetGlobalBufferSize) {
  half* a = gm<half>(32 * 32 * 2);
  half* b = gm<half>(32 * 32 * 2);
  float* c = gm<float>(32 * 32 * 4);
  const TCubeTiling t = make_tiling(32, 32, 32, 1);
  const int64_t mb = std::min(t.baseM, 32), nb = std::min(t.baseN, 32);
  expect_fatal(kt::run("mm_oob_c", 1,
                       [=] {
                         TPipe pipe;
                         matmul::Matmul<MmA, MmA, MmC, MmC> mm;
                         REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
                         GlobalTensor<half> ga, gb;
                         GlobalTensor<float> gc;
                         ga.SetGlobalBuffer(a, 32 * 32);
                         gb.SetGlobalBuffer(b, 32 * 32);
                         gc.SetGlobalBuffer(c, 16);
                         mm.SetTensorA(ga);
                         mm.SetTensorB(gb);
                         while (mm.Iterate()) mm.GetTensorC(gc);
                         mm.End();
                       }),
               "[kernel check] gm-out-of-bounds: kernel 'mm_oob_c' block 0/1: Matmul::GetTensorC: writes bytes [0, " +
                   std::to_string(((mb - 1) * 32 + nb) * 4) +
                   ") of a GlobalTensor that SetGlobalBuffer bound to 64 bytes (at byte 0 of a 4096-byte allocation)");
}

// ---------------------------------------------------------------- races

TEST_F(CheckerCube, FixpipeFromTwoBlocksToTheSameBytesRaces) {
  float* c = gm<float>(16 * 16 * 4);
  const asc::Status st = kt::run("fix_race", 2, [=] {
    TPipe pipe;
    TQue<TPosition::CO1, 1> q;
    pipe.InitBuffer(q, 1, 16 * 16 * 4);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(c, 256);
    auto c1 = q.AllocTensor<float>();
    Fixpipe(g, c1, FixpipeParamsV220(16, 16, 16, 16, false));
    q.FreeTensor(c1);
  });
  expect_reported(st, "fix_race",
                  {"[kernel check] gm-write-race: kernel 'fix_race' block 1/2: Fixpipe: writes GM bytes [0, 1024) of "
                   "a 1024-byte allocation that block 0 also writes (Fixpipe), without atomics"});
}

// SetAtomicAdd / SetAtomicMax apply to Fixpipe (ND and NZ) and DataCopy
// L0C -> GM: every block combines into the same C, which is no race.
TEST_F(CheckerCube, FixpipeUnderSetAtomicCombinesWithoutRace) {
  float* c = gm<float>(16 * 32 * 4);
  auto kernel = [=](int mode) {
    return [=] {
      const float blk = float(GetBlockIdx());
      TPipe pipe;
      TQue<TPosition::CO1, 1> q;
      pipe.InitBuffer(q, 1, 16 * 32 * 4);
      GlobalTensor<float> g;
      g.SetGlobalBuffer(c, 16 * 32);
      auto c1 = q.AllocTensor<float>();
      // NZ source, srcStride 16: element (i, j) at (j / 16) * 256 + i * 16 + j % 16.
      for (int i = 0; i < 16; ++i) {
        for (int j = 0; j < 32; ++j) c1.SetValue((j / 16) * 256 + i * 16 + j % 16, float(i * 32 + j) + blk);
      }
      if (mode == 0) {
        SetAtomicAdd<float>();
        Fixpipe(g, c1, FixpipeParamsV220(32, 16, 16, 32, false));
      } else if (mode == 1) {
        SetAtomicMax<float>();
        Fixpipe<float, float, CFG_NZ>(g, c1, FixpipeParamsV220(32, 16, 16, 32, false));
      } else {
        SetAtomicAdd<float>();
        DataCopy(g, c1, DataCopyCO12DstParams(32, 16, 32, 16, QuantMode_t::NoQuant, 0, false, true));
      }
      SetAtomicNone();
      q.FreeTensor(c1);
    };
  };
  for (int mode : {0, 2}) {
    std::fill(c, c + 16 * 32, 1.f);
    const asc::Status st = kt::run("fix_atomic", 3, kernel(mode));
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(lines().empty());
    // 1 + sum over blocks 0..2 of (v + blk) = 1 + 3v + 3.
    for (int e = 0; e < 16 * 32; ++e) ASSERT_EQ(c[e], 1.f + 3.f * float(e) + 3.f) << mode << " " << e;
  }
  // NZ output (two 16 x 16 fractal columns, 1024 bytes apart): max over blocks = v + 2.
  std::fill(c, c + 16 * 32, -1.f);
  c[5] = 1000.f;  // GM already larger: kept
  const asc::Status st = kt::run("fix_atomic_max", 3, kernel(1));
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(lines().empty());
  for (int jb = 0; jb < 2; ++jb) {
    for (int i = 0; i < 16; ++i) {
      for (int jj = 0; jj < 16; ++jj) {
        const int e = jb * 256 + i * 16 + jj;
        ASSERT_EQ(c[e], e == 5 ? 1000.f : float(i * 32 + jb * 16 + jj) + 2.f) << e;
      }
    }
  }
}

TEST_F(CheckerCube, MatmulFromTwoBlocksRacesUnlessAtomic) {
  half* a = gm<half>(32 * 32 * 2);
  half* b = gm<half>(32 * 32 * 2);
  float* c = gm<float>(32 * 32 * 4);
  for (int i = 0; i < 32 * 32; ++i) a[i] = half(1.f), b[i] = half(2.f);
  const TCubeTiling t = make_tiling(32, 32, 32, 1);
  auto kernel = [=](uint8_t atomic) {
    return [=] {
      TPipe pipe;
      matmul::Matmul<MmA, MmA, MmC, MmC> mm;
      REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
      GlobalTensor<half> ga, gb;
      GlobalTensor<float> gc;
      ga.SetGlobalBuffer(a, 32 * 32);
      gb.SetGlobalBuffer(b, 32 * 32);
      gc.SetGlobalBuffer(c, 32 * 32);
      mm.SetTensorA(ga);
      mm.SetTensorB(gb);
      mm.IterateAll(gc, atomic);  // both blocks write all of C
      mm.End();
    };
  };
  expect_reported(kt::run("mm_race", 2, kernel(0)), "mm_race",
                  {"[kernel check] gm-write-race: kernel 'mm_race' block 1/2: Matmul::GetTensorC: writes GM bytes [0, "
                   "4096) of a 4096-byte allocation that block 0 also writes (Matmul::GetTensorC), without atomics"});
  chk::clear_reports();
  // enAtomic = 1 (add): no race, and C holds both blocks' sums (2 x 32 x 2 = 128).
  std::fill(c, c + 32 * 32, 0.f);
  const asc::Status st = kt::run("mm_atomic", 2, kernel(1));
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(lines().empty());
  for (int i = 0; i < 32 * 32; ++i) ASSERT_EQ(c[i], 128.f) << i;
}

}  // namespace
