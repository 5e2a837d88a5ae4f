// numpy.linalg on LAPACK (OpenBLAS's Fortran symbols): inv/solve (getrf +
// getrs/trsm), det/slogdet (getrf), cholesky (potrf), qr (geqrf + orgqr;
// mode 'raw' geqrf), svd (gesdd), eigh (syevd),
// lstsq (gelsd).
//
// Layout: a C-contiguous (M, N) matrix is the column-major (N, M) matrix A^T,
// so wherever the transposed problem gives the wanted result directly we hand
// LAPACK the row-major buffer as it is (no transposing copies, which cost as
// much as the factorisation for mid-sized matrices): inv(A) = inv(A^T)^T,
// det(A) = det(A^T), cholesky of A's lower triangle = potrf('U') of A^T,
// solve applies the factors of A^T to the row-major right-hand sides with trsm
// from the right. qr, svd, eigh and lstsq are NOT transposed problems: they
// hand LAPACK a column-major copy of A (blocked transpose) as NumPy's
// umath_linalg does -- the transposed problem (LQ of A^T, SVD of A^T, the
// other triangle) is equal in exact arithmetic only, and on ill-conditioned or
// NaN/Inf input its rounding and convergence differ from NumPy's. Small
// matrices (n <= kSmallN = 32) skip LAPACK: an unblocked LU with partial pivoting / Cholesky (the algorithms of
// getf2/potf2) per matrix, stacks spread over the device cores (OpenBLAS
// 0.3.21 threads every small getrf/gesv call, which under load cost 6x the
// arithmetic).
// Complex (c/z routines: ungqr, heevd) uses the same transposed
// problems: the buffer is A^T, not A^H, and every identity above holds for the
// plain transpose (inv(A^T)^T, det(A^T), X^T A^T = B^T). The
// two Hermitian ones need care: a Hermitian A's transpose is conj(A), so
// potrf('U') of it gives conj(A) = U'^H U', i.e. A = U'^T conj(U'): U' read
// row-major is L = U'^T with A = L L^H, as wanted; heevd of it gives A's
// eigenvalues with conjugated eigenvectors (conjugated back while
// transposing). The small kernels take complex too (pivots by |re| + |im|
// like LAPACK's i?amax). det/slogdet accumulate in double (NumPy computes
// single precision in double and casts).
// Single-output functions are registry ops (inv, solve, det, cholesky,
// svdvals, eigvalsh; complex_ok); the multi-output ones are plain functions.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>

#include <cblas.h>

#include "asc/ops/linalg.h"
#include "asc/ops/registry.h"
#include "asc/runtime/device.h"

// LAPACK, Fortran calling convention: every argument by pointer, character
// arguments followed by hidden length arguments at the end (gfortran ABI).
extern "C" {
void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb,
            int* info);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
             size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void sgelsd_(const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b, const int* ldb,
             float* s, const float* rcond, int* rank, float* work, const int* lwork, int* iwork, int* info);
void dgelsd_(const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b, const int* ldb,
             double* s, const double* rcond, int* rank, double* work, const int* lwork, int* iwork, int* info);
// Complex (c: complex64, z: complex128). Fortran COMPLEX is two reals, the
// layout of std::complex; the real outputs (s, w, rwork, rcond) are real.
#define ASC_LAPACK_COMPLEX(P, C, R)                                                                                 \
  void P##gesv_(const int* n, const int* nrhs, C* a, const int* lda, int* ipiv, C* b, const int* ldb, int* info);  \
  void P##getrf_(const int* m, const int* n, C* a, const int* lda, int* ipiv, int* info);                         \
  void P##getrs_(const char* trans, const int* n, const int* nrhs, const C* a, const int* lda, const int* ipiv,     \
                 C* b, const int* ldb, int* info, size_t);                                                         \
  void P##potrf_(const char* uplo, const int* n, C* a, const int* lda, int* info, size_t);                         \
  void P##geqrf_(const int* m, const int* n, C* a, const int* lda, C* tau, C* work, const int* lwork, int* info);   \
  void P##ungqr_(const int* m, const int* n, const int* k, C* a, const int* lda, const C* tau, C* work,             \
                 const int* lwork, int* info);                                                                     \
  void P##gesdd_(const char* jobz, const int* m, const int* n, C* a, const int* lda, R* s, C* u, const int* ldu,    \
                 C* vt, const int* ldvt, C* work, const int* lwork, R* rwork, int* iwork, int* info, size_t);       \
  void P##heevd_(const char* jobz, const char* uplo, const int* n, C* a, const int* lda, R* w, C* work,            \
                 const int* lwork, R* rwork, const int* lrwork, int* iwork, const int* liwork, int* info, size_t,   \
                 size_t);                                                                                          \
  void P##gelsd_(const int* m, const int* n, const int* nrhs, C* a, const int* lda, C* b, const int* ldb, R* s,     \
                 const R* rcond, int* rank, C* work, const int* lwork, R* rwork, int* iwork, int* info);
ASC_LAPACK_COMPLEX(c, std::complex<float>, float)
ASC_LAPACK_COMPLEX(z, std::complex<double>, double)
#undef ASC_LAPACK_COMPLEX
}

namespace asc::ops {
namespace {

// ------------------------------------------------------------------ s/d/c/z dispatch

template <typename T>
struct RealOf {
  using type = T;
};
template <typename R>
struct RealOf<std::complex<R>> {
  using type = R;
};
/// The real type of T (float for complex64): singular values, eigenvalues,
/// residuals, log|det|.
template <typename T>
using Real = typename RealOf<T>::type;
template <typename T>
constexpr bool kIsComplex = !std::is_same_v<T, Real<T>>;

/// The real routines under the complex routines' signatures (gesdd, syevd and
/// gelsd take an rwork the real ones do not need), so one template serves all
/// four types.
template <typename T, auto Gesdd, auto Syevd, auto Gelsd>
struct RealExtras {
  static void gesdd(const char* jobz, const int* m, const int* n, T* a, const int* lda, T* s, T* u, const int* ldu,
                    T* vt, const int* ldvt, T* work, const int* lwork, T* /*rwork*/, int* iwork, int* info) {
    Gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
  }
  static void syevd(const char* jobz, const char* uplo, const int* n, T* a, const int* lda, T* w, T* work,
                    const int* lwork, T* /*rwork*/, const int* /*lrwork*/, int* iwork, const int* liwork, int* info) {
    Syevd(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, 1, 1);
  }
  static void gelsd(const int* m, const int* n, const int* nrhs, T* a, const int* lda, T* b, const int* ldb, T* s,
                    const T* rcond, int* rank, T* work, const int* lwork, T* /*rwork*/, int* iwork, int* info) {
    Gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info);
  }
};

template <typename T>
struct Lapack;

template <>
struct Lapack<float> : RealExtras<float, sgesdd_, ssyevd_, sgelsd_> {
  static constexpr auto gesv = sgesv_;
  static constexpr auto getrf = sgetrf_;
  static constexpr auto getrs = sgetrs_;
  static constexpr auto potrf = spotrf_;
  static constexpr auto geqrf = sgeqrf_;
  static constexpr auto orgqr = sorgqr_;
  static void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int n, const float* a, int lda, float* b,
                   int ldb) {
    cblas_strsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0f, a, lda, b, ldb);
  }
};
template <>
struct Lapack<double> : RealExtras<double, dgesdd_, dsyevd_, dgelsd_> {
  static constexpr auto gesv = dgesv_;
  static constexpr auto getrf = dgetrf_;
  static constexpr auto getrs = dgetrs_;
  static constexpr auto potrf = dpotrf_;
  static constexpr auto geqrf = dgeqrf_;
  static constexpr auto orgqr = dorgqr_;
  static void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int n, const double* a, int lda,
                   double* b, int ldb) {
    cblas_dtrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, 1.0, a, lda, b, ldb);
  }
};

