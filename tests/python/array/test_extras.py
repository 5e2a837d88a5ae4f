"""The NumPy names of pyasc/_extras.py vs NumPy: selection, rotations, index helpers,
insert/delete/resize, set operations, block, creation, copyto, bit packing,
functional helpers, error state, print options and file formats."""

import warnings

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import ALL_DTYPES, NUMERIC_DTYPES, assert_same
from test_ops import data

IDS = lambda d: np.dtype(d).name  # noqa: E731
M = np.arange(24, dtype=np.float64).reshape(2, 3, 4)


def rev(xp, a):
    """A negative-stride view holding the values of ``a``."""
    return xp.asarray(np.ascontiguousarray(a[::-1]))[::-1]


# ------------------------------------------------------------------ selection


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_select_dtypes(check, dtype):
    x = data(dtype, 37, 1)
    y = data(dtype, 37, 2)
    c1 = np.arange(37) % 3 == 0
    c2 = np.arange(37) % 2 == 0
    check(lambda xp: xp.select([xp.asarray(c1), xp.asarray(c2)], [xp.asarray(x), rev(xp, y)]))
    check(lambda xp: xp.select([xp.asarray(c1)], [xp.asarray(x)], default=1))


def test_select_edges(check):
    c = np.array([[True, False], [False, True]])
    check(lambda xp: xp.select([xp.asarray(c)], [xp.asarray(np.arange(2, dtype=np.int8))], 5))  # broadcast
    check(lambda xp: xp.select([xp.asarray(c)], [xp.asarray(np.arange(2, dtype=np.int8))], 1.5))  # promotion
    check(lambda xp: xp.select([xp.asarray(np.zeros(0, bool))], [xp.asarray(np.zeros(0))]))     # empty
    check(lambda xp: xp.select([xp.asarray(np.True_)], [xp.asarray(np.float32(3))]))           # 0-d
    check(lambda xp: xp.select([xp.asarray(c)], [1.5], default=xp.asarray(np.array([[7], [8]], np.int16))))
    check(lambda xp: xp.select([xp.asarray(c[0])], [xp.asarray(np.int8(3))], default=[5, 6]))
    check(lambda xp: xp.select([], []))                                                          # ValueError
    check(lambda xp: xp.select([xp.asarray(c)], []))                                             # ValueError
    check(lambda xp: xp.select([xp.asarray(np.arange(2))], [xp.asarray(np.arange(2))]))         # TypeError
    with pytest.raises(asc.AscendTypeError, match=r"\[select\]"):
        asc.select([asc.arange(2)], [asc.arange(2)])


def test_piecewise(check):
    x = np.linspace(-2.5, 2.5, 11)
    check(lambda xp: xp.piecewise(xp.asarray(x), [xp.asarray(x < 0), xp.asarray(x >= 0)],
                                  [lambda v: -v, lambda v: v * 2]))
    check(lambda xp: xp.piecewise(xp.asarray(x), [xp.asarray(x < 0)], [-1, lambda v: v + 1]))  # otherwise
    check(lambda xp: xp.piecewise(xp.asarray(np.arange(5)), [xp.asarray(np.arange(5) > 1)], [7]))
    check(lambda xp: xp.piecewise(xp.asarray(x), [xp.asarray(x < 0)], [1, 2, 3]))  # ValueError
    check(lambda xp: xp.piecewise(xp.asarray(np.zeros(0)), [xp.asarray(np.zeros(0, bool))], [1.0]))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=IDS)
def test_choose(check, dtype):
    a = np.array([[0, 1, 2], [2, 1, 0]])
    ch = [data(dtype, 3, s) for s in range(3)]
    check(lambda xp: xp.choose(xp.asarray(a), [xp.asarray(c) for c in ch]))
    check(lambda xp: xp.choose(xp.asarray(a[:, ::-1]), [xp.asarray(c) for c in ch]))


def test_choose_modes_and_errors(check):
    a = np.array([-1, 0, 3, 5])
    ch = [np.arange(4) * 10 + i for i in range(3)]
    for mode in ("wrap", "clip"):
        check(lambda xp: xp.choose(xp.asarray(a), [xp.asarray(c) for c in ch], mode=mode))
    check(lambda xp: xp.choose(xp.asarray(a), [xp.asarray(c) for c in ch]))                # ValueError
    check(lambda xp: xp.choose(xp.asarray(a), [xp.asarray(c) for c in ch], mode="bad"))    # ValueError
    check(lambda xp: xp.choose(xp.asarray(np.zeros(0, np.int64)), [xp.asarray(np.zeros(0))]))
    out = asc.zeros(4, dtype=asc.int64)
    r = asc.choose(asc.array([0, 1, 1, 0]), [asc.arange(4), asc.full(4, 9, asc.int64)], out=out)
    assert r is out and np.asarray(out).tolist() == [0, 9, 9, 3]


# ------------------------------------------------------------------ rotations


@pytest.mark.parametrize("k", [-3, -1, 0, 1, 2, 3, 5])
def test_rot90(check, k):
    check(lambda xp: xp.rot90(xp.asarray(M), k))
    check(lambda xp: xp.rot90(xp.asarray(M), k, axes=(2, 0)))
    check(lambda xp: xp.rot90(rev(xp, M), k, axes=(-1, 1)))


