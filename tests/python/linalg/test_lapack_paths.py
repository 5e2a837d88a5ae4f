"""The two implementations behind each LAPACK function vs numpy.linalg: the
small-matrix kernels (n <= 32; unrolled per order up to 8; stacks spread over the cores) and the LAPACK
calls on the row-major buffer (the transposed problem: getrf/getrs/trsm,
potrf with the other triangle) or on a column-major copy as NumPy (geqrf/orgqr
for qr, gesdd, syevd)."""

import numpy as np
import pytest

import pyasc
from linalg_harness import randn, spd, views, well_conditioned

SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 16, 32, 33, 70]


def rt(dtype):
    return 1e-4 if np.dtype(dtype) == np.float32 else 1e-10


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
def test_inv_det_slogdet_sizes(check, n, dtype, batch):
    a = well_conditioned(n, batch, np.float64, n).astype(dtype)
    check(lambda xp: xp.linalg.inv(xp.asarray(a)), rtol=rt(dtype), atol=rt(dtype))
    check(lambda xp: xp.linalg.det(xp.asarray(a)), rtol=rt(dtype) * n)
    check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(a))), rtol=rt(dtype) * n, atol=rt(dtype))
    # Negative determinants (odd number of row swaps / negative pivots).
    b = a[..., ::-1, :].copy()
    check(lambda xp: xp.linalg.det(xp.asarray(b)), rtol=rt(dtype) * n)
    check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(b))), rtol=rt(dtype) * n, atol=rt(dtype))


@pytest.mark.parametrize("n", [3, 12, 40])
def test_inv_solve_det_integer_and_view_inputs(check, n):
    a = np.round(well_conditioned(n, (2,), np.float64, 3) * 3).astype(np.int64)
    check(lambda xp: xp.linalg.inv(xp.asarray(a)))
    check(lambda xp: xp.linalg.det(xp.asarray(a)), rtol=1e-9)
    check(lambda xp: xp.linalg.solve(xp.asarray(a), xp.asarray(a[..., :2].astype(np.int8))))
    f = well_conditioned(n, (), np.float64, 4)
    for v in range(4):
        check(lambda xp: xp.linalg.inv(views(xp, f)[v]))
        check(lambda xp: xp.linalg.det(views(xp, f)[v]))
        check(lambda xp: xp.linalg.solve(views(xp, f)[v], views(xp, f)[3 - v]))


@pytest.mark.parametrize("n", [2, 5, 8, 9, 40])
@pytest.mark.parametrize("k", [None, 1, 3, 50])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_solve_sizes(check, n, k, dtype):
    a = well_conditioned(n, (2,), np.float64, n + 1).astype(dtype)
    b = randn((n,) if k is None else (2, n, k), np.float64, n + 2).astype(dtype)
    check(lambda xp: xp.linalg.solve(xp.asarray(a), xp.asarray(b)), rtol=rt(dtype) * 10, atol=rt(dtype) * 10)
    if k is not None:  # b broadcast over a's batch; b a strided view
        check(lambda xp: xp.linalg.solve(xp.asarray(a), xp.asarray(b[0])), rtol=rt(dtype) * 10, atol=rt(dtype) * 10)
        check(lambda xp: xp.linalg.solve(xp.asarray(a[0]), xp.asarray(b)[:, ::-1, :]), rtol=rt(dtype) * 10,
              atol=rt(dtype) * 10)


@pytest.mark.parametrize("n", [3, 12, 40])
def test_singular_matrix_in_a_stack_is_named(n):
    a = well_conditioned(n, (6,), np.float64, 5)
    a[4] = 0
    a[2, :, 1] = 0
    for fn in (pyasc.linalg.inv, lambda x: pyasc.linalg.solve(x, np.ones((6, n, 2)))):
        with pytest.raises(np.linalg.LinAlgError, match=r"Singular matrix.*matrix 2 of the stack"):
            fn(pyasc.asarray(a))
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(a)
    # det and slogdet of a singular stack: 0 and (0, -inf) for those matrices, no error.
    d = np.asarray(pyasc.linalg.det(pyasc.asarray(a)))
    assert d[4] == 0 and d[2] == 0 and np.all(d[[0, 1, 3, 5]] != 0)
    s, l = pyasc.linalg.slogdet(pyasc.asarray(a))
    assert np.asarray(s)[4] == 0 and np.asarray(l)[4] == -np.inf


@pytest.mark.parametrize("n", [2, 9, 40])
def test_nan_and_inf_inputs(check, n):
    a = np.full((n, n), np.nan)
    check(lambda xp: xp.linalg.inv(xp.asarray(a)))
    check(lambda xp: xp.linalg.det(xp.asarray(a)))
    check(lambda xp: xp.linalg.solve(xp.asarray(a), xp.ones(n)))
    check(lambda xp: xp.linalg.cholesky(xp.asarray(a)))
    check(lambda xp: xp.linalg.cholesky(xp.asarray(a), upper=True))
    e = np.eye(n)
    e[0, 0] = np.inf
    check(lambda xp: xp.linalg.det(xp.asarray(e)))


