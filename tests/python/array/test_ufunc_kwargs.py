"""NumPy's ufunc keywords on pyasc's elementwise functions (pyasc._ufunc; issue 20 item 15):
dtype= (the loop NumPy picks), casting=, signature=, out= (tuple, positional, NumPy array,
read-only, wrong dtype / shape, larger), where=, order=, subok=, the exception classes NumPy
raises (huge Python ints, casting errors before shape errors), the Python-level ufuncs
(fabs, float_power, degrees, radians, gcd, lcm) and gufuncs (matmul, matvec, vecmat, vecdot),
against NumPy 2.4 + ml_dtypes over every dtype, lazy and eager."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(d) for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                "float16", "float32", "float64", "complex64", "complex128")] + [BF16]
TARGETS = [np.dtype(d) for d in ("bool", "int8", "uint16", "int64", "float16", "float32", "float64",
                                 "complex64")] + [BF16]
# Inexact results are compared with a tolerance (pyasc's transcendental loops are not NumPy's).
RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-6, "float64": 1e-13, "complex64": 2e-6,
        "complex128": 1e-13}


def values(dt, n=8, seed=0):
    """n values of dt: signed zeros, NaN, ±Inf, halves, extremes of integer types."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return np.array([True, False] * (n // 2 + 1), bool)[:n]
    if dt.kind in "iu":
        i = np.iinfo(dt)
        pool = [0, 1, 2, 3, 7, i.max, i.min, i.max - 1] + ([-1, -5] if dt.kind == "i" else [9, 100])
        return np.array(pool[:n], dtype=dt)
    base = np.array([0.0, -0.0, 1.5, -2.5, np.nan, np.inf, -np.inf, 0.25, 3.0, -7.0])[:n]
    if dt.kind == "c":
        return (base + 1j * base[::-1]).astype(dt)
    with np.errstate(all="ignore"):
        return base.astype(dt)


def run(fn):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as e:  # noqa: BLE001 - compared below
            return None, e


def builtin_base(e):
    return next(c for c in type(e).__mro__ if c.__module__ == "builtins")


def same(got, ref, exact=False):
    """got (pyasc) equals ref (NumPy): dtype, shape, values (NaN where NaN)."""
    g = np.asarray(got)
    r = np.asarray(ref)
    assert g.dtype == r.dtype, (g.dtype, r.dtype)
    assert g.shape == r.shape, (g.shape, r.shape)
    if r.dtype == BF16:
        g, r = g.astype(np.float32), r.astype(np.float32)
    if exact or r.dtype.kind not in "fc":
        np.testing.assert_array_equal(g, r)
    else:
        np.testing.assert_allclose(g, r, rtol=RTOL[str(np.asarray(ref).dtype)], atol=0, equal_nan=True)


def check(np_call, asc_call, exact=False):
    """Both return equal results, or both raise, pyasc an AscendError of NumPy's builtin class."""
    ref, rexc = run(np_call)
    got, gexc = run(asc_call)
    if rexc is not None:
        assert gexc is not None, f"pyasc returned {got!r} where NumPy raised {rexc!r}"
        assert isinstance(gexc, builtin_base(rexc)), f"NumPy {rexc!r}, pyasc {gexc!r}"
        assert isinstance(gexc, asc.AscendError), f"not an AscendError: {gexc!r}"
        return rexc, gexc
    assert gexc is None, f"pyasc raised {gexc!r} where NumPy returned {ref!r}"
    same(got, ref, exact)
    return None, None


