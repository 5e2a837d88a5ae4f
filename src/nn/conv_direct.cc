// Direct NCHW convolution (see conv_direct.h).
//
// Output-channel-vectorised: out^T[q][oc] = sum_{c, kh, kw} Xpad[c][q * s + (kh, kw)] *
// W[oc][c][kh][kw], a GEMM per piece whose vector operand is a row of packed weights
// (8, 16 or 24 consecutive output channels of one tap) and whose broadcast operand is
// one input scalar per output position, read straight from the padded input band: a
// strided window needs no stride phases, no im2col and no dropped columns (the
// first version vectorised over 16 positions of deinterleaved phases and measured
// 1.2-1.5x slower than oneDNN). Micro-kernels (12 accumulators each): 24 channels x 4
// positions (3 weight loads + 4 broadcasts per 12 FMAs), 16 x 6 and 8 x 12 for the
// last block of channels. Positions run over the piece's rows in one sequence (a
// base pointer per position), so a row's tail shares a block with the next row.
// Loop order per piece (image, band of output rows): blocks of output channels,
// then chunks of input channels (a chunk's packed weights <= ~16 KiB: they stay in
// L1 while all position blocks of the band stream past them), then position blocks;
// the tile T[q][24] of the band accumulates over the chunks, and after the last one
// 8x8 transposes write its output-channel rows into the NCHW output (contiguous: a
// band is whole rows) with bias, residual and activation fused.
// Every function that uses AVX2 carries the target attribute; eligible() checks
// the CPU at run time, so the build needs no -mavx2 (conv_winograd.cc's scheme).
#include "nn/conv_direct.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "asc/runtime/device.h"
#include "nn/nn_util.h"
#include "nn/packed_cache.h"
#include "nn/conv_avx2.h"
#include "nn/onednn.h"


namespace asc::nn::direct {
namespace {

constexpr int kLd = 24;    // tile row stride: the widest block of output channels
constexpr int kMaxK = 11;  // largest kernel side taken

bool cpu_ok() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

// A block of output channels [oc0, oc0 + 8 v), v = 3 except the last block (1..3
// vectors, lanes past OC zero): its packed weights start at `woff` floats.
struct OcBlock {
  int64_t oc0, v, woff;
};

// The 8 x 12 kernel runs at about half the speed of the others (13 loads per 12 FMAs,
// its 12 base pointers spill; 39 vs 73-75 GFLOP/s in L1 here), so a remainder of 1..8
// channels after at least one 24-block becomes two 16-blocks (128 = 4 x 24 + 2 x 16).
std::vector<OcBlock> oc_blocks(int64_t OC, int64_t C, int64_t KK) {
  std::vector<OcBlock> b;
  int64_t off = 0;
  const int64_t rem = OC % 24;
  const int64_t n24 = OC / 24 - (OC > 24 && rem > 0 && rem <= 8 ? 1 : 0);
  for (int64_t oc0 = 0; oc0 < OC;) {
    const int64_t left = OC - oc0;
    const int64_t v = oc0 < n24 * 24 || (left > 16 && left <= 24) ? 3 : std::min<int64_t>(2, (left + 7) / 8);
    b.push_back(OcBlock{oc0, v, off});
    off += C * KK * v * 8;
    oc0 += v * 8;
  }
  return b;
}

// ---- packed weights: per block [c][kh * KW + kw][8 v], 64-byte aligned ----
struct Weights {
  std::vector<OcBlock> blocks;
  std::unique_ptr<float, decltype(&std::free)> p{nullptr, &std::free};
};

// Packed once per weight version (detail::PackedCache: the rules of reordered_const).
detail::PackedCache<Weights>& wcache() {
  static auto* c = new detail::PackedCache<Weights>();  // leaked: used until exit
  return *c;
}

std::shared_ptr<const Weights> weights_of(const Tensor& w, int64_t OC, int64_t C, int64_t KK) {
  auto make = [&] {
    auto p = std::make_shared<Weights>();
    p->blocks = oc_blocks(OC, C, KK);
    const OcBlock& last = p->blocks.back();
    const size_t n = size_t(last.woff + C * KK * last.v * 8);
    p->p.reset(static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)));
    if (!p->p) throw std::bad_alloc();
    float* d = p->p.get();
    std::memset(d, 0, n * sizeof(float));
    const float* src = reinterpret_cast<const float*>(w.storage()->read_data() + w.offset());
    for (const OcBlock& b : p->blocks) {
      const int64_t wd = b.v * 8;
      for (int64_t j = 0; j < wd && b.oc0 + j < OC; ++j) {
        for (int64_t c = 0; c < C; ++c) {
          for (int64_t kk = 0; kk < KK; ++kk) d[b.woff + (c * KK + kk) * wd + j] = src[((b.oc0 + j) * C + c) * KK + kk];
        }
      }
    }
    return std::shared_ptr<const Weights>(p);
  };
  return wcache().get(w, std::to_string(OC) + ":" + std::to_string(C) + ":" + std::to_string(KK), make);
}

