"""Tests of the vector_add example operator (ascend_ops.vector_add)."""
import threading

import numpy as np
import pytest

import pyasc as asc

ascend_ops = pytest.importorskip("ascend_ops", reason="build the example first: make example")


def test_basic():
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    b = np.array([10.0, 20.0, 30.0], dtype=np.float32)
    out = ascend_ops.vector_add(a, b)
    assert out.dtype == np.float32
    assert out.shape == (3,)
    np.testing.assert_array_equal(out, [11.0, 22.0, 33.0])


def test_one_million_within_1e_6():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1 << 20).astype(np.float32)
    b = rng.standard_normal(1 << 20).astype(np.float32)
    out = ascend_ops.vector_add(a, b)
    np.testing.assert_allclose(out, a + b, rtol=0, atol=1e-6)
    # float32 addition is exact to the rounding of NumPy's own result.
    np.testing.assert_array_equal(out, a + b)


def test_empty():
    out = ascend_ops.vector_add(np.zeros(0, np.float32), np.zeros(0, np.float32))
    assert out.shape == (0,) and out.dtype == np.float32


def test_single():
    out = ascend_ops.vector_add(np.array([1.5], np.float32), np.array([-0.25], np.float32))
    np.testing.assert_array_equal(out, [1.25])


@pytest.mark.parametrize("n", [7, 8, 9, 255, 511, 1023, 1025, 4095, 4096, 4097, 16384 * 2 + 3, 100003])
def test_tail_lengths(n):
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.5, dtype=np.float32)
    np.testing.assert_array_equal(ascend_ops.vector_add(a, b), a + b)


def test_special_values():
    a = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, np.inf, 3.4e38], np.float32)
    b = np.array([1.0, -1.0, 1.0, -0.0, -0.0, -np.inf, 3.4e38], np.float32)
    out = ascend_ops.vector_add(a, b)
    with np.errstate(all="ignore"):
        expected = a + b
    np.testing.assert_array_equal(out, expected)
    assert np.signbit(out[4])  # -0 + -0 = -0


def test_non_contiguous_and_other_dtypes():
    base = np.arange(2000, dtype=np.float64)
    a = base[::2]  # strided float64 view
    b = list(range(1000))  # plain list of ints
    out = ascend_ops.vector_add(a, b)
    np.testing.assert_array_equal(out, (a + np.arange(1000)).astype(np.float32))
    rev = np.arange(1025, dtype=np.float32)[::-1]
    np.testing.assert_array_equal(ascend_ops.vector_add(rev, rev), rev + rev)


def test_inputs_are_not_modified():
    a = np.ones(1000, np.float32)
    b = np.ones(1000, np.float32)
    ascend_ops.vector_add(a, b)
    assert (a == 1).all() and (b == 1).all()


def test_wrong_shape_errors():
    with pytest.raises(asc.AscendError) as info:
        ascend_ops.vector_add(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert isinstance(info.value, ValueError)
    assert "[vector_add]" in str(info.value) and "1-D" in str(info.value) and "(2, 3)" in str(info.value)
    with pytest.raises(ValueError, match=r"lengths differ: a has 3 elements, b has 4"):
        ascend_ops.vector_add(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="1-D"):
        ascend_ops.vector_add(np.float32(1.0), np.float32(2.0))


def test_wrong_dtype_errors():
    with pytest.raises(TypeError, match=r"\[vector_add\].*complex"):
        ascend_ops.vector_add(np.ones(3, np.complex64), np.ones(3, np.float32))
    with pytest.raises(asc.AscendError, match="dtype"):
        ascend_ops.vector_add(np.array(["a", "b"]), np.ones(2, np.float32))
    with pytest.raises(TypeError):
        ascend_ops.vector_add(np.array([object(), object()]), np.ones(2, np.float32))


def test_result_memory_comes_from_pool_and_returns_to_it():
    asc.synchronize()
    before = asc.memory_allocated()
    out = ascend_ops.vector_add(np.ones(1 << 16, np.float32), np.ones(1 << 16, np.float32))
    assert asc.memory_allocated() >= before + (1 << 18)
    del out
    assert asc.memory_allocated() == before


def test_four_threads_at_once():
    rng = np.random.default_rng(1)
    inputs = [(rng.standard_normal(300_001).astype(np.float32), rng.standard_normal(300_001).astype(np.float32))
              for _ in range(4)]
    results = [None] * 4
    errors = []
    barrier = threading.Barrier(4)

    def work(i):
        try:
            barrier.wait()
            for _ in range(10):
                results[i] = ascend_ops.vector_add(*inputs[i])
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for (a, b), r in zip(inputs, results):
        np.testing.assert_array_equal(r, a + b)


def test_runs_on_current_stream():
    s = asc.Stream()
    with s:
        out = ascend_ops.vector_add(np.ones(10, np.float32), np.ones(10, np.float32))
    np.testing.assert_array_equal(out, np.full(10, 2, np.float32))