UNARY = ["sin", "sqrt", "negative", "absolute", "isfinite", "floor", "invert", "square", "exp2", "rint",
         "signbit", "conjugate", "positive", "logical_not", "arccos", "fabs", "degrees", "radians", "cbrt"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_dtype_selects_numpys_loop(mode, name):
    for dt in DTYPES:
        x = values(dt)
        for target in TARGETS:
            check(lambda: getattr(np, name)(x, dtype=target), lambda: getattr(asc, name)(asc.asarray(x), dtype=target))
        # casting='unsafe' lets every loop take every input
        check(lambda: getattr(np, name)(x, dtype=np.float32, casting="unsafe"),
              lambda: getattr(asc, name)(asc.asarray(x), dtype=np.float32, casting="unsafe"))


def test_dtype_examples(mode):
    x = asc.asarray(np.array([0, 1, 2, -3], np.int8))
    r = asc.sin(x, dtype="float32")
    assert r.dtype == np.float32  # NumPy's 'f->f' loop (without dtype= int8 computes in float16)
    same(r, np.sin(np.array([0, 1, 2, -3], np.int8), dtype="float32"))
    f = asc.asarray(np.ones(3))
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'add' input 0 from dtype\('float64'\) to "
                                        r"dtype\('uint8'\) with casting rule 'same_kind'"):
        asc.add(f, f, dtype="uint8")
    same(asc.add(f, f, dtype="uint8", casting="unsafe"), np.full(3, 2, np.uint8))
    with pytest.raises(TypeError, match="data type 'abc' not understood"):
        asc.sin(f, dtype="abc")
    with pytest.raises(TypeError, match="from an array"):
        asc.sin(f, dtype=f)


BINARY = ["add", "subtract", "multiply", "true_divide", "maximum", "fmin", "arctan2", "copysign", "equal", "less",
          "logical_and", "logical_xor", "bitwise_and", "left_shift", "power", "hypot", "heaviside", "ldexp",
          "floor_divide", "remainder", "logaddexp", "float_power"]
PAIR_DTYPES = [np.dtype(d) for d in ("bool", "int8", "uint8", "int32", "float16", "float32", "float64",
                                     "complex64")] + [BF16]


@pytest.mark.parametrize("name", BINARY)
def test_binary_dtype_and_casting(mode, name):
    for da in PAIR_DTYPES:
        a = values(da)
        for db in (da, np.dtype(np.int64), np.dtype(np.float32)):
            b = values(db)[::-1].copy()
            for target in (np.dtype(np.float32), np.dtype(np.int16), np.dtype(np.bool_), BF16):
                for casting in ("same_kind", "unsafe"):
                    check(lambda: getattr(np, name)(a, b, dtype=target, casting=casting),
                          lambda: getattr(asc, name)(asc.asarray(a), asc.asarray(b), dtype=target, casting=casting))
        # weak Python scalars (NEP 50) next to the array, and alone
        for s in (2, 1.5, True):
            check(lambda: getattr(np, name)(a, s, dtype=np.float64), lambda: getattr(asc, name)(asc.asarray(a), s,
                                                                                               dtype=np.float64))
    check(lambda: getattr(np, name)(3, 2, dtype=np.float32), lambda: getattr(asc, name)(3, 2, dtype=np.float32))


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_casting_rules(mode, casting):
    for da in PAIR_DTYPES:
        a = values(da)
        for target in (None, np.dtype(np.float64), np.dtype(np.int8), np.dtype(np.float16)):
            check(lambda: np.add(a, a, dtype=target, casting=casting),
                  lambda: asc.add(asc.asarray(a), asc.asarray(a), dtype=target, casting=casting))
            check(lambda: np.sqrt(a, dtype=target, casting=casting),
                  lambda: asc.sqrt(asc.asarray(a), dtype=target, casting=casting))
        for od in (np.float16, np.int64, np.bool_):  # out's dtype under the casting rule
            check(lambda: np.multiply(a, a, out=np.zeros(8, od), casting=casting),
                  lambda: asc.multiply(asc.asarray(a), asc.asarray(a), out=asc.zeros(8, od), casting=casting))
    with pytest.raises(ValueError, match="casting must be one of"):
        asc.add(1, 2, casting="bogus")
    with pytest.raises(TypeError, match="casting must be str"):
        asc.add(1, 2, casting=1)
    # an int out of the loop dtype's range is NumPy's OverflowError even with casting='unsafe'
    with pytest.raises(OverflowError, match="300"):
        asc.add(asc.ones(3, np.int8), 300, dtype=np.int8, casting="unsafe")


