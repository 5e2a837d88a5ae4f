// Atomic GM writes (SetAtomicAdd/Max/Min/None/Type): several blocks combining
// into the same GM bytes, exact integer and float results, NaN / ±0 rules,
// 8/16-bit lanes sharing words, the per-block reset, copy elision, and the
// kernel checker's gm-write-race exemption.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "asc/kernel/checker.h"
#include "asc/runtime/memory_pool.h"
#include "checker_test_util.h"
#include "kernel_test_util.h"

namespace {

using namespace AscendC;
namespace chk = asc::kernel::check;

class Atomic : public ::testing::Test {
 protected:
  void TearDown() override {
    for (void* p : gm_) (void)asc::runtime::device_pool().free(p);
  }
  template <typename T>
  T* gm(size_t n, T init) {
    void* p = asc::runtime::device_pool().allocate_or_throw(n * sizeof(T) + 64);
    gm_.push_back(p);
    T* t = static_cast<T*>(p);
    for (size_t i = 0; i < n; ++i) t[i] = init;
    return t;
  }
  std::vector<void*> gm_;
};

// Each of `blocks` blocks copies vals(b, i), i < n, into g[0, n) under mode
// `set_mode`, `reps` times (more chances for blocks to collide).
template <typename T, typename Vals, typename SetMode>
asc::Status combine(const char* name, uint32_t blocks, T* g, uint32_t n, int reps, Vals vals, SetMode set_mode) {
  return kt::run(name, blocks, [=] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, n * sizeof(T));
    LocalTensor<T> t = buf.Get<T>();
    const uint32_t b = uint32_t(GetBlockIdx());
    for (uint32_t i = 0; i < n; ++i) t.SetValue(i, vals(b, i));
    GlobalTensor<T> out;
    out.SetGlobalBuffer(g);
    set_mode();
    for (int r = 0; r < reps; ++r) DataCopy(out, t, n);
    SetAtomicNone();
  });
}