def test_rot90_errors_and_flips(check):
    check(lambda xp: xp.rot90(xp.asarray(M), axes=(0, 0)))
    check(lambda xp: xp.rot90(xp.asarray(M), axes=(0, 3)))
    check(lambda xp: xp.rot90(xp.asarray(M), axes=(0, 1, 2)))
    check(lambda xp: xp.rot90(xp.asarray(M), axes=(0, -3)))
    for dt in ALL_DTYPES:
        m = data(dt, 12, 3).reshape(3, 4)
        check(lambda xp: xp.fliplr(xp.asarray(m)))
        check(lambda xp: xp.flipud(rev(xp, m)))
    check(lambda xp: xp.fliplr(xp.asarray(np.arange(3))))       # ValueError
    check(lambda xp: xp.flipud(xp.asarray(np.float64(1))))      # ValueError
    check(lambda xp: xp.flipud(xp.asarray(np.zeros((0, 2)))))
    x = asc.arange(6).reshape(2, 3)
    v = asc.fliplr(x)
    x[0, 0] = 100
    assert int(v[0, 2]) == 100  # a view, as NumPy's


# ------------------------------------------------------------------ index helpers


@pytest.mark.parametrize("n,k,m", [(4, 0, None), (4, 1, None), (4, -2, 6), (3, 5, 2), (0, 0, None), (5, -1, 3)])
def test_tri_indices(check, n, k, m):
    check(lambda xp: xp.triu_indices(n, k, m))
    check(lambda xp: xp.tril_indices(n, k, m))
    a = np.zeros((n, n if m is None else m))
    check(lambda xp: xp.triu_indices_from(xp.asarray(a), k))
    check(lambda xp: xp.tril_indices_from(xp.asarray(a), k=k))
    check(lambda xp: xp.asarray(a)[xp.triu_indices_from(xp.asarray(a), k)])


def test_tri_indices_errors(check):
    check(lambda xp: xp.triu_indices_from(xp.asarray(M)))
    check(lambda xp: xp.tril_indices_from(xp.asarray(np.arange(3))))


def test_indices_and_ix(check):
    for dims in [(2, 3), (3,), (2, 0, 3), ()]:
        check(lambda xp: xp.indices(dims))
        check(lambda xp: xp.indices(dims, dtype=np.int16))
        check(lambda xp: xp.indices(dims, sparse=True))
    check(lambda xp: xp.ix_(xp.asarray(np.array([0, 2])), xp.asarray(np.array([True, False, True, True]))))
    check(lambda xp: xp.ix_([1, 0], [], [2]))
    check(lambda xp: xp.asarray(M)[xp.ix_([1, 0], [2, 0], [3, 1, 0])])
    check(lambda xp: xp.ix_(xp.asarray(np.zeros((2, 2), np.int64))))  # ValueError
    check(lambda xp: xp.ix_())


@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_ravel_multi_index(check, order):
    shape = (3, 4, 5)
    flat = np.array([0, 7, 59, 31, 12])
    check(lambda xp: xp.unravel_index(xp.asarray(flat), shape, order=order))
    check(lambda xp: xp.unravel_index(xp.asarray(flat[::-1]), shape, order))
    check(lambda xp: xp.unravel_index(17, shape, order))                        # 0-d
    check(lambda xp: xp.unravel_index(xp.asarray(np.zeros(0, np.int32)), shape, order))
    check(lambda xp: xp.unravel_index(xp.asarray(flat.reshape(5, 1)), (60,), order))
    coords = np.unravel_index(flat, shape, order=order)
    check(lambda xp: xp.ravel_multi_index(tuple(xp.asarray(c) for c in coords), shape, order=order))
    bad = (np.array([3, -1]), np.array([4, 2]), np.array([0, 9]))
    for mode in ("wrap", "clip", ("clip", "wrap", "clip")):
        check(lambda xp: xp.ravel_multi_index(tuple(xp.asarray(c) for c in bad), shape, mode=mode, order=order))
    check(lambda xp: xp.ravel_multi_index(tuple(xp.asarray(c) for c in bad), shape, order=order))  # ValueError


def test_unravel_ravel_errors(check):
    check(lambda xp: xp.unravel_index(60, (3, 4, 5)))
    check(lambda xp: xp.unravel_index(-1, (3, 4, 5)))
    check(lambda xp: xp.unravel_index(xp.asarray(np.array([1.0])), (3, 4)))    # TypeError
    check(lambda xp: xp.unravel_index(1, (3, 4), order="K"))
    check(lambda xp: xp.ravel_multi_index((xp.asarray(np.array([1])),), (3, 4)))  # wrong length
    check(lambda xp: xp.ravel_multi_index((xp.asarray(np.array([1.0])), xp.asarray(np.array([1]))), (3, 4)))
    check(lambda xp: xp.ravel_multi_index((1, 2), (3, 4)))


def test_diag_indices_and_fill_diagonal(check):
    check(lambda xp: xp.diag_indices(4))
    check(lambda xp: xp.diag_indices(3, 3))
    check(lambda xp: xp.diag_indices_from(xp.asarray(np.zeros((3, 3, 3)))))
    check(lambda xp: xp.diag_indices_from(xp.asarray(np.zeros((3, 4)))))      # ValueError

    def fill(shape, val, wrap=False, dtype=np.float64):
        def f(xp):
            a = xp.asarray(np.zeros(shape, dtype))
            xp.fill_diagonal(a, val if np.isscalar(val) else xp.asarray(np.asarray(val)), wrap=wrap)
            return a
        return f

    for dt in ALL_DTYPES:
        check(fill((4, 4), 1, dtype=dt))
    check(fill((7, 3), 5.0))
    check(fill((7, 3), 5.0, wrap=True))
    check(fill((3, 7), [1.0, 2.0]))
    check(fill((3, 3, 3), [1.0, 2.0, 3.0]))
    check(fill((0, 0), 1.0))
    check(fill((5,), 1.0))            # ValueError
    check(fill((3, 4, 3), 1.0))       # ValueError
    a = asc.zeros((3, 3))[::-1]       # negative-stride view: writes through
    asc.fill_diagonal(a, 2.0)
    assert np.asarray(a).tolist() == (np.eye(3) * 2).tolist()
    assert np.asarray(a[::-1]).tolist() == (np.eye(3) * 2)[::-1].tolist()


