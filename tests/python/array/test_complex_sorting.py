"""complex64/complex128 in sorting, searching, sets and the NaN reductions, against NumPy.

NumPy's complex order is lexicographic on (real, imag) with -0.0 == 0.0, then the NaN
classes last: [R + Rj, R + nanj, nan + Rj, nan + nanj] (R + nanj ordered by the real part,
nan + Rj by the imaginary part). Stable results are compared bit for bit (both zero signs,
which NaN class sits where); results of NumPy's unstable kinds part by part.
"""

import warnings

import numpy as np
import pytest

import pyasc as asc

CDTYPES = [np.complex64, np.complex128]
PARTS = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.5, 2.5]
# Sizes around the SIMD widths, the 2^15 chunk and the 2^16 multi-core thresholds.
SIZES = [0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 257, 1000]
BIG = [(1 << 16) + 3, (1 << 17) + 5]


def cvalues(dtype, n, seed=0, nan_frac=0.1):
    """n complex values with duplicates, both zero signs, +-Inf and NaN in either part."""
    rng = np.random.default_rng(seed)
    re = np.round(rng.standard_normal(n) * 4) / 2
    im = np.round(rng.standard_normal(n) * 4) / 2
    for part in (re, im):
        k = rng.random(n)
        part[k < nan_frac] = np.nan
        part[(k >= nan_frac) & (k < nan_frac + 0.05)] = -0.0
        part[(k >= nan_frac + 0.05) & (k < nan_frac + 0.08)] = np.inf
        part[(k >= nan_frac + 0.08) & (k < nan_frac + 0.1)] = -np.inf
    out = np.empty(n, dtype)
    out.real = re
    out.imag = im
    return out


def all_specials(dtype):
    """Every (real, imag) pair of PARTS, twice, shuffled: 128 values."""
    v = np.array([complex(r, i) for r in PARTS for i in PARTS] * 2, dtype)
    return np.random.default_rng(7).permutation(v)


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint32 if a.dtype == np.complex64 else np.uint64)


def same_bits(got, want):
    g = np.asarray(got)
    assert isinstance(got, asc.ndarray)
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    np.testing.assert_array_equal(bits(g), bits(want))


def same_parts(got, want):
    """Equal part by part (NaN where NaN, -0.0 == 0.0): NumPy's unstable kinds may order ties differently."""
    g = np.asarray(got)
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    np.testing.assert_array_equal(g.real, want.real)
    np.testing.assert_array_equal(g.imag, want.imag)


def same_int(got, want):
    g = np.asarray(got)
    assert isinstance(got, asc.ndarray)
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    np.testing.assert_array_equal(g, want)


# ------------------------------------------------------------------ order


