// Normalisation kernels (include/asc/nn/norm.h).
//
// Statistics are two-pass (mean, then the sum of squared deviations) in double for
// every dtype: one extra read of a row that is in cache, and no catastrophic
// cancellation for rows with a large mean (E[x^2] - E[x]^2 loses everything there).
// The output pass is a per-row (or per-channel) scale and shift in float (double
// for float64). layer_norm and rms_norm rows run the SIMD kernel of nn/norm_rows.cc
// (one read of each row from memory, float-lane block sums added in double);
// ASC_NN_LNORM_ONEDNN=1 selects oneDNN's layer_normalization for comparisons.
#include "asc/nn/norm.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <omp.h>
#include <unordered_map>

#include "nn/nn_util.h"
#include "nn/norm_rows.h"
#include "nn/onednn.h"
#include "runtime/parallel_for.h"

namespace asc::nn {
namespace {

using detail::Acc;
using detail::dispatch_float;
using detail::read_vec;
using detail::write_vec;

[[noreturn]] void bad_param(const std::string& op, const std::string& msg) {
  throw Error(Status::Invalid(op, msg));
}
[[noreturn]] void bad_shape(const std::string& op, const std::string& msg) {
  throw Error(Status::Make(ErrorCode::kInvalidShape, op, msg));
}

void check_float(const Tensor& x, const std::string& op) { dispatch_float(x.dtype(), op, "input", [](auto) {}); }

void check_eps(double eps, const std::string& op) {
  if (!(eps >= 0)) bad_param(op, "eps must be non-negative, got " + std::to_string(eps));
}

/// Per-channel (N, C, S) view sizes of x (N, C, *) or (N, C).
struct NCS {
  int64_t n = 0, c = 0, s = 1;
};
NCS ncs_of(const Tensor& x, const std::string& op, int64_t min_ndim) {
  if (x.ndim() < min_ndim) {
    bad_shape(op, "expected an input with at least " + std::to_string(min_ndim) + " dimensions (N, C, ...), got " +
                      Tensor::shape_str(x.shape()));
  }
  NCS r;
  r.n = x.shape()[0];
  r.c = x.shape()[1];
  for (int64_t i = 2; i < x.ndim(); ++i) r.s *= x.shape()[size_t(i)];
  return r;
}

std::vector<double> opt_vec(const Tensor* t, int64_t n, double fill, const std::string& op, const char* what) {
  if (!t) return std::vector<double>(size_t(n), fill);
  return read_vec(*t, n, op, what);
}

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
  if constexpr (std::is_same_v<T, double>) return DType::kFloat64;
  if constexpr (std::is_same_v<T, asc::float16>) return DType::kFloat16;
  return DType::kBFloat16;
}

/// y[i] = (x[i] - m) * sc + sh over `n` elements (scalar: planes too short for the SIMD spans).
template <class T>
void affine_row(const T* x, T* y, int64_t n, double sc, double sh, double m) {
  using A = typename Acc<T>::type;
  const A a = static_cast<A>(sc), b = static_cast<A>(sh), c = static_cast<A>(m);
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>((static_cast<A>(x[i]) - c) * a + b);
}

// Planes of at least this many elements take the SIMD scale/shift (nn/norm_rows.cc); shorter
// ones (e.g. (N, C) inputs, one element per plane) the scalar loop, without a dispatched call
// per plane.
constexpr int64_t kSimdPlane = 16;

/// The compute-type copy of n coefficients (float; float64 uses the doubles themselves).
const void* compute_coeffs(DType dt, const double* v, size_t n, std::vector<float>& buf) {
  if (dt == DType::kFloat64) return v;
  buf.assign(v, v + n);
  return buf.data();
}

/// Mean and biased variance from the first-pass mean m0 and norm_span_dev's sums s1, s2 of
/// n elements (taken around m0 rounded to the compute type). A NaN stays NaN.
void finish_moments(DType dt, double m0, double s1, double s2, double n, double& mean, double& var) {
  const double r = s1 / n;
  mean = (dt == DType::kFloat64 ? m0 : static_cast<double>(static_cast<float>(m0))) + r;
  var = s2 / n - r * r;
  if (var < 0) var = 0;
}

/// Mean and biased variance of `n` contiguous elements: the SIMD block sums of nn/norm_rows.cc
/// (float lanes per block added in double), then the sums of deviations around that mean
/// (two-pass: no cancellation for a large mean; the second pass reads from cache when the span
/// fits in it).
template <class T>
void moments(const T* x, int64_t n, double& mean, double& var) {
  if (n == 0) {
    mean = var = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  constexpr DType dt = dtype_of<T>();
  const double m0 = detail::norm_span_sum(dt, x, n) / double(n);
  double s1 = 0, s2 = 0;
  detail::norm_span_dev(dt, x, n, m0, s1, s2);
  finish_moments(dt, m0, s1, s2, double(n), mean, var);
}

// Scale/shift passes of at least this many elements run on all cores (below, a launch
// costs more than it saves); float32 / float64 outputs of at least kStreamMin bytes are
// streamed (they would evict the cache anyway; a smaller result is likely read from cache next).
constexpr int64_t kParallelMin = 1 << 15;
constexpr int64_t kStreamMin = 4 << 20;

/// Whether an output of `bytes` bytes of dtype T is written with streaming stores;
/// ASC_NN_NORM_STREAM=0 turns them off (benchmark comparisons).
template <class T>
bool stream_output(int64_t bytes) {
  static const bool stream_ok = [] {
    const char* e = std::getenv("ASC_NN_NORM_STREAM");
    return !(e && e[0] == '0');
  }();
  return stream_ok && (std::is_same_v<T, float> || std::is_same_v<T, double>) && bytes >= kStreamMin;
}

/// y = x * sc[j] + sh[j] over elements [lo, hi) of one row of planes of `s` elements each
/// (j = the plane; sc / sh / mu indexed from the row's first plane), computed as
/// (x - m[j]) * sc[j] + (sh[j] + m[j] * sc[j]) with m[j] the compute-type rounding of the plane's
/// centre mu[j] (its mean, or the running mean; none when mu is null): x - m is exact for x near
/// the mean, so a large mean does not cancel against the shift in float. The SIMD span (streamed
/// when `stream`) for planes of >= kSimdPlane elements, else scalar.
template <class T>
void affine_span(const T* x, T* y, int64_t lo, int64_t hi, int64_t s, const double* sc, const double* sh,
                 const double* mu, bool stream) {
  constexpr DType dt = dtype_of<T>();
  const int64_t j0 = lo / s, j1 = (hi + s - 1) / s;
  const size_t k = size_t(j1 - j0);
  std::vector<double> m(k, 0.0), c(k);
  for (size_t j = 0; j < k; ++j) {
    if (mu) m[j] = dt == DType::kFloat64 ? mu[j0 + int64_t(j)] : double(float(mu[j0 + int64_t(j)]));
    c[j] = sh[j0 + int64_t(j)] + m[j] * sc[j0 + int64_t(j)];
  }
  if (s >= kSimdPlane) {
    std::vector<float> fa, fc, fm;
    const void* a = compute_coeffs(dt, sc + j0, k, fa);
    const void* cc = compute_coeffs(dt, c.data(), k, fc);
    const void* mm = compute_coeffs(dt, m.data(), k, fm);
    // planes from j0: the span's pointers start at plane j0
    detail::norm_affine_span(dt, x + j0 * s, y + j0 * s, lo - j0 * s, hi - j0 * s, s, a, cc, mm, stream);
    return;
  }
  for (int64_t i = lo; i < hi;) {
    const int64_t j = i / s, e = std::min(hi, (j + 1) * s);
    affine_row<T>(x + i, y + i, e - i, sc[j], c[size_t(j - j0)], m[size_t(j - j0)]);
    i = e;
  }
}

/// Per-(n, c) or per-channel scale/shift application on (N, C, S): planes split over the
/// cores (memory-bound: one core does not saturate the memory bandwidth), each core's planes
/// of one n in one SIMD span call.
template <class T>
void apply_channels(const char* op, const T* x, T* y, const NCS& d, const std::vector<double>& sc,
                    const std::vector<double>& sh, const std::vector<double>& mu, bool per_instance) {
  const int64_t total = d.n * d.c * d.s;
  const bool stream = stream_output<T>(total * int64_t(sizeof(T)));
  runtime::parallel_for(op, d.n * d.c, total, kParallelMin, [&](int64_t lo, int64_t hi) {
    for (int64_t p = lo; p < hi;) {
      // planes [p, e) of one n: coefficients from index p (per instance) or p % C
      const int64_t n = p / d.c, e = std::min(hi, (n + 1) * d.c);
      const int64_t i0 = per_instance ? p : p % d.c;
      affine_span<T>(x + p * d.s, y + p * d.s, 0, (e - p) * d.s, d.s, sc.data() + i0, sh.data() + i0,
                     mu.empty() ? nullptr : mu.data() + i0, stream);
      p = e;
    }
  });
}

/// group_norm over `rows` = N * G rows of cg * s elements (x contiguous). With at least as
/// many rows as cores, rows split over the core workers (each row's statistics and output in
/// one task, the row read again from cache); with fewer, or a count that would leave a core
/// idle for a row's time (batch 1 and few groups, e.g. G = 1),
/// every row is cut into `pieces` spans: partial sums, then partial sums of deviations around
/// the mean, then the affine output, each phase over all (row, span) tasks. Statistics and
/// output by the SIMD spans of nn/norm_rows.cc (moments above); float32 / float64 outputs of
/// >= kStreamMin bytes are streamed.
template <class T>
void group_norm_rows(const T* x, T* y, int64_t rows, int64_t g, int64_t cg, int64_t s, const std::vector<double>& w,
                     const std::vector<double>& b, double eps) {
  constexpr DType dt = dtype_of<T>();
  const int64_t inner = cg * s, total = rows * inner;
  const bool stream = stream_output<T>(total * int64_t(sizeof(T)));
  const int64_t cores = std::max(1, runtime::current_device().properties().num_cores);
  const bool nested = runtime::current_block() != nullptr;
  // the per-row scale / shift of each of its cg planes
  auto coeffs = [&](int64_t r, double mean, double var, double* sc, double* sh) {
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < cg; ++j) {
      const size_t c = size_t((r % g) * cg + j);
      sc[j] = rstd * w[size_t(c)];
      sh[j] = b[size_t(c)] - mean * sc[j];
    }
  };
  if (nested || rows % cores == 0 || rows >= 4 * cores || total < kParallelMin) {
    runtime::parallel_for("group_norm", rows, total, kParallelMin, [&](int64_t r0, int64_t r1) {
      std::vector<double> sc(static_cast<size_t>(cg)), sh(static_cast<size_t>(cg)), mu(static_cast<size_t>(cg));
      for (int64_t r = r0; r < r1; ++r) {
        double mean = 0, var = 0;
        moments(x + r * inner, inner, mean, var);
        coeffs(r, mean, var, sc.data(), sh.data());
        std::fill(mu.begin(), mu.end(), mean);
        affine_span<T>(x + r * inner, y + r * inner, 0, inner, s, sc.data(), sh.data(), mu.data(), stream);
      }
    });
    return;
  }
  const int64_t pieces = std::max<int64_t>(1, std::min(inner / 4096, (2 * cores + rows - 1) / rows));
  const int64_t tasks = rows * pieces;
  auto span = [&](int64_t t, int64_t& lo, int64_t& hi) {
    const int64_t q = t % pieces;
    lo = inner * q / pieces;
    hi = inner * (q + 1) / pieces;
  };
  std::vector<double> part(static_cast<size_t>(tasks)), part2(static_cast<size_t>(tasks));
  std::vector<double> m0(static_cast<size_t>(rows));
  runtime::parallel_for("group_norm", tasks, total, kParallelMin, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t lo, hi;
      span(t, lo, hi);
      part[size_t(t)] = detail::norm_span_sum(dt, x + (t / pieces) * inner + lo, hi - lo);
    }
  });
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t q = 0; q < pieces; ++q) sum += part[size_t(r * pieces + q)];
    m0[size_t(r)] = sum / double(inner);
  }
  runtime::parallel_for("group_norm", tasks, total, kParallelMin, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t lo, hi;
      span(t, lo, hi);
      double s1 = 0, s2 = 0;
      detail::norm_span_dev(dt, x + (t / pieces) * inner + lo, hi - lo, m0[size_t(t / pieces)], s1, s2);
      part[size_t(t)] = s1;
      part2[size_t(t)] = s2;
    }
  });
  std::vector<double> sc(static_cast<size_t>(rows * cg)), sh(static_cast<size_t>(rows * cg));
  std::vector<double> mu(static_cast<size_t>(rows * cg));
  for (int64_t r = 0; r < rows; ++r) {
    double s1 = 0, s2 = 0;
    for (int64_t q = 0; q < pieces; ++q) {
      s1 += part[size_t(r * pieces + q)];
      s2 += part2[size_t(r * pieces + q)];
    }
    double mean = 0, var = 0;
    finish_moments(dt, m0[size_t(r)], s1, s2, double(inner), mean, var);
    coeffs(r, mean, var, sc.data() + r * cg, sh.data() + r * cg);
    std::fill(mu.begin() + r * cg, mu.begin() + (r + 1) * cg, mean);
  }
  runtime::parallel_for("group_norm", tasks, total, kParallelMin, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t lo, hi;
      span(t, lo, hi);
      const int64_t r = t / pieces;
      affine_span<T>(x + r * inner, y + r * inner, lo, hi, s, sc.data() + r * cg, sh.data() + r * cg,
                     mu.data() + r * cg, stream);
    }
  });
}

