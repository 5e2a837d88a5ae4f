"""Regression tests of fuzz findings (issue 20 item 15, slice a_l: public names a... to l...):
inputs NumPy rejects that pyasc accepted (astype of a list or a Python scalar), error classes
that differed from NumPy's because another check fired first (shape before order in
zeros/ones/empty/full, a float index of insert after the values' conversion, bincount's depth
before its dtype, copy's order type, a clip mode beyond a C int, NumPy's allocation errors of
argsort and delete on huge broadcast views) and the fuzz harness's judgement of NumPy's own
float32 error (logaddexp2) and of angle (arctan2's bound). Every expectation is NumPy's own
result or exception class, computed here, in lazy and eager mode."""

import os
import sys
import warnings

import numpy as np
import pytest

import pyasc as asc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))


@pytest.fixture(params=[False, True], ids=["lazy", "eager"])
def mode(request):
    was = asc.is_eager()
    asc.set_eager(request.param)
    yield request.param
    asc.set_eager(was)


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn()
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return e
    return np.asarray(r.numpy() if isinstance(r, asc.ndarray) else r)


def _builtin_bases(t):
    return [b for b in t.__mro__ if b.__module__ == "builtins" and b not in (Exception, BaseException, object)]


def _same(fn_np, fn_asc, numpy_accident=False):
    """pyasc's outcome is NumPy's: equal dtype, shape and values, or an exception of NumPy's class
    (a builtin base of it), raised as a clear pyasc error. ``numpy_accident``: NumPy fails by an
    AttributeError of its own code; pyasc must then raise a clear TypeError."""
    e, g = _outcome(fn_np), _outcome(fn_asc)
    if not isinstance(e, Exception):
        assert not isinstance(g, Exception), f"NumPy returned {e!r}, pyasc raised {type(g).__name__}: {g}"
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
        np.testing.assert_array_equal(g, e)
        return
    assert isinstance(g, Exception), f"NumPy raised {type(e).__name__}: {e}; pyasc returned {g!r}"
    if numpy_accident:
        assert isinstance(e, AttributeError), repr(e)
        assert isinstance(g, TypeError) and isinstance(g, asc.AscendError), repr(g)
        return
    assert any(isinstance(g, b) for b in _builtin_bases(type(e))), \
        f"numpy {type(e).__name__}: {e} | pyasc {type(g).__name__}: {g}"
    assert isinstance(g, (asc.AscendError, np.exceptions.AxisError)), repr(g)


# ------------------------------------------------------------------ astype: arrays and NumPy scalars only

@pytest.mark.parametrize("x", [[1, 2], None, (1.5,), "abc"], ids=["list", "None", "tuple", "str"])
def test_astype_refuses_non_arrays(mode, x):
    _same(lambda: np.astype(x, np.int64), lambda: asc.astype(x, np.int64),
          numpy_accident=isinstance(x, str))


@pytest.mark.parametrize("x", [1j, 5, 2.5, True])
def test_astype_python_scalar_is_a_type_error(mode, x):
    # NumPy's astype calls x.astype: a Python scalar fails with its AttributeError
    _same(lambda: np.astype(x, np.float16), lambda: asc.astype(x, np.float16), numpy_accident=True)


@pytest.mark.parametrize("dt", ["float16", "int64", "complex64", "bool"])
def test_astype_arrays_and_numpy_scalars(mode, dt):
    base = np.array([1.5, -2.0, 0.0, 300.0], np.float32)[::-1]
    _same(lambda: np.astype(base, dt), lambda: asc.astype(asc.asarray(np.array([1.5, -2.0, 0.0, 300.0],
                                                                                np.float32))[::-1], dt))
    _same(lambda: np.astype(np.float32(2.5), dt), lambda: asc.astype(np.float32(2.5), dt))
    _same(lambda: np.astype(base, dt, device="gpu"), lambda: asc.astype(asc.asarray(base), dt, device="gpu"))


# ------------------------------------------------------------------ creation: shape before dtype before order

