"""Array creation and conversion beyond :mod:`pyasc._namespace`: ``logspace``/
``geomspace`` (computed from scalars as NumPy does, then copied, like
``arange``), ``frombuffer``, ``fromiter``, ``asarray_chkfinite``, and the
layout conversions ``asanyarray``, ``ascontiguousarray``, ``asfortranarray``
and ``require`` (NumPy's ``_core/_asarray``).

Memory layout: pyasc arrays are strided views, so a Fortran-ordered array
exists as in NumPy (the transpose of a C-contiguous buffer: ``flags.f_contiguous``
is True, ``x.T`` is C-contiguous). ``asfortranarray``, ``order='F'`` and
``require(..., 'F')`` copy into that layout when the input is not already in
it; every device op accepts such arrays and returns C-contiguous results, as
new arrays of NumPy's with ``order='K'`` on Fortran input would not be.
Re-exported by :mod:`pyasc.numeric`.
"""

from __future__ import annotations

import numpy as _np

from . import _C
from ._helpers import _TE, _VE, _host
from .errors import AscendError as _AscendError

__all__ = [
    "logspace", "geomspace", "frombuffer", "fromiter", "asarray_chkfinite",
    "asanyarray", "ascontiguousarray", "asfortranarray", "require",
]


# ------------------------------------------------------------------ creation


