"""searchsorted, nonzero, flatnonzero, argwhere, where(cond), count_nonzero, bincount, digitize,
histogram: pyasc vs NumPy."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from conftest import ALL_DTYPES, INT_DTYPES
from test_sorting import values

BF16 = np.dtype(ml_dtypes.bfloat16)


def _sorted_f64_key(a):
    return np.sort(a.astype(np.float64)) if np.dtype(a.dtype) in (BF16, np.dtype(np.float16)) else np.sort(a)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(check, dtype, side):
    a = np.sort(values(dtype, 40, 1)) if np.dtype(dtype) != BF16 else \
        values(dtype, 40, 1)[np.argsort(values(dtype, 40, 1).astype(np.float64), kind="stable")]
    v = values(dtype, 33, 2)
    if np.dtype(dtype) == BF16:
        # NumPy has no bfloat16 searchsorted loop of its own order; compare through float64.
        ref = np.searchsorted(a.astype(np.float64), v.astype(np.float64), side=side)
        np.testing.assert_array_equal(np.asarray(asc.searchsorted(asc.asarray(a), asc.asarray(v), side=side)), ref)
        return
    check(lambda xp: xp.searchsorted(xp.asarray(a), xp.asarray(v), side=side))
    check(lambda xp: xp.searchsorted(xp.asarray(a), xp.asarray(v.reshape(3, 11)[:, ::-1]), side=side))
    check(lambda xp: xp.searchsorted(xp.asarray(a), xp.asarray(v[0]), side=side))
    check(lambda xp: xp.asarray(a).searchsorted(xp.asarray(v), side=side))


def test_searchsorted_sorter_mixed_and_errors(check):
    a = np.array([3.0, np.nan, -1.0, 0.0, -0.0, 7.5, 2.0])
    v = np.array([-0.0, 0.0, 2.0, np.nan, np.inf, -5.0, 7.5])
    s = np.argsort(a, kind="stable")
    for side in ("left", "right"):
        check(lambda xp: xp.searchsorted(xp.asarray(a), xp.asarray(v), side=side, sorter=xp.asarray(s)))
    ai = np.array([1, 3, 5, 7], np.int8)
    check(lambda xp: xp.searchsorted(xp.asarray(ai), xp.asarray(np.array([2.5, 300.0, -1e9]))))
    check(lambda xp: xp.searchsorted(xp.asarray(ai), 4))
    check(lambda xp: xp.searchsorted(xp.asarray(np.zeros(0, np.float32)), xp.asarray(v)))
    check(lambda xp: xp.searchsorted(xp.asarray(ai), xp.asarray(np.zeros(0, np.int8))))
    check(lambda xp: xp.searchsorted(xp.asarray(ai), 2, side="middle"))
    check(lambda xp: xp.searchsorted(xp.asarray(np.zeros((2, 2))), 1.0))
    check(lambda xp: xp.searchsorted(xp.asarray(ai), 2, sorter=xp.asarray(np.array([0, 1, 2]))))
    with pytest.raises(ValueError, match="Sorter index out of range"):  # NumPy only notices when it reads it
        asc.searchsorted(asc.asarray(ai), 2, sorter=asc.asarray(np.array([0, 1, 2, 9])))
    with pytest.raises(TypeError):
        asc.searchsorted(asc.asarray(ai), 2, sorter=asc.asarray(np.array([0.0, 1, 2, 3])))


def test_searchsorted_large_parallel():
    a = np.sort(np.random.default_rng(0).standard_normal(5000))
    v = np.random.default_rng(1).standard_normal(200000)
    for side in ("left", "right"):
        np.testing.assert_array_equal(np.asarray(asc.searchsorted(asc.asarray(a), asc.asarray(v), side=side)),
                                      np.searchsorted(a, v, side=side))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_nonzero_family(check, dtype):
    a = values(dtype, 4 * 9, 3).reshape(4, 9)
    if np.dtype(dtype).kind not in "b":
        a[a.astype(np.float64) > 5] = 0  # plenty of zeros (and -0.0 stays a zero)
    check(lambda xp: xp.nonzero(xp.asarray(a)))
    check(lambda xp: xp.nonzero(xp.asarray(a)[::-1, ::2]))
    check(lambda xp: xp.flatnonzero(xp.asarray(a).T))
    check(lambda xp: xp.argwhere(xp.asarray(a)))
    check(lambda xp: xp.where(xp.asarray(a)))
    check(lambda xp: xp.asarray(a).nonzero())
    check(lambda xp: xp.count_nonzero(xp.asarray(a)))
    for axis in (0, 1, -1, (0, 1)):
        check(lambda xp: xp.count_nonzero(xp.asarray(a), axis=axis))
        check(lambda xp: xp.count_nonzero(xp.asarray(a), axis=axis, keepdims=True))
    check(lambda xp: xp.count_nonzero(xp.asarray(a), keepdims=True))


def test_nonzero_special_values_and_shapes(check):
    f = np.array([0.0, -0.0, np.nan, np.inf, 1e-300, -np.inf])
    check(lambda xp: xp.nonzero(xp.asarray(f)))
    check(lambda xp: xp.count_nonzero(xp.asarray(f)))
    check(lambda xp: xp.nonzero(xp.asarray(np.zeros((0, 3)))))
    check(lambda xp: xp.argwhere(xp.asarray(np.zeros((3, 0, 2)))))
    check(lambda xp: xp.argwhere(xp.asarray(np.float64(2.0))))
    check(lambda xp: xp.argwhere(xp.asarray(np.float64(0.0))))
    check(lambda xp: xp.nonzero(xp.asarray(np.float64(1.0))))  # NumPy 2: ValueError on 0-d
    check(lambda xp: xp.count_nonzero(xp.asarray(np.float64(1.0))))
    check(lambda xp: xp.count_nonzero(xp.asarray(np.zeros((2, 3))), axis=2))
    check(lambda xp: xp.where(xp.asarray(np.array([True, False])), 1, 2))
    big = np.zeros((3, 100003), np.float32)
    big[1, ::997] = 1.0
    big[2, -1] = np.nan
    check(lambda xp: xp.nonzero(xp.asarray(big)))
    check(lambda xp: xp.count_nonzero(xp.asarray(big)))
    check(lambda xp: xp.count_nonzero(xp.asarray(big), axis=1))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_bincount(check, dtype):
    x = np.random.default_rng(2).integers(0, 2 if dtype is np.bool_ else 20, 100).astype(dtype)
    w = np.random.default_rng(3).standard_normal(100).astype(np.float32)
    check(lambda xp: xp.bincount(xp.asarray(x)))
    check(lambda xp: xp.bincount(xp.asarray(x), minlength=30))
    check(lambda xp: xp.bincount(xp.asarray(x), weights=xp.asarray(w)))
    check(lambda xp: xp.bincount(xp.asarray(x)[::-3], weights=xp.asarray(w)[::3], minlength=3))


def test_bincount_errors_and_empty(check):
    check(lambda xp: xp.bincount(xp.asarray(np.zeros(0, np.int64))))
    check(lambda xp: xp.bincount(xp.asarray(np.zeros(0, np.int64)), minlength=4))
    check(lambda xp: xp.bincount(xp.asarray(np.array([1, -1]))))
    check(lambda xp: xp.bincount(xp.asarray(np.array([1.0, 2.0]))))
    check(lambda xp: xp.bincount(xp.asarray(np.array([1, 2], np.uint64))))
    check(lambda xp: xp.bincount(xp.asarray(np.array([1, 2 ** 63], np.uint64))))
    check(lambda xp: xp.bincount(xp.asarray(np.array([1, 2])), minlength=-1))
    check(lambda xp: xp.bincount(xp.asarray(np.array([[1, 2]]))))
    check(lambda xp: xp.bincount(xp.asarray(np.array([1, 2])), weights=xp.asarray(np.ones(3))))


@pytest.mark.parametrize("right", [False, True])
def test_digitize(check, right):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 3.0, 4.0, np.nan, -np.inf])
    inc = np.array([0.0, 1.0, 2.5, 3.0])
    check(lambda xp: xp.digitize(xp.asarray(x), xp.asarray(inc), right=right))
    check(lambda xp: xp.digitize(xp.asarray(x), xp.asarray(inc[::-1].copy()), right=right))
    check(lambda xp: xp.digitize(xp.asarray(np.arange(10, dtype=np.int16)), xp.asarray(np.array([2, 5, 5, 8])),
                                 right=right))
    check(lambda xp: xp.digitize(xp.asarray(x), xp.asarray(np.array([1.0, 0.0, 2.0]))))


def test_histogram(check):
    rng = np.random.default_rng(5)
    a = rng.standard_normal(1000)
    check(lambda xp: xp.histogram(xp.asarray(a)))
    check(lambda xp: xp.histogram(xp.asarray(a), bins=7, range=(-1, 2)))
    check(lambda xp: xp.histogram(xp.asarray(a), bins=xp.asarray(np.array([-3.0, -1.0, 0.0, 0.5, 3.0]))))
    w = rng.random(1000)
    check(lambda xp: xp.histogram(xp.asarray(a), bins=5, weights=xp.asarray(w)))
    check(lambda xp: xp.histogram(xp.asarray(a), bins=5, density=True))
    check(lambda xp: xp.histogram(xp.asarray(np.arange(10, dtype=np.int32)), bins=3))
    check(lambda xp: xp.histogram(xp.asarray(np.ones(4, np.float32)), bins=4))
    check(lambda xp: xp.histogram(xp.asarray(np.zeros(0)), bins=3))
    check(lambda xp: xp.histogram(xp.asarray(a), bins=0))
    check(lambda xp: xp.histogram(xp.asarray(a), range=(2, 1)))
    check(lambda xp: xp.histogram(xp.asarray(np.array([1.0, np.nan]))))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_count_nonzero_ints(check, dtype):
    a = values(dtype, 3 * 70000, 9).reshape(3, 70000)
    a[:, ::3] = 0
    check(lambda xp: xp.count_nonzero(xp.asarray(a)))
    check(lambda xp: xp.count_nonzero(xp.asarray(a), axis=0))