/// Complex: the c/z routines under the names of the real ones (ungqr for
/// orgqr, heevd for syevd), trsm with alpha passed by pointer.
template <typename R, auto Gesv, auto Getrf, auto Getrs, auto Potrf, auto Geqrf, auto Ungqr, auto Gesdd,
          auto Heevd, auto Gelsd, auto Trsm>
struct LapackComplex {
  using C = std::complex<R>;
  static constexpr auto gesv = Gesv;
  static constexpr auto getrf = Getrf;
  static constexpr auto getrs = Getrs;
  static constexpr auto potrf = Potrf;
  static constexpr auto geqrf = Geqrf;
  static constexpr auto orgqr = Ungqr;
  static void gesdd(const char* jobz, const int* m, const int* n, C* a, const int* lda, R* s, C* u, const int* ldu,
                    C* vt, const int* ldvt, C* work, const int* lwork, R* rwork, int* iwork, int* info) {
    Gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, 1);
  }
  static void syevd(const char* jobz, const char* uplo, const int* n, C* a, const int* lda, R* w, C* work,
                    const int* lwork, R* rwork, const int* lrwork, int* iwork, const int* liwork, int* info) {
    Heevd(jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, 1, 1);
  }
  static void gelsd(const int* m, const int* n, const int* nrhs, C* a, const int* lda, C* b, const int* ldb, R* s,
                    const R* rcond, int* rank, C* work, const int* lwork, R* rwork, int* iwork, int* info) {
    Gelsd(m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info);
  }
  static void trsm(CBLAS_SIDE side, CBLAS_UPLO uplo, CBLAS_DIAG diag, int m, int n, const C* a, int lda, C* b,
                   int ldb) {
    const C one(1);
    Trsm(CblasColMajor, side, uplo, CblasNoTrans, diag, m, n, &one, a, lda, b, ldb);
  }
};
template <>
struct Lapack<std::complex<float>>
    : LapackComplex<float, cgesv_, cgetrf_, cgetrs_, cpotrf_, cgeqrf_, cungqr_, cgesdd_, cheevd_,
                    cgelsd_, cblas_ctrsm> {};
template <>
struct Lapack<std::complex<double>>
    : LapackComplex<double, zgesv_, zgetrf_, zgetrs_, zpotrf_, zgeqrf_, zungqr_, zgesdd_, zheevd_,
                    zgelsd_, cblas_ztrsm> {};

/// Calls fn(T{}) with T = float, double, std::complex<float> or
/// std::complex<double> for the working dtype.
template <typename Fn>
decltype(auto) with_type(DType wd, Fn&& fn) {
  switch (wd) {
    case DType::kFloat32: return fn(float{});
    case DType::kComplex64: return fn(std::complex<float>{});
    case DType::kComplex128: return fn(std::complex<double>{});
    default: return fn(double{});
  }
}

// ------------------------------------------------------------------ checks, layout

[[noreturn]] void linalg_error(const std::string& op, const std::string& detail) {
  throw Error(Status::Make(ErrorCode::kLinAlgError, op, detail));
}

/// numpy.linalg's working dtype (its _commonType): complex when any operand
/// is complex; single precision (float32/complex64) only when every operand
/// is float32 or complex64 -- float64, complex128 and every non-inexact type
/// (ints, bool, bfloat16) make it double. float16 is unsupported.
DType working_dtype(std::initializer_list<const Tensor*> ts, const std::string& op) {
  bool cplx = false, single = true;
  for (const Tensor* t : ts) {
    const DType d = t->dtype();
    if (d == DType::kFloat16) throw Error(Status::TypeError(op, "array type float16 is unsupported in linalg"));
    cplx = cplx || is_complex(d);
    single = single && (d == DType::kFloat32 || d == DType::kComplex64);
  }
  if (cplx) return single ? DType::kComplex64 : DType::kComplex128;
  return single ? DType::kFloat32 : DType::kFloat64;
}

void check_stack(const Tensor& a, const std::string& op) {
  if (a.ndim() < 2)
    linalg_error(op, std::to_string(a.ndim()) + "-dimensional array given. Array must be at least two-dimensional");
}

void check_square(const Tensor& a, const std::string& op) {
  check_stack(a, op);
  const size_t nd = static_cast<size_t>(a.ndim());
  if (a.shape()[nd - 1] != a.shape()[nd - 2])
    linalg_error(op, "Last 2 dimensions of the array must be square, got shape " + Tensor::shape_str(a.shape()));
}

void check_int(int64_t v, const std::string& op) {
  if (v > std::numeric_limits<int>::max())
    throw Error(Status::Invalid(op, "dimension " + std::to_string(v) + " too large for LAPACK (32-bit indices)"));
}

int64_t rows(const Tensor& a) { return a.shape()[static_cast<size_t>(a.ndim()) - 2]; }
int64_t cols(const Tensor& a) { return a.shape()[static_cast<size_t>(a.ndim()) - 1]; }
Shape batch_of(const Tensor& a) { return Shape(a.shape().begin(), a.shape().end() - 2); }
Shape with_dims(Shape s, std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) s.push_back(d);
  return s;
}

/// A fresh C-contiguous copy of `a` in dtype wd (LAPACK overwrites it). Read
/// as column-major, every (M, N) matrix of it is the (N, M) matrix A^T.
Tensor work_copy(const Tensor& a, DType wd) {
  if (a.dtype() == wd) return a.clone();
  Tensor c = cast(a, wd);
  return c.is_contiguous() ? c : c.contiguous();
}

/// `a` itself when it already is C-contiguous in dtype wd (read-only use),
/// else a converted copy.
Tensor readable(const Tensor& a, DType wd) {
  return a.dtype() == wd && a.is_contiguous() ? a : work_copy(a, wd);
}

/// dst (cols x rows, row-major) = src (rows x cols, row-major)^T, in cache
/// blocks (a plain strided loop misses the cache on every store).
template <typename T>
void transpose_into(const T* src, T* dst, int64_t r, int64_t c) {
  constexpr int64_t kB = 32;
  for (int64_t i0 = 0; i0 < r; i0 += kB) {
    const int64_t i1 = std::min(r, i0 + kB);
    for (int64_t j0 = 0; j0 < c; j0 += kB) {
      const int64_t j1 = std::min(c, j0 + kB);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i) dst[j * r + i] = src[i * c + j];
    }
  }
}

/// A fresh (..., N, M) buffer holding every (M, N) matrix of `a` transposed
/// (column-major), in dtype wd: a converted row-major copy transposed blockwise.
Tensor to_colmajor(const Tensor& a, DType wd) {
  const Tensor src = readable(a, wd);
  const int64_t m = rows(a), n = cols(a);
  Tensor out = Tensor::empty(with_dims(batch_of(a), {n, m}), wd);
  if (out.numel() == 0) return out;
  const int64_t nb = out.numel() / (m * n);
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    for (int64_t i = 0; i < nb; ++i) transpose_into(src.data_as<T>() + i * m * n, out.data_as<T>() + i * m * n, m, n);
  });
  return out;
}

/// Workspace size from a LAPACK query (lwork = -1 answers in work[0]).
template <typename T>
int lwork_of(T w) {
  return std::max(1, static_cast<int>(std::real(w)) + 1);
}

std::string matrix_where(int64_t i, int64_t nb, const Tensor& a) {
  std::string s = "(shape " + Tensor::shape_str(a.shape());
  if (nb > 1) s += ", matrix " + std::to_string(i) + " of the stack";
  return s + ")";
}

