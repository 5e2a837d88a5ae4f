// Winograd F(2x2, 3x3) convolution (see conv_winograd.h).
//
// Per 2x2 output tile and 8-channel block: the 4x4 input patch d becomes
// V = B^T d B (16 values), the 3x3 filter g of each (output, input) channel pair
// U = G g G^T (16 values, transformed once per weight version and cached), and
// M[xi] = sum_c U[xi][c][k] V[xi][c] (one GEMM per xi over a block of tiles:
// tiles x C times C x K), then Y = A^T M A gives the 2x2 outputs (Lavin & Gray,
// "Fast Algorithms for Convolutional Neural Networks", 2016; the standard F(2,3)
// matrices below). F(2x2, 3x3) rather than F(4x4, 3x3): its transforms only add
// and subtract (exact up to one rounding per add), so the error stays within ~2x
// of the direct convolution's; F(4x4) would cut the multiplies by 4 instead of 2.25
// but its transforms' coefficients (up to 8) cost ~10x the rounding error.
//
// Layout: activations are processed in 8-channel blocks (NC1HWC0 with C0 = 8, one
// AVX2 register per position); NCHW inputs are transposed into that layout per band
// of rows, NCHW outputs transposed back with the epilogue (residual, activation).
// Work: pieces of (image, band of tile rows) run single-threaded on the device's
// core workers (runtime::Device::run_kernel), as conv.cc's oneDNN pieces do.
// Every function that uses AVX2 carries the target attribute; eligible() checks
// the CPU at run time, so the build needs no -mavx2.
#include "nn/conv_winograd.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "asc/runtime/device.h"
#include "nn/nn_util.h"
#include "nn/packed_cache.h"
#include "nn/conv_avx2.h"
#include "nn/onednn.h"


