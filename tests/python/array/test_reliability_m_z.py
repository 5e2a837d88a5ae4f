"""Regression tests of namespace-fuzz findings (issue 20 item 15) in the names m..z and _*
(slice m_z of the fuzz goal). One test per finding class, parametrised over the concrete
cases the fuzzer found and their neighbours; every expectation is NumPy's own result or
exception class, computed here, in lazy and eager mode."""

import warnings

import numpy as np
import pytest

import pyasc as asc

INF = float("inf")


@pytest.fixture(params=["lazy", "eager"])
def mode(request):
    was = asc.is_eager()
    asc.set_eager(request.param == "eager")
    yield request.param
    asc.set_eager(was)


def _run(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return fn()
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                return e


def _same_value(e, g):
    g = np.asarray(g.numpy() if isinstance(g, asc.ndarray) else g)
    e = np.asarray(e)
    assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
    # (sums: a few roundings of the dtype apart, as the summation order differs)
    rtol = 32 * float(np.finfo(e.dtype).eps) if e.dtype.kind in "fc" else 0
    if e.dtype.kind == "c":
        for pe, pg in ((e.real, g.real), (e.imag, g.imag)):
            np.testing.assert_array_equal(np.isnan(pg), np.isnan(pe))
            np.testing.assert_allclose(pg[~np.isnan(pe)], pe[~np.isnan(pe)], rtol=rtol)
    else:
        np.testing.assert_allclose(g, e, rtol=rtol, equal_nan=True)


def _same_error(e, g):
    assert isinstance(e, Exception), f"NumPy accepted: {e!r}"
    assert isinstance(g, Exception), f"pyasc accepted: {g!r} (NumPy {type(e).__name__}: {e})"
    bases = [b for b in type(e).__mro__ if b.__module__ == "builtins" and b not in (Exception, BaseException)]
    assert isinstance(g, type(e)) or any(isinstance(g, b) for b in bases), \
        f"numpy {type(e).__name__}: {e} | pyasc {type(g).__name__}: {g}"
    assert "incompatible function arguments" not in str(g) and "Unable to cast" not in str(g), str(g)


def _compare(np_fn, asc_fn):
    e, g = _run(np_fn), _run(asc_fn)
    if isinstance(e, Exception):
        _same_error(e, g)
    else:
        assert not isinstance(g, Exception), f"pyasc raised {type(g).__name__}: {g} (NumPy: {e!r})"
        _same_value(e, g)


# ------------------------------------------------------------------ complex products: one identity
# The fused lazy reduction folded each block's partial product (which starts from the identity)
# into a second identity: (1+0j) * (inf-1j) is inf+nanj, once more nan+nanj. NumPy applies the
# identity once.

_PROD_CASES = [
    np.array(INF - 1j), np.array([INF - 1j]), np.array([[INF - 1j]]), np.array([INF - 1j, 1 + 0j]),
    np.array([1 + 0j, INF - 1j]), np.full((3, 4), INF - 1j), np.full((3, 4, 5), -INF + 2j),
    np.array([complex(-0.0, -0.0)]), np.array([2 + 1j, 3 - 1j, np.nan + 0j]),
]


@pytest.mark.parametrize("i", range(len(_PROD_CASES)))
@pytest.mark.parametrize("fn", ["prod", "nanprod"])
def test_complex_product_applies_the_identity_once(mode, fn, i):
    a = _PROD_CASES[i]
    for dt in (np.complex128, np.complex64):
        b = a.astype(dt)
        axes = [None] + list(range(b.ndim)) + ([(0, b.ndim - 1)] if b.ndim >= 2 else [])
        for ax in axes:
            # x + 0 keeps the operand a pending lazy node, so the reduction is fused
            _compare(lambda: getattr(np, fn)(b + 0, axis=ax), lambda: getattr(asc, fn)(asc.asarray(b) + 0, axis=ax))
            _compare(lambda: getattr(np, fn)(b, axis=ax), lambda: getattr(asc, fn)(asc.asarray(b), axis=ax))


# ------------------------------------------------------------------ axis arguments read as NumPy reads them


@pytest.mark.parametrize("source,destination", [(None, 0), (0, None), (None, None), (None, 6), ((0,), None),
                                                (0, 1), ([0, 1], [1, 0]), (0, (0, 1)), (5, None)])
def test_moveaxis_axes(mode, source, destination):
    for shape in [(2, 3, 0), (1,), ()]:
        a = np.zeros(shape)
        _compare(lambda: np.moveaxis(a, source, destination),
                 lambda: asc.moveaxis(asc.asarray(a), source, destination))


@pytest.mark.parametrize("axis", [None, True, np.True_, 1.0, "1", 2 ** 63, 2 ** 64, -3, 2, 0, -1, np.int64(1)])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 2), (3, 2)), ((), (3,)), ((3, 2), (0, 0))])
def test_vecdot_axis(mode, axis, shapes):
    a, b = np.arange(np.prod(shapes[0]), dtype=float).reshape(shapes[0]), np.ones(shapes[1])
    _compare(lambda: np.vecdot(a, b, axis=axis), lambda: asc.vecdot(asc.asarray(a), asc.asarray(b), axis=axis))
    _compare(lambda: np.linalg.vecdot(a, b, axis=axis),
             lambda: asc.linalg.vecdot(asc.asarray(a), asc.asarray(b), axis=axis))


