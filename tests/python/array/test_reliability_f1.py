"""Regression tests of fuzz findings (issue 20 item 15, helper f1): inputs where pyasc
answered what NumPy rejects (histogramdd/histogram2d sample shapes and weights, can_cast,
promote_types, identity dtype, ldexp loops, nanstd dtype, quantile q, clip of bool,
asarray_chkfinite order, common_type of a scalar), wrong results (var/nanvar with a complex
dtype and no degrees of freedom, nanmedian of complex NaN, polyfit of a float degree, windows
of an int beyond int64) and hangs on huge broadcast views (extract, roll). Every expectation
is NumPy's own result or exception class, computed here."""

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

BF16 = np.dtype(ml_dtypes.bfloat16)


def _both(fn_np, fn_asc):
    """(numpy outcome, pyasc outcome): the value, or the exception."""
    out = []
    for f in (fn_np, fn_asc):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out.append(f())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(e)
    return out


def _same_error(fn_np, fn_asc):
    e, g = _both(fn_np, fn_asc)
    assert isinstance(e, Exception), f"NumPy accepted: {e!r}"
    assert isinstance(g, type(e)) or any(isinstance(g, b) for b in type(e).__mro__[1:]
                                         if b.__module__ == "builtins" and b not in (Exception, BaseException, object)), \
        f"numpy {type(e).__name__}: {e} | pyasc {type(g).__name__}: {g}"
    assert isinstance(g, asc.AscendError) or type(g) in (ValueError, TypeError), repr(g)


def _same_value(e, g):
    g = np.asarray(g.numpy() if isinstance(g, asc.ndarray) else g)
    e = np.asarray(e)
    assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
    if e.dtype.kind == "c":
        for pe, pg in ((e.real, g.real), (e.imag, g.imag)):
            np.testing.assert_array_equal(np.isnan(pg), np.isnan(pe))
            np.testing.assert_allclose(pg[~np.isnan(pe)], pe[~np.isnan(pe)], rtol=1e-6)
    else:
        np.testing.assert_allclose(g, e, rtol=1e-6, equal_nan=True)


# ------------------------------------------------------------------ histogramdd / histogram2d

_SAMPLES = [
    np.arange(24.0).reshape(2, 3, 4),  # 3-d: NumPy's "too many values to unpack"
    np.ones((1, 0, 2)),
    np.ones((3, 0)),  # D = 0
    np.ones((0, 0)),
]


@pytest.mark.parametrize("i", range(len(_SAMPLES)))
def test_histogramdd_rejects_sample_shapes(i):
    s = _SAMPLES[i]
    _same_error(lambda: np.histogramdd(s), lambda: asc.histogramdd(asc.asarray(s)))


@pytest.mark.parametrize("sample", [np.arange(5.0), np.float64(3.0), [1.0, 2.0, 3.0], [[1.0, 2, 3], [4, 5, 6]]])
def test_histogramdd_reads_other_samples_as_numpy(sample):
    e_h, e_edges = np.histogramdd(sample)
    s = asc.asarray(sample) if isinstance(sample, np.ndarray) else sample
    g_h, g_edges = asc.histogramdd(s)
    _same_value(e_h, g_h)
    assert len(g_edges) == len(e_edges)
    for e, g in zip(e_edges, g_edges):
        _same_value(e, g)


@pytest.mark.parametrize("weights", [np.ones((4, 1)), np.ones(3), np.ones(4, complex), np.float64(1.0)])
def test_histogramdd_weights_checked_as_bincount(weights):
    s = np.arange(8.0).reshape(4, 2)
    _same_error(lambda: np.histogramdd(s, weights=weights),
                lambda: asc.histogramdd(asc.asarray(s), weights=asc.asarray(weights)))


def test_histogramdd_weights_of_no_samples_are_ignored():
    s, w = np.ones((0, 2)), np.ones((4, 0, 0), complex)
    e = np.histogramdd(s, weights=w)[0]
    _same_value(e, asc.histogramdd(asc.asarray(s), weights=asc.asarray(w))[0])


@pytest.mark.parametrize("x,y", [
    (np.float64(1.0), np.float64(2.0)),  # len() of unsized object
    (np.ones(3), np.ones(4)),  # x and y must have the same length
    (np.ones((2, 2)), np.ones((2, 2))),  # a 3-d sample
    (np.ones((0, 5)), np.ones((0, 0))),  # inhomogeneous
    (np.ones((2, 2), bool), np.ones((2, 2), bool)),
])
def test_histogram2d_rejects_as_numpy(x, y):
    _same_error(lambda: np.histogram2d(x, y), lambda: asc.histogram2d(asc.asarray(x), asc.asarray(y)))


def test_histogram2d_promotes_the_coordinates_together():
    x, y = np.arange(3, dtype=np.int16), np.arange(3, dtype=np.uint64)
    e = np.histogram2d(x, y)
    g = asc.histogram2d(asc.asarray(x), asc.asarray(y))
    for ee, gg in zip(e, g):
        _same_value(ee, gg)


