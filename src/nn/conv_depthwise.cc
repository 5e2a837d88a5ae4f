// Depthwise 3x3 convolution on NCHW planes (see conv_depthwise.h).
//
// Per plane (image n, channel c) and output row: out[oh][ow] = sum over kh, kw of
// w[kh][kw] * P[s*oh + kh][s*ow + kw], P the zero-padded input plane. The padded
// rows a piece needs are built once per plane in per-thread scratch (stride 2:
// split into even and odd columns, so that 8 consecutive outputs read 8
// consecutive floats), which makes the inner loop branch-free: 9 FMAs per 8
// outputs, the epilogue (bias, residual, activation) on the accumulator in
// registers, one store. Two output rows share their input rows' loads at stride 1.
// Work: pieces of whole planes (in NCHW, planes are consecutive in memory) run
// single-threaded on the device's core workers (runtime::Device::run_kernel), as
// conv.cc's oneDNN pieces do. Functions using AVX2 carry the target attribute;
// eligible() checks the CPU at run time.
#include "nn/conv_depthwise.h"
#include "nn/nn_util.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <vector>

#include "asc/runtime/device.h"
#include "nn/conv_avx2.h"
#include "nn/onednn.h"


namespace asc::nn::depthwise {
namespace {

std::atomic<int64_t> g_calls{0};

bool cpu_ok() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

struct Geo {
  int64_t planes = 0, c = 0, h = 0, w = 0, oh = 0, ow = 0, s = 1, pt = 0, pl = 0;
  int64_t vecs = 0;  // 8-column vectors per output row
  int64_t lw = 0;    // floats per padded row (stride 2: per even or odd half)
  Activation act = Activation::kNone;
  float alpha = 0.f;
};

// Per-thread scratch for the padded rows of one plane.
float* scratch(size_t floats) { return static_cast<float*>(detail::thread_buffer<struct PaddedRowsTag>(floats * sizeof(float))); }


// Lane mask of the first `n` (0..8) lanes.
ASC_AVX2 inline __m256i lanes(int64_t n) {
  static const int32_t m[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(m + 8 - n));
}

// The padded rows [r0, r1) of one plane into `P` (stride 1: lw floats per row;
// stride 2: the even columns then the odd columns, lw floats each).
void pad_rows(const Geo& g, const float* X, int64_t r0, int64_t r1, float* P) {
  const int64_t row = g.s == 1 ? g.lw : 2 * g.lw;
  for (int64_t r = r0; r < r1; ++r) {
    float* d = P + (r - r0) * row;
    std::memset(d, 0, size_t(row) * sizeof(float));
    const int64_t ih = r - g.pt;
    if (ih < 0 || ih >= g.h) continue;
    const float* x = X + ih * g.w;
    if (g.s == 1) {
      std::memcpy(d + g.pl, x, size_t(g.w) * sizeof(float));
    } else {
      // padded column j = pl + iw: even j to d[j / 2], odd j to d[lw + j / 2]
      for (int64_t iw = 0; iw < g.w; ++iw) {
        const int64_t j = g.pl + iw;
        d[(j & 1) * g.lw + (j >> 1)] = x[iw];
      }
    }
  }
}

struct Epi {
  __m256 bias, alpha;
  Activation act;
};

ASC_AVX2 inline void store(const Epi& e, __m256 acc, const float* R, float* O, int64_t j, int64_t ow) {
  const int64_t n = std::min<int64_t>(8, ow - 8 * j);
  if (n == 8) {
    if (R) acc = _mm256_add_ps(acc, _mm256_loadu_ps(R + 8 * j));
    _mm256_storeu_ps(O + 8 * j, detail::act8(acc, e.act, e.alpha));
  } else {
    const __m256i m = lanes(n);
    if (R) acc = _mm256_add_ps(acc, _mm256_maskload_ps(R + 8 * j, m));
    _mm256_maskstore_ps(O + 8 * j, m, detail::act8(acc, e.act, e.alpha));
  }
}

// One plane, output rows [0, oh). W: the 9 weights; b: the bias (0 without).
ASC_AVX2 void plane(const Geo& g, const float* X, const float* W, float b, const float* R, float* O) {
  const int64_t rows = g.s * (g.oh - 1) + 3;
  const int64_t row = g.s == 1 ? g.lw : 2 * g.lw;
  float* P = scratch(size_t(rows * row));
  pad_rows(g, X, 0, rows, P);
  __m256 w[9];
  for (int i = 0; i < 9; ++i) w[i] = _mm256_set1_ps(W[i]);
  const Epi e{_mm256_set1_ps(b), _mm256_set1_ps(g.alpha), g.act};
  if (g.s == 1) {
    int64_t oh = 0;
    // two output rows at a time: their four input rows are loaded once per vector
    for (; oh + 2 <= g.oh; oh += 2) {
      const float* p0 = P + oh * row;
      for (int64_t j = 0; j < g.vecs; ++j) {
        __m256 a0 = e.bias, a1 = e.bias;
        for (int k = 0; k < 4; ++k) {
          const float* p = p0 + k * row + 8 * j;
          const __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 1), v2 = _mm256_loadu_ps(p + 2);
          if (k < 3) {
            a0 = _mm256_fmadd_ps(w[3 * k], v0, a0);
            a0 = _mm256_fmadd_ps(w[3 * k + 1], v1, a0);
            a0 = _mm256_fmadd_ps(w[3 * k + 2], v2, a0);
          }
          if (k > 0) {
            a1 = _mm256_fmadd_ps(w[3 * (k - 1)], v0, a1);
            a1 = _mm256_fmadd_ps(w[3 * (k - 1) + 1], v1, a1);
            a1 = _mm256_fmadd_ps(w[3 * (k - 1) + 2], v2, a1);
          }
        }
        store(e, a0, R ? R + oh * g.ow : nullptr, O + oh * g.ow, j, g.ow);
        store(e, a1, R ? R + (oh + 1) * g.ow : nullptr, O + (oh + 1) * g.ow, j, g.ow);
      }
    }
    for (; oh < g.oh; ++oh) {
      const float* p0 = P + oh * row;
      for (int64_t j = 0; j < g.vecs; ++j) {
        __m256 a = e.bias;
        for (int k = 0; k < 3; ++k) {
          const float* p = p0 + k * row + 8 * j;
          a = _mm256_fmadd_ps(w[3 * k], _mm256_loadu_ps(p), a);
          a = _mm256_fmadd_ps(w[3 * k + 1], _mm256_loadu_ps(p + 1), a);
          a = _mm256_fmadd_ps(w[3 * k + 2], _mm256_loadu_ps(p + 2), a);
        }
        store(e, a, R ? R + oh * g.ow : nullptr, O + oh * g.ow, j, g.ow);
      }
    }
    return;
  }
  // stride 2: output column ow reads padded columns 2ow (even[ow]), 2ow + 1
  // (odd[ow]) and 2ow + 2 (even[ow + 1])
  for (int64_t oh = 0; oh < g.oh; ++oh) {
    const float* p0 = P + 2 * oh * row;
    for (int64_t j = 0; j < g.vecs; ++j) {
      __m256 a = e.bias;
      for (int k = 0; k < 3; ++k) {
        const float* ev = p0 + k * row + 8 * j;
        a = _mm256_fmadd_ps(w[3 * k], _mm256_loadu_ps(ev), a);
        a = _mm256_fmadd_ps(w[3 * k + 1], _mm256_loadu_ps(ev + g.lw), a);
        a = _mm256_fmadd_ps(w[3 * k + 2], _mm256_loadu_ps(ev + 1), a);
      }
      store(e, a, R ? R + oh * g.ow : nullptr, O + oh * g.ow, j, g.ow);
    }
  }
}

}  // namespace

