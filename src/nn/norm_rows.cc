// layer_norm / rms_norm rows (nn/norm_rows.h), Highway dynamic dispatch.
//
// A row is read from memory once: pass 1 sums x (rms_norm: x^2) while the row streams
// in, pass 2 (layer_norm only) sums u = x - m and u^2 around pass 1's mean m, pass 3
// writes the output; passes 2 and 3 find the row in L1/L2 (a 4 KiB row of float32 stays
// in L1; a row larger than the cache is read again, which is then the only case of more
// than one read from memory). So the op moves its floor, one read and one write, and
// the in-cache passes cost ~2.5 vector operations per element in all.
//
// Accuracy: the sums run in float lanes (double for float64) over blocks of 1024
// elements (4 accumulators, so ~32 additions per lane), each block's lanes then added in
// double: the block error is ~32 ulp of the block's absolute sum, the row's error does
// not grow with its length. The variance is mean(u^2) - mean(u)^2 with u taken around m
// (a two-pass variance: no cancellation for rows with a large mean), and mean(u) also
// corrects m. The output subtracts the mean as a float pair (mh + ml): x - mh is exact
// for x near the mean, so a large mean costs no more than its rounding.
//
// Large float32 / float64 outputs are written with streaming stores (flag kNormStream):
// one write to memory instead of a read-for-ownership plus a write. The next row is
// prefetched during pass 2, so its DRAM fetch overlaps this row's in-cache passes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/norm_rows.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "kernel/simd/float16-inl.h"
#include "nn/norm_rows.h"

#ifndef ASC_NN_NORM_ROWS_ONCE
#define ASC_NN_NORM_ROWS_ONCE
namespace asc::nn::norm_rows_detail {
// elements per block of float-lane sums (added into double per block)
constexpr size_t kBlock = 1024;
enum Code : int { kF32 = 0, kF64 = 1, kF16 = 2, kBF16 = 3 };
}  // namespace asc::nn::norm_rows_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace asc::kernel::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace nr = asc::nn::norm_rows_detail;

namespace {

// The first r (< Lanes) elements at p into a vector, zeros in the other lanes.
template <class IO, class D>
HWY_INLINE hn::VFromD<D> LoadPart(D d, const typename IO::S* p, size_t r) {
  typename IO::S buf[kMaxLanes<typename IO::C>] = {};
  std::memcpy(buf, p, r * sizeof(typename IO::S));
  return IO::Load(d, buf);
}

template <class IO, class D>
HWY_INLINE void StorePart(D d, hn::VFromD<D> v, typename IO::S* p, size_t r) {
  typename IO::S buf[kMaxLanes<typename IO::C>];
  IO::Store(d, v, buf);
  std::memcpy(p, buf, r * sizeof(typename IO::S));
}

// The lanes of v added in double.
template <class D>
HWY_INLINE double LanesToDouble(D d, hn::VFromD<D> v) {
  using C = hn::TFromD<D>;
  C buf[kMaxLanes<C>];
  hn::StoreU(v, d, buf);
  double s = 0;
  for (size_t i = 0; i < hn::Lanes(d); ++i) s += static_cast<double>(buf[i]);
  return s;
}

// Sum of f(load(i)) over the row's full vectors [0, body) and the zero-padded tail vector
// (f(0) must be 0), in float lanes per block of kBlock elements, the blocks in double.
template <class D, class Load, class F>
HWY_INLINE double BlockSum(D d, size_t body, Load&& ld, hn::VFromD<D> tail, F&& f) {
  using V = hn::VFromD<D>;
  const size_t N = hn::Lanes(d);
  double s = 0;
  size_t i = 0;
  while (i < body) {
    const size_t end = std::min(body, i + nr::kBlock);
    V a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
    for (; i + 4 * N <= end; i += 4 * N) {
      a0 = f(a0, ld(i));
      a1 = f(a1, ld(i + N));
      a2 = f(a2, ld(i + 2 * N));
      a3 = f(a3, ld(i + 3 * N));
    }
    for (; i < end; i += N) a0 = f(a0, ld(i));
    s += LanesToDouble(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)));
  }
  return s + LanesToDouble(d, f(hn::Zero(d), tail));
}

