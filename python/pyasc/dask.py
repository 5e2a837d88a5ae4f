"""pyasc arrays as Dask chunks (``import pyasc.dask`` registers them).

::

    import dask.array as da
    import numpy as np
    import pyasc as asc
    import pyasc.dask                                   # the registrations below

    x = pyasc.dask.from_array(np.random.rand(4096, 4096), chunks=1024)   # pyasc chunks
    x = da.from_array(asc.asarray(a), chunks=1024)      # the same from a pyasc array
    y = (x * 2 + 1).sum(axis=0)                         # chunks are pyasc arrays
    z = x.map_blocks(asc.sin, meta=asc.empty((0, 0)))
    y.compute()                                         # a pyasc array

    from dask.distributed import LocalCluster, Client
    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    pyasc.dask.register_workers(client)                 # workers import pyasc.dask

Registered for :class:`pyasc.ndarray` (Dask's dispatchers, the way Dask
registers CuPy): ``register_chunk_type`` (Dask arrays defer to pyasc chunks in
mixed operations), ``concatenate_lookup``, ``tensordot_lookup``,
``einsum_lookup``, ``empty_lookup``, ``take_lookup``, ``divide_lookup``,
``percentile_lookup``, ``numel_lookup``, ``nannumel_lookup``,
``to_numpy_dispatch``, ``dask.sizeof`` and ``normalize_token`` (tokenize: the
dtype, shape and a hash of the bytes, so equal arrays get equal keys).

``from_array(x, chunks)`` here gives pyasc chunks from any source (Dask's own
``from_array`` keeps a pyasc source's chunks as pyasc views, but its
``asarray=`` is only a NumPy on/off switch).

Serialisation for the distributed scheduler (``distributed.protocol``'s
``dask_serialize``/``dask_deserialize``): a header of dtype *name* (looked up
in a fixed table, never evaluated) and shape, and one frame with the raw bytes
(zero-copy for contiguous arrays). Deserialising copies the bytes into pyasc
memory after checking their length. Nothing is unpickled beyond what Dask
itself unpickles (its task graphs; for those, pyasc arrays get a ``copyreg`` reducer that
rebuilds them through the same checked :func:`deserialize`).
"""

from __future__ import annotations

import copyreg
import math

import ml_dtypes
import numpy as np
from dask.array.chunk_types import is_valid_chunk_type, register_chunk_type
from dask.array.dispatch import (
    concatenate_lookup,
    divide_lookup,
    einsum_lookup,
    empty_lookup,
    nannumel_lookup,
    numel_lookup,
    percentile_lookup,
    take_lookup,
    tensordot_lookup,
    to_numpy_dispatch,
)
from dask.sizeof import sizeof
from dask.tokenize import normalize_token

from . import _C
from .errors import AscendTypeError, AscendValueError, ErrorCode

__all__ = ["from_array", "serialize", "deserialize", "register_workers", "is_valid_array_meta"]

_ndarray = _C.ndarray

# dtype names accepted in a header (the only types pyasc arrays hold).
_DTYPES = {np.dtype(t).name: np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, ml_dtypes.bfloat16)}


def _asc():
    import pyasc
    return pyasc


def _host(x):
    return x.numpy()  # zero-copy; finishes pending lazy work first


# ------------------------------------------------------------------ dispatchers

def _concatenate(arrays, axis=0):
    return _asc().concatenate([a if isinstance(a, _ndarray) else _asc().asarray(a) for a in arrays], axis=axis)


def _tensordot(a, b, axes=2):
    return _asc().tensordot(a, b, axes=axes)


def _einsum(*args, **kwargs):
    return _asc().einsum(*args, **kwargs)


def _empty(shape, dtype=None, **kwargs):
    return _asc().empty(shape, dtype=float if dtype is None else dtype)


def _take(a, indices, axis=None, **kwargs):
    return _asc().take(a, indices, axis=axis)


def _divide(x1, x2, out=None, dtype=None):
    r = _asc().divide(x1, x2) if out is None else _asc().divide(x1, x2, out=out)
    if dtype is not None and np.dtype(dtype) != np.dtype(r.dtype):
        r = r.astype(dtype)
    return r


def _percentile(a, q, method="linear"):
    # Dask merges the per-chunk percentiles on the host: NumPy's answer on the chunk's bytes.
    from dask.array.percentile import _percentile as np_percentile
    return np_percentile(np.asarray(_host(a)), q, method)


def _numel(x, **kwargs):
    from dask.array.backends import _numel_arraylike
    return _numel_arraylike(x, **kwargs)


def _nannumel(x, **kwargs):
    asc = _asc()
    return asc.sum(~asc.isnan(x), **kwargs)


def _to_numpy(x, **kwargs):
    return np.array(_host(x))


def _sizeof(x):
    return int(x.nbytes) + 64


def _tokenize(x):
    v = _host(x)
    raw = np.ascontiguousarray(v).reshape(-1).view(np.uint8)
    return ("pyasc.ndarray", v.dtype.name, tuple(v.shape), normalize_token(raw))


def is_valid_array_meta(x):
    """Whether ``x`` can be a Dask array's ``meta`` / chunk type (pyasc arrays can once this
    module is imported)."""
    return is_valid_chunk_type(type(x))


