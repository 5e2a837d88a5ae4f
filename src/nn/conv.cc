// Convolution / transposed convolution (include/asc/nn/conv.h).
//
// oneDNN path: one cached Plan per (op, shapes, dtypes, layout, attrs) holding the
// primitive (src/weights/dst in format_tag::any, i.e. oneDNN's blocked layouts such
// as nChw16c / OIhw16i16o on AVX-512, chosen because its JIT kernels vectorise over
// 16 channels) and the reorders between the user's plain layout and those. The
// float64 path and transposed convolutions whose output_padding exceeds the right
// padding (oneDNN needs padding_r >= 0) run the direct reference loop below.
// float32 3x3 / stride 1 convolutions on AVX2 take the Winograd path of
// src/nn/conv_winograd.cc instead (see conv()).
#include "asc/nn/conv.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <thread>

#include "asc/kernel/cube.h"
#include "nn/conv_depthwise.h"
#include "nn/conv_direct.h"
#include "nn/conv_winograd.h"
#include "nn/nn_util.h"
#include "nn/onednn.h"
#include "asc/runtime/device.h"

namespace asc::nn {
namespace {

using dnnl::memory;
using detail::dispatch_float;

// libgomp's thread team does not survive fork(): a forked child that enters a
// parallel region with the parent's team size can hang. The child runs its NN
// calls single-threaded instead (set_threads() keeps the per-thread value), and
// plans made before the fork (their reorders/kernels have the parent's thread count
// baked in) are not reused: the fork generation is part of every cache key.
std::atomic<int> g_fork_generation{0};
const int kForkHandler = [] {
  pthread_atfork(nullptr, nullptr, [] {
    omp_set_num_threads(1);
    g_fork_generation.fetch_add(1, std::memory_order_relaxed);
  });
  return 0;
}();

[[noreturn]] void fail(ErrorCode c, const std::string& op, const std::string& msg) {
  throw Error(Status::Make(c, op, msg));
}

std::string vstr(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

struct Geometry {
  int nsp = 2;
  int64_t n = 0, c = 0, oc = 0, g = 1, icg = 0, ocg = 0;
  std::vector<int64_t> in, k, out;
};

Geometry geometry(const Tensor& x, const Tensor& w, const ConvAttrs& a) {
  const std::string& op = a.op;
  Geometry G;
  G.nsp = a.spatial_ndim;
  const int nsp = G.nsp;
  if (nsp < 1 || nsp > 3) fail(ErrorCode::kInvalidParam, op, "spatial_ndim must be 1, 2 or 3");
  const bool xb = a.src_block > 0;
  if (x.ndim() != nsp + 2 + (xb ? 1 : 0)) {
    fail(ErrorCode::kInvalidShape, op, "expected a " + std::to_string(nsp + 2 + (xb ? 1 : 0)) + "-D input" +
                                           (xb ? " (N, C1, *spatial, C0)" : "") + ", got shape " +
                                           Tensor::shape_str(x.shape()));
  }
  if (xb && x.shape().back() != a.src_block) {
    fail(ErrorCode::kInvalidShape, op, "an NC1HWC0 input's last axis must be C0 = " + std::to_string(a.src_block) +
                                           ", got shape " + Tensor::shape_str(x.shape()));
  }
  if (w.ndim() != nsp + 2) {
    fail(ErrorCode::kInvalidShape, op, "expected a " + std::to_string(nsp + 2) + "-D weight, got shape " +
                                           Tensor::shape_str(w.shape()));
  }
  auto chk = [&](const std::vector<int64_t>& v, const char* name, int64_t lo) {
    if (v.size() != size_t(nsp)) fail(ErrorCode::kInvalidParam, op, std::string(name) + " needs one entry per spatial axis");
    for (int64_t e : v) {
      if (e < lo) {
        fail(ErrorCode::kInvalidParam, op, std::string(name) + " must be " + (lo ? "positive" : "non-negative") +
                                               ", got " + vstr(v));
      }
    }
  };
  chk(a.stride, "stride", 1);
  chk(a.dilation, "dilation", 1);
  chk(a.pad_l, "padding", 0);
  chk(a.pad_r, "padding", 0);
  if (a.transposed) chk(a.output_padding, "output_padding", 0);
  if (a.groups < 1) fail(ErrorCode::kInvalidParam, op, "groups must be positive, got " + std::to_string(a.groups));
  G.g = a.groups;
  const auto& xs = x.shape();
  G.n = xs[0];
  G.c = xb ? xs[1] * a.src_block : a.channels_last ? xs[size_t(nsp + 1)] : xs[1];
  for (int i = 0; i < nsp; ++i) G.in.push_back(xs[size_t(a.channels_last ? 1 + i : 2 + i)]);
  for (int i = 0; i < nsp; ++i) G.k.push_back(w.shape()[size_t(2 + i)]);
  const std::string shapes = "input " + Tensor::shape_str(xs) + ", weight " + Tensor::shape_str(w.shape()) +
                             ", groups=" + std::to_string(G.g);
  if (G.c % G.g != 0) fail(ErrorCode::kInvalidShape, op, "input channels not divisible by groups: " + shapes);
  if (!a.transposed) {
    G.oc = w.shape()[0];
    G.icg = w.shape()[1];
    if (G.icg * G.g != G.c) fail(ErrorCode::kInvalidShape, op, "expected weight.shape[1] * groups == input channels: " + shapes);
    if (G.oc % G.g != 0 || G.oc == 0) fail(ErrorCode::kInvalidShape, op, "out channels must be a positive multiple of groups: " + shapes);
    G.ocg = G.oc / G.g;
  } else {
    if (w.shape()[0] != G.c) fail(ErrorCode::kInvalidShape, op, "expected weight.shape[0] == input channels: " + shapes);
    G.icg = G.c / G.g;
    G.ocg = w.shape()[1];
    G.oc = G.ocg * G.g;
    if (G.oc == 0) fail(ErrorCode::kInvalidShape, op, "weight has no output channels: " + shapes);
  }
  if (G.c == 0) fail(ErrorCode::kInvalidShape, op, "input has no channels: " + shapes);
  for (int i = 0; i < nsp; ++i) {
    if (G.in[size_t(i)] == 0) fail(ErrorCode::kInvalidShape, op, "input has an empty spatial axis: " + shapes);
    if (G.k[size_t(i)] == 0) fail(ErrorCode::kInvalidShape, op, "weight has an empty kernel axis: " + shapes);
    const int64_t s = a.stride[size_t(i)], d = a.dilation[size_t(i)];
    const int64_t ek = d * (G.k[size_t(i)] - 1) + 1;
    int64_t o;
    if (!a.transposed) {
      const int64_t span = G.in[size_t(i)] + a.pad_l[size_t(i)] + a.pad_r[size_t(i)] - ek;
      o = span < 0 ? 0 : span / s + 1;
    } else {
      const int64_t op_ = a.output_padding[size_t(i)];
      if (op_ >= s && op_ >= d) {
        fail(ErrorCode::kInvalidParam, op, "output_padding must be smaller than either stride or dilation, got output_padding=" +
                                               vstr(a.output_padding) + ", stride=" + vstr(a.stride) +
                                               ", dilation=" + vstr(a.dilation));
      }
      o = (G.in[size_t(i)] - 1) * s - a.pad_l[size_t(i)] - a.pad_r[size_t(i)] + ek + op_;
    }
    if (o < 1) {
      fail(ErrorCode::kInvalidShape, op, "the output would be empty (kernel larger than the padded input): " + shapes +
                                             ", padding=" + vstr(a.pad_l) + "/" + vstr(a.pad_r) +
                                             ", dilation=" + vstr(a.dilation));
    }
    G.out.push_back(o);
  }
  return G;
}

Shape out_shape(const Geometry& G, const ConvAttrs& a) {
  const bool cl = a.channels_last;
  Shape s;
  s.push_back(G.n);
  if (a.dst_block > 0) {
    s.push_back(G.oc / a.dst_block);
    for (int64_t o : G.out) s.push_back(o);
    s.push_back(a.dst_block);
    return s;
  }
  if (!cl) s.push_back(G.oc);
  for (int64_t o : G.out) s.push_back(o);
  if (cl) s.push_back(G.oc);
  return s;
}

// ---- activations (reference and AscendC epilogues) --------------------------
double act_ref(double v, Activation a, double alpha) {
  switch (a) {
    case Activation::kNone: return v;
    case Activation::kRelu: return v > 0 ? v : (std::isnan(v) ? v : 0.0);
    case Activation::kLeakyRelu: return v > 0 ? v : v * alpha;
    case Activation::kGelu: return 0.5 * v * std::erfc(-v / std::sqrt(2.0));
    case Activation::kGeluTanh: return 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    case Activation::kSilu: return v / (1 + std::exp(-v));
    case Activation::kSigmoid: return 1 / (1 + std::exp(-v));
    case Activation::kTanh: return std::tanh(v);
    case Activation::kElu: return v > 0 ? v : alpha * std::expm1(v);
    case Activation::kRelu6: return std::isnan(v) ? v : std::min(6.0, std::max(0.0, v));
  }
  return v;
}

/// Element offset (in elements) of (n, c, sp[0..2]) in a contiguous tensor.
struct Indexer {
  int64_t C, sp[3];
  bool cl;
  int64_t operator()(int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) const {
    const int64_t s = (d * sp[1] + h) * sp[2] + w;
    const int64_t plane = sp[0] * sp[1] * sp[2];
    return cl ? (n * plane + s) * C + c : (n * C + c) * plane + s;
  }
};

void pad3(const std::vector<int64_t>& v, int64_t fill, int64_t out[3]) {
  const size_t lead = 3 - v.size();
  for (size_t i = 0; i < 3; ++i) out[i] = i < lead ? fill : v[i - lead];
}

// ---- direct reference (float64, and configurations oneDNN cannot take) ------
Tensor conv_reference(const Tensor& x, const Tensor& w, const Tensor* bias, const Tensor* res, const ConvAttrs& a,
                      const Geometry& G, const Tensor& out) {
  int64_t in[3], k[3], o[3], s[3], d[3], pl[3];
  pad3(G.in, 1, in); pad3(G.k, 1, k); pad3(G.out, 1, o); pad3(a.stride, 1, s); pad3(a.dilation, 1, d);
  pad3(a.pad_l, 0, pl);
  const Indexer xi{G.c, {in[0], in[1], in[2]}, a.channels_last};
  const Indexer oi{G.oc, {o[0], o[1], o[2]}, a.channels_last};
  const int64_t K = k[0] * k[1] * k[2];
  const int64_t onum = out.numel();
  std::vector<double> acc(size_t(onum), 0.0);
  std::vector<double> bv = bias ? detail::read_vec(*bias, G.oc, a.op, "bias") : std::vector<double>();
  dispatch_float(x.dtype(), a.op, "input", [&](auto tag) {
    using T = decltype(tag);
    const T* X = reinterpret_cast<const T*>(x.data());
    const T* W = reinterpret_cast<const T*>(w.data());
    for (int64_t n = 0; n < G.n; ++n)
      for (int64_t g = 0; g < G.g; ++g)
        for (int64_t ocg = 0; ocg < G.ocg; ++ocg)
          for (int64_t icg = 0; icg < G.icg; ++icg) {
            const int64_t oc = g * G.ocg + ocg, ic = g * G.icg + icg;
            const T* wk = a.transposed ? W + (ic * G.ocg + ocg) * K : W + (oc * G.icg + icg) * K;
            for (int64_t kd = 0; kd < k[0]; ++kd)
              for (int64_t kh = 0; kh < k[1]; ++kh)
                for (int64_t kw = 0; kw < k[2]; ++kw) {
                  const double wv = static_cast<double>(wk[(kd * k[1] + kh) * k[2] + kw]);
                  if (!a.transposed) {
                    for (int64_t od = 0; od < o[0]; ++od) {
                      const int64_t id = od * s[0] - pl[0] + kd * d[0];
                      if (id < 0 || id >= in[0]) continue;
                      for (int64_t oh = 0; oh < o[1]; ++oh) {
                        const int64_t ih = oh * s[1] - pl[1] + kh * d[1];
                        if (ih < 0 || ih >= in[1]) continue;
                        for (int64_t ow = 0; ow < o[2]; ++ow) {
                          const int64_t iw = ow * s[2] - pl[2] + kw * d[2];
                          if (iw < 0 || iw >= in[2]) continue;
                          acc[size_t(oi(n, oc, od, oh, ow))] += wv * static_cast<double>(X[xi(n, ic, id, ih, iw)]);
                        }
                      }
                    }
                  } else {
                    for (int64_t id = 0; id < in[0]; ++id) {
                      const int64_t od = id * s[0] - pl[0] + kd * d[0];
                      if (od < 0 || od >= o[0]) continue;
                      for (int64_t ih = 0; ih < in[1]; ++ih) {
                        const int64_t oh = ih * s[1] - pl[1] + kh * d[1];
                        if (oh < 0 || oh >= o[1]) continue;
                        for (int64_t iw = 0; iw < in[2]; ++iw) {
                          const int64_t ow = iw * s[2] - pl[2] + kw * d[2];
                          if (ow < 0 || ow >= o[2]) continue;
                          acc[size_t(oi(n, oc, od, oh, ow))] += wv * static_cast<double>(X[xi(n, ic, id, ih, iw)]);
                        }
                      }
                    }
                  }
                }
          }
    const T* R = res ? reinterpret_cast<const T*>(res->data()) : nullptr;
    T* O = reinterpret_cast<T*>(out.data());
    for (int64_t i = 0; i < onum; ++i) {
      const int64_t oc = a.channels_last ? i % G.oc : (i / (o[0] * o[1] * o[2])) % G.oc;
      double v = acc[size_t(i)] + (bias ? bv[size_t(oc)] : 0.0) + (R ? static_cast<double>(R[i]) : 0.0);
      O[i] = static_cast<T>(act_ref(v, a.act, a.alpha));
    }
  });
  return out;
}

// ---- oneDNN path ---------------------------------------------------------------
memory::desc wei_desc(const Geometry& G, bool transposed, memory::data_type dt, bool user) {
  int64_t K = 1;
  for (int64_t v : G.k) K *= v;
  memory::dims kst(G.k.size());
  int64_t acc = 1;
  for (int i = int(G.k.size()) - 1; i >= 0; --i) { kst[size_t(i)] = acc; acc *= G.k[size_t(i)]; }
  memory::dims dims, st;
  if (G.g > 1) dims = {G.g, G.ocg, G.icg}; else dims = {G.oc, G.c};
  for (int64_t v : G.k) dims.push_back(v);
  if (!user) return memory::desc(dims, dt, memory::format_tag::any);
  if (!transposed) {
    if (G.g > 1) st = {G.ocg * G.icg * K, G.icg * K, K}; else st = {G.c * K, K};
  } else {
    if (G.g > 1) st = {G.icg * G.ocg * K, K, G.ocg * K}; else st = {K, G.oc * K};
  }
  for (int64_t v : kst) st.push_back(v);
  return memory::desc(dims, dt, st);
}

dnnl::algorithm eltwise_of(Activation a, float* alpha, float* beta) {
  *beta = 0.f;
  switch (a) {
    case Activation::kRelu: *alpha = 0.f; return dnnl::algorithm::eltwise_relu;
    case Activation::kLeakyRelu: return dnnl::algorithm::eltwise_relu;
    case Activation::kGelu: return dnnl::algorithm::eltwise_gelu_erf;
    case Activation::kGeluTanh: return dnnl::algorithm::eltwise_gelu_tanh;
    case Activation::kSilu: *alpha = 1.f; return dnnl::algorithm::eltwise_swish;
    case Activation::kSigmoid: return dnnl::algorithm::eltwise_logistic;
    case Activation::kTanh: return dnnl::algorithm::eltwise_tanh;
    case Activation::kElu: return dnnl::algorithm::eltwise_elu;
    case Activation::kRelu6: *alpha = 0.f; *beta = 6.f; return dnnl::algorithm::eltwise_clip;
    default: return dnnl::algorithm::undef;
  }
}

// One piece of a call's work: images [n0, n0 + nb) and output rows [o0, o1) along
// the first spatial axis, which read input rows [i0, i0 + ih) with pt / pb rows of
// implicit zero padding before / after them (the call's own padding where the
// piece touches the border, 0 inside).
struct Chunk {
  int64_t n0 = 0, nb = 0, o0 = 0, o1 = 0, i0 = 0, ih = 0, pt = 0, pb = 0;
  int64_t oc0 = 0, noc = -1;  // output channels [oc0, oc0 + noc) (-1: all)
};

// Plain (user-layout) descriptor of a chunk's piece of an activation: dims
// (nb, c, rows, *rest), strides of the whole tensor (N, c, full...).
memory::desc piece_desc(int64_t nb, int64_t cn, int64_t c, int64_t rows, const std::vector<int64_t>& full, bool cl,
                        memory::data_type dt) {
  const size_t nsp = full.size();
  memory::dims dims{nb, cn}, st(nsp + 2);
  dims.push_back(rows);
  for (size_t i = 1; i < nsp; ++i) dims.push_back(full[i]);
  int64_t acc = cl ? c : 1;
  for (int i = int(nsp) - 1; i >= 0; --i) { st[size_t(2 + i)] = acc; acc *= full[size_t(i)]; }
  if (cl) {
    st[1] = 1;
    st[0] = acc;
  } else {
    st[1] = acc;
    // One image: its stride is never used, and the dense value lets a slice of
    // channels of a whole image match oneDNN's nchw (its GEMM convolution checks
    // strides of size-1 axes too).
    st[0] = nb == 1 ? acc * cn : acc * c;
  }
  return memory::desc(dims, dt, st);
}

// oneDNN's tag for a channel-blocked (N, C / c0, *spatial, c0) activation.
memory::format_tag block_tag(size_t nsp, int64_t c0) {
  using ft = memory::format_tag;
  static const ft tags[3][3] = {{ft::nCw4c, ft::nChw4c, ft::nCdhw4c},
                                {ft::nCw8c, ft::nChw8c, ft::nCdhw8c},
                                {ft::nCw16c, ft::nChw16c, ft::nCdhw16c}};
  return tags[c0 == 4 ? 0 : c0 == 8 ? 1 : 2][nsp - 1];
}

// A blocked piece: nb whole images with cn channels. Dense (and so taken by the
// JIT kernels without a reorder) because images and channel blocks are the
// outermost axes: a piece never cuts the spatial axes of a blocked tensor.
memory::desc block_piece_desc(int64_t nb, int64_t cn, const std::vector<int64_t>& full, int64_t c0,
                              memory::data_type dt) {
  memory::dims dims{nb, cn};
  for (int64_t v : full) dims.push_back(v);
  return memory::desc(dims, dt, block_tag(full.size(), c0));
}

// Byte offset of (image n0, row r0 of the first spatial axis) in a contiguous
// activation with c channels and spatial dims `full`.
int64_t piece_offset(int64_t n0, int64_t r0, int64_t c, const std::vector<int64_t>& full, bool cl, size_t item,
                     int64_t c0 = 0) {
  int64_t plane = 1, row = 1;
  for (size_t i = 0; i < full.size(); ++i) plane *= full[i];
  for (size_t i = 1; i < full.size(); ++i) row *= full[i];
  return (n0 * plane * c + r0 * row * (cl ? c : 1) + c0 * (cl ? 1 : plane)) * int64_t(item);
}

// 1x1, stride 1, no padding, one group, NCHW in and out, at least 14x14 positions:
// a GEMM per image. Below that the GEMM's N (positions) is too skinny: measured
// single-threaded against onnxruntime, 14x14 and 28x28 ran 0.97-1.06x, 7x7 0.72-0.82x
// (the blocked JIT kernel with its reorders: 0.89x there).
bool plain_pointwise(const ConvAttrs& a, const Geometry& G) {
  if (a.transposed || a.channels_last || a.src_block > 0 || a.dst_block > 0 || G.g != 1) return false;
  int64_t plane = 1;
  for (size_t i = 0; i < G.k.size(); ++i) {
    if (G.k[i] != 1 || a.stride[i] != 1 || a.pad_l[i] != 0 || a.pad_r[i] != 0) return false;
    plane *= G.out[i];
  }
  return plane >= 196;
}

// The call's pieces. Forward convolutions on several cores are cut into about
// 2 x cores pieces (whole images when the batch is large enough, else bands of
// output rows of each image), each run single-threaded by the device's core
// workers, which hand pieces out through an atomic counter (runtime::Device::
// run_kernel; the calling thread takes pieces too). Unlike an OpenMP team with its
// static split, a worker the OS descheduled (the machine is shared) delays nothing:
// the others take its pieces, and nobody spins at a barrier. Transposed
// convolutions are one piece run by the calling thread's OpenMP team.
// Pieces per core (ASC_CONV_PIECES_PER_CORE, 1..8, default 2): fewer, larger pieces
// cost less CPU (each piece reorders its own input band and loses the JIT kernels'
// blocking at the cut), more of them balance better when a worker is descheduled.
// A tuning knob for A/B measurements; read per call (it is part of the call key).
int64_t pieces_per_core() {
  const char* e = std::getenv("ASC_CONV_PIECES_PER_CORE");
  if (!e || !*e) return 2;
  const long v = std::strtol(e, nullptr, 10);
  return v >= 1 && v <= 8 ? int64_t(v) : 2;
}

std::vector<Chunk> chunks_of(const Geometry& G, const ConvAttrs& a, int cores, int64_t ppc) {
  std::vector<Chunk> v;
  const int64_t H = G.in[0], OH = G.out[0];
  if (a.transposed) {
    v.push_back(Chunk{0, G.n, 0, OH, 0, H, a.pad_l[0], a.pad_r[0] - a.output_padding[0]});
    return v;
  }
  const int64_t s0 = a.stride[0], ek = a.dilation[0] * (G.k[0] - 1) + 1;
  const auto whole = [&](int64_t n0, int64_t nb) { return Chunk{n0, nb, 0, OH, 0, H, a.pad_l[0], a.pad_r[0]}; };
  // Every image cut into slices of `step` output channels (the last one shorter).
  const auto oc_slices = [&](int64_t step) {
    for (int64_t n = 0; n < G.n; ++n) {
      for (int64_t oc0 = 0; oc0 < G.oc; oc0 += step) {
        Chunk c = whole(n, 1);
        c.oc0 = oc0;
        c.noc = std::min(step, G.oc - oc0);
        v.push_back(c);
      }
    }
    return v;
  };
  const int64_t target = cores > 1 ? ppc * int64_t(cores) : 1;
  const int64_t nb = (G.n + target - 1) / target;
  if (a.src_block > 0 || a.dst_block > 0) {
    // Bands of rows are not dense in a blocked layout; pieces are whole images, or
    // (small batches) slices of output channels in whole channel blocks of at
    // least 32 channels (narrower slices lose the JIT kernels' output-channel
    // register blocking), each reading the whole image.
    const int64_t unit = std::max<int64_t>(a.dst_block, 8);
    const int64_t parts = std::min<int64_t>(G.oc / std::max<int64_t>(unit, 32), (target + G.n - 1) / G.n);
    if (G.n < target && G.g == 1 && parts >= 2) {
      return oc_slices((G.oc / parts + unit - 1) / unit * unit);
    }
    for (int64_t n0 = 0; n0 < G.n; n0 += nb) v.push_back(whole(n0, std::min(nb, G.n - n0)));
    return v;
  }
  int64_t K = G.icg;
  for (int64_t v : G.k) K *= v;
  int64_t plane = 1;
  for (int64_t v : G.in) plane *= v;
  if (G.n < target && G.g == 1 && G.oc >= 32 && (G.oc * K > G.c * plane || plain_pointwise(a, G))) {
    // Weights larger than an image (1x1 1024->2048 at 7x7): bands of rows would each
    // stream all the weights; slices of output channels (multiples of 16, oneDNN's
    // channel blocking) read one slice each and the (small) image. Plain pointwise
    // convolutions too: a slice of output channels is dense in NCHW (a band of rows
    // is not), which the GEMM convolution needs.
    // Slices of at least 32 channels where there are 64 or more: a 16-row GEMM slice
    // re-reads the whole image per 16 channels (1x1 256->64 at 56x56, N=1: four 16-channel
    // slices cost 1.28x the CPU time of two 32-channel ones, measured with --ab).
    const int64_t parts = std::min(std::max<int64_t>(G.oc / 32, 2), (target + G.n - 1) / G.n);
    return oc_slices((G.oc / parts + 15) / 16 * 16);
  }
  if (G.n < target) {
    const int64_t parts = std::min(OH, (target + G.n - 1) / G.n);
    bool ok = parts > 1;
    for (int64_t n = 0; ok && n < G.n; ++n) {
      for (int64_t r = 0; ok && r < parts; ++r) {
        const int64_t o0 = OH * r / parts, o1 = OH * (r + 1) / parts;
        // Input rows the band's windows cover (inclusive), clipped to the input;
        // what lies outside is the band's own zero padding.
        const int64_t lo = o0 * s0 - a.pad_l[0], hi = (o1 - 1) * s0 - a.pad_l[0] + ek - 1;
        const int64_t i0 = std::max<int64_t>(lo, 0), i1 = std::min<int64_t>(hi, H - 1);
        if (i1 < i0) { ok = false; break; }  // a band wholly in the padding: keep images whole
        v.push_back(Chunk{n, 1, o0, o1, i0, i1 - i0 + 1, i0 - lo, hi - i1});
      }
    }
    if (ok) return v;
    v.clear();
  }
  for (int64_t n0 = 0; n0 < G.n; n0 += nb) v.push_back(whole(n0, std::min(nb, G.n - n0)));
  return v;
}

struct Reorder {
  dnnl::reorder prim;
  memory::desc scratch;
};

struct Plan {
  dnnl::primitive prim;
  memory::desc src_user, wei_user, dst_user, bias_user;
  memory::desc src_p, wei_p, dst_p, bias_p, scratch;
  Reorder src_r, dst_r, res_r;
  bool src_same = true, dst_same = true, bias_same = true;
};

// Cache keys are opaque bytes: the values' raw bytes appended (no number
// formatting on the per-call path, where it cost several microseconds).
template <class T>
void put(std::string& k, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  k.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class V>
void put_dims(std::string& k, const V& v) {
  put(k, int64_t(v.size()));
  for (size_t i = 0; i < v.size(); ++i) put(k, int64_t(v[i]));
}

std::string key_of(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a) {
  std::string k;
  k.reserve(256);
  put(k, g_fork_generation.load(std::memory_order_relaxed));
  put(k, int64_t(a.op.size()));
  k += a.op;
  put_dims(k, x.shape());
  put_dims(k, w.shape());
  put(k, int(x.dtype()));
  put(k, b ? int(b->dtype()) : -1);
  put(k, r != nullptr);
  for (const auto* v : {&a.stride, &a.pad_l, &a.pad_r, &a.dilation, &a.output_padding}) put_dims(k, *v);
  put(k, int64_t(a.groups));
  put(k, (a.transposed ? 1 : 0) | (a.channels_last ? 2 : 0));
  put(k, int64_t(a.src_block));
  put(k, int64_t(a.dst_block));
  put(k, int(a.act));
  put(k, double(a.alpha));
  return k;
}

// oneDNN answers a bfloat16 convolution the ISA has no kernel for (AVX2) with its
// reference loops (~50x slower than float32 here); plan_of then computes in float32.
void reject_ref(const dnnl::primitive_desc_base& pd, memory::data_type cdt) {
  if (cdt == memory::data_type::bf16 && std::strncmp(pd.impl_info_str(), "ref", 3) == 0) {
    throw dnnl::error(dnnl_unimplemented, "bfloat16 convolution has only a reference implementation here");
  }
}

// The primitive of one piece shape, made with `cdt` as the compute type. Planned
// for the calling thread's current OpenMP team size (oneDNN fixes its thread
// decomposition at creation): 1 for pieces, the core count for a team call.
std::shared_ptr<const Plan> make_plan(const Tensor& x, const Tensor* b, const Tensor* r, const ConvAttrs& a,
                                      const Geometry& G, const Chunk& c, memory::data_type cdt) {
  auto p = std::make_shared<Plan>();
  const auto udt = to_dnnl(x.dtype(), a.op);
  const int64_t rows = c.o1 - c.o0;
  Geometry Gs = G;  // the piece's output channels (a slice only for groups == 1)
  if (c.noc >= 0) Gs.oc = Gs.ocg = c.noc;
  p->src_user = a.src_block > 0 ? block_piece_desc(c.nb, G.c, G.in, a.src_block, udt)
                                : piece_desc(c.nb, G.c, G.c, c.ih, G.in, a.channels_last, udt);
  p->dst_user = a.dst_block > 0 ? block_piece_desc(c.nb, Gs.oc, G.out, a.dst_block, udt)
                                : piece_desc(c.nb, Gs.oc, G.oc, rows, G.out, a.channels_last, udt);
  p->wei_user = wei_desc(Gs, a.transposed, udt, true);
  const memory::desc src_any(p->src_user.dims(), cdt, memory::format_tag::any);
  const memory::desc dst_any(p->dst_user.dims(), cdt, memory::format_tag::any);
  const memory::desc wei_any = wei_desc(Gs, a.transposed, cdt, false);
  memory::desc bias_md;
  if (b) {
    p->bias_user = memory::desc({Gs.oc}, to_dnnl(b->dtype(), a.op), memory::format_tag::a);
    bias_md = memory::desc({Gs.oc}, memory::data_type::f32, memory::format_tag::a);
  }
  memory::dims st(a.stride.begin(), a.stride.end()), dil, pl(a.pad_l.begin(), a.pad_l.end()), pr;
  for (size_t i = 0; i < a.dilation.size(); ++i) dil.push_back(a.dilation[i] - 1);
  for (size_t i = 0; i < a.pad_r.size(); ++i) pr.push_back(a.pad_r[i] - (a.transposed ? a.output_padding[i] : 0));
  pl[0] = c.pt;
  pr[0] = c.pb;
  dnnl::post_ops po;
  if (r) po.append_sum(1.f);
  if (a.act != Activation::kNone) {
    float alpha = a.alpha, beta = 0.f;
    const dnnl::algorithm alg = eltwise_of(a.act, &alpha, &beta);  // sets alpha/beta first
    po.append_eltwise(1.f, alg, alpha, beta);
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  // Pieces of one call run the same primitive on several threads at once: each
  // execution brings its own scratchpad (a primitive-owned one would be shared).
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto& eng = cpu_engine();
  const auto kind = dnnl::prop_kind::forward_inference;
  if (!a.transposed) {
    auto d = b ? dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src_any, wei_any, bias_md,
                                                 dst_any, st, dil, pl, pr)
               : dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src_any, wei_any, dst_any,
                                                 st, dil, pl, pr);
    dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
    reject_ref(pd, cdt);
    if (plain_pointwise(a, G) && cdt == udt) {
      // A 1x1 / stride 1 / unpadded convolution on dense NCHW pieces is one GEMM per
      // image (W (oc x c) times X (c x HW)): oneDNN's GEMM convolution runs it on the
      // user's layout, with no reorder in or out of the blocked layout that `any`
      // picks. Taken only when oneDNN answers with its GEMM implementation.
      try {
        auto dp = b ? dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, p->src_user, wei_any,
                                                      bias_md, p->dst_user, st, dil, pl, pr)
                    : dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, p->src_user, wei_any,
                                                      p->dst_user, st, dil, pl, pr);
        dnnl::convolution_forward::primitive_desc gp(dp, attr, eng);
        if (std::strstr(gp.impl_info_str(), "gemm") != nullptr) pd = gp;  // "x64:gemm:jit"
      } catch (const dnnl::error&) {
        // no implementation on these descriptors: keep the blocked one
      }
    }
    p->src_p = pd.src_desc(); p->wei_p = pd.weights_desc(); p->dst_p = pd.dst_desc();
    if (b) p->bias_p = pd.bias_desc();
    p->scratch = pd.scratchpad_desc();
    p->prim = dnnl::convolution_forward(pd);
  } else {
    auto d = b ? dnnl::deconvolution_forward::desc(kind, dnnl::algorithm::deconvolution_direct, src_any, wei_any,
                                                   bias_md, dst_any, st, dil, pl, pr)
               : dnnl::deconvolution_forward::desc(kind, dnnl::algorithm::deconvolution_direct, src_any, wei_any,
                                                   dst_any, st, dil, pl, pr);
    dnnl::deconvolution_forward::primitive_desc pd(d, attr, eng);
    reject_ref(pd, cdt);
    p->src_p = pd.src_desc(); p->wei_p = pd.weights_desc(); p->dst_p = pd.dst_desc();
    if (b) p->bias_p = pd.bias_desc();
    p->scratch = pd.scratchpad_desc();
    p->prim = dnnl::deconvolution_forward(pd);
  }
  dnnl::primitive_attr rattr;
  rattr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto mk = [&](const memory::desc& from, const memory::desc& to, Reorder* out) {
    dnnl::reorder::primitive_desc rpd(eng, from, eng, to, rattr);
    out->prim = dnnl::reorder(rpd);
    out->scratch = rpd.scratchpad_desc();
  };
  p->src_same = p->src_user == p->src_p;
  p->dst_same = p->dst_p == p->dst_user;
  if (!p->src_same) mk(p->src_user, p->src_p, &p->src_r);
  if (!p->dst_same) mk(p->dst_p, p->dst_user, &p->dst_r);
  if (b) p->bias_same = p->bias_user == p->bias_p;
  // The residual piece has the output piece's layout: one reorder (or strided
  // copy) puts it into dst, where the sum post-op reads it.
  if (r) mk(p->dst_user, p->dst_p, &p->res_r);
  return p;
}

// bfloat16 computes natively where oneDNN has bfloat16 convolutions (AVX512_BF16,
// AMX; AVX-512 emulates), else in float32 lanes as float16 always does (the
// reorders convert; the output is rounded once).
std::shared_ptr<const Plan> plan_of(const std::string& key, const Tensor& x, const Tensor* b, const Tensor* r,
                                    const ConvAttrs& a, const Geometry& G, const Chunk& c) {
  return PrimitiveCache::instance().get<Plan>(key, [&]() -> std::shared_ptr<const Plan> {
    if (x.dtype() == DType::kBFloat16) {
      try {
        return make_plan(x, b, r, a, G, c, memory::data_type::bf16);
      } catch (const dnnl::error& e) {
        if (e.status != dnnl_unimplemented) throw;
      }
    }
    return make_plan(x, b, r, a, G, c, memory::data_type::f32);
  });
}

// The calling thread's scratchpad for primitive executions.
void* thread_scratch(size_t bytes) { return detail::thread_buffer<struct ScratchpadTag>(bytes); }

// Sets the calling thread's OpenMP team size for a scope (ICVs are per thread).
struct ScopedThreads {
  int prev;
  explicit ScopedThreads(int n) : prev(omp_get_max_threads()) {
    if (prev != n) omp_set_num_threads(n);
  }
  ~ScopedThreads() {
    if (omp_get_max_threads() != prev) omp_set_num_threads(prev);
  }
};

// A call's resolved work: its pieces, each with its primitive and (reordered)
// weights / bias. Cached per call key (shapes, attributes, the weights' and bias'
// storages) while those storages' versions are unchanged, so a steady-state call
// (a model run) does one key build and one lookup instead of a plan lookup and a
// weight-cache lookup per piece.
struct Job {
  size_t chunk;
  std::shared_ptr<const Plan> plan;
  memory wei, bias;
};
struct CallPlan {
  std::vector<Chunk> chunks;
  std::vector<Job> jobs;
  std::weak_ptr<Storage> w_st, b_st;
  uint64_t w_ver = 0, b_ver = 0, epoch = 0;
  bool has_b = false;
  bool reordered = false;  // holds weights / bias the weight cache reordered
  // Every piece is a slice of output channels of one whole image with the same
  // primitive input layout: the input is reordered once per image before the
  // pieces run (shared_src), not once per slice.
  bool shared_src = false;
};
// Steady-state calls served by a cached CallPlan, counted by conv_cache_stats() as
// primitive-cache hits (and, when it holds reordered weights, by
// conv_weight_cache_stats() as weight-cache hits): no plan and no reorder was made.
std::atomic<int64_t> g_call_hits{0}, g_call_weight_hits{0};

struct CallCache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const CallPlan>> map;
  // Bounded in entries (the reordered weights it holds are the weight cache's own
  // entries while those are cached): cleared as a whole when full.
  static constexpr size_t kCapacity = 512;
};
CallCache& call_cache() {
  static CallCache* c = new CallCache();  // leaked like PrimitiveCache: used until exit
  return *c;
}