namespace asc::nn::winograd {
namespace {

constexpr int64_t kC0 = 8;      // channels per AVX2 register
constexpr int64_t kPanel = 16;  // output channels per GEMM micro-kernel column panel
constexpr int kRows = 6;        // tiles per GEMM micro-kernel (6 x 16 = 12 accumulators)

bool cpu_ok() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

struct AlignedBuf {
  float* p = nullptr;
  size_t n = 0;
  AlignedBuf() = default;
  AlignedBuf(const AlignedBuf&) = delete;
  AlignedBuf& operator=(const AlignedBuf&) = delete;
  ~AlignedBuf() { std::free(p); }
  float* get(size_t floats) {
    if (floats > n) {
      std::free(p);
      n = 0;
      p = static_cast<float*>(std::aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64));
      if (!p) throw std::bad_alloc();
      n = floats;
    }
    return p;
  }
};

// ---- transformed weights: U[xi][panel][c][16], K padded to kPanel with zeros ----
struct Weights {
  AlignedBuf u;
  int64_t c = 0, kp = 0;
};

void transform_weights(const float* w, int64_t K, int64_t C, int64_t KP, float* u) {
  std::memset(u, 0, size_t(16 * KP * C) * sizeof(float));
  const int64_t panels = KP / kPanel;
  for (int64_t k = 0; k < K; ++k) {
    for (int64_t c = 0; c < C; ++c) {
      const float* g = w + (k * C + c) * 9;
      double gg[4][3], uu[4][4];
      for (int j = 0; j < 3; ++j) {  // G g
        gg[0][j] = g[j];
        gg[1][j] = (double(g[j]) + g[3 + j] + g[6 + j]) * 0.5;
        gg[2][j] = (double(g[j]) - g[3 + j] + g[6 + j]) * 0.5;
        gg[3][j] = g[6 + j];
      }
      for (int i = 0; i < 4; ++i) {  // (G g) G^T
        uu[i][0] = gg[i][0];
        uu[i][1] = (gg[i][0] + gg[i][1] + gg[i][2]) * 0.5;
        uu[i][2] = (gg[i][0] - gg[i][1] + gg[i][2]) * 0.5;
        uu[i][3] = gg[i][2];
      }
      for (int xi = 0; xi < 16; ++xi) {
        u[((xi * panels + k / kPanel) * C + c) * kPanel + k % kPanel] = static_cast<float>(uu[xi / 4][xi % 4]);
      }
    }
  }
}

// Transformed once per weight version (detail::PackedCache: the rules of reordered_const).
detail::PackedCache<Weights>& wcache() {
  static auto* c = new detail::PackedCache<Weights>();  // leaked: used until exit
  return *c;
}

std::shared_ptr<const Weights> weights_of(const Tensor& w, int64_t K, int64_t C) {
  const int64_t KP = (K + kPanel - 1) / kPanel * kPanel;
  return wcache().get(w, std::to_string(K) + ":" + std::to_string(C), [&] {
    auto p = std::make_shared<Weights>();
    p->c = C;
    p->kp = KP;
    transform_weights(reinterpret_cast<const float*>(w.storage()->read_data() + w.offset()), K, C, KP,
                      p->u.get(size_t(16 * KP * C)));
    return std::shared_ptr<const Weights>(p);
  });
}

// ---- the call's geometry and pieces ---------------------------------------------
struct Geo {
  int64_t n = 0, c = 0, k = 0, kp = 0, h = 0, w = 0, oh = 0, ow = 0, th = 0, tw = 0, pt = 0, pl = 0;
  bool src_blk = false, dst_blk = false;
  Activation act = Activation::kNone;
  float alpha = 0.f;
  int64_t tiles = 0;  // tiles per block (a multiple of kRows)
};

// A positive integer environment variable (tuning knobs), else `fallback`.
int64_t env_int(const char* name, int64_t fallback) {
  const char* s = std::getenv(name);
  if (!s || !*s) return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  return end != s && *end == '\0' && v > 0 && v < (1LL << 30) ? int64_t(v) : fallback;
}

struct Piece {
  int64_t n, ty0, ty1;  // image, tile rows [ty0, ty1)
  int64_t p0, p1;       // output-channel panels [p0, p1) (kPanel channels each): all, today
};

// Per-thread scratch: transformed inputs, GEMM outputs, an NCHW input band in
// 8-channel blocks, an output band in 8-channel blocks (NCHW outputs).
struct Scratch {
  AlignedBuf v, m, src, dst;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// ---- AVX2 kernels ---------------------------------------------------------------

inline float act1(float v, Activation a, float alpha) {
  switch (a) {
    case Activation::kRelu: return v > 0.f || std::isnan(v) ? v : 0.f;
    case Activation::kRelu6: return std::isnan(v) ? v : std::min(6.f, std::max(0.f, v));
    case Activation::kLeakyRelu: return v > 0.f ? v : v * alpha;
    default: return v;
  }
}

// 8x8 transpose of r[0..7] in place.
ASC_AVX2 inline void transpose8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i + 0] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

// Rows [r0, r1) of image `x` (NCHW, C channels, H x W) into 8-channel blocks:
// dst[((cb * (r1 - r0) + h - r0) * W + w) * 8 + l] = x[cb * 8 + l][h][w].
ASC_AVX2 void nchw_to_blocked(const float* x, int64_t C, int64_t H, int64_t W, int64_t r0, int64_t r1, float* dst) {
  const int64_t rows = r1 - r0, plane = H * W;
  for (int64_t cb = 0; cb < C / kC0; ++cb) {
    for (int64_t h = r0; h < r1; ++h) {
      const float* s = x + cb * kC0 * plane + h * W;
      float* d = dst + ((cb * rows + h - r0) * W) * kC0;
      int64_t w = 0;
      for (; w + 8 <= W; w += 8) {
        __m256 r[8];
        for (int l = 0; l < 8; ++l) r[l] = _mm256_loadu_ps(s + l * plane + w);
        transpose8(r);
        for (int j = 0; j < 8; ++j) _mm256_store_ps(d + (w + j) * kC0, r[j]);
      }
      for (; w < W; ++w) {
        for (int l = 0; l < 8; ++l) d[w * kC0 + l] = s[l * plane + w];
      }
    }
  }
}

// Input transform of tiles [t0, t0 + T) of a band: V[xi][t][c] for the 16 xi.
// `src(cb, h)` is row h of channel block cb (W x 8 floats) or nullptr outside
// the input (zero padding).
template <class Row>
ASC_AVX2 void input_transform(const Geo& g, const Row& src, int64_t t0, int64_t T, float* V) {
  const __m256 zero = _mm256_setzero_ps();
  const int64_t C = g.c, stride = T * C;
  for (int64_t cb = 0; cb < C / kC0; ++cb) {
    for (int64_t t = 0; t < T; ++t) {
      const int64_t ty = (t0 + t) / g.tw, tx = (t0 + t) % g.tw;
      const int64_t h0 = 2 * ty - g.pt, w0 = 2 * tx - g.pl;
      __m256 d[4][4];
      const bool inner_w = w0 >= 0 && w0 + 4 <= g.w;
      for (int i = 0; i < 4; ++i) {
        const float* row = src(cb, h0 + i);
        if (!row) {
          for (int j = 0; j < 4; ++j) d[i][j] = zero;
        } else if (inner_w) {
          for (int j = 0; j < 4; ++j) d[i][j] = _mm256_loadu_ps(row + (w0 + j) * kC0);
        } else {
          for (int j = 0; j < 4; ++j) {
            const int64_t w = w0 + j;
            d[i][j] = w >= 0 && w < g.w ? _mm256_loadu_ps(row + w * kC0) : zero;
          }
        }
      }
      __m256 b[4][4];  // B^T d
      for (int j = 0; j < 4; ++j) {
        b[0][j] = _mm256_sub_ps(d[0][j], d[2][j]);
        b[1][j] = _mm256_add_ps(d[1][j], d[2][j]);
        b[2][j] = _mm256_sub_ps(d[2][j], d[1][j]);
        b[3][j] = _mm256_sub_ps(d[1][j], d[3][j]);
      }
      float* v = V + t * C + cb * kC0;
      for (int i = 0; i < 4; ++i) {  // (B^T d) B
        _mm256_store_ps(v + (i * 4 + 0) * stride, _mm256_sub_ps(b[i][0], b[i][2]));
        _mm256_store_ps(v + (i * 4 + 1) * stride, _mm256_add_ps(b[i][1], b[i][2]));
        _mm256_store_ps(v + (i * 4 + 2) * stride, _mm256_sub_ps(b[i][2], b[i][1]));
        _mm256_store_ps(v + (i * 4 + 3) * stride, _mm256_sub_ps(b[i][1], b[i][3]));
      }
    }
  }
}

// R tiles x 16 output channels: m[r][0..16) = sum_c v[r][c] * u[c][0..16).
template <int R>
ASC_AVX2 void micro(const float* v, int64_t ldv, const float* u, int64_t C, float* m, int64_t ldm) {
  __m256 acc[R][2];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t c = 0; c < C; ++c) {
    const __m256 u0 = _mm256_load_ps(u + c * kPanel), u1 = _mm256_load_ps(u + c * kPanel + 8);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 b = _mm256_broadcast_ss(v + r * ldv + c);
      acc[r][0] = _mm256_fmadd_ps(b, u0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(b, u1, acc[r][1]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    _mm256_store_ps(m + r * ldm, acc[r][0]);
    _mm256_store_ps(m + r * ldm + 8, acc[r][1]);
  }
}

// M[xi] (T x KP) = V[xi] (T x C) U[xi] (C x KP) for the 16 xi.
ASC_AVX2 void gemms(const Geo& g, const float* U, const float* V, int64_t T, float* M, int64_t p0, int64_t p1) {
  const int64_t C = g.c, KP = g.kp, panels = KP / kPanel;
  for (int xi = 0; xi < 16; ++xi) {
    const float* v = V + xi * T * C;
    float* m = M + xi * T * KP;
    for (int64_t p = p0; p < p1; ++p) {
      const float* u = U + (xi * panels + p) * C * kPanel;
      int64_t t = 0;
      for (; t + kRows <= T; t += kRows) micro<kRows>(v + t * C, C, u, C, m + t * KP + p * kPanel, KP);
      switch (T - t) {
        case 5: micro<5>(v + t * C, C, u, C, m + t * KP + p * kPanel, KP); break;
        case 4: micro<4>(v + t * C, C, u, C, m + t * KP + p * kPanel, KP); break;
        case 3: micro<3>(v + t * C, C, u, C, m + t * KP + p * kPanel, KP); break;
        case 2: micro<2>(v + t * C, C, u, C, m + t * KP + p * kPanel, KP); break;
        case 1: micro<1>(v + t * C, C, u, C, m + t * KP + p * kPanel, KP); break;
        default: break;
      }
    }
  }
}

// Where the output transform puts a value: into the blocked output (with the
// epilogue: residual, activation), or into the band's blocked scratch (NCHW
// outputs, whose epilogue runs in the transposition).
struct Sink {
  float* out;        // blocked output of the image, or nullptr
  const float* res;  // blocked residual of the image, or nullptr
  float* band;       // else: the band scratch (K / 8, orows, OW, 8)
  int64_t oy0, orows;
  __m256 alpha;
};

ASC_AVX2 inline void sink_store(const Geo& g, const Sink& s, int64_t kb, int64_t oy, int64_t ox, __m256 v) {
  if (s.out) {
    const int64_t at = ((kb * g.oh + oy) * g.ow + ox) * kC0;
    if (s.res) v = _mm256_add_ps(v, _mm256_loadu_ps(s.res + at));
    _mm256_storeu_ps(s.out + at, detail::act8(v, g.act, s.alpha));
  } else {
    _mm256_store_ps(s.band + ((kb * s.orows + oy - s.oy0) * g.ow + ox) * kC0, v);
  }
}

// Output transform of tiles [t0, t0 + T): Y = A^T M A + bias for each of the (up
// to) 4 outputs of a tile inside the output.
ASC_AVX2 void output_transform(const Geo& g, const float* M, int64_t t0, int64_t T, const float* bias,
                               const Sink& sink, int64_t kb0, int64_t kb1) {
  const int64_t KP = g.kp, stride = T * KP;
  for (int64_t t = 0; t < T; ++t) {
    const int64_t ty = (t0 + t) / g.tw, tx = (t0 + t) % g.tw;
    const int64_t oy = 2 * ty, ox = 2 * tx;
    const bool x1 = ox + 1 < g.ow, y1 = oy + 1 < g.oh;
    for (int64_t kb = kb0; kb < kb1; ++kb) {
      const float* m = M + t * KP + kb * kC0;
      __m256 s0[4], s1[4];  // A^T M
      for (int j = 0; j < 4; ++j) {
        const __m256 m0 = _mm256_load_ps(m + (0 * 4 + j) * stride), m1 = _mm256_load_ps(m + (1 * 4 + j) * stride);
        const __m256 m2 = _mm256_load_ps(m + (2 * 4 + j) * stride), m3 = _mm256_load_ps(m + (3 * 4 + j) * stride);
        s0[j] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
        s1[j] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
      }
      const __m256 bv = bias ? _mm256_loadu_ps(bias + kb * kC0) : _mm256_setzero_ps();
      sink_store(g, sink, kb, oy, ox, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s0[0], s0[1]), s0[2]), bv));
      if (x1) sink_store(g, sink, kb, oy, ox + 1, _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(s0[1], s0[2]), s0[3]), bv));
      if (y1) {
        sink_store(g, sink, kb, oy + 1, ox, _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s1[0], s1[1]), s1[2]), bv));
        if (x1) {
          sink_store(g, sink, kb, oy + 1, ox + 1,
                     _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(s1[1], s1[2]), s1[3]), bv));
        }
      }
    }
  }
}