TEST_F(Atomic, Int32AddIsExactAcrossBlocks) {
  for (uint32_t blocks : {3u, 5u, 8u}) {
    const uint32_t n = 1024;
    int32_t* g = gm<int32_t>(n, 7);
    auto vals = [](uint32_t b, uint32_t i) { return int32_t((b + 1) * (i + 1)) * ((i & 1) ? -1 : 1); };
    ASSERT_TRUE(combine("add_i32", blocks, g, n, 20, vals, [] { SetAtomicAdd<int32_t>(); }).ok());
    for (uint32_t i = 0; i < n; ++i) {
      int64_t want = 7;
      for (uint32_t b = 0; b < blocks; ++b) want += 20 * int64_t(vals(b, i));
      ASSERT_EQ(g[i], want) << "blocks " << blocks << " i " << i;
    }
  }
  // Wrap-around (two's complement), no saturation.
  int32_t* w = gm<int32_t>(8, std::numeric_limits<int32_t>::max());
  ASSERT_TRUE(combine("wrap_i32", 2, w, 8, 1, [](uint32_t, uint32_t) { return int32_t(1); },
                      [] { SetAtomicAdd<int32_t>(); })
                  .ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(w[i], std::numeric_limits<int32_t>::min() + 1);
}

TEST_F(Atomic, FloatAdd) {
  const uint32_t n = 2048, blocks = 6;
  // Integer-valued floats: every partial sum is exact, so the result is exact.
  float* g = gm<float>(n, 0.5f);
  auto ivals = [](uint32_t b, uint32_t i) { return float(int(i % 97) - 48) * float(b + 1); };
  ASSERT_TRUE(combine("add_f32_exact", blocks, g, n, 10, ivals, [] { SetAtomicAdd<float>(); }).ok());
  for (uint32_t i = 0; i < n; ++i) {
    double want = 0.5;
    for (uint32_t b = 0; b < blocks; ++b) want += 10.0 * ivals(b, i);
    ASSERT_EQ(g[i], float(want)) << i;
  }
  // Random values: order of landing unspecified, within rounding of the sum.
  float* r = gm<float>(n, -1.25f);
  auto rvals = [](uint32_t b, uint32_t i) {
    uint32_t h = (b * 2654435761u) ^ (i * 40503u + 12345u);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    return float(int32_t(h % 20001u) - 10000) / 997.0f;
  };
  ASSERT_TRUE(combine("add_f32", blocks, r, n, 4, rvals, [] { SetAtomicAdd<float>(); }).ok());
  for (uint32_t i = 0; i < n; ++i) {
    double want = -1.25, mag = 1.25;
    for (uint32_t b = 0; b < blocks; ++b) {
      want += 4.0 * rvals(b, i);
      mag += 4.0 * std::fabs(rvals(b, i));
    }
    ASSERT_NEAR(r[i], want, mag * 32 * std::numeric_limits<float>::epsilon()) << i;
  }
}

TEST_F(Atomic, FloatMaxMinWithNanZerosAndInf) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // GM column values and per-block values; block 3 carries the specials.
  const std::vector<float> init = {0.f, -0.f, 0.f, -0.f, nan, 1.f, -inf, inf, 5.f, -5.f, 2.f, 2.f, 0.f, 0.f, 0.f, 0.f,
                                   0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
  const std::vector<std::vector<float>> v = {
      {-0.f, 0.f, -0.f, 0.f, 1.f, 2.f, -1.f, 1.f, 4.f, -6.f, 2.f, 1.f},
      {-0.f, 0.f, -0.f, 0.f, 3.f, 3.f, 7.f, 2.f, 6.f, -4.f, 2.f, 3.f},
      {-0.f, 0.f, -0.f, 0.f, 2.f, nan, 0.f, 3.f, 3.f, -7.f, 2.f, 1.f},
      {-0.f, 0.f, -0.f, 0.f, 0.f, 1.f, inf, -inf, 1.f, -inf, 2.f, 2.f}};
  auto vals = [v](uint32_t b, uint32_t i) { return i < 12 ? v[b][i] : float(b) - 1.5f; };
  for (bool is_max : {true, false}) {
    float* g = gm<float>(32, 0.f);
    std::memcpy(g, init.data(), 32 * sizeof(float));
    ASSERT_TRUE(combine(is_max ? "max_f32" : "min_f32", 4, g, 32, 3, vals, [is_max] {
                  if (is_max) {
                    SetAtomicMax<float>();
                  } else {
                    SetAtomicMin<float>();
                  }
                }).ok());
    if (is_max) {
      EXPECT_EQ(g[0], 0.f);
      EXPECT_FALSE(std::signbit(g[0]));  // max(+0, -0) = +0
      EXPECT_FALSE(std::signbit(g[1]));
    } else {
      EXPECT_TRUE(std::signbit(g[0]));   // min(+0, -0) = -0
      EXPECT_TRUE(std::signbit(g[1]));
      EXPECT_TRUE(std::signbit(g[2]));
      EXPECT_TRUE(std::signbit(g[3]));
    }
    EXPECT_TRUE(std::isnan(g[4]));  // NaN in GM stays
    EXPECT_TRUE(std::isnan(g[5]));  // incoming NaN propagates
    EXPECT_EQ(g[6], is_max ? inf : -inf);
    EXPECT_EQ(g[7], is_max ? inf : -inf);
    EXPECT_EQ(g[8], is_max ? 6.f : 1.f);
    EXPECT_EQ(g[9], is_max ? -4.f : -inf);
    EXPECT_EQ(g[10], 2.f);
    EXPECT_EQ(g[11], is_max ? 3.f : 1.f);
    for (int i = 12; i < 32; ++i) EXPECT_EQ(g[i], is_max ? 1.5f : -1.5f) << i;
  }
}

TEST_F(Atomic, Int32MaxMin) {
  const uint32_t n = 512, blocks = 7;
  auto vals = [](uint32_t b, uint32_t i) { return int32_t((i * 31 + b * 17) % 101) - 50; };
  for (bool is_max : {true, false}) {
    int32_t* g = gm<int32_t>(n, is_max ? -20 : 20);
    ASSERT_TRUE(combine("mm_i32", blocks, g, n, 2, vals, [is_max] {
                  if (is_max) {
                    SetAtomicMax<int32_t>();
                  } else {
                    SetAtomicMin<int32_t>();
                  }
                }).ok());
    for (uint32_t i = 0; i < n; ++i) {
      int32_t want = is_max ? -20 : 20;
      for (uint32_t b = 0; b < blocks; ++b) want = is_max ? std::max(want, vals(b, i)) : std::min(want, vals(b, i));
      ASSERT_EQ(g[i], want) << i;
    }
  }
}

TEST_F(Atomic, HalfAndBfloat16) {
  const uint32_t n = 1024, blocks = 5;
  // Small integers are exact in half and bfloat16 (|sum| <= 256).
  auto vals = [](uint32_t b, uint32_t i) { return float(int(i % 9) - 4) * float(b + 1); };
  half* h = gm<half>(n, half(1.0f));
  ASSERT_TRUE(combine("add_f16", blocks, h, n, 3, [vals](uint32_t b, uint32_t i) { return half(vals(b, i)); },
                      [] { SetAtomicAdd<half>(); })
                  .ok());
  bfloat16_t* bf = gm<bfloat16_t>(n, bfloat16_t(-2.0f));
  ASSERT_TRUE(combine("add_bf16", blocks, bf, n, 3,
                      [vals](uint32_t b, uint32_t i) { return bfloat16_t(vals(b, i)); },
                      [] { SetAtomicAdd<bfloat16_t>(); })
                  .ok());
  for (uint32_t i = 0; i < n; ++i) {
    float want = 0;
    for (uint32_t b = 0; b < blocks; ++b) want += 3 * vals(b, i);
    ASSERT_EQ(float(h[i]), 1.0f + want) << i;
    ASSERT_EQ(float(bf[i]), -2.0f + want) << i;
  }
  // Rounding: 2048 + 1 is not a half; each add rounds to nearest even.
  half* r = gm<half>(16, half(2048.0f));
  ASSERT_TRUE(combine("round_f16", 1, r, 16, 1, [](uint32_t, uint32_t i) { return half(i < 8 ? 1.0f : 3.0f); },
                      [] { SetAtomicAdd<half>(); })
                  .ok());
  for (int i = 0; i < 16; ++i) EXPECT_EQ(float(r[i]), i < 8 ? 2048.0f : 2052.0f) << i;
  // Max / min with NaN.
  half* m = gm<half>(16, half(0.0f));
  m[1] = half(std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(combine("max_f16", 3, m, 16, 1,
                      [](uint32_t b, uint32_t i) {
                        return half(i == 2 && b == 1 ? std::numeric_limits<float>::quiet_NaN() : float(b) - 1.0f);
                      },
                      [] { SetAtomicMax<half>(); })
                  .ok());
  EXPECT_EQ(float(m[0]), 1.0f);
  EXPECT_TRUE(std::isnan(float(m[1])));
  EXPECT_TRUE(std::isnan(float(m[2])));
  EXPECT_EQ(float(m[15]), 1.0f);
}

// 8 and 16-bit elements of different blocks share 32-bit words: block b adds
// into bytes b, b + 8, ... (strided DataCopyPad), plus all blocks into a
// common tail, so every word is combined by several blocks at once.
TEST_F(Atomic, SubWordLanesOfDifferentBlocks) {
  const uint32_t rows = 64, blocks = 8;
  int8_t* g8 = gm<int8_t>(rows * 8 + 64, int8_t(100));
  ASSERT_TRUE(kt::run("lanes_i8", blocks, [=] {
                TPipe pipe;
                TBuf<> buf;
                pipe.InitBuffer(buf, rows * 32 + 64);
                LocalTensor<int8_t> t = buf.Get<int8_t>();
                const int b = int(GetBlockIdx());
                for (uint32_t r = 0; r < rows; ++r) t.SetValue(r * 32, int8_t(b + 1));
                for (uint32_t k = 0; k < 64; ++k) t.SetValue(rows * 32 + k, int8_t(20));
                GlobalTensor<int8_t> out;
                out.SetGlobalBuffer(g8);
                SetAtomicAdd<int8_t>();
                for (int rep = 0; rep < 5; ++rep) {
                  // 64 one-byte bursts, local rows 32 bytes apart, GM gaps of 7 bytes.
                  DataCopyPad(out[b], t, DataCopyExtParams(rows, 1, 0, 7));
                }
                DataCopyPad(out[rows * 8], t[rows * 32], DataCopyExtParams(1, 64, 0, 0));
              }).ok());
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t b = 0; b < 8; ++b) ASSERT_EQ(g8[r * 8 + b], int8_t(100 + 5 * (b + 1))) << r << " " << b;
  }
  // 100 + 8 * 20 = 260 wraps to 4.
  for (uint32_t k = 0; k < 64; ++k) ASSERT_EQ(g8[rows * 8 + k], int8_t(4)) << k;

  int16_t* g16 = gm<int16_t>(64, int16_t(-3));
  ASSERT_TRUE(combine("add_i16", 5, g16, 64, 7,
                      [](uint32_t b, uint32_t i) { return int16_t(int(i) - 32 + int(b)); },
                      [] { SetAtomicAdd<int16_t>(); })
                  .ok());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(g16[i], int16_t(-3 + 7 * (5 * (i - 32) + 10))) << i;
  int16_t* m16 = gm<int16_t>(64, int16_t(0));
  ASSERT_TRUE(combine("min_i16", 4, m16, 64, 1,
                      [](uint32_t b, uint32_t i) { return int16_t((i & 1) ? -int(b) * 1000 : int(b)); },
                      [] { SetAtomicMin<int16_t>(); })
                  .ok());
  for (int i = 0; i < 64; ++i) EXPECT_EQ(m16[i], int16_t((i & 1) ? -3000 : 0)) << i;
}