def test_weak_float_into_bfloat16_goes_through_float32(mode):
    a = np.ones(3, BF16)
    check(lambda: np.add(a, 1.0039062500001, dtype=BF16), lambda: asc.add(asc.asarray(a), 1.0039062500001,
                                                                           dtype=BF16), exact=True)
    check(lambda: np.add(1.0039062500001, 0.0, dtype=BF16), lambda: asc.add(1.0039062500001, 0.0, dtype=BF16),
          exact=True)


def test_signature(mode):
    x = np.array([0.5, -1.5, 2.0])
    for sig in ("f->f", "d->d", (None, "f"), ("f", "f"), (None, np.float16)):
        check(lambda: np.sin(x, signature=sig), lambda: asc.sin(asc.asarray(x), signature=sig))
    for sig in ("ff->f", (None, None, "d"), ("i", "i", "i")):
        check(lambda: np.add(x, x, signature=sig), lambda: asc.add(asc.asarray(x), asc.asarray(x), signature=sig))
        check(lambda: np.add(x, x, signature=sig, casting="unsafe"),
              lambda: asc.add(asc.asarray(x), asc.asarray(x), signature=sig, casting="unsafe"))
    for bad in ("f", 5, "x->y"):
        check(lambda: np.sin(x, signature=bad), lambda: asc.sin(asc.asarray(x), signature=bad))
    with pytest.raises(TypeError, match="cannot specify both 'signature' and 'dtype'"):
        asc.sin(asc.asarray(x), signature="d->d", dtype=np.float64)


def test_out_forms(mode):
    x = np.array([0.5, -1.5, 2.0, np.nan])
    ax = asc.asarray(x)
    for form in ("kw", "tuple", "positional"):
        o = asc.zeros(4)
        r = asc.sin(ax, out=(o,)) if form == "tuple" else asc.sin(ax, o) if form == "positional" else \
            asc.sin(ax, out=o)
        assert r is o
        same(o, np.sin(x))
        o2 = asc.zeros(4)
        r = asc.add(ax, 1, (o2,)[0]) if form == "positional" else asc.add(ax, 1, out=(o2,))
        assert r is o2
        same(o2, x + 1, exact=True)
    same(asc.sin(ax, out=(None,)), np.sin(x))
    same(asc.sin(ax, None), np.sin(x))
    # a NumPy out is written on the host and returned
    n = np.zeros(4)
    assert asc.add(ax, 2, out=n) is n
    np.testing.assert_array_equal(n, x + 2)
    assert asc.sin(ax, out=(n,), dtype=np.float32) is n
    np.testing.assert_allclose(n, np.sin(x, dtype=np.float32), rtol=2e-6)
    # the errors NumPy raises, by class and message
    cases = [
        (lambda xp, a: xp.sin(a, out=()), ValueError, "exactly one entry per ufunc output"),
        (lambda xp, a: xp.sin(a, out=(None, None)), ValueError, "exactly one entry per ufunc output"),
        (lambda xp, a: xp.sin(a, out=[None]), TypeError, "return arrays must be of ArrayType"),
        (lambda xp, a: xp.sin(a, out=5), TypeError, "return arrays must be of ArrayType"),
        (lambda xp, a: xp.sin(a, out=(1, "a")), ValueError, "exactly one entry per ufunc output"),
        (lambda xp, a: xp.sin(a, (xp.zeros(4),)), TypeError, "return arrays must be of ArrayType"),
        (lambda xp, a: xp.sin(a, xp.zeros(4), out=xp.zeros(4)), TypeError, "both a positional and keyword"),
        (lambda xp, a: xp.sin(a, xp.zeros(4), xp.zeros(4)), TypeError, "positional arguments"),
        (lambda xp, a: xp.sin(a, foo=1), TypeError, "unexpected keyword argument 'foo'"),
        (lambda xp, a: xp.sin(a, axes=1), TypeError, "unexpected keyword argument 'axes'"),
        (lambda xp, a: xp.sin(a, out=xp.zeros(4, np.int32)), TypeError, r"Cannot cast ufunc 'sin' output from "
                                                                        r"dtype\('float64'\) to dtype\('int32'\)"),
        (lambda xp, a: xp.sin(a, out=xp.zeros(3)), ValueError, "could not be broadcast"),
        (lambda xp, a: xp.add(a, a, out=xp.zeros((4, 1))), ValueError, "non-broadcastable output operand"),
        (lambda xp, a: xp.sin(a, out=xp.broadcast_to(xp.zeros(1), (4,))), ValueError, "read-only"),
    ]
    for fn, cls, msg in cases:
        with pytest.raises(cls, match=msg):
            fn(np, x)
        with pytest.raises(cls, match=msg) as info:
            fn(asc, ax)
        assert isinstance(info.value, asc.AscendError)