# ------------------------------------------------------------------ serialisation

def serialize(x):
    """``(header, frames)`` of pyasc array ``x`` for distributed's protocol: the dtype name and
    shape, and one frame of raw C-order bytes (no copy when ``x`` is contiguous)."""
    v = _host(x)
    if not v.flags.c_contiguous:
        v = v.copy(order="C")  # (np.ascontiguousarray would make a 0-d array 1-d)
    header = {"dtype": v.dtype.name, "shape": [int(s) for s in v.shape]}
    return header, [memoryview(v.reshape(-1).view(np.uint8))]


def deserialize(header, frames):
    """The pyasc array of a :func:`serialize` header and frames (copied into pyasc memory).
    The header's dtype must be one pyasc holds and the bytes must match dtype and shape."""
    name = header.get("dtype") if isinstance(header, dict) else None
    dt = _DTYPES.get(name) if isinstance(name, str) else None
    if dt is None:
        raise AscendTypeError(ErrorCode.INVALID_DTYPE, f"[pyasc.dask.deserialize] unsupported dtype {name!r}")
    shape = header.get("shape")
    if not isinstance(shape, (list, tuple)) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise AscendValueError(ErrorCode.INVALID_SHAPE, f"[pyasc.dask.deserialize] bad shape {shape!r}")
    data = frames[0] if len(frames) == 1 else b"".join(bytes(f) for f in frames)
    raw = np.frombuffer(data, dtype=np.uint8)
    need = math.prod(shape) * dt.itemsize
    if raw.size != need:
        raise AscendValueError(ErrorCode.INVALID_SHAPE,
                               f"[pyasc.dask.deserialize] {raw.size} bytes for {dt} {tuple(shape)} "
                               f"({need} expected)")
    return _asc().array(raw.view(dt).reshape(shape), copy=True)


def _rebuild(dtype, shape, data):
    return deserialize({"dtype": dtype, "shape": list(shape)}, [data])


def _reduce(x):
    # Dask pickles task graphs (a pyasc array captured in a graph: from_array's source, a
    # meta): rebuilt from dtype name, shape and bytes by deserialize's checks.
    header, frames = serialize(x)
    return _rebuild, (header["dtype"], tuple(header["shape"]), frames[0].tobytes())


def from_array(x, chunks="auto", **kwargs):
    """A Dask array of pyasc chunks over ``x`` (a pyasc array, NumPy array or anything
    ``dask.array.from_array`` takes). A pyasc ``x`` is sliced into pyasc views; any other
    source's chunks are converted by ``pyasc.asarray`` (one copy per chunk). Dask's own
    ``from_array(..., asarray=...)`` only switches NumPy conversion on or off, so it cannot
    produce pyasc chunks from a NumPy source by itself."""
    import dask.array as da
    asc = _asc()
    if isinstance(x, _ndarray):
        kwargs.setdefault("meta", asc.empty((0,) * x.ndim, dtype=x.dtype))
        return da.from_array(x, chunks=chunks, asarray=False, **kwargs)
    d = da.from_array(x, chunks=chunks, **kwargs)
    return d.map_blocks(asc.asarray, dtype=d.dtype, meta=asc.empty((0,) * d.ndim, dtype=d.dtype))


def _register_distributed():
    try:
        from distributed.protocol import dask_deserialize, dask_serialize
    except ImportError:  # distributed is optional for dask.array itself
        return False
    dask_serialize.register(_ndarray)(serialize)
    dask_deserialize.register(_ndarray)(deserialize)
    return True


class _WorkerSetup:
    """A distributed WorkerPlugin (duck-typed: ``setup(worker)``) importing pyasc.dask on a
    worker, so its deserialiser is registered before the first pyasc chunk arrives."""

    name = "pyasc-dask"

    def setup(self, worker=None):
        import pyasc.dask  # noqa: F401

    def teardown(self, worker=None):
        pass


def register_workers(client):
    """Makes ``client``'s workers (present and future) import pyasc.dask. Alternatively start
    workers with ``--preload pyasc.dask`` / ``LocalCluster(preload=['pyasc.dask'])``."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class PyascWorkerPlugin(_WorkerSetup, WorkerPlugin):
        pass

    client.register_plugin(PyascWorkerPlugin(), name="pyasc-dask")
    return client


def dask_setup(worker):
    """Hook of ``--preload pyasc.dask`` (nothing to do: importing this module registers)."""


def _register():
    T = _ndarray
    register_chunk_type(T)
    concatenate_lookup.register(T, _concatenate)
    tensordot_lookup.register(T, _tensordot)
    einsum_lookup.register(T, _einsum)
    empty_lookup.register(T, _empty)
    take_lookup.register(T, _take)
    divide_lookup.register(T, _divide)
    percentile_lookup.register(T, _percentile)
    numel_lookup.register(T, _numel)
    nannumel_lookup.register(T, _nannumel)
    to_numpy_dispatch.register(T, _to_numpy)
    sizeof.register(T, _sizeof)
    normalize_token.register(T, _tokenize)
    copyreg.pickle(T, _reduce)
    _register_distributed()


_register()
