"""NumPy's exception classes where another check used to fire first, a float/array/str axis
or shape reached C++, or a huge broadcast view was computed on where NumPy fails to allocate
(issue 20 items 12/15, fuzz findings of pattern class-mismatch): each call runs with NumPy and
pyasc; both return equal results, or pyasc raises an AscendError that is an instance of the class
NumPy raises (or of its builtin base)."""

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from test_argument_errors import check

BF16 = np.dtype(ml_dtypes.bfloat16)


def _a(xp, a):
    return a if xp is np else asc.asarray(a)


def check_asc(fn):
    """check(fn), and a pyasc error is one of pyasc's AscendError classes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = check(fn)
    if isinstance(got, Exception) and not isinstance(got, np.exceptions.AxisError):  # (pyasc raises NumPy's)
        assert isinstance(got, asc.AscendError), f"{type(got).__name__}: {got}"
        assert str(got).startswith("["), got  # the message names the op
    return got


def _huge(xp, shape, dtype):
    """A broadcast view of 2**62-ish elements (no memory behind it)."""
    one = np.ones(1, dtype) if xp is np else asc.ones(1, dtype)
    return xp.broadcast_to(one, shape)


def check_huge(fn):
    """NumPy fails to allocate (MemoryError, or ValueError "array is too big"): pyasc raises an
    AscendError of that class (a MemoryError may also be a ValueError there, as the fuzz harness
    takes it) instead of another check's error or a view it cannot hold."""
    try:
        fn(np)
    except (MemoryError, ValueError) as e:
        ref = e
    else:
        pytest.fail("numpy did not raise")
    with pytest.raises(asc.AscendError) as info:
        fn(asc)
    if isinstance(ref, MemoryError):
        assert isinstance(info.value, (MemoryError, ValueError)), info.value
    else:
        assert isinstance(info.value, ValueError), info.value


I64 = np.array([0, 2])


# --------------------------------------------------------------- axis: arrays, lists, C ints

@pytest.mark.parametrize("call", [
    lambda xp: xp.median(_a(xp, np.ones((5, 0), np.int16)), axis=_a(xp, np.array([-5, 3])), keepdims=True),
    lambda xp: xp.median(_a(xp, np.ones((2, 3))), axis=_a(xp, I64 - 1)),  # an array of axes is iterated
    lambda xp: xp.median(_a(xp, np.ones((2, 3))), axis=_a(xp, np.array([[0, 1]]))),
    lambda xp: xp.median(_a(xp, np.ones((2, 3))), axis=1.5),
    lambda xp: xp.median(_a(xp, np.ones((2, 3))), axis="ab"),
    lambda xp: xp.nanmedian(_a(xp, np.ones(4, np.complex64)), axis=_a(xp, np.array(2**63 - 2)), keepdims=True),
    lambda xp: xp.nanmedian(_a(xp, np.ones((2, 3))), axis=2**31),  # normalize_axis_index: a C int
    lambda xp: xp.nanmedian(_a(xp, np.ones((2, 3))), axis=2**31 - 1),
    lambda xp: xp.quantile(_a(xp, np.ones((2, 3))), 0.5, axis=_a(xp, np.array([0, 1]))),
    lambda xp: xp.diff(_a(xp, np.ones((2, 3))), axis=2**40),
    lambda xp: xp.average(_a(xp, np.ones((2, 3))), axis=-2**40),
    lambda xp: xp.count_nonzero(_a(xp, np.int8(3)), axis=(1, "a")),  # the bounds before the later str
    lambda xp: xp.count_nonzero(_a(xp, np.ones((2, 3))), axis=(1, "a")),
    lambda xp: xp.count_nonzero(_a(xp, np.ones((2, 3))), axis=(0, 1)),
    lambda xp: _a(xp, np.ones((2, 2, 3), BF16 if xp is asc else np.float32)).var(np.array([-7, 1]), 6),
    lambda xp: xp.var(_a(xp, np.ones((2, 3))), axis=[0, 1]),  # _count_reduce_items: one axis, not a list
    lambda xp: xp.var(_a(xp, np.ones((2, 3))), axis=np.array([0, 1])),
    lambda xp: xp.var(_a(xp, np.ones((2, 3))), axis=(7, "a")),
    lambda xp: xp.var(_a(xp, np.ones((2, 3))), axis=2**40),
    lambda xp: _a(xp, np.ones((2, 3))).std(axis=[0, 1]),
    lambda xp: xp.var(_a(xp, np.ones((2, 3))), axis=np.array(1)),
    lambda xp: xp.unstack(_a(xp, np.ones((4, 4, 1), np.int64)), axis=_a(xp, np.array([1, 0]))),
    lambda xp: xp.unstack(_a(xp, np.ones((4, 4, 1))), axis=_a(xp, np.array([9, 0]))),
    lambda xp: xp.unstack(_a(xp, np.ones((4, 4, 1))), axis=_a(xp, np.array([2]))),
    lambda xp: xp.trapezoid(2**64),  # the axis of a 0-d y (a list index) before pyasc's conversion of y
    lambda xp: xp.trapezoid(2**64, axis=1),
    lambda xp: xp.trapezoid(_a(xp, np.ones((2, 3))), axis=2**40),
    lambda xp: xp.trapezoid(_a(xp, np.ones((2, 3))), axis=2**63),
    lambda xp: xp.trapezoid(_a(xp, np.ones((2, 3))), axis=1.5),
    lambda xp: xp.trapezoid(_a(xp, np.ones((2, 3))), axis=-2),
])
def test_axis_checks(call):
    check_asc(call)


