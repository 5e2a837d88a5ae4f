"""einsum (C++: parsed-plan cache, diagonals, greedy pairwise batched matmuls) vs numpy.einsum."""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyasc
from linalg_harness import assert_same, data, dtype_id, randn, views

CASES = [
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iii->i", [(3, 3, 3)]),
    ("iij->ij", [(3, 3, 2)]),
    ("ijij->ij", [(2, 3, 2, 3)]),
    ("ij->ji", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("i->", [(7,)]),
    ("i", [(7,)]),
    ("...", [(2, 3)]),
    ("...ij->...ji", [(2, 3, 4)]),
    ("i...->...i", [(2, 3, 4)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("i...i", [(3, 2, 3)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ji,jk->ik", [(4, 3), (4, 5)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(6, 3, 4), (6, 4, 5)]),
    ("bij,jk->bik", [(6, 3, 4), (4, 5)]),
    ("ij,bjk->bik", [(3, 4), (6, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ij,...jk", [(3, 4), (2, 4, 5)]),
    ("i...,i...->...", [(3, 2, 4), (3, 1, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("ij,ij->ij", [(1, 4), (3, 4)]),
    ("ij,ij->ji", [(3, 1), (3, 4)]),
    ("i,i", [(1,), (6,)]),
    ("ij,jk->ik", [(3, 1), (1, 5)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("ijk,kji->", [(2, 3, 4), (4, 3, 2)]),
    ("abcd,dcba->ad", [(2, 3, 2, 2), (2, 2, 3, 2)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ab,cd,ef->abcdef", [(2, 2), (2, 3), (3, 2)]),
    ("i,j,k", [(2,), (3,), (4,)]),
    ("ij,i,j->", [(3, 4), (3,), (4,)]),
    ("ii,ij->j", [(3, 3), (3, 4)]),
    ("ij,kk->ij", [(2, 3), (4, 4)]),
    ("i,,j->ij", [(2,), (), (3,)]),
    (",->", [(), ()]),
    ("", [()]),
    ("zZ,Zz->zZ", [(2, 3), (3, 2)]),
    ("ij,jk->ik", [(0, 4), (4, 3)]),
    ("ij,jk->ik", [(3, 0), (0, 3)]),
    ("ij,jk", [(2, 3), (3, 0)]),
    ("ii->", [(0, 0)]),
]


@pytest.mark.parametrize("subs,shapes", CASES, ids=[c[0] + str(c[1]) for c in CASES])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32], ids=dtype_id)
def test_einsum_cases(check, subs, shapes, dtype):
    ops = [data(dtype, s, 30 + i) for i, s in enumerate(shapes)]
    check(lambda xp: xp.einsum(subs, *[xp.asarray(o) for o in ops]))
    check(lambda xp: xp.einsum(subs, *[xp.asarray(o) for o in ops], optimize=True))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.int64, np.uint64,
                                   np.float16], ids=dtype_id)
@pytest.mark.parametrize("subs,shapes", [("ij,jk->ik", [(3, 4), (4, 5)]), ("ij->j", [(3, 4)]), ("ii", [(3, 3)]),
                                         ("i,j->ij", [(3,), (4,)]), ("bij,bjk->bk", [(2, 3, 4), (2, 4, 5)]),
                                         ("ij,ij->i", [(3, 40), (3, 40)]), ("bij,bij->b", [(2, 3, 4), (1, 3, 4)])],
                         ids=str)
def test_einsum_dtypes(check, dtype, subs, shapes):
    ops = [data(dtype, s, 40 + i) for i, s in enumerate(shapes)]
    check(lambda xp: xp.einsum(subs, *[xp.asarray(o) for o in ops]), rtol=5e-3 if dtype == np.float16 else None)


def test_einsum_integer_wraparound(check):
    a = np.full((2, 40), 100, np.int8)
    check(lambda xp: xp.einsum("ij,kj->ik", xp.asarray(a), xp.asarray(a)))
    check(lambda xp: xp.einsum("ij->i", xp.asarray(a)))


def test_einsum_mixed_dtypes_promote(check):
    a, b = data(np.int8, (3, 4), 1), data(np.float32, (4, 2), 2)
    check(lambda xp: xp.einsum("ij,jk", xp.asarray(a), xp.asarray(b)))
    c = data(np.bool_, (4,), 3)
    check(lambda xp: xp.einsum("ij,j->i", xp.asarray(a), xp.asarray(c)))


def test_einsum_special_values(check):
    a = np.array([[0.0, -0.0, np.inf], [np.nan, 1.0, -np.inf]])
    b = np.array([[1.0, 2.0], [0.0, -1.0], [1.0, 0.0]])
    check(lambda xp: xp.einsum("ij,jk->ik", xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.einsum("ij->i", xp.asarray(a)))
    check(lambda xp: xp.einsum("ij,ij->ij", xp.asarray(a), xp.asarray(a)))
    neg0 = np.array([-0.0, -0.0])
    r = pyasc.einsum("i,i->i", pyasc.asarray(neg0), pyasc.asarray(np.array([1.0, 1.0])))
    assert np.signbit(np.asarray(r)).all()


@pytest.mark.parametrize("subs", ["ij,jk->ik", "ij,jk->ki", "ji,kj->ik"])
def test_einsum_views(check, subs):
    a, b = randn((4, 5), np.float64, 1), randn((5, 6), np.float64, 2)
    if subs.startswith("ji"):
        a, b = a.T.copy(), b.T.copy()
    for i in range(4):
        for j in range(4):
            check(lambda xp: xp.einsum(subs, views(xp, a)[i], views(xp, b)[j]))


def test_einsum_view_results_and_array_likes(check):
    a = randn((3, 4), np.float64, 5)
    check(lambda xp: xp.einsum("ij->ji", xp.asarray(a)[::-1, ::2]))
    check(lambda xp: xp.einsum("ij,j", a.tolist(), [1.0, 2.0, 3.0, 4.0]))
    r = pyasc.einsum("ij,jk", np.ones((2, 3)), np.ones((3, 2)))
    assert isinstance(r, pyasc.ndarray)


def test_einsum_tails_around_simd_and_blas_sizes(check):
    for n in (1, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 130):
        a, b = randn((n, n + 1), np.float32, n), randn((n + 1, 3), np.float32, n + 1)
        check(lambda xp: xp.einsum("ij,jk->ik", xp.asarray(a), xp.asarray(b)), rtol=1e-4, atol=1e-4)
        check(lambda xp: xp.einsum("ij->", xp.asarray(a)), rtol=1e-4, atol=1e-4)


def test_einsum_large_batched_gemm(check):
    a, b = randn((8, 64, 96), np.float64, 1), randn((8, 96, 48), np.float64, 2)
    check(lambda xp: xp.einsum("bij,bjk->bik", xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.einsum("bij,bjk->kib", xp.asarray(a), xp.asarray(b)))
    check(lambda xp: xp.einsum("bij,bkj->bik", xp.asarray(a), xp.asarray(np.swapaxes(b, 1, 2).copy())))


def test_einsum_interleaved_and_kwargs(check):
    a, b = randn((4, 5), np.float64, 1), randn((5, 3), np.float64, 2)
    check(lambda xp: xp.einsum(xp.asarray(a), [0, 1], xp.asarray(b), [1, 2], [0, 2]))
    check(lambda xp: xp.einsum(xp.asarray(a), [0, 1], xp.asarray(b), [1, 2]))
    check(lambda xp: xp.einsum(xp.asarray(a), [Ellipsis, 1], [1]))
    check(lambda xp: xp.einsum("ij,jk", xp.asarray(a), xp.asarray(b), optimize="greedy"))
    check(lambda xp: xp.einsum("ij,jk", xp.asarray(a), xp.asarray(b), optimize="optimal"))
    check(lambda xp: xp.einsum("ij,jk", xp.asarray(a), xp.asarray(b), optimize=["einsum_path", (0, 1)]))
    check(lambda xp: xp.einsum("ij,jk", xp.asarray(a), xp.asarray(b), dtype=xp.float32), rtol=1e-5)
    check(lambda xp: xp.einsum("ij,jk", xp.asarray(a), xp.asarray(b), dtype=xp.int32))  # unsafe cast: TypeError
    check(lambda xp: xp.einsum("ij,jk", xp.asarray(a), xp.asarray(b), dtype=xp.int32, casting="unsafe"))

    def out(xp):
        o = xp.zeros((4, 3), dtype=xp.float64)
        r = xp.einsum("ij,jk->ik", xp.asarray(a), xp.asarray(b), out=o)
        assert r is o
        return o
    check(out)


@pytest.mark.parametrize("subs,shapes", [
    ("ij,jk->ik", [(3, 4), (5, 6)]),
    ("ij,jk", [(3, 4)]),
    ("ij", [(3, 4), (4,)]),
    ("ij->k", [(3, 4)]),
    ("ij->ii", [(3, 3)]),
    ("ii->i", [(3, 4)]),
    ("ijk->ij", [(3, 4)]),
    ("ij->ij", [(3, 4, 5)]),
    ("...i->i", [(2, 3)]),
    ("i.->i", [(2, 3)]),
    ("i....->i", [(2, 3)]),
    ("i%->i", [(3, 3)]),
    ("i,i", [(3,), (4,)]),
    ("ij,ij->ij", [(2, 4), (3, 4)]),
    ("ij->j->i", [(3, 4)]),
], ids=str)
def test_einsum_errors(check, subs, shapes):
    check(lambda xp: xp.einsum(subs, *[xp.ones(s) for s in shapes]))


def test_einsum_error_messages():
    with pytest.raises(ValueError, match=r"\[einsum\].*'k'"):
        pyasc.einsum("ij->k", pyasc.ones((2, 2)))
    with pytest.raises(ValueError, match=r"\[einsum\].*3.*4"):
        pyasc.einsum("i,i", pyasc.ones(3), pyasc.ones(4))
    with pytest.raises(TypeError, match=r"\[einsum\].*bfloat16"):
        pyasc.einsum("ij,jk", pyasc.ones((2, 2), dtype=ml_dtypes.bfloat16), pyasc.ones((2, 2), dtype=ml_dtypes.bfloat16))
    with pytest.raises(ValueError):
        pyasc.einsum()


def test_einsum_plan_cache_keys_on_ranks(check):
    # The same subscripts with '...' for operands of different ranks must not share a plan.
    for shape in [(3,), (2, 3), (2, 2, 3), (3,)]:
        a = data(np.float64, shape, 1)
        check(lambda xp: xp.einsum("...i->...", xp.asarray(a)))


# ------------------------------------------------------------------ hypothesis

_LABELS = "abcdeAB"


@st.composite
def _einsum_problem(draw):
    n_ops = draw(st.integers(1, 3))
    sizes = {c: draw(st.integers(0 if c == "e" else 1, 4)) for c in _LABELS}
    terms = []
    for _ in range(n_ops):
        terms.append("".join(draw(st.lists(st.sampled_from(_LABELS), min_size=0, max_size=4))))
    used = sorted(set("".join(terms)))
    explicit = draw(st.booleans())
    subs = ",".join(terms)
    if explicit:
        out = draw(st.permutations(used))
        k = draw(st.integers(0, len(out)))
        subs += "->" + "".join(out[:k])
    shapes = []
    for t in terms:
        # Sometimes size 1 for a label of an operand (broadcast against the
        # others), the same for every occurrence in the operand (NumPy accepts
        # a 0-vs-1 diagonal there and returns uninitialised memory).
        ones = {c: draw(st.integers(0, 5)) == 0 for c in set(t)}
        shapes.append(tuple(1 if ones[c] else sizes[c] for c in t))
    dtype = draw(st.sampled_from([np.float64, np.int64, np.float32]))
    return subs, shapes, dtype


@settings(max_examples=300, deadline=None)
@given(_einsum_problem(), st.integers(0, 2**31 - 1))
def test_einsum_hypothesis(problem, seed):
    subs, shapes, dtype = problem
    ops = [data(dtype, s, seed + i) for i, s in enumerate(shapes)]
    try:
        expected = np.einsum(subs, *ops)
    except ValueError:
        with pytest.raises(ValueError):
            pyasc.einsum(subs, *[pyasc.asarray(o) for o in ops])
        return
    got = pyasc.einsum(subs, *[pyasc.asarray(o) for o in ops])
    tol = 1e-4 if dtype == np.float32 else None
    assert_same(np.asarray(expected), got, tol, tol)
