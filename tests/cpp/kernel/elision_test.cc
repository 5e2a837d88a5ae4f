// Copy elision (asc/kernel/elide.h): every kernel here runs twice, with elision
// on and off, and the two runs must leave bit-identical GM (and log identical
// values read inside the kernel). The counters prove elision really happened.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "asc/runtime/device.h"
#include "kernel_test_util.h"

namespace {

using namespace AscendC;
using asc::kernel::elided_bytes;
using asc::kernel::elision_enabled;
using asc::kernel::set_elision_enabled;

// Forces elision on or off for blocks started while it lives.
class ElisionMode {
 public:
  explicit ElisionMode(bool on) : prev_(elision_enabled()) { set_elision_enabled(on); }
  ~ElisionMode() { set_elision_enabled(prev_); }
  ElisionMode(const ElisionMode&) = delete;
  ElisionMode& operator=(const ElisionMode&) = delete;

 private:
  bool prev_;
};

// What a kernel left behind: GM bytes, values it logged, bytes it elided.
struct Outcome {
  std::vector<uint8_t> gm;
  std::vector<uint64_t> log;
  int64_t elided = 0;
};

using Log = std::vector<uint64_t>;

template <typename T>
uint64_t bits(T v) {
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

// 64-byte aligned GM image (std::vector's storage is only 16-byte aligned).
class Gm {
 public:
  explicit Gm(const std::vector<uint8_t>& init) : bytes_(init.size()) {
    p_ = static_cast<uint8_t*>(std::aligned_alloc(64, (bytes_ + 63) / 64 * 64 + 64));
    std::memcpy(p_, init.data(), bytes_);
  }
  ~Gm() { std::free(p_); }
  Gm(const Gm&) = delete;
  Gm& operator=(const Gm&) = delete;
  uint8_t* data() { return p_; }
  std::vector<uint8_t> bytes() const { return std::vector<uint8_t>(p_, p_ + bytes_); }

 private:
  size_t bytes_;
  uint8_t* p_;
};

// Runs kernel(gm, log) on `blocks` blocks with elision `on`.
template <typename Kernel>
Outcome run_mode(bool on, const std::vector<uint8_t>& init, uint32_t blocks, Kernel kernel) {
  ElisionMode mode(on);
  Gm gm(init);
  std::vector<Log> logs(blocks);
  std::vector<int64_t> elided(blocks, 0);
  uint8_t* g = gm.data();
  kt::run_or_throw("elision_test", blocks, [&] {
    const auto b = static_cast<size_t>(GetBlockIdx());
    const int64_t e0 = elided_bytes();
    kernel(g, logs[b]);
    elided[b] = elided_bytes() - e0;
  });
  Outcome o;
  o.gm = gm.bytes();
  for (auto& l : logs) o.log.insert(o.log.end(), l.begin(), l.end());
  for (int64_t e : elided) o.elided += e;
  return o;
}

size_t first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] != b[i]) return i;
  }
  return a.size() == b.size() ? SIZE_MAX : std::min(a.size(), b.size());
}

// Runs both ways and expects identical results; returns the elided run.
template <typename Kernel>
Outcome same_both_ways(const std::vector<uint8_t>& init, uint32_t blocks, Kernel kernel) {
  Outcome on = run_mode(true, init, blocks, kernel);
  Outcome off = run_mode(false, init, blocks, kernel);
  EXPECT_EQ(off.elided, 0);
  const size_t d = first_difference(on.gm, off.gm);
  EXPECT_EQ(d, SIZE_MAX) << "GM differs at byte " << d << " (elided vs eager)";
  EXPECT_EQ(on.log, off.log);
  return on;
}