# ------------------------------------------------------------------ dtype queries and arguments


@pytest.mark.parametrize("case", [
    ("can_cast", lambda xp, a: xp.can_cast(np.uint32, a)),
    ("identity", lambda xp, a: xp.identity(2, dtype=a)),
    ("eye", lambda xp, a: xp.eye(2, dtype=a)),
    ("tri", lambda xp, a: xp.tri(2, dtype=a)),
    ("linspace", lambda xp, a: xp.linspace(0, 1, 3, dtype=a)),
    ("promote_types", lambda xp, a: xp.promote_types(a, np.float32)),
])
def test_dtype_arguments_reject_arrays(case):
    _, f = case
    n = np.ones(3, bool)
    _same_error(lambda: f(np, n), lambda: f(asc, asc.asarray(n)))


def test_promote_types_rejects_none():
    _same_error(lambda: np.promote_types(None, np.uint64), lambda: asc.promote_types(None, np.uint64))


def test_common_type_rejects_scalars():
    e, g = _both(lambda: np.common_type(np.nan, np.ones(2, np.float16)),
                 lambda: asc.common_type(np.nan, asc.ones(2, dtype=np.float16)))
    assert isinstance(e, AttributeError)  # NumPy reads a.dtype
    assert isinstance(g, asc.AscendError) and isinstance(g, TypeError)


@pytest.mark.parametrize("order", ["bogus", 3])
def test_asarray_chkfinite_checks_order(order):
    _same_error(lambda: np.asarray_chkfinite(1j, order=order), lambda: asc.asarray_chkfinite(1j, order=order))


# ------------------------------------------------------------------ ufunc loops


@pytest.mark.parametrize("d1,d2", [("uint64", "uint64"), ("float64", "complex64"), ("complex64", "int8"),
                                   ("int16", "complex64")])
def test_ldexp_has_no_loop(d1, d2):
    a, b = np.ones(3, d1), np.ones(3, d2)
    _same_error(lambda: np.ldexp(a, b), lambda: asc.ldexp(asc.asarray(a), asc.asarray(b)))


@pytest.mark.parametrize("d1,d2", [("int8", "uint32"), ("float32", "int64"), ("bool", "int8"), ("uint64", "bool")])
def test_ldexp_loops_kept(d1, d2):
    a, b = np.arange(3).astype(d1), np.arange(3).astype(d2)
    _same_value(np.ldexp(a, b), asc.ldexp(asc.asarray(a), asc.asarray(b)))


def test_clip_of_bool_without_bounds_is_numpys_type_error():
    a = np.ones((2, 1, 0), bool)
    _same_error(lambda: np.clip(a), lambda: asc.clip(asc.asarray(a)))
    _same_value(np.clip(np.arange(3, dtype=np.int8)), asc.clip(asc.arange(3, dtype=np.int8)))


# ------------------------------------------------------------------ statistics


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_nanstd_inexact_input_needs_inexact_dtype(dtype):
    a = np.ones((2, 3), np.float32)
    for name in ("nanstd", "nanvar"):
        _same_error(lambda: getattr(np, name)(a, dtype=dtype), lambda: getattr(asc, name)(asc.asarray(a), dtype=dtype))


@pytest.mark.parametrize("name", ["var", "std", "nanvar", "nanstd"])
@pytest.mark.parametrize("shape,ddof,axis", [((5, 0, 3), 0, None), ((5, 0, 3), 0, 1), ((2, 3), 3, 1), ((2, 3), 2, 1)])
@pytest.mark.parametrize("src", ["bool", "int32", "float32", "complex64"])
def test_var_complex_dtype_without_degrees_of_freedom(name, shape, ddof, axis, src):
    a = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(src)
    e, g = _both(lambda: getattr(np, name)(a, axis=axis, dtype=np.complex64, ddof=ddof),
                 lambda: getattr(asc, name)(asc.asarray(a), axis=axis, dtype=np.complex64, ddof=ddof))
    _same_value(e, g)


def test_quantile_of_an_empty_2d_q():
    a, q = np.arange(9.0).reshape(3, 3, 1), np.ones((3, 0))
    _same_error(lambda: np.quantile(a, q), lambda: asc.quantile(asc.asarray(a), asc.asarray(q)))
    q1 = np.ones((0,))  # a 1-d empty q is valid
    _same_value(np.quantile(a, q1), asc.quantile(asc.asarray(a), asc.asarray(q1)))


_CNAN = np.array([[complex(np.nan, 1), complex(2, np.nan)], [complex(np.nan, 3), complex(4, np.nan)]])


@pytest.mark.parametrize("a,kw", [
    (_CNAN, {}), (_CNAN, dict(axis=0)), (_CNAN, dict(axis=1)), (_CNAN, dict(axis=(0, 1))), (_CNAN[0], {}),
    (_CNAN, dict(keepdims=True)), (np.array(complex(np.nan, np.nan)), {}),
    (np.ones((0, 0), np.complex64), {}), (np.ones((0, 3), complex), dict(axis=0)),
    (np.full((2, 700), complex(1, np.nan)), dict(axis=1)),
])
def test_nanmedian_complex_nan(a, kw):
    e, g = _both(lambda: np.nanmedian(a, **kw), lambda: asc.nanmedian(asc.asarray(a), **kw))
    _same_value(e, g)


