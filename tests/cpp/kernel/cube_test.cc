// Cube instructions: fractal layouts (hand-checked offsets and hand-written
// layout functions), DataCopy ND -> NZ, LoadData 2D (with transpose), Mmad for
// every type pair against a double-precision reference (ragged m/n/k, bias,
// accumulate, NaN/Inf, k padding never read), Fixpipe NZ -> ND with every
// quantisation mode, the whole GM -> L1 -> L0 -> L0C -> GM pipeline, and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_test_util.h"

namespace {

using AscendC::TPosition;
namespace cb = asc::kernel::cube;

// ---------------------------------------------------------------- reference layouts
// Written independently of cube.h: walk the fractal grid in the documented order.

// NZ: fractal columns of width c0, each holding rpad rows.
std::vector<int64_t> nz_order(int64_t rows, int64_t cols, int64_t rpad, int64_t c0) {
  std::vector<int64_t> off(rows * cols, -1);
  int64_t pos = 0;
  for (int64_t cb0 = 0; cb0 < cols; cb0 += c0) {
    for (int64_t r = 0; r < rpad; ++r) {
      for (int64_t c = cb0; c < cb0 + c0; ++c, ++pos) {
        if (r < rows && c < cols) off[r * cols + c] = pos;
      }
    }
  }
  return off;
}
// Zz: 16 x c0 fractals, row-major grid, row-major inside.
std::vector<int64_t> zz_order(int64_t m, int64_t k, int64_t c0) {
  std::vector<int64_t> off(m * k, -1);
  const int64_t m1 = (m + 15) / 16, k1 = (k + c0 - 1) / c0;
  int64_t pos = 0;
  for (int64_t fm = 0; fm < m1; ++fm) {
    for (int64_t fk = 0; fk < k1; ++fk) {
      for (int64_t r = 0; r < 16; ++r) {
        for (int64_t c = 0; c < c0; ++c, ++pos) {
          const int64_t i = fm * 16 + r, kk = fk * c0 + c;
          if (i < m && kk < k) off[i * k + kk] = pos;
        }
      }
    }
  }
  return off;
}
// Zn: c0(k) x 16(n) fractals, row-major grid (k blocks outer), stored with one
// row of c0 k-values per n.
std::vector<int64_t> zn_order(int64_t k, int64_t n, int64_t c0) {
  std::vector<int64_t> off(k * n, -1);
  const int64_t k1 = (k + c0 - 1) / c0, n1 = (n + 15) / 16;
  int64_t pos = 0;
  for (int64_t fk = 0; fk < k1; ++fk) {
    for (int64_t fn = 0; fn < n1; ++fn) {
      for (int64_t jn = 0; jn < 16; ++jn) {
        for (int64_t c = 0; c < c0; ++c, ++pos) {
          const int64_t kk = fk * c0 + c, j = fn * 16 + jn;
          if (kk < k && j < n) off[kk * n + j] = pos;
        }
      }
    }
  }
  return off;
}

TEST(CubeLayout, HandCheckedOffsets) {
  // half (C0 = 16), a 2 x 2 grid of fractals (32 x 32).
  EXPECT_EQ(cb::nz_offset(17, 3, 32, 16), 275);    // column block 0, row 17
  EXPECT_EQ(cb::nz_offset(1, 17, 32, 16), 529);    // column block 1: 512 + 16 + 1
  EXPECT_EQ(cb::zz_offset(17, 20, 2, 16), 788);    // fractal (1,1): 768 + 16 + 4
  EXPECT_EQ(cb::zz_offset(3, 18, 2, 16), 306);     // fractal (0,1): 256 + 48 + 2
  EXPECT_EQ(cb::zn_offset(20, 3, 2, 16), 564);     // fractal (k1,n0) = 2: 512 + 48 + 4
  EXPECT_EQ(cb::zn_offset(3, 20, 2, 16), 323);     // fractal (k0,n1) = 1: 256 + 64 + 3
  EXPECT_EQ(cb::l0c_offset(17, 20, 32), 788);      // n-column 1: 512 + 272 + 4
  // float (C0 = 8): Zz fractal 16 x 8, K1 = 4 for k = 32.
  EXPECT_EQ(cb::zz_offset(17, 9, 4, 8), (1 * 4 + 1) * 128 + 8 + 1);
  // int8 (C0 = 32): Zn fractal 32(k) x 16(n).
  EXPECT_EQ(cb::zn_offset(33, 17, 2, 32), (1 * 2 + 1) * 512 + 32 + 1);
}

TEST(CubeLayout, FormulasMatchReferenceOrders) {
  for (int64_t c0 : {8, 16, 32}) {
    for (auto [r, c] : {std::pair<int64_t, int64_t>{1, 1}, {16, 16}, {17, 33}, {40, 7}, {64, 96}}) {
      const int64_t rpad = (r + 15) / 16 * 16;
      auto nz = nz_order(r, c, rpad, c0);
      auto zz = zz_order(r, c, c0);
      auto zn = zn_order(r, c, c0);  // as k x n
      const int64_t k1 = (c + c0 - 1) / c0, n1 = (c + 15) / 16;
      for (int64_t i = 0; i < r; ++i) {
        for (int64_t j = 0; j < c; ++j) {
          ASSERT_EQ(cb::nz_offset(i, j, rpad, c0), nz[i * c + j]) << c0 << " " << i << " " << j;
          ASSERT_EQ(cb::zz_offset(i, j, k1, c0), zz[i * c + j]) << c0 << " " << i << " " << j;
          ASSERT_EQ(cb::zn_offset(i, j, n1, c0), zn[i * c + j]) << c0 << " " << i << " " << j;
        }
      }
    }
  }
}

// ---------------------------------------------------------------- helpers

template <typename T>
T random_value(std::mt19937& rng) {
  if constexpr (std::is_same_v<T, int8_t>) {
    return static_cast<int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
  } else {
    return T(std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng));
  }
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
std::vector<T> random_matrix(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = random_value<T>(rng);
  return v;
}
// A pattern for padding bytes that would poison any result that read it.
template <typename T>
T poison() {
  if constexpr (std::is_same_v<T, int8_t>) {
    return static_cast<int8_t>(99);
  } else {
    return T(std::numeric_limits<float>::quiet_NaN());
  }
}

// Expects got[i][j] == sum_k a[i][k] * b[k][j] (+ init) within float32
// accumulation error, exact for integers. NaN must match NaN.
template <typename In, typename Out>
void expect_product(const std::vector<In>& a, const std::vector<In>& b, int64_t m, int64_t n, int64_t k,
                    const std::function<Out(int64_t, int64_t)>& got, const std::function<double(int64_t, int64_t)>& init,
                    const std::string& what) {
  int bad = 0;
  for (int64_t i = 0; i < m && bad < 5; ++i) {
    for (int64_t j = 0; j < n && bad < 5; ++j) {
      double ref = init(i, j), mag = std::fabs(ref);
      for (int64_t kk = 0; kk < k; ++kk) {
        const double p = as_double(a[i * k + kk]) * as_double(b[kk * n + j]);
        ref += p;
        mag += std::fabs(p);
      }
      const double g = static_cast<double>(got(i, j));
      if constexpr (std::is_integral_v<Out>) {
        const auto want = static_cast<Out>(static_cast<int64_t>(ref));
        if (got(i, j) != want) {
          ADD_FAILURE() << what << " C[" << i << "][" << j << "] = " << got(i, j) << ", want " << want;
          ++bad;
        }
      } else if (std::isnan(ref) || std::isinf(ref)) {
        if (!(std::isnan(ref) ? std::isnan(g) : g == ref)) {
          ADD_FAILURE() << what << " C[" << i << "][" << j << "] = " << g << ", want " << ref;
          ++bad;
        }
      } else {
        const double tol = (k + 2) * 6.0e-8 * mag + 1e-30;
        if (!(std::fabs(g - ref) <= tol)) {
          ADD_FAILURE() << what << " C[" << i << "][" << j << "] = " << g << ", want " << ref << " (tol " << tol << ")";
          ++bad;
        }
      }
    }
  }
}

std::vector<float> run_fixpipe_empty(const std::vector<float>& l0c);

constexpr int64_t c0_of(size_t bytes) { return 32 / static_cast<int64_t>(bytes); }

// Places logical A (m x k) in L0A as Zz and B (k x n) in L0B as Zn (padding
// poisoned), runs Mmad and returns L0C (Mpad x Npad, NZ).
struct MmadCase {
  int64_t m, n, k;
};

template <typename In, typename Out>
std::vector<Out> run_mmad(const MmadCase& cs, const std::vector<In>& a, const std::vector<In>& b,
                          AscendC::MmadParams params, const std::vector<Out>* initial_c = nullptr,
                          const std::vector<Out>* bias = nullptr) {
  const int64_t c0 = c0_of(sizeof(In));
  const int64_t m1 = (cs.m + 15) / 16, n1 = (cs.n + 15) / 16, k1 = (cs.k + c0 - 1) / c0;
  const int64_t c_elems = m1 * n1 * 256;
  std::vector<Out> out(c_elems);
  kt::run_or_throw("mmad_case", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    AscendC::TBuf<TPosition::C2> bt;
    pipe.InitBuffer(a2, static_cast<uint32_t>(std::max<int64_t>(1, m1 * k1) * 512));
    pipe.InitBuffer(b2, static_cast<uint32_t>(std::max<int64_t>(1, k1 * n1) * 512));
    pipe.InitBuffer(c1, static_cast<uint32_t>(c_elems * 4));
    pipe.InitBuffer(bt, static_cast<uint32_t>(std::max<int64_t>(cs.n, 8) * 4));
    auto la = a2.Get<In>();
    auto lb = b2.Get<In>();
    auto lc = c1.Get<Out>();
    In* pa = la.data();
    In* pb = lb.data();
    for (uint32_t i = 0; i < la.GetSize(); ++i) pa[i] = poison<In>();
    for (uint32_t i = 0; i < lb.GetSize(); ++i) pb[i] = poison<In>();
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t kk = 0; kk < cs.k; ++kk) pa[cb::zz_offset(i, kk, k1, c0)] = a[i * cs.k + kk];
    }
    // Padding rows of A are zero so that padding rows of C stay finite (they
    // are computed, as the cube unit computes whole fractals).
    for (int64_t i = cs.m; i < 16 * m1; ++i) {
      for (int64_t kk = 0; kk < cs.k; ++kk) pa[cb::zz_offset(i, kk, k1, c0)] = In(0);
    }
    for (int64_t kk = 0; kk < cs.k; ++kk) {
      for (int64_t j = 0; j < 16 * n1; ++j) pb[cb::zn_offset(kk, j, n1, c0)] = j < cs.n ? b[kk * cs.n + j] : In(0);
    }
    Out* pc = lc.data();
    if (initial_c) std::memcpy(pc, initial_c->data(), c_elems * sizeof(Out));
    if (bias) {
      auto lbias = bt.Get<Out>();
      std::memcpy(lbias.data(), bias->data(), bias->size() * sizeof(Out));
      AscendC::Mmad(lc, la, lb, lbias, params);
    } else {
      AscendC::Mmad(lc, la, lb, params);
    }
    std::memcpy(out.data(), pc, c_elems * sizeof(Out));
  });
  return out;
}

