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
