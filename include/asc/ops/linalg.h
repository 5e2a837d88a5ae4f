// Linear algebra on tensors: matmul (BLAS) and the LAPACK-backed functions of
// numpy.linalg.
//
// matmul follows numpy.matmul exactly: 1-d operands are promoted to matrices
// (a row vector on the left, a column vector on the right) and the added
// dimension is removed from the result; leading (batch) dimensions broadcast.
// float32/float64 run OpenBLAS sgemm/dgemm from the calling thread (OpenBLAS
// parallelises a large gemm over its own threads, by default one per core;
// `blas_num_threads()` reports the count); a batch is one gemm when the batch
// collapses into the rows of the left operand, otherwise one gemm per matrix.
// Operands BLAS cannot address (strides that are not a row- or column-major
// matrix, negative strides) are copied first. float16 is computed in float32
// and rounded back; bfloat16 gives float32 (the dtype NumPy picks: ml_dtypes
// has no matmul loop, NumPy casts to float32). Integers are exact with
// wrap-around on overflow (as NumPy), bool is OR of ANDs.
//
// The LAPACK functions take stacks of matrices (..., M, N) and work on each one.
// float32 input computes in float32 (s* routines); float64, integers, bool and
// bfloat16 compute in float64 (d* routines), as numpy.linalg does; complex64
// uses the c* and complex128 the z* routines (with several operands: complex
// when any is complex, single precision only when all are float32/complex64);
// float16 is a kInvalidDtype error ("array type float16 is unsupported in
// linalg"). Singular values, eigh's eigenvalues, slogdet's logabsdet and
// lstsq's residuals are real (float32 for complex64).
// LAPACK gets a row-major copy of each matrix, which it reads as A^T (a
// transpose, not the conjugate transpose), and solves the transposed problem
// where that gives the result directly (no transposing copies); stacks of
// matrices of order <= 32 use unblocked LU/Cholesky kernels spread over the
// device cores instead (real and complex).
//
// Errors (asc::Error, messages "[op] ..." naming shapes/dtypes):
//  * kInvalidShape: operands whose core dimensions do not match, 0-d operands
//    of matmul, batch shapes that do not broadcast, `out` of the wrong shape;
//  * kInvalidDtype: unsupported dtype, `out` dtype that the result cannot be
//    cast to under NumPy's 'same_kind' rule;
//  * kLinAlgError (Python: numpy.linalg.LinAlgError): fewer than 2 dimensions,
//    non-square input where a square one is required, a singular matrix (inv,
//    solve), a matrix that is not positive definite (cholesky), LAPACK
//    convergence failures (svd, eigh, lstsq);
//  * kInvalidParam: bad mode strings.
//
// Thread-safety: every function may be called from any thread concurrently
// (OpenBLAS serialises its own thread pool internally).
#pragma once

#include <string>
#include <vector>

#include "asc/core/tensor.h"

namespace asc::ops {

/// The dtype numpy.matmul gives for operand dtypes `a`, `b` (promotion, then
/// bfloat16 -> float32).
DType matmul_result_dtype(DType a, DType b);

/// numpy.matmul(a, b[, out]). Through the registry op "matmul" (profiled; the
/// executor hands the op materialised inputs). With `out`, the result shape
/// must equal out's shape exactly and the result dtype must cast to out's dtype
/// under 'same_kind'; `*out` is returned. `out` may overlap `a` or `b`.
Tensor matmul(const Tensor& a, const Tensor& b, const Tensor* out = nullptr);

/// The threads OpenBLAS uses for one call (its default: the number of cores,
/// or OPENBLAS_NUM_THREADS / OMP_NUM_THREADS when set).
int blas_num_threads();
/// OpenBLAS's build description ("OpenBLAS 0.3.21 DYNAMIC_ARCH ...").
std::string blas_config();

// ------------------------------------------------------------------ LAPACK
// All take (..., M, N) stacks; the results have the input's batch shape.

/// numpy.linalg.inv: (..., M, M) -> (..., M, M). Singular -> kLinAlgError.
Tensor inv(const Tensor& a);
/// numpy.linalg.solve (NumPy 2): b is a vector (M,) when 1-d, else a stack of
/// (..., M, K) matrices; batch dimensions broadcast.
Tensor solve(const Tensor& a, const Tensor& b);
/// numpy.linalg.det: (..., M, M) -> (...). Through LU (getrf); complex as
/// NumPy: sign * exp(logabsdet).
Tensor det(const Tensor& a);
/// numpy.linalg.slogdet: {sign, logabsdet}, each (...); sign has the working
/// dtype (complex: a unit complex number), logabsdet is real.
std::vector<Tensor> slogdet(const Tensor& a);
/// numpy.linalg.cholesky: lower L with a = L L^H, read from the lower triangle
/// (`upper`: U with a = U^H U, read from the upper triangle); the imaginary
/// parts of a complex diagonal are ignored (as potrf does).
Tensor cholesky(const Tensor& a, bool upper = false);
/// numpy.linalg.qr. mode "reduced" -> {Q (M,K), R (K,N)}, "complete" ->
/// {Q (M,M), R (M,N)}, "r" -> {R (K,N)}, "raw" -> {h (N,M), tau (K)}; K = min(M,N).
std::vector<Tensor> qr(const Tensor& a, const std::string& mode = "reduced");
/// numpy.linalg.svd through gesdd: {U, S, Vh} (`full_matrices`: U (M,M), Vh (N,N),
/// else (M,K), (K,N)), or {S} without `compute_uv`. S descending, real.
std::vector<Tensor> svd(const Tensor& a, bool full_matrices = true, bool compute_uv = true);
/// numpy.linalg.eigh through syevd/heevd: {eigenvalues ascending (real),
/// eigenvectors as columns}; {eigenvalues} without `compute_v`. Reads the
/// lower triangle, or the upper one when `uplo` is 'U' (Hermitian for complex).
std::vector<Tensor> eigh(const Tensor& a, char uplo = 'L', bool compute_v = true);
/// numpy.linalg.lstsq through gelsd for a (M, N) and b (M,) or (M, K):
/// {x, residuals (real), rank (0-d int32), singular values (real)}. `rcond` < 0
/// means machine epsilon * max(M, N) (NumPy's default).
std::vector<Tensor> lstsq(const Tensor& a, const Tensor& b, double rcond = -1);

// ------------------------------------------------------------------ einsum (src/ops/einsum.cc)

/// numpy.einsum(subscripts, *operands): explicit ('ij,jk->ik') and implicit
/// output, '...' broadcasting, repeated labels in one operand (diagonals),
/// size-1 dimensions broadcasting. The result dtype is the operands' promoted
/// dtype (bfloat16: kInvalidDtype, as NumPy with ml_dtypes). Parsed plans are
/// cached per (subscripts, operand ranks); contractions are batched matmuls
/// (BLAS for float32/float64), pairs chosen greedily by intermediate size.
/// The result may be a view of an operand (pure transposes/diagonals).
/// Errors: kInvalidParam for malformed subscripts, kInvalidShape for subscripts
/// that do not fit the operands' ranks or label sizes that differ.
/// Thread-safe (the plan cache is locked).
Tensor einsum(const std::string& subscripts, const std::vector<Tensor>& operands);

}  // namespace asc::ops
