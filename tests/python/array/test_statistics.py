"""Statistics and numerical helpers (python/pyasc/_statistics.py) against NumPy: the same body runs
with numpy and pyasc (conftest's ``check``), over dtypes, special values, empty and 0-d arrays,
non-contiguous / negative-stride views and axis variants."""

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import INT_DTYPES, NUMERIC_DTYPES

IDS = lambda d: np.dtype(d).name  # noqa: E731
BF16 = np.dtype(ml_dtypes.bfloat16)
REAL_FLOATS = [np.float16, np.float32, np.float64]  # NumPy treats ml_dtypes.bfloat16 as non-inexact in nan*


def _rng(seed=0):
    return np.random.default_rng(seed)


def _vals(dtype, shape, seed=0, special=False):
    r = _rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return r.integers(0, 2, shape).astype(dtype)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -20
        return r.integers(lo, 20, shape).astype(dtype)
    a = r.normal(0, 3, shape).round(2)
    if special and a.size >= 6:
        f = a.reshape(-1)
        f[1], f[3], f[5] = np.inf, -np.inf, -0.0
    return a.astype(dtype)


def _with_nan(dtype, shape, seed=0):
    a = _vals(dtype, shape, seed).astype(np.float64)
    f = a.reshape(-1)
    f[::5] = np.nan
    return a.astype(dtype)


def P(xp, a):
    """The array in the module under test (NumPy arrays stay as they are)."""
    return xp.asarray(a) if xp is asc else a


# ------------------------------------------------------------------ comparison


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [np.bool_], ids=IDS)
def test_isclose_allclose_dtypes(check, dtype):
    a = _vals(dtype, (3, 7), 1)
    b = a.copy()
    if a.size and np.dtype(dtype).kind != "b":
        b[0, 0] = b[0, 0] + np.array(1, dtype)
    check(lambda xp: xp.isclose(P(xp, a), P(xp, b)))
    check(lambda xp: xp.isclose(P(xp, a)[:, ::-2], P(xp, b)[:, ::-2], rtol=0.5, atol=1))
    assert asc.allclose(asc.asarray(a), asc.asarray(a)) is True
    assert asc.allclose(asc.asarray(a), asc.asarray(b)) == np.allclose(a, b)


@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose_special(check, equal_nan):
    a = np.array([np.nan, np.inf, -np.inf, 1.0, 0.0, -0.0, 1e-9, np.inf, 1e10])
    b = np.array([np.nan, np.inf, np.inf, 1.0 + 1e-6, -0.0, 0.0, 0.0, 1.0, 1.00001e10])
    check(lambda xp: xp.isclose(P(xp, a), P(xp, b), equal_nan=equal_nan))
    check(lambda xp: xp.allclose(P(xp, a), P(xp, a), equal_nan=equal_nan))
    check(lambda xp: xp.isclose(P(xp, a), 1.0))
    f32 = np.array([1.0, 1.0001, 0.99990004, 2.0], np.float32)  # a weak Python float keeps the float32 arithmetic
    check(lambda xp: xp.isclose(P(xp, f32), 1.0, rtol=1e-4, atol=0))
    check(lambda xp: xp.isclose(P(xp, f32), 1, rtol=P(xp, np.array([1e-4, 1e-5, 1e-4, 1.0])), atol=0))
    check(lambda xp: xp.isclose(1.0, 1.0 + 1e-9))
    check(lambda xp: xp.isclose(P(xp, np.array([0, 255], np.uint8)), 255))
    check(lambda xp: xp.isclose(P(xp, np.array(2.0)), 2.0))  # 0-d
    check(lambda xp: xp.isclose(P(xp, np.zeros((0, 3))), 0.0))  # empty
    check(lambda xp: xp.isclose(P(xp, np.ones((2, 3))), P(xp, np.ones(4))))  # broadcast error
    check(lambda xp: xp.isclose(P(xp, np.array([0, 255], np.uint8)), P(xp, np.array([255, 0], np.uint8))))
    check(lambda xp: xp.isclose(P(xp, np.array([1 + 1j, np.nan])), P(xp, np.array([1 + 1j, 1j]))))


def test_array_equal_equiv(check):
    a = np.array([[1.0, np.nan], [3.0, 4.0]])
    for en in (False, True):
        check(lambda xp: xp.array_equal(P(xp, a), P(xp, a), equal_nan=en))
    check(lambda xp: xp.array_equal(P(xp, a), P(xp, a[:1])))
    check(lambda xp: xp.array_equal(P(xp, np.arange(4)), P(xp, np.arange(4.0))))
    check(lambda xp: xp.array_equal(P(xp, np.zeros(0)), P(xp, np.zeros(0))))
    check(lambda xp: xp.array_equiv(P(xp, np.array([1, 2])), P(xp, np.array([[1, 2], [1, 2]]))))
    check(lambda xp: xp.array_equiv(P(xp, np.array([1, 2])), P(xp, np.array([[1, 2], [1, 3]]))))
    check(lambda xp: xp.array_equiv(P(xp, np.array([1, 2])), P(xp, np.array([1, 2, 3]))))
    assert asc.array_equal(asc.asarray([1, 2]), asc.asarray([1, 2])) is True