template <typename T>
std::vector<uint8_t> image(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
std::vector<T> elems(const std::vector<uint8_t>& b, size_t offset_elems, size_t n) {
  std::vector<T> v(n);
  std::memcpy(v.data(), b.data() + offset_elems * sizeof(T), n * sizeof(T));
  return v;
}

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -4.0f, float hi = 4.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// ------------------------------------------------ the canonical kernel

// z = x + y as Ascend C ships it (CopyIn / Compute / CopyOut, double
// buffering, DataCopyPad for a tail that is not a multiple of 32 bytes).
// `prefetch` issues CopyIn(i + 1) before CopyOut(i), so that a pending copy-in
// is outstanding when a copy-out writes GM.
template <typename T>
class CanonicalAdd {
 public:
  static constexpr int32_t kBuffers = 2;

  void Init(T* x, T* y, T* z, uint64_t total, uint32_t tile) {
    const uint64_t blocks = static_cast<uint64_t>(GetBlockNum());
    const uint64_t idx = static_cast<uint64_t>(GetBlockIdx());
    const uint64_t per = total / blocks / 16 * 16;
    const uint64_t start = per * idx;
    length_ = idx + 1 == blocks ? total - start : per;
    tile_ = tile;
    tiles_ = static_cast<uint32_t>((length_ + tile - 1) / tile);
    xGm_.SetGlobalBuffer(x + start, length_);
    yGm_.SetGlobalBuffer(y + start, length_);
    zGm_.SetGlobalBuffer(z + start, length_);
    pipe_.InitBuffer(qx_, kBuffers, tile * sizeof(T));
    pipe_.InitBuffer(qy_, kBuffers, tile * sizeof(T));
    pipe_.InitBuffer(qz_, kBuffers, tile * sizeof(T));
  }

  void Process(bool prefetch) {
    if (tiles_ == 0) return;
    if (prefetch) {
      CopyIn(0);
      for (uint32_t i = 0; i < tiles_; ++i) {
        if (i + 1 < tiles_) CopyIn(i + 1);
        Compute(i);
        CopyOut(i);
      }
    } else {
      for (uint32_t i = 0; i < tiles_; ++i) {
        CopyIn(i);
        Compute(i);
        CopyOut(i);
      }
    }
  }

 private:
  uint32_t Count(uint32_t i) const {
    const uint64_t rest = length_ - uint64_t{i} * tile_;
    return rest < tile_ ? static_cast<uint32_t>(rest) : tile_;
  }
  bool Aligned(uint32_t count) const { return count * sizeof(T) % 32 == 0; }

  void CopyIn(uint32_t i) {
    const uint32_t count = Count(i);
    LocalTensor<T> x = qx_.template AllocTensor<T>();
    LocalTensor<T> y = qy_.template AllocTensor<T>();
    if (Aligned(count)) {
      DataCopy(x, xGm_[uint64_t{i} * tile_], count);
      DataCopy(y, yGm_[uint64_t{i} * tile_], count);
    } else {
      DataCopyExtParams p{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
      DataCopyPadExtParams<T> pad{false, 0, 0, T(0)};
      DataCopyPad(x, xGm_[uint64_t{i} * tile_], p, pad);
      DataCopyPad(y, yGm_[uint64_t{i} * tile_], p, pad);
    }
    qx_.EnQue(x);
    qy_.EnQue(y);
  }
  void Compute(uint32_t i) {
    LocalTensor<T> x = qx_.template DeQue<T>();
    LocalTensor<T> y = qy_.template DeQue<T>();
    LocalTensor<T> z = qz_.template AllocTensor<T>();
    Add(z, x, y, static_cast<int32_t>(Count(i)));
    qz_.EnQue(z);
    qx_.FreeTensor(x);
    qy_.FreeTensor(y);
  }
  void CopyOut(uint32_t i) {
    const uint32_t count = Count(i);
    LocalTensor<T> z = qz_.template DeQue<T>();
    if (Aligned(count)) {
      DataCopy(zGm_[uint64_t{i} * tile_], z, count);
    } else {
      DataCopyExtParams p{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};
      DataCopyPad(zGm_[uint64_t{i} * tile_], z, p);
    }
    qz_.FreeTensor(z);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, kBuffers> qx_, qy_;
  TQue<TPosition::VECOUT, kBuffers> qz_;
  GlobalTensor<T> xGm_, yGm_, zGm_;
  uint64_t length_ = 0;
  uint32_t tile_ = 0;
  uint32_t tiles_ = 0;
};

// x at element 0, y at n, z at 2n of one GM image.
template <typename T>
std::vector<uint8_t> xyz_image(size_t n, uint32_t seed) {
  std::vector<float> x = random_floats(n, seed), y = random_floats(n, seed + 1);
  std::vector<T> all(3 * n);
  for (size_t i = 0; i < n; ++i) {
    all[i] = T(x[i]);
    all[n + i] = T(y[i]);
    all[2 * n + i] = T(-1.0f);
  }
  return image(all);
}

template <typename T>
void check_canonical(size_t n, uint32_t tile, uint32_t blocks, bool prefetch) {
  SCOPED_TRACE("n=" + std::to_string(n) + " tile=" + std::to_string(tile) + " blocks=" + std::to_string(blocks) +
               (prefetch ? " prefetch" : ""));
  const std::vector<uint8_t> init = xyz_image<T>(n, 7);
  Outcome on = same_both_ways(init, blocks, [=](uint8_t* g, Log&) {
    T* base = reinterpret_cast<T*>(g);
    CanonicalAdd<T> op;
    op.Init(base, base + n, base + 2 * n, n, tile);
    op.Process(prefetch);
  });
  EXPECT_GT(on.elided, 0) << "elision did not happen";
  if constexpr (std::is_same_v<T, float>) {
    const std::vector<float> all = elems<float>(on.gm, 0, 3 * n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(all[2 * n + i], all[i] + all[n + i]) << i;
  }
}

TEST(Elision, CanonicalVectorAddFloat) {
  for (bool prefetch : {false, true}) {
    check_canonical<float>(4 * 1024, 512, 1, prefetch);
    check_canonical<float>(4 * 1024 + 13, 512, 2, prefetch);  // DataCopyPad tail
    check_canonical<float>(3 * 1024 + 5, 1000, 2, prefetch);  // tile not a multiple of 8 either
  }
}

TEST(Elision, CanonicalVectorAddHalf) {
  for (bool prefetch : {false, true}) {
    check_canonical<half>(4 * 1024, 256, 1, prefetch);
    check_canonical<half>(4 * 1024 + 7, 512, 2, prefetch);
  }
}

TEST(Elision, BlockDimGreaterThanCores) {
  const int cores = asc::runtime::cpu_device().properties().num_cores;
  check_canonical<float>(64 * 1024 + 40, 1024, static_cast<uint32_t>(4 * cores + 1), false);
  check_canonical<half>(64 * 1024, 512, static_cast<uint32_t>(3 * cores), true);
}

TEST(Elision, CounterShowsElisionOnlyWhenEnabled) {
  // ASC_KERNEL_ELIDE decides the default; the switch overrides it.
  const char* env = std::getenv("ASC_KERNEL_ELIDE");
  const bool env_off = env && (std::string(env) == "0" || std::string(env) == "off");
  EXPECT_EQ(elision_enabled(), !env_off);
  const size_t n = 8 * 1024;
  const std::vector<uint8_t> init = xyz_image<float>(n, 3);
  auto kernel = [=](uint8_t* g, Log&) {
    float* base = reinterpret_cast<float*>(g);
    CanonicalAdd<float> op;
    op.Init(base, base + n, base + 2 * n, n, 1024);
    op.Process(false);
  };
  const Outcome on = run_mode(true, init, 2, kernel);
  const Outcome off = run_mode(false, init, 2, kernel);
  // Both copy-ins and the copy-out of every tile are elided.
  EXPECT_EQ(on.elided, static_cast<int64_t>(3 * n * sizeof(float)));
  EXPECT_EQ(off.elided, 0);
  EXPECT_EQ(on.gm, off.gm);
}

TEST(Elision, LongOutputsStreamStraightToGm) {
  // Past 4 MiB of output per block, copy-outs use non-temporal stores through
  // an L1 scratch: same bytes, also in place and for plain copies.
  const size_t n = (size_t{3} << 20) + 40;  // 12 MiB of float32 per array
  const std::vector<uint8_t> init = xyz_image<float>(n, 61);
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    Outcome on = same_both_ways(init, 2, [=](uint8_t* g, Log&) {
      float* base = reinterpret_cast<float*>(g);
      CanonicalAdd<float> op;
      float* z = variant == 1 ? base : base + 2 * n;  // 1: in place over x
      op.Init(base, base + n, z, n, 4096);
      op.Process(variant == 2);
    });
    EXPECT_GT(on.elided, 0);
    const std::vector<float> before = elems<float>(init, 0, 2 * n), after = elems<float>(on.gm, 0, 3 * n);
    for (size_t i = 0; i < n; i += 997) {
      ASSERT_EQ(after[(variant == 1 ? 0 : 2 * n) + i], before[i] + before[n + i]) << i;
    }
  }
  // A copy kernel (DataCopy in, DataCopy out) and a half-precision one.
  std::vector<float> src = random_floats(2 * n, 67);
  same_both_ways(image(src), 2, [=](uint8_t* g, Log&) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 8192 * 4);
    GlobalTensor<float> in, out;
    const size_t half_n = n / 2 / 8 * 8;
    const size_t start = GetBlockIdx() * half_n;
    in.SetGlobalBuffer(f + start, half_n);
    out.SetGlobalBuffer(f + n + start, half_n);
    for (size_t i = 0; i + 8192 <= half_n; i += 8192) {
      LocalTensor<float> t = q.AllocTensor<float>();
      DataCopy(t, in[i], 8192);
      DataCopy(out[i], t, 8192);
      q.FreeTensor(t);
    }
  });
  const size_t nh = size_t{1} << 22;
  same_both_ways(xyz_image<half>(nh, 71), 1, [=](uint8_t* g, Log&) {
    half* base = reinterpret_cast<half*>(g);
    CanonicalAdd<half> op;
    op.Init(base, base + nh, base + 2 * nh + 8, nh - 8, 4096);
    op.Process(true);
  });
}

// ------------------------------------------------ aliasing GM

TEST(Elision, InPlaceOutputAliasesAnInput) {
  const size_t n = 6 * 1024 + 24;
  for (int which : {0, 1}) {  // z == x, z == y
    const std::vector<uint8_t> init = xyz_image<float>(n, 11);
    for (bool prefetch : {false, true}) {
      Outcome on = same_both_ways(init, 2, [=](uint8_t* g, Log&) {
        float* base = reinterpret_cast<float*>(g);
        float* z = which == 0 ? base : base + n;
        CanonicalAdd<float> op;
        op.Init(base, base + n, z, n, 512);
        op.Process(prefetch);
      });
      EXPECT_GT(on.elided, 0);
      const std::vector<float> before = elems<float>(init, 0, 2 * n), after = elems<float>(on.gm, 0, 2 * n);
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(after[which * n + i], before[i] + before[n + i]) << i;
    }
  }
}

TEST(Elision, OverlappingShiftedGmRanges) {
  // One block (GM overlaps across tiles, so blocks would race): z = x shifted
  // by `shift` elements over the same array; tile i's copy-out overwrites
  // inputs of tile i and i + 1, which eager execution reads back in order.
  const size_t n = 4 * 1024 + 8;
  for (int shift : {8, -8, 512, -512, 520, 1}) {
    for (bool prefetch : {false, true}) {
      SCOPED_TRACE("shift " + std::to_string(shift) + (prefetch ? " prefetch" : ""));
      std::vector<float> all = random_floats(3 * n + 2048, 5);
      same_both_ways(image(all), 1, [=](uint8_t* g, Log&) {
        float* base = reinterpret_cast<float*>(g) + 1024;
        CanonicalAdd<float> op;
        op.Init(base, base + n + 1024, base + shift, n, 512);
        op.Process(prefetch);
      });
    }
  }
}

TEST(Elision, GmWrittenWhileLoadsArePending) {
  std::vector<float> all = random_floats(1024, 9);
  same_both_ways(image(all), 1, [](uint8_t* g, Log& log) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 8 * 256 * 4);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<float> a = t[0], b = t[256], c = t[512], d = t[768], e = t[1024];
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 1024);
    DataCopy(a, gm[0], 128);
    DataCopy(b, gm[128], 128);
    Add(c, a, b, 128);                // pending, sources in GM
    Muls(d, a, 3.0f, 64);             // pending, partial source
    DataCopy(gm[64], b, 128);         // overwrites GM [64, 192): sources of a, b, c and d
    DataCopy(gm[512], c, 128);        // c's sources were overwritten: must use the old values
    DataCopy(gm[640], d, 64);
    DataCopy(e, gm[0], 256);          // reads the new GM
    gm.SetValue(3, 42.0f);            // GM write through GlobalTensor
    gm(5) = -1.0f;                    // ... and operator()
    log.push_back(bits(e.GetValue(3)));
    log.push_back(bits(a.GetValue(3)));
    DataCopy(gm[768], e, 256);
    DataCopy(gm[256], a, 128);
  });
}

