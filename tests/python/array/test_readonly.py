"""NumPy's WRITEABLE flag carried through pyasc storage, views, DLPack and the buffer
protocol (issue 20 item 1): writes into read-only memory raise NumPy's ValueError instead
of crashing (mmap) or changing immutable Python objects (bytes)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128]


def _writes(x):
    """Every way of writing into x, with the message NumPy gives for it."""
    one = np.ones((), np.dtype(x.dtype))[()]
    return [
        ("setitem", lambda: x.__setitem__(0, one), "assignment destination is read-only"),
        ("setitem slice", lambda: x.__setitem__(slice(None), one), "assignment destination is read-only"),
        ("setitem mask", lambda: x.__setitem__(asc.asarray(np.ones(x.shape, bool)), one),
         "assignment destination is read-only"),
        ("iadd", lambda: x.__iadd__(one) if x.dtype != np.bool_ else x.__ior__(True), "output array is read-only"),
        ("out=", lambda: asc.multiply(x, one, out=x), "output array is read-only"),
        ("sort", lambda: x.sort(), "sort array is read-only"),
        ("fill", lambda: x.fill(one), "assignment destination is read-only"),
        ("put", lambda: asc.put(x, [0], [one]), "read-only"),
        ("copyto", lambda: asc.copyto(x, one), "read-only"),
        ("real", lambda: setattr(x, "real", 0), "read-only"),
    ]


@pytest.mark.parametrize("dtype", DTYPES)
def test_mmap_read_only_writes_raise(tmp_path, mode, dtype):
    src = (np.arange(40) % 3).astype(dtype)
    path = tmp_path / "a.bin"
    path.write_bytes(src.tobytes())
    m = np.memmap(path, dtype=src.dtype, mode="r", shape=src.shape)  # np.load(mmap_mode='r') for raw data
    x = asc.asarray(m)
    assert x.flags.writeable is False and x.flags["W"] is False
    for name, write, msg in _writes(x):
        if name == "sort" and np.dtype(dtype).kind == "c":
            continue  # complex sort is covered by the float dtypes' message; same check
        with pytest.raises(ValueError, match=msg) as e:
            write()
        assert isinstance(e.value, asc.AscendValueError), name
    assert path.read_bytes() == src.tobytes()               # the file is unchanged
    np.testing.assert_array_equal(np.asarray(x + 0), src + 0 if dtype != np.bool_ else src)  # reads work


def test_np_load_mmap_read_only(tmp_path, mode):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(10.0))
    x = asc.asarray(np.load(path, mmap_mode="r"))
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        x[0] = 1
    with pytest.raises(ValueError, match="output array is read-only"):
        x += 1
    with pytest.raises(ValueError, match="sort array is read-only"):
        x.sort()
    np.testing.assert_array_equal(np.load(path), np.arange(10.0))


def test_bytes_memory_is_not_changed(mode):
    b = bytes(16)
    x = asc.asarray(np.frombuffer(b, np.uint8))
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        x[0] = 65
    with pytest.raises(ValueError, match="output array is read-only"):
        x += 1
    assert b == bytes(16)


def test_numpy_view_buffer_and_dlpack_keep_the_flag(mode):
    ro = np.arange(6.0)
    ro.flags.writeable = False
    x = asc.asarray(ro)
    v = np.asarray(x)                      # buffer protocol
    assert not v.flags.writeable
    with pytest.raises(ValueError):
        v[0] = 1
    assert memoryview(x).readonly
    with pytest.raises(TypeError, match="not writable"):
        PyBUF_writable(ro)                 # NumPy's answer to a writable-buffer request ...
    with pytest.raises(TypeError, match="not writable"):
        PyBUF_writable(x)                  # ... and ours
    assert not x.numpy().flags.writeable   # __array__ / numpy()
    assert not np.asarray(x[1:]).flags.writeable
    d = asc.from_dlpack(ro)                # DLPack import (versioned, read-only flag)
    assert not d.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        d[0] = 1
    back = np.from_dlpack(x)               # DLPack export of a read-only array
    assert not back.flags.writeable
    with pytest.raises(BufferError):
        x.__dlpack__()                     # the legacy struct cannot say read-only (NumPy's rule)
    np.testing.assert_array_equal(ro, np.arange(6.0))


def PyBUF_writable(x):
    """Requests a writable buffer (ctypes' from_buffer asks for PyBUF_WRITABLE)."""
    import ctypes

    return (ctypes.c_char * 8).from_buffer(x)


def test_writable_buffer_of_writable_array():
    x = asc.zeros(4)
    c = PyBUF_writable(x)
    c[0] = b"\x01"
    assert np.asarray(x).view(np.uint8)[0] == 1


def test_broadcast_to_is_read_only(mode):
    x = asc.arange(3.0)
    b = asc.broadcast_to(x, (2, 3))
    assert b.flags.writeable is False and np.broadcast_to(np.arange(3.0), (2, 3)).flags.writeable is False
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        b[0, 0] = 5
    with pytest.raises(ValueError, match="output array is read-only"):
        b *= 2
    assert not np.asarray(b).flags.writeable
    x[0] = 7                               # the base stays writable
    np.testing.assert_array_equal(np.asarray(b), [[7, 1, 2], [7, 1, 2]])


def test_broadcast_arrays_writeable_as_numpy():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        for src in (np.arange(3.0), np.arange(3.0)[::-1]):
            ro = src.copy()
            ro.flags.writeable = False
            for base in (src, ro):
                e = np.broadcast_arrays(base, np.ones((2, 3)))
                g = asc.broadcast_arrays(asc.asarray(base), asc.ones((2, 3)))
                assert [x.flags.writeable for x in g] == [x.flags.writeable for x in e]
                e = np.meshgrid(base, np.arange(2.0), copy=False)
                g = asc.meshgrid(asc.asarray(base), asc.arange(2.0), copy=False)
                assert [x.flags.writeable for x in g] == [x.flags.writeable for x in e]


def test_imag_of_real_is_read_only():
    x = asc.arange(3.0)
    assert x.imag.flags.writeable is False and np.arange(3.0).imag.flags.writeable is False
    with pytest.raises(ValueError):
        x.imag[0] = 1


def test_flags_writeable_settable_as_numpy(mode):
    x = asc.arange(5.0) + 0
    x.flags.writeable = False
    assert x.flags.writeable is False
    v = x[1:3]
    assert v.flags.writeable is False and x.reshape(5, 1).flags.writeable is False
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        v[0] = 1
    with pytest.raises(ValueError, match="output array is read-only"):
        asc.add(x, 1, out=x)
    x.flags.writeable = True               # pyasc's own memory: may be set again
    x[0] = 9
    assert float(x[0]) == 9.0
    x.setflags(write=False)
    assert not x.flags["WRITEABLE"]
    x.setflags(write=True)
    m = asc.asarray(np.frombuffer(bytes(8), np.uint8))
    with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True of this array"):
        m.flags.writeable = True
    with pytest.raises(ValueError):
        x.flags.c_contiguous = False
    y = x.copy()
    m2 = m.copy()
    assert y.flags.writeable and m2.flags.writeable  # copies are writable
    m2[0] = 1
    assert int(m2[0]) == 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_as_numpy(mode, dtype):
    n = np.zeros((3, 5), dtype)
    x = asc.array(n)
    n.fill(3)
    x.fill(3)
    np.testing.assert_array_equal(np.asarray(x), n)
    v = x[:, ::-2]
    n[:, ::-2].fill(1)
    v.fill(1)
    np.testing.assert_array_equal(np.asarray(x), n)


def test_read_only_values_feed_ops(mode):
    ro = np.linspace(-1, 1, 257).astype(np.float32)
    ro.flags.writeable = False
    x = asc.asarray(ro)
    np.testing.assert_array_equal(np.asarray(asc.maximum(x, 0) * 2), np.maximum(ro, 0) * 2)
    np.testing.assert_allclose(float(asc.sum(x)), float(np.sum(ro)), rtol=1e-5, atol=1e-6)
    s = asc.sort(x)                        # the function form returns a new, writable array
    assert s.flags.writeable
    np.testing.assert_array_equal(np.asarray(s), np.sort(ro))
