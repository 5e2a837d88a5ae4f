// matmul: NumPy's shape rules, OpenBLAS gemm for float32/float64 (float16 and
// bfloat16 through float32), an exact blocked loop for integers and bool.
// The LAPACK-backed functions are in lapack.cc.
#include "asc/ops/linalg.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>

#include "asc/ops/registry.h"
#include "asc/runtime/device.h"

namespace asc::ops {
namespace {

[[noreturn]] void shape_error(const std::string& detail) {
  throw Error(Status::Make(ErrorCode::kInvalidShape, "matmul", detail));
}

/// Operands viewed as stacks of matrices, their broadcast batch shape and the
/// result shape (with the dimensions that 1-d operands added removed again).
struct Plan {
  Tensor a, b;  // (batch_a..., M, K), (batch_b..., K, N) -- not yet broadcast
  Shape batch;
  int64_t m = 0, k = 0, n = 0;
  Shape out_shape;
};

Plan make_plan(const Tensor& a, const Tensor& b) {
  for (int i = 0; i < 2; ++i) {
    if ((i ? b : a).ndim() == 0)
      shape_error("Input operand " + std::to_string(i) +
                  " does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) "
                  "requires 1)");
  }
  Plan p;
  p.a = a.ndim() == 1 ? a.expand_dims(0) : a;
  p.b = b.ndim() == 1 ? b.expand_dims(1) : b;
  const int64_t na = p.a.ndim(), nb = p.b.ndim();
  p.m = p.a.shape()[static_cast<size_t>(na - 2)];
  p.k = p.a.shape()[static_cast<size_t>(na - 1)];
  p.n = p.b.shape()[static_cast<size_t>(nb - 1)];
  const int64_t kb = p.b.shape()[static_cast<size_t>(nb - 2)];
  if (kb != p.k)
    shape_error("shapes " + Tensor::shape_str(a.shape()) + " and " + Tensor::shape_str(b.shape()) +
                " not aligned: " + std::to_string(p.k) + " (dim " + std::to_string(a.ndim() - 1) + ") != " +
                std::to_string(kb) + " (dim " + std::to_string(std::max<int64_t>(b.ndim() - 2, 0)) + ")");
  const Shape ba(p.a.shape().begin(), p.a.shape().end() - 2), bb(p.b.shape().begin(), p.b.shape().end() - 2);
  if (ba == bb) {
    p.batch = ba;
  } else {
    try {
      p.batch = broadcast_shapes(ba, bb, "matmul");
    } catch (const Error&) {
      shape_error("batch dimensions of shapes " + Tensor::shape_str(a.shape()) + " and " +
                  Tensor::shape_str(b.shape()) + " do not broadcast");
    }
  }
  p.out_shape = p.batch;
  if (a.ndim() > 1) p.out_shape.push_back(p.m);
  if (b.ndim() > 1) p.out_shape.push_back(p.n);
  return p;
}

/// Multi-index walk over a batch shape: the byte offsets of A's and B's
/// matrix number `idx` (C order over the batch).
struct BatchOffsets {
  Shape shape;
  Strides sa, sb;  // batch strides (0 where broadcast)
  void at(int64_t idx, int64_t* oa, int64_t* ob) const {
    int64_t a = 0, b = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      const int64_t i = idx % shape[d];
      idx /= shape[d];
      a += i * sa[d];
      b += i * sb[d];
    }
    *oa = a;
    *ob = b;
  }
};

BatchOffsets batch_offsets(const Tensor& a, const Tensor& b, const Shape& batch) {
  // a, b broadcast to batch + their 2 matrix dims.
  BatchOffsets bo;
  bo.shape = batch;
  bo.sa.assign(a.strides().begin(), a.strides().end() - 2);
  bo.sb.assign(b.strides().begin(), b.strides().end() - 2);
  return bo;
}

Shape with_matrix(const Shape& batch, int64_t r, int64_t c) {
  Shape s = batch;
  s.push_back(r);
  s.push_back(c);
  return s;
}

int num_cores() { return runtime::current_device().properties().num_cores; }

/// Runs body(task) for task in [0, tasks) on all cores of the device.
template <typename Body>
void parallel_tasks(const char* name, int64_t tasks, Body&& body) {
  const int64_t blocks = std::min<int64_t>(tasks, num_cores());
  if (blocks <= 1) {
    for (int64_t t = 0; t < tasks; ++t) body(t);
    return;
  }
  runtime::KernelInvocation inv;
  inv.name = name;
  inv.block_dim = static_cast<uint32_t>(blocks);
  inv.body = [&](const runtime::BlockContext& ctx) {
    for (int64_t t = ctx.block_idx; t < tasks; t += blocks) body(t);
  };
  runtime::current_device().run_kernel(inv).ThrowIfError();
}

// ------------------------------------------------------------------ BLAS

/// Products with at most this many multiply-adds per matrix skip BLAS.
constexpr int64_t kTinyMatmul = 512;

/// How BLAS can read one matrix (rows x cols, element strides s0/s1 in bytes):
/// row-major (NoTrans) or column-major (Trans) with leading dimension `ld`.
bool blas_layout(int64_t rows, int64_t cols, int64_t s0, int64_t s1, int64_t item, CBLAS_TRANSPOSE* trans,
                 int* ld) {
  const bool unit1 = s1 == item || cols <= 1;
  const bool unit0 = s0 == item || rows <= 1;
  auto ok_ld = [&](int64_t s, int64_t min_ld, bool trivial) -> int64_t {
    if (trivial) return std::max<int64_t>(1, min_ld);
    if (s <= 0 || s % item) return -1;
    const int64_t l = s / item;
    return l >= std::max<int64_t>(1, min_ld) && l <= INT_MAX ? l : -1;
  };
  if (unit1) {
    const int64_t l = ok_ld(s0, cols, rows <= 1);
    if (l > 0) {
      *trans = CblasNoTrans;
      *ld = static_cast<int>(l);
      return true;
    }
  }
  if (unit0) {
    const int64_t l = ok_ld(s1, rows, cols <= 1);
    if (l > 0) {
      *trans = CblasTrans;
      *ld = static_cast<int>(l);
      return true;
    }
  }
  return false;
}

bool blas_ok(const Tensor& t, int64_t rows, int64_t cols) {
  CBLAS_TRANSPOSE tr;
  int ld;
  const size_t nd = static_cast<size_t>(t.ndim());
  return blas_layout(rows, cols, t.strides()[nd - 2], t.strides()[nd - 1], static_cast<int64_t>(t.itemsize()), &tr,
                     &ld);
}

template <typename T>
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, const T* a, int lda, const T* b, int ldb,
          T* c, int ldc) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    // Complex: always ?gemm (OpenBLAS handles the vector shapes itself).
    const T one(1), zero(0);
    if constexpr (std::is_same_v<T, complex64>)
      cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
    else
      cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
    return;
  } else {
  constexpr bool f = std::is_same_v<T, float>;
  // Vector shapes go to dot/gemv (as NumPy does): gemm's packing and thread
  // split are built for panels and cost ~10x on a row or column.
  const int inc_arow = ta == CblasNoTrans ? 1 : lda;  // stride along a's row (m == 1)
  const int inc_bcol = tb == CblasNoTrans ? ldb : 1;  // stride along b's column (n == 1)
  if (m == 1 && n == 1) {
    *c = f ? cblas_sdot(k, reinterpret_cast<const float*>(a), inc_arow, reinterpret_cast<const float*>(b), inc_bcol)
           : cblas_ddot(k, reinterpret_cast<const double*>(a), inc_arow, reinterpret_cast<const double*>(b),
                        inc_bcol);
    return;
  }
  if (m == 1) {  // c (n) = b^T a
    const CBLAS_TRANSPOSE t = tb == CblasNoTrans ? CblasTrans : CblasNoTrans;
    const int rows = tb == CblasNoTrans ? k : n, cols = tb == CblasNoTrans ? n : k;
    if constexpr (f) cblas_sgemv(CblasRowMajor, t, rows, cols, 1.0f, b, ldb, a, inc_arow, 0.0f, c, 1);
    else cblas_dgemv(CblasRowMajor, t, rows, cols, 1.0, b, ldb, a, inc_arow, 0.0, c, 1);
    return;
  }
  if (n == 1) {  // c (m) = a b
    const int rows = ta == CblasNoTrans ? m : k, cols = ta == CblasNoTrans ? k : m;
    if constexpr (f) cblas_sgemv(CblasRowMajor, ta, rows, cols, 1.0f, a, lda, b, inc_bcol, 0.0f, c, ldc);
    else cblas_dgemv(CblasRowMajor, ta, rows, cols, 1.0, a, lda, b, inc_bcol, 0.0, c, ldc);
    return;
  }
  if constexpr (f)
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  else
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
  }
}

