"""pyasc arrays and host (NumPy) memory: lazy nodes never read NumPy memory later than their
recording call (issue 20 item 6), asc.array's value semantics and its deferred copy of
immutable memory, asc.utils.numpy, pin_memory/is_pinned, asc.relu (issue 12 item 5).

Every scenario runs in lazy (default) and eager mode and compares with NumPy."""

from __future__ import annotations

import gc

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

REAL_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
               np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def same(got, expected):
    """Equal dtype, shape and values (NaN where NaN, the sign of zeros too)."""
    g = np.asarray(got)
    e = np.asarray(expected)
    assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, e.dtype, g.shape, e.shape)
    if g.dtype.kind == "c":
        np.testing.assert_array_equal(g, e)
    elif g.dtype.kind == "f" or g.dtype == np.dtype(ml_dtypes.bfloat16):
        gf, ef = g.astype(np.float64), e.astype(np.float64)
        np.testing.assert_array_equal(gf, ef)
        np.testing.assert_array_equal(np.signbit(gf), np.signbit(ef))
    else:
        np.testing.assert_array_equal(g, e)


# ------------------------------------------------------------------ issue 20 item 6


@pytest.mark.parametrize("n_elems", [5, 63, 64, 65, 4097, 70000])
def test_asarray_source_written_after_op(mode, n_elems):
    n = np.arange(n_elems, dtype=np.float64)
    x = asc.asarray(n)
    y = x * 2
    expected = n * 2
    n[:] = 100
    same(y, expected)
    same(x, n)  # x shares n's memory (NumPy semantics of asarray)


def test_asarray_source_written_reduction_and_argmax(mode):
    n = np.linspace(0.5, 2, 5000).astype(np.float32)
    n[1234] = 3
    x = asc.asarray(n)
    s = asc.sum(x)
    m = asc.argmax(x)
    r = asc.sum(x.reshape(50, 100), axis=1)
    es, em, er = np.sum(n), np.argmax(n), np.sum(n.reshape(50, 100), axis=1)
    n[:] = -5
    np.testing.assert_allclose(float(s), es, rtol=1e-5)
    assert int(m) == em
    np.testing.assert_allclose(np.asarray(r), er, rtol=1e-5)


def test_source_written_with_pending_operand(mode):
    # a node reading a NumPy-backed array and a pending value: the NumPy operand is
    # snapshotted at the call, the node still fuses with the pending one
    n = np.arange(1000, dtype=np.float32)
    p = asc.arange(1000).astype(np.float32) * 3
    y = p + asc.asarray(n)
    z = asc.where(p > 10, asc.asarray(n[::-1]), p)
    ey = np.arange(1000, dtype=np.float32) * 3 + n
    ez = np.where(ey - n > 10, n[::-1], ey - n)
    n[:] = 7
    same(y, ey)
    same(z, ez)


def test_source_written_views_casts_and_strides(mode):
    n = np.arange(24, dtype=np.int32).reshape(4, 6)
    x = asc.asarray(n)
    a = x[:, ::-2] + 1            # view of NumPy memory, negative strides
    b = x.T * 0.5                 # int -> float cast of NumPy memory
    c = asc.asarray(n[1:3]) - 1   # NumPy view
    ea, eb, ec = n[:, ::-2] + 1, n.T * 0.5, n[1:3] - 1
    n[...] = -1
    same(a, ea)
    same(b, eb)
    same(c, ec)


def test_source_written_after_inplace_into_pending(mode):
    n = np.ones(100, np.float64)
    acc = asc.zeros(100) + 1
    acc += asc.asarray(n)        # in-place update of a pending value reading NumPy memory
    n[:] = 50
    same(acc, np.full(100, 2.0))


def test_frombuffer_bytearray_and_memoryview(mode):
    buf = bytearray(np.arange(8, dtype=np.int16).tobytes())
    x = asc.asarray(np.frombuffer(buf, np.int16))
    y = x * 3
    buf[0:2] = (1000).to_bytes(2, "little", signed=True)
    same(y, np.arange(8, dtype=np.int16) * 3)


def test_from_dlpack_source_written(mode):
    n = np.arange(10, dtype=np.float32)
    x = asc.from_dlpack(n)
    y = x + 1
    n[:] = 0
    same(y, np.arange(10, dtype=np.float32) + 1)


def test_numpy_view_of_pyasc_array_written_while_pending(mode):
    x = asc.arange(6).astype(np.float64) * 1      # pyasc memory
    x.eval()
    v = np.asarray(x)                              # NumPy view (buffer protocol)
    y = x + 10
    v[:] = -1                                      # write through the view while y is pending
    same(y, np.arange(6.0) + 10)
    same(x, np.full(6, -1.0))
    w = x.numpy()                                  # __array__/numpy() path
    z = x * 2
    w[0] = 5
    same(z, np.full(6, -2.0))
    m = memoryview(x)
    q = x - 1
    np.asarray(m)[1] = 9
    same(q, np.array([4.0, -2, -2, -2, -2, -2]))


