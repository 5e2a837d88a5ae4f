"""svd / pinv / svdvals / matrix_rank / qr make the LAPACK calls NumPy's
umath_linalg makes (gesdd with the same jobz, geqrf + orgqr, on a column-major
copy of the matrix as given), so on ill-conditioned and non-finite input the
results agree with NumPy's to rounding, in lazy and eager mode.

Before, square and wide matrices went to LAPACK as the transposed problem (the
row-major buffer read as A^T: gesdd of A^T, gelqf/orglq for qr). Equal in exact
arithmetic, but pinv of an int32 3x3 of condition ~1e10 (fuzz case
('linalg', 'pinv', (('arr', 'int32', (3, 3), 'T', 3, 'edge'),), ())) came out
6e-7 off NumPy's (relative to the result's scale)."""

import numpy as np
import pytest

import pyasc

# Entries as the fuzz harness's 'edge' fill draws them for int32: rank-deficient
# and ill-conditioned matrices whose entries span 2**31.
_I32 = np.iinfo(np.int32)
_EDGE_POOL = np.array([_I32.min, _I32.max, 0, 1, _I32.max - 1, _I32.min + 1], np.int32)

# Differences left once both sides make the same LAPACK call: NumPy's wheel and
# pyasc may link different OpenBLAS builds (kernels round differently), so not
# bit equality -- but far below the 6e-7 of the transposed problem.
_RTOL = 1e-12


@pytest.fixture(params=["lazy", "eager"])
def mode(request):
    was = pyasc.is_eager()
    pyasc.set_eager(request.param == "eager")
    yield request.param
    pyasc.set_eager(was)


def _edge(shape, seed, transposed):
    rng = np.random.default_rng(seed)
    a = _EDGE_POOL[rng.integers(0, len(_EDGE_POOL), int(np.prod(shape)))].reshape(shape)
    # 'T' layout: a transposed (non-contiguous) view, as the fuzz case passes it.
    return np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2) if transposed else a


def _close(expected, got, rtol=_RTOL):
    e = np.asarray(expected)
    g = np.asarray(got)
    assert g.dtype == e.dtype and g.shape == e.shape, f"{g.dtype}{g.shape} != {e.dtype}{e.shape}"
    assert np.array_equal(np.isnan(e), np.isnan(g)), "NaN positions differ"
    fin = np.isfinite(e)
    assert np.array_equal(e[~fin & ~np.isnan(e)], g[~fin & ~np.isnan(e)])
    scale = max(float(np.max(np.abs(e[fin]), initial=0.0)), np.finfo(np.float64).tiny)
    err = float(np.max(np.abs(e[fin] - g[fin]), initial=0.0)) / scale
    assert err <= rtol, f"max |diff| / scale = {err:.3g} > {rtol:g}"


