// Convolution / transposed convolution (include/asc/nn/conv.h).
//
// oneDNN path: one cached Plan per (op, shapes, dtypes, layout, attrs) holding the
// primitive (src/weights/dst in format_tag::any, i.e. oneDNN's blocked layouts such
// as nChw16c / OIhw16i16o on AVX-512, chosen because its JIT kernels vectorise over
// 16 channels) and the reorders between the user's plain layout and those. The
// float64 path and transposed convolutions whose output_padding exceeds the right
// padding (oneDNN needs padding_r >= 0) run the direct reference loop below.
#include "asc/nn/conv.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <thread>

#include "asc/kernel/cube.h"
#include "nn/nn_util.h"
#include "nn/onednn.h"

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
  if (x.ndim() != nsp + 2) {
    fail(ErrorCode::kInvalidShape, op, "expected a " + std::to_string(nsp + 2) + "-D input, got shape " +
                                           Tensor::shape_str(x.shape()));
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
  G.c = a.channels_last ? xs[size_t(nsp + 1)] : xs[1];
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

Shape out_shape(const Geometry& G, bool cl) {
  Shape s;
  s.push_back(G.n);
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
                      const Geometry& G) {
  Tensor out = Tensor::empty(out_shape(G, a.channels_last), x.dtype());
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
memory::desc act_desc(const Geometry& G, const std::vector<int64_t>& sp, int64_t c, bool cl, memory::data_type dt) {
  memory::dims dims{G.n, c};
  for (int64_t v : sp) dims.push_back(v);
  memory::dims st(dims.size());
  int64_t plane = 1;
  for (int64_t v : sp) plane *= v;
  if (cl) {
    st[1] = 1;
    int64_t acc = c;
    for (int i = int(sp.size()) - 1; i >= 0; --i) { st[size_t(2 + i)] = acc; acc *= sp[size_t(i)]; }
    st[0] = acc;
  } else {
    int64_t acc = 1;
    for (int i = int(sp.size()) - 1; i >= 0; --i) { st[size_t(2 + i)] = acc; acc *= sp[size_t(i)]; }
    st[1] = acc;
    st[0] = acc * c;
  }
  return memory::desc(dims, dt, st);
}

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

struct Plan {
  dnnl::primitive prim;
  memory::desc src_user, wei_user, dst_user, bias_user, res_user;
  memory::desc src_p, wei_p, dst_p, bias_p;
  dnnl::reorder src_r, wei_r, dst_r, bias_r, res_r;
  bool src_same = true, wei_same = true, dst_same = true, bias_same = true, res_same = true;
};

std::string key_of(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a) {
  std::string k = std::to_string(g_fork_generation.load(std::memory_order_relaxed)) + "|" + a.op + "|" + Tensor::shape_str(x.shape()) + Tensor::shape_str(w.shape()) + dtype_name(x.dtype());
  k += b ? std::string("|b") + dtype_name(b->dtype()) : "|-";
  k += r ? "|r" : "|-";
  k += "|" + vstr(a.stride) + vstr(a.pad_l) + vstr(a.pad_r) + vstr(a.dilation) + vstr(a.output_padding);
  k += "|g" + std::to_string(a.groups) + (a.transposed ? "T" : "F") + (a.channels_last ? "L" : "C");
  k += "|a" + std::to_string(int(a.act)) + ":" + std::to_string(a.alpha);
  return k;
}

std::shared_ptr<const Plan> make_plan(const Tensor& x, const Tensor* b, const Tensor* r, const ConvAttrs& a,
                                      const Geometry& G) {
  auto p = std::make_shared<Plan>();
  const auto udt = to_dnnl(x.dtype(), a.op);
  const auto cdt = x.dtype() == DType::kBFloat16 ? memory::data_type::bf16 : memory::data_type::f32;
  p->src_user = act_desc(G, G.in, G.c, a.channels_last, udt);
  p->dst_user = act_desc(G, G.out, G.oc, a.channels_last, udt);
  p->wei_user = wei_desc(G, a.transposed, udt, true);
  memory::dims src_dims = p->src_user.dims(), dst_dims = p->dst_user.dims();
  const memory::desc src_any(src_dims, cdt, memory::format_tag::any);
  const memory::desc dst_any(dst_dims, cdt, memory::format_tag::any);
  const memory::desc wei_any = wei_desc(G, a.transposed, cdt, false);
  memory::desc bias_md;
  if (b) {
    p->bias_user = memory::desc({G.oc}, to_dnnl(b->dtype(), a.op), memory::format_tag::a);
    bias_md = memory::desc({G.oc}, memory::data_type::f32, memory::format_tag::a);
  }
  memory::dims st(a.stride.begin(), a.stride.end()), dil, pl(a.pad_l.begin(), a.pad_l.end()), pr;
  for (size_t i = 0; i < a.dilation.size(); ++i) dil.push_back(a.dilation[i] - 1);
  for (size_t i = 0; i < a.pad_r.size(); ++i) pr.push_back(a.pad_r[i] - (a.transposed ? a.output_padding[i] : 0));
  dnnl::post_ops po;
  if (r) po.append_sum(1.f);
  if (a.act != Activation::kNone) {
    float alpha = a.alpha, beta = 0.f;
    const dnnl::algorithm alg = eltwise_of(a.act, &alpha, &beta);  // sets alpha/beta first
    po.append_eltwise(1.f, alg, alpha, beta);
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  auto& eng = cpu_engine();
  const auto kind = dnnl::prop_kind::forward_inference;
  if (!a.transposed) {
    auto d = b ? dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src_any, wei_any, bias_md,
                                                 dst_any, st, dil, pl, pr)
               : dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src_any, wei_any, dst_any,
                                                 st, dil, pl, pr);
    dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
    p->src_p = pd.src_desc(); p->wei_p = pd.weights_desc(); p->dst_p = pd.dst_desc();
    if (b) p->bias_p = pd.bias_desc();
    p->prim = dnnl::convolution_forward(pd);
  } else {
    auto d = b ? dnnl::deconvolution_forward::desc(kind, dnnl::algorithm::deconvolution_direct, src_any, wei_any,
                                                   bias_md, dst_any, st, dil, pl, pr)
               : dnnl::deconvolution_forward::desc(kind, dnnl::algorithm::deconvolution_direct, src_any, wei_any,
                                                   dst_any, st, dil, pl, pr);
    dnnl::deconvolution_forward::primitive_desc pd(d, attr, eng);
    p->src_p = pd.src_desc(); p->wei_p = pd.weights_desc(); p->dst_p = pd.dst_desc();
    if (b) p->bias_p = pd.bias_desc();
    p->prim = dnnl::deconvolution_forward(pd);
  }
  auto mk = [&](const memory::desc& from, const memory::desc& to, dnnl::reorder* out, bool* same) {
    *same = from == to;
    if (!*same) *out = dnnl::reorder(dnnl::reorder::primitive_desc(eng, from, eng, to));
  };
  mk(p->src_user, p->src_p, &p->src_r, &p->src_same);
  mk(p->wei_user, p->wei_p, &p->wei_r, &p->wei_same);
  mk(p->dst_p, p->dst_user, &p->dst_r, &p->dst_same);
  if (b) mk(p->bias_user, p->bias_p, &p->bias_r, &p->bias_same);
  if (r) {
    p->res_user = act_desc(G, G.out, G.oc, a.channels_last, udt);
    mk(p->res_user, p->dst_p, &p->res_r, &p->res_same);
  }
  return p;
}

Tensor conv_onednn(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a,
                   const Geometry& G) {
  Tensor out = Tensor::empty(out_shape(G, a.channels_last), x.dtype());
  guarded(a.op, [&] {
    auto plan = PrimitiveCache::instance().get<Plan>(key_of(x, w, b, r, a), [&] { return make_plan(x, b, r, a, G); });
    set_threads();
    auto& eng = cpu_engine();
    auto& s = thread_stream();
    auto ptr = [](const Tensor& t) { return static_cast<void*>(t.data()); };
    memory src_u(plan->src_user, eng, ptr(x)), wei_u(plan->wei_user, eng, ptr(w)), dst_u(plan->dst_user, eng, ptr(out));
    memory src = plan->src_same ? src_u : memory(plan->src_p, eng);
    memory wei = plan->wei_same ? wei_u : memory(plan->wei_p, eng);
    memory dst = plan->dst_same ? dst_u : memory(plan->dst_p, eng);
    if (!plan->src_same) plan->src_r.execute(s, src_u, src);
    if (!plan->wei_same) plan->wei_r.execute(s, wei_u, wei);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    if (b) {
      memory bu(plan->bias_user, eng, ptr(*b));
      memory bm = plan->bias_same ? bu : memory(plan->bias_p, eng);
      if (!plan->bias_same) plan->bias_r.execute(s, bu, bm);
      args[DNNL_ARG_BIAS] = bm;
    }
    if (r) {
      memory ru(plan->res_user, eng, ptr(*r));
      if (plan->res_same) {
        // dst is the user's output buffer: the sum post-op reads it, so copy first.
        std::memcpy(out.data(), r->data(), out.nbytes());
      } else {
        plan->res_r.execute(s, ru, dst);
      }
    }
    plan->prim.execute(s, args);
    if (!plan->dst_same) plan->dst_r.execute(s, dst, dst_u);
    s.wait();
  });
  return out;
}

// ---- Ascend C model path: img2col + the Mmad engine -------------------------------
Tensor conv_ascendc(const Tensor& x, const Tensor& w, const Tensor* b, const Tensor* r, const ConvAttrs& a,
                    const Geometry& G) {
  if (a.transposed) fail(ErrorCode::kApiNotSupport, a.op, "engine='ascendc' implements forward convolution only");
  Tensor out = Tensor::empty(out_shape(G, a.channels_last), x.dtype());
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
  return {s.hits, s.misses};
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

Tensor conv(const Tensor& x_in, const Tensor& w_in, const Tensor* bias, const Tensor* residual, const ConvAttrs& a) {
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
  if (residual) same(*residual, "residual");
  const Geometry G = geometry(x_in, w_in, a);
  if (bias && (bias->ndim() != 1 || bias->shape()[0] != G.oc)) {
    fail(ErrorCode::kInvalidShape, a.op, "bias must have shape (" + std::to_string(G.oc) + ",), got " +
                                             Tensor::shape_str(bias->shape()));
  }
  const Shape os = out_shape(G, a.channels_last);
  if (residual && residual->shape() != os) {
    fail(ErrorCode::kInvalidShape, a.op, "residual must have the output's shape " + Tensor::shape_str(os) + ", got " +
                                             Tensor::shape_str(residual->shape()));
  }
  if (G.n == 0) return Tensor::empty(os, x_in.dtype());
  const Tensor x = x_in.contiguous(), w = w_in.contiguous();
  const Tensor b = bias ? bias->contiguous() : Tensor();
  const Tensor r = residual ? residual->contiguous() : Tensor();
  const Tensor* bp = bias ? &b : nullptr;
  const Tensor* rp = residual ? &r : nullptr;
  if (x.dtype() == DType::kFloat64) return conv_reference(x, w, bp, rp, a, G);
  if (a.engine == ConvEngine::kAscendC) return conv_ascendc(x, w, bp, rp, a, G);
  if (a.transposed) {
    for (size_t i = 0; i < a.pad_r.size(); ++i) {
      if (a.pad_r[i] < a.output_padding[i]) return conv_reference(x, w, bp, rp, a, G);
    }
  }
  return conv_onednn(x, w, bp, rp, a, G);
}

}  // namespace asc::nn