// One piece: tile rows [ty0, ty1) of image n.
ASC_AVX2 void run_piece(const Geo& g, const Piece& pc, const float* x, const float* U, const float* bias,
                        const float* res, float* out) {
  Scratch& sc = scratch();
  const int64_t C = g.c, K = g.k, KP = g.kp;
  const int64_t tmax = g.tiles;
  // the piece's 8-channel output blocks
  const int64_t kb0 = pc.p0 * (kPanel / kC0), kb1 = std::min(pc.p1 * (kPanel / kC0), K / kC0);
  const int64_t tb0 = pc.ty0 * g.tw, tb1 = pc.ty1 * g.tw;
  float* V = sc.v.get(size_t(16 * std::min(tmax, tb1 - tb0) * C));
  float* M = sc.m.get(size_t(16 * std::min(tmax, tb1 - tb0) * KP));
  // Input rows of the band (inclusive of its 2-row overlap), clipped.
  const int64_t r0 = std::max<int64_t>(0, 2 * pc.ty0 - g.pt), r1 = std::min<int64_t>(g.h, 2 * pc.ty1 - g.pt + 2);
  const float* xn = x + pc.n * C * g.h * g.w;
  const float* sbase;
  int64_t srows, sorg;
  if (g.src_blk) {
    sbase = xn;
    srows = g.h;
    sorg = 0;
  } else {
    float* s = sc.src.get(size_t(std::max<int64_t>(r1 - r0, 1) * g.w * C));
    if (r1 > r0) nchw_to_blocked(xn, C, g.h, g.w, r0, r1, s);
    sbase = s;
    srows = r1 - r0;
    sorg = r0;
  }
  auto row = [&](int64_t cb, int64_t h) -> const float* {
    if (h < r0 || h >= r1) return nullptr;
    return sbase + ((cb * srows + h - sorg) * g.w) * kC0;
  };
  const __m256 alpha = _mm256_set1_ps(g.alpha);
  const int64_t oy0 = 2 * pc.ty0, oy1 = std::min(g.oh, 2 * pc.ty1), orows = oy1 - oy0;
  const int64_t oplane = g.oh * g.ow;
  float* on = out + pc.n * K * oplane;
  const float* rn = res ? res + pc.n * K * oplane : nullptr;
  float* ob = g.dst_blk ? nullptr : sc.dst.get(size_t(orows * g.ow * K));
  const Sink sink{g.dst_blk ? on : nullptr, g.dst_blk ? rn : nullptr, ob, oy0, orows, alpha};
  for (int64_t t0 = tb0; t0 < tb1; t0 += tmax) {
    const int64_t T = std::min(tmax, tb1 - t0);
    input_transform(g, row, t0, T, V);
    gemms(g, U, V, T, M, pc.p0, pc.p1);
    output_transform(g, M, t0, T, bias, sink, kb0, kb1);
  }
  if (g.dst_blk) return;
  // The band's blocked outputs transposed into NCHW, with residual and activation.
  for (int64_t kb = kb0; kb < kb1; ++kb) {
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const float* s = ob + ((kb * orows + oy - oy0) * g.ow) * kC0;
      float* d = on + kb * kC0 * oplane + oy * g.ow;
      const float* rr = rn ? rn + kb * kC0 * oplane + oy * g.ow : nullptr;
      int64_t ox = 0;
      for (; ox + 8 <= g.ow; ox += 8) {
        __m256 r[8];
        for (int j = 0; j < 8; ++j) r[j] = _mm256_load_ps(s + (ox + j) * kC0);
        transpose8(r);
        for (int l = 0; l < 8; ++l) {
          __m256 v = r[l];
          if (rr) v = _mm256_add_ps(v, _mm256_loadu_ps(rr + l * oplane + ox));
          _mm256_storeu_ps(d + l * oplane + ox, detail::act8(v, g.act, alpha));
        }
      }
      for (; ox < g.ow; ++ox) {
        for (int l = 0; l < 8; ++l) {
          float v = s[ox * kC0 + l];
          if (rr) v += rr[l * oplane + ox];
          d[l * oplane + ox] = act1(v, g.act, g.alpha);
        }
      }
    }
  }
}

