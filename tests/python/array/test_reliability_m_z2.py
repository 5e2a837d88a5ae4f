"""Regression tests of fuzz findings, slice m_z (continued from test_reliability_m_z.py, which is
past the ~1,500-line mark). Every expectation is NumPy's own result or exception class, computed
here, in lazy and eager mode."""

import numpy as np
import pytest

import pyasc as asc

from test_reliability_a_l import _outcome, _same  # noqa: E402
from test_reliability_m_z import _compare, mode  # noqa: F401 - (mode: the lazy/eager fixture)


# ------------------------------------------------------------------ split: N = ary.shape[axis] first
# NumPy's split takes anything without a len() as a number of sections and reads ary.shape[axis]
# as a tuple index before anything else: an axis beyond an index-sized integer is IndexError
# "cannot fit 'int' into an index-sized integer" (pyasc: OverflowError; fuzz seed 20301), a 0-d
# array or an out-of-range axis tuple indexing's IndexError, a float axis its TypeError.
@pytest.mark.parametrize("shape", [(), (6,), (2, 6)])
@pytest.mark.parametrize("axis", [0, 1, -1, -3, 2, 2 ** 64, 2 ** 63, -2 ** 64, 1.0, np.int64(1), np.array(1), True,
                                  None, "0"], ids=repr)
@pytest.mark.parametrize("sections", [None, 2, 3, np.int8(2), 2.0], ids=repr)
def test_split_reads_the_axis_as_a_tuple_index(mode, shape, axis, sections):
    x = np.arange(int(np.prod(shape)), dtype=float).reshape(shape)
    _compare(lambda: np.split(x, sections, axis=axis), lambda: asc.split(asc.asarray(x), sections, axis=axis))


# ------------------------------------------------------------------ tile: array repetitions step by step
# NumPy's tile: tup = tuple(reps) (or (reps,) for a 0-d array), all(x == 1 for x in tup) entry by
# entry (an entry of several or no elements: the truth-value ValueError -- fuzz seed 20301's
# tile(<complex 0-d>, <empty (3, 0) array>), pyasc TypeError), then for a non-empty A the repeat
# loop (`nrep != 1` on an array entry, c.repeat(nrep): a negative count, a one-element entry of 2+
# dimensions too deep), then the reshape (an array entry is index()'s TypeError). A 0-d array as
# reps was pyasc's "len() of unsized object" TypeError; NumPy tiles by it.
_TILE_REPS = [np.zeros((3, 0)), np.zeros((0,)), np.zeros((2, 2)), np.ones((2, 1)), np.ones((1, 1)),
              np.array([[2], [1]]), (np.array([1, 1]),), (2, np.array([1, 2])), (np.array([1, 2]), 2),
              (np.ones(0), 2), np.array([2, 3]), [np.array([[1]]), 2], [np.array([[2]]), 2], [2, np.array([[2]])],
              [-1, np.array([1, 2])], [2.5, np.array([1, 2])], np.ones((3, 1, 1)), (np.array([2]),),
              (np.array([1]), 2), 2, (2, 3), np.array(2), [1, 1], [np.array(2), 1], [np.array([2]), np.array([[3]])],
              [-1, 2], [0, np.array([1, 2])]]


@pytest.mark.parametrize("reps", _TILE_REPS, ids=lambda r: repr(r).replace("\n", ""))
@pytest.mark.parametrize("a", [np.array(np.complex64(1 + 2j)), np.arange(3.0), np.zeros((2, 0)),
                               np.arange(6).reshape(2, 3)], ids=lambda a: f"A{a.shape}")
def test_tile_array_repetitions(mode, a, reps):
    _compare(lambda: np.tile(a, reps), lambda: asc.tile(asc.asarray(a), reps))


# ------------------------------------------------------------------ divmod(a, b) on arrays
# Python's divmod() of a pyasc array was "unsupported operand type(s) for divmod()" (ndarray had no
# __divmod__/__rdivmod__); NumPy's call the divmod ufunc. It showed in unwrap with an integer period
# array (divmod(period, 2): fuzz seed 20301, where NumPy's answer is the broadcast ValueError).
_P = np.arange(-5, 5, dtype=np.int64)
_DIVMOD_PAIRS = [(_P, 3), (_P, np.array([3, -3, 2, 7, 1, 5, -2, 4, 3, 9])), (3, _P), (_P.astype(float), 2.5),
                 (np.float32(7), _P), ([1, 2, 3], _P[:3]), (_P, "x"), (_P, None), (_P.astype(np.uint8), 4),
                 (_P.astype(np.uint64), np.arange(10, dtype=np.uint64)[::2]), (_P.reshape(2, 5), _P[:5]),
                 (_P.astype(np.float32), np.float32(0)), (np.array(7.5), -2)]


@pytest.mark.parametrize("a,b", _DIVMOD_PAIRS, ids=range(len(_DIVMOD_PAIRS)))
def test_python_divmod_of_arrays(mode, a, b):
    def conv(v):
        return asc.asarray(v) if isinstance(v, np.ndarray) else v

    _compare(lambda: np.stack(divmod(a, b)), lambda: np.stack([np.asarray(v) for v in divmod(conv(a), conv(b))]))


@pytest.mark.parametrize("period", [np.arange(10, dtype=np.uint64)[::2], np.uint64(6), np.array(4), 6, 2 * np.pi,
                                    np.arange(4, dtype=np.int32) + 3], ids=repr)
@pytest.mark.parametrize("dtype", [np.uint64, np.int64, np.float64])
def test_unwrap_with_an_array_period(mode, period, dtype):
    p = (np.arange(5) * 5 % 7).astype(dtype)
    _compare(lambda: np.unwrap(p, period=period),
             lambda: asc.unwrap(asc.asarray(p), period=asc.asarray(period) if isinstance(period, np.ndarray) else period))


# ------------------------------------------------------------------ keepdims is a C int
# NumPy's ufunc reductions read keepdims as a C int: beyond it OverflowError ("too large to convert
# to C int"; beyond a C long that conversion's message). pyasc checked only the C long bound, and
# nansum/nanprod's kernel path took any int's truthiness (nanprod(keepdims=2**63) was accepted: a
# fuzz sample of the final code). nanmean/nanvar/nanstd check an integer dtype= before that np.sum.
_KD_DTYPE = ("nanprod", "nansum", "prod", "sum", "nanmean", "nanstd", "nanvar", "mean", "std", "var")
_KD_CASES = [(n, d) for n in _KD_DTYPE for d in (None, "uint32", "float32")] + \
    [(n, None) for n in ("max", "nanmax", "nanmin", "all", "any", "median", "count_nonzero", "ptp")]


@pytest.mark.parametrize("kd", [2 ** 63, 2 ** 31, -2 ** 31 - 1, 2 ** 31 - 1, 2, 1.5, None, "a"], ids=repr)
@pytest.mark.parametrize("name,dt", _KD_CASES, ids=repr)
def test_keepdims_is_a_c_int(mode, name, dt, kd):
    x = np.arange(1.0, 4.0)
    kw = {"keepdims": kd} if dt is None else {"keepdims": kd, "dtype": dt}
    _compare(lambda: getattr(np, name)(x, **kw), lambda: getattr(asc, name)(asc.asarray(x), **kw))


# ------------------------------------------------------------------ tile: str repetitions
# NumPy's tile multiplies each extent by its rep (extent * 'a' is a str) and repeats a non-empty A
# by each rep != 1 in order (c.repeat('a'): int()'s ValueError, c.repeat('2') works), then reshapes
# to those products: a str extent is the reshape's TypeError. An empty A repeats nothing, so a str
# rep is that TypeError alone (pyasc: ValueError for every str; the a_l/m_z closing note's leftover).
_STR_REPS = ["ab", ("2",), (1.5, "a"), ("a", 1.5), (2, "2"), ("1",), " 2", (-1, "a"), ("a", -1), (1, "a"),
             ("a", 1), "", "1", ("-1",), (float("inf"), "a"), ("a", float("inf")), (np.float32(1.5), "3")]


@pytest.mark.parametrize("reps", _STR_REPS, ids=repr)
@pytest.mark.parametrize("shape", [(3,), (0,), (2, 0), (), (2, 3)], ids=str)
def test_tile_str_reps(mode, shape, reps):
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    _compare(lambda: np.tile(a, reps), lambda: asc.tile(asc.asarray(a), reps))