// Sums of u = x - mf and u^2 over the n elements at x, float lanes per block of kBlock
// elements added in double (as BlockSum); the lines of nx (the next row) are prefetched.
template <class IO, class D>
HWY_INLINE void DevSums(D d, const typename IO::S* x, size_t n, hn::TFromD<D> mf, const typename IO::S* nx,
                        double& s1, double& s2) {
  using S = typename IO::S;
  using V = hn::VFromD<D>;
  const size_t N = hn::Lanes(d);
  const size_t body = n - n % N, rem = n - body;
  auto ld = [&](size_t i) { return IO::Load(d, x + i); };
  const V vm = hn::Set(d, mf);
  size_t i = 0;
  while (i < body) {
    const size_t end = std::min(body, i + nr::kBlock);
    // four independent (u, u^2) accumulator pairs: the add / FMA latency, not the
    // loads, bounds this in-cache loop
    V a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0, q0 = a0, q1 = a0, q2 = a0, q3 = a0;
    for (; i + 4 * N <= end; i += 4 * N) {
      for (size_t p = 0; p < 4 * N * sizeof(S); p += 64) hwy::Prefetch(reinterpret_cast<const char*>(nx + i) + p);
      const V u0 = hn::Sub(ld(i), vm), u1 = hn::Sub(ld(i + N), vm);
      const V u2 = hn::Sub(ld(i + 2 * N), vm), u3 = hn::Sub(ld(i + 3 * N), vm);
      a0 = hn::Add(a0, u0);
      a1 = hn::Add(a1, u1);
      a2 = hn::Add(a2, u2);
      a3 = hn::Add(a3, u3);
      q0 = hn::MulAdd(u0, u0, q0);
      q1 = hn::MulAdd(u1, u1, q1);
      q2 = hn::MulAdd(u2, u2, q2);
      q3 = hn::MulAdd(u3, u3, q3);
    }
    for (; i < end; i += N) {
      const V u = hn::Sub(ld(i), vm);
      a0 = hn::Add(a0, u);
      q0 = hn::MulAdd(u, u, q0);
    }
    s1 += LanesToDouble(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)));
    s2 += LanesToDouble(d, hn::Add(hn::Add(q0, q1), hn::Add(q2, q3)));
  }
  if (rem) {
    const V u = hn::IfThenElseZero(hn::FirstN(d, rem), hn::Sub(LoadPart<IO>(d, x + body, rem), vm));
    s1 += LanesToDouble(d, u);
    s2 += LanesToDouble(d, hn::Mul(u, u));
  }
}

// y = (x - m) * a + c over cnt elements (float32 / float64 with aligned streaming stores when
// `stream`: a partial vector up to the first aligned output, then Stream). x - m is exact for
// x near the centre m, so a large mean does not cancel against the shift (x * a + c would).
template <class IO, class D>
HWY_INLINE void AffineSeg(D d, const typename IO::S* x, typename IO::S* y, size_t cnt, hn::TFromD<D> a,
                          hn::TFromD<D> c, hn::TFromD<D> m, bool stream) {
  using S = typename IO::S;
  using C = hn::TFromD<D>;
  using V = hn::VFromD<D>;
  const size_t N = hn::Lanes(d);
  const V va = hn::Set(d, a), vc = hn::Set(d, c), vm = hn::Set(d, m);
  auto f = [&](V v) { return hn::MulAdd(hn::Sub(v, vm), va, vc); };
  auto part = [&](size_t i, size_t k) { StorePart<IO>(d, f(LoadPart<IO>(d, x + i, k)), y + i, k); };
  size_t i = 0;
  if constexpr (std::is_same_v<S, C>) {
    const size_t vb = N * sizeof(S), mis = reinterpret_cast<uintptr_t>(y) % vb;
    if (stream && mis % sizeof(S) == 0) {
      const size_t head = std::min(cnt, mis == 0 ? 0 : (vb - mis) / sizeof(S));
      if (head) part(0, head);
      for (i = head; i + N <= cnt; i += N) hn::Stream(f(hn::LoadU(d, x + i)), d, y + i);
      if (i < cnt) part(i, cnt - i);
      return;
    }
  }
  for (; i + 2 * N <= cnt; i += 2 * N) {
    IO::Store(d, f(IO::Load(d, x + i)), y + i);
    IO::Store(d, f(IO::Load(d, x + i + N)), y + i + N);
  }
  for (; i + N <= cnt; i += N) IO::Store(d, f(IO::Load(d, x + i)), y + i);
  if (i < cnt) part(i, cnt - i);
}