/// Whether dims [0, last] of t (the batch dims plus the row dim) merge into one
/// dimension of stride t.strides()[last] (ignoring size-1 dims).
bool rows_merge(const Tensor& t, size_t last) {
  int64_t expect = t.strides()[last] * t.shape()[last];
  for (size_t d = last; d-- > 0;) {
    if (t.shape()[d] == 1) continue;
    if (t.strides()[d] != expect) return false;
    expect *= t.shape()[d];
  }
  return true;
}

/// C (contiguous, batch x M x N) = A @ B for float/double operands BLAS can read.
template <typename T>
void blas_matmul(const Plan& p, Tensor a, Tensor b, const Tensor& c) {
  const int64_t item = sizeof(T);
  const int64_t nbatch = shape_numel(p.batch);
  // One gemm for the whole stack when B is shared by every matrix and A's batch
  // dims fold into its rows (the common "activations @ weights" case).
  bool b_shared = true;
  for (size_t d = 0; d + 2 < static_cast<size_t>(b.ndim()); ++d)
    if (b.shape()[d] != 1) b_shared = false;
  const size_t ra = static_cast<size_t>(a.ndim()) - 2;
  if (nbatch > 1 && b_shared && a.shape().size() - 2 == p.batch.size() && rows_merge(a, ra) &&
      (a.strides()[ra + 1] == item || p.k <= 1) && nbatch * p.m <= INT_MAX) {
    CBLAS_TRANSPOSE ta, tb;
    int lda, ldb;
    const size_t nb = static_cast<size_t>(b.ndim());
    if (blas_layout(nbatch * p.m, p.k, a.strides()[ra], a.strides()[ra + 1], item, &ta, &lda) && ta == CblasNoTrans &&
        blas_layout(p.k, p.n, b.strides()[nb - 2], b.strides()[nb - 1], item, &tb, &ldb)) {
      gemm<T>(ta, tb, static_cast<int>(nbatch * p.m), static_cast<int>(p.n), static_cast<int>(p.k),
              reinterpret_cast<const T*>(a.data()), lda, reinterpret_cast<const T*>(b.data()), ldb,
              reinterpret_cast<T*>(c.data()), static_cast<int>(std::max<int64_t>(1, p.n)));
      return;
    }
  }
  a = a.broadcast_to(with_matrix(p.batch, p.m, p.k));
  b = b.broadcast_to(with_matrix(p.batch, p.k, p.n));
  const size_t nd = p.batch.size();
  CBLAS_TRANSPOSE ta, tb;
  int lda, ldb;
  const bool la = blas_layout(p.m, p.k, a.strides()[nd], a.strides()[nd + 1], item, &ta, &lda);
  const bool lb = blas_layout(p.k, p.n, b.strides()[nd], b.strides()[nd + 1], item, &tb, &ldb);
  if (!la || !lb) throw Error(Status::Internal("matmul", "operand not BLAS-addressable after copy"));
  const BatchOffsets bo = batch_offsets(a, b, p.batch);
  const int64_t mn = p.m * p.n;
  // Tiny matrices (3x3, 4x4, ...): a BLAS call costs more than the arithmetic.
  const bool tiny = p.m * p.n * p.k <= kTinyMatmul;
  const int64_t as0 = a.strides()[nd], as1 = a.strides()[nd + 1], bs0 = b.strides()[nd], bs1 = b.strides()[nd + 1];
  auto one = [&](int64_t i) {
    int64_t oa, ob;
    bo.at(i, &oa, &ob);
    T* ci = reinterpret_cast<T*>(c.data()) + i * mn;
    if (tiny) {
      const uint8_t* ai = a.data() + oa;
      const uint8_t* bi = b.data() + ob;
      for (int64_t r = 0; r < p.m; ++r)
        for (int64_t q = 0; q < p.n; ++q) {
          T acc = T(0);
          for (int64_t l = 0; l < p.k; ++l) {
            const T x = *reinterpret_cast<const T*>(ai + r * as0 + l * as1);
            const T y = *reinterpret_cast<const T*>(bi + l * bs0 + q * bs1);
            if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>)  // plain product, as BLAS
              acc += T(x.real() * y.real() - x.imag() * y.imag(), x.real() * y.imag() + x.imag() * y.real());
            else
              acc += x * y;
          }
          ci[r * p.n + q] = acc;
        }
      return;
    }
    gemm<T>(ta, tb, static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k),
            reinterpret_cast<const T*>(a.data() + oa), lda, reinterpret_cast<const T*>(b.data() + ob), ldb, ci,
            static_cast<int>(std::max<int64_t>(1, p.n)));
  };
  // Many small products: OpenBLAS runs each on the calling thread, so spread
  // the stack over the device's cores. Large ones: OpenBLAS threads each gemm.
  if (nbatch >= (tiny ? 4096 : 4) && p.m * p.n * p.k <= (int64_t(1) << 18)) {
    const int64_t per = std::max<int64_t>(1, nbatch / (num_cores() * 4));
    parallel_tasks("matmul", (nbatch + per - 1) / per, [&](int64_t t) {
      for (int64_t i = t * per; i < std::min(nbatch, (t + 1) * per); ++i) one(i);
    });
    return;
  }
  for (int64_t i = 0; i < nbatch; ++i) one(i);
}