TEST_F(Atomic, NoneRestoresPlainCopiesAndTypeSwitches) {
  int32_t* g = gm<int32_t>(24, 10);
  ASSERT_TRUE(kt::run("none", 1, [=] {
                TPipe pipe;
                TBuf<> buf;
                pipe.InitBuffer(buf, 256);
                LocalTensor<int32_t> t = buf.Get<int32_t>();
                Duplicate(t, int32_t(5), 64);
                GlobalTensor<int32_t> out;
                out.SetGlobalBuffer(g);
                SetAtomicAdd<int32_t>();
                DataCopy(out, t, 8);      // 15
                DataCopy(out[8], t, 8);   // 15
                SetAtomicNone();
                DataCopy(out[8], t, 8);   // 5
                Duplicate(t, int32_t(-5), 64);
                SetAtomicMax<float>();
                SetAtomicType<int32_t>();  // max as int32: 10 (as float, -5's bits are a NaN)
                DataCopy(out[16], t, 8);
              }).ok());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(g[i], 15);
  for (int i = 8; i < 16; ++i) EXPECT_EQ(g[i], 5);
  for (int i = 16; i < 24; ++i) EXPECT_EQ(g[i], 10);
}

// A block starts with no mode, even on a core whose previous block left one set.
TEST_F(Atomic, ModeResetsAtBlockStart) {
  for (int launch = 0; launch < 3; ++launch) {
    const uint32_t blocks = 32;
    int32_t* g = gm<int32_t>(blocks * 8, 100);
    ASSERT_TRUE(kt::run("reset", blocks, [=] {
                  TPipe pipe;
                  TBuf<> buf;
                  pipe.InitBuffer(buf, 32);
                  LocalTensor<int32_t> t = buf.Get<int32_t>();
                  const int b = int(GetBlockIdx());
                  Duplicate(t, int32_t(b), 8);
                  GlobalTensor<int32_t> out;
                  out.SetGlobalBuffer(g + 8 * b);
                  if (b % 2 == 0) SetAtomicAdd<int32_t>();  // never cleared
                  DataCopy(out, t, 8);
                }).ok());
    for (uint32_t b = 0; b < blocks; ++b) {
      for (int i = 0; i < 8; ++i) ASSERT_EQ(g[b * 8 + i], b % 2 == 0 ? 100 + int(b) : int(b)) << b;
    }
  }
}

