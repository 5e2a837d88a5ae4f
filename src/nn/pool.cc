// Max / average / adaptive pooling (include/asc/nn/pool.h).
//
// One plane (n, c) at a time, spatial axes padded to 3 (leading size-1 axes), so
// one loop nest serves 1-D, 2-D and 3-D. Window bounds follow torch's CPU kernels
// exactly (output size with ceil_mode, clipping of average windows, divisor rules,
// first-valid-element index for all -inf windows) because users compare with them.
//
// Why not oneDNN's pooling primitive: it has no NaN-propagating max, no torch-style
// indices (its workspace is opaque), and ceil_mode / count_include_pad edge windows
// need padding bookkeeping of their own; pooling is memory-bound, so the direct
// loops here are within a small factor of it (not measured in this change).
#include "asc/nn/pool.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "nn/nn_util.h"
#include "nn/pool_max_blocked.h"
#include "runtime/parallel_for.h"

namespace asc::nn {
namespace {

using detail::Acc;
using detail::dispatch_float;

[[noreturn]] void bad_param(const std::string& op, const std::string& msg) {
  throw Error(Status::Invalid(op, msg));
}

std::string vec_str(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

/// The input as C-contiguous (B, *spatial3) with B = N * C; returns the out shape prefix.
struct Planes {
  Tensor x;              // contiguous
  Shape prefix;          // (N, C) or (C,)
  int64_t planes = 0;    // product of prefix
  int64_t in[3] = {1, 1, 1};
};

Planes planes_of(const Tensor& x, int nsp, const std::string& op) {
  if (nsp < 1 || nsp > 3) bad_param(op, "spatial_ndim must be 1, 2 or 3");
  if (x.ndim() != nsp + 1 && x.ndim() != nsp + 2) {
    throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                             "expected a " + std::to_string(nsp + 1) + "-D (unbatched) or " +
                                 std::to_string(nsp + 2) + "-D (batched) input, got shape " +
                                 Tensor::shape_str(x.shape())));
  }
  Planes p;
  const int64_t lead = x.ndim() - nsp;
  for (int64_t i = 0; i < x.ndim(); ++i) {
    if (x.shape()[size_t(i)] == 0 && !(lead == 2 && i == 0)) {
      throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                               "expected non-zero sizes for the non-batch axes, got shape " +
                                   Tensor::shape_str(x.shape())));
    }
  }
  p.planes = 1;
  for (int64_t i = 0; i < lead; ++i) {
    p.prefix.push_back(x.shape()[size_t(i)]);
    p.planes *= x.shape()[size_t(i)];
  }
  for (int i = 0; i < nsp; ++i) p.in[3 - nsp + i] = x.shape()[size_t(lead + i)];
  dispatch_float(x.dtype(), op, "input", [](auto) {});
  p.x = x.contiguous();
  return p;
}

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

