"""Object collectives without pickle: ``all_gather_object``, ``broadcast_object_list``,
``gather_object``, ``scatter_object_list``, and point to point ``send_object_list`` /
``recv_object_list`` (torch.distributed's names and semantics).

torch builds these on pickle, and unpickling bytes from the network executes code. Here
an object travels in a documented, data-only encoding (``encode``/``decode``):

* the magic ``b"ASCOBJ1\\0"``, a little-endian uint64 length and a JSON document
  describing the object, then for each raw buffer a uint64 length and its bytes;
* JSON carries ``None``, ``bool``, ``int``, ``float`` (NaN and infinities as JSON's
  ``NaN``/``Infinity``), ``str`` and ``list`` as themselves; every other supported
  type is a one-key object: ``{"tuple": [...]}``, ``{"dict": {str: ...}}`` (string
  keys), ``{"items": [[key, value], ...]}`` (dicts with other keys), ``{"set": [...]}``,
  ``{"frozenset": [...]}``, ``{"complex": [re, im]}``, ``{"bytes": i}`` (raw buffer
  i), ``{"ndarray": i, "dtype": name, "shape": [...]}`` (a NumPy array, C order),
  ``{"pyasc": i, "dtype": name, "shape": [...]}`` (a pyasc array), ``{"scalar": i,
  "dtype": name}`` (a NumPy scalar);
* dtype names come from a fixed table (bool, int8..uint64, float16, bfloat16,
  float32, float64, complex64, complex128); a buffer's length must equal its shape
  times the item size. Anything else (unknown keys, types, dtypes, lengths, trailing
  bytes) raises :class:`AscendValueError` naming the problem; nothing is evaluated.

Encoding any other object raises :class:`AscendTypeError` (a ``TypeError``) naming its
type and where it sits in the object (``obj[2]['w']``).
"""

from __future__ import annotations

import json
import math
import struct

import ml_dtypes
import numpy as np

from .. import _C
from ..errors import AscendTypeError, AscendValueError, ErrorCode
from . import _collectives as C
from . import _engine
from ._group import resolve

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
           "send_object_list", "recv_object_list", "encode", "decode"]

MAGIC = b"ASCOBJ1\0"
_DTYPES = {np.dtype(t).name if t is not ml_dtypes.bfloat16 else "bfloat16": np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
    ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128)}
_NAMES = {v: k for k, v in _DTYPES.items()}
_MAX_DEPTH = 200


def _dtype_name(dt, where):
    name = _NAMES.get(np.dtype(dt))
    if name is None:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[object collectives] {where}: dtype {dt} cannot be "
                              "sent (supported: " + ", ".join(_DTYPES) + ")")
    return name


