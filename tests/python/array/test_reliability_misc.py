"""Issue 20 (reliability): huge broadcast views, inputs NumPy rejects, NumPy's argument
readings (fuzz findings of tests/python/fuzz/known_findings.py, fixed)."""

import time

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc


def _raises_like(fn_np, fn_asc):
    """Both raise, and pyasc's exception is an instance of NumPy's class (or its builtin base)."""
    with pytest.raises(Exception) as e_np:
        fn_np()
    with pytest.raises(Exception) as e_asc:
        fn_asc()
    base = next(c for c in type(e_np.value).__mro__ if c.__module__ == "builtins")
    assert isinstance(e_asc.value, base), (e_np.value, e_asc.value)
    return e_asc.value


def _huge(shape, dtype="int8", value=1):
    return asc.broadcast_to(asc.asarray(np.full(1, value, dtype)), shape)


# ------------------------------------------------------------------ broadcast views

@pytest.mark.parametrize("name", ["any", "all", "max", "min"])
def test_idempotent_reduction_of_huge_broadcast_view_is_fast(name):
    t = time.time()
    for v in (0, 1):
        got = getattr(asc, name)(_huge((2 ** 62,), value=v))
        assert int(got) == int(getattr(np, name)(np.array([v], "int8")))
    got = getattr(asc, name)(_huge((3, 2 ** 61)), axis=1)
    assert got.shape == (3,)
    assert time.time() - t < 2


def test_reduction_of_broadcast_axis_matches_numpy():
    base = np.array([[3.0, np.nan, -0.0], [1.0, 2.0, 5.0]])
    for shape, src in (((4, 2, 3), base), ((2, 4, 3), base[:, None, :])):
        b = np.broadcast_to(src, shape)
        a = asc.broadcast_to(asc.asarray(src), shape)
        for name in ("max", "min", "any", "all"):
            for axis in (None, 0, 1, (0, 2), -1):
                for keepdims in (False, True):
                    e = getattr(np, name)(b, axis=axis, keepdims=keepdims)
                    g = np.asarray(getattr(asc, name)(a, axis=axis, keepdims=keepdims))
                    assert g.shape == e.shape and g.dtype == e.dtype
                    np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reduction_of_broadcast_view(name):
    rng = np.random.default_rng(5)
    src = rng.integers(0, 3, (1, 5, 1, 3)).astype(np.float32)
    src[0, 2, 0, 1] = np.nan
    for shape in ((4, 5, 2, 3), (1, 5, 1, 3), (2, 5, 3, 3)):
        for s in (src, np.nan_to_num(src)):
            b = np.broadcast_to(s, shape)
            a = asc.broadcast_to(asc.asarray(s), shape)
            for axis in (None, 0, 1, 2, 3, -1):
                for keepdims in (False, True):
                    e = getattr(np, name)(b, axis=axis, keepdims=keepdims)
                    g = np.asarray(getattr(asc, name)(a, axis=axis, keepdims=keepdims))
                    assert g.shape == e.shape and g.dtype == e.dtype
                    np.testing.assert_array_equal(g, e)
    t = time.time()
    assert int(getattr(asc, name)(_huge((2 ** 62,)))) == 0
    assert int(getattr(asc, "nan" + name)(_huge((2 ** 62,)))) == 0
    assert int(getattr(asc, name)(_huge((3, 2 ** 61)))) == 0
    assert time.time() - t < 2


def test_window_and_roots_and_split_of_huge_views_fail_fast():
    t = time.time()
    _raises_like(lambda: np.blackman(np.broadcast_to(np.ones(1, "int8"), (2 ** 33,))),
                 lambda: asc.blackman(_huge((2 ** 33,))))
    _raises_like(lambda: np.kaiser(-4, np.zeros((3, 0))), lambda: asc.kaiser(-4, asc.zeros((3, 0))))
    with pytest.raises(MemoryError):
        asc.roots(_huge((2 ** 33,)))
    with pytest.raises(MemoryError):
        asc.split(asc.zeros((0, 3, 3), "float16").T, _huge((2 ** 63 - 1,)))
    assert time.time() - t < 2
    with pytest.raises(TypeError):
        asc.kaiser(1, None)  # NumPy returns an object array