# ------------------------------------------------------------------ quantiles


METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased"]


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=IDS)
def test_median_dtypes_axes(check, dtype):
    a = _vals(dtype, (4, 5, 6), 2)
    for axis in (None, 0, 1, -1, (0, 2)):
        for kd in (False, True):
            check(lambda xp: xp.median(P(xp, a), axis=axis, keepdims=kd))
    check(lambda xp: xp.median(P(xp, a)[::-1, :, 1::2], axis=1))
    check(lambda xp: xp.median(P(xp, a), axis=3))  # AxisError


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [1, 2, 5, 16, 33])
def test_quantile_methods(check, method, n):
    a = _vals(np.float64, (3, n), n)
    q = [0.0, 0.1, 0.25, 0.5, 0.7, 0.99, 1.0]
    check(lambda xp: xp.quantile(P(xp, a), q, axis=1, method=method))
    check(lambda xp: xp.quantile(P(xp, a), 0.4, axis=-1, method=method, keepdims=True))
    check(lambda xp: xp.percentile(P(xp, a), [[10.0, 90.0]], method=method))
    ai = _vals(np.int32, (n,), n)
    check(lambda xp: xp.quantile(P(xp, ai), 0.3, method=method))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=IDS)
def test_quantile_dtypes(check, dtype):
    a = _vals(dtype, (5, 8), 3)
    check(lambda xp: xp.quantile(P(xp, a), 0.3, axis=0))
    check(lambda xp: xp.quantile(P(xp, a), np.array([0.3, 0.9]), axis=1))
    check(lambda xp: xp.percentile(P(xp, a), 75, axis=None))
    check(lambda xp: xp.quantile(P(xp, a), 0.5, method="lower"))


def test_quantile_special_and_errors(check):
    a = np.array([[1.0, np.nan, 3.0, 2.0], [np.inf, -np.inf, 0.0, -0.0], [4.0, 3.0, 2.0, 1.0]])
    check(lambda xp: xp.median(P(xp, a), axis=1))
    check(lambda xp: xp.quantile(P(xp, a), [0.2, 0.5], axis=1))
    check(lambda xp: xp.median(P(xp, np.array(3.5))))  # 0-d
    check(lambda xp: xp.quantile(P(xp, np.array(3.5)), 0.25))
    check(lambda xp: xp.quantile(P(xp, a), 1.5))  # ValueError
    check(lambda xp: xp.percentile(P(xp, a), -1))
    check(lambda xp: xp.quantile(P(xp, a), 0.5, method="bogus"))
    with pytest.warns(RuntimeWarning):
        r = asc.median(asc.asarray(np.zeros(0)))
    assert np.isnan(np.asarray(r))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda xp: xp.median(P(xp, np.zeros((0, 3))), axis=0))
    out = asc.empty((3,), np.float64)
    r = asc.median(asc.asarray(a), axis=1, out=out)
    assert r is out
    np.testing.assert_array_equal(np.asarray(out), np.median(a, axis=1))


@pytest.mark.parametrize("dtype", REAL_FLOATS, ids=IDS)
def test_nan_quantiles(check, dtype):
    a = _with_nan(dtype, (4, 9), 5)
    for axis in (None, 0, 1):
        check(lambda xp: xp.nanmedian(P(xp, a), axis=axis))
        check(lambda xp: xp.nanquantile(P(xp, a), [0.1, 0.5, 1.0], axis=axis))
        check(lambda xp: xp.nanpercentile(P(xp, a), 40, axis=axis, keepdims=True))
    for method in METHODS:
        check(lambda xp: xp.nanquantile(P(xp, a), [0.0, 0.33, 0.8], axis=1, method=method))
    b = a.copy()
    b[1] = np.nan
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        r = asc.nanmedian(asc.asarray(b), axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = np.nanmedian(b, axis=1)
    np.testing.assert_allclose(np.asarray(r).astype(np.float64), e.astype(np.float64), rtol=2e-3, equal_nan=True)
    ai = _vals(np.int64, (3, 4))
    check(lambda xp: xp.nanmedian(P(xp, ai), axis=0))


# ------------------------------------------------------------------ average, ptp, cov, corrcoef


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=IDS)
def test_average_ptp(check, dtype):
    a = _vals(dtype, (3, 4), 6)
    w = np.array([1.0, 2.0, 0.5, 3.0])
    check(lambda xp: xp.average(P(xp, a)))
    check(lambda xp: xp.average(P(xp, a), axis=1, weights=P(xp, w)))
    check(lambda xp: xp.average(P(xp, a), axis=-1, weights=P(xp, w), returned=True))
    check(lambda xp: xp.average(P(xp, a), axis=0, returned=True, keepdims=True))
    check(lambda xp: xp.average(P(xp, a), weights=P(xp, np.ones((3, 4), np.int32))))
    check(lambda xp: xp.average(P(xp, a), weights=P(xp, w)))  # TypeError: axis needed
    check(lambda xp: xp.average(P(xp, a), axis=0, weights=P(xp, w)))  # ValueError: length
    if np.dtype(dtype).kind != "b":
        check(lambda xp: xp.ptp(P(xp, a), axis=1))
        check(lambda xp: xp.ptp(P(xp, a)[::-1, ::2], axis=0, keepdims=True))
        check(lambda xp: xp.ptp(P(xp, a)))
    with pytest.raises(ZeroDivisionError):
        asc.average(asc.asarray(a), axis=1, weights=asc.asarray(np.zeros(4)))


