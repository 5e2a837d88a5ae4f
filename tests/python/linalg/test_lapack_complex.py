"""pyasc.linalg on complex64/complex128 vs numpy.linalg.

The LAPACK calls see the row-major buffer as A^T (not A^H): a mistake there
shows as a conjugated result, so every test uses matrices with large
imaginary parts and non-Hermitian (general) matrices wherever the function
allows them. Results that are unique are compared with NumPy's directly;
factors that are unique only up to phases (Q of qr, U/V of svd, eigenvectors)
are checked by reconstruction, unitarity and their absolute values.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyasc
from linalg_harness import views

CDTYPES = [np.complex64, np.complex128]
SIZES = [1, 2, 3, 4, 5, 8, 9, 16, 32, 33, 50]


def cid(d):
    return np.dtype(d).name


def rt(dtype):
    return 1e-4 if np.dtype(dtype) in (np.dtype(np.complex64), np.dtype(np.float32)) else 1e-9


def crandn(shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def cwell(n, batch=(), dtype=np.complex128, seed=0):
    """General (non-Hermitian) complex matrices, diagonally dominant."""
    return (crandn(batch + (n, n), np.complex128, seed) + np.eye(n) * (2 * n + 3)).astype(dtype)


def hpd(n, batch=(), dtype=np.complex128, seed=0):
    """Hermitian positive definite matrices."""
    b = crandn(batch + (n, n), np.complex128, seed)
    return (b @ np.conj(np.swapaxes(b, -1, -2)) + np.eye(n) * n).astype(dtype)


def hermitian(n, batch=(), dtype=np.complex128, seed=0):
    b = crandn(batch + (n, n), np.complex128, seed)
    return ((b + np.conj(np.swapaxes(b, -1, -2))) / 2).astype(dtype)


def H(x):
    return np.conj(np.swapaxes(np.asarray(x), -1, -2))


def np_(x):
    return np.asarray(x)


def wrap(xp, v):
    return v if xp is np else xp.asarray(v)


# ------------------------------------------------------------------ inv, det, slogdet, solve


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
def test_inv_det_slogdet(check, n, dtype, batch):
    a = cwell(n, batch, dtype, n)
    r = rt(dtype)
    got = check(lambda xp: xp.linalg.inv(xp.asarray(a)), rtol=r, atol=r)
    # inv(A), not inv(A^T) or inv(A^H): A @ inv(A) == I.
    np.testing.assert_allclose(a @ np_(got), np.broadcast_to(np.eye(n), a.shape), atol=r * 10)
    check(lambda xp: xp.linalg.det(xp.asarray(a)), rtol=r * n)
    s, l = check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(a))), rtol=r * n, atol=r)
    assert np_(s).dtype == np.dtype(dtype) and np_(l).dtype == np.abs(a).dtype
    b = a[..., ::-1, :].copy()  # odd permutations, other phases
    check(lambda xp: xp.linalg.det(xp.asarray(b)), rtol=r * n)
    check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(b))), rtol=r * n, atol=r)
    # A general complex matrix whose determinant has an arbitrary phase.
    c = (crandn(batch + (n, n), np.complex128, n + 100)).astype(dtype)
    check(lambda xp: xp.linalg.det(xp.asarray(c)), rtol=r * n * 10, atol=r)
    check(lambda xp: xp.linalg.slogdet(xp.asarray(c))[0], rtol=r * n * 10, atol=r * n * 10)


@pytest.mark.parametrize("n", [3, 12, 40])
@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
def test_views(check, n, dtype):
    a = cwell(n, (), dtype, 5)
    r = rt(dtype) * 10
    for v in range(4):
        check(lambda xp: xp.linalg.inv(views(xp, a)[v]), rtol=r, atol=r)
        check(lambda xp: xp.linalg.det(views(xp, a)[v]), rtol=r * n)
        check(lambda xp: xp.linalg.solve(views(xp, a)[v], views(xp, a)[3 - v]), rtol=r, atol=r)
        check(lambda xp: xp.linalg.cholesky(views(xp, hpd(n, (), dtype, 6))[v]), rtol=r, atol=r)
    # A conjugated view (conj() of a transposed array) is A^H.
    check(lambda xp: xp.linalg.inv(xp.conj(xp.asarray(a).mT)), rtol=r, atol=r)


@pytest.mark.parametrize("n", [2, 5, 8, 9, 40])
@pytest.mark.parametrize("k", [None, 1, 3, 50])
@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
def test_solve(check, n, k, dtype):
    a = cwell(n, (2,), dtype, n + 1)
    b = crandn((n,) if k is None else (2, n, k), dtype, n + 2)
    r = rt(dtype) * 10
    x = check(lambda xp: xp.linalg.solve(xp.asarray(a), xp.asarray(b)), rtol=r, atol=r)
    lhs = (a @ np_(x)[..., None])[..., 0] if k is None else a @ np_(x)
    np.testing.assert_allclose(lhs, np.broadcast_to(b, lhs.shape), rtol=r, atol=r * n)
    if k is not None:  # broadcasting over a's batch; reversed view
        check(lambda xp: xp.linalg.solve(xp.asarray(a), xp.asarray(b[0])), rtol=r, atol=r)
        check(lambda xp: xp.linalg.solve(xp.asarray(a[0]), xp.asarray(b)[:, ::-1, :]), rtol=r, atol=r)


@pytest.mark.parametrize("da,db", [(np.float32, np.complex64), (np.complex64, np.float32),
                                   (np.float64, np.complex64), (np.int32, np.complex64),
                                   (np.complex64, np.complex128), (np.complex128, np.float32),
                                   (np.bool_, np.complex64), (ml_dtypes.bfloat16, np.complex64)], ids=str)
def test_mixed_dtypes(check, da, db):
    a = cwell(4, (), np.complex128, 7)
    a = (a.real.round() if np.dtype(da).kind != "c" else a).astype(da)  # bfloat16 holds these integers exactly
    if np.dtype(da) == np.bool_:
        a = np.eye(4, dtype=bool) | np.tri(4, k=-1, dtype=bool)
    b = crandn((4, 2), np.complex128, 8)
    b = (b.real if np.dtype(db).kind != "c" else b).astype(db)
    r = 1e-4
    check(lambda xp: xp.linalg.solve(xp.asarray(a), xp.asarray(b)), rtol=r, atol=r)
    check(lambda xp: xp.linalg.lstsq(xp.asarray(a), xp.asarray(b)), rtol=r, atol=r)


def test_singular_and_errors(check):
    s = np.array([[1 + 1j, 2 - 1j], [2 + 2j, 4 - 2j]], np.complex128)  # row 2 = 2 * row 1
    for dt in CDTYPES:
        x = s.astype(dt)
        check(lambda xp: xp.linalg.inv(xp.asarray(x)))
        check(lambda xp: xp.linalg.solve(xp.asarray(x), xp.ones(2, dtype=dt)))
        check(lambda xp: xp.linalg.det(xp.asarray(x)))
        check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(x))))
        check(lambda xp: xp.linalg.cholesky(xp.asarray(-np.eye(3, dtype=dt))))
        check(lambda xp: xp.linalg.cholesky(xp.asarray(np.array([[1, 2j], [-2j, 1]], dt))))
        check(lambda xp: xp.linalg.inv(xp.ones((2, 3), dtype=dt)))
        check(lambda xp: xp.linalg.eigh(xp.ones(3, dtype=dt)))
        check(lambda xp: xp.linalg.solve(xp.asarray(np.eye(3, dtype=dt)), xp.ones(4, dtype=dt)))
    with pytest.raises(np.linalg.LinAlgError, match=r"\[inv\] Singular matrix.*matrix 1 of the stack"):
        pyasc.linalg.inv(pyasc.asarray(np.stack([np.eye(2), s]).astype(np.complex64)))
    with pytest.raises(np.linalg.LinAlgError, match=r"\[inv\] Singular matrix.*matrix 1 of the stack"):
        pyasc.linalg.inv(pyasc.asarray(np.stack([np.eye(40), np.zeros((40, 40))]).astype(np.complex128)))
    with pytest.raises(np.linalg.LinAlgError, match=r"\[cholesky\] Matrix is not positive definite"):
        pyasc.linalg.cholesky(pyasc.asarray(np.array([[1, 2j], [-2j, 1]], np.complex64)))
    with pytest.raises(np.linalg.LinAlgError, match=r"\[solve\] Singular matrix"):
        pyasc.linalg.solve(pyasc.asarray(np.zeros((40, 40), np.complex64)), pyasc.ones(40))
    # complex with float16 is still float16's TypeError
    with pytest.raises(TypeError, match="float16"):
        pyasc.linalg.solve(pyasc.asarray(np.eye(2, dtype=np.complex64)), pyasc.ones(2, dtype=pyasc.float16))


def test_empty(check):
    for dt in CDTYPES:
        check(lambda xp: xp.linalg.inv(xp.zeros((0, 0), dtype=dt)))
        check(lambda xp: xp.linalg.inv(xp.zeros((2, 0, 0), dtype=dt)))
        check(lambda xp: xp.linalg.det(xp.zeros((0, 0), dtype=dt)))
        check(lambda xp: xp.linalg.det(xp.zeros((3, 0, 0), dtype=dt)))
        check(lambda xp: tuple(xp.linalg.slogdet(xp.zeros((2, 0, 0), dtype=dt))))
        check(lambda xp: xp.linalg.cholesky(xp.zeros((0, 0), dtype=dt)))
        check(lambda xp: tuple(xp.linalg.eigh(xp.zeros((0, 0), dtype=dt))))
        check(lambda xp: xp.linalg.eigvalsh(xp.zeros((2, 0, 0), dtype=dt)))
        check(lambda xp: xp.linalg.solve(xp.zeros((0, 0), dtype=dt), xp.zeros((0, 2), dtype=dt)))
        check(lambda xp: xp.linalg.solve(xp.asarray(np.eye(3, dtype=dt)), xp.zeros((3, 0), dtype=dt)))
        check(lambda xp: tuple(xp.linalg.svd(xp.zeros((0, 3), dtype=dt))))
        check(lambda xp: tuple(xp.linalg.svd(xp.zeros((3, 0), dtype=dt), full_matrices=False)))
        check(lambda xp: xp.linalg.svdvals(xp.zeros((2, 3, 0), dtype=dt)))
        check(lambda xp: tuple(xp.linalg.qr(xp.zeros((0, 3), dtype=dt))))
        check(lambda xp: tuple(xp.linalg.qr(xp.zeros((3, 0), dtype=dt), mode="complete")))
        check(lambda xp: xp.linalg.pinv(xp.zeros((0, 3), dtype=dt)))
        check(lambda xp: xp.linalg.norm(xp.zeros((0, 3), dtype=dt)))
        check(lambda xp: xp.linalg.lstsq(xp.zeros((3, 0), dtype=dt), xp.ones((3, 2), dtype=dt)))


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
def test_special_values(check, dtype):
    nan = np.array([[np.nan + 1j, 1.0], [1.0j, 2.0]], dtype)
    nani = np.array([[1 + np.nan * 1j, 1.0], [1.0j, 2.0]], dtype)
    inf = np.array([[np.inf, 1.0], [1.0j, 2.0]], dtype)
    zero = np.array([[-0.0 - 0.0j, 1.0j], [1.0, -0.0]], dtype)
    for a in (nan, nani, inf, zero):
        check(lambda xp: xp.linalg.norm(xp.asarray(a)))
        check(lambda xp: xp.linalg.norm(xp.asarray(a), ord=1))
        check(lambda xp: xp.linalg.norm(xp.asarray(a), ord=np.inf, axis=1))
    check(lambda xp: xp.linalg.det(xp.asarray(zero)))
    check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(zero))))
    # Determinants beyond the dtype's range: NumPy computes in double and casts,
    # so only the part that overflows is inf (here the real part in complex64).
    for n in (8, 40):
        big = np.diag(np.full(n, 10.0 ** (39 / n))).astype(dtype)
        big[0, 0] *= np.exp(1e-3j)
        check(lambda xp: xp.linalg.det(xp.asarray(big)), rtol=1e-4)
        check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(big))), rtol=1e-4)
        check(lambda xp: xp.linalg.det(xp.asarray(big.real.copy())), rtol=1e-4)
        huge = big * 1e300 ** (1 / n) if np.dtype(dtype) == np.complex128 else big * 10.0 ** (10 / n)
        check(lambda xp: xp.linalg.det(xp.asarray(huge)), rtol=1e-4)
    check(lambda xp: xp.linalg.inv(xp.asarray(zero)))
    for a in (nan, nani):
        assert np.isnan(np_(pyasc.linalg.inv(pyasc.asarray(a)))).any()
        check(lambda xp: xp.linalg.det(xp.asarray(a)))
        check(lambda xp: tuple(xp.linalg.slogdet(xp.asarray(a))))
        # gesdd rejects NaN input: LinAlgError "SVD did not converge", as NumPy
        check(lambda xp: xp.linalg.svd(xp.asarray(a)))
        check(lambda xp: xp.linalg.svdvals(xp.asarray(a)))
        check(lambda xp: xp.linalg.matrix_rank(xp.asarray(a)))
        check(lambda xp: xp.linalg.norm(xp.asarray(a), ord=2))
        check(lambda xp: xp.linalg.lstsq(xp.asarray(a), xp.ones(2, dtype=dtype)))
    with pytest.raises(np.linalg.LinAlgError, match=r"\[svd\] SVD did not converge"):
        pyasc.linalg.svd(pyasc.asarray(np.full((40, 30), np.nan, dtype)))
    for n in (3, 40):  # NaN on the diagonal of a Hermitian matrix: NaN factors, no error (OpenBLAS potrf)
        h = np.eye(n, dtype=dtype) * (n + 1) + 0.1j * np.tri(n, k=-1)
        h[1, 1] = np.nan
        check(lambda xp: xp.linalg.cholesky(xp.asarray(h)))


# ------------------------------------------------------------------ cholesky


@pytest.mark.parametrize("n", [1, 2, 3, 8, 9, 32, 33, 50])
@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
def test_cholesky(check, n, dtype, batch):
    a = hpd(n, batch, dtype, n + 3)
    r = rt(dtype) * 10
    low = check(lambda xp: xp.linalg.cholesky(xp.asarray(a)), rtol=r, atol=r)
    up = check(lambda xp: xp.linalg.cholesky(xp.asarray(a), upper=True), rtol=r, atol=r)
    np.testing.assert_allclose(np_(low) @ H(low), a, rtol=r, atol=r * n)  # A = L L^H
    np.testing.assert_allclose(H(up) @ np_(up), a, rtol=r, atol=r * n)    # A = U^H U
    # Only one triangle is read (garbage in the other); the diagonal's imaginary part is ignored.
    garbage = np.full(a.shape, 7 - 3j, dtype)
    lo = np.where(np.tri(n, dtype=bool), a, garbage) + np.eye(n, dtype=dtype) * 5j
    hi = np.where(np.tri(n, dtype=bool).T, a, garbage) + np.eye(n, dtype=dtype) * 5j
    check(lambda xp: xp.linalg.cholesky(xp.asarray(lo)), rtol=r, atol=r)
    check(lambda xp: xp.linalg.cholesky(xp.asarray(hi), upper=True), rtol=r, atol=r)


# ------------------------------------------------------------------ qr


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (2, 3, 5), (40, 35), (35, 40), (0, 3), (3, 0)],
                         ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr(check, dtype, shape, mode):
    a = crandn(shape, dtype, 7) * 4
    r = rt(dtype) * 10
    m, n = shape[-2:]
    k = min(m, n)
    if mode == "raw":  # geqrf's h (N, M) and tau exactly as NumPy (same reflectors)
        check(lambda xp: tuple(xp.linalg.qr(xp.asarray(a), mode="raw")), rtol=r, atol=r)
        return
    if mode == "r":
        got = np_(pyasc.linalg.qr(pyasc.asarray(a), mode="r"))
        exp = np.linalg.qr(a, mode="r")
        assert got.dtype == exp.dtype and got.shape == exp.shape
        np.testing.assert_allclose(np.abs(got), np.abs(exp), rtol=r, atol=r)
        assert np.all(np.tril(got, -1) == 0)
        return
    q, rr = pyasc.linalg.qr(pyasc.asarray(a), mode=mode)
    eq, er = np.linalg.qr(a, mode=mode)
    q, rr = np_(q), np_(rr)
    assert (q.dtype, rr.dtype, q.shape, rr.shape) == (eq.dtype, er.dtype, eq.shape, er.shape)
    np.testing.assert_allclose(q @ rr, a, rtol=r, atol=r * max(1, n))
    np.testing.assert_allclose(H(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
                               atol=r * 10)
    assert np.all(np.tril(rr, -1) == 0)
    # Unique up to unit phases of R's rows / Q's columns (the first k).
    np.testing.assert_allclose(np.abs(rr[..., :k, :]), np.abs(er[..., :k, :]), rtol=r, atol=r * 10)
    np.testing.assert_allclose(np.abs(q[..., :, :k]), np.abs(eq[..., :, :k]), rtol=r, atol=r * 10)


def test_qr_views(check):
    a = crandn((6, 4), np.complex128, 9)
    for v in range(4):
        check(lambda xp: np.abs(np_(xp.linalg.qr(views(xp, a)[v], mode="r"))))
        check(lambda xp: tuple(xp.linalg.qr(views(xp, a)[v], mode="raw")))


# ------------------------------------------------------------------ svd


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 3, 4, 3), (1, 6), (40, 30), (30, 40)], ids=str)
@pytest.mark.parametrize("full", [True, False])
def test_svd(check, dtype, shape, full):
    a = crandn(shape, dtype, 8) * 5
    r = rt(dtype) * 10
    m, n = shape[-2:]
    k = min(m, n)
    u, s, vh = (np_(t) for t in pyasc.linalg.svd(pyasc.asarray(a), full_matrices=full))
    eu, es, evh = np.linalg.svd(a, full_matrices=full)
    assert (u.dtype, s.dtype, vh.dtype) == (eu.dtype, es.dtype, evh.dtype)
    assert (u.shape, s.shape, vh.shape) == (eu.shape, es.shape, evh.shape)
    np.testing.assert_allclose(s, es, rtol=r, atol=r)
    np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, rtol=r, atol=r * 10 * max(m, n))
    np.testing.assert_allclose(H(u) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2),
                               atol=r * 10)
    np.testing.assert_allclose(vh @ H(vh), np.broadcast_to(np.eye(vh.shape[-2]), vh.shape[:-2] + (vh.shape[-2],) * 2),
                               atol=r * 10)
    # Distinct singular values: each singular vector is unique up to a phase.
    np.testing.assert_allclose(np.abs(u[..., :, :k]), np.abs(eu[..., :, :k]), rtol=r * 10, atol=r * 10)
    np.testing.assert_allclose(np.abs(vh[..., :k, :]), np.abs(evh[..., :k, :]), rtol=r * 10, atol=r * 10)
    check(lambda xp: xp.linalg.svd(xp.asarray(a), compute_uv=False), rtol=r, atol=r)
    check(lambda xp: xp.linalg.svdvals(xp.asarray(a)), rtol=r, atol=r)
    check(lambda xp: xp.linalg.svdvals(views(xp, a)[1]), rtol=r, atol=r)


@pytest.mark.parametrize("dtype", CDTYPES + [np.float64], ids=cid)
@pytest.mark.parametrize("batch", [(), (2,)], ids=str)
def test_svd_hermitian(check, dtype, batch):
    a = hermitian(5, batch, np.complex128, 10)
    a = (a if np.dtype(dtype).kind == "c" else a.real + np.swapaxes(a.real, -1, -2)).astype(dtype)
    r = rt(dtype) * 10
    check(lambda xp: xp.linalg.svd(xp.asarray(a), compute_uv=False, hermitian=True), rtol=r, atol=r)

    def f(xp):
        u, s, vh = xp.linalg.svd(xp.asarray(a), hermitian=True)
        rec = (np_(u) * np_(s)[..., None, :]) @ np_(vh)
        return wrap(xp, rec), s, wrap(xp, np.abs(np_(u))), wrap(xp, np.abs(np_(vh)))
    check(f, rtol=r, atol=r)
    # Zero eigenvalues: Vh keeps the vectors (copysign, not sign), as NumPy.
    z = np.zeros((3, 3), dtype)
    check(lambda xp: tuple(xp.linalg.svd(xp.asarray(z), hermitian=True)))
    check(lambda xp: tuple(xp.linalg.svd(xp.zeros((2, 0, 0), dtype=dtype), hermitian=True)))


# ------------------------------------------------------------------ eigh


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("n", [1, 4, 9, 40])
@pytest.mark.parametrize("batch", [(), (3,)], ids=str)
@pytest.mark.parametrize("uplo", ["L", "U", "u"])
def test_eigh(check, dtype, n, batch, uplo):
    h = hermitian(n, batch, np.complex128, n + 11)
    lower = uplo == "L"
    keep = np.tri(n, dtype=bool) if lower else np.tri(n, dtype=bool).T
    a = np.where(keep, h, 9 + 4j).astype(dtype)  # garbage in the triangle that is not read
    r = rt(dtype) * 10
    w, v = (np_(t) for t in pyasc.linalg.eigh(pyasc.asarray(a), UPLO=uplo))
    ew, ev = np.linalg.eigh(a, UPLO=uplo)
    assert (w.dtype, v.dtype, w.shape, v.shape) == (ew.dtype, ev.dtype, ew.shape, ev.shape)
    np.testing.assert_allclose(w, ew, rtol=r, atol=r * n)
    hd = h.astype(dtype)
    np.testing.assert_allclose(hd @ v, v * w[..., None, :], rtol=r, atol=r * 10 * n)  # A v = v w
    np.testing.assert_allclose(H(v) @ v, np.broadcast_to(np.eye(n), batch + (n, n)), atol=r * 10)
    np.testing.assert_allclose(np.abs(v), np.abs(ev), rtol=r * 10, atol=r * 10)
    check(lambda xp: xp.linalg.eigvalsh(xp.asarray(a), UPLO=uplo), rtol=r, atol=r * n)
    check(lambda xp: xp.linalg.eigvalsh(views(xp, a)[2], UPLO=uplo), rtol=r, atol=r * n)


# ------------------------------------------------------------------ lstsq


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("shapes", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 6), (3, 2)), ((4, 4), (4,)),
                                    ((40, 30), (40, 3)), ((0, 3), (0, 2)), ((3, 0), (3, 2)), ((5, 3), (5, 0))],
                         ids=str)
def test_lstsq(check, dtype, shapes):
    sa, sb = shapes
    a, b = crandn(sa, dtype, 12) * 4, crandn(sb, dtype, 13) * 4
    r = rt(dtype) * 10
    check(lambda xp: xp.linalg.lstsq(xp.asarray(a), xp.asarray(b)), rtol=r, atol=r)
    check(lambda xp: xp.linalg.lstsq(xp.asarray(a), xp.asarray(b), rcond=0.5), rtol=r, atol=r)
    if a.size:
        check(lambda xp: xp.linalg.lstsq(views(xp, a)[3], views(xp, b)[1]), rtol=r, atol=r)


def test_lstsq_rank_deficient(check):
    a = np.outer(np.arange(1.0, 5.0) + 1j, np.arange(1.0, 4.0) - 2j)
    b = crandn((4,), np.complex128, 14)
    check(lambda xp: xp.linalg.lstsq(xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.linalg.lstsq(xp.asarray(a.astype(np.complex64)), xp.asarray(b.astype(np.complex64)),
                                     rcond=1e-4), rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ compositions


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 4, 4), (0, 3)], ids=str)
def test_pinv_matrix_rank(check, dtype, shape):
    a = crandn(shape, dtype, 15) * 4
    r = rt(dtype) * 10
    p = check(lambda xp: xp.linalg.pinv(xp.asarray(a)), rtol=r, atol=r)
    if a.size:
        np.testing.assert_allclose(a @ np_(p) @ a, a, rtol=r, atol=r * 10)  # Moore-Penrose
    check(lambda xp: xp.linalg.pinv(xp.asarray(a), rtol=None), rtol=r, atol=r)
    check(lambda xp: xp.linalg.pinv(xp.asarray(a), rcond=0.3), rtol=r, atol=r)
    if shape != (0, 3):
        check(lambda xp: xp.linalg.matrix_rank(xp.asarray(a)))
        check(lambda xp: xp.linalg.matrix_rank(xp.asarray(a), tol=0.5))
        check(lambda xp: xp.linalg.matrix_rank(xp.asarray(a), rtol=0.3))
    h = hermitian(4, (), dtype, 16)
    check(lambda xp: xp.linalg.pinv(xp.asarray(h), hermitian=True), rtol=r, atol=r)
    check(lambda xp: xp.linalg.matrix_rank(xp.asarray(h), hermitian=True))


def test_rank_deficient():
    a = np.outer(np.arange(1.0, 5.0) + 2j, np.arange(1.0, 4.0) - 1j)
    for x in (a, a.astype(np.complex64)):
        assert int(np_(pyasc.linalg.matrix_rank(pyasc.asarray(x)))) == 1
        rc = 1e-15 if x.dtype == np.complex128 else 1e-5
        np.testing.assert_allclose(np_(pyasc.linalg.pinv(pyasc.asarray(x), rcond=rc)), np.linalg.pinv(x, rcond=rc),
                                   rtol=1e-4, atol=1e-6)
    assert pyasc.linalg.matrix_rank(pyasc.asarray(np.array([0j, 1j]))) == 1
    assert pyasc.linalg.matrix_rank(pyasc.zeros(3, dtype=pyasc.complex64)) == 0
    # hermitian=True reads the lower triangle only (eigvalsh), as NumPy: rank 2 here, not the SVD's 1.
    c = np.array([[0, 0], [7 - 1j, 1]], np.complex64)
    for h in (True, False):
        got = int(np_(pyasc.linalg.matrix_rank(pyasc.asarray(c), hermitian=h)))
        assert got == np.linalg.matrix_rank(c, hermitian=h) == (2 if h else 1)


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(check, dtype, n):
    a = cwell(3, (2,), dtype, 17) / 7
    check(lambda xp: xp.linalg.matrix_power(xp.asarray(a), n), rtol=rt(dtype) * 10, atol=rt(dtype) * 10)


def test_multi_dot(check):
    arrs = [crandn(s, np.complex128, i) for i, s in enumerate([(3,), (3, 4), (4, 5), (5, 2)])]
    check(lambda xp: xp.linalg.multi_dot([xp.asarray(x) for x in arrs]))
    arrs = [crandn(s, np.complex64, i) for i, s in enumerate([(3, 10), (10, 2), (2, 30), (30,)])]
    check(lambda xp: xp.linalg.multi_dot([xp.asarray(x) for x in arrs]), rtol=1e-4, atol=1e-4)


VECTOR_ORDS = [None, 2, 1, 0, np.inf, -np.inf, 3, 0.5, -1]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("ord", VECTOR_ORDS, ids=str)
def test_vector_norms(check, dtype, ord):
    a = crandn((3, 5), dtype, 18) * 3
    a[0, 1] = 0
    r = rt(dtype)
    check(lambda xp: xp.linalg.norm(xp.asarray(a)[0], ord=ord), rtol=r)
    check(lambda xp: xp.linalg.norm(xp.asarray(a), ord=ord, axis=1), rtol=r)
    check(lambda xp: xp.linalg.norm(xp.asarray(a)[:, ::-2], ord=ord, axis=0, keepdims=True), rtol=r)
    check(lambda xp: xp.linalg.vector_norm(xp.asarray(a), ord=2 if ord is None else ord), rtol=r)
    check(lambda xp: xp.linalg.vector_norm(xp.asarray(a), axis=(0, 1), keepdims=True, ord=2 if ord is None else ord),
          rtol=r)


@pytest.mark.parametrize("dtype", CDTYPES, ids=cid)
@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
def test_matrix_norms(check, dtype, ord):
    a = crandn((2, 4, 3), dtype, 19) * 3
    r = rt(dtype)
    check(lambda xp: xp.linalg.norm(xp.asarray(a)[0], ord=ord), rtol=r)
    check(lambda xp: xp.linalg.norm(xp.asarray(a), ord=ord, axis=(2, 0)), rtol=r)
    check(lambda xp: xp.linalg.norm(xp.asarray(a), ord=ord, axis=(1, 2), keepdims=True), rtol=r)
    check(lambda xp: xp.linalg.matrix_norm(xp.asarray(a), ord="fro" if ord is None else ord), rtol=r)
    check(lambda xp: xp.linalg.matrix_norm(views(xp, a)[1], ord="fro" if ord is None else ord), rtol=r)


def test_norm_defaults(check):
    a = crandn((2, 3, 4), np.complex128, 20)
    check(lambda xp: xp.linalg.norm(xp.asarray(a)))
    check(lambda xp: xp.linalg.norm(xp.asarray(a), keepdims=True))
    check(lambda xp: xp.linalg.norm(xp.asarray(np.array(3 - 4j))))
    check(lambda xp: xp.linalg.norm(xp.asarray(a.astype(np.complex64)).mT[0]), rtol=1e-5)
    check(lambda xp: xp.linalg.norm(xp.asarray(a), ord="fro", axis=0))
    check(lambda xp: xp.linalg.norm(xp.asarray(a), ord=2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=cid)
def test_nan_input_real_svd_lstsq(check, dtype):
    """The NaN rules of gesdd/gelsd hold for the real routines as well."""
    a = np.array([[np.nan, 1.0], [2.0, 3.0]], dtype)
    check(lambda xp: xp.linalg.svd(xp.asarray(a)))
    check(lambda xp: xp.linalg.svdvals(xp.asarray(a)))
    check(lambda xp: xp.linalg.lstsq(xp.asarray(a), xp.ones(2, dtype=dtype)))
    check(lambda xp: xp.linalg.lstsq(xp.asarray(np.full((6, 3), np.nan, dtype)), xp.ones(6, dtype=dtype)))


# ------------------------------------------------------------------ cond, tensorinv, tensorsolve (all dtypes)

COND_PS = [None, 1, -1, 2, -2, np.inf, -np.inf, "fro", "nuc"]


@pytest.mark.parametrize("dtype", CDTYPES + [np.float32, np.float64, np.int32], ids=cid)
@pytest.mark.parametrize("p", COND_PS, ids=str)
def test_cond(check, dtype, p):
    a = cwell(4, (3,), np.complex128, 21) / 3
    a = (a if np.dtype(dtype).kind == "c" else np.round(a.real * 3)).astype(dtype)
    r = rt(dtype) * 10
    check(lambda xp: xp.linalg.cond(xp.asarray(a), p), rtol=r)
    check(lambda xp: xp.linalg.cond(views(xp, a)[1], p), rtol=r)
    check(lambda xp: xp.linalg.cond(xp.asarray(a[0]), p), rtol=r)
    # Singular and zero matrices: inf (NaN from 0/0 or the singular inverse becomes inf), in a stack too;
    # for 'nuc' the NaN inverse is an SVD failure (LinAlgError), as NumPy.
    sing = np.array([[1, 0], [0, 0]], dtype)  # exactly singular for the SVD and for LU
    check(lambda xp: xp.linalg.cond(xp.asarray(np.stack([sing, np.eye(2, dtype=dtype), sing * 0])), p), rtol=r)
    if p not in (None, 2, -2):
        check(lambda xp: xp.linalg.cond(xp.ones((2, 3), dtype=dtype), p))  # square only
    else:
        check(lambda xp: xp.linalg.cond(xp.asarray(a[0, :, :3]), p), rtol=r)


def test_cond_special(check):
    check(lambda xp: xp.linalg.cond(xp.asarray(np.array([[np.nan, 1.0], [1.0, 1.0]])), 1))  # NaN stays NaN
    check(lambda xp: xp.linalg.cond(xp.asarray(np.array([[np.nan, 1.0], [1.0, 1.0]]))))    # SVD of NaN raises
    check(lambda xp: xp.linalg.cond(xp.zeros((0, 0))))                                      # empty raises
    check(lambda xp: xp.linalg.cond(xp.zeros((2, 0, 3))))
    check(lambda xp: xp.linalg.cond(xp.ones(3)))
    check(lambda xp: xp.linalg.cond(xp.ones((2, 2), dtype=xp.float16)))


@pytest.mark.parametrize("dtype", CDTYPES + [np.float64, np.int64], ids=cid)
@pytest.mark.parametrize("shape,ind", [((4, 6, 8, 3), 2), ((24, 4, 6), 1), ((2, 3, 6), 2), ((3, 3), 1)], ids=str)
def test_tensorinv(check, dtype, shape, ind):
    n = int(np.prod(shape[:ind]))
    a = cwell(n, (), np.complex128, 22)
    a = (a if np.dtype(dtype).kind == "c" else np.round(a.real * 2)).astype(dtype).reshape(shape)
    r = rt(dtype) * 10
    got = check(lambda xp: xp.linalg.tensorinv(xp.asarray(a), ind=ind), rtol=r, atol=r)
    # tensordot(tensorinv(a), a, ind) is the identity on the trailing shape
    np.testing.assert_allclose(np.tensordot(np_(got), a, ind), np.eye(n).reshape(shape[ind:] * 2),
                               atol=r * 10)


def test_tensorinv_errors(check):
    check(lambda xp: xp.linalg.tensorinv(xp.ones((4, 6, 8, 3)), ind=0))
    check(lambda xp: xp.linalg.tensorinv(xp.ones((2, 3, 4)), ind=1))       # 2 x 12: not square
    check(lambda xp: xp.linalg.tensorinv(xp.ones((2, 2, 2, 2), dtype=xp.complex64)))  # singular


@pytest.mark.parametrize("dtype", CDTYPES + [np.float32, np.float64], ids=cid)
@pytest.mark.parametrize("bshape,xshape,axes", [((6, 4), (2, 3, 4), None), ((2, 3), (6,), None),
                                                ((2, 3), (3, 2), (0,)), ((4,), (4,), None),
                                                ((2, 3), (2, 3), (3, 0))], ids=str)
def test_tensorsolve(check, dtype, bshape, xshape, axes):
    m = int(np.prod(bshape))
    at = cwell(m, (), np.complex128, 23).reshape(bshape + xshape)  # a with `axes` moved to the end
    nd = at.ndim
    a = np.moveaxis(at, list(range(nd - len(axes), nd)), list(axes)) if axes else at
    a = (a if np.dtype(dtype).kind == "c" else a.real).astype(dtype)
    b = crandn(bshape, np.complex128, 24)
    b = (b if np.dtype(dtype).kind == "c" else b.real).astype(dtype)
    r = rt(dtype) * 10
    got = check(lambda xp: xp.linalg.tensorsolve(xp.asarray(a), xp.asarray(b), axes=axes), rtol=r, atol=r)
    ta = at if np.dtype(dtype).kind == "c" else at.real
    np.testing.assert_allclose(np.tensordot(ta, np_(got), np_(got).ndim), b, rtol=r, atol=r * 10)


def test_tensorsolve_errors(check):
    check(lambda xp: xp.linalg.tensorsolve(xp.ones((2, 3, 4)), xp.ones((2, 3))))   # 6 != 4
    check(lambda xp: xp.linalg.tensorsolve(xp.ones((2, 2)), xp.ones(2)))          # singular
    check(lambda xp: xp.linalg.tensorsolve(xp.ones((2, 3, 6)), xp.ones((2, 3)), axes=(5,)))


def test_numpy_functions_dispatch_to_pyasc():
    """np.linalg.* on pyasc arrays run pyasc.linalg (__array_function__), complex included."""
    a = cwell(5, (), np.complex64, 25)
    x = pyasc.asarray(a)
    for name, args in (("inv", ()), ("det", ()), ("cond", ()), ("norm", ()), ("tensorinv", (1,))):
        got = getattr(np.linalg, name)(x, *args)
        assert isinstance(got, pyasc.ndarray), name
        np.testing.assert_allclose(np_(got), getattr(np.linalg, name)(a, *args), rtol=1e-4, atol=1e-5)
    w, v = np.linalg.eigh(pyasc.asarray(hpd(5, (), np.complex128, 26)))
    assert isinstance(v, pyasc.ndarray) and np_(w).dtype == np.float64 and np_(v).dtype == np.complex128


# ------------------------------------------------------------------ hypothesis: shapes around both paths


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=2), st.integers(0, 40), st.sampled_from(CDTYPES),
       st.integers(0, 2**31 - 1))
def test_hypothesis_square(batch, n, dtype, seed):
    batch = tuple(batch)
    # scaled so that determinants stay far from complex64's overflow threshold
    a, h = (cwell(n, batch, np.complex128, seed) / (2 * n + 3)).astype(dtype), hpd(n, batch, dtype, seed + 1)
    r = rt(dtype) * 10
    cases = [(np.linalg.inv, pyasc.linalg.inv, a), (np.linalg.det, pyasc.linalg.det, a),
             (lambda x: np.linalg.slogdet(x)[1], lambda x: pyasc.linalg.slogdet(x)[1], a),
             (np.linalg.cholesky, pyasc.linalg.cholesky, h), (np.linalg.eigvalsh, pyasc.linalg.eigvalsh, h),
             (np.linalg.svdvals, pyasc.linalg.svdvals, a)]
    for f_np, f_asc, x in cases:
        e, g = f_np(x), np_(f_asc(pyasc.asarray(x)))
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=r * max(n, 1), atol=r * max(n, 1))
    b = crandn(batch + (n, 2), dtype, seed + 2)
    x = np_(pyasc.linalg.solve(pyasc.asarray(a), pyasc.asarray(b)))
    np.testing.assert_allclose(a @ x, b, rtol=r, atol=r * max(n, 1))
