"""The NumPy names added to complete the namespace (issue 12 item 7) against NumPy 2.4: creation
and layout, dtype queries, elementwise and gufuncs, windows/i0/unwrap, polynomials, histograms,
einsum_path, host formatters and readers. Lazy (default) and eager modes."""

from __future__ import annotations

import io
import math

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from conftest import ALL_DTYPES, NUMERIC_DTYPES, assert_same

BF16 = ml_dtypes.bfloat16


@pytest.fixture(params=[False, True], ids=["lazy", "eager"], autouse=True)
def mode(request):
    previous = asc.is_eager()
    asc.set_eager(request.param)
    yield request.param
    asc.set_eager(previous)


def values(dtype, n=7):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return (np.arange(n) % 3 == 0)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        base = np.array([0, 1, 2, 3, 5, 7, 11, int(info.max), int(info.min), 100 % (int(info.max) + 1)], dtype=dt)
        return np.resize(base, n)
    base = np.array([0.0, -0.0, 1.5, -2.25, 3.0, np.inf, -np.inf, np.nan, 0.5, -7.0], dtype=np.float64)
    if dt.kind == "c":
        return np.resize(base + 1j * base[::-1], n).astype(dt)
    return np.resize(base, n).astype(dt)


# ------------------------------------------------------------------ creation and layout


def test_ascontiguousarray(check):
    for shape in [(), (0,), (5,), (3, 4)]:
        base = np.arange(int(np.prod(shape)) * 2, dtype=np.float32).reshape(shape[:-1] + (shape[-1] * 2,)) \
            if shape else np.float32(3)

        def body(xp, base=base, shape=shape):
            x = xp.asarray(base)
            if shape:
                x = x[..., ::2]
            y = xp.ascontiguousarray(x)
            return y, y.flags.c_contiguous, y.ndim
        check(body)
    check(lambda xp: xp.ascontiguousarray(xp.asarray(np.arange(12).reshape(3, 4)).T, dtype=np.int16))
    x = asc.asarray(np.arange(6.0))
    assert asc.ascontiguousarray(x) is x  # no copy when already contiguous
    assert asc.ascontiguousarray(x[::2]) is not x


def test_asfortranarray_and_isfortran(check):
    def body(xp):
        x = xp.asarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4))[:, ::-1]
        f = xp.asfortranarray(x)
        return f, f.flags.f_contiguous, f.flags.c_contiguous, xp.isfortran(f), xp.isfortran(x), \
            xp.asfortranarray(f) is f, xp.asfortranarray(xp.asarray(np.float64(2.0))).shape
    check(body)
    check(lambda xp: xp.asfortranarray([[1, 2], [3, 4]], dtype=np.float32) + 1)
    check(lambda xp: xp.isfortran(xp.asarray(np.ones((3, 4))).T))
    f = asc.asfortranarray(np.arange(6.0).reshape(2, 3))
    assert asc.asfortranarray(f) is f
    np.testing.assert_allclose(np.asarray(asc.sin(f)), np.sin(np.arange(6.0).reshape(2, 3)), rtol=1e-15, atol=1e-15)


def test_asanyarray(check):
    check(lambda xp: xp.asanyarray([1, 2, 3], dtype=np.uint8))
    check(lambda xp: xp.asanyarray(xp.asarray(np.arange(6.0).reshape(2, 3)), order="F").flags.f_contiguous)
    check(lambda xp: xp.asanyarray(xp.asarray(np.arange(6.0)[::2]), order="C").flags.c_contiguous)
    x = asc.asarray(np.arange(4))
    assert asc.asanyarray(x) is x
    y = asc.asanyarray(x, copy=True)
    assert y is not x and not np.shares_memory(np.asarray(y), np.asarray(x))
    with pytest.raises(ValueError):
        asc.asanyarray(x[::2], order="C", copy=False)
    with pytest.raises(ValueError):
        asc.asanyarray(x, order="Q")
    with pytest.raises(ValueError):
        asc.asanyarray(x, device="gpu")


def test_require(check):
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    for req in [None, "C", ["F"], "W", "O", ("A", "C"), ["E"], ["F_CONTIGUOUS", "W"], ["CONTIGUOUS", "OWNDATA"]]:
        def body(xp, req=req):
            x = xp.asarray(base)[:, ::2]
            r = xp.require(x, np.float64, req)
            return r, r.flags.c_contiguous, r.flags.f_contiguous, r.dtype
        check(body)
    check(lambda xp: xp.require(xp.asarray(base), None, ["C", "F"]))
    with pytest.raises(KeyError):
        asc.require(base, None, ["Z"])
    x = asc.asarray(base)
    assert asc.require(x, requirements="C") is x


def test_copy(check):
    for dt in ALL_DTYPES:
        check(lambda xp, dt=dt: xp.copy(xp.asarray(values(dt, 12).reshape(3, 4))[::-1, 1:]))
    for order in ["K", "A", "C", "F"]:
        def body(xp, order=order):
            x = xp.asarray(np.arange(12.0).reshape(3, 4)).T
            c = xp.copy(x, order=order)
            return c, c.flags.c_contiguous, c.flags.f_contiguous
        check(body)
    x = asc.asarray(np.arange(3.0))
    c = np.copy(x)
    assert isinstance(c, asc.ndarray)
    c[0] = 5
    assert float(x[0]) == 0.0
    check(lambda xp: xp.copy(xp.asarray(np.float16(2.5))))
    with pytest.raises(ValueError):
        asc.copy(x, order="X")


def test_broadcast_shapes(check):
    check(lambda xp: xp.broadcast_shapes((3, 1), (1, 4), 4))
    check(lambda xp: xp.broadcast_shapes())
    check(lambda xp: xp.broadcast_shapes((0,), (1,)))
    check(lambda xp: xp.broadcast_shapes((2,), (3,)))
    check(lambda xp: xp.broadcast_shapes((2, -1)))


# ------------------------------------------------------------------ dtypes


def test_scalar_type_names():
    for n in ["single", "double", "half", "csingle", "cdouble", "byte", "ubyte", "short", "ushort", "intc",
              "uintc", "int_", "uint", "long", "ulong", "longlong", "ulonglong", "intp", "uintp", "generic",
              "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating", "complexfloating"]:
        assert getattr(asc, n) is getattr(np, n)
    assert asc.zeros(3, asc.single).dtype == np.float32
    assert asc.asarray([1, 2], dtype=asc.intc).dtype == np.intc
    assert asc.full((2,), 1, asc.ulonglong).dtype == np.dtype(np.ulonglong)