# ------------------------------------------------------------------ argument readings

@pytest.mark.parametrize("k", [float("nan"), 1.0, [1], None, "a", np.ones((1, 1), "int8"), np.array(1.0)])
@pytest.mark.parametrize("name", ["any", "max", "prod", "sum", "var", "std"])
def test_keepdims_must_be_an_integer(name, k):
    x = np.ones(3)
    _raises_like(lambda: getattr(np, name)(x, keepdims=k), lambda: getattr(asc, name)(asc.asarray(x), keepdims=k))


@pytest.mark.parametrize("k", [True, False, 0, 2, np.array(1), np.int8(1)])
def test_keepdims_integers_accepted(k):
    x = np.ones((2, 3))
    for name in ("sum", "max", "var"):
        e = getattr(np, name)(x, axis=1, keepdims=k)
        g = getattr(asc, name)(asc.asarray(x), axis=1, keepdims=k)
        assert g.shape == e.shape
        g = getattr(asc.asarray(x), name)(axis=1, keepdims=k)
        assert g.shape == e.shape


def test_dtype_from_an_array_is_a_type_error():
    x = asc.asarray(np.ones(2, np.float32))
    d = asc.asarray(np.ones(2))
    for fn in (lambda: x.astype(d), lambda: asc.astype(x, d), lambda: asc.nanprod(x, dtype=d),
               lambda: x.all((), d), lambda: x.var((), d), lambda: asc.issubdtype(np.float32, d)):
        with pytest.raises(TypeError, match="array"):
            fn()
    with pytest.raises(TypeError):
        np.dtype(np.ones(2))


def test_ddof_none_and_correction():
    x = np.arange(5.0)
    _raises_like(lambda: np.std(x, ddof=None), lambda: asc.std(asc.asarray(x), ddof=None))
    _raises_like(lambda: np.var(x, ddof=1, correction=1), lambda: asc.var(asc.asarray(x), ddof=1, correction=1))
    assert float(asc.var(asc.asarray(x), ddof=0, correction=1)) == np.var(x, ddof=0, correction=1)
    assert float(asc.std(asc.asarray(x), ddof=2)) == pytest.approx(np.std(x, ddof=2))


@pytest.mark.parametrize("shape", [True, False, np.True_, (True,), (2, False)])
def test_bool_shape_is_a_type_error(shape):
    _raises_like(lambda: np.ones(shape), lambda: asc.ones(shape))
    _raises_like(lambda: np.zeros(shape, "uint32"), lambda: asc.zeros(shape, "uint32"))


def test_method_argument_errors():
    x = asc.asarray(np.ones((2, 3)))
    n = np.ones((2, 3))
    _raises_like(lambda: n.reshape(), lambda: x.reshape())
    for name in ("cumsum", "cumprod", "argmax", "argmin"):
        _raises_like(lambda: getattr(n, name)((1,)), lambda: getattr(x, name)((1,)))
        _raises_like(lambda: getattr(np, name)(n, axis=[1]), lambda: getattr(asc, name)(x, axis=[1]))
    _raises_like(lambda: np.arange(3).partition(0, None), lambda: asc.arange(3).partition(0, None))
    np.testing.assert_array_equal(np.asarray(asc.partition(asc.arange(3), 0, None)), np.partition(np.arange(3), 0, None))
    _raises_like(lambda: np.squeeze(n[None], axis=[0]), lambda: asc.squeeze(x[None], axis=[0]))
    assert asc.squeeze(x[None], axis=(0,)).shape == (2, 3)


@pytest.mark.parametrize("dt", ["float64", "float16", "int32", "bool", "complex64", ml_dtypes.bfloat16])
@pytest.mark.parametrize("v", [(), [1], np.array([1.0]), [[1]], None, "1", np.array(2.0)])
def test_fill_reads_the_value_as_numpy(dt, v):
    n = np.zeros(2, dt)
    x = asc.zeros(2, dt)
    try:
        n.fill(v)
    except Exception as e:
        with pytest.raises(type(e)):
            x.fill(v)
        return
    x.fill(v)
    np.testing.assert_array_equal(np.asarray(x), n)