// A launch of one block that leaves a mode set, then launches that copy plainly.
TEST_F(Atomic, ModeDoesNotLeakIntoTheNextLaunch) {
  int32_t* g = gm<int32_t>(8, 1);
  for (int launch = 0; launch < 4; ++launch) {
    const bool atomic = launch % 2 == 0;
    ASSERT_TRUE(kt::run("leak", 1, [=] {
                  TPipe pipe;
                  TBuf<> buf;
                  pipe.InitBuffer(buf, 32);
                  Duplicate(buf.Get<int32_t>(), int32_t(10), 8);
                  GlobalTensor<int32_t> out;
                  out.SetGlobalBuffer(g);
                  if (atomic) SetAtomicAdd<int32_t>();
                  DataCopy(out, buf.Get<int32_t>(), 8);
                }).ok());
    for (int i = 0; i < 8; ++i) ASSERT_EQ(g[i], atomic ? (launch == 0 ? 11 : 20) : 10) << launch;
  }
}

// Unaligned tails (DataCopyPad): edge words are shared with bytes outside the
// copy, which must stay untouched.
TEST_F(Atomic, PadTailsLeaveNeighboursAlone) {
  for (uint32_t n : {1u, 2u, 3u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 33u, 63u, 64u, 65u}) {
    for (uint32_t off : {0u, 1u, 3u}) {
      int16_t* g = gm<int16_t>(n + 8, int16_t(-7));
      ASSERT_TRUE(kt::run("tail_i16", 4, [=] {
                    TPipe pipe;
                    TBuf<> buf;
                    pipe.InitBuffer(buf, 256);
                    LocalTensor<int16_t> t = buf.Get<int16_t>();
                    for (uint32_t i = 0; i < n; ++i) t.SetValue(i, int16_t(i + 1 + GetBlockIdx()));
                    GlobalTensor<int16_t> out;
                    out.SetGlobalBuffer(g);
                    SetAtomicAdd<int16_t>();
                    DataCopyPad(out[off], t, DataCopyExtParams(1, n * 2, 0, 0));
                  }).ok());
      for (uint32_t i = 0; i < n + 8; ++i) {
        const int16_t want = i >= off && i < off + n ? int16_t(-7 + 4 * (i - off + 1) + 6) : int16_t(-7);
        ASSERT_EQ(g[i], want) << "n " << n << " off " << off << " i " << i;
      }
      float* f = gm<float>(n + 4, 0.25f);
      ASSERT_TRUE(kt::run("tail_f32", 3, [=] {
                    TPipe pipe;
                    TBuf<> buf;
                    pipe.InitBuffer(buf, 512);
                    LocalTensor<float> t = buf.Get<float>();
                    for (uint32_t i = 0; i < n; ++i) t.SetValue(i, float(i) * 0.5f);
                    GlobalTensor<float> out;
                    out.SetGlobalBuffer(f);
                    SetAtomicAdd<float>();
                    DataCopyPad(out[off], t, DataCopyExtParams(1, n * 4, 0, 0));
                  }).ok());
      for (uint32_t i = 0; i < n + 4; ++i) {
        ASSERT_EQ(f[i], i >= off && i < off + n ? 0.25f + 1.5f * float(i - off) : 0.25f) << n << " " << i;
      }
    }
  }
}