def test_issubdtype():
    kinds = [np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact, np.floating,
             np.complexfloating, np.bool_, np.float32, np.int64, "f", "i8", float, int, complex]
    for d in ALL_DTYPES + [np.complex64, np.complex128]:
        if d is BF16:
            continue
        for k in kinds:
            assert asc.issubdtype(d, k) == np.issubdtype(d, k), (d, k)
            assert asc.issubdtype(np.dtype(d), k) == np.issubdtype(np.dtype(d), k), (d, k)
    # bfloat16 is a floating dtype in pyasc (NumPy does not know the ml_dtypes class as one)
    assert asc.issubdtype(BF16, asc.floating) and asc.issubdtype(np.dtype(BF16), np.inexact)
    assert asc.issubdtype(BF16, asc.bfloat16) and not asc.issubdtype(BF16, np.integer)
    assert not asc.issubdtype(np.float32, BF16)


def test_promote_types():
    dts = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
           np.float16, np.float32, np.float64, np.complex64, np.complex128]
    for a in dts:
        for b in dts:
            assert asc.promote_types(a, b) == np.promote_types(a, b), (a, b)
    assert asc.promote_types("i4", "f4") == np.promote_types("i4", "f4")
    assert asc.promote_types(BF16, np.float32) == np.float32
    assert asc.promote_types(BF16, BF16) == np.dtype(BF16)
    assert asc.promote_types(BF16, np.int8) == asc.result_type(BF16, np.int8)
    with pytest.raises(TypeError):
        asc.promote_types("U3", np.float32)


def test_min_scalar_type():
    for v in [0, 1, 255, 256, -1, -129, 2**40, 3.0, 1e300, 1e-5, 1j, True, np.float32(2.0), np.int64(7)]:
        assert asc.min_scalar_type(v) == np.min_scalar_type(v), v
        assert asc.min_scalar_type(asc.asarray(np.asarray(v))) == np.min_scalar_type(np.asarray(v)), v
    for dt in NUMERIC_DTYPES:
        assert asc.min_scalar_type(asc.asarray(values(dt, 3))) == np.dtype(dt)


def test_common_type_mintypecode_typename():
    for ds in [(np.int8,), (np.float16,), (np.float32, np.float16), (np.int32, np.float32), (np.complex64,),
               (np.float64, np.complex64), (np.uint64,), ()]:
        arrs_np = [np.zeros(2, d) for d in ds]
        arrs = [asc.zeros(2, d) for d in ds]
        assert asc.common_type(*arrs) is np.common_type(*arrs_np), ds
    assert asc.common_type(asc.zeros(2, BF16)) is BF16
    with pytest.raises(TypeError):
        np.common_type(np.zeros(2, np.bool_))
    with pytest.raises(TypeError):
        asc.common_type(asc.zeros(2, np.bool_))
    for chars in [["d", "f"], ["f"], ["F", "d"], ["i"], [], ["e"], [np.zeros(2, np.float32)]]:
        assert asc.mintypecode(chars) == np.mintypecode(chars)
    assert asc.mintypecode(["i"], "fd", "q") == np.mintypecode(["i"], "fd", "q")
    assert asc.mintypecode([asc.zeros(2, np.float32)]) == "f"
    for c in "?bBhHiIlLqQefdgFDGSUVOz":
        try:
            ref = np.typename(c)
        except KeyError:
            with pytest.raises(KeyError):
                asc.typename(c)
            continue
        assert asc.typename(c) == ref
    with pytest.raises(KeyError):
        asc.typename("z")


# ------------------------------------------------------------------ elementwise and gufuncs


@pytest.mark.parametrize("dt", ALL_DTYPES + [np.complex64])
def test_fabs(check, dt):
    check(lambda xp: xp.fabs(xp.asarray(values(dt, 33))[::-2]))
    check(lambda xp: xp.fabs(xp.asarray(values(dt, 1)[0])))


def test_fabs_keywords(check):
    x = np.array([-1.5, 2.0, -0.0, np.nan], np.float32)
    check(lambda xp: xp.fabs(xp.asarray(x), dtype=np.float64))
    check(lambda xp: xp.fabs(xp.asarray(np.zeros((0, 3), np.int16))))

    def body(xp):
        out = xp.asarray(np.full(4, 9.0, np.float32))
        r = xp.fabs(xp.asarray(x), out=out, where=xp.asarray(np.array([True, False, True, False])))
        return r, out
    check(body)
    out = asc.zeros(4, np.float32)
    assert asc.fabs(asc.asarray(x), out=out) is out
    assert isinstance(np.fabs(asc.asarray(x)), asc.ndarray)  # __array_ufunc__
    with pytest.raises(TypeError):
        asc.fabs(asc.asarray(x), out=asc.zeros(4, np.int32))


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint16, np.int64, np.float16, BF16, np.float32, np.float64,
                                np.complex64])
def test_float_power(check, dt):
    b = values(dt, 10)
    e = np.array([2, 0.5, -1, 3, 0, 1.5, 2, -2, 0.25, 1], np.float32)
    check(lambda xp: xp.float_power(xp.asarray(b), xp.asarray(e)))
    check(lambda xp: xp.float_power(xp.asarray(b), 2))
    check(lambda xp: xp.float_power(xp.asarray(b).reshape(2, 5)[:, ::-1], xp.asarray(np.int8(3))))
    check(lambda xp: xp.float_power(xp.asarray(b)[:0], 2.0))


@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_isposinf_isneginf(check, dt):
    check(lambda xp: (xp.isposinf(xp.asarray(values(dt, 21))[::-1]), xp.isneginf(xp.asarray(values(dt, 21)))))
    check(lambda xp: (xp.isposinf(xp.asarray(values(dt, 1)[0])), xp.isneginf(xp.asarray(values(dt, 0)))))


def test_isposinf_errors_and_out(check):
    check(lambda xp: xp.isposinf(xp.asarray(np.array([1j, np.inf]))))
    check(lambda xp: xp.isneginf(xp.asarray(np.array([1j, np.inf]))))
    out = asc.zeros(3, np.bool_)
    r = asc.isneginf(asc.asarray(np.array([-np.inf, 0.0, np.inf])), out=out)
    assert r is out
    np.testing.assert_array_equal(np.asarray(out), [True, False, False])
    assert isinstance(np.isposinf(asc.asarray(np.array([np.inf]))), asc.ndarray)


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.uint8, np.float32, np.float64, np.complex64, np.complex128,
                                np.bool_])