def test_out_larger_than_the_result_broadcasts(mode):
    x = np.array([1.0, 2.0, 3.0])
    for kw in ({}, {"dtype": np.float32}):
        o = asc.zeros((2, 3), kw.get("dtype", np.float64))
        assert asc.add(1, asc.asarray(x), out=o, **kw) is o
        same(o, np.add(1, x, out=np.zeros((2, 3), kw.get("dtype", np.float64)), **kw))
        o = asc.zeros((2, 3))
        assert asc.negative(asc.asarray(x), out=o, **kw) is o
        same(o, np.negative(x, out=np.zeros((2, 3)), **kw))


def test_out_dtype_checked_before_shapes(mode):
    # NumPy resolves the loop (and out's casting) before it broadcasts: TypeError, not ValueError
    a16, b16 = np.arange(6, dtype=np.int16).reshape(3, 2, 1), np.arange(10, dtype=np.int16).reshape(1, 2, 5)
    pairs = [
        (lambda xp, c: xp.copysign(c(a16), c(b16), out=c(np.zeros((3, 2, 1), np.int16)))),
        (lambda xp, c: xp.true_divide(c(np.ones(3, np.uint32)), c(np.ones((3, 3, 4), np.complex64)),
                                      out=c(np.zeros(3)))),
        (lambda xp, c: xp.hypot(c(np.ones(3, np.uint16)), c(np.ones((5, 5, 3), np.float32)),
                                out=c(np.zeros(3, np.int16)))),
        (lambda xp, c: xp.rint(c(np.ones((1, 1, 1, 1), np.int32)), out=c(np.zeros(0, bool)))),
        (lambda xp, c: xp.power(True, [[1.0, 2.0], [3.0, 4.0]], out=c(np.zeros((4, 0), np.uint8)))),
        (lambda xp, c: xp.conj(1j, out=c(np.zeros(2, np.uint8)))),
        (lambda xp, c: xp.matmul(c(np.ones((1, 1))), c(np.ones((3, 3))), out=c(np.zeros((2, 5), np.int16)))),
        (lambda xp, c: xp.matvec(c(np.ones(())), c(np.ones(())), dtype=np.int8)),
        (lambda xp, c: xp.vecmat(c(np.ones(())), c(np.ones((), np.int64)), dtype=np.int8)),
        (lambda xp, c: xp.float_power(c(np.ones(2)), c(np.ones(4, BF16)), dtype=np.complex128,
                                      out=c(np.zeros(2, np.float16)))),
    ]
    for fn in pairs:
        rexc, gexc = check(lambda: fn(np, np.asarray), lambda: fn(asc, asc.asarray))
        assert isinstance(rexc, TypeError) and isinstance(gexc, TypeError), (rexc, gexc)