def test_shape_size_ndim(check):
    for a in (M, np.float32(2), np.zeros((0, 3))):
        check(lambda xp: xp.shape(xp.asarray(a)))
        check(lambda xp: xp.size(xp.asarray(a)))
        check(lambda xp: xp.ndim(xp.asarray(a)))
    check(lambda xp: xp.size(xp.asarray(M), -1))
    check(lambda xp: xp.size(xp.asarray(M), (0, 2)))
    check(lambda xp: xp.size(xp.asarray(M), 3))          # AxisError
    check(lambda xp: xp.shape([[1, 2, 3]]))
    assert np.shape(asc.asarray(M)) == (2, 3, 4) and np.ndim(asc.asarray(M)) == 3 and np.size(asc.asarray(M)) == 24


# ------------------------------------------------------------------ resize / append / insert / delete


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_resize_append(check, dtype):
    a = data(dtype, 7, 4)
    check(lambda xp: xp.resize(xp.asarray(a), (3, 5)))
    check(lambda xp: xp.resize(rev(xp, a), 4))
    check(lambda xp: xp.resize(xp.asarray(a), (2, 0)))
    check(lambda xp: xp.resize(xp.asarray(a[:0]), (2, 3)))
    check(lambda xp: xp.append(xp.asarray(a), rev(xp, a)))
    check(lambda xp: xp.append(xp.asarray(a.reshape(7, 1)), xp.asarray(a.reshape(7, 1)), axis=1))


def test_resize_append_errors(check):
    check(lambda xp: xp.resize(xp.asarray(np.arange(3)), (2, -1)))
    check(lambda xp: xp.resize(xp.asarray(np.float64(3)), (2, 2)))
    check(lambda xp: xp.append(xp.asarray(np.zeros((2, 3))), xp.asarray(np.zeros((2, 2))), axis=0))
    check(lambda xp: xp.append(xp.asarray(np.zeros((2, 3))), xp.asarray(np.zeros(3)), axis=5))
    check(lambda xp: xp.append(xp.asarray(np.zeros((2, 3))), 7.0))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_insert_delete_dtypes(check, dtype):
    a = data(dtype, 12, 5).reshape(3, 4)
    v = data(dtype, 4, 6)
    check(lambda xp: xp.insert(xp.asarray(a), 1, xp.asarray(v), axis=0))
    check(lambda xp: xp.insert(rev(xp, a), [0, 2, 2], xp.asarray(v[:3]), axis=1))
    check(lambda xp: xp.delete(xp.asarray(a), 1, axis=1))
    check(lambda xp: xp.delete(rev(xp, a), [0, -1], axis=0))
    check(lambda xp: xp.delete(xp.asarray(a), slice(None, None, 2)))


def test_insert_cases(check):
    a = np.arange(12).reshape(3, 4)
    check(lambda xp: xp.insert(xp.asarray(a), 2, 99))                        # flattened
    check(lambda xp: xp.insert(xp.asarray(a), -1, 99, axis=1))
    check(lambda xp: xp.insert(xp.asarray(a), [1], [[7], [8], [9]], axis=1))  # 1-element list vs scalar
    check(lambda xp: xp.insert(xp.asarray(a), 1, [7, 8, 9], axis=1))
    check(lambda xp: xp.insert(xp.asarray(a), slice(0, 4, 2), 5, axis=1))
    check(lambda xp: xp.insert(xp.asarray(a), [4, 0, -1], 5.7, axis=1))       # values cast to int
    check(lambda xp: xp.insert(xp.asarray(a), [], 5, axis=1))
    check(lambda xp: xp.insert(xp.asarray(a), np.array([True, False, True, False]), 0, axis=1))
    check(lambda xp: xp.insert(xp.asarray(np.zeros(0)), 0, [1.5, 2.5]))
    check(lambda xp: xp.insert(xp.asarray(a), 5, 1, axis=1))                  # IndexError
    check(lambda xp: xp.insert(xp.asarray(a), [0, 9], 1, axis=1))             # IndexError
    check(lambda xp: xp.insert(xp.asarray(a), [[0]], 1, axis=1))              # ValueError
    check(lambda xp: xp.insert(xp.asarray(a), 0, 1, axis=2))                  # AxisError


def test_delete_cases(check):
    a = np.arange(12).reshape(3, 4)
    check(lambda xp: xp.delete(xp.asarray(a), [], axis=1))
    check(lambda xp: xp.delete(xp.asarray(a), xp.asarray(np.array([True, False, False])), axis=0))
    check(lambda xp: xp.delete(xp.asarray(a), slice(3, 0, -2), axis=1))
    check(lambda xp: xp.delete(xp.asarray(a), slice(5, 9)))
    check(lambda xp: xp.delete(xp.asarray(a), -12))
    check(lambda xp: xp.delete(xp.asarray(np.zeros(0)), []))
    check(lambda xp: xp.delete(xp.asarray(a), 3, axis=0))                    # IndexError
    check(lambda xp: xp.delete(xp.asarray(a), [0, 4], axis=1))               # IndexError
    check(lambda xp: xp.delete(xp.asarray(a), xp.asarray(np.array([True, False])), axis=0))  # ValueError
    check(lambda xp: xp.delete(xp.asarray(a), 0, axis=-3))                   # AxisError