@pytest.mark.parametrize("axis", [2 ** 64, 2 ** 63, 2 ** 31, 1.5, "a", True, 5, None, 0, -1])
@pytest.mark.parametrize("bitorder", ["big", 3])
@pytest.mark.parametrize("dtype", ["float16", "uint8", "bool"])
def test_packbits_argument_order(mode, axis, bitorder, dtype):
    a = (np.arange(20) % 3).astype(dtype).reshape(5, 4)
    _compare(lambda: np.packbits(a, axis=axis, bitorder=bitorder),
             lambda: asc.packbits(asc.asarray(a), axis=axis, bitorder=bitorder))
    _compare(lambda: np.unpackbits(a, axis=axis, bitorder=bitorder),
             lambda: asc.unpackbits(asc.asarray(a), axis=axis, bitorder=bitorder))


# ------------------------------------------------------------------ polydiv of N-d coefficients


@pytest.mark.parametrize("su,sv", [((5, 2, 5), (5, 2, 5)), ((1, 1), (1, 1)), ((2, 2), (3,)), ((3, 1), (2, 1)),
                                   ((3, 2), (3,)), ((3, 2), (3, 3)), ((2,), (2, 3)), ((4,), (2,))])
@pytest.mark.parametrize("du,dv", [("complex128", "int32"), ("float64", "float64"), ("float32", "bool")])
def test_polydiv_nd_coefficients(mode, su, sv, du, dv):
    u = (np.arange(np.prod(su)) + 1).astype(du).reshape(su)
    v = (np.arange(np.prod(sv)) + 2).astype(dv).reshape(sv)
    e, g = _run(lambda: np.polydiv(u, v)), _run(lambda: asc.polydiv(asc.asarray(u), asc.asarray(v)))
    if isinstance(e, Exception):
        _same_error(e, g)
    else:
        assert not isinstance(g, Exception), g
        for pe, pg in zip(e, g):
            _same_value(pe, pg)


# ------------------------------------------------------------------ var / std: where=, mean=, array ddof

_X = np.arange(12.0).reshape(3, 4) ** 1.5
_VAR_KW = [
    dict(where=_X > 5), dict(where=np.array([True, False, True, True]), axis=1),
    dict(where=np.array([True, False, True, True]), axis=1, keepdims=True, ddof=1),
    dict(where=np.array([True, False, True, True]), axis=0, ddof=np.array([0, 1, 2, 0])),
    dict(mean=_X.mean(1, keepdims=True), axis=1), dict(mean=np.float64(3.0)), dict(mean=np.ones(2)),
    dict(mean=np.zeros((3, 1)), axis=1, ddof=1), dict(ddof=np.array([1])), dict(ddof=np.array([1, 2])),
    dict(ddof=True), dict(ddof=np.array([0, 1, 1, 0]), axis=0), dict(where=_X), dict(where=np.array([True, False])),
    dict(where=np.ones((3, 4), bool), correction=1), dict(ddof=np.array([1, 2]), correction=1),
    dict(where=_X > 40, axis=1), dict(mean=np.ones((3, 4)), where=_X > 3, axis=(0, 1), ddof=1),
    dict(where=_X > 5, axis=[0]), dict(where=_X > 5, dtype=np.float32), dict(ddof=None, where=_X > 5),
]