def test_ptp_special(check):
    a = np.array([[1.0, np.nan], [np.inf, -np.inf], [-0.0, 0.0]])
    check(lambda xp: xp.ptp(P(xp, a), axis=1))
    check(lambda xp: xp.ptp(P(xp, np.zeros((0, 2))), axis=1))
    check(lambda xp: xp.ptp(P(xp, np.zeros((0, 2))), axis=0))  # ValueError: empty


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex128], ids=IDS)
def test_cov_corrcoef(check, dtype):
    a = _vals(np.float64, (3, 7), 7)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * _vals(np.float64, (3, 7), 8)
    a = a.astype(dtype)
    if np.dtype(dtype).kind == "c":
        # NumPy's BLAS product leaves ~1e-18 imaginary parts on the Hermitian diagonal: compare with a tolerance
        for kw in ({}, {"rowvar": False}, {"bias": True}, {"ddof": 2}):
            np.testing.assert_allclose(np.asarray(asc.cov(asc.asarray(a), **kw)), np.cov(a, **kw), rtol=1e-12,
                                       atol=1e-12)
        np.testing.assert_allclose(np.asarray(asc.corrcoef(asc.asarray(a))), np.corrcoef(a), rtol=1e-12,
                                   atol=1e-12)
        assert asc.cov(asc.asarray(a)).dtype == np.complex128
        return
    check(lambda xp: xp.cov(P(xp, a)))
    check(lambda xp: xp.cov(P(xp, a), rowvar=False))
    check(lambda xp: xp.cov(P(xp, a), bias=True))
    check(lambda xp: xp.cov(P(xp, a), ddof=2))
    check(lambda xp: xp.cov(P(xp, a[0]), P(xp, a[1])))
    check(lambda xp: xp.cov(P(xp, a[0])))  # 0-d result
    check(lambda xp: xp.corrcoef(P(xp, a)))
    check(lambda xp: xp.corrcoef(P(xp, a)[:, ::-1], rowvar=False))
    check(lambda xp: xp.corrcoef(P(xp, a[0]), P(xp, a[2])))
    check(lambda xp: xp.cov(P(xp, np.zeros((2, 2, 2)))))  # ValueError
    fw = np.array([1, 2, 0, 3, 1, 1, 2])
    aw = np.array([0.5, 1.0, 2.0, 0.25, 1.0, 3.0, 1.5])
    check(lambda xp: xp.cov(P(xp, a), fweights=P(xp, fw)))
    check(lambda xp: xp.cov(P(xp, a), aweights=P(xp, aw)))
    check(lambda xp: xp.cov(P(xp, a), fweights=P(xp, fw), aweights=P(xp, aw), ddof=0))
    check(lambda xp: xp.cov(P(xp, a), fweights=P(xp, fw), aweights=P(xp, aw)))
    check(lambda xp: xp.cov(P(xp, a), fweights=P(xp, fw + 0.5)))  # TypeError
    check(lambda xp: xp.cov(P(xp, a), aweights=P(xp, -aw)))  # ValueError
    for xp in (np, asc):  # NumPy raises RuntimeError for a weights length mismatch
        with pytest.raises(RuntimeError, match="incompatible numbers of samples and aweights"):
            xp.cov(P(xp, a), aweights=P(xp, aw[:3]))