template <typename In, typename Out>
void check_mmad_sizes(const std::vector<MmadCase>& cases, const char* name) {
  uint32_t seed = 1;
  for (const auto& cs : cases) {
    auto a = random_matrix<In>(cs.m * cs.k, seed++);
    auto b = random_matrix<In>(cs.k * cs.n, seed++);
    AscendC::MmadParams p;
    p.m = static_cast<uint16_t>(cs.m);
    p.n = static_cast<uint16_t>(cs.n);
    p.k = static_cast<uint16_t>(cs.k);
    auto c = run_mmad<In, Out>(cs, a, b, p);
    const int64_t mpad = (cs.m + 15) / 16 * 16;
    expect_product<In, Out>(
        a, b, cs.m, cs.n, cs.k, [&](int64_t i, int64_t j) { return c[cb::l0c_offset(i, j, mpad)]; },
        [](int64_t, int64_t) { return 0.0; },
        std::string(name) + " m=" + std::to_string(cs.m) + " n=" + std::to_string(cs.n) + " k=" + std::to_string(cs.k));
  }
}

const std::vector<MmadCase> kSizes16 = {{1, 1, 1},   {16, 16, 16}, {17, 33, 40},  {35, 18, 7},
                                        {64, 64, 64}, {128, 96, 128}, {5, 100, 255}, {48, 17, 16}};