bool still_valid(const CallPlan& cp, const Tensor& w, const Tensor* b) {
  if (cp.epoch != reorder_cache_epoch() || cp.w_st.lock() != w.storage()) return false;
  w.storage()->read_data();  // syncs pending writes; version() read after it
  if (w.storage()->version() != cp.w_ver) return false;
  if (b) {
    if (cp.b_st.lock() != b->storage()) return false;
    b->storage()->read_data();
    if (b->storage()->version() != cp.b_ver) return false;
  }
  return true;
}

std::shared_ptr<const CallPlan> make_call(const std::string& base, const Tensor& x, const Tensor& w, const Tensor* b,
                                          const Tensor* r, const ConvAttrs& a, const Geometry& G, int cores, bool team,
                                          int64_t ppc) {
  auto cp = std::make_shared<CallPlan>();
  cp->epoch = reorder_cache_epoch();
  // versions read before the weights are (re)ordered: a write meanwhile invalidates
  cp->w_st = w.storage();
  w.storage()->read_data();
  cp->w_ver = w.storage()->version();
  if (b) {
    cp->has_b = true;
    cp->b_st = b->storage();
    b->storage()->read_data();
    cp->b_ver = b->storage()->version();
  }
  cp->chunks = chunks_of(G, a, cores, ppc);
  cp->jobs.reserve(cp->chunks.size());
  for (size_t i = 0; i < cp->chunks.size(); ++i) {
    const Chunk& c = cp->chunks[i];
    std::string key = base;
    for (int64_t v : {c.nb, c.ih, c.pt, c.pb, c.o1 - c.o0, c.noc}) put(key, v);
    put(key, team);
    Job j{i, plan_of(key, x, b, r, a, G, c), memory(), memory()};
    // Pieces of one call mostly share a plan; its weights are looked up once.
    if (!cp->jobs.empty() && cp->jobs.back().plan == j.plan && cp->chunks[cp->jobs.back().chunk].oc0 == c.oc0) {
      j.wei = cp->jobs.back().wei;
      j.bias = cp->jobs.back().bias;
    } else {
      // A channel slice's weights / bias: views at the slice's offset (cached per offset).
      auto slice = [&](const Tensor& t) {
        if (c.noc < 0) return t;
        Shape sh = t.shape();
        sh[0] = c.noc;
        return Tensor::view_of(t.storage(), t.dtype(), sh, t.strides(), t.offset() + c.oc0 * t.strides()[0]);
      };
      const Tensor ws = slice(w);
      cp->reordered |= !(j.plan->wei_user == j.plan->wei_p) || (b && !j.plan->bias_same);
      j.wei = j.plan->wei_user == j.plan->wei_p
                  ? memory(j.plan->wei_p, cpu_engine(), const_cast<uint8_t*>(ws.storage()->read_data() + ws.offset()))
                  : reordered_const(ws, j.plan->wei_user, j.plan->wei_p);
      if (b) {
        const Tensor bs = slice(*b);
        j.bias = j.plan->bias_same
                     ? memory(j.plan->bias_p, cpu_engine(), const_cast<uint8_t*>(bs.storage()->read_data() + bs.offset()))
                     : reordered_const(bs, j.plan->bias_user, j.plan->bias_p);
      }
    }
    cp->jobs.push_back(std::move(j));
  }
  cp->shared_src = !team && cp->jobs.size() > 1;
  for (const Job& j : cp->jobs) {
    const Chunk& c = cp->chunks[j.chunk];
    cp->shared_src = cp->shared_src && c.noc >= 0 && c.nb == 1 && !j.plan->src_same &&
                     j.plan->src_p == cp->jobs[0].plan->src_p && j.plan->src_user == cp->jobs[0].plan->src_user;
  }
  return cp;
}

