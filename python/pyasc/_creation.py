"""Array creation beyond :mod:`pyasc._namespace`: ``logspace``/``geomspace``
(computed from scalars as NumPy does, then copied, like ``arange``),
``frombuffer``, ``fromiter`` and ``asarray_chkfinite``.
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import numpy as _np

from . import _C
from ._helpers import _TE, _VE, _host

__all__ = [
    "logspace", "geomspace", "frombuffer", "fromiter", "asarray_chkfinite",
]


# ------------------------------------------------------------------ creation


def _host_creation(fn, *args, dtype=None, **kw):
    hargs = [_host(a) for a in args]
    hkw = {k: _host(v) for k, v in kw.items()}
    return _C.array(_np.asarray(fn(*hargs, dtype=dtype, **hkw)))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop)`` (values computed as NumPy does, then copied) (``numpy.logspace``)."""
    return _host_creation(_np.logspace, start, stop, num=num, endpoint=endpoint, base=base, dtype=dtype, axis=axis)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """A geometric progression from ``start`` to ``stop`` (computed as NumPy does, then copied)
    (``numpy.geomspace``)."""
    return _host_creation(_np.geomspace, start, stop, num=num, endpoint=endpoint, dtype=dtype, axis=axis)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """A 1-d array copied from the bytes of ``buffer`` (``numpy.frombuffer``)."""
    if like is not None:
        raise _TE("[frombuffer] like= is not supported by pyasc")
    return _C.array(_np.frombuffer(buffer, dtype=dtype, count=count, offset=offset))


def fromiter(iter, dtype, count=-1, *, like=None):  # noqa: A002 - NumPy's parameter name
    """A 1-d array from the values of an iterable (``numpy.fromiter``)."""
    if like is not None:
        raise _TE("[fromiter] like= is not supported by pyasc")
    return _C.array(_np.fromiter(iter, dtype=dtype, count=count))


def asarray_chkfinite(a, dtype=None, order=None):
    """``asarray`` that raises ValueError on NaN or Inf (``numpy.asarray_chkfinite``)."""
    a = _C.asarray(a) if dtype is None else _C.asarray(a).astype(dtype)
    if a.dtype.kind in "fc" or a.dtype.kind == "V":
        if not bool(_C.all(_C.isfinite(a))):
            raise _VE("[asarray_chkfinite] array must not contain infs or NaNs")
    return a
