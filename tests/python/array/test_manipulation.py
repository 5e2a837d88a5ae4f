"""Manipulation functions vs NumPy: joining, splitting, tile/repeat/pad/roll,
take/put family, diag, broadcast_arrays, atleast_*."""

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import ALL_DTYPES
from test_ops import data

IDS = lambda d: np.dtype(d).name  # noqa: E731

M = np.arange(24, dtype=np.float64).reshape(2, 3, 4)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_concatenate_dtypes(check, dtype):
    a = data(dtype, 12, 1).reshape(3, 4)
    b = data(dtype, 8, 2).reshape(2, 4)
    check(lambda xp: xp.concatenate([xp.asarray(a), xp.asarray(b)]))
    check(lambda xp: xp.concatenate((xp.asarray(a)[:, ::-1], xp.asarray(a)[::2]), axis=0))
    check(lambda xp: xp.concatenate([xp.asarray(a).T, xp.asarray(b).T], axis=-1))
    check(lambda xp: xp.concat([xp.asarray(a), xp.asarray(b)], axis=None))


def test_concatenate_promotion_and_errors(check):
    i8 = np.arange(4, dtype=np.int8)
    u8 = np.arange(3, dtype=np.uint8)
    f16 = np.ones(2, np.float16)
    check(lambda xp: xp.concatenate([xp.asarray(i8), xp.asarray(u8)]))
    check(lambda xp: xp.concatenate([xp.asarray(i8), xp.asarray(f16)]))
    check(lambda xp: xp.concatenate([xp.asarray(i8), xp.asarray(f16)], dtype=np.float32))
    check(lambda xp: xp.concatenate([xp.asarray(i8), xp.asarray(u8)], dtype=np.uint8))  # same_kind: TypeError
    check(lambda xp: xp.concatenate([xp.asarray(f16), xp.asarray(f16)], dtype=np.int64))  # TypeError
    check(lambda xp: xp.concatenate([xp.asarray(np.float64(1.0))]))        # 0-d
    check(lambda xp: xp.concatenate([xp.asarray(M), xp.asarray(M[:, :2])]))  # size mismatch
    check(lambda xp: xp.concatenate([xp.asarray(M), xp.asarray(M[0])]))    # ndim mismatch
    check(lambda xp: xp.concatenate([xp.asarray(M), xp.asarray(M)], axis=3))
    check(lambda xp: xp.concatenate([xp.asarray(np.zeros((0, 3))), xp.asarray(np.ones((2, 3)))]))


def test_concatenate_out_and_large(check):
    def f(xp):
        out = xp.zeros((4, 3))
        r = xp.concatenate([xp.asarray(M[0, :, :3]), xp.asarray(np.ones((1, 3)))], out=out)
        return r, out
    check(f)
    big = np.arange(1 << 18, dtype=np.float32).reshape(512, 512)
    check(lambda xp: xp.concatenate([xp.asarray(big), xp.asarray(big)[::-1, ::2].T[:256]], axis=0))


def test_stacks(check):
    a, b = np.arange(3.0), np.arange(3.0, 6.0)
    for fn in ("stack", "hstack", "vstack", "dstack", "column_stack"):
        check(lambda xp: getattr(xp, fn)([xp.asarray(a), xp.asarray(b)]))
        check(lambda xp: getattr(xp, fn)([xp.asarray(M[0]), xp.asarray(M[1])]))
        check(lambda xp: getattr(xp, fn)([xp.asarray(np.float32(2.0)), xp.asarray(np.float32(1.0))]))
    check(lambda xp: xp.stack([xp.asarray(M), xp.asarray(M)], axis=-1))
    check(lambda xp: xp.stack([xp.asarray(M), xp.asarray(M)], axis=2))
    check(lambda xp: xp.stack([xp.asarray(M), xp.asarray(M[:1])]))  # shape mismatch
    check(lambda xp: xp.stack([xp.asarray(a), xp.asarray(b)], axis=2))
    check(lambda xp: xp.stack([xp.asarray(a), xp.asarray(np.arange(3, dtype=np.int8))], dtype=np.float32))


def test_atleast(check):
    for fn in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for v in (np.float32(3.0), np.arange(3.0), M[0], M):
            check(lambda xp: getattr(xp, fn)(xp.asarray(v)))
        check(lambda xp: getattr(xp, fn)(xp.asarray(np.arange(2)), xp.asarray(M)))


def test_splits(check):
    x = np.arange(30.0).reshape(5, 6)
    check(lambda xp: tuple(xp.split(xp.asarray(x), 3, axis=1)))
    check(lambda xp: tuple(xp.split(xp.asarray(x), [1, 4], axis=0)))
    check(lambda xp: tuple(xp.split(xp.asarray(x), [2, 10])))
    check(lambda xp: xp.split(xp.asarray(x), 2))  # not an equal division
    check(lambda xp: tuple(xp.array_split(xp.asarray(x), 3)))
    check(lambda xp: tuple(xp.array_split(xp.asarray(x)[::-1], 4, axis=1)))
    check(lambda xp: tuple(xp.hsplit(xp.asarray(x), 2)))
    check(lambda xp: tuple(xp.hsplit(xp.asarray(np.arange(4)), 2)))
    check(lambda xp: tuple(xp.vsplit(xp.asarray(x), [2])))
    check(lambda xp: xp.vsplit(xp.asarray(np.arange(4)), 2))
    check(lambda xp: tuple(xp.dsplit(xp.asarray(M), 2)))
    check(lambda xp: tuple(xp.unstack(xp.asarray(M), axis=1)))
    check(lambda xp: tuple(xp.unstack(xp.asarray(M))))