@pytest.mark.parametrize("dtype", CDTYPES)
def test_numpy_nan_class_order(dtype):
    n = np.nan
    x = np.array([complex(n, n), complex(n, 2), complex(3, n), complex(n, -1), complex(1, n), complex(5, 1),
                  complex(-0.0, 0.0), complex(0.0, -0.0), complex(-np.inf, n), complex(n, np.inf)], dtype)
    want = np.sort(x, kind="stable")
    same_bits(asc.sort(asc.asarray(x), stable=True), want)
    # Spelled out: numbers, R + nanj by real, nan + Rj by imag, nan + nanj.
    expect = [complex(-0.0, 0.0), complex(0.0, -0.0), complex(5, 1), complex(-np.inf, n), complex(1, n),
              complex(3, n), complex(n, -1), complex(n, 2), complex(n, np.inf), complex(n, n)]
    same_bits(asc.sort(asc.asarray(x), stable=True), np.array(expect, dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_sort_argsort_stable_1d(dtype, n):
    x = cvalues(dtype, n, seed=n)
    a = asc.asarray(x)
    same_bits(asc.sort(a, kind="stable"), np.sort(x, kind="stable"))
    same_int(asc.argsort(a, kind="stable"), np.argsort(x, kind="stable"))
    same_int(asc.argsort(a, stable=True), np.argsort(x, stable=True))
    # Default kinds: NumPy's may order ties differently; values agree part by part.
    same_parts(asc.sort(a), np.sort(x))
    same_parts(x[np.asarray(asc.argsort(a))], np.sort(x))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_sort_all_special_pairs(dtype):
    x = all_specials(dtype)
    same_bits(asc.sort(asc.asarray(x), stable=True), np.sort(x, stable=True))
    same_int(asc.argsort(asc.asarray(x), stable=True), np.argsort(x, stable=True))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", BIG)
def test_sort_multicore_sizes(dtype, n):
    x = cvalues(dtype, n, seed=3, nan_frac=0.02)
    a = asc.asarray(x)
    same_bits(asc.sort(a), np.sort(x, kind="stable"))
    same_int(asc.argsort(a), np.argsort(x, kind="stable"))
    # Few distinct values: long runs of equal keys across the chunk boundaries.
    y = np.array([1 + 1j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(np.nan, 1), 2j], dtype)[np.arange(n) % 5]
    same_bits(asc.sort(asc.asarray(y)), np.sort(y, kind="stable"))
    same_int(asc.argsort(asc.asarray(y)), np.argsort(y, kind="stable"))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_sort_axes_and_views(dtype, axis):
    x = cvalues(dtype, 6 * 70, seed=11).reshape(6, 70)
    for v in (x, x[::2, ::3], x[::-1, ::-2], x.T):
        same_bits(asc.sort(asc.asarray(v), axis=axis, stable=True), np.sort(v, axis=axis, kind="stable"))
        same_int(asc.argsort(asc.asarray(v), axis=axis, stable=True), np.argsort(v, axis=axis, kind="stable"))
    # Many short rows (split over the cores).
    y = cvalues(dtype, 3000 * 40, seed=12).reshape(3000, 40)
    same_bits(asc.sort(asc.asarray(y), axis=axis, stable=True), np.sort(y, axis=axis, kind="stable"))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_sort_zero_d_and_empty(dtype):
    z = np.array(1 - 2j, dtype)
    same_bits(asc.sort(asc.asarray(z), axis=None), np.sort(z, axis=None))
    with pytest.raises(ValueError):  # NumPy's AxisError is a ValueError
        asc.sort(asc.asarray(z))
    e = np.zeros((3, 0), dtype)
    same_bits(asc.sort(asc.asarray(e)), np.sort(e))
    same_int(asc.argsort(asc.asarray(e), axis=0), np.argsort(e, axis=0))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_sort_method_inplace(dtype):
    x = cvalues(dtype, 50, seed=5).reshape(5, 10)
    a = asc.asarray(x.copy())
    a.sort(axis=0)
    same_bits(a, np.sort(x, axis=0, kind="stable"))
    same_int(asc.asarray(x).argsort(), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [1, 9, 33, 1000, (1 << 16) + 3])
def test_descending(dtype, n):
    # The array API's descending: largest first, NaN classes first, ties in input order
    # = reverse(stable ascending sort of the reversed input).
    x = cvalues(dtype, n, seed=n + 1)
    same_bits(asc.sort(asc.asarray(x), descending=True), np.sort(x[::-1], kind="stable")[::-1])
    want = n - 1 - np.argsort(x[::-1], kind="stable")[::-1]
    same_int(asc.argsort(asc.asarray(x), descending=True), want)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("kth", [0, 3, -1, [1, 3]])
def test_partition(dtype, kth):
    x = cvalues(dtype, 40, seed=2).reshape(4, 10)
    for axis in (0, 1, -1, None):
        p = np.asarray(asc.partition(asc.asarray(x), kth, axis=axis))
        want = np.partition(x, kth, axis=axis)
        ks = np.atleast_1d(kth)
        ax = -1 if axis is None else axis
        same_parts(np.take(p, ks, axis=ax), np.take(want, ks, axis=ax))
        same_parts(np.sort(p, axis=ax), np.sort(want, axis=ax))
        idx = np.asarray(asc.argpartition(asc.asarray(x), kth, axis=axis))
        src = x.reshape(-1) if axis is None else x
        same_parts(np.take(np.take_along_axis(src, idx, axis=ax), ks, axis=ax), np.take(want, ks, axis=ax))
    with pytest.raises(ValueError):
        asc.partition(asc.asarray(x), 10)


# ------------------------------------------------------------------ searchsorted


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype, side):
    a = np.sort(all_specials(dtype), kind="stable")
    v = np.concatenate([all_specials(dtype), cvalues(dtype, 500, seed=1)])
    same_int(asc.searchsorted(asc.asarray(a), asc.asarray(v), side=side), np.searchsorted(a, v, side=side))
    # sorter: a shuffled and its argsort.
    s = np.random.default_rng(0).permutation(a)
    srt = np.argsort(s, kind="stable")
    same_int(asc.searchsorted(asc.asarray(s), asc.asarray(v), side=side, sorter=asc.asarray(srt)),
             np.searchsorted(s, v, side=side, sorter=srt))
    same_int(asc.asarray(a).searchsorted(asc.asarray(v[::-3]), side=side), a.searchsorted(v[::-3], side=side))
    # 0-d and empty v, empty a, mixed real/complex operands (promotion).
    same_int(asc.searchsorted(asc.asarray(a), asc.asarray(np.array(np.nan + 1j, dtype)), side=side),
             np.asarray(np.searchsorted(a, np.array(np.nan + 1j, dtype), side=side)))
    same_int(asc.searchsorted(asc.asarray(a), asc.asarray(v[:0]), side=side), np.searchsorted(a, v[:0], side=side))
    same_int(asc.searchsorted(asc.asarray(a[:0]), asc.asarray(v), side=side), np.searchsorted(a[:0], v, side=side))
    r = np.array([-np.inf, -1.5, -0.0, 0.0, 2.5, np.inf, np.nan])
    same_int(asc.searchsorted(asc.asarray(a), asc.asarray(r), side=side), np.searchsorted(a, r, side=side))
    same_int(asc.searchsorted(asc.asarray(np.sort(r)), asc.asarray(v), side=side),
             np.searchsorted(np.sort(r), v, side=side))


# ------------------------------------------------------------------ sets


def same_inverse(values, inverse, x, want, stable):
    """The inverse indices. NumPy finds them by an unstable argsort unless return_index is
    asked for, so with NaNs distinct (equal_nan=False) the group order among copies of one
    NaN value is NumPy's accident: then check values[inverse] == x part by part and the
    exact indices of the elements without NaN."""
    if stable:
        same_int(inverse, want)
        return
    inv = np.asarray(inverse)
    assert isinstance(inverse, asc.ndarray) and inv.dtype == want.dtype and inv.shape == want.shape
    same_parts(np.asarray(values)[inv], x)
    ok = ~np.isnan(x)
    np.testing.assert_array_equal(inv[ok], want[ok])


def _unique_cases(dtype):
    n = np.nan
    base = [complex(n, 1), complex(1, n), 2 + 0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(n, n),
            complex(1, n), complex(n, -1), complex(np.inf, n), complex(-np.inf, 1), 2 + 0j, 0j]
    return [np.array(base, dtype), all_specials(dtype), cvalues(dtype, 3000, seed=9), np.array([], dtype),
            np.array([complex(n, 0)] * 3, dtype), cvalues(dtype, (1 << 16) + 7, seed=4, nan_frac=0.01)]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("equal_nan", [True, False])
def test_unique_flags(dtype, equal_nan):
    for x in _unique_cases(dtype):
        a = asc.asarray(x)
        # Values only: NumPy dedupes by hashing and keeps each group's first occurrence.
        same_parts(asc.unique(a, equal_nan=equal_nan), np.unique(x, equal_nan=equal_nan))
        for ri in (False, True):
            for rv in (False, True):
                for rc in (False, True):
                    if not (ri or rv or rc):
                        continue
                    got = asc.unique(a, return_index=ri, return_inverse=rv, return_counts=rc, equal_nan=equal_nan)
                    want = np.unique(x, return_index=ri, return_inverse=rv, return_counts=rc, equal_nan=equal_nan)
                    same_parts(got[0], want[0])
                    k = 1
                    if ri:
                        same_int(got[k], want[k])
                        k += 1
                    if rv:
                        same_inverse(got[0], got[k], x, want[k], ri or equal_nan)
                        k += 1
                    if rc:
                        same_int(got[k], want[k])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_unique_array_api(dtype):
    for x in _unique_cases(dtype):
        a = asc.asarray(x)
        got, want = asc.unique_all(a), np.unique_all(x)
        same_parts(got.values, want.values)
        same_int(got.indices, want.indices)
        same_int(got.inverse_indices, want.inverse_indices)
        same_int(got.counts, want.counts)
        got, want = asc.unique_counts(a), np.unique_counts(x)
        same_parts(got.values, want.values)
        same_int(got.counts, want.counts)
        got, want = asc.unique_inverse(a), np.unique_inverse(x)
        same_parts(got.values, want.values)
        same_inverse(got.values, got.inverse_indices, x, want.inverse_indices, False)
        # unique_values is unsorted in NumPy 2.4 ("may vary"): compare as sorted sets.
        same_parts(np.sort(np.asarray(asc.unique_values(a))), np.sort(np.unique_values(x)))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_unique_2d_views_and_0d(dtype):
    x = cvalues(dtype, 600, seed=6).reshape(20, 30)
    for v in (x, x[::-1, ::2], x.T):
        got = asc.unique(asc.asarray(v), return_inverse=True, return_counts=True)
        want = np.unique(v, return_inverse=True, return_counts=True)
        same_parts(got[0], want[0])
        same_int(got[1], want[1])
        same_int(got[2], want[2])
    z = np.array(complex(np.nan, 2), dtype)
    same_parts(asc.unique(asc.asarray(z)), np.unique(z))
    got = asc.unique_all(asc.asarray(z))
    want = np.unique_all(z)
    same_int(got.inverse_indices, want.inverse_indices)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unique_axis(dtype, axis):
    n = np.nan
    x = np.array([[1 + 1j, complex(n, 0), 2j], [1 + 1j, complex(n, 0), 2j], [complex(-0.0, 0), 1, 2j],
                  [0j, 1, 2j], [complex(1, n), 1, 0j], [-1 + 5j, 3, 3], [1 + 1j, 2, 0j]], dtype)
    for v in (x, x[::-1], x[:, ::-1]):
        for flags in [(False, False, False), (True, True, True), (False, True, False), (False, False, True)]:
            got = asc.unique(asc.asarray(v), *flags, axis=axis)
            want = np.unique(v, *flags, axis=axis)
            if not any(flags):
                got, want = (got,), (want,)
            same_parts(got[0], want[0])
            for g, w in zip(got[1:], want[1:]):
                same_int(g, w)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_isin(dtype):
    n = np.nan
    elem = np.array([complex(n, 1), 1 + 0j, complex(-0.0, -0.0), 2j, complex(1, n), np.inf + 1j, 3 + 4j,
                     complex(n, n)], dtype)
    tests = [np.array([0j, complex(n, 1), complex(1, n), np.inf + 1j, 2j], dtype), all_specials(dtype),
             np.array([], dtype), np.array([1.0, -0.0, np.nan]), np.array([1, 3], np.int32)]
    for t in tests:
        for invert in (False, True):
            same_int(asc.isin(asc.asarray(elem), asc.asarray(t), invert=invert), np.isin(elem, t, invert=invert))
            same_int(asc.isin(asc.asarray(elem.reshape(2, 4)[:, ::-1]), asc.asarray(t), invert=invert),
                     np.isin(elem.reshape(2, 4)[:, ::-1], t, invert=invert))
    # Real elements against complex tests, and a large element array (multi-core).
    r = np.array([0.0, -0.0, 1.0, np.nan, 2.0])
    same_int(asc.isin(asc.asarray(r), asc.asarray(tests[0])), np.isin(r, tests[0]))
    big = cvalues(dtype, 100000, seed=8)
    t = cvalues(dtype, 300, seed=9)
    same_int(asc.isin(asc.asarray(big), asc.asarray(t)), np.isin(big, t))


# ------------------------------------------------------------------ NaN reductions


def _nan_cases(dtype):
    n = np.nan
    x = cvalues(dtype, 5 * 7, seed=21, nan_frac=0.15).reshape(5, 7)
    x[1] = [complex(n, 1), complex(2, n), complex(n, n), complex(n, -3), complex(n, 0), complex(0, n),
            complex(n, 5)]  # an all-NaN row
    x[:, 2] = complex(1, n)  # an all-NaN column
    x[3, 4] = complex(-0.0, 0.0)
    return x


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", ["nanmax", "nanmin"])
def test_nanmax_nanmin(dtype, op):
    x = _nan_cases(dtype)
    for v in (x, x[::-1, ::2], x.T):
        for axis in (None, 0, 1, -1, (0, 1)):
            for keepdims in (False, True):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    want = getattr(np, op)(v, axis=axis, keepdims=keepdims)
                    got = getattr(asc, op)(asc.asarray(v), axis=axis, keepdims=keepdims)
                same_parts(got, np.asarray(want))
    clean = cvalues(dtype, 64, seed=1, nan_frac=0.0).reshape(8, 8)
    same_parts(getattr(asc, op)(asc.asarray(clean), axis=1), getattr(np, op)(clean, axis=1))
    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        getattr(asc, op)(asc.asarray(x), axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(asc, op)(asc.asarray(clean), axis=0)
    with pytest.raises(ValueError):
        getattr(asc, op)(asc.asarray(np.zeros(0, dtype)))
    same_parts(getattr(asc, op)(asc.asarray(np.zeros((0, 3), dtype)), axis=1),
               getattr(np, op)(np.zeros((0, 3), dtype), axis=1))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op", ["nanvar", "nanstd"])
def test_nanvar_nanstd(dtype, op):
    x = _nan_cases(dtype)
    x[np.isinf(x)] = 1.5 - 2j  # finite values: NumPy's var of Inf is NaN anyway, compare numbers
    rtol = 2e-5 if dtype == np.complex64 else 1e-12
    for v in (x, x[::-1, ::2], x.T):
        for axis in (None, 0, 1, (0, 1)):
            for keepdims in (False, True):
                for ddof in (0, 1, 2.5, 6):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)
                        want = np.asarray(getattr(np, op)(v, axis=axis, keepdims=keepdims, ddof=ddof))
                        got = getattr(asc, op)(asc.asarray(v), axis=axis, keepdims=keepdims, ddof=ddof)
                    g = np.asarray(got)
                    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype)
                    np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol, equal_nan=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(getattr(np, op)(x, axis=1, correction=1))
        got = np.asarray(getattr(asc, op)(asc.asarray(x), axis=1, correction=1))
    np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)
    assert got.dtype == want.dtype
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        getattr(asc, op)(asc.asarray(x), axis=0)
    clean = cvalues(dtype, 64, seed=1, nan_frac=0.0).reshape(8, 8)
    clean[np.isinf(clean)] = 1j
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(asc, op)(asc.asarray(clean), axis=0)
    np.testing.assert_allclose(np.asarray(got), getattr(np, op)(clean, axis=0), rtol=rtol)
    # An explicit complex dtype: NumPy sums the squares in it, so the result is complex.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(getattr(np, op)(x, axis=1, dtype=np.complex128))
        got = np.asarray(getattr(asc, op)(asc.asarray(x), axis=1, dtype=np.complex128))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32,
                                   np.float64, np.complex64, np.complex128])
