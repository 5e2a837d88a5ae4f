// Direct NCHW convolution (see conv_direct.h).
//
// The output is computed as a GEMM per piece, out[oc][q] = sum_{c, kh, kw}
// W[oc][c][kh][kw] * X[c][q * s + kh, kw] without an im2col buffer: the input's
// stride phases P(pr, pc)[i][j] = Xpad[i * s + pr][j * s + pc] (Xpad: the input with
// its zero padding) are laid out with a row width Wh = OW + (KW - 1) / s, so that an
// output position q = oh * Wh + ow reads phase (kh % s, kw % s) at the linear index
// q + (kh / s) * Wh + kw / s for every (kh, kw): 16 consecutive positions are one
// unaligned 2-register load. The columns ow >= OW of that grid are computed and
// dropped (the masked stores below), 1 / Wh of the work at ResNet's shapes.
//
// Micro-kernel: 6 output channels x 16 positions (12 accumulators; per step 6
// broadcasts of packed weights and 2 loads for 12 FMAs). Loop order per piece:
// chunks of input channels (weights of a chunk <= ~96 KiB: they stay in L2 while
// every 16-position block of the piece streams them), then position blocks, then
// 6-channel blocks; partial sums of non-last chunks go to a per-piece buffer, the
// last chunk stores with the epilogue (bias at init, residual, activation) straight
// into the NCHW output rows.
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
#include "nn/conv_avx2.h"
#include "nn/onednn.h"


namespace asc::nn::direct {
namespace {

constexpr int kOcb = 6;   // output channels per micro-kernel (broadcast operand)
constexpr int kQb = 16;   // positions per micro-kernel (two AVX2 registers)
constexpr int kMaxK = 11;  // largest kernel side taken

bool cpu_ok() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

// ---- packed weights: Wp[ocb][c][kh * KW + kw][6], OC padded to 6 with zeros ----
struct Weights {
  std::vector<float> p;  // (aligned loads are not needed: the kernel broadcasts)
};

struct WEntry {
  std::weak_ptr<Storage> st;
  uint64_t version = 0, epoch = 0;
  std::shared_ptr<const Weights> w;
};
struct WCache {
  std::mutex mu;
  std::unordered_map<std::string, WEntry> map;
};
WCache& wcache() {
  static WCache* c = new WCache();  // leaked: used until exit
  return *c;
}

std::shared_ptr<const Weights> weights_of(const Tensor& w, int64_t OC, int64_t C, int64_t KK) {
  const int64_t ocbs = (OC + kOcb - 1) / kOcb;
  auto make = [&] {
    auto p = std::make_shared<Weights>();
    p->p.assign(size_t(ocbs * C * KK * kOcb), 0.f);
    const float* src = reinterpret_cast<const float*>(w.storage()->read_data() + w.offset());
    for (int64_t oc = 0; oc < OC; ++oc) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t kk = 0; kk < KK; ++kk) {
          p->p[size_t(((oc / kOcb * C + c) * KK + kk) * kOcb + oc % kOcb)] = src[(oc * C + c) * KK + kk];
        }
      }
    }
    return std::shared_ptr<const Weights>(p);
  };
  if (!reorder_cacheable(w)) return make();
  auto& wc = wcache();
  const std::string key = std::to_string(w.storage()->uid()) + ":" + std::to_string(w.offset()) + ":" +
                          std::to_string(OC) + ":" + std::to_string(C) + ":" + std::to_string(KK);
  w.storage()->read_data();  // syncs pending writes; version() read after it
  const uint64_t ver = w.storage()->version(), epoch = reorder_cache_epoch();
  {
    std::lock_guard<std::mutex> lock(wc.mu);
    auto it = wc.map.find(key);
    if (it != wc.map.end() && it->second.version == ver && it->second.epoch == epoch &&
        it->second.st.lock() == w.storage()) {
      return it->second.w;
    }
  }
  auto p = make();
  std::lock_guard<std::mutex> lock(wc.mu);
  for (auto it = wc.map.begin(); it != wc.map.end();) it = it->second.st.expired() ? wc.map.erase(it) : std::next(it);
  if (wc.map.size() >= 256) wc.map.clear();
  wc.map[key] = WEntry{w.storage(), ver, epoch, p};
  return p;
}