// ---- geometry --------------------------------------------------------------------
struct Geo {
  int64_t n = 0, c = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0, s = 1, pt = 0, pl = 0, oh = 0, ow = 0;
  int64_t wp = 0;  // padded band row width: (OW - 1) * s + KW
  int64_t cb = 0;  // input channels per chunk
  Activation act = Activation::kNone;
  float alpha = 0.f;
};

struct Piece {
  int64_t n, oh0, oh1;  // image, output rows [oh0, oh1)
};

// ---- AVX2 kernels ------------------------------------------------------------------

// The padded input rows of image x (C x H x W) that output rows [oh0, oh0 + rows)
// read: buffer [c][rin][wp], rin = (rows - 1) * s + KH, zeros where the window is padding.
void build_band(const Geo& g, const float* x, int64_t oh0, int64_t rows, float* buf) {
  const int64_t rin = (rows - 1) * g.s + g.kh;
  // columns j of the band whose input column j - pl lies inside [0, W)
  const int64_t jlo = std::min(g.wp, g.pl), jhi = std::max(jlo, std::min(g.wp, g.w + g.pl));
  for (int64_t c = 0; c < g.c; ++c) {
    const float* xc = x + c * g.h * g.w;
    for (int64_t i = 0; i < rin; ++i) {
      float* d = buf + (c * rin + i) * g.wp;
      const int64_t hh = oh0 * g.s - g.pt + i;
      if (hh < 0 || hh >= g.h) {
        std::memset(d, 0, size_t(g.wp) * sizeof(float));
        continue;
      }
      std::memset(d, 0, size_t(jlo) * sizeof(float));
      std::memcpy(d + jlo, xc + hh * g.w + jlo - g.pl, size_t(jhi - jlo) * sizeof(float));
      std::memset(d + jhi, 0, size_t(g.wp - jhi) * sizeof(float));
    }
  }
}

// t[p][0, 8 V) (+)= sum over nc channels (cs floats apart) and KK taps (koff) of the
// packed weight rows wp x the input scalar at base[p]. The accumulators are locals
// indexed by constants only, so they stay in registers (12 of the 16).
template <int V, int NP>
ASC_AVX2 inline void micro(const float* const* base, const int64_t* koff, int64_t KK, int64_t cs, int64_t nc,
                           const float* wp, float* t, bool init) {
  __m256 acc[NP][V];
#pragma GCC unroll 12
  for (int p = 0; p < NP; ++p) {
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) acc[p][v] = init ? _mm256_setzero_ps() : _mm256_load_ps(t + p * kLd + v * 8);
  }
  const float* b[NP];
#pragma GCC unroll 12
  for (int p = 0; p < NP; ++p) b[p] = base[p];
  for (int64_t c = 0; c < nc; ++c) {
    for (int64_t kk = 0; kk < KK; ++kk, wp += V * 8) {
      const int64_t o = koff[kk];
      __m256 w[V];
#pragma GCC unroll 3
      for (int v = 0; v < V; ++v) w[v] = _mm256_load_ps(wp + v * 8);
#pragma GCC unroll 12
      for (int p = 0; p < NP; ++p) {
        const __m256 xv = _mm256_broadcast_ss(b[p] + o);
#pragma GCC unroll 3
        for (int v = 0; v < V; ++v) acc[p][v] = _mm256_fmadd_ps(w[v], xv, acc[p][v]);
      }
    }
#pragma GCC unroll 12
    for (int p = 0; p < NP; ++p) b[p] += cs;
  }
#pragma GCC unroll 12
  for (int p = 0; p < NP; ++p) {
#pragma GCC unroll 3
    for (int v = 0; v < V; ++v) _mm256_store_ps(t + p * kLd + v * 8, acc[p][v]);
  }
}