def test_trim_zeros(check):
    f = np.array([0, 0, 3, 0, 5, 0, 0], dtype=np.float32)
    for trim in ("fb", "f", "b", "BF"):
        check(lambda xp: xp.trim_zeros(xp.asarray(f), trim))
        check(lambda xp: xp.trim_zeros(rev(xp, f), trim))
    check(lambda xp: xp.trim_zeros(xp.asarray(np.zeros(4))))
    check(lambda xp: xp.trim_zeros(xp.asarray(np.zeros(0, np.int8))))
    check(lambda xp: xp.trim_zeros(xp.asarray(np.array([-0.0, np.nan, 0.0]))))
    m = np.zeros((4, 5), np.int32)
    m[1, 2] = m[2, 3] = 1
    check(lambda xp: xp.trim_zeros(xp.asarray(m)))
    check(lambda xp: xp.trim_zeros(xp.asarray(m), axis=-1))
    check(lambda xp: xp.trim_zeros(xp.asarray(m), "f", axis=0))
    check(lambda xp: xp.trim_zeros(xp.asarray(f), "x"))        # ValueError
    check(lambda xp: xp.trim_zeros(xp.asarray(m), axis=2))     # AxisError


# ------------------------------------------------------------------ set operations


SET_DTYPES = [d for d in NUMERIC_DTYPES if d is not ml_dtypes.bfloat16] + [np.bool_]


@pytest.mark.parametrize("dtype", SET_DTYPES, ids=IDS)
def test_set_ops(check, dtype):
    a = data(dtype, 23, 7)
    b = data(dtype, 17, 8)
    b[:5] = a[3:8]
    for xs in (lambda xp: (xp.asarray(a), rev(xp, b)), lambda xp: (xp.asarray(a[:0]), xp.asarray(b))):
        check(lambda xp: xp.setdiff1d(*xs(xp)))
        check(lambda xp: xp.union1d(*xs(xp)))
        check(lambda xp: xp.intersect1d(*xs(xp)))
        check(lambda xp: xp.intersect1d(*xs(xp), return_indices=True))
        check(lambda xp: xp.setxor1d(*xs(xp)))


def test_set_ops_bfloat16():
    """NumPy's own bfloat16 sort/isin mishandle NaN (ml_dtypes); compare with float32 results."""
    a = data(ml_dtypes.bfloat16, 23, 7)
    b = data(ml_dtypes.bfloat16, 17, 8)
    b[:5] = a[3:8]
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    for name in ("setdiff1d", "union1d", "intersect1d", "setxor1d"):
        want = getattr(np, name)(fa, fb).astype(ml_dtypes.bfloat16)
        assert_same(want, getattr(asc, name)(asc.asarray(a), rev(asc, b)))
    want = np.intersect1d(fa, fb, return_indices=True)
    got = asc.intersect1d(asc.asarray(a), asc.asarray(b), return_indices=True)
    assert_same((want[0].astype(ml_dtypes.bfloat16),) + want[1:], got)


def test_set_ops_assume_unique_and_nd(check):
    a = np.array([5, 1, 9, 3])
    b = np.array([3, 7, 5])
    check(lambda xp: xp.setdiff1d(xp.asarray(a), xp.asarray(b), assume_unique=True))
    check(lambda xp: xp.intersect1d(xp.asarray(a), xp.asarray(b), assume_unique=True, return_indices=True))
    check(lambda xp: xp.setxor1d(xp.asarray(a), xp.asarray(b), assume_unique=True))
    m = np.array([[1, 2], [2, 4]])
    check(lambda xp: xp.union1d(xp.asarray(m), xp.asarray(np.float32(2.5))))
    check(lambda xp: xp.intersect1d(xp.asarray(m), [4, 1, 1], return_indices=True))
    nan = np.array([np.nan, 1.0, -0.0])
    check(lambda xp: xp.union1d(xp.asarray(nan), xp.asarray(np.array([0.0, np.nan]))))


# ------------------------------------------------------------------ block / row_stack


def test_block(check):
    A = np.eye(2) * 2
    B = np.eye(3) * 3
    check(lambda xp: xp.block([[xp.asarray(A), xp.asarray(np.zeros((2, 3)))],
                               [xp.asarray(np.ones((3, 2))), xp.asarray(B)]]))
    check(lambda xp: xp.block([xp.asarray(np.arange(3)), 4, xp.asarray(np.arange(2, dtype=np.int8))]))
    check(lambda xp: xp.block([[1, 2], [3, 4]]))
    check(lambda xp: xp.block(xp.asarray(np.float32(1))))
    check(lambda xp: xp.block([[xp.asarray(np.arange(2))], [xp.asarray(np.arange(2.0))]]))
    check(lambda xp: xp.block([[1, 2], 3]))          # ValueError: depth mismatch
    check(lambda xp: xp.block([[1, 2], []]))         # ValueError: empty
    check(lambda xp: xp.block(([1], [2])))           # TypeError: tuple
    check(lambda xp: xp.block([[xp.asarray(np.ones((2, 2))), xp.asarray(np.ones((3, 1)))]]))  # ValueError


