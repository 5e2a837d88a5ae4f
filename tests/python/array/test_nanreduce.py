"""NaN-aware reductions and cumulative_sum/cumulative_prod vs NumPy, including
RuntimeWarnings for all-NaN slices and nanargmax's ValueError."""

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES
from test_ops import data

IDS = lambda d: np.dtype(d).name  # noqa: E731

REDUCTIONS = ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin"]


def _data(dtype):
    a = data(dtype, 60, 13).reshape(3, 4, 5)
    if np.dtype(dtype).kind == "f" or np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16):
        a = a.astype(np.float64)
        a[np.abs(a) > 1e3] = 2.0       # no Inf - Inf
        a[0, 1, :4] = np.nan
        a[2, ::2, 3] = np.nan
        a = a.astype(dtype)
    elif np.dtype(dtype).kind in "iu":
        a = a % 7  # products stay in range
    return a


BF16 = np.dtype(ml_dtypes.bfloat16)


def _ref(fn, dtype):
    """fn(xp, a) for the test; NumPy's reference for bfloat16 runs in float32 and is rounded
    back (NumPy's nan-functions do not see ml_dtypes.bfloat16 as inexact: they would not
    ignore NaN)."""
    def run(xp, a):
        if xp is np and np.dtype(dtype) == BF16:
            r = fn(np, a.astype(np.float32))
            return r.astype(BF16) if np.asarray(r).dtype == np.float32 else r
        return fn(xp, a)
    return run


def _rtol(op, dtype):
    dt = np.dtype(dtype)
    if dt == np.dtype(ml_dtypes.bfloat16):
        return 3e-2
    if dt == np.float16:
        return 1e-2
    if dt == np.float32:
        return 1e-5
    return None


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_nan_reductions(check, op, dtype):
    a = _data(dtype)
    r = _rtol(op, dtype)
    for axis in (None, 0, 2, (0, 2), -1):
        f = _ref(lambda xp, v: getattr(xp, op)(xp.asarray(v), axis=axis), dtype)
        check(lambda xp: f(xp, a), rtol=r)
    g = _ref(lambda xp, v: getattr(xp, op)(xp.asarray(v)[:, ::-1, 1:], axis=1, keepdims=True), dtype)
    check(lambda xp: g(xp, a), rtol=r)


@pytest.mark.parametrize("op", ["nansum", "nanprod", "nanmean"])
@pytest.mark.parametrize("dtype", [np.float32, np.int16], ids=IDS)
def test_nan_dtype_arg(check, op, dtype):
    a = _data(dtype)
    check(lambda xp: getattr(xp, op)(xp.asarray(a), axis=1, dtype=np.float64))


@pytest.mark.parametrize("op", ["nanvar", "nanstd"])
def test_nanvar_ddof(check, op):
    a = _data(np.float64)
    check(lambda xp: getattr(xp, op)(xp.asarray(a), axis=2, ddof=1))
    check(lambda xp: getattr(xp, op)(xp.asarray(a), axis=0, ddof=2, keepdims=True))
    check(lambda xp: getattr(xp, op)(xp.asarray(a), correction=1))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
@pytest.mark.parametrize("op", ["nanargmax", "nanargmin"])
def test_nanarg(check, op, dtype):
    a = _data(dtype)
    if np.dtype(dtype).kind not in "iub":
        a[0, 1, 4] = 1  # no all-NaN slice along axis 2
    for axis in (None, 0, 2):
        f = _ref(lambda xp, v: getattr(xp, op)(xp.asarray(v), axis=axis), dtype)
        check(lambda xp: f(xp, a))
    g = _ref(lambda xp, v: getattr(xp, op)(xp.asarray(v), axis=1, keepdims=True), dtype)
    check(lambda xp: g(xp, a))


@pytest.mark.parametrize("op", ["nanargmax", "nanargmin"])
def test_nanarg_all_nan_raises(op):
    a = np.array([[1.0, np.nan], [np.nan, np.nan]])
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        getattr(np, op)(a, axis=1)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        getattr(asc, op)(asc.asarray(a), axis=1)
    assert int(getattr(asc, op)(asc.asarray(a[:, :1]), axis=0)[0]) == 0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES[:2] + [np.bool_], ids=IDS)
@pytest.mark.parametrize("op", ["nancumsum", "nancumprod"])
def test_nan_cumulative(check, op, dtype):
    a = _data(dtype)
    if op == "nancumprod":
        a = a[:, :, :3]
    r = _rtol(op, dtype)
    for axis in (None, 0, 2):
        f = _ref(lambda xp, v: getattr(xp, op)(xp.asarray(v), axis=axis), dtype)
        check(lambda xp: f(xp, a), rtol=r)


@pytest.mark.parametrize("op,msg", [("nanmax", "All-NaN slice"), ("nanmin", "All-NaN slice"),
                                    ("nanmean", "Mean of empty slice"), ("nanvar", "Degrees of freedom"),
                                    ("nanstd", "Degrees of freedom")])
def test_all_nan_warnings(op, msg):
    a = np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32)
    with pytest.warns(RuntimeWarning, match=msg):
        expected = getattr(np, op)(a, axis=1)
    with pytest.warns(RuntimeWarning, match=msg):
        got = getattr(asc, op)(asc.asarray(a), axis=1)
    np.testing.assert_array_equal(np.asarray(got), expected)
    with warnings.catch_warnings():  # no all-NaN slice: no warning
        warnings.simplefilter("error")
        if op not in ("nanvar", "nanstd"):
            getattr(asc, op)(asc.asarray(a[:, :1]), axis=0)
        getattr(asc, op)(asc.asarray(np.array([1.0, np.nan, 3.0])))


def test_nan_empty(check):
    e = np.zeros((0, 3))
    check(lambda xp: xp.nansum(xp.asarray(e), axis=0))
    check(lambda xp: xp.nanmax(xp.asarray(e), axis=0))   # ValueError
    check(lambda xp: xp.nanargmax(xp.asarray(e)))       # ValueError
    check(lambda xp: xp.nanprod(xp.asarray(e)))
    check(lambda xp: xp.nanmean(xp.asarray(e), axis=1))


def test_nan_special_values(check):
    a = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1.0], np.float64)
    for op in ("nansum", "nanmax", "nanmin", "nanargmax", "nanargmin", "nancumsum"):
        check(lambda xp: getattr(xp, op)(xp.asarray(a)))
        check(lambda xp: getattr(xp, op)(xp.asarray(a[3:])))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float16, np.float32, np.bool_], ids=IDS)
@pytest.mark.parametrize("fn", ["cumulative_sum", "cumulative_prod"])
def test_cumulative(check, fn, dtype):
    a = (data(dtype, 12, 3) % 5 if np.dtype(dtype).kind in "iu" else data(dtype, 12, 3)).reshape(3, 4)
    if np.dtype(dtype).kind == "f":
        a = np.clip(np.nan_to_num(a), -4, 4).astype(dtype)
    for axis in (0, 1, -1):
        check(lambda xp: getattr(xp, fn)(xp.asarray(a), axis=axis), rtol=1e-2)
        check(lambda xp: getattr(xp, fn)(xp.asarray(a), axis=axis, include_initial=True), rtol=1e-2)
    check(lambda xp: getattr(xp, fn)(xp.asarray(a[0])))
    check(lambda xp: getattr(xp, fn)(xp.asarray(a[0]), dtype=np.float64, include_initial=True))
    check(lambda xp: getattr(xp, fn)(xp.asarray(a)))                 # axis required
    check(lambda xp: getattr(xp, fn)(xp.asarray(np.zeros((0,), dtype)), include_initial=True))