/// oneDNN's layer_normalization for float32 / bfloat16 only when ASC_NN_LNORM_ONEDNN=1
/// (benchmark comparisons): the own SIMD rows (nn/norm_rows.cc) measured faster.
bool onednn_lnorm_ok(const Tensor& x) {
  static const bool on = [] {
    const char* e = std::getenv("ASC_NN_LNORM_ONEDNN");
    return e && e[0] == '1';
  }();
  return on && (x.dtype() == DType::kFloat32 || x.dtype() == DType::kBFloat16) && x.numel() > 0;
}

}  // namespace

Tensor batch_norm(const Tensor& x_in, const Tensor* running_mean, const Tensor* running_var, const Tensor* weight,
                  const Tensor* bias, const NormAttrs& a) {
  const std::string op = "batch_norm";
  check_float(x_in, op);
  check_eps(a.eps, op);
  const NCS d = ncs_of(x_in, op, 2);
  if (!a.training && (!running_mean || !running_var)) {
    bad_param(op, "running_mean and running_var are required when training=False");
  }
  if (a.training && running_mean) detail::check_writable(*running_mean, op, "running_mean");
  if (a.training && running_var) detail::check_writable(*running_var, op, "running_var");
  std::vector<double> rm = running_mean ? read_vec(*running_mean, d.c, op, "running_mean") : std::vector<double>();
  std::vector<double> rv = running_var ? read_vec(*running_var, d.c, op, "running_var") : std::vector<double>();
  const std::vector<double> w = opt_vec(weight, d.c, 1.0, op, "weight");
  const std::vector<double> b = opt_vec(bias, d.c, 0.0, op, "bias");
  if (a.training && d.n * d.s <= 1) {
    bad_param(op, "expected more than 1 value per channel when training, got input of shape " +
                      Tensor::shape_str(x_in.shape()));
  }
  const Tensor x = x_in.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  std::vector<double> mean(size_t(d.c)), var(size_t(d.c));
  if (a.training) {
    dispatch_float(x.dtype(), op, "input", [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data_as<const T>();
      const double cnt = double(d.n * d.s);
      for (int64_t c = 0; c < d.c; ++c) {
        double s = 0;
        for (int64_t n = 0; n < d.n; ++n) {
          const T* r = xp + (n * d.c + c) * d.s;
          for (int64_t i = 0; i < d.s; ++i) s += static_cast<double>(r[i]);
        }
        const double m = s / cnt;
        double q = 0;
        for (int64_t n = 0; n < d.n; ++n) {
          const T* r = xp + (n * d.c + c) * d.s;
          for (int64_t i = 0; i < d.s; ++i) {
            const double e = static_cast<double>(r[i]) - m;
            q += e * e;
          }
        }
        mean[size_t(c)] = m;
        var[size_t(c)] = q / cnt;
      }
    });
    if (running_mean && running_var) {
      const double cnt = double(d.n * d.s);
      for (size_t c = 0; c < size_t(d.c); ++c) {
        rm[c] = (1 - a.momentum) * rm[c] + a.momentum * mean[c];
        rv[c] = (1 - a.momentum) * rv[c] + a.momentum * var[c] * cnt / (cnt - 1);
      }
    } else if (running_mean) {
      for (size_t c = 0; c < size_t(d.c); ++c) rm[c] = (1 - a.momentum) * rm[c] + a.momentum * mean[c];
    } else if (running_var) {
      const double cnt = double(d.n * d.s);
      for (size_t c = 0; c < size_t(d.c); ++c) rv[c] = (1 - a.momentum) * rv[c] + a.momentum * var[c] * cnt / (cnt - 1);
    }
  } else {
    mean = rm;
    var = rv;
  }
  if (x.numel() > 0) {
    // Own kernel for every dtype: a per-channel scale/shift, one read and one write (streamed
    // for large float32 outputs), planes split over the cores. oneDNN's batch_normalization
    // (nchw, use_global_stats) measured 7.6 ms vs 1.16 ms for this loop on 2^22 float32
    // (8, 64, 64, 128), one thread, so it is not used here.
    std::vector<double> sc(size_t(d.c)), sh(size_t(d.c));
    for (size_t c = 0; c < size_t(d.c); ++c) {
      sc[c] = w[c] / std::sqrt(var[c] + a.eps);
      sh[c] = b[c] - mean[c] * sc[c];
    }
    dispatch_float(x.dtype(), op, "input", [&](auto tag) {
      using T = decltype(tag);
      apply_channels<T>("batch_norm", x.data_as<const T>(), y.data_as<T>(), d, sc, sh, mean, false);
    });
  }
  if (a.training) {
    if (running_mean) write_vec(*running_mean, rm, op, "running_mean");
    if (running_var) write_vec(*running_var, rv, op, "running_var");
  }
  return y;
}