template <class T>
void max_pool_kernel(const T* x, T* y, int64_t* idx, int64_t planes, const int64_t* in, const int64_t* out,
                     const int64_t* k, const int64_t* s, const int64_t* pd, const int64_t* dl) {
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  for (int64_t p = 0; p < planes; ++p) {
    const T* xp = x + p * in_plane;
    T* yp = y + p * out_plane;
    int64_t* ip = idx ? idx + p * out_plane : nullptr;
    int64_t o = 0;
    for (int64_t od = 0; od < out[0]; ++od) {
      int64_t d0 = od * s[0] - pd[0];
      while (d0 < 0) d0 += dl[0];
      const int64_t d1 = std::min(od * s[0] - pd[0] + (k[0] - 1) * dl[0] + 1, in[0]);
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        int64_t h0 = oh * s[1] - pd[1];
        while (h0 < 0) h0 += dl[1];
        const int64_t h1 = std::min(oh * s[1] - pd[1] + (k[1] - 1) * dl[1] + 1, in[1]);
        for (int64_t ow = 0; ow < out[2]; ++ow, ++o) {
          int64_t w0 = ow * s[2] - pd[2];
          while (w0 < 0) w0 += dl[2];
          const int64_t w1 = std::min(ow * s[2] - pd[2] + (k[2] - 1) * dl[2] + 1, in[2]);
          float best = -std::numeric_limits<float>::infinity();
          double bestd = -std::numeric_limits<double>::infinity();
          int64_t bi = (d0 * in[1] + h0) * in[2] + w0;
          for (int64_t d = d0; d < d1; d += dl[0]) {
            for (int64_t h = h0; h < h1; h += dl[1]) {
              const int64_t row = (d * in[1] + h) * in[2];
              for (int64_t w = w0; w < w1; w += dl[2]) {
                if constexpr (std::is_same_v<T, double>) {
                  const double v = xp[row + w];
                  if (v > bestd || std::isnan(v)) {
                    bestd = v;
                    bi = row + w;
                    if (std::isnan(v)) goto done;
                  }
                } else {
                  const float v = static_cast<float>(xp[row + w]);
                  if (v > best || std::isnan(v)) {
                    best = v;
                    bi = row + w;
                    if (std::isnan(v)) goto done;
                  }
                }
              }
            }
          }
        done:
          if constexpr (std::is_same_v<T, double>) {
            yp[o] = bestd;
          } else {
            yp[o] = static_cast<T>(best);
          }
          if (ip) ip[o] = bi;
        }
      }
    }
  }
}

template <class T>
void avg_pool_kernel(const T* x, T* y, int64_t planes, const int64_t* in, const int64_t* out, const int64_t* k,
                     const int64_t* s, const int64_t* pd, bool count_include_pad, int64_t divisor_override) {
  using A = typename Acc<T>::type;
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  for (int64_t p = 0; p < planes; ++p) {
    const T* xp = x + p * in_plane;
    T* yp = y + p * out_plane;
    int64_t o = 0;
    for (int64_t od = 0; od < out[0]; ++od) {
      int64_t d0 = od * s[0] - pd[0], d1 = std::min(d0 + k[0], in[0] + pd[0]);
      const int64_t sd = d1 - d0;
      d0 = std::max<int64_t>(d0, 0);
      d1 = std::min(d1, in[0]);
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        int64_t h0 = oh * s[1] - pd[1], h1 = std::min(h0 + k[1], in[1] + pd[1]);
        const int64_t sh = h1 - h0;
        h0 = std::max<int64_t>(h0, 0);
        h1 = std::min(h1, in[1]);
        for (int64_t ow = 0; ow < out[2]; ++ow, ++o) {
          int64_t w0 = ow * s[2] - pd[2], w1 = std::min(w0 + k[2], in[2] + pd[2]);
          const int64_t sw = w1 - w0;
          w0 = std::max<int64_t>(w0, 0);
          w1 = std::min(w1, in[2]);
          if (d0 >= d1 || h0 >= h1 || w0 >= w1) {
            yp[o] = static_cast<T>(A(0));
            continue;
          }
          A sum = 0;
          for (int64_t d = d0; d < d1; ++d) {
            for (int64_t h = h0; h < h1; ++h) {
              const T* r = xp + (d * in[1] + h) * in[2];
              for (int64_t w = w0; w < w1; ++w) sum += static_cast<A>(r[w]);
            }
          }
          const int64_t div = divisor_override
                                  ? divisor_override
                                  : (count_include_pad ? sd * sh * sw : (d1 - d0) * (h1 - h0) * (w1 - w0));
          yp[o] = static_cast<T>(sum / static_cast<A>(div));
        }
      }
    }
  }
}