// ------------------------------------------------ partial and reinterpreted reads

TEST(Elision, PartialReadsOfPendingTensors) {
  std::vector<float> all = random_floats(4096, 13);
  Outcome on = same_both_ways(image(all), 1, [](uint8_t* g, Log& log) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TQue<TPosition::VECIN, 2> qin;
    TQue<TPosition::VECOUT, 2> qout;
    pipe.InitBuffer(qin, 2, 256 * 4);
    pipe.InitBuffer(qout, 2, 256 * 4);
    GlobalTensor<float> gx, gy, gz;
    gx.SetGlobalBuffer(f, 1024);
    gy.SetGlobalBuffer(f + 1024, 1024);
    gz.SetGlobalBuffer(f + 2048, 2048);
    LocalTensor<float> x = qin.AllocTensor<float>();
    LocalTensor<float> y = qin.AllocTensor<float>();
    DataCopy(x, gx, 256);
    DataCopy(y, gy, 256);
    log.push_back(bits(x.GetValue(3)));       // element of a pending copy
    log.push_back(bits(x[16].GetValue(1)));   // through a sub-view
    LocalTensor<float> z = qout.AllocTensor<float>();
    Add(z[8], x[8], y[16], 64);               // sub-views of pending copies
    Sub(z[128], x, y, 128);
    DataCopy(gz, z[8], 64);                   // exactly the first pending compute
    DataCopy(gz[64], z[128], 64);             // half of the second one
    DataCopy(gz[128], x[64], 64);             // part of a pending copy, GM -> GM
    // The same bytes as int32: a differently typed instruction on a pending copy.
    LocalTensor<int32_t> xi = x.ReinterpretCast<int32_t>();
    LocalTensor<int32_t> yi = y.ReinterpretCast<int32_t>();
    LocalTensor<float> w = qout.AllocTensor<float>();
    LocalTensor<int32_t> wi = w.ReinterpretCast<int32_t>();
    Add(wi, xi, yi, 256);
    log.push_back(bits(w.GetValue(7)));       // float view of an int32 result
    GlobalTensor<int32_t> gi;
    gi.SetGlobalBuffer(reinterpret_cast<int32_t*>(f + 2048 + 256), 256);
    DataCopy(gi, wi, 256);
    Muls(x, x, 0.5f, 256);                    // in place on a pending copy
    DataCopy(gz[512], x, 256);
    qout.FreeTensor(z);
    qout.FreeTensor(w);
    qin.FreeTensor(x);
    qin.FreeTensor(y);
  });
  EXPECT_GT(on.elided, 0);
}