# ------------------------------------------------------------------ resize: a bool extent
# NumPy multiplies the entries (True is 1) and refuses a bool only in its final reshape / zeros_like:
# "an integer is required" (TypeError; fuzz run seed 50/51: resize(<0-d>, True) was accepted).
@pytest.mark.parametrize("new_shape", [True, False, (True, 2), (2, True), (np.True_, 2), (True, -1), (True, 0),
                                       (2, 3), 4, np.True_], ids=repr)
@pytest.mark.parametrize("shape", [(), (2,), (0,)], ids=str)
def test_resize_bool_extent(mode, shape, new_shape):
    a = np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape)
    _compare(lambda: np.resize(a, new_shape), lambda: asc.resize(asc.asarray(a), new_shape))


# ------------------------------------------------------------------ median: overwrite_input's truth value
# NumPy's _median tests `if overwrite_input:` after the axis checks: an array of several elements is
# the truth-value ValueError (fuzz run: median(overwrite_input=<huge bool view>) was accepted).
@pytest.mark.parametrize("ow", [np.ones(3, bool), np.ones(1, bool), np.zeros((0,), bool), True, 0, "x"], ids=repr)
@pytest.mark.parametrize("shape,axis", [((4, 5), None), ((4, 5), 1), ((0,), None), ((4, 5), 5)], ids=str)
def test_median_overwrite_input_truth_value(mode, shape, axis, ow):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    _compare(lambda: np.median(a, axis=axis, overwrite_input=ow),
             lambda: asc.median(asc.asarray(a), axis=axis, overwrite_input=asc.asarray(ow)
                                if isinstance(ow, np.ndarray) else ow))


def test_median_overwrite_input_of_a_huge_view():
    h = asc.broadcast_to(asc.asarray(np.ones(1, bool)), (2 ** 44,))
    with pytest.raises(ValueError):
        asc.median(asc.asarray(np.arange(20.0).reshape(4, 5)), overwrite_input=h)


# ------------------------------------------------------------------ matmul operator with None
# NumPy makes None a 0-d object array: its object loop exists, so matmul's core-dimension check
# fails first (ValueError); pyasc returned NotImplemented (Python's TypeError; fuzz run seeds 50/51).
@pytest.mark.parametrize("shape", [(2, 2), (3,), ()], ids=str)
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("other", [None, "a", 2 ** 100, 1.5], ids=repr)
def test_matmul_operator_with_none(mode, shape, side, other):
    x = np.ones(shape, np.float32)

    def run(xp_x):
        return (other @ xp_x) if side == "left" else (xp_x @ other)

    _compare(lambda: run(x), lambda: run(asc.asarray(x)))


# ------------------------------------------------------------------ stack of a sequence NumPy cannot hold
# stack(<(2**31, 2**31) view>) iterates 2**31 rows (one array object each, ~230 GB of objects):
# NumPy's MemoryError; pyasc iterated them (a hang in the fuzz run, seeds 50/51).
@pytest.mark.parametrize("fn", ["stack", "vstack", "hstack", "dstack", "column_stack"])
def test_stack_of_a_huge_first_axis_fails_fast(fn):
    h = asc.broadcast_to(asc.asarray(np.ones(1, np.int8)), (2 ** 31, 2 ** 31))
    with pytest.raises(MemoryError):
        getattr(asc, fn)(h)


# ------------------------------------------------------------------ reductions: NumPy's order of argument checks
# ufunc.reduce converts dtype=, out=, keepdims, axis, initial, where in that order (sum(dtype='abc',
# keepdims=2**63) is the dtype's TypeError, not keepdims' OverflowError); mean/var/std count the
# items along the axis first, then their first sum converts dtype= and out=, var's ddof is compared
# before the second sum reads keepdims.
_BAD = {"dtype": "abc", "out": 5, "keepdims": 2 ** 63, "axis": "a", "initial": "x", "where": "w", "ddof": "d"}
_ORDER_FNS = {"sum": "dtype out keepdims axis initial where", "prod": "dtype out keepdims axis initial where",
              "max": "out keepdims axis initial where", "min": "out keepdims axis initial where",
              "any": "out keepdims axis where", "all": "out keepdims axis where",
              "mean": "dtype out keepdims axis where", "var": "dtype out keepdims axis where ddof",
              "std": "dtype out keepdims axis where ddof"}
_ORDER_CASES = [(f, k1, k2) for f, ks in _ORDER_FNS.items() for i, k1 in enumerate(ks.split())
                for k2 in ks.split()[i + 1:]]


@pytest.mark.parametrize("fn,k1,k2", _ORDER_CASES, ids=repr)
def test_reduction_two_bad_arguments(mode, fn, k1, k2):
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    kw = {k1: _BAD[k1], k2: _BAD[k2]}
    _compare(lambda: getattr(np, fn)(x, **kw), lambda: getattr(asc, fn)(asc.asarray(x), **kw))


# ------------------------------------------------------------------ the harness: LU-based linalg of non-finite matrices
# With NaN/inf entries LAPACK's getrf result is unspecified, and NumPy's NaN pattern is the pivot
# search of the OpenBLAS kernel the CPU dispatches to (det([[nan, 0], [-0, 0]]) is 0 in NumPy: an
# exact-singular report; pivoting on the NaN gives nan). fuzz_classify._lu_nonfinite_ok compares the
# positions where neither result is NaN; this checks that it still flags a wrong number there, a
# wrong dtype or shape, and that finite matrices are never judged by it.
def _fh():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
    import fuzz_harness as fh

    return fh


@pytest.mark.parametrize("case", [
    ("linalg", "det", (("arr", "float64", (2, 2, 2), "c", 0, "special"),), ()),
    ("linalg", "slogdet", (("arr", "float64", (2, 2, 2), "c", 0, "special"),), ()),
    ("linalg", "inv", (("arr", "float64", (3, 3), "c", 0, "special"),), ()),
    ("linalg", "solve", (("arr", "bfloat16", (3, 3), "T", 600, "special"),
                         ("arr", "bfloat16", (3, 3), "T", 600, "special")), ())], ids=lambda c: c[1])
def test_harness_lu_nonfinite_rule(case):
    fh = _fh()
    assert fh.classify(case)[0] == "ok"
    ref, got = fh._call(case, np), fh._call(case, asc)
    assert fh._lu_nonfinite_ok(case, ref, got) or fh._compare(ref.value, got.value, case) is None

    def arrays(v):
        return [v[1]] if v[0] == "array" else [x[1] for x in v[1]]

    e = [np.array(a, copy=True) for a in arrays(ref.value)]
    fin = np.logical_and.reduce([np.isfinite(a.astype(np.complex128)) for a in e])  # (slogdet: a pair)
    k, pos = 0, np.argwhere(fin)[0]
    wrong = [a.copy() for a in e]
    wrong[k][tuple(pos)] = wrong[k][tuple(pos)] + 7  # a wrong number where both hold one
    val = ("array", wrong[0]) if ref.value[0] == "array" else ("tuple", [("array", a) for a in wrong])
    assert fh._classify_pair(case, ref, fh._Result(val))[0] == "wrong_result"
    cast = [a.astype(np.complex64 if a.dtype != np.complex64 else np.complex128) for a in e]
    val = ("array", cast[0]) if ref.value[0] == "array" else ("tuple", [("array", a) for a in cast])
    assert fh._classify_pair(case, ref, fh._Result(val))[0] == "wrong_result"  # a wrong dtype


def test_harness_lu_rule_leaves_finite_matrices_alone():
    fh = _fh()
    case = ("linalg", "inv", (("arr", "float64", (3, 3), "c", 5, "rand"),), ())
    ref = fh._call(case, np)
    assert np.isfinite(ref.value[1]).all()
    wrong = ref.value[1].copy()
    wrong[0, 0] = np.nan
    assert not fh._lu_nonfinite_ok(case, ref, fh._Result(("array", wrong)))
    assert fh._classify_pair(case, ref, fh._Result(("array", wrong)))[0] == "wrong_result"


# ------------------------------------------------------------------ result_type: NumPy's own promotion of 3+ operands
# NumPy's promotion of several dtypes is not a pairwise fold (uint8, int8, float16 is float16; folded:
# int16, then float32 -- so clip(uint8, <int8 0-d>, <float16 array>) was float32) and result_type does
# not check a weak Python int against the dtype (result_type(int8, 300) is int8; pyasc raised).
# With bfloat16 NumPy's answer can depend on the order: pyasc takes it when every order agrees.
_RT_OPS = [np.uint8, np.int8, np.float16, np.int16, np.uint16, np.uint64, np.int64, np.float32, np.complex64,
           np.bool_, 300, 1.5, 1j, True, 2 ** 64]