# ------------------------------------------------------------------ diff, ediff1d, gradient, trapezoid


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [np.bool_], ids=IDS)
def test_diff(check, dtype):
    a = _vals(dtype, (4, 6), 9)
    for n in (0, 1, 2, 7):
        check(lambda xp: xp.diff(P(xp, a), n=n))
        check(lambda xp: xp.diff(P(xp, a), n=n, axis=0))
    check(lambda xp: xp.diff(P(xp, a)[::-1, 1::2], axis=-2))
    check(lambda xp: xp.diff(P(xp, a), prepend=P(xp, a[:, :1]), append=P(xp, a[:, :2])))
    check(lambda xp: xp.diff(P(xp, a), axis=0, prepend=a.dtype.type(1)))
    check(lambda xp: xp.diff(P(xp, a), n=-1))
    check(lambda xp: xp.diff(P(xp, np.array(1.0))))
    check(lambda xp: xp.diff(P(xp, a), axis=2))
    check(lambda xp: xp.diff(P(xp, np.zeros((0, 3))), axis=0))


def test_diff_special(check):
    a = np.array([np.inf, np.inf, -np.inf, np.nan, 1.0, -0.0, 0.0])
    check(lambda xp: xp.diff(P(xp, a)))
    check(lambda xp: xp.ediff1d(P(xp, a)))


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32, np.float64], ids=IDS)
def test_ediff1d(check, dtype):
    a = _vals(dtype, (3, 4), 10)
    check(lambda xp: xp.ediff1d(P(xp, a)))
    check(lambda xp: xp.ediff1d(P(xp, a), to_begin=P(xp, np.array([1], dtype)), to_end=P(xp, a[0])))
    check(lambda xp: xp.ediff1d(P(xp, np.zeros(0, dtype))))
    check(lambda xp: xp.ediff1d(P(xp, np.array(5, dtype))))
    if np.dtype(dtype).kind in "iu":
        check(lambda xp: xp.ediff1d(P(xp, a), to_end=P(xp, np.array([1.5]))))  # TypeError


@pytest.mark.parametrize("dtype", [np.int32, np.float16, np.float32, np.float64], ids=IDS)
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(check, dtype, edge_order):
    a = _vals(dtype, (5, 7), 11)
    check(lambda xp: xp.gradient(P(xp, a), edge_order=edge_order))
    check(lambda xp: xp.gradient(P(xp, a), 0.5, edge_order=edge_order))
    check(lambda xp: xp.gradient(P(xp, a), 2.0, 0.25, edge_order=edge_order))
    check(lambda xp: xp.gradient(P(xp, a), axis=-1, edge_order=edge_order))
    xs = np.array([0.0, 0.5, 1.5, 3.5, 4.0, 7.0, 7.5])
    check(lambda xp: xp.gradient(P(xp, a), P(xp, xs), axis=1, edge_order=edge_order))
    check(lambda xp: xp.gradient(P(xp, a)[::-1, ::2], edge_order=edge_order))
    check(lambda xp: xp.gradient(P(xp, a[:, :edge_order]), axis=1, edge_order=edge_order))  # too small
    check(lambda xp: xp.gradient(P(xp, a), P(xp, xs[:3]), axis=1))  # ValueError
    check(lambda xp: xp.gradient(P(xp, a), edge_order=3))


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64], ids=IDS)
def test_trapezoid(check, dtype):
    a = _vals(dtype, (4, 6), 12)
    check(lambda xp: xp.trapezoid(P(xp, a)))
    check(lambda xp: xp.trapezoid(P(xp, a), dx=0.5, axis=0))
    xs = np.array([0.0, 1.0, 1.5, 4.0, 4.5, 6.0])
    check(lambda xp: xp.trapezoid(P(xp, a), x=P(xp, xs)))
    check(lambda xp: xp.trapezoid(P(xp, a)[::-1], x=P(xp, a[0].astype(np.float64))))
    check(lambda xp: xp.trapezoid(P(xp, np.zeros((3, 0)))))
    check(lambda xp: xp.trapezoid(P(xp, np.array([1.0, np.inf, 2.0]))))


# ------------------------------------------------------------------ interp, convolve, polynomials


def test_interp(check):
    xp_ = np.array([0.0, 1.0, 2.5, 4.0, 4.0 + 1e-9, 6.0])
    fp = np.array([1.0, -2.0, 3.0, 3.0, 5.0, np.inf])
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.9, 4.0, 5.0, 6.0, 7.0, np.nan, -0.0])
    check(lambda xp: xp.interp(P(xp, x), P(xp, xp_), P(xp, fp)))
    check(lambda xp: xp.interp(P(xp, x), P(xp, xp_), P(xp, fp), left=-9.0, right=9.0))
    check(lambda xp: xp.interp(P(xp, x.reshape(3, 4))[:, ::-1], P(xp, xp_), P(xp, fp)))
    check(lambda xp: xp.interp(2.2, P(xp, xp_), P(xp, fp)))
    check(lambda xp: xp.interp(P(xp, x), P(xp, np.array([1.0])), P(xp, np.array([3.0]))))
    check(lambda xp: xp.interp(P(xp, np.arange(5, dtype=np.int32)), P(xp, np.array([0, 2, 4])),
                               P(xp, np.array([1, 5, 2], np.int8))))
    check(lambda xp: xp.interp(P(xp, np.array([-180.0, -90, 10, 185, 365])),
                               P(xp, np.array([-170.0, 0, 90, 170])), P(xp, np.array([1.0, 2, 3, 4])), period=360))
    check(lambda xp: xp.interp(P(xp, x), P(xp, xp_), P(xp, fp[:-1])))  # ValueError
    check(lambda xp: xp.interp(P(xp, x), P(xp, xp_[:0]), P(xp, fp[:0])))
    check(lambda xp: xp.interp(P(xp, x), P(xp, xp_), P(xp, fp), period=0))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.uint16, np.float32, np.float64,
                                   np.complex128], ids=IDS)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n,m", [(1, 1), (5, 3), (3, 5), (8, 8), (17, 4), (4, 6)])