// Many blocks hammering the same words for long enough that they overlap in
// time on every core.
TEST_F(Atomic, StressSameWords) {
  const uint32_t n = 64, blocks = 8;
  const int reps = 3000;
  int32_t* g = gm<int32_t>(n, 0);
  int8_t* b8 = gm<int8_t>(n, int8_t(0));
  ASSERT_TRUE(kt::run("stress", blocks, [=] {
                TPipe pipe;
                TBuf<> buf, buf8;
                pipe.InitBuffer(buf, n * 4);
                pipe.InitBuffer(buf8, n);
                Duplicate(buf.Get<int32_t>(), int32_t(GetBlockIdx() + 1), n);
                LocalTensor<int8_t> t8 = buf8.Get<int8_t>();
                for (uint32_t i = 0; i < n; ++i) t8.SetValue(i, int8_t(i % 3 == 0 ? 1 : -1));
                GlobalTensor<int32_t> out;
                out.SetGlobalBuffer(g);
                GlobalTensor<int8_t> out8;
                out8.SetGlobalBuffer(b8);
                for (int r = 0; r < reps; ++r) {
                  SetAtomicAdd<int32_t>();
                  DataCopy(out, buf.Get<int32_t>(), n);
                  SetAtomicAdd<int8_t>();
                  DataCopy(out8, t8, n);
                }
              }).ok());
  // 3000 * (1 + ... + 8) = 108000; int8: 8 * 3000 = 24000 -> wraps modulo 256.
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(g[i], 108000) << i;
    ASSERT_EQ(b8[i], int8_t(uint8_t((i % 3 == 0 ? 24000 : -24000) & 0xFF))) << i;
  }
}