@pytest.mark.parametrize("ops", [(a, b, c) for a in _RT_OPS[:10] for b in _RT_OPS for c in _RT_OPS[9:]] +
                         [(np.uint8, np.int8, np.dtype("bfloat16" if False else np.float16))], ids=repr)
def test_result_type_of_three_operands(ops):
    try:
        e = np.result_type(*ops)
    except Exception as x:  # noqa: BLE001 - the class is what is compared
        e = x
    try:
        g = asc.result_type(*ops)
    except Exception as x:  # noqa: BLE001
        g = x
    if isinstance(e, Exception):
        # (only Python values: NumPy's object dtype, which pyasc has not; its error is a clear one)
        assert isinstance(g, Exception) or all(not isinstance(v, type) for v in ops), (e, g)
        return
    if isinstance(g, Exception):  # pyasc has no object dtype: 2**64 alone beside bool/Python values
        assert e == np.dtype(object) and isinstance(g, asc.AscendError), (e, g)
        return
    assert g == e, (ops, e, g)


def test_result_type_bfloat16_when_numpy_agrees_with_itself():
    import itertools

    import ml_dtypes
    bf = np.dtype(ml_dtypes.bfloat16)
    for ops in [(np.uint8, np.int8, bf), (bf, np.int16), (np.float32, bf, np.int8), (bf, bf, np.uint8)]:
        answers = {np.result_type(*o) for o in itertools.permutations(ops)}
        if len(answers) == 1:
            assert asc.result_type(*ops) == answers.pop(), ops


# ------------------------------------------------------------------ reshape(a, <integer array>) as the function
# NumPy's PyArray_IntpConverter reads a 1-d integer array as the shape sequence in np.reshape as in
# ndarray.reshape (pyasc's function: "only integer scalar arrays" TypeError; fuzz run seeds 50/51).
@pytest.mark.parametrize("shape", [np.array([2, 3]), np.array([-1, 3], np.int8), np.array([6], np.uint64),
                                   np.array([2, 2, 2, 2, 2, 2, 2], np.int32)[::2], np.array([True, True]),
                                   np.array([2.0, 3.0]), np.array([[2, 3]])], ids=repr)
@pytest.mark.parametrize("order", ["C", "F", "A", "K", "x"])
def test_reshape_function_integer_array_shape(mode, shape, order):
    x = np.arange(6, dtype=np.int32)
    _compare(lambda: np.reshape(x, shape, order=order),
             lambda: asc.reshape(asc.asarray(x), asc.asarray(shape), order=order))


# ------------------------------------------------------------------ ravel_multi_index: the clip modes as NumPy reads them
# PyArray_ConvertClipmodeArray: a tuple or list is one mode per dimension, anything else one mode (an
# array: "clipmode not understood" TypeError, before the multi_index length; pyasc iterated it), an
# int 0/1/2 is clip/wrap/raise (pyasc refused ints), another C int its ValueError.
@pytest.mark.parametrize("m", [np.zeros((3, 0), np.uint8), np.zeros(2, np.uint8), 0, 1, 2, 5, -1, 1.5, "clip",
                               ("clip", "wrap"), ["clip"], None, "bad", (0, 1), (5, 1), 2 ** 40], ids=repr)
@pytest.mark.parametrize("dims", [(3, 2), (3, 2, -1), (5, 5)], ids=str)
def test_ravel_multi_index_clip_modes(mode, dims, m):
    idx = (np.array([1, 2, 7, 0]), np.array([0, 1, 1, 9]))
    _compare(lambda: np.ravel_multi_index(idx, dims, mode=m),
             lambda: asc.ravel_multi_index(tuple(asc.asarray(i) for i in idx), dims, mode=m))


# ------------------------------------------------------------------ tri: NumPy's order of checks
# np.tri compares N first (an N array of several elements: the truth-value ValueError) and converts
# the dtype last (pyasc checked the dtype first: TypeError; fuzz run seeds 50/51).
@pytest.mark.parametrize("n", [np.array([2, 3]), 3, np.array(3), -1, 1.5, "a"], ids=repr)
@pytest.mark.parametrize("dtype", [(1, "a"), np.zeros(2, np.int8), "bfloat16", float, "abc"], ids=repr)
def test_tri_checks_n_before_the_dtype(mode, n, dtype):
    def conv(v):
        return asc.asarray(v) if isinstance(v, np.ndarray) else v

    _compare(lambda: np.tri(n, dtype=dtype), lambda: asc.tri(conv(n), dtype=conv(dtype)))


# ------------------------------------------------------------------ the harness: power(x, 0.5) with a stride-0 exponent
# NumPy's float32/float64 power loop takes sqrt(x) when it meets the exponent 0.5 as a broadcast
# scalar (nan at -inf, -0.0 at -0.0) and pow(x, 0.5) otherwise (inf, 0.0): np.power(x, 0.5) and
# np.power(x, np.full(x.shape, 0.5)) differ. fuzz_classify._power_half_ok accepts pyasc's pow answer
# when it equals NumPy's materialized one; a wrong number is still flagged.
def test_harness_power_half_rule():
    fh = _fh()
    case = ("fn", "power", (("arr", "float32", (2, 3), "c", 2800, "special"), ("py", 0.5)), ())
    assert fh.classify(case)[0] == "ok"
    ref, got = fh._call(case, np), fh._call(case, asc)
    assert fh._compare(ref.value, got.value, case) is not None  # (NumPy's sqrt path: nan at -inf)
    assert fh._power_half_ok(case, got)
    wrong = got.value[1].copy()
    wrong[0, 1] += 1  # (0.707...: a finite value both hold)
    assert fh._classify_pair(case, ref, fh._Result(("array", wrong)))[0] == "wrong_result"
    other = ("fn", "power", (("arr", "float32", (2, 3), "c", 2800, "special"), ("py", 2.0)), ())
    assert not fh._power_half_ok(other, fh._call(other, asc))


# ------------------------------------------------------------------ ndarray.sort: the axis converted before the read-only check
# ndarray.sort's parser reads the axis as a C int (a tuple: TypeError; True: axis 1; beyond a C int /
# C long: OverflowError) before PyArray_Sort refuses a read-only array (fresh sample seed 61:
# sort(<read-only huge view>, (3, 2)) was pyasc's read-only ValueError).
@pytest.mark.parametrize("axis", [(1, 0, 0), (3, 2), 0, -1, 5, True, 1.5, "a", 2 ** 63, 2 ** 40, np.int64(1),
                                  np.float64(1)], ids=repr)
@pytest.mark.parametrize("view", ["c", "T", "readonly"])
def test_sort_method_axis_before_read_only(mode, axis, view):
    x = np.arange(12.0)[::-1].reshape(3, 4)
    x = x.T.copy().T if view == "T" else x.copy()

    def run(xp_x):
        xp_x.sort(axis=axis)
        return xp_x

    if view == "readonly":
        n = np.broadcast_to(np.ones(1, np.int8), (4, 3))
        _compare(lambda: run(n), lambda: run(asc.broadcast_to(asc.asarray(np.ones(1, np.int8)), (4, 3))))
    else:
        _compare(lambda: run(x.copy()), lambda: run(asc.asarray(x.copy())))


# ------------------------------------------------------------------ nan-reductions of a 0-d bfloat16: np.mean's axis rule
# NumPy's nanmean/nanvar/nanstd replace NaNs only in an np.inexact input; ml_dtypes' bfloat16 is none,
# so it goes to np.mean/np.var, whose _count_reduce_items normalizes the axis first: axis 0/-1 of a
# 0-d bfloat16 is AxisError (fuzz seed 50: nanmean(<0-d bf16>, axis=0, dtype=float64) was accepted),
# where a 0-d float32 reads it as the whole array (ufunc.reduce). The other nan-reductions go through
# ufunc reductions or PyArray_CheckAxis for every dtype.
_NAN_REDUCTIONS = ["nanmean", "nanvar", "nanstd", "nansum", "nanprod", "nanmax", "nanmin", "nanargmax",
                   "nanargmin", "nanmedian", "nancumsum", "nancumprod"]


@pytest.mark.parametrize("axis", [0, -1, 1, None, (0,), (), np.int64(0)], ids=repr)
@pytest.mark.parametrize("dtype", ["bfloat16", "float32", "float64", "complex64", "int32"])
@pytest.mark.parametrize("name", _NAN_REDUCTIONS)
def test_nan_reductions_of_0d_axis(mode, name, dtype, axis):
    dt = asc.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x = np.array(1.5 if dtype != "int32" else 3).astype(dt)
    kw = {"dtype": np.float64} if name in ("nanmean", "nanvar", "nanstd", "nansum", "nanprod") else {}
    _compare(lambda: getattr(np, name)(x, axis=axis, **kw), lambda: getattr(asc, name)(asc.asarray(x), axis=axis, **kw))