TEST(CubeMmad, HalfToFloat) { check_mmad_sizes<half, float>(kSizes16, "half"); }
TEST(CubeMmad, BFloat16ToFloat) { check_mmad_sizes<bfloat16_t, float>(kSizes16, "bfloat16"); }
TEST(CubeMmad, FloatToFloat) {
  check_mmad_sizes<float, float>({{1, 1, 1}, {16, 16, 8}, {17, 33, 13}, {35, 18, 7}, {64, 64, 64}, {128, 64, 100}},
                                 "float");
}
TEST(CubeMmad, Int8ToInt32) {
  check_mmad_sizes<int8_t, int32_t>({{1, 1, 1}, {16, 16, 32}, {17, 33, 45}, {35, 18, 7}, {64, 64, 64}, {80, 48, 255}},
                                    "int8");
}

TEST(CubeMmad, Int8ExtremesAreExact) {
  // 255 products of -128 * -128 = 16384 each: 4177920, exact in int32.
  const MmadCase cs{16, 16, 255};
  std::vector<int8_t> a(cs.m * cs.k, static_cast<int8_t>(-128)), b(cs.k * cs.n, static_cast<int8_t>(-128));
  AscendC::MmadParams p(16, 16, 255, 0, false, true);
  auto c = run_mmad<int8_t, int32_t>(cs, a, b, p);
  for (int64_t i = 0; i < 16; ++i) EXPECT_EQ(c[cb::l0c_offset(i, 5, 16)], 255 * 16384);
}

TEST(CubeMmad, HalfProductsAreExactInFloat) {
  // 2047 * 2047 = 4190209 needs 22 significant bits: exact in float32 (a half
  // accumulator would give 4190208).
  const MmadCase cs{16, 16, 1};
  std::vector<half> a(16, half(2047.0f)), b(16, half(2047.0f));
  AscendC::MmadParams p(16, 16, 1, 0, false, true);
  auto c = run_mmad<half, float>(cs, a, b, p);
  EXPECT_EQ(c[cb::l0c_offset(3, 4, 16)], 4190209.0f);
}

TEST(CubeMmad, NanAndInfPropagateOnlyWhereUsed) {
  const MmadCase cs{20, 20, 20};
  auto a = random_matrix<float>(cs.m * cs.k, 7);
  auto b = random_matrix<float>(cs.k * cs.n, 8);
  a[3 * cs.k + 5] = std::numeric_limits<float>::quiet_NaN();  // row 3 all NaN
  b[2 * cs.n + 7] = std::numeric_limits<float>::infinity();   // column 7 +-Inf (or NaN in row 3)
  AscendC::MmadParams p(20, 20, 20, 0, false, true);
  auto c = run_mmad<float, float>(cs, a, b, p);
  expect_product<float, float>(
      a, b, cs.m, cs.n, cs.k, [&](int64_t i, int64_t j) { return c[cb::l0c_offset(i, j, 32)]; },
      [](int64_t, int64_t) { return 0.0; }, "nan/inf");
  EXPECT_TRUE(std::isnan(c[cb::l0c_offset(3, 0, 32)]));
  EXPECT_TRUE(std::isinf(c[cb::l0c_offset(0, 7, 32)]));
  EXPECT_TRUE(std::isfinite(c[cb::l0c_offset(0, 6, 32)]));
}

TEST(CubeMmad, ZeroInitGivesPositiveZeroAndKZeroClears) {
  const MmadCase cs{16, 16, 16};
  std::vector<float> a(256, 0.0f), b(256, -1.0f);
  AscendC::MmadParams p(16, 16, 16, 0, false, true);
  auto c = run_mmad<float, float>(cs, a, b, p);
  EXPECT_EQ(kt::f32_bits(c[0]), 0u);  // +0 + (0 * -1 = -0) = +0
  // k = 0 with cmatrixInitVal: C = 0; k = 0 accumulating: C unchanged.
  std::vector<float> init(256, 3.0f);
  AscendC::MmadParams p0(16, 16, 0, 0, false, true);
  auto c0 = run_mmad<float, float>({16, 16, 0}, a, b, p0, &init);
  EXPECT_EQ(c0[17], 0.0f);
  AscendC::MmadParams p1(16, 16, 0, 0, false, false);
  auto c1 = run_mmad<float, float>({16, 16, 0}, a, b, p1, &init);
  EXPECT_EQ(c1[17], 3.0f);
}

