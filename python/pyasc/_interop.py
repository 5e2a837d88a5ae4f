"""Interoperability of :class:`pyasc.ndarray` with NumPy and the array API.

Installs on ``ndarray``:

* ``__array_ufunc__``: ``np.add(x, y)`` and every NumPy ufunc whose name pyasc
  has (``np.sqrt`` -> ``pyasc.sqrt``) return pyasc arrays; ``ufunc.reduce``
  and ``ufunc.accumulate`` map to pyasc's reductions and scans (add -> sum /
  cumsum, multiply -> prod / cumprod, maximum -> max, minimum -> min,
  logical_and -> all, logical_or -> any). Anything else raises a TypeError
  naming the ufunc (and method).
* ``__array_function__``: ``np.concatenate(xs)`` and every NumPy function
  whose name pyasc has (``np.linalg.*`` -> ``pyasc.linalg.*``) dispatch to
  pyasc; an unsupported one raises a TypeError naming the function.
  ``np.asarray(x)`` is not a dispatched function: it stays a zero-copy view.
* ``__dlpack__`` / ``__dlpack_device__`` (C++: pyasc._C._to_dlpack) and the
  module function :func:`from_dlpack`.
* ``__array_namespace__`` and ``flags`` (NumPy's C_CONTIGUOUS, F_CONTIGUOUS,
  OWNDATA, WRITEABLE, ALIGNED for the equivalent NumPy array).

Module functions: :func:`from_dlpack`, :func:`__array_namespace_info__`,
:func:`reuse_buffer`.
"""

from __future__ import annotations

import contextlib as _contextlib
import importlib as _importlib

import ml_dtypes as _ml_dtypes
import numpy as _np

from . import _C

__all__ = ["from_dlpack", "reuse_buffer", "__array_namespace_info__"]

_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")
_DLPACK_CPU = 1


def _pyasc():
    return _importlib.import_module("pyasc")


# ------------------------------------------------------------------ __array_ufunc__

_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
           "logical_and": "all", "logical_or": "any"}
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}
_UFUNC_ALIASES = {"divide": "true_divide", "absolute": "abs"}


def _ufunc_fn(name):
    ns = _pyasc()
    fn = getattr(ns, name, None)
    if fn is None and name in _UFUNC_ALIASES:
        fn = getattr(ns, _UFUNC_ALIASES[name], None)
    return fn if callable(fn) else None


def _unwrap_out(kwargs):
    out = kwargs.pop("out", None)
    if isinstance(out, tuple):
        if len(out) != 1:
            raise TypeError("pyasc ufuncs have a single output")
        out = out[0]
    return out


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    name = ufunc.__name__
    if method == "__call__":
        fn = _ufunc_fn(name)
        if fn is None:
            raise TypeError(f"pyasc does not support the NumPy ufunc '{name}'")
        if ufunc.nout == 1:  # pyasc's ufuncs take NumPy's keywords themselves (pyasc._ufunc)
            return fn(*inputs, **kwargs)
        out = _unwrap_out(kwargs)
        dtype = kwargs.pop("dtype", None)
        if kwargs.get("casting") == "same_kind":
            del kwargs["casting"]
        if kwargs:
            raise TypeError(f"pyasc's '{name}' does not support the ufunc arguments {sorted(kwargs)}")
        res = fn(*inputs) if out is None else fn(*inputs, out=out)
        if dtype is not None:
            res = res.astype(dtype)
        return res
    if method in ("reduce", "accumulate"):
        table = _REDUCE if method == "reduce" else _ACCUMULATE
        if name not in table or len(inputs) != 1:
            raise TypeError(f"pyasc does not support the NumPy ufunc method '{name}.{method}'")
        fn = getattr(_pyasc(), table[name])
        out = _unwrap_out(kwargs)
        axis = kwargs.pop("axis", 0)
        args = {"axis": axis}
        for key in ("dtype", "keepdims"):
            if key in kwargs:
                args[key] = kwargs.pop(key)
        if kwargs:
            raise TypeError(f"pyasc's '{name}.{method}' does not support the arguments {sorted(kwargs)}")
        if out is not None:
            args["out"] = out
        return fn(inputs[0], **args)
    raise TypeError(f"pyasc does not support the NumPy ufunc method '{name}.{method}'")


