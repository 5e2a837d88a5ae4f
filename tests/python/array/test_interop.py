"""NumPy and array-API interoperability: __array_ufunc__, __array_function__,
DLPack (NumPy; PyTorch when installed), __array_namespace__(_info__), flags,
reuse_buffer."""

import gc
import importlib.util

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

from conftest import ALL_DTYPES, assert_same

IDS = lambda d: np.dtype(d).name  # noqa: E731


# ------------------------------------------------------------------ __array_ufunc__


def test_ufunc_call_returns_pyasc():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = asc.asarray(a)
    for uf, args in [(np.add, (x, 1)), (np.add, (a, x)), (np.multiply, (x, x)), (np.sqrt, (x,)),
                     (np.divide, (x, 2)), (np.absolute, (-x,)), (np.maximum, (x, a[::-1])),
                     (np.less, (x, 3)), (np.isnan, (x,))]:
        r = uf(*args)
        assert isinstance(r, asc.ndarray), uf
        np_args = [np.asarray(v) if isinstance(v, asc.ndarray) else v for v in args]
        assert_same(uf(*np_args), r)
    r = a + x  # NumPy's operator defers to pyasc
    assert isinstance(r, asc.ndarray)
    assert_same(a + a, r)


def test_ufunc_out_and_methods():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    x = asc.asarray(a)
    out = asc.zeros((3, 4))
    r = np.add(x, 1, out=out)
    assert r is out
    assert_same(a + 1, out)
    assert_same(np.add.reduce(a), np.add.reduce(x))
    assert_same(np.add.reduce(a, axis=1, keepdims=True), np.add.reduce(x, axis=1, keepdims=True))
    assert_same(np.maximum.reduce(a, axis=None), np.maximum.reduce(x, axis=None))
    assert_same(np.multiply.accumulate(a, axis=1), np.multiply.accumulate(x, axis=1))
    assert isinstance(np.add.accumulate(x), asc.ndarray)


def test_ufunc_unsupported_raises_type_error():
    x = asc.asarray(np.arange(3.0))
    with pytest.raises(TypeError, match="isnat"):
        np.isnat(asc.asarray(np.arange(3)))  # gcd is supported since _statistics
    with pytest.raises(TypeError, match="add.outer"):
        np.add.outer(x, x)
    # where= is a supported ufunc keyword since pyasc._ufunc (issue 20): masked-off elements keep out's
    o = asc.full(3, 9.0)
    assert np.add(x, 1, out=o, where=np.array([True, False, True])) is o
    np.testing.assert_array_equal(np.asarray(o), [1.0, 9.0, 3.0])


# ------------------------------------------------------------------ __array_function__


def test_array_function_dispatch():
    a = np.arange(6.0).reshape(2, 3)
    x = asc.asarray(a)
    r = np.concatenate([x, x])
    assert isinstance(r, asc.ndarray)
    assert_same(np.concatenate([a, a]), r)
    assert_same(np.concatenate([a, a], axis=1), np.concatenate([x, a], axis=1))
    assert_same(np.sum(a, axis=0), np.sum(x, axis=0))
    assert_same(np.take(a, [0, 4]), np.take(x, [0, 4]))
    assert_same(np.nanmax(a), np.nanmax(x))
    assert_same(np.stack([a, a], axis=1), np.stack([x, x], axis=1))


def test_array_function_unsupported():
    x = asc.asarray(np.arange(4.0))
    with pytest.raises(TypeError, match="datetime_as_string"):  # pyasc._numpy_names.NOT_PROVIDED
        np.datetime_as_string(x)
    with pytest.raises(TypeError, match="numpy.lib.stride_tricks.sliding_window_view"):
        np.lib.stride_tricks.sliding_window_view(x, 2)
    # numpy.fft dispatches to pyasc.fft
    r = np.fft.fft(x)
    assert isinstance(r, asc.ndarray)
    np.testing.assert_allclose(np.asarray(r), np.fft.fft(np.arange(4.0)))


def test_asarray_stays_zero_copy():
    a = np.arange(5.0)
    x = asc.asarray(a)
    v = np.asarray(x)
    assert isinstance(v, np.ndarray)
    v[0] = 42
    assert a[0] == 42 and float(x[0]) == 42