// Pass 3 of one row of n elements: (x - mh - ml) * rstd [* w] [+ b] (kRms: x * rstd
// [* w]). With `stream` (S == C), the elements before the first vector-aligned output go
// through a partial vector, then aligned streaming stores.
template <class IO, bool kRms, bool kW, bool kB, class D>
HWY_INLINE void OutRow(D d, const typename IO::S* x, typename IO::S* y, size_t n, const hn::TFromD<D>* w,
                       const hn::TFromD<D>* b, hn::TFromD<D> mh, hn::TFromD<D> ml, hn::TFromD<D> rstd, bool stream) {
  using S = typename IO::S;
  using C = hn::TFromD<D>;
  using V = hn::VFromD<D>;
  const size_t N = hn::Lanes(d);
  // (x - mh - ml) * rstd as (x - mh) * rstd - ml * rstd: one operation less per vector;
  // x - mh is exact near the mean, and ml (|ml| <= half an ulp of mh) enters as a product
  const V vh = hn::Set(d, mh), vl = hn::Set(d, static_cast<C>(-ml * rstd)), vr = hn::Set(d, rstd);
  auto f = [&](V v, V wl, V bl) {
    const V t = kRms ? hn::Mul(v, vr) : hn::MulAdd(hn::Sub(v, vh), vr, vl);
    if constexpr (kW && kB) return hn::MulAdd(t, wl, bl);
    if constexpr (kW && !kB) return hn::Mul(t, wl);
    if constexpr (!kW && kB) return hn::Add(t, bl);
    return t;
  };
  auto full = [&](size_t i) {
    return f(IO::Load(d, x + i), kW ? hn::LoadU(d, w + i) : hn::Zero(d), kB ? hn::LoadU(d, b + i) : hn::Zero(d));
  };
  auto part = [&](size_t i, size_t cnt) {
    const V o = f(LoadPart<IO>(d, x + i, cnt), kW ? LoadPart<NativeIO<C>>(d, w + i, cnt) : hn::Zero(d),
                  kB ? LoadPart<NativeIO<C>>(d, b + i, cnt) : hn::Zero(d));
    StorePart<IO>(d, o, y + i, cnt);
  };
  size_t i = 0;
  if constexpr (std::is_same_v<S, C>) {
    const size_t vb = N * sizeof(S), mis = reinterpret_cast<uintptr_t>(y) % vb;
    if (stream && mis % sizeof(S) == 0) {
      const size_t head = std::min(n, mis == 0 ? 0 : (vb - mis) / sizeof(S));
      if (head) part(0, head);
      for (i = head; i + N <= n; i += N) hn::Stream(full(i), d, y + i);
      if (i < n) part(i, n - i);
      return;
    }
  }
  for (; i + N <= n; i += N) IO::Store(d, full(i), y + i);
  if (i < n) part(i, n - i);
}