def test_repeat_and_roll_read_counts_as_numpy():
    n = np.arange(3)
    x = asc.arange(3)
    for r in ("2", 2.0, np.uint64(2), ["1", "2", "1"], np.array([1, 2, 1], "int32"), np.array(2, "uint32"), True):
        np.testing.assert_array_equal(np.asarray(asc.repeat(x, r)), np.repeat(n, r))
    for r in (np.array(2, "uint64"), np.array([1, 2, 1], "uint64"), np.array(2.0), np.array([1.0, 2.0, 1.0])):
        _raises_like(lambda: np.repeat(n, r), lambda: asc.repeat(x, asc.asarray(r)))
        _raises_like(lambda: n.repeat(r), lambda: x.repeat(asc.asarray(r)))
    _raises_like(lambda: np.repeat(n, "a"), lambda: asc.repeat(x, "a"))
    for s in ("1", "-1", 1.0, np.uint64(1), ["1"]):
        np.testing.assert_array_equal(np.asarray(asc.roll(x, s)), np.roll(n, s))
    _raises_like(lambda: np.roll(n, "a"), lambda: asc.roll(x, "a"))


def test_sequence_functions_reject_0d():
    for np_fn, asc_fn in ((lambda: np.poly(True), lambda: asc.poly(True)),
                          (lambda: np.roots(np.array(3, "int8")), lambda: asc.roots(asc.asarray(np.array(3, "int8")))),
                          (lambda: np.polyval(np.array(True), [[1.0, 2.0]]),
                           lambda: asc.polyval(asc.asarray(np.array(True)), [[1.0, 2.0]])),
                          (lambda: np.correlate(np.ones(5, "uint32"), 1j), lambda: asc.correlate(asc.ones(5, "uint32"), 1j)),
                          (lambda: np.correlate(2.0, np.ones(3)), lambda: asc.correlate(2.0, asc.ones(3)))):
        _raises_like(np_fn, asc_fn)
    np.testing.assert_array_equal(np.asarray(asc.convolve(asc.ones(3), 2.0)), np.convolve(np.ones(3), 2.0))


def test_index_helpers_bounds_and_dtypes():
    _raises_like(lambda: np.unravel_index(np.zeros(0, np.int64), ()), lambda: asc.unravel_index(asc.zeros(0, "int64"), ()))
    assert asc.unravel_index(0, ()) == np.unravel_index(0, ())
    _raises_like(lambda: np.unravel_index(np.zeros(0), (3,)), lambda: asc.unravel_index(asc.zeros(0), (3,)))
    _raises_like(lambda: np.ravel_multi_index([np.zeros(0)], (0,)), lambda: asc.ravel_multi_index([asc.zeros(0)], (0,)))
    got = asc.unravel_index(asc.zeros(0, "bool"), (3,))
    assert [np.asarray(g).tolist() for g in got] == [[]]
    _raises_like(lambda: np.lexsort([np.array(1, "uint32")], axis="abc"),
                 lambda: asc.lexsort([asc.asarray(np.array(1, "uint32"))], axis="abc"))
    _raises_like(lambda: np.lexsort([np.array(1)], axis=5), lambda: asc.lexsort([asc.asarray(np.array(1))], axis=5))
    assert int(asc.lexsort([asc.asarray(np.array(1))], axis=0)) == 0