@pytest.mark.parametrize("kw", range(len(_VAR_KW)))
@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "complex128", "bool"])
def test_var_std_where_mean_ddof(mode, fn, kw, dtype):
    x = _X.astype(dtype) if dtype != "complex128" else (_X + 1j * _X[::-1]).astype(dtype)
    k = _VAR_KW[kw]
    ka = {n: asc.asarray(v) if isinstance(v, np.ndarray) else v for n, v in k.items()}
    _compare(lambda: getattr(np, fn)(x, **k), lambda: getattr(asc, fn)(asc.asarray(x), **ka))
    if "correction" not in k:  # (ndarray.var has no correction=)
        _compare(lambda: getattr(x, fn)(**k), lambda: getattr(asc.asarray(x), fn)(**ka))


# ------------------------------------------------------------------ huge broadcast views: NumPy's allocation error


@pytest.mark.parametrize("dt,shape,other", [("bool", (2 ** 31, 2 ** 31), "bfloat16"), ("bool", (2 ** 31, 2 ** 31), "float64"),
                                            ("int8", (2 ** 62,), "float64"), ("int8", (3, 2 ** 61), "float64")])
def test_union1d_huge_view(dt, shape, other):
    # (only joined results of >= 2**63 bytes: NumPy's ValueError comes before any allocation)
    import ml_dtypes

    o = np.ones(3, ml_dtypes.bfloat16 if other == "bfloat16" else other)
    h_np = np.broadcast_to(np.ones(1, dt), shape)
    h = asc.broadcast_to(asc.ones(1, dt), shape)
    _compare(lambda: np.union1d(o, h_np), lambda: asc.union1d(asc.asarray(o), h))
    _compare(lambda: np.union1d(h_np, o), lambda: asc.union1d(h, asc.asarray(o)))


@pytest.mark.parametrize("shape,axis", [((2 ** 31, 2 ** 31), 0), ((2 ** 31, 2 ** 31), (0, 1)), ((2 ** 44,), 0),
                                        ((2 ** 44,), -1), ((3, 2 ** 61), 1)])
def test_roll_huge_view_fails_fast(shape, axis):
    # NumPy allocates the result before it moves anything: its MemoryError/ValueError at once
    # (pyasc gathered 2**62 elements: a hang)
    h = asc.broadcast_to(asc.ones(1, "int8"), shape)
    e = _run(lambda: np.roll(np.broadcast_to(np.ones(1, "int8"), shape), 1, axis=axis))
    _same_error(e, _run(lambda: asc.roll(h, 1, axis=axis)))


# ------------------------------------------------------------------ axis 0/-1 of a 0-d array (NumPy reads one element)

_ZERO_D = [
    ("ptp", lambda m, v, ax: m.ptp(v, axis=ax)), ("nanmax", lambda m, v, ax: m.nanmax(v, axis=ax)),
    ("nanmin", lambda m, v, ax: m.nanmin(v, axis=ax, keepdims=True)),
    ("nanargmax", lambda m, v, ax: m.nanargmax(v, axis=ax)), ("nanargmin", lambda m, v, ax: m.nanargmin(v, axis=ax)),
    ("nancumsum", lambda m, v, ax: m.nancumsum(v, axis=ax)), ("nancumprod", lambda m, v, ax: m.nancumprod(v, axis=ax)),
    ("packbits", lambda m, v, ax: m.packbits(v.astype("uint8"), axis=ax)),
    ("unpackbits", lambda m, v, ax: m.unpackbits(v.astype("uint8"), axis=ax)),
    ("repeat", lambda m, v, ax: m.repeat(v, 2, axis=ax)), ("repeat-method", lambda m, v, ax: v.repeat(2, ax)),
    ("squeeze", lambda m, v, ax: m.squeeze(v, ax)), ("squeeze-method", lambda m, v, ax: v.squeeze(ax)),
    ("squeeze-tuple", lambda m, v, ax: v.squeeze((ax,))),
]