# ------------------------------------------------------------------ __array_function__


# NumPy's introspection functions, answered from the array's metadata.
_METADATA = {
    "ndim": lambda a: _C.asarray(a).ndim,
    "shape": lambda a: _C.asarray(a).shape,
    "size": lambda a, axis=None: _C.asarray(a).size if axis is None else _C.asarray(a).shape[axis],
}


def _array_function(self, func, types, args, kwargs):
    ndarray = _C.ndarray
    if not all(issubclass(t, (ndarray, _np.ndarray)) for t in types):
        return NotImplemented
    if func.__name__ in _METADATA and (getattr(func, "__module__", "") or "").startswith("numpy"):
        return _METADATA[func.__name__](*args, **kwargs)
    mod = getattr(func, "__module__", "") or ""
    ns = _pyasc()
    for part in mod.split(".")[1:]:  # numpy.linalg -> pyasc.linalg
        if part.startswith("_"):
            break
        ns = getattr(ns, part, None)
        if ns is None:
            break
    fn = getattr(ns, func.__name__, None) if ns is not None else None
    if fn is None or not callable(fn) or fn is func:
        qual = mod + "." + func.__name__ if mod and not mod.startswith("numpy._") else "numpy." + func.__name__
        raise TypeError(f"pyasc does not implement '{qual}' for pyasc arrays (no __array_function__ override)")
    return fn(*args, **kwargs)


# ------------------------------------------------------------------ DLPack


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    if stream is not None and stream != -1 and not isinstance(stream, int):
        raise TypeError("stream must be None or an int for the CPU device")
    return _C._to_dlpack(self, max_version, dl_device, copy)


def _dlpack_device(self):
    return (_DLPACK_CPU, 0)


def from_dlpack(x, /, *, device=None, copy=None):
    """A pyasc array viewing the memory of ``x`` (any object with ``__dlpack__``, or a
    DLPack capsule) without a copy (``copy=True`` copies). CPU memory only."""
    if device not in (None, "cpu"):
        raise ValueError(f"unsupported device {device!r}: pyasc arrays live on 'cpu'")
    if hasattr(x, "__dlpack__"):
        if hasattr(x, "__dlpack_device__"):
            dev = x.__dlpack_device__()
            if int(dev[0]) != _DLPACK_CPU:
                raise BufferError(f"[from_dlpack] cannot import from DLPack device {tuple(dev)}; CPU only")
        try:
            cap = x.__dlpack__(max_version=(1, 0))
        except TypeError:
            cap = x.__dlpack__()
    else:
        cap = x
    t = _C._from_capsule(cap)
    return t.copy() if copy else t


# ------------------------------------------------------------------ array API


