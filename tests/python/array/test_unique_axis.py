"""unique(axis=k): lexicographically sorted unique slices, with index/inverse/counts, as
NumPy (-0.0 == 0.0; slices with NaN never merge)."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from conftest import ALL_DTYPES, assert_same

BF16 = np.dtype(ml_dtypes.bfloat16)


def _data(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    v = rng.integers(0, 3, n)  # few distinct values: many equal slices
    return v.astype(dt).reshape(shape)


def _np_unique(a, **kw):
    if np.dtype(a.dtype) == BF16:
        r = np.unique(a.astype(np.float64), **kw)
        return (r[0].astype(BF16),) + tuple(r[1:]) if isinstance(r, tuple) else r.astype(BF16)
    return np.unique(a, **kw)


ALL = dict(return_index=True, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape,axis", [((6, 2), 0), ((6, 2), 1), ((3, 4, 2), 0), ((3, 4, 2), 1), ((3, 4, 2), 2),
                                        ((3, 4, 2), -1), ((40, 3), 0), ((5,), 0), ((5,), -1)])
def test_unique_axis(dtype, shape, axis):
    a = _data(dtype, shape, sum(shape))
    x = asc.asarray(a)
    assert_same(_np_unique(a, axis=axis), asc.unique(x, axis=axis))
    assert_same(_np_unique(a, axis=axis, **ALL), asc.unique(x, axis=axis, **ALL))
    assert_same(_np_unique(a, axis=axis, return_counts=True), asc.unique(x, axis=axis, return_counts=True))
    assert_same(_np_unique(a, axis=axis, return_inverse=True, return_index=True),
                asc.unique(x, axis=axis, return_inverse=True, return_index=True))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
def test_unique_axis_special_values(dtype):
    a = np.array([[1.0, np.nan], [1.0, np.nan], [0.0, -0.0], [-0.0, 0.0], [1.0, 2.0], [np.inf, -np.inf],
                  [-np.inf, 5.0], [np.inf, -np.inf]], dtype=dtype)
    if dtype is np.float16:
        # NumPy's structured (void) compare of float16 fields does not put NaN last;
        # without NaN rows the orders agree.
        a = a[2:]
    assert_same(np.unique(a, axis=0, **ALL), asc.unique(asc.asarray(a), axis=0, **ALL))
    assert_same(np.unique(a.T, axis=1, **ALL), asc.unique(asc.asarray(a).T, axis=1, **ALL))
    assert_same(np.unique(a[::-2], axis=0, **ALL), asc.unique(asc.asarray(a)[::-2], axis=0, **ALL))


def test_unique_axis_empty_and_errors(check):
    for shape, axis in (((3, 0), 0), ((0, 3), 0), ((0, 3), 1), ((2, 0, 2), 2)):
        a = np.zeros(shape, np.float32)
        assert_same(np.unique(a, axis=axis, **ALL), asc.unique(asc.asarray(a), axis=axis, **ALL))
    a = np.arange(6).reshape(2, 3)
    check(lambda xp: xp.unique(xp.asarray(a), axis=2))
    check(lambda xp: xp.unique(xp.asarray(a), axis=-3))
    check(lambda xp: xp.unique(xp.asarray(np.arange(4)), axis=1))