@pytest.mark.parametrize("i", range(len(_ZERO_D)))
@pytest.mark.parametrize("axis", [0, -1, 1, np.int64(0)])
@pytest.mark.parametrize("dtype", ["int8", "float32", "complex64", "bool"])
def test_zero_d_axis(mode, i, axis, dtype):
    name, f = _ZERO_D[i]
    a = np.array(3, dtype) if dtype != "complex64" else np.array(3 - 1j, dtype)
    _compare(lambda: f(np, a, axis), lambda: f(asc, asc.asarray(a), axis))


# ------------------------------------------------------------------ check order: NumPy's class when two checks fail

_ORDER_CASES = [
    # tensorinv: `if ind > 0` compares first (an array of several: ambiguous), a 0-d a has no inverse shape
    ("tensorinv-ind-array", lambda m, A: m.linalg.tensorinv(A(np.eye(4)), ind=A(np.arange(16).reshape(4, 4)))),
    ("tensorinv-0d", lambda m, A: m.linalg.tensorinv(A(np.array(2.0)), ind=1)),
    ("tensorinv-float-ind", lambda m, A: m.linalg.tensorinv(A(np.eye(4).reshape(2, 2, 2, 2)), ind=1.5)),
    ("tensorinv-ok", lambda m, A: m.linalg.tensorinv(A(np.eye(4).reshape(2, 2, 2, 2)), ind=2)),
    # where is positional-only
    ("where-x-kw", lambda m, A: m.where(A(np.ones((1, 2), bool)), x=A(np.ones((1, 2))))),
    ("where-y-kw", lambda m, A: m.where(A(np.ones((1, 2), bool)), y=A(np.ones((1, 2))))),
    ("where-x-only", lambda m, A: m.where(A(np.ones((1, 2), bool)), A(np.ones((1, 2))))),
    # unravel_index: the converters (shape, order letter), the indices' dtype, then 'C'/'F' and the signs
    ("unravel-float-negative", lambda m, A: m.unravel_index(A(np.ones(3)), (-1, 2))),
    ("unravel-float-K", lambda m, A: m.unravel_index(A(np.ones(3)), (3,), order="K")),
    ("unravel-float-X", lambda m, A: m.unravel_index(A(np.ones(3)), (3,), order="X")),
    ("unravel-int-K", lambda m, A: m.unravel_index(A(np.array([1])), (3,), order="K")),
    # triu computes k - 1 before anything is allocated
    ("triu-k-None-huge", lambda m, A: m.triu(m.broadcast_to(A(np.ones(1, bool)), (2 ** 44,)), k=None)),
    ("triu-k-None", lambda m, A: m.triu(A(np.ones((2, 2))), k=None)),
    # var/std/nanvar: the axis first (a huge view's allocation, a dtype that is no dtype later)
    ("std-huge-axis", lambda m, A: m.std(m.broadcast_to(A(np.ones(1, bool)), (2 ** 44,)), axis=-2)),
    ("nanvar-axis-dtype", lambda m, A: m.nanvar(A(np.array(True)), axis=1, dtype=2 ** 64)),
    ("nanstd-int-where", lambda m, A: m.nanstd(A(np.arange(6)), where=A(np.arange(6) > 2))),
    # sort copies first: a huge view's allocation error before the kind check
    ("sort-huge-kind", lambda m, A: m.sort(m.broadcast_to(A(np.ones(1, bool)), (3, 2 ** 61)), kind="bogus")),
    # gufuncs check core dimensions before they cast (dtype=)
    ("matvec-0d-huge", lambda m, A: m.matvec(A(np.array(1.0)), m.broadcast_to(A(np.ones(1, bool)), (2 ** 44,)),
                                             dtype=np.float64)),
    ("vecmat-0d", lambda m, A: m.vecmat(A(np.array(1.0)), A(np.ones((2, 2))), dtype=np.float32)),
    ("matmul-0d-bigint", lambda m, A: m.matmul(2 ** 70, A(np.ones((2, 2))), dtype=np.float64)),
    # a Python scalar where= is weak (NumPy casts it to bool); nanmax then needs initial
    ("nanmax-where-2", lambda m, A: m.nanmax(A(np.arange(3.0)), where=2)),
    ("sum-where-0", lambda m, A: m.sum(A(np.arange(3.0)), where=0)),
    ("sum-where-2", lambda m, A: m.sum(A(np.arange(3)), where=2)),
    ("max-where-1.0-initial", lambda m, A: m.max(A(np.arange(3.0)), where=1.0, initial=-1.0)),
]