TEST(Elision, PendingTensorReadByTwoInstructions) {
  std::vector<float> all = random_floats(2048, 17);
  same_both_ways(image(all), 1, [](uint8_t* g, Log&) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 5 * 256 * 4);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<float> x = t[0], y = t[256], a = t[512], b = t[768], c = t[1024];
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 2048);
    DataCopy(x, gm, 256);
    DataCopy(y, gm[256], 256);
    Add(a, x, y, 256);
    Mul(b, x, y, 256);
    Max(c, a, x, 256);  // reads a pending compute and a pending copy
    DataCopy(gm[1024], b, 256);
    DataCopy(gm[1280], a, 256);
    DataCopy(gm[1536], c, 256);
    DataCopy(gm[1792], a, 256);  // copied out twice
  });
}

TEST(Elision, SourceRewrittenWhileComputePending) {
  std::vector<float> all = random_floats(4096, 19);
  for (int variant = 0; variant < 6; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    Outcome on = same_both_ways(image(all), 1, [variant](uint8_t* g, Log& log) {
      float* f = reinterpret_cast<float*>(g);
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, 4 * 256 * 4);
      LocalTensor<float> t = buf.Get<float>();
      LocalTensor<float> x = t[0], y = t[256], z = t[512], w = t[768];
      GlobalTensor<float> gm;
      gm.SetGlobalBuffer(f, 4096);
      Duplicate(w, 0.125f, 256);
      DataCopy(y, gm[256], 256);
      if (variant == 1) {
        DataCopy(x, gm, 256);  // x from GM: the compute reads GM
      } else {
        Duplicate(x, 1.5f, 256);  // x real in UB
        Adds(x, x, 0.25f, 256);   // ... and pending again
        log.push_back(bits(x.GetValue(0)));
      }
      Add(z, x, y, 256);  // pending
      switch (variant) {
        case 0: Duplicate(x, 7.0f, 256); break;               // rewrite the source
        case 1: DataCopy(gm, w, 256); break;                  // rewrite the source's GM
        case 2: DataCopy(x, gm[1024], 256); break;            // copy something else over it
        case 3: x.SetValue(5, 3.0f); break;                   // one element
        case 4: Muls(x, y, 2.0f, 256); break;                 // an instruction writes it
        case 5: Add(x, x, z, 256); break;                     // in place, reading the pending result
      }
      Add(w, z, x, 256);
      DataCopy(gm[2048], z, 256);
      DataCopy(gm[2304], x, 256);
      DataCopy(gm[2560], w, 256);
    });
    (void)on;
  }
}