def test_where(mode):
    x = np.array([0.5, -1.5, 2.0, np.nan, 4.0, -0.0])
    m = np.array([True, False, True, False, True, True])
    for dt in (np.float64, np.float32, np.float16, BF16, np.complex64):
        xv = x.astype(dt)
        for mask in (m, m.tolist(), np.array(True), False, m[None, :].repeat(2, 0)):
            shape = np.broadcast_shapes(np.shape(mask), xv.shape)
            ref = np.full(shape, 9, dt)
            np.sin(xv, out=ref, where=mask)
            o = asc.full(shape, 9, dt)
            assert asc.sin(asc.asarray(xv), out=o,
                           where=asc.asarray(mask) if isinstance(mask, np.ndarray) else mask) is o
            same(o, ref)
        # binary, with a broadcast mask and dtype=
        ref = np.full((2, 6), 7, np.float32)
        np.add(xv, 1, out=ref, where=m, dtype=np.float32, casting="unsafe")
        o = asc.full((2, 6), 7, np.float32)
        asc.add(asc.asarray(xv), 1, out=o, where=asc.asarray(m), dtype=np.float32, casting="unsafe")
        same(o, ref)
    # without out NumPy leaves the masked-off elements uninitialised; pyasc sets them to 0
    r = np.asarray(asc.sin(asc.asarray(x), where=asc.asarray(m)))
    np.testing.assert_allclose(r[m], np.sin(x)[m], rtol=1e-13)
    assert (r[~m] == 0).all()
    assert asc.sin(asc.asarray(x), where=True).shape == (6,)
    assert np.asarray(asc.sin(asc.asarray(x[:1]), where=m)).shape == (6,)  # the mask broadcasts the result
    # the mask converts with casting='safe'; shapes broadcast with out
    for bad, cls in ((np.array([1, 0, 1, 0, 1, 1]), TypeError), (np.ones((2, 6), bool), ValueError)):
        with pytest.raises(cls):
            np.sin(x, out=np.zeros(6), where=bad)
        with pytest.raises(cls):
            asc.sin(asc.asarray(x), out=asc.zeros(6), where=asc.asarray(bad))
    with pytest.raises(TypeError, match="unexpected keyword argument 'where'"):
        asc.matmul(asc.ones((2, 2)), asc.ones((2, 2)), where=True)  # NumPy: gufuncs take no where=


def test_order_and_subok(mode):
    x = np.arange(6.0).reshape(2, 3)
    ax = asc.asarray(x)
    for order in ("K", "C", "F", "A", "c", "f", None):
        r = asc.sin(ax, order=order)
        same(r, np.sin(x, order=order))
        if order in ("F", "f"):
            assert r.flags.f_contiguous and not r.flags.c_contiguous
        else:
            assert r.flags.c_contiguous
        same(asc.add(ax, ax.T.T, order=order, dtype=np.float32), np.add(x, x, order=order, dtype=np.float32))
    r = asc.sin(ax.T, order="A")  # every operand Fortran: a Fortran result
    assert r.flags.f_contiguous
    same(r, np.sin(x.T))
    assert asc.sin(ax, order="A").flags.c_contiguous
    for bad, cls in (("X", ValueError), ("CF", ValueError), (1, TypeError)):
        with pytest.raises(cls, match="order must be"):
            np.sin(x, order=bad)
        with pytest.raises(cls, match="order must be"):
            asc.sin(ax, order=bad)
    same(asc.sin(ax, subok=False), np.sin(x))
    with pytest.raises(TypeError, match="'subok' must be a boolean"):
        asc.sin(ax, subok="x")