def encode(obj):
    """The bytes of ``obj`` in the safe encoding (see the module docstring); AscendTypeError
    (a TypeError) for an object that is not made of the supported types."""
    bufs = []

    def enc(x, where, depth):
        if depth > _MAX_DEPTH:
            raise AscendValueError(ErrorCode.INVALID_PARAM, f"[object collectives] {where}: nested deeper than "
                                   f"{_MAX_DEPTH} levels")
        t = type(x)
        if x is None or t is bool or t is str:
            return x
        if t is int:
            return x
        if t is float:
            return x
        if t is list:
            return [enc(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(x)]
        if t is tuple:
            return {"tuple": [enc(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(x)]}
        if t is dict:
            if all(type(k) is str for k in x):
                return {"dict": {k: enc(v, f"{where}[{k!r}]", depth + 1) for k, v in x.items()}}
            return {"items": [[enc(k, f"{where} key {k!r}", depth + 1), enc(v, f"{where}[{k!r}]", depth + 1)]
                              for k, v in x.items()]}
        if t is set or t is frozenset:
            return {t.__name__: [enc(v, f"{where} element", depth + 1) for v in x]}
        if t is complex:
            return {"complex": [x.real, x.imag]}
        if t is bytes or t is bytearray:
            bufs.append(bytes(x))
            return {"bytes": len(bufs) - 1}
        if t is np.ndarray or t is _C.ndarray:
            a = x.numpy() if t is _C.ndarray else x
            name = _dtype_name(a.dtype, where)
            bufs.append(np.ascontiguousarray(a).tobytes())
            return {"ndarray" if t is np.ndarray else "pyasc": len(bufs) - 1, "dtype": name, "shape": list(a.shape)}
        if isinstance(x, np.generic):
            name = _dtype_name(x.dtype, where)
            bufs.append(np.asarray(x).tobytes())
            return {"scalar": len(bufs) - 1, "dtype": name}
        raise AscendTypeError(ErrorCode.INVALID_DTYPE,
                              f"[object collectives] {where}: objects of type {t.__module__}.{t.__qualname__} "
                              "cannot be sent (pyasc unpickles nothing it receives; supported: None, bool, int, "
                              "float, complex, str, bytes, list, tuple, dict, set, NumPy and pyasc arrays and "
                              "NumPy scalars)")

    doc = json.dumps(enc(obj, "obj", 0), separators=(",", ":"), allow_nan=True).encode()
    parts = [MAGIC, struct.pack("<Q", len(doc)), doc]
    for b in bufs:
        parts.append(struct.pack("<Q", len(b)))
        parts.append(b)
    return b"".join(parts)


def _bad(msg):
    return AscendValueError(ErrorCode.INVALID_PARAM, f"[object collectives] received data is not a valid "
                            f"object encoding: {msg}")


def decode(data):
    """The object encoded in ``data`` (bytes-like); AscendValueError for anything that is not
    exactly a valid encoding. Builds only the listed data types; nothing is evaluated."""
    mv = memoryview(data).cast("B")
    n = len(mv)
    if n < 16 or bytes(mv[:8]) != MAGIC:
        raise _bad("missing the ASCOBJ1 header")
    (jlen,) = struct.unpack_from("<Q", mv, 8)
    if jlen > n - 16:
        raise _bad(f"JSON length {jlen} beyond the {n} bytes")
    try:
        doc = json.loads(bytes(mv[16:16 + jlen]).decode("utf-8"))
    except (ValueError, RecursionError) as e:
        raise _bad(f"bad JSON ({e})") from None
    bufs = []
    off = 16 + jlen
    while off < n:
        if off + 8 > n:
            raise _bad("truncated buffer length")
        (blen,) = struct.unpack_from("<Q", mv, off)
        off += 8
        if blen > n - off:
            raise _bad(f"buffer {len(bufs)} of {blen} bytes beyond the data")
        bufs.append(mv[off:off + blen])
        off += blen

    def buf(i):
        if type(i) is not int or not 0 <= i < len(bufs):
            raise _bad(f"buffer index {i!r} (there are {len(bufs)})")
        return bufs[i]

    def array(node, key):
        dt = _DTYPES.get(node.get("dtype")) if isinstance(node.get("dtype"), str) else None
        if dt is None:
            raise _bad(f"dtype {node.get('dtype')!r}")
        shape = node.get("shape")
        if not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape) or len(shape) > 64:
            raise _bad(f"shape {shape!r}")
        b = buf(node[key])
        if len(b) != math.prod(shape) * dt.itemsize:
            raise _bad(f"{len(b)} bytes for a {dt.name} array of shape {tuple(shape)}")
        return np.frombuffer(b, dtype=dt).reshape(shape).copy()

    def dec(x, depth):
        if depth > _MAX_DEPTH:
            raise _bad("nested too deeply")
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if isinstance(x, list):
            return [dec(v, depth + 1) for v in x]
        if not isinstance(x, dict) or not x:
            raise _bad(f"node {x!r}")
        keys = set(x)
        if keys == {"tuple"} and isinstance(x["tuple"], list):
            return tuple(dec(v, depth + 1) for v in x["tuple"])
        if keys == {"dict"} and isinstance(x["dict"], dict):
            return {k: dec(v, depth + 1) for k, v in x["dict"].items()}
        if keys == {"items"} and isinstance(x["items"], list):
            out = {}
            for kv in x["items"]:
                if not isinstance(kv, list) or len(kv) != 2:
                    raise _bad(f"dict item {kv!r}")
                k = dec(kv[0], depth + 1)
                try:
                    out[k] = dec(kv[1], depth + 1)
                except TypeError:
                    raise _bad(f"unhashable dict key {k!r}") from None
            return out
        if keys in ({"set"}, {"frozenset"}) and isinstance(next(iter(x.values())), list):
            try:
                s = {dec(v, depth + 1) for v in next(iter(x.values()))}
            except TypeError:
                raise _bad("unhashable set element") from None
            return s if "set" in keys else frozenset(s)
        if keys == {"complex"} and isinstance(x["complex"], list) and len(x["complex"]) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in x["complex"]):
            return complex(*x["complex"])
        if keys == {"bytes"}:
            return bytes(buf(x["bytes"]))
        if keys == {"ndarray", "dtype", "shape"}:
            return array(x, "ndarray")
        if keys == {"pyasc", "dtype", "shape"}:
            import pyasc
            return pyasc.asarray(array(x, "pyasc"))
        if keys == {"scalar", "dtype"}:
            return array({"dtype": x["dtype"], "shape": [], "a": x["scalar"]}, "a")[()]
        raise _bad(f"unknown node with keys {sorted(keys)}")

    return dec(doc, 0)