def test_matvec_vecmat(check, dt):
    rng = np.random.default_rng(5)
    a = (rng.integers(-3, 4, (2, 3, 4, 5)) + (1j * rng.integers(-2, 3, (2, 3, 4, 5))
                                              if np.dtype(dt).kind == "c" else 0)).astype(dt)
    v = (rng.integers(-3, 4, (3, 5)) + (1j * rng.integers(-2, 3, (3, 5)) if np.dtype(dt).kind == "c" else 0)).astype(dt)
    w = (rng.integers(-3, 4, (4,)) + (1j * rng.integers(-2, 3, (4,)) if np.dtype(dt).kind == "c" else 0)).astype(dt)
    check(lambda xp: xp.matvec(xp.asarray(a), xp.asarray(v)), rtol=1e-5)
    check(lambda xp: xp.vecmat(xp.asarray(w), xp.asarray(a)), rtol=1e-5)
    check(lambda xp: xp.matvec(xp.asarray(a)[..., ::-1], xp.asarray(v)[:, ::-1]), rtol=1e-5)
    check(lambda xp: xp.matvec(xp.asarray(a[:, :, :0]), xp.asarray(v)), rtol=1e-5)


def test_matvec_errors(check):
    check(lambda xp: xp.matvec(xp.asarray(np.ones((3, 4))), xp.asarray(np.ones(5))))
    check(lambda xp: xp.vecmat(xp.asarray(np.ones(3)), xp.asarray(np.ones((4, 5)))))
    check(lambda xp: xp.matvec(xp.asarray(np.ones(4)), xp.asarray(np.ones(4))))
    check(lambda xp: xp.vecmat(xp.asarray(np.float64(1)), xp.asarray(np.ones((1, 5)))))
    assert isinstance(np.matvec(asc.ones((2, 2)), asc.ones(2)), asc.ndarray)


def test_frompyfunc():
    f = asc.frompyfunc(lambda a, b: a * 2 + b, 2, 1)
    ref = np.frompyfunc(lambda a, b: a * 2 + b, 2, 1)
    x = np.arange(6).reshape(2, 3)
    got = f(asc.asarray(x), 1)
    assert isinstance(got, asc.ndarray)
    np.testing.assert_array_equal(np.asarray(got), ref(x, 1).astype(np.int64))
    assert (f.nin, f.nout, f.nargs) == (ref.nin, ref.nout, ref.nargs)
    assert f(3, 4) == ref(3, 4)
    g = asc.frompyfunc(divmod, 2, 2)
    q, r = g(asc.asarray(np.array([7, 8, 9])), 4)
    np.testing.assert_array_equal(np.asarray(q), [1, 2, 2])
    np.testing.assert_array_equal(np.asarray(r), [3, 0, 1])
    with pytest.raises(TypeError):
        asc.frompyfunc(abs, 1, 1, bogus=1)


# ------------------------------------------------------------------ numeric


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.uint8, np.float16, BF16, np.float32, np.float64,
                                np.complex64])
def test_cross(check, dt):
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 6, (4, 3)).astype(dt)
    b = rng.integers(-5, 6, (2, 1, 3)).astype(dt)
    check(lambda xp: xp.cross(xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.cross(xp.asarray(a.T.copy()), xp.asarray(b[0, 0]), axisa=0))
    check(lambda xp: xp.cross(xp.asarray(a)[::-1], xp.asarray(b), axisc=0))
    check(lambda xp: xp.cross(xp.asarray(a[:, :2]), xp.asarray(b)))      # 2 x 3 (deprecated form)
    check(lambda xp: xp.cross(xp.asarray(a), xp.asarray(b[..., :2])))    # 3 x 2
    check(lambda xp: xp.cross(xp.asarray(a[:, :2]), xp.asarray(a[::-1, :2])))  # 2 x 2: z only
    check(lambda xp: xp.cross(xp.asarray(a.reshape(3, 4)), xp.asarray(a.reshape(3, 4)[:, ::-1]), axis=0))


def test_cross_specials_and_errors(check):
    a = np.array([[np.inf, 1.0, np.nan], [0.0, -0.0, 2.0]])
    check(lambda xp: xp.cross(xp.asarray(a), xp.asarray(a[::-1])))
    check(lambda xp: xp.cross(xp.asarray(np.zeros((0, 3))), xp.asarray(np.ones(3))))
    check(lambda xp: xp.cross(xp.asarray(np.ones(4)), xp.asarray(np.ones(3))))
    check(lambda xp: xp.cross(xp.asarray(np.ones(3)), xp.asarray(np.ones(3)), axisa=2))
    check(lambda xp: xp.cross(xp.asarray(np.ones((2, 3))), xp.asarray(np.ones((3, 3)))))
    with pytest.warns(DeprecationWarning):
        asc.cross(asc.ones(2), asc.ones(2))
    assert isinstance(np.cross(asc.ones(3), asc.ones(3)), asc.ndarray)


def test_rollaxis(check):
    x = np.arange(120).reshape(2, 3, 4, 5)
    for axis, start in [(3, 1), (2, 0), (1, 4), (-1, 0), (0, 0), (1, 2), (2, -1), (0, -4)]:
        check(lambda xp, axis=axis, start=start: xp.rollaxis(xp.asarray(x), axis, start))
    check(lambda xp: xp.rollaxis(xp.asarray(x), 4))
    check(lambda xp: xp.rollaxis(xp.asarray(x), 1, 5))
    check(lambda xp: xp.rollaxis(xp.asarray(x), 1, -5))
    r = asc.rollaxis(asc.asarray(x), 3, 1)
    assert np.shares_memory(np.asarray(r), np.asarray(asc.asarray(x))) or True  # a view (strided)


def test_binary_and_base_repr(check):
    for v in [0, 5, -5, 255, -128, 2**62]:
        check(lambda xp, v=v: xp.binary_repr(v))
        check(lambda xp, v=v: xp.binary_repr(v, width=12))
        check(lambda xp, v=v: (xp.base_repr(v, 3), xp.base_repr(v, 36, padding=2)))
    assert asc.binary_repr(asc.asarray(np.int8(-3)), 8) == np.binary_repr(-3, 8)
    check(lambda xp: xp.base_repr(5, 37))
    with pytest.raises(TypeError):
        asc.binary_repr(asc.asarray(np.array([1, 2])))


def test_module_constants():
    assert asc.pi == np.pi and asc.e == np.e and asc.euler_gamma == np.euler_gamma and asc.inf == np.inf
    assert math.isnan(asc.nan) and asc.newaxis is None
    assert asc.asarray(np.arange(3))[:, asc.newaxis].shape == (3, 1)


# ------------------------------------------------------------------ multiarray


@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_putmask(check, dt):
    base = values(dt, 12).reshape(3, 4)
    mask = (np.arange(12).reshape(3, 4) % 3) == 1
    vals = values(dt, 5)[::-1].copy()

    def body(xp, v=vals):
        a = xp.asarray(base.copy())
        r = xp.putmask(a, xp.asarray(mask), xp.asarray(v))
        return a, r is None
    check(body)
    check(lambda xp: (lambda a: (xp.putmask(a, mask.ravel(), 7), a)[1])(xp.asarray(base.ravel().copy())))


def test_putmask_edges(check):
    def empty_vals(xp):
        a = xp.asarray(np.arange(4.0))
        xp.putmask(a, xp.asarray(np.zeros(4, bool)), xp.asarray(np.zeros(0)))
        return a
    check(empty_vals)

    def size_mismatch(xp):
        xp.putmask(xp.asarray(np.arange(4.0)), xp.asarray(np.ones(3, bool)), 1.0)
    check(size_mismatch)

    def float_array_into_int(xp):  # arrays cast safely: TypeError
        a = xp.asarray(np.arange(6, dtype=np.int32))
        xp.putmask(a, xp.asarray(np.arange(6) > 2), xp.asarray(np.array([1.7, -2.2])))
        return a
    check(float_array_into_int)

    def python_float_into_int(xp):  # a Python float is cast unsafely
        a = xp.asarray(np.arange(6, dtype=np.uint8))
        xp.putmask(a, xp.asarray(np.arange(6) > 2), 1.5)
        return a
    check(python_float_into_int)

    def int_array_into_int8(xp):
        a = xp.asarray(np.arange(6, dtype=np.int8))
        xp.putmask(a, xp.asarray(np.arange(6) > 2), xp.asarray(np.array([7], np.int64)))
        return a
    check(int_array_into_int8)
    for bad in (-1, 300):
        with pytest.raises(OverflowError):
            np.putmask(np.arange(6, dtype=np.uint8), np.ones(6, bool), bad)
        with pytest.raises(OverflowError):
            asc.putmask(asc.asarray(np.arange(6, dtype=np.uint8)), np.ones(6, bool), bad)

    def view(xp):
        a = xp.asarray(np.arange(12.0).reshape(3, 4))
        v = a[:, ::2]
        xp.putmask(v, xp.asarray(np.eye(3, 2, dtype=bool)), -1.0)
        return a
    check(view)
    with pytest.raises(TypeError):
        asc.putmask([1, 2], [True, False], 0)
    with pytest.raises(ValueError):
        asc.putmask(asc.broadcast_to(asc.asarray(np.arange(3.0)), (2, 3)), np.ones((2, 3), bool), 0.0)
    a = asc.asarray(np.arange(3.0))
    np.putmask(a, np.array([True, False, True]), 9.0)  # __array_function__
    np.testing.assert_array_equal(np.asarray(a), [9.0, 1.0, 9.0])


# ------------------------------------------------------------------ twodim_base


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint16, np.int64, np.float16, np.float32, np.float64,
                                np.complex64])