bool eligible(const Tensor& x, const Tensor& w, const ConvAttrs& a, int64_t c, int64_t oc) {
  if (x.dtype() != DType::kFloat32 || a.spatial_ndim != 2 || a.transposed || a.channels_last || a.src_block != 0 ||
      a.dst_block != 0 || a.engine != ConvEngine::kOneDnn || a.groups != c || oc != c) {
    return false;
  }
  if (w.ndim() != 4 || w.shape()[1] != 1 || w.shape()[2] != 3 || w.shape()[3] != 3) return false;
  if (a.stride[0] != a.stride[1] || (a.stride[0] != 1 && a.stride[0] != 2)) return false;
  for (int i = 0; i < 2; ++i) {
    if (a.dilation[size_t(i)] != 1 || a.pad_l[size_t(i)] > 2 || a.pad_r[size_t(i)] > 2) return false;
  }
  switch (a.act) {
    case Activation::kNone: case Activation::kRelu: case Activation::kRelu6: case Activation::kLeakyRelu: break;
    default: return false;
  }
  if (!cpu_ok()) return false;
  const char* e = std::getenv("ASC_CONV_DEPTHWISE");
  return !(e && std::strcmp(e, "0") == 0);
}

void run(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a, const Tensor& out) {
  Geo g;
  const auto& xs = x.shape();
  g.c = xs[1];
  g.planes = xs[0] * xs[1];
  g.h = xs[2];
  g.w = xs[3];
  g.s = a.stride[0];
  g.pt = a.pad_l[0];
  g.pl = a.pad_l[1];
  g.oh = (g.h + a.pad_l[0] + a.pad_r[0] - 3) / g.s + 1;
  g.ow = (g.w + a.pad_l[1] + a.pad_r[1] - 3) / g.s + 1;
  g.vecs = (g.ow + 7) / 8;
  // Stride 1: the last vector reads up to column 8 * vecs + 1. Stride 2: even
  // columns up to vecs * 8 (j + 1 of the last vector), odd ones up to vecs * 8 - 1;
  // both must also hold the whole padded row.
  const int64_t wp = g.w + a.pad_l[1] + a.pad_r[1];
  g.lw = g.s == 1 ? std::max(8 * g.vecs + 2, wp) : std::max(8 * g.vecs + 1, (wp + 1) / 2);
  g.act = a.act;
  g.alpha = static_cast<float>(a.alpha);
  g_calls.fetch_add(1, std::memory_order_relaxed);
  const float* Wt = reinterpret_cast<const float*>(w.storage()->read_data() + w.offset());
  const detail::F32Io io = detail::f32_io(x, b, r, out);  // (an in-place residual reads through out)
  const float *X = io.x, *B = io.b, *R = io.r;
  float* O = io.out;
  const int64_t in_plane = g.h * g.w, out_plane = g.oh * g.ow;
  auto run_planes = [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t ch = p % g.c;
      plane(g, X + p * in_plane, Wt + ch * 9, B ? B[ch] : 0.f, R ? R + p * out_plane : nullptr, O + p * out_plane);
    }
  };
  // Pieces: runs of whole planes, 4 per core (a descheduled worker's share is
  // taken by the others), fewer when there are fewer planes.
  const bool nested = runtime::current_block() != nullptr;
  const int64_t cores = nested ? 1 : device_cores();
  const int64_t pieces = std::min<int64_t>(g.planes, cores > 1 ? 4 * cores : 1);
  if (pieces <= 1) {
    run_planes(0, g.planes);
    return;
  }
  detail::run_blocks(a.op, pieces, [&](int64_t i) { run_planes(g.planes * i / pieces, g.planes * (i + 1) / pieces); });
}

int64_t calls() { return g_calls.load(std::memory_order_relaxed); }

}  // namespace asc::nn::depthwise