// ------------------------------------------------------------------ integers, bool

/// Rows [r0, r1) of C = A @ B for contiguous row-major int/bool matrices. The
/// products wrap modulo 2^bits (computed in the unsigned type of that width,
/// the same bits NumPy's wrapping signed arithmetic produces). Blocked so that
/// a block of B stays in cache while every row of A passes over it.
template <typename U, bool kBool>
void int_rows(const U* a, const U* b, U* c, int64_t r0, int64_t r1, int64_t k, int64_t n) {
  using W = std::conditional_t<(sizeof(U) < 4), uint32_t, U>;
  constexpr int64_t kJ = 1024, kK = 128;
  for (int64_t i = r0; i < r1; ++i) std::fill(c + i * n, c + (i + 1) * n, U(0));
  for (int64_t j0 = 0; j0 < n; j0 += kJ) {
    const int64_t j1 = std::min(n, j0 + kJ);
    for (int64_t k0 = 0; k0 < k; k0 += kK) {
      const int64_t k1 = std::min(k, k0 + kK);
      for (int64_t i = r0; i < r1; ++i) {
        U* crow = c + i * n;
        for (int64_t kk = k0; kk < k1; ++kk) {
          const U av = a[i * k + kk];
          if (av == 0) continue;
          const U* brow = b + kk * n;
          if constexpr (kBool) {
            for (int64_t j = j0; j < j1; ++j) crow[j] |= brow[j];
          } else {
            const W aw = av;
            for (int64_t j = j0; j < j1; ++j) crow[j] = static_cast<U>(W(crow[j]) + aw * W(brow[j]));
          }
        }
      }
    }
  }
}

