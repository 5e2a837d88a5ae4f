// The high-level Matmul API over a multi-core tiling, written like the SDK's
// matmul samples (host tiling with MultiCoreMatmulTiling, kernel with
// REGIST_MATMUL_OBJ, CalcGMOffset and SetTail), against a double-precision
// reference for odd M/N/K from 1 to 1024, every supported type combination,
// transposed operands, bias, Iterate + GetTensorC (GM and UB), atomic add,
// and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_test_util.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"

// CANN's samples name these unqualified at global scope.
static_assert(std::is_same_v<CubeFormat, AscendC::CubeFormat> && std::is_same_v<MatmulConfig, AscendC::MatmulConfig> &&
              CFG_NORM.doNorm && CFG_MDL.doMultiDataLoad);

namespace {

using AscendC::TPosition;
using AscendC::CubeFormat;

template <typename T>
matmul_tiling::DataType tiling_type() {
  if constexpr (std::is_same_v<T, half>) return matmul_tiling::DataType::DT_FLOAT16;
  if constexpr (std::is_same_v<T, bfloat16_t>) return matmul_tiling::DataType::DT_BF16;
  if constexpr (std::is_same_v<T, float>) return matmul_tiling::DataType::DT_FLOAT;
  if constexpr (std::is_same_v<T, int8_t>) return matmul_tiling::DataType::DT_INT8;
  return matmul_tiling::DataType::DT_INT32;
}

template <typename T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

template <typename T>
std::vector<T> random_vec(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, int32_t>) {
      x = static_cast<T>(std::uniform_int_distribution<int>(-128, 127)(rng));
    } else {
      x = T(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));
    }
  }
  return v;
}

struct Case {
  int32_t m, n, k;
  bool trans_a = false, trans_b = false, bias = false;
  int32_t dim = 2;
};

std::string describe(const Case& c) {
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + (c.trans_a ? " A^T" : "") +
         (c.trans_b ? " B^T" : "") + (c.bias ? " bias" : "") + " dim " + std::to_string(c.dim);
}

template <typename AT, typename CT, typename BiasT>
TCubeTiling make_tiling(const Case& c) {
  matmul_tiling::MultiCoreMatmulTiling tiling;
  tiling.SetDim(c.dim);
  tiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, tiling_type<AT>(), c.trans_a);
  tiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, tiling_type<AT>(), c.trans_b);
  tiling.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, tiling_type<CT>());
  tiling.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, tiling_type<BiasT>());
  tiling.SetShape(c.m, c.n, c.k);
  tiling.SetOrgShape(c.m, c.n, c.k);
  tiling.SetBias(c.bias);
  tiling.SetBufferSpace(-1, -1, -1);
  optiling::TCubeTiling data;
  EXPECT_EQ(tiling.GetTiling(data), 0) << describe(c);
  // The kernel receives the serialised struct, as from GM.
  std::vector<uint8_t> buf(data.GetDataSize());
  data.SaveToBuffer(buf.data(), buf.size());
  TCubeTiling t;
  std::memcpy(&t, buf.data(), sizeof(t));
  int32_t dim = 0, m_dim = 0, n_dim = 0;
  tiling.GetCoreNum(dim, m_dim, n_dim);
  EXPECT_EQ(dim, t.usedCoreNum);
  EXPECT_EQ(m_dim * n_dim, t.usedCoreNum);
  EXPECT_LE(t.usedCoreNum, c.dim);
  EXPECT_GE(int64_t{t.singleCoreM} * m_dim, c.m);
  EXPECT_GE(int64_t{t.singleCoreN} * n_dim, c.n);
  EXPECT_LE(int64_t{t.baseM} * t.baseN * 4, 128 * 1024);
  EXPECT_LE(int64_t{t.baseM} * t.baseK * sizeof(AT), 64 * 1024);
  EXPECT_LE(int64_t{t.baseK} * t.baseN * sizeof(AT), 64 * 1024);
  return t;
}

enum class Mode { kIterateAll, kIterateGetTensorC, kLocalTiles, kAtomicAdd };

