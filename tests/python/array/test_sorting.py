"""sort, argsort, partition, argpartition: pyasc vs NumPy (stable order, NaN last, -0.0 == 0.0)."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from conftest import ALL_DTYPES, FLOAT_DTYPES

BF16 = np.dtype(ml_dtypes.bfloat16)
SPECIAL = [0.0, -0.0, np.nan, 1.0, -1.5, np.inf, -np.inf, -0.0, 0.0, np.nan, 2.5, 2.5]


def values(dtype, n, seed=0):
    """n values of dtype with duplicates; floats get NaN, +-Inf and both zeros."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, -50), min(info.max, 50) + 1, n).astype(dt)
        if n >= 2:
            v[:2] = [info.max, info.min]
        return v
    v = np.round(rng.standard_normal(n) * 20) / 4
    k = min(n, len(SPECIAL))
    pos = rng.permutation(n)[:k]
    v[pos] = SPECIAL[:k]
    return v.astype(dt)


def stable_argsort(a, axis=-1):
    """NumPy's stable argsort, through float64 for the 16-bit floats (same order, NaN last)."""
    dt = np.dtype(a.dtype)
    key = a.astype(np.float64) if dt in (BF16, np.dtype(np.float16)) else a
    return np.argsort(key, axis=axis, kind="stable")


def stable_sort(a, axis=-1):
    if axis is None:
        return stable_sort(a.ravel(), 0)
    return np.take_along_axis(a, stable_argsort(a, axis), axis=axis)