template <class T>
void adaptive_kernel(const T* x, T* y, int64_t* idx, int64_t planes, const int64_t* in, const int64_t* out,
                     bool is_max) {
  using A = typename Acc<T>::type;
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  auto lo = [](int64_t o, int64_t n, int64_t m) { return (o * n) / m; };
  auto hi = [](int64_t o, int64_t n, int64_t m) { return ((o + 1) * n + m - 1) / m; };
  for (int64_t p = 0; p < planes; ++p) {
    const T* xp = x + p * in_plane;
    T* yp = y + p * out_plane;
    int64_t* ip = idx ? idx + p * out_plane : nullptr;
    int64_t o = 0;
    for (int64_t od = 0; od < out[0]; ++od) {
      const int64_t d0 = lo(od, in[0], out[0]), d1 = hi(od, in[0], out[0]);
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        const int64_t h0 = lo(oh, in[1], out[1]), h1 = hi(oh, in[1], out[1]);
        for (int64_t ow = 0; ow < out[2]; ++ow, ++o) {
          const int64_t w0 = lo(ow, in[2], out[2]), w1 = hi(ow, in[2], out[2]);
          if (is_max) {
            A best = -std::numeric_limits<A>::infinity();
            int64_t bi = (d0 * in[1] + h0) * in[2] + w0;
            bool nan = false;
            for (int64_t d = d0; d < d1 && !nan; ++d) {
              for (int64_t h = h0; h < h1 && !nan; ++h) {
                const int64_t row = (d * in[1] + h) * in[2];
                for (int64_t w = w0; w < w1; ++w) {
                  const A v = static_cast<A>(xp[row + w]);
                  if (v > best || std::isnan(v)) {
                    best = v;
                    bi = row + w;
                    if (std::isnan(v)) {
                      nan = true;
                      break;
                    }
                  }
                }
              }
            }
            yp[o] = static_cast<T>(best);
            if (ip) ip[o] = bi;
          } else {
            A sum = 0;
            for (int64_t d = d0; d < d1; ++d) {
              for (int64_t h = h0; h < h1; ++h) {
                const T* r = xp + (d * in[1] + h) * in[2];
                for (int64_t w = w0; w < w1; ++w) sum += static_cast<A>(r[w]);
              }
            }
            yp[o] = static_cast<T>(sum / static_cast<A>((d1 - d0) * (h1 - h0) * (w1 - w0)));
          }
        }
      }
    }
  }
}

Shape out_shape(const Planes& p, int nsp, const int64_t* out) {
  Shape s = p.prefix;
  for (int i = 0; i < nsp; ++i) s.push_back(out[3 - nsp + i]);
  return s;
}

}  // namespace