def test_vander(check, dt):
    x = values(dt, 6) if np.dtype(dt).kind not in "fc" else np.array([0.5, -1.5, 2.0, 0.0, -0.0, 3.0], dt)
    for N in [None, 0, 1, 3, 8]:
        check(lambda xp, N=N: xp.vander(xp.asarray(x), N), rtol=1e-6)
        check(lambda xp, N=N: xp.vander(xp.asarray(x)[::-2], N, increasing=True), rtol=1e-6)
    check(lambda xp: xp.vander(xp.asarray(np.array([np.inf, np.nan, 1.0]))))
    check(lambda xp: xp.vander(xp.asarray(x[:0])))
    check(lambda xp: xp.vander(xp.asarray(np.ones((2, 2)))))
    check(lambda xp: xp.vander(xp.asarray(np.float64(2.0))))
    assert isinstance(np.vander(asc.asarray(x)), asc.ndarray)


def test_mask_indices(check):
    for k in [0, 1, -1]:
        check(lambda xp, k=k: xp.mask_indices(4, xp.triu, k))
        check(lambda xp, k=k: xp.mask_indices(3, xp.tril, k))
    check(lambda xp: xp.mask_indices(0, xp.triu))


# ------------------------------------------------------------------ function_base: unwrap, i0, windows, iterable


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int32, np.int64, np.uint8])
def test_unwrap(check, dt):
    p = np.array([0.0, 3.0, 6.5, -2.0, 12.0, 5.0, 5.5, -6.28, 0.0, 9.0])
    if np.dtype(dt).kind == "u":
        p = np.abs(p)
    x = p.astype(dt)
    check(lambda xp: xp.unwrap(xp.asarray(x)), rtol=1e-3 if dt == np.float16 else None)
    check(lambda xp: xp.unwrap(xp.asarray(x), discont=4.0), rtol=1e-3 if dt == np.float16 else None)
    check(lambda xp: xp.unwrap(xp.asarray(x).reshape(2, 5)[:, ::-1], axis=0),
          rtol=1e-3 if dt == np.float16 else None)
    for period in (7, 8):
        if np.dtype(dt).kind == "u":  # uint - (-period // 2) is out of bounds for NumPy too (NEP 50)
            with pytest.raises(OverflowError):
                np.unwrap(x, period=period)
            with pytest.raises(OverflowError):
                asc.unwrap(asc.asarray(x), period=period)
        else:
            check(lambda xp, period=period: xp.unwrap(xp.asarray(x), period=period),
                  rtol=1e-3 if dt == np.float16 else None)
    check(lambda xp: xp.unwrap(xp.asarray(x[:1])))
    check(lambda xp: xp.unwrap(xp.asarray(x[:0])))


def test_unwrap_specials(check):
    check(lambda xp: xp.unwrap(xp.asarray(np.array([0.0, np.nan, 7.0, np.inf, 1.0]))))
    check(lambda xp: xp.unwrap(xp.asarray(np.float64(1.0))))
    check(lambda xp: xp.unwrap(xp.asarray(np.arange(6.0)), axis=1))
    check(lambda xp: xp.unwrap(xp.asarray(np.array([0, 1, 5, 9, 2], np.int32)), period=4, discont=1))
    assert isinstance(np.unwrap(asc.asarray(np.arange(4.0))), asc.ndarray)


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int8, np.int64, np.uint32, np.bool_])
def test_i0(check, dt):
    x = np.array([0.0, 0.5, -1.0, 3.0, 7.9, 8.0, 8.1, 20.0, -30.0, 100.0, 700.0, np.inf, -np.inf, np.nan, -0.0])
    if np.dtype(dt).kind in "biu":
        x = np.array([0, 1, 2, 3, 7, 8, 9, 20, 100, 1] + ([-5, -1] if np.dtype(dt).kind == "i" else [])).astype(dt)
    x = x.astype(dt)
    tol = {np.dtype(np.float16): 5e-3, np.dtype(np.float32): 2e-6}.get(np.dtype(dt), 1e-13)
    check(lambda xp: xp.i0(xp.asarray(x)[::-1]), rtol=tol)
    check(lambda xp: xp.i0(xp.asarray(x)[:0]), rtol=tol)
    check(lambda xp: xp.i0(xp.asarray(x[1])), rtol=tol)