TEST(CubeMmad, EmptyShapesWriteNothing) {
  std::vector<float> init(256, 5.0f);
  std::vector<float> a(256, 1.0f), b(256, 1.0f);
  for (auto [m, n] : {std::pair<int, int>{0, 16}, {16, 0}}) {
    AscendC::MmadParams p(static_cast<uint16_t>(m), static_cast<uint16_t>(n), 16, 0, false, true);
    auto c = run_mmad<float, float>({16, 16, 16}, a, b, p, &init);
    for (float v : c) ASSERT_EQ(v, 5.0f);
  }
  // Fixpipe of 0 rows writes nothing either.
  std::vector<float> l0c(256, 1.0f);
  auto out = run_fixpipe_empty(l0c);
  for (float v : out) ASSERT_EQ(v, 42.0f);
}

TEST(CubeMmad, AccumulateAddsToL0C) {
  const MmadCase cs{33, 20, 24};
  auto a = random_matrix<half>(cs.m * cs.k, 11);
  auto b = random_matrix<half>(cs.k * cs.n, 12);
  const int64_t elems = 3 * 2 * 256;
  std::vector<float> init(elems);
  for (int64_t i = 0; i < elems; ++i) init[i] = static_cast<float>(i % 97) * 0.25f;
  AscendC::MmadParams p(33, 20, 24, 0, false, false);  // cmatrixInitVal = false
  auto c = run_mmad<half, float>(cs, a, b, p, &init);
  expect_product<half, float>(
      a, b, cs.m, cs.n, cs.k, [&](int64_t i, int64_t j) { return c[cb::l0c_offset(i, j, 48)]; },
      [&](int64_t i, int64_t j) { return static_cast<double>(init[cb::l0c_offset(i, j, 48)]); }, "accumulate");
}

TEST(CubeMmad, BiasInitialisesEveryRow) {
  for (bool via_source : {true, false}) {
    const MmadCase cs{19, 37, 30};
    auto a = random_matrix<bfloat16_t>(cs.m * cs.k, 21);
    auto b = random_matrix<bfloat16_t>(cs.k * cs.n, 22);
    std::vector<float> bias(cs.n);
    for (int64_t j = 0; j < cs.n; ++j) bias[j] = static_cast<float>(j) - 10.5f;
    AscendC::MmadParams p(19, 37, 30, 0, false, true);
    if (via_source) {
      p.cmatrixSource = true;
      p.cmatrixInitVal = false;
    } else {
      p.isBias = true;
    }
    auto c = run_mmad<bfloat16_t, float>(cs, a, b, p, nullptr, &bias);
    expect_product<bfloat16_t, float>(
        a, b, cs.m, cs.n, cs.k, [&](int64_t i, int64_t j) { return c[cb::l0c_offset(i, j, 32)]; },
        [&](int64_t, int64_t j) { return static_cast<double>(bias[j]); }, "bias");
  }
  // int8 with an int32 bias.
  const MmadCase cs{16, 20, 40};
  auto a = random_matrix<int8_t>(cs.m * cs.k, 31);
  auto b = random_matrix<int8_t>(cs.k * cs.n, 32);
  std::vector<int32_t> bias(cs.n);
  for (int64_t j = 0; j < cs.n; ++j) bias[j] = static_cast<int32_t>(j * 1000 - 7);
  AscendC::MmadParams p(16, 20, 40, 0, true, false);
  auto c = run_mmad<int8_t, int32_t>(cs, a, b, p, nullptr, &bias);
  expect_product<int8_t, int32_t>(
      a, b, cs.m, cs.n, cs.k, [&](int64_t i, int64_t j) { return c[cb::l0c_offset(i, j, 16)]; },
      [&](int64_t, int64_t j) { return static_cast<double>(bias[j]); }, "int8 bias");
}

// ---------------------------------------------------------------- errors

template <typename Fn>
asc::Status run_kernel(Fn fn) {
  return kt::run("cube_errors", 1, [&] {
    AscendC::TPipe pipe;
    fn(pipe);
  });
}

