"""unique (and the array API's unique_*), isin: pyasc vs NumPy."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from conftest import ALL_DTYPES, assert_same
from test_sorting import values

BF16 = np.dtype(ml_dtypes.bfloat16)


def np_unique(a, **kw):
    """np.unique, through float64 for bfloat16 (NumPy sorts ml_dtypes arrays with its own compare)
    and for float16: NumPy 2.4.6's float16 sort on AVX512_ICL CPUs (x86-simd-sort, e.g. AMD Zen 4)
    returns unsorted runs for arrays with NaN, so np.unique keeps duplicates there (186 "unique"
    values of 150). Both casts are exact and order-preserving, so the answer is NumPy's own on any
    other CPU."""
    if np.dtype(a.dtype) in (BF16, np.dtype(np.float16)):
        dt = a.dtype
        r = np.unique(a.astype(np.float64), **kw)
        return (r[0].astype(dt),) + tuple(r[1:]) if isinstance(r, tuple) else r.astype(dt)
    return np.unique(a, **kw)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(0,), (1,), (37,), (5, 8), (3, 0), (70001,)])
def test_unique(dtype, shape):
    a = values(dtype, int(np.prod(shape)), 11).reshape(shape)
    x = asc.asarray(a)
    assert_same(np_unique(a), asc.unique(x))
    for eq in (True, False):
        exp = np_unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=eq)
        got = asc.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=eq)
        assert_same(exp, got)
        assert_same(np_unique(a, equal_nan=eq), asc.unique(x, equal_nan=eq))
    assert_same(np_unique(a, return_counts=True), asc.unique(x, return_counts=True))
    assert_same(np_unique(a, return_inverse=True), asc.unique(x, return_inverse=True))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_unique_array_api(dtype):
    a = values(dtype, 6 * 7, 12).reshape(6, 7)[:, ::-1]
    x = asc.asarray(a)
    exp = np_unique(a, return_index=True, return_inverse=True, return_counts=True, equal_nan=False)
    r = asc.unique_all(x)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    assert_same(exp, (r.values, r.indices, r.inverse_indices, r.counts))
    c = asc.unique_counts(x)
    assert_same((exp[0], exp[3]), (c.values, c.counts))
    i = asc.unique_inverse(x)
    assert_same((exp[0], exp[2]), (i.values, i.inverse_indices))
    # np.unique_values does not promise an order; ours is sorted (NaNs distinct, as np.unique(equal_nan=False)).
    assert_same(exp[0], asc.unique_values(x))
    if np.dtype(dtype) != BF16:
        assert_same(np.sort(np.unique_values(a)), asc.unique_values(x))


def test_unique_zero_signs_and_nans():
    a = np.array([0.0, np.nan, -0.0, 1.0, -np.nan, 0.0, -0.0])
    v, idx, inv, cnt = asc.unique(asc.asarray(a), return_index=True, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(np.asarray(idx), [0, 3, 1])
    np.testing.assert_array_equal(np.asarray(cnt), [4, 1, 2])
    np.testing.assert_array_equal(np.asarray(inv), [0, 2, 0, 1, 2, 0, 0])
    assert not np.signbit(np.asarray(v)[0])  # the first zero in input order is +0.0
    r = asc.unique_all(asc.asarray(a))
    np.testing.assert_array_equal(np.asarray(r.counts), [4, 1, 1, 1])


def test_unique_axis_supported():
    # Full coverage in test_unique_axis.py; here the basic call no longer raises.
    a = np.array([[1, 2], [1, 2], [0, 5]])
    assert_same(np.unique(a, axis=0), asc.unique(asc.asarray(a), axis=0))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("invert", [False, True])
def test_isin(check, dtype, invert):
    e = values(dtype, 40, 13).reshape(5, 8)
    t = values(dtype, 15, 14)
    if np.dtype(dtype) == BF16:
        exp = np.isin(e.astype(np.float64), t.astype(np.float64), invert=invert)
        np.testing.assert_array_equal(np.asarray(asc.isin(asc.asarray(e), asc.asarray(t), invert=invert)), exp)
        return
    check(lambda xp: xp.isin(xp.asarray(e), xp.asarray(t), invert=invert))
    check(lambda xp: xp.isin(xp.asarray(e)[::-1, ::3], xp.asarray(t.reshape(3, 5)), invert=invert))
    check(lambda xp: xp.isin(xp.asarray(e), xp.asarray(t[:0]), invert=invert))
    check(lambda xp: xp.isin(xp.asarray(e[:0]), xp.asarray(t), invert=invert))


def test_isin_special_and_mixed(check):
    e = np.array([np.nan, 0.0, -0.0, np.inf, 2.0, 3.0])
    t = np.array([np.nan, -0.0, np.inf, 2])
    check(lambda xp: xp.isin(xp.asarray(e), xp.asarray(t)))
    check(lambda xp: xp.isin(xp.asarray(np.array([1, 2, 300], np.int16)), xp.asarray(np.array([2.0, 300.0]))))
    check(lambda xp: xp.isin(xp.asarray(np.array([1, 255], np.uint8)), xp.asarray(np.array([-1, 127], np.int8))))
    check(lambda xp: xp.isin(xp.asarray(np.float32(2.0)), xp.asarray(t)))
    check(lambda xp: xp.isin(xp.asarray(e), xp.asarray(t), kind="bogus"))
    big = np.random.default_rng(0).integers(0, 1000, 200000)
    check(lambda xp: xp.isin(xp.asarray(big), xp.asarray(np.arange(0, 1000, 7))))


def _few_distinct(dtype, n, k, seed):
    """n values drawn from k distinct ones (with both zero signs, NaN, +-Inf for floats; the
    extreme integers), in random order."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        pool = np.concatenate([rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, k - 2),
                               [info.min, info.max]]).astype(dt)
    else:
        pool = np.concatenate([np.round(rng.standard_normal(k - 5) * 50) / 4,
                               [0.0, -0.0, np.nan, np.inf, -np.inf]]).astype(dt)
    return pool[rng.integers(0, k, n)]


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if np.dtype(d).itemsize >= 2],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n,k", [(4095, 50), (4096, 50), (70001, 300), (300000, 5000), (300000, 290000)])
def test_unique_hashed_values_and_counts(dtype, n, k):
    # unique() without index/inverse dedupes by hashing (per-core tables) while the number of
    # distinct values stays small, else it sorts; both give NumPy's answers.
    a = _few_distinct(dtype, n, k, n + k)
    x = asc.asarray(a)
    for eq in (True, False):
        assert_same(np_unique(a, equal_nan=eq), asc.unique(x, equal_nan=eq))
        assert_same(np_unique(a, return_counts=True, equal_nan=eq), asc.unique(x, return_counts=True, equal_nan=eq))
    v = np.asarray(asc.unique_values(x)).astype(np.float64)  # unsorted in NumPy: compare sorted
    np.testing.assert_array_equal(np.sort(v), np.sort(np_unique(a, equal_nan=False).astype(np.float64)))
    c = asc.unique_counts(x)
    exp = np_unique(a, return_counts=True, equal_nan=False)
    assert_same(exp, (c.values, c.counts))
    # Non-contiguous and reversed views.
    assert_same(np_unique(a[::-3]), asc.unique(x[::-3]))


def test_unique_hashed_keeps_first_zero_and_nan():
    # NumPy 2.4's hashing unique keeps a group's first occurrence: the sign of the zero and
    # the NaN's bits show which one.
    for first in (0.0, -0.0):
        a = np.array([first, -first, 1.0] * 3000, np.float32)
        u = np.asarray(asc.unique(asc.asarray(a)))
        e = np.unique(a)
        assert u.tobytes() == e.tobytes()
        assert np.signbit(u[0]) == np.signbit(first)
    bits = np.array([0x7FC00001, 0x7FC00002, 0xFFC00000], np.uint32)
    a = np.concatenate([np.full(5000, 2.0, np.float32), bits.view(np.float32)] * 2)
    u = np.asarray(asc.unique(asc.asarray(a)))
    assert u.view(np.uint32).tolist() == [np.float32(2.0).view(np.uint32), 0x7FC00001]
    u = np.asarray(asc.unique(asc.asarray(a), equal_nan=False))
    assert u.view(np.uint32).tolist()[1:] == bits.tolist() * 2
    r = asc.unique(asc.asarray(a), return_counts=True)
    assert np.asarray(r[1]).tolist() == [10000, 6]