def test_convolve_correlate(check, dtype, mode, n, m):
    a = _vals(np.float64, (n,), n).round() % 5
    v = _vals(np.float64, (m,), m + 1).round() % 4
    if np.dtype(dtype).kind == "c":
        a = a + 1j * (a[::-1] - 1)
        v = v - 2j
    a, v = a.astype(dtype), v.astype(dtype)
    check(lambda xp: xp.convolve(P(xp, a), P(xp, v), mode))
    check(lambda xp: xp.correlate(P(xp, a), P(xp, v), mode))
    check(lambda xp: xp.convolve(P(xp, a)[::-1], P(xp, v), mode))


def test_convolve_errors_special(check):
    a = np.array([1.0, np.inf, 2.0, np.nan])
    check(lambda xp: xp.convolve(P(xp, a), P(xp, np.array([1.0, 0.0]))))
    check(lambda xp: xp.convolve(P(xp, np.zeros(0)), P(xp, a)))  # ValueError
    check(lambda xp: xp.correlate(P(xp, a), P(xp, np.zeros(0))))
    check(lambda xp: xp.convolve(P(xp, a), P(xp, a), mode="bogus"))
    check(lambda xp: xp.convolve(P(xp, np.array(2.0)), P(xp, np.array(3.0))))  # 0-d


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.complex128], ids=IDS)
def test_polyval(check, dtype):
    p = np.array([2, -1, 3, 0.5]).astype(dtype if np.dtype(dtype).kind != "i" else np.float64)
    x = _vals(dtype, (3, 4), 13)
    check(lambda xp: xp.polyval(P(xp, p), P(xp, x)))
    check(lambda xp: xp.polyval(P(xp, p), P(xp, x)[::-1, 1::2]))
    check(lambda xp: xp.polyval(P(xp, p), P(xp, np.array(2, dtype))))
    check(lambda xp: xp.polyval(P(xp, np.array([3, 1, 2])), P(xp, x)))
    check(lambda xp: xp.polyval(P(xp, p), P(xp, np.zeros(0, dtype))))


def test_polyfit(check):
    x = np.linspace(-2, 3, 11)
    y = 1.5 * x ** 3 - x + 0.25 + 0.01 * np.sin(7 * x)
    for deg in (0, 1, 3, 5):
        check(lambda xp: xp.polyfit(P(xp, x), P(xp, y), deg), rtol=1e-7)
    check(lambda xp: xp.polyfit(P(xp, x), P(xp, np.stack([y, -y], 1)), 2), rtol=1e-7)
    w = np.linspace(0.5, 2, 11)
    check(lambda xp: xp.polyfit(P(xp, x), P(xp, y), 2, w=P(xp, w)), rtol=1e-7)
    c, res, rank, sv, rc = asc.polyfit(asc.asarray(x), asc.asarray(y), 2, full=True)
    ce, rese, ranke, sve, rce = np.polyfit(x, y, 2, full=True)
    np.testing.assert_allclose(np.asarray(c), ce, rtol=1e-8)
    np.testing.assert_allclose(np.asarray(res), rese, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(sv), sve, rtol=1e-8)
    assert int(rank) == ranke and rc == rce
    check(lambda xp: xp.polyfit(P(xp, x), P(xp, y), -1))  # ValueError
    check(lambda xp: xp.polyfit(P(xp, x), P(xp, y[:5]), 1))  # TypeError
    check(lambda xp: xp.polyfit(P(xp, np.zeros(0)), P(xp, np.zeros(0)), 1))
    with pytest.warns(np.exceptions.RankWarning):
        asc.polyfit(asc.asarray(x[:3]), asc.asarray(y[:3]), 5)