// Elided copies (a pending Load copied out, a pending Add computed straight
// into GM, strided bursts) combine as well.
TEST_F(Atomic, ElidedAndStridedCopiesCombine) {
  const uint32_t n = 256, blocks = 4;
  float* x = gm<float>(n, 0.f);
  float* y = gm<float>(n, 0.f);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = float(2 * i);
  }
  float* sum = gm<float>(n, 1.f);
  float* copy = gm<float>(n, 1.f);
  float* rows = gm<float>(2 * n, 1.f);
  ASSERT_TRUE(kt::run("elided", blocks, [=] {
                TPipe pipe;
                TQue<TPosition::VECIN, 1> qx, qy;
                TQue<TPosition::VECOUT, 1> qz;
                pipe.InitBuffer(qx, 1, n * 4);
                pipe.InitBuffer(qy, 1, n * 4);
                pipe.InitBuffer(qz, 1, n * 4);
                GlobalTensor<float> gx, gy, gs, gc, gr;
                gx.SetGlobalBuffer(x);
                gy.SetGlobalBuffer(y);
                gs.SetGlobalBuffer(sum);
                gc.SetGlobalBuffer(copy);
                gr.SetGlobalBuffer(rows);
                LocalTensor<float> lx = qx.AllocTensor<float>();
                LocalTensor<float> ly = qy.AllocTensor<float>();
                DataCopy(lx, gx, n);
                DataCopy(ly, gy, n);
                qx.EnQue(lx);
                qy.EnQue(ly);
                lx = qx.DeQue<float>();
                ly = qy.DeQue<float>();
                LocalTensor<float> lz = qz.AllocTensor<float>();
                Add(lz, lx, ly, n);
                qz.EnQue(lz);
                lz = qz.DeQue<float>();
                SetAtomicAdd<float>();
                DataCopy(gs, lz, n);                                  // pending Add
                DataCopy(gc, lx, n);                                  // pending Load
                DataCopy(gr, lx, DataCopyParams(n / 8, 1, 0, 1));     // 32-byte rows, gaps
                SetAtomicNone();
                qz.FreeTensor(lz);
                qx.FreeTensor(lx);
                qy.FreeTensor(ly);
              }).ok());
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(sum[i], 1.f + blocks * 3.f * i) << i;
    ASSERT_EQ(copy[i], 1.f + blocks * float(i)) << i;
  }
  for (uint32_t r = 0; r < n / 8; ++r) {
    for (uint32_t k = 0; k < 8; ++k) {
      ASSERT_EQ(rows[r * 16 + k], 1.f + blocks * float(r * 8 + k)) << r << " " << k;
      ASSERT_EQ(rows[r * 16 + 8 + k], 1.f) << r << " " << k;
    }
  }
}