def test_row_stack_follows_numpy():
    assert hasattr(np, "row_stack")  # NumPy 2.4 still has it, deprecated
    with pytest.warns(DeprecationWarning):
        r = asc.row_stack([asc.arange(3), asc.arange(3)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(np.row_stack([np.arange(3), np.arange(3)]), r)


# ------------------------------------------------------------------ creation


@pytest.mark.parametrize("dtype", [None, np.float32, np.float16, ml_dtypes.bfloat16, np.int64], ids=str)
def test_logspace_geomspace(check, dtype):
    check(lambda xp: xp.logspace(0, 3, 7, dtype=dtype))
    check(lambda xp: xp.logspace(1, -2, 5, endpoint=False, base=2.0, dtype=dtype))
    check(lambda xp: xp.geomspace(1, 1000, 4, dtype=dtype))
    check(lambda xp: xp.geomspace(-1, -1000, 5, endpoint=False, dtype=dtype))


def test_creation_edges(check):
    check(lambda xp: xp.logspace(0, 1, 0))
    check(lambda xp: xp.logspace([0, 1], [2, 3], 3, axis=1))
    check(lambda xp: xp.logspace(xp.asarray(np.array([0.0, 1.0])), 2, 3))
    check(lambda xp: xp.geomspace(0, 10, 3))     # ValueError
    check(lambda xp: xp.logspace(0, 1, -1))      # ValueError
    check(lambda xp: xp.fromfunction(lambda i, j: i * 10 + j, (3, 4)))
    check(lambda xp: xp.fromfunction(lambda i, j: xp.equal(i, j), (3, 3), dtype=int))
    check(lambda xp: xp.fromfunction(lambda i: i, (0,)))
    buf = np.arange(10, dtype=np.int16).tobytes()
    check(lambda xp: xp.frombuffer(buf, dtype=np.int16))
    check(lambda xp: xp.frombuffer(buf, dtype=np.int16, count=3, offset=4))
    check(lambda xp: xp.frombuffer(buf, dtype=np.int32, offset=1))  # ValueError
    check(lambda xp: xp.fromiter((i * i for i in range(6)), dtype=np.float32))
    check(lambda xp: xp.fromiter(iter([1, 2, 3]), dtype=np.int8, count=2))
    check(lambda xp: xp.fromiter(iter([1, 2]), dtype=np.int8, count=5))  # ValueError
    assert isinstance(asc.frombuffer(buf, dtype=np.int16), asc.ndarray)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=IDS)
def test_copyto_dtypes(check, dtype):
    src = data(dtype, 12, 9).reshape(3, 4)
    mask = (np.arange(12) % 3 == 0).reshape(3, 4)

    def body(where=True, s=src, casting="same_kind"):
        def f(xp):
            d = xp.asarray(np.zeros((3, 4), dtype))
            w = where if where is True else xp.asarray(where)
            xp.copyto(d, xp.asarray(s), casting=casting, where=w)
            return d
        return f

    check(body())
    check(body(mask))
    check(body(mask[0]))
    check(body(s=src[1]))
    check(body(s=np.arange(4, dtype=np.float64)))
    check(body(s=np.arange(4, dtype=np.float64), casting="unsafe"))
    check(body(s=np.arange(4, dtype=np.int8), casting="safe"))


def test_copyto_into_views():
    base = asc.zeros((4, 6), dtype=asc.float32)
    asc.copyto(base[::-1, ::2], asc.arange(3.0), where=asc.array([True, False, True]))
    want = np.zeros((4, 6), np.float32)
    np.copyto(want[::-1, ::2], np.arange(3.0), where=np.array([True, False, True]))
    assert_same(want, base)
    z = asc.zeros((), dtype=asc.int16)
    asc.copyto(z, 7)
    assert_same(np.array(7, np.int16), z)


def test_copyto_scalars_and_errors(check):
    def body(dst_dtype, val, shape=(3,), where=True, casting="same_kind"):
        def f(xp):
            d = xp.asarray(np.zeros(shape, dst_dtype))
            xp.copyto(d, val if np.isscalar(val) else xp.asarray(val), casting=casting, where=where)
            return d
        return f

    check(body(np.int8, 5))
    check(body(np.int8, 1.5))                                     # TypeError
    check(body(np.float32, 2.5))
    check(body(np.int8, 1.5, casting="unsafe"))
    check(body(np.float32, np.arange(2.0)))                       # ValueError: broadcast
    check(body(np.float32, np.arange(3.0), casting="bad"))        # ValueError
    check(body(np.float32, np.arange(3.0), where=np.array([1, 0, 1])))  # TypeError
    check(body(np.float32, np.arange(3.0), shape=()))             # ValueError
    with pytest.raises(OverflowError):
        asc.copyto(asc.zeros(3, dtype=asc.int8), 1000)
    with pytest.raises(TypeError, match=r"\[copyto\]"):
        asc.copyto(asc.zeros(3, dtype=asc.int8), asc.arange(3.0))


def test_shares_memory_and_chkfinite(check):
    a = asc.arange(10)
    assert asc.shares_memory(a, a[2:5]) and not asc.shares_memory(a[:2], a[2:])
    assert asc.may_share_memory(a[::2], a[1::2]) and not asc.shares_memory(a[::2], a[1::2])
    assert not asc.shares_memory(a, a.copy())
    assert np.shares_memory(a, a[::-1])  # dispatch
    check(lambda xp: xp.asarray_chkfinite(xp.asarray(np.array([1.0, 2.0]))))
    check(lambda xp: xp.asarray_chkfinite([1, 2], dtype=np.float32))
    for bad in (np.nan, np.inf, -np.inf):
        check(lambda xp: xp.asarray_chkfinite(xp.asarray(np.array([1.0, bad], np.float16))))
    check(lambda xp: xp.asarray_chkfinite(xp.asarray(np.array([1, 2], ml_dtypes.bfloat16) * np.inf)))


# ------------------------------------------------------------------ bits


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.int64], ids=IDS)
@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits(check, dtype, bitorder):
    a = data(dtype, 3 * 13, 10).reshape(3, 13)
    check(lambda xp: xp.packbits(xp.asarray(a), bitorder=bitorder))
    check(lambda xp: xp.packbits(xp.asarray(a), axis=1, bitorder=bitorder))
    check(lambda xp: xp.packbits(rev(xp, a), axis=0, bitorder=bitorder))
    check(lambda xp: xp.packbits(xp.asarray(a[:, :0]), axis=-1))
    check(lambda xp: xp.packbits(xp.asarray(a[0, 0])))