def test_huge_python_ints(mode):
    # NumPy makes a lone int outside int64 uint64 when it fits, else an object array (no loop: TypeError)
    for name in ("sin", "arccos", "exp", "log2", "tanh", "spacing", "signbit", "rad2deg", "square", "sqrt"):
        for v in (2 ** 64, 2 ** 100, -(2 ** 63) - 1):
            ref, rexc = run(lambda: getattr(np, name)(v))
            if rexc is None:  # an object loop (square): pyasc has no object dtype, a clear TypeError
                assert isinstance(ref, int)
                with pytest.raises(TypeError, match="object array"):
                    getattr(asc, name)(v)
            else:
                check(lambda: getattr(np, name)(v), lambda: getattr(asc, name)(v))
            check(lambda: getattr(np, name)(v, out=np.zeros((), np.float16)),
                  lambda: getattr(asc, name)(v, out=asc.zeros((), np.float16)))
            check(lambda: getattr(np, name)(v, dtype=np.float64), lambda: getattr(asc, name)(v, dtype=np.float64))
        check(lambda: getattr(np, name)(2 ** 63), lambda: getattr(asc, name)(2 ** 63))
    with pytest.raises(TypeError, match="loop of ufunc does not support argument 0 of type int"):
        asc.sin(2 ** 64)
    # next to an array: NEP 50 (the array's dtype takes it, or OverflowError)
    for name in ("add", "maximum", "fmin", "arctan2", "bitwise_and", "ldexp"):
        for dt in (np.int16, np.uint64, np.float32):
            a = values(dt)
            for v in (2 ** 63, 2 ** 64, 2 ** 100, -(2 ** 63) - 1):
                check(lambda: getattr(np, name)(a, v), lambda: getattr(asc, name)(asc.asarray(a), v))
                check(lambda: getattr(np, name)(a, v, dtype=np.float64),
                      lambda: getattr(asc, name)(asc.asarray(a), v, dtype=np.float64))
    for v in (2 ** 100, -(2 ** 63) - 1):
        check(lambda: np.matmul(v, np.ones((2, 2), np.int16)), lambda: asc.matmul(v, asc.ones((2, 2), np.int16)))
    for fn in (lambda xp: xp.matvec(2 ** 63, xp.asarray(np.ones((3, 2, 2), np.int8))),
               lambda xp: xp.vecmat(300, xp.asarray(np.ones((3, 2, 2), np.int8))),
               lambda xp: xp.vecdot(1.5, xp.asarray(np.ones(2, np.int8)))):
        check(lambda: fn(np), lambda: fn(asc))
    # with dtype=: NumPy converts an int outside int64/uint64 before it checks a non-float loop
    f = np.ones(2, np.float32)
    for v in (2 ** 63, 2 ** 64, 2 ** 100, -(2 ** 63) - 1):
        for dt in (np.uint64, np.int8, np.float64):
            check(lambda: np.add(f, v, dtype=dt), lambda: asc.add(asc.asarray(f), v, dtype=dt))
            check(lambda: np.vecdot(np.ones((), np.float32), v, dtype=dt),
                  lambda: asc.vecdot(asc.ones((), np.float32), v, dtype=dt))


def test_only_python_scalars_take_numpys_default_dtypes(mode):
    # a unary ufunc's Python scalar is int64/float64/complex128 for the loop search; binary ones stay weak
    for args in ((-1,), (2,), (1.5,), (1j,)):
        for dt in (np.uint64, np.int8, np.float16, np.complex64, np.bool_):
            check(lambda: np.invert(*args, dtype=dt), lambda: asc.invert(*args, dtype=dt))
            check(lambda: np.sin(*args, dtype=dt), lambda: asc.sin(*args, dtype=dt))
    for a, b in ((1, 2), (-1, 2), (300, 2), (1, 2.5), (2.5, 1j), (True, 3), (2 ** 63, 1), (2 ** 100, 1.5)):
        for dt in (np.int8, np.uint64, np.float32, np.complex128):
            check(lambda: np.add(a, b, dtype=dt), lambda: asc.add(a, b, dtype=dt))