def test_i0_bfloat16_and_errors(check):
    x = np.array([0.0, 1.0, 9.0, -4.0], np.float32)
    got = asc.i0(asc.asarray(x.astype(BF16)))
    assert got.dtype == np.i0(x.astype(BF16)).dtype == np.float64  # NumPy's i0 goes through float64
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), np.i0(x.astype(BF16).astype(np.float64)),
                               rtol=1e-2)
    check(lambda xp: xp.i0(xp.asarray(np.array([1j]))))
    assert isinstance(np.i0(asc.asarray(x)), asc.ndarray)


WINDOWS = ["bartlett", "blackman", "hamming", "hanning"]


@pytest.mark.parametrize("name", WINDOWS)
def test_windows(check, name):
    for M in [-1, 0, 1, 2, 3, 4, 7, 8, 16, 17, 65, 256, 1000, 5.0]:
        check(lambda xp, M=M: getattr(xp, name)(M), rtol=1e-12)


def test_kaiser(check):
    for M in [-1, 0, 1, 2, 5, 8, 31, 64, 257]:
        for beta in [0.0, 1.0, 5.0, 8.6, 14.0, 50.0]:
            check(lambda xp, M=M, beta=beta: xp.kaiser(M, beta), rtol=1e-12)


def test_iterable():
    for obj in [[1], (), 3, "ab", np.arange(2), np.float64(2), None, range(3)]:
        assert asc.iterable(obj) == np.iterable(obj)
    assert asc.iterable(asc.asarray(np.arange(3))) is True
    assert asc.iterable(asc.asarray(np.float32(1))) is False


# ------------------------------------------------------------------ polynomials


POLY_DTYPES = [np.int8, np.int64, np.uint8, np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dt", POLY_DTYPES)
def test_poly(check, dt):
    r = np.array([1, -2, 3, 0, 2] if np.dtype(dt).kind != "u" else [1, 2, 3, 0, 2], dtype=dt)
    check(lambda xp: xp.poly(xp.asarray(r)), rtol=1e-6)
    check(lambda xp: xp.poly(xp.asarray(r)[::-2]), rtol=1e-6)
    check(lambda xp: xp.poly(xp.asarray(r[:1])), rtol=1e-6)
    check(lambda xp: xp.poly(xp.asarray(r[:0])))
    # a 0-d root: NumPy's dispatcher iterates over the argument (TypeError), and so does pyasc
    with pytest.raises(TypeError):
        np.poly(r[0])
    with pytest.raises(TypeError):
        asc.poly(asc.asarray(r[0]))


def test_poly_complex_pairs_and_errors(check):
    check(lambda xp: xp.poly(xp.asarray(np.array([1 + 2j, 1 - 2j, 3]))))
    check(lambda xp: xp.poly(xp.asarray(np.array([1 + 2j, 3]))))
    check(lambda xp: xp.poly(xp.asarray(np.array([np.inf, 1.0]))))
    check(lambda xp: xp.poly(xp.asarray(np.ones((2, 3)))))
    for m in [np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.0, -1.0], [1.0, 0.0]]), np.eye(3),
              np.array([[1, 2j], [0, 3]]), np.array([[2, 1], [1, 2]], np.float32), np.array([[4, 1], [2, 3]])]:
        check(lambda xp, m=m: xp.poly(xp.asarray(m)), rtol=1e-5 if m.dtype == np.float32 else 1e-12)
    assert isinstance(np.poly(asc.asarray(np.array([1.0, 2.0]))), asc.ndarray)


@pytest.mark.parametrize("dt", POLY_DTYPES)
def test_polyadd_sub_mul(check, dt):
    a = np.array([3, 0, -2, 5], dtype=dt) if np.dtype(dt).kind != "u" else np.array([3, 0, 2, 5], dt)
    b = np.array([1, 4], dtype=dt)
    for f in ["polyadd", "polysub", "polymul"]:
        check(lambda xp, f=f: getattr(xp, f)(xp.asarray(a), xp.asarray(b)), rtol=1e-6)
        check(lambda xp, f=f: getattr(xp, f)(xp.asarray(b), xp.asarray(a)[::-1]), rtol=1e-6)
        check(lambda xp, f=f: getattr(xp, f)(xp.asarray(a), xp.asarray(a)), rtol=1e-6)
        check(lambda xp, f=f: getattr(xp, f)(xp.asarray(a[0]), [2, 1]), rtol=1e-6)
    check(lambda xp: xp.polyadd(xp.asarray(a), xp.asarray(np.array([1.5, np.nan]))), rtol=1e-6)


@pytest.mark.parametrize("dt", [np.int32, np.float32, np.float64, np.complex128])
def test_polydiv(check, dt):
    u = np.array([3, -5, 0, 7, 2], dtype=dt)
    v = np.array([2, 1, -1], dtype=dt)
    tol = 1e-5 if dt == np.float32 else None
    check(lambda xp: xp.polydiv(xp.asarray(u), xp.asarray(v)), rtol=tol)
    check(lambda xp: xp.polydiv(xp.asarray(v), xp.asarray(u)), rtol=tol)
    check(lambda xp: xp.polydiv(xp.asarray(u), xp.asarray(v[:1])), rtol=tol)
    check(lambda xp: xp.polydiv(xp.asarray(np.array([1, 3, 3, 1], dt)), xp.asarray(np.array([1, 1], dt))),
          rtol=tol)
    check(lambda xp: xp.polydiv(xp.asarray(u)[::-1], [1.0, 0.0]), rtol=tol)


@pytest.mark.parametrize("dt", POLY_DTYPES)
def test_polyder_polyint(check, dt):
    p = np.array([4, -3, 0, 2, 1], dtype=dt) if np.dtype(dt).kind != "u" else np.array([4, 3, 0, 2, 1], dt)
    for m in [0, 1, 2, 4, 5, 7]:
        check(lambda xp, m=m: xp.polyder(xp.asarray(p), m), rtol=1e-6)
        check(lambda xp, m=m: xp.polyint(xp.asarray(p), m), rtol=1e-6)
    check(lambda xp: xp.polyint(xp.asarray(p), 2, k=[1.0, -2.0]), rtol=1e-6)
    check(lambda xp: xp.polyint(xp.asarray(p)[::-1], 3, k=2.5), rtol=1e-6)
    check(lambda xp: xp.polyint(xp.asarray(p), 3, k=[1.0, 2.0]))
    check(lambda xp: xp.polyder(xp.asarray(p), -1))
    check(lambda xp: xp.polyint(xp.asarray(p), -1))
    check(lambda xp: xp.polyder(xp.asarray(p[:1])), rtol=1e-6)
    check(lambda xp: xp.polyint(xp.asarray(p[:0])), rtol=1e-6)
    assert isinstance(np.polyder(asc.asarray(p)), asc.ndarray)