// ------------------------------------------------ chains, Cast, tails

TEST(Elision, ChainsOfInstructions) {
  std::vector<float> all = random_floats(8192, 23, -2.0f, 2.0f);
  Outcome on = same_both_ways(image(all), 2, [](uint8_t* g, Log&) {
    float* f = reinterpret_cast<float*>(g) + GetBlockIdx() * 4096;
    TPipe pipe;
    TQue<TPosition::VECIN, 2> qin;
    TQue<TPosition::VECOUT, 2> qout;
    TBuf<> tmp;
    pipe.InitBuffer(qin, 2, 512 * 4);
    pipe.InitBuffer(qout, 2, 512 * 4);
    pipe.InitBuffer(tmp, 512 * 4 * 2);
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 4096);
    for (int i = 0; i < 2; ++i) {
      LocalTensor<float> x = qin.AllocTensor<float>();
      LocalTensor<float> y = qin.AllocTensor<float>();
      DataCopy(x, gm[i * 512], 512);
      DataCopy(y, gm[1024 + i * 512], 512);
      LocalTensor<float> a = tmp.Get<float>();
      LocalTensor<float> z = qout.AllocTensor<float>();
      Exp(a, x, 512);
      Add(a, a, y, 512);
      Muls(z, a, 0.75f, 512);
      Relu(z, z, 512);
      DataCopy(gm[2048 + i * 512], z, 512);
      // float -> half -> float through Cast, copied out as half and as float.
      LocalTensor<half> h = tmp.Get<float>()[512].ReinterpretCast<half>();
      Cast(h, z, RoundMode::CAST_RINT, 512);
      Abs(h, h, 512);
      GlobalTensor<half> gh;
      gh.SetGlobalBuffer(reinterpret_cast<half*>(f + 3072) + i * 512, 512);
      DataCopy(gh, h, 512);
      Cast(y, h, RoundMode::CAST_NONE, 512);
      Sqrt(y, y, 512);
      DataCopy(gm[1024 + i * 512], y, 512);  // write back over an input
      qout.FreeTensor(z);
      qin.FreeTensor(x);
      qin.FreeTensor(y);
    }
  });
  EXPECT_GT(on.elided, 0);
}

TEST(Elision, CastOverlappingItsSource) {
  std::vector<float> all = random_floats(1024, 29);
  same_both_ways(image(all), 1, [](uint8_t* g, Log& log) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 1024 * 4);
    LocalTensor<float> x = buf.Get<float>();
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 1024);
    DataCopy(x, gm, 256);
    // Narrow in place (half results over the float source), widen back.
    LocalTensor<half> h = x.ReinterpretCast<half>();
    Cast(h, x, RoundMode::CAST_RINT, 256);
    log.push_back(bits(h.GetValue(10)));
    Cast(x[256], h, RoundMode::CAST_NONE, 256);
    Add(x[8], x, x[256], 200);  // dst partly overlaps a source
    DataCopy(gm[512], x, 512);
  });
}

TEST(Elision, WideningCastInPlaceOverAPendingCopy) {
  // half -> float over the same bytes: each result overwrites sources still to
  // be read, so the eager result depends on the loop order; elision must not
  // read the pending copy from GM instead.
  std::vector<float> all = random_floats(1024, 73);
  same_both_ways(image(all), 1, [](uint8_t* g, Log&) {
    half* h = reinterpret_cast<half*>(g);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 2048 * 4);
    LocalTensor<float> f = buf.Get<float>();
    LocalTensor<half> fh = f.ReinterpretCast<half>();
    GlobalTensor<half> gh;
    gh.SetGlobalBuffer(h, 2048);
    DataCopy(fh, gh, 512);                        // pending copy of 512 halves
    Cast(f, fh, RoundMode::CAST_NONE, 512);       // widen in place
    GlobalTensor<float> gf;
    gf.SetGlobalBuffer(reinterpret_cast<float*>(g) + 512, 512);
    DataCopy(gf, f, 512);
  });
}

