"""Tensor datatypes of the KServe v2 protocol and their NumPy forms; tensor (de)serialisation.

Protocol names (``"FP32"``), config enum names (``TYPE_FP32``) and NumPy dtypes map one to
one; ``BYTES`` tensors are NumPy object arrays of ``bytes``, serialised as Triton does
(each element a little-endian uint32 length, then its bytes). Nothing here evaluates or
unpickles request data: decoding is ``np.frombuffer`` with a known dtype or the
length-prefixed walk below, always bounds-checked.
"""

from __future__ import annotations

import struct

import ml_dtypes
import numpy as np

from .errors import InvalidArgumentError

__all__ = ["DATATYPES", "np_dtype", "datatype_of", "config_to_datatype", "datatype_to_config", "element_size",
           "serialize_bytes", "deserialize_bytes", "from_raw", "to_raw", "from_json_data", "to_json_data"]

_NP = {
    "BOOL": np.dtype(np.bool_), "UINT8": np.dtype(np.uint8), "UINT16": np.dtype(np.uint16),
    "UINT32": np.dtype(np.uint32), "UINT64": np.dtype(np.uint64), "INT8": np.dtype(np.int8),
    "INT16": np.dtype(np.int16), "INT32": np.dtype(np.int32), "INT64": np.dtype(np.int64),
    "FP16": np.dtype(np.float16), "FP32": np.dtype(np.float32), "FP64": np.dtype(np.float64),
    "BF16": np.dtype(ml_dtypes.bfloat16), "BYTES": np.dtype(object),
}
DATATYPES = tuple(_NP)
_BY_NP = {v: k for k, v in _NP.items() if k != "BYTES"}


def np_dtype(datatype):
    """NumPy dtype of a protocol datatype name; InvalidArgumentError for an unknown one."""
    try:
        return _NP[datatype]
    except (KeyError, TypeError):
        raise InvalidArgumentError(f"invalid datatype '{datatype}': expected one of {list(DATATYPES)}") from None


def datatype_of(dtype):
    """Protocol datatype name of a NumPy dtype (object / str / bytes arrays are BYTES)."""
    hit = _BY_NP.get(dtype)  # the common case: already a known np.dtype
    if hit is not None:
        return hit
    dtype = np.dtype(dtype)
    if dtype.kind in "OSU":
        return "BYTES"
    try:
        return _BY_NP[dtype]
    except KeyError:
        raise InvalidArgumentError(f"dtype {dtype} has no KServe v2 datatype") from None


def config_to_datatype(type_name):
    """``TYPE_FP32`` -> ``FP32`` (``TYPE_STRING`` -> ``BYTES``)."""
    name = type_name[5:] if type_name.startswith("TYPE_") else type_name
    return "BYTES" if name == "STRING" else name


def datatype_to_config(datatype):
    """``FP32`` -> ``TYPE_FP32`` (``BYTES`` -> ``TYPE_STRING``)."""
    return "TYPE_STRING" if datatype == "BYTES" else "TYPE_" + datatype


def element_size(datatype):
    """Bytes per element (0 for BYTES, whose elements vary)."""
    return 0 if datatype == "BYTES" else _NP[datatype].itemsize