def test_split_sections_and_pad_and_choose():
    n = np.zeros((3, 1, 2))
    x = asc.zeros((3, 1, 2))
    _raises_like(lambda: np.vsplit(n, np.array(2767)), lambda: asc.vsplit(x, asc.asarray(np.array(2767))))
    got = asc.split(asc.zeros(4), asc.asarray(np.array(2)))
    assert [g.shape for g in got] == [(2,), (2,)]
    _raises_like(lambda: np.split(np.zeros(3), np.array(2)), lambda: asc.split(asc.zeros(3), asc.asarray(np.array(2))))
    _raises_like(lambda: np.pad(np.array(388, "int32"), (4, -1)), lambda: asc.pad(asc.asarray(np.array(388, "int32")), (4, -1)))
    idx = np.zeros((0, 2, 1), "uint64")
    ch = [np.ones((2, 3), "float16"), np.float64(0), np.float64(0)]
    _raises_like(lambda: np.choose(idx, ch), lambda: asc.choose(asc.asarray(idx), [asc.asarray(c) for c in ch]))


# ------------------------------------------------------------------ results NumPy's

def test_contiguous_max_min_sign_of_zero_as_numpy():
    """NumPy's float32/float64 max/min of a contiguous array: its SIMD reduction order decides
    which of +0/-0 survives (registry.cc numpy_zero_sign); lazily and eagerly."""
    rng = np.random.default_rng(0)
    for eager in (True, False):
        asc.set_eager(eager)
        try:
            for dt in (np.float32, np.float64):
                for n in list(range(2, 140)) + [255, 256, 257, 1023, 1025, 4097, 70001]:
                    c = rng.integers(0, 3, n)
                    a = np.where(c == 0, -0.0, np.where(c == 1, 0.0, -rng.random(n))).astype(dt)
                    for op, v in (("max", a), ("min", -a)):
                        e = getattr(v, op)()
                        g = np.asarray(getattr(asc, op)(asc.asarray(v)))
                        assert g == e and np.signbit(g) == np.signbit(e), (dt, n, op)
        finally:
            asc.set_eager(False)


@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_integer_reciprocal_of_zero_as_numpy(dt):
    info = np.iinfo(dt)
    a = np.array([0, 1, 2, info.min, info.max] + ([-1] if info.min else []), dt).repeat(9)
    with np.errstate(all="ignore"):
        e = np.reciprocal(a)
    np.testing.assert_array_equal(np.asarray(asc.reciprocal(asc.asarray(a))), e)


@pytest.mark.parametrize("name", ["arctan2", "heaviside", "hypot", "copysign", "logaddexp"])
def test_float_function_loops_per_input(name):
    ints = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32"]
    for d1 in ints:
        for d2 in ints:
            a, b = np.ones(3, d1), np.ones(3, d2)
            e = getattr(np, name)(a, b)
            g = getattr(asc, name)(asc.asarray(a), asc.asarray(b))
            assert np.dtype(g.dtype) == e.dtype, (d1, d2)


def test_compare_with_none_is_elementwise():
    n = np.arange(4, dtype=np.int16)
    x = asc.asarray(n)
    for got, want in ((x == None, n == None), (x != None, n != None)):  # noqa: E711 - the operator itself
        assert got.shape == want.shape and np.dtype(got.dtype) == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def test_union1d_i0_histogram_dtypes():
    e = np.union1d(-1, np.zeros((3, 0, 2), "int32"))
    g = asc.union1d(-1, asc.zeros((3, 0, 2), "int32"))
    assert np.dtype(g.dtype) == e.dtype
    np.testing.assert_array_equal(np.asarray(g), e)
    b = np.array([0.5, 1.0, 3.0], ml_dtypes.bfloat16)
    assert np.dtype(asc.i0(asc.asarray(b)).dtype) == np.i0(b).dtype == np.float64
    np.testing.assert_allclose(np.asarray(asc.i0(asc.asarray(b))), np.i0(b), rtol=1e-12)
    for w in ("uint32", "int8", "bool", "float32", "float16"):
        x = np.arange(7.0)
        wt = np.arange(7).astype(w)
        e = np.histogram(x, bins=3, weights=wt)[0]
        g = asc.histogram(asc.asarray(x), bins=3, weights=asc.asarray(wt))[0]
        assert np.dtype(g.dtype) == e.dtype
        np.testing.assert_array_equal(np.asarray(g), e)