@pytest.mark.parametrize("n", [1, 3, 8, 9, 40])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_sizes(check, n, dtype, upper):
    a = spd(n, (2,), np.float64, n).astype(dtype)
    # Garbage in the triangle that is not read.
    unread = np.triu(np.ones((n, n), bool), 1) if not upper else np.tril(np.ones((n, n), bool), -1)
    g = np.where(unread, dtype(7.5), a)
    check(lambda xp: xp.linalg.cholesky(xp.asarray(g), upper=upper), rtol=rt(dtype) * 10, atol=rt(dtype) * 10)


@pytest.mark.parametrize("n", [3, 12, 40])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_not_positive_definite(n, upper):
    a = spd(n, (3,), np.float64, 2)
    a[1] = -a[1]
    with pytest.raises(np.linalg.LinAlgError, match=r"not positive definite.*matrix 1 of the stack"):
        pyasc.linalg.cholesky(pyasc.asarray(a), upper=upper)


@pytest.mark.parametrize("shape", [(40, 12), (12, 40), (30, 30), (2, 20, 9), (9, 20), (1, 6), (6, 1)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_qr_shapes(check, shape, mode, dtype):
    a = randn(shape, np.float64, 11).astype(dtype)
    tol = rt(dtype) * 100

    def f(xp):
        r = xp.linalg.qr(xp.asarray(a), mode=mode)
        wrap = (lambda v: v) if xp is np else xp.asarray
        if mode == "r":
            return wrap(np.abs(np.asarray(r)))
        if mode == "raw":
            return tuple(wrap(np.abs(np.asarray(t))) for t in r)
        q, rr = r
        eye = xp.matmul(xp.matrix_transpose(q), q)
        return xp.matmul(q, rr), eye, wrap(np.abs(np.asarray(q))), wrap(np.abs(np.asarray(rr)))
    check(f, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(40, 12), (12, 40), (30, 30), (2, 20, 9), (1, 5), (5, 1)], ids=str)
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_svd_shapes(check, shape, full, dtype):
    a = randn(shape, np.float64, 12).astype(dtype)
    tol = rt(dtype) * 100

    def f(xp):
        u, s, vh = xp.linalg.svd(xp.asarray(a), full_matrices=full)
        k = min(shape[-2:])
        rec = xp.matmul(u[..., :, :k] * xp.expand_dims(s, -2), vh[..., :k, :])
        wrap = (lambda v: v) if xp is np else xp.asarray
        return rec, s, xp.matmul(xp.matrix_transpose(u), u), xp.matmul(vh, xp.matrix_transpose(vh)), \
            wrap(np.abs(np.asarray(u[..., :, :k]))), wrap(np.abs(np.asarray(vh[..., :k, :])))
    check(f, rtol=tol, atol=tol)
    check(lambda xp: xp.linalg.svdvals(xp.asarray(a)), rtol=tol, atol=tol)


@pytest.mark.parametrize("n", [9, 20, 40])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_eigh_sizes(check, n, uplo, dtype):
    a = spd(n, (2,), np.float64, n).astype(dtype)
    unread = np.triu(np.ones((n, n), bool), 1) if uplo == "L" else np.tril(np.ones((n, n), bool), -1)
    g = np.where(unread, dtype(-3.0), a)
    tol = rt(dtype) * 100

    def f(xp):
        w, v = xp.linalg.eigh(xp.asarray(g), UPLO=uplo)
        wrap = (lambda t: t) if xp is np else xp.asarray
        return w, wrap(np.abs(np.asarray(v)))
    check(f, rtol=tol, atol=tol)
    check(lambda xp: xp.linalg.eigvalsh(xp.asarray(g), UPLO=uplo), rtol=tol, atol=tol)


@pytest.mark.parametrize("n", [2, 3, 4, 8, 20])
def test_large_stacks_of_small_matrices(check, n):
    # Several thousand matrices: the parallel small-matrix kernels.
    a = well_conditioned(n, (3000,), np.float64, 7)
    check(lambda xp: xp.linalg.inv(xp.asarray(a)), rtol=1e-10, atol=1e-12)
    check(lambda xp: xp.linalg.det(xp.asarray(a)), rtol=1e-10)
    check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(a))), rtol=1e-10, atol=1e-12)
    check(lambda xp: xp.linalg.solve(xp.asarray(a), xp.asarray(a[..., :1])), rtol=1e-10, atol=1e-12)
    s = spd(n, (3000,), np.float64, 8)
    check(lambda xp: xp.linalg.cholesky(xp.asarray(s)), rtol=1e-10, atol=1e-12)
    a32 = a.astype(np.float32)
    check(lambda xp: xp.linalg.inv(xp.asarray(a32)), rtol=1e-4, atol=1e-5)
    bad = a.copy()
    bad[2500] = 0
    bad[1700] = 0
    with pytest.raises(np.linalg.LinAlgError, match="matrix 1700 of the stack"):
        pyasc.linalg.inv(pyasc.asarray(bad))