def test_sort_complex(dtype):
    rng = np.random.default_rng(3)
    if np.dtype(dtype).kind == "c":
        x = cvalues(dtype, 60, seed=4).reshape(6, 10)
    elif np.dtype(dtype).kind == "f":
        x = np.array([3.0, np.nan, -0.0, 0.0, -np.inf, 1.5] * 10, dtype).reshape(6, 10)
    else:
        x = rng.integers(0, 2 if dtype == np.bool_ else 100, 60).astype(dtype).reshape(6, 10)
    want = np.sort_complex(x)
    got = asc.sort_complex(asc.asarray(x))
    assert np.asarray(got).dtype == want.dtype
    same_parts(got, want)
    same_parts(asc.sort_complex(asc.asarray(x[::-1, ::3])), np.sort_complex(x[::-1, ::3]))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("n", [2, 17, 1000, (1 << 16) + 3, (1 << 17) + 5])
@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_sort_without_nan_or_mixed_zero_signs(dtype, n, zero):
    # No NaN part and one zero sign per part: the value sort takes the raw-key path, which
    # must still give the stable result bit for bit (duplicates, +-Inf, one zero sign).
    x = cvalues(dtype, n, seed=n, nan_frac=0.0)
    x.real[x.real == 0] = zero
    x.imag[x.imag == 0] = -zero
    x[: n // 3] = x[n // 3: 2 * (n // 3)]  # duplicates
    same_bits(asc.sort(asc.asarray(x)), np.sort(x, kind="stable"))
    same_bits(asc.sort(asc.asarray(x[::-1])), np.sort(x[::-1], kind="stable"))
    y = x.copy()
    y.real[0] = -zero  # both zero signs in the real parts: the general path
    y.real[1] = zero
    same_bits(asc.sort(asc.asarray(y)), np.sort(y, kind="stable"))
