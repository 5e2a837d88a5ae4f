"""dot, vdot, inner, tensordot, outer, kron, einsum, matrix_transpose, vecdot, trace vs NumPy."""

import ml_dtypes
import numpy as np
import pytest

import pyasc
from linalg_harness import ALL_DTYPES, data, dtype_id, randn, views

PRODUCT_DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((), (3,)), ((4,), ()), ((4,), (4,)), ((2, 4), (4,)), ((2, 4), (4, 3)),
                                    ((4,), (4, 3)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (5, 4, 2)), ((0, 4), (4, 2))],
                         ids=str)
def test_dot(check, dtype, shapes):
    s1, s2 = shapes
    a, b = data(dtype, s1, 1), data(dtype, s2, 2)
    check(lambda xp: xp.dot(xp.asarray(a), xp.asarray(b)))


def test_dot_errors_and_out(check):
    check(lambda xp: xp.dot(xp.ones((2, 3)), xp.ones((4, 5))))
    with pytest.raises(ValueError, match=r"\[dot\] shapes \(2,3\) and \(4,5\) not aligned: 3 \(dim 1\) != 4"):
        pyasc.dot(pyasc.ones((2, 3)), pyasc.ones((4, 5)))
    a, b = randn((3, 4), np.float64, 1), randn((4, 2), np.float64, 2)

    def f(xp):
        o = xp.zeros((3, 2))
        r = xp.dot(xp.asarray(a), xp.asarray(b), out=o)
        assert r is o
        return o
    check(f)


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES, ids=dtype_id)
def test_dot_views(check, dtype):
    a, b = data(dtype, (5, 6), 3), data(dtype, (6, 4), 4)
    for i in range(4):
        check(lambda xp: xp.dot(views(xp, a)[i], views(xp, b)[3 - i]))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_vdot_inner_outer_kron(check, dtype):
    a, b = data(dtype, (2, 3), 5), data(dtype, (3, 2), 6)
    check(lambda xp: xp.vdot(xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.inner(xp.asarray(a), xp.asarray(b.T.copy())))
    check(lambda xp: xp.inner(xp.asarray(a[0]), xp.asarray(b[:, 0])))
    check(lambda xp: xp.inner(xp.asarray(a), xp.asarray(np.array(3, dtype))))
    check(lambda xp: xp.outer(xp.asarray(a), xp.asarray(b[:, ::-1])))
    check(lambda xp: xp.kron(xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.kron(xp.asarray(a[0]), xp.asarray(b)))
    check(lambda xp: xp.kron(xp.asarray(data(dtype, (2, 1, 2), 7)), xp.asarray(b)))


def test_vdot_inner_errors(check):
    check(lambda xp: xp.vdot(xp.ones(3), xp.ones(4)))
    check(lambda xp: xp.inner(xp.ones((2, 3)), xp.ones((2, 4))))


@pytest.mark.parametrize("dtype", PRODUCT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("axes", [0, 1, 2, ([1, 0], [0, 1]), ([2], [0]), ([-1, 0], [0, 2]), ((0, 2), (2, 0))],
                         ids=str)
def test_tensordot(check, dtype, axes):
    a = data(dtype, (3, 4, 3), 8)
    b = data(dtype, (3, 4, 3), 9) if not isinstance(axes, int) else data(dtype, (4, 3, 2), 9)
    if axes == 0:
        b = data(dtype, (2,), 9)
    if axes == ([1, 0], [0, 1]):
        b = data(dtype, (4, 3, 2), 9)
    check(lambda xp: xp.tensordot(xp.asarray(a), xp.asarray(b), axes=axes))
    check(lambda xp: xp.linalg.tensordot(xp.asarray(a), xp.asarray(b), axes=axes))


def test_tensordot_errors(check):
    check(lambda xp: xp.tensordot(xp.ones((2, 3)), xp.ones((4, 5)), axes=1))
    check(lambda xp: xp.tensordot(xp.ones((2, 3)), xp.ones((3, 2)), axes=([0], [0])))


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ij,jk", [(2, 3, 4), (4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("i,i", [(5,), (5,)]),
    ("i,i->i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,j", [(3,), (4,)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ijk,jil->kl", [(3, 4, 5), (4, 3, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,ki", [(2, 3), (3, 4), (4, 2)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),
    ("i,ij,j", [(3,), (3, 4), (4,)]),
    ("Ab,bA", [(2, 3), (3, 2)]),
    ("ij,j->ij", [(3, 4), (4,)]),
    ("ij,jk->ik", [(3, 1), (4, 5)]),
    (",ij->ij", [(), (2, 3)]),
    ("i...->...", [(3, 2, 2)]),
    ("ij,jk->ik", [(0, 4), (4, 5)]),
    ("ij,jk->ik", [(3, 0), (0, 5)]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_,
                                   np.float16], ids=dtype_id)
@pytest.mark.parametrize("subs,shapes", EINSUM_CASES, ids=[c[0] + str(c[1]) for c in EINSUM_CASES])
def test_einsum(check, subs, shapes, dtype):
    ops = [data(dtype, s, i + 10) for i, s in enumerate(shapes)]
    check(lambda xp: xp.einsum(subs, *[xp.asarray(o) for o in ops]), rtol=5e-3 if dtype == np.float16 else None)


def test_einsum_views_and_interleaved(check):
    a, b = randn((4, 5), np.float64, 1), randn((5, 3), np.float64, 2)
    for i in range(4):
        check(lambda xp: xp.einsum("ij,jk->ik", views(xp, a)[i], views(xp, b)[3 - i]))
    check(lambda xp: xp.einsum(xp.asarray(a), [0, 1], xp.asarray(b), [1, 2], [0, 2]))
    check(lambda xp: xp.einsum(xp.asarray(a), [0, Ellipsis], [Ellipsis]))

    def out(xp):
        o = xp.zeros((4, 3))
        r = xp.einsum("ij,jk->ik", xp.asarray(a), xp.asarray(b), out=o)
        assert r is o
        return o
    check(out)
    check(lambda xp: xp.einsum("ij,jk->ik", xp.asarray(a), xp.asarray(b), dtype=xp.float32))
    check(lambda xp: xp.einsum("ij,jk->ik", xp.asarray(a), xp.asarray(b), dtype=xp.float32, casting="same_kind"),
          rtol=1e-5)


@pytest.mark.parametrize("subs,shapes", [("ij,jk->ik", [(3, 4), (5, 6)]), ("ij,jk", [(3, 4)]),
                                         ("ij->k", [(3, 4)]), ("ii->i", [(3, 4)]), ("ijk->ij", [(3, 4)]),
                                         ("...i->i", [(2, 3)]), ("i,i->ii", [(3,), (3,)]), ("i%->i", [(3, 3)])],
                         ids=str)
def test_einsum_errors(check, subs, shapes):
    check(lambda xp: xp.einsum(subs, *[xp.ones(s) for s in shapes]))


def test_einsum_bfloat16_unsupported(check):
    check(lambda xp: xp.einsum("ij,jk", xp.ones((2, 2), dtype=ml_dtypes.bfloat16), xp.ones((2, 2))))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_vecdot_matrix_transpose(check, dtype):
    a, b = data(dtype, (2, 3, 4), 20), data(dtype, (3, 4), 21)
    check(lambda xp: xp.vecdot(xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.vecdot(xp.asarray(a), xp.asarray(b[:, :3].T.copy()), axis=1))
    check(lambda xp: xp.linalg.vecdot(xp.asarray(a)[..., ::-1], xp.asarray(b), axis=-1))
    check(lambda xp: xp.matrix_transpose(xp.asarray(a)))
    check(lambda xp: xp.linalg.matrix_transpose(xp.asarray(b)))


def test_vecdot_matrix_transpose_errors(check):
    check(lambda xp: xp.vecdot(xp.ones((2, 3)), xp.ones((2, 4))))
    check(lambda xp: xp.matrix_transpose(xp.ones(3)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_trace(check, dtype):
    a = data(dtype, (3, 4, 5), 22)
    check(lambda xp: xp.trace(xp.asarray(a)))
    check(lambda xp: xp.trace(xp.asarray(a), offset=1, axis1=1, axis2=2))
    check(lambda xp: xp.trace(xp.asarray(a), offset=-2, axis1=2, axis2=0))
    check(lambda xp: xp.trace(xp.asarray(a)[::-1, :, ::2], dtype=xp.float64))
    check(lambda xp: xp.linalg.trace(xp.asarray(a)))
    check(lambda xp: xp.linalg.trace(xp.asarray(a), offset=9))
    check(lambda xp: xp.linalg.diagonal(xp.asarray(a), offset=-1))


def test_trace_errors(check):
    check(lambda xp: xp.trace(xp.ones(3)))