// ---- geometry --------------------------------------------------------------------
struct Geo {
  int64_t n = 0, c = 0, h = 0, w = 0, oc = 0, kh = 0, kw = 0, s = 1, pt = 0, pl = 0, oh = 0, ow = 0;
  int64_t wh = 0;      // phase row width: OW + (KW - 1) / s
  int64_t ext = 0;     // extra phase rows below a band: (KH - 1) / s
  int64_t cb = 0;      // input channels per chunk
  int nphase = 0;      // phases the kernel reads
  int slot[kMaxK * kMaxK] = {};  // phase (pr * s + pc) -> its slot in the buffer, -1 unused
  Activation act = Activation::kNone;
  float alpha = 0.f;
  // block order inside a chunk: 6-channel blocks outer (their packed weights stay
  // in L1, the phases stream from L2) or 16-position blocks outer (the reverse)
  bool ob_outer = false;
};

struct Piece {
  int64_t n, oh0, oh1;  // image, output rows [oh0, oh1)
};

// ---- AVX2 kernels ------------------------------------------------------------------

// Phase rows of image x (C x H x W) for output rows [oh0, oh1): buffer layout
// [c][slot][rows][Wh], rows = oh1 - oh0 + ext; zeros where the window is padding.
ASC_AVX2 void build_phases(const Geo& g, const float* x, int64_t oh0, int64_t oh1, float* buf) {
  const int64_t rows = oh1 - oh0 + g.ext, plane = rows * g.wh, s = g.s;
  for (int64_t c = 0; c < g.c; ++c) {
    const float* xc = x + c * g.h * g.w;
    for (int64_t pr = 0; pr < s; ++pr) {
      for (int64_t pc = 0; pc < s; ++pc) {
        const int sl = g.slot[pr * s + pc];
        if (sl < 0) continue;
        float* d = buf + (c * g.nphase + sl) * plane;
        // columns j whose input column w = j * s + pc - pl lies inside [0, W)
        const int64_t jlo = std::min(g.wh, std::max<int64_t>(0, (g.pl - pc + s - 1) / s));
        const int64_t last = g.w - 1 - pc + g.pl;  // negative: no column inside
        const int64_t jhi = last < 0 ? jlo : std::max(jlo, std::min(g.wh, last / s + 1));
        for (int64_t i = 0; i < rows; ++i) {
          float* dr = d + i * g.wh;
          const int64_t hh = (oh0 + i) * s + pr - g.pt;
          if (hh < 0 || hh >= g.h) {
            std::memset(dr, 0, size_t(g.wh) * sizeof(float));
            continue;
          }
          const float* sr = xc + hh * g.w + pc - g.pl;
          for (int64_t j = 0; j < jlo; ++j) dr[j] = 0.f;
          int64_t j = jlo;
          if (s == 2) {
            // even / odd columns of 16 input floats: one permute per register pair
            const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
            for (; j + 8 <= jhi && (j + 7) * 2 + 1 + pc - g.pl < g.w; j += 8) {
              const __m256 a = _mm256_permutevar8x32_ps(_mm256_loadu_ps(sr + 2 * j), idx);
              const __m256 b = _mm256_permutevar8x32_ps(_mm256_loadu_ps(sr + 2 * j + 8), idx);
              _mm256_storeu_ps(dr + j, _mm256_permute2f128_ps(a, b, 0x20));
            }
          } else if (s == 1) {
            std::memcpy(dr + j, sr + j, size_t(jhi - j) * sizeof(float));
            j = jhi;
          }
          for (; j < jhi; ++j) dr[j] = sr[j * s];
          for (j = jhi; j < g.wh; ++j) dr[j] = 0.f;
        }
      }
    }
  }
}