namespace {

/// Normalised trailing axes: (outer, inner) sizes; checks weight/bias shapes.
void rows_of(const Tensor& x, int64_t k, const std::string& op, int64_t& outer, int64_t& inner, Shape& norm_shape) {
  if (k < 1 || k > x.ndim()) {
    bad_shape(op, "normalized_shape has " + std::to_string(k) + " dimensions but the input has shape " +
                      Tensor::shape_str(x.shape()));
  }
  outer = 1;
  inner = 1;
  for (int64_t i = 0; i < x.ndim(); ++i) {
    if (i < x.ndim() - k) {
      outer *= x.shape()[size_t(i)];
    } else {
      inner *= x.shape()[size_t(i)];
      norm_shape.push_back(x.shape()[size_t(i)]);
    }
  }
}

std::vector<double> affine_param(const Tensor* t, const Shape& shape, int64_t inner, const std::string& op,
                                 const char* what) {
  if (!t) return {};
  if (t->shape() != shape) {
    bad_shape(op, std::string(what) + " must have the normalized shape " + Tensor::shape_str(shape) + ", got " +
                      Tensor::shape_str(t->shape()));
  }
  return read_vec(t->reshape({inner}), inner, op, what);
}

// Sets the calling thread's OpenMP team size for a scope (ICVs are per thread).
struct OmpThreads {
  int prev;
  explicit OmpThreads(int n) : prev(omp_get_max_threads()) {
    if (prev != n) omp_set_num_threads(n);
  }
  ~OmpThreads() {
    if (omp_get_max_threads() != prev) omp_set_num_threads(prev);
  }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;
};

/// oneDNN layer_norm of rows [r0, r1) on the calling thread (one OpenMP thread). Each piece
/// index has its own cached primitive, so concurrent pieces share no primitive state.
void onednn_lnorm_rows(const Tensor& x, Tensor& y, int64_t r0, int64_t r1, int64_t inner, const std::vector<float>& fw,
                       const std::vector<float>& fb, double eps, int64_t piece, int threads) {
  using namespace dnnl;
  const int64_t rows = r1 - r0;
  const memory::dims dims = {rows, inner};
  const bool sc = !fw.empty(), sh = !fb.empty();
  const memory::data_type dt = to_dnnl(x.dtype(), "layer_norm");
  const std::string key = "layer_norm:" + std::string(dtype_name(x.dtype())) + ":" + std::to_string(rows) + "," +
                          std::to_string(inner) + ":" + std::to_string(eps) + ":" + (sc ? "w" : "") + (sh ? "b" : "") +
                          "|piece" + std::to_string(piece);
  OmpThreads team(threads);
  auto prim = PrimitiveCache::instance().get<layer_normalization_forward>(key, [&] {
    const memory::desc md(dims, dt, memory::format_tag::ab);
    auto flags = normalization_flags::none;
    if (sc) flags = flags | normalization_flags::use_scale;
    if (sh) flags = flags | normalization_flags::use_shift;
    const layer_normalization_forward::desc desc(prop_kind::forward_inference, md, static_cast<float>(eps), flags);
    const layer_normalization_forward::primitive_desc pd(desc, cpu_engine());
    return std::make_shared<const layer_normalization_forward>(pd);
  });
  const memory::desc md(dims, dt, memory::format_tag::ab);
  const memory::desc vd({inner}, memory::data_type::f32, memory::format_tag::a);
  const memory::desc statd({rows}, memory::data_type::f32, memory::format_tag::a);
  std::vector<float> fm(static_cast<size_t>(rows)), fv(static_cast<size_t>(rows));
  engine& eng = cpu_engine();
  const size_t off = static_cast<size_t>(r0 * inner) * dtype_size(x.dtype());
  memory src(md, eng, static_cast<void*>(static_cast<uint8_t*>(x.data()) + off));
  memory dst(md, eng, static_cast<void*>(static_cast<uint8_t*>(y.data()) + off));
  memory mm(statd, eng, fm.data()), vm(statd, eng, fv.data());
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_MEAN, mm}, {DNNL_ARG_VARIANCE, vm}};
  if (sc) args[DNNL_ARG_SCALE] = memory(vd, eng, const_cast<float*>(fw.data()));
  if (sh) args[DNNL_ARG_SHIFT] = memory(vd, eng, const_cast<float*>(fb.data()));
  stream& st = thread_stream();
  prim->execute(st, args);
  st.wait();
}