template <typename U, bool kBool>
void int_matmul(const Plan& p, const Tensor& a, const Tensor& b, const Tensor& c) {
  const Tensor ab = a.broadcast_to(with_matrix(p.batch, p.m, p.k));
  const Tensor bb = b.broadcast_to(with_matrix(p.batch, p.k, p.n));
  const BatchOffsets bo = batch_offsets(ab, bb, p.batch);
  const int64_t nbatch = shape_numel(p.batch);
  // Row chunks sized so each task does ~2^18 multiply-adds or more.
  const int64_t work_row = std::max<int64_t>(1, p.k * p.n);
  const int64_t rows_per = std::max<int64_t>(1, std::min<int64_t>(p.m, (int64_t(1) << 18) / work_row));
  const int64_t chunks = (p.m + rows_per - 1) / rows_per;
  const int64_t tasks = nbatch * chunks;
  auto task = [&](int64_t t) {
    const int64_t bi = t / chunks, r0 = (t % chunks) * rows_per, r1 = std::min(p.m, r0 + rows_per);
    int64_t oa, ob;
    bo.at(bi, &oa, &ob);
    int_rows<U, kBool>(reinterpret_cast<const U*>(ab.data() + oa), reinterpret_cast<const U*>(bb.data() + ob),
                       reinterpret_cast<U*>(c.data()) + bi * p.m * p.n, r0, r1, p.k, p.n);
  };
  if (tasks * rows_per * work_row < (int64_t(1) << 18)) {
    for (int64_t t = 0; t < tasks; ++t) task(t);
  } else {
    parallel_tasks("matmul", tasks, task);
  }
}