PoolResult pool(const Tensor& x_in, const PoolAttrs& a) {
  const std::string& op = a.op;
  const int nsp = a.spatial_ndim;
  const bool is_max = a.kind == PoolKind::kMax;
  auto check_len = [&](const std::vector<int64_t>& v, const char* what, bool allow_empty) {
    if (!(v.size() == size_t(nsp) || (allow_empty && v.empty()))) {
      bad_param(op, std::string(what) + " must have " + std::to_string(nsp) + " entries, got " + vec_str(v));
    }
  };
  check_len(a.kernel, "kernel_size", false);
  check_len(a.stride, "stride", true);
  check_len(a.padding, "padding", true);
  check_len(a.dilation, "dilation", true);
  Planes p = planes_of(x_in, nsp, op);
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, pd[3] = {0, 0, 0}, dl[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  for (int i = 0; i < nsp; ++i) {
    const int j = 3 - nsp + i;
    k[j] = a.kernel[size_t(i)];
    s[j] = a.stride.empty() ? k[j] : a.stride[size_t(i)];
    pd[j] = a.padding.empty() ? 0 : a.padding[size_t(i)];
    dl[j] = a.dilation.empty() ? 1 : a.dilation[size_t(i)];
  }
  for (int j = 3 - nsp; j < 3; ++j) {
    if (k[j] <= 0) bad_param(op, "kernel_size must be greater than zero, got " + vec_str(a.kernel));
    if (s[j] <= 0) bad_param(op, "stride must be greater than zero, got " + vec_str(a.stride));
    if (dl[j] <= 0) bad_param(op, "dilation must be greater than zero, got " + vec_str(a.dilation));
    if (!is_max && dl[j] != 1) bad_param(op, "average pooling has no dilation");
    const int64_t eff = (k[j] - 1) * dl[j] + 1;
    if (pd[j] < 0 || pd[j] > (is_max ? eff / 2 : k[j] / 2)) {
      bad_param(op, "pad should be non-negative and at most half of the effective kernel size, got padding " +
                        vec_str(a.padding) + " for kernel_size " + vec_str(a.kernel));
    }
    int64_t o = floor_div(p.in[j] + 2 * pd[j] - eff + (a.ceil_mode ? s[j] - 1 : 0), s[j]) + 1;
    if (a.ceil_mode && (o - 1) * s[j] >= p.in[j] + pd[j]) --o;
    if (o < 1) {
      std::vector<int64_t> ins(p.in + 3 - nsp, p.in + 3);
      bad_param(op, "output size is too small: input spatial size " + vec_str(ins) + ", kernel_size " +
                        vec_str(a.kernel) + ", padding " + vec_str(a.padding) + ", dilation " + vec_str(a.dilation));
    }
    out[j] = o;
  }
  if (!is_max && a.divisor_override < 0) bad_param(op, "divisor must be non-zero");
  PoolResult r;
  const Shape os = out_shape(p, nsp, out);
  r.out = Tensor::empty(os, p.x.dtype());
  if (is_max && a.return_indices) r.indices = Tensor::empty(os, DType::kInt64);
  if (r.out.numel() == 0) return r;
  dispatch_float(p.x.dtype(), op, "input", [&](auto tag) {
    using T = decltype(tag);
    if (is_max) {
      max_pool_kernel<T>(p.x.data_as<const T>(), r.out.data_as<T>(),
                         a.return_indices ? r.indices.data_as<int64_t>() : nullptr, p.planes, p.in, out, k, s, pd,
                         dl);
    } else {
      avg_pool_kernel<T>(p.x.data_as<const T>(), r.out.data_as<T>(), p.planes, p.in, out, k, s, pd,
                         a.count_include_pad, a.divisor_override);
    }
  });
  return r;
}

PoolResult adaptive_pool(const Tensor& x_in, PoolKind kind, const std::vector<int64_t>& output_size,
                         bool return_indices, const std::string& op) {
  const int nsp = static_cast<int>(output_size.size());
  if (nsp < 1 || nsp > 3) bad_param(op, "output_size must have 1 to 3 entries, got " + vec_str(output_size));
  Planes p = planes_of(x_in, nsp, op);
  int64_t out[3] = {1, 1, 1};
  for (int i = 0; i < nsp; ++i) {
    const int64_t o = output_size[size_t(i)];
    if (o < 0) bad_param(op, "output_size must be non-negative, got " + vec_str(output_size));
    out[3 - nsp + i] = o;
  }
  PoolResult r;
  const Shape os = out_shape(p, nsp, out);
  r.out = Tensor::empty(os, p.x.dtype());
  const bool is_max = kind == PoolKind::kMax;
  if (is_max && return_indices) r.indices = Tensor::empty(os, DType::kInt64);
  if (r.out.numel() == 0) return r;
  dispatch_float(p.x.dtype(), op, "input", [&](auto tag) {
    using T = decltype(tag);
    adaptive_kernel<T>(p.x.data_as<const T>(), r.out.data_as<T>(),
                       is_max && return_indices ? r.indices.data_as<int64_t>() : nullptr, p.planes, p.in, out,
                       is_max);
  });
  return r;
}

// ---- channel-blocked max pooling (the model executor's NC1HWC0 activations) ------
namespace {

// The window geometry of a pool over an NC1HWC0 input (N, C1, *spatial, C0), spatial
// axes padded to 3 (leading size-1 axes) as the plain pools do, checked once for both
// blocked pools. Max pooling passes its dilation and may pad up to one effective
// window (a window wholly in the padding would be -inf: refused as the plain path
// does); average pooling has no dilation and pads smaller than the kernel (ONNX's
// AveragePool rule).
struct BlockedPoolGeometry {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1};
  int64_t pl[3] = {0, 0, 0}, pr[3] = {0, 0, 0}, dl[3] = {1, 1, 1};
  int64_t c0 = 0;
  Shape out_shape;  // N, C1, *out spatial, C0
};

BlockedPoolGeometry blocked_pool_geometry(const Tensor& x, const std::vector<int64_t>& kernel,
                                          const std::vector<int64_t>& stride, const std::vector<int64_t>& pad_l,
                                          const std::vector<int64_t>& pad_r, const std::vector<int64_t>* dilation,
                                          const std::string& op) {
  const bool is_max = dilation != nullptr;
  const int nsp = static_cast<int>(kernel.size());
  if (nsp < 1 || nsp > 3) bad_param(op, "kernel must have 1 to 3 entries, got " + vec_str(kernel));
  if (stride.size() != kernel.size() || pad_l.size() != kernel.size() || pad_r.size() != kernel.size() ||
      (is_max && dilation->size() != kernel.size())) {
    bad_param(op, is_max ? "kernel, stride, pads and dilation need one entry per spatial axis"
                         : "kernel, stride and pads need one entry per spatial axis");
  }
  if (x.ndim() != nsp + 3) {
    throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                             "expected an NC1HWC0 input of rank " + std::to_string(nsp + 3) +
                                 " (N, C1, *spatial, C0), got shape " + Tensor::shape_str(x.shape())));
  }
  dispatch_float(x.dtype(), op, "input", [](auto) {});
  BlockedPoolGeometry g;
  g.out_shape = Shape{x.shape()[0], x.shape()[1]};
  for (int i = 0; i < nsp; ++i) {
    const int j = 3 - nsp + i;
    g.in[j] = x.shape()[size_t(2 + i)];
    g.k[j] = kernel[size_t(i)];
    g.s[j] = stride[size_t(i)];
    g.dl[j] = is_max ? (*dilation)[size_t(i)] : 1;
    g.pl[j] = pad_l[size_t(i)];
    g.pr[j] = pad_r[size_t(i)];
    if (g.k[j] <= 0 || g.s[j] <= 0 || g.dl[j] <= 0) {
      bad_param(op, is_max ? "kernel, stride and dilation must be positive, got kernel " + vec_str(kernel) +
                                 ", stride " + vec_str(stride) + ", dilation " + vec_str(*dilation)
                           : "kernel and stride must be positive, got kernel " + vec_str(kernel) + ", stride " +
                                 vec_str(stride));
    }
    if (g.pl[j] < 0 || g.pr[j] < 0 || (!is_max && (g.pl[j] >= g.k[j] || g.pr[j] >= g.k[j]))) {
      bad_param(op, is_max ? "pads must be non-negative, got " + vec_str(pad_l) + " / " + vec_str(pad_r)
                           : "pads must be non-negative and smaller than the kernel " + vec_str(kernel) +
                                 ", got " + vec_str(pad_l) + " / " + vec_str(pad_r));
    }
    const int64_t ek = (g.k[j] - 1) * g.dl[j] + 1;  // effective window
    const int64_t span = g.in[j] + g.pl[j] + g.pr[j] - ek;
    g.out[j] = span < 0 ? 0 : span / g.s[j] + 1;
    if (g.out[j] < 1 || (is_max && (g.pl[j] >= ek || g.pr[j] >= ek))) {
      throw Error(Status::Make(ErrorCode::kInvalidShape, op,
                               std::string(is_max ? "empty output or a window wholly in the padding" : "empty output") +
                                   ": input " + Tensor::shape_str(x.shape()) + ", kernel " + vec_str(kernel) +
                                   ", pads " + vec_str(pad_l) + " / " + vec_str(pad_r)));
    }
    g.out_shape.push_back(g.out[j]);
  }
  g.c0 = x.shape().back();
  if (g.c0 < 1 || g.c0 > 16) {
    bad_param(op, "the NC1HWC0 block C0 (the last axis) must be 1 to 16, got shape " + Tensor::shape_str(x.shape()));
  }
  g.out_shape.push_back(g.c0);
  return g;
}