@pytest.mark.parametrize("dt", ["int8", "uint8", "int16", "uint32", "int64"])
def test_integer_dtype_mean_var_std_as_numpy(dt):
    rng = np.random.default_rng(3)
    for src in (np.array([-127, 1, 1], "int8"), rng.integers(0, 256, (2, 3)).astype("uint8"),
                np.array([[-3.79, 6.29, -8.36]]), rng.integers(-50, 50, (3, 4)).astype("int16")):
        if src.dtype.kind == "f" and dt not in ("int8", "int16"):
            continue  # squares past the dtype's range: the float -> int cast of out-of-range values differs
        x = asc.asarray(src)
        with np.errstate(all="ignore"):
            for axis in (None, 0, -1):
                for name, kw in (("mean", {}), ("var", {}), ("var", {"ddof": 1}), ("std", {})):
                    try:
                        e = getattr(np, name)(src, axis=axis, dtype=dt, **kw)
                    except Exception as exc:
                        with pytest.raises(type(exc).__mro__[-3] if type(exc).__mro__[-3] is not object else Exception):
                            getattr(asc, name)(x, axis=axis, dtype=dt, **kw)
                        continue
                    g = np.asarray(getattr(asc, name)(x, axis=axis, dtype=dt, **kw))
                    assert g.dtype == np.asarray(e).dtype, (name, axis)
                    np.testing.assert_array_equal(g, e, err_msg=f"{name} {axis} {kw} {src.dtype}")


def test_cov_corrcoef_integer_dtype_is_numpys_casting_error():
    for m in (np.ones((2, 3)), np.array([True, False]), 0):
        for dt in ("int32", "bool", "uint8"):
            for name in ("cov", "corrcoef"):
                _raises_like(lambda: getattr(np, name)(m, dtype=dt), lambda: getattr(asc, name)(m, dtype=dt))
    np.testing.assert_allclose(np.asarray(asc.cov(asc.ones((2, 3)), dtype="float32")), np.cov(np.ones((2, 3)), dtype="float32"))


def test_complex_var_with_integer_dtype():
    src = (np.arange(4) + 1j * np.arange(4)[::-1]).astype(np.complex64).reshape(2, 2, 1)
    with np.errstate(all="ignore"), pytest.warns(Warning):
        e = np.var(src, dtype="int16")
    g = asc.var(asc.asarray(src), dtype="int16")
    np.testing.assert_array_equal(np.asarray(g), e)


def test_huge_views_as_shape_axis_or_range_fail_fast():
    t = time.time()
    _raises_like(lambda: np.ones(np.broadcast_to(np.ones(1, bool), (2 ** 44,))), lambda: asc.ones(_huge((2 ** 44,), "bool")))
    # (NumPy cannot make the 2**44-entry list it converts a shape through: its TypeError)
    _raises_like(lambda: np.ones(np.broadcast_to(np.ones(1, "int64"), (2 ** 44,))),
                 lambda: asc.ones(_huge((2 ** 44,), "int64")))
    with pytest.raises(TypeError):
        asc.arange(3)[asc.ones(2, "int64").__index__()]
    _raises_like(lambda: np.histogram(np.ones((4, 5)), range=np.broadcast_to(np.ones(1, "int8"), (2 ** 31, 2 ** 31))),
                 lambda: asc.histogram(asc.ones((4, 5)), range=_huge((2 ** 31, 2 ** 31))))
    assert time.time() - t < 2
    assert int(asc.asarray(np.array(2)).__index__()) == 2


def test_index_helpers_refuse_huge_shape_arrays():
    t = time.time()
    h = _huge((2 ** 62,), "bool")
    _raises_like(lambda: np.unravel_index(np.ones(2, "uint64")[::2], np.broadcast_to(np.ones(1, bool), (2 ** 62,))),
                 lambda: asc.unravel_index(asc.ones(2, "uint64")[::2], h))
    assert time.time() - t < 2
    np.testing.assert_array_equal(np.asarray(asc.unravel_index(5, asc.asarray(np.array([2, 3])))[1]), 2)
