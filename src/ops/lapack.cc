// numpy.linalg on LAPACK (OpenBLAS's Fortran symbols): inv/solve (gesv),
// det/slogdet (getrf), cholesky (potrf), qr (geqrf + orgqr), svd (gesdd),
// eigh (syevd), lstsq (gelsd).
//
// Each matrix of a stack is handed to LAPACK column-major: the stack's
// transpose (..., N, M) copied C-contiguous, which is every matrix in
// column-major order, also converts the dtype in the same pass. Results come
// back the same way. Single-output functions are registry ops (inv, solve,
// det, cholesky, svdvals, eigvalsh); the multi-output ones are plain functions.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "asc/ops/linalg.h"
#include "asc/ops/registry.h"

// LAPACK, Fortran calling convention: every argument by pointer, character
// arguments followed by hidden length arguments at the end (gfortran ABI).
extern "C" {
void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb,
            int* info);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
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
}

namespace asc::ops {
namespace {

// ------------------------------------------------------------------ s/d dispatch

template <typename T>
struct Lapack;

template <>
struct Lapack<float> {
  static constexpr auto gesv = sgesv_;
  static constexpr auto getrf = sgetrf_;
  static constexpr auto potrf = spotrf_;
  static constexpr auto geqrf = sgeqrf_;
  static constexpr auto orgqr = sorgqr_;
  static constexpr auto gesdd = sgesdd_;
  static constexpr auto syevd = ssyevd_;
  static constexpr auto gelsd = sgelsd_;
};
template <>
struct Lapack<double> {
  static constexpr auto gesv = dgesv_;
  static constexpr auto getrf = dgetrf_;
  static constexpr auto potrf = dpotrf_;
  static constexpr auto geqrf = dgeqrf_;
  static constexpr auto orgqr = dorgqr_;
  static constexpr auto gesdd = dgesdd_;
  static constexpr auto syevd = dsyevd_;
  static constexpr auto gelsd = dgelsd_;
};

/// Calls fn(T{}) with T = float or double for the working dtype.
template <typename Fn>
decltype(auto) with_real(DType wd, Fn&& fn) {
  if (wd == DType::kFloat32) return fn(float{});
  return fn(double{});
}

// ------------------------------------------------------------------ checks, layout

[[noreturn]] void linalg_error(const std::string& op, const std::string& detail) {
  throw Error(Status::Make(ErrorCode::kLinAlgError, op, detail));
}

/// numpy.linalg's working dtype: float32 stays float32, float64 and every
/// non-float type (ints, bool, bfloat16: not numpy.inexact) become float64,
/// float16 is unsupported.
DType working_dtype(std::initializer_list<const Tensor*> ts, const std::string& op) {
  DType wd = DType::kFloat32;
  for (const Tensor* t : ts) {
    if (t->dtype() == DType::kFloat16)
      throw Error(Status::TypeError(op, "array type float16 is unsupported in linalg"));
    if (t->dtype() != DType::kFloat32) wd = DType::kFloat64;
  }
  return wd;
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

/// A fresh buffer (..., N, M) holding every (M, N) matrix of `a` column-major, in dtype wd.
Tensor to_colmajor(const Tensor& a, DType wd) {
  const Tensor t = a.swapaxes(-1, -2);
  return t.dtype() == wd ? t.clone() : cast(t, wd);
}
/// The inverse of to_colmajor: a C-contiguous (..., M, N) stack.
Tensor from_colmajor(const Tensor& buf) { return buf.swapaxes(-1, -2).contiguous(); }

/// Workspace size from a LAPACK query (lwork = -1 answers in work[0]).
template <typename T>
int lwork_of(T w) {
  return std::max(1, static_cast<int>(w) + 1);
}

std::string matrix_where(int64_t i, int64_t nb, const Tensor& a) {
  std::string s = "(shape " + Tensor::shape_str(a.shape());
  if (nb > 1) s += ", matrix " + std::to_string(i) + " of the stack";
  return s + ")";
}

// ------------------------------------------------------------------ inv, solve

/// Solves A X = B in place for every matrix of the stacks (both column-major
/// buffers, A (nb, n, n), B (nb, nrhs, n)); B becomes X.
template <typename T>
void gesv_stack(Tensor& abuf, Tensor& bbuf, int64_t nb, int n, int nrhs, const std::string& op,
                const Tensor& shown) {
  if (n == 0 || nrhs == 0) return;
  std::vector<int> ipiv(static_cast<size_t>(n));
  T* a = abuf.data_as<T>();
  T* b = bbuf.data_as<T>();
  for (int64_t i = 0; i < nb; ++i) {
    int info = 0;
    Lapack<T>::gesv(&n, &nrhs, a + i * n * n, &n, ipiv.data(), b + i * int64_t(n) * nrhs, &n, &info);
    if (info > 0) linalg_error(op, "Singular matrix " + matrix_where(i, nb, shown));
    if (info < 0) throw Error(Status::Internal(op, "gesv argument " + std::to_string(-info) + " invalid"));
  }
}

Tensor inv_impl(const Tensor& a) {
  check_square(a, "inv");
  const DType wd = working_dtype({&a}, "inv");
  const int64_t n = rows(a);
  check_int(n, "inv");
  Tensor abuf = to_colmajor(a, wd);
  const int64_t nb = n ? a.numel() / (n * n) : 0;
  Tensor x = Tensor::empty(a.shape(), wd);
  with_real(wd, [&](auto z) {
    using T = decltype(z);
    T* p = x.data_as<T>();
    std::fill(p, p + x.numel(), T(0));
    for (int64_t i = 0; i < nb; ++i)
      for (int64_t d = 0; d < n; ++d) p[i * n * n + d * n + d] = T(1);
    gesv_stack<T>(abuf, x, nb, static_cast<int>(n), static_cast<int>(n), "inv", a);
  });
  return from_colmajor(x);
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
  Tensor abuf = to_colmajor(a.broadcast_to(with_dims(batch, {n, n})), wd);
  Tensor bbuf = to_colmajor(bm.broadcast_to(with_dims(batch, {n, k})), wd);
  const int64_t nb = shape_numel(batch);
  with_real(wd, [&](auto z) {
    using T = decltype(z);
    gesv_stack<T>(abuf, bbuf, nb, static_cast<int>(n), static_cast<int>(k), "solve", a);
  });
  Tensor x = from_colmajor(bbuf);
  return vec ? x.squeeze({x.ndim() - 1}) : x;
}

// ------------------------------------------------------------------ det, slogdet

/// LU of every matrix; calls fn(i, lu, ipiv) per matrix.
template <typename T, typename Fn>
void lu_stack(const Tensor& a, DType wd, const std::string& op, Fn&& fn) {
  const int64_t n = rows(a);
  check_int(n, op);
  const int64_t nb = n ? a.numel() / (n * n) : shape_numel(batch_of(a));
  if (n == 0) {
    for (int64_t i = 0; i < nb; ++i) fn(i, static_cast<const T*>(nullptr), static_cast<const int*>(nullptr), 0);
    return;
  }
  Tensor buf = to_colmajor(a, wd);
  std::vector<int> ipiv(static_cast<size_t>(n));
  const int ni = static_cast<int>(n);
  for (int64_t i = 0; i < nb; ++i) {
    T* lu = buf.data_as<T>() + i * n * n;
    int info = 0;
    Lapack<T>::getrf(&ni, &ni, lu, &ni, ipiv.data(), &info);
    if (info < 0) throw Error(Status::Internal(op, "getrf argument " + std::to_string(-info) + " invalid"));
    fn(i, static_cast<const T*>(lu), static_cast<const int*>(ipiv.data()), ni);
  }
}

Tensor det_impl(const Tensor& a) {
  check_square(a, "det");
  const DType wd = working_dtype({&a}, "det");
  Tensor out = Tensor::empty(batch_of(a), wd);
  with_real(wd, [&](auto z) {
    using T = decltype(z);
    T* o = out.data_as<T>();
    lu_stack<T>(a, wd, "det", [&](int64_t i, const T* lu, const int* ipiv, int n) {
      T d = T(1);
      for (int j = 0; j < n; ++j) {
        d *= lu[j * n + j];
        if (ipiv[j] != j + 1) d = -d;
      }
      o[i] = d;
    });
  });
  return out;
}

std::vector<Tensor> slogdet_impl(const Tensor& a) {
  check_square(a, "slogdet");
  const DType wd = working_dtype({&a}, "slogdet");
  Tensor sign = Tensor::empty(batch_of(a), wd), logdet = Tensor::empty(batch_of(a), wd);
  with_real(wd, [&](auto z) {
    using T = decltype(z);
    T* s = sign.data_as<T>();
    T* l = logdet.data_as<T>();
    lu_stack<T>(a, wd, "slogdet", [&](int64_t i, const T* lu, const int* ipiv, int n) {
      T sg = T(1), acc = T(0);
      for (int j = 0; j < n; ++j) {
        const T u = lu[j * n + j];
        if (u == T(0)) {
          sg = T(0);
          acc = -std::numeric_limits<T>::infinity();
          break;
        }
        if (u < T(0)) sg = -sg;
        if (ipiv[j] != j + 1) sg = -sg;
        acc += std::log(std::abs(u));
      }
      s[i] = sg;
      l[i] = acc;
    });
  });
  return {sign, logdet};
}

// ------------------------------------------------------------------ cholesky

Tensor cholesky_lower(const Tensor& a) {
  check_square(a, "cholesky");
  const DType wd = working_dtype({&a}, "cholesky");
  const int64_t n = rows(a);
  check_int(n, "cholesky");
  Tensor buf = to_colmajor(a, wd);
  const int64_t nb = n ? a.numel() / (n * n) : 0;
  with_real(wd, [&](auto z) {
    using T = decltype(z);
    const int ni = static_cast<int>(n);
    for (int64_t i = 0; i < nb; ++i) {
      T* m = buf.data_as<T>() + i * n * n;
      int info = 0;
      Lapack<T>::potrf("L", &ni, m, &ni, &info, 1);
      if (info > 0) linalg_error("cholesky", "Matrix is not positive definite " + matrix_where(i, nb, a));
      if (info < 0) throw Error(Status::Internal("cholesky", "potrf argument invalid"));
      for (int64_t c = 1; c < n; ++c)  // column-major: zero the strictly upper part
        std::fill(m + c * n, m + c * n + c, T(0));
    }
  });
  return from_colmajor(buf);
}

// ------------------------------------------------------------------ qr

std::vector<Tensor> qr_impl(const Tensor& a, const std::string& mode) {
  if (mode != "reduced" && mode != "complete" && mode != "r" && mode != "raw")
    throw Error(Status::Invalid("qr", "Unrecognized mode '" + mode + "' (reduced, complete, r or raw)"));
  check_stack(a, "qr");
  const DType wd = working_dtype({&a}, "qr");
  const int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  check_int(m, "qr");
  check_int(n, "qr");
  const Shape batch = batch_of(a);
  const int64_t nb = shape_numel(batch);
  Tensor h = to_colmajor(a, wd);  // (..., n, m)
  Tensor tau = Tensor::empty(with_dims(batch, {k}), wd);
  const bool complete = mode == "complete";
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  const bool want_q = mode == "reduced" || complete, want_r = mode != "raw";
  Tensor q = Tensor::empty(with_dims(batch, {want_q ? qcols : 0, m}), wd);  // column-major Q
  Tensor r = Tensor::empty(with_dims(batch, {want_r ? rrows : 0, n}), wd);  // row-major R
  with_real(wd, [&](auto z) {
    using T = decltype(z);
    const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
    const int lda = std::max(1, mi);
    int lwork = 1, info = 0;
    if (k > 0) {
      T wq;
      int qry = -1;
      Lapack<T>::geqrf(&mi, &ni, h.data_as<T>(), &lda, tau.data_as<T>(), &wq, &qry, &info);
      lwork = lwork_of(wq);
      if (want_q) {
        const int qc = static_cast<int>(qcols);
        Lapack<T>::orgqr(&mi, &qc, &ki, q.data_as<T>(), &lda, tau.data_as<T>(), &wq, &qry, &info);
        lwork = std::max(lwork, lwork_of(wq));
      }
    }
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < nb; ++i) {
      T* hm = h.data_as<T>() + i * m * n;
      T* t = tau.data_as<T>() + i * k;
      if (k > 0) {
        Lapack<T>::geqrf(&mi, &ni, hm, &lda, t, work.data(), &lwork, &info);
        if (info != 0) throw Error(Status::Internal("qr", "geqrf failed"));
      }
      if (mode == "raw") continue;
      T* rm = r.data_as<T>() + i * rrows * n;
      for (int64_t row = 0; row < rrows; ++row)
        for (int64_t c = 0; c < n; ++c) rm[row * n + c] = row <= c && row < m ? hm[c * m + row] : T(0);
      if (mode == "r") continue;
      T* qm = q.data_as<T>() + i * qcols * m;
      std::fill(qm, qm + qcols * m, T(0));
      std::copy(hm, hm + k * m, qm);  // the reflectors: the first k columns
      if (k > 0) {
        const int qc = static_cast<int>(qcols);
        Lapack<T>::orgqr(&mi, &qc, &ki, qm, &lda, t, work.data(), &lwork, &info);
        if (info != 0) throw Error(Status::Internal("qr", "orgqr failed"));
      } else {
        for (int64_t d = 0; d < std::min(qcols, m); ++d) qm[d * m + d] = T(1);
      }
    }
  });
  if (mode == "raw") return {h, tau};
  if (mode == "r") return {r};
  return {from_colmajor(q), r};
}

// ------------------------------------------------------------------ svd

std::vector<Tensor> svd_impl(const Tensor& a, bool full, bool compute_uv) {
  check_stack(a, "svd");
  const DType wd = working_dtype({&a}, "svd");
  const int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  check_int(m, "svd");
  check_int(n, "svd");
  const Shape batch = batch_of(a);
  const int64_t nb = shape_numel(batch);
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  Tensor s = Tensor::empty(with_dims(batch, {k}), wd);
  Tensor u, vt;
  if (compute_uv) {
    u = Tensor::empty(with_dims(batch, {ucols, m}), wd);   // column-major U
    vt = Tensor::empty(with_dims(batch, {n, vrows}), wd);  // column-major Vh
  }
  Tensor buf = to_colmajor(a, wd);
  with_real(wd, [&](auto z) {
    using T = decltype(z);
    if (k == 0) {  // nothing to factor: U and Vh are identities (NumPy's result)
      if (compute_uv) {
        std::fill(u.data_as<T>(), u.data_as<T>() + u.numel(), T(0));
        std::fill(vt.data_as<T>(), vt.data_as<T>() + vt.numel(), T(0));
        for (int64_t i = 0; i < nb; ++i) {
          for (int64_t d = 0; d < std::min(ucols, m); ++d) u.data_as<T>()[i * ucols * m + d * m + d] = T(1);
          for (int64_t d = 0; d < std::min(vrows, n); ++d) vt.data_as<T>()[i * n * vrows + d * vrows + d] = T(1);
        }
      }
      return;
    }
    const char jobz = !compute_uv ? 'N' : full ? 'A' : 'S';
    const int mi = static_cast<int>(m), ni = static_cast<int>(n);
    const int lda = mi, ldu = mi, ldvt = std::max(1, static_cast<int>(vrows));
    std::vector<int> iwork(static_cast<size_t>(8 * k));
    T dummy = T(0), wq = T(0);
    int qry = -1, info = 0;
    T* u0 = compute_uv ? u.data_as<T>() : &dummy;
    T* v0 = compute_uv ? vt.data_as<T>() : &dummy;
    Lapack<T>::gesdd(&jobz, &mi, &ni, buf.data_as<T>(), &lda, s.data_as<T>(), u0, &ldu, v0, &ldvt, &wq, &qry,
                     iwork.data(), &info, 1);
    int lwork = lwork_of(wq);
    std::vector<T> work(static_cast<size_t>(lwork));
    for (int64_t i = 0; i < nb; ++i) {
      T* ui = compute_uv ? u.data_as<T>() + i * ucols * m : &dummy;
      T* vi = compute_uv ? vt.data_as<T>() + i * n * vrows : &dummy;
      Lapack<T>::gesdd(&jobz, &mi, &ni, buf.data_as<T>() + i * m * n, &lda, s.data_as<T>() + i * k, ui, &ldu, vi,
                       &ldvt, work.data(), &lwork, iwork.data(), &info, 1);
      if (info > 0) linalg_error("svd", "SVD did not converge " + matrix_where(i, nb, a));
      if (info < 0) throw Error(Status::Internal("svd", "gesdd argument " + std::to_string(-info) + " invalid"));
    }
  });
  if (!compute_uv) return {s};
  return {from_colmajor(u), s, from_colmajor(vt)};
}

// ------------------------------------------------------------------ eigh

std::vector<Tensor> eigh_impl(const Tensor& a, char uplo, bool compute_v) {
  const std::string op = compute_v ? "eigh" : "eigvalsh";
  if (uplo != 'L' && uplo != 'U') throw Error(Status::Invalid(op, "UPLO argument must be 'L' or 'U'"));
  check_square(a, op);
  const DType wd = working_dtype({&a}, op);
  const int64_t n = rows(a);
  check_int(n, op);
  const Shape batch = batch_of(a);
  const int64_t nb = shape_numel(batch);
  Tensor w = Tensor::empty(with_dims(batch, {n}), wd);
  Tensor buf = to_colmajor(a, wd);
  if (n > 0) {
    with_real(wd, [&](auto z) {
      using T = decltype(z);
      const char jobz = compute_v ? 'V' : 'N';
      const int ni = static_cast<int>(n);
      T wq = T(0);
      int iq = 0, qry = -1, info = 0;
      Lapack<T>::syevd(&jobz, &uplo, &ni, buf.data_as<T>(), &ni, w.data_as<T>(), &wq, &qry, &iq, &qry, &info, 1, 1);
      int lwork = lwork_of(wq), liwork = std::max(1, iq);
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<int> iwork(static_cast<size_t>(liwork));
      for (int64_t i = 0; i < nb; ++i) {
        Lapack<T>::syevd(&jobz, &uplo, &ni, buf.data_as<T>() + i * n * n, &ni, w.data_as<T>() + i * n, work.data(),
                         &lwork, iwork.data(), &liwork, &info, 1, 1);
        if (info > 0) linalg_error(op, "Eigenvalues did not converge " + matrix_where(i, nb, a));
        if (info < 0) throw Error(Status::Internal(op, "syevd argument " + std::to_string(-info) + " invalid"));
      }
    });
  }
  if (!compute_v) return {w};
  return {w, from_colmajor(buf)};
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
  Tensor s = Tensor::empty({k}, wd);
  int rank = 0;
  Tensor x = Tensor::empty({n, nrhs}, wd), resid;
  with_real(wd, [&](auto z) {
    using T = decltype(z);
    T* bp = bbuf.data_as<T>();
    std::fill(bp, bp + bbuf.numel(), T(0));
    const Tensor bc = to_colmajor(bm, wd);  // (nrhs, m)
    for (int64_t c = 0; c < nrhs; ++c) std::copy(bc.data_as<T>() + c * m, bc.data_as<T>() + (c + 1) * m, bp + c * mx);
    if (m > 0 && n > 0) {
      const int mi = static_cast<int>(m), ni = static_cast<int>(n), ri = static_cast<int>(ncol);
      const int lda = mi, ldb = static_cast<int>(mx);
      const T rc = rcond < 0 ? std::numeric_limits<T>::epsilon() * static_cast<T>(mx) : static_cast<T>(rcond);
      T wq = T(0);
      int iq = 0, qry = -1, info = 0;
      Lapack<T>::gelsd(&mi, &ni, &ri, abuf.data_as<T>(), &lda, bp, &ldb, s.data_as<T>(), &rc, &rank, &wq, &qry, &iq,
                       &info);
      const int lwork = lwork_of(wq);
      std::vector<T> work(static_cast<size_t>(lwork));
      std::vector<int> iwork(static_cast<size_t>(std::max(1, iq)));
      Lapack<T>::gelsd(&mi, &ni, &ri, abuf.data_as<T>(), &lda, bp, &ldb, s.data_as<T>(), &rc, &rank, work.data(),
                       &lwork, iwork.data(), &info);
      if (info > 0) linalg_error("lstsq", "SVD did not converge in Linear Least Squares");
      if (info < 0) throw Error(Status::Internal("lstsq", "gelsd argument " + std::to_string(-info) + " invalid"));
    } else {  // x = 0; for n == 0 every row of b is residual
      for (int64_t c = 0; c < nrhs; ++c) std::fill(bp + c * mx, bp + c * mx + n, T(0));
    }
    T* xp = x.data_as<T>();
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < nrhs; ++c) xp[r * nrhs + c] = bp[c * mx + r];
    // Residual sums of squares: only for a full-rank overdetermined system.
    if (rank == n && m > n) {
      resid = Tensor::empty({nrhs}, wd);
      for (int64_t c = 0; c < nrhs; ++c) {
        T acc = T(0);
        for (int64_t r = n; r < m; ++r) acc += bp[c * mx + r] * bp[c * mx + r];
        resid.data_as<T>()[c] = acc;
      }
    } else {
      resid = Tensor::empty({0}, wd);
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
Tensor run_cholesky(const OpDef&, const std::vector<Tensor>& in, const Attrs&) { return cholesky_lower(in[0]); }
Tensor run_svdvals(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  return svd_impl(in[0], false, false)[0];
}
Tensor run_eigvalsh(const OpDef&, const std::vector<Tensor>& in, const Attrs&) {
  return eigh_impl(in[0], 'L', false)[0];
}

OpDef opaque(const char* name, int arity, OpaqueFn fn, const char* doc) {
  OpDef d;
  d.name = name;
  d.arity = arity;
  d.fusion = FusionClass::kOpaque;
  d.run = fn;
  d.doc = doc;
  return d;
}

const OpRegistrar kInv(opaque("inv", 1, &run_inv, "Inverse of each square matrix (numpy.linalg.inv; LAPACK gesv)."));
const OpRegistrar kSolve(opaque("solve", 2, &run_solve, "Solution x of a @ x = b (numpy.linalg.solve; LAPACK gesv)."));
const OpRegistrar kDet(opaque("det", 1, &run_det, "Determinant of each square matrix (numpy.linalg.det; LU)."));
const OpRegistrar kCholesky(opaque("cholesky", 1, &run_cholesky,
                                   "Lower Cholesky factor of each matrix (numpy.linalg.cholesky; LAPACK potrf)."));
const OpRegistrar kSvdvals(opaque("svdvals", 1, &run_svdvals,
                                  "Singular values, descending (numpy.linalg.svdvals; LAPACK gesdd)."));
const OpRegistrar kEigvalsh(opaque("eigvalsh", 1, &run_eigvalsh,
                                   "Eigenvalues of symmetric matrices, ascending (numpy.linalg.eigvalsh; syevd)."));

Tensor call1(const char* name, const Tensor& a) {
  return call(get_op(name), {a});
}

}  // namespace

Tensor inv(const Tensor& a) { return call1("inv", a); }
Tensor solve(const Tensor& a, const Tensor& b) { return call(get_op("solve"), {a, b}); }
Tensor det(const Tensor& a) { return call1("det", a); }
std::vector<Tensor> slogdet(const Tensor& a) { return slogdet_impl(a); }
Tensor cholesky(const Tensor& a, bool upper) {
  if (!upper) return call1("cholesky", a);
  // U = L(a^T)^T: the lower factor of the transpose reads a's upper triangle.
  if (a.ndim() < 2) check_stack(a, "cholesky");
  return call1("cholesky", a.swapaxes(-1, -2)).swapaxes(-1, -2).contiguous();
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