std::atomic<int64_t> g_calls{0};

}  // namespace

bool eligible(const Tensor& x, const Tensor& w, const ConvAttrs& a, int64_t c, int64_t k,
              const std::vector<int64_t>& out) {
  if (x.dtype() != DType::kFloat32 || a.spatial_ndim != 2 || a.transposed || a.channels_last || a.groups != 1 ||
      a.engine != ConvEngine::kOneDnn) {
    return false;
  }
  if ((a.src_block != 0 && a.src_block != kC0) || (a.dst_block != 0 && a.dst_block != kC0)) return false;
  if (w.ndim() != 4 || w.shape()[2] != 3 || w.shape()[3] != 3) return false;
  for (int i = 0; i < 2; ++i) {
    if (a.stride[size_t(i)] != 1 || a.dilation[size_t(i)] != 1) return false;
  }
  if (c % kC0 != 0 || k % kC0 != 0 || c < 16 || out.size() != 2 ||
      out[0] * out[1] < env_int("ASC_CONV_WINOGRAD_MIN_HW", 14 * 14)) {
    return false;
  }
  switch (a.act) {
    case Activation::kNone: case Activation::kRelu: case Activation::kRelu6: case Activation::kLeakyRelu: break;
    default: return false;
  }
  if (!cpu_ok()) return false;
  const char* e = std::getenv("ASC_CONV_WINOGRAD");
  return !(e && std::strcmp(e, "0") == 0);
}