@pytest.mark.parametrize("i", range(len(_ORDER_CASES)), ids=[c[0] for c in _ORDER_CASES])
def test_check_order(mode, i):
    _, f = _ORDER_CASES[i]
    _compare(lambda: f(np, lambda v: v), lambda: f(asc, asc.asarray))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "int8", "bool", "complex64"])
@pytest.mark.parametrize("n", [None, 0, 1, 3])
def test_vander_dtype(mode, dtype, n):
    import ml_dtypes

    x = (np.arange(5) - 2).astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    _compare(lambda: np.vander(x, n), lambda: asc.vander(asc.asarray(x), n))


# ------------------------------------------------------------------ huge broadcast views as NumPy fails on them (fast)

_HUGE = [
    ("stack", lambda m, h: m.stack(h)), ("unstack", lambda m, h: m.unstack(h)),
    ("tile-float-reps", lambda m, h: m.tile(h, [1.5, 2.0])), ("tile", lambda m, h: m.tile(h, 2)),
    ("repeat", lambda m, h: m.repeat(h, 1)), ("repeat-0-axis", lambda m, h: m.repeat(h, 0, axis=-1)),
    ("repeat-method", lambda m, h: h.repeat(2)), ("resize-float-shape", lambda m, h: m.resize(h, [1.5, 2.0])),
    ("vander", lambda m, h: m.vander(h.reshape(-1)[:2 ** 40] if h.ndim > 1 else h)),
    ("zeros-shape", lambda m, h: m.zeros(h)), ("ones-shape", lambda m, h: m.ones(h)),
]


@pytest.mark.parametrize("i", range(len(_HUGE)), ids=[c[0] for c in _HUGE])
@pytest.mark.parametrize("shape", [(2 ** 44,), (2 ** 31, 2 ** 31)])
def test_huge_view_fails_fast(i, shape):
    name, f = _HUGE[i]
    if name in ("vander", "stack", "unstack", "zeros-shape", "ones-shape") and len(shape) > 1:
        # (vander takes 1-d input; a sequence of 2**31 rows NumPy copies and iterates: no fast answer)
        pytest.skip("not a fast NumPy case")
    one = np.ones(1, "int8")
    e = _run(lambda: f(np, np.broadcast_to(one, shape)))
    g = _run(lambda: f(asc, asc.broadcast_to(asc.asarray(one), shape)))
    _same_error(e, g)


@pytest.mark.parametrize("corr", [np.array(1.0), np.array(2 + 0j), True, np.array([1.0])])
@pytest.mark.parametrize("fn", ["var", "std", "nanvar", "nanstd"])
def test_correction_array(mode, fn, corr):
    # (an array correction= went to the C++ binding: pybind11's "Unable to cast")
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    c = asc.asarray(corr) if isinstance(corr, np.ndarray) else corr
    _compare(lambda: getattr(np, fn)(x, correction=corr), lambda: getattr(asc, fn)(asc.asarray(x), correction=c))