def bits(a):
    """Exact bit patterns (tells -0.0 from 0.0)."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.dtype != np.bool_ else a


LENGTHS = [0, 1, 2, 15, 16, 17, 64, 65, 1000, 70001]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", LENGTHS)
def test_sort_1d_bit_exact_stable(dtype, n):
    a = values(dtype, n, n)
    got = asc.sort(asc.asarray(a))
    assert got.dtype == a.dtype and got.shape == a.shape
    np.testing.assert_array_equal(bits(np.asarray(got)), bits(stable_sort(a)))
    idx = asc.argsort(asc.asarray(a))
    assert idx.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(idx), stable_argsort(a))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_sort_matches_numpy(check, dtype):
    a = values(dtype, 300, 1)
    if np.dtype(dtype) == BF16:
        # NumPy's own bfloat16 sort does not put NaN last (ml_dtypes' compare): go through float64.
        np.testing.assert_array_equal(bits(np.asarray(asc.sort(asc.asarray(a), kind="stable"))), bits(stable_sort(a)))
        return
    check(lambda xp: xp.sort(xp.asarray(a)))
    check(lambda xp: xp.sort(xp.asarray(a), kind="stable"))
    check(lambda xp: xp.sort(xp.asarray(a), stable=True))
    check(lambda xp: xp.argsort(xp.asarray(a), kind="stable"))


@pytest.mark.parametrize("dtype", [np.int16, np.float32, np.float64, ml_dtypes.bfloat16, np.uint8],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [0, 1, 2, -1, None])
def test_sort_axes_3d(dtype, axis):
    a = values(dtype, 4 * 5 * 6, 2).reshape(4, 5, 6)
    got = asc.sort(asc.asarray(a), axis=axis)
    np.testing.assert_array_equal(bits(np.asarray(got)), bits(stable_sort(a, axis)))
    gi = asc.argsort(asc.asarray(a), axis=axis)
    ref = stable_argsort(a.ravel() if axis is None else a, 0 if axis is None else axis)
    np.testing.assert_array_equal(np.asarray(gi), ref)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.float16], ids=lambda d: np.dtype(d).name)
def test_sort_views(dtype):
    a = values(dtype, 6 * 40, 3).reshape(6, 40)
    for view in (lambda x: x[::-1, ::-2], lambda x: x.T, lambda x: x[1:5, 3:30:3], lambda x: x[:, ::-1]):
        got = asc.sort(view(asc.asarray(a)), axis=-1)
        np.testing.assert_array_equal(bits(np.asarray(got)), bits(stable_sort(view(a), -1)))
        got0 = asc.argsort(view(asc.asarray(a)), axis=0)
        np.testing.assert_array_equal(np.asarray(got0), stable_argsort(view(a), 0))


@pytest.mark.parametrize("rows,n", [(1, 300000), (3, 150000), (200, 1000), (5000, 3)])
def test_sort_large_parallel_paths(rows, n):
    a = np.random.default_rng(rows).standard_normal((rows, n)).astype(np.float32)
    a.ravel()[:7] = [np.nan, 0.0, -0.0, np.inf, -np.inf, np.nan, -0.0]
    np.testing.assert_array_equal(bits(np.asarray(asc.sort(asc.asarray(a)))), bits(stable_sort(a)))
    np.testing.assert_array_equal(np.asarray(asc.argsort(asc.asarray(a))), stable_argsort(a))
    i64 = np.random.default_rng(1).integers(-1000, 1000, (rows, n))
    np.testing.assert_array_equal(np.asarray(asc.argsort(asc.asarray(i64))), stable_argsort(i64))
    np.testing.assert_array_equal(np.asarray(asc.sort(asc.asarray(i64))), np.sort(i64))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [0, 1])
def test_descending_is_array_api_stable(dtype, axis):
    # The array API (and array-api-strict): flip(sort(flip(x))), NaN first, ties in input order.
    a = values(dtype, 7 * 9, 4).reshape(7, 9)
    ref = np.flip(stable_sort(np.flip(a, axis), axis), axis)
    got = asc.sort(asc.asarray(a), axis=axis, descending=True)
    np.testing.assert_array_equal(bits(np.asarray(got)), bits(ref))
    n = a.shape[axis]
    ref_i = n - 1 - np.flip(stable_argsort(np.flip(a, axis), axis), axis)
    np.testing.assert_array_equal(np.asarray(asc.argsort(asc.asarray(a), axis=axis, descending=True)), ref_i)


def test_sort_0d_and_empty(check):
    check(lambda xp: xp.sort(xp.asarray(np.float32(3.0)), axis=None))
    check(lambda xp: xp.sort(xp.asarray(np.float32(3.0))))  # AxisError: ValueError and IndexError
    check(lambda xp: xp.argsort(xp.asarray(np.float32(3.0)), axis=None))
    check(lambda xp: xp.sort(xp.asarray(np.zeros((3, 0, 2), np.int8)), axis=1))
    check(lambda xp: xp.argsort(xp.asarray(np.zeros((0, 4), np.float64)), axis=0))
    check(lambda xp: xp.sort(xp.asarray(np.zeros((2, 3))), axis=2))


def test_sort_keyword_errors(check):
    a = np.arange(5.0)
    check(lambda xp: xp.sort(xp.asarray(a), kind="bogus"))
    check(lambda xp: xp.sort(xp.asarray(a), kind="stable", stable=True))
    check(lambda xp: xp.argsort(xp.asarray(a), order="x"))
    for k in ("quicksort", "mergesort", "heapsort", "stable"):
        check(lambda xp: xp.sort(xp.asarray(a[::-1]), kind=k))


def test_sort_methods_in_place():
    a = values(np.float64, 50, 5)
    x = asc.array(a)
    assert x.sort() is None
    np.testing.assert_array_equal(bits(np.asarray(x)), bits(stable_sort(a)))
    np.testing.assert_array_equal(np.asarray(asc.asarray(a).argsort()), stable_argsort(a))
    b = values(np.int32, 60, 6).reshape(6, 10)
    y = asc.array(b)
    y.sort(axis=0)
    np.testing.assert_array_equal(np.asarray(y), np.sort(b, axis=0))


def _check_partition(a, kth, axis, got_values, got_index):
    ref = np.partition(a, kth, axis=axis)
    ks = np.atleast_1d(kth)
    gv = np.asarray(got_values)
    for k in ks:
        np.testing.assert_array_equal(np.take(gv, [k], axis=axis), np.take(ref, [k], axis=axis))
        lo = np.take(gv, range(0, k % a.shape[axis]), axis=axis)
        assert (lo <= np.take(gv, [k], axis=axis)).all()
    gi = np.asarray(got_index)
    np.testing.assert_array_equal(np.take_along_axis(a, gi, axis=axis), gv)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.uint8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("kth", [0, 3, -1, (1, 5)])
def test_partition(dtype, kth):
    a = values(dtype, 8 * 7, 7).reshape(8, 7)
    if np.dtype(dtype).kind == "f":
        a = np.nan_to_num(a, nan=5.0)
    for axis in (0, 1):
        _check_partition(a, kth, axis, asc.partition(asc.asarray(a), kth, axis=axis),
                         asc.argpartition(asc.asarray(a), kth, axis=axis))


def test_partition_errors(check):
    a = np.arange(6.0)
    check(lambda xp: xp.partition(xp.asarray(a), 6))
    check(lambda xp: xp.argpartition(xp.asarray(a), -7))
    check(lambda xp: xp.partition(xp.asarray(a), 1.5))


def test_sort_bool_and_half_specials():
    a = np.array([np.nan, -np.inf, 0.0, -0.0, 65504.0, -np.nan, 1e-7], np.float16)
    for dt in (np.float16, ml_dtypes.bfloat16):
        x = a.astype(dt)
        np.testing.assert_array_equal(bits(np.asarray(asc.sort(asc.asarray(x)))), bits(stable_sort(x)))
    b = np.array([True, False, True, True, False])
    np.testing.assert_array_equal(np.asarray(asc.sort(asc.asarray(b))), np.sort(b))
    np.testing.assert_array_equal(np.asarray(asc.argsort(asc.asarray(b))), np.argsort(b, kind="stable"))