@pytest.mark.parametrize("cov", [True, "unscaled"])
@pytest.mark.parametrize("two_columns", [False, True])
def test_polyfit_cov(check, cov, two_columns):
    x = np.linspace(-2, 3, 11)
    y = 1.5 * x ** 3 - x + 0.25 + 0.01 * np.sin(7 * x)
    if two_columns:
        y = np.stack([y, 0.5 * y + 0.02 * np.cos(3 * x)], 1)
    w = np.linspace(0.5, 2, 11)
    check(lambda xp: xp.polyfit(P(xp, x), P(xp, y), 3, cov=cov), rtol=1e-7)
    check(lambda xp: xp.polyfit(P(xp, x), P(xp, y), 2, w=P(xp, w), cov=cov), rtol=1e-7)
    if cov is True:  # too few points to scale the covariance: ValueError as NumPy
        check(lambda xp: xp.polyfit(P(xp, x[:4]), P(xp, y[:4]), 3, cov=True))


# ------------------------------------------------------------------ elementwise helpers


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [np.complex64, np.complex128], ids=IDS)
def test_nan_to_num(check, dtype):
    a = _vals(np.float64, (13,), 14, special=True)
    a[7] = np.nan
    if np.dtype(dtype).kind == "c":
        a = a + 1j * a[::-1]
    elif np.dtype(dtype).kind in "iu":
        a = _vals(dtype, (13,), 14)
    a = a.astype(dtype)
    if np.dtype(dtype) == BF16:
        # NumPy does not see ml_dtypes.bfloat16 as inexact (it returns the input): pyasc does; the
        # reference is the float32 result rounded to bfloat16.
        r = np.asarray(asc.nan_to_num(asc.asarray(a), nan=-1.0, posinf=7.0, neginf=-7.0))
        assert r.dtype == BF16
        np.testing.assert_array_equal(r.astype(np.float32),
                                      np.nan_to_num(a.astype(np.float32), nan=-1.0, posinf=7.0, neginf=-7.0)
                                      .astype(BF16).astype(np.float32))
        r = np.asarray(asc.nan_to_num(asc.asarray(a))).astype(np.float32)
        assert r[1] == float(ml_dtypes.finfo(BF16).max) and r[3] == -r[1] and r[7] == 0
        return
    check(lambda xp: xp.nan_to_num(P(xp, a)))
    check(lambda xp: xp.nan_to_num(P(xp, a)[::-2], nan=-1.0, posinf=7.0, neginf=-7.0))
    check(lambda xp: xp.nan_to_num(P(xp, a.reshape(1, 13)[:, 2:5])))
    check(lambda xp: xp.nan_to_num(P(xp, np.zeros(0, dtype))))


def test_nan_to_num_inplace():
    a = np.array([np.nan, np.inf, -np.inf, 1.0])
    x = asc.asarray(a.copy())
    r = asc.nan_to_num(x, copy=False)
    assert r is x
    np.testing.assert_array_equal(np.asarray(x), np.nan_to_num(a))
    y = asc.asarray(a.copy())
    asc.nan_to_num(y)
    assert np.isnan(np.asarray(y)[0])  # copy=True leaves the input alone


def test_real_if_close_isreal_iscomplex(check):
    c = np.array([1 + 1e-16j, 2 - 0j, -3 + 0j])
    d = np.array([1 + 1e-3j, 2 + 0j])
    for arr in (c, d, c.astype(np.complex64), np.array([1.0, 2.0]), np.arange(3)):
        check(lambda xp: xp.real_if_close(P(xp, arr)))
        check(lambda xp: xp.isreal(P(xp, arr)))
        check(lambda xp: xp.iscomplex(P(xp, arr)))
    check(lambda xp: xp.real_if_close(P(xp, d), tol=1e-2))
    check(lambda xp: xp.isreal(P(xp, np.zeros((0, 2), np.complex128))))
    check(lambda xp: xp.iscomplex(P(xp, np.array(1j))))


def test_isscalar():
    for v in (1, 2.5, 1j, np.float32(2), "s", True, None, [1], (1,), np.array(1.0)):
        assert asc.isscalar(v) == np.isscalar(v), v
    assert asc.isscalar(asc.asarray(1.0)) is False
    assert asc.isscalar(asc.asarray([1.0])) is False


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES + [np.bool_], ids=IDS)
def test_fix_modf_frexp_divmod(check, dtype):
    a = _vals(dtype, (3, 5), 15, special=True)
    if np.dtype(dtype).kind == "f" or np.dtype(dtype) == BF16:
        a = (a.astype(np.float64) * 1.37).astype(dtype)
    check(lambda xp: xp.fix(P(xp, a)))
    check(lambda xp: xp.fix(P(xp, a)[::-1, ::2]))
    if np.dtype(dtype) != BF16:
        check(lambda xp: xp.modf(P(xp, a)))
        check(lambda xp: xp.frexp(P(xp, a)))
    b = _vals(dtype, (5,), 16)
    if np.dtype(dtype).kind in "iu":
        b[b == 0] = 3
    if np.dtype(dtype).kind != "b":
        check(lambda xp: xp.divmod(P(xp, a), P(xp, b)))
        check(lambda xp: xp.divmod(P(xp, a), 4))