// One output row (plane p, od, oh) of a blocked max pool: every position's C0
// lanes are reduced together (C0 is a template constant for the usual blocks so
// the accumulator stays in registers). float32 with C0 8/16 takes the Highway
// rows of pool_max_blocked.cc instead; this serves the other dtypes and blocks.
template <class T, int C0>
void max_pool_blocked_row(const T* xp, T* yp, int64_t c0, const int64_t* in, const int64_t* out, const int64_t* k,
                          const int64_t* s, const int64_t* pl, const int64_t* dl, int64_t od, int64_t oh) {
  constexpr int kMax = C0 > 0 ? C0 : 16;
  const int64_t lanes = C0 > 0 ? C0 : c0;
  auto range = [](int64_t o, int64_t st, int64_t p, int64_t kk, int64_t d, int64_t n, int64_t* lo, int64_t* hi) {
    int64_t a = o * st - p;
    const int64_t b = std::min(a + (kk - 1) * d + 1, n);
    while (a < 0) a += d;
    *lo = a;
    *hi = b;
  };
  int64_t d0, d1, h0, h1;
  range(od, s[0], pl[0], k[0], dl[0], in[0], &d0, &d1);
  range(oh, s[1], pl[1], k[1], dl[1], in[1], &h0, &h1);
  for (int64_t ow = 0; ow < out[2]; ++ow) {
    int64_t w0, w1;
    range(ow, s[2], pl[2], k[2], dl[2], in[2], &w0, &w1);
    float acc[kMax];
    for (int64_t c = 0; c < lanes; ++c) acc[c] = -std::numeric_limits<float>::infinity();
    for (int64_t d = d0; d < d1; d += dl[0]) {
      for (int64_t h = h0; h < h1; h += dl[1]) {
        const T* row = xp + ((d * in[1] + h) * in[2]) * lanes;
        for (int64_t w = w0; w < w1; w += dl[2]) {
          const T* v = row + w * lanes;
          for (int64_t c = 0; c < lanes; ++c) {
            const float e = static_cast<float>(v[c]);
            acc[c] = (e > acc[c] || e != e) ? e : acc[c];  // NaN propagates (pool()'s rule)
          }
        }
      }
    }
    T* y = yp + ((od * out[1] + oh) * out[2] + ow) * lanes;
    for (int64_t c = 0; c < lanes; ++c) y[c] = static_cast<T>(acc[c]);
  }
}