def _ill(shape, seed):
    """float64 matrices of condition ~1e10..1e12: a random one made nearly
    rank-deficient (one row a combination of the others plus 1e-10)."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
    m = shape[-2]
    a[..., m - 1, :] = a[..., 0, :] * 3.0 - a[..., 1, :] * 0.5 + 1e-10 * rng.standard_normal(shape[-1])
    return a


_EDGE_CASES = [((3, 3), s, t) for s in range(8) for t in (False, True)] + \
    [((4, 3), 1, True), ((3, 4), 2, False), ((2, 3, 3), 5, True), ((5, 2), 3, False), ((2, 5), 4, True)]


@pytest.mark.parametrize("shape,seed,transposed", _EDGE_CASES, ids=str)
def test_pinv_svd_of_ill_conditioned_int32_match_numpy(mode, shape, seed, transposed):
    a = _edge(shape, seed, transposed)
    x = pyasc.asarray(a)
    if transposed:
        x = pyasc.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT  # a non-contiguous view
    _close(np.linalg.pinv(a), pyasc.linalg.pinv(x).numpy())
    _close(np.linalg.svd(a, compute_uv=False), pyasc.linalg.svd(x, compute_uv=False).numpy())
    assert np.array_equal(np.linalg.matrix_rank(a), np.asarray(pyasc.linalg.matrix_rank(x).numpy()))
    for full in (False, True):
        eu, es, evh = np.linalg.svd(a, full_matrices=full)
        gu, gs, gvh = pyasc.linalg.svd(x, full_matrices=full)
        # The same gesdd call: the same vectors, signs included.
        _close(eu, gu.numpy())
        _close(es, gs.numpy())
        _close(evh, gvh.numpy())


@pytest.mark.parametrize("shape", [(3, 3), (6, 6), (4, 7), (7, 4), (3, 5, 5), (40, 40), (30, 50), (50, 30)], ids=str)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_svd_pinv_qr_of_ill_conditioned_float_match_numpy(mode, shape, dtype):
    a = _ill(shape, sum(shape)).astype(np.float64)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * _ill(shape, sum(shape) + 1)
    a = a.astype(dtype)
    rtol = 1e-5 if np.dtype(dtype) == np.float32 else _RTOL
    x = pyasc.asarray(a)
    _close(np.linalg.pinv(a), pyasc.linalg.pinv(x).numpy(), rtol)
    _close(np.linalg.svd(a, compute_uv=False), pyasc.linalg.svd(x, compute_uv=False).numpy(), rtol)
    eu, es, evh = np.linalg.svd(a)
    gu, gs, gvh = pyasc.linalg.svd(x)
    _close(eu, gu.numpy(), rtol)
    _close(evh, gvh.numpy(), rtol)
    for qmode in ("reduced", "complete", "r"):
        e = np.linalg.qr(a, mode=qmode)
        g = pyasc.linalg.qr(x, mode=qmode)
        if qmode == "r":
            e, g = (e,), (g,)
        for ee, gg in zip(e, g):  # geqrf + orgqr as NumPy: the same signs
            _close(ee, gg.numpy(), rtol)


# No inf: Q (and geqrf's h, tau) of a matrix holding inf differs -- NumPy's NaN
# spreads over whole columns, here it stays in fewer entries. Not the call (the
# same dgeqrf on the same column-major copy): dlarfg scales x by 1/(alpha - beta),
# which is -0.0 when beta is inf, with dscal; the system OpenBLAS 0.3.21's dscal
# with alpha == 0 stores zeros (inf * 0 dropped), NumPy's bundled OpenBLAS 0.3.31
# multiplies (inf * 0 = NaN). Checked by calling both libraries' dgeqrf, dlarfg
# and dscal through ctypes on the same data (seed 4 of (3, 3) with inf).
_SPECIALS = [np.nan, 1e300, -1e300, -1e-300, 0.0, 1e-320]


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)], ids=str)
@pytest.mark.parametrize("seed", range(12))
def test_qr_of_non_finite_input_matches_numpy(mode, shape, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    flat = a.reshape(-1)
    flat[rng.integers(0, flat.size, 2)] = np.array(_SPECIALS)[rng.integers(0, len(_SPECIALS), 2)]
    x = pyasc.asarray(a)
    with np.errstate(all="ignore"):
        for qmode in ("reduced", "complete", "r"):
            e = np.linalg.qr(a, mode=qmode)
            g = pyasc.linalg.qr(x, mode=qmode)
            for ee, gg in zip(e if qmode != "r" else (e,), g if qmode != "r" else (g,)):
                _close(ee, gg.numpy())


def test_svd_error_names_the_callers_shape():
    # The binding factors a transposed copy: its message still names A's shape (a NaN: LAPACK's
    # info -4, reported as NumPy's non-convergence).
    a = np.ones((2, 5, 3))
    a[1, 2, 1] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match=r"shape \(2, 5, 3\), matrix 1 of the stack"):
        pyasc._C._linalg.svd(pyasc.asarray(a), False, True)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 4)], ids=str)
@pytest.mark.parametrize("qmode", ["reduced", "complete", "r"])
def test_qr_svd_of_empty_match_numpy(mode, shape, qmode):
    a = np.zeros(shape)
    x = pyasc.asarray(a)
    e = np.linalg.qr(a, mode=qmode)
    g = pyasc.linalg.qr(x, mode=qmode)
    for ee, gg in zip(e if qmode != "r" else (e,), g if qmode != "r" else (g,)):
        _close(ee, gg.numpy())
    for full in (False, True):
        for ee, gg in zip(np.linalg.svd(a, full_matrices=full), pyasc.linalg.svd(x, full_matrices=full)):
            _close(ee, gg.numpy())


# svd of non-finite input: gesdd as NumPy calls it. Without U/Vh an inf gives NaN singular values
# (matrix_rank 0), a NaN gesdd's info -4, NumPy's "SVD did not converge" -- both deterministic, and
# pyasc's result is NumPy's (it refused all non-finite input before). With U/Vh a NaN is the same
# error; an inf is refused up front (LinAlgError): there LAPACK's divide and conquer can loop
# forever -- NumPy's own svd hangs on some of these 3x3 matrices (seed 1, compute_uv=True), so
# NumPy is not called for them here. The matrices are those the comparison probe ran through both
# (float32/64, complex64/128; NumPy 2.4 with OpenBLAS 0.3.31 vs the system OpenBLAS 0.3.21).
def _nonfinite(dtype, shape, kind, seed):
    m, n = shape
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((m, n))
    a = a.astype(dtype)
    idx = rng.integers(0, m * n, size=1 + seed % 2)
    a.flat[idx] = {"inf": np.inf, "-inf": -np.inf, "nan": np.nan, "mix": np.inf}[kind]
    if kind == "mix":
        a.flat[(idx[0] + 1) % (m * n)] = np.nan
    return a


def _outcome(fn):
    try:
        return fn()
    except np.linalg.LinAlgError as e:
        return e


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.complex64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (4, 4), (1, 1)], ids=str)
@pytest.mark.parametrize("kind", ["inf", "-inf", "nan", "mix"])
@pytest.mark.parametrize("seed", [0, 1])
def test_svd_of_non_finite_input_matches_numpy(mode, dtype, shape, kind, seed):
    a = _nonfinite(dtype, shape, kind, seed)
    x = pyasc.asarray(a)
    with np.errstate(all="ignore"):
        for np_fn, asc_fn in ((lambda: np.linalg.svd(a, compute_uv=False),
                               lambda: pyasc.linalg.svd(x, compute_uv=False).numpy()),
                              (lambda: np.linalg.svd(a, compute_uv=False),
                               lambda: pyasc.linalg.svdvals(x).numpy()),
                              (lambda: np.asarray(np.linalg.matrix_rank(a)),
                               lambda: np.asarray(pyasc.linalg.matrix_rank(x).numpy()))):
            e, g = _outcome(np_fn), _outcome(asc_fn)
            if isinstance(e, Exception):
                assert isinstance(g, np.linalg.LinAlgError) and "did not converge" in str(g), repr(g)
            else:
                assert not isinstance(g, Exception), repr(g)
                _close(e, g)
        if kind in ("nan", "mix"):  # gesdd's NaN check: NumPy's error with U/Vh too (never loops)
            with pytest.raises(np.linalg.LinAlgError):
                np.linalg.svd(a)
        for fn in (lambda: pyasc.linalg.svd(x), lambda: pyasc.linalg.svd(x, full_matrices=False),
                   lambda: pyasc.linalg.pinv(x)):
            with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
                fn()


def test_svd_refuses_a_stack_with_one_inf_matrix():
    # the guard looks at the whole stack: LAPACK never starts on the inf matrix (nor on the finite
    # one before it); without U/Vh the stack goes to gesdd as NumPy's (NaN values for the inf one)
    a = np.stack([np.eye(3), np.eye(3)])
    a[1, 0, 2] = np.inf
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        pyasc.linalg.svd(pyasc.asarray(a))
    with np.errstate(all="ignore"):
        _close(np.linalg.svd(a, compute_uv=False), pyasc.linalg.svd(pyasc.asarray(a), compute_uv=False).numpy())