SHAPES = [[[1], [2, 3]], (2 ** 63,), (2, "a"), 1.5, (2, 3), (), -1, True, (2, False), np.True_, np.array([2, 1])]
ORDERS = ["K", "C", "F", "bogus", 3]


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "full"])
@pytest.mark.parametrize("shape", SHAPES, ids=[repr(s) for s in SHAPES])
@pytest.mark.parametrize("order", ORDERS)
def test_creation_checks_shape_first(mode, fn, shape, order):
    args = (shape, 7) if fn == "full" else (shape,)
    if fn == "empty":  # uninitialised values: compare dtype and shape only
        e, g = _outcome(lambda: np.empty(shape, order=order)), _outcome(lambda: asc.empty(shape, order=order))
        if not isinstance(e, Exception):
            assert not isinstance(g, Exception) and (g.dtype, g.shape) == (e.dtype, e.shape), (e, g)
            return
        _same(lambda: np.empty(shape, order=order), lambda: asc.empty(shape, order=order))
        return
    _same(lambda: getattr(np, fn)(*args, order=order), lambda: getattr(asc, fn)(*args, order=order))
    _same(lambda: getattr(np, fn)(*args, dtype="bogus", order=order),
          lambda: getattr(asc, fn)(*args, dtype="bogus", order=order))


# ------------------------------------------------------------------ take/choose clip mode beyond a C int

MODES = [0, 1, 2, 5, -1, 2 ** 31 - 1, 2 ** 31, -2 ** 31, -2 ** 31 - 1, 2 ** 40, 2 ** 64, np.int64(2 ** 40), 1.5]


@pytest.mark.parametrize("m", MODES, ids=[repr(m) for m in MODES])
def test_clip_mode_int_range(mode, m):
    a = np.arange(6.0).reshape(2, 3)
    idx = np.array([0, 2, 1])
    _same(lambda: np.take(a, idx, axis=1, mode=m), lambda: asc.take(asc.asarray(a), asc.asarray(idx), axis=1, mode=m))
    ch = np.array([0, 1, 1])
    choices = [np.arange(3), np.arange(3) * 10]
    _same(lambda: np.choose(ch, choices, mode=m),
          lambda: asc.choose(asc.asarray(ch), [asc.asarray(c) for c in choices], mode=m))


# ------------------------------------------------------------------ bincount: depth before dtype and minlength

BINCOUNT = [((), "complex64"), ((2, 2), "complex64"), ((0, 4, 4), "complex64"), ((), "int64"), ((2, 2), "int64"),
            ((2, 2), "float64"), ((4,), "complex64"), ((4,), "float64"), ((4,), "int64"), ((0,), "int64")]


@pytest.mark.parametrize("shape,dt", BINCOUNT, ids=[f"{s}-{d}" for s, d in BINCOUNT])
@pytest.mark.parametrize("minlength", [0, 7, "a"])
def test_bincount_depth_first(mode, shape, dt, minlength):
    x = (np.arange(int(np.prod(shape))) % 3).astype(dt).reshape(shape)
    _same(lambda: np.bincount(x, minlength=minlength), lambda: asc.bincount(asc.asarray(x), minlength=minlength))


# ------------------------------------------------------------------ insert: a non-integer index fails last

INSERT = [(-2.56, "abc"), (1.5, 7), (100.5, 1), (-100.5, "abc"), (float("nan"), 3), (1 + 2j, 3), (2, "abc"), (2, 9),
          (np.float64(0.0), 4)]


@pytest.mark.parametrize("obj,values", INSERT, ids=[repr(v) for v in INSERT])
def test_insert_index_check_order(mode, obj, values):
    a = np.arange(30, dtype=np.uint64).reshape(2, 3, 5)
    _same(lambda: np.insert(a, np.array(obj), values), lambda: asc.insert(asc.asarray(a), asc.asarray(np.array(obj)),
                                                                         values))
    _same(lambda: np.insert(a, obj, values, axis=2), lambda: asc.insert(asc.asarray(a), obj, values, axis=2))


# ------------------------------------------------------------------ copy: order's type and value

@pytest.mark.parametrize("order", ["K", "A", "C", "F", "k", "f", None, "X", "CF", 3, np.zeros((2, 5)), b"C"],
                         ids=lambda o: repr(o)[:12])
def test_copy_order(mode, order):
    a = np.arange(12.0).reshape(3, 4).T
    e, g = _outcome(lambda: np.copy(a, order=order)), _outcome(lambda: asc.copy(asc.asarray(a), order=order))
    _same(lambda: np.copy(a, order=order), lambda: asc.copy(asc.asarray(a), order=order))
    if not isinstance(e, Exception):  # the layout NumPy chose
        r = asc.copy(asc.asarray(a), order=order)
        assert r.flags.f_contiguous == np.copy(a, order=order).flags.f_contiguous