template <class IO>
void NormRowsT(const void* xv, void* yv, int64_t r0, int64_t r1, int64_t n, const void* wv, const void* bv,
               double eps, int flags) {
  using S = typename IO::S;
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  using V = hn::VFromD<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const bool rms = flags & asc::nn::detail::kNormRms;
  const bool stream = (flags & asc::nn::detail::kNormStream) && std::is_same_v<S, C>;
  const C* w = static_cast<const C*>(wv);
  const C* b = static_cast<const C*>(bv);
  const size_t un = static_cast<size_t>(n);
  const size_t body = un - un % N, rem = un - body;
  const double dn = static_cast<double>(n);
  for (int64_t row = r0; row < r1; ++row) {
    const S* x = static_cast<const S*>(xv) + row * n;
    S* y = static_cast<S*>(yv) + row * n;
    auto ld = [&](size_t i) { return IO::Load(d, x + i); };
    const V tail = rem ? LoadPart<IO>(d, x + body, rem) : hn::Zero(d);
    // the next row's lines (this row's again for the last one) while this one is in cache
    const S* nx = row + 1 < r1 ? x + n : x;
    double mean = 0, var = 0;
    if (rms) {
      var = BlockSum(d, body, ld, tail, [](V a, V v) { return hn::MulAdd(v, v, a); }) / dn;
    } else {
      // 1. sum
      const double m0 = BlockSum(d, body, ld, tail, [](V a, V v) { return hn::Add(a, v); }) / dn;
      // 2. sums of u = x - m and u^2 (from cache; prefetching the next row)
      const C mf = static_cast<C>(m0);
      double s1 = 0, s2 = 0;
      DevSums<IO>(d, x, un, mf, nx, s1, s2);
      const double r = s1 / dn;
      mean = static_cast<double>(mf) + r;
      var = s2 / dn - r * r;
      if (var < 0) var = 0;  // rounding only; a NaN stays NaN
    }
    // 3. output: ((x - mh) - ml) * rstd [* w] [+ b], or x * rstd [* w] (rms); one loop
    // per (rms, w, b) case, so no test is in the loop
    const C mh = static_cast<C>(mean);
    const C ml = static_cast<C>(mean - static_cast<double>(mh));
    const C rstd = static_cast<C>(1.0 / std::sqrt(var + eps));
    const bool hw = w != nullptr, hb = b != nullptr;
    if (rms) {
      hw ? OutRow<IO, true, true, false>(d, x, y, un, w, b, mh, ml, rstd, stream)
         : OutRow<IO, true, false, false>(d, x, y, un, w, b, mh, ml, rstd, stream);
    } else if (hw && hb) {
      OutRow<IO, false, true, true>(d, x, y, un, w, b, mh, ml, rstd, stream);
    } else if (hw) {
      OutRow<IO, false, true, false>(d, x, y, un, w, b, mh, ml, rstd, stream);
    } else if (hb) {
      OutRow<IO, false, false, true>(d, x, y, un, w, b, mh, ml, rstd, stream);
    } else {
      OutRow<IO, false, false, false>(d, x, y, un, w, b, mh, ml, rstd, stream);
    }
  }
  if (stream) hwy::FlushStream();
}

}  // namespace

void NormRows(int code, const void* x, void* y, int64_t r0, int64_t r1, int64_t n, const void* w, const void* b,
              double eps, int flags) {
  switch (code) {
    case nr::kF32: NormRowsT<NativeIO<float>>(x, y, r0, r1, n, w, b, eps, flags); break;
    case nr::kF64: NormRowsT<NativeIO<double>>(x, y, r0, r1, n, w, b, eps, flags); break;
    case nr::kF16: NormRowsT<F16IO>(x, y, r0, r1, n, w, b, eps, flags); break;
    default: NormRowsT<BF16IO>(x, y, r0, r1, n, w, b, eps, flags); break;
  }
}