@pytest.mark.parametrize("dtype", REAL_FLOATS, ids=IDS)
def test_modf_frexp_special(check, dtype):
    fi = np.finfo(dtype)
    a = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, fi.tiny, fi.tiny / 4, -fi.max, fi.max, 0.5, -1.0, 3.75,
                  1 - fi.epsneg, 2.0 ** 10], dtype)
    check(lambda xp: xp.modf(P(xp, a)))
    check(lambda xp: xp.frexp(P(xp, a)))
    check(lambda xp: xp.frexp(P(xp, np.array(6.0, dtype))))
    check(lambda xp: xp.modf(P(xp, np.zeros((0, 2), dtype))))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=IDS)
def test_gcd_lcm(check, dtype):
    a = _vals(dtype, (4, 6), 17)
    b = _vals(dtype, (6,), 18)
    check(lambda xp: xp.gcd(P(xp, a), P(xp, b)))
    check(lambda xp: xp.lcm(P(xp, a), P(xp, b)))
    check(lambda xp: xp.gcd(P(xp, a)[::-1, ::3], 12))
    check(lambda xp: xp.lcm(P(xp, a), 0))
    check(lambda xp: xp.gcd(P(xp, np.zeros(0, dtype)), 3))


def test_gcd_lcm_values_errors(check):
    a = np.array([0, 0, 12, -18, 2 ** 40, 7, -7, 1071])
    b = np.array([0, 5, -8, 12, 2 ** 35 * 3, 13, -7, 462])
    check(lambda xp: xp.gcd(P(xp, a), P(xp, b)))
    check(lambda xp: xp.lcm(P(xp, a[:4]), P(xp, b[:4])))
    check(lambda xp: xp.gcd(P(xp, np.array(12)), P(xp, np.array(20))))
    check(lambda xp: xp.gcd(P(xp, np.array([1.5])), 2))  # TypeError
    check(lambda xp: xp.lcm(P(xp, a), P(xp, b[:3])))  # ValueError (broadcast)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64], ids=IDS)
def test_lexsort(check, dtype):
    k1 = _vals(dtype, (3, 10), 19) % 3
    k2 = _vals(dtype, (3, 10), 20) % 2
    check(lambda xp: xp.lexsort((P(xp, k1[0]), P(xp, k2[0]))))
    check(lambda xp: xp.lexsort((P(xp, k1), P(xp, k2))))
    check(lambda xp: xp.lexsort((P(xp, k1), P(xp, k2)), axis=0))
    check(lambda xp: xp.lexsort(P(xp, np.stack([k1[1], k2[1]]))))
    check(lambda xp: xp.lexsort((P(xp, k1[0])[::-1], P(xp, k2[0])[::-1])))
    check(lambda xp: xp.lexsort(()))  # TypeError
    check(lambda xp: xp.lexsort((P(xp, k1[0]), P(xp, k2[0, :4]))))  # ValueError