def test_python_level_ufuncs(mode):
    for dt in (np.int8, np.uint16, np.float16, BF16, np.float32, np.complex64, np.bool_):
        x = values(dt)
        for name in ("fabs", "degrees", "radians"):
            check(lambda: getattr(np, name)(x, dtype=np.float32), lambda: getattr(asc, name)(asc.asarray(x),
                                                                                            dtype=np.float32))
            check(lambda: getattr(np, name)(x, out=(np.zeros(8, np.float64),)),
                  lambda: getattr(asc, name)(asc.asarray(x), out=(asc.zeros(8, np.float64),)))
        check(lambda: np.float_power(x, 2, dtype=np.complex128), lambda: asc.float_power(asc.asarray(x), 2,
                                                                                        dtype=np.complex128))
        check(lambda: np.float_power(x, x, dtype=np.bool_), lambda: asc.float_power(asc.asarray(x), asc.asarray(x),
                                                                                   dtype=np.bool_))
    i = np.array([12, -18, 0, 7], np.int32)
    for name in ("gcd", "lcm"):
        check(lambda: getattr(np, name)(i, 8, dtype=np.int64), lambda: getattr(asc, name)(asc.asarray(i), 8,
                                                                                         dtype=np.int64))
        check(lambda: getattr(np, name)(i, 8, dtype=np.float64), lambda: getattr(asc, name)(asc.asarray(i), 8,
                                                                                           dtype=np.float64))
    # the plain calls stay as they were
    o = asc.zeros(8, np.float32)
    assert asc.fabs(asc.asarray(values(np.float32)), out=o) is o
    with pytest.raises(TypeError, match="Cannot cast ufunc 'fabs' output"):
        asc.fabs(asc.asarray(values(np.float32)), out=asc.zeros(8, np.int32))


def test_gufuncs(mode):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 4))
    b = rng.standard_normal((2, 4, 3))
    v = rng.standard_normal(4)
    for dt in (np.float32, np.float16, np.int8, np.complex64, BF16, np.bool_):
        check(lambda: np.matmul(a, b, dtype=dt), lambda: asc.matmul(asc.asarray(a), asc.asarray(b), dtype=dt))
        check(lambda: np.matmul(a, b, dtype=dt, casting="unsafe"),
              lambda: asc.matmul(asc.asarray(a), asc.asarray(b), dtype=dt, casting="unsafe"))
        check(lambda: np.matvec(a, v, dtype=dt), lambda: asc.matvec(asc.asarray(a), asc.asarray(v), dtype=dt))
        check(lambda: np.vecmat(v, b, dtype=dt), lambda: asc.vecmat(asc.asarray(v), asc.asarray(b), dtype=dt))
        check(lambda: np.vecdot(a, a, dtype=dt), lambda: asc.vecdot(asc.asarray(a), asc.asarray(a), dtype=dt))
    check(lambda: np.vecdot(a, a, axis=1), lambda: asc.vecdot(asc.asarray(a), asc.asarray(a), axis=1))
    o = asc.zeros((2, 3, 3))
    assert asc.matmul(asc.asarray(a), asc.asarray(b), out=(o,)) is o
    same(o, a @ b)
    o = asc.zeros((2, 3, 3), np.float32)
    assert asc.matmul(asc.asarray(a), asc.asarray(b), o) is o  # positional out, cast same_kind
    same(o, np.matmul(a, b, out=np.zeros((2, 3, 3), np.float32)))
    big = asc.zeros((4, 2, 3, 3))
    assert asc.matmul(asc.asarray(a), asc.asarray(b), out=big) is big  # loop dims broadcast into out
    same(big, np.matmul(a, b, out=np.zeros((4, 2, 3, 3))))
    # core dimensions never broadcast into out (NumPy's ValueError), loop dimensions do
    check(lambda: np.matmul(np.ones((1, 1), np.int16), np.ones((1, 1), np.uint8), out=np.zeros((2, 5), np.int16)),
          lambda: asc.matmul(asc.ones((1, 1), np.int16), asc.ones((1, 1), np.uint8), out=asc.zeros((2, 5), np.int16)))
    check(lambda: np.matvec(a, v, out=np.zeros((2, 4))), lambda: asc.matvec(asc.asarray(a), asc.asarray(v),
                                                                            out=asc.zeros((2, 4))))
    # shapes are checked before any cast: a huge broadcast view is never materialised
    huge_np = np.broadcast_to(np.ones(1, bool), (2 ** 31, 2 ** 31))
    huge = asc.broadcast_to(asc.ones(1, bool), (2 ** 31, 2 ** 31))
    check(lambda: np.matmul(np.ones((3, 3), np.int8), huge_np, out=np.zeros((3, 3), np.int8)),
          lambda: asc.matmul(asc.ones((3, 3), np.int8), huge, out=asc.zeros((3, 3), np.int8)))
    check(lambda: np.add(np.ones(3), huge_np, dtype=np.float32), lambda: asc.add(asc.ones(3), huge, dtype=np.float32))
    # axes= is NumPy's (test_reliability_m_z.py::test_gufunc_axes_* compares the other forms)
    np.testing.assert_allclose(asc.matmul(asc.asarray(a), asc.asarray(b), axes=[(-1, -2), (-1, -2), (-1, -2)]).numpy(),
                               np.matmul(a, b, axes=[(-1, -2), (-1, -2), (-1, -2)]), rtol=1e-12)
    with pytest.raises(TypeError):
        asc.matmul(asc.asarray(a), asc.asarray(b), out=asc.zeros((2, 3, 3), np.int32))