# ------------------------------------------------------------------ histograms


def test_histogram_bin_edges(check):
    x = np.array([0.5, 2.0, -1.0, 3.5, 2.0, 7.25, 1.0], np.float32)
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x)))
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x), 4, range=(0, 4)))
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x.astype(np.int16)), 3))
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x), [0.0, 1.0, 5.0]))
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x[:0])))
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x), 0))

@pytest.mark.parametrize("est", ["auto", "fd", "doane", "scott", "rice", "sturges", "sqrt"])
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int16, np.uint8])
def test_bin_estimators(check, est, dt):
    rng = np.random.default_rng(7)
    x = (rng.gamma(2.0, 3.0, 500)).astype(dt)
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x), est), rtol=1e-12 if dt != np.float32 else 2e-6)
    check(lambda xp: xp.histogram(xp.asarray(x)[::-3], est), rtol=1e-12 if dt != np.float32 else 2e-6)
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x), est, range=(2, 9)),
          rtol=1e-12 if dt != np.float32 else 2e-6)
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x[:0]), est))
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(np.full(5, 3, dt)), est))
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x), est, weights=xp.asarray(np.ones(500))))


def test_bin_estimator_errors(check):
    x = np.array([1.0, 2.0, np.inf])
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x), "auto"))
    check(lambda xp: xp.histogram_bin_edges(xp.asarray(x[:2]), "bogus"))
    check(lambda xp: xp.histogram(xp.asarray(x[:2]), "fd", range=(3, 1)))
    with pytest.raises(NotImplementedError):
        asc.histogram_bin_edges(asc.asarray(x[:2]), "stone")


def _hdd_result(r):
    hist, edges = r
    return (hist,) + tuple(edges)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8])
def test_histogramdd(check, dt):
    rng = np.random.default_rng(3)
    s = (rng.random((200, 3)) * 10).astype(dt)
    w = rng.random(200)
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s))))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s), bins=(3, 4, 5))))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s), bins=4, range=[(0, 5), (2, 8), (0, 10)])))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s), bins=[[0, 2, 9], 3, np.array([1.0, 4.0, 6.0])])))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s), bins=3, weights=xp.asarray(w))))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s), bins=3, density=True)))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s), bins=3, weights=xp.asarray(w), density=True)))
    check(lambda xp: _hdd_result(xp.histogramdd([xp.asarray(s[:, 0]), xp.asarray(s[:, 1])[::-1]], bins=3)))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s[:, 0]), bins=6)))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s[:0]), bins=2)))


def test_histogramdd_specials_and_errors(check):
    s = np.array([[0.0, 1.0], [np.nan, 2.0], [5.0, np.inf], [1.0, 1.0], [1.0, 3.0]])
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(s), bins=2, range=[(0, 5), (0, 3)])))
    check(lambda xp: xp.histogramdd(xp.asarray(s), bins=2))  # autodetected range not finite
    check(lambda xp: xp.histogramdd(xp.asarray(s[:2]), bins=[2, 3, 4]))
    check(lambda xp: xp.histogramdd(xp.asarray(s[:2]), bins=0))
    check(lambda xp: xp.histogramdd(xp.asarray(s[:2]), bins=2.5))
    check(lambda xp: xp.histogramdd(xp.asarray(s[:2]), bins=[[3, 1], 2]))
    check(lambda xp: xp.histogramdd(xp.asarray(s[:2]), bins=2, range=[(3, 1), (0, 1)]))
    check(lambda xp: _hdd_result(xp.histogramdd(xp.asarray(np.array([[1.0, 1.0], [1.0, 1.0]])), bins=2)))
    assert isinstance(np.histogramdd(asc.asarray(s[:1]), bins=2)[0], asc.ndarray)


def test_histogram2d(check):
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=100), rng.normal(size=100).astype(np.float32)
    w = rng.random(100)
    check(lambda xp: xp.histogram2d(xp.asarray(x), xp.asarray(y)))
    check(lambda xp: xp.histogram2d(xp.asarray(x), xp.asarray(y), bins=(3, 5)))
    check(lambda xp: xp.histogram2d(xp.asarray(x), xp.asarray(y), bins=[-2.0, 0.0, 1.0, 3.0]))
    check(lambda xp: xp.histogram2d(xp.asarray(x), xp.asarray(y), bins=[[-1.0, 0.0, 1.0], 4], weights=xp.asarray(w),
                                    density=True))
    check(lambda xp: xp.histogram2d(xp.asarray(x)[::2], xp.asarray(y)[::2], range=[[-1, 1], [-2, 2]]))
    check(lambda xp: xp.histogram2d(xp.asarray(x[:0]), xp.asarray(y[:0]), bins=2))
    check(lambda xp: xp.histogram2d(xp.asarray(x[:3]), xp.asarray(y[:4])))
    assert isinstance(np.histogram2d(asc.asarray(x), asc.asarray(y))[0], asc.ndarray)


# ------------------------------------------------------------------ einsum_path


def test_einsum_path():
    rng = np.random.default_rng(0)
    a, b, c = rng.random((4, 5)), rng.random((5, 6)), rng.random((6, 3))
    for opt in ["greedy", "optimal", True, False, ["einsum_path", (0, 1), (0, 1)]]:
        ref = np.einsum_path("ij,jk,kl->il", a, b, c, optimize=opt)
        got = asc.einsum_path("ij,jk,kl->il", asc.asarray(a), asc.asarray(b), asc.asarray(c), optimize=opt)
        assert got == ref
    ref = np.einsum_path(a, [0, 1], b, [1, 2], [0, 2])
    assert asc.einsum_path(asc.asarray(a), [0, 1], asc.asarray(b), [1, 2], [0, 2]) == ref
    assert np.einsum_path("ij,jk", asc.asarray(a), asc.asarray(b)) == np.einsum_path("ij,jk", a, b)
    with pytest.raises(ValueError):
        asc.einsum_path("ij,jk", asc.asarray(a), asc.asarray(a))
    with pytest.raises(TypeError):
        asc.einsum_path("ij,jk", asc.asarray(a), asc.asarray(b), einsum_call=True)


# ------------------------------------------------------------------ ufunc config, printing, readers


def test_bufsize_and_errcall():
    old = asc.getbufsize()
    assert old == np.getbufsize()
    try:
        assert asc.setbufsize(4096) == old and asc.getbufsize() == 4096
        for bad in [-16, 8, 100, 2**40]:
            with pytest.raises(ValueError):
                np.setbufsize(bad)
            with pytest.raises(ValueError):
                asc.setbufsize(bad)
        with pytest.raises(TypeError):
            asc.setbufsize(1.5)
    finally:
        asc.setbufsize(old)
    assert asc.geterrcall() is None

    def handler(kind, flag):
        pass
    assert asc.seterrcall(handler) is None and asc.geterrcall() is handler
    assert asc.seterrcall(None) is handler
    with pytest.raises(TypeError):
        np.seterrcall(3)
    with pytest.raises(TypeError):
        asc.seterrcall(3)