// Byte range [lo, hi) a tensor's elements can touch in its storage.
std::pair<int64_t, int64_t> byte_span(const Tensor& t) {
  int64_t lo = t.offset(), hi = t.offset();
  if (t.numel() == 0) return {lo, lo};
  for (size_t i = 0; i < t.shape().size(); ++i) {
    const int64_t ext = (t.shape()[i] - 1) * t.strides()[i];
    (ext < 0 ? lo : hi) += ext;
  }
  return {lo, hi + int64_t(t.itemsize())};
}

// The output tensor of a blocked pool: a new one, or the caller's `out` (out=, the model
// executor's arena slot) after checking it -- all before any element is written: the
// rows write dense C-order slices, and the input must not change under them.
Tensor blocked_pool_out(const Tensor& x, const Shape& os, const Tensor* out, const std::string& op) {
  if (!out) return Tensor::empty(os, x.dtype());
  if (out->dtype() != x.dtype()) {
    throw Error(Status::Make(ErrorCode::kInvalidDtype, op, std::string("out dtype ") + dtype_name(out->dtype()) +
                                                               " does not match the input's " + dtype_name(x.dtype())));
  }
  if (out->shape() != os) {
    throw Error(Status::Make(ErrorCode::kInvalidShape, op, "out must have the output's shape " +
                                                               Tensor::shape_str(os) + ", got " +
                                                               Tensor::shape_str(out->shape())));
  }
  if (!out->is_contiguous()) {
    bad_param(op, "out must be C-contiguous, got shape " + Tensor::shape_str(out->shape()) + " with byte strides " +
                      Tensor::shape_str(out->strides()));
  }
  out->check_writeable(op.c_str(), "output array is read-only");
  if (out->storage() == x.storage() && out->numel() > 0 && x.numel() > 0) {
    const auto a = byte_span(*out), b = byte_span(x);
    if (a.first < b.second && b.first < a.second) {
      bad_param(op, "out shares memory with the input (shape " + Tensor::shape_str(x.shape()) + ")");
    }
  }
  return *out;
}

}  // namespace