def test_not_numpy_ufuncs_take_the_keywords(mode):
    x = np.array([-2.0, 0.0, 1.5, 30.0])
    ref = 1 / (1 + np.exp(-x.astype(np.float32)))
    r = asc.sigmoid(asc.asarray(x), dtype=np.float32)
    assert r.dtype == np.float32
    np.testing.assert_allclose(np.asarray(r), ref, rtol=2e-6)
    o = asc.full(4, 5.0)
    asc.erf(asc.asarray(x), out=(o,), where=asc.asarray(np.array([True, False, True, False])))
    assert np.asarray(o)[1] == 5.0 and np.asarray(o)[3] == 5.0
    with pytest.raises(TypeError, match="Cannot cast ufunc 'sigmoid' input 0"):
        asc.sigmoid(asc.asarray(x), dtype=np.int8)
    with pytest.raises(NotImplementedError, match="signature"):
        asc.sigmoid(asc.asarray(x), signature="d->d")


def test_conj_method():
    x = asc.asarray(np.array([1.0, -2.0]))
    assert x.conj() is x and x.conjugate() is x  # NumPy: a real array's conj() is the array
    c = asc.asarray(np.array([1 + 2j, -3j]))
    same(c.conj(), np.array([1 - 2j, 3j]), exact=True)
    o = asc.zeros(2, np.complex128)
    assert c.conj(o) is o and c.conjugate(None) is not c
    same(o, np.array([1 - 2j, 3j]), exact=True)
    b = np.array([True, False])
    same(asc.conjugate(asc.asarray(b)), np.conjugate(b), exact=True)  # bool computes in int8 (NumPy's loops)


def test_numpy_dispatch_forwards_the_keywords(mode):
    x = asc.asarray(np.array([0.5, 1.5], np.float64))
    r = np.sin(x, dtype=np.float32)
    assert isinstance(r, asc.ndarray) and r.dtype == np.float32
    o = asc.zeros(2)
    assert np.add(x, 1, out=(o,), where=asc.asarray(np.array([True, False]))) is o
    same(o, np.array([1.5, 0.0]), exact=True)


def test_plain_calls_still_take_the_fast_path(mode):
    a, b = asc.asarray(np.arange(4.0)), asc.asarray(np.ones(4))
    same(asc.add(a, b), np.arange(4.0) + 1, exact=True)
    o = asc.zeros(4)
    assert asc.add(a, b, out=o) is o
    assert asc.exp(a, out=o) is o
    same(o, np.exp(np.arange(4.0)))
    assert "Overloaded" in asc.sin.__doc__ and "sin" in asc.sin.__doc__