TEST(Elision, FreeTensorKeepsRecordsReachingBeyondTheBuffer) {
  std::vector<float> all = random_floats(2048, 79);
  same_both_ways(image(all), 1, [](uint8_t* g, Log&) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 256 * 4);
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 2048);
    LocalTensor<float> a = q.AllocTensor<float>();
    LocalTensor<float> b = q.AllocTensor<float>();
    LocalTensor<float> both = a;
    both.SetSize(512);  // a view over both adjacent buffers
    DataCopy(both, gm, 512);
    q.FreeTensor(b);
    DataCopy(gm[1024], a, 256);
    q.FreeTensor(a);
  });
}

TEST(Elision, DataCopyPadTailsAndPadding) {
  std::vector<float> all = random_floats(2048, 31);
  Outcome on = same_both_ways(image(all), 1, [](uint8_t* g, Log& log) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 4 * 256 * 4);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<float> a = t[0], b = t[256], c = t[512], d = t[768];
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 2048);
    Duplicate(t, -3.0f, 1024);
    // One burst without padding (elided), 13 elements.
    DataCopyPad(a, gm[3], DataCopyExtParams{1, 13 * 4, 0, 0, 0}, DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
    Adds(b, a, 1.0f, 13);
    DataCopyPad(gm[1024], b, DataCopyExtParams{1, 13 * 4, 0, 0, 0});
    // Left padding without isPad: the data lands 2 elements in.
    DataCopyPad(c, gm[40], DataCopyExtParams{1, 20 * 4, 0, 0, 0}, DataCopyPadExtParams<float>{false, 2, 3, 9.0f});
    log.push_back(bits(c.GetValue(0)));
    Muls(c[2], c[2], 2.0f, 20);
    DataCopyPad(gm[1100], c, DataCopyExtParams{1, 24 * 4, 0, 0, 0});
    // Padding written, several bursts: not elided, still exact.
    DataCopyPad(d, gm[200], DataCopyExtParams{3, 5 * 4, 4, 0, 0}, DataCopyPadExtParams<float>{true, 1, 2, 7.0f});
    Add(d, d, a, 13);
    DataCopyPad(gm[1200], d, DataCopyExtParams{3, 8 * 4, 0, 4, 0});
    // Strided DataCopyParams and a contiguous one-burst DataCopyParams.
    DataCopy(a, gm[300], DataCopyParams(4, 1, 1, 0));
    DataCopy(b, gm[400], DataCopyParams(1, 4, 0, 0));
    Add(b, b, a, 32);
    DataCopy(gm[1300], b, DataCopyParams(2, 2, 0, 1));
    DataCopy(gm[1400], a, DataCopyParams(1, 4, 0, 0));
  });
  EXPECT_GT(on.elided, 0);
}

// ------------------------------------------------ lifetime, escapes, odd uses

TEST(Elision, TensorsNeverCopiedOut) {
  std::vector<float> all = random_floats(1024, 37);
  const std::vector<uint8_t> init = image(all);
  Outcome on = same_both_ways(init, 3, [](uint8_t* g, Log&) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 256 * 4);
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 1024);
    LocalTensor<float> x = q.AllocTensor<float>();
    LocalTensor<float> y = q.AllocTensor<float>();
    DataCopy(x, gm, 256);
    Exp(y, x, 256);
    // Neither is copied out nor freed: the block ends with both pending.
  });
  EXPECT_EQ(on.gm, init);
  // The next kernel on the same cores starts clean and reads its own data.
  same_both_ways(init, 3, [](uint8_t* g, Log& log) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    pipe.InitBuffer(q, 2, 256 * 4);
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 1024);
    LocalTensor<float> x = q.AllocTensor<float>();
    DataCopy(x, gm[256], 256);
    log.push_back(bits(x.GetValue(1)));
    if (GetBlockIdx() == 0) DataCopy(gm[512], x, 256);
  });
}

TEST(Elision, SecondTPipeSeesWhatTheFirstLeft) {
  // Unusual but legal on the CPU device: local bytes written under one TPipe
  // and read under the next one in the same block.
  std::vector<float> all = random_floats(1024, 59);
  same_both_ways(image(all), 2, [](uint8_t* g, Log& log) {
    float* f = reinterpret_cast<float*>(g) + GetBlockIdx() * 512;
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 512);
    {
      TPipe first;
      TBuf<> buf;
      first.InitBuffer(buf, 512 * 4);
      LocalTensor<float> t = buf.Get<float>();
      DataCopy(t, gm, 256);
      Muls(t[256], t, 3.0f, 256);
    }
    TPipe second;
    TBuf<> buf;
    second.InitBuffer(buf, 512 * 4);
    LocalTensor<float> t = buf.Get<float>();
    log.push_back(bits(t.GetValue(7)));
    log.push_back(bits(t.GetValue(300)));
    DataCopy(gm, t, 512);
  });
}