Tensor max_pool_blocked(const Tensor& x_in, const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                        const std::vector<int64_t>& pad_l, const std::vector<int64_t>& pad_r,
                        const std::vector<int64_t>& dilation, const std::string& op, const Tensor* out_buf) {
  const BlockedPoolGeometry g = blocked_pool_geometry(x_in, kernel, stride, pad_l, pad_r, &dilation, op);
  const int64_t *in = g.in, *out = g.out, *k = g.k, *s = g.s, *pl = g.pl, *dl = g.dl;
  const int64_t c0 = g.c0;
  const Shape& os = g.out_shape;
  Tensor y = blocked_pool_out(x_in, os, out_buf, op);
  if (y.numel() == 0 || x_in.numel() == 0) return y;
  const Tensor x = x_in.contiguous();
  const int64_t planes = os[0] * os[1];
  const int64_t in_plane = in[0] * in[1] * in[2] * c0, out_plane = out[0] * out[1] * out[2] * c0;
  const int64_t rows = planes * out[0] * out[1];
  dispatch_float(x.dtype(), op, "input", [&](auto tag) {
    using T = decltype(tag);
    const T* X = x.data_as<const T>();
    T* Y = y.data_as<T>();
    runtime::parallel_for(op.c_str(), rows, y.numel() * k[0] * k[1] * k[2], int64_t(1) << 16,
                          [&](int64_t lo, int64_t hi) {
                            for (int64_t r = lo; r < hi; ++r) {
                              const int64_t p = r / (out[0] * out[1]), od = (r / out[1]) % out[0], oh = r % out[1];
                              const T* xp = X + p * in_plane;
                              T* yp = Y + p * out_plane;
                              // float32 with 8 or 16 lanes: the Highway rows (pool_max_blocked.cc)
                              if constexpr (std::is_same_v<T, float>) {
                                if (detail::max_pool_blocked_row_f32(c0, xp, yp, in, out, k, s, pl, dl, od, oh)) {
                                  continue;
                                }
                              }
                              if (c0 == 8) {
                                max_pool_blocked_row<T, 8>(xp, yp, c0, in, out, k, s, pl, dl, od, oh);
                              } else if (c0 == 16) {
                                max_pool_blocked_row<T, 16>(xp, yp, c0, in, out, k, s, pl, dl, od, oh);
                              } else {
                                max_pool_blocked_row<T, 0>(xp, yp, c0, in, out, k, s, pl, dl, od, oh);
                              }
                            }
                          });
  });
  return y;
}