# ------------------------------------------------------------------ the collectives

def _bytes_array(b):
    return np.frombuffer(b, np.uint8) if b else np.zeros(0, np.uint8)


def _displs(counts):
    d, s = [], 0
    for c in counts:
        d.append(s)
        s += c
    return d, s


def _exchange_sizes(pg, what, name, mine, desc):
    """Every rank's payload size (an Allgather of int64, with the mismatch check)."""
    sizes = np.zeros(pg.size(), np.int64)
    C._run(pg, what, desc, ((name, (np.array([mine], np.int64), sizes)),), None, False)
    return [int(s) for s in sizes]


def all_gather_object(object_list, obj, group=None):
    """Fills ``object_list`` (a list of the group's size) with every rank's ``obj``, in group
    rank order (torch.distributed.all_gather_object, without pickle: see the encoding)."""
    what = "all_gather_object"
    pg = resolve(group, what)
    if not isinstance(object_list, list) or len(object_list) != pg.size():
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] object_list must be a list of {pg.size()} "
                               f"elements (the group size), got {type(object_list).__name__} of "
                               f"{len(object_list) if isinstance(object_list, list) else '?'}")
    data = encode(obj)
    sizes = _exchange_sizes(pg, what, "Allgather", len(data), what)
    displs, total = _displs(sizes)
    recv = np.empty(total, np.uint8)
    MPI = _engine.mpi()
    C._run(pg, what, None, (("Allgatherv", (_bytes_array(data), [recv, (sizes, displs), MPI.BYTE])),), None, False)
    for i in range(pg.size()):
        object_list[i] = decode(recv[displs[i]:displs[i] + sizes[i]])


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """Replaces the elements of ``object_list`` on every rank by those of global rank ``src``
    (the lists have the same length everywhere; torch.distributed.broadcast_object_list,
    without pickle)."""
    what = "broadcast_object_list"
    pg = resolve(group, what)
    root = C._rank_arg(pg, src, what, "src")
    if not isinstance(object_list, list):
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{what}] object_list must be a list, got "
                              f"{type(object_list).__name__}")
    me = pg.rank() == root
    data = encode(list(object_list)) if me else b""
    size = np.array([len(data), len(object_list)], np.int64)
    C._run(pg, what, f"{what} src={src}", (("Bcast", (size, root)),), None, False)
    buf = _bytes_array(data) if me else np.empty(int(size[0]), np.uint8)
    C._run(pg, what, None, (("Bcast", (buf, root)),), None, False)
    if me:
        return
    if int(size[1]) != len(object_list):
        # raised after the data broadcast, which the root has joined: the group stays in step
        raise AscendValueError(ErrorCode.INVALID_SHAPE, f"[{what}] object_list has {len(object_list)} elements "
                               f"here, {int(size[1])} on src rank {src}")
    object_list[:] = decode(buf)


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """Gathers every rank's ``obj`` into ``object_gather_list`` (a list of the group's size)
    on global rank ``dst``; the other ranks pass None (torch.distributed.gather_object,
    without pickle)."""
    what = "gather_object"
    pg = resolve(group, what)
    root = C._rank_arg(pg, dst, what, "dst")
    me = pg.rank() == root
    if me and (not isinstance(object_gather_list, list) or len(object_gather_list) != pg.size()):
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] object_gather_list on dst rank {dst} must be a "
                               f"list of {pg.size()} elements")
    data = encode(obj)
    sizes = np.zeros(pg.size(), np.int64)
    C._run(pg, what, f"{what} dst={dst}",
           (("Gather", (np.array([len(data)], np.int64), sizes if me else None, root)),), None, False)
    MPI = _engine.mpi()
    counts = [int(s) for s in sizes]
    displs, total = _displs(counts)
    recv = np.empty(total, np.uint8) if me else None
    C._run(pg, what, None, (("Gatherv", (_bytes_array(data), [recv, (counts, displs), MPI.BYTE] if me else None,
                                         root)),), None, False)
    if me:
        for i in range(pg.size()):
            object_gather_list[i] = decode(recv[displs[i]:displs[i] + counts[i]])


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=0, group=None):
    """Global rank ``src`` sends ``scatter_object_input_list[i]`` to group rank i, which finds
    it in ``scatter_object_output_list[0]`` (torch.distributed.scatter_object_list, without
    pickle)."""
    what = "scatter_object_list"
    pg = resolve(group, what)
    root = C._rank_arg(pg, src, what, "src")
    me = pg.rank() == root
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] scatter_object_output_list must be a non-empty "
                               "list")
    if me and (not isinstance(scatter_object_input_list, list) or len(scatter_object_input_list) != pg.size()):
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] scatter_object_input_list on src rank {src} must "
                               f"be a list of {pg.size()} elements")
    parts = [encode(o) for o in scatter_object_input_list] if me else []
    counts = [len(p) for p in parts]
    mine = np.zeros(1, np.int64)
    C._run(pg, what, f"{what} src={src}",
           (("Scatter", (np.array(counts, np.int64) if me else None, mine, root)),), None, False)
    MPI = _engine.mpi()
    displs, _ = _displs(counts)
    recv = np.empty(int(mine[0]), np.uint8)
    send = [_bytes_array(b"".join(parts)), (counts, displs), MPI.BYTE] if me else None
    C._run(pg, what, None, (("Scatterv", (send, recv, root)),), None, False)
    scatter_object_output_list[0] = decode(recv)