TEST(Elision, ErrorWithPendingRecordsThenNextLaunch) {
  std::vector<float> in = random_floats(512, 41), out(512, 0.0f);
  {
    ElisionMode on(true);
    const asc::Status st = kt::run("elide_error", 2, [&] {
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, 1024 * 4);
      GlobalTensor<float> gm;
      gm.SetGlobalBuffer(in.data(), 512);
      LocalTensor<float> x = buf.Get<float>();
      DataCopy(x, gm, 256);
      Adds(x[256], x, 1.0f, 256);
      LocalTensor<int32_t> xi = x.ReinterpretCast<int32_t>();
      Div(xi, xi, xi, 8);  // unsupported dtype: reported when issued
    });
    EXPECT_EQ(st.code(), asc::ErrorCode::kInvalidDtype) << st.ToString();
    kt::run_or_throw("elide_after_error", 2, [&] {
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, 256 * 4);
      GlobalTensor<float> gi, go;
      gi.SetGlobalBuffer(in.data(), 512);
      go.SetGlobalBuffer(out.data(), 512);
      LocalTensor<float> x = buf.Get<float>();
      const uint32_t off = static_cast<uint32_t>(GetBlockIdx()) * 256;
      DataCopy(x, gi[off], 256);
      Muls(x, x, 2.0f, 256);
      DataCopy(go[off], x, 256);
    });
  }
  for (int i = 0; i < 512; ++i) ASSERT_EQ(out[i], in[i] * 2.0f) << i;
}

TEST(Elision, EscapedAddressesSeeRealBytes) {
  std::vector<float> all = random_floats(2048, 43);
  same_both_ways(image(all), 1, [](uint8_t* g, Log& log) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 6 * 256 * 4);
    LocalTensor<float> t = buf.Get<float>();
    auto view = [&](uint32_t off) {
      LocalTensor<float> v = t[off];
      v.SetSize(256);
      return v;
    };
    LocalTensor<float> x = view(0), y = view(256), z = view(512), w = view(768), v = view(1024), u = view(1280);
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 2048);
    // A UB address taken early, read after later copies into it.
    float* px = reinterpret_cast<float*>(x.GetPhyAddr());
    DataCopy(x, gm, 256);
    log.push_back(bits(px[5]));
    DataCopy(y, gm[256], 256);
    Add(z, x, y, 256);  // x escaped: runs now
    px[0] = 100.0f;     // written behind the API's back
    DataCopy(gm[1024], z, 256);
    // data() after a pending compute, written before the copy-out.
    Duplicate(w, 2.0f, 256);
    Mul(v, w, y, 256);
    float* pw = w.data();
    pw[1] = -5.0f;
    DataCopy(gm[1280], v, 256);
    DataCopy(gm[1536], w, 256);
    // A reference from operator(): the pending reader runs first.
    Duplicate(u, 4.0f, 256);
    Adds(z, u, 1.0f, 256);
    float& r = u(3);
    r = 8.0f;
    DataCopy(gm[1792], z, 256);
    log.push_back(bits(u.GetValue(3)));
  });
}

TEST(Elision, ReductionsAndLocalCopiesOfPendingData) {
  std::vector<float> all = random_floats(2048, 47);
  same_both_ways(image(all), 1, [](uint8_t* g, Log& log) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 4 * 512 * 4);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<float> x = t[0], w = t[512], r = t[1024], work = t[1536];
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 2048);
    Duplicate(t, 0.0f, 2048);
    DataCopy(x, gm, 512);
    ReduceSum(r, x, work, 512);  // reads the pending copy from GM
    log.push_back(bits(r.GetValue(0)));
    ReduceMax(r[8], x, work, 500, true);
    log.push_back(bits(r.GetValue(8)));
    log.push_back(bits(r.GetValue(9)));
    DataCopy(w, x, 512);            // UB -> UB of a pending copy
    DataCopy(gm, t[1024], 512);     // then its GM source is overwritten
    DataCopy(gm[1024], w, 512);     // the local copy still has the old data
    Adds(x, x, 1.0f, 512);
    DataCopy(w[8], x, 256);         // UB -> UB of a pending compute, shifted
    DataCopy(gm[1536], w, 512);
  });
}

TEST(Elision, ManyPendingRecordsOverflowTheTable) {
  std::vector<float> all = random_floats(16384, 53);
  Outcome on = same_both_ways(image(all), 1, [](uint8_t* g, Log&) {
    float* f = reinterpret_cast<float*>(g);
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 96 * 64 * 4);
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(f, 16384);
    for (uint32_t i = 0; i < 48; ++i) DataCopy(t[i * 64], gm[i * 64], 64);
    for (uint32_t i = 0; i < 48; ++i) Adds(t[(48 + i) * 64], t[i * 64], static_cast<float>(i), 64);
    for (uint32_t i = 48; i-- > 0;) DataCopy(gm[8192 + i * 64], t[(48 + i) * 64], 64);
    for (uint32_t i = 0; i < 48; ++i) DataCopy(gm[4096 + i * 64], t[i * 64], 64);
  });
  EXPECT_GT(on.elided, 0);
}

// ------------------------------------------------ random programs