def test_nanmean_0d_bf16_fuzz_case(mode):
    x = np.array(np.nan).astype(asc.bfloat16)
    for name in ("nanmean", "nanvar", "nanstd"):
        with pytest.raises(np.exceptions.AxisError):
            getattr(asc, name)(asc.asarray(x), axis=0, dtype=np.float64)
        with pytest.raises(np.exceptions.AxisError):
            getattr(np, name)(x, axis=0, dtype=np.float64)
    # (1-d bfloat16 keeps pyasc's NaN-ignoring mean)
    y = np.array([1.0, np.nan, 3.0]).astype(asc.bfloat16)
    assert float(asc.nanmean(asc.asarray(y), axis=0, dtype=np.float64)) == 2.0


# ------------------------------------------------------------------ ravel_multi_index: the modes before the order
# NumPy's converters: dims, the clip mode(s) (an array is "clipmode not understood", TypeError), then
# the order (fuzz seeds 50/51: an array mode with order='A' -- NumPy's TypeError, pyasc's ValueError
# of the C/F restriction before 872b790); a bad order str is ValueError, a float order TypeError.
@pytest.mark.parametrize("mode_arg", [np.zeros((3, 0), np.uint64), np.zeros(1, np.uint8), "bogus", float("nan"), "clip",
                                      ("wrap",), 1], ids=lambda m: repr(m).replace("\n", ""))
@pytest.mark.parametrize("order", ["A", "K", "F", "C", "bogus", float("nan"), None])
def test_ravel_multi_index_mode_before_order(mode, mode_arg, order):
    idx = np.array([0, 3, 5])

    def conv(xp, v):
        return xp.asarray(v) if isinstance(v, np.ndarray) and xp is asc else v

    _compare(lambda: np.ravel_multi_index((idx,), (4,), mode=mode_arg, order=order),
             lambda: asc.ravel_multi_index((asc.asarray(idx),), (4,), mode=conv(asc, mode_arg), order=order))


# ------------------------------------------------------------------ matmul of complex with infinities: BLAS's NaN parts
# NumPy's complex products go through BLAS, whose alpha = 1+0j scaling turns inf+infj into nan+nanj
# (which part: kernel-dependent, 1x2x1 nan+infj, 3x2x3 nan+nanj); pyasc's plain sum of products is
# inf+infj, as Python's complex and NumPy's object loop. The fuzz harness accepts ours non-finite
# where NumPy's part is NaN with an infinite operand (fuzz_compare._blas_complex_nan) -- and must
# still flag a finite value, a NaN where NumPy is finite, or any difference without an infinity.
def test_matmul_complex_inf_blas_nan_rule():
    fh = _fh()
    case = ("linalg", "matmul", (("arr", "bfloat16", (2, 2), "c", 20968, "special"),
                                 ("arr", "complex128", (2, 3), "rev", 222, "edge")), ())
    ref, got = fh._call(case, np), fh._call(case, asc)
    assert np.isnan(ref.value[1]).all()  # (NumPy's answer: all NaN, the first row from BLAS)
    g = got.value[1]
    assert np.isinf(g[0]).all()  # (ours: the sum of products, inf parts; object loop the same)
    a, b = (fh.build(s, np) for s in case[2])
    obj = np.matmul(a.astype(np.complex128).astype(object), b.astype(object)).astype(np.complex128)
    np.testing.assert_array_equal(np.isinf(obj[0]), np.isinf(g[0]))
    assert fh._compare(ref.value, got.value, case) is None
    for bad_at, val in (((0, 0), 1 + 1j), ((0, 1), complex(np.nan, 0.5))):
        wrong = g.copy()
        wrong[bad_at] = val
        assert fh._compare(ref.value, ("array", wrong), case) is not None
    # finite operands: NaN vs inf is a wrong result
    fin = ("linalg", "matmul", (("arr", "complex128", (2, 2), "c", 1, "rand"),
                                ("arr", "complex128", (2, 3), "c", 2, "rand")), ())
    e = fh._call(fin, np).value
    bad = e[1].copy()
    bad[0, 0] = complex(np.inf, np.inf)
    e_nan = e[1].copy()
    e_nan[0, 0] = complex(np.nan, np.nan)
    assert fh._compare(("array", e_nan), ("array", bad), fin) is not None
    # another function (not a BLAS product) is compared as before
    other = ("fn", "multiply", case[2], ())
    assert fh._compare(ref.value, got.value, other) is not None


# ------------------------------------------------------------------ trace: offset, axis1, axis2 parsed first
# ndarray.trace parses "|iiiO&O&": offset, axis1 and axis2 are C ints read before any shape check --
# fuzz seed 71's trace(1.5, axis2=None) is NumPy's TypeError "'NoneType' object cannot be
# interpreted as an integer" (pyasc gave its "at least two dimensions" ValueError first); a float is
# TypeError, beyond a C int OverflowError.
_TRACE_AXES = [0, 1, -1, 2, None, 1.5, 2 ** 31, 2 ** 63, "a", np.int64(1)]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("axis1", _TRACE_AXES, ids=repr)
@pytest.mark.parametrize("axis2", _TRACE_AXES, ids=repr)
def test_trace_parses_its_axes_before_the_shape(mode, shape, axis1, axis2):
    x = np.arange(int(np.prod(shape)), dtype=float).reshape(shape) if shape else np.float64(1.5)
    _compare(lambda: np.trace(x, axis1=axis1, axis2=axis2), lambda: asc.trace(asc.asarray(x), axis1=axis1, axis2=axis2))