// The calling thread's buffer for inputs reordered once for all pieces. The pieces
// (other threads) only read it while the calling thread waits for them in run_kernel.
void* thread_src_buf(size_t bytes) { return detail::thread_buffer<struct SharedSrcTag>(bytes); }

// `inplace`: `out` is the residual's (contiguous) buffer, already holding what the
// sum post-op adds; every piece reads and writes only its own slice.
Tensor conv_onednn(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a,
                   const Geometry& G, const Tensor& out, bool inplace) {
  guarded(a.op, [&] {
    // Nested inside a kernel block (a core worker), the pieces run right here.
    const bool nested = runtime::current_block() != nullptr;
    const int cores = nested ? 1 : device_cores();
    const bool team = a.transposed && !nested;
    if (team) set_threads();
    // Plans, weights and bias are prepared here, on the calling thread; the pieces
    // only read them.
    ScopedThreads threads(team ? omp_get_max_threads() : 1);
    const std::string base = key_of(x, w, b, r, a);
    std::string ckey = base;
    put(ckey, cores);
    put(ckey, team);
    const int64_t ppc = pieces_per_core();
    put(ckey, ppc);
    put(ckey, w.storage()->uid());
    put(ckey, w.offset());
    put(ckey, b ? b->storage()->uid() : uint64_t(0));
    put(ckey, b ? b->offset() : int64_t(0));
    // Only weights the weight cache keeps (not NumPy-writable ones, cache on) may be
    // held by a cached call; others are resolved (reordered) on every call.
    const bool cacheable = reorder_cacheable(w) && (!b || reorder_cacheable(*b));
    std::shared_ptr<const CallPlan> cp;
    auto& cc = call_cache();
    if (cacheable) {
      std::lock_guard<std::mutex> lock(cc.mu);
      auto it = cc.map.find(ckey);
      if (it != cc.map.end()) cp = it->second;
    }
    if (cp && !still_valid(*cp, w, b)) cp.reset();
    if (cp) {
      g_call_hits.fetch_add(1, std::memory_order_relaxed);
      if (cp->reordered) g_call_weight_hits.fetch_add(1, std::memory_order_relaxed);
    }
    if (!cp) {
      cp = make_call(base, x, w, b, r, a, G, cores, team, ppc);
      if (cacheable) {
        std::lock_guard<std::mutex> lock(cc.mu);
        // Calls on weights that died can never hit again: dropped (with the reordered
        // weights they hold) on every miss, as the weight cache drops its entries.
        for (auto it = cc.map.begin(); it != cc.map.end();) {
          it = it->second->w_st.expired() || (it->second->has_b && it->second->b_st.expired()) ? cc.map.erase(it) : std::next(it);
        }
        if (cc.map.size() >= CallCache::kCapacity) cc.map.clear();
        cc.map[ckey] = cp;
      }
    }
    const std::vector<Job>& jobs = cp->jobs;
    uint8_t* xb = const_cast<uint8_t*>(x.storage()->read_data() + x.offset());
    uint8_t* ob = out.data();
    uint8_t* rb = r ? const_cast<uint8_t*>(r->storage()->read_data() + r->offset()) : nullptr;
    const size_t item = x.itemsize();
    auto reorder = [&](const Reorder& ro, const memory& from, const memory& to) {
      auto& eng = cpu_engine();
      std::unordered_map<int, memory> ra{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
      if (ro.scratch.get_size() > 0) ra[DNNL_ARG_SCRATCHPAD] = memory(ro.scratch, eng, thread_scratch(ro.scratch.get_size()));
      ro.prim.execute(thread_stream(), ra);
    };
    // shared_src: each image's input reordered once, here, for all its slices.
    uint8_t* sbuf = nullptr;
    size_t simg = 0;
    // ASC_CONV_SHARED_SRC=0: every slice reorders its own copy (A/B measurements)
    const char* share_env = std::getenv("ASC_CONV_SHARED_SRC");
    if (cp->shared_src && !(share_env && std::strcmp(share_env, "0") == 0)) {
      const Plan& p0 = *jobs[0].plan;
      simg = (p0.src_p.get_size() + 63) / 64 * 64;
      sbuf = static_cast<uint8_t*>(thread_src_buf(simg * size_t(G.n)));
      for (int64_t n = 0; n < G.n; ++n) {
        memory from(p0.src_user, cpu_engine(), xb + piece_offset(n, 0, G.c, G.in, a.channels_last, item));
        memory to(p0.src_p, cpu_engine(), sbuf + size_t(n) * simg);
        reorder(p0.src_r, from, to);
      }
      thread_stream().wait();
    }
    auto run = [&](const Job& j) {
      const Plan& p = *j.plan;
      const Chunk& c = cp->chunks[j.chunk];
      auto& eng = cpu_engine();
      auto& s = thread_stream();
      memory src_u(p.src_user, eng, xb + piece_offset(c.n0, c.i0, G.c, G.in, a.channels_last, item));
      memory dst_u(p.dst_user, eng, ob + piece_offset(c.n0, c.o0, G.oc, G.out, a.channels_last, item, c.oc0));
      memory src = p.src_same ? src_u
                   : sbuf     ? memory(p.src_p, eng, sbuf + size_t(c.n0) * simg)
                              : memory(p.src_p, eng);
      memory dst = p.dst_same ? dst_u : memory(p.dst_p, eng);
      if (!p.src_same && !sbuf) reorder(p.src_r, src_u, src);
      std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, j.wei}, {DNNL_ARG_DST, dst}};
      if (b) args[DNNL_ARG_BIAS] = j.bias;
      if (p.scratch.get_size() > 0) args[DNNL_ARG_SCRATCHPAD] = memory(p.scratch, eng, thread_scratch(p.scratch.get_size()));
      if (r && !(inplace && p.dst_same)) {
        memory ru(p.dst_user, eng, rb + piece_offset(c.n0, c.o0, G.oc, G.out, a.channels_last, item, c.oc0));
        reorder(p.res_r, ru, dst);
      }
      p.prim.execute(s, args);
      if (!p.dst_same) reorder(p.dst_r, dst, dst_u);
      s.wait();
    };
    if (team || jobs.size() == 1) {
      for (const Job& j : jobs) run(j);
      return;
    }
    detail::run_blocks(a.op, static_cast<int64_t>(jobs.size()), [&](int64_t i) {
      ScopedThreads one(1);  // the piece's plan was made for one thread
      run(jobs[i]);
    });
  });
  return out;
}