@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_unpackbits(check, bitorder):
    a = np.arange(0, 256, 7, dtype=np.uint8).reshape(-1, 1)[:35].reshape(5, 7)
    check(lambda xp: xp.unpackbits(xp.asarray(a), bitorder=bitorder))
    check(lambda xp: xp.unpackbits(xp.asarray(a), axis=1, bitorder=bitorder))
    check(lambda xp: xp.unpackbits(rev(xp, a), axis=0, bitorder=bitorder))
    for count in (0, 5, -3, 60, 64):
        check(lambda xp: xp.unpackbits(xp.asarray(a), axis=1, count=count, bitorder=bitorder))
    check(lambda xp: xp.unpackbits(xp.packbits(xp.asarray(a > 100), axis=1), axis=1, count=7))
    check(lambda xp: xp.unpackbits(xp.asarray(a), axis=1, count=-57))         # ValueError
    check(lambda xp: xp.unpackbits(xp.asarray(a.astype(np.int8))))            # TypeError


def test_bits_errors(check):
    check(lambda xp: xp.packbits(xp.asarray(np.ones(3))))                     # TypeError
    check(lambda xp: xp.packbits(xp.asarray(np.ones(3, np.int8)), bitorder="mid"))
    check(lambda xp: xp.packbits(xp.asarray(np.ones((2, 3), np.int8)), axis=2))


# ------------------------------------------------------------------ functional


def test_apply_along_axis(check):
    check(lambda xp: xp.apply_along_axis(lambda v: xp.sum(v) * 2, 1, xp.asarray(M)))
    check(lambda xp: xp.apply_along_axis(lambda v: v[::-1], -1, xp.asarray(M)))
    check(lambda xp: xp.apply_along_axis(lambda v: xp.stack([v, v]), 0, xp.asarray(M)))
    check(lambda xp: xp.apply_along_axis(lambda v, s: v * s, 2, rev(xp, M), 3.0))
    check(lambda xp: xp.apply_along_axis(xp.sum, 0, xp.asarray(np.zeros((2, 0)))))   # ValueError
    check(lambda xp: xp.apply_along_axis(xp.sum, 3, xp.asarray(M)))                  # AxisError


def test_apply_over_axes(check):
    check(lambda xp: xp.apply_over_axes(xp.sum, xp.asarray(M), [0, 2]))
    check(lambda xp: xp.apply_over_axes(xp.max, xp.asarray(M), -1))
    check(lambda xp: xp.apply_over_axes(lambda a, ax: xp.sum(a, axis=ax, keepdims=True), xp.asarray(M), (1,)))


def test_vectorize_ndindex_ndenumerate():
    f = asc.vectorize(lambda a, b: a - b if a > b else a + b)
    r = f(asc.arange(6).reshape(2, 3), 2)
    assert isinstance(r, asc.ndarray)
    assert_same(np.vectorize(lambda a, b: a - b if a > b else a + b)(np.arange(6).reshape(2, 3), 2), r)
    g = asc.vectorize(otypes=[np.float32])(lambda a: a / 2)
    assert_same(np.array([0.5, 1.0], np.float32), g(asc.array([1, 2])))
    h = asc.vectorize(lambda v: (v, -v))
    out = h(asc.array([1.5, 2.5]))
    assert isinstance(out, tuple) and all(isinstance(o, asc.ndarray) for o in out)
    assert list(asc.ndindex(2, 2)) == list(np.ndindex(2, 2))
    assert list(asc.ndindex((0, 3))) == []
    x = np.arange(6.0).reshape(2, 3)[:, ::-1]
    assert list(asc.ndenumerate(asc.asarray(x))) == list(np.ndenumerate(x))
    assert list(asc.ndenumerate(asc.asarray(np.float64(4)))) == [((), 4.0)]


# ------------------------------------------------------------------ error state, print options