// The SDK sample's kernel: each block offsets A, B, C, bias by its piece.
template <typename AT, typename CT, typename BiasT>
void matmul_block(const TCubeTiling& tiling, const Case& c, AT* a, AT* b, BiasT* bias, CT* out, Mode mode) {
  using A = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, AT>;
  using C = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, CT>;
  using Bias = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, BiasT>;
  AscendC::TPipe pipe;
  matmul::Matmul<A, A, C, Bias> mm;
  REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &tiling);
  const int32_t block = static_cast<int32_t>(AscendC::GetBlockIdx());
  const int32_t m_blocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
  const int32_t mi = block % m_blocks, ni = block / m_blocks;
  const int64_t off_a = c.trans_a ? int64_t{mi} * tiling.singleCoreM : int64_t{mi} * tiling.Ka * tiling.singleCoreM;
  const int64_t off_b = c.trans_b ? int64_t{ni} * tiling.Kb * tiling.singleCoreN : int64_t{ni} * tiling.singleCoreN;
  const int64_t off_c = int64_t{mi} * tiling.N * tiling.singleCoreM + int64_t{ni} * tiling.singleCoreN;
  const int32_t tail_m = std::min(tiling.M - mi * tiling.singleCoreM, tiling.singleCoreM);
  const int32_t tail_n = std::min(tiling.N - ni * tiling.singleCoreN, tiling.singleCoreN);
  AscendC::GlobalTensor<AT> ga, gb;
  AscendC::GlobalTensor<CT> gc;
  AscendC::GlobalTensor<BiasT> gbias;
  ga.SetGlobalBuffer(a, int64_t{c.m} * c.k);
  gb.SetGlobalBuffer(b, int64_t{c.k} * c.n);
  gc.SetGlobalBuffer(out, int64_t{c.m} * c.n);
  gbias.SetGlobalBuffer(bias, c.n);
  if (tail_m < tiling.singleCoreM || tail_n < tiling.singleCoreN) mm.SetTail(tail_m, tail_n);
  mm.SetTensorA(ga[off_a], c.trans_a);
  mm.SetTensorB(gb[off_b], c.trans_b);
  if (c.bias) mm.SetBias(gbias[ni * tiling.singleCoreN]);
  switch (mode) {
    case Mode::kIterateAll: mm.IterateAll(gc[off_c]); break;
    case Mode::kAtomicAdd: mm.IterateAll(gc[off_c], 1); break;
    case Mode::kIterateGetTensorC:
      while (mm.Iterate()) mm.GetTensorC(gc[off_c]);
      break;
    case Mode::kLocalTiles: {
      // Each piece lands in UB as a baseM x baseN tile; this test then copies
      // its valid part out element by element, in the same order as Iterate.
      AscendC::TBuf<TPosition::VECOUT> ub;
      pipe.InitBuffer(ub, tiling.baseM * tiling.baseN * sizeof(CT));
      auto tile = ub.Get<CT>();
      const int32_t m_iter = (tail_m + tiling.baseM - 1) / tiling.baseM;
      int32_t idx = 0;
      while (mm.Iterate()) {
        mm.GetTensorC(tile);
        const int32_t bm = idx % m_iter, bn = idx / m_iter;
        const int32_t rows = std::min(tiling.baseM, tail_m - bm * tiling.baseM);
        const int32_t cols = std::min(tiling.baseN, tail_n - bn * tiling.baseN);
        for (int32_t i = 0; i < rows; ++i) {
          for (int32_t j = 0; j < cols; ++j) {
            gc.SetValue(off_c + int64_t(bm * tiling.baseM + i) * tiling.N + bn * tiling.baseN + j,
                        tile.GetValue(i * tiling.baseN + j));
          }
        }
        ++idx;
      }
      break;
    }
  }
  mm.End();
}