// ---- Ascend C model path: img2col + the Mmad engine -------------------------------
Tensor conv_ascendc(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a,
                    const Geometry& G, const Tensor& out) {
  if (a.transposed) fail(ErrorCode::kApiNotSupport, a.op, "engine='ascendc' implements forward convolution only");
  int64_t in[3], k[3], o[3], s[3], d[3], pl[3];
  pad3(G.in, 1, in); pad3(G.k, 1, k); pad3(G.out, 1, o); pad3(a.stride, 1, s); pad3(a.dilation, 1, d);
  pad3(a.pad_l, 0, pl);
  const Indexer xi{G.c, {in[0], in[1], in[2]}, a.channels_last};
  const Indexer oi{G.oc, {o[0], o[1], o[2]}, a.channels_last};
  const int64_t P = o[0] * o[1] * o[2], K = G.icg * k[0] * k[1] * k[2], M = G.n * P;
  std::vector<double> bv = b ? detail::read_vec(*b, G.oc, a.op, "bias") : std::vector<double>();
  dispatch_float(x.dtype(), a.op, "input", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, double>) {
      fail(ErrorCode::kInvalidDtype, a.op, "engine='ascendc' takes float32, float16 or bfloat16");
    } else {
      const T* X = reinterpret_cast<const T*>(x.data());
      const T* W = reinterpret_cast<const T*>(w.data());
      const T* R = r ? reinterpret_cast<const T*>(r->data()) : nullptr;
      T* O = reinterpret_cast<T*>(out.data());
      const int nt = std::max(1, std::min<int>(int(std::thread::hardware_concurrency()), 2));
      const int64_t rows = std::max<int64_t>(16, (M + nt - 1) / nt / 16 * 16 + 16);
      auto work = [&](int64_t m0, int64_t m1) {
        const int64_t m = m1 - m0, mpad = (m + 15) / 16 * 16, npad = (G.ocg + 15) / 16 * 16;
        std::vector<T> A(size_t(m * K));
        std::vector<float> C(size_t(mpad * npad));
        for (int64_t g = 0; g < G.g; ++g) {
          for (int64_t i = 0; i < m; ++i) {  // img2col of rows m0..m1 of group g
            const int64_t mi = m0 + i, n = mi / P, pi = mi % P;
            const int64_t od = pi / (o[1] * o[2]), oh = (pi / o[2]) % o[1], ow = pi % o[2];
            T* row = A.data() + i * K;
            int64_t kk = 0;
            for (int64_t icg = 0; icg < G.icg; ++icg)
              for (int64_t kd = 0; kd < k[0]; ++kd)
                for (int64_t kh = 0; kh < k[1]; ++kh)
                  for (int64_t kw = 0; kw < k[2]; ++kw, ++kk) {
                    const int64_t id = od * s[0] - pl[0] + kd * d[0], ih = oh * s[1] - pl[1] + kh * d[1],
                                  iw = ow * s[2] - pl[2] + kw * d[2];
                    const bool inside = id >= 0 && id < in[0] && ih >= 0 && ih < in[1] && iw >= 0 && iw < in[2];
                    row[kk] = inside ? X[xi(n, g * G.icg + icg, id, ih, iw)] : T(0.f);
                  }
          }
          const kernel::cube::Operand A_{A.data(), x.dtype(), kernel::cube::Layout::kRowMajor, K, m};
          const kernel::cube::Operand B_{W + g * G.ocg * K, x.dtype(), kernel::cube::Layout::kColMajor, K, G.ocg};
          kernel::cube::gemm(m, G.ocg, K, A_, B_, C.data(), DType::kFloat32, mpad * 16, false);
          for (int64_t i = 0; i < m; ++i) {
            const int64_t mi = m0 + i, n = mi / P, pi = mi % P;
            const int64_t od = pi / (o[1] * o[2]), oh = (pi / o[2]) % o[1], ow = pi % o[2];
            for (int64_t j = 0; j < G.ocg; ++j) {
              const int64_t oc = g * G.ocg + j, at = oi(n, oc, od, oh, ow);
              double v = C[size_t(kernel::cube::l0c_offset(i, j, mpad))];
              if (b) v += bv[size_t(oc)];
              if (R) v += static_cast<double>(R[at]);
              O[at] = static_cast<T>(static_cast<float>(act_ref(v, a.act, a.alpha)));
            }
          }
        }
      };
      std::vector<std::thread> ts;
      std::exception_ptr err;
      std::mutex mu;
      for (int64_t m0 = 0; m0 < M; m0 += rows) {
        const int64_t m1 = std::min(M, m0 + rows);
        ts.emplace_back([&, m0, m1] {
          try { work(m0, m1); } catch (...) { std::lock_guard<std::mutex> l(mu); err = std::current_exception(); }
        });
      }
      for (auto& t : ts) t.join();
      if (err) std::rethrow_exception(err);
    }
  });
  return out;
}

}  // namespace