def test_split_returns_views():
    x = asc.asarray(np.arange(6.0))
    parts = asc.split(x, 2)
    parts[1][0] = -1
    assert np.asarray(x)[3] == -1


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_tile_repeat(check, dtype):
    a = data(dtype, 6, 5).reshape(2, 3)
    check(lambda xp: xp.tile(xp.asarray(a), 2))
    check(lambda xp: xp.tile(xp.asarray(a), (3, 1, 2)))
    check(lambda xp: xp.tile(xp.asarray(a)[::-1, ::2], (2, 2)))
    check(lambda xp: xp.repeat(xp.asarray(a), 3))
    check(lambda xp: xp.repeat(xp.asarray(a), [1, 0, 2], axis=1))
    check(lambda xp: xp.repeat(xp.asarray(a), 2, axis=-2))


def test_tile_repeat_edge(check):
    check(lambda xp: xp.tile(xp.asarray(np.float64(2.5)), 3))
    check(lambda xp: xp.tile(xp.asarray(np.zeros((0, 2))), (2, 3)))
    check(lambda xp: xp.repeat(xp.asarray(np.arange(3)), [1, 2]))       # broadcast error
    check(lambda xp: xp.repeat(xp.asarray(np.arange(3)), -1))           # negative
    check(lambda xp: xp.repeat(xp.asarray(np.int8(3)), 4))
    check(lambda xp: xp.repeat(xp.asarray(np.arange(3)), 0))
    big = np.arange(1 << 17, dtype=np.float32)
    check(lambda xp: xp.tile(xp.asarray(big), 3))
    check(lambda xp: xp.repeat(xp.asarray(big), 2))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("width", [1, (2, 3), ((0, 1), (3, 0)), ((4, 7), (9, 2))])
def test_pad(check, mode, width):
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    check(lambda xp: xp.pad(xp.asarray(x), width, mode=mode))
    check(lambda xp: xp.pad(xp.asarray(x)[::-1, 1:], width, mode))


def test_pad_more(check):
    x = np.arange(5, dtype=np.float32)
    check(lambda xp: xp.pad(xp.asarray(x), 13, "reflect"))
    check(lambda xp: xp.pad(xp.asarray(x), 13, "symmetric"))
    check(lambda xp: xp.pad(xp.asarray(x[:1]), 3, "reflect"))
    check(lambda xp: xp.pad(xp.asarray(x), (2, 1), constant_values=(-1.5, 9)))
    check(lambda xp: xp.pad(xp.asarray(M), ((1, 0), (0, 2), (1, 1)), constant_values=((1, 2), (3, 4), (5, 6))))
    check(lambda xp: xp.pad(xp.asarray(np.zeros((0, 2))), 1, "edge"))  # can't extend empty axis
    check(lambda xp: xp.pad(xp.asarray(np.zeros((0, 2))), 1))
    check(lambda xp: xp.pad(xp.asarray(x), -1))
    check(lambda xp: xp.pad(xp.asarray(x), 1.5))
    check(lambda xp: xp.pad(xp.asarray(np.arange(4, dtype=np.int8)), 1, constant_values=2.7))
    check(lambda xp: xp.pad(xp.asarray(x), 2, "empty").shape)


def test_roll_flip(check):
    x = np.arange(20.0).reshape(4, 5)
    for shift, axis in [(2, None), (-7, None), (1, 0), (-1, 1), ((1, 2), (0, 1)), (3, (0, 1)), ((1, -1), 1),
                        (0, 0), (25, 1)]:
        check(lambda xp: xp.roll(xp.asarray(x), shift, axis))
        check(lambda xp: xp.roll(xp.asarray(x)[::-1, ::2], shift, axis))
    check(lambda xp: xp.roll(xp.asarray(np.zeros((0, 3))), 1, 0))
    check(lambda xp: xp.roll(xp.asarray(x), 1, 2))
    check(lambda xp: xp.flip(xp.asarray(x)))
    check(lambda xp: xp.flip(xp.asarray(x), 1))


def test_broadcast_arrays(check):
    check(lambda xp: xp.broadcast_arrays(xp.asarray(np.arange(3.0)), xp.asarray(np.ones((2, 1), np.int8))))
    check(lambda xp: xp.broadcast_arrays(xp.asarray(np.arange(3.0)), xp.asarray(np.ones((2, 2)))))
    check(lambda xp: xp.broadcast_arrays(xp.asarray(np.float32(1))))