def test_dlpack_export_written_while_pending(mode):
    x = asc.arange(4).astype(np.float32) + 0
    v = np.from_dlpack(x)
    y = x * 4
    v[:] = 1
    same(y, np.arange(4, dtype=np.float32) * 4)


def test_export_ends_with_the_view():
    # while a NumPy view of pyasc memory lives, nodes reading it run at the call; once the
    # view is gone they are recorded (and fuse) again
    prev = asc.is_eager()
    asc.set_eager(False)
    try:
        x = asc.arange(1000).astype(np.float32) + 1
        asc.eval(x)
        v = np.asarray(x)
        base = asc.lazy.pending_nodes()
        y = x * 2
        assert asc.lazy.pending_nodes() == base
        del v
        gc.collect()
        z = x * 3
        assert asc.lazy.pending_nodes() == base + 1
        same(y, (np.arange(1000, dtype=np.float32) + 1) * 2)
        same(z, (np.arange(1000, dtype=np.float32) + 1) * 3)
        repr(x), x.tolist(), float(x[3])           # transient views leave no export behind
        base = asc.lazy.pending_nodes()
        w = x - 1
        assert asc.lazy.pending_nodes() == base + 1
        same(w, np.arange(1000, dtype=np.float32))
    finally:
        asc.set_eager(prev)


def test_private_conversion_stays_lazy():
    prev = asc.is_eager()
    asc.set_eager(False)
    try:
        base = asc.lazy.pending_nodes()
        y = asc.asarray([1.0, -2.0, 3.0]) * 2          # the list's NumPy temporary is pyasc's own
        assert asc.lazy.pending_nodes() == base + 1
        same(y, np.array([2.0, -4.0, 6.0]))
        base = asc.lazy.pending_nodes()
        z = asc.asarray(np.arange(3.0)) * 2             # a caller's NumPy array: runs now
        assert asc.lazy.pending_nodes() == base
        same(z, np.arange(3.0) * 2)
    finally:
        asc.set_eager(prev)


# ------------------------------------------------------------------ asc.array


@pytest.mark.parametrize("dtype", REAL_DTYPES + [np.bool_, np.complex64])
def test_array_copies_writable_source_at_the_call(mode, dtype):
    n = (np.arange(37) % 5).astype(dtype)
    x = asc.array(n)
    y = x + x
    expected, ex = n + n, n.copy()
    n[...] = 1
    same(x, ex)
    same(y, expected)


def test_array_of_read_only_view_of_writable_base(mode):
    base = np.arange(10.0)
    ro = base[2:8]
    ro.flags.writeable = False
    x = asc.array(ro)
    base[:] = -3
    same(x, np.arange(2.0, 8.0))
    ro2 = np.arange(5.0)
    ro2.flags.writeable = False       # owns its memory: may be made writeable again
    x2 = asc.array(ro2)
    ro2.flags.writeable = True
    ro2[:] = 9
    same(x2, np.arange(5.0))


def test_array_of_bytes_defers_the_copy(mode):
    b = np.arange(1000, dtype=np.float32).tobytes()
    n = np.frombuffer(b, np.float32)
    base = asc.lazy.pending_nodes()
    x = asc.array(n)
    if mode == "lazy":
        assert asc.lazy.pending_nodes() == base + 1  # a pending copy node
    y = x * 2
    same(y, np.arange(1000, dtype=np.float32) * 2)
    same(x, np.arange(1000, dtype=np.float32))
    x[0] = 5                                    # the copy is pyasc's own, writable
    same(x[:2], np.array([5, 1], np.float32))
    assert np.frombuffer(b, np.float32)[0] == 0
    y2 = asc.array(np.frombuffer(b, np.float32)[::-3]) + 0
    same(y2, np.arange(1000, dtype=np.float32)[::-3])


# ------------------------------------------------------------------ asc.utils.numpy


@pytest.mark.parametrize("dtype", REAL_DTYPES + [np.bool_, np.complex128])
def test_utils_numpy_is_a_copy(mode, dtype):
    src = (np.arange(24) % 7).astype(dtype).reshape(4, 6)
    x = asc.asarray(src.copy())
    pending = x + x
    h = asc.utils.numpy(pending)
    assert isinstance(h, np.ndarray) and h.flags.writeable and h.flags.c_contiguous
    same(h, src + src)
    view = x[:, ::-2]
    hv = asc.utils.numpy(view)
    same(hv, src[:, ::-2])
    hv[...] = 0
    same(x, src)                    # writing the copy leaves x
    x[...] = 1
    same(hv, np.zeros_like(src[:, ::-2]))  # writing x leaves the copy
    assert not np.shares_memory(asc.utils.numpy(x), np.asarray(x))


def test_utils_numpy_of_array_likes():
    same(asc.utils.numpy([1, 2, 3]), np.array([1, 2, 3]))
    same(asc.utils.numpy(2.5), np.array(2.5))
    n = np.arange(3.0)
    h = asc.utils.numpy(n)
    assert not np.shares_memory(h, n)
    same(asc.utils.numpy(asc.zeros((0, 3))), np.zeros((0, 3)))