TEST(CubeErrors, MmadRejectsBadTypesSizesAndShortOperands) {
  auto st = run_kernel([](AscendC::TPipe& pipe) {
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, 512);
    pipe.InitBuffer(b2, 512);
    pipe.InitBuffer(c1, 1024);
    AscendC::Mmad(c1.Get<float>(), a2.Get<half>(), b2.Get<float>(), AscendC::MmadParams(16, 16, 8, 0, false, true));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
  EXPECT_NE(st.message().find("[Mmad]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("float16"), std::string::npos) << st.message();

  st = run_kernel([](AscendC::TPipe& pipe) {
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, 512);
    pipe.InitBuffer(b2, 512);
    pipe.InitBuffer(c1, 1024);
    AscendC::Mmad(c1.Get<float>(), a2.Get<half>(), b2.Get<half>(), AscendC::MmadParams(4096, 16, 16, 0, false, true));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("4096"), std::string::npos) << st.message();

  st = run_kernel([](AscendC::TPipe& pipe) {
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, 512);  // one fractal, but m = 17 needs two
    pipe.InitBuffer(b2, 512);
    pipe.InitBuffer(c1, 4096);
    AscendC::Mmad(c1.Get<float>(), a2.Get<half>(), b2.Get<half>(), AscendC::MmadParams(17, 16, 16, 0, false, true));
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
  EXPECT_NE(st.message().find("fm"), std::string::npos) << st.message();

  st = run_kernel([](AscendC::TPipe& pipe) {
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(a2, 512);
    pipe.InitBuffer(b2, 512);
    pipe.InitBuffer(c1, 1024);
    // cmatrixSource without a bias operand reads the BiasTable (C2) at
    // address 0, as on the NPU (mmad_flags_test.cc checks the values).
    AscendC::MmadParams p(16, 16, 16, 0, true, false);
    AscendC::Mmad(c1.Get<float>(), a2.Get<half>(), b2.Get<half>(), p);
  });
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(CubeErrors, LoadDataAndFixpipe) {
  auto st = run_kernel([](AscendC::TPipe& pipe) {
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, 1024);
    pipe.InitBuffer(a2, 1024);
    AscendC::LoadData2DParams p(0, 1, 1, 0, 0, true, 0);
    AscendC::LoadData(a2.Get<float>(), a1.Get<float>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kFeatureUnsupported);
  EXPECT_NE(st.message().find("[LoadData]"), std::string::npos) << st.message();

  st = run_kernel([](AscendC::TPipe& pipe) {
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::A2> a2;
    pipe.InitBuffer(a1, 1024);
    pipe.InitBuffer(a2, 1024);
    AscendC::LoadData2DParams p(1, 2, 1, 0, 0, false, 0);  // fractals 1 and 2 of a 2-fractal source
    AscendC::LoadData(a2.Get<half>(), a1.Get<half>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);

  std::vector<half> gm(256);
  st = run_kernel([&](AscendC::TPipe& pipe) {
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(c1, 1024);
    AscendC::GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    AscendC::FixpipeParamsV220 p(16, 16, 16, 16, false);  // NoQuant cannot produce half
    AscendC::Fixpipe(g, c1.Get<float>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype);
  EXPECT_NE(st.message().find("[Fixpipe]"), std::string::npos) << st.message();

  st = run_kernel([&](AscendC::TPipe& pipe) {
    AscendC::TBuf<TPosition::CO1> c1;
    pipe.InitBuffer(c1, 1024);
    AscendC::GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), 100);  // 16 x 16 do not fit
    AscendC::FixpipeParamsV220 p(16, 16, 16, 16, false, AscendC::QuantMode_t::F322F16, 0);
    AscendC::Fixpipe(g, c1.Get<float>(), p);
  });
  EXPECT_EQ(st.code(), asc::ErrorCode::kIndexOutOfRange);
}

// ---------------------------------------------------------------- DataCopy ND -> NZ

template <typename T>
void check_nd2nz(int64_t rows, int64_t cols, int64_t src_stride) {
  const int64_t c0 = c0_of(sizeof(T));
  const int64_t rpad = (rows + 15) / 16 * 16;
  const int64_t blocks = (cols + c0 - 1) / c0;
  const int64_t dst_elems = blocks * rpad * c0;
  auto src = random_matrix<T>(rows * src_stride, 41);
  std::vector<T> out(dst_elems);
  const T sentinel = std::is_same_v<T, int8_t> ? T(77) : T(123.0f);
  kt::run_or_throw("nd2nz", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    pipe.InitBuffer(a1, static_cast<uint32_t>(dst_elems * sizeof(T)));
    auto l = a1.Get<T>();
    for (int64_t i = 0; i < dst_elems; ++i) l.data()[i] = sentinel;
    AscendC::GlobalTensor<T> g;
    g.SetGlobalBuffer(src.data(), src.size());
    AscendC::Nd2NzParams p(1, static_cast<uint16_t>(rows), static_cast<uint16_t>(cols), 0,
                           static_cast<uint16_t>(src_stride), static_cast<uint16_t>(rpad), 1, 0);
    AscendC::DataCopy(l, g, p);
    std::memcpy(out.data(), l.data(), dst_elems * sizeof(T));
  });
  auto ref = nz_order(rows, cols, rpad, c0);
  std::vector<bool> written(dst_elems, false);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t o = ref[r * cols + c];
      written[o] = true;
      ASSERT_EQ(std::memcmp(&out[o], &src[r * src_stride + c], sizeof(T)), 0) << r << " " << c;
    }
    // The tail of the row's last C0 block is zero-filled.
    for (int64_t c = cols; c < blocks * c0; ++c) {
      const int64_t o = cb::nz_offset(r, c, rpad, c0);
      written[o] = true;
      ASSERT_EQ(as_double(out[o]), 0.0) << "tail " << r << " " << c;
    }
  }
  // Padding rows are not touched.
  for (int64_t o = 0; o < dst_elems; ++o) {
    if (!written[o]) {
      ASSERT_EQ(std::memcmp(&out[o], &sentinel, sizeof(T)), 0) << o;
    }
  }
}

TEST(CubeDataCopy, Nd2NzEveryElementSize) {
  check_nd2nz<half>(32, 32, 32);
  check_nd2nz<half>(17, 20, 25);
  check_nd2nz<float>(17, 13, 13);
  check_nd2nz<int8_t>(33, 45, 50);
  check_nd2nz<bfloat16_t>(1, 1, 1);
}

TEST(CubeDataCopy, Nd2NzSeveralMatrices) {
  // Two 16 x 16 half matrices, 300 elements apart in GM, 512 apart in L1.
  std::vector<half> src(600);
  for (int i = 0; i < 600; ++i) src[i] = half(static_cast<float>(i));
  std::vector<half> out(1024);
  kt::run_or_throw("nd2nz2", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::B1> b1;
    pipe.InitBuffer(b1, 2048);
    AscendC::GlobalTensor<half> g;
    g.SetGlobalBuffer(src.data(), src.size());
    AscendC::DataCopy(b1.Get<half>(), g, AscendC::Nd2NzParams(2, 16, 16, 300, 16, 16, 1, 512));
    std::memcpy(out.data(), b1.Get<half>().data(), 2048);
  });
  EXPECT_EQ(static_cast<float>(out[512 + 5 * 16 + 3]), 300.0f + 5 * 16 + 3);
  EXPECT_EQ(static_cast<float>(out[7 * 16 + 9]), 7.0f * 16 + 9);
}

// ---------------------------------------------------------------- LoadData

TEST(CubeLoadData, NzToZzAndTransposedNzToZn) {
  // A: 32 x 48 half in L1 (NZ) -> L0A Zz, one LoadData per fractal row (the
  // Ascend C sample's SplitA). B: 48 x 32 half in L1 (NZ) -> L0B Zn with
  // ifTranspose, one LoadData per k-fractal row.
  const int64_t m = 32, k = 48, n = 32;
  std::vector<half> a(m * k), b(k * n);
  for (int64_t i = 0; i < m * k; ++i) a[i] = half(static_cast<float>(i % 1000));
  for (int64_t i = 0; i < k * n; ++i) b[i] = half(static_cast<float>((i * 7) % 1000));
  std::vector<half> l0a(m * k), l0b(k * n);
  kt::run_or_throw("loaddata", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::A1> a1;
    AscendC::TBuf<TPosition::B1> b1;
    AscendC::TBuf<TPosition::A2> a2;
    AscendC::TBuf<TPosition::B2> b2;
    pipe.InitBuffer(a1, m * k * 2);
    pipe.InitBuffer(b1, k * n * 2);
    pipe.InitBuffer(a2, m * k * 2);
    pipe.InitBuffer(b2, k * n * 2);
    AscendC::GlobalTensor<half> ga, gb;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    auto la1 = a1.Get<half>();
    auto lb1 = b1.Get<half>();
    AscendC::DataCopy(la1, ga, AscendC::Nd2NzParams(1, m, k, 0, k, m, 1, 0));
    AscendC::DataCopy(lb1, gb, AscendC::Nd2NzParams(1, k, n, 0, n, k, 1, 0));
    const int64_t mb = m / 16, kb = k / 16, nb = n / 16;
    for (int64_t i = 0; i < mb; ++i) {
      AscendC::LoadData2DParams p;
      p.startIndex = 0;
      p.repeatTimes = static_cast<uint8_t>(kb);
      p.srcStride = static_cast<uint16_t>(mb);
      AscendC::LoadData(a2.Get<half>()[i * k * 16], la1[i * 256], p);
    }
    for (int64_t i = 0; i < kb; ++i) {
      // Fractal (i, j) of B's NZ layout is fractal j*kb + i: start at i,
      // stride kb, and land as row i of the Zn grid.
      AscendC::LoadData2DParams p(static_cast<uint16_t>(i), static_cast<uint8_t>(nb), static_cast<uint16_t>(kb), 0,
                                  0, true, 0);
      AscendC::LoadData(b2.Get<half>()[i * nb * 256], lb1, p);
    }
    std::memcpy(l0a.data(), a2.Get<half>().data(), m * k * 2);
    std::memcpy(l0b.data(), b2.Get<half>().data(), k * n * 2);
  });
  auto zz = zz_order(m, k, 16);
  auto zn = zn_order(k, n, 16);
  for (int64_t i = 0; i < m * k; ++i) ASSERT_EQ(l0a[zz[i]].bits, a[i].bits) << i;
  for (int64_t i = 0; i < k * n; ++i) ASSERT_EQ(l0b[zn[i]].bits, b[i].bits) << i;
  // Hand-checked: A[17][20] is element (1*3+1)*256 + 16 + 4 = 1044 of L0A (K1 = 3),
  // B[20][3] element (1*2+0)*256 + 48 + 4 = 564 of L0B (N1 = 2).
  EXPECT_EQ(static_cast<float>(l0a[1044]), static_cast<float>((17 * 48 + 20) % 1000));
  EXPECT_EQ(static_cast<float>(l0b[564]), static_cast<float>(((20 * 32 + 3) * 7) % 1000));
}

TEST(CubeLoadData, DstGapAndTransposeWithTransposeApi) {
  std::vector<half> src(512), out(3 * 256);
  for (int i = 0; i < 512; ++i) src[i] = half(static_cast<float>(i));
  kt::run_or_throw("loaddata_gap", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::B1> b1;
    AscendC::TBuf<TPosition::B2> b2;
    pipe.InitBuffer(b1, 1024);
    pipe.InitBuffer(b2, 3 * 512);
    auto l1 = b1.Get<half>();
    std::memcpy(l1.data(), src.data(), 1024);
    auto l0 = b2.Get<half>();
    for (int i = 0; i < 3 * 256; ++i) l0.data()[i] = half(-1.0f);
    // Two fractals, transposed, with one fractal of gap between them.
    AscendC::LoadDataWithTranspose(l0, l1, AscendC::LoadData2dTransposeParams(0, 2, 1, 1, 0));
    std::memcpy(out.data(), l0.data(), 3 * 512);
  });
  EXPECT_EQ(static_cast<float>(out[1 * 16 + 2]), 2.0f * 16 + 1);           // fractal 0 transposed
  EXPECT_EQ(static_cast<float>(out[300]), -1.0f);                          // the gap is untouched
  EXPECT_EQ(static_cast<float>(out[512 + 3 * 16 + 5]), 256.0f + 5 * 16 + 3);  // fractal 1 transposed
}

// ---------------------------------------------------------------- Fixpipe

// L0C (NZ, m x n with padding) -> GM ND with a row stride, quantised.
template <typename Acc, typename Dst>
std::vector<Dst> run_fixpipe(int64_t m, int64_t /*n*/, int64_t stride, const std::vector<Acc>& l0c,
                             AscendC::FixpipeParamsV220 p, const std::vector<uint64_t>* scales = nullptr,
                             bool to_ub = false) {
  std::vector<Dst> out(m * stride, Dst(0));
  const Dst sentinel = Dst(42);
  for (auto& v : out) v = sentinel;
  kt::run_or_throw("fixpipe", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TBuf<TPosition::CO1> c1;
    AscendC::TBuf<TPosition::VECOUT> ub;
    AscendC::TBuf<TPosition::C2> sc;
    pipe.InitBuffer(c1, static_cast<uint32_t>(l0c.size() * 4));
    pipe.InitBuffer(ub, static_cast<uint32_t>(out.size() * sizeof(Dst) + 32));
    pipe.InitBuffer(sc, static_cast<uint32_t>(std::max<size_t>(1, scales ? scales->size() : 1) * 8));
    auto lc = c1.Get<Acc>();
    std::memcpy(lc.data(), l0c.data(), l0c.size() * 4);
    AscendC::GlobalTensor<Dst> g;
    g.SetGlobalBuffer(out.data(), out.size());
    auto lu = ub.Get<Dst>(static_cast<uint32_t>(out.size()));
    if (to_ub) std::memcpy(lu.data(), out.data(), out.size() * sizeof(Dst));
    if (scales) {
      auto ls = sc.Get<uint64_t>();
      std::memcpy(ls.data(), scales->data(), scales->size() * 8);
      if (to_ub) {
        AscendC::Fixpipe(lu, lc, ls, p);
      } else {
        AscendC::Fixpipe(g, lc, ls, p);
      }
    } else if (to_ub) {
      AscendC::Fixpipe(lu, lc, p);
    } else {
      AscendC::Fixpipe(g, lc, p);
    }
    if (to_ub) std::memcpy(out.data(), lu.data(), out.size() * sizeof(Dst));
  });
  return out;
}

uint64_t scale_bits(float f) { return kt::f32_bits(f); }

std::vector<float> run_fixpipe_empty(const std::vector<float>& l0c) {
  return run_fixpipe<float, float>(4, 16, 16, l0c, AscendC::FixpipeParamsV220(16, 0, 16, 16, false));
}

TEST(CubeFixpipe, NzToNdFloatAndConversions) {
  const int64_t m = 17, n = 33, stride = 40, mpad = 32, npad = 48;
  std::vector<float> l0c(mpad * npad);
  for (int64_t i = 0; i < mpad; ++i) {
    for (int64_t j = 0; j < npad; ++j) l0c[cb::l0c_offset(i, j, mpad)] = static_cast<float>(i * 100 + j) / 3.0f - 500.0f;
  }
  l0c[cb::l0c_offset(2, 2, mpad)] = std::numeric_limits<float>::quiet_NaN();
  l0c[cb::l0c_offset(3, 3, mpad)] = -std::numeric_limits<float>::infinity();
  l0c[cb::l0c_offset(4, 4, mpad)] = 1e6f;  // overflows half
  l0c[cb::l0c_offset(5, 5, mpad)] = -0.0f;
  AscendC::FixpipeParamsV220 p(n, m, mpad, stride, false);
  for (bool ub : {false, true}) {
    auto f = run_fixpipe<float, float>(m, n, stride, l0c, p, nullptr, ub);
    p.quantPre = AscendC::QuantMode_t::F322F16;
    auto h = run_fixpipe<float, half>(m, n, stride, l0c, p, nullptr, ub);
    p.quantPre = AscendC::QuantMode_t::F322BF16;
    auto bf = run_fixpipe<float, bfloat16_t>(m, n, stride, l0c, p, nullptr, ub);
    p.quantPre = AscendC::QuantMode_t::NoQuant;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < stride; ++j) {
        if (j >= n) {  // the gap between rows is untouched
          ASSERT_EQ(f[i * stride + j], 42.0f);
          ASSERT_EQ(static_cast<float>(h[i * stride + j]), 42.0f);
          continue;
        }
        const float v = l0c[cb::l0c_offset(i, j, mpad)];
        ASSERT_EQ(kt::f32_bits(f[i * stride + j]), kt::f32_bits(v)) << i << " " << j;
        ASSERT_EQ(h[i * stride + j].bits, half(v).bits) << i << " " << j;
        ASSERT_EQ(bf[i * stride + j].bits, bfloat16_t(v).bits) << i << " " << j;
      }
    }
    EXPECT_TRUE(std::isinf(static_cast<float>(h[4 * stride + 4])));
    EXPECT_EQ(h[5 * stride + 5].bits, 0x8000u);
  }
}