def test_polyfit_float_degree():
    x = np.array([-2.0 + 3j, 4.9 - 4.7j, -1.1 - 5.7j])
    y = np.array([4294967294, 1, 4294967294], np.uint32)
    e, g = _both(lambda: np.polyfit(x, y, 1.5), lambda: asc.polyfit(asc.asarray(x), asc.asarray(y), 1.5))
    assert np.asarray(g.numpy()).shape == e.shape
    np.testing.assert_allclose(g.numpy(), e, rtol=1e-6)


@pytest.mark.parametrize("name", ["hamming", "hanning", "bartlett", "blackman"])
@pytest.mark.parametrize("m", [-2 ** 63 - 1, 2 ** 64])
def test_windows_of_ints_beyond_int64(name, m):
    e, g = _both(lambda: getattr(np, name)(m), lambda: getattr(asc, name)(m))
    if isinstance(e, Exception):  # 2**64: arange's ValueError
        _same_error(lambda: getattr(np, name)(m), lambda: getattr(asc, name)(m))
    else:  # an empty object array: pyasc has no object dtype, a clear TypeError
        assert e.dtype == object and e.size == 0
        assert isinstance(g, asc.AscendError) and isinstance(g, TypeError)


# ------------------------------------------------------------------ huge broadcast views


def test_extract_of_a_huge_broadcast_view_fails_fast():
    cond = asc.broadcast_to(asc.ones(1, dtype=np.int8), (2 ** 44,))
    with pytest.raises(MemoryError):  # NumPy's ravel copy cannot be allocated
        asc.extract(cond, asc.ones((0, 2, 0), dtype=np.uint32))
    c = np.array([0, 1, 1, 0], bool)
    _same_value(np.extract(c, np.arange(4)), asc.extract(asc.asarray(c), asc.arange(4)))


@pytest.mark.parametrize("axis", [None, 0])
def test_roll_rejects_a_2d_shift_before_reading_it(axis):
    a = np.ones((4, 0, 0), np.int64)
    _same_error(lambda: np.roll(a, np.ones((2, 2), np.int8), axis=axis),
                lambda: asc.roll(asc.asarray(a), asc.broadcast_to(asc.ones(1, dtype=np.int8), (2 ** 31, 2 ** 31)),
                                 axis=axis))


# ------------------------------------------------------------------ promotion and NaN rules


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("d1,d2", [("bool", "uint32"), ("uint8", "bool"), ("bool", "int8"), ("uint8", "int8")])
def test_gcd_promotes_bool_with_the_other_array(name, d1, d2):
    a, b = np.array([1, 0, 1]).astype(d1), np.array([4, 6, 0]).astype(d2)
    e, g = getattr(np, name)(a, b), getattr(asc, name)(asc.asarray(a), asc.asarray(b))
    assert np.dtype(g.dtype) == e.dtype
    np.testing.assert_array_equal(g.numpy(), e)


@pytest.mark.parametrize("values", [[3, np.nan, 0.5, 1e30], [np.nan, 1, 2], [np.nan, np.nan, 1]])
@pytest.mark.parametrize("name,kw", [("median", {}), ("quantile", dict(q=0.25)), ("percentile", dict(q=[50, 90])),
                                     ("nanmedian", {}), ("nanquantile", dict(q=0.6))])
def test_bfloat16_nan_is_not_propagated_by_median_quantile(values, name, kw):
    # np.issubdtype(bfloat16, np.inexact) is False: NumPy's median/quantile sort the NaN last
    # and take no NaN shortcut for it
    a = np.array(values, BF16)
    e, g = _both(lambda: getattr(np, name)(a, **kw), lambda: getattr(asc, name)(asc.asarray(a), **kw))
    assert np.dtype(g.dtype) == np.asarray(e).dtype
    np.testing.assert_array_equal(g.numpy().astype(float), np.asarray(e).astype(float))


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtype", ["float32", "complex64", "bool", "int8", "uint64"])
@pytest.mark.parametrize("v", [2 ** 63, -2 ** 63 - 1, 2 ** 100, 2 ** 63 - 1, -2 ** 63, 5, 0])
def test_logical_python_int_is_a_c_long(name, dtype, v):
    a = np.array([0, 1]).astype(dtype)
    e, g = _both(lambda: getattr(np, name)(a, v), lambda: getattr(asc, name)(asc.asarray(a), v))
    if isinstance(e, Exception):
        assert isinstance(e, OverflowError) and isinstance(g, OverflowError) and isinstance(g, asc.AscendError)
    else:
        assert np.dtype(g.dtype) == e.dtype
        np.testing.assert_array_equal(g.numpy(), e)