template <class IO>
double SpanSumT(const void* xv, int64_t n) {
  const hn::ScalableTag<typename IO::C> d;
  using V = hn::VFromD<decltype(d)>;
  const size_t N = hn::Lanes(d), un = static_cast<size_t>(n), body = un - un % N;
  const auto* x = static_cast<const typename IO::S*>(xv);
  const V tail = un > body ? LoadPart<IO>(d, x + body, un - body) : hn::Zero(d);
  return BlockSum(d, body, [&](size_t i) { return IO::Load(d, x + i); }, tail,
                  [](V a, V v) { return hn::Add(a, v); });
}

template <class IO>
void SpanDevT(const void* xv, int64_t n, double m, double* s1, double* s2) {
  const hn::ScalableTag<typename IO::C> d;
  const auto* x = static_cast<const typename IO::S*>(xv);
  DevSums<IO>(d, x, static_cast<size_t>(n), static_cast<typename IO::C>(m), x, *s1, *s2);
}

template <class IO>
void AffineSpanT(const void* xv, void* yv, int64_t lo, int64_t hi, int64_t s, const void* scv, const void* shv,
                 const void* muv, bool stream) {
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  const auto* x = static_cast<const typename IO::S*>(xv);
  auto* y = static_cast<typename IO::S*>(yv);
  const C* sc = static_cast<const C*>(scv);
  const C* sh = static_cast<const C*>(shv);
  const C* mu = static_cast<const C*>(muv);
  for (int64_t i = lo; i < hi;) {
    const int64_t j = i / s, e = std::min(hi, (j + 1) * s);
    AffineSeg<IO>(d, x + i, y + i, static_cast<size_t>(e - i), sc[j], sh[j], mu[j], stream);
    i = e;
  }
  if (stream) hwy::FlushStream();
}

template <class IO>
void RowOutT(const void* xv, void* yv, int64_t n, const void* wv, const void* bv, double mean, double var, double eps,
             int flags) {
  using C = typename IO::C;
  const hn::ScalableTag<C> d;
  const auto* x = static_cast<const typename IO::S*>(xv);
  auto* y = static_cast<typename IO::S*>(yv);
  const C* w = static_cast<const C*>(wv);
  const C* b = static_cast<const C*>(bv);
  const bool rms = flags & asc::nn::detail::kNormRms;
  const bool stream = (flags & asc::nn::detail::kNormStream) && std::is_same_v<typename IO::S, C>;
  const C mh = static_cast<C>(mean);
  const C ml = static_cast<C>(mean - static_cast<double>(mh));
  const C rstd = static_cast<C>(1.0 / std::sqrt(var + eps));
  const size_t un = static_cast<size_t>(n);
  if (rms) {
    w ? OutRow<IO, true, true, false>(d, x, y, un, w, b, mh, ml, rstd, stream)
      : OutRow<IO, true, false, false>(d, x, y, un, w, b, mh, ml, rstd, stream);
  } else if (w && b) {
    OutRow<IO, false, true, true>(d, x, y, un, w, b, mh, ml, rstd, stream);
  } else if (w) {
    OutRow<IO, false, true, false>(d, x, y, un, w, b, mh, ml, rstd, stream);
  } else if (b) {
    OutRow<IO, false, false, true>(d, x, y, un, w, b, mh, ml, rstd, stream);
  } else {
    OutRow<IO, false, false, false>(d, x, y, un, w, b, mh, ml, rstd, stream);
  }
  if (stream) hwy::FlushStream();
}

void NormRowOut(int code, const void* x, void* y, int64_t n, const void* w, const void* b, double mean, double var,
                double eps, int flags) {
  switch (code) {
    case nr::kF32: RowOutT<NativeIO<float>>(x, y, n, w, b, mean, var, eps, flags); break;
    case nr::kF64: RowOutT<NativeIO<double>>(x, y, n, w, b, mean, var, eps, flags); break;
    case nr::kF16: RowOutT<F16IO>(x, y, n, w, b, mean, var, eps, flags); break;
    default: RowOutT<BF16IO>(x, y, n, w, b, mean, var, eps, flags); break;
  }
}