/// Runs body(i) for i in [0, n) over the device cores in contiguous chunks of
/// at least `grain` items (on the calling thread when there is one chunk).
template <typename Body>
void parallel_for(const char* name, int64_t n, int64_t grain, Body&& body) {
  const int cores = runtime::current_device().properties().num_cores;
  const int64_t chunks = std::min<int64_t>(cores, (n + grain - 1) / std::max<int64_t>(grain, 1));
  if (chunks <= 1) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  runtime::KernelInvocation inv;
  inv.name = name;
  inv.block_dim = static_cast<uint32_t>(chunks);
  inv.body = [&](const runtime::BlockContext& ctx) {
    const int64_t b = ctx.block_idx;
    const int64_t lo = n * b / chunks, hi = n * (b + 1) / chunks;
    for (int64_t i = lo; i < hi; ++i) body(i);
  };
  runtime::current_device().run_kernel(inv).ThrowIfError();
}

/// The first failing matrix of a parallel loop (-1: none); lowest index wins
/// so the message does not depend on the schedule.
struct FirstFailure {
  std::atomic<int64_t> idx{-1};
  void set(int64_t i) {
    int64_t cur = idx.load(std::memory_order_relaxed);
    while ((cur < 0 || i < cur) && !idx.compare_exchange_weak(cur, i, std::memory_order_relaxed)) {
    }
  }
  int64_t get() const { return idx.load(std::memory_order_relaxed); }
};

// ------------------------------------------------------------------ small matrices

/// Matrices up to this order skip LAPACK: its per-call cost (and OpenBLAS
/// 0.3.21 threading every small getrf/gesv call) exceeds the arithmetic.
constexpr int64_t kSmallN = 32;
/// Orders up to this one get kernels compiled for the order.
constexpr int kUnrolledN = 8;
/// Matrices per parallel chunk for the small kernels.
constexpr int64_t kSmallGrain = 256;

/// Calls fn(std::integral_constant<int, N>{}) with N = n for n <= kUnrolledN
/// (loops fully unrolled; a runtime-n loop ran ~3x slower on 4x4), N = 0
/// (the order is a runtime value) above.
template <typename Fn>
void with_order(int64_t n, Fn&& fn) {
  switch (n) {
    case 1: fn(std::integral_constant<int, 1>{}); break;
    case 2: fn(std::integral_constant<int, 2>{}); break;
    case 3: fn(std::integral_constant<int, 3>{}); break;
    case 4: fn(std::integral_constant<int, 4>{}); break;
    case 5: fn(std::integral_constant<int, 5>{}); break;
    case 6: fn(std::integral_constant<int, 6>{}); break;
    case 7: fn(std::integral_constant<int, 7>{}); break;
    case 8: fn(std::integral_constant<int, 8>{}); break;
    default: fn(std::integral_constant<int, 0>{}); break;
  }
}

/// Scratch capacity (elements per side) for order template N.
template <int N>
constexpr int kCap = N ? N : static_cast<int>(kSmallN);

/// Plain complex products for the small kernels: std::complex's operator*
/// falls back to the C99 Annex G routine (__mulsc3) whenever a part is NaN.
template <typename T>
inline T mul(T a, T b) {
  if constexpr (kIsComplex<T>)
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
  else
    return a * b;
}
template <typename T>
inline T conj_of(T v) {
  if constexpr (kIsComplex<T>) return std::conj(v);
  else return v;
}
/// |v|^2 (real).
template <typename T>
inline Real<T> abs2(T v) {
  if constexpr (kIsComplex<T>) return v.real() * v.real() + v.imag() * v.imag();
  else return v * v;
}
/// The pivot size LAPACK compares (i?amax): |v|, for complex |re| + |im|.
template <typename T>
inline Real<T> pivot_mag(T v) {
  if constexpr (kIsComplex<T>) return std::abs(v.real()) + std::abs(v.imag());
  else return std::abs(v);
}

/// 1 / d as OpenBLAS's getf2 and trsm kernels compute it (Smith's ratio, no C99 Annex G
/// recovery of infinities): NumPy's small complex inverses and solves come from there, so
/// 1 / (nan + inf i) is nan + nan i as in NumPy, not the 0 of the library division.
template <typename T>
inline T lapack_recip(T d) {
  if constexpr (kIsComplex<T>) {
    using R = Real<T>;
    const R ar = d.real(), ai = d.imag();
    if (std::abs(ar) >= std::abs(ai)) {
      const R ratio = ai / ar, den = R(1) / (ar * (R(1) + ratio * ratio));
      return T(den, -ratio * den);
    }
    const R ratio = ar / ai, den = R(1) / (ai * (R(1) + ratio * ratio));
    return T(ratio * den, -den);
  } else {
    return T(1) / d;
  }
}