# ------------------------------------------------------------------ mean/var/std with where=: NumPy's order
# With a where= (anything but True) NumPy's _count_reduce_items broadcasts where to the input first
# (its ValueError), then counts with a ufunc sum, whose axis rules take an int axis 0/-1 of a 0-d array
# as no axis; where's cast to bool (an int64 array's TypeError) comes after, in the sum of the data.
# pyasc's var/std checked the axis first as without where= (var(<0-d int64>, axis=0, where=<int64>):
# AxisError, NumPy TypeError; fuzz seed 71), nanvar/nanstd of a 0-d float refused axis 0.
@pytest.mark.parametrize("fn", ["var", "std", "mean", "nanvar", "nanstd", "sum"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("where", [np.array(True), np.array([True]), np.array(3), np.ones(3, bool),
                                   np.ones((5, 1, 1), bool), np.True_], ids=repr)
@pytest.mark.parametrize("axis", [0, -1, 5, None, (0,)], ids=repr)
def test_where_reductions_check_in_numpy_order(mode, fn, shape, where, axis):
    for dt in (np.float64, np.int64):
        x = np.arange(1, 1 + int(np.prod(shape)), dtype=dt).reshape(shape)

        def w(xp):
            return xp.asarray(where) if isinstance(where, np.ndarray) else where

        _compare(lambda: getattr(np, fn)(x, axis=axis, where=w(np)),
                 lambda: getattr(asc, fn)(asc.asarray(x), axis=axis, where=w(asc)))


# ------------------------------------------------------------------ nanmean/nanvar/nanstd of bfloat16, int dtype=
# ml_dtypes' bfloat16 is no np.inexact: NumPy's nan-functions call np.mean/np.var/np.std with every
# argument as given, and an integer or bool dtype= is accepted (pyasc: "If a is inexact, then dtype
# must be inexact"). pyasc still ignores bfloat16 NaNs with an inexact dtype (its documented choice).
@pytest.mark.parametrize("fn", ["nanmean", "nanvar", "nanstd"])
@pytest.mark.parametrize("dtype", ["int32", "int8", "uint8", "bool", "int64", "abc"])
@pytest.mark.parametrize("vals", [[1.5, 2.5, 7.25], [], [[1.5, 2.5], [3.5, -4.5]], 2.5], ids=repr)
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_bfloat16_nan_functions_take_an_integer_dtype(mode, fn, dtype, vals, axis):
    import ml_dtypes  # noqa: PLC0415

    x = np.array(vals, dtype=ml_dtypes.bfloat16)
    _compare(lambda: getattr(np, fn)(x, axis=axis, dtype=dtype),
             lambda: getattr(asc, fn)(asc.asarray(x), axis=axis, dtype=dtype))


# ------------------------------------------------------------------ polyint: k entries concatenated as NumPy
@pytest.mark.parametrize("k", [np.ones((1, 1, 1, 1), np.float32), np.ones((1,)), np.ones((2, 1)), 3.0, [1.0, 2.0], None],
                         ids=repr)
@pytest.mark.parametrize("m", [1, 2])
def test_polyint_k_of_several_dimensions(mode, k, m):
    # NumPy's concatenate((y, [k[i]])): a k of more than one dimension is its dimension-mismatch
    # ValueError (10^5 run seed 80: pyasc flattened k[i])
    p = np.array([3, 4], np.int32)
    _compare(lambda: np.polyint(p, m, k=k),
             lambda: asc.polyint(asc.asarray(p), m, k=asc.asarray(k) if isinstance(k, np.ndarray) else k))


# ------------------------------------------------------------------ var/std of complex data with a complex dtype=
# NumPy divides the complex sum of |x - mean|**2 by the count as a complex number (Smith's division:
# a NaN or Inf sum gets a NaN imaginary part); the C++ kernel divided by a real count (nan+0j; 1,045 of
# 1,200 special-value calls differed, 10^5 run seed 81). And dtype=float16 for wider data: NumPy's sums
# cast each element to float16 first (int32 2**31 - 1 is inf, inf + -inf a NaN mean; seed 80).
@pytest.mark.parametrize("fn", ["var", "std", "nanvar", "nanstd", "mean", "nanmean"])
@pytest.mark.parametrize("dtype", ["complex128", "complex64", "float16", None])
@pytest.mark.parametrize("src", [("complex128", "special"), ("int32", "edge"), ("float64", "special"),
                                 ("uint16", "edge"), ("float32", "rand")], ids=repr)
@pytest.mark.parametrize("axis", [None, 0, (0, 1)], ids=repr)
def test_complex_and_half_dtype_reductions(mode, fn, dtype, src, axis):
    import os  # noqa: PLC0415
    import sys  # noqa: PLC0415

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz"))
    import fuzz_cases  # noqa: PLC0415

    if dtype is not None and dtype.startswith("complex") and src[0] != "complex128":
        pytest.skip("real data with a complex dtype: not this finding")
    for seed in (6669, 6769, 3):
        x = fuzz_cases.build(("arr", src[0], (4, 3, 1), "c", seed, src[1]), np)
        _compare(lambda: getattr(np, fn)(x, axis=axis, dtype=dtype),
                 lambda: getattr(asc, fn)(asc.asarray(x), axis=axis, dtype=dtype))


@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("mean", [2 ** 63, 2, 2.5, 1j, -(2 ** 63) - 1], ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int8"])
def test_var_std_python_mean_is_a_weak_scalar(mode, fn, mean, dtype):
    # NumPy's arr - mean keeps a Python number weak: float32 data with mean=2**63 is a float32 result
    # (10^5 run seed 80: pyasc made the mean a uint64 array, float64)
    for shape in [(3, 0), (3, 2)]:
        x = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
        _compare(lambda: getattr(np, fn)(x, mean=mean), lambda: getattr(asc, fn)(asc.asarray(x), mean=mean))


@pytest.mark.parametrize("mode_", [True, False, np.True_, 1, 0, 2, "wrap"], ids=repr)
@pytest.mark.parametrize("fn", ["ravel_multi_index", "take"])
def test_clipmode_refuses_bools(mode, fn, mode_):
    # NumPy's clipmode converter: a bool is "clipmode not understood" (TypeError), checked before
    # ravel_multi_index's length check (10^5 run seed 81: pyasc read True as 'wrap' / gave ValueError)
    if fn == "take":
        _compare(lambda: np.take(np.arange(3), [5], mode=mode_), lambda: asc.take(asc.arange(3), [5], mode=mode_))
    else:
        mi = (np.array([1]), np.array([1]))
        _compare(lambda: np.ravel_multi_index(mi, (3, 3, 1), mode=mode_),
                 lambda: asc.ravel_multi_index(tuple(asc.asarray(v) for v in mi), (3, 3, 1), mode=mode_))


# ------------------------------------------------------------------ quantile family: NumPy's order of checks
# NumPy checks q's range (a complex q passes: complex numbers compare lexicographically), then
# `method != "inverted_cdf"` when weights are given -- a method given as an array compared
# elementwise (bfloat16: the not_equal ufunc's TypeError) and taken by its truth value -- and only
# fails a complex q at its floor ufunc after the method lookup (10^5 run seeds 80/81: pyasc refused a
# complex q first and took an array method as not 'inverted_cdf').
_Q_METHODS = ["linear", "bogus", "nearest", np.array(1.0), np.array(1.0, "bfloat16"),
              np.array([1.0, 2.0]),
              np.array(2, np.int8), np.array([]), np.array(True), np.array(0.5, np.float16)]


@pytest.mark.parametrize("method", _Q_METHODS, ids=repr)
@pytest.mark.parametrize("q", [0.25, 25, 1j, 0.5j, np.array([0.2, 0.5j]), np.array(0.5 + 0j), np.array([0.1, 0.9])],
                         ids=repr)
@pytest.mark.parametrize("fn", ["quantile", "nanquantile", "percentile", "nanpercentile"])
def test_quantile_method_array_and_complex_q_order(mode, fn, q, method):
    import ml_dtypes  # noqa: F401,PLC0415 - (registers the "bfloat16" dtype name)

    if isinstance(method, np.ndarray) and method.dtype.name == "bfloat16":
        import ml_dtypes as mld  # noqa: PLC0415

        method = np.array(1.0, mld.bfloat16)
    for a in (np.arange(5.0), np.array(3, np.uint8), np.array([[1.0, np.nan], [2.0, 4.0]]).T, np.zeros((0,))):
        for w in (None, np.ones(a.shape)):
            def call(xp):
                m = xp.asarray(method) if isinstance(method, np.ndarray) else method
                return getattr(xp, fn)(xp.asarray(a), q, method=m, weights=None if w is None else xp.asarray(w))
            if w is not None and not isinstance(method, np.ndarray) and method == "inverted_cdf":
                continue  # (weights with inverted_cdf: pyasc's NotImplementedError)
            with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
                __import__("warnings").simplefilter("ignore")
                _compare(lambda: call(np), lambda: call(asc))


# ------------------------------------------------------------------ partition: kth's conversion, the axis, read-only
# ndarray.partition converts kth first (PyArray_FromAny: a huge broadcast view is copied -- NumPy's
# MemoryError; deeper than 1-d or ragged: ValueError), then checks the axis, then that the array is
# writeable ("partition array is read-only"), and only then kth's type and bounds; np.partition
# copies the array first (10^5 run seed 81: pyasc gave the kth TypeError / the AxisError first).
_P_ARRAYS = {"ro": lambda xp: xp.broadcast_to(xp.asarray(1.0), (3,)), "0d": lambda xp: xp.asarray(np.array(1.0)),
             "huge": lambda xp: xp.broadcast_to(xp.asarray(np.float32(1)), (2 ** 44,)),
             "w": lambda xp: xp.asarray(np.array([3.0, 1.0, 2.0])), "c0d": lambda xp: xp.asarray(np.array(1 + 2j))}
_P_KTHS = {"hugebool": lambda xp: xp.broadcast_to(xp.asarray(True), (2 ** 44,)),
           "hugeint": lambda xp: xp.broadcast_to(xp.asarray(1), (2 ** 44,)),
           "f16": lambda xp: xp.asarray(np.float16(1.5)), "5": lambda xp: 5, "0": lambda xp: 0,
           "2d": lambda xp: xp.asarray(np.array([[1]])), "view": lambda xp: xp.broadcast_to(xp.asarray(1), (3,)),
           "list2d": lambda xp: [[1]], "ragged": lambda xp: [[1], [1, 2]], "bool": lambda xp: xp.asarray(True)}


@pytest.mark.parametrize("kth", sorted(_P_KTHS))
@pytest.mark.parametrize("arr", sorted(_P_ARRAYS))
@pytest.mark.parametrize("axis", [-1, 0, 3])
def test_partition_check_order(mode, arr, kth, axis):
    def call(xp, form):
        a, k = _P_ARRAYS[arr](xp), _P_KTHS[kth](xp)
        if form == "method":
            a.partition(k, axis=axis)  # (in place: the partitioned array is the result)
            return a
        return xp.partition(a, k, axis=axis)

    for form in ("method", "function"):
        if form == "function" and arr == "huge" and kth in ("5", "0", "view", "bool"):
            continue  # (np.partition copies the 64 TiB view first: both MemoryError, covered by the other kths)
        _compare(lambda: call(np, form), lambda: call(asc, form))


# ------------------------------------------------------------------ tile: float/complex repetitions as NumPy casts them
# tuple(reps) of an array gives NumPy scalars: ndarray.repeat casts a NumPy float/complex entry to
# intp (the real part; NaN/inf the most negative intp: 'negative dimensions' ValueError), the final
# reshape to the float/complex output shape is the TypeError; an empty A repeats nothing (10^5 run
# seed 81: a complex64 reps array was pyasc's 'only integer scalar arrays' TypeError).
_TILE_REPS = [np.array([2 + 1j], np.complex64), np.array([-2 + 1j], np.complex64), np.array([1 + 0j, 2 + 0j], np.complex64),
              np.array([0.5 + 1j], np.complex64), np.array([np.nan + 1j]), np.array([1 + 0j]), 2 + 0j, (2 + 0j, 1),
              np.array(2 + 0j), np.array([2.5]), np.array([2.0], np.float32), np.array([-2.0]), np.array([np.nan]),
              np.array([np.inf]), np.array([-0.5 + 3j, 2, 1]), np.array([1 + 0j, 1 + 0j]), np.array([3, -1j, 2], np.complex64)]


@pytest.mark.parametrize("reps", _TILE_REPS, ids=repr)
def test_tile_float_and_complex_reps(mode, reps):
    import warnings  # noqa: PLC0415

    for a in (np.ones((3, 1), np.complex64), np.zeros((0, 2)), np.arange(3.0), np.arange(6.0).reshape(2, 3)[:, ::2]):
        def call(xp):
            return xp.tile(xp.asarray(a), xp.asarray(reps) if isinstance(reps, np.ndarray) else reps)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _compare(lambda: call(np), lambda: call(asc))


# ------------------------------------------------------------------ var/std: dtype= and the bool mean before ddof
# NumPy's _var counts the items (axis), sums the mean in dtype= (an unknown dtype: TypeError), and for
# bool data with dtype=bool subtracts a bool mean (the bool subtract's TypeError) -- all before ddof
# is read (10^5 run seeds 80/81: a ddof beyond int64 was pyasc's OverflowError first).
@pytest.mark.parametrize("ddof", [0, 1, 2 ** 63, 2 ** 70, -2 ** 64], ids=repr)
@pytest.mark.parametrize("dtype", [None, bool, "bool", np.float32, "foo"], ids=repr)
@pytest.mark.parametrize("fn", ["var", "std", "nanvar", "nanstd"])
def test_var_dtype_and_bool_mean_before_ddof(mode, fn, dtype, ddof):
    import warnings  # noqa: PLC0415

    for a in (np.array([True, False]), np.zeros((0, 1, 0), bool), np.array([1, 2]), np.array([[True], [False]])[::2]):
        for axis in (None, 5, 0):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                _compare(lambda: getattr(np, fn)(a, axis=axis, ddof=ddof, dtype=dtype),
                         lambda: getattr(asc, fn)(asc.asarray(a), axis=axis, ddof=ddof, dtype=dtype))


# trim_zeros: a list/tuple axis is iterated as normalize_axis_tuple does (a ragged one is the
# TypeError of its first non-integer entry; 10^5 run seed 81: pyasc's asarray ValueError)
@pytest.mark.parametrize("axis", [[[1], [2, 3]], [0], (0,), [], [[0]], [0, 0], (-1,), [0, 1], np.array([0]), 0,
                                  [2 ** 40], (0, "a")], ids=repr)
def test_trim_zeros_axis_sequence(mode, axis):
    for a in (np.array(5, np.int32), np.array([0, 1, 0]), np.array([[0, 1], [0, 0]]), np.array([0, 0, 2, 0])[::2]):
        _compare(lambda: np.trim_zeros(a, axis=axis), lambda: asc.trim_zeros(asc.asarray(a), axis=axis))


# ------------------------------------------------------------------ 10^5 run (seeds 100/101) and the last run's open cases
# nansum/nanprod/nanmax/nanmin/ptp with an axis tuple: NumPy's reduction reads the entries in order
# (an entry out of range is AxisError before a later str's TypeError; seed 101: nanprod(axis=(1, 'a'))
# was pyasc's TypeError).
@pytest.mark.parametrize("axis", [(1, "a"), (0, "a"), ("a", 1), (0, 0), (0,), (5,), (-1,), (0, 1), (1.5,), 0, "a"],
                         ids=repr)
@pytest.mark.parametrize("name", ["nanprod", "nansum", "nanmax", "nanmin", "ptp"])
def test_nan_reductions_axis_tuple_in_order(mode, name, axis):
    for a in (np.arange(5, dtype=np.uint16), np.arange(6.0).reshape(2, 3), np.float32(2), np.array([1.0, np.nan])):
        _compare(lambda: getattr(np, name)(a, axis=axis), lambda: getattr(asc, name)(asc.asarray(a), axis=axis))
    if name in ("nanprod", "nansum"):
        a = np.arange(5, dtype=np.uint16)
        _compare(lambda: getattr(np, name)(a, axis=axis, dtype=np.complex64),
                 lambda: getattr(asc, name)(asc.asarray(a), axis=axis, dtype=np.complex64))


# nanmean of real data with a complex dtype=: NumPy divides the complex sum by the count as a complex
# division ((inf+0j)/1 is inf+nanj); pyasc's kernel divided the parts (seed 101: 0-d inf gave inf+0j).
@pytest.mark.parametrize("vals", [[np.inf], [np.inf, 1.0], [np.nan, 1.0], [np.nan], [-np.inf, 2.0], [1.0, 2.0], []],
                         ids=repr)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64, np.float32, None], ids=str)
def test_nanmean_complex_dtype_of_real_data(mode, vals, dtype):
    import warnings  # noqa: PLC0415

    for src in (np.float64, np.float32, np.float16):
        a = np.array(vals, src)
        cases = [(a, None), (a, 0)] + ([(a[0], None)] if a.size else [])
        for x, axis in cases:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                _compare(lambda: np.nanmean(x, axis=axis, dtype=dtype),
                         lambda: asc.nanmean(asc.asarray(x), axis=axis, dtype=dtype))


# polydiv of N-d coefficients: NumPy's q[k] = d fails -- ValueError for float64 ("setting an array
# element with a sequence"), TypeError for complex, and for bfloat16 ml_dtypes' "expected number"
# TypeError (pyasc: the float ValueError; last run's open cases).
@pytest.mark.parametrize("shape", [(4, 2, 5), (1, 0), (3,), (2, 2)])
@pytest.mark.parametrize("dt", ["bfloat16", np.float64, np.complex64, np.float32], ids=str)
def test_polydiv_nd_coefficients(mode, shape, dt):
    import ml_dtypes  # noqa: PLC0415

    d = ml_dtypes.bfloat16 if dt == "bfloat16" else dt
    u, v = np.ones(shape, d), np.ones(shape, d) * 2
    _compare(lambda: np.stack(np.polydiv(u, v)) if u.ndim == 1 else np.polydiv(u, v),
             lambda: np.stack([np.asarray(p) for p in asc.polydiv(asc.asarray(u), asc.asarray(v))])
             if u.ndim == 1 else asc.polydiv(asc.asarray(u), asc.asarray(v)))


# reshape with an array as the shape: NumPy iterates it, so one whose first extent is 0 (any dtype) is
# the shape () (an empty bool array: pyasc's "only integer scalar arrays" TypeError; last run); None
# is "no new shape" (the array's own).
_RESHAPE_SHAPES = [np.ones((0, 2, 4), bool), np.ones(0, bool), np.ones(0, np.int64), np.array([1]), np.array([True]),
                   np.array(True), None, [], (), np.ones((0,)), np.array([1.0]), np.array(1), (None, 3), -1]


@pytest.mark.parametrize("shape", _RESHAPE_SHAPES, ids=repr)
def test_reshape_array_and_none_shapes(mode, shape):
    for a in (np.ones((0, 2, 4), bool), np.ones(1, np.uint8), np.ones(3), np.ones(()), np.ones((2, 3))[:, ::2]):
        _compare(lambda: a.reshape(shape), lambda: asc.asarray(a).reshape(shape))
        _compare(lambda: np.reshape(a, shape), lambda: asc.reshape(asc.asarray(a), shape))
        _compare(lambda: np.reshape(a, shape, order="F"), lambda: asc.reshape(asc.asarray(a), shape, order="F"))
    _compare(lambda: np.reshape(np.ones(2)), lambda: asc.reshape(asc.ones(2)))  # (no shape: TypeError)


# tile with list entries in reps: `[2] == 1` is False, so NumPy repeats by each list (broadcast to the
# rows: repeat's ValueError for a length mismatch, negative or ragged entries) and the output shape
# holding a list is the reshape's TypeError (seed 101: tile(0-d, [[1], [2, 3]]) was pyasc's TypeError).
@pytest.mark.parametrize("reps", [[[1], [2, 3]], [[2], [2]], [[1, 2]], ([2],), [[2, 2], 1], [2, [-1]], [[1.5]],
                                  [[[1]]], [[2, 2]], [[]], [1, [1]]], ids=repr)
def test_tile_list_repetitions(mode, reps):
    for a in (np.float64(3.0), np.ones(2), np.ones((2, 3)), np.ones(0)):
        _compare(lambda: np.tile(a, reps), lambda: asc.tile(asc.asarray(a), reps))


# tril(m, k=None) of a huge 1-d view: NumPy's tri computes -k first (TypeError), before anything is
# allocated (seed 100: pyasc's "array is too big" ValueError of the broadcast square).
@pytest.mark.parametrize("k", [None, "a", 1.5, 0, -1], ids=repr)
def test_tril_k_before_allocation(mode, k):
    for a in (np.ones(3), np.ones((3, 3))):
        _compare(lambda: np.tril(a, k=k), lambda: asc.tril(asc.asarray(a), k=k))
    if k in (None, "a"):
        with pytest.raises(TypeError):
            np.tril(np.broadcast_to(np.ones(1, bool), (2 ** 63 - 1,)), k=k)
        with pytest.raises(TypeError):
            asc.tril(asc.broadcast_to(asc.ones(1, bool), (2 ** 63 - 1,)), k=k)


# trace: NumPy's argument parse ("|iiiO&O&") converts dtype and out before the diagonal's axis checks
# (seed 101: trace(axis2=5, dtype='abc') was pyasc's AxisError-like ValueError).
@pytest.mark.parametrize("kw", [{"axis2": 5, "dtype": "abc"}, {"axis2": 5, "out": 3}, {"dtype": np.float32},
                                {"axis1": 0, "axis2": 0, "dtype": "f8"}, {"dtype": "abc"}], ids=repr)
def test_trace_dtype_before_axes(mode, kw):
    for a in (np.ones((2, 2), np.int64), np.ones(2)):
        _compare(lambda: np.trace(a, **kw), lambda: asc.trace(asc.asarray(a), **kw))
        _compare(lambda: a.trace(**kw), lambda: asc.asarray(a).trace(**kw))


# polyder of N-d coefficients: NumPy computes y = p[:-1] * arange(n, 0, -1) (the powers broadcast along
# the last axis: a mismatch is its ValueError) before `if m == 0`, so m + 1 products, and an empty fixed
# point recurses to its RecursionError for a large m. pyasc refused every N-d array (seed 100: 30 clear
# errors where NumPy returns).
@pytest.mark.parametrize("shape", [(1, 1), (0, 0, 0), (3, 2), (3, 3), (4, 3), (3, 1), (2, 3, 3), (1, 0), (5, 5, 1),
                                   (0, 1), (2, 1, 1), ()], ids=str)
@pytest.mark.parametrize("m", [0, 1, 2, 3, 2000, 2 ** 70], ids=str)
def test_polyder_nd_coefficients(mode, shape, m):
    for dt in (np.int8, np.float32, bool, np.complex64):
        a = (np.arange(int(np.prod(shape))) % 5 + 1).astype(dt).reshape(shape)
        _compare(lambda: np.polyder(a, m), lambda: asc.polyder(asc.asarray(a), m))


# roll with an array axis of bool/float entries: NumPy iterates it as NumPy scalars, which are no index
# (TypeError at the first entry). A pyasc 0-d bool passed __index__, so a huge bool view as the axis was
# a 2**44-step loop (seed 100: a hang, the run's one crash-class finding).
@pytest.mark.parametrize("axis", [np.array([True]), np.array([0.0]), np.array([1]), np.array([], bool),
                                  np.array([0, 1]), np.ones(2, bool), "huge"], ids=repr)
def test_roll_array_axis_entries(mode, axis):
    a = np.arange(10.0).reshape(2, 5)
    if isinstance(axis, str):
        _compare(lambda: np.roll(a, 1, axis=np.broadcast_to(np.ones(1, bool), (2 ** 44,))),
                 lambda: asc.roll(asc.asarray(a), 1, axis=asc.broadcast_to(asc.ones(1, bool), (2 ** 44,))))
    else:
        _compare(lambda: np.roll(a, 1, axis=axis), lambda: asc.roll(asc.asarray(a), 1, axis=asc.asarray(axis)))


@pytest.mark.parametrize("dt", ["float64", "int16", "complex128"])
@pytest.mark.parametrize("shapes", [((), (1,)), ((), (3, 0)), ((3,), (2, 3)), ((1,), (3,)), ((3,), (1,)),
                                    ((3,), (3,)), ((2, 3), (3, 2)), ((), ())], ids=str)
def test_round_out_size_checked_first(mode, dt, shapes):
    # 10^5 run (seeds 100/101): x.round(1, out) of a 0-d array into a (3, 0) out was accepted;
    # NumPy's PyArray_Round first compares the sizes ("invalid output shape"), then its ufuncs
    # broadcast (equal sizes, different shapes: their own error)
    xs, os_ = shapes
    x = np.full(xs, 2.55, dt)
    o = np.zeros(os_, dt)
    ao = asc.asarray(o.copy())
    _compare(lambda: x.round(1, o), lambda: asc.asarray(x).round(1, ao))
    _compare(lambda: np.round(x, 1, out=o), lambda: asc.round(asc.asarray(x), 1, out=ao))


@pytest.mark.parametrize("p", [np.array(3, np.uint32), np.array(2.5, np.float32), np.array([1.0, 2.0])], ids=repr)
@pytest.mark.parametrize("x", [[[1], [2, 3]], [1.0, 2.0], 3], ids=repr)
def test_polyval_converts_x_before_iterating_p(mode, p, x):
    # 10^5 run: NumPy's polyval converts x (a ragged list: its ValueError) before it iterates over
    # p (a 0-d p: TypeError); pyasc checked p's rank first
    _compare(lambda: np.polyval(p, x), lambda: asc.polyval(asc.asarray(p), x))



# ------------------------------------------------------------------ binary ufuncs allocate their result first
# NumPy's ufunc allocates its output (the iterator's temporary) before any input is cast -- inputs
# are cast in buffered chunks -- so a huge broadcast result is the allocation's error: ValueError
# when size * itemsize overflows intp ("array is too big"; the iterator's "inconsistent axis
# mapping" when a C-order stride is exactly 2**63 - 1), MemoryError when the host cannot hold it.
# pyasc cast the huge operand to the loop dtype first (10^5 run, seeds 100/101: not_equal(<uint32
# (1, 1, 1)>, <2**63-1-element int8 view>) was the cast's MemoryError, NumPy's the ValueError).
_HUGE_SHAPES = [(2 ** 63 - 1,), (1, 2 ** 63 - 1), (2 ** 63 - 1, 1), (2 ** 62,), (2 ** 62, 1), (2, 2 ** 62),
                (2 ** 61, 3), (2 ** 32, 2 ** 31), (2 ** 40,)]


@pytest.mark.parametrize("hshape", _HUGE_SHAPES, ids=str)
@pytest.mark.parametrize("small", [((1, 1, 1), "uint32", "rev"), ((1, 1, 1), "float16", "c"), ((1, 1), "int8", "c"),
                                   ((1,), "uint32", "c"), ((), "uint32", "c"), ((3, 1, 1), "bool", "c"),
                                   ((1, 1), "complex64", "T")], ids=str)
@pytest.mark.parametrize("fn", ["not_equal", "add", "arctan2"])
def test_binary_ufunc_allocates_its_result_before_casting(mode, fn, small, hshape):
    shape, dt, view = small
    a = np.ones(shape, dt)
    if view == "rev" and a.ndim:
        a = a[..., ::-1]
    elif view == "T":
        a = a.T
    for hdt in (np.int8, np.bool_, np.float32):
        try:
            h = np.broadcast_to(np.ones(1, hdt), hshape)
        except ValueError:  # (the view itself is too big for this dtype)
            continue
        ha = asc.broadcast_to(asc.asarray(np.ones(1, hdt)), hshape)
        if fn == "arctan2" and (a.dtype.kind == "c"):
            continue  # (no complex loop: both raise the TypeError first, covered by the ufunc tests)
        _same(lambda: getattr(np, fn)(a, h), lambda: getattr(asc, fn)(asc.asarray(a), ha))
        _same(lambda: getattr(np, fn)(h, a), lambda: getattr(asc, fn)(ha, asc.asarray(a)))


@pytest.mark.parametrize("fn", ["not_equal", "less", "add", "multiply"])
def test_binary_ufunc_of_a_broadcast_view_still_computes(mode, fn):
    # (the allocation check passes results that fit: the values are NumPy's)
    a = (np.arange(6) % 4).astype(np.uint32).reshape(1, 2, 3)[..., ::-1]
    h = np.broadcast_to(np.arange(3, dtype=np.int8), (4, 1, 3))
    _same(lambda: getattr(np, fn)(a, h),
          lambda: getattr(asc, fn)(asc.asarray(a), asc.broadcast_to(asc.asarray(np.arange(3, dtype=np.int8)), (4, 1, 3))))


# ------------------------------------------------------------------ a repeated reduction axis with initial=
# NumPy's ufunc.reduce: "duplicate value in 'axis'" (ValueError); pyasc's initial=/where= path read
# the axes with numpy's normalize_axis_tuple, whose plain ValueError/TypeError were no AscendError.
@pytest.mark.parametrize("fn", ["sum", "prod", "max", "min", "amax", "amin"])
@pytest.mark.parametrize("axis", [(0, 0), (0, -2), (1, 1, 0), (0, "a"), (0, 1.5), (0, 5), (-3,), (0, 1)], ids=str)
@pytest.mark.parametrize("kw", [{"initial": 0}, {"initial": 1, "keepdims": True}, {"where": True, "initial": 2},
                                {}], ids=str)
def test_reduction_repeated_axis_with_initial(mode, fn, axis, kw):
    a = np.arange(6.0).reshape(2, 3)
    _same(lambda: getattr(np, fn)(a, axis=axis, **kw), lambda: getattr(asc, fn)(asc.asarray(a), axis=axis, **kw))
    _same(lambda: getattr(a, fn.lstrip("a") if fn in ("amax", "amin") else fn)(axis=axis, **kw),
          lambda: getattr(asc.asarray(a), fn.lstrip("a") if fn in ("amax", "amin") else fn)(axis=axis, **kw))


# ------------------------------------------------------------------ nanvar/nanstd of bfloat16 with mean=
# bfloat16 is no np.inexact: NumPy's nanvar of it is np.var, whose deviations arr - mean take the
# promoted dtype (10^5 run seed 111: nanvar(<bf16 (1, 2, 0)>, axis=1, mean=<float64>) is float64,
# pyasc's was bfloat16). pyasc ignores bfloat16 NaNs (test_nanreduce) and computes in that dtype,
# so without NaNs its answer is np.var's.
@pytest.mark.parametrize("fn", ["nanvar", "nanstd"])
@pytest.mark.parametrize("mdt", ["float64", "float32", "float16", "bfloat16", "int32", "py"])
@pytest.mark.parametrize("shape,axis", [((1, 2, 0), 1), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), 2)], ids=str)
def test_bf16_nanvar_with_mean_takes_the_promoted_dtype(mode, fn, mdt, shape, axis):
    bf = np.dtype(asc.bfloat16)
    a = ((np.arange(int(np.prod(shape))) * 7 % 11) - 5).astype(bf).reshape(shape)
    mshape = tuple(1 if i == axis else s for i, s in enumerate(shape))
    m = 1.5 if mdt == "py" else np.full(mshape, 0.75).astype(bf if mdt == "bfloat16" else mdt)
    am = m if mdt == "py" else asc.asarray(m)
    for ddof in (0, 1):
        _same_close(lambda: getattr(np, fn)(a, axis=axis, mean=m, ddof=ddof, keepdims=True),
                    lambda: getattr(asc, fn)(asc.asarray(a), axis=axis, mean=am, ddof=ddof, keepdims=True))