def _count(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def serialize_bytes(arr):
    """A BYTES tensor (object/str/bytes array) -> Triton's length-prefixed buffer."""
    parts = []
    for item in np.asarray(arr, dtype=object).reshape(-1):
        b = item if isinstance(item, bytes) else str(item).encode("utf-8")
        parts.append(struct.pack("<I", len(b)))
        parts.append(b)
    return b"".join(parts)


def deserialize_bytes(buf, count, name):
    """Triton's length-prefixed buffer -> a flat object array of ``count`` bytes elements."""
    mv = memoryview(buf)
    out = np.empty(count, dtype=object)
    pos = 0
    for i in range(count):
        if pos + 4 > len(mv):
            raise InvalidArgumentError(f"input '{name}': BYTES data ends after {i} of {count} elements")
        (n,) = struct.unpack_from("<I", mv, pos)
        pos += 4
        if pos + n > len(mv):
            raise InvalidArgumentError(f"input '{name}': BYTES element {i} claims {n} bytes, only "
                                       f"{len(mv) - pos} remain")
        out[i] = bytes(mv[pos:pos + n])
        pos += n
    if pos != len(mv):
        raise InvalidArgumentError(f"input '{name}': {len(mv) - pos} unexpected bytes after {count} BYTES elements")
    return out


def from_raw(buf, datatype, shape, name):
    """Raw little-endian bytes -> an array of ``shape`` (a view on ``buf`` where possible)."""
    count = _count(shape)
    if datatype == "BYTES":
        return deserialize_bytes(buf, count, name).reshape(shape)
    dt = np_dtype(datatype)
    want = count * dt.itemsize
    if len(buf) != want:
        raise InvalidArgumentError(f"input '{name}': {len(buf)} bytes of data, expected {want} for "
                                   f"{datatype} shape {list(shape)}")
    le = _LE.get(datatype)
    if le is None:  # the wire is little-endian; a dtype object per datatype, made once
        le = _LE[datatype] = dt.newbyteorder("<")
    a = np.frombuffer(buf, dtype=le)
    return (a if le == dt else a.astype(dt)).reshape(shape)


_LE = {}


def to_raw(arr, datatype):
    """An array -> its raw little-endian bytes (BYTES: length-prefixed)."""
    if datatype == "BYTES":
        return serialize_bytes(arr)
    a = np.ascontiguousarray(arr, dtype=np_dtype(datatype))
    return a.tobytes()


def _flatten(data, name):
    # JSON "data" may be flat or nested (row-major) lists.
    if not isinstance(data, list):
        return [data]
    if not data or not isinstance(data[0], list):
        return data
    out = []
    stack = [iter(data)]
    while stack:
        for item in stack[-1]:
            if isinstance(item, list):
                stack.append(iter(item))
                break
            out.append(item)
        else:
            stack.pop()
    return out


def from_json_data(data, datatype, shape, name):
    """A JSON ``data`` list -> an array of ``shape``; type and count are checked."""
    flat = _flatten(data, name)
    count = _count(shape)
    if len(flat) != count:
        raise InvalidArgumentError(f"input '{name}': {len(flat)} values in 'data', expected {count} for shape "
                                   f"{list(shape)}")
    if datatype == "BYTES":
        out = np.empty(count, dtype=object)
        for i, v in enumerate(flat):
            if not isinstance(v, str):
                raise InvalidArgumentError(f"input '{name}': BYTES data must be strings, element {i} is "
                                           f"{type(v).__name__}")
            out[i] = v.encode("utf-8")
        return out.reshape(shape)
    dt = np_dtype(datatype)
    for i, v in enumerate(flat):
        ok = isinstance(v, bool) if datatype == "BOOL" else (isinstance(v, (int, float)) and not isinstance(v, bool))
        if not ok or (dt.kind in "iub" and isinstance(v, float)):
            raise InvalidArgumentError(f"input '{name}': element {i} ({v!r}) is not a {datatype} value")
    try:
        if dt.kind in "iu":
            info = np.iinfo(dt)
            bad = [v for v in flat if not info.min <= v <= info.max]
            if bad:
                raise InvalidArgumentError(f"input '{name}': value {bad[0]} out of range for {datatype}")
        return np.array(flat, dtype=dt).reshape(shape)
    except (OverflowError, ValueError) as e:
        raise InvalidArgumentError(f"input '{name}': {e}") from None


def to_json_data(arr, datatype):
    """An array -> a flat JSON list (BYTES as UTF-8 strings, invalid bytes replaced)."""
    if datatype == "BYTES":
        return [(v if isinstance(v, bytes) else str(v).encode()).decode("utf-8", "replace")
                for v in np.asarray(arr, dtype=object).reshape(-1)]
    a = np.asarray(arr)
    if datatype in ("FP16", "BF16"):
        a = a.astype(np.float32)
    return a.reshape(-1).tolist()