/// In-place LU with partial pivoting (getf2: pivot = first entry of largest
/// magnitude in the column) of the row-major n x n matrix `a` (n = N, or nr
/// when N is 0); piv[j] = the row swapped with row j. Returns false on an
/// exactly zero pivot (singular; the factorisation still completes as
/// LAPACK's does).
template <typename T, int N>
bool small_lu(T* a, int* piv, int nr) {
  const int n = N ? N : nr;
  bool ok = true;
  for (int j = 0; j < n; ++j) {
    int p = j;
    Real<T> best = pivot_mag(a[j * n + j]);
    for (int i = j + 1; i < n; ++i) {
      const Real<T> v = pivot_mag(a[i * n + j]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    piv[j] = p;
    if (p != j)
      for (int c = 0; c < n; ++c) std::swap(a[j * n + c], a[p * n + c]);
    const T d = a[j * n + j];
    if (d == T(0)) {
      ok = false;
      continue;
    }
    const T r = lapack_recip(d);
    // OpenBLAS's getf2 scales the column with ?scal, which writes zeros for a zero factor
    // (an infinite pivot) without reading the column: NumPy's inv([[inf, 1], [inf, inf]]) is 0,
    // not the NaN of inf * 0.
    const bool zero_factor = r == T(0);
    for (int i = j + 1; i < n; ++i) {
      const T l = zero_factor ? T(0) : mul(a[i * n + j], r);
      a[i * n + j] = l;
      for (int c = j + 1; c < n; ++c) a[i * n + c] -= mul(l, a[j * n + c]);
    }
  }
  return ok;
}

/// Solves A X = B with the LU of small_lu; x is row-major n x k, overwritten.
template <typename T, int N>
void small_lu_solve(const T* lu, const int* piv, T* x, int64_t k, int nr) {
  const int n = N ? N : nr;
  for (int j = 0; j < n; ++j)
    if (piv[j] != j)
      for (int64_t c = 0; c < k; ++c) std::swap(x[j * k + c], x[piv[j] * k + c]);
  for (int i = 1; i < n; ++i)  // L y = P b (unit lower)
    for (int l = 0; l < i; ++l) {
      const T f = lu[i * n + l];
      for (int64_t c = 0; c < k; ++c) x[i * k + c] -= mul(f, x[l * k + c]);
    }
  for (int i = n - 1; i >= 0; --i) {  // U x = y
    for (int l = i + 1; l < n; ++l) {
      const T f = lu[i * n + l];
      for (int64_t c = 0; c < k; ++c) x[i * k + c] -= mul(f, x[l * k + c]);
    }
    // one reciprocal, then products, as OpenBLAS's trsm kernels (they pack the inverted
    // diagonal): NumPy's small inverses round as x * (1 / d), not x / d
    const T r = lapack_recip(lu[i * n + i]);
    for (int64_t c = 0; c < k; ++c) x[i * k + c] = mul(x[i * k + c], r);
  }
}

/// The inverse from the LU of small_lu: the substitutions of small_lu_solve
/// with B = I, written to x.
template <typename T, int N>
void small_lu_inverse(const T* lu, const int* piv, T* x, int nr) {
  const int n = N ? N : nr;
  for (int i = 0; i < n * n; ++i) x[i] = T(0);
  for (int i = 0; i < n; ++i) x[i * n + i] = T(1);
  small_lu_solve<T, N>(lu, piv, x, n, n);
}

/// Lower Cholesky factor (potf2) of the row-major n x n matrix read from its
/// lower triangle, into l (upper part zeroed): A = L L^H. Complex: the
/// imaginary parts of the diagonal are ignored (as potrf does). False when
/// not positive definite.
template <typename T, int N>
bool small_cholesky(const T* a, T* l, int nr) {
  using R = Real<T>;
  const int n = N ? N : nr;
  for (int j = 0; j < n; ++j) {
    R s = std::real(a[j * n + j]);
    for (int k = 0; k < j; ++k) s -= abs2(l[j * n + k]);
    // NaN continues (NaN factor), as OpenBLAS's potrf does -- and so NumPy.
    if (s <= R(0)) return false;
    const R d = std::sqrt(s);
    l[j * n + j] = T(d);
    for (int c = j + 1; c < n; ++c) l[j * n + c] = T(0);
    for (int i = j + 1; i < n; ++i) {
      T t = a[i * n + j];
      for (int k = 0; k < j; ++k) t -= mul(l[i * n + k], conj_of(l[j * n + k]));
      l[i * n + j] = t / d;
    }
  }
  return true;
}

// ------------------------------------------------------------------ inv, solve

/// A (nb, n, n) input read-only (row-major, dtype T) -> inverses into x.
/// inv(A) = inv(A^T)^T, so gesv on the row-major buffer (A^T for LAPACK) with
/// an identity right-hand side leaves inv(A) row-major: no transposes.
template <typename T>
void inv_stack(const Tensor& a, DType wd, Tensor& x, int64_t nb, int64_t n, const Tensor& shown) {
  T* xp = x.data_as<T>();
  if (n <= kSmallN) {
    const Tensor src = readable(a, wd);
    const T* ap = src.data_as<T>();
    FirstFailure fail;
    with_order(n, [&](auto order) {
      constexpr int N = decltype(order)::value;
      parallel_for("inv", nb, std::max<int64_t>(1, kSmallGrain * 64 / (n * n * n)), [&](int64_t i) {
        T lu[kCap<N> * kCap<N>] = {};
        int piv[kCap<N>];
        std::copy(ap + i * n * n, ap + (i + 1) * n * n, lu);
        if (!small_lu<T, N>(lu, piv, static_cast<int>(n))) {
          fail.set(i);
          return;
        }
        small_lu_inverse<T, N>(lu, piv, xp + i * n * n, static_cast<int>(n));
      });
    });
    if (fail.get() >= 0) linalg_error("inv", "Singular matrix " + matrix_where(fail.get(), nb, shown));
    return;
  }
  Tensor buf = work_copy(a, wd);
  std::fill(xp, xp + nb * n * n, T(0));
  for (int64_t i = 0; i < nb; ++i)
    for (int64_t d = 0; d < n; ++d) xp[i * n * n + d * n + d] = T(1);
  std::vector<int> ipiv(static_cast<size_t>(n));
  const int ni = static_cast<int>(n);
  for (int64_t i = 0; i < nb; ++i) {
    int info = 0;
    Lapack<T>::gesv(&ni, &ni, buf.data_as<T>() + i * n * n, &ni, ipiv.data(), xp + i * n * n, &ni, &info);
    if (info > 0) linalg_error("inv", "Singular matrix " + matrix_where(i, nb, shown));
    if (info < 0) throw Error(Status::Internal("inv", "gesv argument " + std::to_string(-info) + " invalid"));
  }
}

Tensor inv_impl(const Tensor& a) {
  check_square(a, "inv");
  const DType wd = working_dtype({&a}, "inv");
  const int64_t n = rows(a);
  check_int(n, "inv");
  Tensor x = Tensor::empty(a.shape(), wd);
  const int64_t nb = n ? a.numel() / (n * n) : 0;
  if (nb == 0) return x;
  with_type(wd, [&](auto z) { inv_stack<decltype(z)>(a, wd, x, nb, n, a); });
  return x;
}

/// Solves A X = B for a stack: A (nb, n, n) and X/B (nb, n, k), both row-major
/// (x holds B on entry). The row-major A is A^T for LAPACK: getrf factors
/// A^T = P L U, and X^T P L U = B^T is two triangular solves from the right on
/// the row-major X (column-major X^T) and a row permutation -- no transposes.
template <typename T>
void solve_stack(Tensor& abuf, Tensor& x, int64_t nb, int64_t n, int64_t k, const Tensor& shown) {
  T* ap = abuf.data_as<T>();
  T* xp = x.data_as<T>();
  const int ni = static_cast<int>(n), ki = static_cast<int>(k);
  if (n <= kSmallN) {
    FirstFailure fail;
    with_order(n, [&](auto order) {
      constexpr int N = decltype(order)::value;
      parallel_for("solve", nb, std::max<int64_t>(1, kSmallGrain * 64 / (n * n * (n + k))), [&](int64_t i) {
        int piv[kCap<N>];
        T* lu = ap + i * n * n;
        if (!small_lu<T, N>(lu, piv, ni)) {
          fail.set(i);
          return;
        }
        small_lu_solve<T, N>(lu, piv, xp + i * n * k, k, ni);
      });
    });
    if (fail.get() >= 0) linalg_error("solve", "Singular matrix " + matrix_where(fail.get(), nb, shown));
    return;
  }
  std::vector<int> ipiv(static_cast<size_t>(n));
  for (int64_t i = 0; i < nb; ++i) {
    T* lu = ap + i * n * n;
    T* xi = xp + i * n * k;
    int info = 0;
    Lapack<T>::getrf(&ni, &ni, lu, &ni, ipiv.data(), &info);
    if (info > 0) linalg_error("solve", "Singular matrix " + matrix_where(i, nb, shown));
    if (info < 0) throw Error(Status::Internal("solve", "getrf argument " + std::to_string(-info) + " invalid"));
    if (k == 1) {  // a vector is its own transpose: solve (A^T)^T x = b directly
      Lapack<T>::getrs("T", &ni, &ki, lu, &ni, ipiv.data(), xi, &ni, &info, 1);
      continue;
    }
    // W U = B^T, Z L = W (unit lower), X^T = Z P^T (column swaps of the
    // column-major k x n X^T: whole rows of the row-major X, last swap first).
    Lapack<T>::trsm(CblasRight, CblasUpper, CblasNonUnit, ki, ni, lu, ni, xi, ki);
    Lapack<T>::trsm(CblasRight, CblasLower, CblasUnit, ki, ni, lu, ni, xi, ki);
    for (int64_t j = n - 1; j >= 0; --j) {
      const int64_t p = ipiv[static_cast<size_t>(j)] - 1;
      if (p != j) std::swap_ranges(xi + j * k, xi + (j + 1) * k, xi + p * k);
    }
  }
}

Tensor solve_impl(const Tensor& a, const Tensor& b) {
  check_square(a, "solve");
  const DType wd = working_dtype({&a, &b}, "solve");
  const int64_t n = rows(a);
  check_int(n, "solve");
  const bool vec = b.ndim() == 1;
  // NumPy 2: a 1-d b is one vector; otherwise b is a stack of (M, K) matrices.
  const Tensor bm = vec ? b.expand_dims(1) : b;
  if (bm.ndim() < 2 || rows(bm) != n)
    throw Error(Status::Make(ErrorCode::kInvalidShape, "solve",
                             "a has shape " + Tensor::shape_str(a.shape()) + " and b has shape " +
                                 Tensor::shape_str(b.shape()) + ": b must have " + std::to_string(n) +
                                 " rows (a 1-d b is one vector, otherwise a stack of matrices)"));
  Shape batch;
  try {
    batch = broadcast_shapes(batch_of(a), vec ? Shape{} : batch_of(bm), "solve");
  } catch (const Error&) {
    throw Error(Status::Make(ErrorCode::kInvalidShape, "solve",
                             "batch dimensions of a " + Tensor::shape_str(a.shape()) + " and b " +
                                 Tensor::shape_str(b.shape()) + " do not broadcast"));
  }
  const int64_t k = cols(bm);
  check_int(k, "solve");
  Tensor x = work_copy(bm.broadcast_to(with_dims(batch, {n, k})), wd);
  const int64_t nb = shape_numel(batch);
  if (n > 0 && k > 0 && nb > 0) {
    Tensor abuf = work_copy(a.broadcast_to(with_dims(batch, {n, n})), wd);
    with_type(wd, [&](auto z) { solve_stack<decltype(z)>(abuf, x, nb, n, k, a); });
  }
  return vec ? x.squeeze({x.ndim() - 1}) : x;
}

// ------------------------------------------------------------------ det, slogdet

/// LU of every matrix; calls fn(i, lu, ipiv, n) per matrix (ipiv 0-based, one
/// entry per row; lu row-major or column-major -- the diagonal is the same).
/// det(A) = det(A^T): the row-major buffer goes to getrf as it is.
template <typename T, typename Fn>
void lu_stack(const Tensor& a, DType wd, const std::string& op, Fn&& fn) {
  const int64_t n = rows(a);
  check_int(n, op);
  const int64_t nb = n ? a.numel() / (n * n) : shape_numel(batch_of(a));
  if (n == 0) {
    for (int64_t i = 0; i < nb; ++i) fn(i, static_cast<const T*>(nullptr), static_cast<const int*>(nullptr), 0);
    return;
  }
  const int ni = static_cast<int>(n);
  if (n <= kSmallN) {
    const Tensor src = readable(a, wd);
    const T* ap = src.data_as<T>();
    with_order(n, [&](auto order) {
      constexpr int N = decltype(order)::value;
      parallel_for(op.c_str(), nb, std::max<int64_t>(1, kSmallGrain * 64 / (n * n * n)), [&](int64_t i) {
        T lu[kCap<N> * kCap<N>] = {};
        int piv[kCap<N>];
        std::copy(ap + i * n * n, ap + (i + 1) * n * n, lu);
        small_lu<T, N>(lu, piv, ni);
        fn(i, static_cast<const T*>(lu), static_cast<const int*>(piv), ni);
      });
    });
    return;
  }
  Tensor buf = work_copy(a, wd);
  std::vector<int> ipiv(static_cast<size_t>(n));
  for (int64_t i = 0; i < nb; ++i) {
    T* lu = buf.data_as<T>() + i * n * n;
    int info = 0;
    Lapack<T>::getrf(&ni, &ni, lu, &ni, ipiv.data(), &info);
    if (info < 0) throw Error(Status::Internal(op, "getrf argument " + std::to_string(-info) + " invalid"));
    for (int& p : ipiv) --p;
    fn(i, static_cast<const T*>(lu), static_cast<const int*>(ipiv.data()), ni);
  }
}

/// det/slogdet accumulate in double precision for every working dtype: NumPy
/// computes float32/complex64 determinants in double and casts the result, so
/// a single-precision determinant overflows (or underflows) only where the
/// final value does, not where a partial product would.
template <typename T>
using DetAcc = std::conditional_t<kIsComplex<T>, std::complex<double>, double>;

/// sign and log|det| from an LU (NumPy's slogdet): the sign is +-1, or for
/// complex the product of the unit factors u / |u| of the diagonal; an exactly
/// zero pivot gives (0, -inf).
template <typename T>
void slogdet_of(const T* lu, const int* ipiv, int n, DetAcc<T>* sign, double* logdet) {
  using A = DetAcc<T>;
  A sg = A(1);
  double acc = 0;
  for (int j = 0; j < n; ++j) {
    const A u = A(lu[j * n + j]);
    if (u == A(0)) {
      sg = A(0);
      acc = -std::numeric_limits<double>::infinity();
      break;
    }
    const double au = std::abs(u);
    if constexpr (kIsComplex<T>) {
      sg = mul(sg, u / au);
    } else if (u < 0) {
      sg = -sg;
    }
    if (ipiv[j] != j) sg = -sg;
    acc += std::log(au);
  }
  *sign = sg;
  *logdet = acc;
}

Tensor det_impl(const Tensor& a) {
  check_square(a, "det");
  const DType wd = working_dtype({&a}, "det");
  Tensor out = Tensor::empty(batch_of(a), wd);
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    T* o = out.data_as<T>();
    lu_stack<T>(a, wd, "det", [&](int64_t i, const T* lu, const int* ipiv, int n) {
      if constexpr (kIsComplex<T>) {
        // NumPy's complex det is sign * exp(logabsdet): an overflowing
        // determinant is inf+infj, where the direct product turns into NaN
        // at the first inf * complex step.
        DetAcc<T> sg;
        double acc;
        slogdet_of(lu, ipiv, n, &sg, &acc);
        o[i] = T(mul(sg, DetAcc<T>(std::exp(acc), 0.0)));
      } else {
        double d = 1;
        for (int j = 0; j < n; ++j) {
          d *= static_cast<double>(lu[j * n + j]);
          if (ipiv[j] != j) d = -d;
        }
        o[i] = static_cast<T>(d);
      }
    });
  });
  return out;
}

