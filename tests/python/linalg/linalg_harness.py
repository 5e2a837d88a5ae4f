"""The `xp` harness of the linalg tests: the same body runs with numpy and
pyasc; results are compared (dtype, shape, values), exceptions by class.

If NumPy raises numpy.linalg.LinAlgError, pyasc must raise one too (pyasc's
AscendLinAlgError derives from it); otherwise the builtin class NumPy raised
(TypeError, ValueError, IndexError) must be raised by pyasc.
"""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc

BF16 = np.dtype(ml_dtypes.bfloat16)
ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def dtype_id(d):
    return np.dtype(d).name


def tol(dtype):
    dt = np.dtype(dtype)
    if dt == BF16:
        return 2e-2
    return {np.dtype(np.float16): 4e-3, np.dtype(np.float32): 2e-5, np.dtype(np.complex64): 2e-5}.get(dt, 1e-10)


def assert_same(expected, got, rtol=None, atol=None):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), f"{type(got)} vs tuple of {len(expected)}"
        for e, g in zip(expected, got):
            assert_same(e, g, rtol, atol)
        return
    e = np.asarray(expected)
    assert not isinstance(got, np.ndarray) or isinstance(expected, np.ndarray), "pyasc returned a NumPy array"
    g = np.asarray(got)
    assert g.dtype == e.dtype, f"dtype {g.dtype} != {e.dtype}"
    assert g.shape == e.shape, f"shape {g.shape} != {e.shape}"
    if e.dtype.kind == "c":
        t = tol(e.dtype) if rtol is None else rtol
        np.testing.assert_allclose(g.astype(np.complex128), e.astype(np.complex128), rtol=t,
                                   atol=t if atol is None else atol, equal_nan=True)
    elif e.dtype.kind == "f" or e.dtype == BF16:
        t = tol(e.dtype) if rtol is None else rtol
        np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=t,
                                   atol=t if atol is None else atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, e)


def run_both(fn, rtol=None, atol=None):
    """fn(numpy) and fn(pyasc): results equal, or both raise the same kind of error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn(np)
        except Exception as e:  # noqa: BLE001
            for base in (np.linalg.LinAlgError, TypeError, ValueError, IndexError):
                if isinstance(e, base):
                    with pytest.raises(base) as info:
                        fn(pyasc)
                    assert isinstance(info.value, pyasc.AscendError) or base is not np.linalg.LinAlgError
                    return None
            raise
        got = fn(pyasc)
    assert_same(expected, got, rtol, atol)
    return got


def data(dtype, shape, seed=0, lo=-4, hi=5):
    """Small values valid for `dtype` (integer-valued, so sums of products are exact in floats too)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == "u":
        return rng.integers(0, hi, shape).astype(dt)
    return rng.integers(lo, hi, shape).astype(dt)


def randn(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def well_conditioned(n, batch=(), dtype=np.float64, seed=0):
    """Diagonally dominant matrices (safe to invert in float32)."""
    a = randn(batch + (n, n), np.float64, seed)
    a = a + np.eye(n) * (n + 2)
    return a.astype(dtype)


def spd(n, batch=(), dtype=np.float64, seed=0):
    b = randn(batch + (n, n), np.float64, seed)
    return (b @ np.swapaxes(b, -1, -2) + np.eye(n) * n).astype(dtype)


def views(xp, a):
    """`a` as contiguous, reversed (negative strides), strided and transposed-copy views."""
    x = xp.asarray(a)
    out = [x]
    if a.ndim >= 1 and a.shape[-1] > 0:
        out.append(xp.asarray(np.ascontiguousarray(a[..., ::-1]))[..., ::-1])
        out.append(xp.asarray(np.repeat(a, 2, axis=-1))[..., ::2])
    if a.ndim >= 2:
        out.append(xp.asarray(np.ascontiguousarray(np.swapaxes(a, -1, -2))).mT)
    return out