std::pair<int64_t, int64_t> conv_cache_stats() {
  const auto s = PrimitiveCache::instance().stats();
  return {s.hits + g_call_hits.load(std::memory_order_relaxed), s.misses};
}

std::pair<int64_t, int64_t> conv_weight_cache_stats() {
  const auto s = reorder_cache_stats();
  return {s.hits + g_call_weight_hits.load(std::memory_order_relaxed), s.misses};
}

int64_t conv_depthwise_calls() { return depthwise::calls(); }

int64_t conv_direct_calls() { return direct::calls(); }

std::tuple<int64_t, int64_t, int64_t> conv_winograd_stats() {
  const auto s = winograd::weight_cache_stats();
  return {winograd::calls(), s.first, s.second};
}

int preferred_block() {
  static const int block = [] {
    int b = 0;
    try {
      // ResNet-50's 3x3 64->64 at 56x56: what layout does oneDNN want for it?
      const memory::desc src({1, 64, 56, 56}, memory::data_type::f32, memory::format_tag::any);
      const memory::desc wei({64, 64, 3, 3}, memory::data_type::f32, memory::format_tag::any);
      const memory::desc dst({1, 64, 56, 56}, memory::data_type::f32, memory::format_tag::any);
      dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                        wei, dst, {1, 1}, {0, 0}, {1, 1}, {1, 1});
      dnnl::convolution_forward::primitive_desc pd(d, cpu_engine());
      const dnnl_memory_desc_t& m = pd.dst_desc().data;
      if (m.format_kind == dnnl_blocked && m.format_desc.blocking.inner_nblks == 1 &&
          m.format_desc.blocking.inner_idxs[0] == 1) {
        const int64_t c0 = m.format_desc.blocking.inner_blks[0];
        if (c0 == 4 || c0 == 8 || c0 == 16) b = int(c0);
      }
    } catch (const dnnl::error&) {
      b = 0;
    }
    return b;
  }();
  return block;
}