/// sign (dtype of the matrix) and log|det| (real).
std::vector<Tensor> slogdet_impl(const Tensor& a) {
  check_square(a, "slogdet");
  const DType wd = working_dtype({&a}, "slogdet");
  Tensor sign = Tensor::empty(batch_of(a), wd), logdet = Tensor::empty(batch_of(a), complex_part_dtype(wd));
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    using R = Real<T>;
    T* s = sign.data_as<T>();
    R* l = logdet.data_as<R>();
    lu_stack<T>(a, wd, "slogdet", [&](int64_t i, const T* lu, const int* ipiv, int n) {
      DetAcc<T> sg;
      double acc;
      slogdet_of(lu, ipiv, n, &sg, &acc);
      s[i] = T(sg);
      l[i] = static_cast<R>(acc);
    });
  });
  return {sign, logdet};
}

// ------------------------------------------------------------------ cholesky

/// The Cholesky factor of each matrix: lower L from a's lower triangle, or
/// (`upper`) U from its upper triangle. The row-major buffer is A^T for
/// LAPACK, whose upper triangle is A's lower one: potrf('U') of it is U' with
/// A^T = U'^T U', and U' read row-major is L. `upper` is the mirror image.
Tensor cholesky_impl(const Tensor& a, bool upper) {
  const char* op = "cholesky";
  check_square(a, op);
  const DType wd = working_dtype({&a}, op);
  const int64_t n = rows(a);
  check_int(n, op);
  const int64_t nb = n ? a.numel() / (n * n) : 0;
  if (nb == 0) return Tensor::empty(a.shape(), wd);
  if (n <= kSmallN) {
    // The upper factor of A is the transposed lower factor of A^T.
    const Tensor src = readable(upper ? a.swapaxes(-1, -2) : a, wd);
    Tensor out = Tensor::empty(a.shape(), wd);
    with_type(wd, [&](auto z) {
      using T = decltype(z);
      const T* ap = src.data_as<T>();
      T* op_ = out.data_as<T>();
      FirstFailure fail;
      with_order(n, [&](auto order) {
        constexpr int N = decltype(order)::value;
        const int ni = static_cast<int>(n);
        parallel_for(op, nb, std::max<int64_t>(1, kSmallGrain * 64 / (n * n * n)), [&](int64_t i) {
          T* li = op_ + i * n * n;
          if (!small_cholesky<T, N>(ap + i * n * n, li, ni)) {
            fail.set(i);
            return;
          }
          if (upper)
            for (int r = 0; r < ni; ++r)
              for (int c = r + 1; c < ni; ++c) std::swap(li[r * n + c], li[c * n + r]);
        });
      });
      if (fail.get() >= 0) linalg_error(op, "Matrix is not positive definite " + matrix_where(fail.get(), nb, a));
    });
    return out;
  }
  Tensor buf = work_copy(a, wd);
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    const int ni = static_cast<int>(n);
    for (int64_t i = 0; i < nb; ++i) {
      T* m = buf.data_as<T>() + i * n * n;
      int info = 0;
      Lapack<T>::potrf(upper ? "L" : "U", &ni, m, &ni, &info, 1);
      if (info > 0) linalg_error(op, "Matrix is not positive definite " + matrix_where(i, nb, a));
      if (info < 0) throw Error(Status::Internal(op, "potrf argument invalid"));
      for (int64_t r = 0; r < n; ++r) {  // row-major: zero the other triangle
        if (upper) std::fill(m + r * n, m + r * n + r, T(0));
        else std::fill(m + r * n + r + 1, m + (r + 1) * n, T(0));
      }
    }
  });
  return buf;
}