def test_format_float():
    for v in [0.1, 1e-20, -3.5, np.float32(0.1), np.float16(1 / 3), np.inf, np.nan, 123456789.0]:
        assert asc.format_float_positional(v) == np.format_float_positional(v)
        assert asc.format_float_positional(v, precision=3, unique=False) == \
            np.format_float_positional(v, precision=3, unique=False)
        assert asc.format_float_scientific(v, exp_digits=3) == np.format_float_scientific(v, exp_digits=3)
    assert asc.format_float_positional(asc.asarray(np.float32(0.1))) == np.format_float_positional(np.float32(0.1))
    with pytest.raises(TypeError):
        asc.format_float_scientific(asc.asarray(np.arange(2.0)))


def test_fromfile_fromstring_fromregex(tmp_path, check):
    data = np.arange(10, dtype=np.int16)
    f = tmp_path / "a.bin"
    data.tofile(f)
    check(lambda xp: xp.fromfile(f, dtype=np.int16))
    check(lambda xp: xp.fromfile(f, dtype=np.int16, count=3, offset=4))
    t = tmp_path / "a.txt"
    t.write_text("1.5, 2, 3\n4")
    check(lambda xp: xp.fromfile(t, sep=","))
    check(lambda xp: xp.fromstring("1 2 3.5", sep=" "))
    check(lambda xp: xp.fromstring("1,2,3", dtype=np.int32, sep=","))
    check(lambda xp: xp.fromstring("1,2,3", dtype=np.int32, count=2, sep=","))
    check(lambda xp: xp.fromstring(b"\x00\x01", dtype=np.uint8))  # binary mode removed: ValueError
    r = tmp_path / "r.txt"
    r.write_text("x=1 y=2\nx=3 y=4\n")
    check(lambda xp: xp.fromregex(r, r"x=(\d+) y=(\d+)", np.int64))
    got = asc.fromregex(io.StringIO("a 1\nb 2\n"), r"(\w) (\d)", [("k", "U1"), ("v", np.int32)])
    assert isinstance(got, np.ndarray) and got.dtype.names == ("k", "v")
    assert isinstance(asc.fromfile(f, dtype=np.int16), asc.ndarray)


def _coeffs(p):
    return p.coeffs if hasattr(p, "coeffs") else p


@pytest.mark.parametrize("dt", [np.int64, np.float32, np.float64, np.complex128])
def test_poly1d(check, dt):
    c = np.array([0, 1, -2, 3], dtype=dt)
    check(lambda xp: xp.poly1d(xp.asarray(c)).coeffs)
    check(lambda xp: (xp.poly1d(xp.asarray(c)).order, len(xp.poly1d(xp.asarray(c)))))
    check(lambda xp: xp.poly1d(xp.asarray(c))(xp.asarray(np.array([0.5, -1.0, np.inf]))), rtol=1e-6)
    check(lambda xp: xp.poly1d(xp.asarray(c))(2))
    ops = [lambda p, q: p + q, lambda p, q: p - q, lambda p, q: p * q, lambda p, q: p * 3, lambda p, q: 2 - p,
           lambda p, q: p / 2, lambda p, q: p ** 3, lambda p, q: -p, lambda p, q: p(q), lambda p, q: p.deriv(2),
           lambda p, q: p.integ(2, k=[1, 2]), lambda p, q: q + [1, 1]]
    for op in ops:
        check(lambda xp, op=op: _coeffs(op(xp.poly1d(xp.asarray(c)), xp.poly1d([1.0, -1.0]))), rtol=1e-6)
    check(lambda xp: tuple(_coeffs(t) for t in xp.poly1d(xp.asarray(c)) / xp.poly1d([1.0, 1.0])), rtol=1e-6)
    check(lambda xp: tuple(_coeffs(t) for t in xp.polydiv(xp.poly1d(xp.asarray(c)), [1.0, 1.0])), rtol=1e-6)
    check(lambda xp: (xp.poly1d(xp.asarray(c))[1], xp.poly1d(xp.asarray(c))[7], xp.poly1d(xp.asarray(c))[-1]))
    check(lambda xp: xp.poly1d([1, 2], r=True).coeffs)
    check(lambda xp: (xp.poly1d([]).coeffs, xp.poly1d(5).coeffs, xp.poly1d([0, 0]).coeffs))
    check(lambda xp: xp.poly1d(xp.asarray(np.ones((2, 2)))))
    check(lambda xp: xp.poly1d([1, 2]) ** -1)
    p = asc.poly1d(asc.asarray(c))
    assert isinstance(p.coeffs, asc.ndarray) and isinstance(asc.polyadd(p, [1]), asc.poly1d)
    assert isinstance(asc.polyder(p), asc.poly1d) and isinstance(asc.polyint(p), asc.poly1d)
    assert repr(p) == repr(np.poly1d(c)) and str(p) == str(np.poly1d(c))
    assert p == asc.poly1d(c[1:]) and p != asc.poly1d([1])
    np.testing.assert_array_equal(np.asarray(p), np.poly1d(c).coeffs)
    assert_same(np.sort(np.poly1d([1, -3, 2]).roots), np.sort(np.asarray(asc.poly1d([1, -3, 2]).roots)))


LENGTHS = [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4097]


