"""matmul / @: pyasc vs NumPy for every dtype pair, batching, 1-d rules, views, errors."""

import itertools

import numpy as np
import pytest

import pyasc
from linalg_harness import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, data, dtype_id, randn, views


@pytest.mark.parametrize("d1,d2", list(itertools.product(ALL_DTYPES, ALL_DTYPES)), ids=dtype_id)
def test_dtype_pairs(check, d1, d2):
    a, b = data(d1, (3, 5), 1), data(d2, (5, 4), 2)
    check(lambda xp: xp.matmul(xp.asarray(a), xp.asarray(b)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,)),
                                    ((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)), ((2, 1, 3, 4), (5, 4, 2)),
                                    ((1, 3, 4), (2, 4, 1)), ((2, 3, 4), (2, 4,))],
                         ids=str)
def test_shapes_and_batching(check, dtype, shapes):
    s1, s2 = shapes
    a, b = data(dtype, s1, 3), data(dtype, s2, 4)
    check(lambda xp: xp.asarray(a) @ xp.asarray(b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.bool_, np.float16], ids=dtype_id)
def test_views_non_contiguous(check, dtype):
    a, b = data(dtype, (6, 7), 5), data(dtype, (7, 5), 6)
    for i, j in itertools.product(range(4), range(4)):
        check(lambda xp: xp.matmul(views(xp, a)[i], views(xp, b)[j]))
    # Batched operands with strided batch dims and a broadcast (stride 0) batch.
    c = data(dtype, (4, 6, 7), 7)
    check(lambda xp: xp.asarray(c)[::-2] @ xp.asarray(b))
    check(lambda xp: xp.broadcast_to(xp.asarray(a), (3, 6, 7)) @ xp.asarray(c)[1:2].mT)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 129])
def test_sizes_around_blocks(check, dtype, n):
    a, b = randn((n, n + 1), dtype, n), randn((n + 1, n + 2), dtype, n + 1)
    check(lambda xp: xp.asarray(a) @ xp.asarray(b), rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-4)


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.bool_], ids=dtype_id)
def test_integer_blocks_and_parallel(check, dtype):
    # Shapes past the kernel's j (1024) and k (128) blocks and big enough to run on all cores.
    a, b = data(dtype, (37, 300), 8), data(dtype, (300, 1030), 9)
    check(lambda xp: xp.asarray(a) @ xp.asarray(b))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64], ids=dtype_id)
def test_integer_overflow_wraps(check, dtype):
    info = np.iinfo(dtype)
    a = np.full((2, 3), info.max, dtype)
    a[1, 0] = info.min
    b = np.full((3, 2), 3, dtype)
    check(lambda xp: xp.asarray(a) @ xp.asarray(b))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=dtype_id)
def test_special_values(check, dtype):
    a = np.array([[0.0, -0.0, 1.0], [np.inf, 1.0, 0.0], [np.nan, 0.0, 1.0], [-np.inf, np.inf, 0.0]], dtype)
    b = np.array([[1.0, 0.0], [2.0, -1.0], [0.0, np.inf]], dtype)
    check(lambda xp: xp.asarray(a) @ xp.asarray(b))
    z = np.array([[-0.0]], dtype)
    check(lambda xp: xp.asarray(z) @ xp.asarray(np.array([[0.0]], dtype)))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_half_precision_accumulates_in_float32(check, dtype):
    a = randn((16, 300), dtype, 10)
    b = randn((300, 8), dtype, 11)
    check(lambda xp: xp.asarray(a) @ xp.asarray(b), rtol=3e-2, atol=0.5)


@pytest.mark.parametrize("shapes", [((0, 3), (3, 4)), ((3, 0), (0, 4)), ((2, 0), (0,)), ((0,), (0,)),
                                    ((0, 2, 3), (3, 4)), ((2, 3, 0), (2, 0, 5)), ((3, 4), (4, 0))], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_], ids=dtype_id)
def test_empty(check, shapes, dtype):
    s1, s2 = shapes
    a, b = data(dtype, s1), data(dtype, s2)
    check(lambda xp: xp.matmul(xp.asarray(a), xp.asarray(b)))


def test_large_float32_matches_numpy(check):
    a, b = randn((300, 500), np.float32, 1), randn((500, 400), np.float32, 2)
    check(lambda xp: xp.asarray(a) @ xp.asarray(b), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("shapes", [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (2,)), ((2, 2, 3), (3, 3, 2))],
                         ids=str)
def test_shape_errors(check, shapes):
    s1, s2 = shapes
    check(lambda xp: xp.matmul(xp.ones(s1), xp.ones(s2)))


def test_error_message_and_class():
    with pytest.raises(ValueError, match=r"\[matmul\] shapes \(2, 3\) and \(4, 5\) not aligned: 3 \(dim 1\) != 4 "
                                         r"\(dim 0\)") as info:
        pyasc.ones((2, 3)) @ pyasc.ones((4, 5))
    assert isinstance(info.value, pyasc.AscendError)
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        pyasc.matmul(pyasc.ones((2, 2)), 2.0)
    with pytest.raises(ValueError):
        pyasc.ones((2, 2)) @ 2