class _Info:
    """Inspection namespace of the array API (``__array_namespace_info__()``)."""

    def capabilities(self):
        """What pyasc supports: boolean indexing, data-dependent output shapes (unique, nonzero,
        boolean masks), arrays of up to 64 dimensions."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        """The device new arrays live on: 'cpu'."""
        return "cpu"

    def devices(self):
        """The devices arrays can live on: ['cpu']."""
        return ["cpu"]

    def default_dtypes(self, *, device=None):
        """NumPy's defaults: float64, complex128, int64 (also for indexing)."""
        self._check(device)
        return {"real floating": _np.dtype(_np.float64), "complex floating": _np.dtype(_np.complex128),
                "integral": _np.dtype(_np.int64), "indexing": _np.dtype(_np.int64)}

    _KINDS = {
        "bool": ["bool"],
        "signed integer": ["int8", "int16", "int32", "int64"],
        "unsigned integer": ["uint8", "uint16", "uint32", "uint64"],
        "real floating": ["float32", "float64"],
        "complex floating": ["complex64", "complex128"],
    }

    def dtypes(self, *, device=None, kind=None):
        """The array API's data types of ``kind`` (None: all; a kind name, 'integral', 'numeric',
        a dtype, or a tuple of them), name -> dtype. float16 and bfloat16 arrays exist too but
        are not array API dtypes, so they are not listed (as NumPy lists no float16)."""
        self._check(device)
        k = self._KINDS
        groups = {"integral": k["signed integer"] + k["unsigned integer"],
                  "numeric": k["signed integer"] + k["unsigned integer"] + k["real floating"]
                  + k["complex floating"]}
        if kind is None:
            names = k["bool"] + groups["numeric"]
        else:
            names = []
            for kk in (kind if isinstance(kind, tuple) else (kind,)):
                if isinstance(kk, str) and kk in k:
                    names += k[kk]
                elif isinstance(kk, str) and kk in groups:
                    names += groups[kk]
                else:
                    raise ValueError(f"unsupported dtype kind {kk!r}")
        return {n: _np.dtype(_ml_dtypes.bfloat16) if n == "bfloat16" else _np.dtype(n) for n in dict.fromkeys(names)}

    @staticmethod
    def _check(device):
        if device not in (None, "cpu"):
            raise ValueError(f"unsupported device {device!r}")


def __array_namespace_info__():  # noqa: N807 - the array API's name
    """The array API inspection namespace (capabilities, devices, default and supported dtypes)."""
    return _Info()


def _array_namespace(self, /, *, api_version=None):
    if api_version is not None and api_version not in _API_VERSIONS:
        raise ValueError(f"unsupported array API version {api_version!r}; supported: {', '.join(_API_VERSIONS)}")
    return _pyasc()


def _to_device(self, device, /, *, stream=None):
    """The array on ``device`` (the array API's ``to_device``): pyasc has one device, 'cpu', so
    this is the array itself; any other device is a ValueError. ``stream`` must be None or an int."""
    from ._array_api import check_device

    check_device("to_device", device)
    if stream is not None and not isinstance(stream, int):
        raise TypeError("to_device: stream must be None or an int for the CPU device")
    return self


# ------------------------------------------------------------------ flags


class _Flags:
    """NumPy's flags of the equivalent array: item access by name
    (``x.flags['C_CONTIGUOUS']``, also 'C', 'F', ...) and attributes (``x.flags.c_contiguous``).
    WRITEABLE can be set as in NumPy (``x.flags.writeable = False``; setting it back on
    read-only memory raises ValueError); the other flags are read-only."""

    _ALIAS = {"C": "C_CONTIGUOUS", "CONTIGUOUS": "C_CONTIGUOUS", "F": "F_CONTIGUOUS", "FORTRAN": "F_CONTIGUOUS",
              "O": "OWNDATA", "W": "WRITEABLE", "A": "ALIGNED", "B": "BEHAVED", "CA": "CARRAY", "FA": "FARRAY"}
    # NumPy's combined flags, read-only, derived from the stored ones.
    _DERIVED = {
        "FNC": lambda d: d["F_CONTIGUOUS"] and not d["C_CONTIGUOUS"],
        "FORC": lambda d: d["F_CONTIGUOUS"] or d["C_CONTIGUOUS"],
        "BEHAVED": lambda d: d["ALIGNED"] and d["WRITEABLE"],
        "CARRAY": lambda d: d["ALIGNED"] and d["WRITEABLE"] and d["C_CONTIGUOUS"],
        # NumPy's flagsobject.c tests (flags & (ALIGNED|WRITEABLE|F_CONTIGUOUS)) != 0, i.e. any of
        # the three, so a non-contiguous writeable array is an "farray" there: kept as NumPy has it.
        "FARRAY": lambda d: (d["ALIGNED"] or d["WRITEABLE"] or d["F_CONTIGUOUS"]) and not d["C_CONTIGUOUS"],
    }

    def __init__(self, d, array=None):
        object.__setattr__(self, "_d", dict(d))
        object.__setattr__(self, "_array", array)

    def __getitem__(self, key):
        key = self._ALIAS.get(key, key)
        if key in self._DERIVED:
            return bool(self._DERIVED[key](self._d))
        if key not in self._d:
            raise KeyError(f"Unknown flag {key!r}")
        return self._d[key]

    def __setitem__(self, key, value):
        key = self._ALIAS.get(key, key)
        if key != "WRITEABLE" or self._array is None:
            raise ValueError(f"cannot set flag {key!r}" if key in self._d else f"Unknown flag {key!r}")
        _C._set_writeable(self._array, bool(value))
        self._d["WRITEABLE"] = bool(value)

    def __getattr__(self, name):
        key = name.upper()
        if key in self._d or key in self._DERIVED:
            return self[key]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        self[name.upper()] = value

    def __eq__(self, other):
        return isinstance(other, _Flags) and self._d == other._d

    def __repr__(self):
        return "\n".join(f"  {k} : {v}" for k, v in self._d.items())


