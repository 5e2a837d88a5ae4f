"""Zero-copy initializer extraction from a serialized ONNX model.

Parsing a model with protobuf copies every weight into the parsed message, and protobuf's
arena keeps those bytes until the whole message goes: a load that also copies the weights to
device memory held them three times at its peak (the caller's bytes, the message, the device
copy; onnxruntime does the same). This module reads the protobuf wire format directly: it finds
each initializer's ``raw_data`` as a slice of the caller's bytes (a view, nothing copied) and
returns the model's bytes with those initializers left out, which protobuf then parses into a
message without weights. A load then holds the weights twice at most (the caller's bytes and the
device copy).

Only what the wire format says is read: lengths are checked against the buffer, nothing is
executed. Initializers in any other form (typed ``float_data`` etc., external data, segments,
types whose raw bytes are not their NumPy dtype's) are left in the model for the ordinary
protobuf path. Anything unexpected (a malformed buffer, a duplicate name, several graph fields)
returns None and the caller parses the ordinary way, where protobuf names the defect.
"""

from __future__ import annotations

import numpy as np

# ONNX element types whose raw_data is exactly the little-endian NumPy array (numpy_helper.to_array
# reads them with np.frombuffer too); bfloat16/float8/int4/strings take the ordinary path.
_RAW_DTYPES = {
    1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
    9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64,
}
_MODEL_GRAPH, _GRAPH_INITIALIZER = 7, 5
# TensorProto fields
_DIMS, _DATA_TYPE, _SEGMENT, _NAME, _RAW_DATA, _EXTERNAL, _LOCATION = 1, 2, 3, 8, 9, 13, 14
_TYPED_DATA = {4, 5, 6, 7, 10, 11}  # float_data, int32_data, string_data, int64_data, double_data, uint64_data


class _Malformed(Exception):
    pass


def _varint(buf, pos, end):
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _Malformed
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(buf, start, end):
    """Yields (field number, wire type, a, b, entry start, entry end) for each field of the message
    in buf[start:end]: buf[a:b] is the value's bytes, or for a varint a is the value and b is -1."""
    pos = start
    while pos < end:
        entry = pos
        key, pos = _varint(buf, pos, end)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise _Malformed
        if wt == 0:
            v, pos = _varint(buf, pos, end)
            yield num, wt, v, -1, entry, pos
        elif wt == 1:
            if pos + 8 > end:
                raise _Malformed
            yield num, wt, pos, pos + 8, entry, pos + 8
            pos += 8
        elif wt == 2:
            n, pos = _varint(buf, pos, end)
            if pos + n > end:
                raise _Malformed
            yield num, wt, pos, pos + n, entry, pos + n
            pos += n
        elif wt == 5:
            if pos + 4 > end:
                raise _Malformed
            yield num, wt, pos, pos + 4, entry, pos + 4
            pos += 4
        else:  # groups (3/4) are not in ONNX's schema
            raise _Malformed


def _encode_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _tensor(buf, start, end):
    """(name, ONNX type, dims, raw start, raw end) of a TensorProto whose data is raw_data only, or
    None when it takes the ordinary path."""
    name = None
    dtype = 1  # proto3 default (FLOAT) when the field is absent
    dims, raw = [], None
    for num, wt, a, b, _, _ in _fields(buf, start, end):
        if num == _DIMS:
            if wt == 0:
                dims.append(a)
            elif wt == 2:  # packed
                p = a
                while p < b:
                    v, p = _varint(buf, p, b)
                    dims.append(v)
            else:
                return None
        elif num == _DATA_TYPE and wt == 0:
            dtype = a
        elif num == _NAME and wt == 2:
            name = bytes(buf[a:b]).decode("utf-8", "strict")
        elif num == _RAW_DATA and wt == 2:
            raw = (a, b)
        elif num in (_SEGMENT, _EXTERNAL) or num in _TYPED_DATA:
            return None
        elif num == _LOCATION and wt == 0 and a != 0:
            return None
    if name is None or raw is None or dtype not in _RAW_DTYPES:
        return None
    dims = [d - (1 << 64) if d >= 1 << 63 else d for d in dims]  # int64 two's complement
    if any(d < 0 for d in dims):
        return None
    count = 1
    for d in dims:
        count *= d
    if count * np.dtype(_RAW_DTYPES[dtype]).itemsize != raw[1] - raw[0]:
        return None  # the checker's business (and the ordinary path's error)
    return name, dtype, dims, raw[0], raw[1]


def split(data):
    """``(slim, weights, order)`` for serialized model bytes, or None (parse the ordinary way).

    ``slim``: the model's bytes without the extracted initializers; ``weights``: {name: NumPy
    array viewing ``data`` (read-only, unaligned possibly; copy it)} in file order; ``order``:
    every initializer's name in file order (extracted or not)."""
    try:
        return _split(memoryview(data).cast("B"))
    except (_Malformed, UnicodeDecodeError, ValueError, TypeError):
        return None


def _split(buf):
    end = len(buf)
    graph = None
    for num, wt, a, b, entry, after in _fields(buf, 0, end):
        if num == _MODEL_GRAPH:
            if wt != 2 or graph is not None:
                return None  # several graph entries merge in protobuf: not worth redoing here
            graph = (a, b, entry, after)
    if graph is None:
        return None
    ga, gb, gentry, gafter = graph
    weights, order, keep = {}, [], []
    prev = ga
    for num, wt, a, b, entry, after in _fields(buf, ga, gb):
        if num != _GRAPH_INITIALIZER or wt != 2:
            continue
        t = _tensor(buf, a, b)
        if t is None:
            # left in the graph: its name is read after parsing (ordinary path)
            order.append(None)
            continue
        name, dtype, dims, ra, rb = t
        if name in weights:
            return None
        weights[name] = np.frombuffer(buf[ra:rb], dtype=_RAW_DTYPES[dtype]).reshape(dims)
        order.append(name)
        keep.append((prev, entry))
        prev = after
    if not weights:
        return None
    keep.append((prev, gb))
    graph_body = b"".join(bytes(buf[x:y]) for x, y in keep)
    slim = b"".join((bytes(buf[:gentry]), _encode_varint((_MODEL_GRAPH << 3) | 2),
                     _encode_varint(len(graph_body)), graph_body, bytes(buf[gafter:])))
    return slim, weights, order