def test_errstate_seterr_geterr():
    old = asc.geterr()
    assert old == {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}
    try:
        prev = asc.seterr(all="raise")
        assert prev == old and set(asc.geterr().values()) == {"raise"}
        with asc.errstate(divide="ignore"):
            assert asc.geterr()["divide"] == "ignore" and asc.geterr()["over"] == "raise"
        assert asc.geterr()["divide"] == "raise"
        with pytest.raises(ValueError):
            asc.seterr(divide="bogus")
    finally:
        asc.seterr(**old)
    assert asc.geterr() == old

    @asc.errstate(invalid="ignore")
    def decorated():
        return asc.geterr()["invalid"]

    assert decorated() == "ignore" and asc.geterr()["invalid"] == "warn"
    import threading
    seen = []
    with asc.errstate(all="raise"):
        t = threading.Thread(target=lambda: seen.append(asc.geterr()["over"]))
        t.start()
        t.join()
    assert seen == ["warn"]  # context-local, as NumPy 2's
    # pyasc's device ops never warn on floating-point errors (documented):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = asc.true_divide(asc.array([1.0, 0.0]), 0.0)
    assert np.isinf(np.asarray(r)[0]) and np.isnan(np.asarray(r)[1])


def test_printoptions():
    x = asc.array([1.123456789, 2.0, 1e-9])
    n = np.asarray(x)
    with asc.printoptions(precision=3, suppress=True):
        assert repr(x) == repr(n) == "array([1.123, 2.   , 0.   ])"
        assert asc.get_printoptions()["precision"] == 3
        assert asc.array2string(x) == np.array2string(n)
    opts = asc.get_printoptions()
    try:
        asc.set_printoptions(threshold=5, edgeitems=1)
        big = asc.arange(100)
        assert str(big) == "[ 0 ... 99]"
        assert asc.array_str(big) == str(big)
        assert asc.array_repr(big) == repr(big) == "array([ 0, ..., 99], shape=(100,))"
    finally:
        asc.set_printoptions(**opts)
    assert asc.array2string(asc.arange(3), separator=", ") == "[0, 1, 2]"
    assert asc.array_repr(asc.array([1.5], dtype=asc.float32), precision=1) == "array([1.5], dtype=float32)"
    assert np.array2string(asc.arange(3)) == "[0 1 2]"  # dispatch


# ------------------------------------------------------------------ files


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d is not ml_dtypes.bfloat16], ids=IDS)
def test_save_load_round_trip(tmp_path, dtype):
    a = data(dtype, 37, 11).reshape(37, 1)[::-1]
    p = tmp_path / "a.npy"
    asc.save(p, asc.asarray(a))
    n = np.load(p)
    assert_same(a, n)
    np.save(tmp_path / "b.npy", a)
    r = asc.load(tmp_path / "b.npy")
    assert isinstance(r, asc.ndarray)
    assert_same(a, r)
    asc.save(tmp_path / "e.npy", asc.asarray(a[:0]))
    assert_same(a[:0], asc.load(tmp_path / "e.npy"))
    asc.save(tmp_path / "z.npy", asc.asarray(a[0, 0]))
    assert_same(np.asarray(a[0, 0]), asc.load(tmp_path / "z.npy"))


@pytest.mark.parametrize("compressed", [False, True])
def test_savez_round_trip(tmp_path, compressed):
    save = asc.savez_compressed if compressed else asc.savez
    a, b = np.arange(6, dtype=np.int16).reshape(2, 3), np.linspace(0, 1, 5, dtype=np.float32)
    save(tmp_path / "a.npz", asc.asarray(a), named=asc.asarray(b))
    with np.load(tmp_path / "a.npz") as f:
        assert sorted(f.files) == ["arr_0", "named"]
        assert_same(a, f["arr_0"])
        assert_same(b, f["named"])
    (np.savez_compressed if compressed else np.savez)(tmp_path / "b.npz", x=a, y=b)
    with asc.load(tmp_path / "b.npz") as f:
        assert sorted(f.files) == ["x", "y"] and "x" in f and len(f) == 2
        assert isinstance(f["x"], asc.ndarray)
        assert_same(a, f["x"])
        assert_same(b, f["y"])


def test_text_files(tmp_path):
    a = np.array([[1.5, -2.0, np.inf], [np.nan, 0.0, 3.25]])
    asc.savetxt(tmp_path / "a.txt", asc.asarray(a), fmt="%.4f", delimiter=",")
    assert_same(a, np.loadtxt(tmp_path / "a.txt", delimiter=","))
    np.savetxt(tmp_path / "b.txt", a)
    r = asc.loadtxt(tmp_path / "b.txt")
    assert isinstance(r, asc.ndarray)
    assert_same(a, r)
    assert_same(a[:, 1].astype(np.float32), asc.loadtxt(tmp_path / "b.txt", usecols=1, dtype=np.float32))
    assert_same(np.loadtxt(tmp_path / "b.txt", unpack=True), asc.loadtxt(tmp_path / "b.txt", unpack=True))
    (tmp_path / "c.txt").write_text("1,2,3\n4,,6\n")
    g = asc.genfromtxt(tmp_path / "c.txt", delimiter=",")
    assert isinstance(g, asc.ndarray)
    assert_same(np.genfromtxt(tmp_path / "c.txt", delimiter=","), g)
    with pytest.raises(ValueError):
        asc.loadtxt(tmp_path / "c.txt", delimiter=",")
    np.save(tmp_path / "d.npy", asc.arange(3, dtype=asc.uint16))  # np.save dispatches to pyasc.save
    assert_same(np.arange(3, dtype=np.uint16), np.load(tmp_path / "d.npy"))
    with pytest.raises(FileNotFoundError):
        asc.load(tmp_path / "missing.npy")


# ------------------------------------------------------------------ NumPy dispatch


