"""Regression tests of fuzz findings, slice a_l (continued from test_reliability_a_l.py, which
reached the ~1,500-line mark; fuzz seeds 10101-10401 of issue 20 item 15): reductions' where= as
NumPy converts it (lists and scalars by truth value, mean/var/std counting where's values),
ndarray.diagonal's C-int arguments, arange written on the device, a ragged list as pyasc's
ValueError, diff of a huge order, asarray_chkfinite's dtype conversion, count_nonzero of a 0-d
array with an axis, histogramdd of a huge D, clip's broadcast before a huge int bound. Every
expectation is NumPy's own result or exception class, computed here, in lazy and eager mode."""

import os
import sys

import numpy as np
import pytest

import pyasc as asc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))

from test_reliability_a_l import _outcome, _same, mode  # noqa: E402,F401 - (mode: the lazy/eager fixture)


# ------------------------------------------------------------------ reductions' where= as NumPy converts it
# An array where= must cast to bool safely (an int64 array is NumPy's TypeError); any other object --
# a list of ints/floats/complex, a scalar, None, a str -- goes straight to bool (np.sum(x, where=[1, 0,
# 1]) is accepted; pyasc raised TypeError). mean/var/std count the items as the sum of where's *values*
# in intp (NumPy's _count_reduce_items): where=[2, 0, 1] divides by 3, where=-3 by -3 * n, None/str
# there are TypeErrors and 2**70 an OverflowError.
_WHERES = [[1, 0, 1], [2, 0, 1], [1.5, 0, 1], [1j, 0, 1], [[1, 0, 1], [0, 0, 1]], 2, -3, None, "abc",
           [[1], [0, 1]], [2 ** 70, 0, 1], [], np.array([1, 0, 1]), np.array([True, False, True])]
_WHERE_REDUCTIONS = ["sum", "prod", "max", "amax", "min", "amin", "all", "any", "mean", "std", "var", "nansum",
                     "nanprod", "nanmax", "nanmin", "nanmean", "nanstd", "nanvar"]


@pytest.mark.parametrize("w", _WHERES, ids=repr)
@pytest.mark.parametrize("name", _WHERE_REDUCTIONS)
def test_reduction_where_of_any_object(mode, name, w):
    axis = 1 if isinstance(w, list) else None
    x = np.array([[1.0, 2.0, 4.0], [8.0, 16.0, 32.0]])
    kw = {"initial": 0.5} if name in ("max", "amax", "min", "amin", "nanmax", "nanmin") else {}
    _same(lambda: getattr(np, name)(x, axis=axis, where=w, **kw),
          lambda: getattr(asc, name)(asc.asarray(x), axis=axis, where=w, **kw))


# ------------------------------------------------------------------ ndarray.diagonal: C-int arguments
@pytest.mark.parametrize("args", [(2 ** 40,), (2 ** 31,), (-2 ** 31 - 1,), (2 ** 63,), (0, 2 ** 40, 1),
                                  (0, 0, 2 ** 31), (0, 0, -2 ** 31 - 1), (0, 1.5, 0), (0, 0, 0), (0, "a", 1),
                                  (np.array(1),), (True, 0, 1), (1, 1, 0), (0, 0, 2 ** 64), (1.5, 2 ** 40, 0),
                                  (2 ** 40, 1.5, 0)], ids=repr)
@pytest.mark.parametrize("form", ["method", "function"])
def test_diagonal_arguments_are_c_ints(mode, args, form):
    # NumPy's ndarray.diagonal parses offset, axis1, axis2 as C ints in that order ("|iii"): the
    # method accepted an offset beyond a C int (an empty result), both forms gave an axis beyond
    # one the AxisError (ValueError) where NumPy raises OverflowError
    x = np.arange(6.0).reshape(2, 3)
    if form == "method":
        _same(lambda: x.diagonal(*args), lambda: asc.asarray(x).diagonal(*args))
    else:
        _same(lambda: np.diagonal(x, *args), lambda: asc.diagonal(asc.asarray(x), *args))