// ------------------------------------------------------------------ qr

/// mode 'raw': h and tau exactly as LAPACK's geqrf leaves them (h is (N, M), the
/// column-major factored matrix), as NumPy returns them.
std::vector<Tensor> qr_raw(const Tensor& a, DType wd) {
  const int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  const Shape batch = batch_of(a);
  const int64_t nb = shape_numel(batch);
  Tensor h = to_colmajor(a, wd);  // (..., n, m)
  Tensor tau = Tensor::empty(with_dims(batch, {k}), wd);
  if (k == 0) return {h, tau};
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    const int mi = static_cast<int>(m), ni = static_cast<int>(n);
    int info = 0, qry = -1;
    T wq;
    Lapack<T>::geqrf(&mi, &ni, h.data_as<T>(), &mi, tau.data_as<T>(), &wq, &qry, &info);
    int lwork = lwork_of(wq);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < nb; ++i) {
      Lapack<T>::geqrf(&mi, &ni, h.data_as<T>() + i * m * n, &mi, tau.data_as<T>() + i * k, work.data(), &lwork,
                       &info);
      if (info != 0) throw Error(Status::Internal("qr", "geqrf failed"));
    }
  });
  return {h, tau};
}

/// geqrf/orgqr on a blockwise-transposed (column-major) copy of A, the calls
/// NumPy's umath_linalg makes; Q comes back transposed blockwise. (The earlier
/// shortcut for m <= n -- gelqf/orglq on the row-major buffer read as A^T --
/// gives the same reflectors in exact arithmetic but rounds differently from
/// NumPy's; gelqf's wide problem also ran ~1.5x slower for tall A.)
std::vector<Tensor> qr_tall(const Tensor& a, const std::string& mode, DType wd) {
  const int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  const Shape batch = batch_of(a);
  const int64_t nb = shape_numel(batch);
  Tensor h = to_colmajor(a, wd);  // (..., n, m)
  const bool complete = mode == "complete", want_q = mode != "r";
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  Tensor q = Tensor::empty(with_dims(batch, {want_q ? qcols : 0, m}), wd);  // column-major Q
  Tensor r = Tensor::empty(with_dims(batch, {rrows, n}), wd);              // row-major R
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    const int qc = static_cast<int>(qcols);
    std::vector<T> tau(static_cast<size_t>(k));
    int info = 0, qry = -1;
    T wq;
    Lapack<T>::geqrf(&mi, &ni, h.data_as<T>(), &mi, tau.data(), &wq, &qry, &info);
    int lwork = lwork_of(wq);
    if (want_q) {
      Lapack<T>::orgqr(&mi, &qc, &ki, q.data_as<T>(), &mi, tau.data(), &wq, &qry, &info);
      lwork = std::max(lwork, lwork_of(wq));
    }
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < nb; ++i) {
      T* hm = h.data_as<T>() + i * m * n;
      Lapack<T>::geqrf(&mi, &ni, hm, &mi, tau.data(), work.data(), &lwork, &info);
      if (info != 0) throw Error(Status::Internal("qr", "geqrf failed"));
      T* rm = r.data_as<T>() + i * rrows * n;
      for (int64_t row = 0; row < rrows; ++row)
        for (int64_t c = 0; c < n; ++c) rm[row * n + c] = row <= c && row < k ? hm[c * m + row] : T(0);
      if (!want_q) continue;
      T* qm = q.data_as<T>() + i * qcols * m;
      std::copy(hm, hm + k * m, qm);  // the reflectors: the first k columns
      std::fill(qm + k * m, qm + qcols * m, T(0));
      Lapack<T>::orgqr(&mi, &qc, &ki, qm, &mi, tau.data(), work.data(), &lwork, &info);
      if (info != 0) throw Error(Status::Internal("qr", "orgqr failed"));
    }
  });
  if (mode == "r") return {r};
  return {to_colmajor(q, wd), r};
}

/// numpy.linalg.qr: every non-empty matrix goes through qr_tall (NumPy's
/// geqrf + orgqr on column-major A); an empty one (min(m, n) = 0) factors to
/// R = zeros (rrows x n) and Q = the identity's first qcols columns, as NumPy.
std::vector<Tensor> qr_impl(const Tensor& a, const std::string& mode) {
  if (mode != "reduced" && mode != "complete" && mode != "r" && mode != "raw")
    throw Error(Status::Invalid("qr", "Unrecognized mode '" + mode + "' (reduced, complete, r or raw)"));
  check_stack(a, "qr");
  const DType wd = working_dtype({&a}, "qr");
  const int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  check_int(m, "qr");
  check_int(n, "qr");
  if (mode == "raw") return qr_raw(a, wd);
  if (k > 0) return qr_tall(a, mode, wd);
  const Shape batch = batch_of(a);
  const int64_t nb = shape_numel(batch);
  const bool complete = mode == "complete";
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  Tensor r = Tensor::empty(with_dims(batch, {rrows, n}), wd);
  Tensor q = Tensor::empty(with_dims(batch, {m, qcols}), wd);
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    std::fill(r.data_as<T>(), r.data_as<T>() + r.numel(), T(0));
    std::fill(q.data_as<T>(), q.data_as<T>() + q.numel(), T(0));
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t d = 0; d < std::min(qcols, m); ++d) q.data_as<T>()[i * m * qcols + d * qcols + d] = T(1);
  });
  if (mode == "r") return {r};
  return {q, r};
}

// ------------------------------------------------------------------ svd

/// gesdd on a column-major copy of A (M x N, lda M; jobz 'N', 'S' or 'A'),
/// the call NumPy's umath_linalg makes: the row-major buffer read as A^T gives
/// the same factors in exact arithmetic, but LAPACK then bidiagonalises the
/// transposed problem (LQ instead of QR first, the other end), and on
/// ill-conditioned input (pinv of a 3x3 of condition 1e10: 6e-7 off NumPy) or
/// NaN/Inf the results differ from NumPy's beyond rounding. Implementation:
/// svd_rowmajor factors the (N, M) row-major transpose copy, i.e. column-major
/// A, and its factors of A^T transpose back (A^T = U' S Vh' -> U = Vh'^T,
/// Vh = U'^T).
std::vector<Tensor> svd_rowmajor(const Tensor& a, bool full, bool compute_uv, const Tensor& orig);

std::vector<Tensor> svd_impl(const Tensor& a, bool full, bool compute_uv) {
  check_stack(a, "svd");
  const DType wd = working_dtype({&a}, "svd");
  const int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  check_int(m, "svd");
  check_int(n, "svd");
  if (k == 0) return svd_rowmajor(a, full, compute_uv, a);  // identities, no LAPACK call
  std::vector<Tensor> r = svd_rowmajor(to_colmajor(a, wd), full, compute_uv, a);
  if (!compute_uv) return r;
  return {to_colmajor(r[2], wd), r[1], to_colmajor(r[0], wd)};
}