TEST(CubeFixpipe, ReluAndIntegerQuantisation) {
  const int64_t m = 16, n = 20, mpad = 16, npad = 32;
  std::vector<int32_t> l0c(mpad * npad);
  for (int64_t i = 0; i < mpad; ++i) {
    for (int64_t j = 0; j < npad; ++j) l0c[cb::l0c_offset(i, j, mpad)] = static_cast<int32_t>((i - 8) * 37 + j * 5);
  }
  l0c[cb::l0c_offset(1, 1, mpad)] = 2147483647;
  AscendC::FixpipeParamsV220 p(n, m, mpad, n, true);  // relu, int32 -> int32
  auto r = run_fixpipe<int32_t, int32_t>(m, n, n, l0c, p);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) ASSERT_EQ(r[i * n + j], std::max(0, l0c[cb::l0c_offset(i, j, mpad)]));
  }
  // DEQF16: int32 * 0.5 -> half; REQ8: int32 * 0.25 -> int8, RNE, saturated.
  AscendC::FixpipeParamsV220 q(n, m, mpad, n, false, AscendC::QuantMode_t::DEQF16, scale_bits(0.5f));
  auto h = run_fixpipe<int32_t, half>(m, n, n, l0c, q);
  q.quantPre = AscendC::QuantMode_t::REQ8;
  q.deqScalar = scale_bits(0.25f);
  auto i8 = run_fixpipe<int32_t, int8_t>(m, n, n, l0c, q);
  std::vector<uint64_t> scales(n);
  for (int64_t j = 0; j < n; ++j) scales[j] = scale_bits(static_cast<float>(j + 1));
  q.quantPre = AscendC::QuantMode_t::VDEQF16;
  auto vh = run_fixpipe<int32_t, half>(m, n, n, l0c, q, &scales);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const int32_t v = l0c[cb::l0c_offset(i, j, mpad)];
      ASSERT_EQ(h[i * n + j].bits, half(static_cast<float>(v) * 0.5f).bits);
      const double q8 = std::nearbyint(static_cast<double>(static_cast<float>(v) * 0.25f));
      ASSERT_EQ(i8[i * n + j], static_cast<int8_t>(std::clamp(q8, -128.0, 127.0))) << v;
      ASSERT_EQ(vh[i * n + j].bits, half(static_cast<float>(v) * static_cast<float>(j + 1)).bits);
    }
  }
  EXPECT_EQ(i8[1 * n + 1], 127);
}