DType unsigned_of(DType d) {
  switch (dtype_size(d)) {
    case 1: return DType::kUInt8;
    case 2: return DType::kUInt16;
    case 4: return DType::kUInt32;
    default: return DType::kUInt64;
  }
}

/// The matrix dims of `t` C-contiguous (a copy of only what is needed: the
/// operand's own batch, before broadcasting).
Tensor contiguous_matrices(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

Tensor matmul_impl(const Tensor& a_in, const Tensor& b_in) {
  Plan p = make_plan(a_in, b_in);
  const DType rd = matmul_result_dtype(a_in.dtype(), b_in.dtype());
  const DType cd = rd == DType::kFloat16 ? DType::kFloat32 : rd;
  Tensor result = Tensor::empty(with_matrix(p.batch, p.m, p.n), cd);
  if (result.numel() > 0) {
    if (p.k == 0) {
      std::memset(result.data(), 0, result.nbytes());
    } else {
      Tensor a = cast(p.a, cd), b = cast(p.b, cd);
      if (is_inexact(cd)) {
        if (!blas_ok(a, p.m, p.k)) a = a.contiguous();
        if (!blas_ok(b, p.k, p.n)) b = b.contiguous();
        if (cd == DType::kFloat32) blas_matmul<float>(p, a, b, result);
        else if (cd == DType::kComplex64) blas_matmul<complex64>(p, a, b, result);  // cblas_cgemm
        else if (cd == DType::kComplex128) blas_matmul<complex128>(p, a, b, result);  // cblas_zgemm
        else blas_matmul<double>(p, a, b, result);
      } else {
        a = contiguous_matrices(a);
        b = contiguous_matrices(b);
        if (cd == DType::kBool) {
          int_matmul<uint8_t, true>(p, a.view_as(DType::kUInt8), b.view_as(DType::kUInt8), result);
        } else {
          const DType u = unsigned_of(cd);
          const Tensor ua = a.view_as(u), ub = b.view_as(u);
          switch (u) {
            case DType::kUInt8: int_matmul<uint8_t, false>(p, ua, ub, result); break;
            case DType::kUInt16: int_matmul<uint16_t, false>(p, ua, ub, result); break;
            case DType::kUInt32: int_matmul<uint32_t, false>(p, ua, ub, result); break;
            default: int_matmul<uint64_t, false>(p, ua, ub, result); break;
          }
        }
      }
    }
  }
  if (cd != rd) result = cast(result, rd);
  return result.reshape(p.out_shape, /*allow_copy=*/false);
}

Tensor run_matmul(const OpDef&, const std::vector<Tensor>& in, const Attrs&) { return matmul_impl(in[0], in[1]); }

OpDef matmul_def() {
  OpDef d = opaque_op("matmul", 2, &run_matmul,
                      "Matrix product of two arrays (numpy.matmul: batched, broadcasting, 1-d operands promoted).");
  d.complex_ok = true;
  return d;
}
const OpRegistrar kMatmul(matmul_def());

}  // namespace

DType matmul_result_dtype(DType a, DType b) {
  const DType d = promote_or_throw(a, b, "matmul");
  return d == DType::kBFloat16 ? DType::kFloat32 : d;
}

Tensor matmul(const Tensor& a, const Tensor& b, const Tensor* out) {
  static const OpDef& op = get_op("matmul");
  if (!out) return call(op, {a, b});
  const Plan p = make_plan(a, b);
  if (out->shape() != p.out_shape)
    shape_error("output operand has shape " + Tensor::shape_str(out->shape()) + ", the result of " +
                Tensor::shape_str(a.shape()) + " @ " + Tensor::shape_str(b.shape()) + " has shape " +
                Tensor::shape_str(p.out_shape));
  const DType rd = matmul_result_dtype(a.dtype(), b.dtype());
  if (!can_cast_same_kind(rd, out->dtype()))
    throw Error(Status::TypeError("matmul", std::string("Cannot cast ufunc 'matmul' output from dtype ") +
                                                dtype_name(rd) + " to " + dtype_name(out->dtype()) +
                                                " with casting rule 'same_kind'"));
  return call(op, {a, b}, {}, out);
}

int blas_num_threads() { return openblas_get_num_threads(); }

std::string blas_config() {
  const char* c = openblas_get_config();
  return c ? c : "";
}

}  // namespace asc::ops
