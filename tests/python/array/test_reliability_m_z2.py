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