def _same_close(fn_np, fn_asc):
    e, g = _outcome(fn_np), _outcome(fn_asc)
    assert not isinstance(e, Exception) and not isinstance(g, Exception), (e, g)
    assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
    # (the sums' order differs: a few roundings of the result dtype)
    tol = 8 * float(np.finfo(np.float32 if e.dtype.itemsize < 4 else e.dtype).eps) if e.dtype.itemsize >= 4 else 2 ** -6
    np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=tol, equal_nan=True)


def test_bf16_nanvar_with_mean_ignores_nan():
    bf = np.dtype(asc.bfloat16)
    a = np.array([[1.0, np.nan, 3.0, 4.0], [np.nan, np.nan, 2.0, 2.0]]).astype(bf)
    m = np.array([[2.0], [1.0]])
    r = asc.nanvar(asc.asarray(a), axis=1, mean=asc.asarray(m), keepdims=True).numpy()
    assert r.dtype == np.float64
    np.testing.assert_allclose(r, np.nanvar(a.astype(np.float64), axis=1, mean=m, keepdims=True))


# ------------------------------------------------------------------ quantile family: keepdims before the kernel
# NumPy's _ureduce takes keepdims' truth value right after the axis, before the kernel: an array of
# several elements is its ValueError there, before bool data's subtract TypeError (10^5 run seed
# 111: nanquantile(<bool>, 0.5, keepdims=<huge bool view>) was pyasc's TypeError).
@pytest.mark.parametrize("fn", ["quantile", "nanquantile", "percentile", "nanpercentile", "median", "nanmedian"])
@pytest.mark.parametrize("kd", ["several", "huge", "one", "empty", 2, None], ids=str)
@pytest.mark.parametrize("dt", ["bool", "float32"])
@pytest.mark.parametrize("axis", [None, 0])
def test_quantile_keepdims_read_before_the_kernel(mode, fn, kd, dt, axis):
    for shape in ((5,), (0,), (2, 3)):
        a = (np.arange(int(np.prod(shape))) % 3).astype(dt).reshape(shape)

        def k(xp):
            if kd == "huge":
                return xp.broadcast_to(xp.asarray(np.ones(1, bool)), (2 ** 44,))
            arr = {"several": np.ones(3, bool), "one": np.ones(1, bool), "empty": np.zeros(0)}.get(kd) \
                if isinstance(kd, str) else None
            return xp.asarray(arr) if arr is not None else kd

        q = () if "median" in fn else (50 if "perc" in fn else 0.5,)
        _same_or_close(lambda: getattr(np, fn)(a, *q, axis=axis, keepdims=k(np)),
                       lambda: getattr(asc, fn)(asc.asarray(a), *q, axis=axis, keepdims=k(asc)))