// ---------------------------------------------------------------- the whole pipeline

// GM (ND, half) -> L1 (NZ) -> L0A/L0B -> Mmad -> Fixpipe -> GM (ND, float), the
// shape of the Ascend C matmul sample, with ragged m, n, k.
void pipeline(int64_t m, int64_t n, int64_t k) {
  auto a = random_matrix<half>(m * k, 51);
  auto b = random_matrix<half>(k * n, 52);
  std::vector<float> c(m * n, -7.0f);
  const int64_t mp = (m + 15) / 16 * 16, np = (n + 15) / 16 * 16, kp = (k + 15) / 16 * 16;
  kt::run_or_throw("pipeline", 1, [&] {
    AscendC::TPipe pipe;
    AscendC::TQue<TPosition::A1, 1> qa1;
    AscendC::TQue<TPosition::B1, 1> qb1;
    AscendC::TQue<TPosition::A2, 1> qa2;
    AscendC::TQue<TPosition::B2, 1> qb2;
    AscendC::TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qa1, 1, mp * kp * 2);
    pipe.InitBuffer(qb1, 1, kp * np * 2);
    pipe.InitBuffer(qa2, 1, mp * kp * 2);
    pipe.InitBuffer(qb2, 1, kp * np * 2);
    pipe.InitBuffer(qc, 1, mp * np * 4);
    AscendC::GlobalTensor<half> ga, gb;
    AscendC::GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    auto a1 = qa1.AllocTensor<half>();
    auto b1 = qb1.AllocTensor<half>();
    // Zero the padding so that padded k columns / rows contribute nothing.
    AscendC::Duplicate(a1, half(0.0f), static_cast<int32_t>(mp * kp));
    AscendC::Duplicate(b1, half(0.0f), static_cast<int32_t>(kp * np));
    AscendC::DataCopy(a1, ga, AscendC::Nd2NzParams(1, m, k, 0, k, mp, 1, 0));
    AscendC::DataCopy(b1, gb, AscendC::Nd2NzParams(1, k, n, 0, n, kp, 1, 0));
    qa1.EnQue(a1);
    qb1.EnQue(b1);
    a1 = qa1.DeQue<half>();
    b1 = qb1.DeQue<half>();
    auto a2 = qa2.AllocTensor<half>();
    auto b2 = qb2.AllocTensor<half>();
    const int64_t mb = mp / 16, kb = kp / 16, nb = np / 16;
    for (int64_t i = 0; i < mb; ++i) {
      AscendC::LoadData(a2[i * kp * 16], a1[i * 256],
                        AscendC::LoadData2DParams(0, static_cast<uint8_t>(kb), static_cast<uint16_t>(mb), 0, 0, false, 0));
    }
    for (int64_t i = 0; i < kb; ++i) {
      AscendC::LoadData(b2[i * np * 16], b1,
                        AscendC::LoadData2DParams(static_cast<uint16_t>(i), static_cast<uint8_t>(nb),
                                                  static_cast<uint16_t>(kb), 0, 0, true, 0));
    }
    qa1.FreeTensor(a1);
    qb1.FreeTensor(b1);
    qa2.EnQue(a2);
    qb2.EnQue(b2);
    a2 = qa2.DeQue<half>();
    b2 = qb2.DeQue<half>();
    auto c1 = qc.AllocTensor<float>();
    AscendC::Mmad(c1, a2, b2, AscendC::MmadParams(m, n, k, 0, false, true));
    qa2.FreeTensor(a2);
    qb2.FreeTensor(b2);
    qc.EnQue(c1);
    c1 = qc.DeQue<float>();
    AscendC::Fixpipe(gc, c1, AscendC::FixpipeParamsV220(n, m, mp, n, false));
    qc.FreeTensor(c1);
  });
  expect_product<half, float>(
      a, b, m, n, k, [&](int64_t i, int64_t j) { return c[i * n + j]; }, [](int64_t, int64_t) { return 0.0; },
      "pipeline " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
}

TEST(CubePipeline, GmToL1ToL0ToGm) {
  pipeline(32, 32, 32);
  pipeline(30, 20, 40);
  pipeline(1, 17, 5);
  pipeline(100, 60, 90);
}

}  // namespace