template <typename AT, typename CT, typename BiasT>
void check(const Case& c, Mode mode = Mode::kIterateAll) {
  const TCubeTiling tiling = make_tiling<AT, CT, BiasT>(c);
  auto a = random_vec<AT>(int64_t{c.m} * c.k, 1 + c.m);
  auto b = random_vec<AT>(int64_t{c.k} * c.n, 2 + c.n);
  auto bias = random_vec<BiasT>(c.n, 3);
  std::vector<CT> out(int64_t{c.m} * c.n, CT(mode == Mode::kAtomicAdd ? 1 : -99));
  kt::run_or_throw("matmul_custom", static_cast<uint32_t>(tiling.usedCoreNum),
                   [&] { matmul_block<AT, CT, BiasT>(tiling, c, a.data(), b.data(), bias.data(), out.data(), mode); });
  // Reference in double; A / B read as stored (transposed or not).
  // (A and B in double, B as k x n rows, so that the inner loop vectorises.)
  std::vector<double> ad(a.size()), bd(b.size());
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t kk = 0; kk < c.k; ++kk) ad[i * c.k + kk] = as_double(c.trans_a ? a[kk * c.m + i] : a[i * c.k + kk]);
  }
  for (int64_t kk = 0; kk < c.k; ++kk) {
    for (int64_t j = 0; j < c.n; ++j) bd[kk * c.n + j] = as_double(c.trans_b ? b[j * c.k + kk] : b[kk * c.n + j]);
  }
  std::vector<double> ref(int64_t{c.m} * c.n, 0.0), mag(int64_t{c.m} * c.n, 0.0);
  for (int64_t i = 0; i < c.m; ++i) {
    double* r = &ref[i * c.n];
    double* g = &mag[i * c.n];
    for (int64_t kk = 0; kk < c.k; ++kk) {
      const double av = ad[i * c.k + kk];
      const double* bk = &bd[kk * c.n];
      for (int64_t j = 0; j < c.n; ++j) {
        r[j] += av * bk[j];
        g[j] += std::fabs(av * bk[j]);
      }
    }
  }
  int bad = 0;
  for (int64_t i = 0; i < c.m && bad < 5; ++i) {
    for (int64_t j = 0; j < c.n && bad < 5; ++j) {
      double want = ref[i * c.n + j] + (c.bias ? as_double(bias[j]) : 0.0) + (mode == Mode::kAtomicAdd ? 1.0 : 0.0);
      const double got = as_double(out[i * c.n + j]);
      double tol = (c.k + 2) * 6.0e-8 * (mag[i * c.n + j] + 1.0);
      if constexpr (std::is_same_v<CT, half>) tol += std::fabs(want) * 4.9e-4;  // final rounding to half
      if constexpr (std::is_same_v<CT, bfloat16_t>) tol += std::fabs(want) * 3.9e-3;
      if constexpr (std::is_same_v<CT, int32_t>) tol = 0;
      if (!(std::fabs(got - want) <= tol)) {
        ADD_FAILURE() << describe(c) << " C[" << i << "][" << j << "] = " << got << ", want " << want;
        ++bad;
      }
    }
  }
}

const std::vector<Case>& odd_sizes() {
  static const std::vector<Case> v = {
      {1, 1, 1}, {7, 5, 3}, {17, 31, 65}, {33, 100, 129}, {129, 257, 63}, {250, 70, 513}, {3, 600, 17, false, false, false, 5},
  };
  return v;
}

TEST(MatmulApi, HalfToFloatOddSizes) {
  for (auto c : odd_sizes()) check<half, float, float>(c);
}
TEST(MatmulApi, HalfToFloatWithBiasAndTransposes) {
  for (auto c : odd_sizes()) {
    c.bias = true;
    check<half, float, float>(c);
    c.trans_a = true;
    check<half, float, float>(c);
    c.trans_b = true;
    c.bias = false;
    check<half, float, float>(c);
  }
}
TEST(MatmulApi, HalfToHalf) {
  for (auto c : odd_sizes()) {
    c.bias = true;
    check<half, half, half>(c);
  }
}
TEST(MatmulApi, BFloat16ToFloat) {
  for (auto c : odd_sizes()) check<bfloat16_t, float, float>(c);
}
TEST(MatmulApi, FloatToFloat) {
  for (auto c : odd_sizes()) {
    check<float, float, float>(c);
    c.trans_b = true;
    c.bias = true;
    check<float, float, float>(c);
  }
}
TEST(MatmulApi, Int8ToInt32IsExact) {
  for (auto c : odd_sizes()) {
    c.bias = true;
    check<int8_t, int32_t, int32_t>(c);
    c.trans_a = c.trans_b = true;
    check<int8_t, int32_t, int32_t>(c);
  }
}
TEST(MatmulApi, IterateAndGetTensorC) {
  check<half, float, float>({250, 300, 100, false, false, true, 3}, Mode::kIterateGetTensorC);
  check<float, float, float>({130, 290, 40, true, false, false, 2}, Mode::kLocalTiles);
  check<half, float, float>({100, 70, 33, false, true, true, 4}, Mode::kAtomicAdd);
}
TEST(MatmulApi, LargeOddShapesOverManyCores) {
  check<half, float, float>({1023, 1025, 1024, false, false, true, 8});
  check<float, float, float>({511, 1024, 777, false, true, false, 6});
}

// ---------------------------------------------------------------- tiling