def test_diag(check):
    check(lambda xp: xp.diag(xp.asarray(np.arange(4.0))))
    check(lambda xp: xp.diag(xp.asarray(np.arange(3, dtype=np.int16)), 2))
    check(lambda xp: xp.diag(xp.asarray(np.arange(3.0)), -1))
    check(lambda xp: xp.diag(xp.asarray(np.arange(12.0).reshape(3, 4))))
    check(lambda xp: xp.diag(xp.asarray(np.arange(12.0).reshape(3, 4)), 1))
    check(lambda xp: xp.diag(xp.asarray(np.arange(12.0).reshape(3, 4)).T, -2))
    check(lambda xp: xp.diag(xp.asarray(M)))
    check(lambda xp: xp.diagflat(xp.asarray(np.arange(4.0).reshape(2, 2))))
    check(lambda xp: xp.diagflat(xp.asarray(np.arange(3.0)), -1))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take(check, mode):
    idx = np.array([[0, -1], [3, 2]])
    big = np.array([5, -9, 1])
    check(lambda xp: xp.take(xp.asarray(M), xp.asarray(idx), axis=2, mode=mode))
    check(lambda xp: xp.take(xp.asarray(M), xp.asarray(idx), mode=mode))
    check(lambda xp: xp.take(xp.asarray(M)[:, ::-1], xp.asarray(big), axis=1, mode=mode))
    check(lambda xp: xp.take(xp.asarray(M), 1, axis=0, mode=mode))
    check(lambda xp: xp.take(xp.asarray(M), xp.asarray(np.array([1.0])), mode=mode))
    check(lambda xp: xp.take(xp.asarray(np.zeros((2, 0))), xp.asarray(np.array([0])), axis=1, mode=mode))


def test_take_out(check):
    def f(xp):
        out = xp.zeros((2, 3))
        xp.take(xp.asarray(M), xp.asarray(np.array([[0, 5, 7], [1, 1, 23]])), out=out)
        return out
    check(f)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_take_along_put_along(check, dtype):
    a = data(dtype, 24, 11).reshape(2, 3, 4)
    idx = np.argsort(np.arange(24)[::-1].reshape(2, 3, 4) % 5, axis=2)
    check(lambda xp: xp.take_along_axis(xp.asarray(a), xp.asarray(idx), axis=2))
    check(lambda xp: xp.take_along_axis(xp.asarray(a), xp.asarray(idx[:, :, :2] - 4), axis=-1))
    check(lambda xp: xp.take_along_axis(xp.asarray(a), xp.asarray(np.array([[[2]], [[0]]])), axis=1))
    check(lambda xp: xp.take_along_axis(xp.asarray(a.ravel()), xp.asarray(np.array([5, -1, 0])), axis=None))

    def put(xp):
        x = xp.array(a)
        xp.put_along_axis(x, xp.asarray(idx[:, :, :2]), xp.asarray(a[:, :, 1:3]), axis=2)
        xp.put_along_axis(x, xp.asarray(np.array([[[1]]])), True, axis=0)
        return x
    check(put)


def test_take_along_errors(check):
    check(lambda xp: xp.take_along_axis(xp.asarray(M), xp.asarray(np.array([[[4]]])), axis=2))
    check(lambda xp: xp.take_along_axis(xp.asarray(M), xp.asarray(np.array([0])), axis=2))
    check(lambda xp: xp.take_along_axis(xp.asarray(M), xp.asarray(np.array([[[0.5]]])), axis=2))


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_put(check, mode):
    def f(xp):
        x = xp.array(M)
        xp.put(x, xp.asarray(np.array([0, -1, 30, 5])), xp.asarray(np.array([7.0, 8.0])), mode=mode)
        return x

    def g(xp):
        x = xp.array(M)
        v = x.transpose(2, 0, 1)[::-1]
        xp.put(v, [1, 2, 23], xp.asarray(np.array([-1, -2, -3], np.int32)), mode=mode)
        return x
    check(f)
    check(g)


def test_compress_extract_place(check):
    cond = np.array([True, False, True])
    check(lambda xp: xp.compress(xp.asarray(cond), xp.asarray(M), axis=1))
    check(lambda xp: xp.compress([0, 1], xp.asarray(M)))
    check(lambda xp: xp.compress([0, 1, 1, 1], xp.asarray(M), axis=0))  # IndexError
    check(lambda xp: xp.extract(xp.asarray(M % 3 == 0), xp.asarray(M)))

    def p(xp):
        x = xp.array(M)
        xp.place(x, xp.asarray(M > 10), xp.asarray(np.array([-1.0, -2.0, -3.0])))
        return x
    check(p)

    def p_empty(xp):
        x = xp.array(M)
        xp.place(x, xp.asarray(M > 10), [])
        return x
    check(p_empty)


def test_ndarray_methods(check):
    check(lambda xp: xp.asarray(M).take(xp.asarray(np.array([3, -1])), axis=2))
    check(lambda xp: xp.asarray(M).repeat(2, axis=0))
    check(lambda xp: xp.asarray(M).compress([True, False, True], axis=1))

    def put(xp):
        x = xp.array(M)
        x.put([0, 5], xp.asarray(np.array([-1.0, -2.0])))
        return x
    check(put)