/// oneDNN layer_norm: rows cut into one single-threaded piece per core, run by the device's
/// core workers (an OpenMP team spinning at its barriers stalls for tens of ms on a shared
/// machine, as conv.cc measured); inline as one piece inside a kernel block or when small.
void onednn_lnorm(const Tensor& x, Tensor& y, int64_t outer, int64_t inner, const std::vector<double>& w,
                  const std::vector<double>& b, double eps) {
  const std::vector<float> fw(w.begin(), w.end()), fb(b.begin(), b.end());
  const bool nested = runtime::current_block() != nullptr;
  const int cores = std::max(1, runtime::current_device().properties().num_cores);
  // ASC_NN_LNORM_OMP=1: the former single call with a team of `cores` OpenMP threads
  // (benchmark comparisons)
  static const bool omp_team = [] {
    const char* e = std::getenv("ASC_NN_LNORM_OMP");
    return e && e[0] == '1';
  }();
  if (omp_team && !nested) {
    guarded("layer_norm", [&] { onednn_lnorm_rows(x, y, 0, outer, inner, fw, fb, eps, 0, cores); });
    return;
  }
  const int64_t pieces = (nested || outer * inner < kParallelMin) ? 1 : std::min<int64_t>(cores, outer);
  runtime::parallel_for("layer_norm", pieces, outer * inner, kParallelMin, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      // oneDNN's errors become asc errors inside the piece (a block rethrows asc::Error)
      guarded("layer_norm", [&] {
        onednn_lnorm_rows(x, y, outer * p / pieces, outer * (p + 1) / pieces, inner, fw, fb, eps, p, 1);
      });
    }
  });
}