def test_numpy_functions_dispatch():
    x = asc.arange(12).reshape(3, 4)
    for name, args in [("fliplr", (x,)), ("flipud", (x,)), ("rot90", (x,)), ("resize", (x, (2, 2))),
                       ("append", (x, x)), ("delete", (x, 0)), ("insert", (x, 1, 5)), ("trim_zeros", (x[0],)),
                       ("setdiff1d", (x, x[0])), ("union1d", (x, x)), ("intersect1d", (x, x[1])),
                       ("setxor1d", (x, x[1])), ("packbits", (x,)), ("triu_indices_from", (x,)),
                       ("diag_indices_from", (x[:3, :3],))]:
        r = getattr(np, name)(*args)
        e = getattr(np, name)(*[np.asarray(a) if isinstance(a, asc.ndarray) else a for a in args])
        assert isinstance(r[0] if isinstance(r, tuple) else r, asc.ndarray), name
        assert_same(e, r)
    assert np.shape(x) == (3, 4) and np.size(x, 1) == 4
    d = asc.zeros((3, 4), dtype=asc.int64)
    np.copyto(d, x, where=x > 6)
    assert_same(np.where(np.arange(12).reshape(3, 4) > 6, np.arange(12).reshape(3, 4), 0), d)
    r = np.select([x > 5], [x])
    assert isinstance(r, asc.ndarray)
    assert_same(np.select([np.asarray(x) > 5], [np.asarray(x)]), r)


# ------------------------------------------------------------------ error classes and messages


@pytest.mark.parametrize("call,cls,op", [
    (lambda: asc.select([asc.arange(2)], [asc.arange(2)]), asc.AscendTypeError, "select"),
    (lambda: asc.select([], []), asc.AscendValueError, "select"),
    (lambda: asc.rot90(asc.zeros((2, 2)), axes=(1, 1)), asc.AscendValueError, "rot90"),
    (lambda: asc.fliplr(asc.zeros(3)), asc.AscendValueError, "fliplr"),
    (lambda: asc.choose(asc.array([0, 3]), [asc.zeros(2), asc.ones(2)]), asc.AscendValueError, "choose"),
    (lambda: asc.unravel_index(asc.array([0, 12]), (3, 4)), asc.AscendValueError, "unravel_index"),
    (lambda: asc.ravel_multi_index((asc.array([3]), asc.array([0])), (3, 4)), asc.AscendValueError,
     "ravel_multi_index"),
    (lambda: asc.delete(asc.arange(4), 4), asc.AscendIndexError, "delete"),
    (lambda: asc.insert(asc.arange(4), 6, 1), asc.AscendIndexError, "insert"),
    (lambda: asc.resize(asc.arange(4), (-1,)), asc.AscendValueError, "resize"),
    (lambda: asc.packbits(asc.zeros(3)), asc.AscendTypeError, "packbits"),
    (lambda: asc.unpackbits(asc.arange(3)), asc.AscendTypeError, "unpackbits"),
    (lambda: asc.copyto(asc.zeros(3, dtype=asc.int8), 300), asc.errors.AscendOverflowError, "copyto"),
    (lambda: asc.copyto(asc.zeros(3), asc.zeros(2)), asc.AscendValueError, "copyto"),
    (lambda: asc.asarray_chkfinite(asc.array([np.nan])), asc.AscendValueError, "asarray_chkfinite"),
    (lambda: asc.block([[1], 2]), asc.AscendValueError, "block"),
    (lambda: asc.trim_zeros(asc.arange(3), "z"), asc.AscendValueError, "trim_zeros"),
    (lambda: asc.seterr(over="loud"), asc.AscendValueError, "seterr"),
    (lambda: asc.fill_diagonal(asc.zeros((2, 3, 2)), 1), asc.AscendValueError, "fill_diagonal"),
])
def test_errors_are_ascend_errors_naming_the_op(call, cls, op):
    with pytest.raises(cls, match=rf"^\[{op}\]"):
        call()


def test_more_edges(check):
    check(lambda xp: xp.piecewise(xp.asarray(np.float64(-2.0)), [xp.asarray(np.True_)], [lambda v: v * 3, 0.5]))
    check(lambda xp: xp.piecewise(xp.asarray(np.float64(-2.0)), xp.asarray(np.True_), [0.5]))  # IndexError
    check(lambda xp: xp.piecewise(xp.asarray(np.float64(2.0)), [xp.asarray(np.False_)], [1.0]))
    check(lambda xp: xp.packbits(xp.asarray(np.eye(9, dtype=np.int8)), axis=-2))
    check(lambda xp: xp.unpackbits(xp.asarray(np.arange(6, dtype=np.uint8).reshape(2, 3)), axis=-1, count=-2))
    check(lambda xp: xp.insert(xp.asarray(M), -1, 0.5, axis=-2))
    check(lambda xp: xp.delete(xp.asarray(M), [-1, 0], axis=-1))
    check(lambda xp: xp.append(xp.asarray(np.int8(3)), xp.asarray(np.float32(2))))
    check(lambda xp: xp.rot90(xp.asarray(np.zeros((0, 3)))))
    check(lambda xp: xp.resize(xp.asarray(np.float32(3)), (2, 2)))
    check(lambda xp: xp.block([[xp.asarray(np.zeros((0, 2))), xp.asarray(np.zeros((0, 1)))]]))
    check(lambda xp: xp.choose(1, [xp.asarray(np.arange(3)), xp.asarray(np.arange(3.0))]))
    check(lambda xp: xp.indices((2, 3), dtype=np.float32))