# --------------------------------------------------------------- shapes and axes as sequences

@pytest.mark.parametrize("shape", [np.array([3.0, -3.0, 2.0]), np.array([3.0, 3.0]), np.array([2, 3]), [2, -1],
                                   np.array([[2, 3]]), [2**63], 3.0, -3.0, "ab", [None], np.float64(2)])
def test_broadcast_to_shape(shape):
    check_asc(lambda xp: xp.broadcast_to(_a(xp, np.ones(3)), shape))


@pytest.mark.parametrize("shape", [np.array([2, -3], np.int16), np.array([2, 3], np.int16), np.array([2.0, 3.0]),
                                   np.array(5), np.array([[1, 2]]), 2**63, (2**63,), -1.5, [-1.5], "ab"])
def test_broadcast_shapes_shape(shape):
    check_asc(lambda xp: xp.broadcast_shapes(_a(xp, shape) if isinstance(shape, np.ndarray) else shape))


@pytest.mark.parametrize("axes", [np.array([1, 0]), np.array([1.0, 0]), np.array([1, 5]), np.array([1, 1]),
                                  (1, "a"), (5, "a"), (1, 2, 3), 1.5, 1, np.array([[1, 0]])])
@pytest.mark.parametrize("name", ["permute_dims", "transpose"])
def test_transpose_axes(name, axes):
    check_asc(lambda xp: getattr(xp, name)(_a(xp, np.ones((2, 3))), axes))
    check_asc(lambda xp: getattr(xp, name)(_a(xp, np.ones((), np.complex64)), axes))


@pytest.mark.parametrize("dims", [np.zeros((3, 0)), [np.zeros(2)], (2, -1), (2, 1.5), (2, 3)])
def test_indices_dimensions(dims):
    check_asc(lambda xp: xp.indices(_a(xp, dims) if isinstance(dims, np.ndarray) else dims))


@pytest.mark.parametrize("call", [
    lambda xp: xp.unravel_index(_a(xp, np.ones(4, np.float32)), 2**100),  # the shape before the indices' dtype
    lambda xp: xp.unravel_index(_a(xp, np.ones(4, np.float32)), (3,), order="K"),
    lambda xp: xp.unravel_index(1, (3,), order="K"),
    lambda xp: xp.unravel_index(1, 1.5, order="K"),
    lambda xp: xp.unravel_index(1, (3,), order=1),
    lambda xp: xp.unravel_index(_a(xp, np.array(True)), ()),  # bool indices cast 'same_kind' to intp
    lambda xp: xp.unravel_index(_a(xp, np.array([True, False])), (3,)),
    lambda xp: xp.unravel_index(1, _a(xp, np.array([3.0, 2.0]))),
    lambda xp: xp.ravel_multi_index([_a(xp, np.uint16(1))] * 3, 1j, mode="same", order="K"),
    lambda xp: xp.ravel_multi_index((1, 1, 0), (2, 2, 2), mode="same", order="K"),
    lambda xp: xp.ravel_multi_index((1, 1, 0), (2, 2, 2), mode=("raise", "wrap")),
    lambda xp: xp.ravel_multi_index((1, 1), (2, 2, 2), order="K"),
    lambda xp: xp.ravel_multi_index((1, 1, 0), (2, 2, 2), order=1),
])
def test_index_tricks_order(call):
    check_asc(call)