// Random straight-line programs over one GM array and one UB buffer, with
// arbitrary (overlapping, unaligned) views: the strongest check that elision
// never changes what a kernel computes. The UB is dumped to GM at the end, so
// its final contents are compared too.
TEST(Elision, RandomProgramsMatchEagerExecution) {
  constexpr uint32_t kGm = 4096, kUb = 2048;
  const int programs = 400, steps = 80;
  for (int p = 0; p < programs; ++p) {
    SCOPED_TRACE("program " + std::to_string(p));
    std::vector<float> all = random_floats(kGm + kUb, 1000 + p);
    const uint32_t seed = 7000u + static_cast<uint32_t>(p);
    same_both_ways(image(all), 1, [=](uint8_t* g, Log& log) {
      std::mt19937 rng(seed);
      auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
      float* f = reinterpret_cast<float*>(g);
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, kUb * 4);
      LocalTensor<float> ub = buf.Get<float>();
      GlobalTensor<float> gm;
      gm.SetGlobalBuffer(f, kGm);
      Duplicate(ub, 0.0f, kUb);
      auto count = [&] { return pick(0, 3) == 0 ? pick(1, 40) : pick(1, 64) * 8; };
      auto ub_at = [&](uint32_t n) { return pick(0, 1) ? pick(0, (kUb - n) / 8) * 8 : pick(0, kUb - n); };
      auto gm_at = [&](uint32_t n) { return pick(0, 1) ? pick(0, (kGm - n) / 8) * 8 : pick(0, kGm - n); };
      for (int s = 0; s < steps; ++s) {
        const uint32_t n = count();
        const uint32_t d = ub_at(n), a = ub_at(n), b = ub_at(n), gofs = gm_at(n);
        switch (pick(0, 15)) {
          case 0:
          case 1: DataCopy(ub[d], gm[gofs], n); break;
          case 2:
          case 3: DataCopy(gm[gofs], ub[a], n); break;
          case 4: {
            switch (pick(0, 5)) {
              case 0: Add(ub[d], ub[a], ub[b], static_cast<int32_t>(n)); break;
              case 1: Sub(ub[d], ub[a], ub[b], static_cast<int32_t>(n)); break;
              case 2: Mul(ub[d], ub[a], ub[b], static_cast<int32_t>(n)); break;
              case 3: Max(ub[d], ub[a], ub[b], static_cast<int32_t>(n)); break;
              case 4: Min(ub[d], ub[a], ub[b], static_cast<int32_t>(n)); break;
              default: Div(ub[d], ub[a], ub[b], static_cast<int32_t>(n)); break;
            }
            break;
          }
          case 5:
            if (pick(0, 1)) {
              Adds(ub[d], ub[a], 0.5f, static_cast<int32_t>(n));
            } else {
              Muls(ub[d], ub[a], -1.25f, static_cast<int32_t>(n));
            }
            break;
          case 6:
            switch (pick(0, 3)) {
              case 0: Abs(ub[d], ub[a], static_cast<int32_t>(n)); break;
              case 1: Relu(ub[d], ub[a], static_cast<int32_t>(n)); break;
              case 2: Exp(ub[d], ub[a], static_cast<int32_t>(n)); break;
              default: Sqrt(ub[d], ub[a], static_cast<int32_t>(n)); break;
            }
            break;
          case 7: log.push_back(bits(ub.GetValue(pick(0, kUb - 1)))); break;
          case 8: ub.SetValue(pick(0, kUb - 1), static_cast<float>(s)); break;
          case 9: Duplicate(ub[d], static_cast<float>(s) * 0.5f, static_cast<int32_t>(n)); break;
          case 10: DataCopy(ub[d], ub[a], n); break;
          case 11: {
            const uint32_t r = pick(0, kUb - 16);
            ReduceSum(ub[r], ub[a], ub[b], static_cast<int32_t>(n));
            log.push_back(bits(ub.GetValue(r)));
            break;
          }
          case 12: {
            const uint32_t len = pick(1, 40);
            if (pick(0, 1)) {
              DataCopyPad(ub[ub_at(len + 8) / 8 * 8], gm[gm_at(len)], DataCopyExtParams{1, len * 4, 0, 0, 0},
                          DataCopyPadExtParams<float>{false, 0, 0, 0.0f});
            } else {
              DataCopyPad(gm[gm_at(len)], ub[ub_at(len)], DataCopyExtParams{1, len * 4, 0, 0, 0});
            }
            break;
          }
          case 13: {
            const uint32_t i = pick(0, kGm - 1);
            if (pick(0, 1)) {
              gm.SetValue(i, static_cast<float>(-s));
            } else {
              log.push_back(bits(gm.GetValue(i)));
            }
            break;
          }
          case 14: {
            // Cast through a half view of another part of the UB.
            const uint32_t m = n / 2 + 1;
            LocalTensor<half> h = ub[ub_at(m) / 2 * 2].ReinterpretCast<half>();
            Cast(h, ub[a], RoundMode::CAST_RINT, std::min<uint32_t>(m, h.GetSize()));
            Cast(ub[d], h, RoundMode::CAST_NONE, std::min<uint32_t>(std::min(n, m), h.GetSize()));
            break;
          }
          default: {
            const uint16_t bursts = static_cast<uint16_t>(pick(1, 4));
            if (uint32_t{bursts} * 3 * 8 + 8 <= kUb && pick(0, 1)) {
              DataCopy(ub[pick(0, (kUb - bursts * 24u) / 8) * 8], gm[pick(0, (kGm - bursts * 24u) / 8) * 8],
                       DataCopyParams(bursts, 2, 1, 1));
            } else {
              DataCopy(gm[pick(0, (kGm - bursts * 24u) / 8) * 8], ub[pick(0, (kUb - bursts * 24u) / 8) * 8],
                       DataCopyParams(bursts, 2, 1, 1));
            }
            break;
          }
        }
      }
      GlobalTensor<float> dump;
      dump.SetGlobalBuffer(f + kGm, kUb);
      DataCopy(dump, ub, kUb);
    });
    if (HasFailure()) break;
  }
}

}  // namespace