// tile[6][16] = init + sum over nc channels and KK taps of wp (packed) x the 16
// positions at xq; init is `part` (6 x 16 partial sums) or else the 6 values of
// `bias6`. The accumulators are locals of this one function (indexed by constants
// only), so they stay in registers.
ASC_AVX2 inline void micro(const float* xq, const int64_t* koff, int64_t KK, int64_t cs, int64_t nc,
                           const float* wp, const float* part, const float* bias6, float* tile) {
  __m256 acc[kOcb][2];
  if (part) {
#pragma GCC unroll 6
    for (int r = 0; r < kOcb; ++r) {
      acc[r][0] = _mm256_load_ps(part + r * kQb);
      acc[r][1] = _mm256_load_ps(part + r * kQb + 8);
    }
  } else {
#pragma GCC unroll 6
    for (int r = 0; r < kOcb; ++r) acc[r][0] = acc[r][1] = _mm256_set1_ps(bias6[r]);
  }
  for (int64_t c = 0; c < nc; ++c) {
    const float* xc = xq + c * cs;
    for (int64_t kk = 0; kk < KK; ++kk, wp += kOcb) {
      const float* p = xc + koff[kk];
      const __m256 x0 = _mm256_loadu_ps(p), x1 = _mm256_loadu_ps(p + 8);
#pragma GCC unroll 6
      for (int r = 0; r < kOcb; ++r) {
        const __m256 b = _mm256_broadcast_ss(wp + r);
        acc[r][0] = _mm256_fmadd_ps(b, x0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(b, x1, acc[r][1]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kOcb; ++r) {
    _mm256_store_ps(tile + r * kQb, acc[r][0]);
    _mm256_store_ps(tile + r * kQb + 8, acc[r][1]);
  }
}

// A run of lanes of one register that land in one output row: lanes whose mask is
// set go to plane_base + off + lane.
struct Run {
  alignas(32) int32_t mask[8];
  int64_t off;
  bool full;
};

// Runs of the register covering piece-local positions [q, q + 8).
int runs_of(const Geo& g, int64_t oh0, int64_t qn, int64_t q, Run* out) {
  int n = 0;
  int l = 0;
  while (l < 8 && q < qn) {
    const int64_t r = q / g.wh, col = q % g.wh;
    const int len = int(std::min<int64_t>(8 - l, g.wh - col));
    if (col < g.ow) {
      const int valid = int(std::min<int64_t>(len, g.ow - col));
      for (int i = 0; i < 8; ++i) out[n].mask[i] = i >= l && i < l + valid ? -1 : 0;
      out[n].off = (oh0 + r) * g.ow + col - l;
      out[n].full = l == 0 && valid == 8;
      ++n;
    }
    l += len;
    q += len;
  }
  return n;
}

// One piece: output rows [oh0, oh1) of image n, all output channels.
ASC_AVX2 void run_piece(const Geo& g, const Piece& pc, const float* x, const float* wp, const float* bias,
                        const float* res, float* out) {
  const int64_t rows = pc.oh1 - pc.oh0, plane_p = (rows + g.ext) * g.wh;
  const int64_t cs = g.nphase * plane_p;  // floats per channel in the phase buffer
  const int64_t qn = rows * g.wh, qblocks = (qn + kQb - 1) / kQb;
  const int64_t ocbs = (g.oc + kOcb - 1) / kOcb, KK = g.kh * g.kw;
  // slack: the last block's lanes and taps read past the last channel's phases
  const size_t phase_floats = size_t(g.c * cs + kQb + g.ext * g.wh + g.kw + 64);
  float* ph = static_cast<float*>(detail::thread_buffer<struct DirectPhaseTag>(phase_floats * sizeof(float)));
  build_phases(g, x + pc.n * g.c * g.h * g.w, pc.oh0, pc.oh1, ph);
  std::memset(ph + g.c * cs, 0, (phase_floats - size_t(g.c * cs)) * sizeof(float));
  const bool chunked = g.cb < g.c;
  float* part = chunked ? static_cast<float*>(detail::thread_buffer<struct DirectPartTag>(
                              size_t(ocbs * qblocks * kOcb * kQb) * sizeof(float)))
                        : nullptr;
  int64_t koff[kMaxK * kMaxK];
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    for (int64_t kw = 0; kw < g.kw; ++kw) {
      koff[kh * g.kw + kw] = g.slot[(kh % g.s) * g.s + kw % g.s] * plane_p + (kh / g.s) * g.wh + kw / g.s;
    }
  }
  const int64_t oplane = g.oh * g.ow;
  float* on = out + pc.n * g.oc * oplane;
  const float* rn = res ? res + pc.n * g.oc * oplane : nullptr;
  const __m256 alpha = _mm256_set1_ps(g.alpha);
  Run runs[2][8];
  int nruns[2] = {0, 0};
  alignas(32) float tile[kOcb * kQb];
  for (int64_t c0 = 0; c0 < g.c; c0 += g.cb) {
    const int64_t nc = std::min(g.cb, g.c - c0);
    const bool first = c0 == 0, last = c0 + nc == g.c;
    int64_t runs_qb = -1;
    for (int64_t it = 0; it < qblocks * ocbs; ++it) {
      const int64_t qb = g.ob_outer ? it % qblocks : it / ocbs, ob = g.ob_outer ? it / qblocks : it % ocbs;
      const int64_t q0 = qb * kQb;
      const float* xq = ph + c0 * cs + q0;
      if (last && qb != runs_qb) {
        nruns[0] = runs_of(g, pc.oh0, qn, q0, runs[0]);
        nruns[1] = runs_of(g, pc.oh0, qn, q0 + 8, runs[1]);
        runs_qb = qb;
      }
      {
        float* pp = chunked ? part + (ob * qblocks + qb) * kOcb * kQb : nullptr;
        float b6[kOcb] = {};
        if (first && bias) {
          for (int r = 0; r < kOcb; ++r) b6[r] = ob * kOcb + r < g.oc ? bias[ob * kOcb + r] : 0.f;
        }
        // non-last chunks accumulate in place in the partial sums
        micro(xq, koff, KK, cs, nc, wp + (ob * g.c + c0) * KK * kOcb, first ? nullptr : pp, b6, last ? tile : pp);
        if (!last) continue;
        const int rmax = int(std::min<int64_t>(kOcb, g.oc - ob * kOcb));
        for (int r = 0; r < rmax; ++r) {
          float* o = on + (ob * kOcb + r) * oplane;
          const float* rr = rn ? rn + (ob * kOcb + r) * oplane : nullptr;
          for (int v = 0; v < 2; ++v) {
            __m256 val0 = _mm256_load_ps(tile + r * kQb + v * 8);
            for (int i = 0; i < nruns[v]; ++i) {
              const Run& ru = runs[v][i];
              __m256 val = val0;
              if (ru.full) {
                if (rr) val = _mm256_add_ps(val, _mm256_loadu_ps(rr + ru.off));
                _mm256_storeu_ps(o + ru.off, detail::act8(val, g.act, alpha));
              } else {
                // masked lanes are not accessed (no fault), so the base may precede the row
                const __m256i m = _mm256_load_si256(reinterpret_cast<const __m256i*>(ru.mask));
                if (rr) val = _mm256_add_ps(val, _mm256_maskload_ps(rr + ru.off, m));
                _mm256_maskstore_ps(o + ru.off, m, detail::act8(val, g.act, alpha));
              }
            }
          }
        }
      }
    }
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
  g.wh = g.ow + (g.kw - 1) / g.s;
  g.ext = (g.kh - 1) / g.s;
  g.act = a.act;
  g.alpha = static_cast<float>(a.alpha);
  for (int i = 0; i < kMaxK * kMaxK; ++i) g.slot[i] = -1;
  for (int64_t kh = 0; kh < g.kh; ++kh) {
    for (int64_t kw = 0; kw < g.kw; ++kw) {
      int& sl = g.slot[(kh % g.s) * g.s + kw % g.s];
      if (sl < 0) sl = g.nphase++;
    }
  }
  const int64_t KK = g.kh * g.kw, ocbs = (g.oc + kOcb - 1) / kOcb;
  // Channels per chunk: what one 16-position block reads of a chunk's phases (the
  // rows its windows touch, about two cache lines each) within ~12 KiB, so that it
  // stays in L1 while the chunk's packed weights stream from L2 (~96 KiB at most);
  // at least 4 channels (each chunk reloads the accumulators).
  // ASC_CONV_DIRECT_L1 / ASC_CONV_DIRECT_L2 (bytes): tuning knobs for A/B runs.
  const int64_t per_c = g.nphase * (kQb / g.wh + 2 + g.ext) * std::min<int64_t>(g.wh * 4, 128);
  const int64_t cb1 = env_int("ASC_CONV_DIRECT_L1", 12 << 10) / per_c;
  const int64_t cb2 = env_int("ASC_CONV_DIRECT_L2", 96 << 10) / (ocbs * kOcb * KK * 4);
  g.cb = std::min(g.c, std::max<int64_t>(4, std::min(cb1, cb2)));
  g.ob_outer = env_int("ASC_CONV_DIRECT_ORDER", 0) == 1;
  g_calls.fetch_add(1, std::memory_order_relaxed);
  const auto wt = weights_of(w, g.oc, g.c, KK);
  const float* WP = wt->p.data();
  const detail::F32Io io = detail::f32_io(x, b, r, out);  // (an in-place residual reads through out)
  const float *X = io.x, *B = io.b, *R = io.r;
  float* O = io.out;
  // Pieces: bands of output rows of at most ~256 positions (the band's phases and
  // partial sums stay in L2), at least 2 per core when the batch is small.
  const bool nested = runtime::current_block() != nullptr;
  const int64_t cores = nested ? 1 : device_cores();
  const int64_t per_image = std::max<int64_t>((2 * cores + g.n - 1) / g.n, (g.oh * g.wh + 255) / 256);
  const int64_t bands = std::min<int64_t>(g.oh, per_image);
  std::vector<Piece> pieces;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t i = 0; i < bands; ++i) pieces.push_back(Piece{n, g.oh * i / bands, g.oh * (i + 1) / bands});
  }
  if (nested || cores == 1 || pieces.size() == 1) {
    for (const Piece& p : pieces) run_piece(g, p, X, WP, B, R, O);
    return;
  }
  detail::run_blocks(a.op, static_cast<int64_t>(pieces.size()),
                     [&](int64_t i) { run_piece(g, pieces[i], X, WP, B, R, O); });
}

int64_t calls() { return g_calls.load(std::memory_order_relaxed); }

}  // namespace asc::nn::direct