# ------------------------------------------------------------------ huge broadcast views: NumPy's allocation errors

def _huge(dt, shape):
    return np.broadcast_to(np.ones(1, dt), shape), asc.broadcast_to(asc.ones(1, dt), shape)


@pytest.mark.parametrize("dt,shape,axis", [("int8", (2 ** 63 - 1,), -1), ("float32", (2 ** 60,), -1),
                                           ("int8", (2 ** 62,), 0), ("bool", (2 ** 40, 2 ** 22), None),
                                           ("int8", (3, 2 ** 61), 5)])
def test_argsort_huge_view_errors(mode, dt, shape, axis):
    n, a = _huge(dt, shape)
    _same(lambda: np.argsort(n, axis=axis), lambda: asc.argsort(a, axis=axis))
    _same(lambda: n.argsort(axis=axis), lambda: a.argsort(axis=axis))


@pytest.mark.parametrize("arr_shape", [(0, 0), (3,), (2, 4)])
@pytest.mark.parametrize("value", [1, -1, 7])
def test_delete_huge_index_view(mode, arr_shape, value):
    a = np.arange(int(np.prod(arr_shape)), dtype=np.float32).reshape(arr_shape)
    obj_np = np.broadcast_to(np.array([value], np.int8), (2 ** 63 - 1,))
    obj_asc = asc.broadcast_to(asc.asarray(np.array([value], np.int8)), (2 ** 63 - 1,))
    if -a.size <= value < a.size:
        # in bounds NumPy loops over the 2**63 indices (keep[obj,] = False); pyasc cannot hold their
        # copy either and says so at once
        with pytest.raises(MemoryError, match="delete|ravel|allocate"):
            asc.delete(asc.asarray(a), obj_asc)
    else:  # NumPy's IndexError at the first index, from min/max of the view without a copy
        _same(lambda: np.delete(a, obj_np), lambda: asc.delete(asc.asarray(a), obj_asc))


# ------------------------------------------------------------------ the fuzz harness's judgement

def test_harness_judges_ulp_functions_against_the_exact_value():
    """NumPy's float32 logaddexp2 is 9 ulp off at (-1.22, -0.94) (log2(1 + 2**x) cancels); pyasc's
    correctly rounded answer is ok, and a value far from both is still a wrong result."""
    import fuzz_harness as fh

    case = ("fn", "logaddexp2", (("arr", "float32", (4,), "step2", 377, "rand"),
                                 ("arr", "float32", (4,), "step2", 109, "rand")), ())
    assert fh.classify(case)[0] == "ok"
    ref = fh._call(case, np)
    exact = fh._round_like(fh._f64_ref(case), ref.value)
    assert fh._compare(ref.value, exact, case) is not None  # NumPy's own miss is real
    bad = ("array", exact[1] + np.float32(1e-3))
    got = fh._Result(bad)
    assert fh._classify_pair(case, ref, got)[0] == "wrong_result"


def test_harness_angle_has_arctan2_bound():
    import fuzz_harness as fh

    case = ("fn", "angle", (("arr", "complex64", (), "c", 0, "special"),), ())
    assert fh.classify(case)[0] == "ok"
    z = np.complex64(65504 - 2.5j)
    e = np.angle(np.asarray(z))
    one_ulp = np.nextafter(e, np.float32(0))
    assert fh._compare_arrays(np.asarray(e), np.asarray(one_ulp), case) is None
    assert fh._compare_arrays(np.asarray(e), np.asarray(e * np.float32(1.001)), case) is not None


def test_harness_object_int_refusal():
    """extract(c, 2**100): NumPy's object array fails in take (IndexError); pyasc refuses the
    value at conversion (no object arrays): both reject it."""
    import fuzz_harness as fh

    case = ("fn", "extract", (("arr", "uint32", (5, 1, 5), "c", 317, "rand"), ("py", 2 ** 100)), ())
    assert fh.classify(case)[0] == "both_raise"
    with pytest.raises(OverflowError, match="dtype object"):
        asc.extract(asc.ones(3, bool), 2 ** 100)