# ------------------------------------------------------------------ DLPack


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if np.dtype(d) != np.dtype(ml_dtypes.bfloat16)], ids=IDS)
def test_dlpack_numpy_roundtrip(dtype):
    a = (np.arange(24) % 7).astype(dtype).reshape(4, 6)
    x = asc.asarray(a)[::-1, 1::2]  # non-contiguous, negative strides
    n = np.from_dlpack(x)
    np.testing.assert_array_equal(n, a[::-1, 1::2])
    assert n.dtype == np.dtype(dtype)
    n[0, 0] = 1
    assert np.asarray(x)[0, 0] == 1  # shared memory
    y = asc.from_dlpack(a)
    assert isinstance(y, asc.ndarray)
    a[1, 1] = 0
    assert np.asarray(y)[1, 1] == 0
    z = asc.from_dlpack(a, copy=True)
    a[2, 2] = 5
    assert np.asarray(z)[2, 2] != 5 or a.dtype == np.bool_


def test_dlpack_bfloat16_and_capsules():
    a = np.arange(6, dtype=np.float32).astype(ml_dtypes.bfloat16)
    x = asc.asarray(a)
    cap = x.__dlpack__()
    assert "dltensor" in repr(cap)
    y = asc.from_dlpack(cap)
    assert y.dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(np.asarray(y), a)
    vcap = x.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(vcap)
    y2 = asc.from_dlpack(vcap)
    np.testing.assert_array_equal(np.asarray(y2), a)
    with pytest.raises(TypeError):
        asc.from_dlpack(vcap)  # already consumed
    assert x.__dlpack_device__() == (1, 0)
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(2, 0))
    del cap  # an unconsumed capsule runs the deleter
    x.__dlpack__(max_version=(1, 0))
    gc.collect()


def test_dlpack_keeps_memory_alive():
    x = asc.asarray(np.arange(1000.0)) * 2
    n = np.from_dlpack(x)
    del x
    gc.collect()
    np.testing.assert_array_equal(n, np.arange(1000.0) * 2)
    y = asc.from_dlpack(np.arange(10, dtype=np.int32) + 1)  # the producer array is a temporary
    gc.collect()
    np.testing.assert_array_equal(np.asarray(y), np.arange(10) + 1)


def test_dlpack_copy_flag():
    x = asc.asarray(np.zeros(3))
    n = np.from_dlpack(x, copy=True)
    n[0] = 1
    assert float(x[0]) == 0


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed")
def test_dlpack_torch_roundtrip():
    import torch

    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    x = asc.from_dlpack(t)
    np.testing.assert_array_equal(np.asarray(x), t.numpy())
    t[0, 0] = -1
    assert float(x[0, 0]) == -1
    back = torch.from_dlpack(x[:, ::2])
    np.testing.assert_array_equal(back.numpy(), t.numpy()[:, ::2])
    bf = torch.ones(3, dtype=torch.bfloat16)
    assert asc.from_dlpack(bf).dtype == np.dtype(ml_dtypes.bfloat16)


# ------------------------------------------------------------------ array API


def test_array_namespace():
    x = asc.zeros(3)
    assert x.__array_namespace__() is asc
    assert x.__array_namespace__(api_version="2024.12") is asc
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="1999.01")
    info = asc.__array_namespace_info__()
    caps = info.capabilities()
    assert caps["boolean indexing"] is True and caps["data-dependent shapes"] is True
    assert info.default_device() == "cpu" and info.devices() == ["cpu"]
    dd = info.default_dtypes()
    assert dd["real floating"] == np.float64 and dd["integral"] == np.int64 and dd["indexing"] == np.int64
    all_dt = info.dtypes()
    # the array API's dtypes only (float16/bfloat16 arrays exist but are not listed, as in NumPy's
    # own inspection namespace; test_array_api.py compares every kind with NumPy's)
    assert set(all_dt) == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                           "float32", "float64", "complex64", "complex128"}
    assert set(info.dtypes(kind="signed integer")) == {"int8", "int16", "int32", "int64"}
    assert set(info.dtypes(kind=("bool", "real floating"))) == {"bool", "float32", "float64"}
    with pytest.raises(ValueError):
        info.dtypes(kind="strange")
    with pytest.raises(ValueError):
        info.default_dtypes(device="npu:3")


# ------------------------------------------------------------------ flags