def _peer(pg, what, rank, group_rank, arg):
    """The global rank named by ``arg`` (a global rank) or ``group_arg`` (a group rank):
    exactly one of them (torch's dst/group_dst, src/group_src)."""
    if group_rank is not None:
        if rank is not None:
            raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] give {arg} or group_{arg}, not both")
        if not isinstance(group_rank, (int, np.integer)) or isinstance(group_rank, bool) \
                or not 0 <= int(group_rank) < pg.size():
            raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] group_{arg}={group_rank!r} is not a group "
                                   f"rank (the group has {pg.size()} ranks)")
        return pg.ranks[int(group_rank)]
    return rank


def _object_list(object_list, what):
    if not isinstance(object_list, list):
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[{what}] object_list must be a list, got "
                              f"{type(object_list).__name__}")


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None):
    """Sends the objects of ``object_list`` to global rank ``dst`` (or group rank
    ``group_dst``), which receives them with :func:`recv_object_list` into a list of the
    same length (torch.distributed.send_object_list, without pickle: the encoding above).
    Two messages: a header (payload bytes, object count), then the payload."""
    what = "send_object_list"
    pg = resolve(group, what)
    _object_list(object_list, what)
    dst = _peer(pg, what, dst, group_dst, "dst")
    if dst is None:
        raise AscendValueError(ErrorCode.INVALID_PARAM, f"[{what}] dst (or group_dst) is required")
    C._rank_arg(pg, dst, what, "dst")
    data = encode(list(object_list))
    C.send(np.array([len(data), len(object_list)], np.int64), dst, group=group)
    C.send(_bytes_array(data), dst, group=group)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Receives the objects a rank sent with :func:`send_object_list` into ``object_list``
    (replacing its elements; its length must be the number of objects sent) from global rank
    ``src`` (or group rank ``group_src``; None: any rank). Returns the sender's global rank.
    A length mismatch or bytes that are not a valid encoding raise after the whole message
    arrived (the channel stays in step)."""
    what = "recv_object_list"
    pg = resolve(group, what)
    _object_list(object_list, what)
    src = _peer(pg, what, src, group_src, "src")
    head = np.zeros(2, np.int64)
    sender = C.recv(head, src, group=group)
    n = int(head[0])
    buf = np.empty(n, np.uint8)
    C.recv(buf, sender, group=group)
    if int(head[1]) != len(object_list):
        raise AscendValueError(ErrorCode.INVALID_SHAPE, f"[{what}] object_list has {len(object_list)} elements "
                               f"here, rank {sender} sent {int(head[1])} objects")
    got = decode(buf)
    if not isinstance(got, list) or len(got) != len(object_list):
        raise AscendValueError(ErrorCode.INVALID_SHAPE, f"[{what}] the payload from rank {sender} is not a list of "
                               f"{len(object_list)} objects")
    object_list[:] = got
    return sender