// Rows of at least this many elements, fewer than the cores, are cut into spans over the cores.
constexpr int64_t kLongRow = 1 << 16;

/// layer_norm (or rms_norm) of `outer` rows of `inner` elements by the SIMD rows of
/// nn/norm_rows.cc, rows split over the device's core workers (not OpenMP: a team spinning
/// at its barriers on a shared machine stalls for tens of ms, as conv.cc measured).
void simd_norm(const char* op, const Tensor& x, Tensor& y, int64_t outer, int64_t inner, const std::vector<double>& w,
               const std::vector<double>& b, double eps, bool rms) {
  const bool f64 = x.dtype() == DType::kFloat64;
  // w / b in the compute type (float, or double for float64); null when absent
  const std::vector<float> fw = f64 ? std::vector<float>() : std::vector<float>(w.begin(), w.end());
  const std::vector<float> fb = f64 ? std::vector<float>() : std::vector<float>(b.begin(), b.end());
  const void* wp = w.empty() ? nullptr : f64 ? static_cast<const void*>(w.data()) : fw.data();
  const void* bp = b.empty() ? nullptr : f64 ? static_cast<const void*>(b.data()) : fb.data();
  int flags = rms ? detail::kNormRms : 0;
  const int64_t bytes = outer * inner * int64_t(x.itemsize());
  if (f64 ? stream_output<double>(bytes) : stream_output<float>(bytes) && x.dtype() == DType::kFloat32) {
    flags |= detail::kNormStream;
  }
  // raw pointers taken on the calling thread (materialises pending lazy work) before launching
  const uint8_t* xp = x.data();
  uint8_t* yp = y.data();
  const DType dt = x.dtype();
  const int64_t cores = std::max(1, runtime::current_device().properties().num_cores);
  const bool nested = runtime::current_block() != nullptr;
  if (nested || outer >= cores || inner < kLongRow) {
    runtime::parallel_for(op, outer, outer * inner, kParallelMin, [&](int64_t r0, int64_t r1) {
      detail::norm_rows(dt, xp, yp, r0, r1, inner, wp, bp, eps, flags);
    });
    return;
  }
  // Fewer rows than cores, each long (e.g. one row of 2^22): every row cut into `pieces` spans
  // and the statistics and output run as phases over all (row, span) tasks (as group_norm):
  // partial sums, partial deviation sums around the row's mean (rms_norm: sums of squares, one
  // phase), then the output. The row is read from memory once per phase (it does not fit in
  // the cache anyway).
  const int64_t pieces = std::max<int64_t>(1, std::min(inner / 4096, (2 * cores + outer - 1) / outer));
  const int64_t tasks = outer * pieces;
  const size_t item = x.itemsize();
  auto span = [&](int64_t t, int64_t& lo, int64_t& hi) {
    lo = inner * (t % pieces) / pieces;
    hi = inner * (t % pieces + 1) / pieces;
  };
  std::vector<double> p1(static_cast<size_t>(tasks)), p2(static_cast<size_t>(tasks)), m0(static_cast<size_t>(outer));
  if (!rms) {
    runtime::parallel_for(op, tasks, outer * inner, kParallelMin, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        int64_t lo, hi;
        span(t, lo, hi);
        p1[size_t(t)] = detail::norm_span_sum(dt, xp + size_t((t / pieces) * inner + lo) * item, hi - lo);
      }
    });
    for (int64_t r = 0; r < outer; ++r) {
      double sum = 0;
      for (int64_t q = 0; q < pieces; ++q) sum += p1[size_t(r * pieces + q)];
      m0[size_t(r)] = sum / double(inner);
    }
  }
  runtime::parallel_for(op, tasks, outer * inner, kParallelMin, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t lo, hi;
      span(t, lo, hi);
      // rms_norm: deviations around 0 are the values, s2 the sum of squares
      double s1 = 0, s2 = 0;
      detail::norm_span_dev(dt, xp + size_t((t / pieces) * inner + lo) * item, hi - lo, m0[size_t(t / pieces)], s1,
                            s2);
      p1[size_t(t)] = s1;
      p2[size_t(t)] = s2;
    }
  });
  std::vector<double> mean(static_cast<size_t>(outer)), var(static_cast<size_t>(outer));
  for (int64_t r = 0; r < outer; ++r) {
    double s1 = 0, s2 = 0;
    for (int64_t q = 0; q < pieces; ++q) {
      s1 += p1[size_t(r * pieces + q)];
      s2 += p2[size_t(r * pieces + q)];
    }
    if (rms) {
      var[size_t(r)] = s2 / double(inner);
    } else {
      finish_moments(dt, m0[size_t(r)], s1, s2, double(inner), mean[size_t(r)], var[size_t(r)]);
    }
  }
  const size_t citem = f64 ? sizeof(double) : sizeof(float);
  runtime::parallel_for(op, tasks, outer * inner, kParallelMin, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t lo, hi;
      span(t, lo, hi);
      const int64_t r = t / pieces;
      const size_t off = size_t(r * inner + lo) * item;
      detail::norm_row_out(dt, xp + off, yp + off, hi - lo,
                           wp ? static_cast<const uint8_t*>(wp) + size_t(lo) * citem : nullptr,
                           bp ? static_cast<const uint8_t*>(bp) + size_t(lo) * citem : nullptr, mean[size_t(r)],
                           var[size_t(r)], eps, flags);
    }
  });
}

}  // namespace