// All chunks and position blocks of one block of output channels over a band of
// `rows` output rows (xb: its padded input): T[q][0, 8 V) for q < Q rounded up to NP
// (positions past Q repeat the last one).
template <int V, int NP>
ASC_AVX2 void run_block(const Geo& g, const OcBlock& bk, const float* xb, int64_t rows, const float* wp,
                        const int64_t* koff, float* T) {
  const int64_t KK = g.kh * g.kw, cs = ((rows - 1) * g.s + g.kh) * g.wp, Q = rows * g.ow;
  for (int64_t c0 = 0; c0 < g.c; c0 += g.cb) {
    const int64_t nc = std::min(g.cb, g.c - c0);
    const float* wc = wp + bk.woff + c0 * KK * V * 8;
    int64_t r = 0, col = 0;  // (row, column) of position q0
    for (int64_t q0 = 0; q0 < Q; q0 += NP) {
      const float* base[NP];
      int64_t rr = r, cc = col;
      for (int p = 0; p < NP; ++p) {
        base[p] = xb + c0 * cs + rr * g.s * g.wp + cc * g.s;
        if (q0 + p + 1 < Q && ++cc == g.ow) { cc = 0; ++rr; }
      }
      micro<V, NP>(base, koff, KK, cs, nc, wc, T + q0 * kLd, c0 == 0);
      col += NP;
      while (col >= g.ow) { col -= g.ow; ++r; }
    }
  }
}

ASC_AVX2 inline void transpose8(__m256* r) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(s0, s4, 0x20);
  r[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  r[2] = _mm256_permute2f128_ps(s2, s6, 0x20);
  r[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  r[4] = _mm256_permute2f128_ps(s0, s4, 0x31);
  r[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  r[6] = _mm256_permute2f128_ps(s2, s6, 0x31);
  r[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// T[q][0, 8 v) of block bk -> the NCHW output rows [oh0, oh0 + Q / OW) of its channels,
// + bias, + residual (same layout as out; may be out itself: each element is read
// before it is written), activation. Lanes past Q are masked, channels past OC skipped.
ASC_AVX2 void store_block(const Geo& g, const OcBlock& bk, const float* T, int64_t Q, int64_t oh0, const float* bias,
                          const float* res, float* out) {
  const int64_t plane = g.oh * g.ow, off0 = oh0 * g.ow;
  const __m256 alpha = _mm256_set1_ps(g.alpha);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t gi = 0; gi < bk.v; ++gi) {
    const int64_t oc = bk.oc0 + gi * 8, nj = std::min<int64_t>(8, g.oc - oc);
    for (int64_t q0 = 0; q0 < Q; q0 += 8) {
      __m256 r[8];
      for (int i = 0; i < 8; ++i) r[i] = _mm256_load_ps(T + (q0 + i) * kLd + gi * 8);
      transpose8(r);
      const int64_t nq = std::min<int64_t>(8, Q - q0);
      const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(nq)), lane);
      for (int64_t j = 0; j < nj; ++j) {
        __m256 v = r[j];
        if (bias) v = _mm256_add_ps(v, _mm256_set1_ps(bias[oc + j]));
        const int64_t at = (oc + j) * plane + off0 + q0;
        if (nq == 8) {
          if (res) v = _mm256_add_ps(v, _mm256_loadu_ps(res + at));
          _mm256_storeu_ps(out + at, detail::act8(v, g.act, alpha));
        } else {
          if (res) v = _mm256_add_ps(v, _mm256_maskload_ps(res + at, m));
          _mm256_maskstore_ps(out + at, m, detail::act8(v, g.act, alpha));
        }
      }
    }
  }
}

// One piece: output rows [oh0, oh1) of image n, all output channels.
ASC_AVX2 void run_piece(const Geo& g, const Piece& pc, const float* x, const Weights& wt, const float* bias,
                        const float* res, float* out) {
  const int64_t rows = pc.oh1 - pc.oh0, rin = (rows - 1) * g.s + g.kh, Q = rows * g.ow;
  float* xb = static_cast<float*>(
      detail::thread_buffer<struct DirectBandTag>(size_t(g.c * rin * g.wp) * sizeof(float)));
  build_band(g, x + pc.n * g.c * g.h * g.w, pc.oh0, rows, xb);
  // rows past Q: the micro-kernels' last block (NP <= 12) and the 8-row transposes
  const int64_t qpad = (Q + 23) / 24 * 24 + 8;
  float* T = static_cast<float*>(detail::thread_buffer<struct DirectTileTag>(size_t(qpad * kLd) * sizeof(float)));
  int64_t koff[kMaxK * kMaxK];
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    for (int64_t kw = 0; kw < g.kw; ++kw) koff[kh * g.kw + kw] = kh * g.wp + kw;
  }
  const int64_t img = pc.n * g.oc * g.oh * g.ow;
  for (const OcBlock& bk : wt.blocks) {
    switch (bk.v) {
      case 3: run_block<3, 4>(g, bk, xb, rows, wt.p.get(), koff, T); break;
      case 2: run_block<2, 6>(g, bk, xb, rows, wt.p.get(), koff, T); break;
      default: run_block<1, 12>(g, bk, xb, rows, wt.p.get(), koff, T); break;
    }
    store_block(g, bk, T, Q, pc.oh0, bias, res ? res + img : nullptr, out + img);
  }
}

