"""The `xp` harness: the same test body runs with numpy and with pyasc.

A test takes ``xp`` and returns a value (an array, a scalar, or a tuple of
them); ``check(fn)`` runs it for both modules and compares with
numpy.testing, including dtype equality. Exceptions are compared by class:
if NumPy raises, pyasc must raise an exception of the same builtin class.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import pyasc

ALL_DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
              np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOAT_DTYPES = [np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
NUMERIC_DTYPES = INT_DTYPES + FLOAT_DTYPES


def _tol(dtype):
    dt = np.dtype(dtype)
    if dt == np.dtype(ml_dtypes.bfloat16):
        return 1e-2
    return {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6}.get(dt, 1e-12)


def assert_same(expected, got, rtol=None):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for e, g in zip(expected, got):
            assert_same(e, g, rtol)
        return
    e = np.asarray(expected)
    assert not isinstance(got, np.ndarray) or isinstance(expected, np.ndarray), "pyasc returned a NumPy array"
    g = np.asarray(got)
    assert g.dtype == e.dtype, f"dtype {g.dtype} != {e.dtype}"
    assert g.shape == e.shape, f"shape {g.shape} != {e.shape}"
    if e.dtype.kind == "f" or e.dtype == np.dtype(ml_dtypes.bfloat16):
        tol = _tol(e.dtype) if rtol is None else rtol
        np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, e)


def run_both(fn, rtol=None):
    """Runs fn(numpy) and fn(pyasc); compares results or exception classes."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = fn(np)
        except Exception as e:  # noqa: BLE001
            for base in (TypeError, ValueError, IndexError, MemoryError):  # AxisError is both
                if isinstance(e, base):
                    with pytest.raises(base):
                        fn(pyasc)
                    return None
            raise
    got = fn(pyasc)
    assert_same(expected, got, rtol)
    return got


@pytest.fixture
def check():
    return run_both