/// The SVD of a row-major (M, N) stack by gesdd on its buffer read as the
/// column-major (N, M) matrix A^T: U' = Vh^T and VT' = U^T come back
/// column-major, which read row-major are Vh and U. svd_impl passes the
/// transposed copy, so LAPACK sees the matrix as given (NumPy's call); `orig`
/// names the caller's array in errors.
std::vector<Tensor> svd_rowmajor(const Tensor& a, bool full, bool compute_uv, const Tensor& orig) {
  const DType wd = working_dtype({&a}, "svd");
  const int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  const Shape batch = batch_of(a);
  const int64_t nb = shape_numel(batch);
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  Tensor s = Tensor::empty(with_dims(batch, {k}), complex_part_dtype(wd));  // real
  Tensor u, vh;
  if (compute_uv) {
    u = Tensor::empty(with_dims(batch, {m, ucols}), wd);
    vh = Tensor::empty(with_dims(batch, {vrows, n}), wd);
  }
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    if (k == 0) {  // nothing to factor: U and Vh are identities (NumPy's result)
      if (compute_uv) {
        std::fill(u.data_as<T>(), u.data_as<T>() + u.numel(), T(0));
        std::fill(vh.data_as<T>(), vh.data_as<T>() + vh.numel(), T(0));
        for (int64_t i = 0; i < nb; ++i) {
          for (int64_t d = 0; d < std::min(ucols, m); ++d) u.data_as<T>()[i * m * ucols + d * ucols + d] = T(1);
          for (int64_t d = 0; d < std::min(vrows, n); ++d) vh.data_as<T>()[i * vrows * n + d * n + d] = T(1);
        }
      }
      return;
    }
    using R = Real<T>;
    Tensor buf = work_copy(a, wd);
    const char jobz = !compute_uv ? 'N' : full ? 'A' : 'S';
    // LAPACK's problem: the n x m matrix A^T (ld n); its U' is n x vrows (ld n)
    // = Vh row-major, its VT' is ucols x m (ld ucols) = U row-major.
    const int mi = static_cast<int>(n), ni = static_cast<int>(m);
    const int lda = mi, ldu = mi, ldvt = std::max(1, static_cast<int>(ucols));
    std::vector<int> iwork(static_cast<size_t>(8 * k));
    // Complex gesdd's real workspace (LAPACK 3.7+): 7 min(m,n) without
    // vectors, else min(m,n) * max(5 min(m,n) + 7, 2 max(m,n) + 2 min(m,n) + 1).
    const int64_t mx = std::max(m, n);
    std::vector<R> rwork(kIsComplex<T> ? static_cast<size_t>(compute_uv ? k * std::max(5 * k + 7, 2 * mx + 2 * k + 1)
                                                                         : 7 * k)
                                       : 1);
    T dummy = T(0), wq = T(0);
    int qry = -1, info = 0;
    T* u0 = compute_uv ? vh.data_as<T>() : &dummy;
    T* v0 = compute_uv ? u.data_as<T>() : &dummy;
    Lapack<T>::gesdd(&jobz, &mi, &ni, buf.data_as<T>(), &lda, s.data_as<R>(), u0, &ldu, v0, &ldvt, &wq, &qry,
                     rwork.data(), iwork.data(), &info);
    int lwork = lwork_of(wq);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < nb; ++i) {
      T* ui = compute_uv ? vh.data_as<T>() + i * vrows * n : &dummy;
      T* vi = compute_uv ? u.data_as<T>() + i * m * ucols : &dummy;
      Lapack<T>::gesdd(&jobz, &mi, &ni, buf.data_as<T>() + i * m * n, &lda, s.data_as<R>() + i * k, ui, &ldu, vi,
                       &ldvt, work.data(), &lwork, rwork.data(), iwork.data(), &info);
      // LAPACK >= 3.10 answers a NaN in A with info = -4 (A's norm is NaN):
      // NumPy reports any failure as non-convergence.
      if (info > 0 || info == -4) linalg_error("svd", "SVD did not converge " + matrix_where(i, nb, orig));
      if (info < 0) throw Error(Status::Internal("svd", "gesdd argument " + std::to_string(-info) + " invalid"));
    }
  });
  if (!compute_uv) return {s};
  return {u, s, vh};
}

// ------------------------------------------------------------------ eigh

/// syevd/heevd on a column-major copy of A with the triangle as named, the call
/// NumPy's umath_linalg makes: the A^T-with-the-other-triangle shortcut reads the
/// same numbers, but LAPACK's reduction then runs from the other end, and on
/// NaN/Inf input its convergence (info) differs from NumPy's (complex 3x3 with
/// NaN: 14 of 150 fuzz matrices). The eigenvectors come back column-major and
/// are transposed blockwise.
std::vector<Tensor> eigh_impl(const Tensor& a, char uplo, bool compute_v) {
  const std::string op = compute_v ? "eigh" : "eigvalsh";
  if (uplo != 'L' && uplo != 'U') throw Error(Status::Invalid(op, "UPLO argument must be 'L' or 'U'"));
  check_square(a, op);
  const DType wd = working_dtype({&a}, op);
  const int64_t n = rows(a);
  check_int(n, op);
  const Shape batch = batch_of(a);
  const int64_t nb = shape_numel(batch);
  Tensor w = Tensor::empty(with_dims(batch, {n}), complex_part_dtype(wd));  // real
  Tensor buf = to_colmajor(a, wd);
  Tensor v = compute_v ? Tensor::empty(a.shape(), wd) : Tensor();
  if (n > 0) {
    with_type(wd, [&](auto z) {
      using T = decltype(z);
      using R = Real<T>;
      const char jobz = compute_v ? 'V' : 'N';
      const char lu = uplo;
      const int ni = static_cast<int>(n);
      T wq = T(0);
      R rq = R(0);
      int iq = 0, qry = -1, info = 0;
      Lapack<T>::syevd(&jobz, &lu, &ni, buf.data_as<T>(), &ni, w.data_as<R>(), &wq, &qry, &rq, &qry, &iq, &qry,
                       &info);
      int lwork = lwork_of(wq), lrwork = lwork_of(rq), liwork = std::max(1, iq);
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<R> rwork(static_cast<size_t>(kIsComplex<T> ? lrwork : 1));
      std::vector<int> iwork(static_cast<size_t>(liwork));
      for (int64_t i = 0; i < nb; ++i) {
        T* bi = buf.data_as<T>() + i * n * n;
        Lapack<T>::syevd(&jobz, &lu, &ni, bi, &ni, w.data_as<R>() + i * n, work.data(), &lwork, rwork.data(),
                         &lrwork, iwork.data(), &liwork, &info);
        if (info > 0) linalg_error(op, "Eigenvalues did not converge " + matrix_where(i, nb, a));
        if (info < 0) throw Error(Status::Internal(op, "syevd argument " + std::to_string(-info) + " invalid"));
        if (!compute_v) continue;
        transpose_into(bi, v.data_as<T>() + i * n * n, n, n);  // (column-major vectors to row-major)
      }
    });
  }
  if (!compute_v) return {w};
  return {w, v};
}

// ------------------------------------------------------------------ lstsq