def test_operators_both_sides_and_inplace(check):
    a, b = randn((3, 3), np.float64, 1), randn((3, 3), np.float64, 2)

    def f(xp):
        x = xp.asarray(a).copy()
        r1 = x @ xp.asarray(b)
        r2 = x @ b.tolist()
        r3 = b.tolist() @ x
        x @= xp.asarray(b)
        return r1, r2, r3, x
    check(f)
    # NumPy array on the left defers to pyasc (__rmatmul__): the result is a pyasc array.
    r = b @ pyasc.asarray(a)
    assert isinstance(r, pyasc.ndarray)
    np.testing.assert_allclose(np.asarray(r), b @ a)


def test_inplace_shape_and_dtype_errors(check):
    def grow(xp):
        x = xp.ones((2, 3))
        x @= xp.ones((3, 4))
        return x
    check(grow)

    def cast(xp):
        x = xp.ones((2, 2), dtype=xp.int32)
        x @= xp.ones((2, 2))
        return x
    check(cast)


def test_out(check):
    a, b = randn((2, 3, 4), np.float32, 1), randn((4, 5), np.float32, 2)

    def f(xp):
        o = xp.zeros((2, 3, 5), dtype=xp.float64)
        r = xp.matmul(xp.asarray(a), xp.asarray(b), out=o)
        assert r is o
        return o
    check(f, rtol=1e-6)
    check(lambda xp: xp.matmul(xp.asarray(a), xp.asarray(b), out=xp.zeros((3, 5), dtype=xp.float32)))


def test_aliasing_out():
    a = randn((4, 4), np.float64, 3)
    x = pyasc.asarray(a.copy())
    pyasc.matmul(x, x, out=x)
    np.testing.assert_allclose(np.asarray(x), a @ a, rtol=1e-12)


def test_blas_threads_reported():
    from pyasc import _C
    n = _C._linalg.blas_num_threads()
    assert 1 <= n
    assert "OpenBLAS" in _C._linalg.blas_config()


def test_random_broadcast_shapes(check):
    # Seeded stand-in for property-based shapes: batch dims of 0-3 axes, sizes 0-3, 1s broadcast.
    rng = np.random.default_rng(123)
    for _ in range(60):
        nb = rng.integers(0, 4)
        batch = [int(rng.integers(0, 4)) for _ in range(nb)]
        ba = [d if rng.random() < 0.6 else 1 for d in batch][int(rng.integers(0, nb + 1)):]
        bb = [d if rng.random() < 0.6 else 1 for d in batch][int(rng.integers(0, nb + 1)):]
        m, k, n = (int(x) for x in rng.integers(0, 5, 3))
        sa = tuple(ba) + ((m, k) if rng.random() < 0.8 else (k,))
        sb = tuple(bb) + ((k, n) if rng.random() < 0.8 else (k,))
        dtype = [np.float32, np.float64, np.int16, np.bool_][int(rng.integers(0, 4))]
        a, b = data(dtype, sa, 1), data(dtype, sb, 2)
        check(lambda xp: xp.asarray(a) @ xp.asarray(b))


def test_threads_and_no_leak():
    import threading

    a = randn((96, 128), np.float32, 1)
    b = randn((128, 64), np.float32, 2)
    m = randn((6, 6), np.float64, 3) + 6 * np.eye(6)
    ref, ref_inv = a @ b, np.linalg.inv(m)
    xa, xb, xm = pyasc.asarray(a), pyasc.asarray(b), pyasc.asarray(m)
    errors = []

    def work():
        try:
            for _ in range(20):
                np.testing.assert_allclose(np.asarray(xa @ xb), ref, rtol=1e-4, atol=1e-4)
                np.testing.assert_allclose(np.asarray(pyasc.linalg.inv(xm)), ref_inv, rtol=1e-10)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    pyasc.synchronize()
    before = pyasc.memory_allocated()
    for _ in range(50):
        r = xa @ xb
        del r
        pyasc.linalg.svd(xm)
    assert pyasc.memory_allocated() == before


def test_numpy_functions_dispatch_to_pyasc():
    a = randn((4, 4), np.float64, 5) + 4 * np.eye(4)
    x = pyasc.asarray(a)
    for fn in (np.linalg.inv, np.linalg.det, np.linalg.eigvalsh):
        r = fn(x)
        assert isinstance(r, pyasc.ndarray), fn
        np.testing.assert_allclose(np.asarray(r), fn(a), rtol=1e-10)
    r = np.matmul(x, x)
    assert isinstance(r, pyasc.ndarray)
    np.testing.assert_allclose(np.asarray(r), a @ a, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("shapes", [((700,), (700,)), ((3, 700), (700,)), ((700,), (700, 5)), ((1, 700), (700, 1)),
                                    ((4, 1, 700), (700, 6)), ((5, 700), (700, 1)), ((2, 3, 700), (2, 700, 1))],
                         ids=str)
def test_vector_shapes_dot_gemv(check, dtype, shapes):
    # Rows and columns take cblas dot/gemv; every operand layout (plain, reversed, strided, transposed).
    s1, s2 = shapes
    a, b = randn(s1, dtype, 30), randn(s2, dtype, 31)
    for i in range(len(views(np, a))):
        for j in range(len(views(np, b))):
            check(lambda xp: xp.matmul(views(xp, a)[i], views(xp, b)[j]), rtol=1e-4 if dtype == np.float32 else 1e-10,
                  atol=1e-3 if dtype == np.float32 else 1e-10)