def _host_creation(fn, *args, dtype=None, **kw):
    if isinstance(dtype, _C.ndarray):
        # np.dtype() would read a pyasc array's .dtype; NumPy refuses any array as a dtype, at its
        # own point (after the other arguments): a NumPy array stands in
        dtype = _np.zeros(0)
    hargs = [_host(a) for a in args]
    hkw = {k: _host(v) for k, v in kw.items()}
    try:
        r = fn(*hargs, dtype=dtype, **hkw)
    except (TypeError, ValueError) as e:
        if isinstance(e, _AscendError) or type(e) not in (TypeError, ValueError):
            raise
        raise (_TE if isinstance(e, TypeError) else _VE)(f"[{fn.__name__}] {e}") from None
    return _C.array(_np.asarray(r))


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
    """``asarray`` that raises ValueError on NaN or Inf (``numpy.asarray_chkfinite``).

    As NumPy 2.4, only NumPy's own float and complex types are checked (ml_dtypes'
    bfloat16, type char 'E', is not in ``typecodes['AllFloat']``)."""
    if dtype is not None:  # NumPy's asarray(a, dtype, order) converts the dtype, then the order
        from ._signatures import check_dtype  # noqa: PLC0415

        check_dtype("asarray_chkfinite", dtype)
    if order is not None:
        if not isinstance(order, str):
            raise _TE(f"[asarray_chkfinite] order must be str, not {type(order).__name__}")
        if order.upper() not in ("C", "F", "A", "K"):
            raise _VE(f"[asarray_chkfinite] order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    # (asarray(a, dtype) as NumPy: Python values convert straight to the dtype -- asarray_chkfinite(1j,
    # dtype=int64) is the TypeError of int(1j); an astype of asarray(1j) dropped the imaginary part)
    a = _C.asarray(a) if dtype is None else _C.asarray(a, dtype)
    if a.dtype.kind in "fc":
        if not bool(_C.all(_C.isfinite(a))):
            raise _VE("[asarray_chkfinite] array must not contain infs or NaNs")
    return a


# ------------------------------------------------------------------ layout conversions


def _check_like(like, name):
    if like is not None:
        raise _TE(f"[{name}] like= is not supported by pyasc")


def _convert(a, dtype, name):
    """``a`` itself when it is a pyasc array of ``dtype`` (or dtype is None), else ``asarray``."""
    if dtype is not None:  # (np.dtype() of an array would read its .dtype: NumPy's TypeError first)
        from ._signatures import check_dtype  # noqa: PLC0415

        check_dtype(name, dtype)
    if isinstance(a, _C.ndarray) and (dtype is None or _np.dtype(dtype) == _np.dtype(a.dtype)):
        return a
    return _C.asarray(a) if dtype is None else _C.asarray(a, dtype)


def _c_copy(x):
    """A C-contiguous copy of ``x``."""
    return x.copy()


def _f_layout(x):
    """``x`` itself when Fortran-contiguous, else a copy in Fortran order (the transpose of a
    C-contiguous copy of the transpose)."""
    if x.flags.f_contiguous:
        return x
    return _C.transpose(_c_copy(_C.transpose(x)))


def _with_order(x, order, name, copy=None):
    """``x`` in ``order``; with ``copy=False`` a needed copy is NumPy's "Unable to avoid copy"
    ValueError, raised before any copy is made (a huge broadcast view: not its MemoryError)."""
    if order is not None and not isinstance(order, str):  # NumPy: TypeError for a non-str order
        # (checked first: an array's `in` test compares elementwise, an ambiguous truth value)
        raise _TE(f"[{name}] order must be str, not {type(order).__name__}")
    if order is None or order in ("K", "A", "k", "a"):
        return x
    if order in ("C", "c", "F", "f") and copy is False and \
            not (x.flags.c_contiguous if order in ("C", "c") else x.flags.f_contiguous):
        raise _VE(f"[{name}] Unable to avoid copy while creating an array as requested: a copy is needed to give "
                  f"order {order!r} (an array of shape {tuple(x.shape)} and strides {tuple(x.strides)}) but "
                  "copy=False")
    if order in ("C", "c"):
        return x if x.flags.c_contiguous else _c_copy(x)
    if order in ("F", "f"):
        return _f_layout(x)
    if not isinstance(order, str):  # NumPy: TypeError for a non-str order
        raise _TE(f"[{name}] order must be str, not {type(order).__name__}")
    raise _VE(f"[{name}] order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """``asarray`` (pyasc has no ndarray subclasses to pass through) (``numpy.asanyarray``).

    ``order`` 'C'/'F' copies into that layout when needed ('A', 'K', None keep the input's);
    ``copy=True`` always copies, ``copy=False`` raises ValueError when a copy is needed;
    ``device`` must be None or 'cpu'."""
    _check_like(like, "asanyarray")
    if device not in (None, "cpu"):
        raise _VE(f"[asanyarray] unsupported device {device!r}: pyasc arrays live on 'cpu'")
    if copy is False and isinstance(a, (list, tuple, bool, int, float, complex, _np.generic)):
        # (as asarray: a Python sequence or scalar, or a NumPy scalar, has no array memory to share)
        raise _VE(f"[asanyarray] Unable to avoid copy while creating an array as requested: a {type(a).__name__} "
                  "is always copied (copy=False)")
    x = _convert(a, dtype, "asanyarray") if copy is not False else (
        a if isinstance(a, _C.ndarray) and (dtype is None or _np.dtype(dtype) == _np.dtype(a.dtype))
        else _C.asarray(a, dtype, False))
    y = _with_order(x, order, "asanyarray", copy)
    if y is not x and copy is False:
        raise _VE(f"[asanyarray] Unable to avoid copy while creating an array as requested: a copy is needed to "
                  f"give order {order!r} but copy=False")
    if copy is True and y is x:
        y = _f_layout(_c_copy(x)) if x.flags.f_contiguous and not x.flags.c_contiguous else _c_copy(x)
    return y


def ascontiguousarray(a, dtype=None, *, like=None):
    """A C-contiguous array (at least 1-d) of ``a``: ``a`` itself when it already is one
    (``numpy.ascontiguousarray``)."""
    _check_like(like, "ascontiguousarray")
    x = _convert(a, dtype, "ascontiguousarray")
    if x.ndim == 0:
        x = _C.reshape(x, (1,))
    return x if x.flags.c_contiguous else _c_copy(x)


def asfortranarray(a, dtype=None, *, like=None):
    """A Fortran-contiguous array (at least 1-d) of ``a``: ``a`` itself when it already is one
    (``numpy.asfortranarray``; see the module docstring for Fortran order in pyasc)."""
    _check_like(like, "asfortranarray")
    x = _convert(a, dtype, "asfortranarray")
    if x.ndim == 0:
        x = _C.reshape(x, (1,))
    return _f_layout(x)


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
                 "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O",
                 "E": "E", "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None, *, like=None):
    """An array of ``dtype`` meeting the ``requirements`` flags, copying only when one is not met
    (``numpy.require``): 'C'/'C_CONTIGUOUS'/'CONTIGUOUS', 'F'/'F_CONTIGUOUS'/'FORTRAN',
    'A'/'ALIGNED', 'W'/'WRITEABLE', 'O'/'OWNDATA', 'E'/'ENSUREARRAY' (always met: pyasc has no
    subclasses). A copy is C-contiguous unless 'F' is required."""
    _check_like(like, "require")
    if isinstance(dtype, (_C.ndarray, _np.ndarray)):  # (np.dtype(<an array>) refuses it)
        from .errors import AscendTypeError, ErrorCode  # noqa: PLC0415

        raise AscendTypeError(ErrorCode.INVALID_DTYPE, "[require] Cannot construct a dtype from an array")
    if not requirements:
        return _convert(a, dtype, "require")
    req = set()
    for r in requirements:  # NumPy: POSSIBLE_FLAGS[r.upper()] (a str is iterated: 'CF' is 'C' and 'F')
        if not callable(getattr(r, "upper", None)):
            from .errors import AscendAttributeError, ErrorCode  # noqa: PLC0415

            raise AscendAttributeError(ErrorCode.INVALID_PARAM, f"[require] '{type(r).__name__}' object has no "
                                                                f"attribute 'upper' (requirement {r!r} is not a str)")
        key = r.upper()
        if key not in _REQUIREMENTS:
            from .errors import AscendKeyError, ErrorCode  # noqa: PLC0415

            raise AscendKeyError(ErrorCode.INVALID_PARAM,
                                 f"[require] unknown requirement {r!r}; expected one of {sorted(_REQUIREMENTS)}")
        req.add(_REQUIREMENTS[key])
    req.discard("E")
    if {"C", "F"} <= req:
        raise _VE('[require] Cannot specify both "C" and "F" order')
    order = "C" if "C" in req else "F" if "F" in req else None
    x = _with_order(_convert(a, dtype, "require"), order, "require")
    for flag in req - {"C", "F"}:
        if not x.flags[flag]:
            return _f_layout(_c_copy(x)) if order == "F" else _c_copy(x)
    return x