def _flags(self):
    return _Flags(_C._layout_flags(self), self)


def _fill(self, value):
    """Sets every element to ``value`` (NumPy's ``ndarray.fill``: cast to this array's
    dtype; ValueError on a read-only array)."""
    _C._check_writeable(self, "fill")
    if not isinstance(value, (int, float, complex, _np.generic)):
        # A sequence, an array, a str, None: NumPy's scalar conversion for this dtype decides
        # (ValueError "setting an array element with a sequence" for float64, TypeError for
        # int32 and bfloat16, True for bool, NaN from None for floats), so it is asked.
        probe = _np.empty(1, self.dtype)
        if isinstance(value, _C.ndarray):  # NumPy's reading of an array (not of pyasc's __float__)
            value = value.numpy()
        probe.fill(value)
        value = probe[0]
    self[...] = value


def _setflags(self, write=None, align=None, uic=None):
    """NumPy's ``setflags``: ``write`` sets WRITEABLE (True on read-only memory raises
    ValueError); ``align`` and ``uic`` cannot be changed here (ValueError unless None)."""
    if align is not None or uic is not None:
        raise ValueError("setflags: only the write flag can be changed on a pyasc array")
    if write is not None:
        _C._set_writeable(self, bool(write))


# ------------------------------------------------------------------ reuse_buffer


@_contextlib.contextmanager
def reuse_buffer(out):
    """Inside the block, every op of this thread whose result has ``out``'s shape and dtype
    writes it into ``out``'s (C-contiguous) buffer instead of fresh memory, like ``out=``:
    a result computed earlier in the block is overwritten by the next matching op. Inputs that
    share ``out``'s memory in another layout make the op allocate as usual. Nested blocks use
    the innermost buffer. Yields ``out``."""
    if not isinstance(out, _C.ndarray):
        raise TypeError("reuse_buffer: out must be a pyasc.ndarray")
    _C._reuse_buffer_push(out)
    try:
        yield out
    finally:
        _C._reuse_buffer_pop()


def _install():
    cls = _C.ndarray
    cls.__array_ufunc__ = _array_ufunc
    cls.__array_function__ = _array_function
    cls.__dlpack__ = _dlpack
    cls.__dlpack_device__ = _dlpack_device
    cls.__array_namespace__ = _array_namespace
    cls.to_device = _to_device
    cls.flags = property(_flags, doc="NumPy's flags for this array (WRITEABLE settable, as in NumPy).")
    cls.setflags = _setflags
    if not hasattr(cls, "fill"):
        cls.fill = _fill


_install()