# ------------------------------------------------------------------ arange written on the device
# A long arange is written into the device array chunk by chunk with NumPy's fill rule (element i
# is start + i * delta in the dtype's C arithmetic), not built on the host and copied (2x memory).
_ARANGE_ARGS = [(0, 300, 1), (0.5, 300.0, 0.3), (-7, 500, 3), (100, -300, -1), (2 ** 31 - 100, 2 ** 31 + 300, 1),
                (2 ** 63 - 300, 2 ** 63 - 1, 1), (-2 ** 63, -2 ** 63 + 300, 1), (1e10, 1e10 + 300, 1.0),
                (0, 300, 0.3), (1 / 3, 100.0, 1 / 3), (0, 3e6, 2 ** 14 - 0.5), (7, 8, 0.0025), (0, 2 ** 40, 2 ** 32)]


@pytest.mark.parametrize("args", _ARANGE_ARGS, ids=repr)
@pytest.mark.parametrize("dt", [None, "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                                "float16", "float32", "float64"])
def test_arange_written_on_the_device(mode, monkeypatch, args, dt):
    monkeypatch.setattr(asc.numeric, "_ARANGE_DIRECT_MIN", 3)  # (the device path for short ones too)
    monkeypatch.setattr(asc.numeric, "_ARANGE_CHUNK", 7)  # (many chunks)
    _same(lambda: np.arange(*args, dtype=dt), lambda: asc.arange(*args, dtype=dt))


def test_arange_does_not_build_on_the_host():
    import tracemalloc

    n = 1 << 24
    tracemalloc.start()  # (NumPy's host allocations are traced, pyasc's device pool is not)
    try:
        x = asc.arange(n, dtype="int8")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n // 4, f"arange built {peak} bytes on the host for a {n}-byte result"
    np.testing.assert_array_equal(np.asarray(x)[-300:], np.arange(n - 300, n).astype(np.int8))


# ------------------------------------------------------------------ a ragged list: NumPy's ValueError as pyasc's
_RAGGED = [[[1], [2, 3]], [[1.0, 2.0], [3.0]], [[[1]], [2]], [(1, 2), (3,)]]
_RAGGED_CALLS = {
    "asarray": lambda xp, r: xp.asarray(r), "array": lambda xp, r: xp.array(r), "sum": lambda xp, r: xp.sum(r),
    "add": lambda xp, r: xp.add(r, 1), "sin": lambda xp, r: xp.sin(r), "cumsum": lambda xp, r: xp.cumsum(r),
    "argmax": lambda xp, r: xp.argmax(r), "clip": lambda xp, r: xp.clip(r, 0, 1), "ravel": lambda xp, r: xp.ravel(r),
    "dot": lambda xp, r: xp.dot(r, r), "expand_dims": lambda xp, r: xp.expand_dims(r, 0),
    "broadcast_to": lambda xp, r: xp.broadcast_to(r, (2, 2)), "cross": lambda xp, r: xp.cross(r, r),
    "argsort": lambda xp, r: xp.argsort(r), "concatenate": lambda xp, r: xp.concatenate([r, r]),
}


@pytest.mark.parametrize("r", _RAGGED, ids=repr)
@pytest.mark.parametrize("call", sorted(_RAGGED_CALLS))
def test_ragged_list_is_ascend_value_error(mode, r, call):
    # NumPy's "setting an array element with a sequence ... inhomogeneous shape" ValueError escaped
    # as the builtin class: it is pyasc's AscendValueError (a ValueError) with NumPy's text
    fn = _RAGGED_CALLS[call]
    e, g = _outcome(lambda: fn(np, r)), _outcome(lambda: fn(asc, r))
    assert isinstance(e, ValueError), e
    assert isinstance(g, ValueError) and isinstance(g, asc.AscendError), repr(g)
    assert str(e) in str(g), (str(e), str(g))


# ------------------------------------------------------------------ diff of a large order
# NumPy loops n times (np.diff(x, n=2**63 - 1) never returns: fuzz seed 10102 hung its chunk); once the
# axis is empty further differences change nothing, so pyasc stops there. Compared with NumPy for
# orders it can finish; the harness runs NumPy's hopeless ones in its time-limited child.
@pytest.mark.parametrize("shape,dt", [((4, 1), "bool"), ((5,), "float64"), ((3, 0), "int8"), ((2, 3), "int64"),
                                      ((6,), "complex64")], ids=str)
@pytest.mark.parametrize("n", [3, 5, 6, 7, 50, np.array(40), 2.5, np.array(2.5)], ids=repr)
def test_diff_large_order(mode, shape, dt, n):
    x = (np.arange(int(np.prod(shape))) % 3).astype(dt).reshape(shape)
    _same(lambda: np.diff(x, n=n), lambda: asc.diff(asc.asarray(x), n=n))


def test_diff_order_beyond_any_loop_returns(mode):
    import fuzz_harness as fh

    r = asc.diff(asc.ones((4, 1), bool), n=np.array(2 ** 63 - 1))
    assert r.shape == (4, 0) and r.dtype == np.bool_
    case = ("fn", "diff", (("arr", "bool", (4, 1), "c", 145, "edge"),), (("n", ("py", 2 ** 63 - 1)),))
    assert fh._huge(case)  # (NumPy's reference runs in the time-limited child)
    assert fh.classify(case, modes=("lazy",))[0] == "ok"
    big = ("fn", "diff", (("arr", "bfloat16", (5, 5), "c", 9789, "edge"),), (("n", ("py", 2 ** 100)),))
    assert fh._huge(big)  # (beyond int64: NumPy's object array; fuzz seed 10301 hung its chunk on it)


# ------------------------------------------------------------------ asarray_chkfinite converts as asarray(a, dtype)
@pytest.mark.parametrize("v", [1j, 1 + 0j, [1j, 2], [1.5, 2], 300, [300], np.complex64(1j), np.array([1j]), 2 ** 70,
                               -1, float("nan"), [1.0, float("inf")]], ids=repr)
@pytest.mark.parametrize("dt", ["int64", "uint32", "int8", "float64", "float16", "complex64", "bool"])
def test_asarray_chkfinite_python_values(mode, v, dt):
    # Python values convert straight to the dtype, as NumPy's asarray(a, dtype): a Python complex
    # into an integer dtype is int()'s TypeError (pyasc accepted it: fuzz seed 10101, 2 silent)
    _same(lambda: np.asarray_chkfinite(v, dtype=dt), lambda: asc.asarray_chkfinite(v, dtype=dt))


# ------------------------------------------------------------------ count_nonzero of a 0-d array with an axis
@pytest.mark.parametrize("axis", [0, -1, (0,), 1, (), None, [0], np.int64(0), 1.5], ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("v", [2.0, 0.0, float("nan")])
def test_count_nonzero_zero_d_axis(mode, axis, keepdims, v):
    # NumPy's a.sum(axis) takes axis 0 / -1 of a 0-d array as no axis (pyasc: AxisError; fuzz seed 10201)
    _same(lambda: np.count_nonzero(np.array(v), axis=axis, keepdims=keepdims),
          lambda: asc.count_nonzero(asc.asarray(v), axis=axis, keepdims=keepdims))


# ------------------------------------------------------------------ count_nonzero: only an int or a tuple axis
# NumPy's count_nonzero with an axis is a.astype(bool).sum(axis=...): a list, an array or a bool axis
# is the ufunc reduction's TypeError; pyasc's core read any sequence (axis=[0] gave a result).
@pytest.mark.parametrize("axis", [[0], [0, 1], [], True, False, (True,), np.True_, np.array([0]),
                                  np.array([[0]]), 1.0, (1.0,), np.array(1), np.int64(2), (0, 2), (np.int8(1), -1),
                                  (0, 0), (3,), -4, (), "a"], ids=repr)
def test_count_nonzero_axis_types(mode, axis):
    x = np.arange(24.0).reshape(2, 3, 4) % 3
    _same(lambda: np.count_nonzero(x, axis=axis), lambda: asc.count_nonzero(asc.asarray(x), axis=axis))


# ------------------------------------------------------------------ histogramdd of a sample with huge D
@pytest.mark.parametrize("shape", [(3, 2 ** 61), (2, 2 ** 44), (1, 2 ** 62)], ids=str)
@pytest.mark.parametrize("kw", [{}, {"bins": None}, {"weights": np.ones(2)}], ids=str)
def test_histogramdd_huge_dimension_count(mode, shape, kw):
    # NumPy allocates np.empty(D, intp) first: ValueError "array is too big" / MemoryError at once
    # (pyasc's D-element list raised a bare builtin MemoryError: fuzz seed 10301, 2 unclear)
    _same(lambda: np.histogramdd(np.broadcast_to(np.ones(1, np.int8), shape), **kw),
          lambda: asc.histogramdd(asc.broadcast_to(asc.ones(1, "int8"), shape), **kw))


# ------------------------------------------------------------------ clip: broadcast before a huge Python int bound
@pytest.mark.parametrize("lo,hi", [(np.arange(2), 2 ** 100), (np.arange(2), -2 ** 100), (np.arange(2), 2 ** 63),
                                   (np.ones((2, 2)), 2 ** 64)], ids=repr)
@pytest.mark.parametrize("method", [False, True])
def test_clip_broadcast_before_huge_int_bound(mode, lo, hi, method):
    # NumPy's clip ufunc broadcasts before the out-of-int64 Python int fails to convert (pyasc raised
    # the int's OverflowError: fuzz seed 10301, 3 unclear)
    x = np.arange(5, dtype=np.int16)

    def b(v, xp):
        return xp.asarray(v) if isinstance(v, np.ndarray) else v
    if method:
        _same(lambda: x.clip(lo, hi), lambda: asc.asarray(x).clip(b(lo, asc), b(hi, asc)))
    else:
        _same(lambda: np.clip(x, lo, hi), lambda: asc.clip(asc.asarray(x), b(lo, asc), b(hi, asc)))


# ------------------------------------------------------------------ harness: values NumPy holds as object/str arrays
@pytest.mark.parametrize("case,expected", [
    (("fn", "delete", (("py", None), ("arr", "uint8", (2, 4, 1), "c", 153, "rand")), ()), "both_raise"),
    (("fn", "delete", (("py", (1, "a")), ("arr", "uint8", (2,), "step2", 669, "rand")), ()), "both_raise"),
    (("fn", "flip", (("py", None),), (("axis", ("py", 2 ** 63)),)), "both_raise"),
    (("fn", "delete", (("py", "abc"), ("py", 5)), ()), "both_raise"),
    # NumPy accepts the object array: pyasc's refusal stays a clear error (not hidden)
    (("fn", "flip", (("py", None),), ()), "clear_error"),
], ids=lambda v: v if isinstance(v, str) else v[1])
def test_harness_object_values_both_reject(case, expected):
    # NumPy holds None / a tuple with a str / an int beyond uint64 as an object or '<U' array and
    # fails later (delete's IndexError, flip's axis OverflowError); pyasc refuses the value where it
    # converts it, naming its dtype: both reject the input (fuzz seed 10401, 5 cases judged unclear)
    import fuzz_harness as fh

    assert fh.classify(case)[0] == expected


# ------------------------------------------------------------------ == / != / in against a dtype object
@pytest.mark.parametrize("dt", ["int8", "float64", "complex64", "float16", "bool"])
@pytest.mark.parametrize("shape", [(), (3,), (0, 2), (2, 1, 2)], ids=str)
@pytest.mark.parametrize("same", [True, False])
def test_compare_with_a_dtype_object(mode, dt, shape, same):
    # NumPy compares a dtype object elementwise as an object (all False / all True); pyasc returned
    # NotImplemented and np.dtype.__eq__ read its .dtype: `a == a.dtype` was True and `a.dtype in a`
    # True (fuzz seed 10401: 7 wrong results of __contains__)
    x = np.zeros(shape, dt)
    other = np.dtype(dt) if same else np.dtype("int64")
    _same(lambda: x == other, lambda: asc.asarray(x) == other)
    _same(lambda: x != other, lambda: asc.asarray(x) != other)
    _same(lambda: other in x, lambda: other in asc.asarray(x))


# ------------------------------------------------------------------ dtype= given as an array; issubdtype(bf16, x)
@pytest.mark.parametrize("dt", [np.ones(3), np.ones((), np.int8), np.dtype("int8"), "float32", None], ids=repr)
@pytest.mark.parametrize("name", ["ascontiguousarray", "asfortranarray"])
def test_contiguous_dtype_array_is_a_type_error(mode, dt, name):
    # np.dtype(an array) is NumPy's TypeError; pyasc's np.dtype() read the array's .dtype (fuzz seed 10401)
    x = np.arange(6.0).reshape(2, 3)
    d = asc.asarray(dt) if isinstance(dt, np.ndarray) else dt
    _same(lambda: getattr(np, name)(x, dtype=dt), lambda: getattr(asc, name)(asc.asarray(x), dtype=d))


@pytest.mark.parametrize("arg2", [True, 1, None, "float32", "bogus", np.integer, np.float32, 2.5],
                         ids=repr)
def test_issubdtype_bfloat16_reads_arg2_as_a_dtype(arg2):
    # (np.floating left out: pyasc documents bfloat16 as a floating type, ml_dtypes does not register it)
    import ml_dtypes

    bf16 = np.dtype(ml_dtypes.bfloat16)
    _same(lambda: np.issubdtype(bf16, arg2), lambda: asc.issubdtype(bf16, arg2))


# ------------------------------------------------------------------ ndarray.argpartition: the axis before kth
@pytest.mark.parametrize("axis", [np.dtype("bool"), "a", 1.5, None, -1, 0, np.int64(1), [0]], ids=repr)
@pytest.mark.parametrize("shape", [(0, 2, 2), (2, 2, 2)], ids=str)
@pytest.mark.parametrize("kth", [np.zeros((2, 2, 2), np.int64), np.array(1), np.array([0, 1])], ids=lambda k: k.ndim)
def test_argpartition_method_axis_first(mode, axis, shape, kth):
    # NumPy's method converts the axis while parsing its arguments, before kth's depth check
    # (fuzz seed 10401: a dtype axis was pyasc's 'object too deep' ValueError, NumPy's TypeError)
    x = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    _same(lambda: x.argpartition(kth, axis), lambda: asc.asarray(x).argpartition(asc.asarray(kth), axis))


# ------------------------------------------------------------------ insert: the axis length in the index dtype
@pytest.mark.parametrize("n", [100, 127, 128, 300, 40000], ids=repr)
@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("obj", [[1, 2], [-1, 0], []], ids=repr)
def test_insert_axis_length_in_the_index_dtype(mode, n, dt, obj):
    # NumPy computes indices[indices < 0] += N in the index array's dtype: N beyond it is its
    # OverflowError (int8 indices into 300 elements; a huge view: fuzz seed 10401)
    x = np.zeros(n)
    idx = np.array(obj, dt)
    _same(lambda: np.insert(x, idx, 5.0), lambda: asc.insert(asc.asarray(x), asc.asarray(idx), 5.0))


def test_insert_huge_view_int32_indices(mode):
    h = (2 ** 44,)
    _same(lambda: np.insert(np.broadcast_to(np.ones(1, np.float32), h), np.array([1, 2], np.int32), 1.0),
          lambda: asc.insert(asc.broadcast_to(asc.ones(1, "float32"), h), asc.asarray(np.array([1, 2], np.int32)), 1.0))


# ------------------------------------------------------------------ isin: kind looked up in a set
@pytest.mark.parametrize("kind", [np.ones(3, bool), "bogus", 1, None, "sort", "table", ["sort"], "huge"], ids=repr)
def test_isin_kind_as_numpy(mode, kind):
    # NumPy's `kind not in {None, 'sort', 'table'}`: an array or list is unhashable (TypeError; a huge
    # broadcast kind was compared elementwise by pyasc: MemoryError, fuzz seed 10401), another value
    # its ValueError (pyasc raised the builtin class)
    def k(xp):
        if isinstance(kind, str) and kind == "huge":
            return xp.broadcast_to(xp.ones(1, bool), (3, 2 ** 61))
        return asc.asarray(kind) if xp is asc and isinstance(kind, np.ndarray) else kind
    _same(lambda: np.isin(np.arange(3), np.arange(2), kind=k(np)),
          lambda: asc.isin(asc.arange(3), asc.arange(2), kind=k(asc)))


@pytest.mark.parametrize("dt", ["bool", "int8", "float32", "uint8"])
@pytest.mark.parametrize("shape", [(2 ** 31, 2 ** 31), (2 ** 62,), (2 ** 40, 2 ** 22)], ids=str)
def test_arange_of_a_huge_view_fails_as_numpy(mode, dt, shape):
    # NumPy subtracts the bounds as arrays first: bool - 0 is int64 ('array is too big'), int8 stays
    # int8 (MemoryError); pyasc sized bool's bytes (fuzz seed 10401, 1 unclear)
    _same(lambda: np.arange(np.broadcast_to(np.ones(1, dt), shape)),
          lambda: asc.arange(asc.broadcast_to(asc.ones(1, dt), shape)))


# ------------------------------------------------------------------ digitize: NumPy's monotonicity check
_BINS = [[2 ** 63 - 1, -2 ** 63 + 1], [-2 ** 63 + 1, 2 ** 63 - 1], [1, 1, 2, 3], [3, 3, 2, 1], [1, 1, 1], [],
         [5], [float("nan"), 1.0, 2.0], [2.0, 1.0, float("nan")], [1, 3, 2], [2 ** 53, 2 ** 53 + 1, 2 ** 53],
         [0.0, -0.0, 1.0]]  # ([1, nan, 2] passes the check as decreasing; the search of such bins is unspecified)


@pytest.mark.parametrize("bins", _BINS, ids=repr)
@pytest.mark.parametrize("right", [False, True])
def test_digitize_monotonicity_as_numpy(mode, bins, right):
    # NumPy compares adjacent float64 bins; pyasc subtracted them (int64 [2**63-1, -2**63+1] wrapped
    # and read as increasing: fuzz seed 10401, 1 wrong result)
    dt = np.int64 if all(isinstance(v, int) for v in bins) and bins else np.float64
    b = np.array(bins, dt)
    x = np.array([0.00075785, -1.0, 1.5, 2.0, 3.0, float("nan")], np.float32)
    _same(lambda: np.digitize(x, b, right), lambda: asc.digitize(asc.asarray(x), asc.asarray(b), right))


# ------------------------------------------------------------------ array_split: split points are the first dimension
# NumPy iterates indices_or_sections: len() split points (a (3, 2**61) view gives 3 rows, then the
# slice bound's TypeError); pyasc counted all elements (size) and refused it as a MemoryError
# (fuzz seed 10401: dsplit with a huge 2-d view). A huge 1-d view stays NumPy's MemoryError.
@pytest.mark.parametrize("ios", [np.broadcast_to(np.int8(1), (3, 2 ** 61)), np.broadcast_to(np.int8(1), (2 ** 40,)),
                                 np.broadcast_to(np.int8(1), (2 ** 40, 1)), np.array([[1], [2]]), np.array([1, 2]),
                                 np.array(2), 2], ids=lambda v: repr(getattr(v, "shape", v)))
@pytest.mark.parametrize("name", ["dsplit", "array_split", "split"])
def test_split_points_are_the_first_dimension(mode, name, ios):
    x = np.zeros((4, 6, 2), np.uint16)
    conv = asc.asarray(ios) if isinstance(ios, np.ndarray) else ios
    args = () if name == "dsplit" else (2,)
    _same(lambda: len(getattr(np, name)(x, ios, *args)), lambda: len(getattr(asc, name)(asc.asarray(x), conv, *args)))


# ------------------------------------------------------------------ Python int exponents of float_power and ldexp
# float_power has only float/complex loops: a Python int outside an integer array's dtype goes to
# the float64 loop (float_power(uint16_array, -3) was pyasc's "out of bounds for uint16"
# OverflowError; a final-code fuzz sample), beyond int64 as float(). ldexp's exponent is NumPy's
# weak int32 scalar (int64 for a bool mantissa): ldexp(uint16_array, -3) is float32 (pyasc:
# OverflowError), beyond int32 NumPy's OverflowError (pyasc: silently inf/0).
_EXPONENTS = [-3, 3, 0, 2 ** 31 - 1, -2 ** 31, 2 ** 31, 2 ** 40, -2 ** 40, 2 ** 63, 2 ** 64, -2 ** 64, 2 ** 70,
              np.int64(-3)]
_MANTISSA_DTYPES = [np.uint16, np.int8, np.uint8, np.int64, np.uint64, np.float16, np.float32, np.float64, np.bool_]


@pytest.mark.parametrize("e", _EXPONENTS, ids=repr)
@pytest.mark.parametrize("dt", _MANTISSA_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", ["float_power", "ldexp"])
def test_python_int_exponents(mode, name, dt, e):
    x = np.arange(1, 4).astype(dt)
    _same(lambda: getattr(np, name)(x, e), lambda: getattr(asc, name)(asc.asarray(x), e))


@pytest.mark.parametrize("b", [-3, 2 ** 64, -2 ** 64, 1.5], ids=repr)
@pytest.mark.parametrize("dt", [np.uint16, np.int8, np.complex64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_float_power_python_int_base(mode, dt, b):
    x = np.arange(1, 4).astype(dt)
    _same(lambda: np.float_power(b, x), lambda: asc.float_power(b, asc.asarray(x)))


# ------------------------------------------------------------------ interp's left/right are one number
# NumPy reads left/right as one C double (complex): an array of one or more dimensions is float()'s
# TypeError "only 0-dimensional arrays can be converted", a list/tuple/str "must be real number";
# pyasc broadcast them (a (3, 0) right= was a broadcast ValueError: a final-code fuzz sample).
@pytest.mark.parametrize("v", [np.ones(1), np.ones((3, 0)), np.ones(2), np.array(2.0), [1.0], (2,), "1", None, 2,
                               np.float32(3)], ids=repr)
@pytest.mark.parametrize("kw", ["left", "right"])
@pytest.mark.parametrize("cplx", [False, True])
def test_interp_left_right_are_numbers(mode, v, kw, cplx):
    fp = np.arange(3.0) + (1j if cplx else 0)
    x, xp = np.array([-1, 0.5, 5]), np.array([0, 1, 2.0])
    conv = asc.asarray(v) if isinstance(v, np.ndarray) else v
    _same(lambda: np.interp(x, xp, fp, **{kw: v}),
          lambda: asc.interp(asc.asarray(x), asc.asarray(xp), asc.asarray(fp), **{kw: conv}))


# ------------------------------------------------------------------ indices: an array dtype
# NumPy's indices allocates empty((N,) + dimensions, dtype) (sparse: arange(d, dtype) per
# dimension): a dtype given as an array is np.dtype()'s TypeError (pyasc accepted it: fuzz sample)
@pytest.mark.parametrize("dims", [(2,), (), (2, 3)], ids=repr)
@pytest.mark.parametrize("sparse", [False, True])
def test_indices_array_dtype(mode, dims, sparse):
    _same(lambda: np.indices(dims, dtype=np.ones(3), sparse=sparse),
          lambda: asc.indices(dims, dtype=asc.ones(3), sparse=sparse))