Tensor layer_norm(const Tensor& x_in, const Tensor* weight, const Tensor* bias, const NormAttrs& a) {
  const std::string op = "layer_norm";
  check_float(x_in, op);
  check_eps(a.eps, op);
  int64_t outer = 0, inner = 0;
  Shape ns;
  rows_of(x_in, a.normalized_ndim, op, outer, inner, ns);
  const std::vector<double> w = affine_param(weight, ns, inner, op, "weight");
  const std::vector<double> b = affine_param(bias, ns, inner, op, "bias");
  const Tensor x = x_in.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  if (x.numel() == 0) return y;
  if (onednn_lnorm_ok(x)) {
    try {
      onednn_lnorm(x, y, outer, inner, w, b, a.eps);
      return y;
    } catch (const Error& e) {
      // a configuration this oneDNN build does not implement: the own kernel below
      if (e.code() != ErrorCode::kApiNotSupport) throw;
    }
  }
  simd_norm("layer_norm", x, y, outer, inner, w, b, a.eps, false);
  return y;
}

Tensor rms_norm(const Tensor& x_in, const Tensor* weight, const NormAttrs& a) {
  const std::string op = "rms_norm";
  check_float(x_in, op);
  int64_t outer = 0, inner = 0;
  Shape ns;
  rows_of(x_in, a.normalized_ndim, op, outer, inner, ns);
  const std::vector<double> w = affine_param(weight, ns, inner, op, "weight");
  double eps = a.eps;
  if (eps < 0) {
    switch (x_in.dtype()) {
      case DType::kFloat64: eps = std::numeric_limits<double>::epsilon(); break;
      case DType::kFloat16: eps = 0.0009765625; break;
      case DType::kBFloat16: eps = 0.0078125; break;
      default: eps = std::numeric_limits<float>::epsilon(); break;
    }
  }
  const Tensor x = x_in.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  if (x.numel() == 0) return y;
  simd_norm("rms_norm", x, y, outer, inner, w, {}, eps, true);
  return y;
}

Tensor group_norm(const Tensor& x_in, const Tensor* weight, const Tensor* bias, const NormAttrs& a) {
  const std::string op = "group_norm";
  check_float(x_in, op);
  check_eps(a.eps, op);
  const NCS d = ncs_of(x_in, op, 2);
  const int64_t g = a.num_groups;
  if (g <= 0 || d.c % g != 0) {
    bad_param(op, "expected the number of channels " + std::to_string(d.c) + " to be divisible by num_groups " +
                      std::to_string(g) + ", input shape " + Tensor::shape_str(x_in.shape()));
  }
  const std::vector<double> w = opt_vec(weight, d.c, 1.0, op, "weight");
  const std::vector<double> b = opt_vec(bias, d.c, 0.0, op, "bias");
  const Tensor x = x_in.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  if (x.numel() == 0) return y;
  const int64_t cg = d.c / g;
  dispatch_float(x.dtype(), op, "input", [&](auto tag) {
    using T = decltype(tag);
    group_norm_rows<T>(x.data_as<const T>(), y.data_as<T>(), d.n * g, g, cg, d.s, w, b, a.eps);
  });
  return y;
}

