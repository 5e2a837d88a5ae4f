"""Advanced indexing (getitem/setitem) vs NumPy: integer arrays, boolean masks,
mixed keys, result axis placement, value broadcasting and casting, errors."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import ALL_DTYPES, INT_DTYPES
from test_ops import data

IDS = lambda d: np.dtype(d).name  # noqa: E731

A3 = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5).astype(np.float32)

# Keys as functions of xp (index arrays built with the module under test).
KEYS = [
    lambda xp: xp.asarray(np.array([0, 2, -1, 1, 1])),
    lambda xp: [1, 0, -2],
    lambda xp: (xp.asarray(np.array([[0, 1], [1, 0]])), xp.asarray(np.array([2, -1]))),  # broadcasting (2,2)&(2,)
    lambda xp: (slice(None), xp.asarray(np.array([0, 2]))),                # adjacent after a slice
    lambda xp: (slice(None), [0, 2], [1, 3]),                              # adjacent pair
    lambda xp: ([0, 1], slice(None), [1, 3]),                              # separated: B goes first
    lambda xp: (0, slice(None), [1, 3]),                                   # int counts as advanced (separated)
    lambda xp: (Ellipsis, [0, -1]),
    lambda xp: (None, [1], Ellipsis, 2),
    lambda xp: (slice(None, None, -1), [2, 0], slice(1, None, 2)),
    lambda xp: (1, [0, 2], None, [3, 0]),
    lambda xp: ([[1]], [[0], [2]], slice(None), [4, 3, 2]),                # several arrays broadcast to (2,3)
    lambda xp: [],                                                         # empty integer list
    lambda xp: xp.asarray(np.zeros((0,), np.int64)),
    lambda xp: (slice(None), xp.asarray(np.zeros((0, 2), np.int32))),
    lambda xp: (slice(None), [0, 2], Ellipsis, 1, 3),                      # an Ellipsis of no axes separates too
    lambda xp: ([1, 0], Ellipsis, [2, 1], slice(None)),
]


@pytest.mark.parametrize("k", range(len(KEYS)))
def test_getitem_integer_arrays(check, k):
    check(lambda xp: xp.asarray(A3)[KEYS[k](xp)])


@pytest.mark.parametrize("k", range(len(KEYS)))
def test_getitem_on_views(check, k):
    base = np.arange(4 * 6 * 8 * 5).reshape(4, 6, 8, 5).astype(np.int16)

    def f(xp):
        v = xp.asarray(base)[::2, ::-2, 1::2, ::-1]  # non-contiguous, negative strides, shape (2, 3, 4, 5)
        return v[KEYS[k](xp)]

    check(f)


@pytest.mark.parametrize("idx_dtype", INT_DTYPES, ids=IDS)
def test_index_dtypes(check, idx_dtype):
    a = np.arange(50, dtype=np.float64) * 1.5
    idx = np.array([0, 3, 49, 7, 7, 1], idx_dtype)
    check(lambda xp: xp.asarray(a)[xp.asarray(idx)])
    if np.dtype(idx_dtype).kind == "i":
        neg = np.array([-1, -50, 5], idx_dtype)
        check(lambda xp: xp.asarray(a)[xp.asarray(neg)])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_getitem_all_dtypes(check, dtype):
    a = data(dtype, 37, 3)
    idx = np.array([36, 0, -1, 5, 5, 17])
    check(lambda xp: xp.asarray(a)[xp.asarray(idx)])
    check(lambda xp: xp.asarray(a)[xp.asarray(a.astype(bool))])
    m = data(dtype, 36, 4).reshape(6, 6)
    check(lambda xp: xp.asarray(m)[[1, 5], 2:])
    check(lambda xp: xp.asarray(m)[::-1][xp.asarray(m > m.T)])


@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257])
def test_mask_tails(check, n):
    a = np.arange(n, dtype=np.float32)
    mask = (np.arange(n) * 7) % 3 == 0
    check(lambda xp: xp.asarray(a)[xp.asarray(mask)])
    check(lambda xp: xp.asarray(a)[::-1][xp.asarray(mask)])


def test_boolean_masks(check):
    m2 = (A3.sum(axis=(2, 3)) % 3 == 0)                  # (2, 3) mask over two leading dims
    check(lambda xp: xp.asarray(A3)[xp.asarray(m2)])
    m_last = np.array([True, False, True, False, True])
    check(lambda xp: xp.asarray(A3)[..., xp.asarray(m_last)])
    check(lambda xp: xp.asarray(A3)[:, xp.asarray(m2[0]), [0, 3]])  # mask and array (adjacent)
    check(lambda xp: xp.asarray(A3)[[1], :, xp.asarray(np.array([True, False, False, True]))])  # separated
    check(lambda xp: xp.asarray(A3)[xp.asarray(A3 > 50)])      # full-shape mask
    check(lambda xp: xp.asarray(A3)[xp.asarray(np.zeros(A3.shape, bool))])
    check(lambda xp: xp.asarray(A3)[[True, False]])            # list of bools is a mask
    check(lambda xp: xp.asarray(np.zeros((0, 3)))[xp.asarray(np.zeros((0,), bool))])


def test_zero_d_bool(check):
    check(lambda xp: xp.asarray(A3)[True].shape)
    check(lambda xp: xp.asarray(A3)[True])
    check(lambda xp: xp.asarray(A3)[False])
    check(lambda xp: xp.asarray(A3)[np.True_, [0, 1]])
    check(lambda xp: xp.asarray(A3)[..., False])
    s = np.array(3.5, np.float64)
    check(lambda xp: xp.asarray(s)[True])
    check(lambda xp: xp.asarray(s)[xp.asarray(np.array(False))])


def test_zero_d_integer_array_and_numpy_scalars(check):
    check(lambda xp: xp.asarray(A3)[np.int64(1), np.int32(-1)])
    check(lambda xp: xp.asarray(A3)[np.array(1)])
    check(lambda xp: xp.asarray(A3)[xp.asarray(np.array([1, 0]))[0], [2]])


def test_getitem_large_multicore(check):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1 << 18).astype(np.float32)
    idx = rng.integers(-(1 << 18), 1 << 18, 1 << 18)
    check(lambda xp: xp.asarray(a)[xp.asarray(idx)])
    check(lambda xp: xp.asarray(a)[xp.asarray(a > 0.3)])
    b = a.reshape(512, 512)
    check(lambda xp: xp.asarray(b)[[3, 500, 7], :])           # few large rows: split along R
    check(lambda xp: xp.asarray(b)[:, xp.asarray(idx[:600] % 512)])


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize("key", [
    lambda xp: [0, 5],
    lambda xp: (slice(None), [-6]),
    lambda xp: xp.asarray(np.array([1.0, 2.0])),
    lambda xp: (0, 0, 0, 0, 0),
    lambda xp: ([0, 1], [0, 1, 2]),
    lambda xp: xp.asarray(np.array([True, False, True])),
    lambda xp: (Ellipsis, Ellipsis),
    lambda xp: 1.5,
    lambda xp: xp.asarray(np.array([2**63], np.uint64)),
])
def test_getitem_errors(check, key):
    check(lambda xp: xp.asarray(np.zeros((2, 5)))[key(xp)])


def test_error_messages():
    x = asc.asarray(np.zeros(3))
    with pytest.raises(IndexError, match=r"\[getitem\] index 5 is out of bounds for axis 0 with size 3"):
        x[[5]]
    with pytest.raises(asc.AscendError) as e:
        asc.zeros((2, 4))[:, [0, -7]]
    assert "axis 1 with size 4" in e.value.message
    with pytest.raises(IndexError, match="boolean index did not match"):
        x[np.array([True, False])]


# ------------------------------------------------------------------ setitem


def _set(key, value, base=A3):
    def f(xp):
        a = xp.array(base)
        a[key(xp)] = value(xp) if callable(value) else value
        return a
    return f


@pytest.mark.parametrize("k", range(len(KEYS)))
def test_setitem_keys_scalar(check, k):
    check(_set(KEYS[k], 7.5))


@pytest.mark.parametrize("k", range(len(KEYS)))
def test_setitem_keys_broadcast_value(check, k):
    def f(xp):
        a = xp.array(A3)
        shape = a[KEYS[k](xp)].shape
        v = np.arange(shape[-1] if shape else 1, dtype=np.float64) + 100 if shape else np.float64(5)
        a[KEYS[k](xp)] = xp.asarray(v)
        return a
    check(f)


def test_setitem_masks_and_values(check):
    check(_set(lambda xp: xp.asarray(A3 > 60), -1.0))
    check(_set(lambda xp: xp.asarray(A3 > 60), lambda xp: xp.asarray(-A3[A3 > 60])))
    check(_set(lambda xp: (xp.asarray(A3.sum(axis=(2, 3)) > 100),), lambda xp: xp.asarray(np.ones((4, 5)))))
    check(_set(lambda xp: True, 3.0))
    check(_set(lambda xp: False, 3.0))
    check(_set(lambda xp: ([0, 1], 1), lambda xp: xp.asarray(np.ones((1, 1, 4, 5)))))  # leading 1s dropped
    check(_set(lambda xp: [1, 1, 0], lambda xp: xp.asarray(np.stack([A3[0] * 0, A3[0] + 1, A3[0] - 1]))))


def test_setitem_duplicates_last_wins(check):
    a = np.zeros(10, np.int32)
    check(_set(lambda xp: [1, 1, 1, 2], lambda xp: xp.asarray(np.array([5, 6, 7, 8], np.int32)), a))
    big = np.zeros((4, 40000), np.float32)  # R-block large enough to split across cores
    check(_set(lambda xp: [2, 0, 2], lambda xp: xp.asarray(np.arange(3 * 40000, dtype=np.float32).reshape(3, -1)),
               big))


def test_setitem_self_overlap(check):
    def f(xp):
        a = xp.array(np.arange(10.0))
        a[[0, 1, 2, 3]] = a[1:5]
        a[xp.asarray(np.array([9, 8]))] = a[::-1][:2]
        return a
    check(f)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_setitem_casting(check, dtype):
    a = data(dtype, 20, 9)
    vals = np.array([1.7, -0.0, 3.2, 0.0])
    check(_set(lambda xp: [0, 3, 5, 19], lambda xp: xp.asarray(vals), a))   # unsafe cast of arrays
    check(_set(lambda xp: slice(2, 6), lambda xp: xp.asarray(vals), a))
    check(_set(lambda xp: [1, 2], True, a))
    check(_set(lambda xp: [1, 2], 1, a))
    if np.dtype(dtype) != np.bool_:
        check(_set(lambda xp: [4], 2.9, a))


@pytest.mark.parametrize("dtype,value,exc", [
    (np.int8, 300, OverflowError), (np.uint8, -1, OverflowError), (np.int8, 1000.0, OverflowError),
    (np.int16, float("nan"), ValueError), (np.int32, float("inf"), OverflowError), (np.int64, 2**64, OverflowError),
])
@pytest.mark.parametrize("key", [0, slice(0, 2), [0, 1], Ellipsis])
def test_setitem_python_int_out_of_bounds(dtype, value, exc, key):
    na = np.zeros(3, dtype)
    with pytest.raises(exc):
        na[key] = value
    a = asc.zeros(3, dtype)
    with pytest.raises(exc):
        a[key] = value
    assert isinstance(pytest.raises(exc, a.__setitem__, key, value).value, asc.AscendError)


def test_setitem_uint64_max(check):
    check(_set(lambda xp: [0], 2**64 - 1, np.zeros(3, np.uint64)))


def test_setitem_value_shape_error(check):
    check(_set(lambda xp: [0, 1], lambda xp: xp.asarray(np.ones(3))))
    check(_set(lambda xp: (slice(None), [0, 1]), lambda xp: xp.asarray(np.ones((2, 3, 4, 5)))))


def test_setitem_into_views(check):
    def f(xp):
        a = xp.array(np.arange(60, dtype=np.int64).reshape(6, 10))
        v = a[::-2, 1::3]
        v[[0, 2], [-1, 1]] = xp.asarray(np.array([-5, -6]))
        v[xp.asarray(v > 30)] = 0
        return a
    check(f)


def test_bfloat16_roundtrip(check):
    a = np.arange(12, dtype=np.float32).astype(ml_dtypes.bfloat16)
    check(_set(lambda xp: [3, 1], lambda xp: xp.asarray(np.array([0.5, -2.0], np.float32)), a))