TEST_F(Atomic, MisalignedLengthIsAnError) {
  int32_t* g = gm<int32_t>(16, 0);
  const asc::Status st = kt::run("misaligned", 1, [=] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 64);
    GlobalTensor<int32_t> out;
    out.SetGlobalBuffer(g);
    SetAtomicAdd<int32_t>();
    DataCopyPad(out, buf.Get<int32_t>(), DataCopyExtParams(1, 6, 0, 0));
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidParam);
  EXPECT_NE(st.message().find("[DataCopyPad] kernel 'misaligned' block 0 of 1: atomic add of int32_t needs GM "
                              "addresses and lengths in 4-byte units; got GM address offset 0, 6-byte bursts 6 "
                              "bytes apart"),
            std::string::npos)
      << st.message();
}

// ---------------------------------------------------------------- the checker

class AtomicChecker : public Atomic {
 protected:
  void SetUp() override {
    Atomic::SetUp();
    checks_.emplace();
  }
  void TearDown() override {
    checks_.reset();
    Atomic::TearDown();
  }
  static std::vector<std::string> lines() { return ckt::report_lines(); }

 private:
  std::optional<ckt::ChecksOn> checks_;
};

TEST_F(AtomicChecker, AtomicWritesAreNotARace) {
  float* y = gm<float>(96, 0.f);
  auto kernel = [=](bool atomic) {
    return [=] {
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, 256);
      GlobalTensor<float> g;
      g.SetGlobalBuffer(y + 32 * GetBlockIdx());  // 64 floats each: 32 shared
      Duplicate(buf.Get<float>(), float(GetBlockIdx() + 1), 64);
      if (atomic) SetAtomicAdd<float>();
      DataCopy(g, buf.Get<float>(), 64);
    };
  };
  ASSERT_TRUE(kt::run("atomic_race", 2, kernel(true)).ok());
  EXPECT_TRUE(lines().empty());
  for (int i = 0; i < 32; ++i) EXPECT_EQ(y[i], 1.f);
  for (int i = 32; i < 64; ++i) EXPECT_EQ(y[i], 3.f);
  for (int i = 64; i < 96; ++i) EXPECT_EQ(y[i], 2.f);
  // Without atomics: reported.
  const asc::Status st = kt::run("plain_race", 2, kernel(false));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), asc::ErrorCode::kRtAicoreException);
  EXPECT_EQ(lines(), std::vector<std::string>{
                         "[kernel check] gm-write-race: kernel 'plain_race' block 1/2: DataCopy: writes GM bytes "
                         "[128, 256) of a 448-byte allocation that block 0 also writes (DataCopy), without atomics"});
  chk::clear_reports();
  // SetValue stays a plain (racing) write under an atomic mode.
  const asc::Status st2 = kt::run("set_value", 2, [=] {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(y);
    SetAtomicAdd<float>();
    g.SetValue(3, 1.f);
  });
  ASSERT_FALSE(st2.ok());
  ASSERT_EQ(lines().size(), 1u);
  EXPECT_EQ(chk::reports()[0].finding, chk::Finding::kGmWriteRace);
  EXPECT_EQ(chk::reports()[0].instruction, "GlobalTensor::SetValue");
}

TEST_F(AtomicChecker, AtomicWritesAreStillBoundsChecked) {
  float* y = gm<float>(64, 0.f);
  const asc::Status st = kt::run("atomic_oob", 2, [=] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 256);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(y, 32);
    SetAtomicAdd<float>();
    DataCopy(g[16], buf.Get<float>(), 32);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), asc::ErrorCode::kRtAicoreException);
  ASSERT_FALSE(chk::reports().empty());
  EXPECT_EQ(chk::reports()[0].finding, chk::Finding::kGmOutOfBounds);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(y[i], 0.f) << i;  // not executed
}

}  // namespace
