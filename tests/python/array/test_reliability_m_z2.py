"""Regression tests of fuzz findings, slice m_z (continued from test_reliability_m_z.py, which is
past the ~1,500-line mark). Every expectation is NumPy's own result or exception class, computed
here, in lazy and eager mode."""

import numpy as np
import pytest

import pyasc as asc

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