# --------------------------------------------------------------- check order of other functions

@pytest.mark.parametrize("call", [
    lambda xp: xp.array_split(1.5, _a(xp, np.array([1, 0]))),  # len() of a non-array before the axis
    lambda xp: xp.digitize(_a(xp, np.complex128(1j)), -2),  # complex x before the bins' dimensions
    lambda xp: xp.histogram_bin_edges(-1, weights=_a(xp, np.ones((0, 4), np.int32))),
    lambda xp: xp.insert(_a(xp, np.ones(1, np.uint8)), _a(xp, np.array([9, 1], np.uint8)), [[1.0, 2.0], [3.0, 4.0]]),
    lambda xp: xp.insert(_a(xp, np.ones(3)), _a(xp, np.array([0, 1], np.uint64)), 5),
    lambda xp: xp.insert(_a(xp, np.ones(3)), _a(xp, np.array([0, 1], np.int8)), 5),
    lambda xp: xp.insert(_a(xp, np.ones(3)), _a(xp, np.array([1], np.uint8)), 5),
    lambda xp: xp.pad(_a(xp, np.ones((2, 2), np.uint8)), 2**63, mode="same"),  # pad_width's dtype before mode
    lambda xp: xp.pad(_a(xp, np.ones(2)), np.uint8(1)),
    lambda xp: xp.pad(_a(xp, np.ones(2)), True),
    lambda xp: xp.pad(_a(xp, np.ones(2)), 1, mode="same"),
    lambda xp: xp.polydiv(_a(xp, np.ones((0, 0), np.int8)), _a(xp, np.ones((0, 0), np.int32))),
    lambda xp: xp.polydiv(_a(xp, np.ones(3)), _a(xp, np.ones(0))),
    lambda xp: xp.resize(_a(xp, np.bool_(True)), 2**63),
    lambda xp: xp.roots("abc"),
    lambda xp: xp.roots("1.5"),
    lambda xp: xp.round(_a(xp, np.ones(4, np.int16)), decimals=_a(xp, np.ones((3, 2), np.int8))),
    lambda xp: xp.round(_a(xp, np.ones(3)), 2**40),
    lambda xp: xp.round(_a(xp, np.ones(3)), 1.5),
    lambda xp: xp.round(_a(xp, np.ones(3)), _a(xp, np.array(2))),
    lambda xp: xp.clip(_a(xp, np.ones(3, bool))),  # positive has no bool loop
    lambda xp: xp.einsum_path(_a(xp, np.ones(0, np.uint16)), _a(xp, np.array([2**31 - 1, 0], np.int32)),
                              _a(xp, np.ones(0))),
    lambda xp: xp.einsum_path(*[_a(xp, np.ones((5, 1, 3), np.uint8))] * 3),  # a 2-d array as a sublist
    lambda xp: xp.fmax(-1, _a(xp, np.ones((4, 1, 2), np.int8)), dtype=np.uint64,
                       out=_a(xp, np.ones((4, 1, 2), np.uint64))),  # the int into uint64 before the casts
    lambda xp: xp.fmax(300, _a(xp, np.ones(2)), dtype=np.int8),
    lambda xp: xp.nanstd(_a(xp, np.array(2, BF16)), ddof=_a(xp, np.array([1, 2]))),
    lambda xp: xp.nanvar(_a(xp, np.float64(3)), axis=0, dtype=np.int8),
    lambda xp: xp.linalg.cond(_a(xp, np.ones((2, 2, 2), np.float16)), p=_a(xp, np.ones((2, 2, 2), np.float16))),
    lambda xp: xp.linalg.qr(_a(xp, np.ones((0, 0), np.uint64)), mode=1.5),
    lambda xp: xp.linalg.qr(_a(xp, np.ones((2, 3))), mode=None),
])
def test_check_order(call):
    check_asc(call)