# ------------------------------------------------------------------ pin_memory


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint64, np.float16, ml_dtypes.bfloat16, np.float64,
                                   np.complex64])
def test_pin_memory(mode, dtype):
    src = (np.arange(30) % 4).astype(dtype).reshape(5, 6)
    x = asc.array(src)
    assert not x.is_pinned()
    before = asc.host_memory_stats()
    p = x.T.pin_memory()
    after = asc.host_memory_stats()
    assert p.is_pinned() and isinstance(p, asc.AscendTensor)
    assert after["allocated_bytes"] >= before["allocated_bytes"] + p.nbytes
    assert after["allocation_count"] == before["allocation_count"] + 1
    same(p, np.asarray(x).T)
    assert p.flags.c_contiguous
    assert p.pin_memory() is p
    v = p[1:]
    assert v.is_pinned()            # views share the pinned storage
    same(asc.equal(p, x.T), np.ones((6, 5), bool))  # pinned arrays are ordinary operands
    del p, v
    gc.collect()
    asc.eval()
    assert asc.host_memory_stats()["allocated_bytes"] == before["allocated_bytes"]


def test_pin_memory_empty_and_0d():
    p = asc.zeros((0, 4)).pin_memory()
    assert p.is_pinned() and p.shape == (0, 4)
    q = asc.asarray(3.5).pin_memory()
    assert q.is_pinned() and float(q) == 3.5
    assert "allocated_bytes" in asc.memory.host_memory_stats()


# ------------------------------------------------------------------ relu


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("n_elems", [0, 1, 15, 16, 17, 257, 4097])
def test_relu_matches_maximum_zero(mode, dtype, n_elems):
    rng = np.random.default_rng(n_elems)
    v = rng.integers(-50, 50, n_elems).astype(np.float64) / 4
    if np.dtype(dtype).kind in "iu":
        v = np.round(v * 4)
    n = v.astype(dtype)
    if np.dtype(dtype).kind == "f" and n_elems > 8:
        n[:6] = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, -1.5]).astype(dtype)
    zero = np.zeros((), dtype)
    same(asc.relu(asc.array(n)), np.maximum(n, zero))
    same(asc.relu(asc.array(n)[::-1]), np.maximum(n[::-1], zero))  # NumPy's strided loop


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
def test_maximum_strided_negative_zero(mode, dtype):
    # NumPy keeps the first operand on a ±0 tie for float16, the second otherwise
    # (the full matrix of paths: tests/python/array/test_signed_zero_extremum.py).
    n = np.array([-0.0, 1, -0.0, 2, 0.0] * 5, dtype)
    for z in (0, dtype(0.0), dtype(-0.0)):
        got = np.asarray(asc.maximum(asc.array(n)[::-1], z))
        want = np.maximum(n[::-1], z)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(got, want)


def test_relu_keeps_dtype_and_propagates_nan(mode):
    x = asc.asarray(np.array([np.nan, -np.inf, -0.0, 2.0], np.float32))
    r = asc.relu(x)
    assert r.dtype == np.float32
    same(r, np.array([np.nan, 0.0, 0.0, 2.0], np.float32))
    same(asc.relu(np.array(-3, np.int8)), np.array(0, np.int8))
    same(asc.relu([1, -1]), np.array([1, 0]))


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64, np.complex128])
def test_relu_rejects_bool_and_complex(mode, dtype):
    with pytest.raises(TypeError, match=r"\[relu\]") as e:
        asc.relu(asc.asarray(np.zeros(3, dtype)))
    assert isinstance(e.value, asc.AscendError)


def test_relu_out(mode):
    out = asc.empty(4, np.float32)
    r = asc.relu(asc.asarray(np.array([-1, 2, -3, 4], np.float32)), out=out)
    assert r is out
    same(out, np.array([0, 2, 0, 4], np.float32))


def test_relu_fuses_as_matmul_epilogue():
    prev = asc.is_eager()
    asc.set_eager(False)
    try:
        rng = np.random.default_rng(0)
        a = asc.array(rng.standard_normal((64, 32)).astype(np.float32))
        b = asc.array(rng.standard_normal((32, 48)).astype(np.float32))
        bias = asc.array(rng.standard_normal(48).astype(np.float32))
        asc.eval(a, b, bias)
        before = asc.lazy.graph_stats()
        r = asc.relu(asc.matmul(a, b) + bias)
        asc.eval(r)
        after = asc.lazy.graph_stats()
        assert after["groups_run"] - before["groups_run"] == 1      # add + maximum: one pass
        assert after["nodes_run"] - before["nodes_run"] == 2
        ref = np.maximum(np.asarray(a) @ np.asarray(b) + np.asarray(bias), 0)
        np.testing.assert_allclose(np.asarray(r), ref, rtol=1e-5, atol=1e-5)
    finally:
        asc.set_eager(prev)
