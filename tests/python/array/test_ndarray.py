"""pyasc.ndarray: attributes, conversion, views, indexing, errors."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import ALL_DTYPES


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_roundtrip_and_attributes(dtype):
    a = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    x = asc.asarray(a)
    assert isinstance(x, asc.ndarray) and isinstance(x, asc.AscendTensor)
    assert x.shape == a.shape and x.dtype == a.dtype and x.ndim == 3 and x.size == 24
    assert x.itemsize == a.itemsize and x.nbytes == a.nbytes and x.strides == a.strides
    np.testing.assert_array_equal(np.asarray(x), a)
    assert np.asarray(x).dtype == a.dtype
    assert x.T.shape == (4, 3, 2)
    assert x.device == "cpu"
    assert repr(x) == repr(a)
    assert x.tolist() == a.tolist()


def test_zero_copy_both_ways():
    a = np.zeros(8, np.float32)
    x = asc.from_numpy(a)
    a[3] = 5
    assert float(x[3]) == 5.0  # shares the NumPy buffer
    v = np.asarray(x)
    v[0] = 7
    assert a[0] == 7
    assert asc.AscendTensor.from_numpy(a).numpy().__array_interface__["data"][0] == a.ctypes.data
    y = asc.array(a)  # value semantics
    a[1] = 9
    assert float(y[1]) == 0.0


def test_device_buffers_aligned():
    for n in (1, 3, 17, 1000):
        x = asc.zeros(n, asc.float32)
        assert np.asarray(x).ctypes.data % 64 == 0


def test_views_share_memory():
    x = asc.asarray(np.arange(12, dtype=np.int32).reshape(3, 4)).copy()
    v = x[::-1, 1::2]
    v[0, 0] = 100
    assert int(x[2, 1]) == 100
    x.T[0, 1] = -1
    assert int(x[1, 0]) == -1
    d = x.diagonal()
    np.testing.assert_array_equal(np.asarray(d), np.diagonal(np.asarray(x)))


@pytest.mark.parametrize("key", [
    1, -1, (1, 2), (slice(None), 2), (Ellipsis, 1), (None, 1), (slice(None, None, -1),),
    (slice(3, 0, -2), slice(None, None, 3)), (Ellipsis, None), (slice(-2, None),), (slice(10, 20),),
    (0, Ellipsis, None, slice(None, None, -1)),
])
def test_basic_indexing(check, key):
    check(lambda xp: xp.asarray(np.arange(60, dtype=np.float32).reshape(4, 5, 3))[key])


def test_setitem_broadcasting(check):
    def f(xp):
        x = xp.zeros((3, 4), dtype=xp.int16)
        x[1] = 5
        x[:, 2] = xp.asarray(np.array([1, 2, 3], np.int16))
        x[::-1, :1] = 2.7  # cast like NumPy (truncation)
        x[0, ::2] = xp.asarray(np.array([9, 8], np.int64))
        return x
    check(f)


def test_setitem_overlapping():
    def f(xp):
        x = xp.asarray(np.arange(6.0)).copy()
        x[1:] = x[:-1]
        return x
    np.testing.assert_array_equal(np.asarray(f(asc)), f(np))


def test_scalar_conversions():
    x = asc.asarray(np.array(3.5, np.float32))
    assert float(x) == 3.5 and int(x) == 3 and bool(x)
    assert x.item() == 3.5
    assert asc.asarray(np.array(4, np.int64)).__index__() == 4
    with pytest.raises(ValueError):
        bool(asc.zeros(3))
    with pytest.raises(TypeError):
        len(asc.asarray(np.array(1.0)))
    assert len(asc.zeros((5, 2))) == 5
    rows = list(asc.asarray(np.arange(6).reshape(3, 2)))
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]


def test_reshape_views_and_copies(check):
    check(lambda xp: xp.asarray(np.arange(24).reshape(4, 6))[:, ::2].reshape(2, 2, 3))
    check(lambda xp: xp.asarray(np.arange(24).reshape(4, 6)).T.reshape(-1))
    check(lambda xp: xp.reshape(xp.asarray(np.arange(6)), (4,)))
    x = asc.asarray(np.arange(24).reshape(4, 6))
    assert np.shares_memory(np.asarray(x[:, ::2].reshape(2, 2, 3)), np.asarray(x))


def test_broadcast_squeeze_expand(check):
    check(lambda xp: xp.broadcast_to(xp.asarray(np.arange(3.0)), (2, 3)))
    check(lambda xp: xp.broadcast_to(xp.asarray(np.arange(3.0)), (2, 4)))
    check(lambda xp: xp.squeeze(xp.zeros((1, 3, 1))))
    check(lambda xp: xp.expand_dims(xp.zeros((2, 3)), -1))
    check(lambda xp: xp.squeeze(xp.zeros((2, 3)), axis=0))


@pytest.mark.parametrize("axis", [None, (), 0, (0, 2), -1, (-1,)])
@pytest.mark.parametrize("method", [False, True])
def test_squeeze_axes_as_numpy(check, axis, method):
    # axis=() removes no axis (function and method alike); None removes every length-1 axis.
    def body(xp):
        x = xp.asarray(np.arange(3.0).reshape(1, 3, 1))[:, ::-1]
        return x.squeeze(axis=axis) if method else xp.squeeze(x, axis=axis)

    check(body)


def test_squeeze_empty_axes_is_a_view():
    x = asc.asarray(np.arange(3.0).reshape(1, 3, 1))
    for y in (x.squeeze(axis=()), asc.squeeze(x, axis=())):
        assert y.shape == (1, 3, 1) and y is not x
        assert np.shares_memory(np.asarray(y), np.asarray(x))


def test_errors_name_shapes_dtypes_and_axes():
    with pytest.raises(ValueError, match=r"\[add\].*\(2, 3\) \(4,\)"):
        asc.zeros((2, 3)) + asc.zeros(4)
    with pytest.raises(TypeError, match=r"\[subtract\].*boolean"):
        asc.zeros(2, asc.bool_) - asc.zeros(2, asc.bool_)
    with pytest.raises(TypeError, match="same_kind"):
        x = asc.zeros(2, asc.int32)
        x += 1.5
    with pytest.raises(IndexError, match="axis 1 with size 3"):
        asc.zeros((2, 3))[0, 3]
    with pytest.raises(IndexError):
        asc.zeros((2, 3))[0, 0, 0]
    with pytest.raises(TypeError):
        asc.zeros(2, dtype="U3")  # strings are not a pyasc dtype
    with pytest.raises(asc.AscendError) as ei:
        asc.zeros((2, 3)) * asc.zeros((3, 2))
    assert ei.value.code == asc.ErrorCode.INVALID_SHAPE


def test_empty_and_zero_d(check):
    check(lambda xp: xp.zeros((0, 3), xp.float32) + 1)
    check(lambda xp: xp.asarray(np.array(2.5, np.float32)) * 2)
    check(lambda xp: xp.sum(xp.zeros((0, 3), xp.int8), axis=0))
    check(lambda xp: xp.max(xp.zeros((0, 3), xp.int8), axis=0))
    check(lambda xp: xp.asarray(np.array(3, np.int16))[...])


def test_creation(check):
    check(lambda xp: xp.zeros((2, 3)))
    check(lambda xp: xp.ones(4, xp.int8))
    check(lambda xp: xp.full((2, 2), 7))
    check(lambda xp: xp.full((2, 2), 1.5, xp.float16))
    check(lambda xp: xp.full(3, True))
    check(lambda xp: xp.arange(10))
    check(lambda xp: xp.arange(1, 2, 0.25, dtype=xp.float32))
    check(lambda xp: xp.zeros_like(xp.asarray(np.ones((2, 2), np.uint16))))
    check(lambda xp: xp.ones_like(xp.asarray(np.ones((2, 2), np.uint16)), dtype=ml_dtypes.bfloat16))
    check(lambda xp: xp.full_like(xp.asarray(np.ones(3, np.int32)), 4))
    assert asc.empty((2, 3), asc.float32).shape == (2, 3)
    assert asc.bfloat16 is ml_dtypes.bfloat16


@pytest.mark.parametrize("res,out", [(np.int8, np.uint8), (np.int16, np.uint32), (np.uint8, np.bool_),
                                     (np.float32, np.int64), (np.complex64, np.float64)])
def test_out_casting_same_kind_rejects_going_down_the_kind_order(res, out):
    # NumPy's 'same_kind': bool < unsigned < signed < float < complex; an out= may not go down it.
    a = np.ones(3, res)
    o = np.zeros(3, out)
    with pytest.raises(TypeError):
        np.add(a, a, out=o)
    with pytest.raises(TypeError, match=r"\[add\].*same_kind"):
        asc.add(asc.asarray(a), asc.asarray(a), out=asc.asarray(o.copy()))
    if res not in (np.complex64,):
        m, mo = np.ones((2, 2), res), np.zeros((2, 2), out)
        with pytest.raises(TypeError, match=r"\[matmul\].*same_kind"):
            asc.matmul(asc.asarray(m), asc.asarray(m), out=asc.asarray(mo))


@pytest.mark.parametrize("res,out", [(np.uint8, np.int16), (np.uint8, np.int8), (np.int64, np.int8),
                                     (np.int32, np.float16), (np.float64, np.float32)])
def test_out_casting_same_kind_allows_up_the_order_and_within_a_kind(res, out):
    a = np.full(3, 3, res)
    o = np.zeros(3, out)
    np.add(a, a, out=o)
    got = asc.asarray(np.zeros(3, out))
    asc.add(asc.asarray(a), asc.asarray(a), out=got)
    np.testing.assert_array_equal(got.numpy(), o)