Tensor instance_norm(const Tensor& x_in, const Tensor* running_mean, const Tensor* running_var, const Tensor* weight,
                     const Tensor* bias, const NormAttrs& a) {
  const std::string op = "instance_norm";
  check_float(x_in, op);
  check_eps(a.eps, op);
  const NCS d = ncs_of(x_in, op, 2);
  if (!a.training && (!running_mean || !running_var)) {
    bad_param(op, "running_mean and running_var are required when use_input_stats=False");
  }
  if (a.training && running_mean) detail::check_writable(*running_mean, op, "running_mean");
  if (a.training && running_var) detail::check_writable(*running_var, op, "running_var");
  std::vector<double> rm = running_mean ? read_vec(*running_mean, d.c, op, "running_mean") : std::vector<double>();
  std::vector<double> rv = running_var ? read_vec(*running_var, d.c, op, "running_var") : std::vector<double>();
  const std::vector<double> w = opt_vec(weight, d.c, 1.0, op, "weight");
  const std::vector<double> b = opt_vec(bias, d.c, 0.0, op, "bias");
  if (a.training && d.s <= 1) {
    bad_param(op, "expected more than 1 spatial element when training, got input of shape " +
                      Tensor::shape_str(x_in.shape()));
  }
  const Tensor x = x_in.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  const size_t nc = size_t(d.n * d.c);
  std::vector<double> sc(a.training ? nc : size_t(d.c)), sh(sc.size());
  std::vector<double> mu;  // the centre of each plane's scale/shift (affine_span)
  if (a.training) {
    std::vector<double> mean(nc), var(nc);
    dispatch_float(x.dtype(), op, "input", [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data_as<const T>();
      // planes over the core workers (each plane's two passes on one thread, from cache)
      runtime::parallel_for("instance_norm", int64_t(nc), int64_t(nc) * d.s, kParallelMin, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) moments(xp + i * d.s, d.s, mean[size_t(i)], var[size_t(i)]);
      });
    });
    for (size_t i = 0; i < nc; ++i) {
      const size_t c = i % size_t(d.c);
      sc[i] = w[c] / std::sqrt(var[i] + a.eps);
      sh[i] = b[c] - mean[i] * sc[i];
    }
    mu = mean;
    if (d.n > 0) {
      const double unb = double(d.s) / double(d.s - 1);
      for (size_t c = 0; c < size_t(d.c); ++c) {
        double m = 0, v = 0;
        for (int64_t n = 0; n < d.n; ++n) {
          m += mean[size_t(n) * size_t(d.c) + c];
          v += var[size_t(n) * size_t(d.c) + c] * unb;
        }
        if (running_mean) rm[c] = (1 - a.momentum) * rm[c] + a.momentum * m / double(d.n);
        if (running_var) rv[c] = (1 - a.momentum) * rv[c] + a.momentum * v / double(d.n);
      }
      if (running_mean) write_vec(*running_mean, rm, op, "running_mean");
      if (running_var) write_vec(*running_var, rv, op, "running_var");
    }
  } else {
    for (size_t c = 0; c < size_t(d.c); ++c) {
      sc[c] = w[c] / std::sqrt(rv[c] + a.eps);
      sh[c] = b[c] - rm[c] * sc[c];
    }
    mu = rm;
  }
  if (x.numel() == 0) return y;
  dispatch_float(x.dtype(), op, "input", [&](auto tag) {
    using T = decltype(tag);
    apply_channels<T>("instance_norm", x.data_as<const T>(), y.data_as<T>(), d, sc, sh, mu, a.training);
  });
  return y;
}

Tensor local_response_norm(const Tensor& x_in, int64_t size, double alpha, double beta, double k) {
  const std::string op = "local_response_norm";
  check_float(x_in, op);
  if (size <= 0) bad_param(op, "size must be positive, got " + std::to_string(size));
  const NCS d = ncs_of(x_in, op, 3);
  const Tensor x = x_in.contiguous();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  if (x.numel() == 0) return y;
  const int64_t lo = size / 2, hi = (size - 1) / 2;
  // (n, c) planes, each cut into `sp` spatial spans when there are few planes, split over
  // the core workers; a span's window sum runs over its own slice of the `size` planes
  const int64_t planes = d.n * d.c;
  const int64_t cores = std::max(1, runtime::current_device().properties().num_cores);
  const int64_t sp = planes >= 4 * cores ? 1 : std::max<int64_t>(1, std::min(d.s / 1024, (4 * cores + planes - 1) / planes));
  const int64_t work = planes * d.s * std::min(size, d.c);
  dispatch_float(x.dtype(), op, "input", [&](auto tag) {
    using T = decltype(tag);
    using A = typename Acc<T>::type;
    const T* xp = x.data_as<const T>();
    T* yp = y.data_as<T>();
    const A ka = static_cast<A>(k), an = static_cast<A>(alpha) / static_cast<A>(size), be = static_cast<A>(beta);
    runtime::parallel_for(op.c_str(), planes * sp, work, kParallelMin, [&](int64_t t0, int64_t t1) {
      std::vector<A> acc;
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t p = t / sp, q = t % sp, n = p / d.c, c = p % d.c;
        const int64_t i0 = d.s * q / sp, i1 = d.s * (q + 1) / sp;
        acc.assign(size_t(i1 - i0), A(0));
        for (int64_t cc = std::max<int64_t>(0, c - lo); cc <= std::min(d.c - 1, c + hi); ++cc) {
          const T* r = xp + (n * d.c + cc) * d.s + i0;
          for (int64_t i = 0; i < i1 - i0; ++i) {
            const A v = static_cast<A>(r[i]);
            acc[size_t(i)] += v * v;
          }
        }
        const T* xr = xp + p * d.s + i0;
        T* yr = yp + p * d.s + i0;
        for (int64_t i = 0; i < i1 - i0; ++i) {
          const A div = std::pow(ka + an * acc[size_t(i)], be);
          yr[i] = static_cast<T>(static_cast<A>(xr[i]) / div);
        }
      }
    });
  });
  return y;
}