std::atomic<int64_t> g_calls{0};

// A positive integer environment variable (tuning knobs), else `fallback`.
int64_t env_int(const char* name, int64_t fallback) {
  const char* s = std::getenv(name);
  if (!s || !*s) return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  return end != s && *end == '\0' && v > 0 && v < (1LL << 30) ? int64_t(v) : fallback;
}

}  // namespace

bool eligible(const Tensor& x, const Tensor& w, const ConvAttrs& a) {
  if (x.dtype() != DType::kFloat32 || a.spatial_ndim != 2 || a.transposed || a.channels_last || a.groups != 1 ||
      a.engine != ConvEngine::kOneDnn || a.src_block != 0 || a.dst_block != 0) {
    return false;
  }
  if (w.ndim() != 4 || w.shape()[2] > kMaxK || w.shape()[3] > kMaxK) return false;
  if (a.stride[0] != 2 || a.stride[1] != 2 || a.dilation[0] != 1 || a.dilation[1] != 1) return false;
  switch (a.act) {
    case Activation::kNone: case Activation::kRelu: case Activation::kRelu6: case Activation::kLeakyRelu: break;
    default: return false;
  }
  if (!cpu_ok()) return false;
  // Opt-in (ASC_CONV_DIRECT=1) until it measures faster than oneDNN: at load ~20
  // it took 1.2-1.4x the CPU time of oneDNN's kernel with its reorders (stem and
  // 3x3/2, N=1 and 8; see docs/nn.md).
  const char* e = std::getenv("ASC_CONV_DIRECT");
  return e && std::strcmp(e, "1") == 0;
}

void run(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a, const Tensor& out) {
  Geo g;
  const auto& xs = x.shape();
  g.n = xs[0];
  g.c = xs[1];
  g.h = xs[2];
  g.w = xs[3];
  g.oc = w.shape()[0];
  g.kh = w.shape()[2];
  g.kw = w.shape()[3];
  g.s = a.stride[0];
  g.pt = a.pad_l[0];
  g.pl = a.pad_l[1];
  g.oh = (g.h + a.pad_l[0] + a.pad_r[0] - g.kh) / g.s + 1;
  g.ow = (g.w + a.pad_l[1] + a.pad_r[1] - g.kw) / g.s + 1;
  g.wp = (g.ow - 1) * g.s + g.kw;
  g.act = a.act;
  g.alpha = static_cast<float>(a.alpha);
  const int64_t KK = g.kh * g.kw;
  // Channels per chunk: a chunk's packed weights for the widest block (24 channels)
  // within ~16 KiB of L1 (ASC_CONV_DIRECT_L1, bytes: a tuning knob for A/B runs).
  g.cb = std::min(g.c, std::max<int64_t>(1, env_int("ASC_CONV_DIRECT_L1", 16 << 10) / (KK * kLd * 4)));
  g_calls.fetch_add(1, std::memory_order_relaxed);
  const auto wt = weights_of(w, g.oc, g.c, KK);
  const detail::F32Io io = detail::f32_io(x, b, r, out);  // (an in-place residual reads through out)
  const float *X = io.x, *B = io.b, *R = io.r;
  float* O = io.out;
  // Pieces: bands of output rows of at most ~256 positions (the band's tile, 24 floats
  // per position, stays in L2 and its input band mostly too), at least 2 per core when
  // the batch is small.
  const bool nested = runtime::current_block() != nullptr;
  const int64_t cores = nested ? 1 : device_cores();
  const int64_t per_image = std::max<int64_t>((2 * cores + g.n - 1) / g.n, (g.oh * g.ow + 255) / 256);
  const int64_t bands = std::min<int64_t>(g.oh, per_image);
  std::vector<Piece> pieces;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t i = 0; i < bands; ++i) pieces.push_back(Piece{n, g.oh * i / bands, g.oh * (i + 1) / bands});
  }
  if (nested || cores == 1 || pieces.size() == 1) {
    for (const Piece& p : pieces) run_piece(g, p, X, *wt, B, R, O);
    return;
  }
  detail::run_blocks(a.op, static_cast<int64_t>(pieces.size()),
                     [&](int64_t i) { run_piece(g, pieces[i], X, *wt, B, R, O); });
}

int64_t calls() { return g_calls.load(std::memory_order_relaxed); }

}  // namespace asc::nn::direct