Activation activation_of(const std::string& name, const std::string& op) {
  static const std::pair<const char*, Activation> kNames[] = {
      {"none", Activation::kNone}, {"relu", Activation::kRelu}, {"leaky_relu", Activation::kLeakyRelu},
      {"gelu", Activation::kGelu}, {"gelu_tanh", Activation::kGeluTanh}, {"silu", Activation::kSilu},
      {"sigmoid", Activation::kSigmoid}, {"tanh", Activation::kTanh}, {"elu", Activation::kElu},
      {"relu6", Activation::kRelu6}};
  for (const auto& [n, a] : kNames) {
    if (name == n) return a;
  }
  fail(ErrorCode::kInvalidParam, op, "unknown fused activation '" + name +
                                         "' (none, relu, leaky_relu, gelu, gelu_tanh, silu, sigmoid, tanh, elu, relu6)");
}

namespace {

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

bool overlaps(const Tensor& a, const Tensor& b) {
  if (a.storage() != b.storage() || a.numel() == 0 || b.numel() == 0) return false;
  const auto sa = byte_span(a), sb = byte_span(b);
  return sa.first < sb.second && sb.first < sa.second;
}

// The caller's output buffer (out=), checked: the output's shape and dtype,
// C-contiguous (the pieces write dense slices of it), writeable, and sharing no
// bytes with an operand the pieces read -- except the residual when `out` is
// exactly its buffer (then the sum reads each element before the same piece
// overwrites it, the in-place case of residual_inplace).
void check_out(const Tensor& out, const Shape& os, const Tensor& x, const Tensor& w, const Tensor* b,
               const Tensor* r, const ConvAttrs& a) {
  if (out.dtype() != x.dtype()) {
    fail(ErrorCode::kInvalidDtype, a.op, std::string("out dtype ") + dtype_name(out.dtype()) +
                                             " does not match the output's " + dtype_name(x.dtype()));
  }
  if (out.shape() != os) {
    fail(ErrorCode::kInvalidShape, a.op, "out must have the output's shape " + Tensor::shape_str(os) + ", got " +
                                             Tensor::shape_str(out.shape()));
  }
  if (!out.is_contiguous()) {
    fail(ErrorCode::kInvalidParam, a.op, "out must be C-contiguous, got shape " + Tensor::shape_str(out.shape()) +
                                             " with byte strides " + Tensor::shape_str(out.strides()));
  }
  out.check_writeable(a.op.c_str(), "output array is read-only");
  const std::pair<const Tensor*, const char*> ops[] = {{&x, "input"}, {&w, "weight"}, {b, "bias"}};
  for (const auto& [t, what] : ops) {
    if (t && overlaps(out, *t)) {
      fail(ErrorCode::kInvalidParam, a.op, std::string("out shares memory with the ") + what +
                                               " (shape " + Tensor::shape_str(t->shape()) + ")");
    }
  }
  if (r && overlaps(out, *r) && !(r->offset() == out.offset() && r->is_contiguous())) {
    fail(ErrorCode::kInvalidParam, a.op, "out overlaps the residual without being its buffer (shape " +
                                             Tensor::shape_str(r->shape()) + ")");
  }
}

}  // namespace