@pytest.mark.parametrize("dtype, kind", [(BF16.type, "bogus"), (np.float32, "bogus"), ("float32", "real floating"),
                                         (np.float32, 1), (np.float32, (np.float32, "bogus")), (float, "numeric"),
                                         (np.float32, np.dtype("f4")), (np.int8, ("bool", "integral"))])
def test_isdtype_arguments(dtype, kind):
    if dtype is BF16.type:  # NumPy refuses bfloat16 itself (TypeError); pyasc's error is also the kind's ValueError
        with pytest.raises(TypeError):
            np.isdtype(dtype, kind)
        with pytest.raises(asc.AscendError) as info:
            asc.isdtype(dtype, kind)
        assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
        assert asc.isdtype(dtype, "real floating")
        return
    check_asc(lambda xp: xp.isdtype(dtype, kind))


# --------------------------------------------------------------- huge broadcast views

@pytest.mark.parametrize("call", [
    lambda xp: xp.gradient(_huge(xp, (2**62,), bool), _a(xp, np.int8(4))),
    lambda xp: xp.nanpercentile(_huge(xp, (2**62,), bool), 1.0),
    lambda xp: xp.nanquantile(_huge(xp, (2**63 - 1,), bool), 0.25, keepdims=True),
    lambda xp: xp.quantile(_huge(xp, (2**62,), np.float32), 0.25),
    lambda xp: xp.roll(_huge(xp, (3, 2**61), np.int8), 0),
    lambda xp: xp.ravel(_huge(xp, (3, 2**61), np.int8)),
    lambda xp: xp.ravel(_huge(xp, (2**44,), np.int8)),
])
def test_huge_views_fail_as_numpys_allocation(call):
    check_huge(call)


def test_huge_view_arguments_are_not_copied():
    a = asc.ones(4, np.complex64)
    with pytest.raises(TypeError):  # pad_width's dtype, read without a host copy of the view
        asc.pad(a, _huge(asc, (3, 2**61), bool), mode="clip")
    with pytest.raises(ValueError):  # NumPy: MemoryError comparing the array mode with its names
        asc.linalg.qr(asc.ones((2, 3)), mode=_huge(asc, (3, 2**61), bool))
    with pytest.raises(TypeError):  # decimals must be an integer scalar
        asc.round(asc.ones(4, np.int16), decimals=_huge(asc, (3, 2**61), np.int8))
    with pytest.raises(TypeError):  # NumPy's TypeError: no bool loop of positive (no 2**62-byte result first)
        asc.clip(_huge(asc, (2**31, 2**31), bool))


def test_valid_arrays_as_shapes_and_axes_still_work():
    x = asc.ones((2, 3))
    assert asc.permute_dims(x, np.array([1, 0])).shape == (3, 2)
    assert asc.transpose(x, asc.asarray([1, 0])).shape == (3, 2)
    assert asc.broadcast_to(asc.ones(3), np.array([2, 3])).shape == (2, 3)
    assert asc.broadcast_to(asc.ones(3), asc.asarray([2, 3])).shape == (2, 3)
    assert asc.broadcast_shapes(np.array([2, 3], np.int16), (3,)) == (2, 3)
    np.testing.assert_array_equal(np.asarray(asc.median(x, axis=np.array([0, 1]))), np.median(np.ones((2, 3))))
    a, b = np.ones((2, 3)), np.ones((3, 4))
    assert asc.einsum_path(asc.asarray(a), [0, 1], asc.asarray(b), [1, 2], [0, 2]) == \
        np.einsum_path(a, [0, 1], b, [1, 2], [0, 2])  # NumPy's parser: its letters in the report
    np.testing.assert_array_equal(np.asarray(asc.ravel(asc.broadcast_to(asc.arange(3.0), (2, 3)))),
                                  np.tile(np.arange(3.0), 2))