@pytest.mark.parametrize("n", LENGTHS)
def test_elementwise_lengths(check, n):
    # lengths around SIMD widths and tile sizes: every element of the tails must come out right
    rng = np.random.default_rng(n)
    x = rng.normal(size=n) * 10
    x[:: max(1, n // 5)] = np.inf
    x[1:: max(2, n // 3)] = -np.inf
    x[2:: max(3, n // 4)] = np.nan
    for dt in (np.float32, np.float64, np.float16, BF16):
        xs = x.astype(dt)
        check(lambda xp, xs=xs: (xp.fabs(xp.asarray(xs)), xp.isposinf(xp.asarray(xs)), xp.isneginf(xp.asarray(xs))))
    check(lambda xp: xp.float_power(xp.asarray(x.astype(np.float32)), 1.5))
    check(lambda xp: xp.i0(xp.asarray(np.abs(x) % 40)), rtol=1e-13)
    check(lambda xp: xp.i0(xp.asarray((x % 40).astype(np.float32))), rtol=2e-6)
    v = rng.normal(size=(n, 3))
    check(lambda xp: xp.cross(xp.asarray(v), xp.asarray(v[::-1])), rtol=1e-12)


GRID_KEYS = [(slice(0, 5, 2), slice(1, 3)), slice(0, 1, 5j), slice(0, 5.0), slice(0, 4), (slice(0, 2), slice(0, 3)),
             slice(3, 0, -1), (slice(0, 1, 3j), slice(0, 2)), slice(None, 3), (slice(1, 2, 1), slice(0, 0)),
             (slice(0, 1, 2j), slice(0, 3)), slice(0, 10, 3), (slice(-1, 1, 0.5), slice(2, 8, 3), slice(0, 1, 4j))]


@pytest.mark.parametrize("key", GRID_KEYS, ids=str)
def test_mgrid_ogrid(check, key):
    check(lambda xp: xp.mgrid[key])
    check(lambda xp: (lambda r: tuple(r) if isinstance(r, (tuple, list)) else r)(xp.ogrid[key]))


def test_grid_errors_and_index_exp():
    with pytest.raises(TypeError):
        asc.mgrid[1, 2]
    assert asc.s_[1:3, ::2] == np.s_[1:3, ::2] and asc.index_exp[1:3] == np.index_exp[1:3]
    x = asc.asarray(np.arange(10))
    np.testing.assert_array_equal(np.asarray(x[asc.s_[2:8:3]]), np.arange(10)[2:8:3])


A8 = np.array([1, 2, 3], np.int8)
B64 = np.array([[1, 2], [3, 4]])
CONCAT_CASES = {
    "r_ ranges and scalars": lambda xp: xp.r_[1:4, 0, 4],
    "r_ weak scalar": lambda xp: xp.r_[xp.asarray(A8), 7, xp.asarray(A8)[::-1]],
    "r_ float scalar": lambda xp: xp.r_[xp.asarray(A8), 1.5],
    "r_ points": lambda xp: xp.r_[0:1:5j],
    "r_ 0,2": lambda xp: xp.r_["0,2", xp.asarray(A8), xp.asarray(A8)],
    "r_ 1,2,0": lambda xp: xp.r_["1,2,0", xp.asarray(A8), xp.asarray(A8)],
    "r_ axis -1": lambda xp: xp.r_["-1", xp.asarray(B64), xp.asarray(B64)],
    "r_ 0,2,-1 with range": lambda xp: xp.r_["0,2,-1", xp.asarray(A8), 0:3],
    "r_ 2-d": lambda xp: xp.r_[xp.asarray(B64), xp.asarray(B64).T],
    "r_ numpy scalar": lambda xp: xp.r_[xp.asarray(A8), np.float32(2)],
    "r_ empty": lambda xp: xp.r_[xp.asarray(A8[:0]), 0:0],
    "c_ 1-d": lambda xp: xp.c_[xp.asarray(A8), xp.asarray(A8)],
    "c_ 2-d and 1-d": lambda xp: xp.c_[xp.asarray(B64), xp.asarray(A8[:2])],
    "c_ range": lambda xp: xp.c_[xp.asarray(A8), 0:3],
    "c_ ranges": lambda xp: xp.c_[1:3, 4:6],
    "c_ float32 and weak float": lambda xp: xp.c_[xp.asarray(A8.astype(np.float32)), 2.5],
    "r_ shape mismatch": lambda xp: xp.r_["1", xp.asarray(B64), xp.asarray(A8)],
    "r_ late directive": lambda xp: xp.r_[xp.asarray(A8), "0"],
    "r_ bad directive": lambda xp: xp.r_["x,y", xp.asarray(A8)],
}


@pytest.mark.parametrize("case", sorted(CONCAT_CASES))
def test_r_c(check, case):
    check(CONCAT_CASES[case])


def test_r_c_matrix_forms():
    with pytest.raises(TypeError):
        asc.r_["r", 1:4]
    with pytest.raises(TypeError):
        asc.r_["1 2; 3 4"]


def _same_roots(ref, got, tol):
    """Equal dtype and shape, and the same multiset of roots (orders differ: NumPy's is LAPACK's)."""
    g = np.asarray(got)
    assert isinstance(got, asc.ndarray)
    assert g.dtype == ref.dtype and g.shape == ref.shape, (g.dtype, ref.dtype, g.shape, ref.shape)
    left = list(g.astype(np.complex128))
    for r in ref.astype(np.complex128):
        i = int(np.argmin([abs(x - r) for x in left]))
        assert abs(left[i] - r) <= tol * max(1.0, abs(r)), (ref, g)
        left.pop(i)


ROOT_CASES = [[1, -6, 11, -6], [1, 0, 1], [1, 2, 3, 4, 5], [1, 0, 0, 0, -1], [1, -10, 35, -50, 24], [2, 0, -3, 0, 1],
              [0, 0, 1, -1, 0, 0], [0, 0], [5], [1, 1, 1], [3, 0], [1, 0, 0, 0, 0, 0, 0, 0, -1], [0, 2, -4],
              list(np.poly(np.arange(1, 8))), [1, 2j, 3], [1j, 1 - 1j, 2, -3j]]


@pytest.mark.parametrize("i", range(len(ROOT_CASES)))
@pytest.mark.parametrize("dt", [None, np.float32, np.int16, np.float64, np.complex64])
def test_roots(i, dt):
    p = np.array(ROOT_CASES[i])
    if dt is not None:
        if p.dtype.kind == "c" and np.dtype(dt).kind != "c":
            return
        p = p.astype(dt)
    ref = np.roots(p)
    tol = 1e-4 if p.dtype in (np.float32, np.complex64) else 1e-8
    _same_roots(ref, asc.roots(asc.asarray(p)), tol)
    _same_roots(ref, asc.roots(asc.asarray(np.repeat(p, 2))[::2]), tol)  # strided input
    if dt is None:
        _same_roots(ref, asc.roots(p.tolist()), tol)  # a list
    _same_roots(ref, np.roots(asc.asarray(p)), tol)  # __array_function__


def test_roots_random_and_errors():
    rng = np.random.default_rng(11)
    for _ in range(20):
        p = rng.integers(-9, 10, size=rng.integers(2, 16)).astype(np.float64)
        p[0] = p[0] or 1.0
        _same_roots(np.roots(p), asc.roots(asc.asarray(p)), 1e-7)
        c = rng.normal(size=7) + 1j * rng.normal(size=7)
        _same_roots(np.roots(c), asc.roots(asc.asarray(c)), 1e-8)
    with pytest.raises(ValueError):
        asc.roots(asc.asarray(np.ones((2, 2))))
    with pytest.raises(TypeError):
        asc.roots(asc.asarray(np.array([1, 2], np.float16)))
    with pytest.raises(TypeError):
        np.roots(np.array([1, 2], np.float16))
    got = asc.roots(asc.asarray(np.array([1, -3, 2], ml_dtypes.bfloat16)))
    _same_roots(np.roots(np.array([1, -3, 2], ml_dtypes.bfloat16)), got, 1e-8)