// ---- channel-blocked average pooling ------------------------------------------
namespace {

// One output row (plane p, od, oh) of a blocked average pool. The sum over a window
// has no NaN select, so the lane loop over a compile-time C0 vectorises as is.
// Windows follow avg_pool_kernel's bounds (clipped to the padded extent for the
// count_include_pad divisor, to the input for the sum).
template <class T, int C0>
void avg_pool_blocked_row(const T* xp, T* yp, int64_t c0, const int64_t* in, const int64_t* out, const int64_t* k,
                          const int64_t* s, const int64_t* pl, const int64_t* pr, bool include, int64_t od,
                          int64_t oh) {
  using A = typename Acc<T>::type;
  constexpr int kMax = C0 > 0 ? C0 : 16;
  const int64_t lanes = C0 > 0 ? C0 : c0;
  auto range = [](int64_t o, int64_t st, int64_t p, int64_t pe, int64_t kk, int64_t n, int64_t* lo, int64_t* hi) {
    const int64_t a = o * st - p, b = std::min(a + kk, n + pe);
    *lo = std::max<int64_t>(a, 0);
    *hi = std::min(b, n);
    return b - a;  // the window's extent inside the padded axis
  };
  int64_t d0, d1, h0, h1;
  const int64_t sd = range(od, s[0], pl[0], pr[0], k[0], in[0], &d0, &d1);
  const int64_t sh = range(oh, s[1], pl[1], pr[1], k[1], in[1], &h0, &h1);
  T* y = yp + (od * out[1] + oh) * out[2] * lanes;
  for (int64_t ow = 0; ow < out[2]; ++ow, y += lanes) {
    int64_t w0, w1;
    const int64_t sw = range(ow, s[2], pl[2], pr[2], k[2], in[2], &w0, &w1);
    A acc[kMax];
    for (int64_t c = 0; c < lanes; ++c) acc[c] = A(0);
    for (int64_t d = d0; d < d1; ++d) {
      for (int64_t h = h0; h < h1; ++h) {
        const T* v = xp + ((d * in[1] + h) * in[2] + w0) * lanes;
        for (int64_t w = w0; w < w1; ++w, v += lanes) {
          for (int64_t c = 0; c < lanes; ++c) acc[c] += static_cast<A>(v[c]);
        }
      }
    }
    const int64_t cnt = include ? sd * sh * sw : std::max<int64_t>(0, d1 - d0) * std::max<int64_t>(0, h1 - h0) *
                                                     std::max<int64_t>(0, w1 - w0);
    const A inv = cnt > 0 ? A(1) / static_cast<A>(cnt) : A(0);
    for (int64_t c = 0; c < lanes; ++c) y[c] = static_cast<T>(acc[c] * inv);
  }
}

}  // namespace

Tensor avg_pool_blocked(const Tensor& x_in, const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                        const std::vector<int64_t>& pad_l, const std::vector<int64_t>& pad_r, bool count_include_pad,
                        const std::string& op, const Tensor* out_buf) {
  const BlockedPoolGeometry g = blocked_pool_geometry(x_in, kernel, stride, pad_l, pad_r, nullptr, op);
  const int64_t *in = g.in, *out = g.out, *k = g.k, *s = g.s, *pl = g.pl, *pr = g.pr;
  const int64_t c0 = g.c0;
  const Shape& os = g.out_shape;
  Tensor y = blocked_pool_out(x_in, os, out_buf, op);
  if (y.numel() == 0) return y;
  const Tensor x = x_in.contiguous();
  const int64_t planes = os[0] * os[1];
  const int64_t in_plane = in[0] * in[1] * in[2] * c0, out_plane = out[0] * out[1] * out[2] * c0;
  const int64_t rows = planes * out[0] * out[1];
  // work: every output lane reads its window (the head's global pool: the whole input once)
  const int64_t work = y.numel() * k[0] * k[1] * k[2];
  dispatch_float(x.dtype(), op, "input", [&](auto tag) {
    using T = decltype(tag);
    const T* X = x.data_as<const T>();
    T* Y = y.data_as<T>();
    runtime::parallel_for(op.c_str(), rows, work, int64_t(1) << 15, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const int64_t p = r / (out[0] * out[1]), od = (r / out[1]) % out[0], oh = r % out[1];
        const T* xp = X + p * in_plane;
        T* yp = Y + p * out_plane;
        if (c0 == 8) {
          avg_pool_blocked_row<T, 8>(xp, yp, c0, in, out, k, s, pl, pr, count_include_pad, od, oh);
        } else if (c0 == 16) {
          avg_pool_blocked_row<T, 16>(xp, yp, c0, in, out, k, s, pl, pr, count_include_pad, od, oh);
        } else {
          avg_pool_blocked_row<T, 0>(xp, yp, c0, in, out, k, s, pl, pr, count_include_pad, od, oh);
        }
      }
    });
  });
  return y;
}

}  // namespace asc::nn