TEST(MatmulTiling, RejectsUnusableInputs) {
  matmul_tiling::MultiCoreMatmulTiling t;
  optiling::TCubeTiling data;
  t.SetDim(2);
  t.SetShape(16, 16, 16);
  EXPECT_EQ(t.GetTiling(data), -1);  // no types
  t.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  t.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  t.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_INT32);
  EXPECT_EQ(t.GetTiling(data), -1);  // half -> int32
  t.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  EXPECT_EQ(t.GetTiling(data), 0);
  t.SetShape(0, 16, 16);
  EXPECT_EQ(t.GetTiling(data), -1);
  t.SetShape(64, 64, 64);
  t.SetFixSplit(256, 256, -1);  // 256 KiB of float32 > L0C
  EXPECT_EQ(t.GetTiling(data), -1);
  t.SetFixSplit(64, 128, -1);
  EXPECT_EQ(t.GetTiling(data), 0);
  EXPECT_EQ(data.get_baseM(), 64);
  EXPECT_EQ(data.get_baseN(), 128);
}

TEST(MatmulTiling, SplitsOverCoresWithLeastWorkPerCore) {
  matmul_tiling::MultiCoreMatmulTiling t;
  t.SetDim(4);
  t.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  t.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
  t.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
  t.SetShape(512, 512, 256);
  TCubeTiling data;
  ASSERT_EQ(t.GetTiling(data), 0);
  EXPECT_EQ(data.usedCoreNum, 4);
  EXPECT_EQ(data.singleCoreM, 256);  // 2 x 2 pieces of 256 x 256
  EXPECT_EQ(data.singleCoreN, 256);
  EXPECT_EQ(data.singleCoreK, 256);
  EXPECT_EQ(data.baseM, 128);
  EXPECT_EQ(data.baseN, 256);
  EXPECT_EQ(data.baseK, 64);  // 128 x 64 and 64 x 256 half, double-buffered in 64 KiB
  // A single-core tiling covers the whole shape.
  matmul_tiling::MatmulApiTiling one;
  one.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_INT8);
  one.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_INT8);
  one.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_INT32);
  one.SetShape(100, 40, 300);
  ASSERT_EQ(one.GetTiling(data), 0);
  EXPECT_EQ(data.usedCoreNum, 1);
  EXPECT_GE(data.singleCoreM, 100);
  EXPECT_EQ(data.baseK % 32, 0);
}

// ---------------------------------------------------------------- errors

TEST(MatmulApiErrors, MissingOperandsBadTilingAndShortTensors) {
  using A = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, half>;
  using C = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, float>;
  const TCubeTiling tiling = make_tiling<half, float, float>({32, 32, 32, false, false, false, 1});
  std::vector<half> a(32 * 32, half(1.0f)), b(32 * 32, half(1.0f));
  std::vector<float> c(32 * 32);

  auto st = kt::run("mm_err", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::Matmul<A, A, C> mm;
    REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &tiling);
    AscendC::GlobalTensor<float> gc;
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.IterateAll(gc);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Matmul::Iterate]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("SetTensorA"), std::string::npos) << st.message();

  st = kt::run("mm_err", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::Matmul<A, A, C> mm;
    REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &tiling);
    AscendC::GlobalTensor<half> ga, gb;
    AscendC::GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), 32 * 31);  // one row short
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("elements of A"), std::string::npos) << st.message();

  TCubeTiling bad = tiling;
  bad.baseM = 24;
  st = kt::run("mm_err", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::Matmul<A, A, C> mm;
    REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &bad);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[Matmul::Init]"), std::string::npos) << st.message();

  // Two Matmuls with 128 x 256 float32 pieces need 256 KiB of L0C (128 KiB).
  TCubeTiling big = tiling;
  big.baseM = 128;
  big.baseN = 256;
  st = kt::run("mm_err", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::Matmul<A, A, C> mm1, mm2;
    REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm1, &big, mm2, &big);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kStorageOverLimit);

  // int8 inputs with a float C are not a cube type pair.
  st = kt::run("mm_err", 1, [&] {
    AscendC::TPipe pipe;
    using I8 = AscendC::MatmulType<TPosition::GM, CubeFormat::ND, int8_t>;
    AscendC::Matmul<I8, I8, C> mm;
    REGIST_MATMUL_OBJ(&pipe, AscendC::GetSysWorkSpacePtr(), mm, &tiling);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
}

}  // namespace