FLAG_CASES = [
    lambda xp: xp.asarray(np.arange(24.0).reshape(2, 3, 4)),
    lambda xp: xp.zeros((2, 3)),
    lambda xp: xp.zeros((2, 3)).T,
    lambda xp: xp.zeros((2, 3))[:, ::2],
    lambda xp: xp.zeros((2, 3))[::-1],
    lambda xp: xp.zeros((4, 1))[:, 0],
    lambda xp: xp.zeros((1, 5))[:, ::2],
    lambda xp: xp.zeros((0, 3))[:, ::2],
    lambda xp: xp.zeros(()),
    lambda xp: xp.zeros((3, 4))[1:],
    lambda xp: xp.zeros((3, 4)).reshape(4, 3),
]


@pytest.mark.parametrize("k", range(len(FLAG_CASES)))
def test_flags(k):
    n = FLAG_CASES[k](np)
    x = FLAG_CASES[k](asc)
    for name in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "ALIGNED"):
        assert x.flags[name] == n.flags[name], name
    # OWNDATA: a pyasc view covering its whole buffer (k in 5, 7, 10) is indistinguishable
    # from its base (a Tensor is storage + layout, with no "view of" link), and asarray of a
    # NumPy array (k == 0) is a view for pyasc but the array itself for NumPy; every other
    # case must agree.
    if k not in (0, 5, 7, 10):
        assert x.flags["OWNDATA"] == n.flags["OWNDATA"]
    assert x.flags.c_contiguous == n.flags.c_contiguous
    assert x.flags["C"] == n.flags["C"]
    # NumPy's combined flags (np.isfortran reads fnc)
    for name in ("FNC", "FORC", "BEHAVED", "CARRAY", "FARRAY", "B", "CA", "FA"):
        assert x.flags[name] == n.flags[name], name
    for name in ("fnc", "forc", "behaved", "carray", "farray"):
        assert getattr(x.flags, name) == getattr(n.flags, name), name
    assert np.isfortran(x) == np.isfortran(n)
    assert not asc.asarray(np.zeros(3)).flags.owndata


# ------------------------------------------------------------------ reuse_buffer


def test_reuse_buffer_writes_into_buffer():
    a = asc.asarray(np.arange(1000, dtype=np.float32))
    b = asc.asarray(np.ones(1000, np.float32))
    buf = asc.empty((1000,), np.float32)
    with asc.reuse_buffer(buf) as out:
        assert out is buf
        c = a * 2 + b          # both results match: written into buf
        small = a[:10] + 1     # does not match: fresh memory
        s = a.sum()            # 0-d result: fresh
        d = a.astype(np.float64) + 1  # dtype mismatch: fresh
    np.testing.assert_array_equal(np.asarray(buf), np.arange(1000, dtype=np.float32) * 2 + 1)
    np.testing.assert_array_equal(np.asarray(c), np.asarray(buf))
    c[0] = -5
    assert float(buf[0]) == -5  # c shares buf's memory
    np.testing.assert_array_equal(np.asarray(small), np.arange(10) + 1)
    assert float(s) == float(np.arange(1000, dtype=np.float32).sum())
    assert d.dtype == np.float64
    e = a + 1  # outside the block: fresh
    e[0] = 123
    assert float(buf[0]) == -5


def test_reuse_buffer_aliasing_and_errors():
    buf = asc.asarray(np.arange(8, dtype=np.float64))
    with asc.reuse_buffer(buf):
        r = buf[::-1] + 0     # input aliases buf in another layout: fresh result, correct values
        q = buf * 2           # same layout: in place
    np.testing.assert_array_equal(np.asarray(r), np.arange(8.0)[::-1])
    np.testing.assert_array_equal(np.asarray(buf), np.arange(8.0) * 2)
    assert np.shares_memory(np.asarray(q), np.asarray(buf))
    with pytest.raises(ValueError, match="C-contiguous"):
        with asc.reuse_buffer(asc.zeros((4, 4))[:, ::2]):
            pass
    with pytest.raises(TypeError):
        with asc.reuse_buffer(np.zeros(3)):
            pass
    with pytest.raises(RuntimeError):
        with asc.reuse_buffer(buf):
            raise RuntimeError("boom")
    z = asc.asarray(np.ones(8)) + 1  # the stack was popped by the failing block
    assert not np.shares_memory(np.asarray(z), np.asarray(buf))


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32, np.float64])
def test_buffer_protocol_type_char_matches_numpy(dtype):
    # the buffer format must name NumPy's own type (int64 is 'l' on LP64, not 'q'),
    # or NumPy's repr of the zero-copy array shows a spurious dtype=
    ref = np.arange(3, dtype=dtype)
    got = np.asarray(memoryview(asc.asarray(ref)))
    assert got.dtype.char == ref.dtype.char
    assert repr(got) == repr(ref)