void run(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a, const Tensor& out) {
  Geo g;
  const auto& xs = x.shape();
  g.n = xs[0];
  g.src_blk = a.src_block > 0;
  g.dst_blk = a.dst_block > 0;
  g.c = g.src_blk ? xs[1] * xs[4] : xs[1];
  g.h = xs[2];
  g.w = xs[3];
  g.k = w.shape()[0];
  g.kp = (g.k + kPanel - 1) / kPanel * kPanel;
  g.pt = a.pad_l[0];
  g.pl = a.pad_l[1];
  g.oh = g.h + a.pad_l[0] + a.pad_r[0] - 2;
  g.ow = g.w + a.pad_l[1] + a.pad_r[1] - 2;
  g.th = (g.oh + 1) / 2;
  g.tw = (g.ow + 1) / 2;
  g.act = a.act;
  g.alpha = static_cast<float>(a.alpha);
  // Tiles per block: T x (C + KP) <= 2048 floats, so the block's V (16 x T x C) and
  // M (16 x T x KP) stay in L2 with room for U's panels (12 tiles at 64 channels,
  // 6 at 128 and above). Measured (CPU time, 64@56 and 128@28, N=1 and 8): budgets of
  // 1536-3072 ran 1.1-1.3x faster than 6144-16384 (ASC_CONV_WINOGRAD_BLOCK: tuning).
  const int64_t budget = env_int("ASC_CONV_WINOGRAD_BLOCK", 2048);
  g.tiles = std::max<int64_t>(kRows, budget / (g.c + g.kp) / kRows * kRows);
  g_calls.fetch_add(1, std::memory_order_relaxed);
  const auto wt = weights_of(w, g.k, g.c);
  const float* U = wt->u.p;
  const detail::F32Io io = detail::f32_io(x, b, r, out);  // (an in-place residual reads through out)
  const float *X = io.x, *B = io.b, *R = io.r;
  float* O = io.out;
  // Pieces: bands of at most ~256 tiles (one block; the NCHW input band and the
  // output band stay in L2/L3), and at least 2 per core when the batch is small.
  const bool nested = runtime::current_block() != nullptr;
  const int64_t cores = nested ? 1 : device_cores();
  const int64_t panels = g.kp / kPanel;
  const int64_t per_image = std::max<int64_t>((2 * cores + g.n - 1) / g.n, (g.th * g.tw + 255) / 256);
  const int64_t bands = std::min<int64_t>(g.th, per_image);
  std::vector<Piece> pieces;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t i = 0; i < bands; ++i) pieces.push_back(Piece{n, g.th * i / bands, g.th * (i + 1) / bands, 0, panels});
  }
  if (nested || cores == 1 || pieces.size() == 1) {
    for (const Piece& p : pieces) run_piece(g, p, X, U, B, R, O);
    return;
  }
  detail::run_blocks(a.op, static_cast<int64_t>(pieces.size()),
                     [&](int64_t i) { run_piece(g, pieces[i], X, U, B, R, O); });
}

int64_t calls() { return g_calls.load(std::memory_order_relaxed); }

std::pair<int64_t, int64_t> weight_cache_stats() { return wcache().stats(); }

}  // namespace asc::nn::winograd