double NormSpanSum(int code, const void* x, int64_t n) {
  switch (code) {
    case nr::kF32: return SpanSumT<NativeIO<float>>(x, n);
    case nr::kF64: return SpanSumT<NativeIO<double>>(x, n);
    case nr::kF16: return SpanSumT<F16IO>(x, n);
    default: return SpanSumT<BF16IO>(x, n);
  }
}

void NormSpanDev(int code, const void* x, int64_t n, double m, double* s1, double* s2) {
  switch (code) {
    case nr::kF32: SpanDevT<NativeIO<float>>(x, n, m, s1, s2); break;
    case nr::kF64: SpanDevT<NativeIO<double>>(x, n, m, s1, s2); break;
    case nr::kF16: SpanDevT<F16IO>(x, n, m, s1, s2); break;
    default: SpanDevT<BF16IO>(x, n, m, s1, s2); break;
  }
}

void NormAffineSpan(int code, const void* x, void* y, int64_t lo, int64_t hi, int64_t s, const void* sc,
                    const void* sh, const void* mu, bool stream) {
  switch (code) {
    case nr::kF32: AffineSpanT<NativeIO<float>>(x, y, lo, hi, s, sc, sh, mu, stream); break;
    case nr::kF64: AffineSpanT<NativeIO<double>>(x, y, lo, hi, s, sc, sh, mu, stream); break;
    case nr::kF16: AffineSpanT<F16IO>(x, y, lo, hi, s, sc, sh, mu, false); break;
    default: AffineSpanT<BF16IO>(x, y, lo, hi, s, sc, sh, mu, false); break;
  }
}

}  // namespace asc::kernel::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernel/simd/tables.h"

namespace asc::kernel::simd {
HWY_EXPORT(NormRows);
HWY_EXPORT(NormSpanSum);
HWY_EXPORT(NormSpanDev);
HWY_EXPORT(NormAffineSpan);
HWY_EXPORT(NormRowOut);
}  // namespace asc::kernel::simd

namespace asc::nn::detail {
namespace {
int code_of(DType dt) {
  static const bool once = (kernel::simd::apply_target_override(), true);
  (void)once;
  namespace nr = norm_rows_detail;
  return dt == DType::kFloat32 ? nr::kF32 : dt == DType::kFloat64 ? nr::kF64 : dt == DType::kFloat16 ? nr::kF16 : nr::kBF16;
}
}  // namespace

void norm_rows(DType dt, const void* x, void* y, int64_t r0, int64_t r1, int64_t n, const void* w, const void* b,
               double eps, int flags) {
  HWY_DYNAMIC_DISPATCH(kernel::simd::NormRows)(code_of(dt), x, y, r0, r1, n, w, b, eps, flags);
}

void norm_row_out(DType dt, const void* x, void* y, int64_t n, const void* w, const void* b, double mean, double var,
                  double eps, int flags) {
  HWY_DYNAMIC_DISPATCH(kernel::simd::NormRowOut)(code_of(dt), x, y, n, w, b, mean, var, eps, flags);
}

double norm_span_sum(DType dt, const void* x, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(kernel::simd::NormSpanSum)(code_of(dt), x, n);
}

void norm_span_dev(DType dt, const void* x, int64_t n, double m, double& s1, double& s2) {
  HWY_DYNAMIC_DISPATCH(kernel::simd::NormSpanDev)(code_of(dt), x, n, m, &s1, &s2);
}

void norm_affine_span(DType dt, const void* x, void* y, int64_t lo, int64_t hi, int64_t s, const void* sc,
                      const void* sh, const void* mu, bool stream) {
  HWY_DYNAMIC_DISPATCH(kernel::simd::NormAffineSpan)(code_of(dt), x, y, lo, hi, s, sc, sh, mu, stream);
}

}  // namespace asc::nn::detail
#endif  // HWY_ONCE
