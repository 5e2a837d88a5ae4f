"""The object collectives' encoding (no pickle): round trips, refused objects, refused data.
The collectives themselves run on 2 and 4 ranks in _mpi_collectives.py (t_objects)."""

import math
import struct

import ml_dtypes
import numpy as np
import pytest

import pyasc as asc
from pyasc.distributed._objects import MAGIC, decode, encode


@pytest.mark.parametrize("obj", [
    None, True, False, 0, -2 ** 80, 1.5, -0.0, math.inf, "", "héllo\n", [], [1, [2, "x"]], (), (1, (2,)),
    {"a": 1, "b": [2]}, {1: "x", (2, 3): None, None: 1.0}, {1, 2}, frozenset({"a"}), 1 + 2j, b"", b"\x00\xff",
], ids=repr)
def test_roundtrip_python_values(obj):
    got = decode(encode(obj))
    assert got == obj and type(got) is type(obj)


def test_roundtrip_nan_and_bytearray():
    assert math.isnan(decode(encode(float("nan"))))
    got = decode(encode(bytearray(b"ab")))
    assert got == b"ab" and type(got) is bytes


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.uint64, np.float16, ml_dtypes.bfloat16,
                                   np.float32, np.float64, np.complex64, np.complex128])
def test_roundtrip_arrays(dtype):
    a = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    for x in (a, a[:, ::2], np.zeros((0, 5), dtype), np.array(a[1, 1])):
        got = decode(encode(x))
        assert type(got) is np.ndarray and got.dtype == x.dtype and got.shape == x.shape
        assert np.array_equal(got.astype(np.complex128), x.astype(np.complex128))
        assert got.flags.writeable  # a copy, not a view of the received bytes
    s = a.reshape(-1)[1]
    got = decode(encode(s))
    assert type(got) is type(s) and got == s


def test_roundtrip_pyasc_arrays_and_nesting():
    x = asc.arange(6, dtype="float32").reshape(2, 3)
    obj = {"w": x, "meta": [(1, "a"), {"lr": 0.1}], "steps": np.int64(7)}
    got = decode(encode(obj))
    assert isinstance(got["w"], asc.ndarray) and got["w"].dtype == x.dtype
    np.testing.assert_array_equal(got["w"].numpy(), x.numpy())
    assert got["meta"] == [(1, "a"), {"lr": 0.1}] and got["steps"] == 7 and type(got["steps"]) is np.int64


class _Custom:
    pass


@pytest.mark.parametrize("obj,where", [
    (_Custom(), "obj:"), ({"a": [1, object()]}, "obj['a'][1]:"), (np.array(["s"]), "dtype <U1"),
    (lambda: 1, "function"), (np.array([1], dtype=object), "dtype object"),
])
def test_unsupported_objects_raise_type_error(obj, where):
    with pytest.raises(TypeError, match="cannot be sent") as e:
        encode(obj)
    assert where in str(e.value) and isinstance(e.value, asc.AscendError)


def test_too_deep_raises():
    x = []
    for _ in range(300):
        x = [x]
    with pytest.raises(ValueError, match="nested deeper"):
        encode(x)


def _raw(doc, *bufs):
    parts = [MAGIC, struct.pack("<Q", len(doc)), doc]
    for b in bufs:
        parts += [struct.pack("<Q", len(b)), b]
    return b"".join(parts)


@pytest.mark.parametrize("data,match", [
    (b"", "header"),
    (b"\x80\x04K\x01." + b"\0" * 16, "header"),  # a pickle is refused by its first bytes
    (MAGIC + b"\xff" * 8, "JSON length"),
    (_raw(b'{"ndarray":0,"dtype":"float64","shape":[3]}', b"\0" * 24)[:-1], "beyond the data"),
    (_raw(b"1") + b"\0", "truncated buffer length"),
    (_raw(b'{"ndarray":0,"dtype":"object","shape":[1]}', b"\0" * 8), "dtype 'object'"),
    (_raw(b'{"ndarray":0,"dtype":"float64","shape":[4]}', b"\0" * 24), "24 bytes for a float64 array"),
    (_raw(b'{"ndarray":0,"dtype":"float64","shape":[-1]}', b"\0" * 8), "shape"),
    (_raw(b'{"ndarray":1,"dtype":"float64","shape":[1]}', b"\0" * 8), "buffer index"),
    (_raw(b'{"__reduce__":["os.system","ls"]}'), "unknown node"),
    (_raw(b'{"tuple":[1],"x":2}'), "unknown node"),
    (_raw(b'{"items":[[[1],2]]}'), "unhashable"),
    (_raw(b"{bad json"), "bad JSON"),
])
def test_bad_data_raises_value_error(data, match):
    with pytest.raises(ValueError, match=match) as e:
        decode(data)
    assert "not a valid object encoding" in str(e.value) and isinstance(e.value, asc.AscendError)