namespace {

/// Axis of each of N, C, H, W in a layout string (-1 when absent); checks it.
void parse_layout(const std::string& l, int pos[4], const std::string& op) {
  static const char kAxes[4] = {'N', 'C', 'H', 'W'};
  for (int i = 0; i < 4; ++i) pos[i] = -1;
  bool ok = l.size() == 3 || l.size() == 4;
  for (size_t i = 0; ok && i < l.size(); ++i) {
    const char* f = std::find(kAxes, kAxes + 4, l[i]);
    if (f == kAxes + 4 || pos[f - kAxes] != -1) {
      ok = false;
    } else {
      pos[f - kAxes] = int(i);
    }
  }
  if (ok && (pos[1] < 0 || pos[2] < 0 || pos[3] < 0 || (l.size() == 3) != (pos[0] < 0))) ok = false;
  if (!ok) bad_param(op, "layout must be a permutation of 'CHW' or 'NCHW', got '" + l + "'");
}

}  // namespace

Tensor normalize_image(const Tensor& x_in, const std::vector<double>& mean, const std::vector<double>& stdv,
                       const std::string& layout, const std::string& out_layout, DType out_dtype, double scale) {
  const std::string op = "normalize_image";
  int ip[4], opos[4];
  parse_layout(layout, ip, op);
  parse_layout(out_layout, opos, op);
  if (layout.size() != out_layout.size()) {
    bad_param(op, "layout '" + layout + "' and out_layout '" + out_layout + "' must have the same axes");
  }
  if (x_in.ndim() != int64_t(layout.size())) {
    bad_shape(op, "layout '" + layout + "' needs a " + std::to_string(layout.size()) + "-D input, got shape " +
                      Tensor::shape_str(x_in.shape()));
  }
  const DTypeKind kind = dtype_traits(x_in.dtype()).kind;
  if (kind == DTypeKind::kComplex) throw Error(Status::TypeError(op, "complex images are not supported"));
  const int64_t c = x_in.shape()[size_t(ip[1])];
  auto expand = [&](const std::vector<double>& v, const char* what) {
    if (v.size() == 1) return std::vector<double>(size_t(c), v[0]);
    if (int64_t(v.size()) != c) {
      bad_shape(op, std::string(what) + " has " + std::to_string(v.size()) + " entries but the image has " +
                        std::to_string(c) + " channels (shape " + Tensor::shape_str(x_in.shape()) + ", layout '" +
                        layout + "')");
    }
    return v;
  };
  const std::vector<double> m = expand(mean, "mean"), s = expand(stdv, "std");
  for (double v : s) {
    if (v == 0) bad_param(op, "std evaluated to zero, leading to division by zero");
  }
  // Permute the input (a view) into the output's axis order, then one pass.
  std::vector<int64_t> perm;
  for (char ch : out_layout) perm.push_back(int64_t(layout.find(ch)));
  const Tensor xv = x_in.permute(perm);
  Tensor y = Tensor::empty(xv.shape(), out_dtype);
  const int cax = opos[1];
  std::vector<double> sc(static_cast<size_t>(c)), sh(static_cast<size_t>(c));
  for (size_t i = 0; i < size_t(c); ++i) {
    sc[i] = scale / s[i];
    sh[i] = -m[i] / s[i];
  }
  if (y.numel() == 0) return y;
  const int64_t nd = xv.ndim();
  const uint8_t* base = xv.data();
  auto run = [&](auto in_tag, auto out_tag) {
    using I = decltype(in_tag);
    using O = decltype(out_tag);
    using A = typename Acc<O>::type;
    std::vector<A> fsc(sc.begin(), sc.end()), fsh(sh.begin(), sh.end());
    O* out = y.data_as<O>();
    std::vector<int64_t> idx(size_t(nd), 0);
    const int64_t last = xv.shape()[size_t(nd - 1)], lstride = xv.strides()[size_t(nd - 1)];
    const bool c_last = cax == nd - 1;
    const int64_t rows = y.numel() / last;
    for (int64_t r = 0; r < rows; ++r) {
      int64_t off = 0;
      for (int64_t ax = 0; ax < nd - 1; ++ax) off += idx[size_t(ax)] * xv.strides()[size_t(ax)];
      const uint8_t* p = base + off;
      O* o = out + r * last;
      if (c_last) {
        for (int64_t i = 0; i < last; ++i) {
          o[i] = static_cast<O>(static_cast<A>(*reinterpret_cast<const I*>(p + i * lstride)) * fsc[size_t(i)] +
                                fsh[size_t(i)]);
        }
      } else {
        const size_t ch = size_t(idx[size_t(cax)]);
        const A a = fsc[ch], b = fsh[ch];
        if (lstride == int64_t(sizeof(I))) {
          const I* q = reinterpret_cast<const I*>(p);
          for (int64_t i = 0; i < last; ++i) o[i] = static_cast<O>(static_cast<A>(q[i]) * a + b);
        } else {
          for (int64_t i = 0; i < last; ++i) {
            o[i] = static_cast<O>(static_cast<A>(*reinterpret_cast<const I*>(p + i * lstride)) * a + b);
          }
        }
      }
      for (int64_t ax = nd - 2; ax >= 0; --ax) {
        if (++idx[size_t(ax)] < xv.shape()[size_t(ax)]) break;
        idx[size_t(ax)] = 0;
      }
    }
  };
  auto with_out = [&](auto in_tag) {
    dispatch_float(out_dtype, op, "dtype", [&](auto out_tag) { run(in_tag, out_tag); });
  };
  switch (x_in.dtype()) {
    case DType::kUInt8: with_out(uint8_t{}); break;
    case DType::kInt8: with_out(int8_t{}); break;
    case DType::kUInt16: with_out(uint16_t{}); break;
    case DType::kInt16: with_out(int16_t{}); break;
    case DType::kInt32: with_out(int32_t{}); break;
    case DType::kBool: with_out(uint8_t{}); break;
    default:
      dispatch_float(x_in.dtype(), op, "input", [&](auto in_tag) { with_out(in_tag); });
  }
  return y;
}

}  // namespace asc::nn