std::vector<Tensor> lstsq_impl(const Tensor& a, const Tensor& b, double rcond) {
  if (a.ndim() != 2 || (b.ndim() != 1 && b.ndim() != 2))
    linalg_error("lstsq", std::to_string(a.ndim() != 2 ? a.ndim() : b.ndim()) +
                              "-dimensional array given. Array must be two-dimensional");
  const DType wd = working_dtype({&a, &b}, "lstsq");
  const bool vec = b.ndim() == 1;
  const Tensor bm = vec ? b.expand_dims(1) : b;
  const int64_t m = rows(a), n = cols(a), nrhs = cols(bm), k = std::min(m, n);
  if (rows(bm) != m)
    linalg_error("lstsq", "Incompatible dimensions: a has shape " + Tensor::shape_str(a.shape()) +
                              ", b has shape " + Tensor::shape_str(b.shape()));
  check_int(std::max(m, n), "lstsq");
  check_int(nrhs, "lstsq");
  const int64_t mx = std::max(m, n);
  Tensor abuf = to_colmajor(a, wd);
  // Column-major, ldb = max(m, n); at least one column so that the singular
  // values are computed even for an empty right-hand side (NumPy does the same).
  const int64_t ncol = std::max<int64_t>(nrhs, 1);
  Tensor bbuf = Tensor::empty({ncol, mx}, wd);
  const DType rd = complex_part_dtype(wd);  // singular values, residuals: real
  Tensor s = Tensor::empty({k}, rd);
  int rank = 0;
  Tensor x = Tensor::empty({n, nrhs}, wd), resid;
  with_type(wd, [&](auto z) {
    using T = decltype(z);
    using R = Real<T>;
    T* bp = bbuf.data_as<T>();
    std::fill(bp, bp + bbuf.numel(), T(0));
    const Tensor bc = to_colmajor(bm, wd);  // (nrhs, m)
    for (int64_t c = 0; c < nrhs; ++c) std::copy(bc.data_as<T>() + c * m, bc.data_as<T>() + (c + 1) * m, bp + c * mx);
    if (m > 0 && n > 0) {
      const int mi = static_cast<int>(m), ni = static_cast<int>(n), ri = static_cast<int>(ncol);
      const int lda = mi, ldb = static_cast<int>(mx);
      const R rc = rcond < 0 ? std::numeric_limits<R>::epsilon() * static_cast<R>(mx) : static_cast<R>(rcond);
      T wq = T(0);
      R rq = R(0);  // complex gelsd answers its real workspace size in rwork[0]
      int iq = 0, qry = -1, info = 0;
      Lapack<T>::gelsd(&mi, &ni, &ri, abuf.data_as<T>(), &lda, bp, &ldb, s.data_as<R>(), &rc, &rank, &wq, &qry, &rq,
                       &iq, &info);
      const int lwork = lwork_of(wq);
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<R> rwork(static_cast<size_t>(kIsComplex<T> ? lwork_of(rq) : 1));
      std::vector<int> iwork(static_cast<size_t>(std::max(1, iq)));
      Lapack<T>::gelsd(&mi, &ni, &ri, abuf.data_as<T>(), &lda, bp, &ldb, s.data_as<R>(), &rc, &rank, work.data(),
                       &lwork, rwork.data(), iwork.data(), &info);
      // info = -4: A holds NaN (its scaling rejects the NaN norm); NumPy
      // reports every failure as non-convergence.
      if (info > 0 || info == -4) linalg_error("lstsq", "SVD did not converge in Linear Least Squares");
      if (info < 0) throw Error(Status::Internal("lstsq", "gelsd argument " + std::to_string(-info) + " invalid"));
    } else {  // x = 0; for n == 0 every row of b is residual
      for (int64_t c = 0; c < nrhs; ++c) std::fill(bp + c * mx, bp + c * mx + n, T(0));
    }
    T* xp = x.data_as<T>();
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < nrhs; ++c) xp[r * nrhs + c] = bp[c * mx + r];
    // Residual sums of squares: only for a full-rank overdetermined system.
    if (rank == n && m > n) {
      resid = Tensor::empty({nrhs}, rd);
      for (int64_t c = 0; c < nrhs; ++c) {
        R acc = R(0);
        for (int64_t r = n; r < m; ++r) acc += abs2(bp[c * mx + r]);
        resid.data_as<R>()[c] = acc;
      }
    } else {
      resid = Tensor::empty({0}, rd);
    }
  });
  Tensor rk = Tensor::empty({}, DType::kInt32);
  *rk.data_as<int32_t>() = rank;
  return {vec ? x.reshape({n}) : x, resid, rk, s};
}

// ------------------------------------------------------------------ registry

Tensor run_inv(const OpDef&, const std::vector<Tensor>& in, const Attrs&) { return inv_impl(in[0]); }
Tensor run_solve(const OpDef&, const std::vector<Tensor>& in, const Attrs&) { return solve_impl(in[0], in[1]); }
Tensor run_det(const OpDef&, const std::vector<Tensor>& in, const Attrs&) { return det_impl(in[0]); }
Tensor run_cholesky(const OpDef&, const std::vector<Tensor>& in, const Attrs& at) {
  return cholesky_impl(in[0], at.flags != 0);
}
Tensor run_svdvals(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  return svd_impl(in[0], false, false)[0];
}
Tensor run_eigvalsh(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  return eigh_impl(in[0], 'L', false)[0];
}

/// The LAPACK registry ops: opaque, complex operands handled (c/z routines).
OpDef lapack_op(const char* name, int arity, OpaqueFn run, const char* doc) {
  OpDef d = opaque_op(name, arity, run, doc);
  d.complex_ok = true;
  return d;
}

const OpRegistrar kInv(lapack_op("inv", 1, &run_inv, "Inverse of each square matrix (numpy.linalg.inv; LAPACK gesv)."));
const OpRegistrar kSolve(lapack_op("solve", 2, &run_solve,
                                   "Solution x of a @ x = b (numpy.linalg.solve; LAPACK gesv)."));
const OpRegistrar kDet(lapack_op("det", 1, &run_det, "Determinant of each square matrix (numpy.linalg.det; LU)."));
const OpRegistrar kCholesky(lapack_op("cholesky", 1, &run_cholesky,
                                   "Lower Cholesky factor of each matrix (numpy.linalg.cholesky; LAPACK potrf)."));
const OpRegistrar kSvdvals(lapack_op("svdvals", 1, &run_svdvals,
                                  "Singular values, descending (numpy.linalg.svdvals; LAPACK gesdd)."));
const OpRegistrar kEigvalsh(lapack_op("eigvalsh", 1, &run_eigvalsh,
                                   "Eigenvalues of symmetric/Hermitian matrices, ascending "
                                   "(numpy.linalg.eigvalsh; syevd/heevd)."));

Tensor call1(const char* name, const Tensor& a) {
  return call(get_op(name), {a});
}

}  // namespace

Tensor inv(const Tensor& a) { return call1("inv", a); }
Tensor solve(const Tensor& a, const Tensor& b) { return call(get_op("solve"), {a, b}); }
Tensor det(const Tensor& a) { return call1("det", a); }
std::vector<Tensor> slogdet(const Tensor& a) { return slogdet_impl(a); }
Tensor cholesky(const Tensor& a, bool upper) {
  Attrs at;
  at.flags = upper ? 1 : 0;
  return call(get_op("cholesky"), {a}, at);
}
std::vector<Tensor> qr(const Tensor& a, const std::string& mode) { return qr_impl(a, mode); }
std::vector<Tensor> svd(const Tensor& a, bool full_matrices, bool compute_uv) {
  if (!compute_uv) return {call1("svdvals", a)};
  return svd_impl(a, full_matrices, true);
}
std::vector<Tensor> eigh(const Tensor& a, char uplo, bool compute_v) {
  if (!compute_v) {
    if (uplo != 'L' && uplo != 'U') throw Error(Status::Invalid("eigvalsh", "UPLO argument must be 'L' or 'U'"));
    if (a.ndim() < 2) check_stack(a, "eigvalsh");
    // The upper triangle of a is the lower one of its transpose.
    return {call1("eigvalsh", uplo == 'L' ? a : a.swapaxes(-1, -2))};
  }
  return eigh_impl(a, uplo, true);
}
std::vector<Tensor> lstsq(const Tensor& a, const Tensor& b, double rcond) { return lstsq_impl(a, b, rcond); }

}  // namespace asc::ops