Tensor conv(const Tensor& x_in, const Tensor& w_in, const Tensor* bias, const Tensor* residual, const ConvAttrs& a,
            const Tensor* out) {
  const auto isfloat = [](DType d) {
    return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16 || d == DType::kBFloat16;
  };
  if (!isfloat(x_in.dtype())) {
    fail(ErrorCode::kInvalidDtype, a.op, std::string("input must have a floating dtype, got ") + dtype_name(x_in.dtype()));
  }
  auto same = [&](const Tensor& t, const char* what) {
    if (t.dtype() != x_in.dtype()) {
      fail(ErrorCode::kInvalidDtype, a.op, std::string(what) + " dtype " + dtype_name(t.dtype()) +
                                               " does not match the input's " + dtype_name(x_in.dtype()));
    }
  };
  same(w_in, "weight");
  if (bias) same(*bias, "bias");
  for (int blk : {a.src_block, a.dst_block}) {
    if (blk != 0 && blk != 4 && blk != 8 && blk != 16) {
      fail(ErrorCode::kInvalidParam, a.op, "the NC1HWC0 block C0 must be 4, 8 or 16, got " + std::to_string(blk));
    }
  }
  const bool blocked = a.src_block > 0 || a.dst_block > 0;
  if (blocked && (a.transposed || a.channels_last || a.engine != ConvEngine::kOneDnn ||
                  x_in.dtype() == DType::kFloat64)) {
    fail(ErrorCode::kApiNotSupport, a.op, "NC1HWC0 layouts are implemented for forward convolutions of float32, "
                                          "float16 or bfloat16 on the oneDNN engine with no NHWC operand");
  }
  if (residual) same(*residual, "residual");
  const Geometry G = geometry(x_in, w_in, a);
  if (a.dst_block > 0 && G.oc % a.dst_block != 0) {
    fail(ErrorCode::kInvalidShape, a.op, "an NC1HWC0 output needs output channels divisible by C0 = " +
                                             std::to_string(a.dst_block) + ", got " + std::to_string(G.oc));
  }
  if (bias && (bias->ndim() != 1 || bias->shape()[0] != G.oc)) {
    fail(ErrorCode::kInvalidShape, a.op, "bias must have shape (" + std::to_string(G.oc) + ",), got " +
                                             Tensor::shape_str(bias->shape()));
  }
  const Shape os = out_shape(G, a);
  if (residual && residual->shape() != os) {
    fail(ErrorCode::kInvalidShape, a.op, "residual must have the output's shape " + Tensor::shape_str(os) + ", got " +
                                             Tensor::shape_str(residual->shape()));
  }
  if (out) check_out(*out, os, x_in, w_in, bias, residual, a);
  if (G.n == 0) return out ? *out : Tensor::empty(os, x_in.dtype());
  const Tensor x = x_in.contiguous(), w = w_in.contiguous();
  const Tensor b = bias ? bias->contiguous() : Tensor();
  // A residual that is out's own buffer stays that buffer (not a copy of it).
  const bool res_is_out = out && residual && residual->storage() == out->storage() &&
                          residual->offset() == out->offset() && residual->is_contiguous();
  const Tensor r = res_is_out ? *out : residual ? residual->contiguous() : Tensor();
  const Tensor* bp = bias ? &b : nullptr;
  const Tensor* rp = residual ? &r : nullptr;
  // The output: the caller's buffer, else the residual's when the caller gives it up
  // (never when it shares memory with an operand the pieces read), else a new one.
  bool inplace = res_is_out;
  Tensor dst;
  if (out) {
    dst = *out;
  } else {
    inplace = rp && a.residual_inplace && rp->is_contiguous() && rp->storage() != x.storage() &&
              rp->storage() != w.storage() && (!bp || rp->storage() != bp->storage());
    dst = inplace ? *rp : Tensor::empty(os, x.dtype());
  }
  if (x.dtype() == DType::kFloat64) return conv_reference(x, w, bp, rp, a, G, dst);
  if (a.engine == ConvEngine::kAscendC) return conv_ascendc(x, w, bp, rp, a, G, dst);
  if (G.nsp == 2 && depthwise::eligible(x, w, a, G.c, G.oc)) {
    // 3x3 depthwise float32 on NCHW (AVX2): no reorders (src/nn/conv_depthwise.cc).
    guarded(a.op, [&] { depthwise::run(x, w, bp, rp, a, dst); });
    return dst;
  }
  if (G.nsp == 2 && winograd::eligible(x, w, a, G.c, G.oc, G.out)) {
    // 3x3 / stride 1 float32 on AVX2: Winograd F(2x2, 3x3) (src/nn/conv_winograd.cc).
    guarded(a.op, [&] { winograd::run(x, w, bp, rp, a, dst); });
    return dst;
  }
  if (G.nsp == 2 && direct::eligible(x, w, a)) {
    // stride-2 float32 on NCHW (AVX2), opt-in ASC_CONV_DIRECT=1: no reorders (src/nn/conv_direct.cc).
    guarded(a.op, [&] { direct::run(x, w, bp, rp, a, dst); });
    return dst;
  }
  if (a.transposed) {
    for (size_t i = 0; i < a.pad_r.size(); ++i) {
      if (a.pad_r[i] < a.output_padding[i]) return conv_reference(x, w, bp, rp, a, G, dst);
    }
  }
  return conv_onednn(x, w, bp, rp, a, G, dst, inplace);
}

}  // namespace asc::nn