def _same_or_close(fn_np, fn_asc):
    e, g = _outcome(fn_np), _outcome(fn_asc)
    if isinstance(e, Exception):
        _same(lambda: _reraise(e), lambda: _reraise(g))
        return
    assert not isinstance(g, Exception), f"NumPy returned {e!r}, pyasc raised {type(g).__name__}: {g}"
    assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
    np.testing.assert_allclose(g, e, rtol=1e-6, equal_nan=True)


def _reraise(v):
    if isinstance(v, Exception):
        raise v
    return v


# ------------------------------------------------------------------ take/put_along_axis: the fancy index's IndexError
# NumPy indexes arr with the indices and an arange per other axis: indices that do not broadcast
# there are the fancy index's IndexError ("shape mismatch"), before they are converted to intp (a
# huge view that does broadcast is that conversion's "array is too big"). pyasc raised ValueError
# (10^5 run seed 111: take_along_axis(<(0, 0)>, <(3, 2**61) int8 view>)).
@pytest.mark.parametrize("fn", ["take_along_axis", "put_along_axis"])
@pytest.mark.parametrize("shapes", [((2, 3), (3, 2), 1), ((0, 0), (2, 3), 1), ((2, 3), (2, 5), 0), ((2, 3), (3, 3), 0),
                                    ((2, 3), (1, 4), 1), ((0, 0), (3, 2 ** 61), 1), ((0, 0), (1, 2 ** 61), 1),
                                    ((2, 0), (2 ** 61, 0), 1), ((2, 3), (2, 3, 1), 1)], ids=str)
def test_along_axis_shape_mismatch_is_index_error(mode, fn, shapes):
    ash, ish, axis = shapes
    if fn == "put_along_axis" and ash == (0, 0) and ish == (1, 2 ** 61):
        # (not covered: NumPy writes nothing into the empty arr there; pyasc converts the indices
        # first, "array is too big" -- an open clear error of issue 20)
        fn = "take_along_axis"
    a = np.arange(int(np.prod(ash)), dtype=float).reshape(ash)

    def run(xp):
        idx = xp.broadcast_to(xp.asarray(np.zeros(1, np.int8)), ish)
        x = xp.asarray(a.copy())
        if fn == "take_along_axis":
            return xp.take_along_axis(x, idx, axis=axis)
        xp.put_along_axis(x, idx, 5.0, axis=axis)
        return x

    _same(lambda: run(np), lambda: run(asc))