def test_lexsort_nan():
    a = np.array([np.nan, 1.0, np.nan, 0.0, 1.0])
    b = np.array([1, 1, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(asc.lexsort((asc.asarray(a), asc.asarray(b)))), np.lexsort((a, b)))


# ------------------------------------------------------------------ NumPy dispatch


def test_numpy_dispatch():
    a = _vals(np.float64, (4, 6), 21)
    x = asc.asarray(a)
    for name, args in [("median", ()), ("percentile", (30,)), ("quantile", (0.2,)), ("ptp", ()),
                       ("diff", ()), ("cov", ()), ("average", ()), ("nan_to_num", ()), ("trapezoid", ())]:
        r = getattr(np, name)(x, *args)
        assert isinstance(r, asc.ndarray), name
        np.testing.assert_allclose(np.asarray(r), getattr(np, name)(a, *args), rtol=1e-12, err_msg=name)
    r = np.isclose(x, x)
    assert isinstance(r, asc.ndarray) and bool(np.all(np.asarray(r)))
    assert np.allclose(x, x) is True
    assert isinstance(np.convolve(x[0], x[1]), asc.ndarray)
    assert isinstance(np.lexsort((x[0], x[1])), asc.ndarray)
    g = np.gradient(x)
    assert isinstance(g, tuple) and all(isinstance(v, asc.ndarray) for v in g)


def test_errors_are_ascend_subclasses():
    with pytest.raises(asc.errors.AscendValueError, match=r"\[quantile\] Quantiles must be in the range"):
        asc.quantile(asc.asarray([1.0, 2.0]), 2.0)
    with pytest.raises(asc.errors.AscendTypeError, match=r"\[gcd\].*float64"):
        asc.gcd(asc.asarray([1.5]), 2)
    with pytest.raises(asc.errors.AscendValueError, match=r"\[convolve\] a cannot be empty"):
        asc.convolve(asc.asarray(np.zeros(0)), asc.asarray([1.0]))
    with pytest.raises(asc.errors.AscendValueError, match=r"\[interp\].*\(3 and 4\)"):
        asc.interp(asc.asarray([1.0]), asc.asarray([0.0, 1, 2, 3]), asc.asarray([0.0, 1, 2]))
    with pytest.raises(asc.errors.AscendIndexError, match=r"\[median\]|\[quantile\]"):
        asc.quantile(asc.asarray(np.zeros((0, 2))), 0.5, axis=0)
    with pytest.raises(asc.errors.AscendTypeError, match=r"\[average\] Axis must be specified.*\(2, 3\)"):
        asc.average(asc.asarray(np.ones((2, 3))), weights=asc.asarray(np.ones(3)))
    with pytest.raises(asc.errors.AscendError, match=r"\[lexsort\]"):
        asc.lexsort([])


def test_median_bool_complex_inf_and_misc_edges(check):
    b = np.array([True, False, True, True])
    check(lambda xp: xp.median(P(xp, b)))
    check(lambda xp: xp.median(P(xp, np.array([1 + 1j, 2, 1 - 1j, 3j]))))
    check(lambda xp: xp.median(P(xp, np.array([[np.inf, -np.inf, 1.0], [np.inf, np.inf, -np.inf]])), axis=1))
    for dt in REAL_FLOATS:
        check(lambda xp: xp.nanmedian(P(xp, np.array([np.inf, np.nan, -np.inf, 1], dt))))
        check(lambda xp: xp.nanmedian(P(xp, np.array([[np.inf, np.nan, -np.inf, 2], [1, 2, np.nan, np.nan]], dt)),
                                      axis=1, keepdims=True))
    check(lambda xp: xp.median(P(xp, np.array([2 ** 63, 2 ** 63 + 2], np.uint64))))
    check(lambda xp: xp.gradient(P(xp, b)))  # TypeError (boolean subtract)
    check(lambda xp: xp.gcd(P(xp, b), P(xp, b)))  # TypeError
    check(lambda xp: xp.gcd(P(xp, b), 4))
    check(lambda xp: xp.lexsort((P(xp, np.array(1.0)),)))
    check(lambda xp: xp.average(P(xp, np.arange(24.0).reshape(2, 3, 4)), axis=(0, 2),
                                weights=P(xp, np.arange(24.0).reshape(2, 3, 4))))
    check(lambda xp: xp.interp(P(xp, np.array([0.5, 3, -1])), P(xp, np.array([0.0, 1, 2])),
                               P(xp, np.array([0, 1j, 2]))))
    check(lambda xp: xp.correlate(P(xp, np.array([1j, 2, 3])), P(xp, np.array([1j, 1, 2, 5, 1])), "full"))


@pytest.mark.parametrize("n", [7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097])
def test_sizes_around_simd_and_tile_widths(check, n):
    a = _with_nan(np.float32, (n,), n)
    b = _vals(np.float64, (n,), n + 1, special=n >= 6)
    i = _vals(np.int32, (n,), n + 2)
    check(lambda xp: xp.median(P(xp, b)))
    check(lambda xp: xp.nanmedian(P(xp, a)))
    check(lambda xp: xp.quantile(P(xp, i), [0.1, 0.5, 0.9]))
    check(lambda xp: xp.diff(P(xp, b)[::-1]))
    check(lambda xp: xp.nan_to_num(P(xp, a)))
    check(lambda xp: xp.isclose(P(xp, b), P(xp, b[::-1])))
    check(lambda xp: xp.gcd(P(xp, i), 6))
    check(lambda xp: xp.convolve(P(xp, i), P(xp, np.array([1, -2, 1], np.int32)), "same"))
    check(lambda xp: xp.frexp(P(xp, b)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128], ids=str)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("n,m", [(64, 64), (300, 65), (65, 300), (1000, 511), (513, 700), (2000, 1500)])
def test_convolve_correlate_blocked_gemm_path(dtype, mode, n, m):
    # both operands >= 64 taps: the block-Toeplitz GEMM path (b = 64 / 128, ragged last blocks)
    rng = np.random.default_rng(n * 7 + m)
    a = rng.standard_normal(n).astype(dtype)
    v = rng.standard_normal(m).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = (a + 1j * rng.standard_normal(n)).astype(dtype)
        v = (v - 2j * rng.standard_normal(m)).astype(dtype)
    tol = 2e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12
    for name in ("convolve", "correlate"):
        ref = getattr(np, name)(a, v, mode)
        got = getattr(asc, name)(asc.asarray(a), asc.asarray(v), mode)
        assert got.shape == ref.shape and got.dtype == ref.dtype
        np.testing.assert_allclose(np.asarray(got), ref, rtol=tol, atol=tol * np.abs(ref).max())
